//! `capture`: the native CLI. `main` only calls [`run`], the one place an error becomes an
//! exit code; each subcommand lives in its own module.

mod cli;
mod clock;
mod diff;
mod exit;
mod files;
mod gpu;
mod import;
mod interrupt;
mod out;
mod overlap;
mod ranks;
mod source;
mod stages;
mod table;

use std::process::ExitCode;

use clap::Parser;

use crate::cli::{Cli, Command};

fn main() -> ExitCode {
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
        Command::Devices(args) => gpu::devices(&args),
        Command::Run(args) => gpu::run(&args),
        Command::Profile(args) => gpu::profile(&args),
        Command::NcuCommand(args) => gpu::ncu_command(&args),
        Command::Merge(args) => import::merge(&args),
        Command::Import(args) => import::import(&args),
        Command::Table(args) => table::table(&args),
        Command::Source(args) => source::source(&args),
        Command::Diff(args) => diff::diff(&args),
        Command::Schema => {
            out::print(&shared::Artifact::json_schema())?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
