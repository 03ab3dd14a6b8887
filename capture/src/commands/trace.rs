//! `capture trace`: the program run once under CUPTI's activity trace, every process's
//! records read into one artifact (`Artifact::trace`), and a summary line printed. The
//! program's own exit status becomes capture's ([`Code::ProgramFailed`] when it failed), the
//! artifact written either way with what was recorded.

use std::process::ExitCode;

use anyhow::{Context, Result};
use std::path::PathBuf;

use shared::model::artifact::{Artifact, Origin, Provenance};

use crate::cli::TraceArgs;
use crate::exit::{Code, Fault};
use crate::gpu::trace::{
    describe, find_cupti, find_injection, list_records, read_records, run_traced,
};

/// Runs `capture trace`.
pub fn trace(args: &TraceArgs) -> Result<ExitCode> {
    if let Some(dir) = &args.from_records {
        let (trace, warnings) = read_records(dir, &args.program.join(" "), None)?;
        let mut artifact = Artifact::new(crate::provenance::base(Origin::Trace, &[]));
        artifact.warnings.extend(warnings);
        return write(args, &args.output, artifact, trace, None);
    }
    let output = output_of(args)?;
    let inject = find_injection(args.inject.as_deref())?;
    let cupti = find_cupti(args.cupti.as_deref())?;
    let work = tempfile::Builder::new()
        .prefix("capture-trace-")
        .tempdir()
        .context("cannot create a folder for the trace")?;
    let mut env = Vec::new();
    if args.torch_modules {
        env = super::profile::torch::environment(work.path(), "trace", args.torch_ops)?;
    }
    if args.counters {
        env.extend(counter_environment(args.counter_interval_ns));
    }
    let records = args
        .records
        .clone()
        .unwrap_or_else(|| work.path().join("records"));
    std::fs::create_dir_all(&records)
        .with_context(|| format!("{}: cannot create folder", records.display()))?;
    if list_records(&records)?.next().is_some() {
        return Err(Fault::new(
            Code::Usage,
            format!(
                "--records {}: the folder holds records of an earlier run; name an empty one",
                records.display()
            ),
        )
        .into());
    }
    let ended = run_traced(
        &args.program,
        &inject,
        &cupti,
        &records,
        args.flush_ms,
        &env,
    )?;
    let (trace, warnings) = read_records(&records, &args.program.join(" "), Some(&ended.status))?;
    let mut artifact = Artifact::new(Provenance {
        host: output.host,
        distributed: output.distributed,
        ..crate::provenance::base(Origin::Trace, &[])
    });
    artifact.warnings.extend(warnings);
    if !ended.status.success() {
        artifact.warnings.push(format!(
            "the program ({}) {}; the trace holds what was recorded until then",
            crate::shell::command_line(
                std::ffi::OsStr::new(&args.program[0]),
                &args.program[1..]
                    .iter()
                    .map(std::ffi::OsString::from)
                    .collect::<Vec<_>>()
            ),
            describe(&ended.status)
        ));
    }
    write(args, &output.path, artifact, trace, Some(&ended))
}

/// Where this process's trace goes: `-o` with `{rank}`, `{local_rank}` and `{host}` filled from
/// torchrun's, Open MPI's or Slurm's variables (as `capture profile` fills them), and this
/// process's place in the job for provenance.
struct Output {
    path: PathBuf,
    distributed: Option<shared::model::artifact::Distributed>,
    host: Option<String>,
}

fn output_of(args: &TraceArgs) -> Result<Output> {
    use crate::ranks::{self, OutputPlan, Placeholder, ProcessEnv};
    let distributed = ranks::detect(&ProcessEnv).map_err(super::usage)?;
    let host = crate::gpu::host::host_name();
    let allowed = [Placeholder::Rank, Placeholder::LocalRank, Placeholder::Host];
    let plan =
        OutputPlan::new(&args.output, &allowed, distributed, host.clone()).map_err(super::usage)?;
    let path = plan.path(None).map_err(super::usage)?;
    Ok(Output {
        path,
        distributed: plan.distributed().cloned(),
        host,
    })
}

/// The environment that asks the injection for PM sampling: the counters of
/// [`shared::model::counters::PM_SAMPLED`], most wanted first, at `interval_ns`.
pub fn counter_environment(interval_ns: u64) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    let names: Vec<&str> = shared::model::counters::PM_SAMPLED
        .iter()
        .map(|c| c.name)
        .collect();
    vec![
        ("ROOFLINE_PM_METRICS".into(), names.join(",").into()),
        (
            "ROOFLINE_PM_INTERVAL_NS".into(),
            interval_ns.max(1).to_string().into(),
        ),
    ]
}

/// Writes the artifact with its trace and prints the summary line; a failed program is
/// [`Code::ProgramFailed`] once the artifact is written.
fn write(
    args: &TraceArgs,
    path: &std::path::Path,
    mut artifact: Artifact,
    trace: shared::model::trace::Trace,
    ended: Option<&crate::gpu::trace::Ended>,
) -> Result<ExitCode> {
    let failed = ended.is_some_and(|e| !e.status.success());
    let kernels = trace.kernels.len();
    let copies = trace.copies.len();
    let ranges = trace.ranges.len();
    let processes = trace.processes.len();
    let names = shared::analysis::trace::kernel_summary(&trace).len();
    let program = args.program.join(" ");
    artifact.trace = Some(Box::new(trace));
    for w in &artifact.warnings {
        crate::out::warn(w);
    }
    crate::files::write_artifact(path, &artifact)?;
    crate::out::println(&format!(
        "trace: {kernels} kernel launches ({names} kernels), {copies} copies and sets, \
         {ranges} NVTX ranges from {processes} process(es) in {:.2} s of {program} -> {}",
        ended.map_or(0.0, |e| e.wall.as_secs_f64()),
        crate::files::shown(path)
    ))?;
    if failed {
        return Err(Fault::new(
            Code::ProgramFailed,
            format!(
                "the traced program {}; the artifact holds what was recorded",
                ended.map_or_else(String::new, |e| describe(&e.status))
            ),
        )
        .into());
    }
    Ok(ExitCode::SUCCESS)
}
