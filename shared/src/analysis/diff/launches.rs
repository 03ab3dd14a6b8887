//! Launch counts of a comparison (issue 51, item 2): a run of 80 launches against one of 349
//! of the same program sums more time in the second whatever each launch did, so a change
//! of summed time misleads there. For each matched kernel: its launches before and after,
//! and, where they differ, the change per launch, of the median launch and of the mean
//! (summed time over launches); for the run, the total per matched launch (each kernel's
//! mean launch times the launches both runs have), with the time of the unmatched launches
//! (a kernel's launches beyond the other run's count, the kernels of one run) shown apart.
//!
//! Built from the diff's matched sides ([`of_diff`]) and kept apart from the time diff
//! itself (the viewer's run against run does not carry it): `capture diff` and `capture
//! mcp`'s `compare` show it beside the diff ([`Launched`]); the JSON is docs/diff-json.md's
//! `launch_counts`.

use serde::{Deserialize, Serialize};

use super::{KernelSide, RunDiff};
use crate::analysis::metrics;
use crate::analysis::multi::median;
use crate::model::artifact::{Artifact, KernelRecord};
use crate::model::roofline::percent_of;

/// The launch counts of the diff `d` of `before` and `after`.
pub fn of_diff(d: &RunDiff, before: &Artifact, after: &Artifact) -> LaunchCounts {
    let side = |run: &Artifact, s: &KernelSide| SideTimes {
        launches: s.launches,
        time_ms: s.time_ms,
        median_ms: run.kernels.get(s.index).and_then(median_launch_ms),
    };
    let pairs: Vec<(String, SideTimes, SideTimes)> = d
        .kernels
        .iter()
        .map(|k| (k.label(), side(before, &k.before), side(after, &k.after)))
        .collect();
    let only = |sides: &[KernelSide]| {
        sides.iter().fold((0, 0.0), |(n, t), s| {
            (n + s.launches, t + s.time_ms.unwrap_or(0.0))
        })
    };
    launch_counts(&pairs, [only(&d.only_before), only(&d.only_after)])
}

/// A diff with its launch counts: the JSON of `capture diff` (the diff's fields and
/// `launch_counts`) and its human forms ([`RunDiff::text_with`]).
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Launched<'a> {
    /// The diff.
    #[serde(flatten)]
    pub diff: &'a RunDiff,
    /// Its launch counts.
    pub launch_counts: &'a LaunchCounts,
}

impl Launched<'_> {
    /// Aligned text ([`RunDiff::text_with`]).
    pub fn to_text(&self) -> String {
        self.diff.text_with(Some(self.launch_counts))
    }

    /// Markdown ([`RunDiff::markdown_with`]).
    pub fn to_markdown(&self) -> String {
        self.diff.markdown_with(Some(self.launch_counts))
    }

    /// Pretty JSON, the diff's fields then `launch_counts`.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// One side of a matched kernel, as the per-launch figures need it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SideTimes {
    /// Launches (the bytes table's `launches`).
    pub launches: usize,
    /// Summed time, ms (the bytes table's `time_ms`).
    pub time_ms: Option<f64>,
    /// The median launch's time, ms ([`median_launch_ms`]).
    pub median_ms: Option<f64>,
}

impl SideTimes {
    /// The mean launch's time, ms: summed time over launches.
    fn mean_ms(&self) -> Option<f64> {
        self.time_ms
            .filter(|_| self.launches > 0)
            .map(|t| t / self.launches as f64)
    }
}

/// The median launch of a kernel, ms: its CUDA-event median where it was timed so (already
/// one launch's), else the median of its launches' ncu durations (`gpu__time_duration.sum`).
pub fn median_launch_ms(kernel: &KernelRecord) -> Option<f64> {
    if let Some(t) = &kernel.timing {
        return Some(t.median_ms);
    }
    let ns: Vec<f64> = metrics::reference_launches(kernel)
        .iter()
        .filter_map(metrics::duration_ns)
        .collect();
    median(&ns).map(|n| n / 1e6)
}

/// One matched kernel's launches and its change per launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchChange {
    /// The kernel as the diff's row names it.
    pub kernel: String,
    /// Launches in the before run.
    pub before_launches: usize,
    /// Launches in the after run.
    pub after_launches: usize,
    /// The mean launch before, ms (summed time over launches).
    pub mean_before_ms: Option<f64>,
    /// The mean launch after, ms.
    pub mean_after_ms: Option<f64>,
    /// The mean launch's change, % of the before one.
    pub mean_change_pct: Option<f64>,
    /// The median launch before, ms.
    pub median_before_ms: Option<f64>,
    /// The median launch after, ms.
    pub median_after_ms: Option<f64>,
    /// The median launch's change, % of the before one.
    pub median_change_pct: Option<f64>,
    /// Why a figure above is `null`, when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_null: Option<String>,
}

impl LaunchChange {
    /// Whether the two runs launched it a different number of times (the row's change is
    /// then read per launch).
    pub fn differ(&self) -> bool {
        self.before_launches != self.after_launches
    }
}

/// The run's summed time per matched launch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchedTotal {
    /// Launches counted on each side: per matched kernel with a time in both runs, the
    /// smaller of its two counts, summed.
    pub launches: usize,
    /// Before, ms: each such kernel's mean launch times its counted launches, summed.
    pub before_ms: f64,
    /// After, ms, likewise.
    pub after_ms: f64,
    /// The change, % of `before_ms`.
    pub change_pct: Option<f64>,
    /// The before run's time outside it, ms: a kernel's launches beyond the after run's
    /// count, and the kernels of the before run only.
    pub unmatched_before_ms: f64,
    /// The after run's time outside it, ms.
    pub unmatched_after_ms: f64,
    /// Why `change_pct` is `null`, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_null: Option<String>,
}

/// The launch counts of a comparison.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LaunchCounts {
    /// Launches of the before run (every kernel).
    pub before_launches: usize,
    /// Launches of the after run.
    pub after_launches: usize,
    /// Whether any matched kernel's launch count differs between the runs.
    pub differ: bool,
    /// The matched kernels, in the diff's row order.
    pub kernels: Vec<LaunchChange>,
    /// The total per matched launch.
    pub matched: MatchedTotal,
}

/// The launch counts of matched kernels `pairs` (each named, its before and after sides),
/// the kernels of one run only being `only` (per run: launches and summed time, ms).
pub fn launch_counts(
    pairs: &[(String, SideTimes, SideTimes)],
    only: [(usize, f64); 2],
) -> LaunchCounts {
    let mut matched = MatchedTotal {
        unmatched_before_ms: only[0].1,
        unmatched_after_ms: only[1].1,
        ..MatchedTotal::default()
    };
    let (mut before_launches, mut after_launches) = (only[0].0, only[1].0);
    let mut kernels = Vec::with_capacity(pairs.len());
    for (kernel, b, a) in pairs {
        before_launches += b.launches;
        after_launches += a.launches;
        let (mb, ma) = (b.mean_ms(), a.mean_ms());
        if let (Some(mb), Some(ma), Some(tb), Some(ta)) = (mb, ma, b.time_ms, a.time_ms) {
            let n = b.launches.min(a.launches);
            matched.launches += n;
            matched.before_ms += mb * n as f64;
            matched.after_ms += ma * n as f64;
            matched.unmatched_before_ms += tb - mb * n as f64;
            matched.unmatched_after_ms += ta - ma * n as f64;
        } else {
            matched.unmatched_before_ms += b.time_ms.unwrap_or(0.0);
            matched.unmatched_after_ms += a.time_ms.unwrap_or(0.0);
        }
        let change =
            |x: Option<f64>, y: Option<f64>| x.zip(y).and_then(|(x, y)| percent_of(y - x, x));
        let why_null = match (b.time_ms, a.time_ms, b.median_ms, a.median_ms) {
            (None, _, _, _) | (_, _, None, _) => Some("no time in the before run".to_string()),
            (_, None, _, _) | (_, _, _, None) => Some("no time in the after run".into()),
            _ if b.launches == 0 || a.launches == 0 => Some("no launches in a run".into()),
            _ => change(mb, ma)
                .and(change(b.median_ms, a.median_ms))
                .is_none()
                .then(|| "the before launch takes 0 ms".into()),
        };
        kernels.push(LaunchChange {
            why_null,
            kernel: kernel.clone(),
            before_launches: b.launches,
            after_launches: a.launches,
            mean_before_ms: mb,
            mean_after_ms: ma,
            mean_change_pct: change(mb, ma),
            median_before_ms: b.median_ms,
            median_after_ms: a.median_ms,
            median_change_pct: change(b.median_ms, a.median_ms),
        });
    }
    matched.change_pct = percent_of(matched.after_ms - matched.before_ms, matched.before_ms);
    if matched.change_pct.is_none() {
        matched.why_null = Some("no matched kernel has a time in both runs".into());
    }
    LaunchCounts {
        before_launches,
        after_launches,
        differ: kernels.iter().any(LaunchChange::differ),
        kernels,
        matched,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(launches: usize, time_ms: f64, median_ms: f64) -> SideTimes {
        SideTimes {
            launches,
            time_ms: Some(time_ms),
            median_ms: Some(median_ms),
        }
    }

    #[test]
    fn more_launches_of_faster_kernels_are_faster_per_launch() {
        // 2 launches of 1 ms against 8 of 0.8 ms: 4x the summed time, 20 % faster a launch.
        let c = launch_counts(
            &[("gemm".into(), side(2, 2.0, 1.0), side(8, 6.4, 0.8))],
            [(0, 0.0), (1, 0.5)],
        );
        assert_eq!((c.before_launches, c.after_launches), (2, 9));
        assert!(c.differ);
        let k = &c.kernels[0];
        assert!(
            (k.mean_change_pct.unwrap_or(0.0) + 20.0).abs() < 1e-9,
            "{k:?}"
        );
        assert!(
            (k.median_change_pct.unwrap_or(0.0) + 20.0).abs() < 1e-9,
            "{k:?}"
        );
        // Per matched launch: 2 launches each side, 2.0 ms -> 1.6 ms; the rest apart.
        let m = &c.matched;
        assert_eq!(m.launches, 2);
        assert!((m.before_ms - 2.0).abs() < 1e-9 && (m.after_ms - 1.6).abs() < 1e-9);
        assert!((m.change_pct.unwrap_or(0.0) + 20.0).abs() < 1e-9);
        assert!(m.unmatched_before_ms.abs() < 1e-9);
        assert!(
            (m.unmatched_after_ms - (6.4 - 1.6 + 0.5)).abs() < 1e-9,
            "{m:?}"
        );
    }

    #[test]
    fn equal_counts_do_not_differ() {
        let c = launch_counts(
            &[("k".into(), side(3, 3.0, 1.0), side(3, 3.3, 1.1))],
            [(0, 0.0), (0, 0.0)],
        );
        assert!(!c.differ);
        assert_eq!(c.matched.launches, 3);
    }
}
