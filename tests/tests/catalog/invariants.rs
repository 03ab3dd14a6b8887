//! The architecture invariants a read of the sources can check (the list is in the crate's
//! documentation, [`crate`]).

use std::ops::Range;
use std::path::{Path, PathBuf};

use crate::lex::{is_ident, lex, use_tree, Lexed};
use crate::{read, root, rust_files, shown};

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
pub(crate) fn test_ranges(code: &str) -> Vec<Range<usize>> {
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
pub(crate) fn test_module_files(path: &Path, code: &str) -> Vec<PathBuf> {
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
            use_tree(s, &mut i, "", &mut out);
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

/// The crate roots that forbid `unsafe` (issue 52): `shared` and the viewer have none, and a
/// crate-level `forbid` keeps it so (no inner `allow` can lift it). `capture` (CUDA and
/// cuBLASLt through cudarc, the allocator's `mallopt`) and `inject` (CUPTI) need it.
#[test]
fn shared_and_the_viewer_forbid_unsafe_code() {
    let missing: Vec<&str> = [
        "shared/src/lib.rs",
        "viewer/src/lib.rs",
        "viewer/src/main.rs",
    ]
    .into_iter()
    .filter(|path| {
        !lex(&read(&root().join(path)))
            .code
            .lines()
            .any(|l| l.trim() == "#![forbid(unsafe_code)]")
    })
    .collect();
    assert!(
        missing.is_empty(),
        "crate roots without #![forbid(unsafe_code)]: {missing:?}"
    );
}

/// Files left to convert to `shared::order` (none: the last, `ranges.rs`, went over after the
/// round-10 merge; name a file here only while it is being converted).
const SORTS_LEFT: [&str; 0] = [];

#[test]
fn shared_and_the_viewer_sort_through_one_sort() {
    // Each call of a slice sort compiles a whole sort for its element and comparison (about
    // 4 KB of wasm); `shared::order` compiles one.
    const SORTS: [&str; 7] = [
        ".sort()",
        ".sort_unstable()",
        ".sort_by(",
        ".sort_by_key(",
        ".sort_unstable_by(",
        ".sort_unstable_by_key(",
        ".sort_by_cached_key(",
    ];
    let files: Vec<PathBuf> = rust_files("shared/src")
        .into_iter()
        .chain(rust_files("viewer/src"))
        .filter(|p| {
            let p = shown(p);
            p != "shared/src/order.rs" && !SORTS_LEFT.contains(&p.as_str())
        })
        .collect();
    let lexed: Vec<Lexed> = files.iter().map(|p| lex(&read(p))).collect();
    let test_files: Vec<PathBuf> = files
        .iter()
        .zip(&lexed)
        .flat_map(|(p, l)| test_module_files(p, &l.code))
        .collect();
    let mut found = Vec::new();
    for (path, lexed) in files.iter().zip(&lexed) {
        if test_files.contains(path) {
            continue;
        }
        let tests = test_ranges(&lexed.code);
        for sort in SORTS {
            for (at, _) in lexed.code.match_indices(sort) {
                if !tests.iter().any(|r| r.contains(&at)) {
                    found.push(format!("{}: {sort}", shown(path)));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "sort through shared::order (sort, sort_by, sort_by_key, sort_floats):\n{}",
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
