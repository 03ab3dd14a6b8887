//! `capture profile`'s one collection path, read as a recipe: [`ProfileRun::conduct`] calls
//! its steps in order: sample (the timing pass and the plan) -> collect (each cache state,
//! cold first, spread over the plan, into one artifact) -> write. A sampled profile (the
//! default) takes every step; `--all-launches` skips the sample, so its collections hold
//! every launch and there is nothing to spread. The steps' work lives below:
//! [`crate::gpu::sample`] (the timing pass and the plan), [`crate::gpu::collect`] (the
//! collections read back, spread and made into the artifact), `shared` for every figure.
//!
//! GPU-free: the profiler may be real ncu or a fake (the tests of [`super`] drive it).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use shared::analysis::sampling::Depth;
use shared::model::artifact::{Artifact, CacheControl, Distributed, Origin, Provenance};

use super::super::table::render;
use crate::cli::TableFormat;
use crate::exit::{Code, Fault};
use crate::files;
use crate::gpu::collect::{self, stem_of, ProfileCollection, ProgramFailed, Target, WorkDir};
use crate::gpu::ncu::args::{Pass, Selection};
use crate::gpu::ncu::Profiler;
use crate::gpu::{host, progress, sample};

/// Resolved configuration of `capture profile`: what [`super::resolve_profile`] makes of
/// its flags.
pub struct ProfileConfig {
    /// The program and its arguments; the program was found and may be executed.
    pub(super) program: Vec<OsString>,
    /// The program's name, for messages.
    pub(super) program_name: String,
    /// Which of its launches.
    pub(super) selection: Selection,
    /// More ncu arguments, checked (`--ncu-arg`).
    pub(super) ncu_args: Vec<String>,
    /// One collection each, cold first.
    pub(super) caches: Vec<CacheControl>,
    /// Where the artifact goes: `-o` with its placeholders filled.
    pub(super) output: PathBuf,
    /// Keep the reports and pages beside it.
    pub(super) keep_exports: bool,
    /// This process's place in a job, for provenance.
    pub(super) distributed: Option<Distributed>,
    /// This machine's host name, for provenance.
    pub(super) host: Option<String>,
    /// Profile every launch (`--all-launches`) rather than a sample.
    pub(super) all_launches: bool,
    /// Stop after printing the plan.
    pub(super) plan_only: bool,
    /// What to collect per launch.
    pub(super) depth: Depth,
    /// Warnings about the flags, printed at the start and carried by the artifact (a
    /// push/pop range filter's, [`super::push_pop_note`]).
    pub(super) notes: Vec<String>,
    /// PyTorch module ranges (`--torch-modules`), and op ranges too when `Some(true)`.
    pub(super) torch_ops: Option<bool>,
    /// Where a sampled profile's timing pass comes from (`--timing-pass`).
    pub(super) timing: sample::TimingSource,
}

/// One `capture profile` under way: its configuration, where ncu's reports
/// go, and what each collection runs.
pub(super) struct ProfileRun<'a> {
    /// The resolved flags.
    cfg: &'a ProfileConfig,
    /// Where the reports and pages go (beside the artifact with `--keep-exports`).
    work: WorkDir,
    /// Their file-name stem: the artifact's.
    stem: String,
    /// The program, its launches and the counters at `--depth`; the plan narrows the
    /// launches to the sample's.
    target: Target<'a>,
    /// When the run started, for the closing line.
    started: Instant,
}

impl<'a> ProfileRun<'a> {
    /// A run of `cfg`, its work folder made (with `--torch-modules`' sitecustomize).
    fn new(cfg: &'a ProfileConfig) -> Result<Self> {
        let work = WorkDir::new(cfg.keep_exports, &cfg.output)?;
        let stem = stem_of(&cfg.output);
        let env = match cfg.torch_ops {
            Some(ops) => super::torch::environment(work.path(), &stem, ops)?,
            None => Vec::new(),
        };
        Ok(ProfileRun {
            started: Instant::now(),
            cfg,
            work,
            stem,
            target: Target {
                program: &cfg.program,
                selection: cfg.selection.clone(),
                ncu_args: cfg.ncu_args.clone(),
                pass: Pass::Counters(cfg.depth),
                env,
            },
        })
    }

    /// `capture profile` of `cfg` through `profiler`, the recipe. A program that fails
    /// after launches were profiled still gets its artifact, then [`Code::ProgramFailed`];
    /// the warm collection is not tried after a failed cold one. `--plan-only` stops after
    /// the plan.
    pub(super) fn conduct(cfg: &'a ProfileConfig, profiler: &'a dyn Profiler) -> Result<ExitCode> {
        let mut run = ProfileRun::new(cfg)?;
        // Sample: the timing pass and the plan; the collections select its launches.
        let sample = if cfg.all_launches {
            None
        } else {
            let sample = sample::time_and_plan(
                profiler,
                &cfg.timing,
                &run.target,
                run.work.path(),
                &run.stem,
                &cfg.program_name,
                cfg.depth,
            )?;
            if cfg.plan_only {
                return Ok(ExitCode::SUCCESS);
            }
            run.target.selection.kernel_id = Some(sample.plan.kernel_id());
            Some(sample)
        };
        // Collect: each cache state, spread over the plan, into one artifact.
        let (artifact, failed) = collect::profile_artifact(
            profiler,
            ProfileCollection {
                target: &run.target,
                caches: &cfg.caches,
                work_dir: run.work.path(),
                stem: &run.stem,
                program: &cfg.program_name,
                sample,
                provenance: Provenance {
                    host: cfg.host.clone(),
                    driver_version: host::nvidia_driver_version(),
                    distributed: cfg.distributed.clone(),
                    ..crate::provenance::base(Origin::Profile, &[])
                },
                notes: cfg.notes.clone(),
            },
        )?;
        run.write(&artifact, failed)
    }

    /// Write: the artifact, then its table (rendered first, so that a closed pipe on the
    /// table's output cannot lose the artifact); then the program's failure, if it failed.
    fn write(&self, artifact: &Artifact, failed: Option<ProgramFailed>) -> Result<ExitCode> {
        let output = &self.cfg.output;
        let table = render(artifact, TableFormat::Table);
        files::write_artifact(output, artifact)?;
        crate::out::print(&table)?;
        if let Some((status, launches)) = failed {
            return Err(Fault::new(
                Code::ProgramFailed,
                format!(
                    "the program {} exited with status {status}; wrote {} with the {launches} \
                     launch(es) ncu profiled before that",
                    self.cfg.program_name,
                    output.display()
                ),
            )
            .into());
        }
        progress::log(
            None,
            &format!(
                "wrote {} ({} kernels) in {:.1} s",
                output.display(),
                artifact.kernels.len(),
                self.started.elapsed().as_secs_f64()
            ),
        );
        Ok(ExitCode::SUCCESS)
    }
}
