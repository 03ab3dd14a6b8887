//! `capture merge`: a timings artifact joined with ncu exports.
//!
//! The timings file is built here with the one real timing the fixture's program printed
//! ("copy best 2.895 ms" in probe_metrics_raw_with_stdout.csv); the counters are the real
//! export.

use std::path::{Path, PathBuf};

use crate::util::*;
use serde_json::{json, Value};

fn timings(dir: &Path, functions: &[&str]) -> PathBuf {
    let kernels: Vec<Value> = functions
        .iter()
        .map(|f| {
            let timing = (*f == "copy").then(|| {
                json!({"warmups": 1, "min_ms": 2.895, "median_ms": 2.895, "max_ms": 2.895,
                       "samples_ms": [2.895]})
            });
            json!({"name": f, "function": f, "timing": timing,
                   "check": {"passed": true, "detail": "test input"}})
        })
        .collect();
    let doc = json!({"schema": 1, "provenance": {"tool": "test", "tool_version": "0"},
                     "kernels": kernels});
    let path = dir.join("timings.json");
    std::fs::write(&path, doc.to_string()).expect("write timings");
    path
}

fn table_json(artifact: &Path) -> Value {
    let o = capture(&["table", s(artifact), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("table json")
}

#[test]
fn merge_joins_counters_and_uses_event_time() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = timings(dir.path(), &["copy", "fma_loop"]);
    let out = dir.path().join("merged.json");
    let export = fixture("ncu-h200/probe_metrics_raw_with_stdout.csv");
    let o = capture(&[
        "merge",
        "--timings",
        s(&t),
        "--ncu",
        s(&export),
        "--ncu-warm",
        s(&export),
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = table_json(&out);
    let copy = &table["kernels"][0];
    assert_eq!(copy["time_ms"].as_f64(), Some(2.895));
    assert_eq!(copy["time_source"], "event_median");
    let gbs = copy["gbs"].as_f64().expect("gbs");
    assert!((gbs - 8_570_888_192.0 / 2.895e-3 / 1e9).abs() < 1e-6);
    assert_eq!(copy["check"], "pass");
    // fma_loop has no event timing: its time falls back to ncu's duration.
    assert_eq!(table["kernels"][1]["time_source"], "ncu_duration");
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("read")).expect("json");
    assert_eq!(a["kernels"][0]["warm"]["cache_control"], "warm");
    assert_eq!(a["provenance"]["origin"], "merge");
}

#[test]
fn merge_fails_naming_a_kernel_the_export_lacks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let t = timings(dir.path(), &["copy", "vec_add_stride32"]);
    let out = dir.path().join("merged.json");
    let o = capture(&[
        "merge",
        "--timings",
        s(&t),
        "--ncu",
        s(&fixture("ncu-h200/probe_metrics_raw_with_stdout.csv")),
        "-o",
        s(&out),
    ]);
    assert_eq!(o.status.code(), Some(9), "{}", stderr(&o));
    assert!(stderr(&o).contains("'vec_add_stride32'"), "{}", stderr(&o));
    assert!(!out.exists(), "nothing written on failure");
}
