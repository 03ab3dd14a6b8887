//! The rows and header rows of the long tables (where the time goes, Speed of Light, bytes,
//! occupancy, timing, raw metrics) as markup. `components::virtual_table` renders the rows
//! in view; each row is a `<tr>` with `data-kernel` (where it is a kernel's),
//! `aria-rowindex` from [`aria_row`], and the `selected` class on the selected kernel.

use shared::analysis::figures::RankRow;
use shared::model::artifact::CacheControl;

use super::{explain_title, num_cell, select_button, tagged, term, Act, PageEl, PageNode};
use crate::state::kernel::KernelFigures;
use crate::state::markup::{el, text, Str};
use crate::state::model::{Column, MetricRow, RunView};
use crate::state::view::KernelRef;

fn opt(value: Option<f64>, f: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "-".to_string(), f)
}

fn ms(v: f64) -> String {
    format!("{v:.4}")
}

fn pct(v: f64) -> String {
    format!("{v:.1}")
}

fn count(v: f64) -> String {
    format!("{v:.0}")
}

/// `aria-rowindex` of the row at display position `pos` (the header row is 1).
pub fn aria_row(pos: usize) -> String {
    (pos + 2).to_string()
}

/// A kernel's row: `data-kernel`, `aria-rowindex`, and `selected` when it is.
fn kernel_row(r: KernelRef, pos: usize, selected: Option<KernelRef>) -> PageEl {
    el("tr")
        .attr_if(selected == Some(r), "class", "selected")
        .attr("data-kernel", r.kernel.to_string())
        .attr("aria-rowindex", aria_row(pos))
}

/// A name cell: the short name as a button that selects the kernel, the whole on hover.
fn name_cell(r: KernelRef, name: &str, shown: impl Into<Str>) -> PageEl {
    el("td")
        .class("name")
        .attr("title", name.to_string())
        .child(select_button(r, shown))
}

/// The header row: `aria-rowindex` 1 and its cells.
pub fn header_row(cells: impl IntoIterator<Item = PageEl>) -> PageEl {
    el("tr").attr("aria-rowindex", "1").children(cells)
}

/// A header cell of plain text.
fn th(text: &'static str) -> PageEl {
    el("th").text(text)
}

/// A header cell holding a term.
fn th_term(key: &'static str, text: &'static str) -> PageEl {
    el("th").child(term(key, text))
}

// == Where the time goes ==

/// The ranking's header row.
pub fn time_header() -> PageEl {
    header_row(
        [
            "#",
            "kernel",
            "launches",
            "time ms",
            "time %",
            "cumulative %",
            "work",
            "verdict",
            "roof (% of it)",
        ]
        .map(th),
    )
}

/// The ranked kernel `r` at place `rank` (0 is the most time).
pub fn time_row(
    kr: KernelRef,
    pos: usize,
    rank: usize,
    r: &RankRow,
    k: &KernelFigures,
    selected: Option<KernelRef>,
) -> PageEl {
    let share = |v: Option<f64>| v.map_or_else(|| "-".into(), |s| format!("{:.1}", 100.0 * s));
    let roof = r.roof.as_ref().map_or_else(
        || "-".to_string(),
        |u| {
            let side = match u.bound {
                shared::model::roofline::Bound::Memory => "memory (DRAM)".to_string(),
                shared::model::roofline::Bound::Compute => format!("compute ({})", u.kind.label()),
            };
            let of = u
                .pct_of_roof
                .map_or_else(String::new, |p| format!(" {p:.0} %"));
            let how = if u.measured { "" } else { ", theoretical" };
            format!("{side}{of}{how}")
        },
    );
    let work = k.row.precision.clone().unwrap_or_else(|| "-".into());
    let verdict = k
        .verdict
        .as_ref()
        .map_or_else(|| "-".into(), |v| v.kind.as_str().to_string());
    let because = k
        .verdict
        .as_ref()
        .map(|v| v.reason.clone())
        .unwrap_or_default();
    kernel_row(kr, pos, selected)
        .child(tagged("td", "num", (rank + 1).to_string()))
        .child(name_cell(kr, &k.name, k.short.clone()))
        .child(tagged("td", "num", k.row.launches.to_string()))
        .child(tagged("td", "num", opt(k.row.time_ms, ms)))
        .child(tagged("td", "num", share(r.share)).attr("data-col", "time_share"))
        .child(tagged("td", "num", share(r.cumulative)).attr("data-col", "cumulative"))
        .child(el("td").attr("data-col", "precision").text(work))
        .child(el("td").attr("title", because).text(verdict))
        .child(el("td").attr("data-col", "roof").text(roof))
}

// == Speed of Light ==

/// The Speed-of-Light header row.
pub fn sol_header() -> PageEl {
    header_row([
        th("kernel"),
        th_term("sm_pct", "Compute (SM) %"),
        th_term("memory_pct", "Memory %"),
        th_term("dram_pct", "DRAM %"),
        th("L1/TEX %"),
        th("L2 %"),
        th_term("ncu_duration", "ncu duration ms"),
        th("SM MHz"),
        th_term("verdict", "verdict"),
        th("because"),
    ])
}

/// Kernel `k`'s Speed-of-Light row.
pub fn sol_row(
    kr: KernelRef,
    pos: usize,
    k: &KernelFigures,
    selected: Option<KernelRef>,
) -> PageEl {
    let s = k.sol();
    // A latency-bound kernel says why (waves, stalls); the Speed-of-Light numbers behind
    // every verdict stay in the hover text.
    let numbers = k
        .verdict
        .as_ref()
        .map(|v| v.reason.clone())
        .unwrap_or_default();
    let reason = k.latency.reason.clone().unwrap_or_else(|| numbers.clone());
    let reason_title = if k.latency.reason.is_some() {
        format!("{reason}\n{numbers}")
    } else {
        numbers
    };
    let ncu_ms = s.duration_ns.map(|v| v / 1e6);
    let mhz = s.sm_hz.map(|v| v / 1e6);
    kernel_row(kr, pos, selected)
        .child(name_cell(kr, &k.name, k.name.clone()))
        .child(num_cell(opt(s.sm_pct, pct), s.sm_pct, "sm_pct", "sm_pct"))
        .child(num_cell(
            opt(s.memory_pct, pct),
            s.memory_pct,
            "memory_pct",
            "memory_pct",
        ))
        .child(num_cell(
            opt(s.dram_pct, pct),
            s.dram_pct,
            "dram_pct",
            "dram_pct",
        ))
        .child(num_cell(opt(s.l1_pct, pct), s.l1_pct, "", "l1_pct"))
        .child(num_cell(opt(s.l2_pct, pct), s.l2_pct, "", "l2_pct"))
        .child(num_cell(opt(ncu_ms, ms), ncu_ms, "ncu_duration", "ncu_ms"))
        .child(num_cell(
            opt(mhz, |v| format!("{v:.0}")),
            mhz,
            "ncu_duration",
            "sm_mhz",
        ))
        .child(
            tagged(
                "td",
                "verdict",
                k.verdict
                    .as_ref()
                    .map(|v| v.kind.as_str().to_string())
                    .unwrap_or_else(|| "-".into()),
            )
            .attr("data-col", "verdict"),
        )
        .child(
            tagged("td", "reason muted", reason)
                .attr("data-col", "because")
                .attr("title", reason_title),
        )
}

// == Bytes ==

/// The bytes table's header row: every column sorts (its [`Act::Local`] is the column's
/// place in [`Column::ALL`]), with an arrow on the sorted one.
pub fn bytes_header(sort: Option<(Column, bool)>, titles: &[String]) -> PageEl {
    header_row(
        Column::ALL
            .into_iter()
            .zip(shared::analysis::table::COLUMNS)
            .enumerate()
            .map(|(i, (col, label))| {
                let arrow = match sort {
                    Some((c, true)) if c == col => " ▲",
                    Some((c, false)) if c == col => " ▼",
                    _ => "",
                };
                el("th")
                    .class("sortable")
                    .attr("data-col", col.field())
                    .attr("title", titles.get(i).cloned().unwrap_or_default())
                    .on_click(Act::Local(i))
                    .text(label)
                    .text(arrow)
            }),
    )
}

/// The hover text of every column of the bytes table, in [`Column::ALL`] order.
pub fn bytes_titles() -> Vec<String> {
    Column::ALL
        .into_iter()
        .map(|c| explain_title(c.explain_key()))
        .collect()
}

/// Kernel `kr`'s row of the bytes table, cells as `capture table` prints them.
pub fn bytes_row(
    kr: KernelRef,
    pos: usize,
    run: &RunView,
    titles: &[String],
    selected: Option<KernelRef>,
) -> Option<PageEl> {
    let row = run.table.kernels.get(kr.kernel)?;
    let cells = Column::ALL
        .into_iter()
        .zip(row.short_cells())
        .enumerate()
        .map(|(i, (col, text))| {
            let value = col
                .number(row)
                .map(|v| v.to_string())
                .or_else(|| col.text(row).map(str::to_string))
                .unwrap_or_default();
            if col == Column::Name {
                el("td")
                    .class("name")
                    .attr("data-col", col.field())
                    .attr("data-value", value)
                    .attr("title", row.name.clone())
                    .child(select_button(kr, text))
            } else {
                el("td")
                    .class("num")
                    .attr("data-col", col.field())
                    .attr("data-value", value)
                    .attr("title", titles.get(i).cloned().unwrap_or_default())
                    .text(text)
            }
        });
    Some(kernel_row(kr, pos, selected).children(cells))
}

// == Occupancy ==

/// The occupancy header row.
pub fn occupancy_header() -> PageEl {
    header_row([
        th("kernel"),
        th("grid x block"),
        th("theoretical %"),
        th("achieved %"),
        th_term("waves", "waves/SM"),
        th("limited by"),
        th("registers/thread"),
        th("limit: registers"),
        th("limit: shared mem"),
        th("limit: warps"),
        th("limit: block slots"),
        th("limit: barriers"),
    ])
}

/// Kernel `k`'s occupancy row.
pub fn occupancy_row(
    kr: KernelRef,
    pos: usize,
    run: &RunView,
    k: &KernelFigures,
    selected: Option<KernelRef>,
) -> PageEl {
    let o = &k.occupancy;
    let fit = &k.latency.fit;
    let launch = run
        .run
        .artifact
        .kernels
        .get(k.index)
        .and_then(|rec| rec.cold.as_ref())
        .and_then(|c| c.launches.first())
        .map(|l| {
            format!(
                "{} x {}",
                l.grid.map(|g| format!("{g:?}")).unwrap_or("?".into()),
                l.block.map(|b| format!("{b:?}")).unwrap_or("?".into())
            )
        })
        .unwrap_or_default();
    let limiter = fit
        .limiters
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let n = |v: Option<f64>, col: &'static str| num_cell(opt(v, count), v, "", col);
    kernel_row(kr, pos, selected)
        .child(name_cell(kr, &k.name, k.short.clone()))
        .child(el("td").text(launch))
        .child(num_cell(
            opt(o.theoretical_pct, pct),
            o.theoretical_pct,
            "occupancy",
            "theoretical",
        ))
        .child(num_cell(
            opt(o.achieved_pct, pct),
            o.achieved_pct,
            "occupancy",
            "achieved",
        ))
        .child(num_cell(
            opt(fit.waves, |w| format!("{w:.2}")),
            fit.waves,
            "waves",
            "waves",
        ))
        .child(
            el("td")
                .attr("data-col", "limiter")
                .text(if limiter.is_empty() {
                    "-".to_string()
                } else {
                    limiter
                }),
        )
        .child(n(o.registers_per_thread, "registers"))
        .child(n(o.limit_registers, "limit_registers"))
        .child(n(o.limit_shared_mem, "limit_shared"))
        .child(n(o.limit_warps, "limit_warps"))
        .child(n(o.limit_blocks, "limit_blocks"))
        .child(n(o.limit_barriers, "limit_barriers"))
}

// == Timing ==

/// How the ncu durations of `run` were taken: its clock control, and its kernels' cache
/// control.
pub fn timing_controls(run: &RunView) -> (String, &'static str) {
    let clock = match run.run.artifact.provenance.clock_control.as_deref() {
        Some("base") => "clocks locked to base (--clock-control base)".to_string(),
        Some("none") => "clocks free (--clock-control none)".to_string(),
        Some(other) => format!("clock control {other}"),
        None => "clock control not recorded (ncu's default locks to base)".to_string(),
    };
    let cache = match run.kernels.iter().find_map(|k| k.cold_cache) {
        Some(CacheControl::Cold) => "caches flushed (--cache-control all)",
        Some(CacheControl::Warm) => "warm caches (--cache-control none)",
        None => "cache control not recorded (ncu's default flushes)",
    };
    (clock, cache)
}

/// The timing header row.
pub fn timing_header() -> PageEl {
    header_row(
        [
            "kernel",
            "event min ms",
            "event median ms",
            "event max ms",
            "warm-ups + samples",
            "ncu cold ms",
            "ncu warm ms",
            "ncu / event",
        ]
        .map(th),
    )
}

/// Kernel `k`'s timing row.
pub fn timing_row(kr: KernelRef, pos: usize, k: &KernelFigures) -> PageEl {
    let e = k.event.as_ref();
    let ratio = e
        .map(|t| t.median_ms)
        .zip(k.ncu_cold_ms)
        .and_then(|(ev, nc)| (ev > 0.0).then(|| nc / ev));
    let ev = |v: Option<f64>, col: &'static str| num_cell(opt(v, ms), v, "event_time", col);
    el("tr")
        .attr("data-kernel", kr.kernel.to_string())
        .attr("aria-rowindex", aria_row(pos))
        .child(
            el("td")
                .class("name")
                .attr("title", k.name.clone())
                .text(k.short.clone()),
        )
        .child(ev(e.map(|t| t.min_ms), "event_min"))
        .child(ev(e.map(|t| t.median_ms), "event_median"))
        .child(ev(e.map(|t| t.max_ms), "event_max"))
        .child(tagged(
            "td",
            "num",
            e.map(|t| format!("{} + {}", t.warmups, t.samples_ms.len()))
                .unwrap_or("-".into()),
        ))
        .child(num_cell(
            opt(k.ncu_cold_ms, ms),
            k.ncu_cold_ms,
            "ncu_duration",
            "ncu_cold",
        ))
        .child(num_cell(
            opt(k.ncu_warm_ms, ms),
            k.ncu_warm_ms,
            "ncu_duration",
            "ncu_warm",
        ))
        .child(num_cell(
            opt(ratio, |v| format!("{v:.2}")),
            ratio,
            "",
            "ratio",
        ))
}

// == Raw metrics ==

/// The raw metrics' header row.
pub fn metrics_header() -> PageEl {
    header_row(["launch", "section", "metric", "unit", "value"].map(th))
}

/// One raw metric's row.
pub fn metric_row(pos: usize, m: &MetricRow) -> PageEl {
    el("tr")
        .attr("aria-rowindex", aria_row(pos))
        .child(tagged("td", "num", m.launch.to_string()))
        .child(
            el("td")
                .attr("title", m.section.clone())
                .text(m.section.clone()),
        )
        .child(tagged("td", "metric", m.name.clone()).attr("title", m.name.clone()))
        .child(el("td").text(m.unit.clone()))
        .child(tagged("td", "num", m.value.clone()))
}

// == What each table page says above its table ==

/// A muted paragraph of text and terms.
fn muted(parts: Vec<PageNode>) -> PageNode {
    el("p").class("muted").children(parts).into()
}

/// Above the ranking.
pub fn time_intro() -> PageNode {
    muted(vec![
        text("Kernels by their share of the summed kernel "),
        term("time", "time").into(),
        text(
            ", largest first, with the running total: the top rows are where the time goes. \
             Work is the kind of arithmetic each did most of; the roof is the one its DRAM \
             intensity sits under, with how close it runs to it.",
        ),
    ])
}

/// Above the Speed-of-Light table.
pub fn sol_intro() -> PageNode {
    muted(vec![
        text(
            "Percentages are of each unit's own peak over the kernel's elapsed cycles, at the \
             clocks ncu ran it (see Timing). ",
        ),
        term("memory_pct", "Memory Throughput is not DRAM throughput.").into(),
    ])
}

/// Above the occupancy table.
pub fn occupancy_intro() -> PageNode {
    muted(vec![
        term("occupancy", "Occupancy").into(),
        text(
            " buys latency hiding, nothing else. The block limits (blocks per SM allowed by \
             each resource) set the theoretical figure; barriers and tail effects separate \
             achieved from theoretical. ",
        ),
        term("waves", "Waves").into(),
        text(" say whether the grid could fill the GPU at all."),
    ])
}

/// Above the bytes table: the run's copy and theoretical ceilings, then how to read it.
pub fn bytes_intro(run: Option<&RunView>) -> PageNode {
    let ceilings = run
        .map(|r| {
            let c = &r.table.ceilings;
            let mut parts = Vec::new();
            if let Some(v) = c.copy_gbs {
                parts.push(format!("copy ceiling {v:.1} GB/s"));
            }
            if let Some(v) = c.theoretical_gbs {
                parts.push(format!("theoretical {v:.0} GB/s"));
            }
            parts.join(", ")
        })
        .unwrap_or_default();
    muted(vec![
        text(ceilings),
        text(" Sums over each kernel's launches. "),
        term("dram_per_ask", "DRAM/ask").into(),
        text(" to four decimals: 0.003 is a real answer. Click a header to sort."),
    ])
}

/// Above the timing table: how each kind of time of `run` was taken.
pub fn timing_intro(run: Option<&RunView>) -> PageNode {
    let Some(run) = run else {
        return text("");
    };
    let (clock, cache) = timing_controls(run);
    el("ul")
        .class("controls")
        .child(el("li").child(term("event_time", "Event time")).text(
            ": a plain run, no profiler, the GPU's own clocks, caches as the previous \
                     launch left them.",
        ))
        .child(
            el("li")
                .child(term("ncu_duration", "ncu duration"))
                .text(format!(": a profiled replay, {cache}, {clock}.")),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::load::{load_batch, InputFile};
    use crate::state::markup::Node;
    use crate::state::model::Workspace;

    fn h200() -> Workspace {
        let path = format!("{}/../site/samples/h200.json", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let (runs, _) = load_batch(vec![InputFile {
            name: "h200.json".into(),
            bytes,
        }]);
        let mut ws = Workspace::default();
        ws.add(runs);
        ws
    }

    #[test]
    fn rows_carry_their_kernel_place_and_selection() {
        let ws = h200();
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let kr = KernelRef { run: 0, kernel: 1 };
        let Some(k) = run.kernels.get(1) else {
            panic!("no kernel")
        };
        let titles = bytes_titles();
        let rows = [
            sol_row(kr, 0, k, Some(kr)),
            occupancy_row(kr, 0, run, k, Some(kr)),
            bytes_row(kr, 0, run, &titles, Some(kr)).unwrap_or_else(|| el("tr")),
        ];
        for row in rows {
            assert_eq!(row.get("data-kernel"), Some("1"));
            assert_eq!(row.get("aria-rowindex"), Some("2"));
            assert_eq!(row.get("class"), Some("selected"));
            let node = Node::El(row);
            let button = node.find_by(&|e| e.tag == "button");
            assert_eq!(button.and_then(|b| b.on_click), Some(Act::Select(kr)));
        }
        let row = timing_row(kr, 3, k);
        assert_eq!(row.get("aria-rowindex"), Some("5"));
        assert_eq!(row.get("class"), None);
    }

    #[test]
    fn the_sorted_column_of_the_bytes_table_has_its_arrow() {
        let titles = bytes_titles();
        let header = Node::El(bytes_header(Some((Column::Dram, false)), &titles));
        let th = header.find_by(&|e| e.get("data-col") == Some("dram_bytes"));
        let th = th.map(|t| Node::El(t.clone()).text_content());
        assert!(th.is_some_and(|t| t.ends_with(" ▼")), "{header:?}");
        assert_eq!(header.count(&|e| e.on_click.is_some()), Column::ALL.len());
    }
}
