//! The architecture invariants that a read of the sources can check, checked:
//!
//! - no counter name is spelled in `capture/src` or `viewer/src`: they name counters through
//!   the catalog, `shared::model::counters`;
//! - `shared/src` reads counters only through the catalog: outside `counters.rs` and
//!   `#[cfg(test)]` code, no string holds a counter name (`metrics.rs` and `figures.rs`,
//!   which read the counters, included);
//! - `shared/src` does no I/O: no `std::fs`, `std::process`, `std::env`, `std::net`, and no
//!   clock (`Instant`, `SystemTime`);
//! - every workspace member takes the workspace's lints.
//!
//! The sources are read with a small Rust lexer (below) that tells code, comments and string
//! literals apart, so a counter named in a doc comment is fine and one in a string is not.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "an integration test reports a failure by panicking; clippy.toml's allow-*-in-tests covers only #[test] functions, not their helpers"
)]

use std::ops::Range;
use std::path::{Path, PathBuf};

/// The workspace root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, sorted, relative to the workspace root.
fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    assert!(!out.is_empty(), "no Rust sources under {dir}");
    out
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A file's name relative to the workspace root, for messages.
fn shown(path: &Path) -> String {
    let root = root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A string literal of a source file: where it starts and its text as written (escapes
/// and line continuations left as they are).
#[derive(Debug)]
struct Literal {
    /// Byte offset of the opening quote (or of its `r`/`b` prefix).
    start: usize,
    /// Line of the opening quote, from 1.
    line: usize,
    text: String,
}

/// A source file split into code and string literals.
#[derive(Debug)]
struct Lexed {
    /// The source with comments and literals blanked to spaces (newlines kept), so offsets
    /// and lines stay those of the source.
    code: String,
    literals: Vec<Literal>,
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Splits Rust source into code and string literals: line and (nested) block comments,
/// `"..."`, `b"..."`, `c"..."`, raw strings `r#"..."#` and their `b`/`c` forms; character
/// literals are told from lifetimes.
fn lex(src: &str) -> Lexed {
    let s = src.as_bytes();
    let mut code = s.to_vec();
    let mut literals = Vec::new();
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

/// The first word in `text` that looks like an ncu counter name: letters or digits, a
/// double underscore, then more (`dram__bytes_read`, `launch__occupancy_limit_*`).
fn counter_like(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let at = (1..b.len().saturating_sub(2)).find(|&i| {
        b[i..].starts_with(b"__")
            && (b[i - 1].is_ascii_lowercase() || b[i - 1].is_ascii_digit())
            && (b[i + 2].is_ascii_lowercase() || b[i + 2].is_ascii_digit())
    })?;
    let start = b[..at]
        .iter()
        .rposition(|&c| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_'))
        .map_or(0, |p| p + 1);
    let end = b[at..]
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || c == b'.' || c == b'*'))
        .map_or(b.len(), |p| at + p);
    Some(text[start..end].trim_end_matches('.'))
}

/// Byte ranges of the `#[cfg(test)]` items of a lexed file (a test module's braces, or an
/// item up to its `;`).
fn test_ranges(code: &str) -> Vec<Range<usize>> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("#[cfg(test)]") {
        let start = from + p;
        let mut j = start + "#[cfg(test)]".len();
        while j < b.len() && b[j] != b'{' && b[j] != b';' {
            j += 1;
        }
        if j < b.len() && b[j] == b'{' {
            let mut depth = 0;
            while j < b.len() {
                match b[j] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        let end = (j + 1).min(b.len());
        out.push(start..end);
        from = end;
    }
    out
}

/// The files of the modules that `path` declares as `#[cfg(test)] mod name;`.
fn test_module_files(path: &Path, code: &str) -> Vec<PathBuf> {
    let dir = path.parent().unwrap_or(path);
    let stem = path
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let base = if ["mod", "lib", "main"].contains(&stem) {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    test_ranges(code)
        .into_iter()
        .filter_map(|r| {
            let item = code.get(r)?.trim_start_matches("#[cfg(test)]").trim();
            let name = item.strip_prefix("mod ")?.strip_suffix(';')?.trim();
            let file = base.join(format!("{name}.rs"));
            Some(if file.exists() {
                file
            } else {
                base.join(name).join("mod.rs")
            })
        })
        .collect()
}

/// `file:line: word (in "literal")` for each string literal of `files` that holds a counter
/// name, skipping `#[cfg(test)]` code (and the files of `#[cfg(test)] mod name;`) when
/// `skip_tests`.
fn counter_literals(files: &[PathBuf], skip_tests: bool) -> Vec<String> {
    let lexed: Vec<Lexed> = files.iter().map(|p| lex(&read(p))).collect();
    let test_files: Vec<PathBuf> = if skip_tests {
        files
            .iter()
            .zip(&lexed)
            .flat_map(|(p, l)| test_module_files(p, &l.code))
            .collect()
    } else {
        Vec::new()
    };
    let mut found = Vec::new();
    for (path, lexed) in files.iter().zip(&lexed) {
        if test_files.contains(path) {
            continue;
        }
        let tests = if skip_tests {
            test_ranges(&lexed.code)
        } else {
            Vec::new()
        };
        for lit in &lexed.literals {
            if tests.iter().any(|r| r.contains(&lit.start)) {
                continue;
            }
            if let Some(word) = counter_like(&lit.text) {
                found.push(format!(
                    "{}:{}: {word} (in \"{}\")",
                    shown(path),
                    lit.line,
                    lit.text
                ));
            }
        }
    }
    found
}

/// Every path a `use`-like path starting right after `std::` names: `fs::File` gives
/// `fs::File`; `{fs, time::{Duration, Instant}}` gives `fs`, `time::Duration`,
/// `time::Instant`. `code` has no comments or literals; whitespace is ignored.
fn std_paths(code: &str) -> Vec<String> {
    fn tree(s: &[u8], i: &mut usize, prefix: &str, out: &mut Vec<String>) {
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
                    _ => tree(s, i, prefix, out),
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
            tree(s, i, &format!("{path}::"), out);
        } else {
            out.push(path);
        }
    }
    let s = code.as_bytes();
    let mut out = Vec::new();
    let mut from = 0;
    while let Some(p) = code[from..].find("std") {
        let at = from + p;
        from = at + 3;
        let mut i = at + 3;
        let before_ok = at == 0 || !is_ident(s[at - 1]);
        while i < s.len() && s[i].is_ascii_whitespace() {
            i += 1;
        }
        if before_ok && s[i..].starts_with(b"::") {
            i += 2;
            tree(s, &mut i, "", &mut out);
        }
    }
    out
}

/// Whether `path` (below `std::`) is one `shared` must not use.
fn forbidden_in_shared(path: &str) -> bool {
    const MODULES: [&str; 4] = ["fs", "process", "env", "net"];
    const CLOCKS: [&str; 2] = ["time::Instant", "time::SystemTime"];
    let first = path.split("::").next().unwrap_or_default();
    MODULES.contains(&first)
        || CLOCKS
            .iter()
            .any(|c| path == *c || path.starts_with(&format!("{c}::")))
}

#[test]
fn capture_and_the_viewer_spell_no_counter_name() {
    let mut files = rust_files("capture/src");
    files.extend(rust_files("viewer/src"));
    let found = counter_literals(&files, false);
    assert!(
        found.is_empty(),
        "counter names spelled outside shared::model::counters (use its constants):\n{}",
        found.join("\n")
    );
}

#[test]
fn shared_reads_counters_only_through_the_catalog() {
    // metrics.rs and figures.rs read the counters; nothing in shared outside the catalog
    // and the tests spells one.
    let files: Vec<PathBuf> = rust_files("shared/src")
        .into_iter()
        .filter(|p| !p.ends_with("shared/src/model/counters.rs"))
        .collect();
    assert!(files
        .iter()
        .any(|p| p.ends_with("shared/src/analysis/metrics.rs")));
    assert!(files
        .iter()
        .any(|p| p.ends_with("shared/src/analysis/figures.rs")));
    let found = counter_literals(&files, true);
    assert!(
        found.is_empty(),
        "counter names spelled in shared outside shared::model::counters and tests:\n{}",
        found.join("\n")
    );
}

#[test]
fn shared_does_no_io() {
    let mut found = Vec::new();
    for path in rust_files("shared/src") {
        let code = lex(&read(path.as_path())).code;
        for p in std_paths(&code) {
            if forbidden_in_shared(&p) {
                found.push(format!("{}: std::{p}", shown(&path)));
            }
        }
        // A clock named without its module (after `use std::time;` or a re-export).
        for clock in ["Instant", "SystemTime"] {
            let b = code.as_bytes();
            let named = code.match_indices(clock).any(|(at, _)| {
                let end = at + clock.len();
                (at == 0 || !is_ident(b[at - 1])) && (end == b.len() || !is_ident(b[end]))
            });
            if named {
                found.push(format!("{}: {clock}", shown(&path)));
            }
        }
    }
    assert!(
        found.is_empty(),
        "shared does no I/O and reads no clock:\n{}",
        found.join("\n")
    );
}

#[test]
fn every_member_takes_the_workspace_lints() {
    let manifest = read(&root().join("Cargo.toml"));
    let members = manifest
        .split_once("members = [")
        .and_then(|(_, rest)| rest.split_once(']'))
        .map(|(list, _)| list)
        .unwrap_or_default();
    let members: Vec<&str> = members
        .split(',')
        .map(|m| m.trim().trim_matches('"'))
        .filter(|m| !m.is_empty())
        .collect();
    assert!(
        members.contains(&"shared") && members.contains(&"viewer"),
        "{members:?}"
    );
    for member in members {
        let toml = read(&root().join(member).join("Cargo.toml"));
        let lints = toml.split_once("\n[lints]\n").map(|(_, rest)| rest);
        assert!(
            lints.is_some_and(|rest| rest.trim_start().starts_with("workspace = true")),
            "{member}/Cargo.toml lacks `[lints] workspace = true`"
        );
    }
}

// The lexer and the matchers, on snippets: the checks above are only as good as these.

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
}

#[test]
fn counter_like_words_are_found_inside_text() {
    let cases = [
        ("dram__bytes_read.sum", Some("dram__bytes_read.sum")),
        (
            "ncu's gpu__time_duration.sum, and",
            Some("gpu__time_duration.sum"),
        ),
        (
            "from launch__occupancy_limit_*.",
            Some("launch__occupancy_limit_*"),
        ),
        ("__global__ void k()", None),
        ("a_b_c and x__", None),
        ("{name}__{unit}", None),
        ("", None),
    ];
    for (text, want) in cases {
        assert_eq!(counter_like(text), want, "{text:?}");
    }
}

#[test]
fn std_paths_expand_use_groups() {
    let code = "use std::{fs, io::{self, Read}, time::{Duration, Instant}};\n\
                fn f() { std :: process::Command::new(\"x\"); let _ = mystd::env; }\n\
                use std::time::SystemTime as T; use std::collections::*;";
    let paths = std_paths(&lex(code).code);
    assert_eq!(
        paths,
        [
            "fs",
            "io::self",
            "io::Read",
            "time::Duration",
            "time::Instant",
            "process::Command::new",
            "time::SystemTime",
            "collections",
        ]
    );
    let forbidden: Vec<&String> = paths.iter().filter(|p| forbidden_in_shared(p)).collect();
    assert_eq!(
        forbidden,
        [
            "fs",
            "time::Instant",
            "process::Command::new",
            "time::SystemTime"
        ]
    );
}

#[test]
fn a_test_module_in_its_own_file_is_found() {
    let mod_rs = root().join("shared/src/read/ncu/mod.rs");
    let files = test_module_files(&mod_rs, &lex(&read(&mod_rs)).code);
    assert_eq!(files, [root().join("shared/src/read/ncu/tests.rs")]);
}

#[test]
fn test_modules_are_skipped_where_asked() {
    let src = "const A: &str = \"x\";\n#[cfg(test)]\nmod tests {\n fn t() { let _ = \"dram__bytes.sum\"; { } }\n}\nconst B: &str = \"lts__t_bytes.sum\";";
    let lexed = lex(src);
    let tests = test_ranges(&lexed.code);
    let kept: Vec<&str> = lexed
        .literals
        .iter()
        .filter(|l| !tests.iter().any(|r| r.contains(&l.start)))
        .map(|l| l.text.as_str())
        .collect();
    assert_eq!(kept, ["x", "lts__t_bytes.sum"]);
}
