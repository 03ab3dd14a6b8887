//! The Nsight Compute driver: the metric set every view needs, the exact ncu command lines
//! (collection into a report, then `--import` into clean CSV pages in base units), and the
//! [`Profiler`] trait with its real implementation [`Ncu`], which runs ncu with a time limit
//! and turns its failures into documented exit codes. Tests drive the same code paths with a
//! fake profiler that replays real exports, or with a fake `ncu` program.
//!
//! Following the verified recipe: ncu writes a report with `-o` while the program's own
//! output goes to a log file; `ncu --import REPORT --csv --page raw|details --print-units base`
//! then prints CSV with no program output mixed in.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::analysis::sampling::Depth;
use shared::model::artifact::{CacheControl, LaunchCounters};
use shared::model::counters::{self, Counter};

use crate::exit::{Code, Fault};

use super::ncu_log;

/// Every raw metric the views need, asked for by name: the catalog's
/// [`counters::PROFILE`], in its order. ncu silently drops a name it does not know, so
/// [`missing_metrics_at`] checks that each came back.
pub const METRICS: &[Counter] = counters::PROFILE;

/// The `--metrics` value: every name of [`METRICS`], then the warp-state counters
/// ([`counters::STALLS`]), the tensor-work counters ([`counters::TENSOR`]) of every
/// architecture (ncu keeps the ones the GPU has and drops the others) and the pipe and
/// L1-fill counters ([`counters::PIPES`]), comma separated.
pub fn metrics_arg() -> String {
    METRICS
        .iter()
        .chain(counters::STALLS)
        .chain(counters::TENSOR)
        .chain(counters::PIPES)
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(",")
}

/// Sections collected beside the metrics, for the details page (Speed of Light, memory
/// workload, occupancy, launch statistics).
pub const SECTIONS: &[&str] = &[
    "SpeedOfLight",
    "MemoryWorkloadAnalysis",
    "Occupancy",
    "LaunchStats",
];

/// Which page an import prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// One row per launch, one column per metric.
    Raw,
    /// One row per section metric.
    Details,
}

impl Page {
    fn as_str(self) -> &'static str {
        match self {
            Page::Raw => "raw",
            Page::Details => "details",
        }
    }
}

/// Which launches of the program ncu profiles. ncu applies the filters in this order: NVTX
/// ranges and the kernel name pick the matching launches, `-s` skips the first of them, `-c`
/// stops after that many.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    /// `-k` filter (`regex:...`), if any.
    pub kernel_filter: Option<String>,
    /// `-s`: skip this many matching launches first.
    pub launch_skip: Option<u64>,
    /// `-c`: at most this many launches.
    pub launch_count: Option<u64>,
    /// `--nvtx-include`, each (implies `--nvtx`).
    pub nvtx_include: Vec<String>,
    /// `--nvtx-exclude`, each (implies `--nvtx`).
    pub nvtx_exclude: Vec<String>,
    /// `--kernel-id` (`context:stream:name:invocation`): a sampled profile's representatives
    /// ([`shared::analysis::sampling::plan::Plan::kernel_id`]). ncu counts invocations per
    /// kernel name of the `--kernel-name-base` in force: `mangled` unless `-k` is given
    /// (then `demangled`, the names `-k` matches). With `demangled`, ncu 2025.3 names
    /// extern "C" kernels (cuBLAS `nvjet_*`, cuDNN `cudnn_generated_*`) after an earlier
    /// launch's name and so miscounts them (seen on the H200: tests/fixtures/ncu-h200-train/base12).
    pub kernel_id: Option<String>,
}

impl Selection {
    /// The filters that can leave launches out, as `capture profile` flags, for messages.
    pub fn filters(&self) -> Vec<String> {
        let mut f = Vec::new();
        if let Some(k) = &self.kernel_filter {
            f.push(format!(
                "--kernel-name {}",
                k.strip_prefix("regex:").unwrap_or(k)
            ));
        }
        if let Some(n) = self.launch_skip {
            f.push(format!("--launch-skip {n}"));
        }
        f.extend(
            self.nvtx_include
                .iter()
                .map(|r| format!("--nvtx-include {r}")),
        );
        f.extend(
            self.nvtx_exclude
                .iter()
                .map(|r| format!("--nvtx-exclude {r}")),
        );
        f
    }
}

/// What a collection measures.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Pass {
    /// The timing pass of a sampled profile: `gpu__time_duration.sum` only, one pass, caches
    /// and clocks left alone (`--cache-control none --clock-control none`), no sections.
    Timing,
    /// Counters at a depth: its metric list and sections.
    Counters(Depth),
    /// Counters for every view ([`Depth::Standard`]): what `capture run` collects.
    #[default]
    Standard,
}

impl Pass {
    /// The depth of the counters; `None` for the timing pass.
    pub fn depth(self) -> Option<Depth> {
        match self {
            Pass::Timing => None,
            Pass::Counters(d) => Some(d),
            Pass::Standard => Some(Depth::Standard),
        }
    }
}

/// Sections `--depth full` adds to [`SECTIONS`]: the rest of ncu's `--set full`.
pub const FULL_SECTIONS: &[&str] = &[
    "ComputeWorkloadAnalysis",
    "InstructionStats",
    "SchedulerStats",
    "WarpStateStats",
    "SourceCounters",
    "MemoryWorkloadAnalysis_Chart",
    "MemoryWorkloadAnalysis_Tables",
];

/// The sections collected at `depth`: none for the roofline (its counters are asked by
/// name), [`SECTIONS`] for standard, with [`FULL_SECTIONS`] for full.
pub fn sections(depth: Depth) -> Vec<&'static str> {
    match depth {
        Depth::Roofline => Vec::new(),
        Depth::Standard => SECTIONS.to_vec(),
        Depth::Full => SECTIONS.iter().chain(FULL_SECTIONS).copied().collect(),
    }
}

/// The `--metrics` value at `depth` ([`Depth::metrics`]), comma separated.
pub fn depth_metrics_arg(depth: Depth) -> String {
    depth
        .metrics()
        .iter()
        .map(|c| c.name)
        .collect::<Vec<_>>()
        .join(",")
}

/// What one collection asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collection {
    /// What it measures.
    pub pass: Pass,
    /// Cold (`--cache-control all`, kernel replay) or warm (`--cache-control none`,
    /// application replay).
    pub cache: CacheControl,
    /// Which launches.
    pub selection: Selection,
    /// More ncu arguments, verbatim, placed before the program (`--ncu-arg`).
    pub ncu_args: Vec<String>,
}

/// The ncu arguments (after the ncu program itself) that collect one report from `program`.
pub fn collect_args(report: &Path, c: &Collection, program: &[OsString]) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["-f".into(), "-o".into(), report.as_os_str().to_owned()];
    a.extend(["--clock-control", "none"].map(OsString::from));
    if c.pass == Pass::Timing {
        a.extend(["--cache-control", "none"].map(OsString::from));
    } else {
        let (cache, replay) = match c.cache {
            CacheControl::Cold => ("all", "kernel"),
            CacheControl::Warm => ("none", "application"),
        };
        a.extend(["--cache-control", cache, "--replay-mode", replay].map(OsString::from));
    }
    let sel = &c.selection;
    if let Some(id) = &sel.kernel_id {
        let base = if sel.kernel_filter.is_some() {
            "demangled"
        } else {
            "mangled"
        };
        a.extend(["--kernel-name-base", base, "--kernel-id"].map(OsString::from));
        a.push(id.into());
    }
    if let Some(k) = &sel.kernel_filter {
        a.push("-k".into());
        a.push(k.into());
    }
    if let Some(n) = sel.launch_skip {
        a.push("-s".into());
        a.push(n.to_string().into());
    }
    if let Some(n) = sel.launch_count {
        a.push("-c".into());
        a.push(n.to_string().into());
    }
    let wants_nvtx = !sel.nvtx_include.is_empty() || !sel.nvtx_exclude.is_empty();
    if wants_nvtx && !c.ncu_args.iter().any(|x| x == "--nvtx") {
        a.push("--nvtx".into());
    }
    for (flag, ranges) in [
        ("--nvtx-include", &sel.nvtx_include),
        ("--nvtx-exclude", &sel.nvtx_exclude),
    ] {
        for r in ranges {
            a.push(flag.into());
            a.push(r.into());
        }
    }
    a.push("--metrics".into());
    match c.pass.depth() {
        None => a.push(counters::GPU_TIME_DURATION.name.into()),
        Some(Depth::Standard | Depth::Full) => a.push(metrics_arg().into()),
        Some(depth) => a.push(depth_metrics_arg(depth).into()),
    }
    for s in c.pass.depth().map(sections).unwrap_or_default() {
        a.push("--section".into());
        a.push(s.into());
    }
    a.extend(c.ncu_args.iter().map(OsString::from));
    a.extend(program.iter().cloned());
    a
}

/// ncu options capture sets itself, each with what to use instead. `--ncu-arg` refuses
/// them: given twice, ncu would refuse the run or the artifact would misreport it.
const OWNED_OPTIONS: &[(&[&str], &str)] = &[
    (
        &["-o", "--export", "-f", "--force-overwrite"],
        "capture writes the report itself; --keep-exports keeps it",
    ),
    (&["--log-file"], "capture reads ncu's log to judge the run"),
    (
        &["--clock-control"],
        "capture profiles at --clock-control none and records that in the artifact",
    ),
    (
        &["--cache-control", "--replay-mode"],
        "use --cache cold|warm|both",
    ),
    (
        &["-k", "--kernel-name", "--kernel-regex"],
        "use --kernel-name",
    ),
    (&["-s", "--launch-skip"], "use --launch-skip"),
    (&["-c", "--launch-count"], "use --launch-count"),
    (&["--nvtx-include"], "use --nvtx-include"),
    (&["--nvtx-exclude"], "use --nvtx-exclude"),
    (
        &["--import"],
        "use capture import on an existing report's CSV pages",
    ),
];

/// Checks `--ncu-arg` values: one that names an option capture sets is refused with the
/// capture flag to use instead.
pub fn check_ncu_args(args: &[String]) -> Result<(), String> {
    for arg in args {
        let option = arg.split('=').next().unwrap_or(arg);
        for (names, instead) in OWNED_OPTIONS {
            let hit = names.iter().any(|n| {
                option == *n
                    // A short option with its value attached (`-kname`).
                    || (n.len() == 2 && !option.starts_with("--") && option.starts_with(n))
            });
            if hit {
                return Err(format!(
                    "--ncu-arg {arg}: capture sets this ncu option itself ({instead})"
                ));
            }
        }
    }
    Ok(())
}

/// The ncu arguments that print one page of a report as CSV in base units.
pub fn import_args(report: &Path, page: Page) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["--import".into(), report.as_os_str().to_owned()];
    a.extend(["--csv", "--page", page.as_str(), "--print-units", "base"].map(OsString::from));
    a
}

/// The report file ncu writes for `-o base` (it appends `.ncu-rep`).
pub fn report_file(base: &Path) -> PathBuf {
    let mut s = base.as_os_str().to_owned();
    s.push(".ncu-rep");
    PathBuf::from(s)
}

/// One argument quoted for a POSIX shell when it needs it.
pub fn shell_quote(arg: &OsStr) -> String {
    let s = arg.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A whole command line, quoted for a shell.
pub fn command_line(program: &OsStr, args: &[OsString]) -> String {
    std::iter::once(shell_quote(program))
        .chain(args.iter().map(|a| shell_quote(a)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The requested metrics that no launch of an export carries (ncu dropped them): every one
/// of [`METRICS`], and the warp-state and tensor-work counters of the export's own
/// architecture ([`counters::stall_reasons`], [`counters::tensor_work`], from the launches'
/// compute capability).
#[cfg(test)]
pub fn missing_metrics(launches: &[LaunchCounters]) -> Vec<&'static str> {
    missing_metrics_at(launches, Depth::Standard)
}

/// The requested metrics missing from an export (as for `capture run`'s standard list) for
/// a collection at `depth`: its own list ([`Depth::metrics`]), the
/// warp-state counters only where it asks for them.
pub fn missing_metrics_at(launches: &[LaunchCounters], depth: Depth) -> Vec<&'static str> {
    let asked = depth.metrics();
    let cc = launches.iter().find_map(|l| {
        let major = l.metrics.number(counters::CC_MAJOR.name)?;
        let minor = l.metrics.number(counters::CC_MINOR.name)?;
        Some((major as u32, minor as u32))
    });
    let (stalls, tensor) = cc.map_or((&[][..], &[][..]), |(major, minor)| {
        (
            counters::stall_reasons(major, minor),
            counters::tensor_work(major, minor),
        )
    });
    let stalls = if asked.contains(&counters::STALL_WAIT) {
        stalls
    } else {
        &[]
    };
    asked
        .iter()
        .filter(|c| !counters::STALLS.contains(c) && !counters::TENSOR.contains(c))
        .chain(stalls)
        .chain(tensor)
        .map(|c| c.name)
        .filter(|m| !launches.iter().any(|l| l.metrics.contains_key(m)))
        .collect()
}

/// The message for ERR_NVGPUCTRPERM, with the remedies.
pub const COUNTER_PERMISSION_HELP: &str = "ncu could not read the GPU's performance counters \
     (ERR_NVGPUCTRPERM): the driver restricts them to administrators (RmProfilingAdminOnly=1, \
     the default). Remedies: run the profile half as root (`capture ncu-command` prints the \
     exact commands to run with sudo, then `capture merge`), or allow all users once with \
     `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in /etc/modprobe.d/ and a reboot; \
     in a container, add --cap-add=SYS_ADMIN.";

/// One profiling request: collect from `program` into `work_dir/name`.
#[derive(Clone, Debug)]
pub struct ProfileRequest<'a> {
    /// What to collect.
    pub collection: Collection,
    /// The program and its arguments.
    pub program: &'a [OsString],
    /// Folder for the report, the log and the CSV pages.
    pub work_dir: &'a Path,
    /// File-name stem of this collection (`ncu-cold`).
    pub name: &'a str,
}

/// What a profiler produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileOutput {
    /// The raw page (`--page raw`) as CSV.
    pub raw_csv: PathBuf,
    /// The details page (`--page details`) as CSV.
    pub details_csv: PathBuf,
    /// The exact command lines run, collection first.
    pub commands: Vec<String>,
    /// Things worth recording in the artifact (a non-zero program exit, say).
    pub warnings: Vec<String>,
    /// The program's non-zero exit status, when it failed after ncu had profiled launches
    /// (the pages hold those).
    pub program_status: Option<i32>,
}

/// Something that turns a program run into ncu CSV pages: real ncu, or a fake in tests.
pub trait Profiler {
    /// The profiler's version, for provenance.
    fn version(&self) -> Option<String>;
    /// Collects one report and imports its pages.
    fn profile(&self, req: &ProfileRequest<'_>) -> Result<ProfileOutput>;
}

/// Nsight Compute on this host.
#[derive(Clone, Debug)]
pub struct Ncu {
    /// The ncu executable.
    pub path: PathBuf,
    /// Limit for one collection.
    pub timeout: Duration,
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

impl Ncu {
    /// `explicit`, else `ncu` on PATH, else /usr/local/cuda/bin/ncu; none is [`Code::NoNcu`].
    pub fn locate(explicit: Option<&Path>, timeout: Duration) -> Result<Ncu> {
        let found = match explicit {
            Some(p) if p.is_file() => Some(p.to_path_buf()),
            Some(p) => {
                return Err(Fault::new(
                    Code::NoNcu,
                    format!("ncu not found at {} (--ncu)", p.display()),
                )
                .into())
            }
            None => find_on_path("ncu").or_else(|| {
                let p = PathBuf::from("/usr/local/cuda/bin/ncu");
                p.is_file().then_some(p)
            }),
        };
        match found {
            Some(path) => Ok(Ncu { path, timeout }),
            None => Err(Fault::new(
                Code::NoNcu,
                "ncu (Nsight Compute) not found on PATH or in /usr/local/cuda/bin: install \
                 Nsight Compute, pass --ncu PATH, or skip the counters with --no-profile",
            )
            .into()),
        }
    }

    /// Runs ncu with `args`, stdout and stderr into `log`, killed after the time limit.
    fn run_logged(&self, args: &[OsString], log: &Path, what: &str) -> Result<ExitStatus> {
        let out = File::create(log).with_context(|| format!("{}: cannot create", log.display()))?;
        let err = out.try_clone().context("duplicating the log handle")?;
        let mut cmd = Command::new(&self.path);
        cmd.args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::from(out))
            .stderr(Stdio::from(err));
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            cmd.process_group(0);
        }
        let mut child = cmd.spawn().map_err(|e| {
            Fault::new(
                Code::NoNcu,
                format!("cannot start {}: {e}", self.path.display()),
            )
        })?;
        // Its own process group does not get the terminal's Ctrl-C: capture's handler kills it.
        let _stop = crate::interrupt::kill_on_interrupt(child.id());
        let spinner = super::progress::spinner(what);
        let start = Instant::now();
        // The log as it grows: ncu's `==PROF== Profiling` lines say how far it has got.
        let mut reader = File::open(log).ok();
        let mut progress = ncu_log::Progress::default();
        let mut chunk = Vec::new();
        let mut follow = |progress: &mut ncu_log::Progress| {
            if let Some(r) = reader.as_mut() {
                chunk.clear();
                if r.read_to_end(&mut chunk).is_ok() && !chunk.is_empty() {
                    progress.feed(&String::from_utf8_lossy(&chunk));
                }
            }
        };
        loop {
            if let Some(status) = child.try_wait().context("waiting for ncu")? {
                spinner.finish_and_clear();
                follow(&mut progress);
                if progress.profiled > 0 {
                    super::progress::log(
                        None,
                        &format!(
                            "{what}: {} in {:.1} s",
                            progress.summary().unwrap_or_default(),
                            start.elapsed().as_secs_f64()
                        ),
                    );
                }
                return Ok(status);
            }
            follow(&mut progress);
            if let Some(line) = progress.summary() {
                spinner.set_message(format!("{what}: {line}"));
            }
            if start.elapsed() > self.timeout {
                // Kill the whole process group: ncu and the program it is profiling.
                let _ = Command::new("kill")
                    // `--`: procps-ng 4 reads a bare `-PGID` as an option and kills nothing.
                    .args(["-KILL", "--"])
                    .arg(format!("-{}", child.id()))
                    .status();
                let _ = child.kill();
                let _ = child.wait();
                spinner.finish_and_clear();
                return Err(Fault::new(
                    Code::NcuFailed,
                    format!(
                        "{what}: ncu did not finish within {} s and was killed; log: {}",
                        self.timeout.as_secs(),
                        log.display()
                    ),
                )
                .into());
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Prints one page of a report into `csv`.
    fn import(&self, report: &Path, page: Page, csv: &Path) -> Result<String> {
        let args = import_args(report, page);
        let cmd = format!(
            "{} > {}",
            command_line(self.path.as_os_str(), &args),
            shell_quote(csv.as_os_str())
        );
        let out = Command::new(&self.path)
            .args(&args)
            .stdin(Stdio::null())
            .output()
            .with_context(|| format!("running {cmd}"))?;
        if !out.status.success() {
            return Err(Fault::new(
                Code::NcuFailed,
                format!(
                    "{cmd} failed ({}): {}",
                    out.status,
                    String::from_utf8_lossy(&out.stderr).trim()
                ),
            )
            .into());
        }
        crate::files::write_atomic(csv, &out.stdout)?;
        Ok(cmd)
    }
}

/// The program of a command line, for messages.
pub fn program_name(program: &[OsString]) -> String {
    program
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The last `n` lines of a log, for error messages.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// A collection whose report can be used.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Judged {
    /// For the artifact.
    pub warnings: Vec<String>,
    /// The program's non-zero exit status, when it failed after launches were profiled.
    pub program_status: Option<i32>,
}

/// Why ncu profiled nothing, and how to widen the filters when there were any.
pub fn no_kernels_message(program: &str, c: &Collection) -> String {
    let sel = &c.selection;
    let mut filters = sel.filters();
    if !c.ncu_args.is_empty() {
        filters.push(format!("--ncu-arg {}", c.ncu_args.join(" --ncu-arg ")));
    }
    if filters.is_empty() {
        return format!(
            "ncu profiled no kernel launch: {program} launched no kernel on the GPU (no filter \
             was given, so none was left out); nothing written"
        );
    }
    let mut hints = Vec::new();
    if sel.kernel_filter.is_some() {
        hints.push("check the --kernel-name regular expression");
    }
    if sel.launch_skip.is_some() {
        hints.push("lower --launch-skip");
    }
    if !sel.nvtx_include.is_empty() || !sel.nvtx_exclude.is_empty() {
        hints.push(
            "check the NVTX range names (a push/pop range takes a trailing '/', one in a \
             named domain 'domain@range')",
        );
    }
    if !c.ncu_args.is_empty() {
        hints.push("check the --ncu-arg options");
    }
    format!(
        "ncu profiled no kernel launch of {program}: none matched the filters ({}); nothing \
         written. Widen or drop them: {}",
        filters.join(", "),
        hints.join("; ")
    )
}

/// Classifies a finished collection from ncu's exit status and log:
///
/// - no counter permission: [`Code::CounterPermission`];
/// - ncu killed by a signal, or an error of ncu's own (`==ERROR==`) and no report:
///   [`Code::NcuFailed`] (with a report, a warning);
/// - the program exited non-zero (ncu passes its status on and reports it in the log): with
///   a report, a warning and its status; without, [`Code::ProgramFailed`];
/// - no report because no launch was profiled: [`Code::NoKernels`], saying which filters
///   to widen;
/// - any other run without a report: [`Code::NcuFailed`].
pub fn judge_collection(
    status_code: Option<i32>,
    log_text: &str,
    report_exists: bool,
    log: &Path,
    collection: &Collection,
    program: &str,
) -> Result<Judged> {
    let facts = ncu_log::read_log(log_text);
    if facts.counter_permission {
        return Err(Fault::new(Code::CounterPermission, COUNTER_PERMISSION_HELP).into());
    }
    let Some(code) = status_code else {
        return Err(Fault::new(
            Code::NcuFailed,
            format!(
                "ncu was killed by a signal before it finished; log {}:\n{}",
                log.display(),
                tail(log_text, 15)
            ),
        )
        .into());
    };
    let no_report = || {
        Fault::new(
            Code::NcuFailed,
            format!(
                "ncu exited with status {code} and wrote no report; log {}:\n{}",
                log.display(),
                tail(log_text, 15)
            ),
        )
    };
    let output = ncu_log::program_output_tail(log_text, 3);
    let said = if output.is_empty() {
        String::new()
    } else {
        format!(". Its last output: {output}")
    };
    if !facts.errors.is_empty() {
        // ncu's own failure; the program's status, if any, follows from it.
        return match (code, report_exists) {
            (_, false) => Err(no_report().into()),
            (0, true) => Ok(Judged::default()),
            (_, true) => Ok(Judged {
                warnings: vec![format!(
                    "ncu exited with status {code} and reported {}; the report it wrote was \
                     used",
                    facts.errors.join(" | ")
                )],
                program_status: None,
            }),
        };
    }
    // Without an error of its own, ncu's status is the program's.
    let program_status = facts.program_status.or((code != 0).then_some(code));
    match (program_status, report_exists) {
        (Some(n), true) => Ok(Judged {
            warnings: vec![format!(
                "the program {program} exited with status {n}: only the {} launch(es) ncu \
                 profiled before that are here{said}",
                facts.launches
            )],
            program_status: Some(n),
        }),
        (Some(n), false) => Err(Fault::new(
            Code::ProgramFailed,
            format!(
                "the program {program} exited with status {n} before ncu profiled any kernel \
                 launch; nothing written{said}"
            ),
        )
        .into()),
        (None, true) => Ok(Judged::default()),
        (None, false) if facts.no_kernels => {
            Err(Fault::new(Code::NoKernels, no_kernels_message(program, collection)).into())
        }
        (None, false) => Err(no_report().into()),
    }
}

impl Profiler for Ncu {
    fn version(&self) -> Option<String> {
        let out = Command::new(&self.path).arg("--version").output().ok()?;
        let text = String::from_utf8_lossy(&out.stdout);
        text.lines()
            .rev()
            .find_map(|l| l.trim().strip_prefix("Version "))
            .map(|v| v.split_whitespace().next().unwrap_or(v).to_string())
            .or_else(|| text.lines().last().map(|l| l.trim().to_string()))
    }

    fn profile(&self, req: &ProfileRequest<'_>) -> Result<ProfileOutput> {
        let base = req.work_dir.join(req.name);
        let report = report_file(&base);
        let _ = std::fs::remove_file(&report);
        let log = req.work_dir.join(format!("{}.log", req.name));
        let args = collect_args(&base, &req.collection, req.program);
        let collect_cmd = format!(
            "{} > {} 2>&1",
            command_line(self.path.as_os_str(), &args),
            shell_quote(log.as_os_str())
        );
        let what = format!(
            "ncu ({} caches) on {}",
            match req.collection.cache {
                CacheControl::Cold => "cold",
                CacheControl::Warm => "warm",
            },
            program_name(req.program)
        );
        // A report cut short by Ctrl-C is no report: removed, like an unfinished output.
        let status = {
            let _unfinished = crate::interrupt::remove_on_interrupt(&report);
            self.run_logged(&args, &log, &what)?
        };
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        let judged = judge_collection(
            status.code(),
            &log_text,
            report.is_file(),
            &log,
            &req.collection,
            &program_name(req.program),
        )?;
        let raw_csv = req.work_dir.join(format!("{}-raw.csv", req.name));
        let details_csv = req.work_dir.join(format!("{}-details.csv", req.name));
        let raw_cmd = self.import(&report, Page::Raw, &raw_csv)?;
        let details_cmd = self.import(&report, Page::Details, &details_csv)?;
        Ok(ProfileOutput {
            raw_csv,
            details_csv,
            commands: vec![collect_cmd, raw_cmd, details_cmd],
            warnings: judged.warnings,
            program_status: judged.program_status,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_collection_flushes_caches_and_replays_kernels() {
        let c = Collection {
            pass: Pass::Standard,
            cache: CacheControl::Cold,
            selection: Selection {
                kernel_filter: Some("regex:^(copy_f4|vector_add)$".into()),
                launch_count: Some(2),
                ..Selection::default()
            },
            ncu_args: Vec::new(),
        };
        let args = collect_args(Path::new("/tmp/r"), &c, &["prog".into(), "--x".into()]);
        let line = command_line(OsStr::new("ncu"), &args);
        assert!(line.starts_with("ncu -f -o /tmp/r --clock-control none --cache-control all --replay-mode kernel -k "), "{line}");
        assert!(line.contains("'regex:^(copy_f4|vector_add)$'"), "{line}");
        assert!(line.contains(" -c 2 --metrics "), "{line}");
        assert!(
            line.contains(&format!(
                " --metrics {},{},",
                counters::GPU_TIME_DURATION.name,
                counters::DRAM_BYTES_READ.name
            )),
            "{line}"
        );
        assert!(line.contains(&metrics_arg()), "{line}");
        for s in SECTIONS {
            assert!(line.contains(&format!("--section {s}")), "{line}");
        }
        assert!(
            line.ends_with(" prog --x"),
            "the program comes last: {line}"
        );
    }

    #[test]
    fn warm_collection_uses_application_replay_without_flushes() {
        let c = Collection {
            pass: Pass::Standard,
            cache: CacheControl::Warm,
            selection: Selection::default(),
            ncu_args: Vec::new(),
        };
        let line = command_line(
            OsStr::new("ncu"),
            &collect_args(Path::new("r"), &c, &["p".into()]),
        );
        assert!(
            line.contains("--cache-control none --replay-mode application"),
            "{line}"
        );
        assert!(!line.contains(" -k ") && !line.contains(" -c "), "{line}");
    }

    #[test]
    fn the_timing_pass_is_one_metric_with_caches_and_clocks_left_alone() {
        let c = Collection {
            pass: Pass::Timing,
            cache: CacheControl::Warm,
            selection: Selection {
                nvtx_include: vec!["step/".into()],
                ..Selection::default()
            },
            ncu_args: Vec::new(),
        };
        let line = command_line(
            OsStr::new("ncu"),
            &collect_args(Path::new("t"), &c, &["python3".into(), "x.py".into()]),
        );
        assert_eq!(
            line,
            format!(
                "ncu -f -o t --clock-control none --cache-control none --nvtx --nvtx-include \
                 step/ --metrics {} python3 x.py",
                counters::GPU_TIME_DURATION.name
            )
        );
    }

    #[test]
    fn a_sampled_pass_selects_by_kernel_id_and_asks_for_its_depths_counters() {
        let c = Collection {
            pass: Pass::Counters(Depth::Roofline),
            cache: CacheControl::Cold,
            selection: Selection {
                kernel_id: Some(":::^(1|2)$".into()),
                ..Selection::default()
            },
            ncu_args: Vec::new(),
        };
        let line = command_line(
            OsStr::new("ncu"),
            &collect_args(Path::new("r"), &c, &["p".into()]),
        );
        assert!(
            line.contains(" --kernel-name-base mangled --kernel-id ':::^(1|2)$' "),
            "{line}"
        );
        assert!(line.contains(&depth_metrics_arg(Depth::Roofline)), "{line}");
        assert!(!line.contains("--section"), "{line}");
        assert!(!line.contains(counters::STALL_WAIT.name), "{line}");
        let full = Collection {
            pass: Pass::Counters(Depth::Full),
            ..c
        };
        let line = command_line(OsStr::new("ncu"), &collect_args(Path::new("r"), &full, &[]));
        assert!(line.contains("--section SourceCounters"), "{line}");
        assert!(line.contains(&metrics_arg()), "{line}");
    }

    #[test]
    fn import_prints_base_units_csv() {
        let line = command_line(
            OsStr::new("ncu"),
            &import_args(Path::new("a b.ncu-rep"), Page::Details),
        );
        assert_eq!(
            line,
            "ncu --import 'a b.ncu-rep' --csv --page details --print-units base"
        );
        assert_eq!(
            report_file(Path::new("/w/ncu-cold")),
            PathBuf::from("/w/ncu-cold.ncu-rep")
        );
    }

    #[test]
    fn metric_list_covers_every_counter_the_views_read() {
        for m in [
            counters::DRAM_BYTES_READ,
            counters::DRAM_BYTES_WRITE,
            counters::DRAM_SECTORS_READ,
            counters::DRAM_SECTORS_WRITE,
            counters::GPU_TIME_DURATION,
            counters::L2_BYTES,
            counters::L1_BYTES,
            counters::L1_REQUESTS_GLOBAL_LD,
            counters::L1_SECTORS_GLOBAL_ST,
            counters::HFMA,
            counters::ACHIEVED_OCCUPANCY_PCT,
            counters::LIMIT_SHARED_MEM,
            counters::SHARED_LD_INST,
            counters::SHARED_ST_INST,
        ] {
            assert!(METRICS.contains(&m), "{m}");
        }
        let mut sorted: Vec<&str> = METRICS.iter().map(|c| c.name).collect();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), METRICS.len(), "no metric asked twice");
        let arg = metrics_arg();
        assert!(
            METRICS.iter().all(|c| arg.split(',').any(|n| n == c.name)),
            "{arg}"
        );
    }

    #[test]
    fn stall_and_tensor_counters_are_asked_for_and_checked_for_the_exports_architecture() {
        let arg = metrics_arg();
        for c in counters::TENSOR.iter().chain(counters::STALLS) {
            assert!(arg.split(',').any(|n| n == c.name), "{}", c.name);
        }
        let number = |v: f64| shared::model::artifact::Metric {
            unit: String::new(),
            value: shared::model::artifact::MetricValue::Number(v),
        };
        let mut l = LaunchCounters::default();
        for m in METRICS {
            l.metrics.insert(m.name.to_string(), number(1.0));
        }
        assert!(
            missing_metrics(std::slice::from_ref(&l)).is_empty(),
            "no CC: no tensor check"
        );
        l.metrics
            .insert(counters::CC_MAJOR.name.into(), number(9.0));
        l.metrics
            .insert(counters::CC_MINOR.name.into(), number(0.0));
        let missing = missing_metrics(std::slice::from_ref(&l));
        let want: Vec<&str> = counters::stall_reasons(9, 0)
            .iter()
            .chain(counters::tensor_work(9, 0))
            .map(|c| c.name)
            .collect();
        assert_eq!(
            missing, want,
            "a CC 9.0 export must carry CC 9.0's warp-state and tensor counters"
        );
        // An Ampere export is not asked for Hopper's gmma stall.
        l.metrics
            .insert(counters::CC_MAJOR.name.into(), number(8.0));
        let missing = missing_metrics(std::slice::from_ref(&l));
        assert!(missing.contains(&counters::STALL_LONG_SCOREBOARD.name));
        assert!(!missing.contains(&counters::STALL_GMMA.name));
    }

    #[test]
    fn missing_metrics_are_named() {
        let mut l = LaunchCounters::default();
        for m in METRICS.iter().skip(1) {
            l.metrics.insert(
                m.name.to_string(),
                shared::model::artifact::Metric {
                    unit: String::new(),
                    value: shared::model::artifact::MetricValue::Number(1.0),
                },
            );
        }
        assert_eq!(
            missing_metrics(&[l]),
            vec![counters::GPU_TIME_DURATION.name]
        );
        assert_eq!(missing_metrics(&[]).len(), METRICS.len());
    }

    #[test]
    fn filters_nvtx_ranges_and_passed_arguments_come_before_the_program() {
        let c = Collection {
            pass: Pass::Standard,
            cache: CacheControl::Cold,
            selection: Selection {
                kernel_filter: Some("regex:gemm".into()),
                launch_skip: Some(5),
                launch_count: Some(3),
                nvtx_include: vec!["step/".into(), "train@fwd/".into()],
                nvtx_exclude: vec!["warmup/".into()],
                kernel_id: None,
            },
            ncu_args: vec![
                "--target-processes=all".into(),
                "--set".into(),
                "full".into(),
            ],
        };
        let line = command_line(
            OsStr::new("ncu"),
            &collect_args(Path::new("r"), &c, &["python3".into(), "train.py".into()]),
        );
        assert!(
            line.contains(
                " -k regex:gemm -s 5 -c 3 --nvtx --nvtx-include step/ --nvtx-include \
                 train@fwd/ --nvtx-exclude warmup/ --metrics "
            ),
            "{line}"
        );
        assert!(
            line.ends_with(" --target-processes=all --set full python3 train.py"),
            "{line}"
        );
        // --nvtx given through --ncu-arg is not given twice.
        let c = Collection {
            pass: Pass::Standard,
            ncu_args: vec!["--nvtx".into()],
            ..c
        };
        let line = command_line(OsStr::new("ncu"), &collect_args(Path::new("r"), &c, &[]));
        let nvtx = line.split(' ').filter(|t| *t == "--nvtx").count();
        assert_eq!(nvtx, 1, "{line}");
    }

    #[test]
    fn passed_arguments_may_not_repeat_what_capture_sets() {
        for ok in [
            "--target-processes=all",
            "all",
            "--set",
            "--section=WarpStateStats",
            "--nvtx",
        ] {
            assert_eq!(check_ncu_args(&[ok.to_string()]), Ok(()), "{ok}");
        }
        for (bad, hint) in [
            ("--clock-control=base", "--clock-control none"),
            ("-k", "--kernel-name"),
            ("-kgemm", "--kernel-name"),
            ("--launch-skip", "--launch-skip"),
            ("-c", "--launch-count"),
            ("--cache-control", "--cache"),
            ("--replay-mode=application", "--cache"),
            ("-o", "--keep-exports"),
            ("--log-file", "log"),
            ("--nvtx-include=x/", "--nvtx-include"),
        ] {
            let err = check_ncu_args(&[bad.to_string()]).err().unwrap_or_default();
            assert!(
                err.starts_with(&format!("--ncu-arg {bad}: ")) && err.contains(hint),
                "{bad}: {err}"
            );
        }
    }

    /// ncu's status, its log, whether it wrote a report, and the outcome: the program's
    /// status or an exit code.
    type Case = (
        Option<i32>,
        String,
        bool,
        std::result::Result<Option<i32>, Code>,
    );

    fn code(r: Result<Judged>) -> std::result::Result<Judged, Code> {
        r.map_err(|e| crate::exit::code_of(&e))
    }

    #[test]
    fn collections_are_judged() {
        let log = Path::new("x.log");
        let none = Collection {
            pass: Pass::Standard,
            cache: CacheControl::Cold,
            selection: Selection::default(),
            ncu_args: Vec::new(),
        };
        const PROFILED: &str = "==PROF== Profiling \"copy\" - 0: 0%....50%....100% - 9 passes\n";
        const APP3: &str = "==ERROR== The application returned an error code (3).\n";
        const NONE: &str = "==WARNING== No kernels were profiled.\n";
        let cases: &[Case] = &[
            (Some(0), PROFILED.into(), true, Ok(None)),
            (
                Some(1),
                "==ERROR== ERR_NVGPUCTRPERM - The user".into(),
                false,
                Err(Code::CounterPermission),
            ),
            (None, String::new(), true, Err(Code::NcuFailed)),
            (
                Some(2),
                "==ERROR== something broke\n".into(),
                false,
                Err(Code::NcuFailed),
            ),
            (
                Some(0),
                "no report and no reason\n".into(),
                false,
                Err(Code::NcuFailed),
            ),
            // ncu's own error: the program's status is a consequence, not the cause.
            (
                Some(1),
                format!(
                    "==ERROR== Nsight Compute failed to connect to the CUDA driver.\n{APP3}{NONE}"
                ),
                false,
                Err(Code::NcuFailed),
            ),
            (
                Some(15),
                format!("{PROFILED}==ERROR== Failed to profile \"copy\"\n"),
                true,
                Ok(None),
            ),
            (
                Some(3),
                format!("Traceback\nValueError: bad\n{APP3}{NONE}"),
                false,
                Err(Code::ProgramFailed),
            ),
            (
                Some(3),
                format!("{PROFILED}ValueError: bad\n{APP3}"),
                true,
                Ok(Some(3)),
            ),
            // An ncu that does not print the line: its status is still the program's.
            (Some(4), PROFILED.into(), true, Ok(Some(4))),
            (
                Some(0),
                format!("program output\n{NONE}"),
                false,
                Err(Code::NoKernels),
            ),
        ];
        for (status, text, report, want) in cases {
            let got = code(judge_collection(*status, text, *report, log, &none, "prog"))
                .map(|j| j.program_status);
            assert_eq!(&got, want, "{status:?} {text:?} {report}");
        }
        let warned = judge_collection(
            Some(3),
            &format!("{PROFILED}ValueError: bad\n{APP3}"),
            true,
            log,
            &none,
            "python3",
        )
        .unwrap_or_default();
        assert_eq!(
            warned.warnings,
            [
                "the program python3 exited with status 3: only the 1 launch(es) ncu profiled \
              before that are here. Its last output: ValueError: bad"
            ]
        );
        let failed = judge_collection(
            Some(3),
            &format!("Traceback\n{APP3}"),
            false,
            log,
            &none,
            "python3",
        )
        .err()
        .map(|e| format!("{e:#}"))
        .unwrap_or_default();
        assert_eq!(
            failed,
            "the program python3 exited with status 3 before ncu profiled any kernel launch; \
             nothing written. Its last output: Traceback"
        );
    }

    #[test]
    fn no_kernels_says_which_filters_to_widen() {
        let mut c = Collection {
            pass: Pass::Standard,
            cache: CacheControl::Cold,
            selection: Selection::default(),
            ncu_args: Vec::new(),
        };
        let msg = no_kernels_message("python3", &c);
        assert!(msg.contains("python3 launched no kernel"), "{msg}");
        assert!(!msg.contains("filters"), "{msg}");
        c.selection = Selection {
            kernel_filter: Some("regex:gemm".into()),
            launch_skip: Some(100),
            nvtx_include: vec!["step/".into()],
            ..Selection::default()
        };
        c.ncu_args = vec!["--kernel-id=::gemm:2".into()];
        let msg = no_kernels_message("python3", &c);
        assert!(
            msg.contains(
                "none matched the filters (--kernel-name gemm, --launch-skip 100, \
                 --nvtx-include step/, --ncu-arg --kernel-id=::gemm:2)"
            ),
            "{msg}"
        );
        assert!(msg.contains("trailing '/'"), "{msg}");
        assert!(!msg.contains('\n'), "one line: {msg}");
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote(OsStr::new("plain-1.csv")), "plain-1.csv");
        assert_eq!(shell_quote(OsStr::new("it's")), r"'it'\''s'");
        assert_eq!(shell_quote(OsStr::new("")), "''");
    }
}
