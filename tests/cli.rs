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
}
