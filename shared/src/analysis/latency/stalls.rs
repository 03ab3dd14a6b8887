//! The stall breakdown: what a kernel's warps waited on, from ncu's warp-state counters
//! ([`crate::model::counters::STALLS`]), and every reason explained for people, held as data.
//!
//! Each counter is the mean number of warps in one state per cycle in which the scheduler
//! issued; the reasons together sum to ncu's "warp cycles per issued instruction". One of
//! them, `selected`, is the issuing warp itself (exactly 1 per issue), so, as ncu's Warp
//! State Statistics do, it is not a stall: the shares here are each reason's part of the
//! other reasons' sum, and they add up to 1. `not_selected` (a ready warp that lost the
//! scheduler's pick) stays a reason: the warp did not issue, and a large share of it says
//! the kernel has more ready warps than issue slots, which its explanation spells out.

use std::collections::BTreeMap;

use crate::analysis::metrics;
use crate::model::artifact::LaunchCounters;
use crate::model::counters::{self as c, Counter};

/// One warp state of ncu's breakdown, explained.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StallReason {
    /// Key in the table JSON's `stalls` object: the counter's reason (`long_scoreboard`).
    pub key: &'static str,
    /// The warp-state counter.
    pub counter: Counter,
    /// The name in plain words (`long scoreboard`).
    pub name: &'static str,
    /// What the warp waits on.
    pub waits_on: &'static str,
    /// What usually causes a large share of it.
    pub causes: &'static str,
    /// What usually helps.
    pub helps: &'static str,
}

impl StallReason {
    /// Whether the state is a stall: every state but `selected`, the warp that issued.
    pub fn is_stall(&self) -> bool {
        self.counter != c::STALL_SELECTED
    }
}

/// Every warp state of [`c::STALLS`], in its order, each explained once.
pub const REASONS: &[StallReason] = &[
    StallReason {
        key: "barrier",
        counter: c::STALL_BARRIER,
        name: "barrier",
        waits_on: "a block-wide barrier (__syncthreads or a named barrier), for the other \
                   warps of the block to arrive",
        causes: "uneven work between the warps of a block: some reach the barrier long before \
                 the rest (divergent paths, a remainder loop, one warp loading for all)",
        helps: "even out the work per warp, do independent work before the barrier, or use \
                smaller blocks so fewer warps wait on the slowest",
    },
    StallReason {
        key: "branch_resolving",
        counter: c::STALL_BRANCH_RESOLVING,
        name: "branch resolving",
        waits_on: "a branch target to be computed and the warp's program counter updated",
        causes: "many branches, or control flow that diverges within warps",
        helps: "fewer branches: conditions uniform across a warp, predication, unrolled loops",
    },
    StallReason {
        key: "dispatch_stall",
        counter: c::STALL_DISPATCH_STALL,
        name: "dispatch stall",
        waits_on: "the dispatcher, which held back a selected instruction because of a \
                   pipeline interlock",
        causes: "conflicts in the dispatch stage; rarely large",
        helps: "little in the source; when large, look at the SASS for back-to-back \
                instructions that compete for one pipe",
    },
    StallReason {
        key: "drain",
        counter: c::STALL_DRAIN,
        name: "drain",
        waits_on: "its outstanding memory stores to finish after EXIT, before its slot is freed",
        causes: "many stores at the very end of the kernel, typical of a short kernel that \
                 mostly writes",
        helps: "give each thread more work so the exit is paid less often",
    },
    StallReason {
        key: "gmma",
        counter: c::STALL_GMMA,
        name: "GMMA (warpgroup MMA)",
        waits_on: "warpgroup MMA (wgmma) instructions on Hopper: their operands, resources or \
                   results",
        causes: "the ordinary state of a Hopper tensor-core GEMM: warps wait while the tensor \
                 cores work",
        helps: "keep the tensor cores fed (more pipeline stages of asynchronous loads, TMA); \
                when tensor throughput is already high it is the compute case",
    },
    StallReason {
        key: "imc_miss",
        counter: c::STALL_IMC_MISS,
        name: "constant cache miss",
        waits_on: "an immediate-constant cache miss: a kernel parameter or __constant__ value \
                   not in the cache",
        causes: "first touches of constants, or the threads of a warp reading different \
                 constant addresses",
        helps: "read constants uniformly across a warp; keep per-thread tables in global or \
                shared memory, not __constant__",
    },
    StallReason {
        key: "lg_throttle",
        counter: c::STALL_LG_THROTTLE,
        name: "local/global throttle",
        waits_on: "room in the local/global memory instruction queue",
        causes: "too many memory instructions in flight: many narrow loads or stores, or \
                 register spills to local memory",
        helps: "fewer, wider memory instructions (float4 loads), fewer spills, more \
                arithmetic per load",
    },
    StallReason {
        key: "long_scoreboard",
        counter: c::STALL_LONG_SCOREBOARD,
        name: "long scoreboard",
        waits_on: "a result from L1TEX: global, local, surface or texture memory",
        causes: "memory latency: loaded values needed soon after the load, little reuse, \
                 cache misses",
        helps: "more loads in flight (unrolling, prefetching, asynchronous copies), better \
                reuse (shared-memory tiles, caching), coalesced accesses, more warps to hide \
                the wait",
    },
    StallReason {
        key: "math_pipe_throttle",
        counter: c::STALL_MATH_PIPE_THROTTLE,
        name: "math pipe throttle",
        waits_on: "a busy math pipe (FMA, ALU, FP64, tensor, ...)",
        causes: "the compute case: more work for one pipe than it can take",
        helps: "nothing when that pipe is near its peak; otherwise spread the work over other \
                pipes or use a faster one (tensor cores, lower precision)",
    },
    StallReason {
        key: "membar",
        counter: c::STALL_MEMBAR,
        name: "memory barrier",
        waits_on: "a memory fence (__threadfence, a fenced atomic), for earlier memory \
                   operations to become visible",
        causes: "fences in a loop, or a wider scope than needed (system instead of device)",
        helps: "fewer fences, the narrowest correct scope, release/acquire operations instead \
                of full fences",
    },
    StallReason {
        key: "mio_throttle",
        counter: c::STALL_MIO_THROTTLE,
        name: "MIO throttle",
        waits_on: "room in the MIO queue, which takes shared-memory, special-math and some \
                   control instructions",
        causes: "heavy shared-memory traffic (often bank conflicts), many special functions \
                 (exp, sin, rsqrt)",
        helps: "fewer, wider shared-memory accesses, padding against bank conflicts, fewer \
                special functions",
    },
    StallReason {
        key: "misc",
        counter: c::STALL_MISC,
        name: "miscellaneous",
        waits_on: "a hardware reason ncu does not name",
        causes: "a mix of minor hardware events; rarely large",
        helps: "read the other reasons first",
    },
    StallReason {
        key: "no_instruction",
        counter: c::STALL_NO_INSTRUCTION,
        name: "no instruction",
        waits_on: "its next instruction to be fetched",
        causes: "instruction cache misses (much unrolled or inlined code), jumps, or the first \
                 instructions of a very short kernel",
        helps: "smaller code, fewer branches; for tiny kernels, fusing them so the fetch is \
                paid once",
    },
    StallReason {
        key: "not_selected",
        counter: c::STALL_NOT_SELECTED,
        name: "not selected",
        waits_on: "nothing: it was ready, but the scheduler picked another warp that cycle",
        causes: "more ready warps than the scheduler can issue; not a latency problem",
        helps: "nothing needed; the kernel would keep its speed at a lower occupancy",
    },
    StallReason {
        key: "selected",
        counter: c::STALL_SELECTED,
        name: "selected",
        waits_on: "nothing: it issued (ncu counts the issuing warp as a state of its own, one \
                   per issued instruction)",
        causes: "not a stall",
        helps: "not counted in the stall shares",
    },
    StallReason {
        key: "short_scoreboard",
        counter: c::STALL_SHORT_SCOREBOARD,
        name: "short scoreboard",
        waits_on: "a result from the MIO unit: shared memory or special math",
        causes: "shared-memory loads used right away, bank conflicts, special functions on \
                 the critical path",
        helps: "use shared-memory values later (software pipelining), remove bank conflicts, \
                fewer or faster special functions",
    },
    StallReason {
        key: "sleeping",
        counter: c::STALL_SLEEPING,
        name: "sleeping",
        waits_on: "its threads, all asleep (nanosleep), yielded or waiting at a warp-level \
                   barrier",
        causes: "spin-waits with back-off, or diverged threads of a warp waiting on each other",
        helps: "avoid busy waiting; restructure so threads of a warp do not wait on each other",
    },
    StallReason {
        key: "tex_throttle",
        counter: c::STALL_TEX_THROTTLE,
        name: "texture throttle",
        waits_on: "room in the texture unit's queue",
        causes: "many texture or surface fetches",
        helps: "fewer fetches, more arithmetic per fetch, plain global loads where texture \
                caching is not needed",
    },
    StallReason {
        key: "wait",
        counter: c::STALL_WAIT,
        name: "wait",
        waits_on: "a fixed-latency dependency: the result of an arithmetic instruction a few \
                   cycles earlier",
        causes: "chains of dependent arithmetic with little independent work (low \
                 instruction-level parallelism), and few warps to switch to",
        helps: "more independent instructions per thread (several accumulators, unrolling), \
                or more warps per SM",
    },
];

/// The explained reason with `key` (`long_scoreboard`), if there is one.
pub fn reason(key: &str) -> Option<&'static StallReason> {
    REASONS.iter().find(|r| r.key == key)
}

/// The name in plain words of a stall reason of the per-instruction samples (the Source
/// page's, [`crate::read::source::stall_reason`]: `long_scoreboard`, `no_instructions`,
/// `warpgroup_arrive`), as the warp-state breakdown names it ([`REASONS`]), so that the
/// Occupancy and Source pages call one state by one name. The sampler's two reasons the
/// breakdown names otherwise get words here; anything else is shown as it is.
pub fn sampled_name(reason: &str) -> &str {
    match reason {
        "no_instructions" => reason_name("no_instruction").unwrap_or(reason),
        "warpgroup_arrive" => "warpgroup arrive (GMMA)",
        _ => reason_name(reason).unwrap_or(reason),
    }
}

fn reason_name(key: &str) -> Option<&'static str> {
    reason(key).map(|r| r.name)
}

/// One reason's part of a kernel's stalls.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StallShare {
    /// The reason.
    pub reason: &'static StallReason,
    /// Warps in this state per issue-active cycle (the counter, duration-weighted over
    /// launches).
    pub warps_per_issue: f64,
    /// Its share of the stalled warps (0 to 1; the shares of a breakdown sum to 1).
    pub share: f64,
}

/// What a kernel's warps waited on.
#[derive(Clone, Debug, PartialEq)]
pub struct StallBreakdown {
    /// Every stall reason the export carries (never `selected`), largest share first; ties
    /// keep the order of [`REASONS`].
    pub shares: Vec<StallShare>,
    /// Stalled warps per issue-active cycle, all reasons together: ncu's warp cycles per
    /// issued instruction without the issuing warp.
    pub stalled_per_issue: f64,
}

impl StallBreakdown {
    /// The largest reason.
    pub fn top(&self) -> Option<&StallShare> {
        self.shares.first()
    }

    /// The share of the reason with `key`, when the export carries it.
    pub fn share_of(&self, key: &str) -> Option<f64> {
        self.shares
            .iter()
            .find(|s| s.reason.key == key)
            .map(|s| s.share)
    }

    /// The shares as the stall chart draws them, labelled `label`.
    pub fn series(&self, label: &str) -> crate::chart::StallSeries {
        crate::chart::StallSeries {
            label: label.to_string(),
            bars: self
                .shares
                .iter()
                .map(|s| (s.reason.key.to_string(), s.reason.name.to_string(), s.share))
                .collect(),
        }
    }

    /// The shares by reason key, as the table JSON's `stalls` object has them.
    pub fn share_map(&self) -> BTreeMap<String, f64> {
        crate::order::map_of(
            self.shares
                .iter()
                .map(|s| (s.reason.key.to_string(), s.share)),
        )
    }
}

/// The stall breakdown of a kernel's launches: each reason of [`REASONS`] but `selected`
/// from its counter, weighted by the launches' durations (`gpu__time_duration.sum`; equal
/// weights without durations), over the launches that carry it, then as a share of the
/// reasons' sum. `None` when no launch carries any stall counter, or every one reads 0.
pub fn stall_breakdown(launches: &[LaunchCounters]) -> Option<StallBreakdown> {
    let stalls: Vec<&'static StallReason> = REASONS.iter().filter(|r| r.is_stall()).collect();
    // Per reason, the weighted sum and the weights of the launches that carry it; each
    // launch's weight is read once (a whole application has tens of thousands of launches).
    let mut sums = vec![(0.0, 0.0); stalls.len()];
    for l in launches {
        let weight = metrics::duration_ns(l).filter(|d| *d > 0.0).unwrap_or(1.0);
        for (reason, (num, den)) in stalls.iter().zip(&mut sums) {
            if let Some(v) = metrics::metric(l, reason.counter) {
                *num += v * weight;
                *den += weight;
            }
        }
    }
    let found: Vec<(&'static StallReason, f64)> = stalls
        .into_iter()
        .zip(sums)
        .filter(|(_, (_, den))| *den > 0.0)
        .map(|(reason, (num, den))| (reason, num / den))
        .collect();
    let total: f64 = found.iter().map(|(_, v)| v).sum();
    if found.is_empty() || total <= 0.0 {
        return None;
    }
    let mut shares: Vec<StallShare> = found
        .into_iter()
        .map(|(reason, v)| StallShare {
            reason,
            warps_per_issue: v,
            share: v / total,
        })
        .collect();
    crate::order::sort_by(&mut shares, |a, b| b.share.total_cmp(&a.share));
    Some(StallBreakdown {
        shares,
        stalled_per_issue: total,
    })
}

#[cfg(test)]
mod tests {
    use crate::model::counters::SOURCE_STALLS;
    use crate::read::source::stall_reason;

    #[test]
    fn every_sampled_stall_reason_has_the_occupancy_pages_name() {
        for counter in SOURCE_STALLS {
            let raw = stall_reason(counter);
            let name = sampled_name(raw);
            assert!(
                REASONS.iter().any(|r| r.name == name) || raw == "warpgroup_arrive",
                "{raw} -> {name}"
            );
        }
        assert_eq!(sampled_name("gmma"), "GMMA (warpgroup MMA)");
        assert_eq!(sampled_name("long_scoreboard"), "long scoreboard");
        assert_eq!(
            sampled_name("no_instructions"),
            reason_name("no_instruction").unwrap_or_default()
        );
        assert_eq!(sampled_name("not_a_reason"), "not_a_reason");
    }

    use super::*;

    fn launch(values: &[(Counter, f64)]) -> LaunchCounters {
        let named: Vec<(&str, f64)> = values.iter().map(|(c, v)| (c.name, *v)).collect();
        LaunchCounters::from_numbers("k", &named)
    }

    #[test]
    fn one_entry_per_counter_each_written() {
        assert_eq!(REASONS.len(), c::STALLS.len());
        for (r, counter) in REASONS.iter().zip(c::STALLS) {
            assert_eq!(r.counter, *counter);
            assert!(
                counter.name.contains(&format!("_stalled_{}_per_", r.key)),
                "{} for {}",
                r.key,
                counter.name
            );
            for text in [r.name, r.waits_on, r.causes, r.helps] {
                assert!(!text.is_empty() && !text.ends_with('.'), "{}", r.key);
            }
        }
        assert_eq!(REASONS.iter().filter(|r| !r.is_stall()).count(), 1);
        assert_eq!(reason("wait").map(|r| r.name), Some("wait"));
        assert_eq!(reason("selected").map(StallReason::is_stall), Some(false));
    }

    #[test]
    fn shares_leave_out_the_issuing_warp_and_sum_to_one() {
        // The bf16 GEMM of tests/fixtures/ncu-h200-gemms (nvjet_sm90_tst_192x128...), as
        // its export prints the counters.
        let l = launch(&[
            (c::STALL_BARRIER, 1.64),
            (c::STALL_GMMA, 2.77),
            (c::STALL_LONG_SCOREBOARD, 3.11),
            (c::STALL_WAIT, 1.68),
            (c::STALL_MIO_THROTTLE, 1.25),
            (c::STALL_SELECTED, 1.0),
            (c::STALL_TEX_THROTTLE, 0.0),
        ]);
        let b = stall_breakdown(&[l]).expect("stalls");
        let total = 1.64 + 2.77 + 3.11 + 1.68 + 1.25;
        assert!((b.stalled_per_issue - total).abs() < 1e-12);
        let sum: f64 = b.shares.iter().map(|s| s.share).sum();
        assert!((sum - 1.0).abs() < 1e-12, "{sum}");
        assert_eq!(b.top().map(|s| s.reason.key), Some("long_scoreboard"));
        assert_eq!(b.share_of("selected"), None);
        assert_eq!(b.share_of("tex_throttle"), Some(0.0));
        assert_eq!(b.share_map().len(), 6);
        let keys: Vec<&str> = b.shares.iter().map(|s| s.reason.key).collect();
        assert_eq!(
            keys,
            [
                "long_scoreboard",
                "gmma",
                "wait",
                "barrier",
                "mio_throttle",
                "tex_throttle"
            ]
        );
    }

    #[test]
    fn launches_are_weighted_by_duration_and_nothing_is_none() {
        let a = launch(&[
            (c::STALL_WAIT, 4.0),
            (c::STALL_BARRIER, 0.0),
            (c::GPU_TIME_DURATION, 3_000.0),
        ]);
        let b = launch(&[
            (c::STALL_WAIT, 0.0),
            (c::STALL_BARRIER, 4.0),
            (c::GPU_TIME_DURATION, 1_000.0),
        ]);
        let s = stall_breakdown(&[a, b]).expect("stalls");
        assert_eq!(s.share_of("wait"), Some(0.75));
        assert_eq!(s.share_of("barrier"), Some(0.25));
        assert_eq!(
            stall_breakdown(&[launch(&[(c::STALL_SELECTED, 1.0)])]),
            None
        );
        assert_eq!(stall_breakdown(&[launch(&[(c::STALL_WAIT, 0.0)])]), None);
        assert_eq!(stall_breakdown(&[]), None);
    }
}
