//! `capture import` and `capture merge`: ncu CSV exports into artifacts, with no GPU.
//!
//! Both read exports through the shared reader and build the artifact with the shared
//! merge code, so the viewer, which does the same in the browser, gets the same result.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::merge;
use shared::model::artifact::{CacheControl, LaunchCounters, Origin, Provenance};
use shared::read::ncu::{self, Warning};

use crate::cli::{ImportArgs, MergeArgs};
use crate::exit::{Code, Fault};
use crate::files;
use crate::out;
use crate::stages::Stages;

/// Provenance common to everything capture writes.
pub fn provenance(origin: Origin, inputs: &[PathBuf]) -> Provenance {
    Provenance {
        origin: Some(origin),
        tool: "capture".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        created_utc: Some(crate::clock::now_rfc3339()),
        command_line: Some(std::env::args().collect::<Vec<_>>().join(" ")),
        inputs: inputs.iter().map(|p| display_name(p)).collect(),
        ..Provenance::default()
    }
}

/// A file's name for provenance: the final component, so artifacts carry no local paths.
fn display_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Reads and joins several exports of one run; warnings are prefixed with their file.
pub fn read_exports(paths: &[PathBuf]) -> Result<(Vec<LaunchCounters>, Vec<Warning>)> {
    let mut exports = Vec::with_capacity(paths.len());
    for path in paths {
        let mut export = files::read_export(path)?;
        let name = shared::text::escape::controls(&display_name(path)).into_owned();
        for w in &mut export.warnings {
            *w = w.in_file(&name);
        }
        exports.push((name, export));
    }
    Ok(ncu::combine_named(exports))
}

/// `capture import`.
pub fn import(args: &ImportArgs) -> Result<ExitCode> {
    let mut stages = Stages::from_env();
    files::refuse_output_among_inputs(&args.output, &args.exports)?;
    let (launches, warnings) = read_exports(&args.exports)?;
    stages.mark("read");
    let n_launches = launches.len();
    let n_warnings = warnings.len();
    for w in &warnings {
        out::warn(&w.to_string());
    }
    let artifact = merge::import_launches(
        launches,
        warnings,
        provenance(Origin::Import, &args.exports),
    );
    stages.mark("build");
    files::write_artifact_staged(&args.output, &artifact, &mut stages)?;
    stages.print();
    let skipped = if n_warnings == 0 {
        "nothing skipped".to_string()
    } else {
        format!("{n_warnings} warning(s), see above")
    };
    out::println(&format!(
        "imported {n_launches} launch(es) of {} kernel(s) from {} file(s) into {}; {skipped}",
        artifact.kernels.len(),
        args.exports.len(),
        files::shown(&args.output)
    ))?;
    // The process ends next: its memory goes back to the system at once, where freeing a
    // large import's launches one by one would take a tenth of a second or more.
    std::mem::forget(artifact);
    Ok(ExitCode::SUCCESS)
}

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
