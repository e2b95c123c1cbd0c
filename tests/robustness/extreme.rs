//! Extreme inputs: deep nesting (in this process and in a child, where a stack overflow
//! would abort), a 10 MB file, one very long line, non-UTF-8 and NUL bytes, CRLF endings.

use std::collections::BTreeMap;
use std::process::Command;

use clmigrate_lint::{check, nesting::MAX_NESTING, Report, Settings};

use crate::support::{announce, scratch};

/// Nested constructs `depth` levels deep, one function each.
fn nested(depth: usize) -> Vec<(&'static str, String)> {
    let n = depth;
    vec![
        (
            "parens",
            format!("fn f() {{ let x = {}1{}; }}", "(".repeat(n), ")".repeat(n)),
        ),
        (
            "blocks",
            format!("fn f() {}{}", "{".repeat(n), "}".repeat(n)),
        ),
        (
            "binary",
            format!("fn f() {{ let x = 1{}; }}", " + 1".repeat(n)),
        ),
        (
            "methods",
            format!("fn f() {{ let x = q{}; }}", ".finish()".repeat(n)),
        ),
        ("unary", format!("fn f() {{ let x = {}1; }}", "-".repeat(n))),
        (
            "ifs",
            format!("fn f() {{ {}{} }}", "if a { ".repeat(n), "}".repeat(n)),
        ),
        (
            "else-ifs",
            format!("fn f() {{ if a {{}} {} }}", "else if a {} ".repeat(n)),
        ),
        (
            "loops",
            format!(
                "fn f(q: &CommandQueue) {{ {}{} }}",
                "loop { q.enqueue_write_buffer(&mut b, CL_BLOCKING, 0, &h, &[])?; ".repeat(n),
                "}".repeat(n)
            ),
        ),
        (
            "calls",
            format!("fn f() {{ let x = {}{}; }}", "g(".repeat(n), ")".repeat(n)),
        ),
        (
            "closures",
            format!("fn f() {{ let x = {}1; }}", "|| ".repeat(n)),
        ),
        (
            "move-closures",
            format!("fn f() {{ let x = {}1; }}", "move |a: u8| ".repeat(n)),
        ),
        ("fn-types", format!("type T = {}u8;", "fn() -> ".repeat(n))),
        (
            "impl-fn-types",
            format!("fn f() -> {}u8 {{ 0 }}", "impl Fn() -> ".repeat(n)),
        ),
        (
            "types",
            format!("type T = {}u8{};", "Vec<".repeat(n), ">".repeat(n)),
        ),
        (
            "modules",
            format!("{}{}", "mod a { ".repeat(n), "}".repeat(n)),
        ),
    ]
}

fn check_text(dir: &std::path::Path, name: &str, text: &[u8]) -> Report {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    // Every file is parsed: these inputs need not name an OpenCL API to reach the parser.
    let settings = Settings {
        prefilter: false,
        ..Settings::default()
    };
    let r = check(std::slice::from_ref(&p), &settings);
    std::fs::remove_file(&p).unwrap();
    assert!(
        r.problems.iter().all(|p| !p.internal),
        "{name}: {:?}",
        r.problems
    );
    r
}

#[test]
fn deep_nesting_is_a_diagnostic_or_a_normal_result() {
    let dir = scratch("deep");
    let mut inputs = 0;
    // Below the limit: checked normally.
    for (kind, text) in nested(MAX_NESTING / 8) {
        let r = check_text(&dir, &format!("{kind}.rs"), text.as_bytes());
        assert!(r.problems.is_empty(), "{kind}: {:?}", r.problems);
        inputs += 1;
    }
    // 10,000 levels: one diagnostic, not a crash.
    for (kind, text) in nested(10_000) {
        let r = check_text(&dir, &format!("{kind}.rs"), text.as_bytes());
        assert_eq!(r.problems.len(), 1, "{kind}");
        assert!(
            r.problems[0].message.contains("nested more than"),
            "{kind}: {}",
            r.problems[0].message
        );
        inputs += 1;
    }
    announce(&format!("extreme: {inputs} deeply nested inputs checked"));
}

#[test]
fn deep_nesting_does_not_abort_the_binary() {
    let dir = scratch("deep-child");
    // 400,000 levels of the two cheapest kinds to build (as deep as `.finish()` calls go
    // within the size limit of a file); the rest at lower depths.
    for depth in [MAX_NESTING / 8, 10_000, 400_000] {
        for (kind, text) in nested(depth)
            .into_iter()
            .filter(|(k, _)| depth < 400_000 || matches!(*k, "parens" | "methods"))
        {
            let p = dir.join(format!("{kind}-{depth}.rs"));
            // `--diff` parses the fixed file (here: without the unused suppression).
            let text = format!("// clmigrate-lint: allow(CLM003)\n{text}");
            std::fs::write(&p, text).unwrap();
            for args in [
                vec!["--color", "never"],
                vec!["--diff", "--no-prefilter"],
                vec!["debug", "ir"],
            ] {
                let o = Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
                    .args(&args)
                    .arg(&p)
                    .output()
                    .unwrap();
                let err = String::from_utf8_lossy(&o.stderr);
                // `debug ir` exits 2 when it refuses the file, with the reason.
                // `--diff` exits 1 when there is a fix to print.
                let ok = o.status.code() == Some(0)
                    || (args[0] == "--diff" && o.status.code() == Some(1))
                    || (args[0] == "debug" && o.status.code() == Some(2) && err.contains("nested"));
                assert!(ok, "{kind} {depth} {args:?}: {:?} {err}", o.status);
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

fn codes(r: &Report) -> BTreeMap<&'static str, usize> {
    let mut m = BTreeMap::new();
    for f in &r.findings {
        *m.entry(f.code).or_insert(0) += 1;
    }
    m
}

fn seed_text() -> String {
    std::fs::read_to_string("fixtures/seed/buggy.rs").unwrap()
}

/// A file of copies of the seed program up to the size limit is checked whole; one byte more
/// and it is one diagnostic, not read (the limit bounds the memory one file takes).
#[test]
fn a_file_at_the_size_limit_is_checked_whole_and_a_larger_one_is_a_diagnostic() {
    let limit = clmigrate_lint::source::MAX_FILE_BYTES as usize;
    let dir = scratch("big");
    let one = check_text(&dir, "one.rs", seed_text().as_bytes());
    let seed = seed_text();
    let (_, body) = seed.split_at(seed.find("/// Runs the exchange").unwrap());
    let mut text = seed.clone();
    let mut copies = 1;
    loop {
        let next = body.replace("pub fn run(", &format!("pub fn run{copies}("));
        if text.len() + next.len() > limit {
            break;
        }
        text.push_str(&next);
        copies += 1;
    }
    text.push_str(&"/".repeat(limit - text.len()));
    assert_eq!(text.len(), limit);
    let r = check_text(&dir, "big.rs", text.as_bytes());
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    let want: BTreeMap<_, _> = codes(&one)
        .into_iter()
        .map(|(c, n)| (c, n * copies))
        .collect();
    assert_eq!(codes(&r), want);
    text.push('/');
    let r = check_text(&dir, "big.rs", text.as_bytes());
    assert!(r.findings.is_empty());
    let messages: Vec<&str> = r.problems.iter().map(|p| p.message.as_str()).collect();
    assert_eq!(
        messages,
        [format!("larger than {} MiB; it was not read", limit >> 20)]
    );
    announce(&format!(
        "extreme: a {} MiB file with {} findings checked",
        limit >> 20,
        codes(&one).values().sum::<usize>() * copies
    ));
}

#[test]
fn line_endings_and_long_lines_do_not_change_findings() {
    let dir = scratch("lines");
    for e in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
        let e = e.unwrap();
        if e.path().extension().is_none_or(|x| x != "rs") {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap();
        let lf = check_text(&dir, "lf.rs", text.as_bytes());
        let crlf = check_text(&dir, "crlf.rs", text.replace('\n', "\r\n").as_bytes());
        assert_eq!(codes(&lf), codes(&crlf), "{}", e.path().display());
        // Without comments every line can be joined into one; suppressions are comments, so
        // files with one are compared only across line endings.
        if text.contains("clmigrate-lint: allow") {
            continue;
        }
        let tokens: proc_macro2::TokenStream = text.parse().unwrap();
        let line = check_text(&dir, "line.rs", tokens.to_string().as_bytes());
        assert_eq!(codes(&lf), codes(&line), "{}", e.path().display());
        let human = clmigrate_lint::report::human::render(&line);
        assert!(human.contains("checked"), "{human}");
    }
}

#[test]
fn odd_bytes_are_a_diagnostic_or_a_normal_result() {
    let dir = scratch("bytes");
    let seed = seed_text();
    let mid = seed.len() / 2;
    let cases: Vec<(&str, Vec<u8>, bool)> = vec![
        (
            "invalid UTF-8",
            [
                &seed.as_bytes()[..mid],
                b"\xff\xfe",
                &seed.as_bytes()[mid..],
            ]
            .concat(),
            true,
        ),
        (
            "truncated UTF-8",
            "fn f() { let s = \"é\"; }".as_bytes()[..21].to_vec(),
            true,
        ),
        (
            "NUL in code",
            format!("fn f() {{ \0 }}\n{seed}").into_bytes(),
            true,
        ),
        (
            "NUL in a string",
            seed.replace("\"step_dev0\"", "\"step\0dev0\"").into_bytes(),
            false,
        ),
        (
            "NUL in a comment",
            seed.replace("/// Elements", "/// El\0ements").into_bytes(),
            false,
        ),
        ("a BOM", format!("\u{feff}{seed}").into_bytes(), false),
        (
            "a shebang",
            format!("#!/usr/bin/env run-cargo-script\n{seed}").into_bytes(),
            false,
        ),
        ("only NULs", vec![0; 100_000], true),
        (
            "random bytes",
            (0..1_000_000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
                .collect(),
            true,
        ),
        ("an empty file", Vec::new(), false),
        ("a 1 MB line of one identifier", vec![b'a'; 1 << 20], true),
        (
            "a 1 MB string",
            format!("const S: &str = \"{}\";", "x".repeat(1 << 20)).into_bytes(),
            false,
        ),
        (
            "a 1 MB kernel source",
            seed.replace(
                "__kernel void step_dev0",
                &format!("/* {} */ __kernel void step_dev0", "é".repeat(1 << 19)),
            )
            .into_bytes(),
            false,
        ),
        (
            "an unterminated comment",
            format!("{seed}/* never closed").into_bytes(),
            true,
        ),
    ];
    for (what, bytes, problem) in &cases {
        let r = check_text(&dir, "odd.rs", bytes);
        assert_eq!(
            r.problems.len(),
            usize::from(*problem),
            "{what}: {:?}",
            r.problems
        );
    }
    announce(&format!(
        "extreme: {} inputs with odd bytes checked",
        cases.len()
    ));
}

/// A number literal a million digits long (the parser is quadratic in its length) is one
/// diagnostic; a function with 100,000 `let`s is checked.
#[test]
fn huge_literals_are_a_diagnostic_and_long_functions_are_checked() {
    let dir = scratch("literal");
    let call = "q.enqueue_write_buffer(&mut b, CL_BLOCKING, 0, &h, &[])?;\n";
    let digits = format!(
        "fn f(q: &CommandQueue) {{\n{call}let x = {};\n}}\n",
        "1".repeat(1_000_000)
    );
    let r = check_text(&dir, "digits.rs", digits.as_bytes());
    assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    assert!(r.problems[0].message.contains("number literal longer than"));
    let lets: String = (0..100_000)
        .map(|i| format!("    let x{i} = {i};\n"))
        .collect();
    let lets = format!("fn f(q: &CommandQueue) {{\n{call}{lets}}}\n");
    let r = check_text(&dir, "lets.rs", lets.as_bytes());
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(r.parsed, 1);
}

/// 4,000 unused suppressions on one line: each finding's human output names the position
/// instead of printing the whole line again (it printed 865 MB).
#[test]
fn many_findings_on_one_long_line_do_not_repeat_it() {
    let dir = scratch("long-line");
    let sups = "/* clmigrate-lint: allow(CLM003) */ ".repeat(4_000);
    let text = format!(
        "fn f(q: &CommandQueue) {{\nq.enqueue_write_buffer(&mut b, CL_BLOCKING, 0, &h, &[])?;\nlet x = 1; {sups}\n}}\n"
    );
    let r = check_text(&dir, "sups.rs", text.as_bytes());
    assert_eq!(r.findings.len(), 4_000);
    let out = clmigrate_lint::report::human::render(&r);
    assert!(out.len() < 4_000 * 400, "{} bytes", out.len());
    assert!(out.contains("sups.rs:3:12 (a line too long to show): suppresses nothing"));
    // The JSON spans leave the line (148 kB) out of their `text` too (each repeated it),
    // and keep the positions.
    let json = clmigrate_lint::report::json::render(&r);
    assert!(json.len() < 4_000 * 8_000, "{} bytes", json.len());
    let first: serde_json::Value = serde_json::from_str(json.lines().next().unwrap()).unwrap();
    let span = &first["message"]["spans"][0];
    assert_eq!(span["line_start"], 3);
    assert_eq!(span["text"], serde_json::json!([]));
}

/// `--format short` on one long non-ASCII line with 20,000 findings: each column counts
/// characters from the line's start (columns used to be counted from the start of the
/// line for each finding, quadratic in the line's length).
#[test]
fn short_output_on_a_long_non_ascii_line_counts_characters() {
    let dir = scratch("long-utf8");
    let sup = "/* clmigrate-lint: allow(CLM003) -- é ü 漢 */ ";
    let prefix = "let x = \"ééé\"; ";
    let n = 20_000;
    let text = format!(
        "fn f(q: &CommandQueue) {{\nq.enqueue_write_buffer(&mut b, CL_BLOCKING, 0, &h, &[])?;\n{prefix}{}\n}}\n",
        sup.repeat(n)
    );
    let r = check_text(&dir, "utf8.rs", text.as_bytes());
    assert_eq!(r.findings.len(), n);
    let out = clmigrate_lint::report::short::render(&r);
    let at: Vec<(usize, usize)> = out
        .lines()
        .filter(|l| l.contains("warning[CLM900]"))
        .map(|l| {
            let mut parts = l.rsplit(".rs:").next().unwrap().split(':');
            let line = parts.next().unwrap().parse().unwrap();
            (line, parts.next().unwrap().parse().unwrap())
        })
        .collect();
    let (p, s) = (prefix.chars().count(), sup.chars().count());
    let want: Vec<(usize, usize)> = (0..n).map(|i| (3, p + i * s + 1)).collect();
    assert_eq!(at, want);
}
