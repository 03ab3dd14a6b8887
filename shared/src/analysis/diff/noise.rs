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
//! - outliers are left out: a sample beyond Tukey's far-out fences, three interquartile
//!   ranges below the first quartile or above the third ([`FENCE_IQRS`]). The quartiles
//!   are set by the middle half of the samples, so one outlier, or any number up to a
//!   quarter of them on one side, cannot move the fences, while a second mode of the
//!   kernel's timing holding more than a quarter of the samples lies between them and
//!   stays in the band. Where more than half the samples are equal (the interquartile
//!   range is 0, as with timings at the events' resolution), the fences are
//!   [`FENCE_SIGMAS`] standard deviations from the median, the deviation estimated as
//!   1.2533 times the mean absolute deviation from it.
//!
//! On normal noise the fences lie 4.7 standard deviations from the median, passed by one
//! sample in about 400,000, so the band of a clean run is what it was: on the committed
//! H200 runs (`tests/fixtures/diff`) two samples of 60 kernels' 1,200 are left out (one of
//! vector add, stride 32 in `run1`, one of the copy ceiling in `run_size2x`), and the same
//! code against itself still passes a gate of 0. A preempted sample five times the median
//! planted in every kernel of those runs is left out in each, and the bands stay within
//! 0.94 to 1.00 times their clean width (the median moves by one sample), where half the
//! full range made them about 200 %. (A first version fenced at five robust standard
//! deviations from the MAD and kept all samples where more than a quarter were beyond;
//! the FMA ceiling of `run_size2x`, 8 of its 20 samples 0.4 % above the rest, then kept
//! the planted outlier too, and the total's band was 39 %.)

use serde::{Deserialize, Serialize};

use crate::analysis::metrics;
use crate::model::artifact::KernelRecord;
use crate::model::range;
use crate::model::roofline::percent_of;

/// Samples further than this many interquartile ranges outside the quartiles are outliers.
pub const FENCE_IQRS: f64 = 3.0;

/// Where the interquartile range is 0: samples further from the median than this many
/// standard deviations are outliers.
pub const FENCE_SIGMAS: f64 = 5.0;

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

/// Whether a change, in percent of the before time, is beyond a noise band in percent:
/// larger than it either way. A change with no percentage (the before time is 0) is not.
pub fn beyond_noise(change_pct: Option<f64>, noise_pct: f64) -> bool {
    change_pct.is_some_and(|c| c.abs() > noise_pct)
}

/// The quantile `p` (0 to 1) of sorted values, interpolated linearly between the two
/// nearest (the common definition of R's type 7 and numpy's default).
fn quantile(sorted: &[f64], p: f64) -> Option<f64> {
    let last = sorted.len().checked_sub(1)?;
    let h = last as f64 * p;
    let i = h.floor() as usize;
    let lo = *sorted.get(i)?;
    Some(match sorted.get(i + 1) {
        Some(hi) => lo + (hi - lo) * (h - i as f64),
        None => lo,
    })
}

/// The samples that are not outliers (see the module's documentation), and how many were
/// left out. Values must be finite.
pub fn without_outliers(values: &[f64]) -> (Vec<f64>, usize) {
    let mut sorted = values.to_vec();
    crate::order::sort_floats(&mut sorted);
    let (Some(q1), Some(median), Some(q3)) = (
        quantile(&sorted, 0.25),
        quantile(&sorted, 0.5),
        quantile(&sorted, 0.75),
    ) else {
        return (Vec::new(), 0);
    };
    let iqr = q3 - q1;
    let (lo, hi) = if iqr > 0.0 {
        (q1 - FENCE_IQRS * iqr, q3 + FENCE_IQRS * iqr)
    } else {
        let mean_ad = sorted.iter().map(|x| (x - median).abs()).sum::<f64>() / sorted.len() as f64;
        let reach = FENCE_SIGMAS * SIGMA_PER_MEAN_AD * mean_ad;
        (median - reach, median + reach)
    };
    let kept: Vec<f64> = values
        .iter()
        .copied()
        .filter(|x| (lo..=hi).contains(x))
        .collect();
    let left_out = values.len() - kept.len();
    (kept, left_out)
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
                "event sample {} of {n} ({v:e} ms) is {}",
                i + 1,
                why.reason()
            ));
        }
    }
    if let Some(why) = range::check_event_ms(median_ms) {
        return Band::unusable(format!("event median {median_ms:e} ms is {}", why.reason()));
    }
    if n < 2 {
        return Band::none();
    }
    let (kept, outliers) = without_outliers(samples_ms);
    let lo = kept.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = kept.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Band::of(
        (hi - lo) / 2.0,
        median_ms,
        NoiseSource::EventSamples,
        outliers,
    )
}

/// The noise band of a sum of ncu durations (ns) of one kernel's launches: two standard
/// errors of their mean over the mean, outliers left out ([`NoiseSource::LaunchSpread`]);
/// none for fewer than two; unusable when one is no duration a launch can have. A kernel
/// without event timing gets this over all its launches ([`noise_band`]); a range of
/// `capture diff --by range`, over its launches of each kernel.
pub fn launch_band(durations_ns: &[f64]) -> Band {
    let n = durations_ns.len();
    for (i, &v) in durations_ns.iter().enumerate() {
        if let Some(why) = range::check("ns", v) {
            return Band::unusable(format!(
                "ncu duration of launch {} of {n} ({v:e} ns) is {}",
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
        assert!(
            (planted.pct - clean.pct).abs() < 1e-9,
            "{planted:?} {clean:?}"
        );
        // Four of ten in a second mode: more than a quarter, kept; with a preempted sample
        // besides, that one alone is left out.
        let mut modes = vec![1.0, 1.0, 1.01, 1.0, 0.99, 1.0, 1.5, 1.5, 1.51, 1.5];
        let (kept, out) = without_outliers(&modes);
        assert_eq!((kept.len(), out), (10, 0));
        modes.push(5.0);
        let (kept, out) = without_outliers(&modes);
        assert_eq!((kept.len(), out), (10, 1));
        // All equal: no spread, nothing left out.
        assert_eq!(without_outliers(&[2.0; 5]), (vec![2.0; 5], 0));
        // More than half equal (interquartile range 0): the mean absolute deviation sets the
        // fences.
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
        let d = [
            1000.0, 1010.0, 990.0, 1005.0, 995.0, 1000.0, 1002.0, 998.0, 5000.0,
        ];
        let b = launch_band(&d);
        assert_eq!((b.source, b.outliers), (NoiseSource::LaunchSpread, 1));
        assert!(b.pct < 1.0, "{b:?}");
    }
}
