//! The compare page's key figures of two kernels side by side with their ratio, as plain
//! rows.

use shared::text::format::{fmt_ratio, fmt_si, ms, opt, sig3};

use super::kernel::KernelFigures;
use super::table::pct;

type Figure = (
    &'static str,
    &'static str,
    fn(&KernelFigures) -> Option<f64>,
    fn(f64) -> String,
);

fn bytes(v: f64) -> String {
    fmt_si(v, "B")
}

const FIGURES: [Figure; 12] = [
    ("time ms (sum of launches)", "time", |k| k.row.time_ms, ms),
    ("DRAM bytes", "dram_bytes", |k| k.row.dram_bytes, bytes),
    ("L2 bytes", "l2_bytes", |k| k.row.l2_bytes, bytes),
    ("L1 bytes", "l1_bytes", |k| k.row.l1_bytes, bytes),
    (
        "DRAM/ask",
        "dram_per_ask",
        |k| k.row.dram_per_ask,
        |v| format!("{v:.4}"),
    ),
    ("DRAM GB/s", "gbs", |k| k.row.gbs, sig3),
    ("GFLOP/s", "gflops", |k| k.row.gflops, sig3),
    ("Compute (SM) %", "sm_pct", |k| k.sol().sm_pct, pct),
    ("Memory %", "memory_pct", |k| k.sol().memory_pct, pct),
    ("DRAM %", "dram_pct", |k| k.sol().dram_pct, pct),
    (
        "achieved occupancy %",
        "occupancy",
        |k| k.occupancy.achieved_pct,
        pct,
    ),
    (
        "waves per SM",
        "waves",
        |k| k.latency.fit.waves,
        |v| format!("{v:.2}"),
    ),
];

/// A figure of two kernels: its label, the explanation it opens, before, after, and
/// after / before.
#[derive(Clone, Debug, PartialEq)]
pub struct CompareRow {
    /// What the figure is.
    pub label: &'static str,
    /// Its explanation's key.
    pub key: &'static str,
    /// Kernel `a`'s value, formatted (`-` for none).
    pub before: String,
    /// Kernel `b`'s value, formatted.
    pub after: String,
    /// After over before.
    pub ratio: String,
}

/// The key figures of kernels `a` (before) and `b` (after) side by side with their ratio.
pub fn compare_rows(a: Option<&KernelFigures>, b: Option<&KernelFigures>) -> Vec<CompareRow> {
    FIGURES
        .iter()
        .map(|(label, key, get, fmt)| {
            let va = a.and_then(get);
            let vb = b.and_then(get);
            let ratio = match (va, vb) {
                (Some(x), Some(y)) => fmt_ratio(y, x),
                _ => "-".into(),
            };
            let f = |v: Option<f64>| opt(v, fmt);
            CompareRow {
                label,
                key,
                before: f(va),
                after: f(vb),
                ratio,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_per_figure_with_a_dash_for_none() {
        let rows = compare_rows(None, None);
        assert_eq!(rows.len(), FIGURES.len());
        assert!(rows.iter().all(|r| r.before == "-" && r.ratio == "-"));
    }
}
