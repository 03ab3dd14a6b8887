//! Unit normalization for Nsight Compute exports.
//!
//! ncu scales units per column unless told `--print-units base` (`ms`, `Gbyte`, `Ghz`,
//! `Tbyte/s`, `sector/ns`, ...). The reader converts every number to a base unit on load so
//! that consumers never see a scaled value: time in `ns`, frequency in `hz`, sizes in `byte`,
//! rates per second (`byte/s`, `sector/s`), and counts without prefixes (`inst`, not
//! `Kinst`). Units it does not know (`%`, `SM`, `register/thread`) are kept as they are.
//!
//! A scale is a power of ten plus, for the binary sizes (`KiB`), an exact power-of-two
//! factor. Keeping the power of ten separate lets the value parser shift the decimal point
//! in the text (`2.85` ms is parsed as `2.85e6` ns), so `4.295008` Gbyte becomes exactly
//! 4,295,008,000 byte rather than a product with a rounding error.

use crate::model::range::COUNT_BASES;

/// How to turn a number printed in some unit into the base unit.
#[derive(Clone, Debug, PartialEq)]
pub struct UnitScale {
    /// The base unit the value is stored in (`ns`, `byte`, `byte/s`, `%`, or empty).
    pub unit: String,
    /// Power of ten to multiply by (`ms` to `ns` is 6).
    pub exp10: i32,
    /// Extra exact factor, a power of two for binary sizes (`KiB` is 1024), else 1.
    pub factor: f64,
}

impl UnitScale {
    /// A unit kept as it is: no conversion.
    pub fn identity(unit: &str) -> Self {
        UnitScale {
            unit: unit.to_owned(),
            exp10: 0,
            factor: 1.0,
        }
    }

    /// Whether converting to the base unit changes the number.
    pub fn is_identity(&self) -> bool {
        self.exp10 == 0 && self.factor == 1.0
    }

    /// Converts a value in the original unit to the base unit.
    ///
    /// The reader itself shifts the decimal point in the text instead (see the module
    /// documentation); this is for numbers that are already `f64`.
    pub fn apply(&self, value: f64) -> f64 {
        value * 10f64.powi(self.exp10) * self.factor
    }
}

/// Which side of a `num/den` unit a part is on: time is `ns` in a numerator (a duration) and
/// `s` in a denominator (a rate per second).
#[derive(Clone, Copy, PartialEq)]
enum Side {
    Numerator,
    Denominator,
}

/// Decimal prefixes on sizes and counts, as ncu prints them.
fn decimal_prefix(c: char) -> Option<i32> {
    match c {
        'k' | 'K' => Some(3),
        'M' => Some(6),
        'G' => Some(9),
        'T' => Some(12),
        'P' => Some(15),
        _ => None,
    }
}

/// Time units, as a power of ten of one second.
fn time_exp(s: &str) -> Option<i32> {
    match s {
        "ns" | "nsecond" | "nseconds" => Some(-9),
        "us" | "usecond" | "useconds" | "\u{b5}s" => Some(-6),
        "ms" | "msecond" | "mseconds" => Some(-3),
        "s" | "sec" | "second" | "seconds" => Some(0),
        _ => None,
    }
}

/// Normalizes one part of a unit (no `/`): base name, power of ten, binary factor.
fn part(s: &str, side: Side) -> (String, i32, f64) {
    if let Some(e) = time_exp(s) {
        return match side {
            Side::Numerator => ("ns".to_owned(), e + 9, 1.0),
            Side::Denominator => ("s".to_owned(), e, 1.0),
        };
    }
    match s.to_ascii_lowercase().as_str() {
        "hz" => return ("hz".to_owned(), 0, 1.0),
        "khz" => return ("hz".to_owned(), 3, 1.0),
        "mhz" => return ("hz".to_owned(), 6, 1.0),
        "ghz" => return ("hz".to_owned(), 9, 1.0),
        "thz" => return ("hz".to_owned(), 12, 1.0),
        _ => {}
    }
    match s {
        "byte" | "bytes" => return ("byte".to_owned(), 0, 1.0),
        "KiB" => return ("byte".to_owned(), 0, 1024.0),
        "MiB" => return ("byte".to_owned(), 0, 1024.0 * 1024.0),
        "GiB" => return ("byte".to_owned(), 0, 1024.0 * 1024.0 * 1024.0),
        "TiB" => return ("byte".to_owned(), 0, 1024.0 * 1024.0 * 1024.0 * 1024.0),
        _ => {}
    }
    if COUNT_BASES.contains(&s) {
        return (s.to_owned(), 0, 1.0);
    }
    let mut chars = s.chars();
    if let Some(e) = chars.next().and_then(decimal_prefix) {
        let rest = chars.as_str();
        if rest == "byte" || rest == "bytes" {
            // ncu scales a size in a denominator as if it were a numerator: the report
            // value 2,614 %/byte (printed so with --print-units base) is printed
            // `2.614 %/Kbyte` by default. So the value is multiplied by the prefix either
            // way (the caller subtracts a denominator's power of ten).
            let e = if side == Side::Denominator { -e } else { e };
            return ("byte".to_owned(), e, 1.0);
        }
        if COUNT_BASES.contains(&rest) {
            return (rest.to_owned(), e, 1.0);
        }
    }
    (s.to_owned(), 0, 1.0)
}

/// The base unit and conversion for a unit as ncu printed it.
///
/// `ms` becomes `ns` (x 10^6), `Ghz` becomes `hz` (x 10^9), `Gbyte/s` becomes `byte/s`
/// (x 10^9), `sector/ns` becomes `sector/s` (x 10^9), `%/Kbyte` becomes `%/byte`
/// (x 10^3, the way ncu scales it: see `part`), `Kinst` becomes `inst` (x 10^3). Anything else is kept unchanged.
pub fn normalize_unit(unit: &str) -> UnitScale {
    let unit = unit.trim();
    if unit.is_empty() {
        return UnitScale::identity("");
    }
    match unit.split_once('/') {
        Some((num, den)) if !num.is_empty() && !den.is_empty() && !den.contains('/') => {
            let (num_base, num_exp, num_factor) = part(num.trim(), Side::Numerator);
            let (den_base, den_exp, den_factor) = part(den.trim(), Side::Denominator);
            UnitScale {
                unit: format!("{num_base}/{den_base}"),
                exp10: num_exp - den_exp,
                factor: num_factor / den_factor,
            }
        }
        Some(_) => UnitScale::identity(unit),
        None => {
            let (unit, exp10, factor) = part(unit, Side::Numerator);
            UnitScale {
                unit,
                exp10,
                factor,
            }
        }
    }
}

/// Units ncu writes that have no prefix to take off and are no amount: percentages, SMs,
/// replay passes.
const OTHER_UNITS: &[&str] = &["%", "SM", "pass", "passes"];

/// Whether this reader knows `unit` as ncu printed it: empty (unit-less), or each side of
/// a `num/den` a time, frequency, size, count, or a percentage, SM or pass. A value in a unit
/// it does not know (`fortnight`, `furlong`) cannot be put in base units, for the same
/// reason a raw page without units is refused; the readers store it as missing and warn.
pub fn is_known_unit(unit: &str) -> bool {
    let unit = unit.trim();
    if unit.is_empty() {
        return true;
    }
    let known = |s: &str, side: Side| {
        let (base, _, _) = part(s.trim(), side);
        matches!(base.as_str(), "ns" | "s" | "hz" | "byte")
            || COUNT_BASES.contains(&base.as_str())
            || OTHER_UNITS.contains(&base.as_str())
    };
    match unit.split_once('/') {
        Some((num, den)) if !den.contains('/') => {
            known(num, Side::Numerator) && known(den, Side::Denominator)
        }
        Some(_) => false,
        None => known(unit, Side::Numerator),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_normalize_to_base() {
        // (as printed, base unit, power of ten, binary factor)
        let table: &[(&str, &str, i32, f64)] = &[
            ("", "", 0, 1.0),
            ("ns", "ns", 0, 1.0),
            ("nsecond", "ns", 0, 1.0),
            ("us", "ns", 3, 1.0),
            ("usecond", "ns", 3, 1.0),
            ("ms", "ns", 6, 1.0),
            ("msecond", "ns", 6, 1.0),
            ("s", "ns", 9, 1.0),
            ("second", "ns", 9, 1.0),
            ("hz", "hz", 0, 1.0),
            ("khz", "hz", 3, 1.0),
            ("Khz", "hz", 3, 1.0),
            ("Mhz", "hz", 6, 1.0),
            ("MHz", "hz", 6, 1.0),
            ("Ghz", "hz", 9, 1.0),
            ("GHZ", "hz", 9, 1.0),
            ("byte", "byte", 0, 1.0),
            ("Kbyte", "byte", 3, 1.0),
            ("Mbyte", "byte", 6, 1.0),
            ("Gbyte", "byte", 9, 1.0),
            ("Tbyte", "byte", 12, 1.0),
            ("KiB", "byte", 0, 1024.0),
            ("MiB", "byte", 0, 1_048_576.0),
            ("GiB", "byte", 0, 1_073_741_824.0),
            ("byte/s", "byte/s", 0, 1.0),
            ("byte/second", "byte/s", 0, 1.0),
            ("Kbyte/s", "byte/s", 3, 1.0),
            ("Mbyte/s", "byte/s", 6, 1.0),
            ("Gbyte/s", "byte/s", 9, 1.0),
            ("Tbyte/s", "byte/s", 12, 1.0),
            ("Gbyte/second", "byte/s", 9, 1.0),
            ("byte/cycle", "byte/cycle", 0, 1.0),
            ("Kbyte/cycle", "byte/cycle", 3, 1.0),
            ("byte/block", "byte/block", 0, 1.0),
            ("Kbyte/block", "byte/block", 3, 1.0),
            ("byte/sector", "byte/sector", 0, 1.0),
            ("sector/s", "sector/s", 0, 1.0),
            ("sector/ns", "sector/s", 9, 1.0),
            ("sector/ms", "sector/s", 3, 1.0),
            ("cycle/nsecond", "cycle/s", 9, 1.0),
            ("inst/cycle", "inst/cycle", 0, 1.0),
            ("%", "%", 0, 1.0),
            ("%/register", "%/register", 0, 1.0),
            ("%/Kbyte", "%/byte", 3, 1.0),
            ("inst", "inst", 0, 1.0),
            ("Kinst", "inst", 3, 1.0),
            ("Minst", "inst", 6, 1.0),
            ("Gsector", "sector", 9, 1.0),
            ("Kcycle", "cycle", 3, 1.0),
            ("cycle", "cycle", 0, 1.0),
            ("sector", "sector", 0, 1.0),
            ("sectors", "sectors", 0, 1.0),
            ("warp", "warp", 0, 1.0),
            ("block", "block", 0, 1.0),
            ("thread", "thread", 0, 1.0),
            ("register/thread", "register/thread", 0, 1.0),
            ("request", "request", 0, 1.0),
            ("branches", "branches", 0, 1.0),
            ("SM", "SM", 0, 1.0),
            ("pass", "pass", 0, 1.0),
            ("cluster", "cluster", 0, 1.0),
            ("sample", "sample", 0, 1.0),
            ("Mystery", "Mystery", 0, 1.0),
            ("a/b/c", "a/b/c", 0, 1.0),
            (" ms ", "ns", 6, 1.0),
        ];
        for &(printed, base, exp10, factor) in table {
            let scale = normalize_unit(printed);
            assert_eq!(
                (scale.unit.as_str(), scale.exp10, scale.factor),
                (base, exp10, factor),
                "unit {printed:?}"
            );
        }
    }

    #[test]
    fn apply_scales_numbers() {
        assert_eq!(normalize_unit("ms").apply(2.0), 2_000_000.0);
        assert_eq!(normalize_unit("KiB").apply(2.0), 2048.0);
        assert!(normalize_unit("%").is_identity());
        assert!(!normalize_unit("Gbyte").is_identity());
    }
}
