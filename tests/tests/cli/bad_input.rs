//! Bad input: rejected with one line naming the file (and line), or loaded with warnings.
//! Never a panic.

use std::path::Path;

use crate::util::*;

fn write(dir: &Path, name: &str, bytes: &[u8]) -> std::path::PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).expect("write");
    p
}

fn assert_rejected(args: &[&str], file: &Path, needle: &str) {
    let o = capture(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
    assert!(err.contains(s(file)), "error names the file: {err}");
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
}

#[test]
fn unreadable_exports_are_rejected_naming_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let cases: [(&str, &[u8], &str); 4] = [
        ("empty.csv", b"", "empty"),
        ("garbage.csv", &[0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0xff, 0xfe, 0, 0], "binary"),
        ("plain.csv", b"a,b\n1,2\n", "line 1"),
        ("header_only.csv", b"\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"gpu__time_duration.sum\"\n", "line"),
    ];
    for (name, bytes, needle) in cases {
        let p = write(dir.path(), name, bytes);
        assert_rejected(&["import", s(&p), "-o", s(&out)], &p, needle);
        assert!(!out.exists(), "{name}: nothing written");
    }
}

#[test]
fn future_and_foreign_artifacts_are_rejected() {
    let dir = tempfile::tempdir().expect("tempdir");
    let future = write(
        dir.path(),
        "future.json",
        br#"{"schema": 2000, "kernels": []}"#,
    );
    assert_rejected(&["table", s(&future)], &future, "newer");
    let foreign = write(dir.path(), "foreign.json", br#"{"hello": "world"}"#);
    assert_rejected(&["table", s(&foreign)], &foreign, "schema");
    let missing = dir.path().join("missing.json");
    assert_rejected(&["table", s(&missing)], &missing, "cannot open");
}

#[test]
fn truncated_export_loads_complete_rows_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(fixture("ncu-h200/probe_metrics_raw_with_stdout.csv"))
        .expect("fixture");
    // Cut the last launch row in half.
    let cut = text.trim_end().len() - text.trim_end().lines().last().map_or(0, |l| l.len() / 2);
    let p = write(dir.path(), "truncated.csv", &text.as_bytes()[..cut]);
    let out = dir.path().join("out.json");
    let o = capture(&["import", s(&p), "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("warning"), "{}", stderr(&o));
    assert!(stdout(&o).contains("1 launch(es)"), "{}", stdout(&o));
}

#[test]
fn unknown_details_section_loads_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(fixture(
        "ncu-h200/probe_sections_details_base_units_with_stdout.csv",
    ))
    .expect("fixture");
    let renamed = text.replace("\"Launch Statistics\"", "\"Quantum Flux Analysis\"");
    let p = write(dir.path(), "unknown_section.csv", renamed.as_bytes());
    let out = dir.path().join("out.json");
    let o = capture(&["import", s(&p), "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("Quantum Flux Analysis"),
        "{}",
        stderr(&o)
    );
}
