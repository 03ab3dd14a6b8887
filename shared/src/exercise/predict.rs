//! Predict, then reveal: for each kernel with an asked-for byte count, the learner says
//! whether DRAM/ask will come out above 1, near 1 or below 1 (and, if they like, the
//! Speed-of-Light verdict) before seeing any measured figure; [`grade`] then scores the
//! predictions against the artifact and explains every miss from the kernel's counters
//! ([`super::evidence`]). What "near 1" means is in [`super::direction`].

use crate::analysis::figures::KernelFigures;
use crate::analysis::metrics::VerdictKind;
use crate::model::artifact::Artifact;

use super::evidence::{explain, Evidence, Explanation};

pub use super::direction::{Direction, NEAR_HIGH, NEAR_LOW};

/// The verdicts a learner may predict, in the order a form offers them.
pub const VERDICTS: [VerdictKind; 4] = [
    VerdictKind::MemoryBound,
    VerdictKind::ComputeBound,
    VerdictKind::Balanced,
    VerdictKind::LatencyBound,
];

/// One letter for a verdict in the URL: `m`, `c`, `x` (balanced), `l`.
pub fn verdict_code(v: VerdictKind) -> char {
    match v {
        VerdictKind::MemoryBound => 'm',
        VerdictKind::ComputeBound => 'c',
        VerdictKind::Balanced => 'x',
        VerdictKind::LatencyBound => 'l',
    }
}

/// The inverse of [`verdict_code`].
pub fn verdict_from_code(c: char) -> Option<VerdictKind> {
    VERDICTS.into_iter().find(|&v| verdict_code(v) == c)
}

/// What the learner predicted for one kernel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prediction {
    /// The direction of DRAM/ask, if given.
    pub direction: Option<Direction>,
    /// The verdict, if given (optional in the exercise).
    pub verdict: Option<VerdictKind>,
}

/// The kernels the exercise asks about: those with an asked-for byte count, in artifact
/// order.
pub fn exercise_kernels(figures: &[KernelFigures]) -> Vec<usize> {
    figures
        .iter()
        .filter(|f| f.row.ask_bytes.is_some_and(|b| b > 0.0))
        .map(|f| f.index)
        .collect()
}

/// One graded row.
#[derive(Clone, Debug, PartialEq)]
pub struct Graded {
    /// Index of the kernel.
    pub index: usize,
    /// The measured DRAM/ask.
    pub dram_per_ask: Option<f64>,
    /// Its direction.
    pub measured: Option<Direction>,
    /// The learner's direction.
    pub predicted: Option<Direction>,
    /// The measured verdict.
    pub verdict: Option<VerdictKind>,
    /// The learner's verdict.
    pub predicted_verdict: Option<VerdictKind>,
    /// Why DRAM/ask is where it is, from the kernel's counters, for a missed direction.
    pub explanation: Option<Explanation>,
}

impl Graded {
    /// Whether the predicted direction is right; `None` when either side is missing.
    pub fn direction_right(&self) -> Option<bool> {
        Some(self.predicted? == self.measured?)
    }

    /// Whether the predicted verdict is right; `None` when either side is missing.
    pub fn verdict_right(&self) -> Option<bool> {
        Some(self.predicted_verdict? == self.verdict?)
    }
}

/// The score over the graded rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    /// Rows in the exercise.
    pub rows: usize,
    /// Rows with a predicted direction and a measured one.
    pub predicted: usize,
    /// Of those, the right ones.
    pub right: usize,
    /// Rows with a predicted verdict and a measured one.
    pub verdicts_predicted: usize,
    /// Of those, the right ones.
    pub verdicts_right: usize,
}

impl Score {
    /// `9 of 10 right (19 rows, 9 not predicted)`.
    pub fn text(&self) -> String {
        let mut s = format!("{} of {} right", self.right, self.predicted);
        let unpredicted = self.rows - self.predicted;
        if unpredicted > 0 {
            s.push_str(&format!(
                " ({} rows, {unpredicted} without a prediction or a measurement)",
                self.rows
            ));
        }
        s
    }
}

/// Grades `predictions` (indexed by kernel index; missing entries are no prediction) against
/// the exercise's kernels of `artifact`, whose figures are `figures`.
pub fn grade(
    artifact: &Artifact,
    figures: &[KernelFigures],
    predictions: &[Prediction],
) -> (Vec<Graded>, Score) {
    let mut score = Score::default();
    let rows: Vec<Graded> = exercise_kernels(figures)
        .into_iter()
        .filter_map(|i| figures.get(i))
        .map(|fig| {
            let p = predictions.get(fig.index).copied().unwrap_or_default();
            let measured = fig.row.dram_per_ask.map(Direction::of);
            let mut g = Graded {
                index: fig.index,
                dram_per_ask: fig.row.dram_per_ask,
                measured,
                predicted: p.direction,
                verdict: fig.verdict.as_ref().map(|v| v.kind),
                predicted_verdict: p.verdict,
                explanation: None,
            };
            score.rows += 1;
            if let Some(right) = g.direction_right() {
                score.predicted += 1;
                if right {
                    score.right += 1;
                } else {
                    let record = artifact.kernels.get(fig.index);
                    g.explanation = explain(&Evidence::of(record, fig, artifact.device.as_ref()));
                }
            }
            if let Some(right) = g.verdict_right() {
                score.verdicts_predicted += 1;
                score.verdicts_right += usize::from(right);
            }
            g
        })
        .collect();
    (rows, score)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_near_band_includes_its_ends() {
        let cases = [
            (0.0020, Direction::Below),
            (0.8499, Direction::Below),
            (0.85, Direction::Near),
            (0.8645, Direction::Near),
            (1.0, Direction::Near),
            (1.15, Direction::Near),
            (1.1718, Direction::Above),
            (15.9986, Direction::Above),
        ];
        for (r, want) in cases {
            assert_eq!(Direction::of(r), want, "{r}");
        }
    }

    #[test]
    fn codes_round_trip() {
        for d in Direction::ALL {
            assert_eq!(Direction::from_code(d.code()), Some(d));
        }
        for v in VERDICTS {
            assert_eq!(verdict_from_code(verdict_code(v)), Some(v));
        }
        assert_eq!(Direction::from_code('-'), None);
        assert_eq!(verdict_from_code('z'), None);
    }

    #[test]
    fn the_score_reads_plainly() {
        let s = Score {
            rows: 19,
            predicted: 9,
            right: 8,
            ..Score::default()
        };
        assert_eq!(
            s.text(),
            "8 of 9 right (19 rows, 10 without a prediction or a measurement)"
        );
    }
}
