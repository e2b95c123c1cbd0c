//! `--fix`, `--fix --unsafe` and `--diff` on copies of the fixtures: results parse, a second
//! run changes nothing, permissions survive, a failed write leaves the original intact.

use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use clmigrate_lint::fix::{self, apply_fixes};
use clmigrate_lint::ir::Span;
use clmigrate_lint::rules::{Applicability, Edit, Fix};
use clmigrate_lint::{check, Settings};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Every fixture file, copied into `dir` under its own relative path.
fn copy_fixtures(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
        let e = e.unwrap();
        if e.path().extension().is_some_and(|x| x == "rs") {
            let to = dir.join(e.path());
            fs::create_dir_all(to.parent().unwrap()).unwrap();
            fs::copy(e.path(), &to).unwrap();
            out.push(to);
        }
    }
    assert!(out.len() >= 12);
    out
}

fn contents(files: &[PathBuf]) -> Vec<String> {
    files
        .iter()
        .map(|f| fs::read_to_string(f).unwrap())
        .collect()
}

#[test]
fn every_fix_of_every_fixture_parses_and_a_second_run_changes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let files = copy_fixtures(dir.path());
    let before = contents(&files);
    let root = dir.path().join("fixtures");
    let first = run(&["--fix", "--unsafe", root.to_str().unwrap()]);
    let stderr = String::from_utf8_lossy(&first.stderr);
    assert!(!stderr.contains("error"), "{stderr}");
    let after = contents(&files);
    assert_ne!(before, after, "nothing was fixed: {stderr}");
    // Every file that parsed before still parses (the edition 2015 fixture parses only as
    // edition 2015 code, before and after).
    for ((f, text), old) in files.iter().zip(&after).zip(&before) {
        if syn::parse_file(old).is_ok() {
            syn::parse_file(text).unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        }
    }
    // Only the fixes that need none of the unfixable findings remain: the report shows them.
    let report = check(std::slice::from_ref(&root), &Settings::default());
    let (edits, refused) = fix::plan(&report, true);
    assert!(
        edits.is_empty() && refused.is_empty(),
        "{edits:?} {refused:?}"
    );
    let second = run(&["--fix", "--unsafe", root.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&second.stderr).contains("applied 0 fixes in 0 files"));
    assert_eq!(contents(&files), after);
    let diff = run(&["--diff", "--unsafe", root.to_str().unwrap()]);
    assert_eq!(diff.status.code(), Some(0));
    assert!(diff.stdout.is_empty());
}

#[test]
fn fix_applies_safe_fixes_only_and_unsafe_adds_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let seed = dir.path().join("buggy.rs");
    fs::copy("fixtures/seed/buggy.rs", &seed).unwrap();
    let o = run(&["--fix", "--format", "short", seed.to_str().unwrap()]);
    let text = fs::read_to_string(&seed).unwrap();
    assert!(!text.contains("CL_MIGRATE_MEM_OBJECT_HOST,"), "{text}");
    assert!(text.contains("kernel0.set_arg(1, &common_arr)"), "{text}");
    // The report after fixing shows what remains: CLM001 (MaybeIncorrect), CLM003, CLM004.
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(!out.contains("[CLM002]"), "{out}");
    assert!(
        out.contains("[CLM001]") && out.contains("[CLM003]"),
        "{out}"
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("applied 2 fixes in 1 file"));
    run(&["--fix", "--unsafe", seed.to_str().unwrap()]);
    let text = fs::read_to_string(&seed).unwrap();
    assert!(text.contains("kernel0.set_arg(1, &common_buf)"), "{text}");
}

#[test]
fn diff_prints_the_edits_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let seed = dir.path().join("buggy.rs");
    fs::copy("fixtures/seed/buggy.rs", &seed).unwrap();
    let o = run(&["--diff", seed.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let diff = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        diff.matches("-                CL_MIGRATE_MEM_OBJECT_HOST,\n")
            .count(),
        2,
        "{diff}"
    );
    assert_eq!(diff.matches("+                0,\n").count(), 2, "{diff}");
    assert!(diff.starts_with("--- a/"), "{diff}");
    assert_eq!(
        fs::read(&seed).unwrap(),
        fs::read("fixtures/seed/buggy.rs").unwrap()
    );
}

#[test]
fn unused_suppressions_are_fixed_into_the_fixture_fixed_file() {
    // Up to the module docs and the `//~` markers.
    let dir = tempfile::tempdir().unwrap();
    let case = dir.path().join("case.rs");
    fs::copy("fixtures/unused-suppression/case.rs", &case).unwrap();
    run(&["--fix", case.to_str().unwrap()]);
    let body = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.starts_with("//!"))
            .map(|l| l.split(" //~").next().unwrap_or(l))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        body(&fs::read_to_string(&case).unwrap()),
        body(&fs::read_to_string("fixtures/unused-suppression/fixed.rs").unwrap())
    );
}

#[test]
fn permissions_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let seed = dir.path().join("buggy.rs");
    fs::copy("fixtures/seed/buggy.rs", &seed).unwrap();
    fs::set_permissions(&seed, fs::Permissions::from_mode(0o640)).unwrap();
    run(&["--fix", seed.to_str().unwrap()]);
    assert_ne!(
        fs::read(&seed).unwrap(),
        fs::read("fixtures/seed/buggy.rs").unwrap()
    );
    let mode = fs::metadata(&seed).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o640);
}

#[test]
fn an_interrupted_write_leaves_the_original_intact() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("host.rs");
    let original = fs::read("fixtures/seed/buggy.rs").unwrap();
    fs::write(&file, &original).unwrap();
    let err = fix::write_atomic_with(&file, b"fn replaced() {}\n", |f, data| {
        use std::io::Write;
        f.write_all(&data[..4])?;
        Err(std::io::Error::other("disk full"))
    })
    .unwrap_err();
    assert_eq!(err.to_string(), "disk full");
    assert_eq!(fs::read(&file).unwrap(), original);
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["host.rs"], "the temporary file is removed");
    fix::write_atomic(&file, b"fn replaced() {}\n").unwrap();
    assert_eq!(fs::read(&file).unwrap(), b"fn replaced() {}\n");
}

fn edit(start: usize, end: usize, replacement: &str) -> Fix {
    Fix {
        message: "test".into(),
        applicability: Applicability::Safe,
        edits: vec![Edit {
            span: Span {
                file: 0,
                start,
                end,
            },
            replacement: replacement.into(),
        }],
    }
}

#[test]
fn overlapping_fixes_are_dropped() {
    let text = "let a = b + c;";
    let first = edit(8, 13, "x");
    let overlapping = edit(12, 13, "y");
    let apart = edit(4, 5, "q");
    let insert = edit(0, 0, "// a\n");
    let same_point = edit(0, 0, "// b\n");
    let (out, n) = apply_fixes(text, &[&overlapping, &first, &same_point, &apart, &insert]);
    assert_eq!((out.as_str(), n), ("// b\nlet q = x;", 3));
}

#[test]
fn a_fix_that_breaks_the_syntax_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let seed = dir.path().join("buggy.rs");
    fs::copy("fixtures/seed/buggy.rs", &seed).unwrap();
    let mut report = check(std::slice::from_ref(&seed), &Settings::default());
    let f = report
        .findings
        .iter_mut()
        .find(|f| f.code == "CLM002")
        .unwrap();
    f.fix.as_mut().unwrap().edits[0].replacement = "0 (".into();
    let (edits, refused) = fix::plan(&report, false);
    assert!(edits.iter().all(|e| e.path != seed), "{edits:?}");
    assert_eq!(refused.len(), 1);
    assert!(
        refused[0].message.contains("would not parse"),
        "{refused:?}"
    );
}

/// Runs `--fix` passes over `text` in memory, as the binary does on a file, until no fix
/// is left; a refused file fails the test.
fn fix_in_memory(path: &Path, text: &str) -> String {
    let mut text = text.to_string();
    for _ in 0..fix::PASSES {
        let report = clmigrate_lint::check_source(path, &text, &Settings::default());
        let (edits, refused) = fix::plan(&report, false);
        assert!(refused.is_empty(), "{refused:?}\n{text}");
        let Some(e) = edits.into_iter().next() else {
            break;
        };
        text = e.new;
    }
    text
}

/// The tokens of Rust source. (Whether a punctuation mark is joined to the next one is
/// left out: the whitespace the cases insert changes that without changing the code.)
fn token_list(text: &str) -> Vec<String> {
    use proc_macro2::{Delimiter, TokenStream, TokenTree};
    fn flatten(ts: TokenStream, out: &mut Vec<String>) {
        for tt in ts {
            match tt {
                TokenTree::Group(g) => {
                    let (open, close) = match g.delimiter() {
                        Delimiter::Parenthesis => ("(", ")"),
                        Delimiter::Brace => ("{", "}"),
                        Delimiter::Bracket => ("[", "]"),
                        Delimiter::None => ("", ""),
                    };
                    out.push(open.into());
                    flatten(g.stream(), out);
                    out.push(close.into());
                }
                other => out.push(other.to_string()),
            }
        }
    }
    let mut out = Vec::new();
    flatten(text.parse().expect("tokenizes"), &mut out);
    out
}

#[test]
fn removing_a_suppression_keeps_the_code_that_shares_its_line() {
    let text = "\
fn g(q: &opencl3::command_queue::CommandQueue) { let _ = q.enqueue_barrier_with_wait_list(&[]); }
fn f(x: u32) -> u32 {
    let mut total = 0;
    /* clmigrate-lint: allow(CLM003) */ total += x;
    let mut /* clmigrate-lint: allow(CLM003) */x = 1;
    let y = 2; // clmigrate-lint: allow(CLM003)
    let z =/* clmigrate-lint: allow(CLM003) */-1;
    // clmigrate-lint: allow(CLM003)
    /* clmigrate-lint: allow(CLM003) *//// A doc comment is code.
    total + x + y + z
}
";
    let fixed = fix_in_memory(Path::new("lib.rs"), text);
    assert_eq!(
        fixed,
        "\
fn g(q: &opencl3::command_queue::CommandQueue) { let _ = q.enqueue_barrier_with_wait_list(&[]); }
fn f(x: u32) -> u32 {
    let mut total = 0;
    total += x;
    let mut x = 1;
    let y = 2;
    let z = -1;
    /// A doc comment is code.
    total + x + y + z
}
"
    );
}

#[test]
fn a_fix_that_changes_code_outside_its_edit_is_refused() {
    let text = "\
fn g(q: &opencl3::command_queue::CommandQueue) { let _ = q.enqueue_barrier_with_wait_list(&[]); }
fn f() { let mut /* clmigrate-lint: allow(CLM003) */ x = 1; x += 1; }
";
    let path = Path::new("lib.rs");
    let comment = text.find("/*").unwrap()..text.find("*/").unwrap() + 2;
    for (span, replacement, why) in [
        // The statement that shares the comment's line.
        (comment.start..text.rfind('}').unwrap(), "", "remove"),
        // `mut` and `x` glued into one identifier.
        (
            comment.start - 1..comment.end + 1,
            "",
            "make the token `mutx`",
        ),
        // Half of `mut`.
        (comment.start - 3..comment.end, "", "cuts the token `mut`"),
    ] {
        let mut report = clmigrate_lint::check_source(path, text, &Settings::default());
        let f = report
            .findings
            .iter_mut()
            .find(|f| f.code == "CLM900")
            .expect("the suppression is unused");
        f.fix.as_mut().unwrap().edits[0] = Edit {
            span: Span {
                file: 0,
                start: span.start,
                end: span.end,
            },
            replacement: replacement.into(),
        };
        let (edits, refused) = fix::plan(&report, false);
        assert!(edits.is_empty(), "{why}: {edits:?}");
        assert!(refused[0].message.contains(why), "{refused:?}");
    }
}

/// A small generator of pseudo-random numbers (xorshift), seeded for reproducible cases.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// Comments and unused suppressions placed at random between the tokens of the seed
/// program: fixing it changes the code exactly as fixing the seed does, and nothing else.
#[test]
fn fixes_with_random_comments_and_suppressions_change_no_other_token() {
    let seed = fs::read_to_string("fixtures/seed/buggy.rs").unwrap();
    let path = Path::new("buggy.rs");
    let expected = token_list(&fix_in_memory(path, &seed));
    // Token boundaries: where a comment can go without changing the tokens.
    let ts: proc_macro2::TokenStream = seed.parse().unwrap();
    let mut gaps = vec![0, seed.len()];
    let mut stack = vec![ts];
    let lines: Vec<usize> = std::iter::once(0)
        .chain(seed.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |lc: proc_macro2::LineColumn| {
        let start = lines[lc.line - 1];
        start
            + seed[start..]
                .char_indices()
                .nth(lc.column)
                .map_or(seed.len() - start, |(i, _)| i)
    };
    // The point inside `::`, `->`, `'a`: not a gap.
    let mut joints = Vec::new();
    while let Some(ts) = stack.pop() {
        for tt in ts {
            if let proc_macro2::TokenTree::Punct(p) = &tt {
                if p.spacing() == proc_macro2::Spacing::Joint {
                    joints.push(offset(tt.span().end()));
                }
            }
            gaps.push(offset(tt.span().start()));
            gaps.push(offset(tt.span().end()));
            if let proc_macro2::TokenTree::Group(g) = tt {
                gaps.push(offset(g.span_open().end()));
                gaps.push(offset(g.span_close().start()));
                stack.push(g.stream());
            }
        }
    }
    // A doc comment is a token: nothing goes inside it.
    let comments = clmigrate_lint::suppress::comments(&seed);
    let inside = |g: usize| {
        comments.iter().any(|c| {
            let line_comment = seed[c.clone()].starts_with("//");
            c.start < g && (g < c.end || line_comment && g == c.end)
        })
    };
    gaps.retain(|&g| !inside(g) && !joints.contains(&g));
    gaps.sort_unstable();
    gaps.dedup();
    // Rules that report nothing in the seed, so every suppression of them is unused.
    let unused = ["CLM005", "CLM006", "CLM007", "unreleased-event"];
    let mut rng = Rng(0x5eed_f1c5);
    for case in 0..150 {
        let mut inserts: Vec<(usize, String)> = (0..1 + rng.below(6))
            .map(|_| {
                let at = gaps[rng.below(gaps.len())];
                let code = unused[rng.below(unused.len())];
                let pad = |rng: &mut Rng| [" ", "", "\n", "\t"][rng.below(4)];
                let comment = match rng.below(4) {
                    0 => format!("/* clmigrate-lint: allow({code}) */"),
                    1 => format!("// clmigrate-lint: allow({code}) -- why\n"),
                    2 => "/* a comment */".to_string(),
                    _ => format!("/* clmigrate-lint: allow-file({code}) */"),
                };
                (at, format!("{}{comment}{}", pad(&mut rng), pad(&mut rng)))
            })
            .collect();
        inserts.sort();
        let mut text = String::new();
        let mut last = 0;
        for (at, s) in &inserts {
            text.push_str(&seed[last..*at]);
            text.push_str(s);
            last = *at;
        }
        text.push_str(&seed[last..]);
        let fixed = fix_in_memory(path, &text);
        assert_eq!(
            token_list(&fixed),
            expected,
            "case {case}:\n{text}\n---\n{fixed}"
        );
        assert!(
            !fixed.contains("clmigrate-lint: allow"),
            "case {case}: {fixed}"
        );
    }
}

#[test]
fn the_host_flag_import_goes_when_the_fix_leaves_it_unused() {
    let seed = fs::read_to_string("fixtures/seed/buggy.rs").unwrap();
    let path = Path::new("buggy.rs");
    let in_list =
        "use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE, CL_MIGRATE_MEM_OBJECT_HOST};\n";
    assert!(seed.contains(in_list));
    let fixed = fix_in_memory(path, &seed);
    assert!(fixed.contains("use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};\n"));
    assert!(!fixed.contains("CL_MIGRATE_MEM_OBJECT_HOST,"), "{fixed}");
    // Alone in its declaration: the declaration and its line go.
    let alone = seed.replace(
        in_list,
        "use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};\nuse opencl3::memory::CL_MIGRATE_MEM_OBJECT_HOST;\n",
    );
    let fixed = fix_in_memory(path, &alone);
    assert!(
        !fixed.contains("use opencl3::memory::CL_MIGRATE_MEM_OBJECT_HOST"),
        "{fixed}"
    );
    assert!(fixed.contains("CL_MEM_READ_WRITE};\nuse opencl3::program::Program;"));
    // First in a list.
    let first = seed.replace(
        in_list,
        "use opencl3::memory::{CL_MIGRATE_MEM_OBJECT_HOST, Buffer, ClMem, CL_MEM_READ_WRITE};\n",
    );
    let fixed = fix_in_memory(path, &first);
    assert!(fixed.contains("use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};\n"));
    // Still used elsewhere (another function), or public: kept.
    for kept in [
        format!("{seed}\npub fn host_flags() -> u64 {{ CL_MIGRATE_MEM_OBJECT_HOST }}\n"),
        seed.replace(in_list, &format!("pub {in_list}")),
    ] {
        let fixed = fix_in_memory(path, &kept);
        assert!(!fixed.contains("CL_MIGRATE_MEM_OBJECT_HOST,\n"), "{fixed}");
        assert!(
            fixed.contains("CL_MEM_READ_WRITE, CL_MIGRATE_MEM_OBJECT_HOST};"),
            "{fixed}"
        );
    }
}

#[test]
fn a_file_changed_after_it_was_read_is_not_overwritten() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("host.rs");
    fs::write(&file, "fn edited_meanwhile() {}\n").unwrap();
    let err =
        fix::replace_if_unchanged(&file, b"fn as_read() {}\n", b"fn fixed() {}\n").unwrap_err();
    assert!(
        err.to_string().contains("changed after it was read"),
        "{err}"
    );
    assert_eq!(fs::read(&file).unwrap(), b"fn edited_meanwhile() {}\n");
    let names: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["host.rs"], "the temporary file is removed");
    fix::replace_if_unchanged(&file, b"fn edited_meanwhile() {}\n", b"fn fixed() {}\n").unwrap();
    assert_eq!(fs::read(&file).unwrap(), b"fn fixed() {}\n");
}

#[test]
fn leftover_temporary_files_of_killed_runs_are_removed() {
    let dir = tempfile::tempdir().unwrap();
    let seed = dir.path().join("buggy.rs");
    fs::copy("fixtures/seed/buggy.rs", &seed).unwrap();
    // Beyond any process id Linux hands out (at most 2^22).
    let stale = dir.path().join(".buggy.rs.99999999.clmigrate-lint.tmp");
    fs::write(&stale, "half a file").unwrap();
    let o = run(&["--fix", seed.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("applied 2 fixes in 1 file"));
    assert!(!stale.exists());
}

#[test]
fn set_user_and_group_id_bits_are_kept() {
    let dir = tempfile::tempdir().unwrap();
    let seed = dir.path().join("buggy.rs");
    fs::copy("fixtures/seed/buggy.rs", &seed).unwrap();
    // Owned by another user where allowed (as root): changing the owner back after writing
    // would clear the bits if it came after setting them.
    let other = std::os::unix::fs::chown(&seed, Some(1), Some(1)).is_ok();
    fs::set_permissions(&seed, fs::Permissions::from_mode(0o6750)).unwrap();
    run(&["--fix", seed.to_str().unwrap()]);
    assert_ne!(
        fs::read(&seed).unwrap(),
        fs::read("fixtures/seed/buggy.rs").unwrap()
    );
    let meta = fs::metadata(&seed).unwrap();
    assert_eq!(meta.permissions().mode() & 0o7777, 0o6750);
    if other {
        use std::os::unix::fs::MetadataExt;
        assert_eq!((meta.uid(), meta.gid()), (1, 1));
    }
}

#[test]
fn an_edition_2015_package_is_fixed() {
    let dir = tempfile::tempdir().unwrap();
    let krate = dir.path().join("legacy");
    fs::create_dir_all(krate.join("src")).unwrap();
    fs::copy(
        "fixtures/crates/legacy/Cargo.toml",
        krate.join("Cargo.toml"),
    )
    .unwrap();
    let lib = fs::read_to_string("fixtures/crates/legacy/src/lib.rs").unwrap();
    let line = lib.lines().find(|l| l.contains("let try = ")).unwrap();
    let lib = lib.replacen(line, &format!("{line} // clmigrate-lint: allow(CLM006)"), 1);
    fs::write(krate.join("src/lib.rs"), &lib).unwrap();
    let o = run(&["--fix", krate.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("applied 1 fix in 1 file"), "{err}");
    let fixed = fs::read_to_string(krate.join("src/lib.rs")).unwrap();
    assert!(fixed.contains(&format!("{line}\n")), "{fixed}");
}

/// The Safe fixes taken one at a time, as the language server offers them (`fix_edits`), give
/// what `--fix` gives, the removal of the import the last CLM002 fix leaves unused included,
/// wherever the import stands.
#[test]
fn one_fix_at_a_time_makes_what_fix_makes() {
    let seed = fs::read_to_string("fixtures/seed/buggy.rs").unwrap();
    let path = Path::new("buggy.rs");
    let in_list =
        "use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE, CL_MIGRATE_MEM_OBJECT_HOST};\n";
    let cases = [
        seed.clone(),
        seed.replace(
            in_list,
            "use opencl3::memory::{Buffer, ClMem, CL_MEM_READ_WRITE};\nuse opencl3::memory::CL_MIGRATE_MEM_OBJECT_HOST;\n",
        ),
        seed.replace(
            in_list,
            "use opencl3::memory::{CL_MIGRATE_MEM_OBJECT_HOST, Buffer, ClMem, CL_MEM_READ_WRITE};\n",
        ),
    ];
    for text in cases {
        let mut one = text.clone();
        for _ in 0..fix::PASSES {
            let report = clmigrate_lint::check_source(path, &one, &Settings::default());
            let safe = report
                .findings
                .iter()
                .filter_map(|f| f.fix.as_ref())
                .find(|f| f.applicability == Applicability::Safe);
            let Some(safe) = safe else {
                break;
            };
            let edits = fix::fix_edits(&report.files[0], safe, false).unwrap();
            assert!(!edits.is_empty(), "{one}");
            let mut out = String::new();
            let mut at = 0;
            for (start, end, new) in &edits {
                out.push_str(&one[at..*start]);
                out.push_str(new);
                at = *end;
            }
            out.push_str(&one[at..]);
            one = out;
        }
        assert!(!one.contains("CL_MIGRATE_MEM_OBJECT_HOST,\n"), "{one}");
        assert_eq!(one, fix_in_memory(path, &text));
    }
}

/// CLM005's fix writes the destination queue in the form the migration's queue has: a
/// receiver gets no `&`. Where the destination is written as the source is (`slab.queue`
/// of another loop's member), the text names the source here, and no edit is offered;
/// where it is written with another loop's index, the member the analysis named.
#[test]
fn the_queue_fix_keeps_the_form_of_the_migrations_queue() {
    let head = r#"
use opencl3::command_queue::CommandQueue;
use opencl3::kernel::{ExecuteKernel, Kernel};
use opencl3::memory::{Buffer, ClMem};
const SRC: &str = "__kernel void k(__global float *b) { b[get_global_id(0)] += 1.0f; }";
"#;
    let pair = format!(
        "{head}{}",
        r#"
pub struct Pair { first: CommandQueue, second: CommandQueue }
pub fn hand_over(pair: &Pair, k: &Kernel, b: &Buffer<f32>) -> opencl3::Result<()> {
    let made = unsafe { ExecuteKernel::new(k).set_arg(b).set_global_work_size(64).enqueue_nd_range(&pair.first)? };
    let moved = unsafe { pair.first.enqueue_migrate_mem_object(1, &b.get(), 0, &[made.get()])? };
    unsafe { ExecuteKernel::new(k).set_arg(b).set_global_work_size(64).set_wait_event(&moved).enqueue_nd_range(&pair.second)? };
    Ok(())
}
"#
    );
    let path = Path::new("pair.rs");
    let report = clmigrate_lint::check_source(path, &pair, &Settings::default());
    let (edits, refused) = fix::plan(&report, true);
    assert!(refused.is_empty(), "{refused:?}");
    let fixed = &edits.first().expect("one file edited").new;
    assert!(
        fixed.contains("{ pair.second.enqueue_migrate_mem_object("),
        "{fixed}"
    );

    let ring = format!(
        "{head}{}",
        r#"
pub struct Slab { queue: CommandQueue, edge: Buffer<f32> }
pub fn ring(slabs: &[Slab], k: &Kernel) -> opencl3::Result<()> {
    let mut made = Vec::new();
    for slab in slabs {
        made.push(unsafe { ExecuteKernel::new(k).set_arg(&slab.edge).set_global_work_size(64).enqueue_nd_range(&slab.queue)? });
    }
    let mut sent = Vec::new();
    for (d, slab) in slabs.iter().enumerate() {
        sent.push(unsafe { slab.queue.enqueue_migrate_mem_object(1, &slab.edge.get(), 0, &[made[d].get()])? });
    }
    for (d, slab) in slabs.iter().enumerate() {
        let from = &slabs[(d + 1) % slabs.len()];
        unsafe { ExecuteKernel::new(k).set_arg(&from.edge).set_global_work_size(64).set_wait_event(&sent[d]).enqueue_nd_range(&slab.queue)? };
    }
    Ok(())
}
"#
    );
    let path = Path::new("ring.rs");
    let report = clmigrate_lint::check_source(path, &ring, &Settings::default());
    assert!(
        report.findings.iter().any(|f| f.code == "CLM005"),
        "{:?}",
        report.findings
    );
    let (edits, refused) = fix::plan(&report, true);
    assert!(refused.is_empty(), "{refused:?}");
    assert!(edits.is_empty(), "{:?}", edits.first().map(|e| &e.new));

    // Written with a loop's index (`queues[d]` in the loop after): the member it names.
    let path = Path::new("fixtures/host-shapes/typed_handle_arrays_clsys.rs");
    let text = fs::read_to_string(path).unwrap();
    let report = clmigrate_lint::check_source(path, &text, &Settings::default());
    let (edits, refused) = fix::plan(&report, true);
    assert!(refused.is_empty(), "{refused:?}");
    let fixed = &edits.first().expect("one file edited").new;
    assert!(
        fixed.contains("clEnqueueMigrateMemObjects(queues[0], 1, &halo[1],"),
        "{fixed}"
    );
}
