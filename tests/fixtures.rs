//! Fixture-driven tests: every fixture's findings equal its `//~ CLMxxx` markers, and the
//! rendered output of each fixture equals its committed snapshot (`<file>.out`; run with
//! `BLESS=1` to rewrite the snapshots after reviewing the change).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clmigrate_lint::{check, report, Report, Settings};

fn fixture_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new("fixtures")
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    assert!(files.len() >= 12, "fixtures missing: {files:?}");
    files
}

/// `(line, code)` → count, from `//~ CODE [CODE...]` comments.
fn markers(text: &str) -> BTreeMap<(usize, String), usize> {
    let mut m = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(pos) = line.find("//~") {
            for code in line[pos + 3..].split_whitespace() {
                *m.entry((i + 1, code.to_string())).or_insert(0) += 1;
            }
        }
    }
    m
}

fn findings(report: &Report) -> BTreeMap<(usize, String), usize> {
    let mut m = BTreeMap::new();
    for f in &report.findings {
        let (line, _) = report.files[f.anchor.file].line_col(f.anchor.start);
        *m.entry((line, f.code.to_string())).or_insert(0) += 1;
    }
    m
}

fn check_one(path: &Path) -> Report {
    check(&[path.to_path_buf()], &Settings::default())
}

#[test]
fn findings_equal_markers() {
    let mut failures = Vec::new();
    for path in fixture_files() {
        let text = std::fs::read_to_string(&path).unwrap();
        let report = check_one(&path);
        assert!(
            report.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            report.problems
        );
        let want = markers(&text);
        let got = findings(&report);
        if want != got {
            failures.push(format!(
                "{}:\n  markers:  {want:?}\n  findings: {got:?}\n{}",
                path.display(),
                report::human::render(&report)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn fixed_variants_are_clean() {
    for path in fixture_files()
        .iter()
        .filter(|p| p.file_name().is_some_and(|n| n == "fixed.rs"))
    {
        let report = check_one(path);
        assert!(
            report.findings.is_empty(),
            "{}:\n{}",
            path.display(),
            report::human::render(&report)
        );
    }
}

#[test]
fn seed_buggy_yields_exactly_its_four_bugs() {
    let report = check_one(Path::new("fixtures/seed/buggy.rs"));
    let mut codes: Vec<&str> = report.findings.iter().map(|f| f.code).collect();
    codes.sort();
    assert_eq!(
        codes,
        ["CLM001", "CLM002", "CLM002", "CLM003", "CLM003", "CLM004"]
    );
    // Each CLM003 names both commands: the consumer (primary) and the producer.
    for f in report.findings.iter().filter(|f| f.code == "CLM003") {
        assert_eq!(f.secondary.len(), 1, "{f:?}");
        assert!(
            f.secondary[0]
                .message
                .starts_with("written here on `cmdq_dev"),
            "{f:?}"
        );
    }
    let fixed = check_one(Path::new("fixtures/seed/fixed.rs"));
    assert!(fixed.findings.is_empty());
}

#[test]
fn rendered_output_matches_snapshots() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    for path in fixture_files() {
        let rendered = report::human::render(&check_one(&path));
        let snap = path.with_extension("out");
        if bless {
            std::fs::write(&snap, &rendered).unwrap();
            continue;
        }
        match std::fs::read_to_string(&snap) {
            Ok(want) if want == rendered => {}
            Ok(want) => failures.push(format!(
                "{} differs from {}:\n--- want\n{want}\n--- got\n{rendered}",
                path.display(),
                snap.display()
            )),
            Err(_) => failures.push(format!(
                "{} has no snapshot {}",
                path.display(),
                snap.display()
            )),
        }
    }
    assert!(
        failures.is_empty(),
        "run with BLESS=1 to accept:\n{}",
        failures.join("\n")
    );
}

/// Names of APIs and code in messages are in backticks; messages start lowercase and end
/// without a period.
#[test]
fn message_style() {
    let mut bad = Vec::new();
    for path in fixture_files() {
        let report = check_one(&path);
        for f in &report.findings {
            let mut texts = vec![f.message.as_str(), f.primary.message.as_str()];
            texts.extend(f.secondary.iter().map(|l| l.message.as_str()));
            texts.extend(f.help.as_deref());
            texts.extend(f.note.as_deref());
            for t in texts {
                let first = t.chars().next().unwrap_or(' ');
                if first.is_uppercase() {
                    bad.push(format!("starts uppercase: {t}"));
                }
                if t.ends_with('.') {
                    bad.push(format!("ends with a period: {t}"));
                }
                // Outside backticks, no identifier-like words (snake_case, paths, calls).
                for (i, part) in t.split('`').enumerate() {
                    if i % 2 == 0
                        && (part.contains('_') || part.contains("::") || part.contains("()"))
                    {
                        bad.push(format!("code outside backticks: {t}"));
                    }
                }
                if t.matches('`').count() % 2 != 0 {
                    bad.push(format!("unbalanced backticks: {t}"));
                }
            }
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
