//! `capture import`: ncu exports (CSV text or `.ncu-rep` reports) into an artifact, with no
//! GPU; and the reading and provenance it shares with `capture merge`.
//!
//! Both read exports through the shared reader and build the artifact with the shared
//! merge code, so the viewer, which does the same in the browser, gets the same result.
//! Nsight Systems' exports take their own path ([`nsys`]) into a trace.

mod nsys;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::merge;
use shared::model::artifact::{LaunchCounters, Origin};
use shared::read::kind::FileKind;
use shared::read::ncu::{self, Warning};
use shared::read::ncu_rep::cubin::CodeSection;
use shared::read::source::LaunchSource;

use crate::cli::ImportArgs;
use crate::embed::{self, Inputs};
use crate::files;
use crate::files::stage_times::Stages;
use crate::out;

/// Reads and joins several exports of one run as [`files::input::read_exports`] does, with
/// the source pages of the reports' launches that have source counters and their kernels'
/// code.
fn read_exports_with_sources(paths: &[PathBuf]) -> Result<Read> {
    let mut exports = Vec::with_capacity(paths.len());
    let mut sources = Vec::new();
    let mut code = Vec::new();
    for path in paths {
        let (mut export, read, read_code) = files::read_export_with_sources(path)?;
        sources.extend(read);
        code.extend(read_code);
        let name = files::input::display_name(path);
        for w in &mut export.warnings {
            *w = w.in_file(&name);
        }
        exports.push((name, export));
    }
    let (launches, warnings) = ncu::combine_named(exports);
    Ok(Read {
        launches,
        warnings,
        sources,
        code,
    })
}

/// What [`read_exports_with_sources`] read.
struct Read {
    launches: Vec<LaunchCounters>,
    warnings: Vec<Warning>,
    sources: Vec<LaunchSource>,
    /// The reports' kernels' code, for the SASS text ([`crate::disasm`]).
    code: Vec<CodeSection>,
}

/// `capture import`.
pub fn import(args: &ImportArgs) -> Result<ExitCode> {
    out::println(&imported(args)?)?;
    Ok(ExitCode::SUCCESS)
}

/// What `capture import` does, with the line it prints on success returned (`capture mcp`'s
/// `import` tool returns it); warnings go to standard error.
pub fn imported(args: &ImportArgs) -> Result<String> {
    if let Some(nsys) = nsys::Inputs::of(&args.exports)? {
        return nsys::import(args, &nsys);
    }
    let mut stages = Stages::from_env();
    let all: Vec<PathBuf> = args.exports.iter().chain(&args.source).cloned().collect();
    files::refuse_output_among_inputs(&args.output, &all)?;
    let inputs = Inputs::split(&args.exports, &args.source)?;
    let Read {
        launches,
        warnings,
        sources,
        code,
    } = read_exports_with_sources(&inputs.exports)?;
    stages.mark("read");
    let n_launches = launches.len();
    let mut n_warnings = warnings.len();
    for w in &warnings {
        out::warn(&w.to_string());
    }
    let mut artifact = merge::import_launches(
        launches,
        warnings,
        crate::provenance::base(Origin::Import, &all),
    );
    let report = inputs
        .exports
        .iter()
        .find(|p| files::kind_inside(p).is_ok_and(|k| k == FileKind::Report))
        .map_or_else(|| "REPORT.ncu-rep".to_owned(), |p| files::shown(p));
    // A source page given is the one source of text; else the reports' code, disassembled.
    let nvdisasm = if code.is_empty() || !inputs.pages.is_empty() {
        None
    } else {
        crate::disasm::Nvdisasm::find(args.nvdisasm.as_deref())?
    };
    let disassembly = match &nvdisasm {
        _ if code.is_empty() || !inputs.pages.is_empty() => embed::Disassembly::NoCode,
        None => embed::Disassembly::Missing,
        Some(n) => embed::Disassembly::Found(n, &code),
    };
    let (kept, source_warnings) = embed::kept_sources(
        &artifact.kernels,
        &sources,
        &inputs.pages,
        &report,
        disassembly,
    )?;
    drop(sources);
    drop(code);
    artifact.sources = kept;
    n_warnings += source_warnings.len();
    // Printed only: the Source page states a missing SASS text itself, where it matters.
    for w in &source_warnings {
        out::warn(w);
    }
    stages.mark("build");
    files::write_artifact_staged(&args.output, &artifact, &mut stages)?;
    stages.print();
    let skipped = if n_warnings == 0 {
        "nothing skipped".to_string()
    } else {
        format!("{n_warnings} warning(s), see above")
    };
    let line = format!(
        "imported {n_launches} launch(es) of {} kernel(s) from {} file(s) into {}; {skipped}",
        artifact.kernels.len(),
        args.exports.len(),
        files::shown(&args.output)
    );
    // The process ends next: its memory goes back to the system at once, where freeing a
    // large import's launches one by one would take a tenth of a second or more.
    std::mem::forget(artifact);
    Ok(line)
}
