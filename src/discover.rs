//! Which files to read: every `.rs`, `.c`, `.h`, `.cpp`, `.cc`, `.cxx`, `.hpp`, `.hh` and
//! `.hxx` file under the given paths, except cargo's output (a `target/` beside a
//! `Cargo.toml`), hidden directories and what git would ignore (`.gitignore` files, in a
//! repository or not, and those of the directories above, `.ignore` files,
//! `.git/info/exclude` and git's global excludes; [`WalkOptions::no_ignore`] includes
//! those). A file given explicitly is always read.
//!
//! Symbolic links are followed, except into `/proc`, `/sys` and `/dev` (reported once); a
//! file reached by several paths is read once (under the first path in sorted order). A
//! dangling link, a link loop, an unreadable directory and a `.rs` entry that is not a
//! regular file (a FIFO, a socket, a device) are each reported once and skipped, and the
//! walk goes on.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use ignore::WalkBuilder;
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
    /// The canonical path of each of `files` (symbolic links resolved), or the path itself
    /// when it has none.
    pub canonical: Vec<PathBuf>,
    pub problems: Vec<WalkProblem>,
    /// Paths given on the command line that do not exist.
    pub missing: Vec<PathBuf>,
}

/// How to walk the directories given.
#[derive(Debug, Clone, Default)]
pub struct WalkOptions {
    /// Also read the files that `.gitignore`, `.ignore` and git's excludes leave out.
    pub no_ignore: bool,
    /// Leave out the directories below a root that hold a `Cargo.toml`: other packages, as
    /// cargo leaves them out of a package (for `-p` and `--workspace`).
    pub one_package: bool,
}

/// Whether a directory named `name` at `path` is left out: a hidden one, or cargo's
/// output, a `target` beside a `Cargo.toml` (a module directory named `target` under
/// `src/` is source).
fn skipped_dir(name: &std::ffi::OsStr, path: &Path) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    (name == "target" && path.with_file_name("Cargo.toml").is_file())
        || (name.starts_with('.') && name != "." && name != "..")
}

/// Collects the source files under `paths`, as [`discover_with`] with the default options.
pub fn discover(paths: &[PathBuf]) -> Discovered {
    discover_with(paths, &WalkOptions::default())
}

/// Collects the source files under `paths`. A file named explicitly is taken whatever its
/// extension, and whatever the ignore files say.
pub fn discover_with(paths: &[PathBuf], options: &WalkOptions) -> Discovered {
    let mut d = Discovered::default();
    let mut found: Vec<(PathBuf, PathBuf)> = Vec::new();
    for root in paths {
        match std::fs::metadata(root) {
            Err(_) => d.missing.push(root.clone()),
            Ok(m) if m.is_file() => found.push((root.clone(), canonical_or_same(root))),
            Ok(m) if m.is_dir() => walk(root, options, &mut d, &mut found),
            Ok(_) => d.problems.push(not_regular(root)),
        }
    }
    found.sort();
    let mut seen = std::collections::HashSet::new();
    found.retain(|(_, c)| seen.insert(c.clone()));
    (d.files, d.canonical) = found.into_iter().unzip();
    d
}

fn canonical_or_same(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Canonical paths of the files of one walk, without resolving each file: a path that
/// no symbolic link leads to below the root is the root's canonical path joined with the
/// rest; only the directories reached through a link are resolved (each once), and the
/// files that are links themselves.
struct Canonical<'a> {
    root: &'a Path,
    canonical_root: PathBuf,
    /// Directories reached through a symbolic link: their canonical paths.
    linked: std::collections::HashMap<PathBuf, Option<PathBuf>>,
}

impl<'a> Canonical<'a> {
    fn new(root: &'a Path) -> Self {
        Canonical {
            root,
            canonical_root: canonical_or_same(root),
            linked: std::collections::HashMap::new(),
        }
    }

    /// Takes note of a directory of the walk (given before what is in it).
    fn dir(&mut self, path: &Path, is_symlink: bool) {
        let parent = path.parent().and_then(|p| self.linked.get(p));
        let c = match (is_symlink, parent, path.file_name()) {
            (false, None, _) => return,
            (false, Some(Some(p)), Some(name)) => Some(p.join(name)),
            _ => std::fs::canonicalize(path).ok(),
        };
        self.linked.insert(path.to_path_buf(), c);
    }

    /// The canonical path of a file of the walk.
    fn file(&self, path: &Path, is_symlink: bool) -> PathBuf {
        if is_symlink {
            return canonical_or_same(path);
        }
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return canonical_or_same(path);
        };
        match self.linked.get(dir) {
            Some(Some(c)) => c.join(name),
            Some(None) => canonical_or_same(path),
            None => match path.strip_prefix(self.root) {
                Ok(rel) => self.canonical_root.join(rel),
                Err(_) => canonical_or_same(path),
            },
        }
    }
}

/// A file the checker reads: Rust, C or C++ ([`Lang`](crate::frontend::Lang)).
fn is_rs(p: &Path) -> bool {
    p.extension().is_some_and(|x| x == "rs") || crate::frontend::Lang::of(p).is_some()
}

/// Whether `path` is a `Cargo.toml` or `clmigrate-lint.toml` larger than a source may be:
/// it is not read, so its package or settings would be missed without a word.
fn oversized_manifest(path: &Path) -> bool {
    path.file_name()
        .is_some_and(|n| n == "Cargo.toml" || n == "clmigrate-lint.toml")
        && std::fs::metadata(path).is_ok_and(|m| m.len() > crate::source::MAX_FILE_BYTES)
}

/// The kernel's pseudo-file systems: a symbolic link into one is not followed (reading
/// them can block, never end, or have side effects).
const SYSTEM_DIRS: &[&str] = &["/proc", "/sys", "/dev"];

/// Whether `path` is a symbolic link that leads into [`SYSTEM_DIRS`].
fn into_system_dir(path: &Path, is_symlink: bool) -> bool {
    is_symlink
        && std::fs::canonicalize(path).is_ok_and(|t| SYSTEM_DIRS.iter().any(|s| t.starts_with(s)))
}

/// The innermost error of the walk, with the path it is about.
fn unwrap_error(err: &ignore::Error) -> (Option<&Path>, &ignore::Error) {
    match err {
        ignore::Error::WithPath { path, err } => (Some(path), unwrap_error(err).1),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            unwrap_error(err)
        }
        e => (None, e),
    }
}

fn walk(
    root: &Path,
    options: &WalkOptions,
    d: &mut Discovered,
    found: &mut Vec<(PathBuf, PathBuf)>,
) {
    let mut canonical = Canonical::new(root);
    let system = Arc::new(Mutex::new(Vec::new()));
    let seen_system = Arc::clone(&system);
    let one_package = options.one_package;
    let honor = !options.no_ignore;
    let it = WalkBuilder::new(root)
        .follow_links(true)
        .hidden(false)
        .parents(honor)
        .ignore(honor)
        .git_ignore(honor)
        .git_global(honor)
        .git_exclude(honor)
        .require_git(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(move |e| {
            if e.depth() == 0 {
                return true;
            }
            if into_system_dir(e.path(), e.path_is_symlink()) {
                if let Ok(mut s) = seen_system.lock() {
                    s.push(e.path().to_path_buf());
                }
                return false;
            }
            if !e.file_type().is_some_and(|t| t.is_dir()) {
                return true;
            }
            let other_package = one_package && e.path().join("Cargo.toml").is_file();
            !(skipped_dir(e.file_name(), e.path()) || other_package)
        })
        .build();
    for entry in it {
        match entry {
            Ok(e) => {
                let Some(t) = e.file_type() else { continue };
                if t.is_dir() && e.depth() > 0 {
                    canonical.dir(e.path(), e.path_is_symlink());
                }
                if t.is_file() && oversized_manifest(e.path()) {
                    d.problems.push(WalkProblem {
                        path: e.path().to_path_buf(),
                        message: format!(
                            "larger than {} MiB; it was not read",
                            crate::source::MAX_FILE_BYTES >> 20
                        ),
                    });
                }
                if is_rs(e.path()) && t.is_file() {
                    let c = canonical.file(e.path(), e.path_is_symlink());
                    found.push((e.into_path(), c));
                } else if is_rs(e.path()) && !t.is_dir() {
                    d.problems.push(not_regular(e.path()));
                }
            }
            Err(err) => {
                let (at, inner) = unwrap_error(&err);
                let path = at.map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                let message = match inner {
                    ignore::Error::Loop { child, .. } => {
                        d.problems.push(WalkProblem {
                            path: child.clone(),
                            message: "symbolic link loop, not followed".into(),
                        });
                        continue;
                    }
                    ignore::Error::Io(e)
                        if e.kind() == std::io::ErrorKind::NotFound
                            && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_symlink()) =>
                    {
                        // A dangling link is only worth a word when it names a source file.
                        if !is_rs(&path) {
                            continue;
                        }
                        "dangling symbolic link, not followed".to_string()
                    }
                    ignore::Error::Io(e) => format!("could not read: {e}"),
                    e => format!("could not read: {e}"),
                };
                d.problems.push(WalkProblem { path, message });
            }
        }
    }
    let system = system.lock().map(|s| s.clone()).unwrap_or_default();
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
        .filter_entry(|e| {
            e.depth() == 0 || !e.file_type().is_dir() || !skipped_dir(e.file_name(), e.path())
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The canonical paths come from each root's and each linked directory's, not from
    /// resolving every file, and are those `canonicalize` gives: a file reached through a
    /// directory link, a file link, a second root or a relative root is read once.
    #[cfg(unix)]
    #[test]
    fn canonical_paths_without_resolving_each_file() {
        use std::os::unix::fs::symlink;
        let tmp = tempfile::tempdir().unwrap();
        let t = tmp.path();
        for f in [
            "tree/a/x.rs",
            "tree/a/deep/y.rs",
            "tree/b.rs",
            "outside/o/z.rs",
        ] {
            std::fs::create_dir_all(t.join(f).parent().unwrap()).unwrap();
            std::fs::write(t.join(f), "fn f() {}\n").unwrap();
        }
        symlink(t.join("tree/a"), t.join("tree/alias")).unwrap();
        symlink(t.join("outside"), t.join("tree/out")).unwrap();
        symlink(t.join("tree/b.rs"), t.join("tree/c.rs")).unwrap();
        symlink("../outside/o", t.join("tree/a/deep/rel")).unwrap();
        let roots = [
            t.join("tree"),
            t.join("tree/a/../a/deep"),
            t.join("tree/b.rs"),
        ];
        let d = discover(&roots);
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        assert_eq!(d.files.len(), d.canonical.len());
        for (f, c) in d.files.iter().zip(&d.canonical) {
            assert_eq!(&std::fs::canonicalize(f).unwrap(), c, "{}", f.display());
        }
        let mut once = d.canonical.clone();
        once.sort();
        once.dedup();
        assert_eq!(once.len(), d.canonical.len());
        let real = std::fs::canonicalize(t).unwrap();
        let expected: Vec<PathBuf> = [
            "outside/o/z.rs",
            "tree/a/deep/y.rs",
            "tree/a/x.rs",
            "tree/b.rs",
        ]
        .iter()
        .map(|f| real.join(f))
        .collect();
        once.sort();
        assert_eq!(once, expected);
    }
}
