//! `capture import` of Nsight Systems' exports into a trace artifact
//! ([`shared::model::trace`]): one SQLite export (a timeline, joined by
//! [`shared::read::nsys::export`]), or the CSV of the `nsys stats` kernel summary, the
//! memory-time summary, or both (summaries only, read by [`shared::read::nsys::stats`]).
//! Which, is told from each file's first bytes.

use std::path::PathBuf;

use anyhow::Result;
use shared::model::artifact::{Artifact, Origin};
use shared::model::trace::{Trace, TraceSource};
use shared::read::kind::FileKind;
use shared::read::nsys::{export, stats};

use crate::cli::ImportArgs;
use crate::exit::{Code, Fault};
use crate::files;
use crate::out;

/// What a list of inputs is, where it is Nsight Systems' exports.
pub enum Inputs {
    /// One SQLite export.
    Sqlite(PathBuf),
    /// One or two `nsys stats` CSVs.
    Stats(Vec<PathBuf>),
}

impl Inputs {
    /// Nsight Systems' exports where any input is one (`None`: ncu exports, read as
    /// before). A mix of the two tools' files, or more than one SQLite export, is a usage
    /// error.
    pub fn of(paths: &[PathBuf]) -> Result<Option<Inputs>> {
        let mut sqlite = Vec::new();
        let mut csv = Vec::new();
        let mut other = Vec::new();
        for p in paths {
            match files::kind_inside(p)? {
                FileKind::Sqlite => sqlite.push(p.clone()),
                FileKind::NsysStats => csv.push(p.clone()),
                _ => other.push(p),
            }
        }
        if sqlite.is_empty() && csv.is_empty() {
            return Ok(None);
        }
        let usage = |message: String| Err(Fault::new(Code::Usage, message).into());
        if let Some(o) = other.first() {
            return usage(format!(
                "{} is no Nsight Systems export, and {} is one: import one tool's exports at a \
                 time",
                files::shown(o),
                files::shown(sqlite.first().or(csv.first()).unwrap_or(o))
            ));
        }
        match (sqlite.len(), csv.len()) {
            (1, 0) => Ok(Some(Inputs::Sqlite(sqlite.swap_remove(0)))),
            (0, 1 | 2) => Ok(Some(Inputs::Stats(csv))),
            (0, _) => usage(
                "at most two nsys stats CSVs (a kernel summary and a memory-time summary) \
                 make one trace"
                    .into(),
            ),
            _ => usage(
                "one nsys SQLite export makes a trace, alone: its summaries come from its \
                 own rows"
                    .into(),
            ),
        }
    }
}

/// The trace of `inputs`, and its warnings, each naming its file.
fn read(inputs: &Inputs) -> Result<(Trace, Vec<String>)> {
    match inputs {
        Inputs::Sqlite(path) => {
            let rows = files::nsys::read_export(path)?;
            let (trace, warnings) = export::build(&rows);
            let name = files::shown(path);
            Ok((trace, prefixed(&name, warnings)))
        }
        Inputs::Stats(paths) => {
            let mut trace = Trace {
                source: Some(TraceSource::NsysCsv),
                ..Trace::default()
            };
            let mut warnings = Vec::new();
            let mut kernels_from: Option<&PathBuf> = None;
            let mut copies_from: Option<&PathBuf> = None;
            for path in paths {
                let name = files::shown(path);
                let bytes = files::read_bytes(path)?;
                let text = String::from_utf8(bytes).map_err(|e| {
                    anyhow::anyhow!(
                        "{name}: byte {}: not UTF-8 text",
                        e.utf8_error().valid_up_to()
                    )
                })?;
                let (summary, w) =
                    stats::read_stats(&text).map_err(|e| anyhow::anyhow!("{name}: {e}"))?;
                warnings.extend(prefixed(&name, w));
                let (slot, what) = match summary {
                    stats::Stats::Kernels(k) => {
                        trace.summaries = k;
                        (&mut kernels_from, "kernel summary")
                    }
                    stats::Stats::Copies(c) => {
                        trace.copy_summaries = c;
                        (&mut copies_from, "memory-time summary")
                    }
                };
                if let Some(first) = slot.replace(path) {
                    return Err(Fault::new(
                        Code::Usage,
                        format!(
                            "{} and {name} are both a {what}: one of each makes a trace",
                            files::shown(first)
                        ),
                    )
                    .into());
                }
            }
            Ok((trace, warnings))
        }
    }
}

fn prefixed(name: &str, warnings: Vec<String>) -> Vec<String> {
    warnings
        .into_iter()
        .map(|w| format!("{name}: {w}"))
        .collect()
}

/// `capture import` of Nsight Systems' exports; the line it prints returned.
pub fn import(args: &ImportArgs, inputs: &Inputs) -> Result<String> {
    files::refuse_output_among_inputs(&args.output, &args.exports)?;
    if !args.source.is_empty() {
        return Err(Fault::new(
            Code::Usage,
            "--source joins source pages to an Nsight Compute report; Nsight Systems' exports \
             have none"
                .to_owned(),
        )
        .into());
    }
    let (trace, warnings) = read(inputs)?;
    for w in &warnings {
        out::warn(w);
    }
    let mut artifact = Artifact::new(crate::provenance::base(Origin::Trace, &args.exports));
    artifact.warnings.extend(warnings);
    let what = if trace.kernels.is_empty() && trace.copies.is_empty() {
        format!(
            "{} kernel and {} copy summary line(s)",
            trace.summaries.len(),
            trace.copy_summaries.len()
        )
    } else {
        format!(
            "{} kernel launches, {} copies and sets, {} NVTX ranges from {} process(es)",
            trace.kernels.len(),
            trace.copies.len(),
            trace.ranges.len(),
            trace.processes.len()
        )
    };
    let n_warnings = artifact.warnings.len();
    artifact.trace = Some(Box::new(trace));
    files::write_artifact(&args.output, &artifact)?;
    let skipped = if n_warnings == 0 {
        "nothing skipped".to_string()
    } else {
        format!("{n_warnings} warning(s), see above")
    };
    Ok(format!(
        "imported {what} from {} Nsight Systems file(s) into {}; {skipped}",
        args.exports.len(),
        files::shown(&args.output)
    ))
}
