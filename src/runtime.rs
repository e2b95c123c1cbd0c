//! `cargo clmigrate-lint run -- COMMAND ARGS..`: runs a program with the OpenCL layer
//! (`layer/`, `libclmigrate_layer.so`) and turns what the layer saw into a [`Report`] of the
//! same rules, located at the program's source lines, so that it prints in every format of
//! the static check. A static finding of the same rule on the same line marks a runtime
//! finding "confirmed at run time".
//!
//! The layer is loaded by the ICD loader through `OPENCL_LAYERS` (the `cl_loader_layers`
//! extension). Not every loader has it: NVIDIA's CUDA toolkit ships a `libOpenCL.so.1`
//! without it, often first in the library path. The runner then preloads a loader that has
//! it (ocl-icd's, or the Khronos loader) and says so.

use std::collections::HashMap;
use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};
use std::process::{Command, ExitStatus};

use serde::Deserialize;

use crate::ir::Span;
use crate::rules::{self, Finding, Label, Level};
use crate::source::SourceFile;
use crate::{check, display_path, Report, Settings};

/// The layer's file name.
pub const LAYER_FILE: &str = "libclmigrate_layer.so";
/// The loader's file name (its soname).
const LOADER_FILE: &str = "libOpenCL.so.1";
/// Where distributions put the ICD loader.
const LOADER_DIRS: &[&str] = &[
    "/lib/x86_64-linux-gnu",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
    "/lib/aarch64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
];

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct RunOptions {
    pub command: Vec<OsString>,
    /// The layer; found next to this executable (or in `CLMIGRATE_LAYER`) when `None`.
    pub layer: Option<PathBuf>,
    /// The ICD loader to preload; the first one with layer support when `None`.
    pub loader: Option<PathBuf>,
    /// Send the program's standard output to standard error, so that a machine-readable
    /// report is alone on standard output.
    pub program_stdout_to_stderr: bool,
}

/// What a run gave.
#[derive(Debug)]
pub struct RunOutcome {
    pub report: Report,
    /// How the program ended.
    pub status: ExitStatus,
    /// What the user should know about how it ran (which loader, whether the layer started).
    pub notes: Vec<String>,
}

/// A frame of the layer's call stacks.
#[derive(Debug, Clone, Deserialize)]
struct Frame {
    function: String,
    file: String,
    line: usize,
}

#[derive(Debug, Deserialize)]
struct Related {
    label: String,
    stack: Vec<Frame>,
}

/// One line of the layer's output: a finding, or the layer saying it started or ended.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Line {
    Finding {
        code: String,
        message: String,
        label: String,
        help: String,
        stack: Vec<Frame>,
        related: Vec<Related>,
    },
    Layer {
        layer: String,
    },
}

/// Runs the command under the layer and reports what the layer found.
pub fn run(options: &RunOptions) -> Result<RunOutcome, String> {
    let Some((program, args)) = options.command.split_first() else {
        return Err("no command to run".into());
    };
    let layer = find_layer(options.layer.as_deref())?;
    let mut notes = Vec::new();
    let mut command = Command::new(program);
    command.args(args);
    if options.program_stdout_to_stderr {
        command.stdout(std::io::stderr());
    }
    if let Some(preload) = choose_loader(options.loader.as_deref(), &mut notes)? {
        let mut value = OsString::from(&preload);
        if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|v| !v.is_empty()) {
            value.push(":");
            value.push(old);
        }
        command.env("LD_PRELOAD", value);
    }
    let mut layers = OsString::from(&layer);
    if let Some(old) = std::env::var_os("OPENCL_LAYERS").filter(|v| !v.is_empty()) {
        layers.push(":");
        layers.push(old);
    }
    let output = std::env::temp_dir().join(format!(
        "clmigrate-run-{}-{}.jsonl",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos())
    ));
    command
        .env("OPENCL_LAYERS", layers)
        .env("CLMIGRATE_LAYER_OUTPUT", &output);
    let status = command
        .status()
        .map_err(|e| format!("could not run `{}`: {e}", program.to_string_lossy()))?;
    let text = std::fs::read_to_string(&output).unwrap_or_default();
    let _ = std::fs::remove_file(&output);
    let (report, started) = read_output(&text);
    if !started {
        notes.push(
            "the layer did not start: the program made no OpenCL call, or its OpenCL loader \
             does not read `OPENCL_LAYERS` (pass `--loader` a `libOpenCL.so.1` that does, such \
             as ocl-icd's)"
                .into(),
        );
    }
    Ok(RunOutcome {
        report,
        status,
        notes,
    })
}

/// The layer: the option, `CLMIGRATE_LAYER`, or next to this executable (in a cargo target
/// directory, also one level up, from `deps/`).
fn find_layer(given: Option<&Path>) -> Result<PathBuf, String> {
    if let Some(p) = given {
        return p
            .canonicalize()
            .map_err(|e| format!("the layer {}: {e}", p.display()));
    }
    if let Some(p) = std::env::var_os("CLMIGRATE_LAYER") {
        return Path::new(&p)
            .canonicalize()
            .map_err(|e| format!("CLMIGRATE_LAYER={}: {e}", Path::new(&p).display()));
    }
    let exe = std::env::current_exe().map_err(|e| format!("this executable's path: {e}"))?;
    let dir = exe.parent().unwrap_or(Path::new("."));
    let candidates = [
        dir.join(LAYER_FILE),
        dir.join("../lib").join(LAYER_FILE),
        dir.join("..").join(LAYER_FILE),
    ];
    candidates
        .iter()
        .find_map(|c| c.canonicalize().ok())
        .ok_or_else(|| {
            format!(
                "the OpenCL layer `{LAYER_FILE}` is not next to {}: build it with `cargo build \
                 --release -p clmigrate-layer` and copy `target/release/{LAYER_FILE}` there, or \
                 name it with `--layer` or `CLMIGRATE_LAYER`",
                exe.display()
            )
        })
}

/// Whether a loader reads `OPENCL_LAYERS` (ocl-icd 2.3 and the Khronos loader 2021.04 and
/// later do; the CUDA toolkit's does not).
fn has_layer_support(loader: &Path) -> bool {
    std::fs::read(loader).is_ok_and(|bytes| {
        bytes
            .windows(b"OPENCL_LAYERS".len())
            .any(|w| w == b"OPENCL_LAYERS")
    })
}

/// The loaders the dynamic linker would consider, in its order: `LD_LIBRARY_PATH`, then its
/// cache, then the usual directories.
fn loader_candidates() -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = Vec::new();
    if let Some(path) = std::env::var_os("LD_LIBRARY_PATH") {
        out.extend(std::env::split_paths(&path).map(|d| d.join(LOADER_FILE)));
    }
    if let Ok(cache) = Command::new("ldconfig").arg("-p").output() {
        for line in String::from_utf8_lossy(&cache.stdout).lines() {
            let line = line.trim();
            if line.starts_with(LOADER_FILE) {
                if let Some((_, path)) = line.rsplit_once(" => ") {
                    out.push(PathBuf::from(path));
                }
            }
        }
    }
    out.extend(LOADER_DIRS.iter().map(|d| Path::new(d).join(LOADER_FILE)));
    let mut seen = Vec::new();
    out.retain(|p| {
        let keep = p.is_file() && !seen.contains(p);
        seen.push(p.clone());
        keep
    });
    out
}

/// The loader to preload, if the one the program would get lacks layer support.
fn choose_loader(given: Option<&Path>, notes: &mut Vec<String>) -> Result<Option<PathBuf>, String> {
    if let Some(p) = given {
        if !has_layer_support(p) {
            return Err(format!(
                "the OpenCL loader {} does not support layers (it does not read `OPENCL_LAYERS`)",
                p.display()
            ));
        }
        return Ok(Some(p.to_path_buf()));
    }
    let candidates = loader_candidates();
    let Some(first) = candidates.first() else {
        return Ok(None);
    };
    if has_layer_support(first) {
        return Ok(None);
    }
    match candidates.iter().find(|c| has_layer_support(c)) {
        Some(good) => {
            notes.push(format!(
                "the OpenCL loader {} comes first in the library path and does not support \
                 layers; the program runs with {} instead (LD_PRELOAD)",
                first.display(),
                good.display()
            ));
            Ok(Some(good.clone()))
        }
        None => Err(format!(
            "the OpenCL loader {} does not support layers (it does not read `OPENCL_LAYERS`) \
             and no other was found: install ocl-icd (`apt-get install ocl-icd-libopencl1`) \
             and pass its `libOpenCL.so.1` with `--loader`",
            first.display()
        )),
    }
}

/// Turns the layer's lines into a report; also says whether the layer started.
fn read_output(text: &str) -> (Report, bool) {
    let mut started = false;
    let mut raw = Vec::new();
    for line in text.lines() {
        match serde_json::from_str::<Line>(line) {
            Ok(Line::Layer { layer }) => started |= layer == "init",
            Ok(f @ Line::Finding { .. }) => raw.push(f),
            Err(_) => {}
        }
    }
    let mut files = Files::default();
    let mut findings: Vec<Finding> = Vec::new();
    for line in raw {
        let Line::Finding {
            code,
            message,
            label,
            help,
            stack,
            related,
        } = line
        else {
            continue;
        };
        let Some(rule) = rules::find(&code) else {
            continue;
        };
        let primary = files.locate(&stack);
        let secondary: Vec<Label> = related
            .iter()
            .map(|r| Label {
                span: files.locate(&r.stack),
                message: r.label.clone(),
            })
            .filter(|l| l.span != primary)
            .collect();
        let finding = Finding {
            code: rule.code,
            name: rule.name,
            level: rule.level,
            message,
            anchor: primary,
            primary: Label {
                span: primary,
                message: label,
            },
            secondary,
            help: Some(help),
            note: Some(format!(
                "seen at run time; call stack: {}",
                call_stack(&stack)
            )),
            fix: None,
            moved_from: None,
        };
        let duplicate = findings.iter().any(|f| {
            f.code == finding.code
                && f.primary.span == finding.primary.span
                && f.secondary
                    .iter()
                    .map(|l| l.span)
                    .eq(finding.secondary.iter().map(|l| l.span))
        });
        if !duplicate {
            findings.push(finding);
        }
    }
    let mut report = files.into_report();
    confirm_statically(&mut report, &mut findings);
    findings.sort_by_key(|f| (f.primary.span.file, f.primary.span.start, f.code));
    report.findings = findings;
    (report, started)
}

/// `fixtures/a.rs:12 (run) ← src/main.rs:40 (main)`: the frames in the program's own source.
fn call_stack(stack: &[Frame]) -> String {
    let frames: Vec<String> = stack
        .iter()
        .filter(|f| user_file(&f.file).is_some())
        .map(|f| {
            let path = user_file(&f.file).unwrap_or_default();
            let function = f.function.rsplit("::").next().unwrap_or(&f.function);
            format!("{}:{} ({function})", display_path(&path), f.line)
        })
        .collect();
    if frames.is_empty() {
        "no frame with source (is the program built with debug info?)".into()
    } else {
        frames.join(" ← ")
    }
}

/// `a/b/../c` → `a/c`, without touching the file system.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            c => out.push(c),
        }
    }
    out
}

/// The frame's file when it is the program's own source: it exists and is not the standard
/// library's or a dependency's from cargo's registry or git checkouts.
fn user_file(file: &str) -> Option<PathBuf> {
    if file.is_empty() || file.starts_with("/rustc/") {
        return None;
    }
    let path = normalize(Path::new(file));
    let s = path.to_string_lossy();
    let foreign = ["/.cargo/registry/", "/.cargo/git/"]
        .iter()
        .any(|p| s.contains(p));
    (!foreign && path.is_absolute() && path.is_file()).then_some(path)
}

/// The source files findings point into.
#[derive(Default)]
struct Files {
    files: Vec<SourceFile>,
    index: HashMap<PathBuf, usize>,
}

impl Files {
    /// The span of the innermost frame in the program's source: the line, without its
    /// indentation. A stack with no such frame points into a one-line stand-in file that
    /// names the innermost frame.
    fn locate(&mut self, stack: &[Frame]) -> Span {
        let found = stack
            .iter()
            .find_map(|f| user_file(&f.file).map(|p| (p, f.line)));
        let Some((path, line)) = found else {
            let text = stack.first().map_or_else(
                || "(no call stack)".to_string(),
                |f| {
                    format!(
                        "{} (no source: is the program built with debug info?)",
                        f.function
                    )
                },
            );
            let file = self.add(PathBuf::from("<program>"), "<program>".into(), text.clone());
            return Span {
                file,
                start: 0,
                end: text.len(),
            };
        };
        let file = match self.index.get(&path) {
            Some(i) => *i,
            None => {
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                let display = display_path(&path);
                self.add(path, display, text)
            }
        };
        let text = &self.files[file].text;
        let start: usize = text
            .split_inclusive('\n')
            .take(line.saturating_sub(1))
            .map(str::len)
            .sum();
        let start = start.min(text.len());
        let rest = &text[start..];
        let line_text = rest.split('\n').next().unwrap_or("");
        let indent = line_text.len() - line_text.trim_start().len();
        Span {
            file,
            start: start + indent,
            end: start + line_text.trim_end().len(),
        }
    }

    fn add(&mut self, path: PathBuf, display: String, text: String) -> usize {
        if let Some(i) = self.index.get(&path) {
            return *i;
        }
        self.files
            .push(SourceFile::new(path.clone(), display, text));
        self.index.insert(path, self.files.len() - 1);
        self.files.len() - 1
    }

    fn into_report(self) -> Report {
        let parsed = self.files.len();
        Report {
            files: self.files,
            parsed,
            ..Report::default()
        }
    }
}

/// Marks each runtime finding that the static check also reports, same rule, on a line of
/// the same command.
fn confirm_statically(report: &mut Report, findings: &mut [Finding]) {
    let paths: Vec<PathBuf> = report
        .files
        .iter()
        .map(|f| f.path.clone())
        .filter(|p| p.is_file())
        .collect();
    if paths.is_empty() {
        return;
    }
    let settings = Settings::default();
    let statics = check(&paths, &settings);
    let line_of = |files: &[SourceFile], span: Span| -> Option<(PathBuf, usize, usize)> {
        let f = files.get(span.file)?;
        let first = f.text.get(..span.start)?.matches('\n').count() + 1;
        let last = first + f.text.get(span.start..span.end)?.matches('\n').count();
        Some((f.path.canonicalize().ok()?, first, last))
    };
    for finding in findings.iter_mut() {
        let Some((path, line, _)) = line_of(&report.files, finding.primary.span) else {
            continue;
        };
        let confirmed = statics.findings.iter().any(|s| {
            s.code == finding.code
                && line_of(&statics.files, s.anchor)
                    .is_some_and(|(p, first, last)| p == path && (first..=last).contains(&line))
        });
        if confirmed {
            let note = finding.note.take().unwrap_or_default();
            finding.note = Some(format!(
                "confirmed at run time: the static check reports `{}` on this command too; {note}",
                finding.code
            ));
        }
    }
}

/// The exit status: 1 when there are error-level findings, otherwise the program's own
/// (128 + the signal when a signal ended it).
pub fn exit_code(outcome: &RunOutcome) -> i32 {
    if outcome.report.count(Level::Error) > 0 {
        return 1;
    }
    if let Some(code) = outcome.status.code() {
        return code;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = outcome.status.signal() {
            return 128 + signal;
        }
    }
    1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_include_paths() {
        assert_eq!(
            normalize(Path::new("/w/src/harness/../../fixtures/seed/buggy.rs")),
            PathBuf::from("/w/fixtures/seed/buggy.rs")
        );
    }

    #[test]
    fn dependencies_and_std_are_not_the_program() {
        assert_eq!(user_file("/rustc/abc/library/core/src/option.rs"), None);
        assert_eq!(
            user_file("/root/.cargo/registry/src/index.crates.io-1/cl3-0.13.2/src/lib.rs"),
            None
        );
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/runtime.rs");
        assert_eq!(user_file(&here.to_string_lossy()), Some(here));
    }

    #[test]
    fn a_loader_must_read_opencl_layers() {
        let dir = std::env::temp_dir().join(format!("clmigrate-loader-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (with, without) = (dir.join("with.so.1"), dir.join("without.so.1"));
        std::fs::write(&with, b"\x7fELF...getenv\0OPENCL_LAYERS\0").unwrap();
        std::fs::write(&without, b"\x7fELF...getenv\0OCL_ICD_VENDORS\0").unwrap();
        let mut notes = Vec::new();
        assert_eq!(
            choose_loader(Some(&with), &mut notes),
            Ok(Some(with.clone()))
        );
        let refused = choose_loader(Some(&without), &mut notes).unwrap_err();
        assert!(refused.contains("does not support layers"), "{refused}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn findings_point_at_the_program_s_source_once() {
        let here = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/harness/../runtime.rs");
        let finding = format!(
            r#"{{"code":"CLM003","message":"m","label":"l","help":"h","stack":[{{"function":"cl3::f","file":"/root/.cargo/registry/src/x/cl3/src/lib.rs","line":9,"col":1}},{{"function":"app::run","file":"{}","line":3,"col":5}}],"related":[]}}"#,
            here.display()
        );
        let text = format!("{{\"layer\":\"init\",\"entries\":149}}\n{finding}\n{finding}\n");
        let (report, started) = read_output(&text);
        assert!(started);
        assert_eq!(report.findings.len(), 1, "the same finding twice is one");
        let f = &report.findings[0];
        assert_eq!(f.code, "CLM003");
        assert_eq!(f.level, Level::Error);
        let file = &report.files[f.primary.span.file];
        assert!(
            file.path.ends_with("src/runtime.rs"),
            "{}",
            file.path.display()
        );
        let line = &file.text[f.primary.span.start..f.primary.span.end];
        assert_eq!(Some(line), file.text.lines().nth(2).map(str::trim));
        assert!(
            f.note
                .as_deref()
                .unwrap_or("")
                .contains("runtime.rs:3 (run)"),
            "{:?}",
            f.note
        );
        assert!(!read_output("").1, "no init line: the layer did not start");
    }
}
