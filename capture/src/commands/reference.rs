//! `capture reference` (hidden): the command reference in Markdown, generated from the clap
//! definitions by [`crate::cli::reference`]; `docs/commands.md` is its output.

use std::process::ExitCode;

/// `capture reference`.
pub fn reference() -> anyhow::Result<ExitCode> {
    crate::out::print(&crate::cli::reference::markdown())?;
    Ok(ExitCode::SUCCESS)
}
