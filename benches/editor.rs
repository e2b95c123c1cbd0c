//! The language server's latency: checking one file again after an edit, inside a crate of
//! many files whose index ([`CrateIndex`]) is held, against the check of that file alone
//! (`check_source`, which does not see the crate), in the same run.
//!
//! `cargo bench --bench editor [-- --files N]` makes a crate of N files (default 200): the
//! two-file crate of `tests/editor/crate` (a caller whose bug is only seen with the helper
//! of another file, and a file of its own) and copies of the fixtures as its other modules.
//! It times, once each, reading the crate's index and checking the whole crate with
//! `check`; then, for `src/lib.rs` and for the longest module, best of 20 (interleaved):
//! the file checked alone, and the edited file lowered again and checked with the index held. Run by `cargo test` (without `--bench`), it checks the same on
//! 20 files, once.

/// The allocator the command line uses, so that the times are the ones users see.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use clmigrate_lint::crate_index::CrateIndex;
use clmigrate_lint::{check, check_source, Settings};

/// The crate: `tests/editor/crate` and `n - 3` fixture copies as modules; its `src/lib.rs`.
fn generate(dir: &Path, n: usize) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    let from = Path::new("tests/editor/crate");
    std::fs::create_dir_all(dir.join("src")).expect("scratch dir");
    for name in ["Cargo.toml", "src/gpu.rs", "src/other.rs"] {
        std::fs::copy(from.join(name), dir.join(name)).expect("crate file");
    }
    let mut fixtures = Vec::new();
    for e in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
        let e = e.expect("fixtures are readable");
        // Edition 2015 code is not code of this edition 2021 crate.
        let old = e.path().to_string_lossy().contains("2015")
            || e.path().starts_with("fixtures/crates/legacy");
        if e.path().extension().is_some_and(|x| x == "rs") && !old {
            fixtures.push(std::fs::read_to_string(e.path()).expect("fixture is UTF-8"));
        }
    }
    let mut lib = std::fs::read_to_string(from.join("src/lib.rs")).expect("crate file");
    for i in 0..n.saturating_sub(3) {
        std::fs::write(
            dir.join(format!("src/f{i}.rs")),
            &fixtures[i % fixtures.len()],
        )
        .expect("scratch file");
        lib += &format!("mod f{i};\n");
    }
    let path = dir.join("src/lib.rs");
    std::fs::write(&path, lib).expect("scratch file");
    path
}

fn time<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let t = Instant::now();
    let r = f();
    (t.elapsed(), r)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Best of `runs` (interleaved): `path` checked alone, and lowered again and checked with
/// the crate's index held, each time after an edit that changes its text; the findings of
/// both, from the last run.
fn edits(
    index: &mut CrateIndex,
    path: &Path,
    runs: usize,
) -> (Duration, Duration, Vec<&'static str>, Vec<&'static str>) {
    let text = std::fs::read_to_string(path).expect("scratch file");
    let settings = Settings::default();
    let (mut alone, mut again) = (Duration::MAX, Duration::MAX);
    let (mut alone_codes, mut codes) = (Vec::new(), Vec::new());
    for i in 0..runs {
        let edited = format!("{text}// edit {i}\n");
        let (t, r) = time(|| check_source(path, &edited, &settings));
        alone = alone.min(t);
        alone_codes = r.findings.iter().map(|f| f.code).collect();
        let (t, found) = time(|| {
            assert!(index.set_text(path, Some(edited)));
            index.check(path)
        });
        again = again.min(t);
        codes = found.findings.iter().map(|f| f.code).collect();
    }
    (alone, again, alone_codes, codes)
}

fn bench(n: usize, runs: usize) {
    let scratch = std::env::temp_dir().join(format!("clmigrate-editor-{}", std::process::id()));
    let lib = generate(&scratch, n);
    let settings = Settings::default();

    let (load, mut index) = time(|| CrateIndex::load(&lib, &[], &settings.config));
    let (whole, report) = time(|| check(std::slice::from_ref(&scratch), &settings));
    assert!(
        report.files.len() >= n,
        "every file of the crate is checked"
    );
    println!(
        "editor    {n} files: reading the crate's index {:.0} ms, `check` of the whole crate {:.0} ms",
        ms(load),
        ms(whole),
    );

    let (alone, again, alone_codes, codes) = edits(&mut index, &lib, runs);
    assert!(alone_codes.is_empty(), "alone, the helper is not seen");
    assert_eq!(codes, ["CLM003"], "with the crate, the helper is seen");
    let lines = |p: &Path| std::fs::read_to_string(p).map_or(0, |t| t.lines().count());
    println!(
        "editor    src/lib.rs ({} lines): alone {:.1} ms, again with the index held {:.1} ms (best of {runs})",
        lines(&lib),
        ms(alone),
        ms(again),
    );
    // The longest module of the crate.
    let longest = (0..n.saturating_sub(3))
        .map(|i| scratch.join(format!("src/f{i}.rs")))
        .max_by_key(|p| lines(p))
        .expect("a module");
    let (alone, again, alone_codes, codes) = edits(&mut index, &longest, runs);
    assert!(!codes.is_empty() && !alone_codes.is_empty());
    println!(
        "editor    the longest module ({} lines): alone {:.1} ms, again with the index held {:.1} ms (best of {runs})",
        lines(&longest),
        ms(alone),
        ms(again),
    );
    let _ = std::fs::remove_dir_all(&scratch);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let is_bench = args.iter().any(|a| a == "--bench");
    let n = args
        .iter()
        .zip(args.iter().skip(1))
        .find(|(f, _)| *f == "--files")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(if is_bench { 200 } else { 20 });
    let runs = if is_bench { 20 } else { 1 };
    // The parser recurses: the stack the checker's own threads have.
    let pool = rayon::ThreadPoolBuilder::new()
        .stack_size(256 << 20)
        .build()
        .expect("a thread pool");
    pool.install(|| bench(n, runs));
}
