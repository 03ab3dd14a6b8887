//! Derived metrics: the figures a roofline needs, worked from one launch's ncu counters.
//!
//! Each function names the counters it reads and falls back, in a fixed order, to other
//! counters that measure the same thing (a raw page, a details page, older exports), so
//! the CLI and the viewer agree on every number. Byte and instruction counts come from
//! counters; rates are worked in [`crate::analysis::table`] against a stated time source.

use serde::{Deserialize, Serialize};

use crate::analysis::work::{self, Source, WorkByKind};
use crate::model::artifact::{KernelRecord, LaunchCounters, MetricValue, Precision};
use crate::model::counters::{self as c, Counter};
use crate::model::roofline::ratio;

/// Bytes per DRAM / L2 / L1 sector.
pub const SECTOR_BYTES: f64 = 32.0;

/// A Speed-of-Light unit at or above this percentage of its peak counts as busy: with both
/// Compute (SM) and Memory Throughput under it, ncu's SOLBottleneck rule reports latency
/// ("Small Grid" under one full wave, else "Latency Issue").
pub const BUSY_PCT: f64 = 60.0;

/// At or above this percentage of peak, ncu's SOLBottleneck rule reports "High
/// Throughput" for the busier of Compute (SM) and Memory Throughput.
pub const HIGH_PCT: f64 = 80.0;

/// Under [`HIGH_PCT`] and not both under [`BUSY_PCT`], Compute (SM) and Memory Throughput
/// closer than this many points are "Balanced Throughput" for ncu's SOLBottleneck rule;
/// farther apart, the busier one ("High Compute Throughput", "High Memory Throughput").
pub const BALANCED_GAP_PCT: f64 = 10.0;

/// The details-page section holding the Speed-of-Light rows.
pub const SOL_SECTION: &str = "GPU Speed Of Light Throughput";

/// A numeric raw-page metric of a launch, by its catalog entry.
pub fn metric(launch: &LaunchCounters, counter: Counter) -> Option<f64> {
    launch.metrics.number(counter.name)
}

/// A numeric details-page row, by metric name, optionally restricted to a section and a
/// unit. The first matching row wins.
pub fn section_metric(
    launch: &LaunchCounters,
    section: Option<&str>,
    name: &str,
    unit: Option<&str>,
) -> Option<f64> {
    launch
        .sections
        .iter()
        .filter(|s| s.name == name)
        .filter(|s| section.is_none_or(|sec| s.section == sec))
        .filter(|s| unit.is_none_or(|u| s.unit == u))
        .find_map(|s| match s.value {
            MetricValue::Number(v) => Some(v),
            _ => None,
        })
}

fn sum2(launch: &LaunchCounters, a: Counter, b: Counter) -> Option<f64> {
    Some(metric(launch, a)? + metric(launch, b)?)
}

/// The first of `options` a launch has, in order; each option is a formula over the
/// launch's counters giving a value and its [`Source`].
type Formula<'a> = &'a dyn Fn(&LaunchCounters) -> Option<(f64, Source)>;

fn first_of(launch: &LaunchCounters, options: &[Formula<'_>]) -> Option<(f64, Source)> {
    options.iter().find_map(|f| f(launch))
}

fn direct(launch: &LaunchCounters, a: Counter, b: Counter) -> Option<(f64, Source)> {
    sum2(launch, a, b).map(|v| (v, Source::Total))
}

fn sectors(launch: &LaunchCounters, a: Counter, b: Option<Counter>) -> Option<(f64, Source)> {
    let s = match b {
        Some(b) => sum2(launch, a, b)?,
        None => metric(launch, a)?,
    };
    Some((s * SECTOR_BYTES, Source::Total))
}

/// DRAM bytes read plus written and how they were obtained: `dram__bytes_read.sum +
/// dram__bytes_write.sum`, else `(dram__sectors_read.sum + dram__sectors_write.sum) x 32`,
/// else `dram__bytes.sum` in any form ([`work::total`]: `--set roofline` carries it only as
/// `dram__bytes.sum.per_second`, so the total is that rate x the duration, derived).
pub fn dram_bytes_with_source(launch: &LaunchCounters) -> Option<(f64, Source)> {
    first_of(
        launch,
        &[
            &|l| direct(l, c::DRAM_BYTES_READ, c::DRAM_BYTES_WRITE),
            &|l| sectors(l, c::DRAM_SECTORS_READ, Some(c::DRAM_SECTORS_WRITE)),
            &|l| work::total(l, c::DRAM_BYTES),
        ],
    )
}

/// L2 bytes and their source: `lts__t_bytes.sum`, else `lts__t_sectors.sum x 32`, else
/// `lts__t_bytes.sum` as a rate, else ncu's hierarchical-roofline L2 bytes
/// (`derived__lts__lts2xbar_bytes.sum`, a rate in ncu's sets), derived.
pub fn l2_bytes_with_source(launch: &LaunchCounters) -> Option<(f64, Source)> {
    first_of(
        launch,
        &[
            &|l| metric(l, c::L2_BYTES).map(|v| (v, Source::Total)),
            &|l| sectors(l, c::L2_SECTORS, None),
            &|l| work::total(l, c::L2_BYTES),
            &|l| work::total(l, c::L2_XBAR_BYTES),
        ],
    )
}

/// L1/TEX bytes and their source: `l1tex__t_bytes.sum`, else global load plus store sectors
/// x 32, else `l1tex__t_bytes.sum` as a rate, else ncu's hierarchical-roofline L1 bytes
/// (`derived__l1tex__lsu_writeback_bytes_mem_lgds.sum`, a rate in ncu's sets), derived.
pub fn l1_bytes_with_source(launch: &LaunchCounters) -> Option<(f64, Source)> {
    first_of(
        launch,
        &[
            &|l| metric(l, c::L1_BYTES).map(|v| (v, Source::Total)),
            &|l| sectors(l, c::L1_SECTORS_GLOBAL_LD, Some(c::L1_SECTORS_GLOBAL_ST)),
            &|l| work::total(l, c::L1_BYTES),
            &|l| work::total(l, c::L1_LGDS_BYTES),
        ],
    )
}

/// DRAM bytes read plus written ([`dram_bytes_with_source`]).
pub fn dram_bytes(launch: &LaunchCounters) -> Option<f64> {
    dram_bytes_with_source(launch).map(|(v, _)| v)
}

/// L2 bytes ([`l2_bytes_with_source`]).
pub fn l2_bytes(launch: &LaunchCounters) -> Option<f64> {
    l2_bytes_with_source(launch).map(|(v, _)| v)
}

/// L1/TEX bytes ([`l1_bytes_with_source`]).
pub fn l1_bytes(launch: &LaunchCounters) -> Option<f64> {
    l1_bytes_with_source(launch).map(|(v, _)| v)
}

/// Kernel duration in ns: `gpu__time_duration.sum`, else the SOL section's `Duration`.
pub fn duration_ns(launch: &LaunchCounters) -> Option<f64> {
    metric(launch, c::GPU_TIME_DURATION)
        .or_else(|| section_metric(launch, Some(SOL_SECTION), "Duration", Some("ns")))
}

/// A FLOP count from instruction counters, with the counters that were not collected.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FlopCount {
    /// FLOPs from the counters that were present.
    pub flops: f64,
    /// Counters the formula needs that the export lacks: when non-empty, `flops` is a lower
    /// bound.
    pub missing: Vec<String>,
}

/// CUDA-core FLOPs of one precision ([`work::cuda_core_work`]: add + mul + 2 x fma, FP16
/// as ncu counts packed half2); `None` when none of its counters was collected, and for
/// tensor-core kinds (see [`work::tensor_work`]).
pub fn flops(launch: &LaunchCounters, precision: Precision) -> Option<FlopCount> {
    work::cuda_core_work(launch, precision).map(|w| FlopCount {
        flops: w.ops,
        missing: w.missing,
    })
}

/// Global L1/TEX sectors per request, loads and stores together:
/// `(l1tex__t_sectors_pipe_lsu_mem_global_op_{ld,st}.sum) / (l1tex__t_requests_pipe_lsu_mem_global_op_{ld,st}.sum)`
/// over `launches` (4 for fully coalesced `float` accesses of a warp, 32 the worst case).
/// The memory page's headline and its chart both show this one figure.
pub fn sectors_per_request(launches: &[LaunchCounters]) -> Option<f64> {
    ratio(
        sum_present(
            launches,
            &[c::L1_SECTORS_GLOBAL_LD, c::L1_SECTORS_GLOBAL_ST],
        )?,
        sum_present(
            launches,
            &[c::L1_REQUESTS_GLOBAL_LD, c::L1_REQUESTS_GLOBAL_ST],
        )?,
    )
}

/// The sum of whichever of `counters` the launches carry; `None` when none carries any.
pub fn sum_present(launches: &[LaunchCounters], counters: &[Counter]) -> Option<f64> {
    let mut total = 0.0;
    let mut any = false;
    for launch in launches {
        for &counter in counters {
            if let Some(v) = metric(launch, counter) {
                total += v;
                any = true;
            }
        }
    }
    any.then_some(total)
}

/// The mean of `f` over the launches that have it; `None` when none has.
pub fn mean_of(
    launches: &[LaunchCounters],
    f: impl Fn(&LaunchCounters) -> Option<f64>,
) -> Option<f64> {
    let values: Vec<f64> = launches.iter().filter_map(f).collect();
    ratio(values.iter().sum::<f64>(), values.len() as f64)
}

/// The launches every figure of a kernel is worked from, and which set they are: the cold
/// counters (the reference), else the warm ones for an artifact profiled only warm. The one
/// place that choice is made; the table, the viewer and the charts all call it.
pub fn reference_launches(kernel: &KernelRecord) -> &[LaunchCounters] {
    kernel
        .cold
        .as_ref()
        .filter(|s| !s.launches.is_empty())
        .or(kernel.warm.as_deref())
        .map(|s| s.launches.as_slice())
        .unwrap_or_default()
}

/// The counter set [`reference_launches`] picks.
pub fn reference_set(kernel: &KernelRecord) -> Option<&crate::model::artifact::CounterSet> {
    kernel
        .cold
        .as_ref()
        .filter(|s| !s.launches.is_empty())
        .or(kernel.warm.as_deref())
}

/// Traffic through the memory hierarchy of `launches`, summed, for the memory chart.
pub fn memory_flows(label: &str, launches: &[LaunchCounters]) -> crate::chart::MemoryFlows {
    let level = |bytes: Counter, sectors: Counter| {
        sum_present(launches, &[bytes])
            .or_else(|| sum_present(launches, &[sectors]).map(|s| s * SECTOR_BYTES))
    };
    let t = totals(launches);
    crate::chart::MemoryFlows {
        kernel_label: label.to_string(),
        global_requests: sum_present(
            launches,
            &[c::L1_REQUESTS_GLOBAL_LD, c::L1_REQUESTS_GLOBAL_ST],
        ),
        l1_sectors: sum_present(
            launches,
            &[c::L1_SECTORS_GLOBAL_LD, c::L1_SECTORS_GLOBAL_ST],
        ),
        sectors_per_request: sectors_per_request(launches),
        l1_bytes: t.l1_bytes,
        tma_load_bytes: sum_present(launches, &[c::L1_TMA_LOAD_BYTES]).filter(|b| *b > 0.0),
        // Known only beside the level points ([`crate::analysis::figures`] sets it).
        tma_unseen: false,
        shared_requests: sum_present(launches, &[c::SHARED_LD_INST, c::SHARED_ST_INST]),
        shared_bytes: None,
        l1_hit_pct: mean_of(launches, |l| hit_rates(l).l1_pct),
        l2_bytes: t.l2_bytes,
        l2_sectors: sum_present(launches, &[c::L2_SECTORS]),
        l2_hit_pct: mean_of(launches, |l| hit_rates(l).l2_pct),
        dram_read_bytes: level(c::DRAM_BYTES_READ, c::DRAM_SECTORS_READ),
        dram_write_bytes: level(c::DRAM_BYTES_WRITE, c::DRAM_SECTORS_WRITE),
        dram_bytes: t.dram_bytes,
        duration_ns: launches
            .iter()
            .map(duration_ns)
            .try_fold(0.0, |sum, d| d.map(|d| sum + d))
            .filter(|d| *d > 0.0),
        l1_pct: t.sol.l1_pct,
        l2_pct: t.sol.l2_pct,
        dram_pct: t.sol.dram_pct,
    }
}

/// The Speed-of-Light headline percentages of one launch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SpeedOfLight {
    /// Compute (SM) Throughput, % of peak (`sm__throughput.avg.pct_of_peak_sustained_elapsed`).
    pub sm_pct: Option<f64>,
    /// Memory Throughput: the busiest memory unit, % of its peak
    /// (`gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed`). Not DRAM.
    pub memory_pct: Option<f64>,
    /// DRAM Throughput, % of peak (`dram__throughput.avg.pct_of_peak_sustained_elapsed`).
    pub dram_pct: Option<f64>,
    /// L1/TEX Cache Throughput, %.
    pub l1_pct: Option<f64>,
    /// L2 Cache Throughput, %.
    pub l2_pct: Option<f64>,
    /// Duration, ns.
    pub duration_ns: Option<f64>,
    /// SM frequency during the launch, Hz (locked by ncu unless `--clock-control none`).
    pub sm_hz: Option<f64>,
}

/// The details page's rows (in [`SOL_SECTION`], in %) of Compute (SM) Throughput: the
/// current name, then older spellings.
pub const SOL_SM_ROWS: &[&str] = &["Compute (SM) Throughput", "Compute (SM) [%]", "SM [%]"];
/// The details page's rows of Memory Throughput, current name first.
pub const SOL_MEMORY_ROWS: &[&str] = &["Memory Throughput", "Memory [%]"];
/// The details page's rows of DRAM Throughput, current name first.
pub const SOL_DRAM_ROWS: &[&str] = &["DRAM Throughput", "DRAM [%]"];
/// The details page's row of L1/TEX Cache Throughput.
pub const SOL_L1_ROWS: &[&str] = &["L1/TEX Cache Throughput"];
/// The details page's row of L2 Cache Throughput.
pub const SOL_L2_ROWS: &[&str] = &["L2 Cache Throughput"];

/// Speed-of-Light figures from the raw page, else from the details page (current names,
/// then the older `Compute (SM) [%]` / `Memory [%]` spellings).
pub fn speed_of_light(launch: &LaunchCounters) -> SpeedOfLight {
    let sol = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| section_metric(launch, Some(SOL_SECTION), n, Some("%")))
    };
    SpeedOfLight {
        sm_pct: metric(launch, c::SM_THROUGHPUT_PCT).or_else(|| sol(SOL_SM_ROWS)),
        memory_pct: metric(launch, c::MEMORY_THROUGHPUT_PCT).or_else(|| sol(SOL_MEMORY_ROWS)),
        dram_pct: metric(launch, c::DRAM_THROUGHPUT_PCT)
            .or_else(|| metric(launch, c::GPU_DRAM_THROUGHPUT_PCT))
            .or_else(|| sol(SOL_DRAM_ROWS)),
        l1_pct: metric(launch, c::L1_THROUGHPUT_PCT).or_else(|| sol(SOL_L1_ROWS)),
        l2_pct: metric(launch, c::L2_THROUGHPUT_PCT).or_else(|| sol(SOL_L2_ROWS)),
        duration_ns: duration_ns(launch),
        sm_hz: metric(launch, c::SM_HZ)
            .or_else(|| metric(launch, c::GPC_HZ))
            .or_else(|| section_metric(launch, Some(SOL_SECTION), "SM Frequency", Some("hz"))),
    }
}

/// What a Speed-of-Light reading says the kernel waits on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum VerdictKind {
    /// SM busy, memory not.
    ComputeBound,
    /// Memory busy, SM not.
    MemoryBound,
    /// Both busy: near both roofs at once.
    Balanced,
    /// Neither busy: stalls (latency, too little parallelism) limit it.
    LatencyBound,
}

impl VerdictKind {
    /// Short name, as the table prints it.
    pub fn as_str(self) -> &'static str {
        match self {
            VerdictKind::ComputeBound => "compute-bound",
            VerdictKind::MemoryBound => "memory-bound",
            VerdictKind::Balanced => "balanced",
            VerdictKind::LatencyBound => "latency-bound",
        }
    }
}

/// A verdict with the numbers that produced it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    /// The verdict.
    pub kind: VerdictKind,
    /// The numbers and the threshold, in one line (and, from `analysis::bound::verdict`, the
    /// unit that bounds the kernel).
    pub reason: String,
    /// The unit that bounds the kernel (`analysis::bound`); `None` from [`verdict`] alone.
    #[serde(default)]
    pub bound_by: Option<BoundBy>,
}

/// The unit that bounds a kernel and how close to its peak it runs: the table's `bound_by`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BoundBy {
    /// A pipe key of `analysis::bound::PIPES` (`tensor`, `fma`, `fp64`, `alu`, `xu`, `lsu`, ...), `sm`
    /// (compute-bound, no pipe counters), a memory level (`dram`, `l2`, `l1`), `memory`
    /// (memory-bound, no level figures), or `latency`.
    pub unit: String,
    /// The unit's utilization, % of its peak; for `latency`, the larger of Compute (SM) and
    /// Memory Throughput.
    pub pct_of_peak: Option<f64>,
}

/// The Speed-of-Light verdict, as ncu's SOLBottleneck rule reads Compute (SM) and Memory
/// Throughput: either at or above [`HIGH_PCT`] is bound by the busier one ("High
/// Throughput"); both under [`BUSY_PCT`] is latency-bound ("Latency Issue", "Small Grid");
/// otherwise the two within [`BALANCED_GAP_PCT`] points are balanced, and farther apart
/// the busier one bounds the kernel. `None` without both percentages.
pub fn verdict(sol: &SpeedOfLight) -> Option<Verdict> {
    let sm = sol.sm_pct?;
    let mem = sol.memory_pct?;
    let busier = if sm >= mem {
        VerdictKind::ComputeBound
    } else {
        VerdictKind::MemoryBound
    };
    let (kind, why) = if sm >= HIGH_PCT || mem >= HIGH_PCT {
        (busier, format!("the busier at or above {HIGH_PCT:.0}%"))
    } else if sm < BUSY_PCT && mem < BUSY_PCT {
        (
            VerdictKind::LatencyBound,
            format!("both under {BUSY_PCT:.0}%"),
        )
    } else if (sm - mem).abs() < BALANCED_GAP_PCT {
        (
            VerdictKind::Balanced,
            format!("within {BALANCED_GAP_PCT:.0} points, one at or above {BUSY_PCT:.0}%"),
        )
    } else {
        (
            busier,
            format!(
                "{BALANCED_GAP_PCT:.0} or more points apart, the busier at or above {BUSY_PCT:.0}%"
            ),
        )
    };
    Some(Verdict {
        kind,
        reason: format!("Compute (SM) {sm:.1}%, Memory {mem:.1}%: {why}"),
        bound_by: None,
    })
}

/// Every verdict [`verdict`] gives a reading within `spread_pts` percentage points of
/// Compute (SM) `sm` and Memory `mem` (each moved by up to the spread, the corners and edges
/// of that square: every threshold of the rule is a line, so its extremes are there), the
/// verdict at the reading first, then the others in [`VerdictKind`] order. Two or more: the
/// reading is a tie between them, within the run-to-run spread of the percentages, and
/// another collection of the same program may read any of them.
pub fn verdicts_within(sm: f64, mem: f64, spread_pts: f64) -> Vec<VerdictKind> {
    let kind = |sm: f64, mem: f64| {
        verdict(&SpeedOfLight {
            sm_pct: Some(sm),
            memory_pct: Some(mem),
            ..Default::default()
        })
        .map(|v| v.kind)
    };
    let mut out: Vec<VerdictKind> = kind(sm, mem).into_iter().collect();
    let steps = [-spread_pts, 0.0, spread_pts];
    let mut others = Vec::new();
    for ds in steps {
        for dm in steps {
            if let Some(k) = kind(sm + ds, mem + dm) {
                if !out.contains(&k) && !others.contains(&k) {
                    others.push(k);
                }
            }
        }
    }
    let order = [
        VerdictKind::ComputeBound,
        VerdictKind::MemoryBound,
        VerdictKind::Balanced,
        VerdictKind::LatencyBound,
    ];
    out.extend(order.into_iter().filter(|k| others.contains(k)));
    out
}

/// Cache hit rates, %.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HitRates {
    /// L1/TEX sector hit rate (`l1tex__t_sector_hit_rate.pct` or `L1/TEX Hit Rate`).
    pub l1_pct: Option<f64>,
    /// L2 sector hit rate (`lts__t_sector_hit_rate.pct` or `L2 Hit Rate`).
    pub l2_pct: Option<f64>,
}

/// Cache hit rates of a launch.
pub fn hit_rates(launch: &LaunchCounters) -> HitRates {
    HitRates {
        l1_pct: metric(launch, c::L1_HIT_PCT)
            .or_else(|| section_metric(launch, None, "L1/TEX Hit Rate", Some("%"))),
        l2_pct: metric(launch, c::L2_HIT_PCT)
            .or_else(|| section_metric(launch, None, "L2 Hit Rate", Some("%"))),
    }
}

/// Occupancy figures of a launch.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Theoretical occupancy, % (from the launch configuration).
    pub theoretical_pct: Option<f64>,
    /// Achieved occupancy, % (`sm__warps_active.avg.pct_of_peak_sustained_active`).
    pub achieved_pct: Option<f64>,
    /// Blocks per SM allowed by registers.
    pub limit_registers: Option<f64>,
    /// Blocks per SM allowed by shared memory.
    pub limit_shared_mem: Option<f64>,
    /// Blocks per SM allowed by warps.
    pub limit_warps: Option<f64>,
    /// Blocks per SM allowed by the SM's block slots.
    pub limit_blocks: Option<f64>,
    /// Blocks per SM allowed by the SM's barriers (exports of recent ncu versions).
    pub limit_barriers: Option<f64>,
    /// Registers per thread.
    pub registers_per_thread: Option<f64>,
}

/// Occupancy of a launch from the raw page, else from the details page.
pub fn occupancy(launch: &LaunchCounters) -> Occupancy {
    let either = |raw: Counter, details: &str| {
        metric(launch, raw).or_else(|| section_metric(launch, None, details, None))
    };
    Occupancy {
        theoretical_pct: either(c::THEORETICAL_OCCUPANCY_PCT, "Theoretical Occupancy"),
        achieved_pct: either(c::ACHIEVED_OCCUPANCY_PCT, "Achieved Occupancy"),
        limit_registers: either(c::LIMIT_REGISTERS, "Block Limit Registers"),
        limit_shared_mem: either(c::LIMIT_SHARED_MEM, "Block Limit Shared Mem"),
        limit_warps: either(c::LIMIT_WARPS, "Block Limit Warps"),
        limit_blocks: either(c::LIMIT_BLOCKS, "Block Limit SM"),
        limit_barriers: either(c::LIMIT_BARRIERS, "Block Limit Barriers"),
        registers_per_thread: either(c::REGISTERS_PER_THREAD, "Registers Per Thread"),
    }
}

/// Figures summed (counts, durations) or duration-weighted (percentages) over several
/// launches of one kernel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchTotals {
    /// Number of launches.
    pub launches: usize,
    /// Sum of DRAM bytes; `None` if any launch lacks them.
    pub dram_bytes: Option<f64>,
    /// Sum of L1 bytes; `None` if any launch lacks them.
    pub l1_bytes: Option<f64>,
    /// Sum of L2 bytes; `None` if any launch lacks them.
    pub l2_bytes: Option<f64>,
    /// Sum of ncu durations, ns; `None` if any launch lacks one.
    pub duration_ns: Option<f64>,
    /// FP32 FLOPs (lower bound when `missing` is non-empty).
    pub flops_fp32: Option<FlopCount>,
    /// FP64 FLOPs.
    pub flops_fp64: Option<FlopCount>,
    /// FP16 FLOPs.
    pub flops_fp16: Option<FlopCount>,
    /// Work by kind, CUDA and tensor cores ([`work::work_over`]).
    pub work: WorkByKind,
    /// Which of the byte figures were derived from rates (`dram_bytes`, `l2_bytes`,
    /// `l1_bytes`), for labels.
    pub derived_bytes: Vec<String>,
    /// Speed of light, percentages weighted by duration (plain mean without durations).
    pub sol: SpeedOfLight,
}

fn sum_all(launches: &[LaunchCounters], f: impl Fn(&LaunchCounters) -> Option<f64>) -> Option<f64> {
    if launches.is_empty() {
        return None;
    }
    launches.iter().map(f).sum()
}

fn flop_count(by: &WorkByKind, precision: Precision) -> Option<FlopCount> {
    by.get(&precision).map(|w| FlopCount {
        flops: w.ops,
        missing: w.missing.clone(),
    })
}

/// The sum of a byte figure over launches, and whether any launch's value was derived.
fn sum_bytes(
    launches: &[LaunchCounters],
    f: impl Fn(&LaunchCounters) -> Option<(f64, Source)>,
) -> (Option<f64>, bool) {
    if launches.is_empty() {
        return (None, false);
    }
    let mut total = 0.0;
    let mut derived = false;
    for launch in launches {
        let Some((v, s)) = f(launch) else {
            return (None, false);
        };
        total += v;
        derived |= s.is_derived();
    }
    (Some(total), derived)
}

fn weighted(
    launches: &[LaunchCounters],
    sols: &[SpeedOfLight],
    pick: impl Fn(&SpeedOfLight) -> Option<f64>,
) -> Option<f64> {
    let mut num = 0.0;
    let mut den = 0.0;
    for (_, sol) in launches.iter().zip(sols) {
        let v = pick(sol)?;
        let w = sol.duration_ns.filter(|d| *d > 0.0).unwrap_or(1.0);
        num += v * w;
        den += w;
    }
    (den > 0.0).then(|| num / den)
}

/// Totals over the launches of one kernel.
pub fn totals(launches: &[LaunchCounters]) -> LaunchTotals {
    totals_in(&mut work::Plans::default(), launches)
}

/// [`totals`], the work read through `plans`, kept by a caller that sums kernel after
/// kernel ([`work::Plans`]).
pub fn totals_in(plans: &mut work::Plans, launches: &[LaunchCounters]) -> LaunchTotals {
    let sols: Vec<SpeedOfLight> = launches.iter().map(speed_of_light).collect();
    let sol = SpeedOfLight {
        sm_pct: weighted(launches, &sols, |s| s.sm_pct),
        memory_pct: weighted(launches, &sols, |s| s.memory_pct),
        dram_pct: weighted(launches, &sols, |s| s.dram_pct),
        l1_pct: weighted(launches, &sols, |s| s.l1_pct),
        l2_pct: weighted(launches, &sols, |s| s.l2_pct),
        duration_ns: sum_all(launches, duration_ns),
        sm_hz: weighted(launches, &sols, |s| s.sm_hz),
    };
    let work = work::work_over_in(plans, launches);
    let (dram, dram_derived) = sum_bytes(launches, dram_bytes_with_source);
    let (l1, l1_derived) = sum_bytes(launches, l1_bytes_with_source);
    let (l2, l2_derived) = sum_bytes(launches, l2_bytes_with_source);
    let derived_bytes = [
        ("dram_bytes", dram_derived),
        ("l1_bytes", l1_derived),
        ("l2_bytes", l2_derived),
    ]
    .into_iter()
    .filter(|(_, d)| *d)
    .map(|(name, _)| name.to_string())
    .collect();
    LaunchTotals {
        launches: launches.len(),
        dram_bytes: dram,
        l1_bytes: l1,
        l2_bytes: l2,
        duration_ns: sol.duration_ns,
        flops_fp32: flop_count(&work, Precision::Fp32),
        flops_fp64: flop_count(&work, Precision::Fp64),
        flops_fp16: flop_count(&work, Precision::Fp16),
        work,
        derived_bytes,
        sol,
    }
}

#[cfg(test)]
mod tie_tests {
    use super::*;

    #[test]
    fn readings_near_a_threshold_are_ties() {
        use VerdictKind::*;
        // T5's softmax: SM 80.37 % against DRAM 80.39 % (ncu named DRAM in one run,
        // compute in the other); a point lower, both under 80 and within 10 points: balanced.
        assert_eq!(
            verdicts_within(80.37, 80.39, 1.0),
            [MemoryBound, ComputeBound, Balanced]
        );
        // Far from every line: one verdict.
        assert_eq!(verdicts_within(95.0, 20.0, 1.0), [ComputeBound]);
        assert_eq!(verdicts_within(20.0, 25.0, 1.0), [LatencyBound]);
        // Across the 10-point line of balance.
        assert_eq!(verdicts_within(70.0, 60.5, 1.0), [Balanced, ComputeBound]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::SectionMetric;
    use crate::model::counters as c;

    fn launch(metrics: &[(&str, f64)]) -> LaunchCounters {
        LaunchCounters::from_numbers("k", metrics)
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn fp64_example_from_the_seed() {
        // 2,000,000 + 1,000,000 sectors, 33,554,432 DFMA, 2.71 ms.
        let l = launch(&[
            ("dram__sectors_read.sum", 2_000_000.0),
            ("dram__sectors_write.sum", 1_000_000.0),
            (
                "smsp__sass_thread_inst_executed_op_dfma_pred_on.sum",
                33_554_432.0,
            ),
            ("gpu__time_duration.sum", 2.71e6),
        ]);
        let bytes = dram_bytes(&l).expect("bytes");
        assert_eq!(bytes, 96_000_000.0);
        let f = flops(&l, Precision::Fp64).expect("fp64 counters");
        assert_eq!(f.flops, 67_108_864.0);
        assert_eq!(f.missing.len(), 2, "dadd and dmul were not collected");
        let t = duration_ns(&l).expect("duration");
        assert!(close(bytes / t, 35.4, 0.05), "GB/s");
        assert!(close(f.flops / t, 24.8, 0.05), "GFLOP/s");
        assert_eq!(flops(&l, Precision::Fp32), None, "no FP32 counter at all");
    }

    #[test]
    fn fp32_example_from_the_seed() {
        // 1,000,000 + 500,000 sectors, 33,554,432 FFMA, 63 us.
        let l = launch(&[
            ("dram__sectors_read.sum", 1_000_000.0),
            ("dram__sectors_write.sum", 500_000.0),
            (
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum",
                33_554_432.0,
            ),
            ("smsp__sass_thread_inst_executed_op_fadd_pred_on.sum", 0.0),
            ("smsp__sass_thread_inst_executed_op_fmul_pred_on.sum", 0.0),
            ("gpu__time_duration.sum", 63_000.0),
        ]);
        let bytes = dram_bytes(&l).expect("bytes");
        assert_eq!(bytes, 48_000_000.0);
        let f = flops(&l, Precision::Fp32).expect("fp32");
        assert!(f.missing.is_empty());
        assert!(close(bytes / 63_000.0, 761.9, 0.05));
        assert!(close(f.flops / 63_000.0, 1065.2, 0.05));
    }

    #[test]
    fn dram_bytes_prefers_byte_counters_then_sectors_then_total() {
        let both = launch(&[
            ("dram__bytes_read.sum", 10.0),
            ("dram__bytes_write.sum", 5.0),
            ("dram__sectors_read.sum", 100.0),
            ("dram__sectors_write.sum", 100.0),
        ]);
        assert_eq!(dram_bytes(&both), Some(15.0));
        let total = launch(&[("dram__bytes.sum", 64.0)]);
        assert_eq!(dram_bytes(&total), Some(64.0));
        assert_eq!(dram_bytes(&launch(&[("dram__bytes_read.sum", 1.0)])), None);
    }

    #[test]
    fn verdicts_follow_the_thresholds() {
        // ncu's SOLBottleneck messages on the GPT-2 fixture
        // (tests/fixtures/ncu-h200-torch/gpt2_bf16_profile_details.csv.gz) for the same pairs:
        // ID 35 "well-balanced", 66 "well-balanced" (one at 61.39, 5 points apart), 107
        // "low compute throughput" (59.97 / 56.10), 121 "Compute is more heavily utilized",
        // 122 "greater than 80.0%", with the Compute Workload Analysis section to start at.
        let cases = [
            (23.41, 89.77, VerdictKind::MemoryBound), // seed: vecadd on a T4
            (99.74, 0.25, VerdictKind::ComputeBound), // seed: fma_loop on a T4
            (72.67, 72.67, VerdictKind::Balanced),    // seed: tiled matmul
            (10.0, 12.0, VerdictKind::LatencyBound),
            (61.56, 61.03, VerdictKind::Balanced),
            (61.39, 56.28, VerdictKind::Balanced),
            (56.10, 59.97, VerdictKind::LatencyBound),
            (73.26, 15.49, VerdictKind::ComputeBound),
            (90.24, 69.80, VerdictKind::ComputeBound),
        ];
        for (sm, mem, want) in cases {
            let sol = SpeedOfLight {
                sm_pct: Some(sm),
                memory_pct: Some(mem),
                ..Default::default()
            };
            let v = verdict(&sol).expect("both present");
            assert_eq!(v.kind, want, "sm {sm} mem {mem}");
            assert!(v.reason.contains(&format!("{sm:.1}%")), "{}", v.reason);
        }
        assert_eq!(verdict(&SpeedOfLight::default()), None);
    }

    #[test]
    fn sol_falls_back_to_details_rows_and_old_names() {
        let mut l = launch(&[]);
        for (name, v) in [("Compute (SM) [%]", 60.78), ("Memory [%]", 60.78)] {
            l.sections.push(SectionMetric {
                section: SOL_SECTION.into(),
                name: name.into(),
                unit: "%".into(),
                value: MetricValue::Number(v),
            });
        }
        l.sections.push(SectionMetric {
            section: "Memory Workload Analysis".into(),
            name: "Memory Throughput".into(),
            unit: "byte/s".into(),
            value: MetricValue::Number(3e12),
        });
        let sol = speed_of_light(&l);
        assert_eq!(sol.sm_pct, Some(60.78));
        assert_eq!(
            sol.memory_pct,
            Some(60.78),
            "byte/s row must not be read as %"
        );
    }

    #[test]
    fn sectors_per_request_of_the_seed_matmul_counts_loads_and_stores() {
        // The seed's naive matmul: 16,777,077 load sectors for 8,388,608 load requests; its
        // stores (one float per thread, 4 sectors a request) join them.
        let naive = launch(&[
            (c::L1_SECTORS_GLOBAL_LD.name, 16_777_077.0),
            (c::L1_REQUESTS_GLOBAL_LD.name, 8_388_608.0),
            (c::L1_SECTORS_GLOBAL_ST.name, 131_072.0),
            (c::L1_REQUESTS_GLOBAL_ST.name, 32_768.0),
        ]);
        let spr = sectors_per_request(std::slice::from_ref(&naive)).expect("ratio");
        assert!(close(spr, 16_908_149.0 / 8_421_376.0, 1e-12), "{spr}");
        let loads_only = launch(&[
            (c::L1_SECTORS_GLOBAL_LD.name, 16_777_077.0),
            (c::L1_REQUESTS_GLOBAL_LD.name, 8_388_608.0),
        ]);
        let spr = sectors_per_request(&[loads_only]).expect("ratio");
        assert!(close(spr, 2.0, 0.001));
        assert_eq!(sectors_per_request(&[launch(&[])]), None);
        // The memory chart carries the very same figure.
        let flows = memory_flows("naive", std::slice::from_ref(&naive));
        assert_eq!(
            flows.sectors_per_request,
            sectors_per_request(std::slice::from_ref(&naive))
        );
    }

    #[test]
    fn totals_sum_counts_and_weight_percentages() {
        let a = launch(&[
            ("dram__bytes.sum", 100.0),
            ("gpu__time_duration.sum", 1.0),
            ("sm__throughput.avg.pct_of_peak_sustained_elapsed", 10.0),
        ]);
        let b = launch(&[
            ("dram__bytes.sum", 50.0),
            ("gpu__time_duration.sum", 3.0),
            ("sm__throughput.avg.pct_of_peak_sustained_elapsed", 30.0),
        ]);
        let t = totals(&[a, b]);
        assert_eq!(t.launches, 2);
        assert_eq!(t.dram_bytes, Some(150.0));
        assert_eq!(t.duration_ns, Some(4.0));
        assert_eq!(t.sol.sm_pct, Some(25.0));
        assert_eq!(totals(&[]).dram_bytes, None);
    }
}
