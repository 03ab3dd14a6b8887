//! The unit that bounds a kernel (`bound_by`): a compute pipe, a memory level, or latency,
//! each with its share of peak, read from the counters the way ncu's own rules read them.
//!
//! The verdict is [`metrics::verdict`]'s, from ncu's two Speed-of-Light figures (Compute (SM)
//! Throughput, `sm__throughput`, and Memory Throughput, `gpu__compute_memory_throughput`:
//! ncu's own definitions, not the largest level). The unit then says which part of the GPU
//! that verdict points at:
//!
//! - **compute-bound**: the busiest pipe ([`PIPES`]): each pipe's issued instructions and
//!   active cycles as % of its peak over elapsed cycles (`sm__inst_executed_pipe_*`,
//!   `sm__pipe_*_cycles_active`), the larger of the two, as ncu's HighPipeUtilization rule
//!   reads them. Without pipe counters: `sm`, with Compute (SM) Throughput.
//! - **memory-bound**: the memory level (DRAM, L2, L1/TEX) behind ncu's Memory Throughput
//!   ([`busiest_level`]). Without level figures: `memory`, with Memory Throughput.
//! - **balanced**: the busier of the two.
//! - **latency-bound**: `latency`, with the larger of the two Speed-of-Light figures (how
//!   far the kernel is from any roof); the table's `latency_reason` says why (the launch's
//!   waves, the top stall).
//!
//! Every figure is duration-weighted over the launches given: one group of alike launches
//! ([`crate::analysis::groups`]), never a kernel's launches of different shapes together.

pub use crate::analysis::metrics::BoundBy;
use crate::analysis::metrics::{self, SpeedOfLight, Verdict, VerdictKind};
use crate::model::artifact::LaunchCounters;
use crate::model::counters as c;

/// A pipe of the SM, by its key and the counters of its utilization (the largest
/// one present is the pipe's figure).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pipe {
    /// The key in `bound_by.unit` (`tensor`, `fma`, ...).
    pub key: &'static str,
    /// The names of its utilization counters (catalog entries), % of peak over elapsed
    /// cycles. Names, not [`c::Counter`]s: the viewer's wasm then carries no meaning text.
    pub counters: &'static [&'static str],
}

/// The pipes `bound_by` can name, in ncu's order of its pipe-utilization chart. The shared
/// pipe (FP64 and tensor together, ncu's "Shared") is read through its two sub-pipes.
pub const PIPES: &[Pipe] = &[
    Pipe {
        key: "tensor",
        counters: &[c::PIPE_TENSOR_CYCLES_PCT.name],
    },
    Pipe {
        key: "fp64",
        counters: &[c::PIPE_FP64_CYCLES_PCT.name, c::PIPE_FP64_INST_PCT.name],
    },
    Pipe {
        key: "fma",
        counters: &[c::PIPE_FMA_CYCLES_PCT.name, c::PIPE_FMA_INST_PCT.name],
    },
    Pipe {
        key: "alu",
        counters: &[c::PIPE_ALU_CYCLES_PCT.name, c::PIPE_ALU_INST_PCT.name],
    },
    Pipe {
        key: "xu",
        counters: &[c::PIPE_XU_INST_PCT.name],
    },
    Pipe {
        key: "lsu",
        counters: &[c::PIPE_LSU_INST_PCT.name],
    },
    Pipe {
        key: "uniform",
        counters: &[c::PIPE_UNIFORM_INST_PCT.name],
    },
    Pipe {
        key: "adu",
        counters: &[c::PIPE_ADU_INST_PCT.name],
    },
    Pipe {
        key: "cbu",
        counters: &[c::PIPE_CBU_INST_PCT.name],
    },
    Pipe {
        key: "tma",
        counters: &[c::PIPE_TMA_CYCLES_PCT.name],
    },
    Pipe {
        key: "tex",
        counters: &[c::PIPE_TEX_INST_PCT.name],
    },
];

impl BoundBy {
    /// For people: `tensor pipe at 43.6% of peak`, `dram at 88.5% of peak`, `latency
    /// (busiest SOL unit 46.6%)`.
    pub fn label(&self) -> String {
        let pct = self.pct_of_peak.unwrap_or(f64::NAN);
        let unit = self.unit.as_str();
        if unit == "latency" {
            return format!("latency (busiest SOL unit {pct:.1}%)");
        }
        let pipe = if PIPES.iter().any(|p| p.key == unit) {
            " pipe"
        } else {
            ""
        };
        format!("{unit}{pipe} at {pct:.1}% of peak")
    }
}

/// One pipe's utilization in a launch: the largest of its counters present.
fn pipe_pct(launch: &LaunchCounters, pipe: &Pipe) -> Option<f64> {
    pipe.counters
        .iter()
        .filter_map(|&name| launch.metrics.number(name))
        .reduce(f64::max)
}

/// The pipes ncu's HighPipeUtilization rule ranks, by their active cycles over elapsed
/// cycles, in its order (a tie goes to the first): ALU, FMA, FP64, the shared pipe (FP64
/// and tensor together, named by the larger of the two), tensor, TMA. Pipes it counts only
/// by instructions issued (XU, LSU, uniform, ...) are not ranked.
pub const RANKED: [(&str, c::Counter); 6] = [
    ("alu", c::PIPE_ALU_CYCLES_PCT),
    ("fma", c::PIPE_FMA_CYCLES_PCT),
    ("fp64", c::PIPE_FP64_CYCLES_PCT),
    ("shared", c::PIPE_SHARED_CYCLES_PCT),
    ("tensor", c::PIPE_TENSOR_CYCLES_PCT),
    ("tma", c::PIPE_TMA_CYCLES_PCT),
];

/// The busiest pipe over `launches` and its utilization, duration-weighted (a plain mean
/// without durations), as ncu's HighPipeUtilization rule picks it: the largest of the
/// active-cycle figures of [`RANKED`], the shared pipe named `tensor` or `fp64` by whichever
/// of the two is busier. An export without active-cycle figures falls back to the largest
/// figure of any pipe of [`PIPES`]. `None` without pipe counters.
pub fn busiest_pipe(launches: &[LaunchCounters]) -> Option<BoundBy> {
    let mut best: Option<(&str, f64)> = None;
    for (key, counter) in RANKED {
        if let Some(v) = weighted(launches, |l| l.metrics.number(counter.name)) {
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((key, v));
            }
        }
    }
    if let Some(("shared", v)) = best {
        let of = |cn: c::Counter| weighted(launches, |l| l.metrics.number(cn.name));
        let fp64 = of(c::PIPE_FP64_CYCLES_PCT).unwrap_or(0.0);
        let tensor = of(c::PIPE_TENSOR_CYCLES_PCT).unwrap_or(0.0);
        best = Some((if fp64 > tensor { "fp64" } else { "tensor" }, v));
    }
    if best.is_none() {
        for p in PIPES {
            if let Some(v) = weighted(launches, |l| pipe_pct(l, p)) {
                if best.is_none_or(|(_, b)| v > b) {
                    best = Some((p.key, v));
                }
            }
        }
    }
    best.map(|(key, v)| BoundBy {
        unit: key.to_string(),
        pct_of_peak: Some(v),
    })
}

fn weighted(
    launches: &[LaunchCounters],
    pick: impl Fn(&LaunchCounters) -> Option<f64>,
) -> Option<f64> {
    let mut num = 0.0;
    let mut den = 0.0;
    for l in launches {
        let Some(v) = pick(l) else { continue };
        let w = metrics::duration_ns(l).filter(|d| *d > 0.0).unwrap_or(1.0);
        num += v * w;
        den += w;
    }
    (den > 0.0).then(|| num / den)
}

/// The memory level behind a Speed-of-Light reading's Memory Throughput; `None` without
/// level figures. ncu's Memory Throughput is the largest of its own breakdown
/// (`gpu__compute_memory_throughput`), which is not the largest of the three level figures
/// (a 4 GB copy on the H200: Memory 88.5 %, DRAM 88.5 %, L2 92.2 %), so the level is the one
/// that can have produced it: of the levels at or above Memory Throughput (to 0.5 points),
/// the closest to it; where there is no Memory Throughput or no such level, the busiest.
pub fn busiest_level(sol: &SpeedOfLight) -> Option<BoundBy> {
    let m = sol.memory_pct;
    let mut busiest: Option<(&str, f64)> = None;
    let mut behind: Option<(&str, f64)> = None;
    for (k, v) in [
        ("dram", sol.dram_pct),
        ("l2", sol.l2_pct),
        ("l1", sol.l1_pct),
    ] {
        let Some(v) = v else { continue };
        if busiest.is_none_or(|(_, b)| v > b) {
            busiest = Some((k, v));
        }
        if let Some(m) = m.filter(|m| v >= m - LEVEL_SLACK_PCT) {
            if behind.is_none_or(|(_, b)| (v - m).abs() < (b - m).abs()) {
                behind = Some((k, v));
            }
        }
    }
    behind.or(busiest).map(|(k, v)| BoundBy {
        unit: k.to_string(),
        pct_of_peak: Some(v),
    })
}

/// How far below Memory Throughput a level's figure may be and still be the one behind it
/// (both are printed to two decimals).
pub const LEVEL_SLACK_PCT: f64 = 0.5;

/// The unit that bounds a kernel with verdict `kind`, Speed of Light `sol` and launches
/// `launches` (module documentation). The figure beside a unit is the one that supports
/// the verdict: a memory level carries Memory Throughput (ncu's elapsed-cycle figure, not
/// the level's own L1 figure over active cycles); a pipe carries its own utilization only
/// when it is busy ([`metrics::BUSY_PCT`]), else the unit is `sm` with Compute (SM)
/// Throughput, whose busiest part is then not a pipe (issue slots, the register file):
/// [`verdict`]'s reason says so.
pub fn bound_by(kind: VerdictKind, sol: &SpeedOfLight, launches: &[LaunchCounters]) -> BoundBy {
    let compute = || {
        busiest_pipe(launches)
            .filter(|p| p.pct_of_peak.is_some_and(|v| v >= metrics::BUSY_PCT))
            .unwrap_or(BoundBy {
                unit: "sm".into(),
                pct_of_peak: sol.sm_pct,
            })
    };
    let memory = || BoundBy {
        unit: busiest_level(sol).map_or_else(|| "memory".into(), |b| b.unit),
        pct_of_peak: sol.memory_pct,
    };
    match kind {
        VerdictKind::ComputeBound => compute(),
        VerdictKind::MemoryBound => memory(),
        VerdictKind::Balanced => {
            if sol.memory_pct.unwrap_or(0.0) > sol.sm_pct.unwrap_or(0.0) {
                memory()
            } else {
                compute()
            }
        }
        VerdictKind::LatencyBound => BoundBy {
            unit: "latency".into(),
            pct_of_peak: match (sol.sm_pct, sol.memory_pct) {
                (Some(a), Some(b)) => Some(a.max(b)),
                (a, b) => a.or(b),
            },
        },
    }
}

/// The verdict of a kernel's `launches` whose duration-weighted Speed of Light is `sol`,
/// with the unit that bounds it, named in its reason too (`...; bound by tensor pipe at
/// 53.2% of peak`), so every view that shows the reason shows the unit.
pub fn verdict(sol: &SpeedOfLight, launches: &[LaunchCounters]) -> Option<Verdict> {
    let mut v = metrics::verdict(sol)?;
    let unit = bound_by(v.kind, sol, launches);
    v.reason.push_str("; bound by ");
    v.reason.push_str(&unit.label());
    if unit.unit == "sm" {
        if let Some(p) = busiest_pipe(launches) {
            v.reason.push_str(&format!(
                " (no pipe at or above {:.0}%: busiest {} {:.1}%, so the SM figure comes from \
                 instruction issue or another SM unit)",
                metrics::BUSY_PCT,
                p.unit,
                p.pct_of_peak.unwrap_or(f64::NAN)
            ));
        }
    }
    v.bound_by = Some(unit);
    Some(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::model::counters::Counter;

    fn launch(values: &[(Counter, f64)]) -> LaunchCounters {
        let named: Vec<(&str, f64)> = values.iter().map(|(c, v)| (c.name, *v)).collect();
        LaunchCounters::from_numbers("k", &named)
    }

    #[test]
    fn a_compute_bound_gemm_names_its_busiest_pipe() {
        let l = launch(&[
            (c::SM_THROUGHPUT_PCT, 87.9),
            (c::MEMORY_THROUGHPUT_PCT, 40.0),
            (c::PIPE_FP64_CYCLES_PCT, 87.9),
            (c::PIPE_FP64_INST_PCT, 80.0),
            (c::PIPE_ALU_INST_PCT, 3.0),
        ]);
        let l = [l];
        let sol = metrics::totals(&l).sol;
        let v = verdict(&sol, &l).expect("verdict");
        assert_eq!(v.kind, VerdictKind::ComputeBound);
        let b = v.bound_by.as_ref().expect("unit");
        assert_eq!((b.unit.as_str(), b.pct_of_peak), ("fp64", Some(87.9)));
        assert!(
            v.reason.ends_with("bound by fp64 pipe at 87.9% of peak"),
            "{}",
            v.reason
        );
    }

    #[test]
    fn memory_and_latency_units() {
        let sol = SpeedOfLight {
            sm_pct: Some(20.0),
            memory_pct: Some(91.0),
            dram_pct: Some(91.0),
            l2_pct: Some(50.0),
            l1_pct: Some(30.0),
            ..Default::default()
        };
        let b = bound_by(VerdictKind::MemoryBound, &sol, &[]);
        assert_eq!((b.unit.as_str(), b.pct_of_peak), ("dram", Some(91.0)));
        // The H200 sample's 4 GB copy: Memory Throughput is DRAM's, not the larger L2 figure.
        let copy = SpeedOfLight {
            memory_pct: Some(88.50),
            dram_pct: Some(88.50),
            l2_pct: Some(92.24),
            l1_pct: Some(29.10),
            ..Default::default()
        };
        assert_eq!(busiest_level(&copy).map(|b| b.unit), Some("dram".into()));
        // BERT's nvjet GEMM: Memory 46.62 % from shared-memory wavefronts, L1/TEX 60.76 %.
        let gemm = SpeedOfLight {
            memory_pct: Some(46.62),
            dram_pct: Some(11.73),
            l2_pct: Some(33.69),
            l1_pct: Some(60.76),
            ..Default::default()
        };
        assert_eq!(busiest_level(&gemm).map(|b| b.unit), Some("l1".into()));
        let lat = bound_by(VerdictKind::LatencyBound, &sol, &[]);
        assert_eq!(lat.unit, "latency");
        assert_eq!(lat.pct_of_peak, Some(91.0));
        let none = bound_by(VerdictKind::ComputeBound, &sol, &[]);
        assert_eq!((none.unit.as_str(), none.pct_of_peak), ("sm", Some(20.0)));
    }
}
