//! The long tables (where the time goes, Speed of Light, bytes, occupancy, timing, raw
//! metrics) as plain rows of cells, built from the loaded runs and tested natively;
//! `components::virtual_table` renders them with leptos, a window at a time. A row carries
//! its kernel (`data-kernel`) and whether it is selected; a cell its column (`data-col`),
//! its exact value (`data-value`), its hover text and, for a name, the kernel a click
//! selects.

use shared::analysis::figures::RankRow;
use shared::model::artifact::CacheControl;
use shared::text::format::{fmt_si, ms, opt, sig3};

use super::explain::explain;
use super::kernel::KernelFigures;
use super::model::{Column, MetricRow, MetricValues, RunView};
use super::view::KernelRef;

/// A percentage to one decimal, without the unit (the header has it).
pub fn pct(v: f64) -> String {
    format!("{v:.1}")
}

/// A number to four significant digits as a plain decimal (no exponent, no prefix), so it
/// reads as the number it is: `812.3`, `0.01234`, `12346`.
pub fn round_sig(v: f64) -> String {
    if !v.is_finite() || v == 0.0 {
        return format!("{v}");
    }
    let digits = v.abs().log10().floor() as i32;
    let decimals = (3 - digits).clamp(0, 12) as usize;
    format!("{v:.decimals$}")
}

fn count(v: f64) -> String {
    format!("{v:.0}")
}

/// The hover text of explanation `key` (empty for none).
pub fn explain_title(key: &str) -> String {
    explain(key).map(|e| e.as_text()).unwrap_or_default()
}

/// A cell of a table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cell {
    /// The column's name (`data-col`), if the cell carries one.
    pub col: Option<&'static str>,
    /// What the cell shows.
    pub text: String,
    /// The exact value (`data-value`), if the cell carries one.
    pub value: Option<String>,
    /// The hover text.
    pub title: String,
    /// The cell's class (`num`, `name`, `verdict`).
    pub class: &'static str,
    /// For a kernel's name: the kernel a click on it selects.
    pub select: Option<KernelRef>,
}

impl Cell {
    /// A cell of plain text with a class.
    pub fn text(class: &'static str, text: impl Into<String>) -> Cell {
        Cell {
            class,
            text: text.into(),
            ..Cell::default()
        }
    }

    /// Names the cell's column.
    pub fn col(mut self, col: &'static str) -> Cell {
        self.col = Some(col);
        self
    }

    /// Sets the hover text.
    pub fn title(mut self, title: impl Into<String>) -> Cell {
        self.title = title.into();
        self
    }

    /// A numeric cell: the text, the exact number in `data-value` (empty when absent), the
    /// explanation `key` on hover (none for `""`), and its column.
    pub fn num(text: String, value: Option<f64>, key: &str, col: &'static str) -> Cell {
        Cell {
            col: Some(col),
            text,
            value: Some(value.map(|v| v.to_string()).unwrap_or_default()),
            title: explain_title(key),
            class: "num",
            select: None,
        }
    }

    /// A kernel's name: the `shown` text, cut in the middle to [`TABLE_NAME_CHARS`]
    /// (`elide_name`) so that what tells one kernel from another stays (a cut at the end
    /// left `vectorized_elementwise_kernel<4, AUna` of GPT-2's elementwise kernels and
    /// `..._h_b` of its GEMMs), selects kernel `r`; the whole `name` on hover.
    pub fn name(r: KernelRef, name: &str, shown: impl Into<String>) -> Cell {
        Cell {
            text: shared::text::names::elide_name(&shown.into(), TABLE_NAME_CHARS),
            title: name.to_string(),
            class: "name",
            select: Some(r),
            ..Cell::default()
        }
    }
}

/// The most characters of a kernel's name in a table's name cell: what fits its 23rem
/// (the style sheet's `td.name`, narrower where the table is tight) at the table's font, so
/// the browser never cuts the end.
pub const TABLE_NAME_CHARS: usize = shared::text::names::LABEL_CHARS;

/// A row of a table.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Row {
    /// The kernel of the row (`data-kernel`), where it is a kernel's.
    pub kernel: Option<usize>,
    /// Whether it is the selected kernel's.
    pub selected: bool,
    /// The cells, in column order.
    pub cells: Vec<Cell>,
}

impl Row {
    /// Kernel `r`'s row of `cells`, marked when `r` is `selected`.
    pub fn kernel(r: KernelRef, selected: Option<KernelRef>, cells: Vec<Cell>) -> Row {
        Row {
            kernel: Some(r.kernel),
            selected: selected == Some(r),
            cells,
        }
    }
}

/// What a cell sorts by: its exact value (`data-value`), else its text, as a number where
/// it reads as one (`12.5`, `41.2 %`), else as lowercase text; `None` for an empty cell or
/// `-`, which sorts last either way.
fn sort_key(c: &Cell) -> Option<Result<f64, String>> {
    let number = |t: &str| {
        t.trim()
            .trim_end_matches('%')
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
    };
    if let Some(v) = c.value.as_deref().and_then(number) {
        return Some(Ok(v));
    }
    let text = c
        .value
        .as_deref()
        .filter(|v| !v.is_empty())
        .unwrap_or(&c.text)
        .trim();
    if text.is_empty() || text == "-" {
        return None;
    }
    Some(number(text).ok_or_else(|| text.to_lowercase()))
}

/// The rows of `keys` sorted by their cells in column `col` (`row` makes a key's row), and
/// whether ascending: `ascending` when given, else a column of numbers largest first and
/// one of text from A (the direction a first click sorts). Numbers come before text, an
/// empty cell last either way, and ties keep the order of `keys`.
pub fn sort_rows(
    keys: &[usize],
    col: usize,
    ascending: Option<bool>,
    row: &dyn Fn(usize) -> Option<Row>,
) -> (Vec<usize>, bool) {
    let mut keyed: Vec<(usize, Option<Result<f64, String>>)> = keys
        .iter()
        .map(|&k| (k, row(k).and_then(|r| r.cells.get(col).and_then(sort_key))))
        .collect();
    let numbers = keyed.iter().any(|(_, v)| matches!(v, Some(Ok(_))));
    let asc = ascending.unwrap_or(!numbers);
    shared::order::sort_by(&mut keyed, |(_, a), (_, b)| {
        use std::cmp::Ordering;
        let ord = match (a, b) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Greater,
            (Some(_), None) => return Ordering::Less,
            (Some(Ok(x)), Some(Ok(y))) => x.total_cmp(y),
            (Some(Ok(_)), Some(Err(_))) => Ordering::Less,
            (Some(Err(_)), Some(Ok(_))) => Ordering::Greater,
            (Some(Err(x)), Some(Err(y))) => x.cmp(y),
        };
        if asc {
            ord
        } else {
            ord.reverse()
        }
    });
    (keyed.into_iter().map(|(k, _)| k).collect(), asc)
}

/// A header cell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Head {
    /// What it says.
    pub label: &'static str,
    /// The explanation its label opens (none for `""`).
    pub key: &'static str,
    /// The column's name (`data-col`), where it has one.
    pub col: Option<&'static str>,
    /// The hover text.
    pub title: String,
}

/// Plain header cells.
fn heads<const N: usize>(labels: [&'static str; N]) -> Vec<Head> {
    labels.into_iter().map(th).collect()
}

/// A header cell that explains itself.
fn term(key: &'static str, label: &'static str) -> Head {
    Head {
        label,
        key,
        ..Head::default()
    }
}

/// A plain header cell; the kernel's is the `name` column, which sticks when the table
/// scrolls sideways (the style sheet).
fn th(label: &'static str) -> Head {
    Head {
        label,
        col: (label == "kernel").then_some("name"),
        ..Head::default()
    }
}

/// The verdict of a kernel, `-` for none.
fn verdict_of(k: &KernelFigures) -> String {
    let mark = if k.row.verdict_mixed {
        shared::analysis::table::MIXED_MARK
    } else {
        ""
    };
    k.verdict
        .as_ref()
        .map_or_else(|| "-".into(), |v| format!("{}{mark}", v.kind.as_str()))
}

/// ncu's own verdict of a kernel beside ours: `same`, or its verdict and title; `-` where
/// the file has no SOLBottleneck finding. The hover text is ncu's message and, where we
/// differ, why.
fn ncu_says(k: &KernelFigures) -> (String, String) {
    k.row.ncu_verdict.as_ref().map_or_else(
        || ("-".into(), String::new()),
        |n| {
            let text = if n.agrees {
                "same".to_string()
            } else {
                format!("{} ({})", n.verdict, n.title)
            };
            let title = match &n.why {
                Some(why) => format!("ncu: {}\n{why}", n.message),
                None => format!("ncu: {}", n.message),
            };
            (text, title)
        },
    )
}

/// The launch groups of a kernel whose groups disagree: shape, launches, share of its
/// time, verdict and reason, one line each (the SOL page lists them under its table).
pub fn group_lines(k: &KernelFigures) -> Vec<String> {
    k.row
        .groups
        .iter()
        .map(shared::analysis::groups::LaunchGroup::line)
        .collect()
}

/// The columns of a kernel's launch groups table.
pub const GROUP_HEADER: [&str; 6] = [
    "shape",
    "launches",
    "time ms",
    "% of its time",
    "verdict",
    "why",
];

/// The launch groups of a kernel whose groups disagree as rows of [`GROUP_HEADER`]: shape,
/// launches, summed time, share of the kernel's time, verdict and reason (they were
/// sentences of some 40 words, one per bullet, issue 53).
pub fn group_rows(k: &KernelFigures) -> Vec<Row> {
    k.row
        .groups
        .iter()
        .map(|g| Row {
            cells: vec![
                Cell::text("", g.shape.clone()),
                Cell::text("num", g.launches.to_string()),
                Cell::text("num", opt(g.time_ms, ms)),
                Cell::text("num", opt(g.time_share.map(|s| 100.0 * s), pct)),
                Cell::text("verdict", g.verdict.clone().unwrap_or_else(|| "-".into())),
                Cell::text("why", g.reason.clone().unwrap_or_else(|| "-".into())),
            ],
            ..Row::default()
        })
        .collect()
}

// == Where the time goes ==

/// The ranking's header: the verdict and the roof that decides it beside the name, then
/// the kernel's share of the time and the running total (the page's answer: after the
/// launches and the summed time it was past the panel's edge at 1500 px), so that none
/// needs a sideways scroll at 1500 px (issue 38), then the launches and times.
pub fn time_header() -> Vec<Head> {
    heads([
        "#",
        "kernel",
        "verdict",
        "roof (% of it)",
        "time %",
        "cumulative %",
        "launches",
        "time ms (sum)",
        "work",
    ])
}

/// Whether the roof is a measured ceiling or the theoretical peak, for the roof's hover.
fn roof_title(r: &RankRow) -> String {
    match r.roof.as_ref() {
        Some(u) if u.measured => "% of the measured ceiling".into(),
        Some(_) => "% of the theoretical peak (no measured ceiling in this run)".into(),
        None => String::new(),
    }
}

/// The roof a ranked kernel sits under, in words.
pub fn roof_text(r: &RankRow) -> String {
    r.roof.as_ref().map_or_else(
        || "-".to_string(),
        |u| {
            let side = match u.bound {
                shared::model::roofline::Bound::Memory => "memory (DRAM)".to_string(),
                shared::model::roofline::Bound::Compute => format!("compute ({})", u.kind.label()),
            };
            let of = u
                .pct_of_roof
                .map_or_else(String::new, |p| format!(" {p:.0} %"));
            format!("{side}{of}")
        },
    )
}

/// The ranked kernel `r` at place `rank` (0 is the most time).
pub fn time_row(
    kr: KernelRef,
    rank: usize,
    r: &RankRow,
    k: &KernelFigures,
    selected: Option<KernelRef>,
) -> Row {
    let share = |v: Option<f64>| v.map_or_else(|| "-".into(), |s| format!("{:.1}", 100.0 * s));
    let mut because = k
        .verdict
        .as_ref()
        .map(|v| v.reason.clone())
        .unwrap_or_default();
    // A kernel whose launch groups disagree lists them on hover (the SOL page opens them).
    if k.row.verdict_mixed {
        for line in group_lines(k) {
            because.push('\n');
            because.push_str(&line);
        }
    }
    Row::kernel(
        kr,
        selected,
        vec![
            Cell::text("num", (rank + 1).to_string()),
            Cell::name(kr, &k.name, k.label.clone()),
            Cell::text("verdict", verdict_of(k))
                .col("verdict")
                .title(because),
            Cell::text("", roof_text(r))
                .col("roof")
                .title(roof_title(r)),
            Cell::text("num", share(r.share)).col("time_share"),
            Cell::text("num", share(r.cumulative)).col("cumulative"),
            Cell::text("num", k.row.launches.to_string()),
            Cell::text("num", opt(k.row.time_ms, ms)),
            Cell::text("", k.row.precision.clone().unwrap_or_else(|| "-".into())).col("precision"),
        ],
    )
}

// == Speed of Light ==

/// The Speed-of-Light header: the verdict and the two figures that decide it (Compute (SM)
/// and Memory Throughput) beside the name, then ncu's verdict and the reason, then the other
/// percentages; at 1500 px the two figures were past the panel's right edge after the
/// reason.
pub fn sol_header() -> Vec<Head> {
    vec![
        th("kernel"),
        term("verdict", "verdict"),
        term("sm_pct", "SM %"),
        term("memory_pct", "Memory %"),
        th("ncu says"),
        th("because"),
        term("dram_pct", "DRAM %"),
        th("L1/TEX %"),
        th("L2 %"),
        term("ncu_duration", "ncu ms per launch"),
        th("SM MHz"),
    ]
}

/// Kernel `k`'s Speed-of-Light row.
pub fn sol_row(kr: KernelRef, k: &KernelFigures, selected: Option<KernelRef>) -> Row {
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
    // One launch's duration: the summed duration over the launches summed.
    let ncu_ms = s
        .duration_ns
        .map(|v| v / 1e6 / k.totals.launches.max(1) as f64);
    let mhz = s.sm_hz.map(|v| v / 1e6);
    Row::kernel(
        kr,
        selected,
        vec![
            Cell::name(kr, &k.name, k.label.clone()),
            Cell::text("verdict", verdict_of(k))
                .col("verdict")
                .title(if k.row.verdict_mixed {
                    group_lines(k).join("\n")
                } else {
                    String::new()
                }),
            Cell::num(opt(s.sm_pct, pct), s.sm_pct, "sm_pct", "sm_pct"),
            Cell::num(
                opt(s.memory_pct, pct),
                s.memory_pct,
                "memory_pct",
                "memory_pct",
            ),
            {
                let (text, title) = ncu_says(k);
                Cell::text("ncu", text).col("ncu_verdict").title(title)
            },
            Cell::text("reason muted", reason)
                .col("because")
                .title(reason_title),
            Cell::num(opt(s.dram_pct, pct), s.dram_pct, "dram_pct", "dram_pct"),
            Cell::num(opt(s.l1_pct, pct), s.l1_pct, "", "l1_pct"),
            Cell::num(opt(s.l2_pct, pct), s.l2_pct, "", "l2_pct"),
            Cell::num(opt(ncu_ms, ms), ncu_ms, "ncu_duration", "ncu_ms"),
            Cell::num(
                opt(mhz, |v| format!("{v:.0}")),
                mhz,
                "ncu_duration",
                "sm_mhz",
            ),
        ],
    )
}

// == Bytes ==

/// The bytes table's columns in the order the page shows them: the verdict and the share
/// of the time beside the name, then the bytes (asked, L1, L2, DRAM and DRAM/ask: the page
/// is named for them, and at 1500 px they were past the panel's edge behind the rates,
/// issue 53), then the rates that decide the verdict (% of the copy ceiling, GB/s,
/// GFLOP/s), the launches and the time. `capture table` keeps [`Column::ALL`]'s order.
pub const BYTES_SHOWN: [Column; 18] = [
    Column::Name,
    Column::Verdict,
    Column::TimeShare,
    Column::Ask,
    Column::L1,
    Column::L2,
    Column::Dram,
    Column::DramPerAsk,
    Column::PctCopy,
    Column::Gbs,
    Column::Gflops,
    Column::Launches,
    Column::Time,
    Column::Work,
    Column::Ncu,
    Column::BoundBy,
    Column::Check,
    Column::Because,
];

/// The bytes table's columns for `rows`: [`BYTES_SHOWN`] without those no row fills (an
/// application's export has no asked bytes and no copy ceiling: five columns of `-` on
/// GPT-2, issue 38).
pub fn bytes_columns(rows: &[shared::analysis::table::TableRow]) -> Vec<Column> {
    BYTES_SHOWN
        .into_iter()
        .filter(|c| {
            *c == Column::Name
                || rows
                    .iter()
                    .any(|r| c.number(r).is_some() || c.text(r).is_some())
        })
        .collect()
}

/// The DRAM ceilings the bytes table's % is of, as a sentence of its own (it ran into the
/// next one: "... 4814 GB/s Bytes and time ..."); empty when the run has none.
pub fn bytes_ceilings(run: &RunView) -> String {
    let c = &run.table.ceilings;
    let mut parts = Vec::new();
    if let Some(v) = c.copy_gbs {
        parts.push(format!("copy ceiling {v:.1} GB/s"));
    }
    if let Some(v) = c.theoretical_gbs {
        parts.push(format!("theoretical {v:.0} GB/s"));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!("DRAM: {}.", parts.join(", "))
    }
}

/// `items`, one per column in [`Column::ALL`] order, as `cols` orders them.
fn in_columns<T>(items: Vec<T>, cols: &[Column]) -> Vec<T> {
    let mut slots: Vec<Option<T>> = items.into_iter().map(Some).collect();
    cols.iter()
        .filter_map(|c| {
            let i = Column::ALL.iter().position(|a| a == c)?;
            slots.get_mut(i)?.take()
        })
        .collect()
}

/// The bytes table's header for columns `cols` ([`bytes_columns`]): every column sorts.
pub fn bytes_header(cols: &[Column]) -> Vec<Head> {
    in_columns(
        Column::ALL
            .into_iter()
            .zip(shared::analysis::table::COLUMNS)
            .map(|(col, label)| Head {
                // The shared label says "time ms"; the page says which time it is.
                label: if label == "time ms" {
                    "time ms (sum of launches)"
                } else {
                    label
                },
                key: "",
                col: Some(col.field()),
                title: explain_title(col.explain_key()),
            })
            .collect(),
        cols,
    )
}

/// The hover text of every column of the bytes table, in [`Column::ALL`] order.
pub fn bytes_titles() -> Vec<String> {
    Column::ALL
        .into_iter()
        .map(|c| explain_title(c.explain_key()))
        .collect()
}

/// Kernel `kr`'s row of the bytes table in columns `cols`, cells as `capture table` prints
/// them.
pub fn bytes_row(
    kr: KernelRef,
    run: &RunView,
    titles: &[String],
    selected: Option<KernelRef>,
    cols: &[Column],
) -> Option<Row> {
    let row = run.table.kernels.get(kr.kernel)?;
    let cells: Vec<Cell> = Column::ALL
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
                let shown = run.kernels.get(kr.kernel).map_or(text, |k| k.label.clone());
                let mut c = Cell::name(kr, &row.name, shown).col(col.field());
                c.value = Some(value);
                c
            } else {
                Cell {
                    col: Some(col.field()),
                    text,
                    value: Some(value),
                    title: titles.get(i).cloned().unwrap_or_default(),
                    class: "num",
                    select: None,
                }
            }
        })
        .collect();
    Some(Row::kernel(kr, selected, in_columns(cells, cols)))
}

// == Occupancy ==

/// The occupancy header: the two occupancies and what limits them next to the name, the
/// launch's shape after them (at 1500 px it pushed "limited by" past the panel's edge).
pub fn occupancy_header() -> Vec<Head> {
    vec![
        th("kernel"),
        th("theoretical %"),
        th("achieved %"),
        th("limited by"),
        term("waves", "waves/SM"),
        th("grid x block"),
        th("registers/thread"),
        th("limit: registers"),
        th("limit: shared mem"),
        th("limit: warps"),
        th("limit: block slots"),
        th("limit: barriers"),
    ]
}

/// The grid and block of kernel `index`'s first profiled launch, `?` where unknown.
pub fn launch_shape(run: &RunView, index: usize) -> String {
    run.run
        .artifact
        .kernels
        .get(index)
        .and_then(|rec| rec.cold.as_ref())
        .and_then(|c| c.launches.first())
        .map(|l| {
            format!(
                "{} x {}",
                l.site.grid.map(|g| format!("{g:?}")).unwrap_or("?".into()),
                l.site.block.map(|b| format!("{b:?}")).unwrap_or("?".into())
            )
        })
        .unwrap_or_default()
}

/// Kernel `k`'s occupancy row.
pub fn occupancy_row(
    kr: KernelRef,
    run: &RunView,
    k: &KernelFigures,
    selected: Option<KernelRef>,
) -> Row {
    let o = &k.occupancy;
    let fit = &k.latency.fit;
    let limiter = fit
        .limiters
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join(", ");
    let n = |v: Option<f64>, col: &'static str| Cell::num(opt(v, count), v, "", col);
    Row::kernel(
        kr,
        selected,
        vec![
            Cell::name(kr, &k.name, k.label.clone()),
            Cell::num(
                opt(o.theoretical_pct, pct),
                o.theoretical_pct,
                "occupancy",
                "theoretical",
            ),
            Cell::num(
                opt(o.achieved_pct, pct),
                o.achieved_pct,
                "occupancy",
                "achieved",
            ),
            Cell::text(
                "",
                if limiter.is_empty() {
                    "-".to_string()
                } else {
                    limiter
                },
            )
            .col("limiter"),
            Cell::num(
                opt(fit.waves, |w| format!("{w:.2}")),
                fit.waves,
                "waves",
                "waves",
            ),
            Cell::text("", launch_shape(run, k.index)),
            n(o.registers_per_thread, "registers"),
            n(o.limit_registers, "limit_registers"),
            n(o.limit_shared_mem, "limit_shared"),
            n(o.limit_warps, "limit_warps"),
            n(o.limit_blocks, "limit_blocks"),
            n(o.limit_barriers, "limit_barriers"),
        ],
    )
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

/// Which of the timing table's columns a run has values in: an import has no event times,
/// a cold-only profile no warm durations; a column no kernel fills is left out, so that the
/// one that answers is not pushed off the page by columns of `-` (issue 38).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimingColumns {
    /// Event min, median, max, warm-ups + samples (and, with `cold`, the ratio).
    pub event: bool,
    /// ncu's duration with caches flushed.
    pub cold: bool,
    /// ncu's duration with warm caches.
    pub warm: bool,
}

impl TimingColumns {
    /// The columns `run`'s kernels fill.
    pub fn of(run: &RunView) -> TimingColumns {
        let any = |f: &dyn Fn(&KernelFigures) -> bool| run.kernels.iter().any(f);
        TimingColumns {
            event: any(&|k| k.event.is_some()),
            cold: any(&|k| k.ncu_cold_ms.is_some()),
            warm: any(&|k| k.ncu_warm_ms.is_some()),
        }
    }

    /// Whether column `i` of [`TIMING_COLUMNS`] is shown.
    fn shows(self, i: usize) -> bool {
        match i {
            1..=4 => self.event,
            5 => self.cold,
            6 => self.warm,
            7 => self.event && self.cold,
            _ => true,
        }
    }
}

/// The timing table's columns, every time per launch (the page says so above the table;
/// headers of "... ms per launch" pushed ncu's time past the panel at 1500 px).
const TIMING_COLUMNS: [&str; 8] = [
    "kernel",
    "event min ms",
    "event median ms",
    "event max ms",
    "warm-ups + samples",
    "ncu cold ms",
    "ncu warm ms",
    "ncu / event",
];

/// The timing header: the columns of `shown`.
pub fn timing_header(shown: TimingColumns) -> Vec<Head> {
    heads(TIMING_COLUMNS)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| shown.shows(*i))
        .map(|(_, h)| h)
        .collect()
}

/// Kernel `k`'s timing row, the cells of the columns of `shown`.
pub fn timing_row(kr: KernelRef, k: &KernelFigures, shown: TimingColumns) -> Row {
    let e = k.event.as_ref();
    let ratio = e
        .map(|t| t.median_ms)
        .zip(k.ncu_cold_ms)
        .and_then(|(ev, nc)| (ev > 0.0).then(|| nc / ev));
    let ev = |v: Option<f64>, col: &'static str| Cell::num(opt(v, ms), v, "event_time", col);
    let cells = vec![
        Cell::text("name", k.label.clone()).title(k.name.clone()),
        ev(e.map(|t| t.min_ms), "event_min"),
        ev(e.map(|t| t.median_ms), "event_median"),
        ev(e.map(|t| t.max_ms), "event_max"),
        Cell::text(
            "num",
            e.map(|t| format!("{} + {}", t.warmups, t.samples_ms.len()))
                .unwrap_or("-".into()),
        ),
        Cell::num(
            opt(k.ncu_cold_ms, ms),
            k.ncu_cold_ms,
            "ncu_duration",
            "ncu_cold",
        ),
        Cell::num(
            opt(k.ncu_warm_ms, ms),
            k.ncu_warm_ms,
            "ncu_duration",
            "ncu_warm",
        ),
        Cell::num(opt(ratio, |v| format!("{v:.2}")), ratio, "", "ratio"),
    ];
    Row {
        kernel: Some(kr.kernel),
        selected: false,
        cells: cells
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shown.shows(*i))
            .map(|(_, c)| c)
            .collect(),
    }
}

// == Raw metrics ==

/// The raw metrics' header; the warm-cache column only where the kernel has a warm pass
/// (a column of `-` on every import and profile, issue 38's empty columns).
pub fn metrics_header(warm: bool) -> Vec<Head> {
    let pass = |label: &'static str| Head {
        label,
        title: "the mean over the pass's launches, with the least and the greatest value when \
                they differ; every launch's value on hover"
            .to_string(),
        ..Head::default()
    };
    let mut heads = vec![th("metric"), th("section"), th("unit"), pass("cold cache")];
    if warm {
        heads.push(pass("warm cache"));
    }
    heads
}

/// A pass's values of a metric for people: the value with its unit when every launch has
/// the same, else the mean and the range (`1.98 GHz (1.90 GHz–2.01 GHz)`); the launches'
/// values as read on hover.
pub fn metric_values(v: Option<&MetricValues>, unit: &str) -> (String, String) {
    let Some(v) = v else {
        return ("-".into(), String::new());
    };
    let exact = format!("{} launches: {}", v.values.len(), v.values.join(", "));
    let text = match v.numbers {
        Some((mean, lo, hi)) if lo != hi => format!(
            "{} ({}–{})",
            metric_value(&mean.to_string(), unit),
            metric_value(&lo.to_string(), unit),
            metric_value(&hi.to_string(), unit),
        ),
        Some((mean, _, _)) => metric_value(&mean.to_string(), unit),
        None => {
            let first = v.values.first().cloned().unwrap_or_default();
            if v.values.iter().all(|x| *x == first) {
                metric_value(&first, unit)
            } else {
                format!("{first} (varies over {} launches)", v.values.len())
            }
        }
    };
    (text, exact)
}

/// A raw value as read: a number with its unit in SI form (`3.18 GHz`, `41.2 us`), else
/// as written.
pub fn metric_value(value: &str, unit: &str) -> String {
    let Ok(v) = value.trim().parse::<f64>() else {
        return value.to_string();
    };
    if !v.is_finite() {
        return value.to_string();
    }
    match unit {
        "hz" => fmt_si(v, "Hz"),
        "byte" => fmt_si(v, "B"),
        "nsecond" if v.abs() >= 1e6 => format!("{} ms", sig3(v / 1e6)),
        "nsecond" if v.abs() >= 1e3 => format!("{} us", sig3(v / 1e3)),
        "nsecond" => format!("{} ns", sig3(v)),
        "" => fmt_si(v, ""),
        other => format!("{} {other}", fmt_si(v, "")),
    }
}

/// One raw metric's row, with its warm-cache value when `warm` (as [`metrics_header`]).
pub fn metric_row(m: &MetricRow, warm: bool) -> Row {
    let (cold, cold_exact) = metric_values(m.cold.as_ref(), &m.unit);
    let mut cells = vec![
        Cell::text("metric", m.name.clone()).title(m.name.clone()),
        Cell::text("", m.section.clone()).title(m.section.clone()),
        Cell::text("", m.unit.clone()),
        Cell::text("num", cold).title(cold_exact).col("cold"),
    ];
    if warm {
        let (text, exact) = metric_values(m.warm.as_ref(), &m.unit);
        cells.push(Cell::text("num", text).title(exact).col("warm"));
    }
    Row {
        kernel: None,
        selected: false,
        cells,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_support::sample;

    #[test]
    fn the_warm_cache_column_only_with_a_warm_pass() {
        let m = MetricRow {
            section: String::new(),
            name: shared::model::counters::DRAM_BYTES_READ.name.into(),
            unit: "byte".into(),
            cold: None,
            warm: None,
        };
        assert_eq!(metrics_header(false).len(), 4);
        assert_eq!(metric_row(&m, false).cells.len(), 4);
        assert_eq!(metrics_header(true).len(), 5);
        assert_eq!(metric_row(&m, true).cells.len(), 5);
    }

    #[test]
    fn rows_carry_their_kernel_selection_and_a_name_that_selects() {
        let ws = sample("h200.json");
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let kr = KernelRef { run: 0, kernel: 1 };
        let Some(k) = run.kernels.get(1) else {
            panic!("no kernel")
        };
        let titles = bytes_titles();
        let rows = [
            sol_row(kr, k, Some(kr)),
            occupancy_row(kr, run, k, Some(kr)),
            bytes_row(kr, run, &titles, Some(kr), &BYTES_SHOWN).unwrap_or_default(),
        ];
        for row in rows {
            assert_eq!(row.kernel, Some(1));
            assert!(row.selected);
            assert_eq!(row.cells.iter().find_map(|c| c.select), Some(kr));
        }
        let row = timing_row(kr, k, TimingColumns::of(run));
        assert!(!row.selected);
        assert!(row.cells.iter().all(|c| c.select.is_none()));
    }

    #[test]
    fn the_timing_table_drops_the_columns_no_kernel_fills() {
        // The suite: event times and ncu durations, every column.
        let ws = sample("h200.json");
        let suite = TimingColumns::of(&ws.runs[0]);
        assert!(suite.event && suite.cold);
        assert_eq!(timing_header(suite).len(), 7 + usize::from(suite.warm));
        // GPT-2 under capture profile: ncu durations only, so only they and the name.
        let ws = sample("h200-gpt2-bf16.json");
        let run = &ws.runs[0];
        let gpt2 = TimingColumns::of(run);
        assert!(!gpt2.event && gpt2.cold, "{gpt2:?}");
        let labels: Vec<&str> = timing_header(gpt2).iter().map(|h| h.label).collect();
        assert!(!labels.iter().any(|l| l.starts_with("event")), "{labels:?}");
        for (i, k) in run.kernels.iter().enumerate() {
            let row = timing_row(KernelRef { run: 0, kernel: i }, k, gpt2);
            assert_eq!(row.cells.len(), labels.len());
            assert!(
                row.cells.iter().skip(1).any(|c| c.text != "-"),
                "{}",
                k.short
            );
        }
    }

    #[test]
    fn the_verdict_sits_beside_the_name() {
        let ws = sample("h200.json");
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let kr = KernelRef { run: 0, kernel: 0 };
        let Some(k) = run.kernels.first() else {
            panic!("no kernel")
        };
        let sol = sol_row(kr, k, None);
        assert_eq!(sol.cells.get(1).and_then(|c| c.col), Some("verdict"));
        assert_eq!(sol_header().get(1).map(|h| h.label), Some("verdict"));
        // The two figures that decide the verdict follow it.
        let cols: Vec<_> = sol.cells.iter().skip(2).take(2).map(|c| c.col).collect();
        assert_eq!(cols, [Some("sm_pct"), Some("memory_pct")]);
        assert_eq!(sol_header().len(), sol.cells.len());
        let ranking = shared::analysis::figures::ranking(&run.run.artifact, &run.kernels);
        let Some(r) = ranking.first() else {
            panic!("no ranking")
        };
        let time = time_row(kr, 0, r, k, None);
        assert_eq!(time.cells.get(2).and_then(|c| c.col), Some("verdict"));
        assert_eq!(time_header().len(), time.cells.len());
    }

    /// A table's name cell keeps the end of a long name (the tile and layout that tell
    /// GPT-2's GEMMs apart, the functor of an elementwise kernel) and fits its column;
    /// the whole name is on hover.
    #[test]
    fn name_cells_are_cut_in_the_middle() {
        let ws = sample("h200-gpt2-bf16.json");
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let mut long = 0;
        for (i, k) in run.kernels.iter().enumerate() {
            let kr = KernelRef { run: 0, kernel: i };
            let sol = sol_row(kr, k, None);
            let Some(cell) = sol.cells.iter().find(|c| c.class == "name") else {
                panic!("no name cell")
            };
            assert!(
                cell.text.chars().count() <= TABLE_NAME_CHARS,
                "{}",
                cell.text
            );
            assert_eq!(cell.title, k.name);
            // A label repaired because its cut clashed with another's shows where they
            // differ instead (`distinct_labels`).
            let lone = shared::text::names::elide_name(&k.short, TABLE_NAME_CHARS);
            if k.short.chars().count() > TABLE_NAME_CHARS && k.label == lone {
                long += 1;
                let tail: String = k.short.chars().rev().take(12).collect();
                let kept: String = cell.text.chars().rev().take(12).collect();
                assert_eq!(kept, tail, "{} shown as {}", k.short, cell.text);
                assert!(cell.text.contains('…'), "{}", cell.text);
            }
        }
        assert!(long >= 5, "only {long} long names in GPT-2");
    }

    /// GPT-2's mixed nvjet kernel: its verdict is marked, and hovering it on the time and
    /// SOL pages lists its groups.
    #[test]
    fn a_mixed_kernel_lists_its_groups_on_hover() {
        let ws = sample("h200-gpt2-bf16.json");
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let Some((i, k)) = run
            .kernels
            .iter()
            .enumerate()
            .find(|(_, k)| k.row.verdict_mixed)
        else {
            panic!("no mixed kernel in the GPT-2 sample")
        };
        let kr = KernelRef { run: 0, kernel: i };
        let lines = group_lines(k);
        assert!(lines.len() >= 2, "{lines:?}");
        let sol = sol_row(kr, k, None);
        let cell = sol.cells.iter().find(|c| c.col == Some("verdict"));
        let cell = cell.unwrap_or_else(|| panic!("no verdict cell"));
        assert!(cell.text.ends_with(shared::analysis::table::MIXED_MARK));
        assert!(lines.iter().all(|l| cell.title.contains(l.as_str())));
        let ranking = shared::analysis::figures::ranking(&run.run.artifact, &run.kernels);
        let Some((rank, r)) = ranking.iter().enumerate().find(|(_, r)| r.index == i) else {
            panic!("not ranked")
        };
        let time = time_row(kr, rank, r, k, None);
        let cell = time.cells.iter().find(|c| c.col == Some("verdict"));
        let cell = cell.unwrap_or_else(|| panic!("no verdict cell"));
        assert!(lines.iter().all(|l| cell.title.contains(l.as_str())));
    }

    /// SOL's "ncu ms per launch" is one launch's, as Timing's ncu column: GPT-2's kernels
    /// run 1 to 28 times each.
    #[test]
    fn sol_ncu_ms_is_per_launch_as_timing_says() {
        let ws = sample("h200-gpt2-bf16.json");
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let mut several = 0;
        for (i, k) in run.kernels.iter().enumerate() {
            let kr = KernelRef { run: 0, kernel: i };
            let value = |row: &Row, col: &str| {
                row.cells
                    .iter()
                    .find(|c| c.col == Some(col))
                    .and_then(|c| c.value.as_deref())
                    .and_then(|v| v.parse::<f64>().ok())
            };
            let sol = value(&sol_row(kr, k, None), "ncu_ms");
            let timing = value(&timing_row(kr, k, TimingColumns::of(run)), "ncu_cold");
            let (Some(sol), Some(timing)) = (sol, timing) else {
                panic!("kernel {i}: no ncu time ({sol:?}, {timing:?})")
            };
            assert!(
                (sol - timing).abs() <= 1e-9 * timing.abs(),
                "kernel {i}: {sol} {timing}"
            );
            several += usize::from(k.totals.launches > 1);
        }
        assert!(several > 10, "{several} kernels launched more than once");
    }

    #[test]
    fn every_bytes_column_sorts_and_numbers_keep_their_exact_value() {
        let header = bytes_header(&BYTES_SHOWN);
        assert_eq!(header.len(), Column::ALL.len());
        // Every column once (as many, and each there), the verdict beside the name.
        assert_eq!(BYTES_SHOWN.len(), Column::ALL.len());
        assert!(Column::ALL.iter().all(|c| BYTES_SHOWN.contains(c)));
        assert_eq!(header[1].col, Some("verdict"));
        assert!(header.iter().all(|h| h.col.is_some()));
        let c = Cell::num("1.5".into(), Some(1.25), "", "x");
        assert_eq!(c.value.as_deref(), Some("1.25"));
        assert_eq!(c.col, Some("x"));
    }

    /// GPT-2's export has no asked bytes and no copy ceiling: their columns go; the suite
    /// fills every column but ncu's verdict and the bounding unit.
    #[test]
    fn bytes_columns_no_kernel_fills_are_dropped() {
        let ws = sample("h200-gpt2-bf16.json");
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let cols = bytes_columns(&run.table.kernels);
        for gone in [Column::Ask, Column::PctCopy, Column::DramPerAsk] {
            assert!(!cols.contains(&gone), "{gone:?} kept: {cols:?}");
        }
        assert_eq!(cols.get(1), Some(&Column::Verdict), "{cols:?}");
        let titles = bytes_titles();
        let kr = KernelRef { run: 0, kernel: 0 };
        let row = bytes_row(kr, run, &titles, None, &cols).unwrap_or_default();
        assert_eq!(row.cells.len(), cols.len());
        assert_eq!(bytes_header(&cols).len(), cols.len());
        let suite = sample("h200.json");
        let Some(run) = suite.runs.first() else {
            panic!("no run")
        };
        let cols = bytes_columns(&run.table.kernels);
        assert!(cols.contains(&Column::Ask) && cols.contains(&Column::PctCopy));
    }

    #[test]
    fn points_round_to_four_significant_digits() {
        assert_eq!(round_sig(812_345.678), "812346");
        assert_eq!(round_sig(812.345_678), "812.3");
        assert_eq!(round_sig(0.012_345_67), "0.01235");
        assert_eq!(round_sig(0.0), "0");
    }

    #[test]
    fn raw_values_read_with_their_units() {
        assert_eq!(metric_value("3181395348.837209", "hz"), "3.18 GHz");
        assert_eq!(metric_value("abc", "hz"), "abc");
        assert_eq!(metric_value("12.5", "%"), "12.5 %");
    }
}

/// No two different kernels share a displayed name, on any file of the repository the page
/// opens: every fixture under `tests/fixtures/` (each folder loaded as one drop, so a CSV
/// pair is one run; gzipped files un-gzipped as the page does) and every site sample.
#[cfg(test)]
mod sort_tests {
    use super::{sort_rows, Cell, Row};

    fn row(cells: &[(&str, Option<&str>)]) -> Row {
        Row {
            cells: cells
                .iter()
                .map(|(t, v)| Cell {
                    text: (*t).to_string(),
                    value: v.map(str::to_string),
                    ..Cell::default()
                })
                .collect(),
            ..Row::default()
        }
    }

    #[test]
    fn rows_sort_by_exact_values_numbers_first_empty_last() {
        // Key k: a name and a time whose text rounds (the value sorts, not the text).
        let rows = [
            row(&[("b_kernel", None), ("1.0", Some("0.96"))]),
            row(&[("A_kernel", None), ("1.0", Some("1.04"))]),
            row(&[("-", None), ("-", Some(""))]),
            row(&[("c_kernel", None), ("12.5 %", None)]),
        ];
        let of = &|k: usize| rows.get(k).cloned();
        let keys = [0, 1, 2, 3];
        assert_eq!(sort_rows(&keys, 1, None, of), (vec![3, 1, 0, 2], false));
        assert_eq!(
            sort_rows(&keys, 1, Some(true), of),
            (vec![0, 1, 3, 2], true)
        );
        assert_eq!(sort_rows(&keys, 0, None, of), (vec![1, 0, 3, 2], true));
        assert_eq!(
            sort_rows(&keys, 0, Some(false), of),
            (vec![3, 0, 1, 2], false)
        );
        // A column past the row's cells sorts nothing, keeping the order.
        assert_eq!(sort_rows(&keys, 9, None, of).0, keys);
    }
}

#[cfg(test)]
mod label_tests {
    use super::super::load::{load_batch, InputFile};
    use super::super::test_support::unpack;

    /// The files of `dir` (relative to the repository root) as the page would be handed
    /// them, and its folders.
    fn folder(dir: &str) -> (Vec<InputFile>, Vec<String>) {
        let full = format!("{}/../{dir}", env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        let mut dirs = Vec::new();
        let mut entries: Vec<_> = std::fs::read_dir(&full)
            .unwrap_or_else(|e| panic!("{full}: {e}"))
            .filter_map(Result::ok)
            .collect();
        entries.sort_by_key(std::fs::DirEntry::file_name);
        for e in entries {
            let name = e.file_name().to_string_lossy().into_owned();
            let path = format!("{dir}/{name}");
            if e.path().is_dir() {
                dirs.push(path);
            } else if let Some(plain) = name.strip_suffix(".gz") {
                files.push(InputFile {
                    name: plain.to_owned(),
                    bytes: unpack(&path),
                });
            } else if !name.ends_with(".md") && !name.ends_with(".py") {
                let bytes = std::fs::read(e.path()).unwrap_or_else(|e| panic!("{path}: {e}"));
                files.push(InputFile { name, bytes });
            }
        }
        (files, dirs)
    }

    #[test]
    fn no_two_kernels_share_a_label_on_any_fixture_or_sample() {
        let mut todo = vec!["tests/fixtures".to_string(), "site/samples".to_string()];
        let mut runs_seen = 0;
        while let Some(dir) = todo.pop() {
            if dir.ends_with("/bad") || dir.contains("fuzz") {
                continue; // inputs made to fail
            }
            let (files, dirs) = folder(&dir);
            todo.extend(dirs);
            if files.is_empty() {
                continue;
            }
            let (runs, _errors) = load_batch(files);
            for run in runs {
                runs_seen += 1;
                let view = super::RunView::new(run);
                let mut seen = std::collections::HashMap::new();
                for k in &view.kernels {
                    assert!(
                        k.label.chars().count() <= super::TABLE_NAME_CHARS,
                        "{dir}: {}",
                        k.label
                    );
                    if let Some(other) = seen.insert(k.label.clone(), k.name.clone()) {
                        assert_eq!(other, k.name, "{dir}: two kernels read {}", k.label);
                    }
                }
            }
        }
        assert!(runs_seen > 20, "only {runs_seen} runs loaded");
    }
}
