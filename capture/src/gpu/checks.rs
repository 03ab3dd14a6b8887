//! Comparison helpers for the CPU reference checks: exact (bit-for-bit) and tolerant
//! element comparisons over all or a sample of the elements, run in parallel, each turned
//! into an artifact [`Check`] with a one-line detail. The references themselves live next to
//! each kernel in its family's module under `suite/`.

use shared::model::artifact::Check;

use super::data::par_ranges;
#[cfg(test)]
use super::data::POISON_BITS;

/// Which elements a check compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coverage {
    /// Every element.
    All,
    /// Every `n`-th element, plus the last one (every element is still checked for being
    /// written).
    Every(usize),
}

#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    compared: u64,
    mismatches: u64,
    unwritten: u64,
    first: Option<(usize, f64, f64)>,
    max_abs: f64,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.compared += other.compared;
        self.mismatches += other.mismatches;
        self.unwritten += other.unwritten;
        if self.first.is_none() {
            self.first = other.first;
        }
        if other.max_abs > self.max_abs || other.max_abs.is_nan() {
            self.max_abs = other.max_abs;
        }
        self
    }

    fn into_check(self, what: &str, total: usize, exact: bool) -> Check {
        let passed = self.mismatches == 0 && self.unwritten == 0 && self.compared > 0;
        let how = if exact {
            "bit-exact"
        } else {
            "within tolerance"
        };
        let detail = if passed {
            if self.compared as usize == total {
                format!("{what}: all {total} elements {how}")
            } else {
                format!(
                    "{what}: {} sampled of {total} elements {how}, all {total} written",
                    self.compared
                )
            }
        } else if self.compared == 0 {
            format!("{what}: nothing to compare")
        } else {
            let first = match self.first {
                Some((i, got, want)) => format!("; first at [{i}]: got {got}, expected {want}"),
                None => String::new(),
            };
            format!(
                "{what}: {} of {} compared elements differ, {} of {total} never written{first}",
                self.mismatches, self.compared, self.unwritten
            )
        };
        Check {
            passed,
            detail,
            max_abs_error: Some(self.max_abs),
        }
    }
}

fn tally<T: Copy + Sync>(
    got: &[T],
    coverage: Coverage,
    to_f64: impl Fn(T) -> f64 + Sync,
    compare: impl Fn(usize, T) -> (bool, f64, f64) + Sync,
) -> Tally {
    tally_where(got, coverage, to_f64, |_| false, compare)
}

fn tally_where<T: Copy + Sync>(
    got: &[T],
    coverage: Coverage,
    to_f64: impl Fn(T) -> f64 + Sync,
    poisoned: impl Fn(usize) -> bool + Sync,
    compare: impl Fn(usize, T) -> (bool, f64, f64) + Sync,
) -> Tally {
    let n = got.len();
    let parts = par_ranges(n, |range| {
        let mut t = Tally::default();
        for i in range {
            let Some(&g) = got.get(i) else { continue };
            if poisoned(i) {
                // Must still hold the poison: the kernel may not write here.
                t.compared += 1;
                if !to_f64(g).is_nan() {
                    t.mismatches += 1;
                    if t.first.is_none() {
                        t.first = Some((i, to_f64(g), f64::NAN));
                    }
                }
                continue;
            }
            if to_f64(g).is_nan() {
                t.unwritten += 1;
            }
            let sampled = match coverage {
                Coverage::All => true,
                Coverage::Every(step) => i % step.max(1) == 0 || i + 1 == n,
            };
            if !sampled {
                continue;
            }
            t.compared += 1;
            let (ok, got_v, want_v) = compare(i, g);
            let err = (got_v - want_v).abs();
            if err > t.max_abs || err.is_nan() {
                t.max_abs = err;
            }
            if !ok {
                t.mismatches += 1;
                if t.first.is_none() {
                    t.first = Some((i, got_v, want_v));
                }
            }
        }
        t
    });
    parts.into_iter().fold(Tally::default(), Tally::merge)
}

/// Compares `got[i]` with `want(i)` bit for bit (an unwritten NaN never matches).
pub fn exact_f32(
    what: &str,
    got: &[f32],
    coverage: Coverage,
    want: impl Fn(usize) -> f32 + Sync,
) -> Check {
    tally(got, coverage, f64::from, |i, g| {
        let w = want(i);
        (g.to_bits() == w.to_bits(), f64::from(g), f64::from(w))
    })
    .into_check(what, got.len(), true)
}

/// Like [`exact_f32`] over all elements, except that where `poisoned(i)` holds the element
/// must still be unwritten (NaN): for kernels that must leave part of their output alone.
pub fn exact_f32_poisoned_where(
    what: &str,
    got: &[f32],
    poisoned: impl Fn(usize) -> bool + Sync,
    want: impl Fn(usize) -> f32 + Sync,
) -> Check {
    tally_where(got, Coverage::All, f64::from, poisoned, |i, g| {
        let w = want(i);
        (g.to_bits() == w.to_bits(), f64::from(g), f64::from(w))
    })
    .into_check(what, got.len(), true)
}

/// Compares `got[i]` with `want(i)` bit for bit, in double precision.
pub fn exact_f64(
    what: &str,
    got: &[f64],
    coverage: Coverage,
    want: impl Fn(usize) -> f64 + Sync,
) -> Check {
    tally(
        got,
        coverage,
        |v| v,
        |i, g| {
            let w = want(i);
            (g.to_bits() == w.to_bits(), g, w)
        },
    )
    .into_check(what, got.len(), true)
}

/// Compares `got[i]` with a double-precision reference `want(i) = (value, tolerance)`.
pub fn close_f32(
    what: &str,
    got: &[f32],
    coverage: Coverage,
    want: impl Fn(usize) -> (f64, f64) + Sync,
) -> Check {
    tally(got, coverage, f64::from, |i, g| {
        let (w, tol) = want(i);
        let g = f64::from(g);
        ((g - w).abs() <= tol, g, w)
    })
    .into_check(what, got.len(), false)
}

/// Compares elements of any type, read as numbers by `to_f64` (NaN for an unwritten
/// element), with a reference `(value, tolerance)`, over `coverage`.
pub fn close_with<T: Copy + Sync>(
    what: &str,
    got: &[T],
    coverage: Coverage,
    to_f64: impl Fn(T) -> f64 + Sync,
    want: impl Fn(usize) -> (f64, f64) + Sync,
) -> Check {
    tally(got, coverage, &to_f64, |i, g| {
        let (w, tol) = want(i);
        let g = to_f64(g);
        ((g - w).abs() <= tol, g, w)
    })
    .into_check(what, got.len(), false)
}

/// A check built from a condition, for the non-array checks (clock plausibility).
pub fn condition(passed: bool, detail: String) -> Check {
    Check {
        passed,
        detail,
        max_abs_error: None,
    }
}

/// A failed check for a reference that could not run (an output missing, say).
pub fn broken(what: &str, why: &str) -> Check {
    condition(false, format!("{what}: {why}"))
}

/// Two checks of one kernel (its output, and what was measured beside it) as one: passed
/// when both passed, details joined, the larger error kept.
pub fn both(a: Check, b: Check) -> Check {
    Check {
        passed: a.passed && b.passed,
        detail: format!("{}; {}", a.detail, b.detail),
        max_abs_error: match (a.max_abs_error, b.max_abs_error) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_passes_equal_and_fails_one_ulp_off() {
        let got: Vec<f32> = (0..100).map(|i| i as f32 * 0.5).collect();
        let c = exact_f32("x", &got, Coverage::All, |i| i as f32 * 0.5);
        assert!(c.passed, "{}", c.detail);
        assert!(c.detail.contains("all 100"));
        let c = exact_f32("x", &got, Coverage::All, |i| {
            if i == 37 {
                f32::from_bits((i as f32 * 0.5).to_bits() + 1)
            } else {
                i as f32 * 0.5
            }
        });
        assert!(!c.passed);
        assert!(c.detail.contains("[37]"), "{}", c.detail);
    }

    #[test]
    fn unwritten_elements_fail_even_outside_the_sample() {
        let mut got = vec![1.0f32; 1000];
        got[5] = f32::from_bits(crate::gpu::data::POISON_BITS);
        let c = exact_f32("x", &got, Coverage::Every(100), |_| 1.0);
        assert!(!c.passed);
        assert!(c.detail.contains("1 of 1000 never written"), "{}", c.detail);
        got[5] = 1.0;
        let c = exact_f32("x", &got, Coverage::Every(100), |_| 1.0);
        assert!(c.passed, "{}", c.detail);
        assert!(c.detail.contains("11 sampled"), "{}", c.detail);
    }

    #[test]
    fn poisoned_region_must_stay_unwritten() {
        let poison = f32::from_bits(POISON_BITS);
        let mut got = vec![poison, 2.0, 2.0, poison];
        let edge = |i: usize| i == 0 || i == 3;
        let c = exact_f32_poisoned_where("x", &got, edge, |_| 2.0);
        assert!(c.passed, "{}", c.detail);
        got[3] = 2.0;
        let c = exact_f32_poisoned_where("x", &got, edge, |_| 2.0);
        assert!(!c.passed, "a write into the poisoned region must fail");
        got[3] = poison;
        got[1] = poison;
        assert!(!exact_f32_poisoned_where("x", &got, edge, |_| 2.0).passed);
    }

    #[test]
    fn tolerance_is_respected() {
        let got = vec![1.001f32; 10];
        assert!(close_f32("x", &got, Coverage::All, |_| (1.0, 2e-3)).passed);
        assert!(!close_f32("x", &got, Coverage::All, |_| (1.0, 1e-4)).passed);
    }

    #[test]
    fn empty_output_never_passes() {
        assert!(!exact_f32("x", &[], Coverage::All, |_| 0.0).passed);
        assert!(!exact_f64("x", &[], Coverage::All, |_| 0.0).passed);
    }
}
