//! `capture diff BEFORE AFTER`: run against run, computed by `shared::analysis::diff` (the viewer's
//! compare page shows the same), printed as a table, Markdown or JSON. The comparability
//! check runs first and refuses unfair comparisons unless `--force`; `--gate` exits 12
//! when the total or a counted kernel got slower beyond its noise band, and 13 when it
//! cannot judge the runs (`shared::analysis::diff::Gate::cannot_judge`), told what the
//! artifact reader did not take as written. `--gate-work` gates on the work vector
//! (`shared::analysis::diff::work`) with the same codes, time shown beside it. `--by range`
//! compares NVTX range by range instead (`shared::analysis::diff::ranges`), with the same
//! comparability check and no gate.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{bail, Result};
use shared::analysis::certificate::Certificate;
use shared::analysis::diff::drift::{self, Drift, Drifted};
use shared::analysis::diff::launches::{self, LaunchCounts};
use shared::analysis::diff::ranges::range_diff;
use shared::analysis::diff::render::DiffForms;
use shared::analysis::diff::work::{work_diff, WorkTolerance};
use shared::analysis::diff::{
    clocks, diff_loaded, Comparability, Gate, GateOptions, Mismatch, RunDiff,
};
use shared::analysis::trace_diff::trace_diff;
use shared::model::artifact::LoadWarning;
use shared::text::table::Format;
use shared::Artifact;

use crate::cli::{DiffArgs, DiffFormat, TableBy};
use crate::exit::{Code, Fault};
use crate::files;
use crate::files::input::{Input, Run};

/// The run of `first` and the pages given with it (`--before-page`, `--after-page`), read
/// as every read-only command reads its input ([`Input`]), with its name.
pub(crate) fn read_side(first: &Path, more: &[PathBuf]) -> Result<(Run, String)> {
    let input = Input::new(
        std::iter::once(first.to_path_buf())
            .chain(more.iter().cloned())
            .collect(),
    )?;
    Ok((input.read_warned()?, input.name()))
}

/// Kernel against kernel as `capture diff` and MCP's `compare` show it: the time diff
/// ([`diff_loaded`]) with the clock control read from each run's launches where it records
/// none ([`clocks::with_clocks_read`]), and its launch counts with the change per launch
/// ([`launches::of_diff`]), shown beside it ([`launches::Launched`]).
pub(crate) fn kernel_diff(
    before: (&Artifact, &[LoadWarning]),
    after: (&Artifact, &[LoadWarning]),
    gate: GateOptions,
) -> (RunDiff, LaunchCounts) {
    let mut d = diff_loaded(before, after, gate);
    d.comparability = clocks::with_clocks_read(d.comparability, before.0, after.0);
    let counts = launches::of_diff(&d, before.0, after.0);
    (d, counts)
}

/// A kernel diff with its launch counts in `format`.
pub(crate) fn launched_in_format(d: &RunDiff, counts: &LaunchCounts, format: DiffFormat) -> String {
    let l = launches::Launched {
        diff: d,
        launch_counts: counts,
    };
    match format {
        DiffFormat::Table => l.to_text(),
        DiffFormat::Markdown => l.to_markdown(),
        DiffFormat::Json => l.to_json(),
    }
}

/// A kernel diff whose bands include the run-to-run drift, with its launch counts, in
/// `format`: the launch-count forms, then the drift's words (JSON: its `drift` key too).
pub(crate) fn drifted_launched_in_format(
    d: &Drifted,
    counts: &LaunchCounts,
    format: DiffFormat,
) -> String {
    match format {
        DiffFormat::Table => {
            let mut out = launched_in_format(&d.diff, counts, format);
            out.push_str(&d.drift.words());
            out.push('\n');
            out
        }
        DiffFormat::Markdown => {
            let mut out = launched_in_format(&d.diff, counts, format);
            out.push('\n');
            out.push_str(&d.drift.words());
            out.push('\n');
            out
        }
        DiffFormat::Json => {
            let mut s = serde_json::to_string_pretty(&drifted_launched_value(d, counts))
                .unwrap_or_default();
            s.push('\n');
            s
        }
    }
}

/// The JSON of a diff with its drift and launch counts: the diff's fields, `launch_counts` and
/// `drift`.
pub(crate) fn drifted_launched_value(d: &Drifted, counts: &LaunchCounts) -> serde_json::Value {
    let l = launches::Launched {
        diff: &d.diff,
        launch_counts: counts,
    };
    let mut v = serde_json::to_value(l).unwrap_or_default();
    if let (Some(map), Ok(drift)) = (v.as_object_mut(), serde_json::to_value(&d.drift)) {
        map.insert("drift".into(), drift);
    }
    v
}

/// Writes the certificate of `d` (`--certificate`) to `path`, never over an input.
fn write_certificate(
    path: &Path,
    args: &DiffArgs,
    d: &RunDiff,
    runs: (&Artifact, &Artifact),
) -> Result<()> {
    let before: Vec<PathBuf> = std::iter::once(args.before.clone())
        .chain(args.before_page.iter().cloned())
        .collect();
    let after: Vec<PathBuf> = std::iter::once(args.after.clone())
        .chain(args.after_page.iter().cloned())
        .collect();
    files::refuse_output_among_inputs(path, before.iter().chain(&after))?;
    let cert = Certificate::of(
        d,
        runs,
        [
            files::input::digests(&before)?,
            files::input::digests(&after)?,
        ],
    );
    files::write_atomic(path, cert.to_json().as_bytes())?;
    crate::out::eprint_line(&format!(
        "certificate written to {} ({}); check it with capture verify",
        files::shown(path),
        cert.claim
    ));
    Ok(())
}

/// The tolerance file of `--work-tolerance`, read and checked; errors name the file.
fn read_tolerance(path: &Path) -> Result<WorkTolerance> {
    let bytes = files::read_bytes(path)?;
    let text = String::from_utf8_lossy(&bytes);
    WorkTolerance::from_json(&text).map_err(|e| anyhow::anyhow!("{}: {e}", files::shown(path)))
}

/// Whether a mismatch refuses the diff: with the work gate, a metric set or sampling that
/// differs does not (the gate compares the parts both runs have, a sampled launch counted
/// as its group's measured one).
fn refuses(m: &Mismatch, work_gate: bool) -> bool {
    !(work_gate && matches!(m.what.as_str(), "metric_set" | "sampling"))
}

/// The exit code the gates asked for give: 13 when one cannot judge the runs, 12 when
/// one failed, none when they passed (or none was asked for).
fn gate_code(d: &RunDiff) -> Option<Code> {
    let cannot_judge = d.gate.as_ref().is_some_and(|g| !g.cannot_judge.is_empty())
        || d.work.as_ref().is_some_and(|w| !w.cannot_judge.is_empty());
    let failed =
        d.gate.as_ref().is_some_and(|g| g.failed) || d.work.as_ref().is_some_and(|w| w.failed);
    if cannot_judge {
        Some(Code::GateCannotJudge)
    } else if failed {
        Some(Code::GateFailed)
    } else {
        None
    }
}

/// What failed, on standard error, the work gate's first; and the parts the work gate left
/// out, so that none is left out in silence.
fn report_gates(d: &RunDiff) {
    if let Some(w) = &d.work {
        let mut parts: Vec<&str> = Vec::new();
        let mut kernels = 0;
        for k in w.kernels.iter().filter(|k| !k.not_compared.is_empty()) {
            kernels += 1;
            for p in &k.not_compared {
                if !parts.contains(&p.as_str()) {
                    parts.push(p);
                }
            }
        }
        if kernels > 0 {
            crate::out::warn(&format!(
                "work gate: {} not compared on {kernels} kernel(s): one run's metric set does                  not collect them",
                parts.join(", ")
            ));
        }
    }
    let work = d.work.as_ref().map(|w| {
        let why = format!("work grew by more than {} % beyond its tolerance", w.pct);
        ("work gate", &w.cannot_judge, why, &w.failures)
    });
    let time = d.gate.as_ref().map(|g| {
        let why = format!("slower by more than {} % beyond the noise", g.pct);
        ("gate", &g.cannot_judge, why, &g.failures)
    });
    for (gate, cannot_judge, why, failures) in work.into_iter().chain(time) {
        if !cannot_judge.is_empty() {
            crate::out::eprint_line(&format!(
                "{gate} failed: it cannot judge these runs: {}",
                cannot_judge.join("; ")
            ));
        }
        if !failures.is_empty() {
            crate::out::eprint_line(&format!("{gate} failed: {why}: {}", failures.join("; ")));
        }
    }
}

/// A comparison in `format`.
pub(crate) fn in_format(d: &dyn DiffForms, format: DiffFormat) -> String {
    match format {
        DiffFormat::Table => d.text(),
        DiffFormat::Markdown => d.markdown(),
        DiffFormat::Json => d.json(),
    }
}

/// Refuses runs the comparability check finds unfair, unless `force` or a mismatch the
/// work gate tolerates; else warns of each mismatch. A gate that cannot judge the runs
/// says so first, with its own exit code.
fn check_fair(
    (before, after): (&str, &str),
    comparability: &Comparability,
    gate: Option<&Gate>,
    force: bool,
    work_gate: bool,
) -> Result<()> {
    if comparability.comparable() {
        return Ok(());
    }
    let reasons = comparability.reasons();
    let refused_by = comparability
        .mismatches
        .iter()
        .any(|m| refuses(m, work_gate));
    if !force && refused_by {
        let refused = format!(
            "{before} and {after} cannot be compared fairly:\n  {}\n(--force compares them \
             anyway, with this as a warning)",
            reasons.join("\n  ")
        );
        // A damaged run is often unfair too (a timing dropped on load); the gate's own
        // code says it could not judge, whatever else is wrong.
        return Err(match gate.filter(|g| !g.cannot_judge.is_empty()) {
            Some(g) => Fault::new(
                Code::GateCannotJudge,
                format!(
                    "gate failed: it cannot judge these runs: {}\n{refused}",
                    g.cannot_judge.join("; ")
                ),
            ),
            None => Fault::new(Code::Failure, refused),
        }
        .into());
    }
    let why = if force { "--force" } else { "--gate-work" };
    for r in &reasons {
        crate::out::warn(&format!("not comparable ({why}): {r}"));
    }
    Ok(())
}

/// Two traces (`capture trace`) compared kernel name by kernel name and copy kind by copy
/// kind, the work gate failing on a kernel or copy that appeared or grew; `None` when
/// neither run is a trace. One trace against a profile cannot be judged (exit 13).
fn diff_traces(
    args: &DiffArgs,
    (before, after): (&Artifact, &Artifact),
    (b, a): &(String, String),
) -> Result<Option<ExitCode>> {
    let (bt, at) = match (before.trace.as_deref(), after.trace.as_deref()) {
        (None, None) => return Ok(None),
        (Some(bt), Some(at)) => (bt, at),
        _ => {
            return Err(Fault::new(
                Code::GateCannotJudge,
                format!(
                    "{b} and {a}: one is a trace (capture trace) and the other is not; a trace \
                     is compared with a trace"
                ),
            )
            .into())
        }
    };
    let d = trace_diff(bt, at, args.gate_work);
    let format = match args.format {
        DiffFormat::Markdown => Format::Markdown,
        _ => Format::Text,
    };
    if args.format == DiffFormat::Json {
        let mut text = serde_json::to_string_pretty(&d).unwrap_or_default();
        text.push('\n');
        crate::out::print(&text)?;
    } else {
        crate::out::print(&format!("{b} -> {a}\n{}", d.render(format)))?;
    }
    if !d.cannot_judge.is_empty() {
        crate::out::eprint_line(&format!(
            "work gate failed: it cannot judge these traces: {}",
            d.cannot_judge.join("; ")
        ));
        return Ok(Some(ExitCode::from(Code::GateCannotJudge as u8)));
    }
    if !d.failures.is_empty() {
        crate::out::eprint_line(&format!("work gate failed: {}", d.failures.join("; ")));
        return Ok(Some(ExitCode::from(Code::GateFailed as u8)));
    }
    Ok(Some(ExitCode::SUCCESS))
}

/// `d` with its bands widened by the run-to-run drift ([`drift::widen`]): measured over
/// `--baseline-runs`, read from `--noise-tolerance`'s time spread, or none (within-run
/// bands, with the determinism runs' median drift as the least change called beyond the
/// noise).
fn widen_by_drift(d: RunDiff, args: &DiffArgs) -> Result<Drifted> {
    let measured = if !args.baseline_runs.is_empty() {
        let runs: Vec<Artifact> = args
            .baseline_runs
            .iter()
            .map(|p| {
                files::input::Input::new(vec![p.clone()])?
                    .read()
                    .map(|r| r.artifact)
            })
            .collect::<Result<_>>()?;
        let refs: Vec<&Artifact> = runs.iter().collect();
        Drift::of_runs(&refs)
    } else if let Some(path) = &args.noise_tolerance {
        let file = files::shown(path);
        let Some(spread) = read_tolerance(path)?.time else {
            bail!(
                "{file}: no measured time spread (`time`: {{cv_pct, max_cv_pct, kernels}}, \
                 written by tests/determinism/cv.py)"
            );
        };
        Drift::of_tolerance(&file, spread)
    } else {
        Drift::within_run_only()
    };
    Ok(drift::widen(d, measured))
}

/// `capture diff`.
pub fn diff(args: &DiffArgs) -> Result<ExitCode> {
    let depth = args
        .by
        .checked_depth(args.depth)
        .map_err(anyhow::Error::msg)?;
    if args.by == TableBy::Range
        && (args.gate.is_some() || args.gate_work.is_some() || args.certificate.is_some())
    {
        bail!(
            "--gate, --gate-work and --certificate compare kernels: they apply to --by kernel \
             only"
        );
    }
    let tolerance = args
        .work_tolerance
        .as_deref()
        .map(read_tolerance)
        .transpose()?;
    let (before_run, before_name) = read_side(&args.before, &args.before_page)?;
    let (after_run, after_name) = read_side(&args.after, &args.after_page)?;
    let (before, before_warnings) = (before_run.artifact, before_run.load_warnings);
    let (after, after_warnings) = (after_run.artifact, after_run.load_warnings);
    let names = (before_name, after_name);
    if let Some(code) = diff_traces(args, (&before, &after), &names)? {
        return Ok(code);
    }
    if args.by == TableBy::Range {
        let mut d = range_diff(&before, &after, depth).named(names.0, names.1);
        d.comparability = clocks::with_clocks_read(d.comparability, &before, &after);
        for w in &d.warnings {
            crate::out::warn(w);
        }
        check_fair(
            (&d.before, &d.after),
            &d.comparability,
            None,
            args.force,
            false,
        )?;
        crate::out::print(&in_format(&d, args.format))?;
        return Ok(ExitCode::SUCCESS);
    }
    let (d, counts) = kernel_diff(
        (&before, &before_warnings),
        (&after, &after_warnings),
        GateOptions {
            pct: args.gate,
            share_pct: args.gate_share,
        },
    );
    let mut d = d.named(names.0, names.1);
    if let Some(pct) = args.gate_work {
        d = d
            .with_work(work_diff(&before, &after, pct, tolerance.as_ref()))
            .with_flagged_times_refused();
    }
    // The certificate holds the diff as `capture verify` recomputes it from the two runs: the
    // within-run bands, before any widening by the drift.
    let unwidened = args.certificate.is_some().then(|| d.clone());
    let d = widen_by_drift(d, args)?;
    check_fair(
        (&d.diff.before, &d.diff.after),
        &d.diff.comparability,
        d.diff.gate.as_ref(),
        args.force,
        args.gate_work.is_some(),
    )?;
    if let (Some(path), Some(u)) = (&args.certificate, &unwidened) {
        write_certificate(path, args, u, (&before, &after))?;
    }
    let code = gate_code(&d.diff);
    report_gates(&d.diff);
    crate::out::print(&drifted_launched_in_format(&d, &counts, args.format))?;
    Ok(code.map_or(ExitCode::SUCCESS, |c| ExitCode::from(c as u8)))
}
