//! Fixture-driven tests: every fixture's findings equal its `//~ CLMxxx` markers, and the
//! rendered output of each fixture equals its committed snapshot (run with `BLESS=1` to
//! rewrite the snapshots after reviewing the change). A fixture is a Rust file (snapshot
//! `<stem>.out`), a C or C++ file (snapshot `<file>.out`: `buggy.c.out`), or a Cargo package
//! or a C program (a directory with a `Makefile`) under `fixtures/crates/` checked as a
//! whole, its calls followed across its files (snapshot `<package>/report.out`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clmigrate_lint::{check, report, Report, Settings};

/// Rust, C and C++ sources and headers.
fn rs_files(dir: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            e.path()
                .extension()
                .is_some_and(|x| ["rs", "c", "cpp", "h"].iter().any(|l| x == *l))
        })
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

/// Cargo packages, and C programs with their makefile.
fn packages() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir("fixtures/crates")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("Cargo.toml").is_file() || p.join("Makefile").is_file())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 3, "package fixtures missing: {dirs:?}");
    dirs
}

/// One fixture: what is checked, its files, its snapshot.
struct Fixture {
    root: PathBuf,
    files: Vec<PathBuf>,
    snapshot: PathBuf,
}

fn fixtures() -> Vec<Fixture> {
    let mut out: Vec<Fixture> = rs_files("fixtures")
        .into_iter()
        .filter(|f| !f.starts_with("fixtures/crates"))
        .map(|f| Fixture {
            root: f.clone(),
            files: vec![f.clone()],
            snapshot: match f.extension().is_some_and(|x| x == "rs") {
                true => f.with_extension("out"),
                false => PathBuf::from(format!("{}.out", f.display())),
            },
        })
        .collect();
    assert!(out.len() >= 12, "fixtures missing");
    for dir in packages() {
        let files = rs_files(dir.to_str().unwrap());
        assert!(files.len() >= 2, "{}: {files:?}", dir.display());
        out.push(Fixture {
            snapshot: dir.join("report.out"),
            root: dir,
            files,
        });
    }
    out
}

fn fixture_files() -> Vec<PathBuf> {
    fixtures().into_iter().flat_map(|f| f.files).collect()
}

/// `(file, line, code)` → count, from `//~ CODE [CODE...]` comments.
fn markers(files: &[PathBuf]) -> BTreeMap<(PathBuf, usize, String), usize> {
    let mut m = BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, line) in text.lines().enumerate() {
            if let Some(pos) = line.find("//~") {
                for code in line[pos + 3..].split_whitespace() {
                    *m.entry((file.clone(), i + 1, code.to_string()))
                        .or_insert(0) += 1;
                }
            }
        }
    }
    m
}

fn findings(report: &Report) -> BTreeMap<(PathBuf, usize, String), usize> {
    let mut m = BTreeMap::new();
    for f in &report.findings {
        let file = &report.files[f.anchor.file];
        let (line, _) = file.line_col(f.anchor.start);
        *m.entry((file.path.clone(), line, f.code.to_string()))
            .or_insert(0) += 1;
    }
    m
}

fn check_one(path: &Path) -> Report {
    check(&[path.to_path_buf()], &Settings::default())
}

#[test]
fn findings_equal_markers() {
    let mut failures = Vec::new();
    for fx in fixtures() {
        let report = check_one(&fx.root);
        assert!(
            report.problems.is_empty(),
            "{}: {:?}",
            fx.root.display(),
            report.problems
        );
        assert_eq!(report.parsed, fx.files.len(), "{}", fx.root.display());
        let want = markers(&fx.files);
        let got = findings(&report);
        if want != got {
            failures.push(format!(
                "{}:\n  markers:  {want:?}\n  findings: {got:?}\n{}",
                fx.root.display(),
                report::human::render(&report)
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A package's files alone miss what crosses files: the helper's command is not seen from
/// its caller, the struct's fields and the `.cl` kernels are not known.
#[test]
fn packages_need_their_other_files() {
    for dir in packages() {
        let whole = findings(&check_one(&dir)).len();
        let alone: usize = rs_files(dir.to_str().unwrap())
            .iter()
            .map(|f| {
                let copy = tempfile::tempdir().unwrap();
                let to = copy.path().join(f.file_name().unwrap());
                std::fs::copy(f, &to).unwrap();
                findings(&check_one(&to)).len()
            })
            .sum();
        assert!(
            alone < whole,
            "{}: {alone} alone, {whole} whole",
            dir.display()
        );
    }
}

#[test]
fn fixed_variants_are_clean() {
    for path in fixture_files()
        .iter()
        .filter(|p| p.file_stem().is_some_and(|n| n == "fixed"))
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
    for lang in ["rs", "c", "cpp"] {
        seed_bugs(lang);
    }
}

fn seed_bugs(lang: &str) {
    let report = check_one(Path::new(&format!("fixtures/seed/buggy.{lang}")));
    let mut codes: Vec<&str> = report.findings.iter().map(|f| f.code).collect();
    codes.sort();
    // C and C++ pass both host arrays the seed names (`&dev0_arr`, `&common_arr`).
    let host_args = if lang == "rs" { 1 } else { 2 };
    let mut want = vec!["CLM001"; host_args];
    // The duplicate upload (CLM004) on `cmdq_dev1` is a blocking write, which only lets the
    // host reuse its data: nothing orders it before the first kernel on `cmdq_dev0` (CLM003).
    want.extend(["CLM002", "CLM002", "CLM003", "CLM003", "CLM003", "CLM004"]);
    assert_eq!(codes, want, "buggy.{lang}");
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
    let fixed = check_one(Path::new(&format!("fixtures/seed/fixed.{lang}")));
    assert!(fixed.findings.is_empty(), "fixed.{lang}");
}

#[test]
fn rendered_output_matches_snapshots() {
    let bless = std::env::var_os("BLESS").is_some();
    let mut failures = Vec::new();
    for fx in fixtures() {
        let (path, snap) = (&fx.root, &fx.snapshot);
        let rendered = report::human::render(&check_one(path));
        if bless {
            std::fs::write(snap, &rendered).unwrap();
            continue;
        }
        match std::fs::read_to_string(snap) {
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
    for fx in fixtures() {
        let report = check_one(&fx.root);
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
