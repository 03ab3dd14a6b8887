//! A small Rust lexer: a source file split into code, comments and string literals, enough
//! for the checks of [`crate::invariants`] and [`crate::docs`] (no tokens, no syntax tree).

use std::ops::Range;

/// A string literal of a source file: where it starts and its text as written (escapes
/// and line continuations left as they are).
#[derive(Debug)]
pub(crate) struct Literal {
    /// Byte offset of the opening quote (or of its `r`/`b` prefix).
    pub(crate) start: usize,
    /// Line of the opening quote, from 1.
    pub(crate) line: usize,
    /// The text between the quotes.
    pub(crate) text: String,
}

/// A comment of a source file: its line and its text (with its `//`, `///` or `/*`).
#[derive(Debug)]
pub(crate) struct Comment {
    /// Line of its start, from 1.
    pub(crate) line: usize,
    /// The comment as written.
    pub(crate) text: String,
}

/// A source file split into code, comments and string literals.
#[derive(Debug)]
pub(crate) struct Lexed {
    /// The source with comments and literals blanked to spaces (newlines kept), so offsets
    /// and lines stay those of the source.
    pub(crate) code: String,
    /// The string literals, in order.
    pub(crate) literals: Vec<Literal>,
    /// The comments, in order.
    pub(crate) comments: Vec<Comment>,
}

/// Whether `b` may be part of an identifier.
pub(crate) fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Splits Rust source into code and string literals: line and (nested) block comments,
/// `"..."`, `b"..."`, `c"..."`, raw strings `r#"..."#` and their `b`/`c` forms; character
/// literals are told from lifetimes.
pub(crate) fn lex(src: &str) -> Lexed {
    let s = src.as_bytes();
    let mut code = s.to_vec();
    let mut literals = Vec::new();
    let mut comments = Vec::new();
    let blank = |code: &mut Vec<u8>, range: Range<usize>| {
        for b in &mut code[range] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let line_at = |at: usize| 1 + s[..at].iter().filter(|&&b| b == b'\n').count();
    let mut i = 0;
    while i < s.len() {
        let rest = &s[i..];
        let after_ident = i > 0 && is_ident(s[i - 1]);
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(s.len(), |p| i + p);
            comments.push(Comment {
                line: line_at(i),
                text: src[i..end].to_string(),
            });
            blank(&mut code, i..end);
            i = end;
        } else if rest.starts_with(b"/*") {
            let (mut depth, mut j) = (1, i + 2);
            while j < s.len() && depth > 0 {
                if s[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if s[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                } else {
                    j += 1;
                }
            }
            let j = j.min(s.len());
            comments.push(Comment {
                line: line_at(i),
                text: src[i..j].to_string(),
            });
            blank(&mut code, i..j);
            i = j;
        } else if let Some((open, hashes)) = (!after_ident).then(|| raw_open(rest)).flatten() {
            let body = i + open;
            let mut close = vec![b'"'];
            close.extend(std::iter::repeat_n(b'#', hashes));
            let end = s[body..]
                .windows(close.len())
                .position(|w| w == close.as_slice())
                .map_or(s.len(), |p| body + p);
            literals.push(Literal {
                start: i,
                line: line_at(i),
                text: src[body..end].to_string(),
            });
            let stop = (end + close.len()).min(s.len());
            blank(&mut code, i..stop);
            i = stop;
        } else if rest[0] == b'"'
            || (!after_ident && (rest.starts_with(b"b\"") || rest.starts_with(b"c\"")))
        {
            let body = i + if rest[0] == b'"' { 1 } else { 2 };
            let mut j = body;
            while j < s.len() && s[j] != b'"' {
                j += if s[j] == b'\\' { 2 } else { 1 };
            }
            let end = j.min(s.len());
            literals.push(Literal {
                start: i,
                line: line_at(i),
                text: src[body..end].to_string(),
            });
            let stop = (end + 1).min(s.len());
            blank(&mut code, i..stop);
            i = stop;
        } else if rest[0] == b'\'' {
            // A character literal ('x', '\n', '\u{..}', '"'), else a lifetime or label.
            let len = if rest.get(1) == Some(&b'\\') {
                // The quote after the escaped character (`'\''`, `'\n'`, `'\u{..}'`).
                rest.get(3..)
                    .and_then(|r| r.iter().position(|&b| b == b'\''))
                    .map(|p| p + 4)
            } else {
                let ch = src[i + 1..].chars().next().map_or(1, char::len_utf8);
                (rest.get(1 + ch) == Some(&b'\'')).then_some(ch + 2)
            };
            match len {
                Some(len) => {
                    blank(&mut code, i..i + len);
                    i += len;
                }
                None => i += 1,
            }
        } else {
            i += 1;
        }
    }
    Lexed {
        code: String::from_utf8(code).unwrap_or_default(),
        literals,
        comments,
    }
}

/// The opening of a raw string at the start of `rest` (`r"`, `r#"`, `br##"`, ...): its
/// length and the number of `#`.
fn raw_open(rest: &[u8]) -> Option<(usize, usize)> {
    let prefix = if rest.starts_with(b"br") || rest.starts_with(b"cr") {
        2
    } else if rest.starts_with(b"r") {
        1
    } else {
        return None;
    };
    let hashes = rest[prefix..].iter().take_while(|&&b| b == b'#').count();
    (rest.get(prefix + hashes) == Some(&b'"')).then_some((prefix + hashes + 1, hashes))
}

/// Reads one path of a `use` tree (or any path) at `s[*i..]`, after a `root::` the caller has
/// read, into `out` with `prefix` before each: `a::B` gives `a::B`; `{a, b::{self, C}}`
/// gives `a`, `b::self`, `b::C`; `*` or `::<` ends a path at its prefix; `B as C` gives `B`.
/// Whitespace is ignored; `s` has no comments or literals.
pub(crate) fn use_tree(s: &[u8], i: &mut usize, prefix: &str, out: &mut Vec<String>) {
    let skip_ws = |i: &mut usize| {
        while *i < s.len() && s[*i].is_ascii_whitespace() {
            *i += 1;
        }
    };
    skip_ws(i);
    if s.get(*i) == Some(&b'{') {
        *i += 1;
        loop {
            skip_ws(i);
            match s.get(*i) {
                Some(b'}') | None => {
                    *i += 1;
                    return;
                }
                Some(b',') => *i += 1,
                _ => use_tree(s, i, prefix, out),
            }
        }
    }
    let start = *i;
    while *i < s.len() && is_ident(s[*i]) {
        *i += 1;
    }
    let ident = String::from_utf8_lossy(&s[start..*i]).into_owned();
    if ident.is_empty() {
        // `*` or something unexpected: name the prefix itself.
        *i += 1;
        out.push(prefix.trim_end_matches("::").to_string());
        return;
    }
    let path = format!("{prefix}{ident}");
    skip_ws(i);
    if s[*i..].starts_with(b"::") {
        *i += 2;
        use_tree(s, i, &format!("{path}::"), out);
        return;
    }
    out.push(path);
    // `B as C`: the new name is no path.
    if s[*i..].starts_with(b"as") && s.get(*i + 2).is_some_and(|b| !is_ident(*b)) {
        *i += 2;
        skip_ws(i);
        while *i < s.len() && is_ident(s[*i]) {
            *i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lexer_tells_strings_from_comments_chars_and_lifetimes() {
        let src = r####"
            // "dram__bytes.sum" in a comment
            /* a /* nested */ "lts__t_bytes.sum" */
            fn f<'a>(x: &'a str) -> char { let q = '"'; let e = '\''; 'x' }
            const A: &str = "gpu__time_duration.sum";
            const B: &str = r#"say "sm__throughput" here"#;
            const C: &[u8] = b"esc \" l1tex__t_bytes";
            const D: &str = "a \
                             continued";
        "####;
        let lexed = lex(src);
        let texts: Vec<&str> = lexed.literals.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(
            texts[..3],
            [
                "gpu__time_duration.sum",
                r#"say "sm__throughput" here"#,
                r#"esc \" l1tex__t_bytes"#,
            ]
        );
        assert!(texts[3].starts_with("a \\\n") && texts[3].ends_with(" continued"));
        assert_eq!(texts.len(), 4);
        assert_eq!(lexed.literals[0].line, 5);
        assert!(!lexed.code.contains("dram__") && !lexed.code.contains("lts__"));
        assert!(lexed.code.contains("fn f<'a>(x: &'a str)"));
        assert_eq!(lexed.code.len(), src.len());
        let comments: Vec<(usize, &str)> = lexed
            .comments
            .iter()
            .map(|c| (c.line, c.text.as_str()))
            .collect();
        assert_eq!(
            comments,
            [
                (2, "// \"dram__bytes.sum\" in a comment"),
                (3, "/* a /* nested */ \"lts__t_bytes.sum\" */"),
            ]
        );
    }
}
