//! Applying fixes: `--fix` (Safe fixes), `--fix --unsafe` (also MaybeIncorrect ones) and
//! `--diff` (print the edits, write nothing). Display-only fixes are never applied.
//!
//! Per file, fixes are taken in source order and one that overlaps a fix already taken is
//! dropped (the next pass may take it). The fixed text must still parse, else the file is
//! left alone. Writes are atomic: a temporary file in the same directory, with the original's
//! permissions, renamed over the original. `--fix` repeats check-and-fix until nothing
//! changes (at most [`PASSES`] times), so running it again changes nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::rules::{Applicability, Fix};
use crate::{check, Problem, Report, Settings};

/// The most check-and-fix passes of one `--fix` run.
pub const PASSES: usize = 8;

/// Whether `--fix` (with `--unsafe` when `unsafe_fixes`) applies a fix of this kind.
pub fn applies(a: Applicability, unsafe_fixes: bool) -> bool {
    match a {
        Applicability::Safe => true,
        Applicability::MaybeIncorrect => unsafe_fixes,
        Applicability::DisplayOnly => false,
    }
}

/// The new text of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    pub path: PathBuf,
    /// The path as shown to the user.
    pub display: String,
    pub old: String,
    pub new: String,
    /// How many fixes it applies.
    pub fixes: usize,
}

/// Applies non-overlapping fixes to `text`; returns the new text and how many were applied.
/// Every edit of a fix must lie in `text`; a fix whose edits overlap one taken earlier (in
/// source order) is left out whole.
pub fn apply_fixes(text: &str, fixes: &[&Fix]) -> (String, usize) {
    let mut order: Vec<&Fix> = fixes
        .iter()
        .copied()
        .filter(|f| !f.edits.is_empty())
        .collect();
    order.sort_by_key(|f| f.edits.iter().map(|e| (e.span.start, e.span.end)).min());
    let mut taken: Vec<(usize, usize, &str)> = Vec::new();
    let mut count = 0;
    for fix in order {
        let overlaps = |s: usize, e: usize| {
            taken
                .iter()
                .any(|&(ts, te, _)| (s < te && ts < e) || s == ts)
        };
        let fits = fix.edits.iter().all(|e| {
            e.span.start <= e.span.end
                && e.span.end <= text.len()
                && text.is_char_boundary(e.span.start)
                && text.is_char_boundary(e.span.end)
                && !overlaps(e.span.start, e.span.end)
        });
        let mut own: Vec<(usize, usize)> = fix
            .edits
            .iter()
            .map(|e| (e.span.start, e.span.end))
            .collect();
        own.sort_unstable();
        let self_overlap = own.windows(2).any(|w| w[1].0 < w[0].1 || w[1].0 == w[0].0);
        if !fits || self_overlap {
            continue;
        }
        taken.extend(
            fix.edits
                .iter()
                .map(|e| (e.span.start, e.span.end, e.replacement.as_str())),
        );
        count += 1;
    }
    taken.sort_by_key(|&(s, e, _)| (s, e));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (s, e, r) in taken {
        out.push_str(&text[at..s]);
        out.push_str(r);
        at = e;
    }
    out.push_str(&text[at..]);
    (out, count)
}

/// The edits `--fix` would make to the files of `report`, and the files it refuses to
/// change because the result would not parse.
pub fn plan(report: &Report, unsafe_fixes: bool) -> (Vec<FileEdit>, Vec<Problem>) {
    let mut by_file: BTreeMap<usize, Vec<&Fix>> = BTreeMap::new();
    for f in &report.findings {
        let Some(fix) = &f.fix else { continue };
        // A fix edits the file of its finding.
        if applies(fix.applicability, unsafe_fixes)
            && fix.edits.iter().all(|e| e.span.file == f.anchor.file)
        {
            by_file.entry(f.anchor.file).or_default().push(fix);
        }
    }
    let mut edits = Vec::new();
    let mut refused = Vec::new();
    for (file, fixes) in by_file {
        let src = &report.files[file];
        let (new, count) = apply_fixes(&src.text, &fixes);
        if count == 0 || new == src.text {
            continue;
        }
        let parsed = match crate::frontend::Lang::of(&src.path) {
            Some(lang) => crate::frontend::clike::still_parses(&src.text, &new, lang),
            None => syn::parse_file(&new).map(drop).map_err(|e| e.to_string()),
        };
        if let Err(e) = parsed {
            refused.push(Problem {
                path: src.path.clone(),
                span: None,
                message: format!("fixes not applied: the fixed file would not parse: {e}"),
                internal: true,
            });
            continue;
        }
        edits.push(FileEdit {
            path: src.path.clone(),
            display: src.display.clone(),
            old: src.text.clone(),
            new,
            fixes: count,
        });
    }
    (edits, refused)
}

/// A unified diff of the edits, one file after another.
pub fn diff(edits: &[FileEdit]) -> String {
    let mut out = String::new();
    for e in edits {
        out.push_str(
            &similar::TextDiff::from_lines(&e.old, &e.new)
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{}", e.display), &format!("b/{}", e.display))
                .to_string(),
        );
    }
    out
}

/// Replaces the contents of `path` atomically, keeping its permissions (and owner, where
/// allowed): the original is either untouched or wholly replaced.
pub fn write_atomic(path: &Path, data: &[u8]) -> io::Result<()> {
    write_atomic_with(path, data, |f, d| f.write_all(d))
}

/// [`write_atomic`] with the function that writes the temporary file given, so a failure
/// while writing can be tested.
pub fn write_atomic_with(
    path: &Path,
    data: &[u8],
    write: impl FnOnce(&mut File, &[u8]) -> io::Result<()>,
) -> io::Result<()> {
    // Write through a symbolic link, not over it.
    let target = fs::canonicalize(path)?;
    let meta = fs::metadata(&target)?;
    let dir = target.parent().unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.{}.clmigrate-lint.tmp", std::process::id()));
    let mut file = OpenOptions::new().write(true).create_new(true).open(&tmp)?;
    let result = (|| {
        write(&mut file, data)?;
        file.set_permissions(meta.permissions())?;
        keep_owner(&file, &meta)?;
        file.sync_all()?;
        fs::rename(&tmp, &target)
    })();
    if result.is_err() {
        // The original is untouched; only the temporary file is to go.
        let _ = fs::remove_file(&tmp);
    }
    result
}

#[cfg(unix)]
fn keep_owner(file: &File, original: &fs::Metadata) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let now = file.metadata()?;
    if (now.uid(), now.gid()) == (original.uid(), original.gid()) {
        return Ok(());
    }
    std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid()))
}

#[cfg(not(unix))]
fn keep_owner(_: &File, _: &fs::Metadata) -> io::Result<()> {
    Ok(())
}

/// What a `--fix` run did.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The findings that remain after fixing.
    pub report: Report,
    /// Fixes applied.
    pub fixed: usize,
    /// Files written.
    pub files: BTreeSet<PathBuf>,
    /// Files left alone: the result would not parse, or the write failed.
    pub refused: Vec<Problem>,
}

/// Checks `paths`, applies the fixes and checks again until nothing changes.
pub fn fix(paths: &[PathBuf], settings: &Settings, unsafe_fixes: bool) -> Outcome {
    let mut out = Outcome {
        report: check(paths, settings),
        ..Outcome::default()
    };
    for _ in 0..PASSES {
        let (edits, refused) = plan(&out.report, unsafe_fixes);
        out.refused.extend(refused);
        let mut wrote = false;
        for e in edits {
            match write_atomic(&e.path, e.new.as_bytes()) {
                Ok(()) => {
                    out.fixed += e.fixes;
                    out.files.insert(e.path);
                    wrote = true;
                }
                Err(err) => out.refused.push(Problem {
                    path: e.path,
                    span: None,
                    message: format!("fixes not applied: could not write the file: {err}"),
                    internal: false,
                }),
            }
        }
        if !wrote {
            break;
        }
        out.report = check(paths, settings);
    }
    out.refused
        .sort_by(|a, b| (&a.path, &a.message).cmp(&(&b.path, &b.message)));
    out.refused.dedup();
    out
}
