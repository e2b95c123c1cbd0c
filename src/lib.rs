//! `clmigrate-lint`: a static checker for OpenCL host code written in Rust.
//!
//! [`check`] reads files (never builds or runs them), lowers each function to the host IR
//! ([`ir`]), runs the happens-before and buffer-state analysis ([`analysis`]) and the rules
//! ([`rules`]), and returns a [`Report`]. Only `main.rs` and the entry points of the
//! runtime harness ([`harness`]) print or exit.

pub mod analysis;
pub mod baseline;
pub mod config;
pub mod discover;
pub mod fix;
pub mod harness;
pub mod ir;
pub mod kernel_src;
pub mod lower;
pub mod lsp;
pub mod nesting;
pub mod prefilter;
pub mod report;
pub mod rules;
pub mod source;
pub mod suppress;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use ir::Span;
use prefilter::Prefilter;
use rules::{Finding, Level};
use source::SourceFile;

/// How a run is configured.
#[derive(Debug, Clone)]
pub struct Settings {
    /// Worker threads; `None` for one per core.
    pub jobs: Option<usize>,
    /// Rule levels and excluded paths.
    pub config: config::Config,
    /// Findings to leave out of the report because they were there before.
    pub baseline: Option<baseline::Baseline>,
    /// Parse only the files that name an enqueue or kernel-argument API ([`prefilter`]).
    /// The others cannot hold a finding; they still count as checked.
    pub prefilter: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            jobs: None,
            config: config::Config::default(),
            baseline: None,
            prefilter: true,
        }
    }
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
    /// Every file checked, indexed by `Span::file`. Only files with findings or problems
    /// keep their text; the others keep their path, so the list and the indices do not
    /// depend on what was found.
    pub files: Vec<SourceFile>,
    /// How many of `files` were parsed: the others were skipped by the pre-filter or could
    /// not be read.
    pub parsed: usize,
    /// Sorted by file, position and code.
    pub findings: Vec<Finding>,
    pub problems: Vec<Problem>,
    /// Command-line paths that do not exist.
    pub missing: Vec<PathBuf>,
    /// Findings left out by suppression comments.
    pub suppressed: usize,
    /// Findings left out because the baseline records them.
    pub baselined: usize,
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
    file: SourceFile,
    parsed: bool,
    findings: Vec<Finding>,
    problems: Vec<Problem>,
    suppressed: usize,
}

fn decode(bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not valid UTF-8 (invalid byte at offset {}); the file was not checked",
            e.utf8_error().valid_up_to()
        )
    })
}

fn read(path: &Path) -> Result<String, String> {
    decode(source::read_regular(path, source::MAX_FILE_BYTES)?)
}

/// Parses one file; a syntax error, or nesting too deep to parse safely, is a problem. A
/// file that parses only as edition 2015 code (`async`, `await`, `try` as identifiers) is
/// read as such.
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
    syn::parse_file(&src.text).or_else(|e| {
        if let Some((text, shifts)) = src.edition_2015() {
            if let Ok(ast) = syn::parse_file(&text) {
                src.use_edition_2015(shifts);
                return Ok(ast);
            }
        }
        Err(Problem {
            path: src.path.clone(),
            span: Some(src.span(file_id, e.span())),
            message: format!("could not parse: {e}; the file was not checked"),
            internal: false,
        })
    })
}

/// Lowers, analyzes and checks one parsed file; returns its findings after suppression
/// comments and configured levels, and how many were suppressed.
fn lint(
    file_id: usize,
    src: &SourceFile,
    config: &config::Config,
) -> Result<(Vec<Finding>, usize), Problem> {
    let ast = parse(file_id, src)?;
    let ir = lower::lower_file(file_id, src, &ast);
    drop(ast);
    let index: std::collections::HashMap<String, &ir::Function> =
        ir.functions.iter().map(|f| (f.name.clone(), f)).collect();
    let mut kernels = analysis::Kernels::default();
    let findings: Vec<Finding> = ir
        .functions
        .iter()
        .flat_map(|f| rules::run(&analysis::analyze(f, &index, &mut kernels)))
        .collect();
    let out = suppress::apply(file_id, src, with_levels(findings, config), &|r| {
        config.level(r).is_some()
    });
    let mut findings = out.kept;
    findings.extend(with_levels(out.reported, config));
    Ok((findings, out.suppressed))
}

fn check_file(
    file_id: usize,
    path: &Path,
    prefilter: Option<&Prefilter>,
    config: &config::Config,
) -> FileResult {
    let listed = || SourceFile::new(path.to_path_buf(), display_path(path), String::new());
    let not_checked = |message: String| FileResult {
        file: listed(),
        parsed: false,
        findings: Vec::new(),
        problems: vec![Problem {
            path: path.to_path_buf(),
            span: None,
            message,
            internal: false,
        }],
        suppressed: 0,
    };
    let bytes = match source::read_regular(path, source::MAX_FILE_BYTES) {
        Ok(b) => b,
        Err(message) => return not_checked(message),
    };
    if prefilter.is_some_and(|p| !p.matches(&bytes)) {
        return FileResult {
            file: listed(),
            parsed: false,
            findings: Vec::new(),
            problems: Vec::new(),
            suppressed: 0,
        };
    }
    match decode(bytes) {
        Ok(text) => check_text(file_id, path, text, config, false),
        Err(message) => not_checked(message),
    }
}

/// Parses, lowers, analyzes and runs the rules on the text of one file. The file keeps its
/// text when it has something to show, or when `keep_text`.
fn check_text(
    file_id: usize,
    path: &Path,
    text: String,
    config: &config::Config,
    keep_text: bool,
) -> FileResult {
    let src = SourceFile::new(path.to_path_buf(), display_path(path), text);
    let outcome = catch_unwind(AssertUnwindSafe(|| lint(file_id, &src, config)));
    proc_macro2::extra::invalidate_current_thread_spans();
    let (findings, problems, suppressed) = match outcome {
        Ok(Ok((f, n))) => (f, Vec::new(), n),
        Ok(Err(p)) => (Vec::new(), vec![p], 0),
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
                0,
            )
        }
    };
    let keep = keep_text || !findings.is_empty() || !problems.is_empty();
    FileResult {
        file: if keep {
            src
        } else {
            SourceFile::new(path.to_path_buf(), display_path(path), String::new())
        },
        parsed: true,
        findings,
        problems,
        suppressed,
    }
}

/// Sets each finding's level from the configuration and drops those of rules it turns off.
fn with_levels(findings: Vec<Finding>, config: &config::Config) -> Vec<Finding> {
    findings
        .into_iter()
        .filter_map(|mut f| {
            f.level = config.level(rules::find(f.code)?)?;
            Some(f)
        })
        .collect()
}

/// Checks every `.rs` file under `paths`.
pub fn check(paths: &[PathBuf], settings: &Settings) -> Report {
    let mut found = discover::discover(paths);
    found.files.retain(|p| !settings.config.excludes(p));
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
    let prefilter = settings.prefilter.then(Prefilter::get);
    let run = || -> Vec<FileResult> {
        found
            .files
            .par_iter()
            .enumerate()
            .map(|(i, p)| check_file(i, p, prefilter, &settings.config))
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
    // Files keep their index (`Span::file`).
    for r in results {
        report.files.push(r.file);
        report.parsed += usize::from(r.parsed);
        report.findings.extend(r.findings);
        report.suppressed += r.suppressed;
        problems.extend(r.problems);
    }
    report.problems = problems;
    sort(&mut report);
    if let Some(b) = &settings.baseline {
        report.baselined = b.filter(&mut report, &source::src_root());
    }
    report
}

/// Checks `text` as the contents of the file `path` (an editor's unsaved buffer), without
/// reading the disk. The report has one file, index 0. `jobs` does not apply: one file is
/// checked on one thread, with the same stack size as [`check`]'s workers.
pub fn check_source(path: &Path, text: &str, settings: &Settings) -> Report {
    let work = || check_text(0, path, text.to_string(), &settings.config, true);
    let r = std::thread::scope(|scope| {
        match std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn_scoped(scope, work)
        {
            Ok(worker) => worker
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Err(_) => work(),
        }
    });
    let mut report = Report {
        files: vec![r.file],
        parsed: usize::from(r.parsed),
        findings: r.findings,
        problems: r.problems,
        suppressed: r.suppressed,
        ..Report::default()
    };
    sort(&mut report);
    report
}

/// Puts findings and problems in report order and drops duplicate findings.
fn sort(report: &mut Report) {
    report.findings.sort_by(|a, b| {
        (a.primary.span, a.code, &a.message).cmp(&(b.primary.span, b.code, &b.message))
    });
    report.findings.dedup();
    report
        .problems
        .sort_by(|a, b| (&a.path, a.span).cmp(&(&b.path, b.span)));
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
