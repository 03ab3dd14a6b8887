//! Helpers: locate the workspace, build and run the `capture` binary, scratch folders.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A fixture under tests/fixtures/.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// Path to the `capture` binary, built once per test run.
pub fn capture_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "capture"])
            .current_dir(root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building capture failed");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target"));
        target.join("debug/capture")
    })
}

/// Runs `capture` with `args`.
pub fn capture(args: &[&str]) -> Output {
    Command::new(capture_bin())
        .args(args)
        .output()
        .expect("capture starts")
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A path as &str (test paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Imports `exports` into an artifact in `dir`, asserting success; returns its path.
pub fn import(dir: &Path, exports: &[PathBuf]) -> PathBuf {
    let out = dir.join("a.json");
    let mut args = vec!["import"];
    args.extend(exports.iter().map(|p| s(p)));
    args.extend(["-o", s(&out)]);
    let o = capture(&args);
    assert!(o.status.success(), "import failed: {}", stderr(&o));
    out
}

/// The keys of `value`'s objects, at any depth, that the contract `doc` (a page of `docs/`)
/// names in none of its code spans (`` `key` ``, `` `{unit, pct_of_peak}` ``): a field the
/// JSON has and its documentation lacks. The keys of the objects under `maps` are data (a
/// stall reason, a precision), not fields.
pub fn undocumented_keys(value: &serde_json::Value, doc: &str, maps: &[&str]) -> Vec<String> {
    fn named(doc: &str, key: &str) -> bool {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        doc.split('`').skip(1).step_by(2).any(|span| {
            span.match_indices(key).any(|(at, _)| {
                let before = span[..at].chars().next_back();
                let after = span[at + key.len()..].chars().next();
                !before.is_some_and(word) && !after.is_some_and(word)
            })
        })
    }
    fn walk(v: &serde_json::Value, doc: &str, maps: &[&str], out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (key, inner) in map {
                    if !named(doc, key) && !out.contains(key) {
                        out.push(key.clone());
                    }
                    if !maps.contains(&key.as_str()) {
                        walk(inner, doc, maps, out);
                    }
                }
            }
            serde_json::Value::Array(items) => {
                items.iter().for_each(|i| walk(i, doc, maps, out));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, doc, maps, &mut out);
    out
}

/// The file inside the gzipped fixture `rel`, written un-gzipped into `dir` under its
/// name without `.gz`.
pub fn gunzip_fixture(dir: &Path, rel: &str) -> PathBuf {
    let bytes = std::fs::read(fixture(rel)).expect("fixture");
    let mut report = Vec::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_end(&mut report)
        .expect("fixture gunzips");
    let name = Path::new(rel).file_stem().expect("a .gz name").to_owned();
    let path = dir.join(name);
    std::fs::write(&path, report).expect("write");
    path
}

/// The fields of one line of an ncu CSV page: quoted fields, `""` a quote inside (ncu's
/// pages have no newline inside a field of the raw page).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', q) => quoted = !q,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (ch, _) => field.push(ch),
        }
    }
    fields.push(field);
    fields
}

/// One line of an ncu CSV page from its fields, each quoted as ncu writes them.
pub fn csv_line(fields: &[String]) -> String {
    let quoted: Vec<String> = fields
        .iter()
        .map(|f| format!("\"{}\"", f.replace('"', "\"\"")))
        .collect();
    quoted.join(",")
}
