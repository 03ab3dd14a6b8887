//! The loaded runs with their derived figures, and the operations the pages need: select,
//! compare, sort, search. Plain data with methods, tested natively.

use std::sync::Arc;

use shared::analysis::table::{bytes_table, BytesTable, TableRow};
use shared::model::artifact::MetricValue;
use shared::model::work_kind::Work;

use super::kernel::KernelFigures;
use super::load::Run;
use super::view::KernelRef;

/// A run with everything worked out once, at load time.
#[derive(Clone, Debug, PartialEq)]
pub struct RunView {
    /// The run as loaded.
    pub run: Run,
    /// The bytes table, exactly as `capture table` computes it.
    pub table: BytesTable,
    /// Per-kernel figures, in artifact order.
    pub kernels: Vec<KernelFigures>,
    /// Kernel indices by time, most first ([`shared::analysis::figures::ranking`]).
    pub by_time: Vec<usize>,
    /// For kernel `i`, its rank by time (1 = most time).
    pub rank: Vec<usize>,
    /// For kernel `i`, its palette colour ([`shared::chart::kernel_colors`]): one colour
    /// per kernel on every page and in every precision mode.
    pub colors: Vec<usize>,
    /// The whole run, when this view is narrowed to one node of its NVTX range tree
    /// ([`Workspace::narrow`]); `None` for a whole run.
    pub whole: Option<Arc<RunView>>,
    /// The path of that node (`[NO_RANGE]` for the launches in no range).
    pub range: Option<Vec<String>>,
}

impl RunView {
    /// Works out the figures of a run.
    pub fn new(run: Run) -> Self {
        let table = bytes_table(&run.artifact);
        let kernels = KernelFigures::all(&run.artifact, &table);
        let by_time: Vec<usize> = shared::analysis::figures::ranking(&run.artifact, &kernels)
            .iter()
            .map(|r| r.index)
            .collect();
        let mut rank = vec![0; kernels.len()];
        for (i, &k) in by_time.iter().enumerate() {
            if let Some(r) = rank.get_mut(k) {
                *r = i + 1;
            }
        }
        let names: Vec<&str> = by_time
            .iter()
            .map(|&k| kernels.get(k).map_or("", |f| f.name.as_str()))
            .collect();
        let mut colors = vec![0; kernels.len()];
        for (&k, c) in by_time.iter().zip(shared::chart::kernel_colors(&names)) {
            if let Some(slot) = colors.get_mut(k) {
                *slot = c;
            }
        }
        RunView {
            run,
            table,
            kernels,
            by_time,
            rank,
            colors,
            whole: None,
            range: None,
        }
    }

    /// The whole run this view shows (itself, or the run it was narrowed from).
    pub fn whole_run(self: &Arc<Self>) -> Arc<RunView> {
        self.whole.clone().unwrap_or_else(|| self.clone())
    }

    /// The kernel selected when a run opens: the one with the most time among those with
    /// counters, else the one with the most time.
    pub fn default_kernel(&self) -> Option<usize> {
        let counted = |k: &&usize| self.kernels.get(**k).is_some_and(|f| f.has_counters);
        self.by_time
            .iter()
            .find(counted)
            .or(self.by_time.first())
            .copied()
    }

    /// Whether any kernel has hardware counters. Without any, the roofline is analytic.
    pub fn has_counters(&self) -> bool {
        self.kernels.iter().any(|k| k.has_counters)
    }

    /// The kinds of work the kernels' own points use (each kernel's main kind), in
    /// [`Work::ALL`] order: the compute ceilings of the "own" roofline.
    pub fn plotted_kinds(&self) -> Vec<Work> {
        let mut kinds: Vec<Work> = self
            .kernels
            .iter()
            .enumerate()
            .filter(|(_, k)| k.has_counters || k.row.ask_flops.is_some_and(|f| f > 0.0))
            .map(|(i, k)| k.main_kind(self.run.artifact.kernels.get(i)))
            .collect();
        shared::order::sort(&mut kinds);
        kinds.dedup();
        kinds
    }

    /// The kinds of work some kernel has counted or asked FLOPs (or OPs) of, in
    /// [`Work::ALL`] order; FP32 always.
    pub fn precisions(&self) -> Vec<Work> {
        Work::ALL
            .into_iter()
            .filter(|&w| {
                let counted = self.kernels.iter().any(|k| k.work_of(w).is_some());
                let asked = self.run.artifact.kernels.iter().any(|k| {
                    k.asked
                        .as_ref()
                        .is_some_and(|a| a.precision == w && a.flops > 0.0)
                });
                counted || asked || w == Work::Fp32
            })
            .collect()
    }
}

/// Whether an artifact is an application's (imported or profiled by `capture profile`) rather
/// than the teaching suite's: such a run opens on "where the time goes".
pub fn is_application(artifact: &shared::Artifact) -> bool {
    use shared::model::artifact::Origin;
    matches!(
        artifact.provenance.origin,
        Some(Origin::Import) | Some(Origin::Profile)
    )
}

/// Everything loaded into the page.
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    /// Runs in load order; shared so the views can hold them cheaply.
    pub runs: Vec<Arc<RunView>>,
}

impl Workspace {
    /// Adds runs and returns the index of the first one added.
    pub fn add(&mut self, runs: Vec<Run>) -> usize {
        let first = self.runs.len();
        self.runs
            .extend(runs.into_iter().map(|r| Arc::new(RunView::new(r))));
        first
    }

    /// Shows run `run` narrowed to the node `path` of its NVTX range tree (its launches and
    /// those below it, [`shared::analysis::ranges::within`]), or whole again for `None` or
    /// an empty path. Every page then shows the narrowed run; its source pages are left out
    /// (they follow the whole run's launch order).
    pub fn narrow(&mut self, run: usize, path: Option<Vec<String>>) {
        let Some(current) = self.runs.get(run) else {
            return;
        };
        let whole = current.whole_run();
        let artifact = path
            .as_ref()
            .filter(|p| !p.is_empty())
            .map(|p| shared::analysis::ranges::within(&whole.run.artifact, p))
            // A path no launch is under (a stale link) shows the whole run.
            .filter(|a| !a.kernels.is_empty());
        let view = match (path, artifact) {
            (Some(path), Some(artifact)) => {
                let narrowed = Run {
                    artifact,
                    sources: Vec::new(),
                    name: whole.run.name.clone(),
                    srcs: whole.run.srcs.clone(),
                    kind: whole.run.kind,
                };
                let mut view = RunView::new(narrowed);
                view.whole = Some(whole);
                view.range = Some(path);
                Arc::new(view)
            }
            _ => whole,
        };
        if let Some(slot) = self.runs.get_mut(run) {
            *slot = view;
        }
    }

    /// The figures of a kernel, if the reference is valid.
    pub fn kernel(&self, r: KernelRef) -> Option<(&Arc<RunView>, &KernelFigures)> {
        let run = self.runs.get(r.run)?;
        Some((run, run.kernels.get(r.kernel)?))
    }

    /// A valid selection: `wanted` when it exists, else the first run's default kernel
    /// ([`RunView::default_kernel`]).
    pub fn resolve_selection(&self, wanted: Option<KernelRef>) -> Option<KernelRef> {
        if let Some(r) = wanted.filter(|r| self.kernel(*r).is_some()) {
            return Some(r);
        }
        let run = self.runs.first()?;
        Some(KernelRef {
            run: 0,
            kernel: run.default_kernel()?,
        })
    }

    /// The default partner for a comparison with `a`: the same-named kernel of the next run
    /// when two runs are loaded, else the kernel with the most time besides it that did
    /// counted work (a point on the roofline; GPT-2's default partner was a random-number
    /// kernel with none), else the next kernel of the same run.
    pub fn default_compare(&self, a: KernelRef) -> Option<KernelRef> {
        let (_, fig) = self.kernel(a)?;
        for (ri, run) in self.runs.iter().enumerate() {
            if ri == a.run {
                continue;
            }
            if let Some(k) = run.kernels.iter().find(|k| k.name == fig.name) {
                return Some(KernelRef {
                    run: ri,
                    kernel: k.index,
                });
            }
        }
        let run = self.runs.get(a.run)?;
        let worked = run
            .by_time
            .iter()
            .copied()
            .filter(|&i| i != a.kernel)
            .find(|&i| {
                run.kernels
                    .get(i)
                    .is_some_and(|k| k.row.precision.is_some())
            });
        if let Some(kernel) = worked {
            return Some(KernelRef { run: a.run, kernel });
        }
        let n = run.kernels.len();
        (n > 1).then(|| KernelRef {
            run: a.run,
            kernel: (a.kernel + 1) % n,
        })
    }
}

/// A sortable column of the bytes table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    /// Kernel name.
    Name,
    /// Launches.
    Launches,
    /// Time.
    Time,
    /// Share of the summed kernel time.
    TimeShare,
    /// Asked bytes.
    Ask,
    /// L1 bytes.
    L1,
    /// L2 bytes.
    L2,
    /// DRAM bytes.
    Dram,
    /// DRAM over asked.
    DramPerAsk,
    /// DRAM GB/s.
    Gbs,
    /// Percent of the copy ceiling.
    PctCopy,
    /// Precision with the most work.
    Work,
    /// GFLOP/s of all floating-point work.
    Gflops,
    /// Verdict.
    Verdict,
    /// ncu's own verdict (its SOLBottleneck rule), where the file has it.
    Ncu,
    /// The unit that bounds the kernel.
    BoundBy,
    /// Check result.
    Check,
    /// Why a latency-bound kernel is latency-bound.
    Because,
}

impl Column {
    /// Every column, in table order.
    pub const ALL: [Column; 18] = [
        Column::Name,
        Column::Launches,
        Column::Time,
        Column::TimeShare,
        Column::Ask,
        Column::L1,
        Column::L2,
        Column::Dram,
        Column::DramPerAsk,
        Column::Gbs,
        Column::PctCopy,
        Column::Work,
        Column::Gflops,
        Column::Verdict,
        Column::Ncu,
        Column::BoundBy,
        Column::Check,
        Column::Because,
    ];

    /// The JSON field of `capture table --format json` this column shows, and the
    /// explanation key of its numbers (empty where the column has none): one arm per column.
    fn keys(self) -> (&'static str, &'static str) {
        match self {
            Column::Name => ("name", ""),
            Column::Launches => ("launches", ""),
            Column::Time => ("time_ms", "time"),
            Column::TimeShare => ("time_share", "time_share"),
            Column::Ask => ("ask_bytes", "ask_bytes"),
            Column::L1 => ("l1_bytes", "l1_bytes"),
            Column::L2 => ("l2_bytes", "l2_bytes"),
            Column::Dram => ("dram_bytes", "dram_bytes"),
            Column::DramPerAsk => ("dram_per_ask", "dram_per_ask"),
            Column::Gbs => ("gbs", "gbs"),
            Column::PctCopy => ("pct_of_copy", "pct_of_copy"),
            Column::Work => ("precision", "precision"),
            Column::Gflops => ("gflops_total", "gflops"),
            Column::Verdict => ("verdict", "verdict"),
            Column::Ncu => ("ncu_verdict", ""),
            Column::BoundBy => ("bound_by", ""),
            Column::Check => ("check", ""),
            Column::Because => ("latency_reason", "latency_reason"),
        }
    }

    /// The JSON field of `capture table --format json` this column shows.
    pub fn field(self) -> &'static str {
        self.keys().0
    }

    /// The explanation key of the column's numbers.
    pub fn explain_key(self) -> &'static str {
        self.keys().1
    }

    /// The number a row holds in this column, for sorting and `data-value`.
    pub fn number(self, row: &TableRow) -> Option<f64> {
        match self {
            Column::Name
            | Column::Verdict
            | Column::Ncu
            | Column::BoundBy
            | Column::Check
            | Column::Work
            | Column::Because => None,
            Column::Launches => Some(row.launches as f64),
            Column::Time => row.time_ms,
            Column::TimeShare => row.time_share,
            Column::Ask => row.ask_bytes,
            Column::L1 => row.l1_bytes,
            Column::L2 => row.l2_bytes,
            Column::Dram => row.dram_bytes,
            Column::DramPerAsk => row.dram_per_ask,
            Column::Gbs => row.gbs,
            Column::PctCopy => row.pct_of_copy,
            Column::Gflops => row.gflops_total,
        }
    }

    /// The text a row holds in this column (text columns only).
    pub fn text(self, row: &TableRow) -> Option<&str> {
        match self {
            Column::Name => Some(&row.name),
            Column::Verdict => row.verdict.as_deref(),
            Column::Ncu => row.ncu_verdict.as_ref().map(|n| n.verdict.as_str()),
            Column::BoundBy => row.bound_by.as_ref().map(|b| b.unit.as_str()),
            Column::Check => row.check.as_deref(),
            Column::Work => row.precision.as_deref(),
            Column::Because => row.latency_reason.as_deref(),
            _ => None,
        }
    }
}

/// Row indices of `rows` sorted by `column`, ascending or not; rows without a value go last
/// either way, and ties keep artifact order.
pub fn sorted_indices(rows: &[TableRow], column: Column, ascending: bool) -> Vec<usize> {
    let mut idx: Vec<usize> = (0..rows.len()).collect();
    shared::order::sort_by(&mut idx, |&a, &b| {
        use std::cmp::Ordering;
        let (ra, rb) = (&rows[a], &rows[b]);
        let ord = match (column.number(ra), column.number(rb)) {
            (Some(x), Some(y)) => x.total_cmp(&y),
            (Some(_), None) => return Ordering::Less,
            (None, Some(_)) => return Ordering::Greater,
            (None, None) => match (column.text(ra), column.text(rb)) {
                (Some(x), Some(y)) => x.to_lowercase().cmp(&y.to_lowercase()),
                (Some(_), None) => return Ordering::Less,
                (None, Some(_)) => return Ordering::Greater,
                (None, None) => Ordering::Equal,
            },
        };
        if ascending {
            ord
        } else {
            ord.reverse()
        }
    });
    idx
}

/// One row of the raw-metrics view: a metric (or a details-page row) with its value in
/// each cache state the kernel was profiled in.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricRow {
    /// Section (details page) or empty (raw page).
    pub section: String,
    /// Metric name.
    pub name: String,
    /// Unit after normalization.
    pub unit: String,
    /// Its values in the cold-cache pass (flushed before each launch).
    pub cold: Option<MetricValues>,
    /// Its values in the warm-cache pass.
    pub warm: Option<MetricValues>,
}

/// A metric's values over the launches of one pass.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricValues {
    /// The value of each launch as read (`3181395348.837209`, or text).
    pub values: Vec<String>,
    /// Mean, least and greatest of the numeric values, when all are numbers.
    pub numbers: Option<(f64, f64, f64)>,
    /// How many of the values are there at all (not missing).
    pub present: usize,
}

fn value_text(v: &MetricValue) -> String {
    match v {
        MetricValue::Number(x) => x.to_string(),
        MetricValue::Text(t) => t.clone(),
        MetricValue::Missing => "n/a".to_string(),
    }
}

impl MetricValues {
    fn push(&mut self, v: &MetricValue) {
        let n = self.values.len() as f64;
        self.values.push(value_text(v));
        if !matches!(v, MetricValue::Missing) {
            self.present += 1;
        }
        let x = match v {
            MetricValue::Number(x) if x.is_finite() => Some(*x),
            _ => None,
        };
        self.numbers = match (self.numbers, x) {
            (None, Some(x)) if n == 0.0 => Some((x, x, x)),
            (Some((mean, lo, hi)), Some(x)) => {
                Some(((mean * n + x) / (n + 1.0), lo.min(x), hi.max(x)))
            }
            _ => None,
        };
    }
}

/// Every raw metric and section row of a kernel's launches whose name, section or unit
/// contains `query` (case-insensitive; all words must match), one row per metric with its
/// values in the cold and the warm pass, at most `limit` rows, and the total number of
/// metrics that matched. Rows with a value come first: a report's Triage metrics, missing
/// in every launch, filled BERT's first screen with `n/a`.
pub fn search_metrics(
    run: &RunView,
    kernel: usize,
    query: &str,
    limit: usize,
) -> (Vec<MetricRow>, usize) {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let matches = |hay: &str| {
        let hay = hay.to_lowercase();
        words.iter().all(|w| hay.contains(w.as_str()))
    };
    let mut out: Vec<MetricRow> = Vec::new();
    let Some(record) = run.run.artifact.kernels.get(kernel) else {
        return (out, 0);
    };
    let mut at: std::collections::HashMap<(String, String, String), usize> =
        std::collections::HashMap::new();
    let mut add = |warm: bool, section: &str, name: &str, unit: &str, v: &MetricValue| {
        let key = (section.to_string(), name.to_string(), unit.to_string());
        let i = *at.entry(key).or_insert_with(|| {
            out.push(MetricRow {
                section: section.to_string(),
                name: name.to_string(),
                unit: unit.to_string(),
                cold: None,
                warm: None,
            });
            out.len() - 1
        });
        let row = &mut out[i];
        let slot = if warm { &mut row.warm } else { &mut row.cold };
        slot.get_or_insert_with(MetricValues::default).push(v);
    };
    for (warm, set) in [
        (false, record.cold.as_ref()),
        (true, record.warm.as_deref()),
    ] {
        for launch in set.into_iter().flat_map(|s| s.launches.iter()) {
            for (name, m) in &launch.metrics {
                if matches(&format!("{name} {}", m.unit)) {
                    add(warm, "", name, &m.unit, &m.value);
                }
            }
            for s in &launch.sections {
                if matches(&format!("{} {} {}", s.section, s.name, s.unit)) {
                    add(warm, &s.section, &s.name, &s.unit, &s.value);
                }
            }
        }
    }
    let total = out.len();
    let empty = |r: &MetricRow| {
        [&r.cold, &r.warm]
            .into_iter()
            .flatten()
            .all(|v| v.present == 0)
    };
    shared::order::sort_by_key(&mut out, empty);
    out.truncate(limit);
    (out, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_support::fixture;

    /// One run open: Compare's default partner for the selected kernel is one the roofline
    /// plots, the next by time that did counted work (not GPT-2's next kernel in file
    /// order, a random-number kernel with no point).
    #[test]
    fn the_default_partner_has_a_point() {
        let ws = crate::state::test_support::sample("h200-gpt2-bf16.json");
        let Some(a) = ws.resolve_selection(None) else {
            panic!("no selection")
        };
        let Some(b) = ws.default_compare(a) else {
            panic!("no partner")
        };
        assert_ne!(a, b);
        let model = crate::state::roofline::run_roofline(&ws, 0, crate::state::view::Plotted::Own);
        assert!(model.refs.contains(&a) && model.refs.contains(&b), "{b:?}");
        let run = &ws.runs[0];
        let rank = |k: KernelRef| run.by_time.iter().position(|&i| i == k.kernel);
        assert_eq!(rank(b), Some(1), "the partner is not the next by time");
    }

    /// The H200 probe suite's full-set raw page.
    fn workspace() -> Workspace {
        fixture("ncu-h200/probe_full_raw.csv")
    }

    #[test]
    fn table_rows_are_the_shared_table() {
        let ws = workspace();
        let run = &ws.runs[0];
        assert_eq!(run.table, bytes_table(&run.run.artifact));
        let rows: Vec<&TableRow> = run.kernels.iter().map(|k| &k.row).collect();
        let table_rows: Vec<&TableRow> = run.table.kernels.iter().collect();
        assert_eq!(rows, table_rows);
        assert!(run.has_counters());
    }

    #[test]
    fn selection_falls_back_to_a_kernel_with_counters() {
        let ws = workspace();
        let bogus = Some(KernelRef { run: 7, kernel: 0 });
        assert_eq!(
            ws.resolve_selection(bogus),
            Some(KernelRef { run: 0, kernel: 0 })
        );
        assert_eq!(Workspace::default().resolve_selection(None), None);
    }

    #[test]
    fn sorting_puts_missing_values_last() {
        let row = |name: &str, dram: Option<f64>| TableRow {
            name: name.into(),
            launches: 1,
            dram_bytes: dram,
            ..TableRow::default()
        };
        let rows = vec![row("b", Some(2.0)), row("a", None), row("c", Some(1.0))];
        assert_eq!(sorted_indices(&rows, Column::Dram, true), vec![2, 0, 1]);
        assert_eq!(sorted_indices(&rows, Column::Dram, false), vec![0, 2, 1]);
        assert_eq!(sorted_indices(&rows, Column::Name, true), vec![1, 0, 2]);
    }

    #[test]
    fn metric_search_matches_all_words() {
        let ws = workspace();
        let run = &ws.runs[0];
        let (rows, total) = search_metrics(run, 0, "dram bytes_read sum", 1000);
        assert!(total >= 1);
        assert!(
            rows.iter()
                .any(|r| r.name == shared::model::counters::DRAM_BYTES_READ.name),
            "{rows:?}"
        );
        assert!(rows
            .iter()
            .all(|r| r.name.contains("dram") && r.name.contains("bytes_read")));
        let (limited, total_all) = search_metrics(run, 0, "", 5);
        assert_eq!(limited.len(), 5);
        assert!(
            total_all > 1000,
            "a full raw row has about 2,200 metrics: {total_all}"
        );
        // One row per metric: no name appears twice in a section.
        let (all, _) = search_metrics(run, 0, "", usize::MAX);
        let mut keys: Vec<(&str, &str)> = all
            .iter()
            .map(|r| (r.section.as_str(), r.name.as_str()))
            .collect();
        shared::order::sort(&mut keys);
        let n = keys.len();
        keys.dedup();
        assert_eq!(keys.len(), n, "a metric listed twice");
    }

    /// GPT-2's top GEMM moves its operands by TMA, which its export has no counter of: its
    /// memory chart says so; BERT-base's, whose export counts them, shows the bytes instead.
    #[test]
    fn the_memory_chart_knows_when_tma_loads_are_unseen() {
        let gpt2 = crate::state::test_support::sample("h200-gpt2-bf16.json");
        let run = &gpt2.runs[0];
        let top = run.by_time.first().and_then(|&i| run.kernels.get(i));
        let Some(top) = top else { panic!("no kernel") };
        assert!(top.name.starts_with("nvjet"), "{}", top.name);
        assert!(top.flows.tma_unseen && top.flows.tma_load_bytes.is_none());
        assert!(run
            .kernels
            .iter()
            .filter(|k| k.name.contains("elementwise"))
            .all(|k| !k.flows.tma_unseen));
        let bert =
            crate::state::test_support::packed_fixture("corpus-h200/bert_base_fwd_full_raw.csv");
        let run = &bert.runs[0];
        let top = run.by_time.first().and_then(|&i| run.kernels.get(i));
        let Some(top) = top else { panic!("no kernel") };
        assert!(
            !top.flows.tma_unseen && top.flows.tma_load_bytes.is_some(),
            "{}",
            top.name
        );
    }

    /// BERT-base's raw page: its Triage metrics are missing in every launch (`n/a`) and
    /// sort first by name; the rows with values come before them.
    #[test]
    fn metrics_with_values_come_first() {
        let ws =
            crate::state::test_support::packed_fixture("corpus-h200/bert_base_fwd_full_raw.csv");
        let run = &ws.runs[0];
        let (rows, total) = search_metrics(run, 0, "", usize::MAX);
        let present = |r: &MetricRow| r.cold.as_ref().is_some_and(|v| v.present > 0);
        let first_empty = rows.iter().position(|r| !present(r)).unwrap_or(rows.len());
        assert!(
            first_empty > 100 && first_empty < total,
            "{first_empty} of {total}"
        );
        assert!(rows[first_empty..].iter().all(|r| !present(r)));
        assert!(
            rows[first_empty..]
                .iter()
                .any(|r| r.name.contains("Triage")),
            "no empty Triage metric"
        );
    }
}
