//! `capture merge`: the timings of `capture run --no-profile` and the ncu exports of its
//! profile half (run by hand, see `capture ncu-command`) into one artifact, with no GPU.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::merge;
use shared::model::artifact::{CacheControl, Origin};

use crate::cli::MergeArgs;
use crate::exit::{Code, Fault};
use crate::files;
use crate::files::input::read_exports;
use crate::out;
use crate::provenance::base as provenance;

/// `capture merge`.
pub fn merge(args: &MergeArgs) -> Result<ExitCode> {
    files::refuse_output_among_inputs(
        &args.output,
        std::iter::once(&args.timings)
            .chain(&args.ncu)
            .chain(&args.ncu_warm),
    )?;
    let mut artifact = files::read_artifact(&args.timings)?;
    let mut inputs = vec![args.timings.clone()];
    let mut attach = |paths: &[PathBuf], cache: CacheControl| -> Result<()> {
        let (launches, warnings) = read_exports(paths)?;
        for w in &warnings {
            out::warn(&w.to_string());
        }
        artifact
            .warnings
            .extend(warnings.iter().map(ToString::to_string));
        merge::attach_counters(&mut artifact, launches, cache).map_err(|e| {
            let files: Vec<String> = paths.iter().map(|p| files::shown(p)).collect();
            Fault::new(Code::MissingKernel, format!("{}: {e}", files.join(", ")))
        })?;
        inputs.extend(paths.iter().cloned());
        Ok(())
    };
    attach(&args.ncu, CacheControl::Cold)?;
    if !args.ncu_warm.is_empty() {
        attach(&args.ncu_warm, CacheControl::Warm)?;
    }
    let base = provenance(Origin::Merge, &inputs);
    let p = &mut artifact.provenance;
    p.origin = base.origin;
    p.created_utc = base.created_utc;
    p.command_line = base.command_line;
    p.inputs = base.inputs;
    p.tool_version = base.tool_version;
    files::write_artifact(&args.output, &artifact)?;
    out::println(&format!(
        "merged counters of {} kernel(s) into {}",
        artifact.kernels.len(),
        files::shown(&args.output)
    ))?;
    Ok(ExitCode::SUCCESS)
}
