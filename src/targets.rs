//! The cargo targets of a package (lib, bins, examples, tests, benches, build script) as
//! `cargo metadata` names them, from the manifest and cargo's auto-discovery, and the
//! target a file belongs to: the one whose root it is, or whose root reaches it through
//! `mod` declarations. Used for the `target` of `--message-format json`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// A target of a package.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub name: String,
    /// `lib` (or the library's crate types), `bin`, `example`, `test`, `bench` or
    /// `custom-build`.
    pub kind: Vec<String>,
    pub crate_types: Vec<String>,
    pub src_path: PathBuf,
    pub doc: bool,
    pub doctest: bool,
    pub test: bool,
}

fn table<'a>(t: &'a toml::Table, key: &str) -> Option<&'a toml::Table> {
    t.get(key).and_then(|v| v.as_table())
}

fn string(t: &toml::Table, key: &str) -> Option<String> {
    t.get(key).and_then(|v| v.as_str()).map(str::to_string)
}

/// Whether `[package] auto<kind> = false` turns the discovery of that kind off.
fn auto(manifest: &toml::Table, key: &str) -> bool {
    table(manifest, "package")
        .and_then(|p| p.get(key))
        .and_then(|v| v.as_bool())
        .unwrap_or(true)
}

/// The `.rs` files directly in `dir` (named by their stem) and the `main.rs` of its
/// subdirectories (named by the directory), sorted.
fn discovered(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf)> = entries
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            if path.is_dir() {
                let main = path.join("main.rs");
                main.is_file()
                    .then(|| (e.file_name().to_string_lossy().into_owned(), main))
            } else if path.extension().is_some_and(|x| x == "rs") {
                let stem = path.file_stem()?.to_string_lossy().into_owned();
                Some((stem, path))
            } else {
                None
            }
        })
        .collect();
    out.sort();
    out
}

/// Every target of the package in `dir` with manifest `manifest`, in cargo's order: lib,
/// bins, examples, tests, benches, build script.
pub fn targets(dir: &Path, manifest: &toml::Table) -> Vec<Target> {
    let package_name = table(manifest, "package")
        .and_then(|p| string(p, "name"))
        .unwrap_or_default();
    let mut out = Vec::new();
    let lib = table(manifest, "lib");
    let lib_path = lib
        .and_then(|l| string(l, "path"))
        .map(|p| dir.join(p))
        .unwrap_or_else(|| dir.join("src/lib.rs"));
    if lib.is_some() || lib_path.is_file() {
        let crate_types: Vec<String> = lib
            .and_then(|l| l.get("crate-type").or_else(|| l.get("crate_type")))
            .and_then(|v| v.as_array())
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .filter(|v: &Vec<String>| !v.is_empty())
            .unwrap_or_else(|| vec!["lib".to_string()]);
        let proc_macro = lib
            .and_then(|l| l.get("proc-macro").or_else(|| l.get("proc_macro")))
            .and_then(|v| v.as_bool())
            == Some(true);
        let crate_types = if proc_macro {
            vec!["proc-macro".to_string()]
        } else {
            crate_types
        };
        out.push(Target {
            name: lib
                .and_then(|l| string(l, "name"))
                .unwrap_or_else(|| package_name.replace('-', "_")),
            kind: crate_types.clone(),
            crate_types,
            src_path: lib_path,
            doc: true,
            doctest: true,
            test: true,
        });
    }
    let kinds = [
        ("bin", "src/bin", "autobins", true, false, true),
        ("example", "examples", "autoexamples", false, false, false),
        ("test", "tests", "autotests", false, false, true),
        ("bench", "benches", "autobenches", false, false, false),
    ];
    for (kind, folder, auto_key, doc, doctest, test) in kinds {
        let explicit: Vec<&toml::Table> = manifest
            .get(kind)
            .and_then(|v| v.as_array())
            .map(|a| a.iter().filter_map(|t| t.as_table()).collect())
            .unwrap_or_default();
        let mut found: Vec<(String, PathBuf)> = Vec::new();
        for t in &explicit {
            let Some(name) = string(t, "name") else {
                continue;
            };
            let path = match string(t, "path") {
                Some(p) => dir.join(p),
                None => {
                    let flat = dir.join(folder).join(format!("{name}.rs"));
                    let nested = dir.join(folder).join(&name).join("main.rs");
                    if kind == "bin" && name == package_name && dir.join("src/main.rs").is_file() {
                        dir.join("src/main.rs")
                    } else if nested.is_file() && !flat.is_file() {
                        nested
                    } else {
                        flat
                    }
                }
            };
            found.push((name, path));
        }
        if auto(manifest, auto_key) {
            let mut inferred = Vec::new();
            if kind == "bin" && dir.join("src/main.rs").is_file() {
                inferred.push((package_name.clone(), dir.join("src/main.rs")));
            }
            inferred.extend(discovered(&dir.join(folder)));
            for (name, path) in inferred {
                if !found.iter().any(|(n, p)| *n == name || *p == path) {
                    found.push((name, path));
                }
            }
        }
        for (name, src_path) in found {
            out.push(Target {
                name,
                kind: vec![kind.to_string()],
                crate_types: vec!["bin".to_string()],
                src_path,
                doc,
                doctest,
                test,
            });
        }
    }
    let build = match table(manifest, "package").and_then(|p| p.get("build")) {
        Some(toml::Value::String(p)) => Some(dir.join(p)),
        Some(toml::Value::Boolean(false)) => None,
        _ => Some(dir.join("build.rs")).filter(|p| p.is_file()),
    };
    if let Some(src_path) = build {
        out.push(Target {
            name: "build-script-build".into(),
            kind: vec!["custom-build".into()],
            crate_types: vec!["bin".into()],
            src_path,
            doc: false,
            doctest: false,
            test: false,
        });
    }
    out
}

/// The module files a file declares with `mod NAME;` (also inside inline `mod NAME { .. }`
/// blocks, and with `#[path = ".."]`), as the compiler looks for them. The file is lexed,
/// not parsed: comments and strings never count.
fn declared_modules(file: &Path, is_root: bool) -> Vec<PathBuf> {
    let Ok(bytes) = crate::source::read_regular(file, crate::source::MAX_FILE_BYTES) else {
        return Vec::new();
    };
    let Ok(text) = String::from_utf8(bytes) else {
        return Vec::new();
    };
    let Ok(tokens) = text.parse::<proc_macro2::TokenStream>() else {
        return Vec::new();
    };
    let parent = file.parent().unwrap_or(Path::new("")).to_path_buf();
    // A crate root and `mod.rs` own their directory; `a.rs` owns `a/`.
    let own = if is_root || file.file_name().is_some_and(|n| n == "mod.rs") {
        parent.clone()
    } else {
        parent.join(file.file_stem().unwrap_or_default())
    };
    let mut out = Vec::new();
    collect_mods(tokens, &own, &parent, &mut out);
    out
}

fn collect_mods(tokens: proc_macro2::TokenStream, own: &Path, base: &Path, out: &mut Vec<PathBuf>) {
    use proc_macro2::{Delimiter, TokenTree};
    let tts: Vec<TokenTree> = tokens.into_iter().collect();
    let mut path_attr: Option<String> = None;
    let mut i = 0;
    while i < tts.len() {
        match &tts[i] {
            TokenTree::Punct(p) if p.as_char() == '#' => {
                if let Some(TokenTree::Group(g)) = tts.get(i + 1) {
                    if g.delimiter() == Delimiter::Bracket {
                        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                        if let [TokenTree::Ident(name), TokenTree::Punct(eq), TokenTree::Literal(lit)] =
                            &inner[..]
                        {
                            if name == "path" && eq.as_char() == '=' {
                                let l = lit.to_string();
                                path_attr = l
                                    .strip_prefix('"')
                                    .and_then(|l| l.strip_suffix('"'))
                                    .map(str::to_string);
                            }
                        }
                        i += 2;
                        continue;
                    }
                }
            }
            TokenTree::Ident(m) if m == "mod" => {
                if let Some(TokenTree::Ident(name)) = tts.get(i + 1) {
                    let name = name.to_string();
                    let name = name.strip_prefix("r#").unwrap_or(&name).to_string();
                    match tts.get(i + 2) {
                        Some(TokenTree::Punct(p)) if p.as_char() == ';' => {
                            match path_attr.take() {
                                Some(p) => out.push(base.join(p)),
                                None => {
                                    let flat = own.join(format!("{name}.rs"));
                                    let nested = own.join(&name).join("mod.rs");
                                    out.push(if flat.is_file() { flat } else { nested });
                                }
                            }
                            i += 3;
                            continue;
                        }
                        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace => {
                            let dir = own.join(&name);
                            collect_mods(g.stream(), &dir, &dir, out);
                            path_attr = None;
                            i += 3;
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            TokenTree::Punct(p) if p.as_char() == ';' => path_attr = None,
            _ => {}
        }
        i += 1;
    }
}

/// The targets of a package and the files each reaches, for looking files up.
pub struct PackageTargets {
    pub targets: Vec<Target>,
    /// Per file (canonical path): the first target, in cargo's order, that reaches it.
    owner: HashMap<PathBuf, usize>,
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

impl PackageTargets {
    pub fn new(dir: &Path, manifest: &toml::Table) -> PackageTargets {
        let targets = targets(dir, manifest);
        let mut owner = HashMap::new();
        for (i, t) in targets.iter().enumerate() {
            let mut seen = HashSet::new();
            let mut next = vec![(t.src_path.clone(), true)];
            while let Some((file, is_root)) = next.pop() {
                let key = canonical(&file);
                if !file.is_file() || !seen.insert(key.clone()) {
                    continue;
                }
                owner.entry(key).or_insert(i);
                next.extend(
                    declared_modules(&file, is_root)
                        .into_iter()
                        .map(|f| (f, false)),
                );
            }
        }
        PackageTargets { targets, owner }
    }

    /// The target `file` belongs to, if a target's root reaches it.
    pub fn of(&self, file: &Path) -> Option<&Target> {
        self.owner.get(&canonical(file)).map(|&i| &self.targets[i])
    }
}
