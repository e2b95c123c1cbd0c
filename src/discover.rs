//! Which files to read: every `.rs` file under the given paths, except `target/` and
//! hidden directories.

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

fn skipped_dir(name: &str) -> bool {
    name == "target" || (name.starts_with('.') && name != "." && name != "..")
}

/// Collects the `.rs` files under `paths`. A file named explicitly is taken whatever its
/// extension.
pub fn discover(paths: &[PathBuf]) -> Discovered {
    let mut d = Discovered::default();
    for root in paths {
        match std::fs::metadata(root) {
            Err(_) => d.missing.push(root.clone()),
            Ok(m) if m.is_file() => d.files.push(root.clone()),
            Ok(_) => walk(root, &mut d),
        }
    }
    d.files.sort();
    d.files.dedup();
    d
}

fn walk(root: &Path, d: &mut Discovered) {
    let it = WalkDir::new(root)
        .follow_links(true)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !e.file_type().is_dir()
                || !e.file_name().to_str().is_some_and(skipped_dir)
        });
    for entry in it {
        match entry {
            Ok(e) => {
                if e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs") {
                    d.files.push(e.into_path());
                }
            }
            Err(err) => {
                let path = err
                    .path()
                    .map_or_else(|| root.to_path_buf(), Path::to_path_buf);
                let message = if err.loop_ancestor().is_some() {
                    "symbolic link loop, not followed".to_string()
                } else {
                    err.io_error()
                        .map_or_else(|| err.to_string(), |e| e.to_string())
                };
                d.problems.push(WalkProblem { path, message });
            }
        }
    }
}
