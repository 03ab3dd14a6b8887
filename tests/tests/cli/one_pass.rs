//! One-pass counters (`capture trace --counters`, PM sampling) against replay: the fixtures of
//! tests/fixtures/one-pass-h100 (README), one run of each kind of the same cuBLAS GEMM program
//! on an H100. The error table is recomputed here and must equal docs/one-pass.md's.

use shared::analysis::one_pass::{Calibration, OnePassReport, Replayed};

use crate::util::*;

fn calibration() -> Calibration {
    let dir = tempfile::tempdir().expect("tempdir");
    let trace = gunzip_fixture(dir.path(), "one-pass-h100/gemm_tf32_fp8_counters.json.gz");
    let text = std::fs::read_to_string(&trace).expect("trace");
    let artifact = shared::model::artifact::Artifact::from_json(&text).expect("artifact");
    let report = OnePassReport::of(artifact.trace.as_deref().expect("a trace")).expect("counters");
    let profile = gunzip_fixture(dir.path(), "one-pass-h100/gemm_tf32_fp8_profile.json.gz");
    let o = capture(&["table", "--format", "json", s(&profile)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
    let replayed: Vec<Replayed> = table["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| Replayed {
            name: k["name"].as_str().expect("name").to_owned(),
            dram_bytes: k["dram_bytes"].as_f64(),
            l2_bytes: k["l2_bytes"].as_f64(),
            launches: k["launches"].as_u64().expect("launches"),
        })
        .collect();
    Calibration::of(&report, &replayed)
}

/// The line docs/one-pass.md states the figures in.
fn stated(c: &Calibration) -> String {
    let (dm, d9) = c.dram_abs_error_pct.expect("dram");
    let (lm, l9) = c.l2_abs_error_pct.expect("l2");
    format!(
        "gemm_tf32_fp8, H100, 1 ms interval: DRAM bytes time-weighted |error| median {dm:.1} %, \
         90th percentile {d9:.1} %, summed {:+.1} %; L2 bytes median {lm:.1} %, 90th percentile \
         {l9:.1} %",
        c.dram_total_error_pct.expect("total")
    )
}

#[test]
fn the_one_pass_error_table_is_the_one_the_docs_state() {
    let c = calibration();
    assert!(c.unmatched.is_empty(), "{:?}", c.unmatched);
    assert_eq!(c.lines.len(), 8);
    let line = stated(&c);
    let doc = std::fs::read_to_string(root().join("docs/one-pass.md")).expect("docs");
    assert!(doc.contains(&line), "docs/one-pass.md should state: {line}");
    // Launches longer than the interval are within a few per cent; the short ones are not.
    for l in &c.lines {
        if l.launch_over_interval >= 0.7 {
            let e = l.dram_error_pct.expect("dram").abs();
            assert!(e < 5.0, "{}: {e} %", l.name);
        }
    }
}
