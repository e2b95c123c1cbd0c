//! The held-out corpus (`tests/corpus/`, described in its `README.md`): realistic host
//! programs, each checked on its own. Every `//~ CODE` marker must be found on its line and
//! nothing unmarked may be reported, except what `tests/corpus/known.txt` lists:
//!
//! - `missed FILE:LINE CODE`: a marker the checker does not find today. The test requires it
//!   to be missed, so the entry must be deleted when the analysis learns to find it.
//! - `elsewhere FILE:LINE CODE at LINE2`: the marker's bug is reported, but at `LINE2` (a line
//!   inside the helper that the caller's arguments make wrong) instead of the caller's line
//!   where the user fixes it. Required as written, so it too goes when the anchor moves.
//!
//! Any other finding is a false alarm and fails the test. The test prints recall and false
//! alarms per file: `cargo test --test corpus -- --nocapture`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use clmigrate_lint::{check, report, Report, Settings};

const DIR: &str = "tests/corpus";

type Key = (usize, String);

fn corpus_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(DIR)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    files.sort();
    files
}

/// `(line, code)` → count, from `//~ CODE [CODE...]` comments.
fn markers(text: &str) -> BTreeMap<Key, usize> {
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

fn findings(report: &Report) -> BTreeMap<Key, usize> {
    let mut m = BTreeMap::new();
    for f in &report.findings {
        let (line, _) = report.files[f.anchor.file].line_col(f.anchor.start);
        *m.entry((line, f.code.to_string())).or_insert(0) += 1;
    }
    m
}

/// One line of `known.txt`.
#[derive(Debug)]
struct Known {
    file: String,
    marker: Key,
    /// Where the finding is reported instead, for `elsewhere`.
    at: Option<usize>,
}

fn parse_place(place: &str) -> (String, usize) {
    let (file, line) = place
        .rsplit_once(':')
        .unwrap_or_else(|| panic!("`{place}`: FILE:LINE expected"));
    (file.to_string(), line.parse().expect("line number"))
}

fn known() -> Vec<Known> {
    let text = std::fs::read_to_string(Path::new(DIR).join("known.txt")).unwrap();
    let mut out = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let entry = match words.as_slice() {
            ["missed", place, code] => {
                let (file, n) = parse_place(place);
                Known {
                    file,
                    marker: (n, code.to_string()),
                    at: None,
                }
            }
            ["elsewhere", place, code, "at", at] => {
                let (file, n) = parse_place(place);
                Known {
                    file,
                    marker: (n, code.to_string()),
                    at: Some(at.parse().expect("line number")),
                }
            }
            _ => panic!("known.txt: cannot read `{line}`"),
        };
        out.push(entry);
    }
    out
}

fn take(m: &mut BTreeMap<Key, usize>, k: &Key) -> bool {
    match m.get_mut(k) {
        Some(n) if *n > 1 => {
            *n -= 1;
            true
        }
        Some(_) => {
            m.remove(k);
            true
        }
        None => false,
    }
}

#[test]
fn every_marker_found_and_nothing_else() {
    let files = corpus_files();
    assert!(files.len() >= 30, "the corpus has {} files", files.len());
    let known = known();
    let mut failures = Vec::new();
    let (mut all_markers, mut all_found, mut all_false) = (0, 0, 0);
    println!(
        "{:<40} {:>7} {:>5} {:>9} {:>12}",
        "file", "markers", "found", "elsewhere", "false alarms"
    );
    for path in &files {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(path).unwrap();
        let report = check(std::slice::from_ref(path), &Settings::default());
        assert!(report.problems.is_empty(), "{name}: {:?}", report.problems);
        let marked = markers(&text);
        let total: usize = marked.values().sum();
        // What must be reported where: the markers, less the known misses, plus the known
        // findings reported elsewhere.
        let mut want = marked.clone();
        let mut listed: BTreeMap<Key, usize> = BTreeMap::new();
        let mut elsewhere = 0;
        for k in known.iter().filter(|k| k.file == name) {
            if !take(&mut want, &k.marker) {
                failures.push(format!(
                    "{name}: known.txt lists {:?} once too often or not on a marker",
                    k.marker
                ));
                continue;
            }
            *listed.entry(k.marker.clone()).or_insert(0) += 1;
            if let Some(at) = k.at {
                *want.entry((at, k.marker.1.clone())).or_insert(0) += 1;
                elsewhere += 1;
            }
        }
        let got = findings(&report);
        let mut found = 0;
        for (k, n) in &marked {
            found += got.get(k).copied().unwrap_or(0).min(*n);
        }
        let mut false_alarms = 0;
        for k in want
            .keys()
            .chain(got.keys())
            .collect::<std::collections::BTreeSet<_>>()
        {
            let w = want.get(k).copied().unwrap_or(0);
            let g = got.get(k).copied().unwrap_or(0);
            if g < w {
                failures.push(format!(
                    "{name}:{}: {} expected {w} time(s), reported {g}",
                    k.0, k.1
                ));
            } else if g > w && listed.contains_key(k) {
                failures.push(format!(
                    "{name}:{}: {} is found now: delete it from known.txt",
                    k.0, k.1
                ));
            } else if g > w {
                false_alarms += g - w;
                failures.push(format!(
                    "{name}:{}: {} reported {g} time(s), expected {w}",
                    k.0, k.1
                ));
            }
        }
        println!("{name:<40} {total:>7} {found:>5} {elsewhere:>9} {false_alarms:>12}");
        if false_alarms > 0 {
            println!("{}", report::human::render(&report));
        }
        all_markers += total;
        all_found += found;
        all_false += false_alarms;
    }
    let known_missed = known.len();
    println!(
        "total: {all_markers} markers, {all_found} found ({:.0}% recall), {known_missed} listed in known.txt, {all_false} false alarms",
        100.0 * all_found as f64 / all_markers.max(1) as f64
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
