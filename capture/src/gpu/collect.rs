//! One ncu collection through a [`Profiler`], read back: the pages of one cache state's
//! report joined launch by launch, the metrics ncu dropped named, and the command lines and
//! pages recorded for provenance. `capture run` (the suite re-run under ncu) and `capture
//! profile` (the user's program under ncu) both collect through [`collect_under`]; [`attach`]
//! joins the collections to a timings artifact (`run`); [`profile_artifact`] builds an
//! artifact from them (`profile`), each spread over a sampled profile's plan by [`expand`],
//! which matches a collection of the plan's launches to the plan and spreads its counters
//! ([`shared::analysis::sampling::scale`]) to every launch.
//!
//! GPU-free: the profiler may be real ncu or a fake that replays fixture exports.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use shared::analysis::sampling::{self, plan::Plan};
use shared::model::artifact::{Artifact, CacheControl, LaunchCounters, Provenance};

use crate::exit::{Code, Fault};
use crate::files;

use super::ncu::args::{Collection, Pass, Selection};
use super::ncu::judge::{missing_metrics_at, no_kernels_message};
use super::ncu::{ProfileOutput, ProfileRequest, Profiler};

/// `cold` or `warm`, as file names and messages spell a cache state.
pub fn cache_name(c: CacheControl) -> &'static str {
    match c {
        CacheControl::Cold => "cold",
        CacheControl::Warm => "warm",
    }
}

/// Where a run keeps the ncu reports and pages: beside the artifact (`--keep-exports`) or in
/// a temporary folder removed at the end.
pub enum WorkDir {
    /// The artifact's folder.
    Kept(PathBuf),
    /// Removed when dropped, or by the Ctrl-C handler (which exits without dropping).
    Temp {
        /// The folder.
        dir: tempfile::TempDir,
        /// Unregisters the folder from the Ctrl-C handler when dropped.
        _undo: crate::interrupt::Guard,
    },
}

impl WorkDir {
    /// The artifact's folder when `keep`, else a new temporary folder.
    pub fn new(keep: bool, output: &Path) -> Result<WorkDir> {
        if keep {
            let dir = match output.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("{}: cannot create folder", dir.display()))?;
            Ok(WorkDir::Kept(dir))
        } else {
            let (dir, undo) = crate::interrupt::made(
                || tempfile::tempdir().context("cannot create a temporary folder for ncu"),
                |d| crate::interrupt::Undo::Remove(d.path().to_path_buf()),
            )?;
            Ok(WorkDir::Temp { dir, _undo: undo })
        }
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        match self {
            WorkDir::Kept(p) => p,
            WorkDir::Temp { dir, .. } => dir.path(),
        }
    }
}

/// The file-name stem of the exports: the artifact's own (`run` for `run.json`).
pub fn stem_of(output: &Path) -> String {
    output.file_stem().map_or_else(
        || "capture".to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// What a profile runs: the program and which of its launches ncu keeps.
pub struct Target<'a> {
    /// The program and its arguments (this executable in `--profile-mode` for `run`).
    pub program: &'a [OsString],
    /// Which of its launches.
    pub selection: Selection,
    /// More ncu arguments (`--ncu-arg`).
    pub ncu_args: Vec<String>,
    /// What the collection measures.
    pub pass: Pass,
    /// More environment for the program (`--torch-modules`' PYTHONPATH), set on ncu's
    /// process, which hands it on.
    pub env: Vec<(OsString, OsString)>,
}

impl Target<'_> {
    /// The collection of this target under `cache`.
    pub fn collection(&self, cache: CacheControl) -> Collection {
        Collection {
            pass: self.pass,
            cache,
            selection: self.selection.clone(),
            ncu_args: self.ncu_args.clone(),
        }
    }
}

/// What one ncu pass leaves for the artifact beside its launches.
#[derive(Default)]
pub struct PassRecord {
    /// The exact command lines run, collection first.
    pub commands: Vec<String>,
    /// The file names of the pages read.
    pub inputs: Vec<String>,
    /// For the artifact: the metrics ncu dropped, the reader's warnings (naming the page),
    /// then the profiler's.
    pub warnings: Vec<String>,
}

impl PassRecord {
    /// This record, then `next`'s: a pass that ran first leads.
    pub fn then(mut self, mut next: PassRecord) -> PassRecord {
        self.commands.append(&mut next.commands);
        self.inputs.append(&mut next.inputs);
        self.warnings.append(&mut next.warnings);
        self
    }

    /// Files the record in `artifact`: its warnings after the artifact's, its commands and
    /// pages after those of the provenance.
    fn file_in(mut self, artifact: &mut Artifact) {
        artifact.warnings.append(&mut self.warnings);
        artifact.provenance.ncu_commands.append(&mut self.commands);
        artifact.provenance.inputs.append(&mut self.inputs);
    }
}

/// One cache state's collection, read back.
pub struct Collected {
    /// The cache state it was collected under.
    pub cache: CacheControl,
    /// The launches of its pages, raw and details joined.
    pub launches: Vec<LaunchCounters>,
    /// Its commands, pages and warnings.
    pub record: PassRecord,
    /// The program's non-zero exit status, when it failed after launches were profiled.
    pub program_status: Option<i32>,
}

/// The file names of `pages`, for provenance.
pub fn page_names<'p>(pages: impl IntoIterator<Item = &'p PathBuf>) -> Vec<String> {
    pages
        .into_iter()
        .filter_map(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .collect()
}

/// The raw and details pages of one collection, read and joined launch by launch.
fn read_pages(
    out: &ProfileOutput,
) -> Result<(Vec<LaunchCounters>, Vec<shared::read::ncu::Warning>)> {
    let mut exports = vec![files::read_export(&out.raw)?];
    if let Some(details) = &out.details {
        exports.push(files::read_export(details)?);
    }
    Ok(shared::read::ncu::combine(exports))
}

/// A collection's warnings, in order: the requested metrics ncu dropped (`missing`), the
/// reader's warnings on its raw page `raw_csv`, then ncu's own (`ncu_warnings`).
fn collection_warnings(
    cache: CacheControl,
    missing: &[&str],
    reader_warnings: &[shared::read::ncu::Warning],
    raw_csv: &Path,
    ncu_warnings: Vec<String>,
) -> Vec<String> {
    let mut warnings = Vec::new();
    if !missing.is_empty() {
        warnings.push(format!(
            "{} ncu collection: requested metrics absent from the export (ncu dropped them): {}",
            cache_name(cache),
            missing.join(", ")
        ));
    }
    warnings.extend(
        reader_warnings
            .iter()
            .map(|w| format!("{}: {w}", raw_csv.display())),
    );
    warnings.extend(ncu_warnings);
    warnings
}

/// Collects one report of `target` under `cache` through `profiler`, named
/// `{stem}-ncu-{cache}` in `work_dir`, and reads its pages back.
pub fn collect_under(
    profiler: &dyn Profiler,
    cache: CacheControl,
    target: &Target<'_>,
    work_dir: &Path,
    stem: &str,
) -> Result<Collected> {
    let name = format!("{stem}-ncu-{}", cache_name(cache));
    let out = profiler.profile(&ProfileRequest {
        collection: target.collection(cache),
        program: target.program,
        work_dir,
        name: &name,
        env: &target.env,
    })?;
    let (launches, reader_warnings) = read_pages(&out)?;
    let missing = target
        .pass
        .depth()
        .map(|d| missing_metrics_at(&launches, d))
        .unwrap_or_default();
    let inputs = page_names(std::iter::once(&out.raw).chain(&out.details));
    let warnings = collection_warnings(cache, &missing, &reader_warnings, &out.raw, out.warnings);
    Ok(Collected {
        cache,
        launches,
        record: PassRecord {
            commands: out.commands,
            inputs,
            warnings,
        },
        program_status: out.program_status,
    })
}

/// Provenance every profiled artifact carries: the clocks ncu ran at and its version.
fn finish(provenance: &mut Provenance, profiler: &dyn Profiler) {
    provenance.clock_control = Some("none".into());
    provenance.ncu_version = profiler.version();
}

/// `capture run`: collects counters for every cache state and attaches them to the
/// artifact's kernel records; a kernel with no counters is [`Code::MissingKernel`].
pub fn attach(
    artifact: &mut Artifact,
    profiler: &dyn Profiler,
    caches: &[CacheControl],
    target: &Target<'_>,
    work_dir: &Path,
    stem: &str,
) -> Result<()> {
    for &cache in caches {
        let mut c = collect_under(profiler, cache, target, work_dir, stem)?;
        // The warnings stay when the counters do not fit (`run` still writes the timings);
        // the commands and pages are recorded once they did.
        artifact.warnings.append(&mut c.record.warnings);
        shared::analysis::merge::attach_counters(artifact, c.launches, cache)
            .map_err(|e| Fault::new(Code::MissingKernel, e.to_string()))?;
        c.record.file_in(artifact);
    }
    if !caches.is_empty() {
        finish(&mut artifact.provenance, profiler);
    }
    Ok(())
}

/// `capture profile`: an artifact from the collections, one kernel record per function
/// (the first collection's launches make the records; a later one's counters are attached
/// to them, with a warning where they do not fit). `lead` is the record of a pass that ran
/// before them (a sampled profile's timing pass): its commands, pages and warnings come
/// first. `None` when `collected` is empty.
pub fn import(
    lead: PassRecord,
    collected: Vec<Collected>,
    provenance: Provenance,
    profiler: &dyn Profiler,
) -> Option<Artifact> {
    let mut artifact: Option<Artifact> = None;
    let mut lead = Some(lead);
    for c in collected {
        let record = match lead.take() {
            Some(l) => l.then(c.record),
            None => c.record,
        };
        match artifact.as_mut() {
            None => {
                let mut a = shared::analysis::merge::import_launches(
                    c.launches,
                    Vec::new(),
                    provenance.clone(),
                );
                for k in &mut a.kernels {
                    if c.cache == CacheControl::Warm {
                        k.warm = k.cold.take().map(Box::new);
                    }
                    for set in k.cold.iter_mut().chain(k.warm.as_deref_mut()) {
                        set.cache_control = Some(c.cache);
                    }
                }
                record.file_in(artifact.insert(a));
            }
            Some(a) => {
                record.file_in(a);
                if let Err(e) = shared::analysis::merge::attach_counters(a, c.launches, c.cache) {
                    a.warnings.push(format!(
                        "{} counters not attached: {e}",
                        cache_name(c.cache)
                    ));
                }
            }
        }
    }
    let mut artifact = artifact?;
    finish(&mut artifact.provenance, profiler);
    Some(artifact)
}

/// A sampled profile's sample, as [`super::sample::time_and_plan`] makes it: the plan, and
/// the timing pass's record, which leads the artifact's commands, pages and warnings.
pub struct Sample {
    /// The plan made from the timing pass.
    pub plan: Plan,
    /// The timing pass's command line, page and warnings.
    pub timing: PassRecord,
}

/// A program that failed after ncu profiled launches: its exit status and how many launches
/// were profiled before that.
pub type ProgramFailed = (i32, usize);

/// What `capture profile` collects into its artifact.
pub struct ProfileCollection<'a> {
    /// The program, its launches (the plan's, once there is one) and the counters.
    pub target: &'a Target<'a>,
    /// One collection each, cold first.
    pub caches: &'a [CacheControl],
    /// Where the reports and pages go.
    pub work_dir: &'a Path,
    /// Their file-name stem.
    pub stem: &'a str,
    /// The program's name, for messages.
    pub program: &'a str,
    /// The sample, when the profile is sampled (`None` with `--all-launches`).
    pub sample: Option<Sample>,
    /// The artifact's provenance before ncu's clocks and version are added.
    pub provenance: Provenance,
    /// Warnings the artifact carries from the flags (a push/pop range filter's).
    pub notes: Vec<String>,
}

/// `capture profile`'s collections, made into its artifact: one collection per cache state,
/// cold first, each spread over the sample's plan when there is one ([`expand`]), then
/// [`import`]ed with the timing pass's record leading and labelled with its sample. A
/// collection with no launch is [`Code::NoKernels`]; after one whose program failed, the
/// remaining cache states are not tried (a warning says so) and the program's status and
/// launch count come back beside the artifact.
pub fn profile_artifact(
    profiler: &dyn Profiler,
    p: ProfileCollection<'_>,
) -> Result<(Artifact, Option<ProgramFailed>)> {
    let mut p = p;
    let mut collected = Vec::new();
    let mut failed = None;
    for (i, &cache) in p.caches.iter().enumerate() {
        let mut c = collect_under(profiler, cache, p.target, p.work_dir, p.stem)?;
        let mut c = match p.sample.as_mut() {
            Some(sample) => {
                // A plan from a trace takes ncu's names from the rows before matching them.
                let mut renamed =
                    sampling::from_trace::adopt_profiled_names(&mut sample.plan, &c.launches);
                c.record.warnings.append(&mut renamed);
                expand(&sample.plan, c)?
            }
            None => c,
        };
        if let Some(status) = c.program_status {
            if let Some(skipped) = p.caches.get(i + 1..).filter(|s| !s.is_empty()) {
                c.record.warnings.push(format!(
                    "not collected after the program failed: {}",
                    skipped
                        .iter()
                        .map(|&c| format!("{} caches", cache_name(c)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            failed = Some((status, c.launches.len()));
        }
        if c.launches.is_empty() {
            let collection = p.target.collection(cache);
            let message = no_kernels_message(p.program, &collection);
            return Err(Fault::new(Code::NoKernels, message).into());
        }
        collected.push(c);
        if failed.is_some() {
            break;
        }
    }
    let (plan, timing) = match p.sample {
        Some(s) => (Some(s.plan), s.timing),
        None => (None, PassRecord::default()),
    };
    let mut artifact = import(timing, collected, p.provenance, profiler)
        .ok_or_else(|| Fault::new(Code::Usage, "no cache state to collect"))?;
    artifact.warnings.extend(p.notes);
    if let Some(plan) = plan {
        sampling::label(&mut artifact, plan.groups.len(), plan.launches.len());
        if let Some(banner) = sampling::banner(&artifact) {
            artifact.warnings.insert(0, banner);
        }
    }
    Ok((artifact, failed))
}

/// A collection of the plan's launches (`collected`, selected by the plan's `--kernel-id`)
/// matched to the plan and spread to every launch ([`sampling::scale`]): a [`Collected`]
/// whose launches are every launch of the timing pass, its warnings followed by the
/// matching's and the spreading's. None of the plan's launches profiled is
/// [`Code::NoKernels`].
pub fn expand(plan: &Plan, collected: Collected) -> Result<Collected> {
    let Collected {
        cache,
        launches: rows,
        mut record,
        program_status,
    } = collected;
    let profiled = rows.len();
    let mut assigned = sampling::scale::assign_keeping(plan, rows);
    record.warnings.append(&mut assigned.warnings);
    let mut expanded = sampling::scale::expand(plan, assigned.rows);
    record.warnings.extend(expanded.warnings.iter().cloned());
    if let Some(w) = keep_strays(&mut expanded, assigned.strays) {
        record.warnings.push(w);
    }
    for w in assign_notes(&record.warnings) {
        super::progress::log(None, &format!("warning: {w}"));
    }
    super::progress::log(
        None,
        &format!(
            "sampled: {} of {} launches measured ({} profiled by ncu)",
            expanded.measured,
            expanded.launches.len(),
            profiled
        ),
    );
    if expanded.measured == 0 {
        return Err(Fault::new(
            Code::NoKernels,
            format!(
                "the profiling pass profiled {profiled} launch(es), none of them a launch of \
                 the plan; profile every launch with --all-launches"
            ),
        )
        .into());
    }
    Ok(Collected {
        cache,
        launches: expanded.launches,
        record,
        program_status,
    })
}

/// Keeps the profiled launches the timing pass never saw (`strays`) as measured launches
/// of their own, after the others, with ncu's own duration and new IDs past the last: a
/// program that launched other kernels in its profiling run than in its timing run (XLA's
/// autotuner chose other GEMM kernels for a JAX MLP from one run to the next, on the H200)
/// keeps every kernel ncu measured. Returns the warning that says so.
fn keep_strays(
    expanded: &mut sampling::scale::Expanded,
    strays: Vec<LaunchCounters>,
) -> Option<String> {
    if strays.is_empty() {
        return None;
    }
    let first = expanded
        .launches
        .iter()
        .map(|l| l.id)
        .max()
        .map_or(0, |m| m + 1);
    let mut names: Vec<String> = Vec::new();
    let n = strays.len();
    for (id, mut l) in (first..).zip(strays) {
        if !names.iter().any(|x| *x == *l.function) {
            names.push(l.function.to_string());
        }
        l.id = id;
        expanded.launches.push(l);
        expanded.measured += 1;
    }
    let shown: Vec<&str> = names.iter().take(3).map(String::as_str).collect();
    let more = names.len().saturating_sub(shown.len());
    Some(format!(
        "sampling: {n} profiled launch(es) of {} kernel(s) the timing pass never saw ({}{}) \
         are kept as measured, with ncu's own duration: the program launched other kernels \
         in its profiling run than in its timing run, as autotuners do (XLA's, torch.compile's \
         max-autotune), so time shares mix the two runs; pin the kernel choice, or profile \
         every launch in one run with --all-launches",
        names.len(),
        shown.join(", "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// The sampling warnings among a collection's (those the matching and the spreading gave),
/// which `capture profile` also prints as they happen.
fn assign_notes(warnings: &[String]) -> impl Iterator<Item = &String> {
    warnings.iter().filter(|w| w.starts_with("sampling: "))
}

#[cfg(test)]
mod tests {
    use super::super::fake::{self, timings};
    use super::*;
    use shared::model::counters;

    #[test]
    fn profiled_launches_the_timing_pass_never_saw_are_kept_and_said() {
        let launch = |id: u64, f: &str| LaunchCounters {
            id,
            function: f.into(),
            ..LaunchCounters::default()
        };
        let mut e = sampling::scale::Expanded {
            launches: vec![
                launch(0, "loop_multiply_fusion"),
                launch(1, "triton_softmax_2"),
            ],
            measured: 2,
            ..Default::default()
        };
        assert_eq!(keep_strays(&mut e, Vec::new()), None);
        let w = keep_strays(
            &mut e,
            vec![launch(0, "gemm_fusion_dot_general_3"), launch(1, "nvjet_a")],
        )
        .expect("a warning");
        let ids: Vec<u64> = e.launches.iter().map(|l| l.id).collect();
        assert_eq!(ids, [0, 1, 2, 3]);
        assert_eq!(e.measured, 4);
        assert!(
            w.contains("2 profiled launch(es) of 2 kernel(s)")
                && w.contains("gemm_fusion_dot_general_3, nvjet_a")
                && w.contains("autotuners"),
            "{w}"
        );
    }

    #[test]
    fn run_merge_path_attaches_replayed_counters_for_each_cache() {
        let mut a = timings("copy");
        let p = fake::probe();
        let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        attach(
            &mut a,
            &p,
            &[CacheControl::Cold, CacheControl::Warm],
            &Target {
                program: &["capture".into(), "run".into(), "--profile-mode".into()],
                selection: Selection {
                    kernel_filter: Some("regex:^(copy)$".into()),
                    launch_count: Some(1),
                    ..Selection::default()
                },
                ncu_args: Vec::new(),
                pass: Pass::Standard,
                env: Vec::new(),
            },
            work.path(),
            "h200",
        )
        .unwrap_or_else(|e| panic!("{e:#}"));
        let k = &a.kernels[0];
        let cold = k
            .cold
            .as_ref()
            .unwrap_or_else(|| panic!("no cold counters"));
        assert_eq!(cold.cache_control, Some(CacheControl::Cold));
        assert!(!cold.launches.is_empty());
        assert!(cold.launches[0]
            .metrics
            .contains_key(counters::DRAM_BYTES_READ.name));
        assert!(!cold.launches[0].sections.is_empty(), "details page joined");
        assert_eq!(
            k.warm.as_deref().and_then(|w| w.cache_control),
            Some(CacheControl::Warm)
        );
        let asked = p.asked.borrow();
        assert_eq!(asked.len(), 2);
        assert_eq!(
            asked[0].selection.kernel_filter.as_deref(),
            Some("regex:^(copy)$")
        );
        assert_eq!(asked[1].cache, CacheControl::Warm);
        assert_eq!(
            a.provenance.ncu_commands,
            ["fake h200-ncu-cold", "fake h200-ncu-warm"]
        );
        assert_eq!(a.provenance.ncu_version.as_deref(), Some("fake 1.0"));
        assert_eq!(a.provenance.clock_control.as_deref(), Some("none"));
        // The probe capture used a different metric set: what it lacks is named.
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("requested metrics absent")
                    && w.contains(counters::L2_BYTES.name)),
            "{:?}",
            a.warnings
        );
    }

    #[test]
    fn run_merge_path_names_a_kernel_the_profiler_never_saw() {
        let mut a = timings("vector_add");
        let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let err = attach(
            &mut a,
            &fake::probe(),
            &[CacheControl::Cold],
            &Target {
                program: &["x".into()],
                selection: Selection::default(),
                ncu_args: Vec::new(),
                pass: Pass::Standard,
                env: Vec::new(),
            },
            work.path(),
            "t",
        )
        .err()
        .unwrap_or_else(|| panic!("a kernel without counters must fail"));
        assert_eq!(crate::exit::code_of(&err), Code::MissingKernel);
        assert!(format!("{err:#}").contains("vector_add"), "{err:#}");
    }
}
