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
pub mod package;
pub mod prefilter;
pub mod report;
pub mod rules;
pub mod source;
pub mod suppress;

use std::collections::{BTreeMap, BTreeSet, HashMap};
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

/// Parses one file; a syntax error, or nesting too deep to parse safely, is a problem.
/// A file of an edition 2015 package is read as edition 2015 code (`async`, `await`, `try`
/// as identifiers). Any other file is read as current code, and as edition 2015 code when
/// only that parses (a file of no package, or one a later-edition package does not compile).
pub fn parse(
    file_id: usize,
    src: &SourceFile,
    edition: Option<package::Edition>,
) -> Result<syn::File, Problem> {
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
    let as_2015 = || {
        let (text, shifts) = src.edition_2015()?;
        let ast = syn::parse_file(&text).ok()?;
        src.use_edition_2015(shifts);
        Some(ast)
    };
    if edition == Some(package::Edition::E2015) {
        if let Some(ast) = as_2015() {
            return Ok(ast);
        }
    }
    syn::parse_file(&src.text).or_else(|e| {
        if edition != Some(package::Edition::E2015) {
            if let Some(ast) = as_2015() {
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

/// Runs `work` on `path`; a panic in it (a bug in the checker) becomes an internal-error
/// problem naming the file.
fn guarded<R>(
    path: impl FnOnce() -> PathBuf,
    work: impl FnOnce() -> Result<R, Problem>,
) -> Result<R, Problem> {
    let outcome = catch_unwind(AssertUnwindSafe(work));
    // Spans of the syntax trees parsed on this thread are not used after the work.
    proc_macro2::extra::invalidate_current_thread_spans();
    outcome.unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        Err(Problem {
            path: path(),
            span: None,
            message: format!("internal error while checking this file: {what}"),
            internal: true,
        })
    })
}

/// Runs `work` on every item in parallel, each [`guarded`]: one that panics gives a problem
/// naming its file, and the others go on.
fn par_guarded<T: Sync, R: Send>(
    items: &[T],
    path: impl Fn(&T) -> PathBuf + Sync,
    work: impl Fn(&T) -> Result<R, Problem> + Sync,
) -> Vec<Result<R, Problem>> {
    items
        .par_iter()
        .map(|item| guarded(|| path(item), || work(item)))
        .collect()
}

/// One file of a run: what was read, and where it sits.
struct Input {
    path: PathBuf,
    /// The bytes read, until the file is lowered; the reason it could not be read.
    bytes: Result<Vec<u8>, String>,
    placement: package::Placement,
}

/// A file parsed and lowered.
struct Lowered {
    id: usize,
    src: SourceFile,
    ir: lower::FileIr,
}

/// What became of a file given to the parser.
enum Lowering {
    Done(Lowered),
    /// Not lowered: its text, when it was decoded, and why.
    Failed(Option<SourceFile>, Problem),
}

/// Decodes, parses and lowers the files `ids` in parallel.
fn lower_files(inputs: &mut [Input], ids: &[usize]) -> Vec<Lowering> {
    let texts: Vec<(usize, Result<String, String>)> = ids
        .iter()
        .map(|&i| {
            let bytes = std::mem::replace(&mut inputs[i].bytes, Ok(Vec::new()));
            (i, bytes.and_then(decode))
        })
        .collect();
    let inputs = &*inputs;
    let work = |(id, text): &(usize, Result<String, String>)| {
        let input = &inputs[*id];
        let text = text.as_ref().map_err(|message| Problem {
            path: input.path.clone(),
            span: None,
            message: message.clone(),
            internal: false,
        })?;
        let src = SourceFile::new(input.path.clone(), display_path(&input.path), text.clone());
        let ast = match parse(*id, &src, input.placement.edition) {
            Ok(ast) => ast,
            Err(p) => return Ok(Lowering::Failed(Some(src), p)),
        };
        let ir = lower::lower_file(*id, &src, &ast, &input.placement.module);
        drop(ast);
        Ok(Lowering::Done(Lowered { id: *id, src, ir }))
    };
    par_guarded(&texts, |(id, _)| inputs[*id].path.clone(), work)
        .into_iter()
        .map(|r| r.unwrap_or_else(|p| Lowering::Failed(None, p)))
        .collect()
}

/// The names a crate's lowered functions need from files not yet lowered: the last
/// segments of the functions they call and the types of their struct parameters
/// (downwards), and the names of the functions that use an OpenCL API, for their callers
/// (upwards).
fn wanted_names(files: &[&Lowered]) -> BTreeSet<String> {
    fn walk(body: &[ir::Stmt], out: &mut BTreeSet<String>) -> bool {
        let mut uses_api = false;
        for s in body {
            match s {
                ir::Stmt::Call { callee, .. } => {
                    let last = callee.rsplit("::").next().unwrap_or(callee);
                    out.insert(last.to_string());
                    uses_api = true;
                }
                ir::Stmt::Branch(arms) => {
                    for arm in arms {
                        uses_api |= walk(arm, out);
                    }
                }
                ir::Stmt::Loop(b) => uses_api |= walk(b, out),
                ir::Stmt::Assign { .. }
                | ir::Stmt::Push { .. }
                | ir::Stmt::Forget { .. }
                | ir::Stmt::Break
                | ir::Stmt::Continue
                | ir::Stmt::Return { .. } => {}
                _ => uses_api = true,
            }
        }
        uses_api
    }
    let mut out = BTreeSet::new();
    for l in files {
        for f in &l.ir.functions {
            if walk(&f.body, &mut out) {
                let last = f.name.rsplit("::").next().unwrap_or(&f.name);
                if last != "main" {
                    out.insert(last.to_string());
                }
            }
            out.extend(f.vars.iter().filter_map(|v| v.ty.clone()));
        }
    }
    out
}

/// The findings of one run over files, before they are sorted into a [`Report`].
struct Outcome {
    files: Vec<SourceFile>,
    parsed: usize,
    findings: Vec<Finding>,
    problems: Vec<Problem>,
    suppressed: usize,
}

/// Checks `inputs`: lowers the files the pre-filter selects, then, crate by crate, the
/// files that define or call what those need (until no file is added), gives each crate an
/// index of its functions and structs, analyzes every function with it, and applies each
/// file's suppression comments and the configured levels. Files keep their text when they
/// have something to show, or when `keep_text`.
fn run(
    mut inputs: Vec<Input>,
    prefilter: Option<&Prefilter>,
    config: &config::Config,
    keep_text: bool,
) -> Outcome {
    let mut problems = Vec::new();
    let anchored: Vec<bool> = inputs
        .par_iter()
        .map(|i| match &i.bytes {
            Ok(b) => prefilter.is_none_or(|p| p.matches(b)),
            Err(_) => false,
        })
        .collect();
    for i in &inputs {
        if let Err(message) = &i.bytes {
            problems.push(Problem {
                path: i.path.clone(),
                span: None,
                message: message.clone(),
                internal: false,
            });
        }
    }
    let mut done = vec![false; inputs.len()];
    let mut lowered: Vec<Lowered> = Vec::new();
    let mut failed: Vec<(usize, SourceFile)> = Vec::new();
    let mut next: Vec<usize> = (0..inputs.len()).filter(|&i| anchored[i]).collect();
    while !next.is_empty() {
        for &i in &next {
            done[i] = true;
        }
        for (&id, r) in next.iter().zip(lower_files(&mut inputs, &next)) {
            match r {
                Lowering::Done(l) => lowered.push(l),
                Lowering::Failed(src, p) => {
                    failed.extend(src.map(|s| (id, s)));
                    problems.push(p);
                }
            }
        }
        let mut by_crate: BTreeMap<&str, Vec<&Lowered>> = BTreeMap::new();
        for l in &lowered {
            by_crate
                .entry(&inputs[l.id].placement.krate)
                .or_default()
                .push(l);
        }
        next = Vec::new();
        for (krate, files) in by_crate {
            let want = Prefilter::new(wanted_names(&files));
            next.extend((0..inputs.len()).filter(|&i| {
                !done[i]
                    && inputs[i].placement.krate == krate
                    && inputs[i].bytes.as_ref().is_ok_and(|b| want.matches(b))
            }));
        }
        next.sort_unstable();
    }
    // Decoded and given to the parser, whatever it said.
    let parsed = lowered.len() + failed.len();
    lowered.sort_by_key(|l| l.id);
    link(&mut lowered, &inputs);
    let mut crates: BTreeMap<&str, Vec<&Lowered>> = BTreeMap::new();
    for l in &lowered {
        crates
            .entry(&inputs[l.id].placement.krate)
            .or_default()
            .push(l);
    }
    let indexes: BTreeMap<&str, analysis::Index> = crates
        .iter()
        .map(|(k, files)| {
            let functions = files.iter().flat_map(|l| &l.ir.functions);
            (*k, analysis::Index::new(functions))
        })
        .collect();
    let kernel_files = kernel_files(&lowered, &inputs);
    let analyzed = par_guarded(
        &lowered,
        |l| l.src.path.clone(),
        |l| {
            let index = &indexes[inputs[l.id].placement.krate.as_str()];
            let beside = kernel_files[&kernel_dir(&inputs[l.id])].clone();
            let mut kernels = analysis::Kernels::new(beside);
            Ok(l.ir
                .functions
                .iter()
                .flat_map(|f| rules::run(&analysis::analyze(f, index, &mut kernels)))
                .collect::<Vec<Finding>>())
        },
    );
    let mut by_file: Vec<Vec<Finding>> = vec![Vec::new(); inputs.len()];
    for r in analyzed {
        match r {
            Ok(findings) => {
                for f in findings {
                    by_file[f.anchor.file].push(f);
                }
            }
            Err(p) => problems.push(p),
        }
    }
    let mut out = Outcome {
        files: inputs
            .iter()
            .map(|i| SourceFile::new(i.path.clone(), display_path(&i.path), String::new()))
            .collect(),
        parsed,
        findings: Vec::new(),
        problems: Vec::new(),
        suppressed: 0,
    };
    for l in &lowered {
        let mut findings = std::mem::take(&mut by_file[l.id]);
        dedup(&mut findings);
        let applied = suppress::apply(l.id, &l.src, with_levels(findings, config), &|r| {
            config.level(r).is_some()
        });
        out.suppressed += applied.suppressed;
        out.findings.extend(applied.kept);
        out.findings.extend(with_levels(applied.reported, config));
    }
    // A finding can point into several files (a helper's command, its caller's).
    let mut shown = vec![keep_text; inputs.len()];
    for f in &out.findings {
        let labels = std::iter::once(&f.primary).chain(&f.secondary);
        for span in labels.map(|l| l.span).chain([f.anchor]) {
            shown[span.file] = true;
        }
    }
    for l in lowered {
        if shown[l.id] {
            out.files[l.id] = l.src;
        }
    }
    // A file that could not be parsed keeps its text, to show where.
    for (id, src) in failed {
        out.files[id] = src;
    }
    out.problems = problems;
    out
}

/// Where the OpenCL C files of a file's kernels may be: its package's directory (all the
/// way down), or, outside a package, its own directory.
fn kernel_dir(input: &Input) -> (PathBuf, Option<usize>) {
    match &input.placement.root {
        Some(root) => (root.clone(), None),
        None => {
            let dir = input.path.parent().unwrap_or(Path::new("."));
            (dir.to_path_buf(), Some(1))
        }
    }
}

/// The kernels of the `.cl` files beside each lowered file, read once per directory.
fn kernel_files(
    lowered: &[Lowered],
    inputs: &[Input],
) -> HashMap<(PathBuf, Option<usize>), std::sync::Arc<analysis::KernelFiles>> {
    let dirs: BTreeSet<(PathBuf, Option<usize>)> =
        lowered.iter().map(|l| kernel_dir(&inputs[l.id])).collect();
    dirs.into_par_iter()
        .map(|(dir, depth)| {
            let texts: Vec<String> = discover::kernel_files(&dir, depth)
                .iter()
                .filter_map(|p| read(p).ok())
                .collect();
            let files = analysis::KernelFiles::new(texts.iter().map(String::as_str));
            ((dir, depth), std::sync::Arc::new(files))
        })
        .collect()
}

/// Gives the parameters of each crate's functions the fields of structs other files of the
/// crate define.
fn link(lowered: &mut [Lowered], inputs: &[Input]) {
    let mut structs: HashMap<&str, Vec<(String, lower::Fields)>> = HashMap::new();
    for l in lowered.iter() {
        structs
            .entry(&inputs[l.id].placement.krate)
            .or_default()
            .extend(l.ir.structs.iter().cloned());
    }
    for l in lowered.iter_mut() {
        let krate = &inputs[l.id].placement.krate;
        lower::link(&mut l.ir.functions, &structs[krate.as_str()]);
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

/// Runs `work` on a pool of `jobs` threads (one per core for `None`) with the stack the
/// parser needs.
fn in_pool<R: Send>(jobs: Option<usize>, work: impl FnOnce() -> R + Send) -> R {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(STACK_SIZE);
    if let Some(j) = jobs {
        builder = builder.num_threads(j.max(1));
    }
    match builder.build() {
        Ok(pool) => pool.install(work),
        Err(_) => work(),
    }
}

/// Checks every `.rs` file under `paths`. Calls and struct types are followed across the
/// files of a crate that are in the run.
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
    let mut locator = package::Locator::default();
    let placements: Vec<package::Placement> =
        found.files.iter().map(|p| locator.place(p)).collect();
    let out = in_pool(settings.jobs, || {
        let inputs: Vec<Input> = found
            .files
            .par_iter()
            .zip(placements)
            .map(|(p, placement)| Input {
                path: p.clone(),
                bytes: source::read_regular(p, source::MAX_FILE_BYTES),
                placement,
            })
            .collect();
        run(inputs, prefilter, &settings.config, false)
    });
    problems.extend(out.problems);
    let mut report = Report {
        files: out.files,
        parsed: out.parsed,
        findings: out.findings,
        problems,
        missing: found.missing,
        suppressed: out.suppressed,
        baselined: 0,
    };
    sort(&mut report);
    if let Some(b) = &settings.baseline {
        report.baselined = b.filter(&mut report, &source::src_root());
    }
    report
}

/// Checks `text` as the contents of the file `path` (an editor's unsaved buffer), without
/// reading the disk. The report has one file, index 0; calls into other files of its
/// crate are not followed. `jobs` does not apply: one file is checked on one thread, with
/// the same stack size as [`check`]'s workers.
pub fn check_source(path: &Path, text: &str, settings: &Settings) -> Report {
    let input = Input {
        path: path.to_path_buf(),
        bytes: Ok(text.as_bytes().to_vec()),
        placement: package::Locator::default().place(path),
    };
    let out = in_pool(Some(1), || run(vec![input], None, &settings.config, true));
    let mut report = Report {
        files: out.files,
        parsed: out.parsed,
        findings: out.findings,
        problems: out.problems,
        suppressed: out.suppressed,
        ..Report::default()
    };
    sort(&mut report);
    report
}

/// Sorts findings into report order and keeps one of each bug: the analysis of a helper
/// and of each of its callers can find the same command pair, named as each sees it.
fn dedup(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (a.primary.span, a.code, &a.message).cmp(&(b.primary.span, b.code, &b.message))
    });
    findings.dedup_by(|a, b| {
        let spans = |f: &Finding| f.secondary.iter().map(|l| l.span).collect::<Vec<_>>();
        (a.code, a.anchor, a.primary.span) == (b.code, b.anchor, b.primary.span)
            && spans(a) == spans(b)
    });
}

/// Puts findings and problems in report order and drops duplicate findings.
fn sort(report: &mut Report) {
    dedup(&mut report.findings);
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
            let placement = package::Locator::default().place(&path);
            let ast = parse(0, &src, placement.edition).map_err(|p| p.message)?;
            let ir = lower::lower_file(0, &src, &ast, &placement.module);
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A bug in the checker met on one file is a problem naming that file, and the other
    /// files are still checked.
    #[test]
    fn a_panic_in_one_file_is_a_problem_naming_it() {
        let files = [PathBuf::from("a.rs"), PathBuf::from("b.rs")];
        let out = par_guarded(
            &files,
            |p| p.clone(),
            |p| {
                if p.ends_with("a.rs") {
                    panic!("index out of bounds in {}", p.display());
                }
                Ok(p.display().to_string())
            },
        );
        let problem = out[0].as_ref().unwrap_err();
        assert_eq!(problem.path, files[0]);
        assert!(problem.internal);
        assert!(
            problem.message.contains("internal error") && problem.message.contains("a.rs"),
            "{}",
            problem.message
        );
        assert_eq!(out[1].as_ref().unwrap(), "b.rs");
    }
}
