//! The bytes table's types: the table, its ceilings and one kernel's row, which
//! [`crate::analysis::table`] fills and [`crate::analysis::floor`] and
//! [`crate::analysis::advice`] read. They stand one floor below all three, so the checks the
//! table calls take a row without importing the table that calls them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::analysis::bound::BoundBy;

/// The whole table: device, ceilings and one row per kernel in artifact order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BytesTable {
    /// Device name, when known.
    pub device: Option<String>,
    /// Ceilings the percentages refer to.
    pub ceilings: TableCeilings,
    /// One row per kernel, in artifact order.
    pub kernels: Vec<TableRow>,
    /// Present for a sampled profile: counters measured on `measured` of `launches`
    /// launches, the others scaled from them ([`crate::analysis::sampling`]); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<crate::model::artifact::Sampled>,
}

/// Measured and theoretical ceilings.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableCeilings {
    /// Measured copy ceiling (read plus write), GB/s.
    pub copy_gbs: Option<f64>,
    /// Measured FP32 FMA ceiling, GFLOP/s.
    pub fma_gflops: Option<f64>,
    /// Theoretical DRAM bandwidth from attributes, GB/s.
    pub theoretical_gbs: Option<f64>,
    /// Theoretical FP32 peak from attributes, GFLOP/s.
    pub theoretical_gflops: Option<f64>,
    /// Measured compute ceiling of every kind of work, keyed like `flops_by_precision`
    /// (`fp32`, `tensor_bf16`, ...; every key of
    /// [`Work::ALL`](crate::model::work_kind::Work::ALL)): GFLOP/s (GOP/s for
    /// integer kinds), `null` where `capture run` measured none
    /// ([`crate::analysis::ceilings::compute_ceilings`]).
    #[serde(default)]
    pub measured: BTreeMap<String, Option<f64>>,
    /// Theoretical dense peak of every kind of work, keyed like `measured`, `null` where
    /// the peak table has no figure for this device.
    #[serde(default)]
    pub theoretical: BTreeMap<String, Option<f64>>,
}

/// Where a row's time came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimeSource {
    /// Median of CUDA-event-timed launches.
    EventMedian,
    /// ncu's `gpu__time_duration.sum` (replayed, possibly at locked clocks).
    NcuDuration,
}

/// One kernel's row. Every field is `null` in JSON where unknown.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TableRow {
    /// Kernel display name: the full (demangled) name.
    pub name: String,
    /// A short name, distinct within the artifact
    /// ([`crate::text::names::distinct_short_names`]); the CLI and the viewer show this one.
    pub short_name: String,
    /// Profiled launches summed into this row (1 when there are no counters).
    pub launches: usize,
    /// Time, ms (see `time_source`).
    pub time_ms: Option<f64>,
    /// Where `time_ms` came from.
    pub time_source: Option<TimeSource>,
    /// Hand-counted bytes.
    pub ask_bytes: Option<f64>,
    /// Hand-counted FLOPs.
    pub ask_flops: Option<f64>,
    /// L1/TEX bytes.
    pub l1_bytes: Option<f64>,
    /// L2 bytes.
    pub l2_bytes: Option<f64>,
    /// DRAM bytes, read plus written.
    pub dram_bytes: Option<f64>,
    /// Counted FP32 FLOPs (fadd + fmul + 2 x ffma, of those collected).
    pub flops: Option<f64>,
    /// FP32 FLOP counters the export lacked; non-empty means `flops` is a lower bound.
    pub flops_missing: Vec<String>,
    /// Counted FP64 FLOPs (dadd + dmul + 2 x dfma, of those collected).
    pub fp64_flops: Option<f64>,
    /// FP64 GFLOP/s: `fp64_flops / time`.
    pub fp64_gflops: Option<f64>,
    /// Measured DRAM bytes over asked bytes.
    pub dram_per_ask: Option<f64>,
    /// DRAM GB/s: `dram_bytes / time`.
    pub gbs: Option<f64>,
    /// Percent of the measured copy ceiling.
    pub pct_of_copy: Option<f64>,
    /// FP32 GFLOP/s: `flops / time`.
    pub gflops: Option<f64>,
    /// Work by precision, FLOPs (OPs for `tensor_int*`), only the kinds with counted work:
    /// keys of [`crate::model::work_kind::Work::key`] (`fp32`, `tensor_bf16`, ...).
    pub flops_by_precision: BTreeMap<String, f64>,
    /// The key of `flops_by_precision` with the most work.
    pub precision: Option<String>,
    /// All floating-point FLOPs, CUDA and tensor cores (integer OPs excluded).
    pub flops_total: Option<f64>,
    /// `flops_total / time`, GFLOP/s.
    pub gflops_total: Option<f64>,
    /// This row's time over the summed time of every row of the table (0 to 1).
    pub time_share: Option<f64>,
    /// Names of this row's fields derived from rates or per-cycle values rather than the
    /// export's own totals (`dram_bytes`, `flops_by_precision.tensor_bf16`, `flops_total`, ...).
    pub derived_from_rates: Vec<String>,
    /// Speed-of-Light verdict (`memory-bound`, ...): of the launch group, or the verdict that
    /// holds the most of the kernel's time over its groups ([`crate::analysis::groups`]).
    pub verdict: Option<String>,
    /// Whether the kernel's launch groups disagree on the verdict (`groups` lists them).
    #[serde(default)]
    pub verdict_mixed: bool,
    /// The kernel's launches grouped by shape (grid, block, shared memory; split by
    /// duration), most time first, each with its own verdict, unit, reason and ncu's
    /// finding ([`crate::analysis::groups::LaunchGroup`]); listed for a kernel of two
    /// groups or more only (a kernel of one group is its row).
    #[serde(default)]
    pub groups: Vec<crate::analysis::groups::LaunchGroup>,
    /// Why the row's time is below the physical floor of its work on this GPU (its DRAM
    /// bytes at the theoretical bandwidth, its operations at their kind's theoretical
    /// peak; [`crate::analysis::floor`]): such a time is wrong, and `capture diff --gate`
    /// will not judge a run that has one. `null` when the time is possible or unknown.
    #[serde(default)]
    pub below_floor: Option<String>,
    /// Why the row's CUDA-event time and ncu's duration of the same launches disagree
    /// beyond [`crate::analysis::floor::TIMERS_BAND`]: one timed something else, and
    /// `capture diff --gate` will not judge the run. Absent when they agree or one is
    /// missing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timers_disagree: Option<String>,
    /// (Filled by [`annotate`](crate::analysis::table::annotate).) Where the kernel's counts contradict each other
    /// ([`crate::analysis::work_vector::contradictions`]): more DRAM bytes read than the
    /// L2's lookups explain, more L1 sectors than its requests can touch. Such counts are
    /// wrong, and `capture diff --gate-work` will not judge them. Absent when none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters_contradict: Vec<String>,
    /// One sentence of advice the verdict does not give: a matrix multiply on the FP32
    /// pipe where the tensor cores run it in TF32 ([`crate::analysis::advice`]); `null`
    /// where none applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
    /// ncu's own verdict (its SOLBottleneck rule, and the pipe its HighPipeUtilization rule
    /// names) beside ours, where the file carries its rule results; with why we differ.
    #[serde(default)]
    pub ncu_verdict: Option<Box<crate::analysis::ncu_verdict::NcuVerdict>>,
    /// CPU reference check: `pass` or `fail`.
    pub check: Option<String>,
    /// Each stall reason's share of the stalled warps (reason key to 0..1, summing to 1;
    /// `selected`, the issuing warp, is not a stall), from ncu's warp-state counters
    /// ([`crate::analysis::latency::stalls`]); `None` without them.
    pub stalls: Option<BTreeMap<String, f64>>,
    /// Waves per SM of the kernel's longest launch: ncu's own figure, else blocks / (SMs x
    /// blocks per SM) ([`crate::analysis::latency::fit`]).
    pub waves: Option<f64>,
    /// For a `latency-bound` verdict, why, in one line ([`crate::analysis::latency::reason_line`]).
    pub latency_reason: Option<String>,
    /// The unit that bounds the kernel and its share of peak ([`crate::analysis::bound`]): a pipe
    /// (`tensor`, `fma`, `fp64`, `alu`, `xu`, `lsu`, ...), a memory level (`dram`, `l2`,
    /// `l1`), or `latency`; `None` without a verdict.
    #[serde(default)]
    pub bound_by: Option<BoundBy>,
    /// (Filled by [`annotate`](crate::analysis::table::annotate).) The busiest pipe and its utilization, whatever the verdict ([`crate::analysis::bound::busiest_pipe`]);
    /// `None` without pipe counters.
    #[serde(default)]
    pub busiest_pipe: Option<BoundBy>,
    /// (Filled by [`annotate`](crate::analysis::table::annotate).) Operational intensity of each roofline point as the chart plots it, for the kind of
    /// work in `precision` (else the hand count's): FLOP (OP) per byte, `null` where the
    /// kernel has no such point ([`crate::analysis::levels`]).
    #[serde(default)]
    pub intensity: Intensity,
    /// (Filled by [`annotate`](crate::analysis::table::annotate).) Why a point is missing, how its bytes were counted or why it is flagged, and what
    /// counts were set aside (register moves counted as HFMAs).
    #[serde(default)]
    pub notes: Vec<String>,
    /// ncu's rule findings of the kernel's longest launch with findings, largest estimated
    /// speedup first ([`crate::analysis::findings`]); empty without any.
    pub rules: Vec<crate::analysis::findings::Finding>,
    /// In a sampled profile, how many of this kernel's `launches` were measured (the
    /// others' counters are scaled from them); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<crate::model::artifact::SampledCount>,
    /// (Filled by [`annotate`](crate::analysis::table::annotate).) The kernel's work vector, as the artifact's `work`
    /// ([`crate::analysis::work_vector`]; worked from the counters for an artifact before
    /// schema 6 or an export); `null` without counters.
    #[serde(default)]
    pub work: Option<Box<crate::model::artifact::KernelWork>>,
}

/// A row's operational intensity per roofline point, FLOP (OP) per byte.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Intensity {
    /// Hand-counted FLOPs over hand-counted bytes.
    pub asked: Option<f64>,
    /// Counted work over DRAM bytes.
    pub dram: Option<f64>,
    /// Counted work over L2 bytes.
    pub l2: Option<f64>,
    /// Counted work over the L1 point's bytes ([`crate::analysis::levels::level_bytes`]).
    pub l1: Option<f64>,
}

impl TableRow {
    /// What is wrong with the row's time, each as (what, why): `impossible time` (below the
    /// physical floor), `timers disagree` (events against ncu's duration).
    pub fn time_flags(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            ("impossible time", self.below_floor.as_deref()),
            ("timers disagree", self.timers_disagree.as_deref()),
        ]
        .into_iter()
        .filter_map(|(what, why)| why.map(|w| (what, w)))
    }
}
