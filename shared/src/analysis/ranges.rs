//! Launches by NVTX range: which part of the program spent the GPU time, at what point on
//! the roofline, bound by what (`capture table --by range`).
//!
//! A launch's *path* is the ranges it ran in ([`NvtxRanges`]): the process-wide start/end
//! ranges first, in ncu's order, then its thread's push/pop stack, outermost first
//! (`measure/step/forward/encoder.layer.0`). A range of a domain other than the default is
//! named `domain:name`. With a depth, a path is cut to its first ranges, so the launches of
//! deeper ranges count for their ancestor at that depth. Each launch counts for exactly one
//! node, the one of its (cut) path, so the nodes' times add up to the total; a launch in no
//! range is the node `(no range)` (ncu names no thread for it: the push/pop column is empty).
//!
//! A node's figures are worked by the same functions as a kernel's: time from
//! [`metrics::duration_ns`], bytes and work from [`metrics::totals`], verdicts from
//! [`groups::kernel_verdict`] on the node's launches of each kernel, the roofline point its
//! FLOPs over its DRAM bytes at its time.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::analysis::{groups, metrics, work};
use crate::model::artifact::{Artifact, LaunchCounters, NvtxRange, NvtxRanges};
use crate::model::roofline;
use crate::text::escape::{csv_cell, markdown_cell};
use crate::text::format::{fmt_si, ms, opt, sig3};
use crate::text::table::padded;

/// The name of the node of launches in no NVTX range.
pub const NO_RANGE: &str = "(no range)";

/// The verdict key of time whose launches have no verdict (counters missing).
pub const NO_VERDICT: &str = "unknown";

/// One node of the range table: the launches whose path (cut to the depth) is `path`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RangeNode {
    /// The path's ranges, outermost first; empty for [`NO_RANGE`].
    pub path: Vec<String>,
    /// The path joined with `/`, or [`NO_RANGE`].
    pub name: String,
    /// Number of ranges in the path.
    pub depth: usize,
    /// IDs of the threads that launched its kernels, where ncu names them (push/pop
    /// ranges only), ascending.
    pub threads: Vec<u64>,
    /// Launches counted here.
    pub launches: usize,
    /// Summed launch time, ms (`gpu__time_duration.sum`; a launch without one counts 0).
    pub time_ms: f64,
    /// `time_ms` over the time of every launch of the artifact (0 to 1; the shares sum to 1).
    pub time_share: Option<f64>,
    /// FLOPs (integer OPs for `tensor_int*`) by kind of work, only the kinds counted.
    pub flops_by_kind: BTreeMap<String, f64>,
    /// All floating-point FLOPs, CUDA and tensor cores ([`work::flops_total`]).
    pub flops_total: f64,
    /// Summed DRAM bytes; null when a launch lacks them.
    pub dram_bytes: Option<f64>,
    /// Summed L2 bytes; null when a launch lacks them.
    pub l2_bytes: Option<f64>,
    /// Summed L1 bytes; null when a launch lacks them.
    pub l1_bytes: Option<f64>,
    /// The roofline point's x: `flops_total / dram_bytes`, FLOP per byte.
    pub flop_per_byte: Option<f64>,
    /// The roofline point's y: `flops_total / time`, GFLOP/s.
    pub gflops: Option<f64>,
    /// Share of the node's time by verdict (`memory-bound`, `compute-bound`,
    /// `latency-bound`, ..., [`NO_VERDICT`]), 0 to 1, summing to 1 when it has time.
    pub verdicts: BTreeMap<String, f64>,
}

/// The deepest NVTX path kept: 1,000 ranges. A launch's stack deeper than this is cut
/// there (its launch counted in the range at that depth), with a warning naming how many
/// launches were cut: real programs nest a few dozen ranges, and every form of the table
/// writes a node's whole path, so a 20,000-deep stack would be written 20,000 times deep
/// (issue 48).
pub const MAX_DEPTH: usize = 1000;

/// The range table of an artifact.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RangeTable {
    /// The depth paths were cut to; null: full paths.
    pub depth: Option<usize>,
    /// Launches of the artifact (each in one node).
    pub launches: usize,
    /// Time of every launch, ms: the sum of the nodes' `time_ms`.
    pub time_ms: f64,
    /// The nodes, parents before their children, siblings in order of first launch.
    pub nodes: Vec<RangeNode>,
    /// Launches whose NVTX stack was deeper than [`MAX_DEPTH`] ranges and was cut there;
    /// absent when none.
    #[serde(skip_serializing_if = "DepthCut::is_none")]
    pub cut: DepthCut,
}

/// The launches whose stacks [`MAX_DEPTH`] cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DepthCut {
    /// How many launches.
    pub launches: usize,
    /// The deepest of their stacks, ranges.
    pub deepest: usize,
}

impl DepthCut {
    /// Whether no launch was cut.
    pub fn is_none(&self) -> bool {
        self.launches == 0
    }

    /// The warning, when launches were cut.
    pub fn warning(&self) -> Option<String> {
        (!self.is_none()).then(|| {
            format!(
                "{} launch(es) ran under NVTX stacks deeper than {MAX_DEPTH} ranges (the \
                 deepest {}): their paths are cut at {MAX_DEPTH} ranges, the launches counted \
                 in the range at that depth",
                self.launches, self.deepest
            )
        })
    }
}

/// How a range is named in a path: `name`, or `domain:name` outside the default domain.
pub fn range_label(range: &NvtxRange) -> String {
    match &range.domain {
        Some(domain) => format!("{domain}:{}", range.name),
        None => range.name.clone(),
    }
}

/// A launch's ranges: start/end ranges, then the push/pop stack, at most `depth` of them
/// and never more than [`MAX_DEPTH`].
fn ranges_of(nvtx: Option<&NvtxRanges>, depth: Option<usize>) -> impl Iterator<Item = &NvtxRange> {
    nvtx.into_iter()
        .flat_map(|n| n.start_end.iter().chain(&n.push_pop))
        .take(depth.unwrap_or(MAX_DEPTH).min(MAX_DEPTH))
}

/// A launch's path: start/end ranges, then the push/pop stack, cut to `depth` ranges (and
/// to [`MAX_DEPTH`]).
pub fn path_of(nvtx: Option<&NvtxRanges>, depth: Option<usize>) -> Vec<String> {
    ranges_of(nvtx, depth).map(range_label).collect()
}

/// One node of the range tree while launches are placed: its parent, its range (none for
/// the root, the empty path), its children in order of first launch, its launches.
struct TreeNode<'a> {
    parent: usize,
    label: Option<String>,
    children: Vec<usize>,
    gathered: Option<Gathered<'a>>,
}

/// The launches of one node: by kernel (index), in artifact order, and the threads that
/// launched them.
#[derive(Default)]
pub(crate) struct Gathered<'a> {
    /// Runs of launches of one kernel, in artifact order.
    pub(crate) by_kernel: Vec<(usize, Vec<&'a LaunchCounters>)>,
    threads: Vec<u64>,
}

/// A node of the tree that has launches, with its path.
pub(crate) struct Placed<'a> {
    /// The path's labels, outermost first.
    pub(crate) path: Vec<String>,
    /// Its launches.
    pub(crate) gathered: Gathered<'a>,
}

/// Every launch of an artifact placed in the range tree.
pub(crate) struct Placement<'a> {
    /// The nodes that have launches, parents before their children, siblings in order of
    /// first launch.
    pub(crate) nodes: Vec<Placed<'a>>,
    /// Launches placed.
    pub(crate) launches: usize,
    /// The launches [`MAX_DEPTH`] cut.
    pub(crate) cut: DepthCut,
}

/// Every launch of `artifact` (its kernels' reference launches, in artifact order) placed
/// in the tree of its ranges, paths cut to `depth` ranges: the one place a launch is given
/// its node. The tree interns ranges, a node per (parent, range), and a launch's NVTX
/// context (shared by the launches that ran in it) is walked once, so time and memory
/// follow the input: a path string per depth of every stack made this quadratic (a
/// 10,000-deep stack of one launch: 2.74 GB; issue 48).
pub(crate) fn placement(artifact: &Artifact, depth: Option<usize>) -> Placement<'_> {
    let mut tree = vec![TreeNode {
        parent: 0,
        label: None,
        children: Vec::new(),
        gathered: None,
    }];
    // By label, as paths are compared: `a:b` in the default domain is `b` in domain `a`.
    let mut child_of: HashMap<(usize, String), usize> = HashMap::new();
    let mut node_of_context: HashMap<*const NvtxRanges, usize> = HashMap::new();
    let mut cut = DepthCut::default();
    let mut launches = 0usize;
    for (k, kernel) in artifact.kernels.iter().enumerate() {
        for launch in metrics::reference_launches(kernel) {
            let nvtx = launch.site.nvtx.as_ref();
            let node = match nvtx {
                None => 0,
                Some(context) => *node_of_context
                    .entry(std::sync::Arc::as_ptr(context))
                    .or_insert_with(|| {
                        let mut at = 0;
                        for r in ranges_of(Some(context), depth) {
                            let key = (at, range_label(r));
                            at = match child_of.get(&key) {
                                Some(&child) => child,
                                None => {
                                    let child = tree.len();
                                    tree.push(TreeNode {
                                        parent: at,
                                        label: Some(key.1.clone()),
                                        children: Vec::new(),
                                        gathered: None,
                                    });
                                    if let Some(parent) = tree.get_mut(at) {
                                        parent.children.push(child);
                                    }
                                    child_of.insert(key, child);
                                    child
                                }
                            };
                        }
                        at
                    }),
            };
            if let Some(n) = nvtx {
                let full = n.start_end.len() + n.push_pop.len();
                if full > MAX_DEPTH && depth.is_none_or(|d| d > MAX_DEPTH) {
                    cut.launches += 1;
                    cut.deepest = cut.deepest.max(full);
                }
            }
            if let Some(t) = tree.get_mut(node) {
                let g = t.gathered.get_or_insert_with(Gathered::default);
                match g.by_kernel.last_mut() {
                    Some((last, ls)) if *last == k => ls.push(launch),
                    _ => g.by_kernel.push((k, vec![launch])),
                }
                if let Some(thread) = nvtx.and_then(|n| n.thread) {
                    if !g.threads.contains(&thread) {
                        g.threads.push(thread);
                    }
                }
            }
            launches += 1;
        }
    }
    // Pre-order, children in order of first launch; a stack, not recursion, however deep.
    let mut nodes = Vec::new();
    let mut stack = vec![0usize];
    while let Some(at) = stack.pop() {
        let Some(t) = tree.get_mut(at) else {
            continue;
        };
        stack.extend(t.children.iter().rev());
        let Some(gathered) = t.gathered.take() else {
            continue;
        };
        let mut path = Vec::new();
        let mut up = at;
        while let Some(t) = tree.get(up) {
            let Some(label) = &t.label else {
                break;
            };
            path.push(label.clone());
            up = t.parent;
        }
        path.reverse();
        nodes.push(Placed { path, gathered });
    }
    Placement {
        nodes,
        launches,
        cut,
    }
}

/// The range table of `artifact`, paths cut to `depth` ranges when given (at depth 0 every
/// launch is in the one node of the empty path, named [`NO_RANGE`]: callers ask for 1 or
/// more).
pub fn range_table(artifact: &Artifact, depth: Option<usize>) -> RangeTable {
    table_of(&placement(artifact, depth), depth)
}

/// The range table of the launches `placement` placed.
pub(crate) fn table_of(placement: &Placement<'_>, depth: Option<usize>) -> RangeTable {
    let mut nodes: Vec<RangeNode> = placement.nodes.iter().map(node).collect();
    let time_ms: f64 = nodes.iter().map(|n| n.time_ms).sum();
    for n in &mut nodes {
        n.time_share = (time_ms > 0.0).then(|| n.time_ms / time_ms);
    }
    RangeTable {
        depth,
        launches: placement.launches,
        time_ms,
        nodes,
        cut: placement.cut,
    }
}

/// `artifact` narrowed to one node of its range tree and everything below it: the launches
/// whose path begins with `prefix` (for [`NO_RANGE`]'s path, `[NO_RANGE]`, the launches in no
/// range), in every counter set; kernels left with no launch are dropped, and a sampled
/// kernel's count is its launches that remain. An empty `prefix` keeps every launch.
/// The viewer's range tree shows its pages over it.
pub fn within(artifact: &Artifact, prefix: &[String]) -> Artifact {
    let keeps = |l: &LaunchCounters| {
        let path = path_of(l.site.nvtx.as_deref(), None);
        match prefix {
            [only] if only == NO_RANGE => path.is_empty(),
            _ => path.starts_with(prefix),
        }
    };
    let mut narrowed = artifact.clone();
    narrowed.kernels.retain_mut(|k| {
        let kept_before = metrics::reference_launches(k).len();
        for set in k.cold.iter_mut().chain(k.warm.as_deref_mut()) {
            set.launches.retain(&keeps);
        }
        let kept = metrics::reference_launches(k).len();
        if kept != kept_before && k.sampled.is_some() {
            k.sampled = k.counted_sampled().map(Box::new);
        }
        kept > 0
    });
    narrowed
}

/// A node's figures from its launches.
fn node(placed: &Placed<'_>) -> RangeNode {
    let path = placed.path.clone();
    let gathered = &placed.gathered;
    let launches: Vec<LaunchCounters> = gathered
        .by_kernel
        .iter()
        .flat_map(|(_, ls)| ls.iter().map(|l| (*l).clone()))
        .collect();
    let time_ns: f64 = launches.iter().map(launch_ns).sum();
    let totals = metrics::totals(&launches);
    let flops_total = work::flops_total(&totals.work);
    let mut verdict_ns: BTreeMap<String, f64> = BTreeMap::new();
    for (_, ls) in &gathered.by_kernel {
        let owned: Vec<LaunchCounters> = ls.iter().map(|l| (*l).clone()).collect();
        let verdict = groups::kernel_verdict(&owned);
        for (group, members) in verdict.groups.iter().zip(&verdict.members) {
            let ns: f64 = members
                .iter()
                .filter_map(|&i| owned.get(i))
                .map(launch_ns)
                .sum();
            let key = group.verdict.clone().unwrap_or_else(|| NO_VERDICT.into());
            *verdict_ns.entry(key).or_default() += ns;
        }
    }
    let verdicts = crate::order::map_of(
        verdict_ns
            .into_iter()
            .filter(|(_, ns)| *ns > 0.0)
            .map(|(k, ns)| (k, ns / time_ns)),
    );
    let mut threads = gathered.threads.clone();
    crate::order::sort(&mut threads);
    let name = if path.is_empty() {
        NO_RANGE.to_owned()
    } else {
        path.join("/")
    };
    RangeNode {
        depth: path.len(),
        name,
        path,
        threads,
        launches: launches.len(),
        time_ms: time_ns / 1e6,
        time_share: None,
        flops_by_kind: crate::order::map_of(
            totals
                .work
                .iter()
                .map(|(kind, w)| (kind.key().to_owned(), w.ops)),
        ),
        flops_total,
        dram_bytes: totals.dram_bytes,
        l2_bytes: totals.l2_bytes,
        l1_bytes: totals.l1_bytes,
        flop_per_byte: totals
            .dram_bytes
            .and_then(|b| roofline::intensity(flops_total, b)),
        gflops: roofline::giga_per_s(flops_total, time_ns / 1e6),
        verdicts,
    }
}

/// A launch's time, ns, as the verdict groups count it (0 without a duration).
fn launch_ns(l: &LaunchCounters) -> f64 {
    metrics::duration_ns(l).filter(|d| *d > 0.0).unwrap_or(0.0)
}

/// The header row of the CSV form.
const CSV_HEADER: [&str; 14] = [
    "range",
    "depth",
    "threads",
    "launches",
    "time_ms",
    "time_share",
    "flops_total",
    "flops_by_kind",
    "dram_bytes",
    "l2_bytes",
    "l1_bytes",
    "flop_per_byte",
    "gflops",
    "verdicts",
];

/// The column headers of the human forms.
const HEADERS: [&str; 11] = [
    "range",
    "launches",
    "time_ms",
    "share",
    "flops",
    "dram_bytes",
    "l2_bytes",
    "l1_bytes",
    "flop_per_byte",
    "gflops",
    "verdicts",
];

impl RangeTable {
    /// The whole tree: every path prefix of the nodes (parents before their children, in
    /// the nodes' order), each the sum of the nodes at and below it: launches, time and
    /// share, FLOPs by kind, bytes per level (null where a node lacks them), its own
    /// roofline point, and its time by verdict. [`NO_RANGE`] stays its own row. The viewer's
    /// range tree.
    pub fn tree(&self) -> Vec<RangeNode> {
        let mut order: Vec<Vec<String>> = Vec::new();
        let mut below: HashMap<Vec<String>, Vec<&RangeNode>> = HashMap::new();
        for n in &self.nodes {
            let cuts = if n.path.is_empty() {
                0..=0
            } else {
                1..=n.path.len()
            };
            for cut in cuts {
                let prefix = n.path.get(..cut).unwrap_or_default().to_vec();
                let members = below.entry(prefix.clone()).or_insert_with(|| {
                    order.push(prefix);
                    Vec::new()
                });
                members.push(n);
            }
        }
        order
            .into_iter()
            .map(|path| {
                let members = below.remove(&path).unwrap_or_default();
                summed(path, &members, self.time_ms)
            })
            .collect()
    }
}

/// The node of `path` summing `members` (the nodes at and below it), its share of
/// `total_ms`.
fn summed(path: Vec<String>, members: &[&RangeNode], total_ms: f64) -> RangeNode {
    let time_ms: f64 = members.iter().map(|n| n.time_ms).sum();
    let add = |get: fn(&RangeNode) -> Option<f64>| -> Option<f64> {
        members.iter().map(|n| get(n)).sum::<Option<f64>>()
    };
    let mut flops_by_kind: BTreeMap<String, f64> = BTreeMap::new();
    let mut verdict_ms: BTreeMap<String, f64> = BTreeMap::new();
    let mut threads: Vec<u64> = Vec::new();
    for n in members {
        for (k, v) in &n.flops_by_kind {
            *flops_by_kind.entry(k.clone()).or_default() += v;
        }
        for (k, share) in &n.verdicts {
            *verdict_ms.entry(k.clone()).or_default() += share * n.time_ms;
        }
        threads.extend(&n.threads);
    }
    crate::order::sort(&mut threads);
    threads.dedup();
    let flops_total: f64 = members.iter().map(|n| n.flops_total).sum();
    let dram_bytes = add(|n| n.dram_bytes);
    RangeNode {
        depth: path.len(),
        name: if path.is_empty() {
            NO_RANGE.to_owned()
        } else {
            path.join("/")
        },
        path,
        threads,
        launches: members.iter().map(|n| n.launches).sum(),
        time_ms,
        time_share: (total_ms > 0.0).then(|| time_ms / total_ms),
        flops_by_kind,
        flops_total,
        dram_bytes,
        l2_bytes: add(|n| n.l2_bytes),
        l1_bytes: add(|n| n.l1_bytes),
        flop_per_byte: dram_bytes.and_then(|b| roofline::intensity(flops_total, b)),
        gflops: roofline::giga_per_s(flops_total, time_ms),
        verdicts: crate::order::map_of(
            verdict_ms
                .into_iter()
                .filter(|(_, ms)| *ms > 0.0 && time_ms > 0.0)
                .map(|(k, ms)| (k, ms / time_ms)),
        ),
    }
}

impl RangeNode {
    /// The verdict mix in one cell: `memory-bound 62%, latency-bound 38%`, largest first.
    pub fn verdict_mix(&self) -> String {
        let mut mix: Vec<(&String, &f64)> = self.verdicts.iter().collect();
        crate::order::sort_by(&mut mix, |a, b| b.1.total_cmp(a.1));
        mix.iter()
            .map(|(k, v)| format!("{k} {:.0}%", *v * 100.0))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The FLOPs by kind in one cell: `tensor_bf16=1.2e12 fp32=3.4e9`.
    fn kinds_cell(&self) -> String {
        self.flops_by_kind
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The cells of the human forms, in [`HEADERS`] order.
    fn human_cells(&self) -> [String; 11] {
        let indent = "  ".repeat(self.depth.saturating_sub(1));
        let last = self.path.last().map_or(NO_RANGE, String::as_str);
        [
            format!("{indent}{last}"),
            self.launches.to_string(),
            ms(self.time_ms),
            opt(self.time_share, |s| format!("{:.1}%", s * 100.0)),
            fmt_si(self.flops_total, "FLOP"),
            opt(self.dram_bytes, |b| fmt_si(b, "B")),
            opt(self.l2_bytes, |b| fmt_si(b, "B")),
            opt(self.l1_bytes, |b| fmt_si(b, "B")),
            opt(self.flop_per_byte, sig3),
            opt(self.gflops, sig3),
            self.verdict_mix(),
        ]
    }
}

impl RangeTable {
    /// Aligned text for a terminal: one row per node, indented under its parent; an
    /// ancestor without launches of its own (every launch in a deeper range) is a row of
    /// its name only, so that the tree reads whole.
    pub fn to_text(&self) -> String {
        let mut rows: Vec<[String; 11]> = vec![HEADERS.map(str::to_owned)];
        let mut open: &[String] = &[];
        for node in &self.nodes {
            let common = open
                .iter()
                .zip(&node.path)
                .take_while(|(a, b)| a == b)
                .count();
            for level in common..node.path.len().saturating_sub(1) {
                let mut row: [String; 11] = Default::default();
                let name = node.path.get(level).map_or("", String::as_str);
                row[0] = format!("{}{name}", "  ".repeat(level));
                rows.push(row);
            }
            rows.push(node.human_cells());
            open = &node.path;
        }
        let mut widths = [0usize; 11];
        for row in &rows {
            for (w, cell) in widths.iter_mut().zip(row) {
                *w = (*w).max(cell.chars().count());
            }
        }
        let mut out = String::new();
        for row in &rows {
            let mut line = String::new();
            for (i, (cell, w)) in row.iter().zip(widths).enumerate() {
                let cell = crate::text::escape::controls(cell);
                line.push_str(&padded(&cell, w, i != 0 && i != 10));
                line.push_str("  ");
            }
            out.push_str(line.trim_end());
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "{} launches, {} ms in all{}",
            self.launches,
            ms(self.time_ms),
            self.depth
                .map(|d| format!("; ranges below depth {d} counted in their ancestor"))
                .unwrap_or_default()
        );
        out
    }

    /// A GitHub-flavoured Markdown table, the path in full.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("| {} |\n", HEADERS.join(" | "));
        out.push_str(&format!("|{}\n", "---|".repeat(HEADERS.len())));
        for n in &self.nodes {
            let mut cells = n.human_cells();
            cells[0] = n.name.clone();
            let cells: Vec<String> = cells
                .iter()
                .map(|c| markdown_cell(c).into_owned())
                .collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        out
    }

    /// Comma-separated values: plain numbers in base units, the path in full, threads and
    /// FLOPs by kind as `a b c` lists. Text cells go through [`csv_cell`], as the kernel
    /// table's do.
    pub fn to_csv(&self) -> String {
        let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
        let num = |v: Option<f64>| v.map(|v| v.to_string()).unwrap_or_default();
        let cell = |s: &str| csv_cell(s).into_owned();
        // Writing to a Vec cannot fail.
        let _ = w.write_record(CSV_HEADER);
        for n in &self.nodes {
            let threads = n
                .threads
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" ");
            let verdicts = n
                .verdicts
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect::<Vec<_>>()
                .join(" ");
            let _ = w.write_record([
                cell(&n.name),
                n.depth.to_string(),
                threads,
                n.launches.to_string(),
                n.time_ms.to_string(),
                num(n.time_share),
                n.flops_total.to_string(),
                cell(&n.kinds_cell()),
                num(n.dram_bytes),
                num(n.l2_bytes),
                num(n.l1_bytes),
                num(n.flop_per_byte),
                num(n.gflops),
                cell(&verdicts),
            ]);
        }
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    /// The JSON form (docs/table-json.md, "`--by range`").
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(domain: Option<&str>, name: &str) -> NvtxRange {
        NvtxRange {
            id: None,
            domain: domain.map(str::to_owned),
            name: name.to_owned(),
        }
    }

    #[test]
    fn paths_put_start_end_ranges_first_and_cut_at_the_depth() {
        let nvtx = NvtxRanges {
            thread: Some(7),
            push_pop: vec![range(None, "step"), range(Some("TSL"), "Thunk")],
            start_end: vec![range(None, "measure")],
        };
        assert_eq!(path_of(Some(&nvtx), None), ["measure", "step", "TSL:Thunk"]);
        assert_eq!(path_of(Some(&nvtx), Some(2)), ["measure", "step"]);
        assert!(path_of(Some(&nvtx), Some(0)).is_empty());
        assert!(path_of(None, None).is_empty());
    }
}
