//! A tool's text cut into pages: MCP clients drop a message over 16 MiB (an `explain` of a
//! 16 MB artifact was one line of 166 MB; issue 48), so a tool returns at most `max_bytes`
//! of its output, counted as the JSON string it travels in (a quote is two bytes there, a
//! control character six), from `offset`, and a note giving the offset of the rest.

use anyhow::{bail, Result};

/// `max_bytes` when the client gives none: 1 MiB.
pub const DEFAULT_PAGE_BYTES: usize = 1 << 20;

/// The largest `max_bytes` taken: 6 MiB. `explain`'s text and its structured content
/// travel together, so a message stays under 2 x 6 MiB plus its envelope.
pub const MAX_PAGE_BYTES: usize = 6 << 20;

/// What the client asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Paging {
    /// Byte offset into the whole text.
    pub offset: usize,
    /// The most bytes returned (JSON-escaped); [`DEFAULT_PAGE_BYTES`] when `None`.
    pub max_bytes: Option<usize>,
}

/// One page of a text.
#[derive(Debug, PartialEq, Eq)]
pub struct Page {
    /// The page.
    pub text: String,
    /// Where it sits in the whole and where the rest starts, when it is not the whole.
    pub note: Option<String>,
    /// Whether the page is the whole text.
    pub whole: bool,
}

/// How many bytes `c` takes in a JSON string.
fn escaped_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// The page of `text` that `paging` asks for. An offset inside a character starts at the
/// character; an offset past the end is an error.
pub fn page(text: &str, paging: Paging) -> Result<Page> {
    let max = paging.max_bytes.unwrap_or(DEFAULT_PAGE_BYTES);
    if max == 0 || max > MAX_PAGE_BYTES {
        bail!("max_bytes {max}: from 1 to {MAX_PAGE_BYTES}");
    }
    if paging.offset > text.len() {
        bail!(
            "offset {}: past the end of the output ({} bytes)",
            paging.offset,
            text.len()
        );
    }
    let mut start = paging.offset;
    while !text.is_char_boundary(start) {
        start -= 1;
    }
    let rest = text.get(start..).unwrap_or_default();
    let (mut end, mut used) = (start, 0usize);
    for c in rest.chars() {
        let n = escaped_len(c);
        if used + n > max {
            break;
        }
        used += n;
        end += c.len_utf8();
    }
    if end == start {
        // At least one character, so that paging always moves on.
        end += rest.chars().next().map_or(0, char::len_utf8);
    }
    let whole = start == 0 && end == text.len();
    let note = (!whole).then(|| {
        let rest = match end < text.len() {
            true => format!("the rest: call again with offset {end}"),
            false => "the end".to_owned(),
        };
        format!("[bytes {start} to {end} of {} shown; {rest}]", text.len())
    });
    Ok(Page {
        text: text.get(start..end).unwrap_or_default().to_owned(),
        note,
        whole,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_join_to_the_whole_and_each_fits_its_bytes_escaped() {
        let text = "ab\"c\u{1}é\n".repeat(1000);
        let max = 100;
        let mut offset = 0;
        let mut joined = String::new();
        loop {
            let p = page(
                &text,
                Paging {
                    offset,
                    max_bytes: Some(max),
                },
            )
            .expect("page");
            let escaped = serde_json::to_string(&p.text).expect("json").len() - 2;
            assert!(escaped <= max, "{escaped}");
            assert!(!p.whole);
            joined.push_str(&p.text);
            let note = p.note.expect("a note");
            match note.split("offset ").nth(1) {
                Some(n) => offset = n.trim_end_matches(']').parse().expect("offset"),
                None => break,
            }
        }
        assert_eq!(joined, text);
        let whole = page(&text, Paging::default()).expect("whole");
        assert!(whole.whole && whole.note.is_none() && whole.text == text);
        assert!(page(
            &text,
            Paging {
                offset: text.len() + 1,
                max_bytes: None
            }
        )
        .is_err());
        assert!(page(
            &text,
            Paging {
                offset: 0,
                max_bytes: Some(MAX_PAGE_BYTES + 1)
            }
        )
        .is_err());
    }
}
