//! Latency-bound, explained: what a kernel's warps waited on ([`stalls`]), whether its
//! launch could fill the GPU ([`fit`]), and, for the `latency-bound` verdict, the one line
//! that says both (`0.79 waves: 28 of 132 SMs idle; top stall long scoreboard (41%)`).
//!
//! [`crate::analysis::table`] puts the line and the breakdown in the bytes table and
//! [`crate::analysis::figures`] hands them to the viewer, both from [`latency`], so the page and
//! `capture table` say the same.

pub mod fit;
pub mod stalls;

pub use fit::{launch_fit, LaunchFit, Limiter, WavesSource};
pub use stalls::{stall_breakdown, StallBreakdown, StallReason, StallShare, REASONS};

use crate::analysis::metrics::VerdictKind;
use crate::model::artifact::LaunchCounters;

/// What the views show about a kernel's latency.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Latency {
    /// The stall breakdown; `None` without warp-state counters.
    pub stalls: Option<StallBreakdown>,
    /// How the launch fits the GPU.
    pub fit: LaunchFit,
    /// For a `latency-bound` verdict, why, in one line ([`reason_line`]); else `None`.
    pub reason: Option<String>,
}

/// The latency figures of a kernel's launches; `verdict` is its Speed-of-Light verdict.
pub fn latency(launches: &[LaunchCounters], verdict: Option<VerdictKind>) -> Latency {
    let stalls = stall_breakdown(launches);
    let fit = launch_fit(launches);
    let reason =
        (verdict == Some(VerdictKind::LatencyBound)).then(|| reason_line(&fit, stalls.as_ref()));
    Latency {
        stalls,
        fit,
        reason,
    }
}

/// Why a kernel is latency-bound, in one line: the waves and what they leave empty
/// ([`LaunchFit::summary`]), a launch as short as its overhead ([`LaunchFit::short_note`]),
/// and the top stall with its share, or that the export has no warp-state counters. Never
/// empty.
pub fn reason_line(fit: &LaunchFit, stalls: Option<&StallBreakdown>) -> String {
    let stall = match stalls.and_then(StallBreakdown::top) {
        Some(top) => format!("top stall {} ({:.0}%)", top.reason.name, 100.0 * top.share),
        None => "no warp-state counters".to_string(),
    };
    [fit.summary(), fit.short_note(), Some(stall)]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::counters::{self as c, Counter};

    fn launch(values: &[(Counter, f64)]) -> LaunchCounters {
        let named: Vec<(&str, f64)> = values.iter().map(|(c, v)| (c.name, *v)).collect();
        LaunchCounters::from_numbers("k", &named)
    }

    #[test]
    fn the_issues_convolution_reads_as_its_diagnosis() {
        // Issue 15's ResNet-18 convolution: 104 blocks on 132 SMs, long scoreboard 5.89
        // the largest stall (the other reasons here are made up: wait 3.0).
        let l = launch(&[
            (c::GRID_SIZE, 104.0),
            (c::SM_COUNT, 132.0),
            (c::LIMIT_REGISTERS, 1.0),
            (c::WAVES_PER_SM, 0.79),
            (c::GPU_TIME_DURATION, 18_700.0),
            (c::STALL_LONG_SCOREBOARD, 5.89),
            (c::STALL_WAIT, 3.0),
            (c::STALL_SELECTED, 1.0),
        ]);
        let lat = latency(std::slice::from_ref(&l), Some(VerdictKind::LatencyBound));
        assert_eq!(
            lat.reason.as_deref(),
            Some("0.79 waves: 28 of 132 SMs idle; top stall long scoreboard (66%)")
        );
        assert_eq!(
            latency(&[l], Some(VerdictKind::MemoryBound)).reason,
            None,
            "only the latency-bound verdict gets a reason"
        );
    }

    #[test]
    fn a_reason_without_counters_says_so() {
        let short = launch(&[(c::GPU_TIME_DURATION, 2_000.0)]);
        let lat = latency(&[short], Some(VerdictKind::LatencyBound));
        assert_eq!(
            lat.reason.as_deref(),
            Some("2.0 us per launch, about its launch overhead; no warp-state counters")
        );
        assert_eq!(
            reason_line(&LaunchFit::default(), None),
            "no warp-state counters"
        );
    }
}
