use std::ffi::OsString;

use clap::{Parser, Subcommand};
use clmigrate_lint::harness::{self, ChildArgs, ConfirmArgs};

#[derive(Parser)]
#[command(
    name = "cargo-clmigrate-lint",
    bin_name = "cargo clmigrate-lint",
    version,
    about
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the fixture scenarios on the OpenCL devices found: each bug shows, each fix works
    Confirm(ConfirmArgs),
    /// Run one variant of one scenario (used by `confirm`)
    #[command(name = "confirm-child", hide = true)]
    ConfirmChild(ChildArgs),
}

fn main() {
    // As `cargo clmigrate-lint`, cargo passes the subcommand's name first.
    let args = std::env::args_os()
        .enumerate()
        .filter(|(i, arg)| !(*i == 1 && arg == "clmigrate-lint"))
        .map(|(_, arg)| arg)
        .collect::<Vec<OsString>>();
    let code = match Cli::parse_from(args).command {
        Command::Confirm(args) => harness::confirm(&args),
        Command::ConfirmChild(args) => harness::child(&args),
    };
    std::process::exit(code);
}
