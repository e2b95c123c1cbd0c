//! Content fingerprints of findings, and baselines built from them.
//!
//! A fingerprint is a hash of the rule code, the file's path relative to the source root and
//! the anchored construct's text with comments removed and whitespace collapsed. Line
//! numbers are not part of it, so inserting lines above a finding, reformatting it or
//! editing its comments keeps its fingerprint. SARIF's `partialFingerprints` and baselines
//! use the same one.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::rules::Finding;
use crate::source::SourceFile;
use crate::suppress::comments;
use crate::Report;

/// Text with comments removed and every run of whitespace made one space.
pub fn normalized(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    let push = |s: &str, out: &mut String| {
        for word in s.split_whitespace() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    };
    for c in comments(text) {
        push(&text[at..c.start], &mut out);
        at = c.end;
    }
    push(&text[at..], &mut out);
    out
}

/// 64-bit FNV-1a: stable across platforms, Rust versions and runs.
fn fnv1a(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for &b in p.as_bytes().iter().chain(&[0u8]) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}

/// The fingerprint of a finding in `file`, whose path relative to the source root is `path`.
pub fn fingerprint(file: &SourceFile, path: &str, f: &Finding) -> String {
    let text = normalized(file.slice(f.anchor));
    format!("{:016x}", fnv1a(&[f.code, path, &text]))
}

/// Fingerprints of every finding of a report, in order, with the source-root relative path.
pub fn fingerprints(report: &Report, root: &Path) -> Vec<(String, String)> {
    report
        .findings
        .iter()
        .map(|f| {
            let file = &report.files[f.anchor.file];
            let path = file.relative_to(root);
            (fingerprint(file, &path, f), path)
        })
        .collect()
}

/// One recorded finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    pub code: String,
    pub file: String,
    pub fingerprint: String,
    /// For people reading the file; not used for matching.
    pub message: String,
}

/// The findings of a run, recorded to report only new ones later.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Baseline {
    pub version: u32,
    pub findings: Vec<Entry>,
}

const VERSION: u32 = 1;

impl Baseline {
    /// Records every finding of `report`.
    pub fn of(report: &Report, root: &Path) -> Baseline {
        let findings = report
            .findings
            .iter()
            .zip(fingerprints(report, root))
            .map(|(f, (fingerprint, file))| Entry {
                code: f.code.to_string(),
                file,
                fingerprint,
                message: f.message.clone(),
            })
            .collect();
        Baseline {
            version: VERSION,
            findings,
        }
    }

    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    pub fn from_json(text: &str) -> Result<Baseline, String> {
        let b: Baseline =
            serde_json::from_str(text).map_err(|e| format!("not a baseline file: {e}"))?;
        if b.version != VERSION {
            return Err(format!(
                "baseline version {} is not supported (expected {VERSION})",
                b.version
            ));
        }
        Ok(b)
    }

    /// Removes the findings the baseline records from `report`, and returns how many it
    /// removed. Matching is by code, file and fingerprint; a baseline entry matches one
    /// finding, so a second copy of a recorded construct is new.
    pub fn filter(&self, report: &mut Report, root: &Path) -> usize {
        let mut left: HashMap<(&str, &str, &str), usize> = HashMap::new();
        for e in &self.findings {
            *left.entry((&e.code, &e.file, &e.fingerprint)).or_default() += 1;
        }
        let prints = fingerprints(report, root);
        let mut keep = Vec::with_capacity(prints.len());
        for (f, (fp, file)) in report.findings.iter().zip(&prints) {
            let known = left
                .get_mut(&(f.code, file.as_str(), fp.as_str()))
                .filter(|n| **n > 0)
                .map(|n| *n -= 1)
                .is_some();
            keep.push(!known);
        }
        let before = report.findings.len();
        let mut k = keep.into_iter();
        report.findings.retain(|_| k.next().unwrap_or(true));
        before - report.findings.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalization_drops_comments_and_layout() {
        assert_eq!(
            normalized("q.enqueue( // CLM003\n    1,\n  /* x */ &b.get(),\n)"),
            "q.enqueue( 1, &b.get(), )"
        );
    }
}
