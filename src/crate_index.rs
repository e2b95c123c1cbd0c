//! Checking a file as part of its crate, for the pre-commit hook and the language server:
//! both are given files, and both must see what a check of the whole crate sees, where a
//! call into a helper that another file of the crate defines is followed.
//!
//! [`crate_files`] lists the files of a file's crate, and [`check_crates_of`] checks whole
//! crates and reports what is located in the files it was given (the hook). [`CrateIndex`]
//! keeps a crate's files lowered for the language server: read from the disk once, with the
//! editor's open buffers in place of their files, so that checking a file again after an edit
//! lowers that file only, and analyzes only the functions whose findings can be located in
//! the file checked (its own, and those that call into it, directly or not).

use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::analysis::{self, Index, KernelFiles, Kernels};
use crate::config::Config;
use crate::frontend::FileIr;
use crate::ir::{Function, Stmt};
use crate::package::{Locator, Placement};
use crate::rules::{self, Finding};
use crate::source::SourceFile;
use crate::{
    discover, frontend, suppress, Input, KernelCache, Lowering, Problem, Report, Settings,
    EVERYTHING,
};

/// The files of `file`'s crate (see [`crate::package`]), `file` among them: those of the
/// crate's directories that belong to the same crate. A file in none of a package's crates
/// is a crate of its own.
pub fn crate_files(file: &Path, locator: &mut Locator) -> Vec<PathBuf> {
    let placement = locator.place(file);
    let Some(name) = placement
        .root
        .as_ref()
        .and(placement.krate.rsplit_once('#'))
        .map(|(_, n)| n)
    else {
        return vec![file.to_path_buf()];
    };
    let root = placement.root.as_deref().unwrap_or(Path::new("."));
    let dir = match name.split_once('/') {
        Some(("bin", _)) => root.join("src").join("bin"),
        Some((kind, _)) => root.join(kind),
        None if name == "build" => return vec![file.to_path_buf()],
        None => root.join("src"),
    };
    // Shown as the command line's paths are: relative to the working directory.
    let cwd = std::env::current_dir().ok().map(|c| canonical(&c));
    let mut files: Vec<PathBuf> = discover::discover(&[dir])
        .files
        .into_iter()
        .filter(|f| locator.place(f).krate == placement.krate)
        .map(
            |f| match cwd.as_deref().and_then(|c| f.strip_prefix(c).ok()) {
                Some(rel) => rel.to_path_buf(),
                None => f,
            },
        )
        .collect();
    let own = canonical(file);
    if !files.iter().any(|f| canonical(f) == own) {
        files.push(file.to_path_buf());
    }
    files
}

fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Checks the whole crates the files under `paths` belong to, and reports what is located
/// in those files only: the findings whose primary label is in one of them, and their
/// problems. The report's files are those of the crates (all of them were checked).
pub fn check_crates_of(paths: &[PathBuf], settings: &Settings) -> Report {
    let found = discover::discover(paths);
    let mut locator = Locator::default();
    let mut all: BTreeSet<PathBuf> = BTreeSet::new();
    for f in &found.files {
        all.extend(crate_files(f, &mut locator));
    }
    let given: HashSet<PathBuf> = found.files.iter().map(|f| canonical(f)).collect();
    let all: Vec<PathBuf> = all.into_iter().collect();
    let mut report = crate::check(&all, settings);
    let located: Vec<bool> = report
        .files
        .iter()
        .map(|s| given.contains(&canonical(&s.path)))
        .collect();
    report
        .findings
        .retain(|f| located.get(f.primary.span.file).copied().unwrap_or(false));
    report
        .problems
        .retain(|p| given.contains(&canonical(&p.path)));
    report.missing = found.missing;
    report
}

/// One file of a [`CrateIndex`].
struct Member {
    path: PathBuf,
    /// Its canonical path, to find it by.
    canonical: PathBuf,
    placement: Placement,
    /// The editor's text, when the file is open in the editor; else the disk's is used.
    open: Option<String>,
    /// The text checked, when it could be read.
    src: Option<SourceFile>,
    /// What it lowered to, before the crate's struct fields are given to its functions.
    raw: FileIr,
    /// Its functions with the struct fields of the crate, and the calls of each.
    linked: Vec<(Function, Vec<String>)>,
    /// Why it was not lowered.
    problem: Option<Problem>,
}

/// What [`CrateIndex::check`] found in one file.
#[derive(Debug, Default)]
pub struct FileCheck {
    /// Sorted, suppressions and configured levels applied.
    pub findings: Vec<Finding>,
    pub problems: Vec<Problem>,
}

/// The lowered files of one crate, kept between checks.
pub struct CrateIndex {
    /// The crate, as [`Placement::krate`] names it.
    pub krate: String,
    config: Config,
    members: Vec<Member>,
    kernels: Arc<KernelFiles>,
}

impl CrateIndex {
    /// Reads and lowers the crate of `file` (in parallel, on the current pool), taking the
    /// text of each file in `open` (editor buffers) instead of the disk's.
    pub fn load(file: &Path, open: &[(PathBuf, String)], config: &Config) -> CrateIndex {
        let mut locator = Locator::default();
        let krate = locator.place(file).krate;
        let open: HashMap<PathBuf, &String> = open.iter().map(|(p, t)| (canonical(p), t)).collect();
        let mut members: Vec<Member> = crate_files(file, &mut locator)
            .into_iter()
            .filter(|p| !config.excludes(p) || canonical(p) == canonical(file))
            .map(|path| {
                let canonical = canonical(&path);
                Member {
                    placement: locator.place(&path),
                    open: open.get(&canonical).map(|t| t.to_string()),
                    path,
                    canonical,
                    src: None,
                    raw: FileIr::default(),
                    linked: Vec::new(),
                    problem: None,
                }
            })
            .collect();
        let kernels = members
            .iter()
            .find(|m| m.canonical == canonical(file))
            .map(|m| {
                let dir = crate::kernel_dir(&input(m));
                crate::kernel_files(&KernelCache::default(), dir)
            })
            .unwrap_or_default();
        let which: Vec<usize> = (0..members.len()).collect();
        relower(&mut members, &which);
        let mut index = CrateIndex {
            krate,
            config: config.clone(),
            members,
            kernels,
        };
        index.link(None);
        index
    }

    /// The index of the file `path` ([`crate::ir::Span::file`]), when it is in the crate.
    pub fn id(&self, path: &Path) -> Option<usize> {
        let c = canonical(path);
        self.members.iter().position(|m| m.canonical == c)
    }

    /// Whether `path` is a file of the crate.
    pub fn contains(&self, path: &Path) -> bool {
        self.id(path).is_some()
    }

    /// The package's directory; `None` for a file that is a crate of its own.
    pub fn root(&self) -> Option<&Path> {
        self.members
            .first()
            .and_then(|m| m.placement.root.as_deref())
    }

    /// The text checked of the file `id` ([`crate::ir::Span::file`]).
    pub fn source(&self, id: usize) -> Option<&SourceFile> {
        self.members.get(id).and_then(|m| m.src.as_ref())
    }

    /// Takes `text` (an editor's buffer) as the file's contents, or, for `None`, the disk's
    /// again, and lowers it again. `false` when the file is not in the crate.
    pub fn set_text(&mut self, path: &Path, text: Option<String>) -> bool {
        let Some(m) = self.id(path) else {
            return false;
        };
        self.members[m].open = text;
        let structs = std::mem::take(&mut self.members[m].raw.structs);
        relower(&mut self.members, &[m]);
        // A struct's fields changed: every function may have taken them.
        let changed = structs != self.members[m].raw.structs;
        self.link((!changed).then_some(m));
        true
    }

    /// Gives the crate's struct fields to the functions of member `only` (of every member
    /// when `None`), from their lowered form.
    fn link(&mut self, only: Option<usize>) {
        let structs: Vec<(String, frontend::Fields)> = self
            .members
            .iter()
            .flat_map(|m| m.raw.structs.iter().cloned())
            .collect();
        for (i, m) in self.members.iter_mut().enumerate() {
            if only.is_some_and(|o| o != i) {
                continue;
            }
            let mut functions = m.raw.functions.clone();
            frontend::link(functions.iter_mut(), &structs);
            m.linked = functions
                .into_iter()
                .map(|f| {
                    let mut calls = Vec::new();
                    calls_in(&f.body, &mut calls);
                    (f, calls)
                })
                .collect();
        }
    }

    /// The findings located in the file `path` and its problems, as a check of the whole
    /// crate gives them: its functions and every function of the crate that calls into
    /// them, directly or not, are analyzed with the index of the crate's functions.
    pub fn check(&self, path: &Path) -> FileCheck {
        let mut out = FileCheck::default();
        let Some(id) = self.id(path) else {
            return out;
        };
        let member = &self.members[id];
        out.problems.extend(member.problem.clone());
        let Some(src) = &member.src else {
            return out;
        };
        let all: Vec<(usize, &Function, &[String])> = self
            .members
            .iter()
            .enumerate()
            .flat_map(|(i, m)| m.linked.iter().map(move |(f, c)| (i, f, c.as_slice())))
            .collect();
        let sources = (self.members.iter()).flat_map(|m| m.raw.sources.iter().map(String::as_str));
        let index = Index::new(all.iter().map(|(_, f, _)| *f), sources);
        let at: HashMap<*const Function, usize> = all
            .iter()
            .enumerate()
            .map(|(n, (_, f, _))| (*f as *const Function, n))
            .collect();
        // Who calls whom, reversed.
        let mut callers: Vec<Vec<usize>> = vec![Vec::new(); all.len()];
        for (n, (_, _, calls)) in all.iter().enumerate() {
            for c in calls.iter() {
                if let Some(callee) = index.get(c) {
                    if let Some(&k) = at.get(&(callee.function as *const Function)) {
                        callers[k].push(n);
                    }
                }
            }
        }
        let mut wanted = vec![false; all.len()];
        let mut stack: Vec<usize> = (0..all.len()).filter(|&n| all[n].0 == id).collect();
        while let Some(n) = stack.pop() {
            if !std::mem::replace(&mut wanted[n], true) {
                stack.extend(callers[n].iter().copied().filter(|&k| !wanted[k]));
            }
        }
        let analyzed = crate::par_guarded(
            (0..all.len()).filter(|&n| wanted[n]).collect(),
            |&n| self.members[all[n].0].path.clone(),
            |n| {
                let mut kernels = Kernels::new(self.kernels.clone());
                let spelling = rules::Spelling::of(&self.members[all[n].0].path);
                Ok(rules::run(
                    &analysis::analyze(all[n].1, &index, &mut kernels),
                    spelling,
                ))
            },
        );
        let mut found = Vec::new();
        for r in analyzed {
            match r {
                Ok(f) => found.extend(f),
                Err(p) => out.problems.push(p),
            }
        }
        let mut findings: Vec<Finding> = crate::without_moved_twins(found)
            .into_iter()
            .filter(|f| f.anchor.file == id)
            .collect();
        crate::dedup(&mut findings);
        let config = &self.config;
        let applied = suppress::apply(id, src, crate::with_levels(findings, config), &|r| {
            config.level(r).is_some()
        });
        out.findings = applied.kept;
        out.findings
            .extend(crate::with_levels(applied.reported, config));
        crate::dedup(&mut out.findings);
        out
    }
}

/// The input of a member: the editor's text when open, else the file on the disk.
fn input(m: &Member) -> Input {
    Input {
        path: m.path.clone(),
        bytes: Ok(m.open.as_ref().map(|t| t.as_bytes().to_vec())),
        scan: EVERYTHING,
        placement: m.placement.clone(),
    }
}

/// Reads, parses and lowers the members `which`, in parallel.
fn relower(members: &mut [Member], which: &[usize]) {
    let mut inputs: Vec<(usize, Input)> = which.iter().map(|&m| (m, input(&members[m]))).collect();
    let all: Vec<usize> = (0..inputs.len()).collect();
    for (&m, r) in which
        .iter()
        .zip(crate::lower_files(&mut inputs, &all, true))
    {
        let member = &mut members[m];
        (member.src, member.raw, member.problem) = match r {
            Lowering::Done(l) => (Some(l.src), l.ir, None),
            Lowering::Parsed => (None, FileIr::default(), None),
            Lowering::Failed(src, p) => (src, FileIr::default(), Some(p)),
        };
    }
}

/// The names of the functions `body` calls.
fn calls_in(body: &[Stmt], out: &mut Vec<String>) {
    for s in body {
        match s {
            Stmt::Call { callee, .. } => out.push(callee.clone()),
            Stmt::Branch(arms) => arms.iter().for_each(|a| calls_in(a, out)),
            Stmt::Loop(b)
            | Stmt::ForEach { body: b, .. }
            | Stmt::Spawn { body: b, .. }
            | Stmt::Closure { body: b, .. } => calls_in(b, out),
            _ => {}
        }
    }
}
