//! What the occupancy page and the compare view show of a kernel's latency: the stall chart
//! (shares from `shared::analysis::latency`, drawn by `shared::chart::stalls`) and the top reasons
//! with what usually causes each and what usually helps, taken from the explanations
//! `shared::analysis::latency::stalls` holds.

use shared::analysis::latency::StallReason;
use shared::chart::stalls::MIN_SHARE;
use shared::chart::StallChart;

use super::kernel::KernelFigures;

/// How many of a kernel's largest stall reasons are explained beside its chart.
pub const EXPLAINED: usize = 3;

/// The stall chart of one kernel.
pub fn stall_chart(k: &KernelFigures) -> StallChart {
    StallChart {
        title: format!("{}: where the warps waited", k.short),
        series: k.latency.stalls.as_ref().map(|s| s.series(&k.short)),
        compare: None,
    }
}

/// The stall chart of a comparison: `before`'s reasons with `after`'s beside them.
pub fn compare_stall_chart(
    before: Option<&KernelFigures>,
    after: Option<&KernelFigures>,
) -> StallChart {
    let series = |k: Option<&KernelFigures>| {
        k.and_then(|k| k.latency.stalls.as_ref().map(|s| s.series(&k.short)))
    };
    StallChart {
        title: "stalls, before → after".into(),
        series: series(before),
        compare: Some(series(after)),
    }
}

/// One explained reason beside the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct ReasonNote {
    /// The reason.
    pub reason: &'static StallReason,
    /// Its share of the stalled warps, as text (`41.2 %`).
    pub share: String,
}

/// The kernel's largest stall reasons (at most [`EXPLAINED`], each at least the chart's
/// smallest drawn share), largest first.
pub fn top_reasons(k: &KernelFigures) -> Vec<ReasonNote> {
    k.latency
        .stalls
        .iter()
        .flat_map(|s| s.shares.iter())
        .filter(|s| s.share >= MIN_SHARE)
        .take(EXPLAINED)
        .map(|s| ReasonNote {
            reason: s.reason,
            share: shared::text::format::fmt_pct(100.0 * s.share),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_support::fixture as workspace;

    #[test]
    fn the_gemms_chart_and_notes_come_from_the_shared_breakdown() {
        let ws = workspace("ncu-h200-gemms/gemms_full_raw.csv");
        let run = &ws.runs[0];
        let bf16 = &run.kernels[0];
        let chart = stall_chart(bf16);
        let series = chart.series.as_ref().expect("stalls");
        assert_eq!(
            series.bars.first().map(|b| b.0.as_str()),
            Some("long_scoreboard")
        );
        let from_table = bf16.row.stalls.as_ref().expect("row stalls");
        for (key, _, share) in &series.bars {
            assert_eq!(from_table.get(key), Some(share), "{key}");
        }
        let notes = top_reasons(bf16);
        let keys: Vec<&str> = notes.iter().map(|n| n.reason.key).collect();
        assert_eq!(keys, ["long_scoreboard", "gmma", "wait"]);
        assert_eq!(notes[0].share, "25.2 %");
        // The comparison carries both kernels' shares.
        let cmp = compare_stall_chart(Some(bf16), run.kernels.get(3));
        let rows = shared::chart::stalls::stall_rows(&cmp);
        let wait = rows.iter().find(|r| r.key == "wait").expect("wait row");
        assert!(wait.before.is_some() && wait.after.is_some());
        assert!(wait.text.contains(" → "), "{}", wait.text);
    }

    #[test]
    fn kernels_without_warp_state_counters_have_an_empty_chart() {
        let ws = workspace("ncu-h200-torch/gpt2_bf16_profile_raw.csv");
        let k = &ws.runs[0].kernels[0];
        assert_eq!(stall_chart(k).series, None);
        assert!(top_reasons(k).is_empty());
        assert!(k.latency.fit.waves.is_some());
        let cmp = compare_stall_chart(Some(k), None);
        assert_eq!(cmp.compare, Some(None));
    }
}
