//! A kernel's noise band: how far its time may move between two runs of the same code, from
//! the spread of its own samples, with the samples no run can have refused and a lone outlier
//! left out.
//!
//! The spread is half the range of the samples (CUDA-event samples of `capture run`), or two
//! standard errors of the mean per-launch ncu duration (a profile or an import), as before
//! issue 39; what changed is which samples count. Half a range is set by its two extreme
//! samples, so one preempted launch five times as slow as the rest widened a band from
//! 0.3 % to 200 %, and one sample of 1e300 ms made it infinite: the gate then passed a 2x
//! slowdown. So, before the spread:
//!
//! - every sample is checked: an event sample not finite, negative or above
//!   [`crate::model::range::MAX_EVENT_MS`], or an ncu duration out of the range rule of
//!   every duration, makes the band unusable and says why ([`Band::problem`]), which
//!   blinds the gate rather than letting it pass;
//! - outliers are left out: a sample farther from the median than [`OUTLIER_SIGMAS`]
//!   robust standard deviations (1.4826 times the median absolute deviation, MAD, which
//!   one outlier cannot move; where more than half the samples are equal and the MAD is 0,
//!   1.2533 times the mean absolute deviation), as long as such samples are fewer than a
//!   quarter of them ([`MAX_OUTLIER_SHARE`]). More of them are a second mode of the
//!   kernel's timing, not outliers, and stay in the band.
//!
//! On normal noise a sample beyond 5 robust standard deviations comes once in about two
//! million, so the band of a clean run is what it was: on the committed H200 runs
//! (`tests/fixtures/diff`) one sample of 60 kernels' 1,200 is left out (vector add,
//! stride 32, at 6.1), and the same code against itself still passes a gate of 0. The
//! FMA ceiling of `run_size2x` has 8 of its 20 samples 11.6 robust standard deviations
//! (0.4 %) above its median: a second mode, kept.

use serde::{Deserialize, Serialize};

use crate::analysis::metrics;
use crate::model::artifact::KernelRecord;
use crate::model::range;
use crate::model::roofline::percent_of;

/// Samples farther from the median than this many robust standard deviations are outliers.
pub const OUTLIER_SIGMAS: f64 = 5.0;

/// Outliers are left out only while they are fewer than this share of the samples.
pub const MAX_OUTLIER_SHARE: f64 = 0.25;

/// A normal distribution's standard deviation over its median absolute deviation.
const SIGMA_PER_MAD: f64 = 1.4826;

/// A normal distribution's standard deviation over its mean absolute deviation
/// (sqrt(pi / 2)).
const SIGMA_PER_MEAN_AD: f64 = 1.2533;

/// Where a noise band came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoiseSource {
    /// Half the range (max - min) of the CUDA-event samples of `capture run`, outliers left
    /// out, over the median.
    EventSamples,
    /// Two standard errors of the mean per-launch ncu duration, outliers left out, over the
    /// mean (a profile or an import: the spread of the kernel's launches).
    LaunchSpread,
    /// No samples to tell (one launch, no timing), or samples that cannot be used
    /// ([`Band::problem`]): the band is taken as 0.
    None,
}

impl NoiseSource {
    /// Label for tables.
    pub fn label(self) -> &'static str {
        match self {
            NoiseSource::EventSamples => "event samples",
            NoiseSource::LaunchSpread => "launch spread",
            NoiseSource::None => "none",
        }
    }
}

/// A kernel's noise band.
#[derive(Clone, Debug, PartialEq)]
pub struct Band {
    /// The band, percent of the kernel's time; 0 without one, always finite.
    pub pct: f64,
    /// Where it came from.
    pub source: NoiseSource,
    /// Samples left out of it as outliers.
    pub outliers: usize,
    /// Why the kernel's samples could not be used, when they could not: the gate cannot
    /// judge such a run.
    pub problem: Option<String>,
}

impl Band {
    fn none() -> Self {
        Band {
            pct: 0.0,
            source: NoiseSource::None,
            outliers: 0,
            problem: None,
        }
    }

    fn unusable(problem: String) -> Self {
        Band {
            problem: Some(problem),
            ..Band::none()
        }
    }

    /// A band of `spread` over `center`, or why it is not a number.
    fn of(spread: f64, center: f64, source: NoiseSource, outliers: usize) -> Self {
        // No spread is a band of 0 whatever the center (all samples 0 ms included).
        let pct = if spread == 0.0 {
            Some(0.0)
        } else {
            percent_of(spread, center).filter(|p| p.is_finite())
        };
        match pct {
            Some(pct) => Band {
                pct,
                source,
                outliers,
                problem: None,
            },
            None => Band::unusable(format!(
                "noise band {spread} over {center} ms is not a number ({})",
                source.label()
            )),
        }
    }
}

/// The median of sorted values.
fn median_of_sorted(sorted: &[f64]) -> Option<f64> {
    let n = sorted.len();
    match n {
        0 => None,
        _ if n % 2 == 1 => sorted.get(n / 2).copied(),
        _ => Some((sorted.get(n / 2 - 1)? + sorted.get(n / 2)?) / 2.0),
    }
}

/// The samples that are not outliers (see the module's documentation), and how many were
/// left out. Values must be finite.
pub fn without_outliers(values: &[f64]) -> (Vec<f64>, usize) {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let Some(median) = median_of_sorted(&sorted) else {
        return (Vec::new(), 0);
    };
    let mut deviations: Vec<f64> = sorted.iter().map(|x| (x - median).abs()).collect();
    deviations.sort_by(f64::total_cmp);
    let mad = median_of_sorted(&deviations).unwrap_or(0.0);
    let sigma = if mad > 0.0 {
        SIGMA_PER_MAD * mad
    } else {
        SIGMA_PER_MEAN_AD * deviations.iter().sum::<f64>() / deviations.len() as f64
    };
    let fence = OUTLIER_SIGMAS * sigma;
    let far = values
        .iter()
        .filter(|x| (*x - median).abs() > fence)
        .count();
    if far == 0 || far as f64 >= MAX_OUTLIER_SHARE * values.len() as f64 {
        return (values.to_vec(), 0);
    }
    let kept = values
        .iter()
        .copied()
        .filter(|x| (x - median).abs() <= fence)
        .collect();
    (kept, far)
}

/// The noise band of a kernel's time: from its event samples when it has a timing, else
/// from the spread of its launches' ncu durations, else none.
pub fn noise_band(kernel: &KernelRecord) -> Band {
    if let Some(t) = &kernel.timing {
        return event_band(&t.samples_ms, t.median_ms);
    }
    let d: Vec<f64> = metrics::reference_launches(kernel)
        .iter()
        .filter_map(metrics::duration_ns)
        .collect();
    launch_band(&d)
}

fn event_band(samples_ms: &[f64], median_ms: f64) -> Band {
    let n = samples_ms.len();
    for (i, &v) in samples_ms.iter().enumerate() {
        if let Some(why) = range::check_event_ms(v) {
            return Band::unusable(format!(
                "event sample {} of {n} ({v} ms) is {}",
                i + 1,
                why.reason()
            ));
        }
    }
    if let Some(why) = range::check_event_ms(median_ms) {
        return Band::unusable(format!("event median {median_ms} ms is {}", why.reason()));
    }
    if n < 2 {
        return Band::none();
    }
    let (kept, outliers) = without_outliers(samples_ms);
    let lo = kept.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = kept.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Band::of((hi - lo) / 2.0, median_ms, NoiseSource::EventSamples, outliers)
}

fn launch_band(durations_ns: &[f64]) -> Band {
    let n = durations_ns.len();
    for (i, &v) in durations_ns.iter().enumerate() {
        if let Some(why) = range::check("ns", v) {
            return Band::unusable(format!(
                "ncu duration of launch {} of {n} ({v} ns) is {}",
                i + 1,
                why.reason()
            ));
        }
    }
    if n < 2 {
        return Band::none();
    }
    let (kept, outliers) = without_outliers(durations_ns);
    let k = kept.len() as f64;
    let mean = kept.iter().sum::<f64>() / k;
    let var = kept.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (k - 1.0);
    Band::of(
        2.0 * var.sqrt() / k.sqrt(),
        mean,
        NoiseSource::LaunchSpread,
        outliers,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_outlier_is_left_out_and_a_second_mode_is_kept() {
        // A preempted sample five times the rest.
        let mut samples = vec![1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 1.0];
        let clean = event_band(&samples, 1.0);
        samples[3] = 5.0;
        let planted = event_band(&samples, 1.0);
        assert_eq!((clean.outliers, planted.outliers), (0, 1));
        assert!((planted.pct - clean.pct).abs() < 1e-9, "{planted:?} {clean:?}");
        // Four of ten in a second mode: a quarter or more, kept.
        let modes = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.5, 1.5, 1.5, 1.5];
        let (kept, out) = without_outliers(&modes);
        assert_eq!((kept.len(), out), (10, 0));
        // All equal: no spread, nothing left out.
        assert_eq!(without_outliers(&[2.0; 5]), (vec![2.0; 5], 0));
        // More than half equal (MAD 0): the mean absolute deviation sets the fence.
        let (kept, out) = without_outliers(&[1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.001, 5.0]);
        assert_eq!((kept.len(), out), (8, 1));
    }

    #[test]
    fn samples_no_run_has_make_the_band_unusable() {
        for bad in [1e300, -1e300, 1.7e308, f64::NAN, f64::INFINITY] {
            let b = event_band(&[1.0, bad, 1.0], 1.0);
            assert_eq!((b.pct, b.source), (0.0, NoiseSource::None), "{bad}");
            let why = b.problem.expect("a reason");
            assert!(why.starts_with("event sample 2 of 3"), "{why}");
        }
        let b = launch_band(&[1000.0, -5.0]);
        assert!(b.problem.expect("a reason").contains("negative"));
        let b = event_band(&[1.0, 2.0], 0.0);
        assert!(b.problem.expect("a reason").contains("not a number"));
    }

    #[test]
    fn one_slow_launch_does_not_widen_the_launch_spread() {
        let d = [1000.0, 1010.0, 990.0, 1005.0, 995.0, 1000.0, 1002.0, 998.0, 5000.0];
        let b = launch_band(&d);
        assert_eq!((b.source, b.outliers), (NoiseSource::LaunchSpread, 1));
        assert!(b.pct < 1.0, "{b:?}");
    }
}
