//! `clmigrate-lint`: the command line of `cargo clmigrate-lint` under a plain name, for C and
//! C++ projects checked without cargo.

#[path = "../main.rs"]
mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
