//! Which files to read: every `.rs`, `.c`, `.h`, `.cpp`, `.cc`, `.cxx`, `.hpp`, `.hh` and
//! `.hxx` file under the given paths, except cargo's output (a `target/` beside a
//! `Cargo.toml`) and hidden directories.
//!
//! Symbolic links are followed, except into `/proc`, `/sys` and `/dev` (reported once); a
//! file reached by several paths is read once (under the first path in sorted order). A
//! dangling link, a link loop, an unreadable directory and a `.rs` entry that is not a
//! regular file (a FIFO, a socket, a device) are each reported once and skipped, and the
//! walk goes on.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// Something that went wrong while walking, reported and skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WalkProblem {
    pub path: PathBuf,
    pub message: String,
}

/// What the walk found.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Sorted, without duplicates.
    pub files: Vec<PathBuf>,
    pub problems: Vec<WalkProblem>,
    /// Paths given on the command line that do not exist.
    pub missing: Vec<PathBuf>,
}

/// A hidden directory, or cargo's output: a `target` beside a `Cargo.toml` (a module
/// directory named `target` under `src/` is source).
fn skipped_dir(e: &walkdir::DirEntry) -> bool {
    let Some(name) = e.file_name().to_str() else {
        return false;
    };
    (name == "target" && e.path().with_file_name("Cargo.toml").is_file())
        || (name.starts_with('.') && name != "." && name != "..")
}

/// Collects the `.rs` files under `paths`. A file named explicitly is taken whatever its
/// extension.
pub fn discover(paths: &[PathBuf]) -> Discovered {
    let mut d = Discovered::default();
    for root in paths {
        match std::fs::metadata(root) {
            Err(_) => d.missing.push(root.clone()),
            Ok(m) if m.is_file() => d.files.push(root.clone()),
            Ok(m) if m.is_dir() => walk(root, &mut d),
            Ok(_) => d.problems.push(not_regular(root)),
        }
    }
    d.files.sort();
    let mut seen = std::collections::HashSet::new();
    d.files
        .retain(|f| seen.insert(std::fs::canonicalize(f).unwrap_or_else(|_| f.clone())));
    d
}

/// A file the checker reads: Rust, C or C++ ([`Lang`](crate::frontend::Lang)).
fn is_rs(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "rs") || crate::frontend::Lang::of(p).is_some()
}

/// The kernel's pseudo-file systems: a symbolic link into one is not followed (reading
/// them can block, never end, or have side effects).
const SYSTEM_DIRS: &[&str] = &["/proc", "/sys", "/dev"];

/// Whether the entry is a symbolic link that leads into [`SYSTEM_DIRS`].
fn into_system_dir(e: &walkdir::DirEntry) -> bool {
    e.path_is_symlink()
        && std::fs::canonicalize(e.path())
            .is_ok_and(|t| SYSTEM_DIRS.iter().any(|s| t.starts_with(s)))
}

fn walk(root: &Path, d: &mut Discovered) {
    let mut system = Vec::new();
    let it = WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            if e.depth() > 0 && into_system_dir(e) {
                system.push(e.path().to_path_buf());
                return false;
            }
            e.depth() == 0 || !e.file_type().is_dir() || !skipped_dir(e)
        });
    for entry in it {
        match entry {
            Ok(e) => {
                let t = e.file_type();
                if is_rs(e.path()) && t.is_file() {
                    d.files.push(e.into_path());
                } else if is_rs(e.path()) && !t.is_dir() {
                    d.problems.push(not_regular(e.path()));
                }
            }
            Err(err) => {
                let path = err
                    .path()
                    .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                let dangling = err.io_error().is_some_and(|e| {
                    e.kind() == std::io::ErrorKind::NotFound
                        && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink())
                });
                let message = if err.loop_ancestor().is_some() {
                    "symbolic link loop, not followed".to_string()
                } else if dangling {
                    // A dangling link is only worth a word when it names a source file.
                    if !is_rs(&path) {
                        continue;
                    }
                    "dangling symbolic link, not followed".to_string()
                } else {
                    let e = err
                        .io_error()
                        .map_or_else(|| err.to_string(), |e| e.to_string());
                    format!("could not read: {e}")
                };
                d.problems.push(WalkProblem { path, message });
            }
        }
    }
    d.problems
        .extend(system.into_iter().map(|path| WalkProblem {
            path,
            message: "symbolic link into /proc, /sys or /dev, not followed".into(),
        }));
}

/// The OpenCL C files (`.cl`) under `dir` (to `depth` levels; `None` for all), skipping
/// `target/` and hidden directories, sorted. They only add kernel signatures, so what
/// cannot be read is left out without a word.
pub fn kernel_files(dir: &Path, depth: Option<usize>) -> Vec<PathBuf> {
    let mut w = WalkDir::new(dir).follow_links(true).sort_by_file_name();
    if let Some(d) = depth {
        w = w.max_depth(d);
    }
    w.into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_type().is_dir() || !skipped_dir(e))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "cl"))
        .map(walkdir::DirEntry::into_path)
        .collect()
}

fn not_regular(path: &Path) -> WalkProblem {
    WalkProblem {
        path: path.to_path_buf(),
        message: "not a regular file; it was not read".into(),
    }
}
