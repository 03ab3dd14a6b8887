//! Strings from files made safe to show: kernel names, device names and file names come
//! from whoever wrote the export, and must not drive the terminal (escape sequences, OSC 52
//! clipboard writes), reorder the text (bidi overrides), split a one-line message or a
//! table row (newlines), or run as a spreadsheet formula (CSV cells starting `=`, `+`,
//! `-`, `@`, tab or CR, after OWASP's advice on CSV injection).
//!
//! Control characters (C0, DEL, C1) and the bidirectional formatting characters are
//! written as Rust-style escapes (`\n`, `\t`, `\u{1b}`, `\u{202e}`), and a backslash is left
//! alone; every other character is kept, so names in any script read as they are.

use std::borrow::Cow;

/// Whether `c` must not be written raw to a terminal or a table.
fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// `s` with control and bidirectional formatting characters escaped (see the module doc);
/// borrowed when there are none.
pub fn controls(s: &str) -> Cow<'_, str> {
    if !s.chars().any(is_unsafe) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// `s` for a one-line message: [`controls`] escaped, and at most `max_chars` characters of
/// it, ending in `…` when cut.
pub fn one_line(s: &str, max_chars: usize) -> String {
    let escaped = controls(s);
    if escaped.chars().count() <= max_chars {
        return escaped.into_owned();
    }
    let mut out: String = escaped.chars().take(max_chars.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A text cell of a CSV file: [`controls`] escaped, and prefixed with `'` when it starts
/// with a character a spreadsheet reads as the start of a formula (`=`, `+`, `-`, `@`, tab,
/// CR), so that it is shown as text and never evaluated.
pub fn csv_cell(s: &str) -> Cow<'_, str> {
    let formula = matches!(s.chars().next(), Some('=' | '+' | '-' | '@' | '\t' | '\r'));
    match (formula, controls(s)) {
        (false, escaped) => escaped,
        (true, escaped) => Cow::Owned(format!("'{escaped}")),
    }
}

/// A cell of a Markdown table: [`controls`] escaped (so a newline cannot end the row) and
/// `|` escaped (so it cannot end the cell).
pub fn markdown_cell(s: &str) -> Cow<'_, str> {
    let escaped = controls(s);
    if escaped.contains('|') {
        Cow::Owned(escaped.replace('|', "\\|"))
    } else {
        escaped
    }
}

/// A piece of a message: text, or a web address in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Piece<'a> {
    /// Plain text.
    Text(&'a str),
    /// An `https://` address, without the punctuation around it (a closing parenthesis it
    /// does not open, a full stop that ends the sentence).
    Link(&'a str),
}

/// `s` cut into text and the `https://` addresses in it, in order, so a page can show the
/// addresses of ncu's rule messages (the Profiling Guide's) as links and the rest as text.
/// Only `https://` is taken: no other scheme (`javascript:`) can become a link.
pub fn links(s: &str) -> Vec<Piece<'_>> {
    const SCHEME: &str = "https://";
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(at) = rest.find(SCHEME) {
        let tail = &rest[at..];
        let mut end = tail
            .find(|c: char| c.is_whitespace() || matches!(c, '"' | '<' | '>' | '\'' | '`'))
            .unwrap_or(tail.len());
        // Trailing punctuation belongs to the sentence; a `)` to the text unless the
        // address opened one.
        loop {
            let url = &tail[..end];
            let drop = match url.chars().last() {
                Some('.' | ',' | ';' | ':' | '!' | '?') => true,
                Some(')') => url.matches('(').count() < url.matches(')').count(),
                _ => false,
            };
            if !drop {
                break;
            }
            end -= 1;
        }
        if end <= SCHEME.len() {
            // A bare scheme: text.
            out.push(Piece::Text(&rest[..at + SCHEME.len()]));
            rest = &rest[at + SCHEME.len()..];
            continue;
        }
        if at > 0 {
            out.push(Piece::Text(&rest[..at]));
        }
        out.push(Piece::Link(&tail[..end]));
        rest = &tail[end..];
    }
    if !rest.is_empty() {
        out.push(Piece::Text(rest));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_in_a_message_are_found_without_their_punctuation() {
        use Piece::{Link, Text};
        let guide = "https://docs.nvidia.com/nsight-compute/ProfilingGuide/index.html#metrics";
        let cases: Vec<(String, Vec<Piece<'_>>)> = vec![
            ("no address".into(), vec![Text("no address")]),
            (
                format!("The Profiling Guide ({guide}) says."),
                vec![Text("The Profiling Guide ("), Link(guide), Text(") says.")],
            ),
            (
                format!("See {guide}."),
                vec![Text("See "), Link(guide), Text(".")],
            ),
            (
                "a https://x.org/a_(b) c".into(),
                vec![Text("a "), Link("https://x.org/a_(b)"), Text(" c")],
            ),
            (
                "bare https:// and javascript:alert(1)".into(),
                vec![Text("bare https://"), Text(" and javascript:alert(1)")],
            ),
        ];
        for (message, want) in &cases {
            assert_eq!(&links(message), want, "{message}");
        }
    }

    #[test]
    fn terminal_escapes_bidi_and_newlines_are_escaped() {
        assert_eq!(controls("copy<float>"), "copy<float>");
        assert_eq!(controls("a\u{1b}[2Jb"), "a\\u{1b}[2Jb");
        assert_eq!(controls("\u{1b}]52;c;aGk=\u{7}"), "\\u{1b}]52;c;aGk=\\u{7}");
        assert_eq!(controls("evil\u{202e}fdp.exe"), "evil\\u{202e}fdp.exe");
        assert_eq!(controls("a\nb\r\t\0"), "a\\nb\\r\\t\\u{0}");
        assert_eq!(controls("名前 ядро"), "名前 ядро");
        assert_eq!(one_line("a\nb", 10), "a\\nb");
        assert_eq!(one_line("abcdefghijkl", 5), "abcd…");
    }

    #[test]
    fn csv_cells_that_start_a_formula_are_prefixed() {
        for s in [
            "=cmd|' /C calc'!A0",
            "+1+1",
            "-2+3",
            "@SUM(A1:A2)",
            "\t=1",
            "\r=1",
        ] {
            let cell = csv_cell(s);
            assert!(cell.starts_with('\''), "{s:?} -> {cell:?}");
        }
        assert_eq!(csv_cell("copy"), "copy");
        assert_eq!(csv_cell("a=b"), "a=b");
    }

    #[test]
    fn markdown_cells_cannot_end_a_cell_or_a_row() {
        assert_eq!(markdown_cell("a|b\nc"), "a\\|b\\nc");
    }
}
