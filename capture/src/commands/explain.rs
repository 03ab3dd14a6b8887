//! `capture explain`: each kernel in a few lines for people and agents, built by
//! [`shared::analysis::explain`] from the bytes-table row; inputs are read as every read-only
//! command reads them ([`Input`]: an artifact, or the artifact an import of an export or
//! report makes).

use std::process::ExitCode;

use anyhow::{bail, Result};
use shared::analysis::explain::{explain as explain_all, Choice, Explanation};
use shared::analysis::table::{bytes_table, TableRow};

use crate::cli::{ExplainArgs, ExplainFormat};
use crate::files::input::Input;

/// The explanation of `input`, read as `artifact`: its kernels whose full name matches
/// `kernel` (all without one), at most `top` of them, most time first.
pub fn explained(
    input: &Input,
    artifact: shared::Artifact,
    kernel: Option<&str>,
    top: Option<usize>,
) -> Result<Explanation> {
    let pattern = kernel.map(super::kernel_pattern).transpose()?;
    let table = bytes_table(&artifact);
    let keep = |r: &TableRow| pattern.as_ref().is_none_or(|p| p.is_match(&r.name));
    let explained = explain_all(
        &artifact,
        &table,
        Choice {
            keep: Some(&keep),
            top,
        },
    );
    if let (Some(k), true) = (kernel, explained.kernels.is_empty()) {
        bail!("{}: no kernel matches --kernel {k:?}", input.name());
    }
    Ok(explained)
}

/// The next steps of `artifact` (the run `input`): its kernels whose full name matches
/// `kernel`, ranked by recoverable time, the first `top` ([`shared::analysis::next`]).
pub fn next(
    input: &Input,
    artifact: &shared::Artifact,
    kernel: Option<&str>,
    top: Option<usize>,
) -> Result<Vec<shared::analysis::next::NextStep>> {
    let pattern = kernel.map(super::kernel_pattern).transpose()?;
    let table = bytes_table(artifact);
    let keep = |r: &TableRow| pattern.as_ref().is_none_or(|p| p.is_match(&r.name));
    let all = explain_all(
        artifact,
        &table,
        Choice {
            keep: Some(&keep),
            top: None,
        },
    );
    if let (Some(k), true) = (kernel, all.kernels.is_empty()) {
        bail!("{}: no kernel matches --kernel {k:?}", input.name());
    }
    let mut steps = shared::analysis::next::next_steps(artifact, &table, &all);
    if let Some(n) = top {
        steps.truncate(n);
    }
    Ok(steps)
}

/// `capture explain`.
pub fn explain(args: &ExplainArgs) -> Result<ExitCode> {
    let (input, artifact) = super::read_in_range(&args.inputs, args.range.as_deref())?;
    if args.next {
        let steps = next(&input, &artifact, args.kernel.as_deref(), args.top)?;
        let text = match args.format {
            ExplainFormat::Text => shared::analysis::next::to_text(&steps),
            ExplainFormat::Json => serde_json::to_string_pretty(&steps)? + "\n",
        };
        crate::out::print(&text)?;
        return Ok(ExitCode::SUCCESS);
    }
    let explained = explained(&input, artifact, args.kernel.as_deref(), args.top)?;
    let text = match args.format {
        ExplainFormat::Text => explained.to_text(),
        ExplainFormat::Json => explained.to_json(),
    };
    crate::out::print(&text)?;
    Ok(ExitCode::SUCCESS)
}
