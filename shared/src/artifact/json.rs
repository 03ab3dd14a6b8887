//! The artifact's JSON layout: objects one key per line, indented, for people reading the
//! file; arrays on one line, so the thousands of metric values of each launch stay compact
//! (a pretty-printed value per line would make a large import several times its CSV).

use std::io::{self, Write};

use serde_json::ser::Formatter;

/// A serde_json formatter: indented objects, inline arrays.
#[derive(Debug, Default)]
pub struct ObjectsIndented {
    level: usize,
    has_value: bool,
}

impl ObjectsIndented {
    /// A formatter at the top level.
    pub fn new() -> Self {
        Self::default()
    }

    fn newline<W: ?Sized + Write>(&self, w: &mut W) -> io::Result<()> {
        w.write_all(b"\n")?;
        for _ in 0..self.level {
            w.write_all(b"  ")?;
        }
        Ok(())
    }
}

impl Formatter for ObjectsIndented {
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
