//! The command line as users call it: exit codes, subcommands, formats.

use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().expect("the binary runs")
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

#[test]
fn exit_codes() {
    assert_eq!(run(&["fixtures/seed/fixed.rs"]).status.code(), Some(0));
    assert_eq!(run(&["fixtures/seed/buggy.rs"]).status.code(), Some(1));
    // Warnings alone do not fail.
    assert_eq!(
        run(&["fixtures/host-migration-between-devices/case.rs"])
            .status
            .code(),
        Some(0)
    );
    let missing = run(&["no/such/path.rs"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr)
        .contains("no such file or directory: no/such/path.rs"));
    assert_eq!(run(&["--no-such-flag"]).status.code(), Some(2));
}

#[test]
fn called_by_cargo() {
    // cargo runs `cargo-clmigrate-lint clmigrate-lint ARGS`.
    let o = run(&["clmigrate-lint", "fixtures/seed/buggy.rs"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("error[CLM001]"));
}

#[test]
fn a_directory_is_walked_and_an_unparseable_file_is_one_diagnostic() {
    let dir = tempdir();
    std::fs::copy("fixtures/seed/buggy.rs", dir.join("buggy.rs")).unwrap();
    std::fs::write(dir.join("broken.rs"), "fn broken( { q.enqueue_task(&k").unwrap();
    // Names no enqueue: it cannot hold a finding, so it is counted but not parsed.
    std::fs::write(dir.join("unrelated.rs"), "fn unrelated( {").unwrap();
    // Cargo's output: a `target` beside a `Cargo.toml`.
    std::fs::write(dir.join("Cargo.toml"), "[workspace]\n").unwrap();
    std::fs::create_dir_all(dir.join("target")).unwrap();
    std::fs::copy("fixtures/seed/buggy.rs", dir.join("target/skipped.rs")).unwrap();
    std::fs::create_dir_all(dir.join(".hidden")).unwrap();
    std::fs::copy("fixtures/seed/buggy.rs", dir.join(".hidden/skipped.rs")).unwrap();
    let o = run(&["--color", "never", dir.to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert_eq!(out.matches("could not parse").count(), 1, "{out}");
    assert_eq!(out.matches("error[CLM001]").count(), 1, "{out}");
    assert!(!out.contains("skipped.rs"), "{out}");
    assert!(out.contains("in 3 files checked"), "{out}");
    let all = stdout(&run(&[
        "--color",
        "never",
        "--no-prefilter",
        dir.to_str().unwrap(),
    ]));
    assert_eq!(all.matches("could not parse").count(), 2, "{all}");
    assert!(all.contains("in 3 files checked"), "{all}");
}

#[test]
fn json_lines_are_cargo_messages() {
    let o = run(&["--message-format", "json", "fixtures/seed/buggy.rs"]);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<serde_json::Value> = stdout(&o)
        .lines()
        .map(|l| serde_json::from_str(l).expect("each line is JSON"))
        .collect();
    let (last, msgs) = lines.split_last().unwrap();
    assert_eq!(last["reason"], "build-finished");
    assert_eq!(last["success"], false);
    assert_eq!(msgs.len(), 7);
    for m in msgs {
        assert_eq!(m["reason"], "compiler-message");
        let d = &m["message"];
        assert_eq!(d["$message_type"], "diagnostic");
        assert!(d["code"]["code"].as_str().unwrap().starts_with("CLM"));
        assert!(matches!(d["level"].as_str(), Some("error" | "warning")));
        let spans = d["spans"].as_array().unwrap();
        assert_eq!(spans.iter().filter(|s| s["is_primary"] == true).count(), 1);
        for s in spans {
            assert_eq!(s["file_name"], "fixtures/seed/buggy.rs");
            assert!(s["line_start"].as_u64().unwrap() >= 1);
            assert!(s["byte_end"].as_u64() >= s["byte_start"].as_u64());
        }
        assert!(d["rendered"]
            .as_str()
            .unwrap()
            .contains(d["message"].as_str().unwrap()));
    }
}

#[test]
fn explain_prints_the_rule_spec() {
    for code in [
        "CLM001", "CLM002", "CLM003", "CLM004", "CLM005", "CLM900", "CLM901",
    ] {
        let o = run(&["explain", code]);
        assert_eq!(o.status.code(), Some(0));
        let text = stdout(&o);
        assert!(text.starts_with(&format!("# {code}")), "{text}");
        for heading in [
            "## What it does",
            "## Why is this bad?",
            "## Example",
            "## Use instead",
            "## Fix safety",
        ] {
            assert!(text.contains(heading), "{code} lacks {heading}");
        }
    }
    assert_eq!(
        stdout(&run(&["explain", "missing-wait-list"])),
        stdout(&run(&["explain", "CLM003"]))
    );
    assert_eq!(run(&["explain", "CLM999"]).status.code(), Some(2));
}

#[test]
fn rules_lists_every_rule() {
    let out = stdout(&run(&["rules"]));
    for name in [
        "host-pointer-kernel-arg",
        "host-migration-between-devices",
        "missing-wait-list",
        "duplicate-shared-buffer-init",
        "migration-on-source-queue",
    ] {
        assert!(out.contains(name), "{out}");
    }
}

#[test]
fn help_describes_exit_codes() {
    let out = stdout(&run(&["--help"]));
    assert!(out.contains("Exit status"), "{out}");
}

fn tempdir() -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!(
        "clmigrate-cli-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn unsafe_alone_is_an_error() {
    let o = run(&["--unsafe", "fixtures/seed/buggy.rs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("`--unsafe` applies with `--fix` or `--diff`")
    );
}

#[test]
fn a_missing_path_gives_no_summary_and_an_empty_run_says_so() {
    let missing = run(&["no/such/path.rs"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(stdout(&missing).is_empty(), "{}", stdout(&missing));
    let dir = tempfile::tempdir().unwrap();
    let empty = run(&[dir.path().to_str().unwrap()]);
    assert_eq!(empty.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&empty.stderr).contains("warning: no Rust files were found in"));
}

#[test]
fn symbolic_links_into_proc_are_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.rs"), "fn f() {}\n").unwrap();
    std::os::unix::fs::symlink("/proc/self", dir.path().join("proc")).unwrap();
    std::os::unix::fs::symlink("/dev", dir.path().join("dev")).unwrap();
    let o = run(&["--format", "short", dir.path().to_str().unwrap()]);
    let out = stdout(&o);
    assert_eq!(
        out.matches("symbolic link into /proc, /sys or /dev, not followed")
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains("in 1 file checked"), "{out}");
}

#[test]
fn jobs_are_capped_at_the_cores() {
    // A million threads with the parser's stack could not start.
    let o = run(&[
        "-j",
        "1000000",
        "--format",
        "short",
        "fixtures/seed/buggy.rs",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("4 errors, 3 warnings in 1 file checked"));
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    assert_eq!(
        stderr(&o),
        format!("note: `-j 1000000`: {cores} worker threads, one per core\n")
    );
}

fn run_in(dir: &std::path::Path, args: &[&str]) -> Output {
    bin()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("the binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The `level[CODE]` of each finding line of `--format short` output, sorted.
fn findings(out: &str) -> Vec<String> {
    let mut v: Vec<String> = out
        .lines()
        .filter_map(|l| l.split(": ").nth(1))
        .filter_map(|rest| rest.split(' ').next())
        .filter(|t| t.contains("[CLM"))
        .map(str::to_string)
        .collect();
    v.sort();
    v
}

#[test]
fn rule_levels_from_the_command_line_override_the_configuration() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::copy("fixtures/seed/buggy.rs", dir.path().join("buggy.rs")).unwrap();
    // The configuration turns CLM002 off and CLM004 into an error; flags come on top.
    std::fs::write(
        dir.path().join("clmigrate-lint.toml"),
        "[levels]\nCLM002 = \"allow\"\nCLM004 = \"deny\"\n",
    )
    .unwrap();
    let cases: &[(&[&str], &str, i32)] = &[
        (&[], "error[CLM001] error[CLM003]x3 error[CLM004]", 1),
        (
            &["-W", "CLM002"],
            "error[CLM001] error[CLM003]x3 error[CLM004] warning[CLM002]x2",
            1,
        ),
        (
            &["-D", "host-migration-between-devices"],
            "error[CLM001] error[CLM002]x2 error[CLM003]x3 error[CLM004]",
            1,
        ),
        // The later flag wins.
        (
            &["-A", "CLM003", "-D", "CLM003"],
            "error[CLM001] error[CLM003]x3 error[CLM004]",
            1,
        ),
        (
            &["-D", "CLM003", "-A", "CLM003"],
            "error[CLM001] error[CLM004]",
            1,
        ),
        (
            &["--allow=CLM001", "--warn", "CLM004"],
            "error[CLM003]x3 warning[CLM004]",
            1,
        ),
        (&["--select", "CLM003"], "error[CLM003]x3", 1),
        // A rule the configuration turned off comes back at its own level when selected.
        (
            &["--select", "CLM002,CLM004"],
            "error[CLM004] warning[CLM002]x2",
            1,
        ),
        (&["--ignore", "CLM001,CLM003", "--ignore", "CLM004"], "", 0),
        (
            &["--select", "CLM003", "-D", "CLM001"],
            "error[CLM001] error[CLM003]x3",
            1,
        ),
        // `-A warnings` turns off what reports warnings at that point.
        (
            &[
                "-W", "CLM002", "-W", "CLM004", "-A", "warnings", "-A", "CLM001", "-A", "CLM003",
            ],
            "",
            0,
        ),
        (
            &["-W", "CLM004", "-A", "warnings", "-W", "CLM002"],
            "error[CLM001] error[CLM003]x3 warning[CLM002]x2",
            1,
        ),
        (
            &["-A", "CLM001", "-A", "CLM003", "-W", "CLM004"],
            "warning[CLM004]",
            0,
        ),
        (
            &[
                "-A", "CLM001", "-A", "CLM003", "-W", "CLM004", "-D", "warnings",
            ],
            "warning[CLM004]",
            1,
        ),
        (
            &[
                "-A", "CLM001", "-A", "CLM003", "-W", "CLM004", "-D", "warnings", "-W", "warnings",
            ],
            "warning[CLM004]",
            0,
        ),
    ];
    for (flags, want, code) in cases {
        let mut args = vec!["check", "--format", "short"];
        args.extend_from_slice(flags);
        args.push("buggy.rs");
        let o = run_in(dir.path(), &args);
        let mut expected = Vec::new();
        for w in want.split_whitespace() {
            let (token, n) = w
                .split_once('x')
                .map_or((w, 1), |(t, n)| (t, n.parse().unwrap()));
            expected.extend(std::iter::repeat_n(token.to_string(), n));
        }
        expected.sort();
        assert_eq!(findings(&stdout(&o)), expected, "{flags:?}: {}", stdout(&o));
        assert_eq!(o.status.code(), Some(*code), "{flags:?}: {}", stderr(&o));
    }
    for (flags, message) in [
        (
            &["-D", "CLM03"][..],
            "`-D CLM03`: no such rule; did you mean `CLM003`?",
        ),
        (
            &["--select", "missing-wait-lists"][..],
            "`--select missing-wait-lists`: no such rule; did you mean `missing-wait-list`?",
        ),
        (
            &["-A", "nothing-like-it"][..],
            "`-A nothing-like-it`: no such rule\n",
        ),
    ] {
        let mut args = flags.to_vec();
        args.push("buggy.rs");
        let o = run_in(dir.path(), &args);
        assert_eq!(o.status.code(), Some(2), "{flags:?}");
        assert_eq!(
            stderr(&o).trim_end(),
            format!("error: {}", message.trim_end())
        );
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn quiet_prints_the_findings_only() {
    for format in ["short", "human"] {
        let loud = run(&[
            "--color",
            "never",
            "--format",
            format,
            "fixtures/seed/buggy.rs",
        ]);
        let quiet = run(&[
            "-q",
            "--color",
            "never",
            "--format",
            format,
            "fixtures/seed/buggy.rs",
        ]);
        let summary = "4 errors, 3 warnings in 1 file checked\n";
        assert!(stdout(&loud).ends_with(summary), "{}", stdout(&loud));
        assert_eq!(stdout(&quiet), stdout(&loud).strip_suffix(summary).unwrap());
        assert_eq!(quiet.status.code(), Some(1));
    }
    let quiet = run(&["--quiet", "--diff", "fixtures/seed/buggy.rs"]);
    assert!(stderr(&quiet).is_empty(), "{}", stderr(&quiet));
}

#[test]
fn a_mistyped_subcommand_gets_a_suggestion_and_a_path_stays_a_path() {
    let dir = tempfile::tempdir().unwrap();
    let o = run_in(dir.path(), &["explian", "CLM003"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        "error: no such subcommand or path: `explian`; did you mean `explain`?\n"
    );
    assert!(stdout(&o).is_empty());
    let o = run_in(dir.path(), &["rule"]);
    assert!(
        stderr(&o).contains("did you mean `rules`?"),
        "{}",
        stderr(&o)
    );
    // Far from every subcommand: a missing path.
    let o = run_in(dir.path(), &["sources"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), "error: no such file or directory: sources\n");
    // A directory of that name is checked.
    std::fs::create_dir(dir.path().join("explian")).unwrap();
    std::fs::copy(
        "fixtures/seed/buggy.rs",
        dir.path().join("explian/buggy.rs"),
    )
    .unwrap();
    let o = run_in(dir.path(), &["--format", "short", "explian"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("in 1 file checked"), "{}", stdout(&o));
}

/// A workspace: the root package `root` (its own `nested` member inside it), `crates/a`
/// (`alpha`), `crates/b` (`beta`), and `crates/old`, excluded.
fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path();
    let seed = std::fs::read_to_string("fixtures/seed/buggy.rs").unwrap();
    let package = |at: &str, name: &str, file: &str| {
        std::fs::create_dir_all(ws.join(at).join("src")).unwrap();
        let manifest =
            format!("[package]\nname = \"{name}\"\nversion = \"0.1.0\"\nedition = \"2021\"\n");
        let old = std::fs::read_to_string(ws.join(at).join("Cargo.toml")).unwrap_or_default();
        std::fs::write(ws.join(at).join("Cargo.toml"), old + &manifest).unwrap();
        std::fs::write(ws.join(at).join("src").join(file), &seed).unwrap();
    };
    std::fs::write(
        ws.join("Cargo.toml"),
        "[workspace]\nmembers = [\"crates/*\", \"nested\"]\nexclude = [\"crates/old\"]\n\n",
    )
    .unwrap();
    package(".", "root", "lib.rs");
    package("nested", "nested", "lib.rs");
    package("crates/a", "alpha", "lib.rs");
    package("crates/b", "beta", "main.rs");
    package("crates/old", "old", "lib.rs");
    dir
}

/// The files named in `--format short` output, sorted and without duplicates; a path
/// outside the current directory is absolute, and shown as `<root>/..` under `root`.
fn files_named_under(out: &str, root: &std::path::Path) -> Vec<String> {
    let root = std::fs::canonicalize(root).unwrap();
    let mut v: Vec<String> = out
        .lines()
        .filter(|l| l.contains("[CLM"))
        .filter_map(|l| l.split(':').next())
        .map(|f| match std::path::Path::new(f).strip_prefix(&root) {
            Ok(rel) => format!("<root>/{}", rel.display()),
            Err(_) => f.to_string(),
        })
        .collect();
    v.sort();
    v.dedup();
    v
}

fn files_named(out: &str) -> Vec<String> {
    files_named_under(out, std::path::Path::new("/"))
        .into_iter()
        .map(|f| f.replace("<root>", ""))
        .collect()
}

#[test]
fn packages_are_chosen_as_cargo_chooses_them() {
    let dir = workspace();
    let ws = dir.path();
    let b = ws.join("crates/b");
    let cases: &[(&std::path::Path, &[&str], &[&str])] = &[
        (ws, &["-p", "root"], &["src/lib.rs"]),
        (
            &b,
            &["-p", "alpha", "--package", "beta"],
            &["<root>/crates/a/src/lib.rs", "src/main.rs"],
        ),
        (
            &b,
            &["--workspace"],
            &[
                "<root>/crates/a/src/lib.rs",
                "<root>/nested/src/lib.rs",
                "<root>/src/lib.rs",
                "src/main.rs",
            ],
        ),
        (&b, &[], &["src/main.rs"]),
        (
            ws,
            &["--manifest-path", "crates/a/Cargo.toml"],
            &["crates/a/src/lib.rs"],
        ),
        (
            ws,
            &["--manifest-path", "crates/a/Cargo.toml", "-p", "nested"],
            &["nested/src/lib.rs"],
        ),
        (
            ws,
            &["--manifest-path", "crates/old/Cargo.toml", "--workspace"],
            &["crates/old/src/lib.rs"],
        ),
    ];
    for (cwd, flags, want) in cases {
        let mut args = vec!["--format", "short"];
        args.extend_from_slice(flags);
        let o = run_in(cwd, &args);
        assert_eq!(o.status.code(), Some(1), "{flags:?}: {}", stderr(&o));
        assert_eq!(files_named_under(&stdout(&o), ws), *want, "{flags:?}");
    }
    let errors: &[(&[&str], &str)] = &[
        (&["-p", "alpah"], "error: package `alpah` is not a member of the workspace; did you mean `alpha`?\n"),
        (&["-p", "zzz"], "error: package `zzz` is not a member of the workspace; its packages: root, alpha, beta, nested\n"),
        (&["--manifest-path", "crates/a/Other.toml"], "error: the manifest-path must be a path to a Cargo.toml file: crates/a/Other.toml\n"),
        (&["--manifest-path", "crates/c/Cargo.toml"], "error: manifest path `crates/c/Cargo.toml` does not exist\n"),
    ];
    for (flags, message) in errors {
        let o = run_in(ws, flags);
        assert_eq!(o.status.code(), Some(2), "{flags:?}");
        assert_eq!(stderr(&o), *message);
    }
    let o = run_in(ws, &["-p", "root", "src"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("cannot be used with"), "{}", stderr(&o));
}

#[test]
fn ignore_files_are_respected_unless_told_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let seed = std::fs::read_to_string("fixtures/seed/buggy.rs").unwrap();
    for f in [
        "kept.rs",
        "skip.rs",
        "also.rs",
        "generated/g.rs",
        "sub/local.rs",
        "sub/kept.rs",
    ] {
        std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
        std::fs::write(d.join(f), &seed).unwrap();
    }
    std::fs::write(d.join(".gitignore"), "generated/\n/skip.rs\n").unwrap();
    std::fs::write(d.join(".ignore"), "also.rs\n").unwrap();
    std::fs::write(d.join("sub/.gitignore"), "local.rs\n").unwrap();
    let short = |args: &[&str]| {
        let mut all = vec!["--format", "short"];
        all.extend_from_slice(args);
        files_named(&stdout(&run_in(d, &all)))
    };
    assert_eq!(short(&[]), ["kept.rs", "sub/kept.rs"]);
    // The ignore files of the directories above a path given count too.
    assert_eq!(short(&["sub"]), ["sub/kept.rs"]);
    assert_eq!(
        short(&["--no-ignore"]),
        [
            "also.rs",
            "generated/g.rs",
            "kept.rs",
            "skip.rs",
            "sub/kept.rs",
            "sub/local.rs"
        ]
    );
    // A file named on the command line is always checked.
    assert_eq!(
        short(&["skip.rs", "sub/local.rs"]),
        ["skip.rs", "sub/local.rs"]
    );
}

#[test]
fn no_progress_in_captured_output() {
    let o = run(&["--format", "short", "fixtures/"]);
    assert!(!stderr(&o).contains("checking:"), "{}", stderr(&o));
    assert!(!stdout(&o).contains("checking:"));
    assert!(stdout(&o).contains("files checked"));
}

#[test]
fn json_target_is_the_real_cargo_target() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("Cargo.toml"),
        "[package]\nname = \"multi-tool\"\nversion = \"0.2.0\"\nedition = \"2021\"\n\n\
         [dependencies]\nopencl3 = \"0.12\"\n\n\
         [lib]\nname = \"mt_core\"\npath = \"core/lib.rs\"\n\n\
         [[bin]]\nname = \"tool\"\npath = \"cmd/tool.rs\"\n",
    )
    .unwrap();
    // Each file fails to parse (with balanced delimiters, so that its `mod` items can be
    // read): one message about it, with its target.
    let broken = "fn broken() { let = ; }\n";
    let files = [
        ("core/lib.rs", "mod util;\n"),
        ("core/util.rs", "mod deep;\n"),
        ("core/util/deep.rs", ""),
        ("cmd/tool.rs", ""),
        (
            "src/main.rs",
            "mod helper;\n#[path = \"elsewhere/h.rs\"]\nmod renamed;\n// mod orphan;\n",
        ),
        ("src/helper.rs", ""),
        ("src/elsewhere/h.rs", ""),
        ("src/orphan.rs", ""),
        ("src/bin/extra.rs", ""),
        ("src/bin/nested/main.rs", ""),
        ("examples/demo.rs", ""),
        ("tests/it.rs", ""),
        ("benches/speed.rs", ""),
        ("build.rs", ""),
        ("other/loose.rs", ""),
    ];
    for (f, head) in files {
        std::fs::create_dir_all(d.join(f).parent().unwrap()).unwrap();
        std::fs::write(d.join(f), format!("{head}{broken}")).unwrap();
    }
    let o = run_in(d, &["--message-format", "json", "."]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let root = std::fs::canonicalize(d).unwrap();
    let mut got = Vec::new();
    for line in stdout(&o).lines() {
        let m: serde_json::Value = serde_json::from_str(line).unwrap();
        if m["reason"] != "compiler-message" {
            continue;
        }
        let text = m["message"]["message"].as_str().unwrap();
        let file = text.split(':').next().unwrap();
        let file = file.strip_prefix("./").unwrap_or(file);
        let t = &m["target"];
        // Absolute for a target, as given for a file of none.
        let src = root.join(t["src_path"].as_str().unwrap());
        got.push(format!(
            "{file} {} {} {}",
            t["kind"][0].as_str().unwrap(),
            t["name"].as_str().unwrap(),
            src.strip_prefix(&root).unwrap().display()
        ));
        assert_eq!(
            m["package_id"],
            format!("path+file://{}#multi-tool@0.2.0", root.display())
        );
    }
    got.sort();
    let mut want = vec![
        "benches/speed.rs bench speed benches/speed.rs",
        "build.rs custom-build build-script-build build.rs",
        "cmd/tool.rs bin tool cmd/tool.rs",
        "core/lib.rs lib mt_core core/lib.rs",
        "core/util.rs lib mt_core core/lib.rs",
        "core/util/deep.rs lib mt_core core/lib.rs",
        "examples/demo.rs example demo examples/demo.rs",
        "other/loose.rs unknown loose other/loose.rs",
        "src/bin/extra.rs bin extra src/bin/extra.rs",
        "src/bin/nested/main.rs bin nested src/bin/nested/main.rs",
        "src/elsewhere/h.rs bin multi-tool src/main.rs",
        "src/helper.rs bin multi-tool src/main.rs",
        "src/main.rs bin multi-tool src/main.rs",
        // Reached by no `mod`: no target is invented for it.
        "src/orphan.rs unknown orphan src/orphan.rs",
        "tests/it.rs test it tests/it.rs",
    ];
    want.sort();
    assert_eq!(got, want);
}

#[test]
fn files_past_the_size_limit_are_named_and_not_read() {
    let limit = clmigrate_lint::source::MAX_FILE_BYTES as usize;
    let mib = limit >> 20;
    // A TOML or Rust file of `head` padded with a comment to one byte past the limit.
    let oversized = |head: &str, comment: &str| {
        let mut text = format!("{head}\n{comment}");
        text.push_str(&"x".repeat(limit + 1 - text.len()));
        text
    };
    let too_big = format!("larger than {mib} MiB; it was not read");

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy("fixtures/seed/buggy.rs", d.join("buggy.rs")).unwrap();
    std::fs::write(d.join("big.rs"), oversized("fn f() {}", "// ")).unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    let manifest = oversized("[package]\nname = \"sub\"", "# ");
    std::fs::write(d.join("sub/Cargo.toml"), &manifest).unwrap();
    let o = run_in(d, &["--format", "short", "."]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains(&format!("big.rs: warning: {too_big}\n")),
        "{out}"
    );
    assert!(
        out.contains(&format!("sub/Cargo.toml: warning: {too_big}\n")),
        "{out}"
    );
    assert!(out.contains("error[CLM001]"), "{out}");

    // Where the run needs it, an oversized manifest or configuration is an error.
    std::fs::write(d.join("clmigrate-lint.toml"), oversized("[levels]", "# ")).unwrap();
    let o = run_in(d, &["buggy.rs"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        stderr(&o),
        format!("error: clmigrate-lint.toml: {too_big}\n")
    );
    std::fs::remove_file(d.join("clmigrate-lint.toml")).unwrap();
    std::fs::write(d.join("Cargo.toml"), &manifest).unwrap();
    let o = run_in(d, &["buggy.rs"]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(stderr(&o), format!("error: Cargo.toml: {too_big}\n"));
    let o = run_in(&d.join("sub"), &["-p", "sub"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).ends_with(&format!("sub/Cargo.toml: {too_big}\n")),
        "{}",
        stderr(&o)
    );
}

/// A reader that stops early (`debug ir big.rs | head -1`) ends the output: the process
/// exits without a panic. The IR is far longer than a pipe holds, so the writer meets the
/// closed pipe.
#[test]
fn output_to_a_reader_that_stops_early_is_no_crash() {
    use std::io::Read;
    use std::process::Stdio;
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("big.rs");
    let mut src = String::from("use cl_sys::*;\nunsafe fn f(q: cl_command_queue) {\n");
    for _ in 0..20_000 {
        src += "    clFinish(q);\n";
    }
    src += "}\n";
    std::fs::write(&file, src).unwrap();
    let mut child = bin()
        .args(["debug", "ir"])
        .arg(&file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(first.starts_with(b"fn f"), "{first:?}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0));
}

/// A macro of the file that calls itself several times is expanded a bounded number of
/// times: four calls eight deep would be 65,536 expansions, the cap keeps it to hundreds.
#[test]
fn a_self_multiplying_macro_is_expanded_a_bounded_number_of_times() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("four.rs");
    std::fs::write(
        &file,
        "use cl_sys::*;\n\
         macro_rules! four { ($e:expr) => { { four!($e); four!($e); four!($e); four!($e); clFinish($e); } }; }\n\
         unsafe fn f(q: cl_command_queue) {\n    four!(q);\n}\n",
    )
    .unwrap();
    let out = run(&["debug", "ir", file.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0));
    let finishes = stdout(&out).matches("finish q").count();
    assert!((1..=256).contains(&finishes), "{finishes} finishes");
}
