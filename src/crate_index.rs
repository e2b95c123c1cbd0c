//! Checking a file as part of its crate, for the pre-commit hook: it is given files, and
//! must see what a check of the whole crate sees, where a call into a helper that another
//! file of the crate defines is followed.
//!
//! [`crate_files`] lists the files of a file's crate, and [`check_crates_of`] checks whole
//! crates and reports what is located in the files it was given.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use crate::package::Locator;
use crate::{discover, Report, Settings};

/// The files of `file`'s crate (see [`crate::package`]), `file` among them: those of the
/// crate's directories that belong to the same crate. A file in none of a package's crates
/// is a crate of its own.
pub fn crate_files(file: &Path, locator: &mut Locator) -> Vec<PathBuf> {
    let placement = locator.place(file);
    let Some(name) = placement
        .root
        .as_ref()
        .and(placement.krate.rsplit_once('#'))
        .map(|(_, n)| n)
    else {
        return vec![file.to_path_buf()];
    };
    let root = placement.root.as_deref().unwrap_or(Path::new("."));
    let dir = match name.split_once('/') {
        Some(("bin", _)) => root.join("src").join("bin"),
        Some((kind, _)) => root.join(kind),
        None if name == "build" => return vec![file.to_path_buf()],
        None => root.join("src"),
    };
    // Shown as the command line's paths are: relative to the working directory.
    let cwd = std::env::current_dir().ok().map(|c| canonical(&c));
    let mut files: Vec<PathBuf> = discover::discover(&[dir])
        .files
        .into_iter()
        .filter(|f| locator.place(f).krate == placement.krate)
        .map(
            |f| match cwd.as_deref().and_then(|c| f.strip_prefix(c).ok()) {
                Some(rel) => rel.to_path_buf(),
                None => f,
            },
        )
        .collect();
    let own = canonical(file);
    if !files.iter().any(|f| canonical(f) == own) {
        files.push(file.to_path_buf());
    }
    files
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Checks the whole crates the files under `paths` belong to, and reports what is located
/// in those files only: the findings whose primary label is in one of them, and their
/// problems. The report's files are those of the crates (all of them were checked).
pub fn check_crates_of(paths: &[PathBuf], settings: &Settings) -> Report {
    let found = discover::discover(paths);
    let mut locator = Locator::default();
    let mut all: BTreeSet<PathBuf> = BTreeSet::new();
    for f in &found.files {
        all.extend(crate_files(f, &mut locator));
    }
    let given: HashSet<PathBuf> = found.files.iter().map(|f| canonical(f)).collect();
    let all: Vec<PathBuf> = all.into_iter().collect();
    let mut report = crate::check(&all, settings);
    let located: Vec<bool> = report
        .files
        .iter()
        .map(|s| given.contains(&canonical(&s.path)))
        .collect();
    report
        .findings
        .retain(|f| located.get(f.primary.span.file).copied().unwrap_or(false));
    report
        .problems
        .retain(|p| given.contains(&canonical(&p.path)));
    report.missing = found.missing;
    report
}
