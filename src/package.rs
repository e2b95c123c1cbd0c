//! Where a file sits in its Cargo package: which crate of the package it belongs to, its
//! module path in that crate, and the package's edition.
//!
//! The package is the nearest enclosing directory with a `Cargo.toml` that has a
//! `[package]` table. Crates and modules follow Cargo's and rustc's default layout:
//! `src/lib.rs` and `src/main.rs` are crate roots, `src/a/b.rs` and `src/a/b/mod.rs` are
//! module `a::b`, and each of `src/bin/x.rs`, `examples/x.rs`, `tests/x.rs`, `benches/x.rs`
//! (or `x/main.rs` there) is a crate of its own. A file outside that layout (or with a path
//! component that is not an identifier) is a crate of its own with no known edition, as
//! when it is not in a package at all. `#[path]` attributes are not followed: a call into a
//! module placed that way is an unknown call.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use crate::source;

/// A Rust edition, as far as parsing is concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Edition {
    /// `async`, `await`, `dyn` and `try` are identifiers.
    E2015,
    /// 2018 or later.
    Later,
}

/// A file's crate and module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The crate, unique across the run: the package directory and the crate in it
    /// (`lib`, `main`, `bin/x`, `examples/x`, ...). Files of one crate share an index of
    /// functions and structs.
    pub krate: String,
    /// The module path in the crate (`["a", "b"]`; empty for a crate root).
    pub module: Vec<String>,
    /// The package's edition; `None` for a file in none of a package's crates.
    pub edition: Option<Edition>,
    /// The package's directory; `None` for a file in none of a package's crates.
    pub root: Option<PathBuf>,
    /// The package's manifest depends on an OpenCL binding (or is one).
    pub binding: bool,
    /// The file is a module of an OpenCL binding's library (see [`is_binding_package`]),
    /// other than its `tests` modules, or a file of the binding package outside its crates:
    /// it implements the API rather than uses it.
    pub binding_library: bool,
}

#[derive(Clone, Debug)]
struct Manifest {
    edition: Edition,
    has_lib: bool,
    binding: bool,
    /// The package is an OpenCL binding.
    is_binding: bool,
}

/// Finds packages for paths, reading each `Cargo.toml` once and resolving each directory
/// once: the files of one directory share its canonical path, its package and its parent
/// module's declarations.
#[derive(Default)]
pub struct Locator {
    /// Per directory: the package it is the root of, if any.
    manifests: HashMap<PathBuf, Option<Manifest>>,
    /// Per directory as given: its canonical path, when it has one.
    canonical: HashMap<PathBuf, Option<PathBuf>>,
    /// Per canonical directory: the nearest directory at or above it that is a package root.
    packages: HashMap<PathBuf, Option<PathBuf>>,
    /// Per directory of module files: the modules that the module of the directory
    /// (`dir/mod.rs` or `dir.rs`) declares, when there is one and it can be read.
    parents: HashMap<PathBuf, Option<HashSet<String>>>,
}

/// A `Cargo.toml` larger than a source file may be is not a manifest (the walk reports it).
const MAX_MANIFEST_BYTES: u64 = source::MAX_FILE_BYTES;

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f == '_' || f.is_ascii_alphabetic())
        && c.all(|x| x == '_' || x.is_ascii_alphanumeric())
}

impl Locator {
    /// The placement of `file`: its package (the nearest directory above it with a
    /// package manifest), crate and module.
    pub fn place(&mut self, file: &Path) -> Placement {
        let abs = self.canonicalize(file);
        self.place_canonical(&abs)
    }

    /// [`Locator::place`] of a file whose canonical path `abs` is known.
    pub fn place_canonical(&mut self, abs: &Path) -> Placement {
        let lone = || Placement {
            krate: format!("file:{}", abs.display()),
            module: Vec::new(),
            edition: None,
            root: None,
            binding: false,
            binding_library: false,
        };
        let Some(d) = abs.parent().and_then(|dir| self.package_of(dir)) else {
            return lone();
        };
        let Some(m) = self.manifest(&d) else {
            return lone();
        };
        let rel: Option<Vec<&str>> = abs
            .strip_prefix(&d)
            .ok()
            .map(|r| r.iter().map(|c| c.to_str()).collect::<Option<Vec<_>>>())
            .unwrap_or(None);
        // A file outside the package's layout is in none of its crates: its edition is not
        // the package's, its dependencies are.
        // Of a binding package, such a file is the library's (`include!`d declarations) or
        // no one's.
        let Some((krate, module)) = rel.and_then(|r| layout(&r, m.has_lib)) else {
            return Placement {
                binding: m.binding,
                binding_library: m.is_binding,
                ..lone()
            };
        };
        // A module file that its parent module does not declare is compiled by no one: no
        // manifest says its edition either.
        let edition = self.declared(abs, &module).then_some(m.edition);
        let binding_library =
            m.is_binding && krate == "lib" && !module.iter().any(|c| c == "tests" || c == "test");
        Placement {
            krate: format!("{}#{krate}", d.display()),
            module,
            edition,
            root: Some(d),
            binding: m.binding,
            binding_library,
        }
    }

    /// The canonical path of `file` (symbolic links resolved), or `file` itself when it
    /// has none. A file that is not a link is its canonical directory joined with its
    /// name, and each directory is resolved once.
    pub fn canonicalize(&mut self, file: &Path) -> PathBuf {
        let whole = |f: &Path| std::fs::canonicalize(f).unwrap_or_else(|_| f.to_path_buf());
        let (Some(name), Some(dir)) = (file.file_name(), file.parent()) else {
            return whole(file);
        };
        if std::fs::symlink_metadata(file).map_or(true, |m| m.file_type().is_symlink()) {
            return whole(file);
        }
        let dir = if dir.as_os_str().is_empty() {
            Path::new(".")
        } else {
            dir
        };
        let canonical = self
            .canonical
            .entry(dir.to_path_buf())
            .or_insert_with(|| std::fs::canonicalize(dir).ok());
        match canonical {
            Some(c) => c.join(name),
            None => whole(file),
        }
    }

    /// The nearest directory at or above the canonical directory `dir` that is a package
    /// root.
    fn package_of(&mut self, dir: &Path) -> Option<PathBuf> {
        if let Some(p) = self.packages.get(dir) {
            return p.clone();
        }
        let found = if self.manifest(dir).is_some() {
            Some(dir.to_path_buf())
        } else {
            dir.parent().and_then(|up| self.package_of(up))
        };
        self.packages.insert(dir.to_path_buf(), found.clone());
        found
    }

    /// Whether the module file `file` (module path `module`) is declared by its parent
    /// module (`mod name;` or `mod r#name;`), when the parent is a module file below the
    /// crate root (`a/mod.rs` or `a.rs` for `a::name`); true when that cannot be told.
    fn declared(&mut self, file: &Path, module: &[String]) -> bool {
        let [.., _, name] = module else {
            return true;
        };
        let is_mod_rs = file.file_name().is_some_and(|f| f == "mod.rs");
        let dir = if is_mod_rs {
            file.parent().and_then(Path::parent)
        } else {
            file.parent()
        };
        let Some(dir) = dir else {
            return true;
        };
        let parent = self.parents.entry(dir.to_path_buf()).or_insert_with(|| {
            [dir.join("mod.rs"), dir.with_extension("rs")]
                .into_iter()
                .find(|p| p.is_file())
                .and_then(|p| std::fs::read_to_string(p).ok())
                .map(|text| declared_modules(&text))
        });
        parent.as_ref().is_none_or(|names| names.contains(name))
    }

    fn manifest(&mut self, dir: &Path) -> Option<Manifest> {
        if let Some(m) = self.manifests.get(dir) {
            return m.clone();
        }
        let m = read_manifest(dir).map(|(lib, has_edition, binding, is_binding)| {
            let edition = match has_edition {
                EditionKey::Value(e) => e,
                EditionKey::Workspace => self.workspace_edition(dir),
                // Cargo's default when a package names no edition.
                EditionKey::Missing => Edition::E2015,
            };
            Manifest {
                edition,
                has_lib: lib || dir.join("src/lib.rs").is_file(),
                binding,
                is_binding,
            }
        });
        self.manifests.insert(dir.to_path_buf(), m.clone());
        m
    }

    /// `edition.workspace = true`: the edition of the nearest workspace above.
    fn workspace_edition(&self, dir: &Path) -> Edition {
        let mut up = dir.parent();
        while let Some(d) = up {
            if let Some(t) = read_toml(&d.join("Cargo.toml")) {
                if let Some(ws) = t.get("workspace") {
                    return ws
                        .get("package")
                        .and_then(|p| p.get("edition"))
                        .and_then(|e| e.as_str())
                        .map_or(Edition::E2015, edition_of);
                }
            }
            up = d.parent();
        }
        Edition::Later
    }
}

enum EditionKey {
    Value(Edition),
    Workspace,
    Missing,
}

fn edition_of(s: &str) -> Edition {
    if s == "2015" {
        Edition::E2015
    } else {
        Edition::Later
    }
}

fn read_toml(path: &Path) -> Option<toml::Table> {
    let bytes = source::read_regular(path, MAX_MANIFEST_BYTES).ok()?;
    String::from_utf8(bytes).ok()?.parse::<toml::Table>().ok()
}

/// Whether a manifest's package is an OpenCL binding or depends on one (`[dependencies]`,
/// dev-, build- and target-specific ones, under its own name or renamed with `package`).
fn names_binding(t: &toml::Table) -> bool {
    let tables = |t: &toml::Table| {
        ["dependencies", "dev-dependencies", "build-dependencies"]
            .into_iter()
            .filter_map(|k| t.get(k).and_then(|d| d.as_table()))
            .flat_map(|d| d.iter())
            .any(|(name, spec)| {
                is_binding_name(name)
                    || spec
                        .get("package")
                        .and_then(|p| p.as_str())
                        .is_some_and(is_binding_name)
            })
    };
    is_binding_package(t)
        || tables(t)
        || t.get("target")
            .and_then(|x| x.as_table())
            .is_some_and(|targets| targets.values().filter_map(|v| v.as_table()).any(tables))
}

/// Whether a manifest's package is an OpenCL binding: one of the bindings the checker reads
/// (`ocl`, `opencl3`, ..), or a package that says so of itself, with the `opencl` keyword
/// and either an `api-bindings` or `external-ffi-bindings` category or a `-sys` name (a
/// fork such as `fil-ocl`, an interop or declaration crate).
fn is_binding_package(t: &toml::Table) -> bool {
    let package = t.get("package");
    let name = package
        .and_then(|p| p.get("name"))
        .and_then(|n| n.as_str())
        .unwrap_or_default();
    let strings = |key: &str| -> Vec<String> {
        package
            .and_then(|p| p.get(key))
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str())
                    .map(str::to_ascii_lowercase)
                    .collect()
            })
            .unwrap_or_default()
    };
    let says_so = strings("keywords").iter().any(|k| k == "opencl")
        && (name.ends_with("-sys")
            || strings("categories")
                .iter()
                .any(|c| c == "api-bindings" || c == "external-ffi-bindings"));
    is_binding_name(name) || says_so
}

/// Whether a package name is one of the bindings the checker reads (`ocl-core` or
/// `ocl_core`).
fn is_binding_name(name: &str) -> bool {
    crate::prefilter::BINDING_CRATES.contains(&name.replace('-', "_").as_str())
}

/// Whether `dir` is a package root: whether it declares a `[lib]`, its manifest's
/// `[package]` edition, whether it names an OpenCL binding, and whether it is one. A manifest that does not
/// parse is not a package.
fn read_manifest(dir: &Path) -> Option<(bool, EditionKey, bool, bool)> {
    let path = dir.join("Cargo.toml");
    if !path.is_file() {
        return None;
    }
    let t = read_toml(&path)?;
    let package = t.get("package")?;
    let edition = match package.get("edition") {
        Some(toml::Value::String(s)) => EditionKey::Value(edition_of(s)),
        Some(toml::Value::Table(w))
            if w.get("workspace").and_then(|v| v.as_bool()) == Some(true) =>
        {
            EditionKey::Workspace
        }
        Some(_) => EditionKey::Value(Edition::Later),
        None => EditionKey::Missing,
    };
    Some((
        t.contains_key("lib"),
        edition,
        names_binding(&t),
        is_binding_package(&t),
    ))
}

/// The names `NAME` of the `mod NAME` and `mod r#NAME` in `text` followed by `;` or `{`.
fn declared_modules(text: &str) -> HashSet<String> {
    text.match_indices("mod")
        .filter_map(|(i, _)| {
            let before_ok = text[..i]
                .chars()
                .next_back()
                .is_none_or(|c| !(c == '_' || c.is_alphanumeric()));
            let rest = &text[i + 3..];
            let trimmed = rest.trim_start();
            if !before_ok || trimmed.len() == rest.len() {
                return None;
            }
            let after = trimmed.strip_prefix("r#").unwrap_or(trimmed);
            let end = after
                .find(|c: char| !(c == '_' || c.is_ascii_alphanumeric()))
                .unwrap_or(after.len());
            let r = after[end..].trim_start();
            (end > 0 && (r.starts_with(';') || r.starts_with('{')))
                .then(|| after[..end].to_string())
        })
        .collect()
}

/// The crate and module of a file at `rel` (components) in a package.
fn layout(rel: &[&str], has_lib: bool) -> Option<(String, Vec<String>)> {
    let stem = |f: &str| f.strip_suffix(".rs").map(str::to_string);
    // The module path of the files below a crate root's directory.
    let modules = |rest: &[&str]| -> Option<Vec<String>> {
        let (last, dirs) = rest.split_last()?;
        let mut m: Vec<String> = dirs.iter().map(|d| d.to_string()).collect();
        let last = stem(last)?;
        if last != "mod" {
            m.push(last);
        }
        m.iter().all(|c| is_ident(c)).then_some(m)
    };
    match rel {
        ["build.rs"] => Some(("build".into(), Vec::new())),
        ["src", "lib.rs"] => Some(("lib".into(), Vec::new())),
        ["src", "main.rs"] => Some(("main".into(), Vec::new())),
        ["src", "bin", f] => Some((format!("bin/{}", stem(f)?), Vec::new())),
        ["src", "bin", d, "main.rs"] => Some((format!("bin/{d}"), Vec::new())),
        ["src", "bin", d, rest @ ..] => Some((format!("bin/{d}"), modules(rest)?)),
        [k @ ("examples" | "tests" | "benches"), f] => {
            Some((format!("{k}/{}", stem(f)?), Vec::new()))
        }
        [k @ ("examples" | "tests" | "benches"), d, "main.rs"] => {
            Some((format!("{k}/{d}"), Vec::new()))
        }
        [k @ ("examples" | "tests" | "benches"), d, rest @ ..] => {
            Some((format!("{k}/{d}"), modules(rest)?))
        }
        ["src", rest @ ..] => {
            let root = if has_lib { "lib" } else { "main" };
            Some((root.into(), modules(rest)?))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_packages_are_named_or_say_so() {
        let is = |toml: &str| is_binding_package(&toml.parse::<toml::Table>().unwrap());
        assert!(is("[package]\nname = \"ocl-core\"\n"));
        assert!(is("[package]\nname = \"opencl3\"\n"));
        // A fork and a declaration crate that say what they are.
        assert!(is(
            "[package]\nname = \"fil-ocl\"\nkeywords = [\"opencl\", \"gpu\"]\n\
             categories = [\"science\", \"api-bindings\"]\n"
        ));
        assert!(is(
            "[package]\nname = \"open-cl-sys\"\nkeywords = [\"OpenCL\"]\n"
        ));
        // An application about OpenCL, a binding of something else, a user of a binding.
        assert!(!is(
            "[package]\nname = \"ocl-stream\"\nkeywords = [\"opencl\"]\n"
        ));
        assert!(!is(
            "[package]\nname = \"vk\"\nkeywords = [\"vulkan\"]\ncategories = [\"api-bindings\"]\n"
        ));
        assert!(!is(
            "[package]\nname = \"app\"\n[dependencies]\nocl = \"0.19\"\n"
        ));
    }

    #[test]
    fn declarations() {
        let declares = |text: &str, name: &str| declared_modules(text).contains(name);
        assert!(declares("pub mod sink;\n", "sink"));
        assert!(declares("mod r#async { }", "async"));
        assert!(declares("#[cfg(x)]\nmod  sink ;", "sink"));
        assert!(!declares("mod sinks;", "sink"));
        assert!(!declares("// a module\nuse sink;", "sink"));
        assert!(!declares("fn model() {} mod sink_x;", "sink"));
        assert!(!declares("mod sinké;", "sink"));
        assert!(!declares("mod\tsink::x;", "sink"));
        assert!(declares("mod a; mod\n b {} xmod c; mod d", "b"));
        assert!(!declares("mod a; mod\n b {} xmod c; mod d", "c"));
        assert!(!declares("mod a; mod\n b {} xmod c; mod d", "d"));
    }

    /// The files of one directory share its lookups, and each still gets its own answer: a
    /// link to a file of another package is placed where it leads.
    #[test]
    fn files_of_one_directory_are_placed_alike_and_links_where_they_lead() {
        let tmp = tempfile::tempdir().unwrap();
        let write = |rel: &str, text: &str| {
            let p = tmp.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        };
        let manifest = |name: &str, more: &str| {
            format!("[package]\nname = \"{name}\"\nedition = \"2021\"\n{more}")
        };
        write(
            "p/Cargo.toml",
            &manifest("p", "[dependencies]\nocl = \"0.19\"\n"),
        );
        write("p/src/lib.rs", "mod a;\n");
        write("p/src/a/mod.rs", "mod b;\n");
        write("p/src/a/b.rs", "");
        write("p/src/a/c.rs", "");
        write("q/Cargo.toml", &manifest("q", ""));
        write("q/src/a/mod.rs", "mod d;\n");
        write("q/src/a/d.rs", "");
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            tmp.path().join("q/src/a/d.rs"),
            tmp.path().join("p/src/a/d.rs"),
        )
        .unwrap();
        let root = std::fs::canonicalize(tmp.path()).unwrap();
        let mut locator = Locator::default();
        let b = locator.place(&tmp.path().join("p/src/a/b.rs"));
        assert_eq!(b.krate, format!("{}#lib", root.join("p").display()));
        assert_eq!(b.module, ["a", "b"]);
        assert_eq!(b.edition, Some(Edition::Later));
        assert_eq!(b.root, Some(root.join("p")));
        assert!(b.binding);
        // Not declared by `a`: compiled by no one, so no edition.
        let c = locator.place(&tmp.path().join("p/src/a/c.rs"));
        assert_eq!(
            (c.krate, c.module, c.edition),
            (b.krate.clone(), vec!["a".into(), "c".into()], None)
        );
        #[cfg(unix)]
        {
            let d = locator.place(&tmp.path().join("p/src/a/d.rs"));
            assert_eq!(d.krate, format!("{}#main", root.join("q").display()));
            assert_eq!(d.edition, Some(Edition::Later));
            assert!(!d.binding);
        }
        let lone = locator.place(&tmp.path().join("x.rs"));
        assert_eq!(
            lone.krate,
            format!("file:{}", tmp.path().join("x.rs").display())
        );
        assert_eq!(lone.root, None);
    }

    fn lay(p: &str, lib: bool) -> Option<(String, Vec<String>)> {
        layout(&p.split('/').collect::<Vec<_>>(), lib)
    }

    #[test]
    fn cargo_layout_gives_crates_and_modules() {
        let m = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(lay("src/lib.rs", true), Some(("lib".into(), m(&[]))));
        assert_eq!(lay("src/main.rs", true), Some(("main".into(), m(&[]))));
        assert_eq!(
            lay("src/a/b.rs", true),
            Some(("lib".into(), m(&["a", "b"])))
        );
        assert_eq!(lay("src/a/mod.rs", false), Some(("main".into(), m(&["a"]))));
        assert_eq!(lay("src/bin/x.rs", true), Some(("bin/x".into(), m(&[]))));
        assert_eq!(
            lay("src/bin/x/main.rs", true),
            Some(("bin/x".into(), m(&[])))
        );
        assert_eq!(
            lay("src/bin/x/h.rs", true),
            Some(("bin/x".into(), m(&["h"])))
        );
        assert_eq!(
            lay("examples/e.rs", true),
            Some(("examples/e".into(), m(&[])))
        );
        assert_eq!(
            lay("tests/t/util/mod.rs", true),
            Some(("tests/t".into(), m(&["util"])))
        );
        assert_eq!(lay("src/my-mod/x.rs", true), None);
        assert_eq!(lay("other/x.rs", true), None);
        assert_eq!(lay("build.rs", true), Some(("build".into(), m(&[]))));
    }
}
