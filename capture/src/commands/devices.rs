//! `capture devices`: every GPU of this host with its attributes and theoretical peaks, as
//! text or JSON.

use std::process::ExitCode;

use anyhow::{Context, Result};
use shared::model::artifact::DeviceInfo;

use crate::cli::DevicesArgs;
use crate::gpu::console::describe_device;
use crate::gpu::runner;

/// `capture devices`: every GPU with its attributes and theoretical peaks.
pub fn devices(args: &DevicesArgs) -> Result<ExitCode> {
    let count = runner::device_count()?;
    let infos: Vec<DeviceInfo> = (0..count)
        .map(|i| runner::describe(i).map(|(info, _)| info))
        .collect::<Result<_>>()?;
    if args.json {
        crate::out::println(&serde_json::to_string_pretty(&infos).context("serializing devices")?)?;
    } else {
        for d in &infos {
            crate::out::println(&describe_device(d))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
