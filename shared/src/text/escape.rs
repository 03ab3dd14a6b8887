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

#[cfg(test)]
mod tests {
    use super::*;

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
