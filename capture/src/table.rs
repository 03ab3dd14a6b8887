//! `capture table`.
use std::process::ExitCode;
use anyhow::Result;
use crate::cli::TableArgs;
/// `capture table`.
pub fn table(_args: &TableArgs) -> Result<ExitCode> { anyhow::bail!("not built yet") }
