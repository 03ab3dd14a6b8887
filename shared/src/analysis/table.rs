//! The asked-for vs measured bytes table: one row per kernel, for people (text, Markdown),
//! spreadsheets (CSV) and scripts (JSON, a stable contract documented in the README).
//!
//! Every figure is a sum over the kernel's launches. Counts come from the cold counters;
//! time is the event median when the artifact has timings (times the number of launches),
//! otherwise ncu's `gpu__time_duration.sum`, and `time_source` says which. Rates divide
//! clock-independent counts by that time, so no ncu locked-clock rate is mixed in.

use crate::analysis::latency;
use crate::analysis::metrics::{self, LaunchTotals};
pub use crate::analysis::table_row::{BytesTable, Intensity, TableCeilings, TableRow, TimeSource};
use crate::analysis::work;
use crate::model::artifact::{Artifact, KernelRecord};
use crate::model::roofline::{giga_per_s, percent_of, ratio, ridge};
use crate::model::work_kind::Work;
use crate::text::escape;
use crate::text::format::opt;
use crate::text::names::distinct_short_names;
use crate::text::table::{Column, Table};

impl TableRow {
    /// The row of one kernel record.
    pub fn of(kernel: &KernelRecord, copy_gbs: Option<f64>) -> TableRow {
        Self::of_in(kernel, copy_gbs, &mut work::Plans::default())
    }

    /// [`TableRow::of`], the work read through `plans`, kept from kernel to kernel.
    fn of_in(kernel: &KernelRecord, copy_gbs: Option<f64>, plans: &mut work::Plans) -> TableRow {
        let launches = metrics::reference_launches(kernel);
        let totals: LaunchTotals = metrics::totals_in(plans, launches);
        let kv = crate::analysis::groups::kernel_verdict_in(launches, plans, Some(&totals));
        let verdict = kv.verdict;
        let latency = latency::latency(launches, None);
        let n = totals.launches.max(1);
        let (time_ms, time_source) = match (&kernel.timing, totals.duration_ns) {
            (Some(t), _) => (Some(t.median_ms * n as f64), Some(TimeSource::EventMedian)),
            (None, Some(ns)) => (Some(ns / 1e6), Some(TimeSource::NcuDuration)),
            (None, None) => (None, None),
        };
        let ask_bytes = kernel.asked.as_ref().map(|a| a.bytes * n as f64);
        let ask_flops = kernel.asked.as_ref().map(|a| a.flops * n as f64);
        let flops = totals.flops_fp32.as_ref().map(|f| f.flops);
        let fp64_flops = totals.flops_fp64.as_ref().map(|f| f.flops);
        let rate = |count: Option<f64>| count.zip(time_ms).and_then(|(n, t)| giga_per_s(n, t));
        let gbs = rate(totals.dram_bytes);
        let counted: Vec<(&Work, &crate::analysis::work::WorkCount)> =
            totals.work.iter().filter(|(_, w)| w.ops > 0.0).collect();
        let flops_total = (!totals.work.is_empty()).then(|| work::flops_total(&totals.work));
        let mut derived_from_rates = totals.derived_bytes.clone();
        for (kind, w) in &counted {
            if w.source.is_derived() {
                derived_from_rates.push(format!("flops_by_precision.{}", kind.key()));
                if **kind == Work::Fp32 {
                    derived_from_rates.push("flops".into());
                }
            }
        }
        if counted
            .iter()
            .any(|(k, w)| !k.is_integer() && w.source.is_derived())
        {
            derived_from_rates.push("flops_total".into());
        }
        TableRow {
            name: kernel.name.to_string(),
            short_name: kernel.name.to_string(),
            flops_by_precision: crate::order::map_of(
                counted.iter().map(|(k, w)| (k.key().to_string(), w.ops)),
            ),
            precision: work::main_kind(&totals.work).map(|k| k.key().to_string()),
            flops_total,
            gflops_total: rate(flops_total),
            time_share: None,
            derived_from_rates,
            launches: n,
            time_ms,
            time_source,
            ask_bytes,
            ask_flops,
            l1_bytes: totals.l1_bytes,
            l2_bytes: totals.l2_bytes,
            dram_bytes: totals.dram_bytes,
            flops,
            flops_missing: totals
                .flops_fp32
                .as_ref()
                .map(|f| f.missing.clone())
                .unwrap_or_default(),
            dram_per_ask: totals
                .dram_bytes
                .zip(ask_bytes)
                .and_then(|(d, a)| ratio(d, a)),
            gbs,
            pct_of_copy: gbs.zip(copy_gbs).and_then(|(g, c)| percent_of(g, c)),
            gflops: rate(flops),
            fp64_flops,
            fp64_gflops: rate(fp64_flops),
            bound_by: verdict.as_ref().and_then(|v| v.bound_by.clone()),
            busiest_pipe: None,
            intensity: Intensity::default(),
            notes: Vec::new(),
            verdict: verdict.map(|v| v.kind.as_str().to_string()),
            verdict_mixed: kv.mixed,
            below_floor: None,
            timers_disagree: crate::analysis::floor::timers_disagree(
                kernel.timing.as_ref().map(|t| t.median_ms * n as f64),
                totals.duration_ns.map(|ns| ns / 1e6),
            ),
            counters_contradict: Vec::new(),
            advice: None,
            groups: if kv.groups.len() > 1 {
                kv.groups
            } else {
                Vec::new()
            },
            ncu_verdict: kv.ncu_verdict.map(Box::new),
            check: kernel
                .check
                .as_ref()
                .map(|c| if c.passed { "pass" } else { "fail" }.to_string()),
            stalls: latency.stalls.as_ref().map(|s| s.share_map()),
            waves: latency.fit.waves,
            latency_reason: kv.latency_reason,
            rules: findings_of(kernel),
            sampled: kernel.sampled.as_deref().copied(),
            work: None,
        }
    }
}

/// Fills the fields of `table`'s rows that only `capture table --format json` prints
/// (`busiest_pipe`, `intensity`, `notes`, `work`); `table` is [`bytes_table`] of `artifact`, rows
/// still in artifact order. Kept out of [`bytes_table`] so the viewer's wasm, which shows
/// the same figures through [`crate::analysis::figures::KernelFigures`] (the verdict's
/// unit, the chart's level points and notes), does not carry them twice.
pub fn annotate(table: &mut BytesTable, artifact: &Artifact) {
    let mut plans = work::Plans::default();
    for (row, kernel) in table.kernels.iter_mut().zip(&artifact.kernels) {
        let launches = metrics::reference_launches(kernel);
        let totals = metrics::totals_in(&mut plans, launches);
        let (intensity, notes) = intensity_and_notes(kernel, launches, &totals);
        row.busiest_pipe = crate::analysis::bound::busiest_pipe(launches);
        row.intensity = intensity;
        row.notes = notes;
        row.work = kernel
            .work
            .clone()
            .or_else(|| crate::analysis::work_vector::of_kernel(kernel).map(Box::new));
        row.counters_contradict = row
            .work
            .as_ref()
            .map(|w| crate::analysis::work_vector::contradictions(&w.total))
            .unwrap_or_default();
    }
}

/// A row's intensities as plotted and its notes: the main kind's counted work (else the
/// hand count's, for a kernel with no counted work of its kind) over each level's bytes
/// ([`crate::analysis::levels::level_bytes`]), and the register moves set aside.
fn intensity_and_notes(
    kernel: &KernelRecord,
    launches: &[crate::model::artifact::LaunchCounters],
    totals: &LaunchTotals,
) -> (Intensity, Vec<String>) {
    let n = totals.launches.max(1) as f64;
    let asked = kernel.asked.as_ref().filter(|a| a.flops > 0.0);
    let kind = work::main_kind(&totals.work).or(asked.map(|a| a.precision));
    let counted = kind
        .and_then(|k| totals.work.get(&k))
        .map(|w| w.ops)
        .filter(|f| *f > 0.0);
    let asked_here = asked.filter(|a| Some(a.precision) == kind);
    let flops = counted.or(asked_here.map(|a| a.flops * n));
    let levels = crate::analysis::levels::of_totals(launches, totals);
    let over = |bytes: Option<f64>| {
        flops
            .zip(bytes.filter(|b| *b > 0.0))
            .and_then(|(f, b)| ratio(f, b))
    };
    let intensity = Intensity {
        asked: asked_here
            .filter(|a| a.bytes > 0.0)
            .and_then(|a| ratio(a.flops, a.bytes)),
        dram: over(levels.dram),
        l2: over(levels.l2),
        l1: over(levels.l1),
    };
    let mut notes = levels.notes;
    if let Some(moves) = work::register_moves(launches) {
        notes.push(format!(
            "{moves:.0} HFMA thread instructions ({}) with no half add or multiply: the \
             compiler's register moves (HFMA2.MMA Rn, -RZ, RZ, ...), not FP16 work",
            crate::model::counters::HFMA.name
        ));
    }
    (intensity, notes)
}

/// The kernel's ranked rule findings for the table (and the viewer's rules panel).
fn findings_of(kernel: &KernelRecord) -> Vec<crate::analysis::findings::Finding> {
    crate::analysis::findings::kernel_findings(kernel)
}

/// The bytes table of an artifact.
pub fn bytes_table(artifact: &Artifact) -> BytesTable {
    let ceilings = TableCeilings {
        copy_gbs: artifact.ceilings.as_ref().and_then(|c| c.copy_gbyte_per_s),
        fma_gflops: artifact.ceilings.as_ref().and_then(|c| c.fma_gflop_per_s),
        theoretical_gbs: artifact
            .device
            .as_ref()
            .and_then(|d| d.peaks.dram_gbyte_per_s),
        theoretical_gflops: artifact
            .device
            .as_ref()
            .and_then(|d| d.peaks.fp32_gflop_per_s),
        ..TableCeilings::default()
    };
    let mut ceilings = ceilings;
    for kind in Work::ALL {
        let c = crate::analysis::ceilings::compute_ceilings(artifact, kind);
        ceilings.measured.insert(kind.key().to_string(), c.measured);
        ceilings
            .theoretical
            .insert(kind.key().to_string(), c.theoretical);
    }
    let mut plans = work::Plans::default();
    let mut kernels: Vec<TableRow> = artifact
        .kernels
        .iter()
        .map(|k| TableRow::of_in(k, ceilings.copy_gbs, &mut plans))
        .collect();
    let names: Vec<&str> = artifact.kernels.iter().map(|k| k.name.as_ref()).collect();
    for (row, short) in kernels.iter_mut().zip(distinct_short_names(&names)) {
        row.short_name = short;
    }
    let total_ms: f64 = kernels.iter().filter_map(|r| r.time_ms).sum();
    for row in &mut kernels {
        row.time_share = row.time_ms.and_then(|t| ratio(t, total_ms));
        row.below_floor = crate::analysis::floor::below_floor(row, &ceilings);
        row.advice = crate::analysis::advice::fp32_matmul(row, &ceilings);
    }
    BytesTable {
        device: artifact.device.as_ref().map(|d| d.name.clone()),
        kernels,
        ceilings,
        sampled: artifact.sampled.clone(),
    }
}

/// The order of a table's rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SortOrder {
    /// Artifact order: the order of each kernel's first launch.
    #[default]
    Launch,
    /// Largest share of the summed kernel time first (rows without a time last).
    Time,
    /// By short name, then full name.
    Name,
}

impl BytesTable {
    /// The rows in `order` (a stable sort: ties keep launch order).
    pub fn sort(&mut self, order: SortOrder) {
        match order {
            SortOrder::Launch => {}
            SortOrder::Time => crate::order::sort_by(&mut self.kernels, |a, b| {
                let t = |r: &TableRow| r.time_ms.unwrap_or(f64::NEG_INFINITY);
                t(b).total_cmp(&t(a))
            }),
            SortOrder::Name => crate::order::sort_by(&mut self.kernels, |a, b| {
                (a.short_name.as_str(), a.name.as_str())
                    .cmp(&(b.short_name.as_str(), b.name.as_str()))
            }),
        }
    }
}

const MB: f64 = 1e6;

fn fixed(v: Option<f64>, scale: f64, decimals: usize) -> String {
    opt(v, |x| format!("{:.*}", decimals, x / scale))
}

/// The columns of the human forms (text and Markdown): text left-aligned, numbers right.
pub const HUMAN_COLUMNS: [Column; 18] = [
    Column::text("kernel"),
    Column::value("launches"),
    Column::value("time ms"),
    Column::value("time %"),
    Column::value("ask MB"),
    Column::value("L1 MB"),
    Column::value("L2 MB"),
    Column::value("DRAM MB"),
    Column::value("DRAM/ask"),
    Column::value("GB/s"),
    Column::value("%ceil"),
    Column::text("work"),
    Column::value("GFLOP/s"),
    Column::text("verdict"),
    Column::text("ncu says"),
    Column::text("bound by"),
    Column::text("check"),
    Column::text("because"),
];

/// The column headers of the human forms, those of [`HUMAN_COLUMNS`].
pub const COLUMNS: [&str; 18] = {
    let mut out = [""; 18];
    let mut i = 0;
    while i < out.len() {
        out[i] = HUMAN_COLUMNS[i].header;
        i += 1;
    }
    out
};

/// The mark after a verdict whose kernel's launch groups disagree (its groups are listed
/// under the human tables).
pub const MIXED_MARK: &str = "*";

/// The mark after a figure derived from rates (explained under the human tables).
pub const DERIVED_MARK: &str = "~";

/// Between a sampled kernel's launches and those of them measured (`12/3`: 12 launches,
/// 3 measured), in the human tables.
pub const SAMPLED_MARK: &str = "/";

impl TableRow {
    /// The row's cells, formatted for people: MB to 1 decimal, DRAM/ask to 4 (a ratio of
    /// 0.0039 is a real answer, not rounding noise), time share in percent, the precision
    /// with the most work, and GFLOP/s of all floating-point work (FLOPs of CUDA and tensor
    /// cores), marked `>=` when a lower bound. A figure derived from rates ends in
    /// [`DERIVED_MARK`]. The verdict ends in [`MIXED_MARK`] when the kernel's launch groups
    /// disagree; `ncu says` is ncu's own SOLBottleneck verdict (`same` when it is ours).
    /// `bound by` is the unit and its % of peak (`latency` alone); `because` is the
    /// latency-bound verdict's reason.
    pub fn cells(&self) -> [String; 18] {
        let derived = |field: &str| self.derived_from_rates.iter().any(|d| d == field);
        let mark = |text: String, field: &str| {
            if derived(field) && text != "-" {
                format!("{text}{DERIVED_MARK}")
            } else {
                text
            }
        };
        let lower_bound = !self.flops_missing.is_empty();
        let flops = match self.gflops_total {
            Some(g) if lower_bound => format!(">={g:.1}"),
            g => fixed(g, 1.0, 1),
        };
        let launches = match self.sampled {
            Some(c) => format!("{}{SAMPLED_MARK}{}", self.launches, c.measured),
            _ => self.launches.to_string(),
        };
        [
            self.name.clone(),
            launches,
            fixed(self.time_ms, 1.0, 4),
            fixed(self.time_share.map(|s| 100.0 * s), 1.0, 1),
            fixed(self.ask_bytes, MB, 1),
            mark(fixed(self.l1_bytes, MB, 1), "l1_bytes"),
            mark(fixed(self.l2_bytes, MB, 1), "l2_bytes"),
            mark(fixed(self.dram_bytes, MB, 1), "dram_bytes"),
            mark(fixed(self.dram_per_ask, 1.0, 4), "dram_bytes"),
            mark(fixed(self.gbs, 1.0, 1), "dram_bytes"),
            mark(fixed(self.pct_of_copy, 1.0, 1), "dram_bytes"),
            self.precision.clone().unwrap_or_else(|| "-".into()),
            mark(flops, "flops_total"),
            match (&self.verdict, self.verdict_mixed) {
                (Some(v), true) => format!("{v}{MIXED_MARK}"),
                (Some(v), false) => v.clone(),
                (None, _) => "-".into(),
            },
            self.ncu_verdict.as_ref().map_or_else(
                || "-".into(),
                |n| {
                    if n.agrees {
                        "same".into()
                    } else {
                        format!("{} ({})", n.verdict, n.title)
                    }
                },
            ),
            self.bound_by.as_ref().map_or_else(
                || "-".into(),
                |b| match b.pct_of_peak {
                    Some(p) if b.unit != "latency" => format!("{} {p:.1}%", b.unit),
                    _ => b.unit.clone(),
                },
            ),
            self.check.clone().unwrap_or_else(|| "-".into()),
            self.latency_reason.clone().unwrap_or_else(|| "-".into()),
        ]
    }
}

impl TableRow {
    /// The CSV's `groups` cell: each launch group's launches, shape and verdict
    /// (`8 x grid 2x64x1, block 384x1x1: latency-bound; ...`).
    fn groups_cell(&self) -> String {
        self.groups
            .iter()
            .map(|g| {
                format!(
                    "{} x {}: {}",
                    g.launches,
                    g.shape,
                    g.verdict.as_deref().unwrap_or("-")
                )
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// [`TableRow::cells`] with the short name, for terminals and Markdown.
    pub fn short_cells(&self) -> [String; 18] {
        let mut cells = self.cells();
        cells[0] = self.short_name.clone();
        cells
    }
}

/// The CSV form's columns, its header row: every JSON field of a row, nested ones flattened.
/// Text columns (names and words from files) are guarded against formula injection; values
/// (numbers, and `key=value` lists, units and enum names this tool writes) are written as they
/// are.
const CSV_HEADER: [Column; 35] = [
    Column::text("name"),
    Column::value("launches"),
    Column::value("time_ms"),
    Column::value("time_source"),
    Column::value("ask_bytes"),
    Column::value("ask_flops"),
    Column::value("l1_bytes"),
    Column::value("l2_bytes"),
    Column::value("dram_bytes"),
    Column::value("flops"),
    Column::text("flops_missing"),
    Column::value("dram_per_ask"),
    Column::value("gbs"),
    Column::value("pct_of_copy"),
    Column::value("gflops"),
    Column::value("fp64_flops"),
    Column::value("fp64_gflops"),
    Column::text("verdict"),
    Column::text("check"),
    Column::text("short_name"),
    Column::value("time_share"),
    Column::text("precision"),
    Column::value("flops_total"),
    Column::value("gflops_total"),
    Column::value("flops_by_precision"),
    Column::text("derived_from_rates"),
    Column::value("waves"),
    Column::text("latency_reason"),
    Column::value("stalls"),
    Column::value("bound_by_unit"),
    Column::value("bound_by_pct"),
    Column::value("sampled_measured"),
    Column::value("verdict_mixed"),
    Column::text("groups"),
    Column::text("ncu_verdict"),
];

impl BytesTable {
    /// The header lines above the table (device and ceilings).
    fn preamble(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(s) = &self.sampled {
            lines.push(format!(
                "sampled: {} of {} launches measured ({} groups); launches N{SAMPLED_MARK}M: \
                 N launches, M of them measured, the others' counters scaled from those by \
                 time (by blocks for a tail of a bigger grid)",
                s.measured, s.launches, s.groups
            ));
        }
        if let Some(d) = &self.device {
            lines.push(format!("device {d}"));
        }
        let c = &self.ceilings;
        let mut parts = Vec::new();
        if let Some(v) = c.copy_gbs {
            parts.push(format!("copy ceiling {v:.1} GB/s"));
        }
        if let Some(v) = c.fma_gflops {
            parts.push(format!("FMA ceiling {v:.1} GFLOP/s"));
        }
        if let Some(r) = ridge(c.fma_gflops, c.copy_gbs) {
            parts.push(format!("ridge {r:.2} FLOP/byte"));
        }
        if let Some(v) = c.theoretical_gbs {
            parts.push(format!("theoretical {v:.0} GB/s"));
        }
        if let Some(v) = c.theoretical_gflops {
            parts.push(format!("{v:.0} GFLOP/s"));
        }
        if !parts.is_empty() {
            lines.push(parts.join(", "));
        }
        // Tensor-core ceilings, when measured: one line, with the theoretical dense peaks.
        let tensor: Vec<String> = Work::ALL
            .into_iter()
            .filter(|w| w.is_tensor())
            .filter_map(|w| {
                let v = c.measured.get(w.key()).copied().flatten()?;
                let theo = c.theoretical.get(w.key()).copied().flatten();
                Some(match theo {
                    Some(t) => format!("{} {v:.0} of {t:.0} G{}/s", w.label(), w.unit()),
                    None => format!("{} {v:.0} G{}/s", w.label(), w.unit()),
                })
            })
            .collect();
        if !tensor.is_empty() {
            lines.push(format!("measured {}", tensor.join(", ")));
        }
        lines
    }

    /// Aligned text for a terminal. Names come from files: control characters and bidi
    /// overrides are escaped.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for p in self.preamble() {
            out.push_str(&escape::controls(&p));
            out.push('\n');
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&self.human().to_text());
        for note in self.notes() {
            out.push('\n');
            out.push_str(&note);
        }
        out
    }

    /// The rows of the human forms, short names first.
    fn human(&self) -> Table<'static> {
        let mut t = Table::new(&HUMAN_COLUMNS);
        for r in &self.kernels {
            t.push(r.short_cells());
        }
        t
    }

    /// Lines under the human tables: what the derived mark means, when a row has one; the
    /// launch groups of each kernel whose groups disagree; why we differ from ncu.
    fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        if self
            .kernels
            .iter()
            .any(|r| !r.derived_from_rates.is_empty())
        {
            notes.push(format!(
                "{DERIVED_MARK} derived from rates: rate x {} or per-cycle value x SM cycles \
                 (the export has no total)\n",
                crate::model::counters::GPU_TIME_DURATION
            ));
        }
        for r in self.kernels.iter().filter(|r| r.verdict_mixed) {
            let mut note = format!(
                "{MIXED_MARK} {}: its launch groups (by shape, and by duration within a \
                 shape) disagree; the verdict is the one that holds the most time\n",
                r.short_name
            );
            for g in &r.groups {
                note.push_str(&format!("    {}\n", g.line()));
            }
            notes.push(note);
        }
        for r in &self.kernels {
            if let Some(advice) = &r.advice {
                notes.push(format!("advice on {}: {advice}\n", r.short_name));
            }
        }
        for r in &self.kernels {
            for (what, why) in r.time_flags() {
                notes.push(format!("{what} on {}: {why}\n", r.short_name));
            }
            for why in &r.counters_contradict {
                notes.push(format!("counters contradict on {}: {why}\n", r.short_name));
            }
        }
        for r in &self.kernels {
            if let Some(why) = r.ncu_verdict.as_ref().and_then(|n| n.why.as_deref()) {
                notes.push(format!("ncu says otherwise on {}: {why}\n", r.short_name));
            }
        }
        notes
    }

    /// Comma-separated values with a header row; raw numbers, not rounded for display. Text
    /// cells go through [`escape::csv_cell`]: no cell can start a spreadsheet formula or
    /// hold a control character.
    pub fn to_csv(&self) -> String {
        let num = |v: Option<f64>| v.map(|x| x.to_string()).unwrap_or_default();
        let mut t = Table::new(&CSV_HEADER);
        for r in &self.kernels {
            t.push([
                r.name.clone(),
                r.launches.to_string(),
                num(r.time_ms),
                match r.time_source {
                    Some(TimeSource::EventMedian) => "event_median".into(),
                    Some(TimeSource::NcuDuration) => "ncu_duration".into(),
                    None => String::new(),
                },
                num(r.ask_bytes),
                num(r.ask_flops),
                num(r.l1_bytes),
                num(r.l2_bytes),
                num(r.dram_bytes),
                num(r.flops),
                r.flops_missing.join(" "),
                num(r.dram_per_ask),
                num(r.gbs),
                num(r.pct_of_copy),
                num(r.gflops),
                num(r.fp64_flops),
                num(r.fp64_gflops),
                r.verdict.clone().unwrap_or_default(),
                r.check.clone().unwrap_or_default(),
                r.short_name.clone(),
                num(r.time_share),
                r.precision.clone().unwrap_or_default(),
                num(r.flops_total),
                num(r.gflops_total),
                r.flops_by_precision
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                r.derived_from_rates.join(" "),
                num(r.waves),
                r.latency_reason.clone().unwrap_or_default(),
                r.stalls
                    .iter()
                    .flatten()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect::<Vec<_>>()
                    .join(" "),
                r.bound_by
                    .as_ref()
                    .map(|b| b.unit.clone())
                    .unwrap_or_default(),
                num(r.bound_by.as_ref().and_then(|b| b.pct_of_peak)),
                r.sampled
                    .map(|c| c.measured.to_string())
                    .unwrap_or_default(),
                r.verdict_mixed.to_string(),
                r.groups_cell(),
                r.ncu_verdict
                    .as_ref()
                    .map(|n| n.verdict.clone())
                    .unwrap_or_default(),
            ]);
        }
        t.to_csv()
    }

    /// A GitHub-flavoured Markdown table (pipes, newlines and control characters in names
    /// escaped: see [`escape::markdown_cell`]).
    pub fn to_markdown(&self) -> String {
        let mut out = String::new();
        for p in self.preamble() {
            out.push_str(&escape::markdown_cell(&p));
            out.push_str("\n\n");
        }
        out.push_str(&self.human().to_markdown());
        for note in self.notes() {
            out.push('\n');
            out.push_str(&note);
        }
        out
    }

    /// Pretty JSON: the stable contract.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::{
        AskedWork, CounterSet, LaunchCounters, Metric, MetricValue, Precision, Provenance,
    };

    fn kernel(name: &str, ask_bytes: f64, dram: f64) -> KernelRecord {
        let mut l = LaunchCounters {
            function: name.into(),
            ..Default::default()
        };
        l.metrics.insert(
            "dram__bytes.sum".into(),
            Metric {
                unit: "byte".into(),
                value: MetricValue::Number(dram),
            },
        );
        KernelRecord {
            asked: Some(Box::new(AskedWork {
                bytes: ask_bytes,
                flops: 0.0,
                precision: Precision::Fp32,
                formula: String::new(),
            })),
            cold: Some(CounterSet::of(vec![l])),
            ..KernelRecord::new(name, name)
        }
    }

    #[test]
    fn naive_matmul_dram_per_ask_from_the_seed() {
        // Seed table: 4.2 MB over 1,074.8 MB is 0.0039, printed to four decimals.
        let mut a = Artifact::new(Provenance::default());
        a.kernels.push(kernel("matmul, naive", 1_074.8e6, 4.2e6));
        let t = bytes_table(&a);
        let row = &t.kernels[0];
        assert_eq!(format!("{:.4}", row.dram_per_ask.expect("ratio")), "0.0039");
        assert_eq!(row.cells()[8], "0.0039");
        assert_eq!(row.cells()[4], "1074.8");
        assert_eq!(row.time_ms, None, "no timing and no duration");
        assert!(t.to_text().contains("0.0039"));
    }

    #[test]
    fn ceilings_list_every_precision_measured_or_null() {
        use crate::model::artifact::MeasuredCeilings;
        let mut a = Artifact::new(Provenance::default());
        let t = bytes_table(&a);
        assert_eq!(t.ceilings.measured.len(), Work::ALL.len());
        assert!(t.ceilings.measured.values().all(Option::is_none));
        a.device = Some(crate::testing::h200());
        let mut c = MeasuredCeilings {
            fma_gflop_per_s: Some(64_000.0),
            ..Default::default()
        };
        c.tensor_gflop_per_s.insert(Work::TensorBf16, 780_000.0);
        a.ceilings = Some(c);
        let t = bytes_table(&a);
        let m = &t.ceilings.measured;
        assert_eq!(m.get("fp32"), Some(&Some(64_000.0)));
        assert_eq!(m.get("tensor_bf16"), Some(&Some(780_000.0)));
        assert_eq!(m.get("tensor_fp8"), Some(&None));
        let th = &t.ceilings.theoretical;
        assert_eq!(th.get("tensor_int1"), Some(&None), "no figure: null");
        assert!(th.get("tensor_fp8").copied().flatten().is_some());
        let json: serde_json::Value = serde_json::from_str(&t.to_json()).expect("json");
        assert_eq!(
            json["ceilings"]["measured"]["tensor_fp8"],
            serde_json::Value::Null
        );
        assert_eq!(json["ceilings"]["measured"]["tensor_bf16"], 780_000.0);
        assert_eq!(json["ceilings"]["fma_gflops"], 64_000.0, "old fields kept");
        assert!(
            t.to_text()
                .contains("measured tensor BF16 780000 of 1070531 GFLOP/s"),
            "{}",
            t.to_text()
        );
    }

    #[test]
    fn markdown_escapes_pipes_and_csv_quotes_commas() {
        let mut a = Artifact::new(Provenance::default());
        a.kernels.push(kernel("a|b, c", 1.0, 1.0));
        let t = bytes_table(&a);
        assert!(t.to_markdown().contains("a\\|b, c"));
        assert!(t.to_csv().contains("\"a|b, c\""));
    }
}
