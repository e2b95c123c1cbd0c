//! The pre-filter changes no finding: findings, human and JSON output are the same with and
//! without it, on every fixture, the held-out corpus, the published binding crates and a
//! tree mixing host code with ordinary Rust. It skips crates without an OpenCL binding
//! (counted, and said in the summary) and lowers only the files that can hold a finding;
//! in a crate with a binding every file is parsed, so a syntax error is never hidden.

use std::path::{Path, PathBuf};

use clmigrate_lint::{check, report, Report, Settings};

fn rs_files(root: &str) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = walkdir::WalkDir::new(root)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.path().extension().is_some_and(|x| x == "rs"))
        .map(|e| e.into_path())
        .collect();
    files.sort();
    files
}

fn both(paths: &[PathBuf]) -> (Report, Report) {
    let on = check(paths, &Settings::default());
    let off = check(
        paths,
        &Settings {
            prefilter: false,
            ..Settings::default()
        },
    );
    (on, off)
}

/// The same findings, problems and output, but for the summary's count of files skipped in
/// crates without a binding.
fn assert_same(on: &Report, off: &Report, what: &str) {
    assert_eq!(on.findings, off.findings, "{what}");
    assert_eq!(on.problems, off.problems, "{what}");
    assert_eq!(off.skipped, 0);
    let skipped = format!(
        "; {} file{} in crates without an OpenCL binding skipped",
        on.skipped,
        if on.skipped == 1 { "" } else { "s" }
    );
    let human = report::human::render(on);
    assert_eq!(
        if on.skipped > 0 {
            human.replacen(&skipped, "", 1)
        } else {
            human
        },
        report::human::render(off),
        "{what}"
    );
    assert_eq!(
        report::json::render(on),
        report::json::render(off),
        "{what}"
    );
}

/// Only files that a finding points into, or with problems, keep their text.
fn assert_texts_only_where_shown(r: &Report) {
    for (i, f) in r.files.iter().enumerate() {
        let shown = r.findings.iter().any(|x| {
            x.anchor.file == i
                || x.primary.span.file == i
                || x.secondary.iter().any(|l| l.span.file == i)
        }) || r.problems.iter().any(|p| p.path == f.path);
        assert_eq!(!f.text.is_empty(), shown, "{}", f.display);
    }
}

#[test]
fn every_fixture_reports_the_same() {
    let fixtures: Vec<PathBuf> = rs_files("fixtures")
        .into_iter()
        .filter(|f| !f.starts_with("fixtures/crates"))
        .collect();
    assert!(fixtures.len() >= 12);
    for path in &fixtures {
        let (on, off) = both(std::slice::from_ref(path));
        assert_same(&on, &off, &path.display().to_string());
        assert_eq!(on.parsed, 1, "{} names an enqueue", path.display());
    }
}

/// In a package, the files the pre-filter selects pull in the files that define what they
/// call and the callers of what they define, so cross-file findings are the same.
#[test]
fn packages_report_the_same() {
    for dir in ["fixtures/crates/halo", "fixtures/crates/legacy"] {
        let (on, off) = both(&[PathBuf::from(dir)]);
        assert_same(&on, &off, dir);
        assert!(!on.findings.is_empty(), "{dir}");
        assert_texts_only_where_shown(&on);
    }
}

/// Host code and ordinary Rust (this crate's sources and tests), several copies of each
/// under different directories.
fn mixed_tree(dir: &Path) -> usize {
    let _ = std::fs::remove_dir_all(dir);
    let mut n = 0;
    for copy in 0..3 {
        for root in ["fixtures", "src", "tests", "benches"] {
            for f in rs_files(root) {
                let dst = dir.join(format!("c{copy}")).join(&f);
                std::fs::create_dir_all(dst.parent().unwrap()).unwrap();
                std::fs::copy(&f, &dst).unwrap();
                n += 1;
            }
        }
    }
    n
}

#[test]
fn a_mixed_tree_reports_the_same_and_parses_less() {
    let dir = std::env::temp_dir().join(format!("clmigrate-prefilter-{}", std::process::id()));
    let n = mixed_tree(&dir);
    let (on, off) = both(std::slice::from_ref(&dir));
    assert_same(&on, &off, "mixed tree");
    assert_eq!(on.files.len(), n);
    assert_eq!(off.parsed, n);
    assert!(
        on.parsed < n,
        "the pre-filter parsed all {n} files of the tree"
    );
    assert!(!on.findings.is_empty());
    assert_texts_only_where_shown(&on);
    assert_texts_only_where_shown(&off);
    let _ = std::fs::remove_dir_all(&dir);
}

fn scratch(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("clmigrate-prefilter-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(path: &Path, text: impl AsRef<[u8]>) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Loose files decide by their own names: one that names no binding is neither decoded nor
/// parsed; one that does is parsed, and a syntax error in it is an error at its line even
/// when it names no enqueue.
#[test]
fn loose_files_without_a_binding_are_skipped() {
    let dir = scratch("raw");
    write(&dir.join("latin1.rs"), b"// caf\xe9\nfn f() {}\n");
    write(&dir.join("broken.rs"), "fn broken( {");
    write(
        &dir.join("host.rs"),
        b"// caf\xe9\nfn f() { q.enqueue_task(&k); }",
    );
    write(
        &dir.join("broken_host.rs"),
        "use opencl3::types::cl_int;\n\nfn f(x: cl_int {\n}\n",
    );
    let (on, off) = both(std::slice::from_ref(&dir));
    assert_eq!(on.files.len(), 4);
    assert_eq!((on.parsed, on.skipped), (1, 2));
    let paths: Vec<_> = on.problems.iter().map(|p| p.path.clone()).collect();
    assert_eq!(
        paths,
        [dir.join("broken_host.rs"), dir.join("host.rs")],
        "{:?}",
        on.problems
    );
    let syntax = &on.problems[0];
    assert!(syntax.error && syntax.message.contains("could not parse"));
    let span = syntax.span.expect("a syntax error has a place");
    let (line, _) = on.files[span.file].line_col(span.start);
    assert_eq!(line, 3);
    assert!(on.problems[1].error && on.problems[1].message.contains("not valid UTF-8"));
    assert!(on.has_errors());
    assert_eq!(off.problems.len(), 4, "{:?}", off.problems);
    assert!(report::human::render(&on)
        .contains("in 4 files checked, 2 problems not checked; 2 files in crates without an OpenCL binding skipped"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `Command::new(..).arg(..)`, `.build()`, `.enq()`: ocl's builder names, but without a
/// binding they select nothing.
#[test]
fn ordinary_words_are_no_anchors() {
    let dir = scratch("words");
    write(
        &dir.join("tool.rs"),
        "use std::process::Command;\n\
         fn run(item: &str) { let c = Command::new(\"rg\").arg(item).build(); c.enq(); }\n",
    );
    let r = check(std::slice::from_ref(&dir), &Settings::default());
    assert_eq!((r.files.len(), r.parsed, r.skipped), (1, 0, 1));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A package that depends on a binding: every file is parsed, a syntax error in a file
/// naming no OpenCL API is an error at its line, and a module directory named `target`
/// under `src/` is source (only a `target` beside a `Cargo.toml` is cargo's output). A
/// package without a binding is not parsed at all.
#[test]
fn packages_with_a_binding_are_parsed_in_full() {
    let dir = scratch("packages");
    let host = dir.join("host");
    write(
        &host.join("Cargo.toml"),
        "[package]\nname = \"host\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n\
         [target.'cfg(unix)'.dependencies]\ncl = { package = \"opencl3\", version = \"0.12\" }\n",
    );
    write(
        &host.join("src/main.rs"),
        "mod target;\nmod util;\nfn main() {}\n",
    );
    write(
        &host.join("src/target/mod.rs"),
        std::fs::read("fixtures/seed/buggy.rs").unwrap(),
    );
    write(
        &host.join("src/util.rs"),
        "pub fn sum(v: &[u32]) -> u32 {\n    v.iter().sum()\n}\n\npub fn bad() { let = 1; }\n",
    );
    write(&host.join("target/debug/build/out.rs"), "fn generated( {");
    let plain = dir.join("plain");
    write(
        &plain.join("Cargo.toml"),
        "[package]\nname = \"plain\"\nversion = \"0.1.0\"\nedition = \"2021\"\n",
    );
    write(&plain.join("src/lib.rs"), "pub fn broken( {");
    let (on, off) = both(std::slice::from_ref(&dir));
    assert_eq!(on.findings, off.findings);
    assert!(
        on.findings.iter().any(|f| f.anchor.file == 1),
        "src/target/mod.rs is checked"
    );
    assert_eq!(on.files.len(), 4, "cargo's target/ is not walked");
    assert_eq!((on.parsed, on.skipped), (3, 1));
    assert_eq!(on.problems.len(), 1, "{:?}", on.problems);
    let p = &on.problems[0];
    assert!(p.path.ends_with("src/util.rs") && p.error, "{p:?}");
    let span = p.span.expect("a syntax error has a place");
    assert_eq!(on.files[span.file].line_col(span.start).0, 5);
    // Without the pre-filter, the package without a binding is parsed too.
    assert_eq!(off.problems.len(), 2, "{:?}", off.problems);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every loose file of the fixtures and of the held-out corpus (`tests/corpus/`, where
/// present), checked together as a tree.
#[test]
fn the_fixture_and_corpus_trees_report_the_same() {
    let roots: Vec<PathBuf> = ["fixtures", "tests/corpus"]
        .into_iter()
        .map(PathBuf::from)
        .filter(|p| p.is_dir())
        .collect();
    let (on, off) = both(&roots);
    assert_same(&on, &off, "fixtures and corpus");
    assert!(!on.findings.is_empty());
    assert_eq!(on.skipped, 0, "every fixture names a binding");
}

/// The published binding crates this crate builds against (from cargo's registry, through
/// `cargo metadata`), with their examples and tests: the same findings and problems.
#[test]
fn the_binding_crates_report_the_same() {
    let meta = cargo_metadata::MetadataCommand::new().exec().unwrap();
    let dirs: Vec<PathBuf> = meta
        .packages
        .iter()
        .filter(|p| ["opencl3", "cl3", "ocl", "ocl-core", "cl-sys"].contains(&p.name.as_str()))
        .map(|p| {
            p.manifest_path
                .parent()
                .unwrap()
                .as_std_path()
                .to_path_buf()
        })
        .collect();
    assert_eq!(dirs.len(), 5);
    let (on, off) = both(&dirs);
    assert_eq!(on.findings, off.findings);
    assert_eq!(on.problems, off.problems);
    assert_eq!(on.skipped, 0);
    assert_eq!(on.parsed, off.parsed);
}

/// syn reads less edition 2015 syntax than rustc (`dyn` as a variable name): in an
/// edition 2015 package such a file is a warning, not an error that fails the run.
#[test]
fn an_edition_2015_file_syn_cannot_read_is_a_warning() {
    let dir = scratch("e2015");
    write(
        &dir.join("Cargo.toml"),
        "[package]\nname = \"old\"\nversion = \"0.1.0\"\n\n[dependencies]\nocl = \"0.19\"\n",
    );
    write(
        &dir.join("src/lib.rs"),
        "extern crate ocl;\n\npub fn twice() -> u32 {\n    let dyn = 2;\n    dyn * 2\n}\n",
    );
    let r = check(std::slice::from_ref(&dir), &Settings::default());
    assert_eq!(r.problems.len(), 1, "{:?}", r.problems);
    assert!(r.problems[0].message.contains("could not parse"));
    assert!(!r.problems[0].error && !r.has_errors());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A binding's library implements the API: its modules are counted, not read, and the
/// summary says so; its `tests` modules, examples and integration tests are checked as any
/// host code, and `binding_sources` checks the library too. A package that only uses a
/// binding is checked whole.
#[test]
fn a_binding_checks_its_tests_and_examples_not_its_library() {
    let dir = scratch("binding");
    let bug = std::fs::read_to_string("fixtures/seed/buggy.rs").unwrap();
    write(
        &dir.join("gpu-ocl/Cargo.toml"),
        "[package]\nname = \"gpu-ocl\"\nedition = \"2021\"\n\
         keywords = [\"OpenCL\", \"gpu\"]\ncategories = [\"api-bindings\"]\n",
    );
    write(
        &dir.join("gpu-ocl/src/lib.rs"),
        format!("{bug}\n#[cfg(test)]\nmod tests;\n"),
    );
    write(&dir.join("gpu-ocl/src/tests/mod.rs"), &bug);
    write(&dir.join("gpu-ocl/examples/halo.rs"), &bug);
    write(&dir.join("gpu-ocl/tests/halo.rs"), &bug);
    // Declarations the library includes (`include!`), outside the package's crates.
    write(&dir.join("gpu-ocl/bindgen/decls.rs"), &bug);
    write(
        &dir.join("app/Cargo.toml"),
        "[package]\nname = \"app\"\nedition = \"2021\"\nkeywords = [\"opencl\"]\n\
         [dependencies]\nopencl3 = \"0.12\"\n",
    );
    write(&dir.join("app/src/lib.rs"), &bug);
    let files_with_findings = |r: &Report| {
        let mut f: Vec<String> = r
            .findings
            .iter()
            .map(|x| {
                r.files[x.anchor.file]
                    .path
                    .strip_prefix(&dir)
                    .unwrap()
                    .display()
                    .to_string()
            })
            .collect();
        f.dedup();
        f
    };
    let (on, off) = both(std::slice::from_ref(&dir));
    assert_same(&on, &off, "binding package");
    assert_eq!(on.files.len(), 6);
    assert_eq!(on.binding_library, 2);
    assert_eq!(
        files_with_findings(&on),
        [
            "app/src/lib.rs",
            "gpu-ocl/examples/halo.rs",
            "gpu-ocl/src/tests/mod.rs",
            "gpu-ocl/tests/halo.rs"
        ]
    );
    assert!(report::human::render(&on)
        .contains("in 6 files checked; 2 files of OpenCL bindings' own libraries skipped"));
    let all = check(
        std::slice::from_ref(&dir),
        &Settings {
            binding_sources: true,
            ..Settings::default()
        },
    );
    assert_eq!(all.binding_library, 0);
    assert!(all.problems.is_empty(), "{:?}", all.problems);
    assert_eq!(
        files_with_findings(&all),
        [
            "app/src/lib.rs",
            "gpu-ocl/bindgen/decls.rs",
            "gpu-ocl/examples/halo.rs",
            "gpu-ocl/src/lib.rs",
            "gpu-ocl/src/tests/mod.rs",
            "gpu-ocl/tests/halo.rs"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
