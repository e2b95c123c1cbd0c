//! `clmigrate-lint`: a static checker for OpenCL host code written in Rust.
//!
//! [`check`] reads files (never builds or runs them), lowers each function to the host IR
//! ([`ir`]), runs the happens-before and buffer-state analysis ([`analysis`]) and the rules
//! ([`rules`]), and returns a [`Report`]. Only `main.rs` and the entry points of the
//! runtime harness ([`harness`]) print or exit.

pub mod analysis;
pub mod baseline;
pub mod config;
pub mod crate_index;
pub mod discover;
pub mod fix;
pub mod frontend;
pub mod harness;
pub mod ir;
pub mod kernel_src;
pub mod lsp;
pub mod nesting;
pub mod package;
pub mod prefilter;
pub mod report;
pub mod rules;
pub mod runtime;
pub mod source;
pub mod suppress;
pub mod targets;
pub mod workspace;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use rayon::prelude::*;

use ir::Span;
use prefilter::{Language, Prefilter, Scan};
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
    /// Parse only what can matter ([`prefilter`]): nothing of a crate without an OpenCL
    /// binding; in a crate with one, lower and analyze only the files that name an enqueue
    /// or kernel-argument API and those they need, and parse the others for syntax errors
    /// only. Every file still counts as checked.
    pub prefilter: bool,
    /// How directories are walked: ignore files, directories left out.
    pub walk: discover::WalkOptions,
    /// Check the library sources of OpenCL binding packages too ([`package::Placement::binding_library`]).
    /// Without it they are counted, not read: they implement the API rather than use it.
    /// Their tests, examples and benches are checked either way.
    pub binding_sources: bool,
    /// Counts the files checked as the run goes, for a progress indicator.
    pub progress: Option<Arc<Progress>>,
}

/// How far a run is: of the files found (`total`), those whose crate has been checked
/// (`done`).
#[derive(Debug, Default)]
pub struct Progress {
    pub total: AtomicUsize,
    pub done: AtomicUsize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            jobs: None,
            config: config::Config::default(),
            baseline: None,
            prefilter: true,
            walk: discover::WalkOptions::default(),
            binding_sources: false,
            progress: None,
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
    /// The file is not Rust that the checker can parse (a syntax error, not UTF-8): an
    /// error, and the run fails, as rustc would. Nesting past the checker's bound is not.
    pub error: bool,
}

impl Problem {
    /// A problem with a whole file (it could not be read or walked into).
    fn of_file(path: &Path, message: String) -> Problem {
        Problem {
            path: path.to_path_buf(),
            span: None,
            message,
            internal: false,
            error: false,
        }
    }

    /// A file that cannot be parsed, at `span` when known.
    fn unparsable(path: &Path, span: Option<Span>, message: String) -> Problem {
        Problem {
            span,
            error: true,
            ..Problem::of_file(path, message)
        }
    }

    /// Whether it is reported at error level: an internal error or an unparsable file.
    pub fn is_error(&self) -> bool {
        self.internal || self.error
    }
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
    /// How many of `files` are in crates without an OpenCL binding, not parsed at all.
    pub skipped: usize,
    /// How many of `files` are modules of an OpenCL binding's own library, not parsed at
    /// all (see [`Settings::binding_sources`]).
    pub binding_library: usize,
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

    /// Whether the run fails: an error finding or a file that cannot be parsed.
    pub fn has_errors(&self) -> bool {
        self.count(Level::Error) > 0 || self.problems.iter().any(|p| p.error)
    }
}

/// Stack size for the worker threads: deeply nested expressions recurse in the parser.
pub(crate) const STACK_SIZE: usize = 256 << 20;

pub(crate) fn display_path(p: &Path) -> String {
    display_path_from(std::env::current_dir().ok().as_deref(), p)
}

/// [`display_path`] with the working directory `cwd` (looked up once for many paths).
fn display_path_from(cwd: Option<&Path>, p: &Path) -> String {
    let rel = cwd.and_then(|c| p.strip_prefix(c).ok()).unwrap_or(p);
    let s = rel.to_string_lossy();
    s.strip_prefix("./").unwrap_or(&s).to_string()
}

/// The text of a source file: a C, C++ or OpenCL C file's read as its compilers read it
/// ([`source::c_text`]), a Rust file's only where it is UTF-8.
fn decode_source(path: &Path, bytes: Vec<u8>) -> Result<String, String> {
    match frontend::Lang::of(path) {
        Some(_) => Ok(source::c_text(bytes)),
        None => decode(bytes),
    }
}

fn decode(bytes: Vec<u8>) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "not valid UTF-8 (invalid byte at offset {}); the file was not checked",
            e.utf8_error().valid_up_to()
        )
    })
}

/// Parses one file; a syntax error, or nesting too deep to parse safely, is a problem.
/// The edition is the package's (`edition` in its manifest, `edition.workspace = true` from
/// the workspace's, none meaning 2015). A file of an edition 2015 package is read as edition
/// 2015 code (`async`, `await`, `try` as identifiers, anonymous parameters in trait
/// methods); a file of a later-edition package as current code only. A file whose edition no
/// manifest says (a file of no package, or outside its package's crates) is read as current
/// code, and as edition 2015 code when only that parses.
pub fn parse(
    file_id: usize,
    src: &SourceFile,
    edition: Option<package::Edition>,
) -> Result<syn::File, Problem> {
    // The text `syn::parse_file` tokenizes: without a byte-order mark, and with no shebang
    // line to take off (a file with one is tokenized twice, by `nesting::shape` and by
    // `syn::parse_file`, which both take it off).
    let body = src.text.strip_prefix('\u{feff}').unwrap_or(&src.text);
    let tokens = match body.starts_with("#!") {
        true => None,
        false => body.parse::<proc_macro2::TokenStream>().ok(),
    };
    let shape = match &tokens {
        Some(t) => Some(nesting::of_tokens(t)),
        None => nesting::shape(&src.text),
    };
    if shape.is_some_and(|s| s.depth > nesting::MAX_NESTING) {
        // Valid Rust that the checker refuses for its own stack's sake: not an error of
        // the file.
        return Err(Problem::of_file(
            &src.path,
            format!(
                "nested more than {} levels deep; the file was not checked",
                nesting::MAX_NESTING
            ),
        ));
    }
    if shape.is_some_and(|s| s.longest_number > nesting::MAX_LITERAL_DIGITS) {
        return Err(Problem::of_file(
            &src.path,
            format!(
                "a number literal longer than {} characters; the file was not checked",
                nesting::MAX_LITERAL_DIGITS
            ),
        ));
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
    let parsed = match tokens {
        Some(t) => syn::parse2::<syn::File>(t),
        None => syn::parse_file(&src.text),
    };
    parsed.or_else(|e| {
        if edition.is_none() {
            if let Some(ast) = as_2015() {
                return Ok(ast);
            }
        }
        // syn reads less edition 2015 syntax than rustc (anonymous trait-method
        // parameters), so there it is only a warning.
        Err(Problem {
            error: edition != Some(package::Edition::E2015),
            ..Problem::unparsable(
                &src.path,
                Some(src.span(file_id, e.span())),
                format!("could not parse: {e}; the file was not checked"),
            )
        })
    })
}

/// Runs `work` on the file `path`; a panic in it (a bug in the checker) becomes an
/// internal-error problem naming the file.
pub(crate) fn guarded<R>(
    path: PathBuf,
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
            path,
            span: None,
            message: format!("internal error while checking this file: {what}"),
            internal: true,
            error: false,
        })
    })
}

/// Runs `work` on every item in parallel, each [`guarded`]: one that panics gives a problem
/// naming its file, and the others go on.
pub(crate) fn par_guarded<T: Send, R: Send>(
    items: Vec<T>,
    path: impl Fn(&T) -> PathBuf + Sync,
    work: impl Fn(T) -> Result<R, Problem> + Sync,
) -> Vec<Result<R, Problem>> {
    items
        .into_par_iter()
        .map(|item| guarded(path(&item), || work(item)))
        .collect()
}

/// A file's bytes, when held; why it could not be read.
type Held = Result<Option<Vec<u8>>, String>;

/// One file of a run: what was read, and where it sits.
pub(crate) struct Input {
    pub(crate) path: PathBuf,
    /// The bytes, when they are held until the file is lowered (`None`: read them from
    /// the disk when they are needed); the reason the file could not be read.
    pub(crate) bytes: Held,
    /// What the pre-filter found in it (everything, when it is off).
    pub(crate) scan: Scan,
    pub(crate) placement: package::Placement,
}

/// What a file is taken for without the pre-filter: one to check in full.
pub(crate) const EVERYTHING: Scan = Scan {
    binding: true,
    anchored: true,
};

/// A file parsed and lowered.
pub(crate) struct Lowered {
    pub(crate) id: usize,
    pub(crate) src: SourceFile,
    pub(crate) ir: frontend::FileIr,
}

/// What became of a file given to the parser.
pub(crate) enum Lowering {
    Done(Lowered),
    /// Parsed to find syntax errors only, and without one.
    Parsed,
    /// Not lowered: its text, when it was decoded, and why.
    Failed(Option<SourceFile>, Problem),
}

/// Decodes, parses and (when `lower`) lowers the members `which` of a crate in parallel.
pub(crate) fn lower_files(
    members: &mut [(usize, Input)],
    which: &[usize],
    lower: bool,
) -> Vec<Lowering> {
    let taken: Vec<(usize, Held)> = which
        .iter()
        .map(|&m| (m, std::mem::replace(&mut members[m].1.bytes, Ok(None))))
        .collect();
    let members = &*members;
    let work = |(m, bytes): (usize, Held)| {
        let (id, input) = (members[m].0, &members[m].1);
        let bytes = match bytes {
            Ok(Some(b)) => Ok(b),
            Ok(None) => source::read_regular(&input.path, source::MAX_FILE_BYTES),
            Err(e) => Err(e),
        }
        .map_err(|message| Problem::of_file(&input.path, message))?;
        let text = decode_source(&input.path, bytes)
            .map_err(|m| Problem::unparsable(&input.path, None, m))?;
        let src = SourceFile::new(input.path.clone(), display_path(&input.path), text);
        if let Some(lang) = frontend::Lang::of(&input.path) {
            return Ok(match frontend::clike::lower_file(id, &src, lang) {
                Ok(ir) => Lowering::Done(Lowered { id, src, ir }),
                Err(message) => {
                    let p = Problem::of_file(&input.path, message);
                    Lowering::Failed(Some(src), p)
                }
            });
        }
        let ast = match parse(id, &src, input.placement.edition) {
            Ok(ast) => ast,
            Err(p) => return Ok(Lowering::Failed(Some(src), p)),
        };
        if !lower {
            return Ok(Lowering::Parsed);
        }
        let ir = frontend::rust::lower_file(id, &src, &ast, &input.placement.module);
        drop(ast);
        Ok(Lowering::Done(Lowered { id, src, ir }))
    };
    par_guarded(taken, |(m, _)| members[*m].1.path.clone(), work)
        .into_iter()
        .map(|r| r.unwrap_or_else(|p| Lowering::Failed(None, p)))
        .collect()
}

/// What a crate's lowered functions need from its files not yet lowered, as patterns a
/// file that holds it must contain: `fn f` for a function they call that none of them
/// defines, the type `T` for such a method `T::m` (its `impl` can be anywhere),
/// `struct S` for a struct type of their parameters that none of them defines (for its
/// fields), and, for the callers of their functions that use an OpenCL API, the name of
/// such a function `f`, or the type of such a method (a call of a method is only followed
/// where its receiver's type is named).
fn wanted_names(files: &[&Lowered]) -> BTreeSet<String> {
    let mut defined: HashSet<&str> = HashSet::new();
    let mut methods: HashSet<(&str, &str)> = HashSet::new();
    let mut structs: HashSet<&str> = HashSet::new();
    for l in files {
        for f in &l.ir.functions {
            defined.insert(&f.name);
            methods.extend(analysis::method_key(&f.name));
        }
        structs.extend(l.ir.structs.iter().map(|(n, _)| n.as_str()));
    }
    // Whether a body uses an OpenCL API or calls a function of the crate; the callees.
    fn walk<'b>(body: &'b [ir::Stmt], calls: &mut Vec<&'b str>) -> bool {
        let mut uses_api = false;
        for s in body {
            match s {
                ir::Stmt::Call { callee, .. } => {
                    calls.push(callee);
                    uses_api = true;
                }
                ir::Stmt::Branch(arms) => {
                    for arm in arms {
                        uses_api |= walk(arm, calls);
                    }
                }
                ir::Stmt::Loop(b)
                | ir::Stmt::ForEach { body: b, .. }
                | ir::Stmt::Spawn { body: b, .. }
                | ir::Stmt::Closure { body: b, .. } => uses_api |= walk(b, calls),
                ir::Stmt::Assign { .. }
                | ir::Stmt::Assume { .. }
                | ir::Stmt::Failed { .. }
                | ir::Stmt::Join { .. }
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
    let mut calls = Vec::new();
    let mut callers = Vec::new();
    let mut types = Vec::new();
    for l in files {
        for f in &l.ir.functions {
            if walk(&f.body, &mut calls) {
                callers.push(match analysis::method_key(&f.name) {
                    Some((ty, _)) => ty,
                    None => f.name.rsplit("::").next().unwrap_or(&f.name),
                });
            }
            types.extend(f.vars.iter().filter_map(|v| v.ty.as_deref()));
        }
    }
    let mut out = BTreeSet::new();
    for callee in calls.into_iter().filter(|c| !defined.contains(c)) {
        match analysis::method_key(callee) {
            Some(k) if methods.contains(&k) => {}
            Some((ty, _)) => {
                out.insert(ty.to_string());
            }
            None => {
                let last = callee.rsplit("::").next().unwrap_or(callee);
                out.insert(format!("fn {last}"));
            }
        }
    }
    out.extend(
        callers
            .into_iter()
            .filter(|n| *n != "main")
            .map(str::to_string),
    );
    out.extend(
        types
            .into_iter()
            .filter(|t| !structs.contains(t))
            .map(|t| format!("struct {t}")),
    );
    out
}

/// The findings of one run over files, before they are sorted into a [`Report`].
#[derive(Default)]
struct Outcome {
    files: Vec<SourceFile>,
    parsed: usize,
    skipped: usize,
    binding_library: usize,
    findings: Vec<Finding>,
    problems: Vec<Problem>,
    suppressed: usize,
}

/// What became of the files of a crate given to the parser.
#[derive(Default)]
struct Given {
    lowered: Vec<Lowered>,
    /// Files that could not be parsed, with their text (to show where).
    failed: Vec<(usize, SourceFile)>,
    problems: Vec<Problem>,
    /// Files parsed for syntax errors only, without one.
    syntax_only: usize,
}

impl Given {
    /// Parses the members `which` of a crate and, when `lower`, lowers them.
    fn add(&mut self, members: &mut [(usize, Input)], which: &[usize], lower: bool) {
        for (&m, r) in which.iter().zip(lower_files(members, which, lower)) {
            match r {
                Lowering::Done(l) => self.lowered.push(l),
                Lowering::Parsed => self.syntax_only += 1,
                Lowering::Failed(src, p) => {
                    self.failed.extend(src.map(|s| (members[m].0, s)));
                    self.problems.push(p);
                }
            }
        }
    }
}

/// What checking one crate gave: the files that keep their text, by index.
#[derive(Default)]
struct CrateOutcome {
    kept: Vec<(usize, SourceFile)>,
    parsed: usize,
    skipped: usize,
    binding_library: usize,
    findings: Vec<Finding>,
    problems: Vec<Problem>,
    suppressed: usize,
}

/// The kernels of the `.cl` files of each directory, read once.
pub(crate) type KernelCache =
    std::sync::Mutex<HashMap<(PathBuf, Option<usize>), Arc<analysis::KernelFiles>>>;

/// Checks `inputs`, crate by crate, crates in parallel (see [`check_crate`]). Files keep
/// their text when they have something to show, or when `keep_text`.
fn run(
    inputs: Vec<Input>,
    config: &config::Config,
    keep_text: bool,
    progress: Option<&Progress>,
) -> Outcome {
    let cwd = std::env::current_dir().ok();
    let mut out = Outcome {
        files: inputs
            .iter()
            .map(|i| {
                let display = display_path_from(cwd.as_deref(), &i.path);
                SourceFile::new(i.path.clone(), display, String::new())
            })
            .collect(),
        ..Outcome::default()
    };
    let mut crates: BTreeMap<String, Vec<(usize, Input)>> = BTreeMap::new();
    for (id, input) in inputs.into_iter().enumerate() {
        if let Err(message) = &input.bytes {
            out.problems
                .push(Problem::of_file(&input.path, message.clone()));
        }
        crates
            .entry(input.placement.krate.clone())
            .or_default()
            .push((id, input));
    }
    let cache = KernelCache::default();
    let results: Vec<CrateOutcome> = crates
        .into_values()
        .collect::<Vec<_>>()
        .into_par_iter()
        .map(|members| {
            let n = members.len();
            let outcome = check_crate(members, config, keep_text, &cache);
            if let Some(p) = progress {
                p.done.fetch_add(n, Ordering::Relaxed);
            }
            outcome
        })
        .collect();
    for r in results {
        for (id, src) in r.kept {
            out.files[id] = src;
        }
        out.parsed += r.parsed;
        out.skipped += r.skipped;
        out.binding_library += r.binding_library;
        out.findings.extend(r.findings);
        out.problems.extend(r.problems);
        out.suppressed += r.suppressed;
    }
    out
}

/// Checks the files of one crate. A crate without an OpenCL binding (in its manifest or
/// named by one of its files) is skipped. Otherwise: lowers the files the pre-filter
/// selected, then the files of the crate that define or call what those need (until no
/// file is added), and parses the others for syntax errors only; gives the crate's
/// functions the fields of its structs, analyzes every function with the index of the
/// crate, and applies each file's suppression comments and the configured levels. The
/// modules of an OpenCL binding's library are counted, not read.
fn check_crate(
    members: Vec<(usize, Input)>,
    config: &config::Config,
    keep_text: bool,
    cache: &KernelCache,
) -> CrateOutcome {
    let mut out = CrateOutcome::default();
    if !members
        .iter()
        .any(|(_, i)| i.placement.binding || i.scan.binding)
    {
        out.skipped = members.iter().filter(|(_, i)| i.bytes.is_ok()).count();
        return out;
    }
    let (library, mut members): (Vec<_>, Vec<_>) = members
        .into_iter()
        .partition(|(_, i)| i.placement.binding_library);
    out.binding_library = library.iter().filter(|(_, i)| i.bytes.is_ok()).count();
    let mut done = vec![false; members.len()];
    let mut given = Given::default();
    let mut next: Vec<usize> = (0..members.len())
        .filter(|&m| members[m].1.scan.anchored && members[m].1.bytes.is_ok())
        .collect();
    while !next.is_empty() {
        for &m in &next {
            done[m] = true;
        }
        given.add(&mut members, &next, true);
        let rest: Vec<usize> = (0..members.len())
            .filter(|&m| !done[m] && members[m].1.bytes.is_ok())
            .collect();
        if rest.is_empty() || given.lowered.is_empty() {
            break;
        }
        let want = Prefilter::new(wanted_names(&given.lowered.iter().collect::<Vec<_>>()));
        let read: Vec<(usize, Result<Vec<u8>, String>)> = rest
            .into_par_iter()
            .map(|m| {
                let path = &members[m].1.path;
                (m, source::read_regular(path, source::MAX_FILE_BYTES))
            })
            .collect();
        next = Vec::new();
        for (m, bytes) in read {
            match bytes {
                Ok(b) if want.matches(&b) => {
                    members[m].1.bytes = Ok(Some(b));
                    next.push(m);
                }
                Ok(_) => {}
                Err(message) => {
                    // It could be read before: it changed during the run.
                    given
                        .problems
                        .push(Problem::of_file(&members[m].1.path, message));
                    done[m] = true;
                }
            }
        }
    }
    // What no selected file needs is only parsed, for its syntax errors.
    let rest: Vec<usize> = (0..members.len())
        .filter(|&m| !done[m] && members[m].1.bytes.is_ok())
        .collect();
    given.add(&mut members, &rest, false);
    let Given {
        mut lowered,
        failed,
        problems,
        syntax_only,
    } = given;
    out.problems = problems;
    // Decoded and given to the parser, whatever it said.
    out.parsed = lowered.len() + failed.len() + syntax_only;
    lowered.sort_by_key(|l| l.id);
    let structs: Vec<(String, frontend::Fields)> = lowered
        .iter()
        .flat_map(|l| l.ir.structs.iter().cloned())
        .collect();
    frontend::link(
        lowered.iter_mut().flat_map(|l| &mut l.ir.functions),
        &structs,
    );
    let index = analysis::Index::new(
        lowered.iter().flat_map(|l| &l.ir.functions),
        lowered
            .iter()
            .flat_map(|l| l.ir.sources.iter().map(String::as_str)),
    );
    let input_of: HashMap<usize, &Input> = members.iter().map(|(id, i)| (*id, i)).collect();
    let analyzed = par_guarded(
        lowered.iter().collect(),
        |l: &&Lowered| l.src.path.clone(),
        |l| {
            let beside = kernel_files(cache, kernel_dir(input_of[&l.id]));
            let mut kernels = analysis::Kernels::new(beside);
            let spelling = rules::Spelling::of(&l.src.path);
            // In C and C++, a function of the file itself wins over one of the same name
            // elsewhere in the program (a `static` helper, or another program's `main`).
            let own_index;
            let index = match spelling {
                rules::Spelling::Rust => &index,
                _ => {
                    own_index = analysis::Index::within(
                        &l.ir.functions,
                        l.ir.sources.iter().map(String::as_str),
                        &index,
                    );
                    &own_index
                }
            };
            Ok(l.ir
                .functions
                .iter()
                .flat_map(|f| rules::run(&analysis::analyze(f, index, &mut kernels), spelling))
                .collect::<Vec<Finding>>())
        },
    );
    let mut found: Vec<Finding> = Vec::new();
    for r in analyzed {
        match r {
            Ok(findings) => found.extend(findings),
            Err(p) => out.problems.push(p),
        }
    }
    let mut by_file: HashMap<usize, Vec<Finding>> = HashMap::new();
    for f in without_moved_twins(found) {
        by_file.entry(f.anchor.file).or_default().push(f);
    }
    for l in &lowered {
        let mut findings = by_file.remove(&l.id).unwrap_or_default();
        dedup(&mut findings);
        let applied = suppress::apply(l.id, &l.src, with_levels(findings, config), &|r| {
            config.level(r).is_some()
        });
        out.suppressed += applied.suppressed;
        out.findings.extend(applied.kept);
        out.findings.extend(with_levels(applied.reported, config));
    }
    // A finding can point into several files of the crate (a helper's command, its
    // caller's).
    let mut shown: HashSet<usize> = HashSet::new();
    for f in &out.findings {
        let labels = std::iter::once(&f.primary).chain(&f.secondary);
        shown.extend(labels.map(|l| l.span.file).chain([f.anchor.file]));
    }
    for l in lowered {
        if keep_text || shown.contains(&l.id) {
            out.kept.push((l.id, l.src));
        }
    }
    // A file that could not be parsed keeps its text, to show where.
    out.kept.extend(failed);
    out
}

/// Where the OpenCL C files of a file's kernels may be: its package's directory (all the
/// way down), or, outside a package, its own directory.
pub(crate) fn kernel_dir(input: &Input) -> (PathBuf, Option<usize>) {
    match &input.placement.root {
        Some(root) => (root.clone(), None),
        None => {
            let dir = input.path.parent().unwrap_or(Path::new("."));
            (dir.to_path_buf(), Some(1))
        }
    }
}

/// The kernels of the `.cl` files in `dir`, read once per run.
pub(crate) fn kernel_files(
    cache: &KernelCache,
    dir: (PathBuf, Option<usize>),
) -> Arc<analysis::KernelFiles> {
    if let Some(k) = cache.lock().ok().and_then(|c| c.get(&dir).cloned()) {
        return k;
    }
    let texts: Vec<String> = discover::kernel_files(&dir.0, dir.1)
        .iter()
        .filter_map(|p| source::read_regular(p, source::MAX_FILE_BYTES).ok())
        .map(source::c_text)
        .collect();
    let files = Arc::new(analysis::KernelFiles::new(texts.iter().map(String::as_str)));
    match cache.lock() {
        Ok(mut c) => c.entry(dir).or_insert(files).clone(),
        Err(_) => files,
    }
}

/// Sets each finding's level from the configuration and drops those of rules it turns off.
pub(crate) fn with_levels(findings: Vec<Finding>, config: &config::Config) -> Vec<Finding> {
    findings
        .into_iter()
        .filter_map(|mut f| {
            f.level = config.level(rules::find(f.code)?)?;
            Some(f)
        })
        .collect()
}

/// The most worker threads: more than the cores would not go faster, and each holds a
/// file's syntax tree (see SECURITY.md).
fn max_jobs() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// A pool of `jobs` threads (one per core for `None`, at most one per core) with the stack
/// the parser needs.
pub(crate) fn pool(jobs: Option<usize>) -> Option<rayon::ThreadPool> {
    let mut builder = rayon::ThreadPoolBuilder::new().stack_size(STACK_SIZE);
    if let Some(j) = jobs {
        builder = builder.num_threads(j.clamp(1, max_jobs()));
    }
    builder.build().ok()
}

/// Runs `work` on a [`pool`] of `jobs` threads.
fn in_pool<R: Send>(jobs: Option<usize>, work: impl FnOnce() -> R + Send) -> R {
    match pool(jobs) {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// Checks every `.rs` file under `paths`. Calls and struct types are followed across the
/// files of a crate that are in the run.
pub fn check(paths: &[PathBuf], settings: &Settings) -> Report {
    let mut found = discover::discover_with(paths, &settings.walk);
    let (files, canonical): (Vec<PathBuf>, Vec<PathBuf>) = found
        .files
        .into_iter()
        .zip(found.canonical)
        .filter(|(p, _)| !settings.config.excludes(p))
        .unzip();
    (found.files, found.canonical) = (files, canonical);
    if let Some(p) = &settings.progress {
        p.total.store(found.files.len(), Ordering::Relaxed);
    }
    let mut problems: Vec<Problem> = found
        .problems
        .iter()
        .map(|p| Problem::of_file(&p.path, p.message.clone()))
        .collect();

    let mut locator = package::Locator::default();
    let mut programs = frontend::Programs::default();
    let placements: Vec<package::Placement> = found
        .files
        .iter()
        .zip(&found.canonical)
        .map(|(p, abs)| {
            let mut placement = locator.place_canonical(abs);
            placement.binding_library &= !settings.binding_sources;
            // A C or C++ file outside a Cargo package's crates belongs to its build's program.
            if placement.root.is_none() && frontend::Lang::of(p).is_some() {
                placement.krate = format!("c:{}", programs.of(abs).display());
            }
            placement
        })
        .collect();
    let out = in_pool(settings.jobs, || {
        // With the pre-filter, each file is read and only those it selects are held;
        // without it, each file is read when it is lowered.
        // One buffer per worker holds each file while it is searched.
        let inputs: Vec<Input> = found
            .files
            .par_iter()
            .zip(placements)
            .map_init(Vec::new, |buf, (p, placement)| {
                let (bytes, scan) = if placement.binding_library {
                    (Ok(None), Scan::default())
                } else if settings.prefilter {
                    match source::read_regular_into(p, source::MAX_FILE_BYTES, buf) {
                        Ok(()) => match Language::of(p).scan(buf, placement.binding) {
                            s if s.anchored => (Ok(Some(buf.clone())), s),
                            s => (Ok(None), s),
                        },
                        Err(e) => (Err(e), Scan::default()),
                    }
                } else {
                    (Ok(None), EVERYTHING)
                };
                Input {
                    path: p.clone(),
                    bytes,
                    scan,
                    placement,
                }
            })
            .collect();
        run(
            inputs,
            &settings.config,
            false,
            settings.progress.as_deref(),
        )
    });
    problems.extend(out.problems);
    let mut report = Report {
        files: out.files,
        parsed: out.parsed,
        skipped: out.skipped,
        binding_library: out.binding_library,
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

/// Checks `text` as the contents of the file `path`, without reading the disk. The report
/// has one file, index 0; calls into other files of its crate are not followed (the
/// language server follows them: [`crate_index::CrateIndex`]). `jobs` does not apply: one file is checked on one thread, with
/// the same stack size as [`check`]'s workers.
pub fn check_source(path: &Path, text: &str, settings: &Settings) -> Report {
    let input = Input {
        path: path.to_path_buf(),
        bytes: Ok(Some(text.as_bytes().to_vec())),
        scan: EVERYTHING,
        placement: package::Locator::default().place(path),
    };
    let out = in_pool(Some(1), || run(vec![input], &settings.config, true, None));
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
/// Drops a finding placed on a helper's call where the helper's own analysis reports the
/// same rule on the command itself: the helper is wrong for every caller, and one finding,
/// in it, says so (an upload loop over the helper's own queues, which a caller's analysis
/// sees repeat what the caller created the buffer from).
pub(crate) fn without_moved_twins(findings: Vec<Finding>) -> Vec<Finding> {
    let anchors: HashSet<(&str, Span)> = (findings.iter())
        .filter(|f| f.moved_from.is_none())
        .map(|f| (f.code, f.anchor))
        .collect();
    let twins: Vec<bool> = (findings.iter())
        .map(|f| f.moved_from.is_some_and(|m| anchors.contains(&(f.code, m))))
        .collect();
    (findings.into_iter().zip(twins))
        .filter_map(|(f, twin)| (!twin).then_some(f))
        .collect()
}

pub(crate) fn dedup(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (a.primary.span, a.code, &a.message).cmp(&(b.primary.span, b.code, &b.message))
    });
    findings.dedup_by(|a, b| {
        let spans = |f: &Finding| f.secondary.iter().map(|l| l.span).collect::<Vec<_>>();
        // One leak per event: where a helper's own analysis sees it leak at an early return
        // and a caller's sees it never released, the one sorted first ("never") stays.
        let one_leak = a.code == "CLM006";
        (a.code, a.anchor, a.primary.span) == (b.code, b.anchor, b.primary.span)
            && (one_leak || spans(a) == spans(b))
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
            let bytes = source::read_regular(&path, source::MAX_FILE_BYTES)?;
            let text = decode_source(&path, bytes)?;
            let src = SourceFile::new(path.clone(), display_path(&path), text);
            let placement = package::Locator::default().place(&path);
            let ir = match frontend::Lang::of(&path) {
                Some(lang) => frontend::clike::lower_file(0, &src, lang)?,
                None => {
                    let ast = parse(0, &src, placement.edition).map_err(|p| p.message)?;
                    frontend::rust::lower_file(0, &src, &ast, &placement.module)
                }
            };
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

/// What the analysis did on the crate of `path` (`debug trace`): each function, each
/// command with the queue and buffers it resolved to and what it waits on, each time facts
/// were forgotten; then the findings located in `path`.
pub fn debug_trace(path: &Path) -> Result<String, String> {
    if !path.is_file() {
        return Err("not a file".into());
    }
    analysis::trace::enable();
    let report = check(
        &[path.to_path_buf()],
        &Settings {
            prefilter: false,
            ..Settings::default()
        },
    );
    let mut out = analysis::trace::take().join("\n");
    out.push('\n');
    out.push_str(&report::short::render(&report));
    Ok(out)
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
            files.to_vec(),
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
