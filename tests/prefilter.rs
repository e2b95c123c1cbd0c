//! The pre-filter changes nothing that is reported: findings, human and JSON output are the
//! same with and without it, on every fixture and on a tree mixing host code with ordinary
//! Rust; it only skips parsing files that cannot hold a finding.

use std::path::{Path, PathBuf};

use clmigrate_lint::{check, report, Report, Settings};

fn rs_files(root: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

fn both(paths: &[PathBuf]) -> (Report, Report) {
    let on = check(paths, &Settings::default());
    let off = check(
        paths,
        &Settings {
            prefilter: false,
            ..Settings::default()
        },
    );
    (on, off)
}

fn assert_same(on: &Report, off: &Report, what: &str) {
    assert_eq!(on.findings, off.findings, "{what}");
    assert_eq!(on.problems, off.problems, "{what}");
    assert_eq!(
        report::human::render(on),
        report::human::render(off),
        "{what}"
    );
    assert_eq!(
        report::json::render(on),
        report::json::render(off),
        "{what}"
    );
}

/// Only files that a finding points into, or with problems, keep their text.
fn assert_texts_only_where_shown(r: &Report) {
    for (i, f) in r.files.iter().enumerate() {
        let shown = r.findings.iter().any(|x| {
            x.anchor.file == i
                || x.primary.span.file == i
                || x.secondary.iter().any(|l| l.span.file == i)
        }) || r.problems.iter().any(|p| p.path == f.path);
        assert_eq!(!f.text.is_empty(), shown, "{}", f.display);
    }
}

#[test]
fn every_fixture_reports_the_same() {
    let fixtures: Vec<PathBuf> = rs_files("fixtures")
        .into_iter()
        .filter(|f| !f.starts_with("fixtures/crates"))
        .collect();
    assert!(fixtures.len() >= 12);
    for path in &fixtures {
        let (on, off) = both(std::slice::from_ref(path));
        assert_same(&on, &off, &path.display().to_string());
        assert_eq!(on.parsed, 1, "{} names an enqueue", path.display());
    }
}

/// In a package, the files the pre-filter selects pull in the files that define what they
/// call and the callers of what they define, so cross-file findings are the same.
#[test]
fn packages_report_the_same() {
    for dir in ["fixtures/crates/halo", "fixtures/crates/legacy"] {
        let (on, off) = both(&[PathBuf::from(dir)]);
        assert_same(&on, &off, dir);
        assert!(!on.findings.is_empty(), "{dir}");
        assert_texts_only_where_shown(&on);
    }
}

/// Host code and ordinary Rust (this crate's sources and tests), several copies of each
/// under different directories.
fn mixed_tree(dir: &Path) -> usize {
    let _ = std::fs::remove_dir_all(dir);
    let mut n = 0;
    for copy in 0..3 {
        for root in ["fixtures", "src", "tests", "benches"] {
            for f in rs_files(root) {
                let dst = dir.join(format!("c{copy}")).join(&f);
                std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
                std::fs::copy(&f, &dst).unwrap();
                n += 1;
            }
        }
    }
    n
}

#[test]
fn a_mixed_tree_reports_the_same_and_parses_less() {
    let dir = std::env::temp_dir().join(format!("clmigrate-prefilter-{}", std::process::id()));
    let n = mixed_tree(&dir);
    let (on, off) = both(std::slice::from_ref(&dir));
    assert_same(&on, &off, "mixed tree");
    assert_eq!(on.files.len(), n);
    assert_eq!(off.parsed, n);
    assert!(
        on.parsed < n,
        "the pre-filter parsed all {n} files of the tree"
    );
    assert!(!on.findings.is_empty());
    assert_texts_only_where_shown(&on);
    assert_texts_only_where_shown(&off);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_naming_no_enqueue_are_not_decoded_or_parsed() {
    let dir = std::env::temp_dir().join(format!("clmigrate-prefilter-raw-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("latin1.rs"), b"// caf\xe9\nfn f() {}\n").unwrap();
    std::fs::write(dir.join("broken.rs"), "fn broken( {").unwrap();
    std::fs::write(
        dir.join("host.rs"),
        b"// caf\xe9\nfn f() { q.enqueue_task(&k); }",
    )
    .unwrap();
    let (on, off) = both(std::slice::from_ref(&dir));
    assert_eq!(on.files.len(), 3);
    assert_eq!(on.parsed, 0);
    // Only the file naming an enqueue is worth a problem.
    assert_eq!(on.problems.len(), 1, "{:?}", on.problems);
    assert!(on.problems[0].path.ends_with("host.rs"));
    assert!(on.problems[0].message.contains("not valid UTF-8"));
    assert_eq!(off.problems.len(), 3, "{:?}", off.problems);
    assert!(report::human::render(&on).contains("in 3 files checked"));
    let _ = std::fs::remove_dir_all(&dir);
}
