//! Turns one exported cell into a [`MetricValue`] in base units.
//!
//! ncu writes numbers with thousands separators inside quotes (`"4,294,976,256"`,
//! `"3,199,426,981.74"`), writes `n/a`, `no data` or nothing where a metric has no value, and
//! sometimes `nan`. Everything that is not a number (`PolicySpread`, `(256, 1, 1)`) is kept
//! as text. A comma is only taken as a thousands separator where it groups digits by three,
//! so a decimal comma (`3,20`) stays text rather than becoming a wrong number.
//!
//! A number no measurement can have is out of range and stored as missing, with a warning
//! from the page reader: a negative amount (a duration, size, rate or count; percentages may
//! be slightly negative in real exports and are kept), or a magnitude above
//! [`MAX_MAGNITUDE`]. Kept, such a value would poison every sum and chart built on it
//! (`1e308` plus anything is infinite; a negative duration gives a negative bandwidth).

use crate::artifact::MetricValue;

use super::units::UnitScale;

pub use crate::range::{OutOfRange, MAX_MAGNITUDE};

/// What one cell held.
#[derive(Clone, Debug, PartialEq)]
pub enum Cell {
    /// A finite number, already converted to the base unit.
    Number(f64),
    /// `n/a`, `no data` or an empty cell.
    Missing,
    /// A number spelled as not finite (`nan`, `inf`, `infinity`).
    NonFinite,
    /// A number no measurement can have (see the module documentation).
    OutOfRange(OutOfRange),
    /// Anything else, kept as text.
    Text,
}

impl Cell {
    /// Whether the cell held something that looked like a number but is stored as missing
    /// (`nan`, or out of range): the reader warns about these.
    pub fn is_dropped_number(&self) -> bool {
        matches!(self, Cell::NonFinite | Cell::OutOfRange(_))
    }
}

/// Longest number text the fast path handles; longer cells are text.
const MAX_NUMBER_LEN: usize = 64;

/// A small stack buffer for a number with its separators removed.
struct NumBuf {
    bytes: [u8; MAX_NUMBER_LEN + 16],
    len: usize,
}

impl NumBuf {
    fn new() -> Self {
        NumBuf {
            bytes: [0; MAX_NUMBER_LEN + 16],
            len: 0,
        }
    }

    fn push(&mut self, b: u8) -> Option<()> {
        let slot = self.bytes.get_mut(self.len)?;
        *slot = b;
        self.len += 1;
        Some(())
    }

    fn push_i32(&mut self, v: i32) -> Option<()> {
        if v < 0 {
            self.push(b'-')?;
        }
        let mut digits = [0u8; 10];
        let mut n = v.unsigned_abs();
        let mut count = 0;
        loop {
            *digits.get_mut(count)? = b'0' + (n % 10) as u8;
            count += 1;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        for i in (0..count).rev() {
            self.push(*digits.get(i)?)?;
        }
        Some(())
    }

    fn as_str(&self) -> Option<&str> {
        std::str::from_utf8(self.bytes.get(..self.len)?).ok()
    }
}

/// Exact powers of ten up to 10^22, the largest exactly representable in an `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// Largest mantissa the fast path takes: every integer up to 2^53 is exact in an `f64`.
const MAX_EXACT_MANTISSA: u64 = 1 << 53;

/// Parses a number with optional thousands separators, shifting it by `exp10` powers of
/// ten. Returns `None` for anything that is not such a number (text, `nan`, empty).
///
/// The result is the correctly rounded value of the scaled decimal number, so `2.85` shifted
/// by 6 is exactly 2,850,000. Most cells take a fast path: a mantissa below 2^53 times or
/// divided by an exact power of ten up to 10^22 is one correctly rounded operation
/// (Clinger's fast path); anything else goes to the standard library's parser.
pub fn parse_number(text: &[u8], exp10: i32) -> Option<f64> {
    let text = text.trim_ascii();
    if text.is_empty() || text.len() > MAX_NUMBER_LEN {
        return None;
    }
    let mut mantissa: u64 = 0;
    let mut exact = true;
    let mut i = 0;
    let mut negative = false;
    if let Some(&sign @ (b'+' | b'-')) = text.first() {
        negative = sign == b'-';
        i += 1;
    }
    let mut add_digit = |c: u8| {
        if exact {
            match mantissa
                .checked_mul(10)
                .and_then(|m| m.checked_add(u64::from(c - b'0')))
            {
                Some(m) if m <= MAX_EXACT_MANTISSA => mantissa = m,
                _ => exact = false,
            }
        }
    };
    // Integer part, digits grouped by commas: 1-3 digits, then groups of exactly 3.
    let mut digits = 0usize;
    let mut group = 0usize;
    let mut grouped = false;
    while let Some(&c) = text.get(i) {
        match c {
            b'0'..=b'9' => {
                add_digit(c);
                digits += 1;
                group += 1;
            }
            b',' => {
                if group == 0 || (!grouped && group > 3) || (grouped && group != 3) {
                    return None;
                }
                grouped = true;
                group = 0;
            }
            _ => break,
        }
        i += 1;
    }
    if grouped && group != 3 {
        return None;
    }
    let mut fraction_digits: i32 = 0;
    if text.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c @ b'0'..=b'9') = text.get(i) {
            add_digit(c);
            digits += 1;
            fraction_digits += 1;
            i += 1;
        }
    }
    if digits == 0 {
        return None;
    }
    // Exponent, folded together with the unit's power of ten so that the decimal point is
    // shifted in the text rather than by a multiplication that could round.
    let mut exponent: i32 = exp10;
    let mantissa_end = i;
    if let Some(b'e' | b'E') = text.get(i) {
        i += 1;
        let negative = match text.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let mut value: i32 = 0;
        let mut exp_digits = 0;
        while let Some(&c @ b'0'..=b'9') = text.get(i) {
            value = value.saturating_mul(10).saturating_add(i32::from(c - b'0'));
            exp_digits += 1;
            i += 1;
        }
        if exp_digits == 0 {
            return None;
        }
        // Clamped: anything this large is infinite or zero as an f64 anyway.
        let value = value.min(100_000);
        exponent += if negative { -value } else { value };
    }
    if i != text.len() {
        return None;
    }
    let decimal_exponent = exponent - fraction_digits;
    if exact {
        let m = mantissa as f64;
        let fast = match usize::try_from(decimal_exponent.unsigned_abs()) {
            Ok(e) if decimal_exponent >= 0 => POW10.get(e).map(|p| m * p),
            Ok(e) => POW10.get(e).map(|p| m / p),
            Err(_) => None,
        };
        if let Some(v) = fast {
            return Some(if negative { -v } else { v });
        }
    }
    // The slow path: the digits without separators, with the combined exponent.
    let mut buf = NumBuf::new();
    for &c in text.get(..mantissa_end)?.iter().filter(|&&c| c != b',') {
        buf.push(c)?;
    }
    if exponent != 0 {
        buf.push(b'e')?;
        buf.push_i32(exponent)?;
    }
    buf.as_str()?.parse::<f64>().ok()
}

/// Whether a cell says "no value".
fn is_missing(text: &[u8]) -> bool {
    text.is_empty() || text.eq_ignore_ascii_case(b"n/a") || text.eq_ignore_ascii_case(b"no data")
}

/// Whether a cell spells a non-finite number.
fn is_non_finite_word(text: &[u8]) -> bool {
    let unsigned = match text.first() {
        Some(b'+' | b'-') => text.get(1..).unwrap_or_default(),
        _ => text,
    };
    [&b"nan"[..], b"inf", b"infinity"]
        .iter()
        .any(|w| unsigned.eq_ignore_ascii_case(w))
}

/// Classifies a cell and converts a number to the base unit of `scale`.
pub fn classify(text: &[u8], scale: &UnitScale) -> Cell {
    let text = text.trim_ascii();
    if is_missing(text) {
        return Cell::Missing;
    }
    match parse_number(text, scale.exp10) {
        Some(v) => {
            let v = if scale.factor == 1.0 {
                v
            } else {
                v * scale.factor
            };
            match crate::range::check(&scale.unit, v) {
                Some(why) => Cell::OutOfRange(why),
                None => Cell::Number(v),
            }
        }
        None if is_non_finite_word(text) => Cell::NonFinite,
        None => Cell::Text,
    }
}

/// The [`MetricValue`] of a cell; text keeps the cell's characters (trimmed).
pub fn to_value(text: &[u8], cell: Cell) -> MetricValue {
    match cell {
        Cell::Number(v) => MetricValue::Number(v),
        Cell::Missing | Cell::NonFinite | Cell::OutOfRange(_) => MetricValue::Missing,
        Cell::Text => MetricValue::Text(String::from_utf8_lossy(text.trim_ascii()).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ncu::units::normalize_unit;

    #[test]
    fn numbers_with_separators_and_scales() {
        // (cell, unit, expected number)
        let table: &[(&str, &str, f64)] = &[
            ("4,294,976,256", "byte", 4_294_976_256.0),
            ("3,199,426,981.74", "hz", 3_199_426_981.74),
            ("1,056", "", 1056.0),
            ("0", "%", 0.0),
            ("62.40", "%", 62.40),
            ("-1.5", "", -1.5),
            ("+7", "", 7.0),
            (".5", "", 0.5),
            ("2.", "", 2.0),
            ("1e3", "", 1000.0),
            ("1.5E-3", "", 0.0015),
            (" 12 ", "", 12.0),
            ("2.85", "ms", 2_850_000.0),
            ("2.852960", "ms", 2_852_960.0),
            ("4.295008", "Gbyte", 4_295_008_000.0),
            ("1.98", "Ghz", 1_980_000_000.0),
            ("3.00", "Tbyte/s", 3.0e12),
            ("2", "KiB", 2048.0),
            ("2.614000", "%/Kbyte", 2614.0),
            ("1e-3", "ms", 1000.0),
        ];
        for &(cell, unit, expected) in table {
            let got = classify(cell.as_bytes(), &normalize_unit(unit));
            assert_eq!(got, Cell::Number(expected), "cell {cell:?} in {unit:?}");
        }
    }

    #[test]
    fn fast_path_matches_the_standard_parser() {
        // (text, power of ten) pairs on both sides of the fast path's limits.
        let cases: &[(&str, i32)] = &[
            ("9007199254740992", 0),
            ("9007199254740993", 0),
            ("123456789012345678901234", 0),
            ("0.1", 0),
            ("0.3", 0),
            ("1.7976931348623157", 308),
            ("4.9", -324),
            ("2.852960", 6),
            ("3.004230", 12),
            ("0.000013", 9),
            ("1", 22),
            ("1", 23),
            ("1", -22),
            ("1", -23),
            ("123.456", -30),
            ("-0", 0),
            ("-2.5", 3),
            ("5", -324),
            ("0.0000000000000000000000001", 0),
        ];
        for &(text, exp10) in cases {
            let expected: f64 = format!("{text}e{exp10}").parse().expect("std parses");
            let got = parse_number(text.as_bytes(), exp10).expect("parses");
            assert_eq!(got.to_bits(), expected.to_bits(), "{text}e{exp10}");
        }
    }

    #[test]
    fn missing_text_and_non_finite() {
        let none = normalize_unit("");
        let table: &[(&str, Cell)] = &[
            ("", Cell::Missing),
            ("   ", Cell::Missing),
            ("n/a", Cell::Missing),
            ("N/A", Cell::Missing),
            ("no data", Cell::Missing),
            ("nan", Cell::NonFinite),
            ("NaN", Cell::NonFinite),
            ("-nan", Cell::NonFinite),
            ("inf", Cell::NonFinite),
            ("-Infinity", Cell::NonFinite),
            ("1e999", Cell::OutOfRange(OutOfRange::TooLarge)),
            ("PolicySpread", Cell::Text),
            ("all", Cell::Text),
            ("(256, 1, 1)", Cell::Text),
            ("3,20", Cell::Text),
            ("1,0000", Cell::Text),
            ("1234,567", Cell::Text),
            (",123", Cell::Text),
            ("1,,234", Cell::Text),
            ("1.2.3", Cell::Text),
            ("1e", Cell::Text),
            ("-", Cell::Text),
            (".", Cell::Text),
            ("9.0", Cell::Number(9.0)),
            ("12abc", Cell::Text),
        ];
        for (cell, expected) in table {
            assert_eq!(&classify(cell.as_bytes(), &none), expected, "cell {cell:?}");
        }
        let long = "1".repeat(100);
        assert_eq!(classify(long.as_bytes(), &none), Cell::Text);
    }

    #[test]
    fn out_of_range_numbers() {
        // (cell, unit as printed, expected)
        let negative = Cell::OutOfRange(OutOfRange::Negative);
        let too_large = Cell::OutOfRange(OutOfRange::TooLarge);
        let table: &[(&str, &str, Cell)] = &[
            ("-2,854,816", "ns", negative.clone()),
            ("-2.85", "ms", negative.clone()),
            ("-1", "byte", negative.clone()),
            ("-3.00", "Tbyte/s", negative.clone()),
            ("-1.98", "Ghz", negative.clone()),
            ("-5", "inst", negative.clone()),
            ("-0.59", "inst/cycle", negative.clone()),
            ("-1,024", "byte/block", negative.clone()),
            // Real exports have slightly negative percentages; unknown units are kept too.
            ("-0.01", "%", Cell::Number(-0.01)),
            ("-0.5", "%/byte", Cell::Number(-0.5)),
            ("-1.5", "", Cell::Number(-1.5)),
            ("-2", "SM", Cell::Number(-2.0)),
            ("-0", "ns", Cell::Number(-0.0)),
            ("1e308", "byte", too_large.clone()),
            ("1e308", "", too_large.clone()),
            ("-1e308", "%", too_large.clone()),
            ("1e31", "inst", too_large.clone()),
            // Finite as written, infinite once scaled to base units.
            ("1e303", "Tbyte/s", too_large.clone()),
            ("1e30", "", Cell::Number(1e30)),
            (
                "18,446,744,073,709,551,615",
                "byte",
                Cell::Number(18_446_744_073_709_551_615.0),
            ),
        ];
        for (cell, unit, expected) in table {
            let got = classify(cell.as_bytes(), &normalize_unit(unit));
            assert_eq!(&got, expected, "cell {cell:?} in {unit:?}");
            assert_eq!(
                got.is_dropped_number(),
                matches!(expected, Cell::OutOfRange(_))
            );
        }
        assert_eq!(to_value(b"1e308", too_large), MetricValue::Missing);
    }

    #[test]
    fn values_keep_text() {
        assert_eq!(
            to_value(b" all ", Cell::Text),
            MetricValue::Text("all".to_owned())
        );
        assert_eq!(to_value(b"nan", Cell::NonFinite), MetricValue::Missing);
        assert_eq!(to_value(b"1", Cell::Number(1.0)), MetricValue::Number(1.0));
    }
}
