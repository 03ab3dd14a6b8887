//! `capture import` of Nsight Systems' exports (docs/nsys-import.md): the SQLite export into
//! a trace with its kernels, copies and nested NVTX ranges, and the `nsys stats` CSVs into
//! summaries, each shown by `capture table` as nsys shows them.

use crate::util::*;
use serde_json::Value;

fn json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("artifact")).expect("json")
}

fn table_json(art: &std::path::Path) -> Value {
    let o = capture(&["table", s(art), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("table json")
}

/// A string of the trace by its index.
fn string(trace: &Value, index: &Value) -> String {
    let i = index.as_u64().expect("index") as usize;
    trace["strings"][i].as_str().expect("string").to_owned()
}

/// The synthetic SQLite export imported: its folder, the artifact's path and its JSON.
fn imported_sqlite() -> (tempfile::TempDir, std::path::PathBuf, Value) {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(dir.path(), &[fixture("nsys/synthetic_export.sqlite")]);
    let a = json(&art);
    (dir, art, a)
}

#[test]
fn an_nsys_sqlite_export_imports_with_its_ranges_nested_as_capture_trace_nests_them() {
    let (_dir, _art, a) = imported_sqlite();
    assert_eq!(a["provenance"]["origin"], "trace");
    let t = &a["trace"];
    assert_eq!(t["source"], "nsys_sqlite");
    // Processes in the order they started; pid and tid decoded from the serialized ids.
    let pids: Vec<u64> = t["processes"]
        .as_array()
        .expect("processes")
        .iter()
        .filter_map(|p| p["pid"].as_u64())
        .collect();
    assert_eq!(pids, [4242, 5000]);
    let ranges = t["ranges"].as_array().expect("ranges");
    let range_names: Vec<String> = ranges.iter().map(|r| string(t, &r["name"])).collect();
    assert_eq!(range_names, ["epoch", "step", "forward", "tail", "worker"]);
    assert_eq!(ranges[0]["scope"], "process");
    assert_eq!(ranges[0]["parent"], Value::Null);
    assert_eq!(
        (&ranges[1]["scope"], &ranges[1]["parent"]),
        (&"thread".into(), &0.into())
    );
    // `forward` is a registered string (textId) in the domain `myapp`, inside `step`.
    assert_eq!(ranges[2]["parent"], 1);
    assert_eq!(string(t, &ranges[2]["domain"]), "myapp");
    assert_eq!(ranges[2]["thread"], 4242);
    // `tail` was never popped: open to the end, and said so.
    assert_eq!(ranges[3]["end_ns"], Value::Null);
    assert!(a["warnings"].as_array().expect("warnings").iter().any(|w| w
        .as_str()
        .is_some_and(|w| w.contains("1 NVTX range(s) never closed"))));
    // Process 5000's range comes after process 4242's, its index moved past them.
    assert_eq!(ranges[4]["parent"], Value::Null);
    let kernels = t["kernels"].as_array().expect("kernels");
    let seen: Vec<(String, u64, Option<u64>, Option<u64>)> = kernels
        .iter()
        .map(|k| {
            (
                string(t, &k["name"]),
                k["pid"].as_u64().expect("pid"),
                k["thread"].as_u64(),
                k["range"].as_u64(),
            )
        })
        .collect();
    let want: [(&str, u64, Option<u64>, Option<u64>); 5] = [
        ("fused(float *, int)", 4242, Some(4242), Some(2)),
        ("fused(float *, int)", 4242, Some(4242), Some(2)),
        ("scale(float *, float, int)", 4242, Some(4242), Some(1)),
        // From the second thread, which opened no range: the process-wide `epoch`.
        (
            "add(float *, const float *, int)",
            4242,
            Some(4243),
            Some(0),
        ),
        ("scale(float *, float, int)", 5000, Some(5000), Some(4)),
    ];
    let want: Vec<(String, u64, Option<u64>, Option<u64>)> = want
        .iter()
        .map(|&(n, p, th, r)| (n.to_owned(), p, th, r))
        .collect();
    assert_eq!(seen, want);
    assert_eq!(string(t, &kernels[0]["mangled"]), "_Z5fusedPfi");
    assert_eq!(kernels[0]["launch_ns"], 4000);
    assert_eq!(kernels[3]["grid"], serde_json::json!([128, 2, 1]));
    assert_eq!(kernels[3]["dynamic_shared_bytes"], 2048);
    assert_eq!(kernels[4]["device"], 1);
}

#[test]
fn an_nsys_sqlite_exports_copies_and_kernel_summary_read_as_nsys_gives_them() {
    let (_dir, art, a) = imported_sqlite();
    let t = &a["trace"];
    let copies: Vec<(String, u64, Option<u64>)> = t["copies"]
        .as_array()
        .expect("copies")
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().expect("kind").to_owned(),
                c["bytes"].as_u64().expect("bytes"),
                c["range"].as_u64(),
            )
        })
        .collect();
    assert_eq!(
        copies,
        [
            ("HtoD".to_owned(), 1_048_576, Some(1)),
            ("DtoH".to_owned(), 4096, Some(0)),
            ("Memset".to_owned(), 256, Some(1)),
        ]
    );
    // The kernel summary: nsys's columns, most time first, ties by name.
    let r = table_json(&art);
    let lines: Vec<(String, u64, f64)> = r["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|l| {
            (
                l["name"].as_str().expect("name").to_owned(),
                l["instances"].as_u64().expect("instances"),
                l["total_ns"].as_f64().expect("total"),
            )
        })
        .collect();
    assert_eq!(
        lines,
        [
            ("fused(float *, int)".to_owned(), 2, 22_000.0),
            ("add(float *, const float *, int)".to_owned(), 1, 2_000.0),
            ("scale(float *, float, int)".to_owned(), 2, 2_000.0),
        ]
    );
    let stddev = r["kernels"][0]["stddev_ns"].as_f64().expect("stddev");
    assert!((stddev - 1414.2).abs() < 0.1, "{stddev}");
}

#[test]
fn nsys_stats_csvs_import_into_summaries_that_the_table_prints_as_nsys_did() {
    let dir = tempfile::tempdir().expect("tempdir");
    let kern = fixture("nsys/vllm_moe_h100_cuda_gpu_kern_sum.csv");
    let mem = fixture("nsys/vllm_llama3_h100_cuda_gpu_mem_time_sum.csv");
    let art = import(dir.path(), &[kern.clone(), mem]);
    let a = json(&art);
    assert_eq!(a["trace"]["source"], "nsys_csv");
    let r = table_json(&art);
    let kernels = r["kernels"].as_array().expect("kernels");
    // Every line of the report, in its order, with its figures; Time (%) recomputed from
    // the totals agrees with nsys's to its one decimal.
    let text = std::fs::read_to_string(&kern).expect("csv");
    let rows: Vec<Vec<String>> = text.lines().skip(1).map(csv_fields).collect();
    assert_eq!(kernels.len(), rows.len());
    assert_eq!(kernels.len(), 88);
    for (line, row) in kernels.iter().zip(&rows) {
        assert_eq!(line["name"].as_str(), Some(row[8].as_str()));
        assert_eq!(line["instances"].as_u64(), row[2].parse().ok());
        assert_eq!(line["total_ns"].as_f64(), row[1].parse().ok());
        assert_eq!(line["med_ns"].as_f64(), row[4].parse().ok());
        let pct = line["time_pct"].as_f64().expect("pct");
        let nsys: f64 = row[0].parse().expect("pct");
        assert!((pct - nsys).abs() <= 0.05 + 1e-9, "{pct} vs {nsys}");
    }
    let copies: Vec<(String, u64, u64)> = r["copies"]
        .as_array()
        .expect("copies")
        .iter()
        .map(|c| {
            (
                c["kind"].as_str().expect("kind").to_owned(),
                c["count"].as_u64().expect("count"),
                c["total_ns"].as_u64().expect("total"),
            )
        })
        .collect();
    assert_eq!(
        copies,
        [
            ("HtoD".to_owned(), 27260, 2_472_025_475),
            ("DtoD".to_owned(), 21920, 66_765_576),
            ("Memset".to_owned(), 16975, 16_075_754),
            ("DtoH".to_owned(), 1711, 4_058_353),
        ]
    );
    // The time report has no bytes: no GB/s is made up.
    assert!(r["copies"][0]["bytes"].is_null() && r["copies"][0]["gbyte_per_s"].is_null());
    let o = capture(&["table", s(&art)]);
    let text = stdout(&o);
    assert!(
        text.contains("none: the trace holds summaries only"),
        "{text}"
    );
}

#[test]
fn mixing_the_tools_or_repeating_a_summary_is_a_usage_error() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("a.json");
    let kern = fixture("nsys/vllm_moe_h100_cuda_gpu_kern_sum.csv");
    let sqlite = fixture("nsys/synthetic_export.sqlite");
    let ncu = fixture("ncu-h200/probe_metrics_raw_with_stdout.csv");
    let cases: [(Vec<&std::path::Path>, &str); 3] = [
        (vec![&kern, &ncu], "import one tool's exports at a time"),
        (vec![&kern, &kern], "are both a kernel summary"),
        (
            vec![&sqlite, &kern],
            "one nsys SQLite export makes a trace, alone",
        ),
    ];
    for (inputs, want) in cases {
        let mut args = vec!["import"];
        args.extend(inputs.iter().map(|p| s(p)));
        args.extend(["-o", s(&out)]);
        let o = capture(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{}", stderr(&o));
        assert!(!out.exists());
    }
}

#[test]
fn an_nsys_export_given_where_an_artifact_is_wanted_says_to_import_it() {
    for f in [
        "nsys/synthetic_export.sqlite",
        "nsys/vllm_moe_h100_cuda_gpu_kern_sum.csv",
    ] {
        let o = capture(&["table", s(&fixture(f))]);
        assert!(!o.status.success());
        let e = stderr(&o);
        assert!(e.contains("import it first (`capture import"), "{e}");
    }
}
