//! Lint time against syn-parse-only time of the same files, in one run, and the latency of
//! one 2,000-line file.
//!
//! `cargo bench --bench engine [-- --quick] [--files N] [--tree DIR]... [--out DIR]` generates a tree
//! of N host-code files (default 2,000; copies of the fixtures, every one OpenCL host code)
//! and a 2,000-line host file, then times, best of five (interleaved): reading and parsing every file
//! with syn on all cores (the baseline), and the full `check` (walk, read, pre-filter,
//! parse, lower, analyze, rules); the same for every `--tree` (ordinary Rust); `check`
//! of the one file, best of 20; for each dimension of a host program (statements per
//! function, functions per crate, calls followed, loop nesting, commands per buffer), the
//! time at n, 2n and 4n and their ratios (2.0 is linear); and `check` of the host tree
//! against a tree of as many C and C++ host files (copies of the C and C++ fixtures),
//! interleaved, in nanoseconds per byte. `--out DIR` writes the generated tree and file there and
//! keeps them (`benches/bench.sh` times them as processes). `--quick`: 500 files, best of
//! three, and programs a quarter the size (n = 400 statements). Every file of a tree that
//! is not checked in full is counted with its reason. Run by `cargo test` (without
//! `--bench`), it checks the same on 20 files, once.

/// The allocator the command line uses, so that the times are the ones users see.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

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

fn generate(dir: &Path, n: usize, srcs: &[String]) {
    let _ = std::fs::remove_dir_all(dir);
    for i in 0..n {
        let sub = dir.join(format!("m{:03}", i / 100));
        std::fs::create_dir_all(&sub).expect("scratch dir");
        std::fs::write(sub.join(format!("host_{i}.rs")), &srcs[i % srcs.len()])
            .expect("scratch file");
    }
}

/// One host file of at least `lines` lines: fixtures, each in its own module.
fn one_file(path: &Path, lines: usize, srcs: &[String]) {
    let mut text = String::new();
    let mut i = 0;
    while text.lines().count() < lines {
        text.push_str(&format!("mod m{i} {{\n{}\n}}\n", srcs[i % srcs.len()]));
        i += 1;
    }
    std::fs::write(path, text).expect("scratch file");
}

/// A file the checker reads: Rust, C or C++.
fn is_source(e: &walkdir::DirEntry) -> bool {
    let p = e.path();
    e.file_type().is_file()
        && (p.extension().is_some_and(|x| x == "rs")
            || clmigrate_lint::frontend::Lang::of(p).is_some())
}

/// The source files under `dir` that the checker reads, and how many it leaves out as the
/// documentation says: those in hidden directories and in cargo's output (a `target`
/// beside a `Cargo.toml`).
fn source_files(dir: &Path) -> (Vec<PathBuf>, usize) {
    let left_out = |e: &walkdir::DirEntry| {
        let name = e.file_name().to_string_lossy();
        e.depth() > 0
            && e.file_type().is_dir()
            && (name.starts_with('.')
                || (name == "target" && e.path().with_file_name("Cargo.toml").is_file()))
    };
    let all = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_map(Result::ok)
        .filter(is_source)
        .count();
    let files: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|e| !left_out(e))
        .filter_map(Result::ok)
        .filter(is_source)
        .map(|e| e.into_path())
        .collect();
    let n = files.len();
    (files, all - n)
}

/// Says what became of the files of `dir` that the run did not check in full: files
/// whose crate names no OpenCL binding, files with a problem (by message), and files found
/// here that the run does not list, which would be skipped without a reason.
fn account(label: &str, files: &[PathBuf], r: &clmigrate_lint::Report) {
    let mut by_reason: std::collections::BTreeMap<String, usize> = Default::default();
    for p in &r.problems {
        // The message without the place it names: "could not parse: expected `;`" counts
        // as "could not parse".
        let reason = p
            .message
            .split(':')
            .next()
            .unwrap_or(&p.message)
            .to_string();
        *by_reason.entry(reason).or_default() += 1;
    }
    for (reason, n) in by_reason {
        println!("{label:<9} {n} files with a problem: {reason}");
    }
    let checked: std::collections::HashSet<&Path> =
        r.files.iter().map(|f| f.path.as_path()).collect();
    let unlisted: Vec<&PathBuf> = files
        .iter()
        .filter(|f| !checked.contains(f.as_path()))
        .collect();
    if !unlisted.is_empty() {
        println!(
            "{label:<9} {} files found here are not in the run's list, with no reason given (first: {})",
            unlisted.len(),
            unlisted[0].display()
        );
    }
}

/// The C and C++ fixtures, with their extensions.
fn clike_fixtures() -> Vec<(String, String)> {
    let mut out = Vec::new();
    for e in walkdir::WalkDir::new("fixtures").sort_by_file_name() {
        let e = e.expect("fixtures are readable");
        if let Some(ext) = e.path().extension().and_then(|x| x.to_str()) {
            if ext == "c" || ext == "cpp" {
                let text = std::fs::read_to_string(e.path()).expect("fixture is UTF-8");
                out.push((ext.to_string(), text));
            }
        }
    }
    out
}

/// `n` C and C++ host files: copies of the C and C++ fixtures.
fn generate_clike(dir: &Path, n: usize, srcs: &[(String, String)]) {
    let _ = std::fs::remove_dir_all(dir);
    for i in 0..n {
        let sub = dir.join(format!("m{:03}", i / 100));
        std::fs::create_dir_all(&sub).expect("scratch dir");
        let (ext, text) = &srcs[i % srcs.len()];
        std::fs::write(sub.join(format!("host_{i}.{ext}")), text).expect("scratch file");
    }
}

fn tree_bytes(dir: &Path) -> u64 {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| e.metadata().ok())
        .map(|m| m.len())
        .sum()
}

/// `check` of the Rust host tree and of the C/C++ host tree, interleaved, per byte.
fn per_byte(rust: &Path, clike: &Path, runs: usize) {
    let check = |dir: &Path| {
        clmigrate_lint::check(&[dir.to_path_buf()], &clmigrate_lint::Settings::default())
    };
    let (mut r, mut c) = (Duration::MAX, Duration::MAX);
    let (mut rf, mut cf) = (0, 0);
    for _ in 0..runs {
        r = r.min(best_of(1, || rf = check(rust).findings.len()));
        c = c.min(best_of(1, || cf = check(clike).findings.len()));
    }
    assert!(rf > 0 && cf > 0);
    let ns = |d: Duration, dir: &Path| d.as_secs_f64() * 1e9 / tree_bytes(dir) as f64;
    let (rn, cn) = (ns(r, rust), ns(c, clike));
    println!(
        "per byte  Rust host {:.1} MB {rn:>6.1} ns/B ({rf} findings)  C/C++ host {:.1} MB {cn:>6.1} ns/B ({cf} findings)  C/Rust {:.2}x",
        tree_bytes(rust) as f64 / 1e6,
        tree_bytes(clike) as f64 / 1e6,
        cn / rn
    );
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

/// Reads and parses every Rust file on all cores (C and C++ files are read); how many
/// parse.
fn parse_only(files: &[PathBuf]) -> usize {
    files
        .par_iter()
        .filter(|p| {
            let text = std::fs::read_to_string(p);
            if clmigrate_lint::frontend::Lang::of(p).is_some() {
                return text.is_ok();
            }
            let ok = text.is_ok_and(|t| syn::parse_file(&t).is_ok());
            proc_macro2::extra::invalidate_current_thread_spans();
            ok
        })
        .count()
}

fn tree(label: &str, dir: &Path, runs: usize) {
    let (files, left_out) = source_files(dir);
    if left_out > 0 {
        println!(
            "{label:<9} {left_out} files in hidden directories or cargo's target/ are not read"
        );
    }
    let bytes: u64 = files
        .iter()
        .filter_map(|p| std::fs::metadata(p).ok())
        .map(|m| m.len())
        .sum();
    let mut parsed_ok = 0;
    let mut report = None;
    // Interleaved, so that a busy moment of the machine hits both alike.
    let (mut parse, mut lint) = (Duration::MAX, Duration::MAX);
    for _ in 0..runs {
        parse = parse.min(best_of(1, || parsed_ok = parse_only(&files)));
        lint = lint.min(best_of(1, || {
            report = Some(clmigrate_lint::check(
                &[dir.to_path_buf()],
                &clmigrate_lint::Settings::default(),
            ))
        }));
    }
    let r = report.expect("at least one run");
    println!(
        "{label:<9} {:>6} files {:>7.1} MB  parsed {:>6}  skipped {:>6}  findings {:>5}  syn parse {:>7.3} s  lint {:>7.3} s  lint/parse {:>5.2}x",
        files.len(),
        bytes as f64 / 1e6,
        r.parsed,
        r.skipped,
        r.findings.len(),
        parse.as_secs_f64(),
        lint.as_secs_f64(),
        lint.as_secs_f64() / parse.as_secs_f64()
    );
    account(label, &files, &r);
    assert!(parsed_ok > 0);
}

/// A host program whose size in one dimension is `n`.
type Shape = fn(usize) -> String;

const PRELUDE: &str = "use opencl3::command_queue::CommandQueue;
use opencl3::memory::Buffer;
use opencl3::types::{cl_float, CL_NON_BLOCKING};
";

/// `n` statements in one function: commands on eight buffers over two queues, and `let`s.
fn statements(n: usize) -> String {
    let mut s = format!(
        "{PRELUDE}pub fn run(q: &[CommandQueue], b: &mut [Buffer<cl_float>], v: &[cl_float]) {{\n"
    );
    for i in 0..n {
        if i % 2 == 0 {
            s += &format!(
                "    unsafe {{ q[{}].enqueue_write_buffer(&mut b[{}], CL_NON_BLOCKING, 0, v, &[]).unwrap() }};\n",
                i / 2 % 2,
                i / 2 % 8
            );
        } else {
            s += &format!("    let x{i} = {i} + 1;\n");
        }
    }
    s + "}\n"
}

/// `n` functions of eight statements each.
fn functions(n: usize) -> String {
    let mut s = PRELUDE.to_string();
    for f in 0..n {
        s += &format!("pub fn run{f}(q0: &CommandQueue, q1: &CommandQueue, b: &mut Buffer<cl_float>, v: &[cl_float]) {{\n");
        for i in 0..8 {
            s += &format!(
                "    unsafe {{ q{}.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, v, &[]).unwrap() }};\n",
                i % 2
            );
        }
        s += "}\n";
    }
    s
}

/// A chain of `n` helpers, each calling the next; the last enqueues.
fn calls(n: usize) -> String {
    let mut s = PRELUDE.to_string();
    s += "pub fn run(q0: &CommandQueue, q1: &CommandQueue, b: &mut Buffer<cl_float>, v: &[cl_float]) {\n";
    s += "    unsafe { q1.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, v, &[]).unwrap() };\n";
    s += "    step0(q0, b, v);\n}\n";
    for f in 0..n {
        s +=
            &format!("fn step{f}(q: &CommandQueue, b: &mut Buffer<cl_float>, v: &[cl_float]) {{\n");
        if f + 1 < n {
            s += &format!("    step{}(q, b, v);\n", f + 1);
        } else {
            s += "    unsafe { q.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, v, &[]).unwrap() };\n";
        }
        s += "}\n";
    }
    s
}

/// Loops nested `n` deep around commands on two queues.
fn nesting(n: usize) -> String {
    let mut s = format!("{PRELUDE}pub fn run(q0: &CommandQueue, q1: &CommandQueue, b: &mut Buffer<cl_float>, v: &[cl_float]) {{\n");
    for d in 0..n {
        s += &format!("for i{d} in 0..2 {{\n");
        s += "    unsafe { q0.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, v, &[]).unwrap() };\n";
    }
    s += "    unsafe { q1.enqueue_write_buffer(b, CL_NON_BLOCKING, 0, v, &[]).unwrap() };\n";
    s += &"}\n".repeat(n);
    s + "}\n"
}

/// `n` commands on one buffer, over two queues, in one function.
fn commands_per_buffer(n: usize) -> String {
    let mut s = format!(
        "{PRELUDE}pub fn run(q: &[CommandQueue], b: &mut Buffer<cl_float>, v: &[cl_float]) {{\n"
    );
    for i in 0..n {
        s += &format!(
            "    unsafe {{ q[{}].enqueue_write_buffer(b, CL_NON_BLOCKING, 0, v, &[]).unwrap() }};\n",
            i % 2
        );
    }
    s + "}\n"
}

/// Checks each shape at `n`, `2n` and `4n` (best of `runs`) and prints the time ratios:
/// 2.0 is linear.
fn scaling(runs: usize, base: usize) {
    let shapes: [(&str, Shape, usize); 5] = [
        ("statements per function", statements, base),
        ("functions per crate", functions, base / 8),
        ("calls followed", calls, base / 4),
        ("loop nesting", nesting, (base / 100).max(4)),
        ("commands per buffer", commands_per_buffer, base),
    ];
    let path = Path::new("scaling.rs");
    for (label, shape, n) in shapes {
        let times: Vec<Duration> = [n, 2 * n, 4 * n]
            .iter()
            .map(|&k| {
                let text = shape(k);
                best_of(runs, || {
                    let r = clmigrate_lint::check_source(
                        path,
                        &text,
                        &clmigrate_lint::Settings::default(),
                    );
                    assert!(r.problems.is_empty(), "{label} {k}: {:?}", r.problems);
                })
            })
            .collect();
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        println!(
            "scaling   {label:<24} n={n:<5} {:>8.1} ms  2n {:>8.1} ms  4n {:>8.1} ms  ratios {:.2} {:.2}",
            ms(times[0]),
            ms(times[1]),
            ms(times[2]),
            ms(times[1]) / ms(times[0]),
            ms(times[2]) / ms(times[1]),
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bench = args.iter().any(|a| a == "--bench");
    let value = |flag: &str| {
        args.iter()
            .zip(args.iter().skip(1))
            .filter(|(f, _)| *f == flag)
            .map(|(_, v)| v.clone())
            .collect::<Vec<_>>()
    };
    // `--quick`: fewer runs and smaller programs, for a loaded machine.
    let quick = args.iter().any(|a| a == "--quick");
    let n: usize = value("--files")
        .first()
        .and_then(|v| v.parse().ok())
        .unwrap_or(match (bench, quick) {
            (false, _) => 20,
            (true, true) => 500,
            (true, false) => 2000,
        });
    let (runs, single_runs, scaling_runs, scaling_base) = match (bench, quick) {
        (false, _) => (1, 1, 1, 16),
        (true, true) => (3, 10, 3, 400),
        (true, false) => (5, 20, 5, 1600),
    };
    let out = value("--out").first().map(PathBuf::from);
    let scratch = out.clone().unwrap_or_else(|| {
        std::env::temp_dir().join(format!("clmigrate-bench-{}", std::process::id()))
    });
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let srcs = fixtures();
    let host = scratch.join("host");
    generate(&host, n, &srcs);
    let single = scratch.join("one_file_2000_lines.rs");
    one_file(&single, 2000, &srcs);

    let clike = scratch.join("host_c");
    generate_clike(&clike, n, &clike_fixtures());

    println!("{} threads", rayon::current_num_threads());
    tree("host", &host, runs);
    per_byte(&host, &clike, runs);
    for t in value("--tree") {
        tree("ordinary", Path::new(&t), runs);
    }
    scaling(scaling_runs, scaling_base);
    let lines = std::fs::read_to_string(&single).map_or(0, |t| t.lines().count());
    let mut findings = 0;
    let one = best_of(single_runs, || {
        let r = clmigrate_lint::check(
            std::slice::from_ref(&single),
            &clmigrate_lint::Settings::default(),
        );
        findings = r.findings.len();
    });
    assert!(findings > 0);
    println!(
        "one file  {lines} lines, {findings} findings: check {:.1} ms (best of {single_runs}, in-process)",
        one.as_secs_f64() * 1e3
    );
    if out.is_none() {
        let _ = std::fs::remove_dir_all(&scratch);
    }
}
