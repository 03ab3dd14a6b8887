//! Run-to-run drift: how far a kernel's time moves between two runs of the same code, beyond
//! the spread within one run ([`super::noise`]). Clocks, temperature and placement change
//! between runs; on the H200, two `capture run`s of identical code differed by -0.68 % in
//! total with 14 of 20 kernels outside their within-run bands, and 20 runs of four programs
//! (`tests/fixtures/determinism-h200/`) measure a time CV of 0.51 % at the median kernel and
//! 5.0 % at the worst.
//!
//! A [`Drift`] is measured from repeat runs of the baseline (`capture diff
//! --baseline-runs A1 A2 A3`: each kernel's CV over them, matched by name and launch shape,
//! and the CV of the runs' totals) or read from a tolerance file's measured time spread
//! ([`TimeSpread`], written by `tests/determinism/cv.py`). A single run compared with a
//! single run has the variance of two runs, so the drift band is
//! [`DRIFT_SIGMAS`] x sqrt(2) x the CV: about 95 % of same-code pairs fall inside where the
//! drift is normal. [`widen`] makes each kernel's band, and the total's, the larger of its
//! within-run band and its drift band (the drift already holds the within-run spread: it is
//! measured between runs' medians), then judges "beyond the noise" and the gate again. With
//! neither, [`Drift::within_run_only`] says so, and a change smaller than the drift the
//! determinism runs measured at the median kernel ([`MEDIAN_DRIFT_CV_PCT`]) is not called
//! beyond the noise ([`widen`] with that source).

use serde::{Deserialize, Serialize};

use super::render::DiffForms;
pub use super::spread::TimeSpread;
use super::{matching, noise, RunDiff};
use crate::analysis::table::bytes_table;
use crate::model::artifact::Artifact;

/// How many standard deviations of the difference of two runs a drift band spans.
pub const DRIFT_SIGMAS: f64 = 2.0;

/// The median kernel's time CV over the 20-run determinism fixtures of the H200, %
/// (`tests/fixtures/determinism-h200/cv.txt`, "time (beside)"): the drift a change must
/// exceed when no drift was measured for the runs at hand.
pub const MEDIAN_DRIFT_CV_PCT: f64 = 0.5126;

/// Where a diff's drift came from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DriftSource {
    /// Repeat runs of the baseline (`--baseline-runs`): each kernel's own CV.
    BaselineRuns {
        /// How many runs.
        runs: usize,
    },
    /// A tolerance file's measured time spread: one CV for every kernel.
    Tolerance {
        /// The file, as named on the command line.
        file: String,
        /// Its spread.
        spread: TimeSpread,
    },
    /// None measured: the bands are the spread within each run, and a change below the
    /// median drift of the determinism runs ([`MEDIAN_DRIFT_CV_PCT`]) is not called beyond
    /// the noise.
    WithinRunOnly,
}

/// The measured drift a diff's bands include.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Drift {
    /// Where it came from.
    pub source: DriftSource,
    /// Each kernel's time CV over the baseline runs, % (name, launch shape, CV); empty for a
    /// tolerance file.
    pub kernels: Vec<(String, Option<String>, f64)>,
    /// The CV of the runs' summed kernel time, %, where measured.
    pub total_cv_pct: Option<f64>,
}

impl Drift {
    /// No drift measured.
    pub fn within_run_only() -> Drift {
        Drift {
            source: DriftSource::WithinRunOnly,
            kernels: Vec::new(),
            total_cv_pct: None,
        }
    }

    /// The drift of a tolerance file's time spread, `file` naming it.
    pub fn of_tolerance(file: &str, spread: TimeSpread) -> Drift {
        Drift {
            source: DriftSource::Tolerance {
                file: file.to_owned(),
                spread,
            },
            kernels: Vec::new(),
            total_cv_pct: None,
        }
    }

    /// The drift measured over `runs`, repeat runs of one program: each kernel's CV over
    /// the runs that have it with a time (two or more), by name and launch shape, and the
    /// CV of the runs' totals.
    pub fn of_runs(runs: &[&Artifact]) -> Drift {
        let mut times: Vec<(String, Option<String>, Vec<f64>)> = Vec::new();
        let mut totals = Vec::new();
        for a in runs {
            let table = bytes_table(a);
            let mut total = 0.0;
            for (k, row) in a.kernels.iter().zip(&table.kernels) {
                let Some(t) = row.time_ms else { continue };
                total += t;
                let shape = matching::shape_of(k);
                match times
                    .iter_mut()
                    .find(|(n, s, _)| **n == *k.name && *s == shape)
                {
                    Some((_, _, v)) => v.push(t),
                    None => times.push((k.name.to_string(), shape, vec![t])),
                }
            }
            totals.push(total);
        }
        Drift {
            source: DriftSource::BaselineRuns { runs: runs.len() },
            kernels: times
                .into_iter()
                .filter_map(|(n, s, v)| cv_pct(&v).map(|c| (n, s, c)))
                .collect(),
            total_cv_pct: cv_pct(&totals),
        }
    }

    /// The CV, %, that stands for kernel `name` of shape `shape`: its own over the baseline
    /// runs, the tolerance file's, or the determinism runs' median kernel's.
    fn kernel_cv(&self, name: &str, shape: Option<&str>) -> Option<f64> {
        match &self.source {
            DriftSource::BaselineRuns { .. } => self
                .kernels
                .iter()
                .find(|(n, s, _)| n == name && s.as_deref() == shape)
                .or_else(|| self.kernels.iter().find(|(n, _, _)| n == name))
                .map(|(_, _, c)| *c),
            DriftSource::Tolerance { spread, .. } => Some(spread.cv_pct),
            DriftSource::WithinRunOnly => Some(MEDIAN_DRIFT_CV_PCT),
        }
    }

    /// The CV, %, that stands for the total: the runs' own, else the kernels' (a sum of
    /// kernels drifting together drifts as they do).
    fn total_cv(&self) -> Option<f64> {
        self.total_cv_pct.or(match &self.source {
            DriftSource::BaselineRuns { .. } => None,
            DriftSource::Tolerance { spread, .. } => Some(spread.cv_pct),
            DriftSource::WithinRunOnly => Some(MEDIAN_DRIFT_CV_PCT),
        })
    }

    /// What the bands hold, in words, for every form of the diff.
    pub fn words(&self) -> String {
        match &self.source {
            DriftSource::BaselineRuns { runs } => format!(
                "bands include the run-to-run drift measured over {runs} baseline runs \
                 (--baseline-runs: each kernel's time CV, x {DRIFT_SIGMAS} x sqrt 2)"
            ),
            DriftSource::Tolerance { file, spread } => format!(
                "bands include the run-to-run drift of {file} (a time CV of {:.2} %, the 90th \
                 percentile of {} kernels, x {DRIFT_SIGMAS} x sqrt 2)",
                spread.cv_pct, spread.kernels
            ),
            DriftSource::WithinRunOnly => format!(
                "bands are within-run only (one run per side, no drift measured: give \
                 --baseline-runs or --noise-tolerance); a change under {:.2} % (the median \
                 kernel's drift between runs on the H200, x {DRIFT_SIGMAS} x sqrt 2) is not \
                 called beyond the noise",
                band_of(MEDIAN_DRIFT_CV_PCT)
            ),
        }
    }
}

/// The drift band of a time CV, %: what a change between two single runs stays within.
pub fn band_of(cv_pct: f64) -> f64 {
    DRIFT_SIGMAS * std::f64::consts::SQRT_2 * cv_pct
}

/// The CV (sample standard deviation over mean) of `values`, %; `None` for fewer than two
/// or a mean that is not positive.
fn cv_pct(values: &[f64]) -> Option<f64> {
    let n = values.len();
    if n < 2 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / n as f64;
    if mean <= 0.0 || !mean.is_finite() {
        return None;
    }
    let var = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1) as f64;
    Some(var.sqrt() / mean * 100.0)
}

/// A diff whose bands include run-to-run drift, with the drift: its JSON is the diff's with
/// `drift` added, its text and Markdown the diff's with a line saying which drift the bands
/// hold. Apart from [`RunDiff`], so that the viewer's compare page, which does not widen,
/// carries none of it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drifted {
    /// The diff, bands widened.
    #[serde(flatten)]
    pub diff: RunDiff,
    /// The drift they include.
    pub drift: Drift,
}

impl DiffForms for Drifted {
    fn text(&self) -> String {
        let mut out = self.diff.to_text();
        out.push_str(&self.drift.words());
        out.push('\n');
        out
    }

    fn markdown(&self) -> String {
        let mut out = self.diff.to_markdown();
        out.push('\n');
        out.push_str(&self.drift.words());
        out.push('\n');
        out
    }

    fn json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// `d` with each kernel's band and the total's the larger of the within-run band and the
/// drift band of `drift`, "beyond the noise" and the gate judged again against them, with
/// the drift beside it.
pub fn widen(mut d: RunDiff, drift: Drift) -> Drifted {
    for k in &mut d.kernels {
        let shape = k.before.shape.clone();
        if let Some(cv) = drift.kernel_cv(&k.before.name, shape.as_deref()) {
            k.noise_pct = k.noise_pct.max(band_of(cv));
        }
        k.beyond_noise = noise::beyond_noise(k.change_pct, k.noise_pct);
        if let Some(g) = &d.gate {
            k.gate_failed = k.counted && k.change_pct.is_some_and(|c| c > g.pct + k.noise_pct);
        }
    }
    if let Some(cv) = drift.total_cv() {
        d.total.noise_pct = d.total.noise_pct.max(band_of(cv));
    }
    d.total.beyond_noise = noise::beyond_noise(d.total.change_pct, d.total.noise_pct);
    if let Some(g) = &mut d.gate {
        d.total.gate_failed = d
            .total
            .change_pct
            .is_some_and(|c| c > g.pct + d.total.noise_pct);
        let mut failures = Vec::new();
        if d.total.gate_failed {
            failures.push("total".to_string());
        }
        failures.extend(
            d.kernels
                .iter()
                .filter(|k| k.gate_failed)
                .map(|k| k.after.short_name.clone()),
        );
        g.failures = failures;
        g.failed = !g.failures.is_empty() || !g.cannot_judge.is_empty();
    }
    Drifted { diff: d, drift }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cv_and_band() {
        assert_eq!(cv_pct(&[1.0]), None);
        let cv = cv_pct(&[1.0, 1.02, 0.98]).expect("cv");
        assert!((cv - 2.0).abs() < 1e-9, "{cv}");
        assert!((band_of(0.5) - std::f64::consts::SQRT_2).abs() < 1e-12);
    }
}
