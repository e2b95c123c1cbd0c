//! `clmigrate-lint`: a static checker for OpenCL host code written in Rust.
//!
//! [`check`] reads files (never builds or runs them), lowers each function to the host IR
//! ([`ir`]), runs the happens-before and buffer-state analysis ([`analysis`]) and the rules
//! ([`rules`]), and returns a [`Report`]. Only `main.rs` and the entry points of the
//! runtime harness ([`harness`]) print or exit.

pub mod analysis;
pub mod discover;
pub mod harness;
pub mod ir;
pub mod kernel_src;
pub mod lower;
pub mod nesting;
pub mod report;
pub mod rules;
pub mod source;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use ir::Span;
use rules::{Finding, Level};
use source::SourceFile;

/// How a run is configured.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// Worker threads; `None` for one per core.
    pub jobs: Option<usize>,
}

/// A file that could not be checked, or part of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub path: PathBuf,
    /// Where in the file, when the file was read.
    pub span: Option<Span>,
    pub message: String,
    /// An internal error (a bug in the checker) rather than a property of the input.
    pub internal: bool,
}

/// Everything one run found.
#[derive(Debug, Default)]
pub struct Report {
    /// The files read, indexed by `Span::file`.
    pub files: Vec<SourceFile>,
    /// Sorted by file, position and code.
    pub findings: Vec<Finding>,
    pub problems: Vec<Problem>,
    /// Command-line paths that do not exist.
    pub missing: Vec<PathBuf>,
}

impl Report {
    pub fn count(&self, level: Level) -> usize {
        self.findings.iter().filter(|f| f.level == level).count()
    }
}

/// Stack size for the worker threads: deeply nested expressions recurse in the parser.
const STACK_SIZE: usize = 256 << 20;

fn display_path(p: &Path) -> String {
    let cwd = std::env::current_dir().ok();
    let rel = cwd
        .as_deref()
        .and_then(|c| p.strip_prefix(c).ok())
        .unwrap_or(p);
    let s = rel.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

struct FileResult {
    file: Option<SourceFile>,
    findings: Vec<Finding>,
    problems: Vec<Problem>,
}

fn read(path: &Path) -> Result<String, String> {
    let bytes = source::read_regular(path, source::MAX_FILE_BYTES)?;
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not valid UTF-8 (invalid byte at offset {}); the file was not checked",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Parses one file; a syntax error, or nesting too deep to parse safely, is a problem.
pub fn parse(file_id: usize, src: &SourceFile) -> Result<syn::File, Problem> {
    if nesting::bound(&src.text).is_some_and(|b| b > nesting::MAX_NESTING) {
        return Err(Problem {
            path: src.path.clone(),
            span: None,
            message: format!(
                "nested more than {} levels deep; the file was not checked",
                nesting::MAX_NESTING
            ),
            internal: false,
        });
    }
    syn::parse_file(&src.text).map_err(|e| Problem {
        path: src.path.clone(),
        span: Some(src.span(file_id, e.span())),
        message: format!("could not parse: {e}; the file was not checked"),
        internal: false,
    })
}

fn check_file(file_id: usize, path: &Path) -> FileResult {
    let text = match read(path) {
        Ok(t) => t,
        Err(message) => {
            return FileResult {
                file: None,
                findings: Vec::new(),
                problems: vec![Problem {
                    path: path.to_path_buf(),
                    span: None,
                    message,
                    internal: false,
                }],
            }
        }
    };
    let src = SourceFile::new(path.to_path_buf(), display_path(path), text);
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let ast = parse(file_id, &src)?;
        let ir = lower::lower_file(file_id, &src, &ast);
        drop(ast);
        let findings: Vec<Finding> = ir
            .functions
            .iter()
            .flat_map(|f| rules::run(&analysis::analyze(f)))
            .collect();
        Ok(findings)
    }));
    proc_macro2::extra::invalidate_current_thread_spans();
    let (findings, problems) = match outcome {
        Ok(Ok(f)) => (f, Vec::new()),
        Ok(Err(p)) => (Vec::new(), vec![p]),
        Err(panic) => {
            let what = panic
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| panic.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".into());
            (
                Vec::new(),
                vec![Problem {
                    path: path.to_path_buf(),
                    span: None,
                    message: format!("internal error while checking this file: {what}"),
                    internal: true,
                }],
            )
        }
    };
    FileResult {
        file: Some(src),
        findings,
        problems,
    }
}

/// Checks every `.rs` file under `paths`.
pub fn check(paths: &[PathBuf], settings: &Settings) -> Report {
    let found = discover::discover(paths);
    let mut problems: Vec<Problem> = found
        .problems
        .iter()
        .map(|p| Problem {
            path: p.path.clone(),
            span: None,
            message: p.message.clone(),
            internal: false,
        })
        .collect();
    let run = || -> Vec<FileResult> {
        found
            .files
            .par_iter()
            .enumerate()
            .map(|(i, p)| check_file(i, p))
            .collect()
    };
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(STACK_SIZE);
    if let Some(j) = settings.jobs {
        builder = builder.num_threads(j.max(1));
    }
    let results = match builder.build() {
        Ok(pool) => pool.install(run),
        Err(_) => run(),
    };
    let mut report = Report {
        missing: found.missing,
        ..Report::default()
    };
    // Files keep their index (`Span::file`); an unreadable file leaves an empty entry.
    for (i, r) in results.into_iter().enumerate() {
        let file = r.file.unwrap_or_else(|| {
            let p = &found.files[i];
            SourceFile::new(p.clone(), display_path(p), String::new())
        });
        report.files.push(file);
        report.findings.extend(r.findings);
        problems.extend(r.problems);
    }
    report.findings.sort_by(|a, b| {
        (a.primary.span, a.code, &a.message).cmp(&(b.primary.span, b.code, &b.message))
    });
    report.findings.dedup();
    problems.sort_by(|a, b| (&a.path, a.span).cmp(&(&b.path, b.span)));
    report.problems = problems;
    report
}

/// Lowers one file and prints its IR, for `debug ir`. It runs on a thread with the same
/// stack as the checker's workers, so what `check` accepts prints here too.
pub fn debug_ir(path: &Path) -> Result<String, String> {
    let path = path.to_path_buf();
    let worker = std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || {
            let text = read(&path)?;
            let src = SourceFile::new(path.clone(), display_path(&path), text);
            let ast = parse(0, &src).map_err(|p| p.message)?;
            let ir = lower::lower_file(0, &src, &ast);
            let mut out = String::new();
            for f in &ir.functions {
                out.push_str(&f.to_string());
            }
            Ok(out)
        })
        .map_err(|e| format!("could not start a thread: {e}"))?;
    worker
        .join()
        .unwrap_or_else(|_| Err("internal error while lowering this file".into()))
}
