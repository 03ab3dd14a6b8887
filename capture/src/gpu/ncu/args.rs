//! The ncu command lines capture runs: the metric set every view needs (by depth), the
//! collection of one report from a program (pass, cache state, replay, launch filters, NVTX
//! ranges, passed options refused where capture sets them), its `--import` into clean CSV
//! pages in base units, and the quoting that prints them for a shell.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use shared::analysis::sampling::Depth;
use shared::model::artifact::CacheControl;
use shared::model::counters::{self, Counter};

/// Every raw metric the views need, asked for by name: the catalog's
/// [`counters::PROFILE`], in its order. ncu silently drops a name it does not know, so
/// [`super::judge::missing_metrics_at`] checks that each came back.
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
    /// Record each launch's NVTX ranges (`--nvtx`) with no range filter.
    pub nvtx: bool,
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

/// The ncu option (and value) that makes push/pop ranges process-wide, passed whenever a
/// range filter names a push/pop range: ncu's default scope is the thread, which leaves out
/// what other threads launch while the range is open (PyTorch's backward pass, from its
/// autograd thread: a 4-layer BERT training step under a push/pop "step" kept 172 of its 405
/// launches per thread, all 405 process-wide, on the H200 with ncu 2025.3.1). `--ncu-arg
/// --nvtx-push-pop-scope=thread` keeps ncu's default.
pub const PUSH_POP_SCOPE: (&str, &str) = ("--nvtx-push-pop-scope", "process");

/// Whether an NVTX filter names a push/pop range (`step/`, `outer/inner`), which has a
/// `/`; a start/end range is a bare name (`step`, `domain@step`).
pub fn is_push_pop(range: &str) -> bool {
    range.contains('/')
}

impl Selection {
    /// Whether an include or exclude filter names a push/pop range ([`is_push_pop`]).
    pub fn push_pop_filter(&self) -> bool {
        self.nvtx_include
            .iter()
            .chain(&self.nvtx_exclude)
            .any(|r| is_push_pop(r))
    }

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

/// ncu's per-instruction section: in [`FULL_SECTIONS`], and added by `capture profile
/// --source` at any depth.
pub const SOURCE_SECTION: &str = "SourceCounters";

/// Sections `--depth full` adds to [`SECTIONS`]: the rest of ncu's `--set full`.
pub const FULL_SECTIONS: &[&str] = &[
    "ComputeWorkloadAnalysis",
    "InstructionStats",
    "SchedulerStats",
    "WarpStateStats",
    SOURCE_SECTION,
    "MemoryWorkloadAnalysis_Chart",
    "MemoryWorkloadAnalysis_Tables",
];

/// The sections collected at `depth`: none for the roofline and the work vector (their
/// counters are asked by name), [`SECTIONS`] for standard, with [`FULL_SECTIONS`] for full.
pub fn sections(depth: Depth) -> Vec<&'static str> {
    match depth {
        Depth::Roofline | Depth::Work => Vec::new(),
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
    let wants_nvtx = sel.nvtx || !sel.nvtx_include.is_empty() || !sel.nvtx_exclude.is_empty();
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
    if sel.push_pop_filter() && !c.ncu_args.iter().any(|x| x.starts_with(PUSH_POP_SCOPE.0)) {
        a.extend([PUSH_POP_SCOPE.0, PUSH_POP_SCOPE.1].map(OsString::from));
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

pub use crate::shell::{command_line, shell_quote};

/// The program of a command line, for messages.
pub fn program_name(program: &[OsString]) -> String {
    program
        .first()
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsStr;

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
                 step/ --nvtx-push-pop-scope process --metrics {} python3 x.py",
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
    fn the_work_depth_asks_for_the_work_vector_by_name_and_no_section() {
        let c = Collection {
            pass: Pass::Counters(Depth::Work),
            cache: CacheControl::Cold,
            selection: Selection::default(),
            ncu_args: Vec::new(),
        };
        let args = collect_args(Path::new("r"), &c, &["p".into()]);
        let line = command_line(OsStr::new("ncu"), &args);
        assert!(!line.contains("--section"), "{line}");
        assert!(line.contains("--cache-control all"), "{line}");
        let at = args
            .iter()
            .position(|a| a == "--metrics")
            .expect("--metrics");
        let asked = args[at + 1].to_string_lossy();
        let asked: Vec<&str> = asked.split(',').collect();
        for c in shared::analysis::work_vector::counters()
            .iter()
            .chain(shared::analysis::work_vector::beyond_full_set())
        {
            assert!(asked.contains(&c.name), "{} not asked for", c.name);
        }
        assert!(!asked.contains(&counters::STALL_WAIT.name), "{line}");
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
    fn filters_nvtx_ranges_and_passed_arguments_come_before_the_program() {
        let c = Collection {
            pass: Pass::Standard,
            cache: CacheControl::Cold,
            selection: Selection {
                kernel_filter: Some("regex:gemm".into()),
                launch_skip: Some(5),
                launch_count: Some(3),
                nvtx: false,
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
                 train@fwd/ --nvtx-exclude warmup/ --nvtx-push-pop-scope process --metrics "
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
        // A scope given through --ncu-arg is the user's; a start/end filter needs none.
        let c = Collection {
            ncu_args: vec!["--nvtx-push-pop-scope=thread".into()],
            ..c
        };
        let line = command_line(OsStr::new("ncu"), &collect_args(Path::new("r"), &c, &[]));
        assert_eq!(line.matches("--nvtx-push-pop-scope").count(), 1, "{line}");
        let c = Collection {
            ncu_args: Vec::new(),
            selection: Selection {
                nvtx_include: vec!["step".into(), "domain@step".into()],
                ..Selection::default()
            },
            ..c
        };
        let line = command_line(OsStr::new("ncu"), &collect_args(Path::new("r"), &c, &[]));
        assert!(!line.contains("push-pop-scope"), "{line}");
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

    #[test]
    fn quoting() {
        assert_eq!(shell_quote(OsStr::new("plain-1.csv")), "plain-1.csv");
        assert_eq!(shell_quote(OsStr::new("it's")), r"'it'\''s'");
        assert_eq!(shell_quote(OsStr::new("")), "''");
    }
}
