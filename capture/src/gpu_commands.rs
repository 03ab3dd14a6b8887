//! The subcommands that need a GPU host: devices, run, profile, ncu-command.
//! (Placeholder until the GPU half lands: each reports that it is not built yet.)

use std::process::ExitCode;

use anyhow::Result;

use crate::cli::{DevicesArgs, NcuCommandArgs, ProfileArgs, RunArgs};
use crate::exit::{Code, Fault};

fn not_yet() -> anyhow::Error {
    Fault::new(Code::Failure, "this subcommand is not built yet").into()
}

/// `capture devices`.
pub fn devices(_args: &DevicesArgs) -> Result<ExitCode> {
    Err(not_yet())
}

/// `capture run`.
pub fn run(_args: &RunArgs) -> Result<ExitCode> {
    Err(not_yet())
}

/// `capture profile`.
pub fn profile(_args: &ProfileArgs) -> Result<ExitCode> {
    Err(not_yet())
}

/// `capture ncu-command`.
pub fn ncu_command(_args: &NcuCommandArgs) -> Result<ExitCode> {
    Err(not_yet())
}
