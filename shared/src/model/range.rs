//! The range rules for metric values, in one place for both readers: the ncu CSV reader
//! ([`crate::read::ncu`]) and the artifact loader ([`crate::model::artifact`]) store a value no
//! measurement can have as missing, with a warning, for the same reasons.
//!
//! Out of range: a magnitude above [`MAX_MAGNITUDE`] in base units (or not finite), or a
//! negative amount (a duration, size, rate or count, see [`is_amount`]). Percentages may be
//! slightly negative in real exports, where ncu subtracts two noisy counters, and are kept.

/// Largest magnitude a value may have in base units. A 64-bit hardware counter holds at most
/// 1.8e19, and its rate per second over a nanosecond at most 1.8e28; anything larger is not
/// a measurement.
pub const MAX_MAGNITUDE: f64 = 1e30;

/// Longest an event-timed sample of one launch may be, ms: a day. `capture run` times each
/// kernel by tens of launches in one process after warm-ups, so one launch of a day would
/// be a run of weeks; a longer sample (1e300 ms, 1.7e308 ms) comes from a damaged or
/// edited file, and taken as it is it would blind `capture diff --gate` (issue 39).
pub const MAX_EVENT_MS: f64 = 86_400_000.0;

/// Why a number is out of range.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OutOfRange {
    /// Negative, in a unit of an amount that cannot be (see [`is_amount`]).
    Negative,
    /// Above [`MAX_MAGNITUDE`] in base units, or infinite once scaled to them; for an
    /// event-timed sample, above [`MAX_EVENT_MS`].
    TooLarge,
}

impl OutOfRange {
    /// Why, in words, for warnings.
    pub fn reason(self) -> &'static str {
        match self {
            OutOfRange::Negative => "negative, which a duration, size, rate or count cannot be",
            OutOfRange::TooLarge => "larger than any measurement",
        }
    }
}

/// Whether an event-timed value (a sample, or the min, median or max of the samples), in
/// ms, is out of range: not finite, negative, or above [`MAX_EVENT_MS`].
pub fn check_event_ms(ms: f64) -> Option<OutOfRange> {
    if !ms.is_finite() {
        Some(OutOfRange::TooLarge)
    } else if ms < 0.0 {
        Some(OutOfRange::Negative)
    } else if ms > MAX_EVENT_MS {
        Some(OutOfRange::TooLarge)
    } else {
        None
    }
}

/// Whether `value`, in the base unit `unit`, is out of range, and why.
#[inline]
pub fn check(unit: &str, value: f64) -> Option<OutOfRange> {
    if !value.is_finite() || value.abs() > MAX_MAGNITUDE {
        Some(OutOfRange::TooLarge)
    } else if value < 0.0 && is_amount(unit) {
        Some(OutOfRange::Negative)
    } else {
        None
    }
}

/// Counting units, the base units of counts (ncu prints them with a decimal prefix, `Kinst`,
/// `Msector`, which the readers remove).
pub(crate) const COUNT_BASES: &[&str] = &[
    "inst",
    "instruction",
    "instructions",
    "cycle",
    "cycles",
    "sector",
    "sectors",
    "warp",
    "warps",
    "block",
    "blocks",
    "thread",
    "threads",
    "request",
    "requests",
    "branch",
    "branches",
    "register",
    "registers",
    "cluster",
    "clusters",
    "sample",
    "samples",
    "transaction",
    "transactions",
    "wavefront",
    "wavefronts",
    "flop",
    "op",
];

/// Whether a base unit (as the readers store it) is that of an amount, which cannot
/// be negative: a duration, size, frequency or count (`ns`, `byte`, `hz`, `inst`), or a rate
/// or ratio of two of them (`byte/s`, `inst/cycle`, `byte/block`). Percentages and unknown
/// units are not: real exports hold slightly negative percentages (`-0.01` %) where ncu
/// subtracts two noisy counters.
pub fn is_amount(unit: &str) -> bool {
    let amount = |s: &str| matches!(s, "ns" | "s" | "byte" | "hz") || COUNT_BASES.contains(&s);
    match unit.split_once('/') {
        Some((num, den)) => amount(num) && amount(den),
        None => amount(unit),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules() {
        let cases = [
            ("byte", 1.0, None),
            ("byte", -1.0, Some(OutOfRange::Negative)),
            ("%", -0.01, None),
            ("ns", 2e30, Some(OutOfRange::TooLarge)),
            ("%", f64::INFINITY, Some(OutOfRange::TooLarge)),
            ("byte/s", -3.0, Some(OutOfRange::Negative)),
        ];
        for (unit, v, want) in cases {
            assert_eq!(check(unit, v), want, "{v} {unit}");
        }
    }

    #[test]
    fn event_times() {
        let cases = [
            (0.5, None),
            (0.0, None),
            (MAX_EVENT_MS, None),
            (1e300, Some(OutOfRange::TooLarge)),
            (-1e300, Some(OutOfRange::Negative)),
            (1.7e308, Some(OutOfRange::TooLarge)),
            (f64::NAN, Some(OutOfRange::TooLarge)),
            (f64::NEG_INFINITY, Some(OutOfRange::TooLarge)),
        ];
        for (ms, want) in cases {
            assert_eq!(check_event_ms(ms), want, "{ms} ms");
        }
    }

    #[test]
    fn amounts_are_told_from_percentages() {
        for unit in [
            "ns",
            "byte",
            "hz",
            "inst",
            "cycle",
            "byte/s",
            "sector/s",
            "inst/cycle",
        ] {
            assert!(is_amount(unit), "{unit}");
        }
        for unit in ["%", "", "SM", "%/byte", "%/register", "pass", "byte/%"] {
            assert!(!is_amount(unit), "{unit}");
        }
    }
}
