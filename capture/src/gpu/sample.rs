//! What a sampled `capture profile` adds before the collections: the timing pass over every
//! launch and the plan, printed with its predicted cost ([`time_and_plan`]); the
//! collections are spread over the plan by [`super::collect::expand`].
//!
//! **Launch selection.** After the plan, each collection selects the plan's launches with
//! one `--kernel-id :::^(1|2|20)$` (any context, stream and kernel; the picked invocation
//! numbers, [`Plan::kernel_id`]), with
//! `--kernel-name-base mangled`, under which ncu counts invocations per kernel name as
//! `shared::analysis::sampling::timing::number_invocations` does (measured on the H200:
//! 94 of 94 launches as planned on a BERT-base step; `demangled` miscounted cuBLAS and cuDNN
//! extern "C" kernels). One run of the program
//! profiles every group; the other way, one run per group with `-k`, `-s` and `-c`, would
//! run the program once per group (44 runs of a 15 s program for the recorded BERT step).
//! The price is that a number picked for one kernel is profiled in all that have it; the
//! planner picks numbers that cost least and counts every launch they select. Where ncu's
//! count differs from the plan's (cuBLAS `nvjet` launches on the H200), each profiled row
//! is still matched to a launch of its kernel and shape, with a warning, and a group left
//! with no profiled launch borrows from the nearest profiled launch of its kernel.
//!
//! **The timing pass from a trace.** Where it can ([`TimingSource`]), the timing pass is one
//! plain run of the program under capture's CUPTI trace (`capture trace`'s injection), not
//! ncu's duration pass, which replays every launch alone: the trace gives each launch's
//! duration, shape and ranges, numbered as ncu's `--kernel-id` counts
//! (`shared::analysis::sampling::from_trace`); the plan takes ncu's names from the profiling
//! pass's rows (`from_trace::adopt_profiled_names`, called by [`super::collect`]).
//!
//! GPU-free: the profiler may be real ncu or a fake (tests below replay the recorded
//! training step).

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::Result;
use shared::analysis::sampling::from_trace;
use shared::analysis::sampling::plan::{self, Plan, PlanOptions};
use shared::analysis::sampling::timing::{self, TimedLaunch};
use shared::analysis::sampling::{
    Depth, SECONDS_PER_PASS, TIMING_PASSES, TIMING_SECONDS_PER_LAUNCH,
};
use shared::model::artifact::CacheControl;
use shared::text::names::distinct_short_names;

use crate::exit::{Code, Fault};
use crate::files;
use crate::gpu::trace::{read_records, run_traced};

use super::collect::{page_names, PassRecord, Sample, Target};
use super::ncu::args::{Collection, Pass};
use super::ncu::{ProfileRequest, Profiler};

/// The timing pass, read back.
pub struct Timed {
    /// Every launch the filters keep, with its duration.
    pub launches: Vec<TimedLaunch>,
    /// Its wall time, seconds.
    pub wall_s: f64,
    /// Its command line, page and warnings, for the artifact.
    pub record: PassRecord,
    /// Whether it was a trace (one plain run) rather than ncu's duration pass.
    pub traced: bool,
}

/// Where a sampled profile's timing pass takes every launch's duration from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimingSource {
    /// One plain run under capture's CUPTI trace: this injection library and this CUPTI.
    Trace {
        /// `libroofline_inject.so`.
        inject: PathBuf,
        /// `libcupti.so`.
        cupti: PathBuf,
    },
    /// ncu's duration pass, every launch replayed alone.
    Ncu,
}

/// The sample step of a sampled `capture profile`: the timing pass of `target` from
/// `source` (a trace that cannot stand in for ncu's pass falls back to it, saying why),
/// named `program` in messages, then the plan of which launches to profile, printed with its
/// predicted cost at `depth` ([`plan_text`]).
pub fn time_and_plan(
    profiler: &dyn Profiler,
    source: &TimingSource,
    target: &Target<'_>,
    work_dir: &Path,
    stem: &str,
    program: &str,
    depth: Depth,
) -> Result<Sample> {
    let timed = match source {
        TimingSource::Trace { inject, cupti } => {
            match trace_timing_pass(inject, cupti, target, work_dir, stem, program)? {
                Ok(t) => t,
                Err(why) => {
                    crate::gpu::progress::log(
                        None,
                        &format!("the trace cannot time this program's launches: {why}; timing them with ncu"),
                    );
                    let mut t = timing_pass(profiler, target, work_dir, stem, program)?;
                    t.record.warnings.insert(
                        0,
                        format!("timing pass: ncu's, as the trace could not stand in ({why})"),
                    );
                    t
                }
            }
        }
        TimingSource::Ncu => timing_pass(profiler, target, work_dir, stem, program)?,
    };
    let plan = plan::plan(timed.launches, &PlanOptions::default());
    crate::out::println(&plan_text(&plan, depth, timed.wall_s, timed.traced))?;
    Ok(Sample {
        plan,
        timing: timed.record,
    })
}

/// The timing pass as one plain run under the trace, its records in `{stem}-trace` in
/// `work_dir`. `Ok(Err(why))` where the trace cannot stand in for ncu's pass (a process
/// that lost records or did not end, kernels of several processes, a range filter it cannot
/// evaluate); a program that fails is [`Code::ProgramFailed`], as in ncu's pass.
fn trace_timing_pass(
    inject: &Path,
    cupti: &Path,
    target: &Target<'_>,
    work_dir: &Path,
    stem: &str,
    program: &str,
) -> Result<Result<Timed, String>> {
    let dir = work_dir.join(format!("{stem}-trace"));
    std::fs::create_dir_all(&dir)
        .map_err(|e| anyhow::anyhow!("{}: cannot create folder: {e}", dir.display()))?;
    let args: Vec<String> = target
        .program
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let started = Instant::now();
    let ended = run_traced(&args, inject, cupti, &dir, TRACE_FLUSH_MS, &target.env)?;
    let wall_s = started.elapsed().as_secs_f64();
    if !ended.status.success() {
        return Err(Fault::new(
            Code::ProgramFailed,
            format!(
                "the program {program} {} during the timing pass (traced), so the launches to \
                 sample are not known; nothing written (--all-launches keeps the launches \
                 profiled before a failure)",
                crate::gpu::trace::describe(&ended.status)
            ),
        )
        .into());
    }
    let (trace, warnings) = read_records(&dir, program, Some(&ended.status))?;
    if let Some(p) = trace
        .processes
        .iter()
        .find(|p| !p.complete || p.dropped_records > 0)
    {
        return Ok(Err(format!(
            "process {} {}",
            p.pid,
            if p.complete {
                format!("lost {} records", p.dropped_records)
            } else {
                "did not finish its records".to_owned()
            }
        )));
    }
    let launches = match from_trace::timed_launches(
        &trace,
        &target.selection.nvtx_include,
        &target.selection.nvtx_exclude,
    ) {
        Ok(l) => l,
        Err(e) => return Ok(Err(e.to_string())),
    };
    let env: Vec<String> = target
        .env
        .iter()
        .map(|(k, v)| format!("{}={}", k.to_string_lossy(), v.to_string_lossy()))
        .collect();
    let command = format!(
        "CUDA_INJECTION64_PATH={} NVTX_INJECTION64_PATH={} {}{}",
        inject.display(),
        cupti.display(),
        env.iter().map(|e| format!("{e} ")).collect::<String>(),
        crate::shell::command_line(&target.program[0], &target.program[1..])
    );
    Ok(Ok(Timed {
        launches,
        wall_s,
        traced: true,
        record: PassRecord {
            commands: vec![command],
            inputs: vec![format!("{stem}-trace")],
            warnings,
        },
    }))
}

/// How often the trace timing pass's injection writes its buffers, ms (`capture trace`'s
/// default `--flush-ms`).
const TRACE_FLUSH_MS: u32 = 250;

/// Runs the timing pass (one ncu pass of `gpu__time_duration.sum` over every launch the
/// filters keep), named `{stem}-ncu-timing` in `work_dir`. A program that fails during it
/// is [`Code::ProgramFailed`] (naming it `program`): the launches to sample are not known.
pub fn timing_pass(
    profiler: &dyn Profiler,
    target: &Target<'_>,
    work_dir: &Path,
    stem: &str,
    program: &str,
) -> Result<Timed> {
    let name = format!("{stem}-ncu-timing");
    let started = Instant::now();
    let out = profiler.profile(&ProfileRequest {
        collection: Collection {
            pass: Pass::Timing,
            ..target.collection(CacheControl::Warm)
        },
        program: target.program,
        work_dir,
        name: &name,
        env: &target.env,
    })?;
    let wall_s = started.elapsed().as_secs_f64();
    if let Some(n) = out.program_status {
        return Err(Fault::new(
            Code::ProgramFailed,
            format!(
                "the program {program} exited with status {n} during the timing pass, so the launches \
                 to sample are not known; nothing written (--all-launches keeps the launches \
                 profiled before a failure)"
            ),
        )
        .into());
    }
    let export = files::read_export(&out.raw)?;
    let launches = timing::timed_launches(&export.launches)
        .map_err(|e| Fault::new(Code::NcuFailed, format!("{}: {e}", out.raw.display())))?;
    let mut warnings: Vec<String> = export
        .warnings
        .iter()
        .map(|w| format!("{}: {w}", out.raw.display()))
        .collect();
    warnings.extend(out.warnings);
    Ok(Timed {
        launches,
        wall_s,
        traced: false,
        record: PassRecord {
            commands: out.commands,
            inputs: page_names([&out.raw]),
            warnings,
        },
    })
}

/// The predicted cost of the profiling pass at `depth`, against every launch's.
fn cost_line(plan: &Plan, depth: Depth, timing_wall_s: f64, traced: bool) -> String {
    let mut out = String::new();
    let passes = depth.passes();
    let predicted = plan.predicted_seconds(passes.assumed, SECONDS_PER_PASS);
    let every = f64::from(passes.assumed) * plan.launches.len() as f64 * SECONDS_PER_PASS;
    let (program, how) = if traced {
        (timing_wall_s, "the timing pass's wall".to_owned())
    } else {
        (
            (timing_wall_s - plan.launches.len() as f64 * TIMING_SECONDS_PER_LAUNCH).max(0.0),
            format!("the timing pass's wall less {TIMING_SECONDS_PER_LAUNCH:.3} s per launch"),
        )
    };
    out.push_str(&format!(
        "predicted profiling pass at --depth {}: {} passes ({}) x {} launches x {:.3} s per \
         pass = {predicted:.1} s of replay, plus one more run of the program (about {program:.1} \
         s: {how}); every launch (--all-launches): {every:.1} s of replay\n",
        depth.name(),
        passes.assumed,
        passes.source,
        plan.selected.len(),
        SECONDS_PER_PASS,
    ));
    out
}

/// The plan as `capture profile` prints it before profiling: the groups, the launches
/// measured and the predicted cost at `depth`, against profiling every launch. `traced`:
/// the timing pass was one plain run under the trace, not ncu's duration pass.
pub fn plan_text(plan: &Plan, depth: Depth, timing_wall_s: f64, traced: bool) -> String {
    let mut out = String::new();
    let kernels: std::collections::BTreeSet<&str> =
        plan.launches.iter().map(|l| l.function.as_str()).collect();
    let how = if traced {
        "one plain run under the trace, no replay".to_owned()
    } else {
        format!("{TIMING_PASSES} ncu pass each")
    };
    out.push_str(&format!(
        "timing pass: {} launches of {} kernels, {:.3} ms of kernel time, {how}, in \
         {timing_wall_s:.1} s\n",
        plan.launches.len(),
        kernels.len(),
        plan.total_ns / 1e6,
    ));
    let o = &plan.options;
    out.push_str(&format!(
        "plan: {} groups of alike launches (kernel x grid x block, split by duration where its \
         coefficient of variation is above {:.2}); {} groups of at least {:.0} % of the time \
         get up to {} measured launches, the others 1, but {} groups under {:.1} % of the time \
         borrow from their kernel's nearest measured launch and {} tails under {:.1} % (a \
         smaller grid of a kernel and block) from its bigger grid, scaled by blocks\n",
        plan.groups.len(),
        o.split_cv,
        plan.groups.iter().filter(|g| g.major).count(),
        100.0 * o.major_share,
        o.major_picks,
        plan.groups.iter().filter(|g| g.borrows && !g.tail).count(),
        100.0 * o.minor_share,
        plan.groups.iter().filter(|g| g.tail).count(),
        100.0 * o.tail_share
    ));
    out.push_str(&format!(
        "measured: {} of {} launches, their groups {:.1} % of the time (ncu --kernel-id '{}')\n",
        plan.selected.len(),
        plan.launches.len(),
        100.0 * plan.time_covered(),
        plan.kernel_id()
    ));
    out.push_str(&cost_line(plan, depth, timing_wall_s, traced));
    out.push_str("depths: ");
    out.push_str(
        &Depth::ALL
            .iter()
            .map(|d| {
                let p = d.passes();
                match p.measured {
                    Some(n) => format!("{} {n} passes", d.name()),
                    None => format!("{} ({})", d.name(), p.source),
                }
            })
            .collect::<Vec<_>>()
            .join(", "),
    );
    out.push_str("\n\n  time %  launches  measured    cv  kernel (grid)(block)\n");
    // One short name per kernel (a kernel split into several groups keeps its name).
    let functions: Vec<&str> = kernels.iter().copied().collect();
    let short: std::collections::HashMap<&str, String> = functions
        .iter()
        .copied()
        .zip(distinct_short_names(&functions))
        .collect();
    for g in &plan.groups {
        let Some(first) = g.launches.first().and_then(|&i| plan.launches.get(i)) else {
            continue;
        };
        let name = short
            .get(first.function.as_str())
            .cloned()
            .unwrap_or_default();
        let dims =
            |d: Option<[u32; 3]>| d.map_or("-".to_string(), |[x, y, z]| format!("({x},{y},{z})"));
        out.push_str(&format!(
            "  {:6.1}  {:8}  {:8}  {:4.2}  {}{} {}{}\n",
            100.0 * g.time_ns / plan.total_ns.max(f64::MIN_POSITIVE),
            g.launches.len(),
            g.measured.len(),
            g.cv,
            name,
            if g.split { " [split by duration]" } else { "" },
            dims(first.grid),
            dims(first.block),
        ));
    }
    out
}

#[cfg(test)]
pub mod tests {
    //! The whole sampled flow on the recorded BERT training step, with a profiler that
    //! replays it: the timing pass's page for the timing pass, and for the profiling pass
    //! the rows of the profile of every launch that ncu's `--kernel-id` would select.

    use std::cell::RefCell;
    use std::io::Read;

    use super::super::collect::{collect_under, expand};
    use super::super::ncu::args as ncu;
    use super::super::ncu::ProfileOutput;
    use super::*;
    use shared::model::artifact::LaunchCounters;

    /// The launches of a sampled collection that were measured.
    fn measured(launches: &[LaunchCounters]) -> usize {
        launches.iter().filter(|l| l.sampled_from.is_none()).count()
    }

    /// The recorded step's fixtures.
    fn fixture(name: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/ncu-h200-train")
            .join(name);
        let gz = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut out = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut out)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        out
    }

    /// The fields of one CSV line of an ncu page (quoted fields, `""` inside).
    fn fields(line: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut cur = String::new();
        let mut quoted = false;
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    cur.push('"');
                    chars.next();
                }
                ('"', _) => quoted = !quoted,
                (',', false) => out.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        out.push(cur);
        out
    }

    /// Replays the recorded step as ncu would run it.
    pub struct TrainingStep {
        /// Every collection asked for.
        pub asked: RefCell<Vec<Collection>>,
    }

    impl TrainingStep {
        /// The launch IDs whose invocation number (counted per kernel name, from the
        /// timing page's own text, as ncu counts with `--kernel-name-base mangled`)
        /// matches `kernel_id`'s `^(a|b|...)$`.
        fn selected(kernel_id: &str) -> Vec<String> {
            let numbers: Vec<u64> = kernel_id
                .trim_start_matches(":::^(")
                .trim_end_matches(")$")
                .split('|')
                .filter_map(|n| n.parse().ok())
                .collect();
            let text = String::from_utf8(fixture("timing_raw.csv.gz")).unwrap_or_default();
            let mut seen = std::collections::HashMap::new();
            let mut ids = Vec::new();
            for line in text.lines().skip(2) {
                let f = fields(line);
                // Column 6: the kernel name.
                let n = seen.entry(f[6].clone()).or_insert(0u64);
                *n += 1;
                if numbers.contains(n) {
                    ids.push(f[0].clone());
                }
            }
            ids
        }

        /// `page` with only the rows of launches `ids`, renumbered from 0 as ncu numbers
        /// the launches it profiled.
        fn filtered(page: &[u8], ids: &[String], header_lines: usize) -> String {
            let text = String::from_utf8_lossy(page);
            let mut out = String::new();
            let mut renumber: Vec<String> = Vec::new();
            for (n, line) in text.lines().enumerate() {
                if n < header_lines {
                    out.push_str(line);
                    out.push('\n');
                    continue;
                }
                let f = fields(line);
                if !ids.contains(&f[0]) {
                    continue;
                }
                let new = match renumber.iter().position(|i| *i == f[0]) {
                    Some(p) => p,
                    None => {
                        renumber.push(f[0].clone());
                        renumber.len() - 1
                    }
                };
                let rest = line.split_once(',').map_or("", |(_, r)| r);
                out.push_str(&format!("\"{new}\",{rest}\n"));
            }
            out
        }
    }

    impl Profiler for TrainingStep {
        fn version(&self) -> Option<String> {
            Some("replay 2025.3.1".into())
        }

        fn profile(&self, req: &ProfileRequest<'_>) -> Result<ProfileOutput> {
            self.asked.borrow_mut().push(req.collection.clone());
            let raw_csv = req.work_dir.join(format!("{}-raw.csv", req.name));
            let details_csv = req.work_dir.join(format!("{}-details.csv", req.name));
            match req.collection.pass {
                Pass::Timing => {
                    std::fs::write(&raw_csv, fixture("timing_raw.csv.gz"))?;
                }
                _ => {
                    let id = req.collection.selection.kernel_id.as_deref().unwrap_or("");
                    let ids = Self::selected(id);
                    let raw = fixture("train_all-ncu-cold-raw.csv.gz");
                    std::fs::write(&raw_csv, Self::filtered(&raw, &ids, 2))?;
                    let details = fixture("train_all-ncu-cold-details.csv.gz");
                    std::fs::write(&details_csv, Self::filtered(&details, &ids, 1))?;
                }
            }
            Ok(ProfileOutput {
                raw: raw_csv,
                details: (req.collection.pass != Pass::Timing).then_some(details_csv),
                commands: vec![format!("replay {}", req.name)],
                warnings: Vec::new(),
                program_status: None,
            })
        }
    }

    /// The replaying profiler, nothing asked yet.
    pub fn training_step() -> TrainingStep {
        TrainingStep {
            asked: RefCell::new(Vec::new()),
        }
    }

    #[test]
    fn the_sampled_flow_profiles_the_plans_launches_and_spreads_them_to_every_launch() {
        let p = training_step();
        let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let program = ["python3".into(), "bert_train_bf16.py".into()];
        let target = Target {
            program: &program,
            selection: ncu::Selection {
                nvtx_include: vec!["step/".into()],
                ..ncu::Selection::default()
            },
            ncu_args: Vec::new(),
            pass: Pass::Standard,
            env: Vec::new(),
        };
        let timed =
            timing_pass(&p, &target, work.path(), "t", "prog").unwrap_or_else(|e| panic!("{e:#}"));
        let plan = plan::plan(timed.launches, &PlanOptions::default());
        assert_eq!(plan.launches.len(), 172);
        let text = plan_text(&plan, Depth::Standard, timed.wall_s, false);
        assert!(
            text.contains("measured: 74 of 172 launches, their groups"),
            "{text}"
        );
        assert!(text.contains("25 passes (measured"), "{text}");
        let target = Target {
            selection: ncu::Selection {
                kernel_id: Some(plan.kernel_id()),
                ..target.selection
            },
            pass: Pass::Counters(Depth::Standard),
            ..target
        };
        let collected = collect_under(&p, CacheControl::Cold, &target, work.path(), "t")
            .unwrap_or_else(|e| panic!("{e:#}"));
        let c = expand(&plan, collected).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(c.record.warnings.is_empty(), "{:?}", c.record.warnings);
        assert_eq!(c.launches.len(), 172);
        assert_eq!(measured(&c.launches), 74);
        let asked = p.asked.borrow();
        assert_eq!(asked[0].pass, Pass::Timing);
        assert_eq!(asked[0].selection.nvtx_include, ["step/"]);
        assert_eq!(asked[1].pass, Pass::Counters(Depth::Standard));
        assert_eq!(
            asked[1].selection.kernel_id.as_deref(),
            Some(":::^(1|2|3|6|15|24|29|32|69)$")
        );
        assert_eq!(asked[1].selection.nvtx_include, ["step/"], "filters kept");
        // Every launch carries the timing pass's duration.
        let total: f64 = c
            .launches
            .iter()
            .filter_map(|l| {
                l.metrics
                    .number(shared::model::counters::GPU_TIME_DURATION.name)
            })
            .sum();
        assert!((total - plan.total_ns).abs() < 1e-6 * total, "{total}");
        // The details page came along with each measured launch and with its copies.
        assert!(c.launches.iter().all(|l| !l.sections.is_empty()));
    }
}
