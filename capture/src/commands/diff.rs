//! `capture diff BEFORE AFTER`: run against run, computed by `shared::analysis::diff` (the viewer's
//! compare page shows the same), printed as a table, Markdown or JSON. The comparability
//! check runs first and refuses unfair comparisons unless `--force`; `--gate` exits 12
//! when the total or a counted kernel got slower beyond its noise band.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::diff::{diff as run_diff, GateOptions};
use shared::analysis::merge;
use shared::read::kind::FileKind;
use shared::Artifact;

use super::import;
use crate::cli::{DiffArgs, DiffFormat};
use crate::exit::{Code, Fault};
use crate::files;

/// An artifact (JSON, told by [`shared::read::kind::kind_of`] as the viewer tells it, a byte
/// order mark and all), or the artifact `capture import` would make of an export or report.
fn read_run(path: &Path) -> Result<Artifact> {
    if files::kind(path)? == FileKind::Artifact {
        return files::read_artifact(path);
    }
    let paths = [path.to_path_buf()];
    let (launches, warnings) = import::read_exports(&paths)?;
    for w in &warnings {
        crate::out::warn(&w.to_string());
    }
    Ok(merge::import_launches(
        launches,
        warnings,
        crate::provenance::base(shared::model::artifact::Origin::Import, &paths),
    ))
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// `capture diff`.
pub fn diff(args: &DiffArgs) -> Result<ExitCode> {
    let before = read_run(&args.before)?;
    let after = read_run(&args.after)?;
    let d = run_diff(
        &before,
        &after,
        GateOptions {
            pct: args.gate,
            share_pct: args.gate_share,
        },
    )
    .named(file_name(&args.before), file_name(&args.after));
    if !d.comparability.comparable() {
        let reasons = d.comparability.reasons();
        if !args.force {
            return Err(Fault::new(
                Code::Failure,
                format!(
                    "{} and {} cannot be compared fairly:\n  {}\n(--force compares them anyway, \
                     with this as a warning)",
                    d.before,
                    d.after,
                    reasons.join("\n  ")
                ),
            )
            .into());
        }
        for r in &reasons {
            crate::out::warn(&format!("not comparable (--force): {r}"));
        }
    }
    let failed = d.gate.as_ref().is_some_and(|g| g.failed);
    if let Some(g) = d.gate.as_ref().filter(|g| g.failed) {
        crate::out::eprint_line(&format!(
            "gate failed: slower by more than {} % beyond the noise: {}",
            g.pct,
            g.failures.join("; ")
        ));
    }
    crate::out::print(&match args.format {
        DiffFormat::Table => d.to_text(),
        DiffFormat::Markdown => d.to_markdown(),
        DiffFormat::Json => d.to_json(),
    })?;
    Ok(if failed {
        ExitCode::from(Code::GateFailed as u8)
    } else {
        ExitCode::SUCCESS
    })
}
