//! The stall chart of one kernel: a horizontal bar per warp-stall reason, its length the
//! reason's share of the stalled warps, largest first. Given a second kernel ("after"), each
//! reason gets two bars and its label both shares, so a comparison keeps the chart.

use crate::text::format::fmt_pct;

/// A reason drawn only when some kernel gives it at least this share of its stalls.
pub const MIN_SHARE: f64 = 0.005;

/// One kernel's stall shares, as plain numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StallSeries {
    /// The kernel, for the legend.
    pub label: String,
    /// `(reason key, reason name, share of the stalled warps)`, largest share first.
    pub bars: Vec<(String, String, f64)>,
}

/// The chart: one kernel's shares, and optionally a second to compare against.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StallChart {
    /// Caption.
    pub title: String,
    /// The shares (the "before" in a comparison); `None` without warp-state counters.
    pub series: Option<StallSeries>,
    /// The "after" shares of a comparison (`Some(None)`: that kernel has no counters).
    pub compare: Option<Option<StallSeries>>,
}

/// One drawn row: a reason and its share in each series.
#[derive(Clone, Debug, PartialEq)]
pub struct StallRow {
    /// Reason key (`long_scoreboard`).
    pub key: String,
    /// Reason name in plain words.
    pub name: String,
    /// Share in the first series.
    pub before: Option<f64>,
    /// Share in the compared series, in a comparison.
    pub after: Option<f64>,
    /// The label beside the bars: `41.2 %`, or `41.2 % → 30.0 %` in a comparison.
    pub text: String,
}

fn share(s: Option<&StallSeries>, key: &str) -> Option<f64> {
    s?.bars
        .iter()
        .find(|(k, _, _)| k == key)
        .map(|(_, _, v)| *v)
}

/// The rows the chart draws, in order: the reasons of the first series by its share, then
/// those only the compared series has, each kept when some series gives it at least
/// [`MIN_SHARE`].
pub fn stall_rows(chart: &StallChart) -> Vec<StallRow> {
    let first = chart.series.as_ref();
    let second = chart.compare.as_ref().and_then(Option::as_ref);
    let mut out: Vec<StallRow> = Vec::new();
    for (key, name, _) in first.into_iter().chain(second).flat_map(|s| s.bars.iter()) {
        if out.iter().any(|r| &r.key == key) {
            continue;
        }
        let (before, after) = (share(first, key), share(second, key));
        if [before, after].into_iter().flatten().all(|v| v < MIN_SHARE) {
            continue;
        }
        let pct = |v: Option<f64>| v.map_or("n/a".to_string(), |v| fmt_pct(100.0 * v));
        let text = match chart.compare {
            None => pct(before),
            Some(_) => format!("{} → {}", pct(before), pct(after)),
        };
        out.push(StallRow {
            key: key.clone(),
            name: name.clone(),
            before,
            after: if chart.compare.is_some() { after } else { None },
            text,
        });
    }
    out
}

/// Where the chart's parts sit, in CSS pixels: the drawing lays them out by these and the
/// page sizes the canvas by [`stall_chart_height`], so every row gets its full height and
/// no empty band is left under the bars (a fixed 320 px box left a third of it empty for
/// GPT-2's GEMM, seven reasons).
pub mod layout {
    /// The bars' top, under the title.
    pub const TOP: f64 = 34.0;
    /// The legend's row of a comparison, between the title and the bars.
    pub const LEGEND: f64 = 22.0;
    /// One reason's row.
    pub const ROW: f64 = 26.0;
    /// Below the last row.
    pub const BOTTOM: f64 = 6.0;
}

/// The height, CSS pixels, at which `chart` draws every row at full height: the title, the
/// legend of a comparison, one row per reason [`stall_rows`] keeps (one for the sentence of a
/// chart with none).
pub fn stall_chart_height(chart: &StallChart) -> f64 {
    let rows = stall_rows(chart).len().max(1) as f64;
    let legend = if chart.compare.is_some() {
        layout::LEGEND
    } else {
        0.0
    };
    layout::TOP + legend + rows * layout::ROW + layout::BOTTOM
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn series(label: &str, bars: &[(&str, f64)]) -> StallSeries {
        StallSeries {
            label: label.into(),
            bars: bars
                .iter()
                .map(|(k, v)| (k.to_string(), k.replace('_', " "), *v))
                .collect(),
        }
    }

    #[test]
    fn rows_follow_the_first_kernel_and_drop_negligible_reasons() {
        let chart = StallChart {
            title: String::new(),
            series: Some(series(
                "a",
                &[("long_scoreboard", 0.6), ("wait", 0.398), ("misc", 0.002)],
            )),
            compare: None,
        };
        let rows = stall_rows(&chart);
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["long_scoreboard", "wait"]);
        assert_eq!(rows[0].text, "60.0 %");
        assert_eq!(rows[0].after, None);
        let compared = StallChart {
            compare: Some(Some(series("b", &[("wait", 0.5), ("barrier", 0.5)]))),
            ..chart.clone()
        };
        let rows = stall_rows(&compared);
        let keys: Vec<&str> = rows.iter().map(|r| r.key.as_str()).collect();
        assert_eq!(keys, ["long_scoreboard", "wait", "barrier"]);
        assert_eq!(rows[0].text, "60.0 % → n/a");
        assert_eq!(rows[1].text, "39.8 % → 50.0 %");
        assert_eq!(rows[2].before, None);
        assert_eq!(rows[2].after, Some(0.5));
        // Two rows: the title, two rows and the bottom; three and a legend compared.
        assert_eq!(stall_chart_height(&chart), 34.0 + 2.0 * 26.0 + 6.0);
        assert_eq!(
            stall_chart_height(&compared),
            34.0 + 22.0 + 3.0 * 26.0 + 6.0
        );
        assert_eq!(
            stall_chart_height(&StallChart::default()),
            34.0 + 26.0 + 6.0
        );
    }
}
