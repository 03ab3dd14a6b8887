//! The artifact's JSON layout: objects one key per line, indented, for people reading the
//! file; arrays on one line, so the thousands of metric values of each launch stay compact
//! (a pretty-printed value per line would make a large import several times its CSV).
//!
//! Numbers are written exactly as serde_json writes them (its own float formatter, zmij),
//! but the integers most counters hold are written here first, without the general
//! shortest-digits algorithm: most of an import's time writing is its numbers.
//!
//! The metric values of a launch (thousands of numbers) bypass serde's per-element calls:
//! with a formatter made by [`ObjectsIndented::with_raw_arrays`] (only
//! [`crate::model::artifact::Artifact::write_json`] makes one, and tells its serializers so),
//! a launch's values are rendered straight into bytes ([`crate::model::artifact::Metrics::json_array`])
//! and handed to the serializer as one byte array, which the formatter writes as it is.
//! The bytes are exactly what the per-element path writes (tested); any other serializer,
//! or this formatter made by [`ObjectsIndented::new`], gets the per-element path.

use std::io::{self, Write};

use serde_json::ser::Formatter;

/// A serde_json formatter: indented objects, inline arrays.
#[derive(Debug, Default)]
pub struct ObjectsIndented {
    level: usize,
    has_value: bool,
    /// Whether a byte array is a value array already rendered as JSON, written as it is.
    raw_arrays: bool,
}

impl ObjectsIndented {
    /// A formatter at the top level that writes value arrays element by element (what
    /// the tests hold the raw arrays against).
    #[cfg(test)]
    pub fn new() -> Self {
        Self::default()
    }

    /// A formatter at the top level that writes byte arrays as they are: value arrays
    /// already rendered as JSON (the artifact has no other byte arrays).
    pub(crate) fn with_raw_arrays() -> Self {
        ObjectsIndented {
            raw_arrays: true,
            ..Self::default()
        }
    }

    fn newline<W: ?Sized + Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.level {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

/// Integers below this are written as digits and `.0`, as zmij writes them (it switches to
/// exponent notation at 1e16).
const PLAIN_INTEGER_BELOW: f64 = 1e15;

/// Writes a finite `value` exactly as serde_json does: `0.0`, `1056.0`, `2.852960e-5`...
pub(crate) fn write_f64<W: ?Sized + Write>(w: &mut W, value: f64) -> io::Result<()> {
    if value.to_bits() == 0 {
        return w.write_all(b"0.0");
    }
    // (The cast is exact for the integers in range; `trunc` would be a libm call.)
    if value > 0.0 && value < PLAIN_INTEGER_BELOW && (value as u64) as f64 == value {
        // At most 15 digits, then ".0", written from the end of the buffer.
        let mut buf = [0u8; 24];
        let mut start = buf.len() - 2;
        if let Some(tail) = buf.get_mut(start..) {
            tail.copy_from_slice(b".0");
        }
        let mut n = value as u64;
        loop {
            start -= 1;
            if let Some(slot) = buf.get_mut(start) {
                *slot = b'0' + (n % 10) as u8;
            }
            n /= 10;
            if n == 0 {
                break;
            }
        }
        return w.write_all(buf.get(start..).unwrap_or_default());
    }
    let mut buffer = zmij::Buffer::new();
    w.write_all(buffer.format_finite(value).as_bytes())
}

/// Appends a finite `value` to `out` as [`write_f64`] writes it, copying a fixed number of
/// bytes where it can (a copy of a length known only at run time is a call per value).
#[inline]
pub(crate) fn push_f64(out: &mut Vec<u8>, value: f64) {
    if value > 0.0 && value < PLAIN_INTEGER_BELOW && (value as u64) as f64 == value {
        let mut n = value as u64;
        let digits = decimal_digits(n);
        // Digits, then ".0", at the front of a buffer copied whole; the excess is cut.
        let mut buf = [0u8; 24];
        let mut at = digits;
        loop {
            at -= 1;
            if let Some(slot) = buf.get_mut(at) {
                *slot = b'0' + (n % 10) as u8;
            }
            n /= 10;
            if at == 0 {
                break;
            }
        }
        if let Some(tail) = buf.get_mut(digits..digits + 2) {
            tail.copy_from_slice(b".0");
        }
        let len = out.len();
        out.extend_from_slice(&buf);
        out.truncate(len + digits + 2);
    } else if value.to_bits() == 0 {
        out.extend_from_slice(b"0.0");
    } else {
        let mut buffer = zmij::Buffer::new();
        out.extend_from_slice(buffer.format_finite(value).as_bytes());
    }
}

/// Number of decimal digits of `n` (1 to 20).
#[inline]
fn decimal_digits(n: u64) -> usize {
    let mut digits = 1;
    let mut limit = 10u64;
    while digits < 20 && n >= limit {
        digits += 1;
        limit = limit.saturating_mul(10);
    }
    digits
}

/// Size of [`Buffered`]'s buffer.
const BUFFER_BYTES: usize = 256 * 1024;

/// A write buffer whose `write_all` is small enough to inline: the serializer writes an
/// artifact a few bytes at a time (a comma, a number), tens of millions of times for a
/// large import, where `std::io::BufWriter`'s out-of-line call showed in profiles.
pub(crate) struct Buffered<W: Write> {
    buf: Vec<u8>,
    inner: W,
}

impl<W: Write> Buffered<W> {
    /// A buffer in front of `inner`.
    pub(crate) fn new(inner: W) -> Self {
        Buffered {
            buf: Vec::with_capacity(BUFFER_BYTES),
            inner,
        }
    }

    /// Writes out the buffer, then `data` when it would not fit.
    #[cold]
    fn spill(&mut self, data: &[u8]) -> io::Result<()> {
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        if data.len() > BUFFER_BYTES / 2 {
            self.inner.write_all(data)
        } else {
            self.buf.extend_from_slice(data);
            Ok(())
        }
    }
}

impl<W: Write> Write for Buffered<W> {
    #[inline]
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    #[inline]
    fn write_all(&mut self, data: &[u8]) -> io::Result<()> {
        if data.len() <= self.buf.capacity() - self.buf.len() {
            self.buf.extend_from_slice(data);
            Ok(())
        } else {
            self.spill(data)
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.write_all(&self.buf)?;
        self.buf.clear();
        self.inner.flush()
    }
}

impl Formatter for ObjectsIndented {
    fn write_f64<W: ?Sized + Write>(&mut self, w: &mut W, value: f64) -> io::Result<()> {
        write_f64(w, value)
    }

    /// Made [`ObjectsIndented::with_raw_arrays`], a byte array is a value array already
    /// rendered as JSON; else the usual array of numbers.
    fn write_byte_array<W: ?Sized + Write>(&mut self, w: &mut W, value: &[u8]) -> io::Result<()> {
        if self.raw_arrays {
            return w.write_all(value);
        }
        self.begin_array(w)?;
        for (i, b) in value.iter().enumerate() {
            self.begin_array_value(w, i == 0)?;
            self.write_u8(w, *b)?;
            self.end_array_value(w)?;
        }
        self.end_array(w)
    }

    fn begin_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"[")
    }

    fn end_array<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level = self.level.saturating_sub(1);
        w.write_all(b"]")
    }

    fn begin_array_value<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if first {
            Ok(())
        } else {
            w.write_all(b",")
        }
    }

    fn end_array_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        Ok(())
    }

    fn begin_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level += 1;
        self.has_value = false;
        w.write_all(b"{")
    }

    fn end_object<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        self.level = self.level.saturating_sub(1);
        if self.has_value {
            self.newline(w)?;
        }
        w.write_all(b"}")
    }

    fn begin_object_key<W: ?Sized + Write>(&mut self, w: &mut W, first: bool) -> io::Result<()> {
        if !first {
            w.write_all(b",")?;
        }
        self.newline(w)
    }

    fn begin_object_value<W: ?Sized + Write>(&mut self, w: &mut W) -> io::Result<()> {
        w.write_all(b": ")
    }

    fn end_object_value<W: ?Sized + Write>(&mut self, _w: &mut W) -> io::Result<()> {
        self.has_value = true;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    #[test]
    fn integers_are_pushed_as_they_are_written() {
        let mut values: Vec<f64> = (0..20_000).map(f64::from).collect();
        values.extend([
            1e14,
            1e15 - 1.0,
            1e15,
            123_456_789_012_345.0,
            0.25,
            -0.0,
            -3.0,
        ]);
        for v in values {
            let mut pushed = b"x".to_vec();
            super::push_f64(&mut pushed, v);
            let mut written = b"x".to_vec();
            super::write_f64(&mut written, v).expect("writes");
            assert_eq!(pushed, written, "{v}");
        }
    }

    #[test]
    fn numbers_are_written_as_serde_json_writes_them() {
        let mut values = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            0.5,
            1056.0,
            2_852_960.0,
            1e15 - 1.0,
            1e15,
            1e15 + 1.0,
            1e16 - 2.0,
            1e16,
            9_007_199_254_740_992.0,
            1.505_821_546_744_43e12,
            5_595_110.234_848,
            1e-7,
            1e30,
            f64::MIN_POSITIVE,
            f64::MAX,
        ];
        values.extend((0..100_000).map(f64::from));
        let mut state: u64 = 0x853c_49e6_748f_ea9b;
        for _ in 0..100_000 {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            values.push((state >> 11) as f64);
            values.push(((state >> 11) % 1_000_000_000_000_000) as f64);
            values.push(f64::from_bits(state));
        }
        for v in values.into_iter().filter(|v| v.is_finite()) {
            let mut ours = Vec::new();
            super::write_f64(&mut ours, v).expect("writes");
            let theirs = serde_json::to_string(&v).expect("serializes");
            assert_eq!(String::from_utf8_lossy(&ours), theirs, "{v:e}");
        }
    }

    #[test]
    fn objects_indent_and_arrays_stay_inline() {
        let v = serde_json::json!({"a": [1, 2, {"b": []}], "c": {}, "d": {"e": null}});
        let mut out = Vec::new();
        let mut ser =
            serde_json::Serializer::with_formatter(&mut out, super::ObjectsIndented::new());
        v.serialize(&mut ser).expect("serializes");
        let text = String::from_utf8(out).expect("utf-8");
        assert_eq!(
            text,
            "{\n  \"a\": [1,2,{\n      \"b\": []\n    }],\n  \"c\": {},\n  \"d\": {\n    \"e\": null\n  }\n}"
        );
        let back: serde_json::Value = serde_json::from_str(&text).expect("valid JSON");
        assert_eq!(back, v);
    }
}
