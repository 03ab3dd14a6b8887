//! Mystery kernels: a few kernels of a run shown only by a label (A, B, C) and their report
//! figures, until the learner commits a diagnosis, what bounds the kernel and the one change
//! that would help most; then their names, source file and the verdict the counters give,
//! with the change those counters point to.

use crate::analysis::figures::KernelFigures;
use crate::analysis::metrics::VerdictKind;
use crate::model::artifact::{Artifact, KernelRecord};

use super::evidence::{Evidence, WASTE_RATIO};
use super::figure::Figure;

/// How many mystery kernels a run offers by default.
pub const COUNT: usize = 3;

/// The rows a mystery card shows before the reveal: a report without names or sources.
pub const REPORT: [Figure; 20] = [
    Figure::GridBlocks,
    Figure::BlockThreads,
    Figure::NcuMs,
    Figure::SmPct,
    Figure::MemoryPct,
    Figure::DramPct,
    Figure::L1Pct,
    Figure::L2Pct,
    Figure::L1HitPct,
    Figure::L2HitPct,
    Figure::SectorsPerRequest,
    Figure::TheoreticalOccupancyPct,
    Figure::AchievedOccupancyPct,
    Figure::RegistersPerThread,
    Figure::AskBytes,
    Figure::DramBytes,
    Figure::L2Bytes,
    Figure::DramIntensity,
    Figure::GflopsTotal,
    Figure::PctOfRoof,
];

/// What bounds a kernel, as the learner diagnoses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Bound {
    /// The memory system.
    Memory,
    /// The arithmetic pipelines.
    Compute,
    /// Neither: stalls with too little work in flight.
    Latency,
}

impl Bound {
    /// The three, in the order a form offers them.
    pub const ALL: [Bound; 3] = [Bound::Memory, Bound::Compute, Bound::Latency];

    /// One letter for the URL.
    pub fn code(self) -> char {
        match self {
            Bound::Memory => 'm',
            Bound::Compute => 'c',
            Bound::Latency => 'l',
        }
    }

    /// The inverse of [`Bound::code`].
    pub fn from_code(c: char) -> Option<Bound> {
        Bound::ALL.into_iter().find(|b| b.code() == c)
    }

    /// A label for people.
    pub fn label(self) -> &'static str {
        match self {
            Bound::Memory => "memory-bound",
            Bound::Compute => "compute-bound",
            Bound::Latency => "latency-bound",
        }
    }

    /// The diagnoses a Speed-of-Light verdict accepts: both for balanced (both units busy).
    pub fn accepted(verdict: VerdictKind) -> &'static [Bound] {
        match verdict {
            VerdictKind::MemoryBound => &[Bound::Memory],
            VerdictKind::ComputeBound => &[Bound::Compute],
            VerdictKind::LatencyBound => &[Bound::Latency],
            VerdictKind::Balanced => &[Bound::Memory, Bound::Compute],
        }
    }
}

/// The one change that would help a kernel most.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Change {
    /// Move fewer bytes: fuse kernels, reuse data on chip, use smaller types.
    CutBytes,
    /// Make each warp use whole sectors: coalesce the accesses.
    Coalesce,
    /// Do less or cheaper arithmetic: fewer instructions, a lower precision, tensor cores.
    CheaperMath,
    /// Put more independent work in flight: more warps, more independent chains per thread.
    MoreParallelism,
}

impl Change {
    /// The four, in the order a form offers them.
    pub const ALL: [Change; 4] = [
        Change::CutBytes,
        Change::Coalesce,
        Change::CheaperMath,
        Change::MoreParallelism,
    ];

    /// One letter for the URL.
    pub fn code(self) -> char {
        match self {
            Change::CutBytes => 'b',
            Change::Coalesce => 's',
            Change::CheaperMath => 'f',
            Change::MoreParallelism => 'p',
        }
    }

    /// The inverse of [`Change::code`].
    pub fn from_code(c: char) -> Option<Change> {
        Change::ALL.into_iter().find(|b| b.code() == c)
    }

    /// A label for people.
    pub fn label(self) -> &'static str {
        match self {
            Change::CutBytes => "move fewer bytes (fuse, reuse on chip, smaller types)",
            Change::Coalesce => "coalesce the accesses so each warp uses whole sectors",
            Change::CheaperMath => "do less or cheaper arithmetic (lower precision, tensor cores)",
            Change::MoreParallelism => {
                "put more independent work in flight (more warps, independent chains)"
            }
        }
    }
}

/// A committed diagnosis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Diagnosis {
    /// What bounds the kernel.
    pub bound: Bound,
    /// The change that would help most.
    pub change: Change,
}

/// The label of the `i`-th mystery kernel: `A`, `B`, ... (`?` past `Z`).
pub fn label(i: usize) -> char {
    u8::try_from(i)
        .ok()
        .filter(|&i| i < 26)
        .map_or('?', |i| char::from(b'A' + i))
}

/// The default mystery kernels of a run: up to [`COUNT`] kernels with counters and a verdict,
/// each of a different verdict where the run has them (memory-, compute-, latency-bound,
/// balanced, in that order of preference), the longest-running of each, listed in artifact
/// order so the labels say nothing about the verdicts.
pub fn pick(figures: &[KernelFigures]) -> Vec<usize> {
    let order = [
        VerdictKind::MemoryBound,
        VerdictKind::ComputeBound,
        VerdictKind::LatencyBound,
        VerdictKind::Balanced,
    ];
    let longest = |kind: VerdictKind| {
        figures
            .iter()
            .filter(|f| f.has_counters && f.verdict.as_ref().is_some_and(|v| v.kind == kind))
            .max_by(|a, b| {
                let t = |f: &KernelFigures| f.row.time_ms.unwrap_or(0.0);
                t(a).total_cmp(&t(b)).then(b.index.cmp(&a.index))
            })
            .map(|f| f.index)
    };
    let mut chosen: Vec<usize> = order.into_iter().filter_map(longest).take(COUNT).collect();
    crate::order::sort(&mut chosen);
    chosen
}

/// What the counters say about a mystery kernel, for the reveal.
#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    /// The Speed-of-Light verdict.
    pub verdict: VerdictKind,
    /// The numbers behind it.
    pub reason: String,
    /// The diagnoses the verdict accepts.
    pub accepted: &'static [Bound],
    /// The change the counters point to.
    pub change: Change,
    /// Why, with the kernel's numbers.
    pub change_reason: String,
    /// The kernel's source file, when the artifact names one.
    pub source_file: Option<String>,
}

/// The answer for kernel `fig` of `artifact`; `None` without a verdict.
pub fn answer(artifact: &Artifact, fig: &KernelFigures) -> Option<Answer> {
    let verdict = fig.verdict.as_ref()?;
    let record: Option<&KernelRecord> = artifact.kernels.get(fig.index);
    let e = Evidence::of(record, fig, artifact.device.as_ref());
    let waste = e
        .l1_global_bytes()
        .zip(e.ask_bytes)
        .and_then(|(l, a)| crate::model::roofline::ratio(l, a))
        .filter(|r| *r > WASTE_RATIO);
    let waste_by_geometry = match (e.load_sectors_per_request, e.ideal_sectors_per_request) {
        (Some(s), Some(i)) => s > 2.0 * i,
        _ => false,
    };
    let sol = fig.sol();
    let (change, change_reason) = match verdict.kind {
        VerdictKind::MemoryBound | VerdictKind::Balanced
            if waste.is_some() || waste_by_geometry =>
        {
            let how = match (waste, e.load_sectors_per_request) {
                (Some(w), _) => format!("its warps touched {w:.1} x the bytes it asks for at L1"),
                (None, Some(s)) => format!("{s:.1} sectors per load request"),
                (None, None) => String::new(),
            };
            (
                Change::Coalesce,
                format!("The memory system is the busy side and {how}: whole sectors would cut the traffic at every level."),
            )
        }
        VerdictKind::Balanced if sol.sm_pct.unwrap_or(0.0) > sol.memory_pct.unwrap_or(0.0) => (
            Change::CheaperMath,
            format!(
                "Both sides are busy and the SM is the busier ({}): cheaper arithmetic comes first.",
                verdict.reason
            ),
        ),
        VerdictKind::MemoryBound | VerdictKind::Balanced => (
            Change::CutBytes,
            format!(
                "The memory system is the busy side ({}) and the accesses already use whole sectors: only fewer bytes help.",
                verdict.reason
            ),
        ),
        VerdictKind::ComputeBound => (
            Change::CheaperMath,
            format!(
                "The SM is busy and memory is not ({}): fewer or cheaper instructions are the lever.",
                verdict.reason
            ),
        ),
        VerdictKind::LatencyBound => (
            Change::MoreParallelism,
            format!(
                "Neither side is busy ({}): the warps wait on latency, and more independent work in flight hides it.",
                verdict.reason
            ),
        ),
    };
    Some(Answer {
        verdict: verdict.kind,
        reason: verdict.reason.clone(),
        accepted: Bound::accepted(verdict.kind),
        change,
        change_reason,
        source_file: record.and_then(|k| k.source_file.as_deref().map(String::from)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_and_codes() {
        assert_eq!(label(0), 'A');
        assert_eq!(label(2), 'C');
        assert_eq!(label(26), '?');
        for b in Bound::ALL {
            assert_eq!(Bound::from_code(b.code()), Some(b));
        }
        for c in Change::ALL {
            assert_eq!(Change::from_code(c.code()), Some(c));
        }
        assert_eq!(
            Bound::accepted(VerdictKind::Balanced),
            [Bound::Memory, Bound::Compute]
        );
    }
}
