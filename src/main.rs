//! `cargo clmigrate-lint`: the command line. The only place that prints or exits.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};

use clmigrate_lint::harness::{self, ChildArgs, ConfirmArgs};
use clmigrate_lint::rules::{Level, RULES};
use clmigrate_lint::{check, debug_ir, report, rules, Settings};

#[derive(Parser)]
#[command(
    name = "cargo-clmigrate-lint",
    bin_name = "cargo clmigrate-lint",
    version,
    about = "Checks OpenCL host code in Rust for event, queue and buffer-migration bugs",
    long_about = "Checks OpenCL host code written in Rust (opencl3, cl3, ocl, raw FFI) for the \
                  host-API bugs that corrupt data or waste bandwidth when devices share buffers. \
                  It reads the source and never builds or runs it.\n\n\
                  Exit status: 0 no error-level findings, 1 error-level findings, 2 usage or \
                  internal error.",
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
    Rules,
    /// Run the fixture scenarios on the OpenCL devices found: each bug shows, each fix works.
    Confirm(ConfirmArgs),
    /// Run one variant of one scenario (used by `confirm`).
    #[command(name = "confirm-child", hide = true)]
    ConfirmChild(ChildArgs),
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
    /// Packages, workspaces, directories or `.rs` files [default: .]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    message_format: MessageFormat,
    /// When to color human output.
    #[arg(long, value_enum, default_value_t = Color::Auto)]
    color: Color,
    /// Worker threads [default: one per core].
    #[arg(short, long)]
    jobs: Option<usize>,
    /// Parse every file, also those that name no enqueue or kernel-argument API (they
    /// cannot hold a finding; without this flag they are counted as checked unparsed).
    #[arg(long)]
    no_prefilter: bool,
}

#[derive(Clone, Copy, ValueEnum, Default)]
enum MessageFormat {
    /// rustc-style diagnostics.
    #[default]
    Human,
    /// One cargo `compiler-message` JSON object per line.
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
    let paths = if args.paths.is_empty() {
        vec![PathBuf::from(".")]
    } else {
        args.paths
    };
    let settings = Settings {
        jobs: args.jobs,
        prefilter: !args.no_prefilter,
    };
    let report = check(&paths, &settings);
    for m in &report.missing {
        eprintln!("error: no such file or directory: {}", m.display());
    }
    match args.message_format {
        MessageFormat::Human => {
            let choice = match args.color {
                Color::Auto if std::io::IsTerminal::is_terminal(&std::io::stdout()) => {
                    ColorChoice::Auto
                }
                Color::Auto | Color::Never => ColorChoice::Never,
                Color::Always => ColorChoice::Always,
            };
            let mut out = StandardStream::stdout(choice);
            if report::human::emit(&report, &mut out).is_err() {
                return ExitCode::from(2);
            }
        }
        MessageFormat::Json => {
            let mut out = std::io::stdout().lock();
            if out
                .write_all(report::json::render(&report).as_bytes())
                .is_err()
            {
                return ExitCode::from(2);
            }
        }
    }
    if !report.missing.is_empty() || report.problems.iter().any(|p| p.internal) {
        ExitCode::from(2)
    } else if report.count(Level::Error) > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
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

fn exit_code(code: i32) -> ExitCode {
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}

fn main() -> ExitCode {
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
        Some(Command::Rules) => {
            print_rules();
            ExitCode::SUCCESS
        }
        Some(Command::Confirm(args)) => exit_code(harness::confirm(&args)),
        Some(Command::ConfirmChild(args)) => exit_code(harness::child(&args)),
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
