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
