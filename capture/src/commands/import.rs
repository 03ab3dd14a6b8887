//! `capture import`: ncu exports (CSV text or `.ncu-rep` reports) into an artifact, with no
//! GPU; and the reading and provenance it shares with `capture merge`.
//!
//! Both read exports through the shared reader and build the artifact with the shared
//! merge code, so the viewer, which does the same in the browser, gets the same result.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::merge;
use shared::model::artifact::{LaunchCounters, Origin};
use shared::read::ncu::{self, Warning};

use crate::cli::ImportArgs;
use crate::files;
use crate::files::stage_times::Stages;
use crate::out;

/// Reads and joins several exports of one run; warnings are prefixed with their file.
pub fn read_exports(paths: &[PathBuf]) -> Result<(Vec<LaunchCounters>, Vec<Warning>)> {
    let mut exports = Vec::with_capacity(paths.len());
    for path in paths {
        let mut export = files::read_export(path)?;
        let name = shared::text::escape::controls(&crate::provenance::file_name(path)).into_owned();
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
        crate::provenance::base(Origin::Import, &args.exports),
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
