//! The packages of a Cargo workspace, for `--manifest-path`, `-p/--package` and
//! `--workspace`, read from the manifests alone (cargo is never run).
//!
//! The workspace of a package is the nearest directory at or above it whose `Cargo.toml`
//! has a `[workspace]` table listing it (the root itself, a `members` glob, and not an
//! `exclude` path); a package in none is a workspace of its own. Members are the
//! directories `members` names (`*`, `?` and `[..]` in a component) that hold a
//! `Cargo.toml` with a `[package]`, and the root when it has one.

use std::path::{Component, Path, PathBuf};

use globset::GlobBuilder;

use crate::source::{read_regular, MAX_FILE_BYTES};

/// A package of the workspace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    /// The directory of its `Cargo.toml`.
    pub dir: PathBuf,
}

/// A workspace and its packages, sorted by directory.
#[derive(Clone, Debug)]
pub struct Workspace {
    pub root: PathBuf,
    pub members: Vec<Member>,
}

/// Reads a manifest with the size limit of sources; an error names the file.
pub fn read_manifest(path: &Path) -> Result<toml::Table, String> {
    let bytes =
        read_regular(path, MAX_FILE_BYTES).map_err(|e| format!("{}: {e}", path.display()))?;
    let text = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8", path.display()))?;
    text.parse::<toml::Table>().map_err(|e| {
        format!(
            "{}: invalid TOML: {}",
            path.display(),
            e.message().trim_end_matches('\n')
        )
    })
}

/// The manifest named by `--manifest-path`, or the nearest `Cargo.toml` at or above `cwd`.
pub fn manifest_of(manifest_path: Option<&Path>, cwd: &Path) -> Result<PathBuf, String> {
    if let Some(m) = manifest_path {
        if m.file_name().is_none_or(|n| n != "Cargo.toml") {
            return Err(format!(
                "the manifest-path must be a path to a Cargo.toml file: {}",
                m.display()
            ));
        }
        if !m.is_file() {
            return Err(format!("manifest path `{}` does not exist", m.display()));
        }
        return Ok(m.to_path_buf());
    }
    cwd.ancestors()
        .map(|d| d.join("Cargo.toml"))
        .find(|m| m.is_file())
        .ok_or_else(|| {
            format!(
                "could not find `Cargo.toml` in `{}` or any parent directory",
                cwd.display()
            )
        })
}

fn package_name(t: &toml::Table) -> Option<String> {
    t.get("package")?.get("name")?.as_str().map(str::to_string)
}

/// Removes `.` and `..` components without touching the file system.
fn normal(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out
}

/// The workspace of the package (or virtual workspace) whose manifest is `manifest`.
pub fn find(manifest: &Path) -> Result<Workspace, String> {
    let manifest = normal(&std::path::absolute(manifest).map_err(|e| e.to_string())?);
    let dir = manifest.parent().unwrap_or(Path::new("/")).to_path_buf();
    let own = read_manifest(&manifest)?;
    for root in dir.ancestors() {
        let candidate = root.join("Cargo.toml");
        let table = if root == dir {
            own.clone()
        } else if candidate.is_file() {
            read_manifest(&candidate)?
        } else {
            continue;
        };
        let Some(ws) = table.get("workspace").and_then(|w| w.as_table()) else {
            continue;
        };
        let members = members(root, &table, ws)?;
        if root == dir || members.iter().any(|m| m.dir == dir) {
            return Ok(Workspace {
                root: root.to_path_buf(),
                members,
            });
        }
    }
    let name = package_name(&own).ok_or_else(|| {
        format!(
            "{}: neither a package (`[package]` with a `name`) nor a workspace",
            manifest.display()
        )
    })?;
    Ok(Workspace {
        root: dir.clone(),
        members: vec![Member { name, dir }],
    })
}

fn strings<'a>(ws: &'a toml::Table, key: &str) -> Vec<&'a str> {
    ws.get(key)
        .and_then(|v| v.as_array())
        .map(|a| a.iter().filter_map(|v| v.as_str()).collect())
        .unwrap_or_default()
}

fn members(root: &Path, table: &toml::Table, ws: &toml::Table) -> Result<Vec<Member>, String> {
    let excluded: Vec<PathBuf> = strings(ws, "exclude")
        .into_iter()
        .map(|e| normal(&root.join(e)))
        .collect();
    let mut out = Vec::new();
    if let Some(name) = package_name(table) {
        out.push(Member {
            name,
            dir: root.to_path_buf(),
        });
    }
    for pattern in strings(ws, "members") {
        for dir in expand(root, pattern)? {
            if excluded.iter().any(|e| dir.starts_with(e)) || out.iter().any(|m| m.dir == dir) {
                continue;
            }
            let manifest = dir.join("Cargo.toml");
            if !manifest.is_file() {
                continue;
            }
            if let Some(name) = package_name(&read_manifest(&manifest)?) {
                out.push(Member { name, dir });
            }
        }
    }
    out.sort_by(|a, b| a.dir.cmp(&b.dir));
    Ok(out)
}

/// The directories a `members` entry names, component by component.
fn expand(root: &Path, pattern: &str) -> Result<Vec<PathBuf>, String> {
    let mut dirs = vec![root.to_path_buf()];
    for part in Path::new(pattern).components() {
        let part = part.as_os_str().to_string_lossy();
        if !part.contains(['*', '?', '[']) {
            dirs = dirs.into_iter().map(|d| normal(&d.join(&*part))).collect();
            continue;
        }
        let glob = GlobBuilder::new(&part)
            .literal_separator(true)
            .build()
            .map_err(|e| format!("workspace member `{pattern}`: invalid glob: {}", e.kind()))?
            .compile_matcher();
        let mut next = Vec::new();
        for d in dirs {
            let Ok(entries) = std::fs::read_dir(&d) else {
                continue;
            };
            let mut found: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .filter(|e| e.path().is_dir() && glob.is_match(e.file_name()))
                .map(|e| e.path())
                .collect();
            found.sort();
            next.extend(found);
        }
        dirs = next;
    }
    Ok(dirs)
}

/// The member named `name`, or an error that suggests the closest name.
pub fn select<'a>(ws: &'a Workspace, name: &str) -> Result<&'a Member, String> {
    if let Some(m) = ws.members.iter().find(|m| m.name == name) {
        return Ok(m);
    }
    let names: Vec<&str> = ws.members.iter().map(|m| m.name.as_str()).collect();
    let mut message = format!("package `{name}` is not a member of the workspace");
    match closest(name, &names) {
        Some(near) => message.push_str(&format!("; did you mean `{near}`?")),
        None => message.push_str(&format!("; its packages: {}", names.join(", "))),
    }
    Err(message)
}

/// The candidate closest to `word`, when it is close enough to be a likely typo.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (strsim::jaro_winkler(word, c), *c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn closest_names() {
        assert_eq!(closest("explian", &["explain", "rules"]), Some("explain"));
        assert_eq!(closest("rule", &["explain", "rules"]), Some("rules"));
        assert_eq!(closest("src", &["explain", "rules"]), None);
    }
}
