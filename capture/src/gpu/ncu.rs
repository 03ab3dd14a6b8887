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
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::artifact::{CacheControl, LaunchCounters};
use shared::counters::{self, Counter};

use crate::exit::{Code, Fault};

/// Every raw metric the views need, asked for by name: the catalog's
/// [`counters::PROFILE`], in its order. ncu silently drops a name it does not know, so
/// [`missing_metrics`] checks that each came back.
pub const METRICS: &[Counter] = counters::PROFILE;

/// The `--metrics` value: every name of [`METRICS`], comma separated.
pub fn metrics_arg() -> String {
    METRICS.iter().map(|c| c.name).collect::<Vec<_>>().join(",")
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

/// What one collection asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Collection {
    /// Cold (`--cache-control all`, kernel replay) or warm (`--cache-control none`,
    /// application replay).
    pub cache: CacheControl,
    /// `-k` filter (`regex:...`), if any.
    pub kernel_filter: Option<String>,
    /// `-c`: at most this many launches.
    pub launch_count: Option<u64>,
}

/// The ncu arguments (after the ncu program itself) that collect one report from `program`.
pub fn collect_args(report: &Path, c: &Collection, program: &[OsString]) -> Vec<OsString> {
    let mut a: Vec<OsString> = vec!["-f".into(), "-o".into(), report.as_os_str().to_owned()];
    a.extend(["--clock-control", "none"].map(OsString::from));
    let (cache, replay) = match c.cache {
        CacheControl::Cold => ("all", "kernel"),
        CacheControl::Warm => ("none", "application"),
    };
    a.extend(["--cache-control", cache, "--replay-mode", replay].map(OsString::from));
    if let Some(k) = &c.kernel_filter {
        a.push("-k".into());
        a.push(k.into());
    }
    if let Some(n) = c.launch_count {
        a.push("-c".into());
        a.push(n.to_string().into());
    }
    a.push("--metrics".into());
    a.push(metrics_arg().into());
    for s in SECTIONS {
        a.push("--section".into());
        a.push((*s).into());
    }
    a.extend(program.iter().cloned());
    a
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

/// The requested metrics that no launch of an export carries (ncu dropped them).
pub fn missing_metrics(launches: &[LaunchCounters]) -> Vec<&'static str> {
    METRICS
        .iter()
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
        loop {
            if let Some(status) = child.try_wait().context("waiting for ncu")? {
                spinner.finish_and_clear();
                return Ok(status);
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

/// The last `n` lines of a log, for error messages.
fn tail(text: &str, n: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(n)..].join("\n")
}

/// Classifies a finished collection: counter permission, killed, or a failure without a
/// report are errors; a non-zero exit with a report is a warning.
pub fn judge_collection(
    status_code: Option<i32>,
    log_text: &str,
    report_exists: bool,
    log: &Path,
) -> Result<Vec<String>> {
    if log_text.contains("ERR_NVGPUCTRPERM") {
        return Err(Fault::new(Code::CounterPermission, COUNTER_PERMISSION_HELP).into());
    }
    match status_code {
        None => Err(Fault::new(
            Code::NcuFailed,
            format!(
                "ncu was killed by a signal before it finished; log {}:\n{}",
                log.display(),
                tail(log_text, 15)
            ),
        )
        .into()),
        Some(0) if report_exists => Ok(Vec::new()),
        Some(code) if report_exists => Ok(vec![format!(
            "ncu exited with status {code} (the profiled program's own exit status, or a \
             profiling error); the report it wrote was used. Log tail: {}",
            tail(log_text, 3).replace('\n', " | ")
        )]),
        Some(code) => Err(Fault::new(
            Code::NcuFailed,
            format!(
                "ncu exited with status {code} and wrote no report; log {}:\n{}",
                log.display(),
                tail(log_text, 15)
            ),
        )
        .into()),
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
            req.program
                .first()
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        );
        // A report cut short by Ctrl-C is no report: removed, like an unfinished output.
        let status = {
            let _unfinished = crate::interrupt::remove_on_interrupt(&report);
            self.run_logged(&args, &log, &what)?
        };
        let log_text = std::fs::read_to_string(&log).unwrap_or_default();
        let warnings = judge_collection(status.code(), &log_text, report.is_file(), &log)?;
        let raw_csv = req.work_dir.join(format!("{}-raw.csv", req.name));
        let details_csv = req.work_dir.join(format!("{}-details.csv", req.name));
        let raw_cmd = self.import(&report, Page::Raw, &raw_csv)?;
        let details_cmd = self.import(&report, Page::Details, &details_csv)?;
        Ok(ProfileOutput {
            raw_csv,
            details_csv,
            commands: vec![collect_cmd, raw_cmd, details_cmd],
            warnings,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cold_collection_flushes_caches_and_replays_kernels() {
        let c = Collection {
            cache: CacheControl::Cold,
            kernel_filter: Some("regex:^(copy_f4|vector_add)$".into()),
            launch_count: Some(2),
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
            cache: CacheControl::Warm,
            kernel_filter: None,
            launch_count: None,
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
    fn missing_metrics_are_named() {
        let mut l = LaunchCounters::default();
        for m in METRICS.iter().skip(1) {
            l.metrics.insert(
                m.name.to_string(),
                shared::artifact::Metric {
                    unit: String::new(),
                    value: shared::artifact::MetricValue::Number(1.0),
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
    fn collections_are_judged() {
        let log = Path::new("x.log");
        let perm = judge_collection(Some(1), "==ERROR== ERR_NVGPUCTRPERM - The user", false, log);
        let code = perm.as_ref().map_err(crate::exit::code_of).err();
        assert_eq!(code, Some(Code::CounterPermission));
        let killed = judge_collection(None, "", true, log).map_err(|e| crate::exit::code_of(&e));
        assert_eq!(killed.err(), Some(Code::NcuFailed));
        let failed =
            judge_collection(Some(2), "boom", false, log).map_err(|e| crate::exit::code_of(&e));
        assert_eq!(failed.err(), Some(Code::NcuFailed));
        let warned = judge_collection(Some(1), "app failed", true, log).unwrap_or_default();
        assert_eq!(warned.len(), 1);
        assert!(judge_collection(Some(0), "", true, log)
            .unwrap_or_default()
            .is_empty());
    }

    #[test]
    fn quoting() {
        assert_eq!(shell_quote(OsStr::new("plain-1.csv")), "plain-1.csv");
        assert_eq!(shell_quote(OsStr::new("it's")), r"'it'\''s'");
        assert_eq!(shell_quote(OsStr::new("")), "''");
    }
}
