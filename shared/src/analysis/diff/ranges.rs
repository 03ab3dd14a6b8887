//! Run against run by NVTX range (`capture diff --by range`): which part of the program got
//! slower. Each run's launches go to range nodes as `capture table --by range` puts them
//! ([`crate::analysis::ranges`]: a node per path cut to the depth, each launch in exactly
//! one, so the nodes' times add up to the run's). Nodes are matched by path, the range names
//! as written (a name that holds something that changes from run to run, an ID, does not
//! match), and ranked by the time gained or lost, a node of one run only counting its whole
//! time.
//!
//! Noise follows `capture diff`'s rules ([`super::noise`]). A node's time is a sum of ncu
//! durations, so each kernel's part of it gets the launch-spread band of the node's launches
//! of that kernel ([`launch_band`]); the node's band is those bands in ms, added over its
//! kernels and both runs, over its before time, as the run's total is worked
//! ([`TotalDiff::of`]); a change is beyond the noise when larger than that.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::noise::launch_band;
use super::render::{
    before_after, comparability_lines, markdown_form, signed_pct, text_form, total_line, DiffForms,
};
use super::{check, Comparability, TotalDiff, DIFF_JSON_VERSION};
use crate::analysis::metrics;
use crate::analysis::ranges::{placement, table_of, DepthCut, RangeNode};
use crate::model::artifact::Artifact;
use crate::model::roofline::percent_of;
use crate::text::format::{fmt_si, ms, opt};
use crate::text::table::{Column, Table};

/// What the `by` field of the JSON holds: rows are range nodes.
pub const BY_RANGE: &str = "range";

/// Whether a node is in both runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NodeStatus {
    /// In both runs.
    Matched,
    /// In the after run only.
    Appeared,
    /// In the before run only.
    Vanished,
}

/// One run's side of a range node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeSide {
    /// Launches counted in the node.
    pub launches: usize,
    /// Summed launch time, ms (as `capture table --by range`'s `time_ms`).
    pub time_ms: f64,
    /// `time_ms` over the run's time, 0 to 1; null when the run sums to 0 ms.
    pub time_share: Option<f64>,
    /// All floating-point FLOPs, CUDA and tensor cores.
    pub flops_total: f64,
    /// Summed DRAM bytes; null when a launch lacks them.
    pub dram_bytes: Option<f64>,
    /// Share of the node's time by verdict, 0 to 1 (as the table's `verdicts`).
    pub verdicts: BTreeMap<String, f64>,
    /// The node's band, percent of `time_ms`: each kernel's launch-spread band of its
    /// launches in the node, in ms, added, over `time_ms`; 0 without one.
    pub noise_pct: f64,
    /// Launches left out of the bands as outliers.
    pub noise_outliers: usize,
    /// Why a kernel's launches in the node could not be used for a band, when they could
    /// not (`KERNEL: reason`, `; ` between kernels).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub noise_problem: Option<String>,
    /// Why `time_share` or `dram_bytes` is null, when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_null: Option<String>,
}

/// One range node, in either run or both.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NodeDiff {
    /// The path joined with `/`, or [`crate::analysis::ranges::NO_RANGE`].
    pub name: String,
    /// The path's ranges, outermost first; empty for the launches in no range.
    pub path: Vec<String>,
    /// In both runs, or which one.
    pub status: NodeStatus,
    /// The before run's side; null when the node appeared.
    pub before: Option<NodeSide>,
    /// The after run's side; null when it vanished.
    pub after: Option<NodeSide>,
    /// After minus before, ms, a side the node is not in counting 0.
    pub change_ms: f64,
    /// The change in percent of the before time; null when that is 0 (or absent).
    pub change_pct: Option<f64>,
    /// Why `before`, `after` or `change_pct` is null, when one is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub why_null: Option<String>,
    /// The node's band: both sides' bands in ms added, percent of the before time; 0
    /// without a before time.
    pub noise_pct: f64,
    /// Whether `|change_pct|` exceeds `noise_pct` (`false` where `change_pct` is null: the
    /// status says the node appeared).
    pub beyond_noise: bool,
}

/// Run against run by range node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RangeDiff {
    /// [`DIFF_JSON_VERSION`].
    pub version: u32,
    /// [`BY_RANGE`]: the rows are range nodes (the kernel diff has no `by`).
    pub by: String,
    /// What the before run is called (the file name `capture diff` was given).
    pub before: String,
    /// What the after run is called.
    pub after: String,
    /// The depth paths were cut to; null: full paths.
    pub depth: Option<usize>,
    /// The comparability check, as the kernel diff's.
    pub comparability: Comparability,
    /// Every node of either run, the largest change in time (gained or lost) first.
    pub nodes: Vec<NodeDiff>,
    /// The runs' summed time (every launch, each in one node); the band the nodes' bands
    /// in ms, added, over the before time. Not gated.
    pub total: TotalDiff,
    /// What the reader should know of the paths: launches of either run whose NVTX stack
    /// was deeper than [`crate::analysis::ranges::MAX_DEPTH`] ranges and was cut there
    /// (`before: N launch(es) ran under ...`); absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A run's nodes in tree order, each with its side and its band in ms, and its time.
struct RunNodes {
    nodes: Vec<(Vec<String>, String, NodeSide, f64)>,
    time_ms: f64,
    noise_ms: f64,
    cut: DepthCut,
}

impl RunNodes {
    fn of(artifact: &Artifact, depth: Option<usize>) -> RunNodes {
        let placement = placement(artifact, depth);
        let table = table_of(&placement, depth);
        let mut noise_ms = 0.0;
        // The table's nodes are the placement's, in its order.
        let nodes = table
            .nodes
            .into_iter()
            .zip(&placement.nodes)
            .map(|(node, placed)| {
                // Per kernel (by index), the ncu durations of its launches here, ns.
                let mut kernels: BTreeMap<usize, Vec<f64>> = BTreeMap::new();
                for (k, launches) in &placed.gathered.by_kernel {
                    let durations = kernels.entry(*k).or_default();
                    durations.extend(launches.iter().filter_map(|l| metrics::duration_ns(l)));
                }
                let (side, band_ms) = side(&node, artifact, &kernels);
                noise_ms += band_ms;
                (node.path, node.name, side, band_ms)
            })
            .collect();
        RunNodes {
            nodes,
            time_ms: table.time_ms,
            noise_ms,
            cut: table.cut,
        }
    }
}

/// A node's side, and its band in ms, from its figures and its launches' durations by
/// kernel.
fn side(
    node: &RangeNode,
    artifact: &Artifact,
    kernels: &BTreeMap<usize, Vec<f64>>,
) -> (NodeSide, f64) {
    let mut band_ms = 0.0;
    let mut outliers = 0;
    let mut problems = Vec::new();
    for (k, durations_ns) in kernels {
        let band = launch_band(durations_ns);
        band_ms += band.pct / 100.0 * durations_ns.iter().sum::<f64>() / 1e6;
        outliers += band.outliers;
        if let Some(p) = band.problem {
            let name = artifact.kernels.get(*k).map_or("?", |r| &*r.name);
            problems.push(format!("{name}: {p}"));
        }
    }
    let mut why = Vec::new();
    if node.time_share.is_none() {
        why.push("no share: the run's launches sum to 0 ms");
    }
    if node.dram_bytes.is_none() {
        why.push("no DRAM bytes: a launch lacks them");
    }
    let side = NodeSide {
        launches: node.launches,
        time_ms: node.time_ms,
        time_share: node.time_share,
        flops_total: node.flops_total,
        dram_bytes: node.dram_bytes,
        verdicts: node.verdicts.clone(),
        noise_pct: percent_of(band_ms, node.time_ms).unwrap_or(0.0),
        noise_outliers: outliers,
        noise_problem: (!problems.is_empty()).then(|| problems.join("; ")),
        why_null: (!why.is_empty()).then(|| why.join("; ")),
    };
    (side, band_ms)
}

/// Run against run by range node: every node of either run, paths cut to `depth` ranges
/// when given (1 or more), matched by path, the largest change in time first (ties in the
/// before run's tree order, then the after run's); with the comparability check and the
/// total.
pub fn range_diff(before: &Artifact, after: &Artifact, depth: Option<usize>) -> RangeDiff {
    let b = RunNodes::of(before, depth);
    let a = RunNodes::of(after, depth);
    let mut after_nodes: HashMap<&[String], (&NodeSide, f64)> = a
        .nodes
        .iter()
        .map(|(path, _, s, n)| (path.as_slice(), (s, *n)))
        .collect();
    let mut nodes: Vec<NodeDiff> = Vec::new();
    for (path, name, side, band_ms) in &b.nodes {
        let other = after_nodes.remove(path.as_slice());
        nodes.push(node_diff(path, name, Some((side, *band_ms)), other));
    }
    for (path, name, side, band_ms) in &a.nodes {
        if after_nodes.contains_key(path.as_slice()) {
            nodes.push(node_diff(path, name, None, Some((side, *band_ms))));
        }
    }
    // Stable: equal changes keep the tree order.
    crate::order::sort_by(&mut nodes, |x, y| {
        y.change_ms.abs().total_cmp(&x.change_ms.abs())
    });
    RangeDiff {
        version: DIFF_JSON_VERSION,
        by: BY_RANGE.into(),
        before: String::new(),
        after: String::new(),
        depth,
        comparability: check(before, after),
        nodes,
        total: TotalDiff::of(b.time_ms, a.time_ms, b.noise_ms + a.noise_ms),
        warnings: [("before", b.cut), ("after", a.cut)]
            .into_iter()
            .filter_map(|(side, cut)| cut.warning().map(|w| format!("{side}: {w}")))
            .collect(),
    }
}

/// One node's change from its sides (each with its band in ms).
fn node_diff(
    path: &[String],
    name: &str,
    before: Option<(&NodeSide, f64)>,
    after: Option<(&NodeSide, f64)>,
) -> NodeDiff {
    let time = |s: Option<(&NodeSide, f64)>| s.map_or((0.0, 0.0), |(s, n)| (s.time_ms, n));
    let ((before_ms, band_b), (after_ms, band_a)) = (time(before), time(after));
    let change = TotalDiff::of(before_ms, after_ms, band_b + band_a);
    let status = match (before, after) {
        (None, _) => NodeStatus::Appeared,
        (_, None) => NodeStatus::Vanished,
        _ => NodeStatus::Matched,
    };
    let why_null = match status {
        NodeStatus::Appeared => Some("not in the before run"),
        NodeStatus::Vanished => Some("not in the after run"),
        NodeStatus::Matched if change.change_pct.is_none() => Some("the before time is 0 ms"),
        NodeStatus::Matched => None,
    };
    NodeDiff {
        name: name.to_owned(),
        path: path.to_vec(),
        status,
        before: before.map(|(s, _)| s.clone()),
        after: after.map(|(s, _)| s.clone()),
        change_ms: change.change_ms,
        change_pct: change.change_pct,
        why_null: why_null.map(str::to_owned),
        noise_pct: change.noise_pct,
        beyond_noise: change.beyond_noise,
    }
}

/// The columns of the human forms.
pub const COLUMNS: [Column; 10] = [
    Column::text("range"),
    Column::value("before ms"),
    Column::value("after ms"),
    Column::value("change ms"),
    Column::value("change"),
    Column::value("noise"),
    Column::text("status"),
    Column::value("launches"),
    Column::value("flops"),
    Column::value("dram bytes"),
];

impl NodeDiff {
    /// `slower` or `faster` (beyond the noise), `-` (within it), `appeared`, `vanished`.
    pub fn status_text(&self) -> &'static str {
        match (self.status, self.change_pct) {
            (NodeStatus::Appeared, _) => "appeared",
            (NodeStatus::Vanished, _) => "vanished",
            (_, Some(c)) if self.beyond_noise && c > 0.0 => "slower",
            (_, Some(_)) if self.beyond_noise => "faster",
            _ => "-",
        }
    }

    /// One figure of each side, before and after: the value once when equal.
    fn sides(&self, figure: impl Fn(&NodeSide) -> String) -> String {
        before_after(
            &self.before.as_ref().map(&figure),
            &self.after.as_ref().map(&figure),
        )
    }

    /// The row's cells, in [`COLUMNS`] order.
    fn cells(&self) -> [String; 10] {
        let time = |s: &Option<NodeSide>| opt(s.as_ref(), |s| ms(s.time_ms));
        [
            self.name.clone(),
            time(&self.before),
            time(&self.after),
            format!("{:+.4}", self.change_ms),
            signed_pct(self.change_pct),
            format!("±{:.2} %", self.noise_pct),
            self.status_text().into(),
            self.sides(|s| s.launches.to_string()),
            self.sides(|s| fmt_si(s.flops_total, "FLOP")),
            self.sides(|s| opt(s.dram_bytes, |b| fmt_si(b, "B"))),
        ]
    }
}

impl RangeDiff {
    /// The diff with its runs named (file names).
    pub fn named(mut self, before: impl Into<String>, after: impl Into<String>) -> Self {
        self.before = before.into();
        self.after = after.into();
        self
    }

    /// Lines above the table: the runs and the depth, the comparability warnings.
    fn preamble(&self) -> Vec<String> {
        let paths = match self.depth {
            Some(d) => format!("paths cut to {d} range(s), deeper ones counted in their ancestor"),
            None => "full paths".into(),
        };
        let mut out = vec![format!(
            "before {}, after {}; by NVTX range, {paths}",
            self.before, self.after
        )];
        out.extend(self.warnings.iter().map(|w| format!("warning: {w}")));
        out.extend(comparability_lines(&self.comparability));
        out
    }

    /// Lines under the table: the nodes by status, the total, the noise rule.
    fn epilogue(&self) -> Vec<String> {
        let count = |s: NodeStatus| self.nodes.iter().filter(|n| n.status == s).count();
        vec![
            format!(
                "{} range(s): {} in both runs, {} appeared, {} vanished",
                self.nodes.len(),
                count(NodeStatus::Matched),
                count(NodeStatus::Appeared),
                count(NodeStatus::Vanished)
            ),
            total_line(&self.total),
            "noise bands: launch spread (two standard errors of the mean ncu duration of each \
             kernel's launches in the range, outliers left out), in ms, added over the \
             range's kernels and both runs, over the before time; a change is beyond the \
             noise when larger"
                .into(),
        ]
    }

    fn table(&self) -> Table<'static> {
        let mut t = Table::new(&COLUMNS);
        for n in &self.nodes {
            t.push(n.cells());
        }
        t
    }

    /// Aligned text for a terminal, one row per node, the largest change first. Range
    /// names are the program's: control characters are shown escaped.
    pub fn to_text(&self) -> String {
        text_form(&self.preamble(), &self.table(), &self.epilogue())
    }

    /// GitHub-flavoured Markdown (pipes and control characters escaped).
    pub fn to_markdown(&self) -> String {
        markdown_form(&self.preamble(), false, &self.table(), &self.epilogue())
    }

    /// Pretty JSON: the contract of docs/diff-json.md, "`--by range`".
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// Its forms are its own (the impl stands here, beside the type, so `render.rs`, which
/// this file calls, never names a range).
impl DiffForms for RangeDiff {
    fn text(&self) -> String {
        self.to_text()
    }
    fn markdown(&self) -> String {
        self.to_markdown()
    }
    fn json(&self) -> String {
        self.to_json()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::model::artifact::{
        CounterSet, KernelRecord, LaunchCounters, NvtxRange, NvtxRanges, Provenance,
    };
    use crate::model::counters::GPU_TIME_DURATION;

    /// A kernel `name` with one launch per (range, duration ns), each range a start/end
    /// range of the default domain.
    fn kernel(name: &str, launches: &[(&str, f64)]) -> KernelRecord {
        let launches = launches
            .iter()
            .map(|(range, ns)| {
                let mut l = LaunchCounters::from_numbers(name, &[(GPU_TIME_DURATION.name, *ns)]);
                l.site_mut().nvtx = Some(Arc::new(NvtxRanges {
                    thread: None,
                    push_pop: Vec::new(),
                    start_end: vec![NvtxRange {
                        id: None,
                        domain: None,
                        name: (*range).to_owned(),
                    }],
                }));
                l
            })
            .collect();
        KernelRecord {
            cold: Some(CounterSet::of(launches)),
            ..KernelRecord::new(name, name)
        }
    }

    fn run(kernels: Vec<KernelRecord>) -> Artifact {
        let mut a = Artifact::new(Provenance::default());
        a.kernels = kernels;
        a
    }

    #[test]
    fn a_kernel_split_over_ranges_gets_the_band_of_its_launches_in_each() {
        // One kernel: three launches in `fwd`, two equal ones in `bwd`. Its band over all
        // five would be the spread of 1 and 2 us; in each range it is that range's own.
        let before = run(vec![kernel(
            "k",
            &[
                ("fwd", 1000.0),
                ("fwd", 1010.0),
                ("bwd", 2000.0),
                ("fwd", 990.0),
                ("bwd", 2000.0),
            ],
        )]);
        let d = range_diff(&before, &before, None);
        let node = |name: &str| d.nodes.iter().find(|n| n.name == name).expect(name);
        let (fwd, bwd) = (node("fwd"), node("bwd"));
        let fwd_band = launch_band(&[1000.0, 1010.0, 990.0]).pct;
        let side = fwd.before.as_ref().expect("fwd before");
        assert!((side.noise_pct - fwd_band).abs() < 1e-12, "{side:?}");
        assert!(fwd_band > 0.0);
        assert!(
            (fwd.noise_pct - 2.0 * fwd_band).abs() < 1e-9,
            "both runs' bands"
        );
        assert_eq!(bwd.before.as_ref().map(|s| s.noise_pct), Some(0.0));
        assert!(d
            .nodes
            .iter()
            .all(|n| n.change_ms == 0.0 && !n.beyond_noise));
        assert_eq!(d.nodes[0].name, "fwd", "equal changes keep the tree order");
    }

    #[test]
    fn nodes_of_one_run_appear_or_vanish_and_rank_by_their_whole_time() {
        let before = run(vec![kernel("k", &[("a", 1000.0), ("gone", 500.0)])]);
        let after = run(vec![kernel("k", &[("a", 1100.0), ("new", 3000.0)])]);
        let d = range_diff(&before, &after, None);
        let got: Vec<(&str, NodeStatus, &str)> = d
            .nodes
            .iter()
            .map(|n| (n.name.as_str(), n.status, n.status_text()))
            .collect();
        assert_eq!(
            got,
            [
                ("new", NodeStatus::Appeared, "appeared"),
                ("gone", NodeStatus::Vanished, "vanished"),
                ("a", NodeStatus::Matched, "slower"),
            ]
        );
        let new = &d.nodes[0];
        assert_eq!((new.change_ms, new.change_pct), (0.003, None));
        assert_eq!(new.why_null.as_deref(), Some("not in the before run"));
        assert_eq!(d.nodes[1].change_pct, Some(-100.0));
        assert!(
            (d.total.change_ms - 0.0026).abs() < 1e-12,
            "1.5 us to 4.1 us"
        );
    }
}
