//! The markup around the charts: the roofline's badge, legend and table of points, and the
//! compare page's key figures in two columns.

use shared::text::format::{fmt_ratio, fmt_si, sig3};

use super::{tagged, term, Act, PageNode};
use crate::state::kernel::KernelFigures;
use crate::state::markup::{el, text};
use crate::state::roofline::RooflineModel;

/// Most points listed in the page's table of points; the CSV export has them all.
pub const POINTS_SHOWN: usize = 400;

/// The [`Act::Local`] the table of points sends when it is opened or closed (its value is
/// `open` when open).
pub const TOGGLE_POINTS: usize = 0;

/// The badge of an analytic roofline (no counters), or nothing.
pub fn analytic_badge(analytic: bool) -> PageNode {
    if !analytic {
        return text("");
    }
    el("span")
        .class("badge analytic")
        .child(term("analytic", "analytic roofline (no counters)"))
        .into()
}

/// How to read the roofline.
pub fn legend() -> PageNode {
    el("p")
        .class("legend muted")
        .text("Each kernel is drawn at its ")
        .child(term("oi", "operational intensity"))
        .text(
            " for each kind of bytes: hollow circle = asked (hand count), filled circle = DRAM, \
             square = L2, diamond = L1, joined by a line. Solid roofs are measured, dashed ones \
             theoretical; the knee is the ",
        )
        .child(term("ridge", "ridge point"))
        .text(". A red ring marks a point ")
        .child(term("above_roof", "above its roof"))
        .text(". Hover for numbers, click to select.")
        .into()
}

/// The chart's points as a table, for screen readers and for reading exact numbers: folded
/// away, its rows only when `open`.
pub fn points_table(model: &RooflineModel, open: bool) -> PageNode {
    let rows = model
        .infos
        .iter()
        .flatten()
        .take(if open { POINTS_SHOWN } else { 0 })
        .map(|p| {
            el("tr")
                .attr("data-kernel", p.kernel.kernel.to_string())
                .child(tagged("td", "name", p.name.clone()).attr("title", p.name.clone()))
                .child(el("td").text(p.level.label()))
                .child(el("td").text(p.kind.key()))
                .child(
                    tagged("td", "num", p.flop_per_byte().to_string())
                        .attr("data-col", "flop_per_byte"),
                )
                .child(
                    tagged("td", "num", p.gflop_per_s().to_string())
                        .attr("data-col", "gflop_per_s"),
                )
        });
    let n: usize = model.infos.iter().map(Vec::len).sum();
    let more = if n > POINTS_SHOWN {
        format!("{} more points in the CSV export", n - POINTS_SHOWN)
    } else {
        String::new()
    };
    el("details")
        .id("roofline-points")
        .attr_if(open, "open", "")
        .on_change(Act::Local(TOGGLE_POINTS))
        .child(el("summary").text("Points as a table"))
        .child(
            el("table")
                .class("grid")
                .child(el("thead").child(super::plain_row(
                    "th",
                    ["kernel", "point", "work", "FLOP/byte", "GFLOP/s"],
                )))
                .child(el("tbody").children(rows)),
        )
        .child(tagged("p", "muted", more))
        .into()
}

type Figure = (
    &'static str,
    &'static str,
    fn(&KernelFigures) -> Option<f64>,
    fn(f64) -> String,
);

fn ms(v: f64) -> String {
    format!("{v:.4}")
}

fn pct(v: f64) -> String {
    format!("{v:.1}")
}

fn bytes(v: f64) -> String {
    fmt_si(v, "B")
}

const FIGURES: [Figure; 12] = [
    ("time ms", "time", |k| k.row.time_ms, ms),
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

/// The key figures of kernels `a` (before) and `b` (after) side by side with their ratio;
/// `names` are the two kernels' whole names, with their runs.
pub fn compare_table(
    a: Option<&KernelFigures>,
    b: Option<&KernelFigures>,
    names: (String, String),
) -> PageNode {
    let rows = FIGURES.iter().map(|(label, key, get, fmt)| {
        let va = a.and_then(get);
        let vb = b.and_then(get);
        let ratio = match (va, vb) {
            (Some(x), Some(y)) => fmt_ratio(y, x),
            _ => "-".into(),
        };
        let f = |v: Option<f64>| v.map_or_else(|| "-".to_string(), fmt);
        el("tr")
            .child(el("th").attr("scope", "row").child(term(key, *label)))
            .child(tagged("td", "num", f(va)))
            .child(tagged("td", "num", f(vb)))
            .child(tagged("td", "num", ratio))
    });
    el("div")
        .child(
            el("table")
                .class("grid")
                .id("compare-table")
                .child(
                    el("thead").child(
                        el("tr")
                            .child(el("th"))
                            .child(el("th").attr("title", names.0.clone()).text("before"))
                            .child(el("th").attr("title", names.1.clone()).text("after"))
                            .child(el("th").text("after / before")),
                    ),
                )
                .child(el("tbody").children(rows)),
        )
        .child(tagged("p", "muted", format!("before: {}", names.0)))
        .child(tagged("p", "muted", format!("after: {}", names.1)))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_points_table_is_empty_until_opened() {
        let model = RooflineModel::default();
        let closed = points_table(&model, false);
        assert!(closed
            .find("roofline-points")
            .is_some_and(|d| d.get("open").is_none()));
        let open = points_table(&model, true);
        assert!(open
            .find("roofline-points")
            .is_some_and(|d| d.get("open").is_some()));
        assert_eq!(analytic_badge(false).text_content(), "");
        assert!(legend().text_content().contains("ridge point"));
    }

    #[test]
    fn the_compare_table_has_a_row_per_figure() {
        let t = compare_table(None, None, ("a".into(), "b".into()));
        let Some(table) = t.find("compare-table") else {
            panic!("no table")
        };
        let rows = crate::state::markup::Node::El(table.clone()).count(&|e| e.tag == "tr");
        assert_eq!(rows, FIGURES.len() + 1);
        assert!(t.text_content().contains("before: a"));
    }
}
