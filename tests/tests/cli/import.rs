//! `capture import` on every real fixture.

use crate::util::*;
use serde_json::Value;

#[test]
fn probe_metrics_export_gives_copy_and_fma_figures() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[fixture("ncu-h200/probe_metrics_raw_with_stdout.csv")],
    );
    let o = capture(&["table", s(&art), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t: Value = serde_json::from_str(&stdout(&o)).expect("table json");
    assert_eq!(t["device"], "NVIDIA H200");
    let kernels = t["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 2);
    let copy = &kernels[0];
    assert_eq!(copy["name"], "copy");
    assert_eq!(copy["dram_bytes"].as_f64(), Some(8_570_888_192.0));
    assert_eq!(copy["time_ms"].as_f64(), Some(2.854816));
    let gbs = copy["gbs"].as_f64().expect("gbs");
    assert!((gbs - 3002.3).abs() < 0.1, "copy GB/s {gbs}");
    let fma = &kernels[1];
    assert_eq!(fma["name"], "fma_loop");
    assert_eq!(fma["flops"].as_f64(), Some(70_866_960_384.0));
    let missing: Vec<&str> = fma["flops_missing"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert_eq!(
        missing,
        [
            "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum",
            "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum"
        ]
    );
    // The artifact itself records the missing FLOP counters.
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(&art).expect("artifact")).expect("json");
    let warnings = a["warnings"].as_array().expect("warnings");
    assert!(
        warnings.iter().any(|w| w
            .as_str()
            .is_some_and(|w| w.contains("fma_loop") && w.contains("lower bound"))),
        "{warnings:?}"
    );
    // The theoretical ceilings come from the export's device attributes.
    assert_eq!(
        t["ceilings"]["theoretical_gbs"].as_f64().map(f64::round),
        Some(4814.0)
    );
}

#[test]
fn import_prints_a_one_line_summary() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("a.json");
    let o = capture(&[
        "import",
        s(&fixture("ncu-h200/probe_metrics_raw_with_stdout.csv")),
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("2 launch(es) of 2 kernel(s)"), "{text}");
}

#[test]
fn details_page_gives_speed_of_light_rows_and_verdict() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[fixture(
            "ncu-h200/probe_sections_details_base_units_with_stdout.csv",
        )],
    );
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(&art).expect("artifact")).expect("json");
    let sections = a["kernels"][0]["cold"]["launches"][0]["sections"]
        .as_array()
        .expect("sections");
    let row = |name: &str| {
        sections
            .iter()
            .find(|r| r["section"] == "GPU Speed Of Light Throughput" && r["name"] == name)
            .and_then(|r| r["value"].as_f64())
    };
    assert_eq!(row("Memory Throughput"), Some(62.40));
    assert_eq!(row("DRAM Throughput"), Some(62.40));
    assert_eq!(row("Compute (SM) Throughput"), Some(18.00));
    let o = capture(&["table", s(&art), "--format", "json"]);
    let t: Value = serde_json::from_str(&stdout(&o)).expect("table json");
    assert_eq!(t["kernels"][0]["verdict"], "memory-bound");
}

#[test]
fn raw_and_details_pages_of_one_run_join() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[
            fixture("ncu-h200/probe_full_raw.csv"),
            fixture("ncu-h200/probe_full_details.csv"),
        ],
    );
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(&art).expect("artifact")).expect("json");
    let kernels = a["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 1);
    let cold = &kernels[0]["cold"];
    let columns = cold["metric_columns"].as_array().expect("metric columns");
    assert!(columns.len() > 2000, "{}", columns.len());
    let launch = &cold["launches"][0];
    assert_eq!(
        launch["metrics"].as_array().map(Vec::len),
        Some(columns.len()),
        "one value per column"
    );
    assert!(!launch["sections"].as_array().expect("sections").is_empty());
    // Scaled units are normalized: 4.295008 Gbyte read.
    let i = columns
        .iter()
        .position(|c| c["name"] == "dram__bytes_read.sum")
        .expect("dram read column");
    assert_eq!(launch["metrics"][i].as_f64(), Some(4_295_008_000.0));
    assert_eq!(columns[i]["unit"], "byte");
}

#[test]
fn every_fixture_imports() {
    let dir = tempfile::tempdir().expect("tempdir");
    for entry in std::fs::read_dir(fixture("ncu-h200")).expect("fixtures") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("csv") {
            continue;
        }
        let art = import(dir.path(), std::slice::from_ref(&path));
        let o = capture(&["table", s(&art)]);
        assert!(o.status.success(), "{}: {}", path.display(), stderr(&o));
        assert!(stdout(&o).contains("DRAM/ask"), "{}", path.display());
    }
}

#[cfg(unix)]
#[test]
fn an_export_whose_name_is_not_utf8_imports_and_is_recorded() {
    // `std::env::args` panics on such an argument; the provenance reads `args_os`.
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("tempdir");
    let name = std::ffi::OsStr::from_bytes(b"probe-\xff.csv");
    let export = dir.path().join(name);
    std::fs::copy(
        fixture("ncu-h200/probe_metrics_raw_with_stdout.csv"),
        &export,
    )
    .expect("copy");
    let out = dir.path().join("a.json");
    let o = std::process::Command::new(capture_bin())
        .arg("import")
        .arg(&export)
        .arg("-o")
        .arg(&out)
        .output()
        .expect("capture starts");
    assert!(o.status.success(), "{}", stderr(&o));
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("artifact")).expect("json");
    assert_eq!(a["provenance"]["inputs"][0], "probe-\u{fffd}.csv");
    let line = a["provenance"]["command_line"]
        .as_str()
        .expect("command line");
    assert!(
        line.contains(" import '") && line.contains("probe-\u{fffd}.csv'"),
        "{line}"
    );
}

/// `capture source ARGS --format json`'s output, asserting success.
fn source_json(args: &[&str]) -> String {
    let mut all = vec!["source"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let o = capture(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    stdout(&o)
}

#[test]
fn a_report_imported_with_its_source_page_keeps_each_kernels_sass_in_the_artifact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = unzstd_fixture(dir.path(), "ncu-h200-suite-source/suite_full.ncu-repz");
    let page = fixture("ncu-h200-suite-source/suite_source_cuda_sass.csv.gz");
    let art = dir.path().join("suite.json");
    let o = capture(&["import", s(&report), "--source", s(&page), "-o", s(&art)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("no SASS text"), "{}", stderr(&o));
    // The artifact alone gives what the report and its page give together.
    let from_artifact = source_json(&[s(&art), "--kernel", "stride32"]);
    let from_report = source_json(&[s(&report), "--kernel", "stride32", "--sass", s(&page)]);
    assert_eq!(from_artifact, from_report);
    let list: Value = serde_json::from_str(&from_artifact).expect("json");
    let load = list
        .as_array()
        .expect("instructions")
        .iter()
        .find(|i| i["sass"].as_str().is_some_and(|t| t.starts_with("LDG")))
        .expect("a global load with its SASS");
    assert_eq!(
        load["file"].as_str().map(|f| f.ends_with("vector_add.cu")),
        Some(true)
    );
    // One launch per kernel is kept, each with text.
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(&art).expect("read")).expect("json");
    assert_eq!(a["schema"], 7);
    let sources = a["sources"].as_array().expect("sources");
    let kernels = a["kernels"].as_array().expect("kernels");
    assert_eq!(sources.len(), kernels.len());
    assert!(sources
        .iter()
        .all(|l| l["instructions"][0]["sass"].is_string()));
    // The page among the inputs, as the viewer takes a picked pair: the same artifact but
    // for the command line in its provenance.
    let art2 = dir.path().join("suite2.json");
    let o = capture(&["import", s(&report), s(&page), "-o", s(&art2)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        source_json(&[s(&art2), "--kernel", "stride32"]),
        from_artifact
    );
}

#[test]
fn a_report_imported_without_its_source_page_says_how_to_add_the_sass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = unzstd_fixture(dir.path(), "ncu-h200-suite-source/suite_full.ncu-repz");
    let art = dir.path().join("suite.json");
    // No disassembler to be found (PATH emptied, no CUDA_HOME), as on a machine without CUDA.
    let o = std::process::Command::new(capture_bin())
        .args(["import", s(&report), "-o", s(&art)])
        .env("PATH", dir.path())
        .env_remove("CUDA_HOME")
        .output()
        .expect("run capture");
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    if !std::path::Path::new("/usr/local/cuda/bin/nvdisasm").is_file() {
        assert!(err.contains("have no SASS text"), "{err}");
        assert!(err.contains("`pip install nvidia-cuda-nvdisasm`"), "{err}");
    }
    // The figures are kept all the same.
    let list: Value =
        serde_json::from_str(&source_json(&[s(&art), "--kernel", "stride32"])).expect("json");
    let list = list.as_array().expect("instructions");
    assert!(list
        .iter()
        .any(|i| i["inst_executed"].as_f64().is_some_and(|v| v > 0.0)));
    assert!(list.iter().all(|i| i["sass"].is_null()));
    // A --source that is no source page is refused, saying what it is.
    let raw = fixture("ncu-h200/probe_full_raw.csv");
    let o = capture(&["import", s(&report), "--source", s(&raw), "-o", s(&art)]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(err.contains("not a source-page export (CSV text)"), "{err}");
}
