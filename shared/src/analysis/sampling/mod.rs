//! Sampled profiles: a whole application's counters at a fraction of ncu's replay cost.
//!
//! `capture profile` first runs a timing pass (one ncu pass of `gpu__time_duration.sum`,
//! caches and clocks left alone), which gives every launch's time, kernel, grid, block and
//! order ([`timing`]). The [`plan`] groups launches that are alike and picks the few to
//! profile; the profiling pass measures only those; [`scale`] gives every other launch the
//! counters of a measured launch of its group, scaled by their measured times. The
//! artifact says so ([`crate::model::artifact::Sampled`], each kernel's
//! [`crate::model::artifact::SampledCount`] and each copied launch's `sampled_from`), and
//! [`banner`] is the line every view of it shows.
//!
//! The cost model: ncu replays each profiled launch once per pass, and a pass costs about
//! the same whatever it collects ([`SECONDS_PER_PASS`]); so a profile costs passes x
//! launches x seconds per pass, and the planner cuts the launches while [`Depth`] cuts the
//! passes.

pub mod check;
pub mod from_trace;
pub mod plan;
pub mod scale;
pub mod timing;

use crate::analysis::work_vector;
use crate::model::artifact::{Artifact, Sampled};
use crate::model::counters::{self, Counter};

/// The plain wall of the BERT-base training step on the H200 (tests/fixtures/ncu-h200-train/
/// base12): the mean of its two warm plain runs, 19.681 s and 17.180 s.
const BASE12_PLAIN_S: f64 = (19.681 + 17.180) / 2.0;

/// Seconds one ncu replay pass of one launch cost on the H200 (ncu 2025.3.1, kernel replay,
/// caches flushed): `capture profile --all-launches --nvtx-include step/` of a BERT-base
/// (12 layers) bf16 training step took 307.9 s against 18.4 s run plainly, for 444 launches
/// of 25 passes: (307.9 - 18.4) / (444 x 25) = 0.026 s (tests/fixtures/ncu-h200-train/
/// base12; the 4-layer step of tests/fixtures/ncu-h200-train gave 0.027 s at 24 passes).
pub const SECONDS_PER_PASS: f64 = (307.862 - BASE12_PLAIN_S) / (444.0 * 25.0);

/// Seconds the timing pass cost per launch on the same step: 21.7 s against 18.4 s plain
/// for 444 launches of one pass.
pub const TIMING_SECONDS_PER_LAUNCH: f64 = (21.696 - BASE12_PLAIN_S) / 444.0;

/// How much `capture profile` collects per launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Depth {
    /// Time, bytes per level and FLOPs per precision and tensor type: the roofline.
    Roofline,
    /// Every view: also SOL %, the bound unit, occupancy, stalls, the details sections.
    Standard,
    /// Standard plus the rest of ncu's `--set full` sections.
    Full,
    /// The work vector only ([`crate::analysis::work_vector`]): time, instructions by
    /// class, requests, sectors, bytes, shared-memory traffic, FLOPs; no sections.
    Work,
}

/// Passes of a metric list: measured, or a bound where it was not measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Passes {
    /// What ncu printed ("N passes"), when measured.
    pub measured: Option<u32>,
    /// The figure the cost is predicted with: the measured one, else the bound.
    pub assumed: u32,
    /// Where the figure comes from, for the plan and `--help`.
    pub source: &'static str,
}

impl Depth {
    /// Every depth, smallest first.
    pub const ALL: [Depth; 4] = [Depth::Roofline, Depth::Work, Depth::Standard, Depth::Full];

    /// Its name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Depth::Roofline => "roofline",
            Depth::Standard => "standard",
            Depth::Full => "full",
            Depth::Work => "work",
        }
    }

    /// The counters asked for by name (`--metrics`). Roofline: the duration, DRAM, L2 and
    /// L1 bytes, the CUDA-core FLOP instructions, the clocks and the tensor counters;
    /// standard and full: everything the views read ([`counters::PROFILE`], the stall
    /// reasons and the tensor counters).
    pub fn metrics(self) -> Vec<Counter> {
        match self {
            Depth::Roofline => [
                counters::GPU_TIME_DURATION,
                counters::DRAM_BYTES_READ,
                counters::DRAM_BYTES_WRITE,
                counters::L2_BYTES,
                counters::L1_BYTES,
                counters::FADD,
                counters::FMUL,
                counters::FFMA,
                counters::DADD,
                counters::DMUL,
                counters::DFMA,
                counters::HADD,
                counters::HMUL,
                counters::HFMA,
                counters::SM_HZ,
                counters::DRAM_HZ,
            ]
            .into_iter()
            .chain(counters::TENSOR.iter().copied())
            .collect(),
            Depth::Standard | Depth::Full => counters::PROFILE
                .iter()
                .chain(counters::STALLS)
                .chain(counters::TENSOR)
                .copied()
                .collect(),
            Depth::Work => {
                let mut out = vec![counters::GPU_TIME_DURATION];
                let vector = work_vector::counters().into_iter();
                let beyond = work_vector::beyond_full_set().iter().copied();
                for c in vector.chain(beyond).chain(counters::TENSOR.iter().copied()) {
                    if !out.contains(&c) {
                        out.push(c);
                    }
                }
                out
            }
        }
    }

    /// The replay passes ncu needs for this depth on the H200 (ncu 2025.3.1).
    pub fn passes(self) -> Passes {
        match self {
            Depth::Roofline => Passes {
                measured: Some(10),
                assumed: 10,
                source: "measured: 10 passes per launch, H200, ncu 2025.3.1",
            },
            Depth::Standard => Passes {
                measured: Some(25),
                assumed: 25,
                source: "measured: 25 passes per launch, H200, ncu 2025.3.1",
            },
            Depth::Full => Passes {
                measured: Some(36),
                assumed: 36,
                source: "measured: 36 passes per launch, H200, ncu 2025.3.1",
            },
            Depth::Work => Passes {
                measured: Some(10),
                assumed: 10,
                source: "measured: 10 passes per launch, H200, ncu 2025.3.1 (the suite, the \
                         corpus programs and a BERT training step, 2026-12-04)",
            },
        }
    }
}

/// Passes of the timing pass: one (measured: `- 1 pass` for each of 172 launches).
pub const TIMING_PASSES: u32 = 1;

/// Marks an artifact built from a sampled profile: `sampled` with the launches measured of
/// all, and each kernel's own counts (launches with `sampled_from` are copies).
pub fn label(artifact: &mut Artifact, groups: usize, timing_launches: usize) {
    let mut measured = 0u64;
    let mut launches = 0u64;
    for k in &mut artifact.kernels {
        let Some(counted) = k.counted_sampled() else {
            continue;
        };
        measured += counted.measured;
        launches += counted.launches;
        k.sampled = Some(Box::new(counted));
    }
    artifact.sampled = Some(Sampled {
        measured,
        launches,
        groups: groups as u64,
        timing_launches: timing_launches as u64,
    });
}

/// "sampled: N of M launches", for a table's header; `None` for an artifact not sampled.
pub fn summary(artifact: &Artifact) -> Option<String> {
    artifact
        .sampled
        .as_ref()
        .map(|s| format!("sampled: {} of {} launches", s.measured, s.launches))
}

/// How [`banner`]'s warning begins (the viewer, which says it in its own line, leaves the
/// artifact's copy out).
pub const BANNER_START: &str = "Sampled profile: ";

/// The warning every view of a sampled artifact shows; `None` when it is not sampled or
/// when every launch was measured (nothing was estimated).
pub fn banner(artifact: &Artifact) -> Option<String> {
    let s = artifact
        .sampled
        .as_ref()
        .filter(|s| s.measured < s.launches)?;
    Some(format!(
        "{BANNER_START}counters were measured on {} of {} launches ({} groups of alike \
         launches); every other launch carries the counters of a measured launch of its \
         group (or, for the tail of a bigger grid, of that grid), scaled by their times (by \
         their blocks for a tail). Times come from a timing pass of every launch. Bytes, \
         FLOPs and the figures derived from them are estimates; profile with --all-launches \
         to measure every launch.",
        s.measured, s.launches, s.groups
    ))
}
