//! `cargo clmigrate-lint`: the command line. The only place that prints or exits.

/// Allocation is a large part of the analysis (states copied at branches, syntax trees).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{ArgMatches, Args, CommandFactory, FromArgMatches, Parser, Subcommand, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

use clmigrate_lint::baseline::Baseline;
use clmigrate_lint::config::{Config, RuleLevel};
use clmigrate_lint::crate_index::check_crates_of;
use clmigrate_lint::discover::WalkOptions;
use clmigrate_lint::harness::{self, ChildArgs, ConfirmArgs};
use clmigrate_lint::rules::{Level, Rule, RULES};
use clmigrate_lint::{
    check, debug_ir, debug_trace, fix, report, rules, runtime, source, workspace, Progress, Report,
    Settings,
};

#[derive(Parser)]
#[command(
    name = "cargo-clmigrate-lint",
    bin_name = "cargo clmigrate-lint",
    version,
    about = "Checks OpenCL host code in Rust for event, queue and buffer-migration bugs",
    long_about = "Checks OpenCL host code written in Rust (opencl3, cl3, ocl, ocl-core, raw FFI) for the \
                  host-API bugs that corrupt data or waste bandwidth when devices share buffers. \
                  It reads the source and never builds or runs it.\n\n\
                  Exit status: 0 no error-level findings, 1 error-level findings or a file \
                  that cannot be parsed (or warnings with `-D warnings`), 2 usage, \
                  configuration or internal error.\n\n\
                  `--format` picks the output; `--message-format` is cargo's spelling of it \
                  (human, json, short) for tools that pass cargo's flags; give one of them.",
    args_conflicts_with_subcommands = true
)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,
    #[command(flatten)]
    check: CheckArgs,
}

#[derive(Subcommand)]
enum Command {
    /// Check files (the default when no subcommand is given).
    Check(Box<CheckArgs>),
    /// Print a rule's documentation.
    Explain {
        /// A rule code (`CLM003`) or name (`missing-wait-list`).
        rule: String,
    },
    /// List the rules.
    Rules {
        /// `text` (a table) or `json` (an array of rule objects, with their specs).
        #[arg(long, value_enum, default_value_t = RulesFormat::Text)]
        format: RulesFormat,
    },
    /// Run the fixture scenarios on the OpenCL devices found: each bug shows, each fix works.
    Confirm(ConfirmArgs),
    /// Run a program with the OpenCL layer and report the bugs it makes at run time.
    Run(RunArgs),
    /// Run one variant of one scenario (used by `confirm`).
    #[command(name = "confirm-child", hide = true)]
    ConfirmChild(ChildArgs),
    /// Run the language server on standard input and output, for editors.
    Lsp,
    /// Inspect the checker's internals.
    #[command(subcommand)]
    Debug(DebugCommand),
}

#[derive(Subcommand)]
enum DebugCommand {
    /// Print the host IR the checker lowers a file to.
    Ir {
        /// A Rust source file.
        file: PathBuf,
    },
    /// Print what the analysis did on a file: each command with the queue and buffers it
    /// resolved to and what it waits on, and each time it forgot what it knew.
    Trace {
        /// A Rust, C or C++ source file.
        file: PathBuf,
    },
}

#[derive(Args, Default)]
struct CheckArgs {
    /// Packages, workspaces, directories or source files [default: .]. Calls are followed
    /// across the files of a crate that are checked together. A file named here is checked
    /// even where an ignore file leaves it out.
    #[arg(conflicts_with_all = ["manifest_path", "package", "workspace"])]
    paths: Vec<PathBuf>,
    /// Output format [default: human].
    #[arg(long, value_enum, conflicts_with = "message_format")]
    format: Option<Format>,
    /// Cargo's name for `--format`, for tools that pass it (rust-analyzer, cargo wrappers):
    /// `--message-format json` is `--format json` [default: human].
    #[arg(long, value_enum)]
    message_format: Option<MessageFormat>,
    /// Report a rule's findings as errors (a code or a name; repeatable). `-D warnings`:
    /// warnings count as errors for the exit status. Over the configuration file; of the
    /// -D, -W, -A and --ignore flags the later wins.
    #[arg(short = 'D', long = "deny", value_name = "RULE")]
    deny: Vec<String>,
    /// Report a rule's findings as warnings (a code or a name; repeatable). `-W warnings`
    /// undoes an earlier `-D warnings`.
    #[arg(short = 'W', long = "warn", value_name = "RULE")]
    warn: Vec<String>,
    /// Turn a rule off (a code or a name; repeatable). `-A warnings`: every rule that
    /// reports warnings at that point.
    #[arg(short = 'A', long = "allow", value_name = "RULE")]
    allow: Vec<String>,
    /// Check only these rules (codes or names, comma-separated, repeatable); the others are
    /// off. Applied before -D, -W, -A and --ignore.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    select: Vec<String>,
    /// Turn these rules off (codes or names, comma-separated, repeatable): `-A` for each.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    ignore: Vec<String>,
    /// Check the package of this `Cargo.toml` (with `-p` or `--workspace`: find the
    /// workspace from it) instead of the current directory.
    #[arg(long, value_name = "PATH")]
    manifest_path: Option<PathBuf>,
    /// Check this package of the workspace (repeatable), without the other packages nested
    /// in its directory.
    #[arg(short, long, value_name = "NAME")]
    package: Vec<String>,
    /// Check every member of the workspace (found from the current directory or
    /// `--manifest-path`).
    #[arg(long, conflicts_with = "package")]
    workspace: bool,
    /// Also check the files that `.gitignore`, `.ignore` and git's excludes leave out.
    #[arg(long)]
    no_ignore: bool,
    /// Print the findings only: no summary, no counts of fixes or baseline findings, no
    /// progress.
    #[arg(short, long)]
    quiet: bool,
    /// Read the configuration from this file instead of looking for `clmigrate-lint.toml` or
    /// `[package.metadata.clmigrate-lint]` above the first path.
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Apply the Safe fixes (with `--unsafe`, also the MaybeIncorrect ones), then report
    /// what remains.
    #[arg(long, conflicts_with = "diff")]
    fix: bool,
    /// With `--fix` or `--diff`: also apply the fixes that need review.
    #[arg(long = "unsafe")]
    unsafe_fixes: bool,
    /// Print the fixes as a unified diff and write nothing; exit status 1 when there are any.
    #[arg(long)]
    diff: bool,
    /// Report only findings that this baseline file does not record.
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Record the current findings in this file, and exit 0.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff"])]
    write_baseline: Option<PathBuf>,
    /// When to color human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Worker threads [default: one per core; more than the cores are not used].
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Parse and analyze every file, also those of crates without an OpenCL binding (without
    /// this flag they are counted, not parsed) and those that name no enqueue or
    /// kernel-argument API and that no file naming one calls or is called by (without it
    /// they are parsed for syntax errors only).
    #[arg(long)]
    no_prefilter: bool,
    /// Also check the library sources of OpenCL binding packages (`ocl`, `opencl3`, ..., and
    /// packages with the `opencl` keyword that are `-sys` crates or in the `api-bindings` or
    /// `external-ffi-bindings` category); without this flag they are counted, not read.
    /// Their tests, examples and benches are checked either way.
    #[arg(long)]
    binding_sources: bool,
    /// Check the whole crates the given files belong to, so that calls into their other
    /// files are followed, and report only the findings in the given files (what the
    /// pre-commit hook runs on the staged files).
    #[arg(long, conflicts_with_all = ["fix", "diff"])]
    whole_crates: bool,
}

/// `cargo clmigrate-lint run [OPTIONS] -- COMMAND ARGS..`.
#[derive(Args)]
struct RunArgs {
    /// Output format [default: human]; with any other, the program's standard output goes to
    /// standard error.
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// When to color human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// The layer, `libclmigrate_layer.so` [default: next to this executable].
    #[arg(long, value_name = "FILE")]
    layer: Option<PathBuf>,
    /// The OpenCL ICD loader to run the program with, when the one it would load lacks
    /// layer support [default: the first one found that has it].
    #[arg(long, value_name = "FILE")]
    loader: Option<PathBuf>,
    /// The program and its arguments, after `--`.
    #[arg(required = true, last = true, value_name = "COMMAND")]
    command: Vec<std::ffi::OsString>,
}

fn run_program(args: RunArgs) -> ExitCode {
    let options = runtime::RunOptions {
        command: args.command,
        layer: args.layer,
        loader: args.loader,
        program_stdout_to_stderr: !matches!(args.format, None | Some(Format::Human)),
    };
    let outcome = match runtime::run(&options) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    for note in &outcome.notes {
        eprintln!("note: {note}");
    }
    if !outcome.status.success() {
        eprintln!("note: the program ended with {}", outcome.status);
    }
    let shown = CheckArgs {
        format: args.format,
        color: args.color,
        ..CheckArgs::default()
    };
    if emit(&outcome.report, &shown).is_err() {
        return ExitCode::from(2);
    }
    exit_code(runtime::exit_code(&outcome))
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// rustc-style diagnostics.
    Human,
    /// One cargo `compiler-message` JSON object per line, then `build-finished`.
    Json,
    /// A SARIF 2.1.0 log, for code scanning.
    Sarif,
    /// GitHub Actions workflow commands: annotations on the pull request.
    Github,
    /// One line per finding: `path:line:col: level[CODE] message`.
    Short,
}

#[derive(Clone, Copy, ValueEnum)]
enum MessageFormat {
    Human,
    Json,
    Short,
}

#[derive(Clone, Copy, ValueEnum, Default)]
enum RulesFormat {
    #[default]
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum, Default)]
enum Color {
    #[default]
    Auto,
    Always,
    Never,
}

/// The rule-level flags in command-line order: the flag as given, the level, the rule.
fn level_flags(m: &ArgMatches) -> Vec<(String, RuleLevel, String)> {
    let mut flags = Vec::new();
    for (id, shown, level) in [
        ("deny", "-D", RuleLevel::Deny),
        ("warn", "-W", RuleLevel::Warn),
        ("allow", "-A", RuleLevel::Allow),
        ("ignore", "--ignore", RuleLevel::Allow),
    ] {
        if let (Some(at), Some(values)) = (m.indices_of(id), m.get_many::<String>(id)) {
            flags.extend(
                at.zip(values)
                    .map(|(i, v)| (i, shown.to_string(), level, v.clone())),
            );
        }
    }
    flags.sort_by_key(|f| f.0);
    flags.into_iter().map(|(_, f, l, r)| (f, l, r)).collect()
}

/// The rule a flag names, or an error that suggests the closest code or name.
fn flag_rule(flag: &str, name: &str) -> Result<&'static Rule, String> {
    rules::find(name).ok_or_else(|| {
        let known: Vec<&str> = RULES.iter().flat_map(|r| [r.code, r.name]).collect();
        let mut message = format!("`{flag} {name}`: no such rule");
        if let Some(near) = workspace::closest(name, &known) {
            message.push_str(&format!("; did you mean `{near}`?"));
        }
        message
    })
}

/// Applies `--select`, then the `-D`, `-W`, `-A` and `--ignore` flags in order, over the
/// configuration file's levels. Returns whether warnings fail the run (`-D warnings`).
fn apply_levels(
    config: &mut Config,
    select: &[String],
    flags: &[(String, RuleLevel, String)],
) -> Result<bool, String> {
    if !select.is_empty() {
        let chosen = select
            .iter()
            .map(|name| flag_rule("--select", name).map(|r| r.code))
            .collect::<Result<Vec<_>, _>>()?;
        for r in RULES {
            if !chosen.contains(&r.code) {
                config.set_level(r, RuleLevel::Allow);
            } else if config.level(r).is_none() {
                let own = match r.level {
                    Level::Error => RuleLevel::Deny,
                    Level::Warning => RuleLevel::Warn,
                };
                config.set_level(r, own);
            }
        }
    }
    let mut warnings_fail = false;
    for (flag, level, name) in flags {
        if name == "warnings" {
            match level {
                RuleLevel::Deny => warnings_fail = true,
                RuleLevel::Warn => warnings_fail = false,
                RuleLevel::Allow => {
                    for r in RULES {
                        if config.level(r) == Some(Level::Warning) {
                            config.set_level(r, RuleLevel::Allow);
                        }
                    }
                }
            }
            continue;
        }
        config.set_level(flag_rule(flag, name)?, *level);
    }
    Ok(warnings_fail)
}

/// What to walk for `--manifest-path`, `-p` and `--workspace` (the paths given, or `.`,
/// without them), and whether to leave out the packages nested in those (with `-p` and
/// `--workspace`, as cargo does).
fn targets(args: &CheckArgs) -> Result<(Vec<PathBuf>, bool), String> {
    if args.package.is_empty() && !args.workspace {
        if let Some(m) = &args.manifest_path {
            let m = workspace::manifest_of(Some(m), Path::new("."))?;
            let dir = match m.parent() {
                Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
                _ => PathBuf::from("."),
            };
            return Ok((vec![dir], false));
        }
        let paths = if args.paths.is_empty() {
            vec![PathBuf::from(".")]
        } else {
            args.paths.clone()
        };
        return Ok((paths, false));
    }
    let cwd = std::env::current_dir().map_err(|e| format!("the current directory: {e}"))?;
    let manifest = workspace::manifest_of(args.manifest_path.as_deref(), &cwd)?;
    let ws = workspace::find(&manifest)?;
    let selected: Vec<&workspace::Member> = if args.workspace {
        ws.members.iter().collect()
    } else {
        args.package
            .iter()
            .map(|name| workspace::select(&ws, name))
            .collect::<Result<_, _>>()?
    };
    Ok((selected.iter().map(|m| m.dir.clone()).collect(), true))
}

/// A bare first argument that is neither a path nor a subcommand but close to a
/// subcommand's name: the error that suggests it.
fn mistyped_subcommand(paths: &[PathBuf]) -> Option<String> {
    let first = paths.first()?;
    let word = first.to_str()?;
    if first.exists() || first.components().count() != 1 || word.starts_with('.') {
        return None;
    }
    let command = Cli::command();
    let names: Vec<&str> = command
        .get_subcommands()
        .filter(|c| !c.is_hide_set())
        .map(|c| c.get_name())
        .collect();
    let near = workspace::closest(word, &names)?;
    Some(format!(
        "no such subcommand or path: `{word}`; did you mean `{near}`?"
    ))
}

/// Shows how many files have been checked, on standard error, from a second into the run
/// until it is dropped. Only when standard error is a terminal.
struct ProgressLine {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    fn start(progress: Arc<Progress>) -> ProgressLine {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::spawn(move || {
            let start = Instant::now();
            let mut shown = false;
            while !stopped.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(100));
                if start.elapsed() < Duration::from_secs(1) || stopped.load(Ordering::Relaxed) {
                    continue;
                }
                let done = progress.done.load(Ordering::Relaxed);
                let total = progress.total.load(Ordering::Relaxed);
                eprint!(
                    "\r\x1b[Kchecking: {done}/{total} files, {}s",
                    start.elapsed().as_secs()
                );
                shown = true;
            }
            if shown {
                eprint!("\r\x1b[K");
            }
        });
        ProgressLine {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for ProgressLine {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

fn run_check(args: CheckArgs, flags: &[(String, RuleLevel, String)]) -> ExitCode {
    if args.unsafe_fixes && !args.fix && !args.diff {
        eprintln!("error: `--unsafe` applies with `--fix` or `--diff`: give one of them");
        return ExitCode::from(2);
    }
    if let Some(message) = mistyped_subcommand(&args.paths) {
        eprintln!("error: {message}");
        return ExitCode::from(2);
    }
    let (paths, one_package) = match targets(&args) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let config = match &args.config {
        Some(file) => Config::load(file),
        None => Config::discover(&paths[0]),
    };
    let mut config = match config {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let warnings_fail = match apply_levels(&mut config, &args.select, flags) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let baseline = match &args.baseline {
        Some(file) => match std::fs::read_to_string(file)
            .map_err(|e| format!("could not read: {e}"))
            .and_then(|t| Baseline::from_json(&t))
        {
            Ok(b) => Some(b),
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if let Some(j) = args.jobs.filter(|&j| j > cores) {
        eprintln!("note: `-j {j}`: {cores} worker threads, one per core");
    }
    let progress = (!args.quiet && std::io::stderr().is_terminal()).then(Arc::default);
    let settings = Settings {
        jobs: args.jobs,
        config,
        baseline,
        prefilter: !args.no_prefilter,
        binding_sources: args.binding_sources,
        walk: WalkOptions {
            no_ignore: args.no_ignore,
            one_package,
        },
        progress: progress.clone(),
    };
    let shown_progress = progress.map(ProgressLine::start);
    let mut failed = false;
    let report = if args.diff {
        let report = check(&paths, &settings);
        drop(shown_progress);
        let (edits, refused) = fix::plan(&report, args.unsafe_fixes);
        for p in &refused {
            eprintln!("error: {}: {}", p.path.display(), p.message);
        }
        write_out(&fix::diff(&edits));
        let n: usize = edits.iter().map(|e| e.fixes).sum();
        if !args.quiet {
            eprintln!(
                "{} in {} would be applied",
                plural(n, "fix", "fixes"),
                plural(edits.len(), "file", "files")
            );
        }
        return if !refused.is_empty() {
            ExitCode::from(2)
        } else if edits.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    } else if args.fix {
        let outcome = fix::fix(&paths, &settings, args.unsafe_fixes);
        drop(shown_progress);
        for p in &outcome.refused {
            eprintln!("error: {}: {}", p.path.display(), p.message);
        }
        failed = outcome.refused.iter().any(|p| p.internal);
        if !args.quiet {
            eprintln!(
                "applied {} in {}",
                plural(outcome.fixed, "fix", "fixes"),
                plural(outcome.files.len(), "file", "files")
            );
        }
        outcome.report
    } else if args.whole_crates {
        check_crates_of(&paths, &settings)
    } else {
        let report = check(&paths, &settings);
        drop(shown_progress);
        report
    };
    for m in &report.missing {
        eprintln!("error: no such file or directory: {}", m.display());
    }
    if report.files.is_empty() && !report.missing.is_empty() {
        // Nothing was checked: a summary of "0 errors" would contradict the error above.
        return ExitCode::from(2);
    }
    if report.files.is_empty() && report.problems.is_empty() {
        let shown: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
        eprintln!("warning: no Rust files were found in {}", shown.join(", "));
    }
    if emit(&report, &args).is_err() {
        return ExitCode::from(2);
    }
    if let Some(file) = &args.write_baseline {
        let b = Baseline::of(&report, &source::src_root());
        if let Err(e) = std::fs::write(file, b.to_json()) {
            eprintln!(
                "error: {}: could not write the baseline: {e}",
                file.display()
            );
            return ExitCode::from(2);
        }
        if !args.quiet {
            eprintln!(
                "recorded {} in {}",
                plural(b.findings.len(), "finding", "findings"),
                file.display()
            );
        }
        return ExitCode::SUCCESS;
    }
    if failed || !report.missing.is_empty() || report.problems.iter().any(|p| p.internal) {
        ExitCode::from(2)
    } else if report.has_errors() || (warnings_fail && report.count(Level::Warning) > 0) {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Prints the report in the chosen format.
fn emit(report: &Report, args: &CheckArgs) -> std::io::Result<()> {
    let format = match (args.format, args.message_format) {
        (Some(f), _) => f,
        (None, Some(MessageFormat::Json)) => Format::Json,
        (None, Some(MessageFormat::Short)) => Format::Short,
        (None, Some(MessageFormat::Human) | None) => Format::Human,
    };
    let text = match format {
        Format::Human => {
            let choice = match args.color {
                Color::Auto if std::io::stdout().is_terminal() => ColorChoice::Auto,
                Color::Auto | Color::Never => ColorChoice::Never,
                Color::Always => ColorChoice::Always,
            };
            let mut out = StandardStream::stdout(choice);
            if args.quiet {
                return report::human::emit_findings(report, &mut out);
            }
            return report::human::emit(report, &mut out);
        }
        Format::Json => report::json::render(report),
        Format::Sarif => report::sarif::render(report),
        Format::Github => report::github::render(report),
        Format::Short if args.quiet => report::short::render_findings(report),
        Format::Short => report::short::render(report),
    };
    std::io::stdout().lock().write_all(text.as_bytes())
}

fn print_rules() {
    let mut text = format!("{:<8} {:<32} {:<8} summary\n", "code", "name", "level");
    for r in RULES {
        text += &format!(
            "{:<8} {:<32} {:<8} {}\n",
            r.code,
            r.name,
            r.level.as_str(),
            r.summary
        );
    }
    write_out(&text);
}

/// Writes to standard output; a reader that stops early (`| head`) ends the output, it is
/// no error.
fn write_out(text: &str) {
    let _ = std::io::stdout().lock().write_all(text.as_bytes());
}

fn rules_json() -> String {
    let rules: Vec<serde_json::Value> = RULES
        .iter()
        .map(|r| {
            serde_json::json!({
                "code": r.code,
                "name": r.name,
                "level": r.level.as_str(),
                "summary": r.summary,
                "doc": r.doc,
            })
        })
        .collect();
    serde_json::to_string_pretty(&rules).unwrap_or_default()
}

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}

/// Also the entry point of the plain `clmigrate-lint` binary (`src/bin/clmigrate-lint.rs`).
pub fn main() -> ExitCode {
    let mut argv: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // As a cargo subcommand, cargo passes the subcommand's name first.
    if argv.get(1).is_some_and(|a| a == "clmigrate-lint") {
        argv.remove(1);
    }
    let matches = Cli::command().get_matches_from(argv);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let flags = match matches.subcommand() {
        Some(("check", m)) => level_flags(m),
        _ => level_flags(&matches),
    };
    match cli.command {
        None => run_check(cli.check, &flags),
        Some(Command::Check(args)) => run_check(*args, &flags),
        Some(Command::Explain { rule }) => match rules::find(&rule) {
            Some(r) => {
                write_out(r.doc);
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("error: no rule `{rule}`; `cargo clmigrate-lint rules` lists them");
                ExitCode::from(2)
            }
        },
        Some(Command::Rules { format }) => {
            match format {
                RulesFormat::Text => print_rules(),
                RulesFormat::Json => println!("{}", rules_json()),
            }
            ExitCode::SUCCESS
        }
        Some(Command::Confirm(args)) => exit_code(harness::confirm(&args)),
        Some(Command::Run(args)) => run_program(args),
        Some(Command::ConfirmChild(args)) => exit_code(harness::child(&args)),
        Some(Command::Lsp) => match clmigrate_lint::lsp::run_stdio(&Settings::default()) {
            Ok(true) => ExitCode::SUCCESS,
            Ok(false) => ExitCode::from(1),
            Err(e) => {
                eprintln!("error: language server: {e}");
                ExitCode::from(2)
            }
        },
        Some(Command::Debug(DebugCommand::Trace { file })) => match debug_trace(&file) {
            Ok(s) => {
                write_out(&s);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                ExitCode::from(2)
            }
        },
        Some(Command::Debug(DebugCommand::Ir { file })) => match debug_ir(&file) {
            Ok(s) => {
                write_out(&s);
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                ExitCode::from(2)
            }
        },
    }
}
