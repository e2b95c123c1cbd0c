//! Lint time against syn-parse-only time of the same files, in one run.
//!
//! `cargo bench --bench engine [-- FILES]` generates a tree of FILES host-code files (default
//! 2,000; copies of the fixtures, every one OpenCL host code), then times, best of three:
//! reading and parsing every file with syn on all cores (the baseline), and the full
//! `check` (walk, read, parse, lower, analyze, rules).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

fn fixtures() -> Vec<String> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
        let e = e.expect("fixtures are readable");
        if e.path().extension().is_some_and(|x| x == "rs") {
            out.push(std::fs::read_to_string(e.path()).expect("fixture is UTF-8"));
        }
    }
    out
}

fn generate(dir: &Path, n: usize) -> (Vec<PathBuf>, usize, usize) {
    let _ = std::fs::remove_dir_all(dir);
    let srcs = fixtures();
    let (mut bytes, mut lines) = (0, 0);
    let mut files = Vec::new();
    for i in 0..n {
        let sub = dir.join(format!("m{:03}", i / 100));
        std::fs::create_dir_all(&sub).expect("scratch dir");
        let text = &srcs[i % srcs.len()];
        let p = sub.join(format!("host_{i}.rs"));
        std::fs::write(&p, text).expect("scratch file");
        bytes += text.len();
        lines += text.lines().count();
        files.push(p);
    }
    (files, bytes, lines)
}

fn best_of<F: FnMut()>(runs: usize, mut f: F) -> Duration {
    (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn main() {
    let n: usize = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2000);
    let dir = std::env::temp_dir().join("clmigrate-bench-host");
    let (files, bytes, lines) = generate(&dir, n);
    let parse = best_of(3, || {
        let ok = files
            .par_iter()
            .map(|p| {
                let text = std::fs::read_to_string(p).expect("readable");
                let ok = syn::parse_file(&text).is_ok();
                proc_macro2::extra::invalidate_current_thread_spans();
                ok
            })
            .filter(|ok| *ok)
            .count();
        assert_eq!(ok, files.len());
    });
    let mut findings = 0;
    let lint = best_of(3, || {
        let r = clmigrate_lint::check(
            std::slice::from_ref(&dir),
            &clmigrate_lint::Settings::default(),
        );
        assert_eq!(r.files.len(), files.len());
        findings = r.findings.len();
    });
    println!(
        "{} files, {:.1} MB, {} lines, {} threads, {} findings",
        files.len(),
        bytes as f64 / 1e6,
        lines,
        rayon::current_num_threads(),
        findings
    );
    println!("syn parse only   {:>8.3} s", parse.as_secs_f64());
    println!("clmigrate-lint   {:>8.3} s", lint.as_secs_f64());
    println!(
        "ratio            {:>8.2}x",
        lint.as_secs_f64() / parse.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
