//! `capture table` formats.

use crate::util::*;

#[test]
fn every_format_renders_the_same_rows() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[fixture("ncu-h200/probe_metrics_raw_with_stdout.csv")],
    );
    for (format, needle) in [
        ("table", "DRAM/ask"),
        ("csv", "name,launches,time_ms"),
        ("markdown", "| kernel |"),
        ("json", "\"kernels\""),
    ] {
        let o = capture(&["table", s(&art), "--format", format]);
        assert!(o.status.success(), "{format}: {}", stderr(&o));
        let text = stdout(&o);
        assert!(text.contains(needle), "{format}: {text}");
        assert!(text.contains("fma_loop"), "{format}");
    }
}

#[test]
fn lower_bound_flops_are_marked_in_the_human_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[fixture("ncu-h200/probe_metrics_raw_with_stdout.csv")],
    );
    let text = stdout(&capture(&["table", s(&art)]));
    let fma = text
        .lines()
        .find(|l| l.starts_with("fma_loop"))
        .expect("fma row");
    assert!(fma.contains(">="), "{fma}");
}
