//! Short explanations of every number the viewer shows: what it measures, which counters and
//! formula produced it, and the misreading it most often invites. Shown on hover (as the
//! element's title) and in the side panel when a number is clicked.

/// One explanation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Explanation {
    /// Stable key, used in the page (`data-explain`) and in tests.
    pub key: &'static str,
    /// Heading.
    pub title: &'static str,
    /// What the number is.
    pub what: &'static str,
    /// Counters and formula behind it.
    pub formula: &'static str,
    /// The classic misreading, and why it is wrong.
    pub pitfall: &'static str,
}

impl Explanation {
    /// The three parts as one paragraph, for a hover title.
    pub fn as_text(&self) -> String {
        format!(
            "{}\n\nHow: {}\n\nCareful: {}",
            self.what, self.formula, self.pitfall
        )
    }
}

/// Every explanation, in the order the side panel lists them.
pub const ALL: &[Explanation] = &[
    Explanation {
        key: "time",
        title: "Time",
        what: "How long the kernel's launches took, summed over the launches in the row.",
        formula: "The median of CUDA-event-timed launches (after warm-ups) times the number of \
                  profiled launches. Without event timings (an imported export) it falls back \
                  to ncu's gpu__time_duration.sum, and the row says so.",
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
        pitfall: "The GPU runs at whatever clock it chose (often boost), and caches hold what \
                  the previous launch left, so it can be faster than the ncu duration.",
    },
    Explanation {
        key: "ncu_duration",
        title: "ncu duration",
        what: "gpu__time_duration of the profiled launch.",
        formula: "Read from the counters of the replayed launch; the cache control (flushed or \
                  warm) and clock control (base = locked, none = free) are shown beside it.",
        pitfall: "With --clock-control base the SM runs at its base clock (about 1.5 GHz on an \
                  H200 instead of about 2 GHz), so durations and ncu's own rates are not \
                  comparable with event-timed ones.",
    },
    Explanation {
        key: "ask_bytes",
        title: "Asked bytes",
        what: "The global-memory bytes the kernel must move at least, counted by hand from \
               its source: every input read once, every output written once.",
        formula: "Declared by the kernel in capture's suite (its formula is shown), times the \
                  launches.",
        pitfall: "A hand count describes the algorithm, not the traffic: caches can serve \
                  repeated reads, and poor access patterns can move far more.",
    },
    Explanation {
        key: "l1_bytes",
        title: "L1/TEX bytes",
        what: "Bytes the L1/TEX cache handled for the kernel.",
        formula: "l1tex__t_bytes.sum, else (global load + store sectors) x 32 bytes.",
        pitfall: "Most of this traffic never leaves the SM; a large L1 figure is not a DRAM \
                  problem.",
    },
    Explanation {
        key: "l2_bytes",
        title: "L2 bytes",
        what: "Bytes that went through the L2 slices.",
        formula: "lts__t_bytes.sum, else lts__t_sectors.sum x 32 bytes.",
        pitfall: "L2 is large on recent GPUs (60 MiB on an H200): a working set that fits is \
                  served from it and never reaches DRAM.",
    },
    Explanation {
        key: "dram_bytes",
        title: "DRAM bytes",
        what: "Bytes read from and written to device memory.",
        formula: "dram__bytes_read.sum + dram__bytes_write.sum, else (dram__sectors_read.sum + \
                  dram__sectors_write.sum) x 32 bytes.",
        pitfall: "Counted with caches flushed before each pass by default; with warm caches \
                  the same kernel can read much less.",
    },
    Explanation {
        key: "dram_per_ask",
        title: "DRAM / ask",
        what: "Measured DRAM bytes over hand-counted bytes, printed to four decimals.",
        formula: "dram_bytes / ask_bytes.",
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
        pitfall: "This is not ncu's Memory Throughput percentage, and with bytes from a \
                  profiled cold-cache pass and time from a warm event run the two can \
                  disagree.",
    },
    Explanation {
        key: "pct_of_copy",
        title: "% of copy ceiling",
        what: "Achieved DRAM bandwidth as a share of the measured copy ceiling.",
        formula: "100 x GB/s / copy ceiling (a vectorized copy kernel timed with events).",
        pitfall: "Compare with the measured ceiling, not the spec sheet: streaming kernels \
                  top out near 90 % of theoretical bandwidth.",
    },
    Explanation {
        key: "flops",
        title: "FLOPs",
        what: "Floating-point operations counted by the hardware.",
        formula: "fadd + fmul + 2 x ffma (smsp__sass_thread_inst_executed_op_*_pred_on.sum), \
                  and the d* and h* counterparts for FP64 and FP16. A fused multiply-add \
                  counts as two.",
        pitfall: "If some of these counters were not collected, the figure is a lower bound \
                  (shown with >=).",
    },
    Explanation {
        key: "gflops",
        title: "GFLOP/s",
        what: "Achieved floating-point rate.",
        formula: "flops / time, in 10^9 operations per second.",
        pitfall: "Low GFLOP/s is expected for memory-bound kernels: judge them by bandwidth, \
                  not by arithmetic.",
    },
    Explanation {
        key: "oi",
        title: "Operational intensity",
        what: "FLOPs per byte moved: the x position on the roofline.",
        formula: "flops / bytes, with the bytes of the level named on the point: asked (hand \
                  count), DRAM, L2 or L1.",
        pitfall: "The asked point and the DRAM point of one kernel differ exactly by what \
                  the caches did: a DRAM point far to the right means the caches served \
                  most of the asked bytes.",
    },
    Explanation {
        key: "ridge",
        title: "Ridge point",
        what: "The intensity where the bandwidth slope meets the compute ceiling.",
        formula: "peak GFLOP/s / peak GB/s, theoretical or measured.",
        pitfall: "Left of the ridge a kernel can only go faster by moving fewer bytes; \
                  faster arithmetic will not help it.",
    },
    Explanation {
        key: "peaks",
        title: "Theoretical peaks",
        what: "Upper bounds worked from device attributes.",
        formula: "FP32 = 2 x SMs x FP32 lanes per SM x SM clock; DRAM = 2 x memory clock x \
                  bus width / 8.",
        pitfall: "No kernel reaches them; the measured ceilings (copy, FMA) are the roofs a \
                  real kernel can approach.",
    },
    Explanation {
        key: "ceilings",
        title: "Measured ceilings",
        what: "The best a tuned kernel reached on this GPU, timed with events.",
        formula: "copy: a float4 copy kernel, bytes read plus written over time; FMA: \
                  independent FMA chains per thread, 2 FLOPs per FMA over time.",
        pitfall: "They are measurements, so a point can sit a hair above them; a point far \
                  above the theoretical roof is a counting error.",
    },
    Explanation {
        key: "sm_pct",
        title: "Compute (SM) Throughput",
        what: "The busiest SM pipeline or issue resource, as a percentage of its peak.",
        formula: "sm__throughput.avg.pct_of_peak_sustained_elapsed (details page: Compute \
                  (SM) Throughput).",
        pitfall: "It measures the busiest unit, not FLOPs: integer or load/store work can \
                  make it high with no floating point at all.",
    },
    Explanation {
        key: "memory_pct",
        title: "Memory Throughput",
        what: "The busiest memory unit (L1/TEX, L2 or DRAM), as a percentage of that unit's \
               own peak.",
        formula: "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed.",
        pitfall: "Memory Throughput is not DRAM throughput. A cache-resident kernel can show \
                  60 % here while DRAM sits near 1 %; read the DRAM row for bandwidth.",
    },
    Explanation {
        key: "dram_pct",
        title: "DRAM Throughput",
        what: "DRAM activity as a percentage of its peak over the kernel's elapsed cycles.",
        formula: "dram__throughput.avg.pct_of_peak_sustained_elapsed.",
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
        pitfall: "memory-bound here means some memory unit is busy, which may be L1 rather \
                  than DRAM: fixing DRAM traffic of a kernel that saturates L1 buys nothing.",
    },
    Explanation {
        key: "sectors_per_request",
        title: "Sectors per request",
        what: "How many 32-byte sectors a warp's global load touched on average.",
        formula: "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum / \
                  l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum. 4 is a fully coalesced \
                  warp of floats, 32 the worst case.",
        pitfall: "The ratio alone does not give the cost: a kernel with the better ratio can \
                  still move many more sectors in total. Read it with the sector count.",
    },
    Explanation {
        key: "hit_rate",
        title: "Hit rates",
        what: "Share of sector lookups served by L1/TEX or by L2.",
        formula: "l1tex__t_sector_hit_rate.pct and lts__t_sector_hit_rate.pct (details page: \
                  L1/TEX Hit Rate, L2 Hit Rate).",
        pitfall: "A low L1 hit rate can be good news: when shared memory already absorbed \
                  the reuse, what reaches L1 is compulsory traffic.",
    },
    Explanation {
        key: "occupancy",
        title: "Occupancy",
        what: "Active warps per SM as a share of the maximum: theoretical from the launch \
               configuration and resources, achieved as measured.",
        formula: "sm__maximum_warps_per_active_cycle_pct (theoretical), \
                  sm__warps_active.avg.pct_of_peak_sustained_active (achieved); block limits \
                  from launch__occupancy_limit_*.",
        pitfall: "Occupancy only buys latency hiding. Past the point where latency is \
                  covered, more of it does not make a kernel faster.",
    },
    Explanation {
        key: "analytic",
        title: "Analytic roofline",
        what: "A roofline drawn without hardware counters.",
        formula: "Event time with the hand-counted bytes and FLOPs of each kernel; no DRAM, \
                  L2 or L1 points.",
        pitfall: "Without counters the cache effect is invisible: a point above the \
                  bandwidth roof means caches served part of the asked bytes.",
    },
    Explanation {
        key: "above_roof",
        title: "Point above a roof",
        what: "A point that claims more than the hardware can do at its intensity.",
        formula: "GFLOP/s above min(peak, intensity x bandwidth) of the highest roof for its \
                  level, by more than 2 %.",
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
    }
}
