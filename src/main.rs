//! `cargo clmigrate-lint`: the command line. The only place that prints or exits.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

use clmigrate_lint::baseline::Baseline;
use clmigrate_lint::config::Config;
use clmigrate_lint::crate_index::check_crates_of;
use clmigrate_lint::harness::{self, ChildArgs, ConfirmArgs};
use clmigrate_lint::rules::{Level, RULES};
use clmigrate_lint::{check, debug_ir, fix, report, rules, runtime, source, Report, Settings};

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
                  that cannot be parsed (or warnings with `--deny warnings`), 2 usage, \
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
    Check(CheckArgs),
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
}

#[derive(Args, Default)]
struct CheckArgs {
    /// Packages, workspaces, directories or `.rs` files [default: .]. Calls are followed
    /// across the files of a crate that are checked together.
    paths: Vec<PathBuf>,
    /// Output format [default: human].
    #[arg(long, value_enum, conflicts_with = "message_format")]
    format: Option<Format>,
    /// Cargo's name for `--format`, for tools that pass it (rust-analyzer, cargo wrappers):
    /// `--message-format json` is `--format json` [default: human].
    #[arg(long, value_enum)]
    message_format: Option<MessageFormat>,
    /// `--deny warnings`: warnings count as errors for the exit status.
    #[arg(long, value_enum)]
    deny: Option<Deny>,
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
    /// Worker threads [default: one per core].
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Parse and analyze every file, also those of crates without an OpenCL binding (without
    /// this flag they are counted, not parsed) and those that name no enqueue or
    /// kernel-argument API and that no file naming one calls or is called by (without it
    /// they are parsed for syntax errors only).
    #[arg(long)]
    no_prefilter: bool,
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

#[derive(Clone, Copy, ValueEnum)]
enum Deny {
    /// Warnings fail the run like errors.
    Warnings,
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

fn run_check(args: CheckArgs) -> ExitCode {
    if args.unsafe_fixes && !args.fix && !args.diff {
        eprintln!("error: `--unsafe` applies with `--fix` or `--diff`: give one of them");
        return ExitCode::from(2);
    }
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths.clone()
    };
    let config = match &args.config {
        Some(file) => Config::load(file),
        None => Config::discover(&paths[0]),
    };
    let config = match config {
        Ok(c) => c,
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
    let settings = Settings {
        jobs: args.jobs,
        config,
        baseline,
        prefilter: !args.no_prefilter,
    };
    let mut failed = false;
    let report = if args.diff {
        let report = check(&paths, &settings);
        let (edits, refused) = fix::plan(&report, args.unsafe_fixes);
        for p in &refused {
            eprintln!("error: {}: {}", p.path.display(), p.message);
        }
        print!("{}", fix::diff(&edits));
        let n: usize = edits.iter().map(|e| e.fixes).sum();
        eprintln!(
            "{} in {} would be applied",
            plural(n, "fix", "fixes"),
            plural(edits.len(), "file", "files")
        );
        return if !refused.is_empty() {
            ExitCode::from(2)
        } else if edits.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        };
    } else if args.fix {
        let outcome = fix::fix(&paths, &settings, args.unsafe_fixes);
        for p in &outcome.refused {
            eprintln!("error: {}: {}", p.path.display(), p.message);
        }
        failed = outcome.refused.iter().any(|p| p.internal);
        eprintln!(
            "applied {} in {}",
            plural(outcome.fixed, "fix", "fixes"),
            plural(outcome.files.len(), "file", "files")
        );
        outcome.report
    } else if args.whole_crates {
        check_crates_of(&paths, &settings)
    } else {
        check(&paths, &settings)
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
        eprintln!(
            "recorded {} in {}",
            plural(b.findings.len(), "finding", "findings"),
            file.display()
        );
        return ExitCode::SUCCESS;
    }
    let warnings_fail = matches!(args.deny, Some(Deny::Warnings));
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
                Color::Auto if std::io::IsTerminal::is_terminal(&std::io::stdout()) => {
                    ColorChoice::Auto
                }
                Color::Auto | Color::Never => ColorChoice::Never,
                Color::Always => ColorChoice::Always,
            };
            let mut out = StandardStream::stdout(choice);
            return report::human::emit(report, &mut out);
        }
        Format::Json => report::json::render(report),
        Format::Sarif => report::sarif::render(report),
        Format::Github => report::github::render(report),
        Format::Short => report::short::render(report),
    };
    std::io::stdout().lock().write_all(text.as_bytes())
}

fn print_rules() {
    println!("{:<8} {:<32} {:<8} summary", "code", "name", "level");
    for r in RULES {
        println!(
            "{:<8} {:<32} {:<8} {}",
            r.code,
            r.name,
            r.level.as_str(),
            r.summary
        );
    }
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
    let cli = Cli::parse_from(argv);
    match cli.command {
        None => run_check(cli.check),
        Some(Command::Check(args)) => run_check(args),
        Some(Command::Explain { rule }) => match rules::find(&rule) {
            Some(r) => {
                print!("{}", r.doc);
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
        Some(Command::Debug(DebugCommand::Ir { file })) => match debug_ir(&file) {
            Ok(s) => {
                print!("{s}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {}: {e}", file.display());
                ExitCode::from(2)
            }
        },
    }
}
