//! `capture diff BEFORE AFTER`: run against run, computed by `shared::analysis::diff` (the viewer's
//! compare page shows the same), printed as a table, Markdown or JSON. The comparability
//! check runs first and refuses unfair comparisons unless `--force`; `--gate` exits 12
//! when the total or a counted kernel got slower beyond its noise band, and 13 when it
//! cannot judge the runs (`shared::analysis::diff::Gate::cannot_judge`), told what the
//! artifact reader did not take as written.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::diff::{diff_loaded, GateOptions};
use shared::analysis::merge;
use shared::model::artifact::LoadWarning;
use shared::read::kind::FileKind;
use shared::Artifact;

use super::import;
use crate::cli::{DiffArgs, DiffFormat};
use crate::exit::{Code, Fault};
use crate::files;

/// An artifact, or the artifact `capture import` would make of an export or report; with
/// what the artifact reader did not take as written (an import's dropped durations show in
/// its launches, which the gate checks itself).
pub(crate) fn read_run(path: &Path) -> Result<(Artifact, Vec<LoadWarning>)> {
    if files::kind(path)? == FileKind::Artifact {
        return files::read_artifact_checked(path);
    }
    let paths = [path.to_path_buf()];
    let (launches, warnings) = import::read_exports(&paths)?;
    for w in &warnings {
        crate::out::warn(&w.to_string());
    }
    Ok((
        merge::import_launches(
            launches,
            warnings,
            crate::provenance::base(shared::model::artifact::Origin::Import, &paths),
        ),
        Vec::new(),
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
    let (before, before_warnings) = read_run(&args.before)?;
    let (after, after_warnings) = read_run(&args.after)?;
    let d = diff_loaded(
        (&before, &before_warnings),
        (&after, &after_warnings),
        GateOptions {
            pct: args.gate,
            share_pct: args.gate_share,
        },
    )
    .named(file_name(&args.before), file_name(&args.after));
    if !d.comparability.comparable() {
        let reasons = d.comparability.reasons();
        if !args.force {
            let refused = format!(
                "{} and {} cannot be compared fairly:\n  {}\n(--force compares them anyway, \
                 with this as a warning)",
                d.before,
                d.after,
                reasons.join("\n  ")
            );
            // A damaged run is often unfair too (a timing dropped on load); the gate's own
            // code says it could not judge, whatever else is wrong.
            return Err(
                match d.gate.as_ref().filter(|g| !g.cannot_judge.is_empty()) {
                    Some(g) => Fault::new(
                        Code::GateCannotJudge,
                        format!(
                            "gate failed: it cannot judge these runs: {}\n{refused}",
                            g.cannot_judge.join("; ")
                        ),
                    ),
                    None => Fault::new(Code::Failure, refused),
                }
                .into(),
            );
        }
        for r in &reasons {
            crate::out::warn(&format!("not comparable (--force): {r}"));
        }
    }
    let code = match &d.gate {
        Some(g) if !g.cannot_judge.is_empty() => Some(Code::GateCannotJudge),
        Some(g) if g.failed => Some(Code::GateFailed),
        _ => None,
    };
    if let Some(g) = &d.gate {
        if !g.cannot_judge.is_empty() {
            crate::out::eprint_line(&format!(
                "gate failed: it cannot judge these runs: {}",
                g.cannot_judge.join("; ")
            ));
        }
        if !g.failures.is_empty() {
            crate::out::eprint_line(&format!(
                "gate failed: slower by more than {} % beyond the noise: {}",
                g.pct,
                g.failures.join("; ")
            ));
        }
    }
    crate::out::print(&match args.format {
        DiffFormat::Table => d.to_text(),
        DiffFormat::Markdown => d.to_markdown(),
        DiffFormat::Json => d.to_json(),
    })?;
    Ok(code.map_or(ExitCode::SUCCESS, |c| ExitCode::from(c as u8)))
}
