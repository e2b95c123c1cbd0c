//! The pre-commit hook as users get it: the real `pre-commit` (pinned, from
//! `scripts/test-venv.sh`) installs the hook of `.pre-commit-hooks.yaml` from a git repository
//! holding this checkout's files (with `language: rust` it builds the linter with
//! `cargo install`), then runs it in another repository on a buggy, a clean and a non-Rust
//! file, and in a crate (`tests/editor/crate`) where one file is staged. The hook's mode,
//! `check --whole-crates`, is also run directly on that crate.

#[path = "editor/venv.rs"]
mod venv;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A copy of the two-file crate `tests/editor/crate` in `dir`.
fn two_files(dir: &Path) {
    for name in ["Cargo.toml", "src/lib.rs", "src/gpu.rs", "src/other.rs"] {
        let to = dir.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(Path::new("tests/editor/crate").join(name), to).unwrap();
    }
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// What the staged `src/lib.rs` of the two-file crate gives: its bug, seen only with the
/// helper in `src/gpu.rs`, and nothing of `src/other.rs`.
fn only_the_staged_bug(out: &Output) {
    let text = text(out);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert_eq!(text.matches("error[CLM003]").count(), 1, "{text}");
    assert!(text.contains("┌─ src/lib.rs:21:14"), "{text}");
    assert!(text.contains("┌─ src/gpu.rs:15:14"), "{text}");
    assert!(!text.contains("other.rs"), "{text}");
    assert!(
        text.contains("1 error, 0 warnings in 3 files checked"),
        "{text}"
    );
}

#[test]
fn whole_crates_follow_calls_into_other_files_and_report_the_given_ones() {
    let dir = tempfile::tempdir().unwrap();
    two_files(dir.path());
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_cargo-clmigrate-lint"))
            .args(["check", "--color", "never"])
            .args(args)
            .current_dir(dir.path())
            .output()
            .expect("the binary runs")
    };
    only_the_staged_bug(&run(&["--whole-crates", "src/lib.rs"]));
    // Alone, the file shows nothing: the helper is not known.
    let alone = run(&["src/lib.rs"]);
    assert_eq!(alone.status.code(), Some(0), "{}", text(&alone));
    // A file of the crate that does not parse is not reported either; the others are
    // still checked.
    std::fs::write(dir.path().join("src/other.rs"), "fn broken( {").unwrap();
    only_the_staged_bug(&run(&["--whole-crates", "src/lib.rs"]));
    let broken = run(&["--whole-crates", "src/other.rs"]);
    let out = text(&broken);
    assert_eq!(broken.status.code(), Some(1), "{out}");
    assert!(
        out.contains("error: src/other.rs: could not parse"),
        "{out}"
    );
    assert!(!out.contains("CLM003"), "{out}");
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=test", "-c", "user.email=test@example.com"])
        .args([
            "-c",
            "commit.gpgsign=false",
            "-c",
            "init.defaultBranch=main",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("git runs");
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A git repository of this checkout's files (tracked and not ignored), committed; its head.
fn hook_repo(dir: &Path) -> String {
    let list = Command::new("git")
        .args([
            "ls-files",
            "-z",
            "--cached",
            "--others",
            "--exclude-standard",
        ])
        .output()
        .expect("git runs");
    assert!(list.status.success(), "the tests run in a git checkout");
    std::fs::create_dir_all(dir).unwrap();
    for name in list.stdout.split(|&b| b == 0).filter(|n| !n.is_empty()) {
        let name = Path::new(std::str::from_utf8(name).unwrap());
        if !name.is_file() {
            continue;
        }
        let to = dir.join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(name, to).unwrap();
    }
    git(dir, &["init", "-q"]);
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-q", "-m", "hooks"]);
    let head = Command::new("git")
        .args(["rev-parse", "HEAD"])
        .current_dir(dir)
        .output()
        .unwrap();
    String::from_utf8(head.stdout).unwrap().trim().to_string()
}

#[test]
fn the_hook_fails_on_findings_and_passes_clean_code() {
    let pre_commit = venv::python().with_file_name("pre-commit");
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("pre-commit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    let hooks = tmp.join("hooks");
    let rev = hook_repo(&hooks);

    let work = tmp.join("work");
    std::fs::create_dir_all(work.join("src")).unwrap();
    git(&work, &["init", "-q"]);
    std::fs::write(
        work.join(".pre-commit-config.yaml"),
        format!(
            "repos:\n  - repo: {}\n    rev: {rev}\n    hooks:\n      - id: clmigrate-lint\n",
            hooks.display()
        ),
    )
    .unwrap();
    std::fs::copy("fixtures/seed/buggy.rs", work.join("src/buggy.rs")).unwrap();
    std::fs::copy("fixtures/seed/fixed.rs", work.join("src/clean.rs")).unwrap();
    std::fs::write(work.join("notes.txt"), "not Rust\n").unwrap();
    git(&work, &["add", "-A"]);

    let pre_commit_in = |dir: &Path, args: &[&str]| -> Output {
        Command::new(&pre_commit)
            .args(["run", "--color", "never"])
            .args(args)
            .current_dir(dir)
            .env("PRE_COMMIT_HOME", tmp.join("home"))
            // Kept between runs of the tests, so that `cargo install` builds incrementally.
            .env(
                "CARGO_TARGET_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("pre-commit-target"),
            )
            // The hook's `cargo install` builds the release profile; what the hook reports
            // does not depend on optimization, and unoptimized it builds in a third of the
            // CPU time (110 s against 342 s from scratch), the longest part of the suite.
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "0")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "0")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "256")
            .output()
            .expect("pre-commit runs")
    };
    let run = |file: &str| -> (Output, String) {
        let out = pre_commit_in(&work, &["--files", file]);
        let text = text(&out);
        (out, text)
    };

    let (out, text) = run("src/buggy.rs");
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("- hook id: clmigrate-lint"), "{text}");
    assert!(text.contains("error[CLM001]"), "{text}");
    assert!(text.contains("┌─ src/buggy.rs:67:28"), "{text}");
    assert!(
        text.contains("4 errors, 3 warnings in 1 file checked"),
        "{text}"
    );

    let (out, text) = run("src/clean.rs");
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(
        text.contains("clmigrate-lint") && text.contains("Passed"),
        "{text}"
    );

    let (out, text) = run("notes.txt");
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("Skipped"), "{text}");

    // A crate with one file staged: pre-commit passes the staged files, the hook checks
    // their crate whole and reports them only.
    let krate = tmp.join("crate");
    two_files(&krate);
    git(&krate, &["init", "-q"]);
    std::fs::copy(
        work.join(".pre-commit-config.yaml"),
        krate.join(".pre-commit-config.yaml"),
    )
    .unwrap();
    git(
        &krate,
        &[
            "add",
            ".pre-commit-config.yaml",
            "Cargo.toml",
            "src/gpu.rs",
            "src/other.rs",
        ],
    );
    git(&krate, &["commit", "-q", "-m", "helpers"]);
    git(&krate, &["add", "src/lib.rs"]);
    only_the_staged_bug(&pre_commit_in(&krate, &[]));

    std::fs::remove_dir_all(&tmp).unwrap();
}
