//! `capture`: the native CLI. `main` only calls [`run`], the one place an error becomes an
//! exit code; each subcommand lives in its own module under [`commands`].

mod allocator;
mod cli;
mod clock;
mod commands;
mod disasm;
mod embed;
mod exit;
mod files;
mod gpu;
mod interrupt;
mod out;
mod provenance;
mod ranks;
mod shell;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
    allocator::hold_mmap_threshold();
    interrupt::install();
    match run() {
        Ok(code) => code,
        Err(err) if out::is_closed(&err) => ExitCode::SUCCESS,
        Err(err) => {
            let code = exit::code_of(&err);
            out::eprint_line(&format!("error: {err:#}"));
            ExitCode::from(code as u8)
        }
    }
}

/// Parses the command line and runs one subcommand.
fn run() -> anyhow::Result<ExitCode> {
    let cli = Cli::parse();
    match cli.command {
        Command::Devices(args) => commands::devices::devices(&args),
        Command::Run(args) => commands::run::run(&args),
        Command::Profile(args) => commands::profile::profile(&args),
        Command::Trace(args) => commands::trace::trace(&args),
        Command::NcuCommand(args) => commands::ncu_command::ncu_command(&args),
        Command::Merge(args) => commands::merge::merge(&args),
        Command::Import(args) => commands::import::import(&args),
        Command::Table(args) => commands::table::table(&args),
        Command::Source(args) => commands::source::source(&args),
        Command::Diff(args) => commands::diff::diff(&args),
        Command::Verify(args) => commands::verify::verify(&args),
        Command::Explain(args) => commands::explain::explain(&args),
        Command::Mcp(args) => commands::mcp::mcp(&args),
        Command::Schema(args) => commands::schema::schema(&args),
        Command::Reference => commands::reference::reference(),
    }
}
