//! The protobuf wire format, read without a schema: a message is a run of fields, each a tag
//! (field number and wire type, one varint) and a value (a varint, 8 or 4 fixed bytes, or a
//! length-prefixed run of bytes that may itself be a message, a string or packed numbers).
//!
//! [`Fields`] walks one message and never reads past it; every field carries the absolute
//! byte offset of its tag in the report, so an error can say where it is. [`dump`] prints the
//! field tree of any message: the development aid that found the field numbers the report
//! reader uses (see the module documentation of [`super`]), kept for the next ncu version.

use std::fmt::Write;

/// Longest varint: ten bytes hold 64 bits.
const MAX_VARINT_BYTES: usize = 10;

/// Why a message could not be walked: what was wrong and the absolute byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// Absolute byte offset of the problem in the report.
    pub offset: u64,
    /// What was wrong.
    pub what: &'static str,
}

/// One field's value, as the wire type gives it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum WireValue<'a> {
    /// Wire type 0: an integer (unsigned, signed or bool; the schema says which).
    Varint(u64),
    /// Wire type 1: eight bytes, little-endian (a double, or a fixed 64-bit integer).
    Fixed64(u64),
    /// Wire type 5: four bytes, little-endian (a float, or a fixed 32-bit integer).
    Fixed32(u32),
    /// Wire type 2: a length-prefixed run of bytes (a message, a string, packed numbers).
    Bytes(&'a [u8]),
}

/// One field of a message.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Field<'a> {
    /// Field number.
    pub number: u32,
    /// The value.
    pub value: WireValue<'a>,
    /// Absolute byte offset of the field's tag.
    pub offset: u64,
    /// Absolute byte offset of the value (for [`WireValue::Bytes`], of its first byte after
    /// the length), so a nested message can be walked with its own offsets.
    pub value_offset: u64,
}

impl<'a> Field<'a> {
    /// The value as an integer, if it is a varint.
    pub fn varint(&self) -> Option<u64> {
        match self.value {
            WireValue::Varint(v) => Some(v),
            _ => None,
        }
    }

    /// The value as bytes, if it is length-prefixed.
    pub fn bytes(&self) -> Option<&'a [u8]> {
        match self.value {
            WireValue::Bytes(b) => Some(b),
            _ => None,
        }
    }

    /// The fields of the value, walked as a nested message (empty if it is not bytes).
    pub fn message(&self) -> Fields<'a> {
        Fields::new(self.bytes().unwrap_or_default(), self.value_offset)
    }

    /// The value as text (invalid UTF-8 replaced), if it is length-prefixed.
    pub fn text(&self) -> Option<String> {
        self.bytes()
            .map(|b| String::from_utf8_lossy(b).into_owned())
    }
}

/// The fields of one message, in order. Yields an error once, then ends.
#[derive(Clone, Debug)]
pub struct Fields<'a> {
    data: &'a [u8],
    pos: usize,
    base: u64,
}

impl<'a> Fields<'a> {
    /// The fields of `data`, a message whose first byte is at absolute offset `base`.
    pub fn new(data: &'a [u8], base: u64) -> Self {
        Fields { data, pos: 0, base }
    }

    fn at(&self, pos: usize) -> u64 {
        self.base + pos as u64
    }

    fn varint(&mut self) -> Result<u64, WireError> {
        let start = self.pos;
        let mut value: u64 = 0;
        for i in 0..MAX_VARINT_BYTES {
            let Some(&byte) = self.data.get(self.pos) else {
                return Err(WireError {
                    offset: self.at(start),
                    what: "a varint runs past the end of its message",
                });
            };
            self.pos += 1;
            let bits = u64::from(byte & 0x7f);
            if i == MAX_VARINT_BYTES - 1 && bits > 1 {
                return Err(WireError {
                    offset: self.at(start),
                    what: "a varint overflows 64 bits",
                });
            }
            value |= bits << (7 * i);
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(WireError {
            offset: self.at(start),
            what: "a varint is longer than ten bytes",
        })
    }

    fn fixed<const N: usize>(&mut self) -> Result<[u8; N], WireError> {
        let bytes = self
            .data
            .get(self.pos..self.pos + N)
            .and_then(|b| <[u8; N]>::try_from(b).ok())
            .ok_or(WireError {
                offset: self.at(self.pos),
                what: "a fixed-size value runs past the end of its message",
            })?;
        self.pos += N;
        Ok(bytes)
    }

    fn field(&mut self) -> Result<Field<'a>, WireError> {
        let offset = self.at(self.pos);
        let tag = self.varint()?;
        let number = u32::try_from(tag >> 3).map_err(|_| WireError {
            offset,
            what: "a field number is larger than 32 bits",
        })?;
        if number == 0 {
            return Err(WireError {
                offset,
                what: "field number 0 (not a protobuf message)",
            });
        }
        let value = match tag & 7 {
            0 => WireValue::Varint(self.varint()?),
            1 => WireValue::Fixed64(u64::from_le_bytes(self.fixed::<8>()?)),
            5 => WireValue::Fixed32(u32::from_le_bytes(self.fixed::<4>()?)),
            2 => {
                let len = self.varint()?;
                let rest = self.data.len() - self.pos;
                let len = usize::try_from(len)
                    .ok()
                    .filter(|&l| l <= rest)
                    .ok_or(WireError {
                        offset,
                        what: "a length-prefixed field runs past the end of its message",
                    })?;
                let bytes = self.data.get(self.pos..self.pos + len).unwrap_or_default();
                let value_offset = self.at(self.pos);
                self.pos += len;
                return Ok(Field {
                    number,
                    value: WireValue::Bytes(bytes),
                    offset,
                    value_offset,
                });
            }
            _ => {
                return Err(WireError {
                    offset,
                    what: "a field of wire type 3, 4, 6 or 7 (groups or invalid)",
                })
            }
        };
        Ok(Field {
            number,
            value,
            offset,
            value_offset: offset,
        })
    }
}

impl<'a> Iterator for Fields<'a> {
    type Item = Result<Field<'a>, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.pos >= self.data.len() {
            return None;
        }
        let field = self.field();
        if field.is_err() {
            self.pos = self.data.len();
        }
        Some(field)
    }
}

/// Whether `data` walks cleanly as a message whose fields look like a schema's (small field
/// numbers), the test [`dump`] uses to decide between a nested message and a string.
fn looks_like_message(data: &[u8]) -> bool {
    !data.is_empty() && Fields::new(data, 0).all(|f| f.is_ok_and(|f| f.number < 64))
}

/// Whether `data` reads as text a person wrote (a name, a path, a sentence).
fn looks_like_text(data: &[u8]) -> bool {
    std::str::from_utf8(data).is_ok_and(|s| {
        let plain = s
            .chars()
            .filter(|c| c.is_alphanumeric() || " _.-/()#@:,<>*&=%+[]'\"".contains(*c))
            .count();
        !s.is_empty() && plain * 10 >= s.chars().count() * 9 && !s.chars().any(char::is_control)
    })
}

/// The field tree of a message, one field a line, for finding field numbers in a new report
/// version by eye: numbers as integer and as double or float, bytes as a nested message when
/// they walk as one (up to `max_depth` levels), else as text or hex. At most `max_fields`
/// fields are printed per message.
pub fn dump(data: &[u8], max_depth: usize, max_fields: usize) -> String {
    let mut out = String::new();
    dump_into(&mut out, data, 0, max_depth, max_fields);
    out
}

fn dump_into(out: &mut String, data: &[u8], depth: usize, max_depth: usize, max_fields: usize) {
    let indent = "  ".repeat(depth);
    for (i, field) in Fields::new(data, 0).enumerate() {
        if i >= max_fields {
            let _ = writeln!(out, "{indent}...");
            return;
        }
        let field = match field {
            Ok(f) => f,
            Err(e) => {
                let _ = writeln!(out, "{indent}error at +{}: {}", e.offset, e.what);
                return;
            }
        };
        let n = field.number;
        let _ = match field.value {
            WireValue::Varint(v) => writeln!(out, "{indent}{n}: varint {v}"),
            WireValue::Fixed64(v) => {
                writeln!(
                    out,
                    "{indent}{n}: fixed64 {v} (double {})",
                    f64::from_bits(v)
                )
            }
            WireValue::Fixed32(v) => {
                writeln!(
                    out,
                    "{indent}{n}: fixed32 {v} (float {})",
                    f32::from_bits(v)
                )
            }
            WireValue::Bytes(b) if b.len() > 3 && looks_like_text(b) => {
                let text = String::from_utf8_lossy(b);
                let shown: String = text.chars().take(120).collect();
                writeln!(out, "{indent}{n}: text {shown:?} ({} bytes)", b.len())
            }
            WireValue::Bytes(b) if depth < max_depth && looks_like_message(b) => {
                let _ = writeln!(out, "{indent}{n}: message ({} bytes)", b.len());
                dump_into(out, b, depth + 1, max_depth, max_fields);
                Ok(())
            }
            WireValue::Bytes(b) => {
                let hex: String = b.iter().take(24).map(|x| format!("{x:02x}")).collect();
                writeln!(out, "{indent}{n}: bytes {hex} ({} bytes)", b.len())
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_of_each_wire_type_with_offsets() {
        // 1: varint 150; 2: "hi"; 3: fixed64 1.5; 4: fixed32 7; 5: { 1: varint 1 }.
        let mut msg = vec![0x08, 0x96, 0x01, 0x12, 0x02, b'h', b'i', 0x19];
        msg.extend_from_slice(&1.5f64.to_le_bytes());
        msg.push(0x25);
        msg.extend_from_slice(&7u32.to_le_bytes());
        msg.extend_from_slice(&[0x2a, 0x02, 0x08, 0x01]);
        let fields: Vec<Field> = Fields::new(&msg, 100).map(|f| f.expect("valid")).collect();
        assert_eq!(fields.len(), 5);
        assert_eq!(fields[0].varint(), Some(150));
        assert_eq!(fields[1].bytes(), Some(&b"hi"[..]));
        assert_eq!((fields[1].offset, fields[1].value_offset), (103, 105));
        assert_eq!(fields[2].value, WireValue::Fixed64(1.5f64.to_bits()));
        assert_eq!(fields[3].value, WireValue::Fixed32(7));
        let nested: Vec<Field> = fields[4].message().map(|f| f.expect("valid")).collect();
        assert_eq!(nested[0].varint(), Some(1));
        assert_eq!(nested[0].offset, 100 + msg.len() as u64 - 2);
    }

    #[test]
    fn malformed_messages_are_errors_with_offsets_never_panics() {
        let cases: &[(&[u8], u64, &str)] = &[
            (&[0x08], 1, "runs past the end"),
            (&[0x08, 0x80], 1, "runs past the end"),
            (&[0x00, 0x01], 0, "field number 0"),
            (&[0x0b], 0, "wire type 3"),
            (&[0x12, 0x05, b'a'], 0, "runs past the end"),
            (&[0x19, 0x00], 1, "fixed-size"),
            (
                &[
                    0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f,
                ],
                1,
                "overflows",
            ),
            (
                &[0x12, 0xff, 0xff, 0xff, 0xff, 0x0f],
                0,
                "runs past the end",
            ),
        ];
        for &(data, offset, what) in cases {
            let results: Vec<_> = Fields::new(data, 0).collect();
            let err = results
                .iter()
                .find_map(|r| r.clone().err())
                .unwrap_or_else(|| panic!("{data:?} should fail"));
            assert_eq!(err.offset, offset, "{data:?}");
            assert!(err.what.contains(what), "{data:?}: {}", err.what);
            assert!(
                results.last().is_some_and(Result::is_err),
                "ends after the error"
            );
        }
    }

    #[test]
    fn dump_shows_nested_messages_and_text() {
        let msg = [0x0a, 0x06, 0x0a, 0x04, b'c', b'o', b'p', b'y', 0x10, 0x07];
        let text = dump(&msg, 4, 10);
        assert_eq!(
            text,
            "1: message (6 bytes)\n  1: text \"copy\" (4 bytes)\n2: varint 7\n"
        );
    }
}
