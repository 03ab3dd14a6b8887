//! Judging what ncu did: a finished collection classified from ncu's exit status and its
//! log (read by [`super::log`]) into a usable report with warnings or a documented exit
//! code, the message that says which filters to widen when nothing was profiled, and the
//! metrics ncu silently dropped from an export.

use std::path::Path;

use anyhow::Result;
use shared::analysis::sampling::Depth;
use shared::model::artifact::LaunchCounters;
use shared::model::counters;

use super::args::Collection;
#[cfg(test)]
use super::args::METRICS;
use super::log as ncu_log;
use crate::exit::{Code, Fault};

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

#[cfg(test)]
mod tests {
    use super::super::args::{metrics_arg, Pass, Selection};
    use super::*;
    use shared::model::artifact::CacheControl;

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
    #[expect(
        clippy::too_many_lines,
        reason = "a table of every ncu outcome (status, log, report) beside its verdict, read best side by side"
    )]
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
}
