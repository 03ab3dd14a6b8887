//! Short explanations of every number the viewer shows: what it measures, which counters and
//! formula produced it, and the misreading it most often invites. Shown on hover (as the
//! element's title) and in the side panel when a number is clicked.
//!
//! The texts name counters through `shared::model::counters`, never by a name typed here: each `{}`
//! in a text is filled with the next entry of the explanation's `counters`.

use std::borrow::Cow;

use shared::model::counters::{self as c, Counter};

/// A counter named in an explanation's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Named {
    /// The full metric name: `dram__bytes_read.sum`.
    Metric(Counter),
    /// The name before its first dot: `gpu__time_duration`.
    Base(Counter),
    /// A family of counters, written as their common start and end around a `*`:
    /// `launch__occupancy_limit_*`.
    Family(&'static [Counter]),
}

impl Named {
    /// The text that stands for the counter.
    pub fn text(&self) -> Cow<'static, str> {
        match *self {
            Named::Metric(counter) => Cow::Borrowed(counter.name),
            Named::Base(counter) => {
                Cow::Borrowed(counter.name.split('.').next().unwrap_or(counter.name))
            }
            Named::Family(counters) => Cow::Owned(family(counters)),
        }
    }
}

/// The common start and end of `counters`' names around a `*`.
fn family(counters: &[Counter]) -> String {
    let mut names = counters.iter().map(|c| c.name.as_bytes());
    let Some(first) = names.next() else {
        return String::new();
    };
    let (mut start, mut end) = (first.len(), first.len());
    for name in names {
        start = first
            .iter()
            .zip(name)
            .take(start)
            .take_while(|(a, b)| a == b)
            .count();
        end = first
            .iter()
            .rev()
            .zip(name.iter().rev())
            .take(end)
            .take_while(|(a, b)| a == b)
            .count();
    }
    if start == first.len() && end == first.len() {
        // Every name is the same: it is the family.
        return String::from_utf8_lossy(first).into_owned();
    }
    // The end never overlaps the start (for names that are prefixes of each other).
    let end = end.min(first.len() - start);
    format!(
        "{}*{}",
        String::from_utf8_lossy(&first[..start]),
        String::from_utf8_lossy(&first[first.len() - end..])
    )
}

/// The counters of every FLOP formula, FP32, FP64 and FP16.
const FLOP_COUNTERS: &[Counter] = &[
    c::FADD,
    c::FMUL,
    c::FFMA,
    c::DADD,
    c::DMUL,
    c::DFMA,
    c::HADD,
    c::HMUL,
    c::HFMA,
];

/// The block limits of an occupancy.
const OCCUPANCY_LIMITS: &[Counter] = &[
    c::LIMIT_BLOCKS,
    c::LIMIT_REGISTERS,
    c::LIMIT_SHARED_MEM,
    c::LIMIT_WARPS,
    c::LIMIT_BARRIERS,
];

/// One explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Stable key, used in the page (`data-explain`) and in tests.
    pub key: &'static str,
    /// Heading.
    pub title: &'static str,
    /// What the number is; each `{}` is the next of `counters`.
    pub what: &'static str,
    /// Counters and formula behind it; its `{}` take the `counters` after those of `what`.
    pub formula: &'static str,
    /// The counters the texts name, in the order of their `{}`.
    pub counters: &'static [Named],
    /// The classic misreading, and why it is wrong.
    pub pitfall: &'static str,
}

impl Explanation {
    /// What the number is, with its counters' names filled in.
    pub fn what(&self) -> String {
        fill(self.what, self.counters)
    }

    /// Counters and formula, with the counters' names filled in.
    pub fn formula(&self) -> String {
        let used = self.what.matches("{}").count();
        fill(self.formula, self.counters.get(used..).unwrap_or_default())
    }

    /// The three parts as one paragraph, for a hover title.
    pub fn as_text(&self) -> String {
        format!(
            "{}\n\nHow: {}\n\nCareful: {}",
            self.what(),
            self.formula(),
            self.pitfall
        )
    }
}

/// `text` with each `{}` replaced by the next of `counters` (a `{}` without one stays).
fn fill(text: &str, counters: &[Named]) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    let mut names = counters.iter();
    let mut parts = text.split("{}");
    out.push_str(parts.next().unwrap_or_default());
    for part in parts {
        match names.next() {
            Some(n) => out.push_str(&n.text()),
            None => out.push_str("{}"),
        }
        out.push_str(part);
    }
    out
}

/// Every explanation, in the order the side panel lists them.
pub const ALL: &[Explanation] = &[
    Explanation {
        key: "time",
        title: "Time",
        what: "How long the kernel's launches took, summed over the launches in the row.",
        formula: "The median of CUDA-event-timed launches (after warm-ups) times the number of \
                  profiled launches. Without event timings (an imported export) it falls back \
                  to ncu's {}, and the row says so.",
        counters: &[Named::Metric(c::GPU_TIME_DURATION)],
        pitfall: "A duration measured under the profiler is a replay: caches were flushed \
                  between passes and the clocks were usually locked, so it is not the time \
                  the kernel takes in your program.",
    },
    Explanation {
        key: "event_time",
        title: "Event time",
        what: "Wall time of one launch between two CUDA events, in a plain run with no \
               profiler attached.",
        formula: "cudaEventElapsedTime over repeated launches after warm-ups; min, median \
                  and max of the samples.",
        counters: &[],
        pitfall: "The GPU runs at whatever clock it chose (often boost), and caches hold what \
                  the previous launch left, so it can be faster than the ncu duration.",
    },
    Explanation {
        key: "ncu_duration",
        title: "ncu duration",
        what: "{} of the profiled launch.",
        formula: "Read from the counters of the replayed launch; the cache control (flushed or \
                  warm) and clock control (base = locked, none = free) are shown beside it.",
        pitfall: "With --clock-control base the SM runs at its base clock (about 1.5 GHz on an \
                  H200 instead of about 2 GHz), so durations and ncu's own rates are not \
                  comparable with event-timed ones.",
        counters: &[Named::Base(c::GPU_TIME_DURATION)],
    },
    Explanation {
        key: "ask_bytes",
        title: "Asked bytes",
        what: "The global-memory bytes the kernel must move at least, counted by hand from \
               its source: every input read once, every output written once.",
        formula: "Declared by the kernel in capture's suite (its formula is shown), times the \
                  launches.",
        counters: &[],
        pitfall: "A hand count describes the algorithm, not the traffic: caches can serve \
                  repeated reads, and poor access patterns can move far more.",
    },
    Explanation {
        key: "l1_bytes",
        title: "L1/TEX bytes",
        what: "Bytes the L1/TEX cache handled for the kernel.",
        formula: "{}, else (global load + store sectors) x 32 bytes.",
        counters: &[Named::Metric(c::L1_BYTES)],
        pitfall: "Most of this traffic never leaves the SM; a large L1 figure is not a DRAM \
                  problem.",
    },
    Explanation {
        key: "l2_bytes",
        title: "L2 bytes",
        what: "Bytes that went through the L2 slices.",
        formula: "{}, else {} x 32 bytes.",
        counters: &[Named::Metric(c::L2_BYTES), Named::Metric(c::L2_SECTORS)],
        pitfall: "L2 is large on recent GPUs (60 MiB on an H200): a working set that fits is \
                  served from it and never reaches DRAM.",
    },
    Explanation {
        key: "dram_bytes",
        title: "DRAM bytes",
        what: "Bytes read from and written to device memory.",
        formula: "{} + {}, else ({} + {}) x 32 bytes.",
        counters: &[
            Named::Metric(c::DRAM_BYTES_READ),
            Named::Metric(c::DRAM_BYTES_WRITE),
            Named::Metric(c::DRAM_SECTORS_READ),
            Named::Metric(c::DRAM_SECTORS_WRITE),
        ],
        pitfall: "Counted with caches flushed before each pass by default; with warm caches \
                  the same kernel can read much less.",
    },
    Explanation {
        key: "dram_per_ask",
        title: "DRAM / ask",
        what: "Measured DRAM bytes over hand-counted bytes, printed to four decimals.",
        formula: "dram_bytes / ask_bytes.",
        counters: &[],
        pitfall: "A value like 0.003 is a real answer, not rounding noise: the caches served \
                  almost everything. Above 1 means extra traffic (uncoalesced access, \
                  re-reads that did not fit in cache).",
    },
    Explanation {
        key: "gbs",
        title: "DRAM GB/s",
        what: "Achieved DRAM bandwidth.",
        formula: "dram_bytes / time, in 10^9 bytes per second. The byte count comes from \
                  the counters and the time from events, so no locked-clock rate is mixed in.",
        counters: &[],
        pitfall: "This is not ncu's Memory Throughput percentage, and with bytes from a \
                  profiled cold-cache pass and time from a warm event run the two can \
                  disagree.",
    },
    Explanation {
        key: "pct_of_copy",
        title: "% of copy ceiling",
        what: "Achieved DRAM bandwidth as a share of the measured copy ceiling.",
        formula: "100 x GB/s / copy ceiling (a vectorized copy kernel timed with events).",
        counters: &[],
        pitfall: "Compare with the measured ceiling, not the spec sheet: streaming kernels \
                  top out near 90 % of theoretical bandwidth.",
    },
    Explanation {
        key: "flops",
        title: "FLOPs",
        what: "Floating-point operations counted by the hardware.",
        formula: "fadd + fmul + 2 x ffma ({}), and the d* and h* counterparts for FP64 and \
                  FP16. A fused multiply-add counts as two.",
        counters: &[Named::Family(FLOP_COUNTERS)],
        pitfall: "If some of these counters were not collected, the figure is a lower bound \
                  (shown with >=).",
    },
    Explanation {
        key: "gflops",
        title: "GFLOP/s",
        what: "Achieved floating-point rate.",
        formula: "flops / time, in 10^9 operations per second.",
        counters: &[],
        pitfall: "Low GFLOP/s is expected for memory-bound kernels: judge them by bandwidth, \
                  not by arithmetic.",
    },
    Explanation {
        key: "oi",
        title: "Operational intensity",
        what: "FLOPs per byte moved: the x position on the roofline.",
        formula: "flops / bytes, with the bytes of the level named on the point: asked (hand \
                  count), DRAM, L2 or L1.",
        counters: &[],
        pitfall: "The asked point and the DRAM point of one kernel differ exactly by what \
                  the caches did: a DRAM point far to the right means the caches served \
                  most of the asked bytes.",
    },
    Explanation {
        key: "ridge",
        title: "Ridge point",
        what: "The intensity where the bandwidth slope meets the compute ceiling.",
        formula: "peak GFLOP/s / peak GB/s, theoretical or measured.",
        counters: &[],
        pitfall: "Left of the ridge a kernel can only go faster by moving fewer bytes; \
                  faster arithmetic will not help it.",
    },
    Explanation {
        key: "peaks",
        title: "Theoretical peaks",
        what: "Upper bounds worked from device attributes.",
        formula: "FP32 = 2 x SMs x FP32 lanes per SM x SM clock; DRAM = 2 x memory clock x \
                  bus width / 8.",
        counters: &[],
        pitfall: "No kernel reaches them; the measured ceilings (copy, FMA) are the roofs a \
                  real kernel can approach.",
    },
    Explanation {
        key: "ceilings",
        title: "Measured ceilings",
        what: "The best a tuned kernel reached on this GPU, timed with events.",
        formula: "copy: a float4 copy kernel, bytes read plus written over time; FMA: \
                  independent FMA chains per thread, 2 FLOPs per FMA over time.",
        counters: &[],
        pitfall: "They are measurements, so a point can sit a hair above them; a point far \
                  above the theoretical roof is a counting error.",
    },
    Explanation {
        key: "sm_pct",
        title: "Compute (SM) Throughput",
        what: "The busiest SM pipeline or issue resource, as a percentage of its peak.",
        formula: "{} (details page: Compute (SM) Throughput).",
        counters: &[Named::Metric(c::SM_THROUGHPUT_PCT)],
        pitfall: "It measures the busiest unit, not FLOPs: integer or load/store work can \
                  make it high with no floating point at all.",
    },
    Explanation {
        key: "memory_pct",
        title: "Memory Throughput",
        what: "The busiest memory unit (L1/TEX, L2 or DRAM), as a percentage of that unit's \
               own peak.",
        formula: "{}.",
        counters: &[Named::Metric(c::MEMORY_THROUGHPUT_PCT)],
        pitfall: "Memory Throughput is not DRAM throughput. A cache-resident kernel can show \
                  60 % here while DRAM sits near 1 %; read the DRAM row for bandwidth.",
    },
    Explanation {
        key: "dram_pct",
        title: "DRAM Throughput",
        what: "DRAM activity as a percentage of its peak over the kernel's elapsed cycles.",
        formula: "{}.",
        counters: &[Named::Metric(c::DRAM_THROUGHPUT_PCT)],
        pitfall: "ncu computes it at the clocks of the profiled run (locked by default) and \
                  over the kernel's own cycles, so it will not equal GB/s over an event time \
                  divided by the spec bandwidth.",
    },
    Explanation {
        key: "verdict",
        title: "Verdict",
        what: "What the Speed-of-Light numbers say the kernel waits on.",
        formula: "compute-bound: SM >= 60 % and Memory < 60 %; memory-bound: the reverse; \
                  balanced: both >= 60 %; latency-bound: both below. The reason names the \
                  numbers.",
        counters: &[],
        pitfall: "memory-bound here means some memory unit is busy, which may be L1 rather \
                  than DRAM: fixing DRAM traffic of a kernel that saturates L1 buys nothing.",
    },
    Explanation {
        key: "sectors_per_request",
        title: "Sectors per request",
        what: "How many 32-byte sectors a warp's global load or store touched on average, \
               loads and stores together (the memory chart shows the same figure).",
        formula: "({} + {}) / ({} + {}). 4 is a fully coalesced warp of floats, 32 the worst \
                  case.",
        counters: &[
            Named::Metric(c::L1_SECTORS_GLOBAL_LD),
            Named::Metric(c::L1_SECTORS_GLOBAL_ST),
            Named::Metric(c::L1_REQUESTS_GLOBAL_LD),
            Named::Metric(c::L1_REQUESTS_GLOBAL_ST),
        ],
        pitfall: "The ratio alone does not give the cost: a kernel with the better ratio can \
                  still move many more sectors in total. Read it with the sector count.",
    },
    Explanation {
        key: "hit_rate",
        title: "Hit rates",
        what: "Share of sector lookups served by L1/TEX or by L2.",
        formula: "{} and {} (details page: L1/TEX Hit Rate, L2 Hit Rate).",
        counters: &[Named::Metric(c::L1_HIT_PCT), Named::Metric(c::L2_HIT_PCT)],
        pitfall: "A low L1 hit rate can be good news: when shared memory already absorbed \
                  the reuse, what reaches L1 is compulsory traffic.",
    },
    Explanation {
        key: "occupancy",
        title: "Occupancy",
        what: "Active warps per SM as a share of the maximum: theoretical from the launch \
               configuration and resources, achieved as measured.",
        formula: "{} (theoretical), {} (achieved); block limits from {}.",
        counters: &[
            Named::Metric(c::THEORETICAL_OCCUPANCY_PCT),
            Named::Metric(c::ACHIEVED_OCCUPANCY_PCT),
            Named::Family(OCCUPANCY_LIMITS),
        ],
        pitfall: "Occupancy only buys latency hiding. Past the point where latency is \
                  covered, more of it does not make a kernel faster.",
    },
    Explanation {
        key: "stalls",
        title: "Warp stalls",
        what: "Where the warps of a kernel waited instead of issuing: each reason's share of \
               the stalled warps, from ncu's warp-state counters ({}).",
        formula: "Each counter is the mean number of warps in that state per cycle in which \
                  an instruction issued, weighted by duration over launches; a share is one \
                  reason over the sum of all of them but selected (the warp that issued, as \
                  ncu counts it), so the shares add up to 1. Collected by --set full (Warp \
                  State Statistics) and by capture profile.",
        counters: &[Named::Family(c::STALLS)],
        pitfall: "Stalls are normal: a GPU hides them by switching warps. They explain a slow \
                  kernel only when too few warps are ready to cover them, so read them with \
                  occupancy, and read not selected as a sign of enough ready warps.",
    },
    Explanation {
        key: "waves",
        title: "Waves per SM",
        what: "How many times over the grid fills the GPU: blocks over (SMs x blocks per SM \
               the occupancy limits allow).",
        formula: "{}, else {} / (SMs x the smallest of {}).",
        counters: &[
            Named::Metric(c::WAVES_PER_SM),
            Named::Metric(c::GRID_SIZE),
            Named::Family(OCCUPANCY_LIMITS),
        ],
        pitfall: "Under 1 wave some SMs (or block slots) get no work at all; just over a \
                  whole number, the last wave runs on a nearly empty GPU. Many waves hide both.",
    },
    Explanation {
        key: "latency_reason",
        title: "Why latency-bound",
        what: "For a latency-bound kernel, why, in one line: its waves and what they left \
               empty, a launch as short as its overhead, and the largest stall reason.",
        formula: "Waves from {}; a launch under 5 us counts as short; the top stall is the \
                  largest share of the warp-state counters.",
        counters: &[Named::Metric(c::WAVES_PER_SM)],
        pitfall: "Latency-bound says neither roof is the limit, not that nothing can be done: \
                  more parallel work, fewer dependent waits or fused launches move it.",
    },
    Explanation {
        key: "analytic",
        title: "Analytic roofline",
        what: "A roofline drawn without hardware counters.",
        formula: "Event time with the hand-counted bytes and FLOPs of each kernel; no DRAM, \
                  L2 or L1 points.",
        counters: &[],
        pitfall: "Without counters the cache effect is invisible: a point above the \
                  bandwidth roof means caches served part of the asked bytes.",
    },
    Explanation {
        key: "above_roof",
        title: "Point above a roof",
        what: "A point that claims more than the hardware can do at its intensity.",
        formula: "GFLOP/s above min(peak, intensity x bandwidth) of the highest roof for its \
                  level, by more than 2 %.",
        counters: &[],
        pitfall: "It is a counting error, not a fast kernel: usually hand-counted bytes that \
                  caches served, or bytes and time taken from different runs.",
    },
];

/// The explanation with `key`, if there is one.
pub fn explain(key: &str) -> Option<&'static Explanation> {
    ALL.iter().find(|e| e.key == key)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_every_part_is_written() {
        for (i, e) in ALL.iter().enumerate() {
            assert!(
                ALL[i + 1..].iter().all(|o| o.key != e.key),
                "duplicate {}",
                e.key
            );
            assert!(!e.what.is_empty() && !e.formula.is_empty() && !e.pitfall.is_empty());
        }
    }

    #[test]
    fn the_classic_misreadings_are_covered() {
        let text = |k: &str| explain(k).map(|e| e.as_text()).unwrap_or_default();
        assert!(text("memory_pct").contains("not DRAM"));
        assert!(text("ncu_duration").contains("locked"));
        assert!(text("dram_per_ask").contains("0.003"));
        assert!(text("sectors_per_request").contains("sectors"));
        assert!(text("occupancy").contains("latency"));
        assert!(text("sectors_per_request").contains("loads and stores together"));
        assert!(text("stalls").contains("selected"));
        assert!(text("waves").contains("nearly empty"));
    }

    #[test]
    fn every_placeholder_has_its_counter() {
        for e in ALL {
            let holes = e.what.matches("{}").count() + e.formula.matches("{}").count();
            assert_eq!(holes, e.counters.len(), "{}", e.key);
            assert!(!e.as_text().contains("{}"), "{}", e.key);
        }
    }

    #[test]
    fn counters_are_named_from_the_catalog() {
        let formula = |k: &str| explain(k).map(|e| e.formula()).unwrap_or_default();
        assert_eq!(
            formula("memory_pct"),
            format!("{}.", c::MEMORY_THROUGHPUT_PCT.name)
        );
        let duration = explain("ncu_duration")
            .map(|e| e.what())
            .unwrap_or_default();
        let base = duration.trim_end_matches(" of the profiled launch.");
        assert!(!base.contains('.') && !base.is_empty(), "{duration}");
        assert!(c::GPU_TIME_DURATION.name.starts_with(&format!("{base}.")));
        for members in [FLOP_COUNTERS, OCCUPANCY_LIMITS, c::STALLS] {
            let text = family(members);
            let what = |k: &str| explain(k).map(|e| e.what()).unwrap_or_default();
            assert!(
                formula("flops").contains(&text)
                    || formula("occupancy").contains(&text)
                    || what("stalls").contains(&text),
                "{text}"
            );
            let (start, end) = text.split_once('*').unwrap_or_default();
            assert!(start.contains("__"), "{text}");
            assert!(members
                .iter()
                .all(|m| m.name.starts_with(start) && m.name.ends_with(end)));
        }
    }

    #[test]
    fn a_family_is_its_common_start_and_end() {
        let (read, write) = (c::DRAM_BYTES_READ, c::DRAM_BYTES_WRITE);
        let common = family(&[read, write]);
        assert_eq!(common.matches('*').count(), 1);
        assert_eq!(common.replace('*', "read"), read.name);
        assert_eq!(common.replace('*', "write"), write.name);
        // One name, or the same name twice, is that name.
        assert_eq!(family(&[read]), read.name);
        assert_eq!(family(&[read, read]), read.name);
        assert_eq!(family(&[]), "");
    }
}
