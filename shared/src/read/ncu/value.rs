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

use crate::model::artifact::MetricValue;

use super::units::UnitScale;

use crate::model::range::{OutOfRange, MAX_MAGNITUDE};

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

    /// Appends `text` but its commas, without a branch per byte.
    fn push_without_commas(&mut self, text: &[u8]) -> Option<()> {
        if self.len + text.len() > self.bytes.len() {
            return None;
        }
        for &c in text {
            if let Some(slot) = self.bytes.get_mut(self.len) {
                *slot = c;
            }
            self.len += usize::from(c != b',');
        }
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
#[expect(
    clippy::too_many_lines,
    reason = "a number parser over one byte cursor (sign, grouped digits, fraction, exponent, then the fast or the slow path); split, each piece would hand the cursor and the mantissa back"
)]
pub fn parse_number(text: &[u8], exp10: i32) -> Option<f64> {
    let text = text.trim_ascii();
    if text.is_empty() || text.len() > MAX_NUMBER_LEN {
        return None;
    }
    let (negative, mut i) = match text.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    // Every digit goes into the mantissa; up to 19 of them cannot overflow a u64, and the
    // value is exact when it is at most 2^53 (else the slow path below takes the digits).
    let mut mantissa: u64 = 0;
    let mut digits: u32 = 0;
    // Integer part, digits grouped by commas: 1-3 digits, then groups of exactly 3.
    let mut group = 0usize;
    let mut grouped = false;
    while let Some(&c) = text.get(i) {
        let d = c.wrapping_sub(b'0');
        if d < 10 {
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d));
            digits += 1;
            group += 1;
        } else if c == b',' {
            if group == 0 || (!grouped && group > 3) || (grouped && group != 3) {
                return None;
            }
            grouped = true;
            group = 0;
        } else {
            break;
        }
        i += 1;
    }
    if grouped && group != 3 {
        return None;
    }
    let mut fraction_digits: i32 = 0;
    if text.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c) = text.get(i) {
            let d = c.wrapping_sub(b'0');
            if d >= 10 {
                break;
            }
            mantissa = mantissa.wrapping_mul(10).wrapping_add(u64::from(d));
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
    if digits <= 19 && mantissa <= MAX_EXACT_MANTISSA {
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

/// A plain decimal's cell `text` ([`plain_decimal`]) shifted by `exp10` powers of ten,
/// correctly rounded: its digits and point without separators, to the standard library's
/// parser, for the cells [`exact_scaled`] does not take.
#[inline(never)]
fn parse_plain(text: &[u8], exp10: i32) -> Option<f64> {
    let mut buf = NumBuf::new();
    buf.push_without_commas(text)?;
    buf.push(b'e')?;
    buf.push_i32(exp10)?;
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
    classify_in(text, text.len(), scale)
}

/// [`classify`] of the cell `tail[..len]`, whose buffer runs on (the rest of the record), so
/// that its first bytes are read eight at a time without a copy when at least eight follow.
#[inline]
pub fn classify_in(tail: &[u8], len: usize, scale: &UnitScale) -> Cell {
    let text = tail.get(..len).unwrap_or(tail);
    // Most cells are plain digits with at most a decimal point (`0`, `5595110.234848`):
    // read eight bytes at a time, with few branches to mispredict (cell lengths vary from
    // column to column, so loops over single bytes mispredict their ends).
    if let Some((m, fraction_digits)) = plain_decimal(tail, text.len()) {
        let exp10 = scale.exp10.checked_sub(fraction_digits);
        if let Some(v) = exp10.and_then(|e| exact_scaled(m, e)) {
            return number_cell(v, scale);
        }
        // More digits than one correctly rounded operation takes (`116,455,152,130,441.47`):
        // the text without its separators to the standard library's parser, with no second
        // reading of its own.
        if let Some(v) = parse_plain(text, scale.exp10) {
            return number_cell(v, scale);
        }
    }
    classify_general(text, scale)
}

/// The cell of a plain decimal read ahead ([`plain_decimal`]'s digits `m` and
/// `fraction_digits`), in the unit of `scale`; `None` when the general parser must decide
/// (the scaled value is not one correctly rounded operation away).
#[inline]
pub(crate) fn classify_plain(m: u64, fraction_digits: i32, scale: &UnitScale) -> Option<Cell> {
    let v = exact_scaled(m, scale.exp10.checked_sub(fraction_digits)?)?;
    Some(number_cell(v, scale))
}

/// [`classify_plain`] when the result is a number in range, the usual case: the number
/// alone, so the caller's loop has no cell to build and match.
#[inline]
pub(crate) fn plain_number(m: u64, fraction_digits: i32, scale: &UnitScale) -> Option<f64> {
    let v = exact_scaled(m, scale.exp10.checked_sub(fraction_digits)?)?;
    let v = if scale.factor == 1.0 {
        v
    } else {
        v * scale.factor
    };
    // Plain decimals are not negative: only the magnitude can be out of range.
    (v <= MAX_MAGNITUDE).then_some(v)
}

/// A number in the unit of `scale` as a cell: in the base unit, or out of range.
#[inline]
fn number_cell(v: f64, scale: &UnitScale) -> Cell {
    let v = if scale.factor == 1.0 {
        v
    } else {
        v * scale.factor
    };
    match crate::model::range::check(&scale.unit, v) {
        Some(why) => Cell::OutOfRange(why),
        None => Cell::Number(v),
    }
}

/// [`classify`] for any cell.
#[inline(never)]
fn classify_general(text: &[u8], scale: &UnitScale) -> Cell {
    let text = text.trim_ascii();
    if is_missing(text) {
        return Cell::Missing;
    }
    match parse_number(text, scale.exp10) {
        Some(v) => number_cell(v, scale),
        None if is_non_finite_word(text) => Cell::NonFinite,
        None => Cell::Text,
    }
}

/// The eight bytes of `tail` from `at` as a little-endian word, zero-padded past its end.
#[inline]
fn load8(tail: &[u8], at: usize) -> u64 {
    let rest = tail.get(at..).unwrap_or_default();
    match rest.first_chunk::<8>() {
        Some(head) => u64::from_le_bytes(*head),
        None => {
            let mut word = 0u64;
            for (i, &b) in rest.iter().enumerate() {
                word |= u64::from(b) << (8 * i);
            }
            word
        }
    }
}

/// How many of the word's bytes, from the first, are ASCII digits (0 to 8).
fn leading_digits(word: u64) -> u32 {
    const HIGH: u64 = 0xf0f0_f0f0_f0f0_f0f0;
    // A digit byte's high nibble is 3, and adding 6 leaves it 3. A carry out of a byte
    // (from 0xfa and above, not a digit) only reaches the bytes after it, which do not
    // count once one byte is not a digit.
    let high = word & HIGH;
    let high_plus_6 = (word.wrapping_add(0x0606_0606_0606_0606) & HIGH) >> 4;
    let not_digit = (high | high_plus_6) ^ 0x3333_3333_3333_3333;
    not_digit.trailing_zeros() / 8
}

/// The value of the first `count` bytes of the word, which are digits (`count` 1 to 8).
fn digits_value(word: u64, count: u32) -> u64 {
    // The digits moved to the word's end, zero bytes before them as leading zeros, then
    // combined pairwise: 2 digits per 16 bits, 4 per 32, 8.
    let v = word.wrapping_shl(8 * (8 - count)) & 0x0f0f_0f0f_0f0f_0f0f;
    let v = v.wrapping_mul(10).wrapping_add(v >> 8);
    let v1 = (v & 0x0000_00ff_0000_00ff).wrapping_mul(100 + (1_000_000 << 32));
    let v2 = ((v >> 16) & 0x0000_00ff_0000_00ff).wrapping_mul(1 + (10_000 << 32));
    u64::from(((v1.wrapping_add(v2)) >> 32) as u32)
}

/// A cell of plain digits: 1 to 16 digits, or 1 to 3 then groups of `,ddd`, optionally a
/// point and 1 to 8 more digits, 19 digits at most: (the digits as an integer, how many
/// follow the point). `None` for anything else, which the general parser reads. The cell
/// is `tail[..len]` (see [`classify_in`]).
#[inline]
pub(crate) fn plain_decimal(tail: &[u8], len: usize) -> Option<(u64, i32)> {
    if len == 0 || len > 32 || tail.len() < len {
        return None;
    }
    // Digits may follow the cell in `tail`: only the cell's own count.
    let word = load8(tail, 0);
    let whole = (leading_digits(word) as usize).min(len);
    if whole == 0 {
        return None;
    }
    let mut m = digits_value(word, whole as u32);
    let mut pos = whole;
    let mut digits = whole;
    if whole == 8 && len > 8 {
        let word = load8(tail, 8);
        let more = (leading_digits(word) as usize).min(len - 8);
        if more == 8 {
            return None;
        }
        if more > 0 {
            m = m * POW10_U64.get(more)? + digits_value(word, more as u32);
        }
        pos += more;
        digits += more;
    }
    if tail.get(pos) == Some(&b',') && pos < len {
        // Thousands separators: after 1 to 3 digits, groups of exactly three.
        if whole > 3 {
            return None;
        }
        while pos < len && tail.get(pos) == Some(&b',') {
            // `,ddd`, read as one word: the three bytes after the comma must be digits.
            let group = load8(tail, pos) >> 8;
            // At most 19 digits: no overflow.
            if pos + 4 > len || digits + 3 > 19 || leading_digits(group) < 3 {
                return None;
            }
            m = m * 1000 + digits_value(group, 3);
            digits += 3;
            pos += 4;
        }
    }
    if pos == len {
        return Some((m, 0));
    }
    if tail.get(pos) != Some(&b'.') {
        return None;
    }
    let fraction_len = len - pos - 1;
    if fraction_len == 0 || fraction_len > 8 || digits + fraction_len > 19 {
        return None;
    }
    let word = load8(tail, pos + 1);
    if (leading_digits(word) as usize) < fraction_len {
        return None;
    }
    let count = fraction_len as u32;
    let shift = POW10_U64.get(fraction_len)?;
    Some((m * shift + digits_value(word, count), count as i32))
}

/// [`plain_decimal`] of a cell of `len` bytes (1 to 7) held in the low bytes of `word`
/// (little-endian; the bytes above it may be anything): the record splitter's form, which
/// has the word at hand where it found the cell's end. It reads cells of digits with at
/// most one other byte, a point (`0.56`) or a thousands separator (`1,024`), nearly every
/// short cell, with one branch: the other byte is taken out and the digits read as one
/// run, wherever it was. `None` for anything else (which includes `1,024.5`, left to
/// [`plain_decimal`]).
#[inline(always)]
pub(crate) fn plain_in_word(word: u64, len: usize) -> Option<(u64, i32)> {
    if len == 0 || len >= 8 {
        return None;
    }
    let len = len as u32;
    // The cell's bytes that are no digit: at most one.
    let other = non_digits(word) & (u64::MAX >> (64 - 8 * len));
    if other & other.wrapping_sub(1) != 0 {
        return None;
    }
    // Where the other byte is (the cell's length when there is none), and what it is.
    let at = if other == 0 {
        len
    } else {
        other.trailing_zeros() / 8
    };
    let byte = (word >> (8 * at)) as u8;
    let point = other != 0 && byte == b'.';
    let comma = other != 0 && byte == b',';
    // A point between digits; a separator after 1 to 3 digits, before exactly three.
    let plain = other == 0
        || (point && at >= 1 && at + 2 <= len)
        || (comma && (1..=3).contains(&at) && at + 4 == len);
    if !plain {
        return None;
    }
    // The digits before the other byte, then those after it, moved down over it.
    let below = word & !(u64::MAX << (8 * at));
    let above = (word >> (8 * at)) >> 8;
    let run = below | (above << (8 * at));
    let count = len - u32::from(other != 0);
    let fraction = if point { len - at - 1 } else { 0 };
    Some((digits_value(run, count), fraction as i32))
}

/// The high bit of each byte of `word` that is no ASCII digit, exactly (no carries between
/// bytes).
fn non_digits(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ 0x3030_3030_3030_3030;
    // A byte of x is below 10 just for a digit; adding 0x76 to its low seven bits sets
    // their high bit from 10 on, with no carry out (0x7f + 0x76 = 0xf5).
    (((x & LOW7).wrapping_add(0x7676_7676_7676_7676)) | x) & !LOW7
}

/// Powers of ten up to 10^8 as integers.
const POW10_U64: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// `m` times ten to `exp10`, when one correctly rounded operation gives it (`m` at most
/// 2^53, `exp10` within 22 of zero: Clinger's fast path).
fn exact_scaled(m: u64, exp10: i32) -> Option<f64> {
    if m > MAX_EXACT_MANTISSA {
        return None;
    }
    let m = m as f64;
    let p = POW10.get(usize::try_from(exp10.unsigned_abs()).ok()?)?;
    Some(if exp10 >= 0 { m * p } else { m / p })
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
    use crate::read::ncu::units::normalize_unit;

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
            ("12345678901234567890", 0),
            ("00000000000000000001.5", 3),
            ("18,446,744,073,709,551,616", 0),
            ("99999999999999999999", -5),
            ("1,505,821,546,744.43", 0),
            ("5595110.234848", 0),
        ];
        for &(text, exp10) in cases {
            let plain = text.replace(',', "");
            let expected: f64 = format!("{plain}e{exp10}").parse().expect("std parses");
            let got = parse_number(text.as_bytes(), exp10).expect("parses");
            assert_eq!(got.to_bits(), expected.to_bits(), "{text}e{exp10}");
        }
    }

    #[test]
    fn random_numbers_match_the_standard_parser() {
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let digits = 1 + (next() % 24) as usize;
            let mut text: String = (0..digits)
                .map(|_| char::from(b'0' + (next() % 10) as u8))
                .collect();
            if next() % 2 == 0 {
                let at = (next() as usize) % (text.len() + 1);
                text.insert(at, '.');
            }
            let exp10 = (next() % 61) as i32 - 30;
            let Ok(expected) = format!("{text}e{exp10}").parse::<f64>() else {
                continue;
            };
            let got = parse_number(text.as_bytes(), exp10);
            assert_eq!(
                got.map(f64::to_bits),
                Some(expected.to_bits()),
                "{text}e{exp10}"
            );
        }
    }

    #[test]
    #[expect(
        clippy::too_many_lines,
        reason = "a table of cells beside the general parser's answer, read best side by side"
    )]
    fn the_fast_path_agrees_with_the_general_parser() {
        // Random cells of digits, points and other bytes, inside random buffers: the eight-
        // bytes-at-a-time path must give exactly what the byte-by-byte parser gives.
        let pieces = b"0123456789.,.0 e-x\xff";
        let scales = [
            normalize_unit(""),
            normalize_unit("ms"),
            normalize_unit("us"),
        ];
        let mut state: u64 = 0x1234_5678_9abc_def1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..300_000 {
            let (mut buffer, len) = if round % 3 == 0 {
                // A number as ncu prints it: thousands separators, maybe a fraction.
                let int = next() >> (next() % 64);
                let mut text = int.to_string();
                let mut grouped = String::new();
                for (i, ch) in text.chars().enumerate() {
                    if i > 0 && (text.len() - i) % 3 == 0 {
                        grouped.push(',');
                    }
                    grouped.push(ch);
                }
                text = grouped;
                if next() % 2 == 0 {
                    let fraction = next() % 1_000_000_000;
                    let width = 1 + (next() % 10) as usize;
                    text.push_str(&format!(".{fraction:0width$}"));
                    text.truncate(text.find('.').map_or(text.len(), |p| p + 1 + width));
                }
                let len = text.len();
                (text.into_bytes(), len)
            } else {
                let len = (next() % 20) as usize;
                let buffer: Vec<u8> = (0..len)
                    .map(|_| {
                        if next() % 4 != 0 {
                            b'0' + (next() % 10) as u8
                        } else {
                            pieces[(next() % pieces.len() as u64) as usize]
                        }
                    })
                    .collect();
                (buffer, len)
            };
            for _ in 0..(next() % 12) {
                buffer.push(if next() % 2 == 0 {
                    b'0' + (next() % 10) as u8
                } else {
                    pieces[(next() % pieces.len() as u64) as usize]
                });
            }
            let scale = &scales[(next() % 3) as usize];
            let text = &buffer[..len];
            assert_eq!(
                classify_in(&buffer, len, scale),
                classify_general(text, scale),
                "{:?} in {:?}",
                String::from_utf8_lossy(text),
                String::from_utf8_lossy(&buffer)
            );
        }
        // The splitter's form, on cells of up to 7 bytes with anything after them.
        for _ in 0..200_000 {
            let len = 1 + (next() % 7) as usize;
            let mut bytes = [0u8; 8];
            for (i, b) in bytes.iter_mut().enumerate() {
                *b = if i < len && next() % 5 != 0 {
                    b'0' + (next() % 10) as u8
                } else {
                    pieces[(next() % pieces.len() as u64) as usize]
                };
            }
            let word = u64::from_le_bytes(bytes);
            // A separator and a point together are left to the general form.
            let got = plain_in_word(word, len);
            let want = plain_decimal(&bytes, len);
            let cell = &bytes[..len];
            if cell.iter().filter(|b| !b.is_ascii_digit()).count() > 1 {
                assert!(
                    got.is_none() || got == want,
                    "{:?}",
                    String::from_utf8_lossy(cell)
                );
            } else {
                assert_eq!(got, want, "{:?}", String::from_utf8_lossy(cell));
            }
        }
        let in_word = |cell: &str| {
            let mut bytes = [b'7'; 8];
            bytes[..cell.len()].copy_from_slice(cell.as_bytes());
            plain_in_word(u64::from_le_bytes(bytes), cell.len())
        };
        let table: &[(&str, Option<(u64, i32)>)] = &[
            ("0", Some((0, 0))),
            ("1234567", Some((1_234_567, 0))),
            ("0.56", Some((56, 2))),
            ("12345.6", Some((123_456, 1))),
            ("1,024", Some((1024, 0))),
            ("123,456", Some((123_456, 0))),
            ("1,2345", None),
            ("1234,56", None),
            ("1,23", None),
            (",123", None),
            ("123,", None),
            (".5", None),
            ("5.", None),
            ("1,024.5", None),
            ("1.2.3", None),
            ("", None),
            ("12345678", None),
        ];
        for &(cell, want) in table {
            assert_eq!(in_word(cell), want, "{cell:?}");
        }
        for (b, digit) in (0u8..=255).map(|b| (b, b.is_ascii_digit())) {
            let word = u64::from_le_bytes([b, b'5', b',', b, 0xff, b'0', b'9', b]);
            let own = if digit { 0 } else { 0x8000_0000_8000_0080 };
            assert_eq!(non_digits(word), own | 0x0000_0080_0080_0000, "{b}");
        }
        for n in [0u64, 1, 7, 12_345_678, 99_999_999] {
            for count in 1..=8u32 {
                let text = format!("{n:0width$}", width = count as usize);
                if text.len() == count as usize {
                    let word = load8(text.as_bytes(), 0);
                    assert_eq!(leading_digits(word), count);
                    assert_eq!(digits_value(word, count), n, "{text}");
                }
            }
        }
    }

    #[test]
    fn plain_decimals_past_the_fast_path_read_as_the_general_parser_reads_them() {
        let cells = [
            "116,455,152,130,441.47",
            "15,372,080,081,218,274",
            "1,921,510,010,152,284.25",
            "9007199254740993",
            "9,007,199,254,740,993",
            "9999999999999999.99",
            "18,446,744,073,709,551.615",
        ];
        for unit in ["", "%", "ms", "Tbyte/s", "nJ"] {
            let scale = normalize_unit(unit);
            for cell in cells {
                let mut buffer = cell.as_bytes().to_vec();
                buffer.extend_from_slice(b"\",\"12");
                let got = classify_in(&buffer, cell.len(), &scale);
                assert_eq!(
                    got,
                    classify_general(cell.as_bytes(), &scale),
                    "{cell} {unit}"
                );
                assert!(matches!(got, Cell::Number(_)), "{cell} {unit}");
            }
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
