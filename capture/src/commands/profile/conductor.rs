//! `capture profile`'s one collection path, read as a recipe: [`ProfileRun::conduct`] calls
//! its steps in order: time -> plan -> collect (each cache state, cold first) -> expand (each
//! collection over the plan) -> write. A sampled profile (the default) takes every step;
//! `--all-launches` skips the timing pass and the plan, so its collections hold every launch
//! and the expand step has nothing to spread. The steps' work lives below:
//! [`crate::gpu::sample`] (the timing pass, the plan's text, the spreading),
//! [`crate::gpu::collect`] (one collection read back, and the artifact made of them),
//! `shared` for every figure.
//!
//! GPU-free: the profiler may be real ncu or a fake (the tests of [`super`] drive it).

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::Result;
use shared::analysis::sampling::plan::{self, Plan, PlanOptions};
use shared::analysis::sampling::{self, Depth};
use shared::model::artifact::{Artifact, CacheControl, Distributed, Origin, Provenance};

use super::super::table::print_table;
use super::super::usage;
use crate::cli::TableFormat;
use crate::exit::{Code, Fault};
use crate::files;
use crate::gpu::collect::{self, cache_name, stem_of, Collected, PassRecord, Target, WorkDir};
use crate::gpu::ncu::args::{program_name, Pass, Selection};
use crate::gpu::ncu::judge::no_kernels_message;
use crate::gpu::ncu::Profiler;
use crate::gpu::sample::{self, Timed};
use crate::gpu::{host, progress};

/// Resolved configuration of `capture profile`: what [`super::resolve_profile`] makes of
/// its flags.
pub struct ProfileConfig {
    /// The program and its arguments; the program was found and may be executed.
    pub(super) program: Vec<OsString>,
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
}

/// A program that failed after ncu profiled launches: its exit status and how many launches
/// were profiled before that.
type ProgramFailed = (i32, usize);

/// The sample the plan step picks: the plan, and the timing pass's record, which leads the
/// artifact's commands, pages and warnings.
struct Sample {
    /// The plan made from the timing pass.
    plan: Plan,
    /// The timing pass's command line, page and warnings.
    timing: PassRecord,
}

/// One `capture profile` under way: its configuration, its profiler, where ncu's reports
/// go, and what each collection runs.
pub(super) struct ProfileRun<'a> {
    /// The resolved flags.
    cfg: &'a ProfileConfig,
    /// Real ncu, or a fake in tests.
    profiler: &'a dyn Profiler,
    /// Where the reports and pages go (beside the artifact with `--keep-exports`).
    work: WorkDir,
    /// Their file-name stem: the artifact's.
    stem: String,
    /// The program, its launches and the counters at `--depth`; the plan narrows the
    /// launches to the sample's.
    target: Target<'a>,
    /// The program's name, for messages.
    program: String,
    /// When the run started, for the closing line.
    started: Instant,
}

impl<'a> ProfileRun<'a> {
    /// A run of `cfg` through `profiler`, its work folder made.
    fn new(cfg: &'a ProfileConfig, profiler: &'a dyn Profiler) -> Result<Self> {
        Ok(ProfileRun {
            started: Instant::now(),
            cfg,
            profiler,
            work: WorkDir::new(cfg.keep_exports, &cfg.output)?,
            stem: stem_of(&cfg.output),
            program: program_name(&cfg.program),
            target: Target {
                program: &cfg.program,
                selection: cfg.selection.clone(),
                ncu_args: cfg.ncu_args.clone(),
                pass: Pass::Counters(cfg.depth),
            },
        })
    }

    /// `capture profile` of `cfg` through `profiler`, the recipe. A program that fails
    /// after launches were profiled still gets its artifact, then [`Code::ProgramFailed`];
    /// the warm collection is not tried after a failed cold one. `--plan-only` stops after
    /// the plan.
    pub(super) fn conduct(cfg: &'a ProfileConfig, profiler: &'a dyn Profiler) -> Result<ExitCode> {
        let mut run = ProfileRun::new(cfg, profiler)?;
        let sample = if cfg.all_launches {
            None
        } else {
            let timed = run.time()?;
            let sample = run.plan(timed)?;
            if cfg.plan_only {
                return Ok(ExitCode::SUCCESS);
            }
            Some(sample)
        };
        let (collected, failed) = run.collect_caches(sample.as_ref().map(|s| &s.plan))?;
        let artifact = run.artifact(sample, collected)?;
        run.write(&artifact, failed)
    }

    /// Time: the timing pass over every launch the filters keep.
    fn time(&self) -> Result<Timed> {
        sample::timing_pass(self.profiler, &self.target, self.work.path(), &self.stem)
    }

    /// Plan: the sample of `timed`'s launches to profile, printed with its predicted cost;
    /// the collections select its launches from here on.
    fn plan(&mut self, timed: Timed) -> Result<Sample> {
        let plan = plan::plan(timed.launches, &PlanOptions::default());
        let text = sample::plan_text(&plan, self.cfg.depth, timed.wall_s);
        crate::out::println(&text)?;
        self.target.selection.kernel_id = Some(plan.kernel_id());
        Ok(Sample {
            plan,
            timing: timed.record,
        })
    }

    /// Collect: one collection per cache state, cold first, each expanded over `plan` when
    /// there is one. A collection with no launch is [`Code::NoKernels`]; after one whose
    /// program failed, the remaining cache states are not tried (a warning says so) and the
    /// program's status and launch count come back beside the collections.
    fn collect_caches(
        &self,
        plan: Option<&Plan>,
    ) -> Result<(Vec<Collected>, Option<ProgramFailed>)> {
        let caches = &self.cfg.caches;
        let mut collected = Vec::new();
        for (i, &cache) in caches.iter().enumerate() {
            let c = collect::collect_under(
                self.profiler,
                cache,
                &self.target,
                self.work.path(),
                &self.stem,
            )?;
            let mut c = self.expand(plan, c)?;
            if c.launches.is_empty() {
                let collection = self.target.collection(cache);
                let message = no_kernels_message(&self.program, &collection);
                return Err(Fault::new(Code::NoKernels, message).into());
            }
            if let Some(status) = c.program_status {
                if let Some(skipped) = caches.get(i + 1..).filter(|s| !s.is_empty()) {
                    c.record.warnings.push(format!(
                        "not collected after the program failed: {}",
                        skipped
                            .iter()
                            .map(|&c| format!("{} caches", cache_name(c)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
                let failed = (status, c.launches.len());
                collected.push(c);
                return Ok((collected, Some(failed)));
            }
            collected.push(c);
        }
        Ok((collected, None))
    }

    /// Expand: a collection of the plan's launches spread to every launch; every launch
    /// was profiled already where there is no plan.
    fn expand(&self, plan: Option<&Plan>, c: Collected) -> Result<Collected> {
        match plan {
            Some(plan) => sample::expand(plan, c),
            None => Ok(c),
        }
    }

    /// The artifact of the collections, the timing pass's record leading, labelled with
    /// its sample.
    fn artifact(&self, sample: Option<Sample>, collected: Vec<Collected>) -> Result<Artifact> {
        let provenance = Provenance {
            host: self.cfg.host.clone(),
            driver_version: host::nvidia_driver_version(),
            distributed: self.cfg.distributed.clone(),
            ..crate::provenance::base(Origin::Profile, &[])
        };
        let (plan, timing) = match sample {
            Some(s) => (Some(s.plan), s.timing),
            None => (None, PassRecord::default()),
        };
        let mut artifact = collect::import(timing, collected, provenance, self.profiler)
            .ok_or_else(|| usage("no cache state to collect"))?;
        if let Some(note) = super::push_pop_note(&self.cfg.selection.nvtx_include) {
            artifact.warnings.push(note);
        }
        if let Some(plan) = plan {
            sampling::label(&mut artifact, plan.groups.len(), plan.launches.len());
            if let Some(banner) = sampling::banner(&artifact) {
                artifact.warnings.insert(0, banner);
            }
        }
        Ok(artifact)
    }

    /// Write: the artifact and its table; then the program's failure, if it failed.
    fn write(&self, artifact: &Artifact, failed: Option<ProgramFailed>) -> Result<ExitCode> {
        let output = &self.cfg.output;
        files::write_artifact(output, artifact)?;
        print_table(artifact, TableFormat::Table)?;
        if let Some((status, launches)) = failed {
            return Err(Fault::new(
                Code::ProgramFailed,
                format!(
                    "the program {} exited with status {status}; wrote {} with the {launches} \
                     launch(es) ncu profiled before that",
                    self.program,
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
