//! `capture import` and `capture merge`.
use std::process::ExitCode;
use anyhow::Result;
use crate::cli::{ImportArgs, MergeArgs};
/// `capture import`.
pub fn import(_args: &ImportArgs) -> Result<ExitCode> { anyhow::bail!("not built yet") }
/// `capture merge`.
pub fn merge(_args: &MergeArgs) -> Result<ExitCode> { anyhow::bail!("not built yet") }
