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

fn table_json(art: &std::path::Path, sort: &str) -> serde_json::Value {
    let o = capture(&["table", s(art), "--format", "json", "--sort", sort]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("table JSON")
}

#[test]
fn a_real_bf16_workload_is_ranked_by_time_with_tensor_work_and_distinct_names() {
    // GPT-2 in bf16 under ncu's own roofline sections: DRAM only as a rate, tensor work as
    // totals. The 4096^3 matmul ran twice: 2 x 2 x 4096^3 tensor BF16 FLOPs.
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[fixture("ncu-h200-torch/gpt2_bf16_roofline_set_raw.csv")],
    );
    let by_time = table_json(&art, "time");
    let rows = by_time["kernels"].as_array().expect("kernels");
    assert!(rows.len() > 10);
    let times: Vec<f64> = rows
        .iter()
        .map(|r| r["time_ms"].as_f64().expect("time"))
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    let shares: f64 = rows
        .iter()
        .map(|r| r["time_share"].as_f64().expect("share"))
        .sum();
    assert!((shares - 1.0).abs() < 1e-9, "{shares}");
    let names: Vec<&str> = rows
        .iter()
        .map(|r| r["short_name"].as_str().expect("short"))
        .collect();
    for (i, n) in names.iter().enumerate() {
        assert!(!names[..i].contains(n), "{n} twice");
    }
    assert!(
        names.contains(&"vectorized_elementwise_kernel<4, tanh_kernel_cuda…>"),
        "{names:?}"
    );
    for r in rows {
        assert!(r["dram_bytes"].as_f64().is_some(), "{}", r["name"]);
        let derived = r["derived_from_rates"].as_array().expect("list");
        assert!(derived.iter().any(|d| d == "dram_bytes"), "{}", r["name"]);
    }
    let mm = rows
        .iter()
        .find(|r| r["name"] == "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT")
        .expect("matmul row");
    assert_eq!(mm["launches"], 2);
    assert_eq!(
        mm["flops_by_precision"]["tensor_bf16"].as_f64(),
        Some(2.0 * 137_438_953_472.0)
    );
    assert_eq!(mm["precision"], "tensor_bf16");
    let tflops = mm["gflops_total"].as_f64().expect("rate") / 1e3;
    assert!((700.0..900.0).contains(&tflops), "{tflops} TFLOP/s");
    // Launch order is the default and keeps the artifact's order.
    let by_launch = table_json(&art, "launch");
    let first = by_launch["kernels"][0]["name"]
        .as_str()
        .expect("name")
        .to_string();
    let plain = table_json(&art, "launch");
    assert_eq!(plain["kernels"][0]["name"], first.as_str());
    let by_name = table_json(&art, "name");
    let sorted: Vec<&str> = by_name["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|r| r["short_name"].as_str().expect("short"))
        .collect();
    assert!(sorted.windows(2).all(|w| w[0] <= w[1]), "{sorted:?}");
    // The human table marks derived figures and explains the mark.
    let text = stdout(&capture(&["table", s(&art), "--sort", "time"]));
    assert!(text.contains("derived from rates"), "{text}");
    assert!(text.contains("tensor_bf16"), "{text}");
}

#[test]
fn six_known_gemms_give_2mnk_in_their_precision_key() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(dir.path(), &[fixture("ncu-h200-gemms/gemms_full_raw.csv")]);
    let t = table_json(&art, "launch");
    let two_mnk = 2.0 * 2048.0 * 1536.0 * 1024.0;
    let mut keys = Vec::new();
    for r in t["kernels"].as_array().expect("kernels") {
        let key = r["precision"].as_str().expect("precision").to_string();
        assert_eq!(
            r["flops_by_precision"][&key].as_f64(),
            Some(two_mnk),
            "{}",
            r["name"]
        );
        keys.push(key);
    }
    assert_eq!(
        keys,
        [
            "tensor_bf16",
            "tensor_fp16",
            "tensor_tf32",
            "tensor_fp64",
            "tensor_fp8",
            "tensor_int8"
        ]
    );
}

#[test]
fn capture_profiles_own_metric_set_gives_2mnk_per_launch_in_each_precision() {
    // The raw page `capture profile` collected on the H200 with its own metric set.
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[fixture("ncu-h200-gemms/gemms_capture_profile_raw.csv")],
    );
    let t = table_json(&art, "launch");
    let two_mnk = 2.0 * 2048.0 * 1536.0 * 1024.0;
    let mut seen = Vec::new();
    for r in t["kernels"].as_array().expect("kernels") {
        let Some(key) = r["precision"].as_str().filter(|k| k.starts_with("tensor_")) else {
            continue;
        };
        let launches = r["launches"].as_f64().expect("launches");
        assert_eq!(
            r["flops_by_precision"][key].as_f64(),
            Some(two_mnk * launches),
            "{}",
            r["name"]
        );
        assert!(r["derived_from_rates"].as_array().expect("list").is_empty());
        seen.push(key.to_string());
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "tensor_bf16",
            "tensor_fp16",
            "tensor_fp64",
            "tensor_fp8",
            "tensor_int8",
            "tensor_tf32"
        ]
    );
}

#[test]
fn latency_bound_kernels_say_why_in_every_format() {
    // The six GEMMs under `--set full`: warp-state counters and ncu's waves per SM.
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(dir.path(), &[fixture("ncu-h200-gemms/gemms_full_raw.csv")]);
    let t = table_json(&art, "launch");
    let rows = t["kernels"].as_array().expect("kernels");
    let bf16 = &rows[0];
    assert_eq!(bf16["verdict"], "latency-bound");
    assert_eq!(bf16["waves"].as_f64(), Some(0.97));
    assert_eq!(
        bf16["latency_reason"],
        "0.97 waves: 4 of 132 SMs idle; top stall long scoreboard (25%)"
    );
    let stalls = bf16["stalls"].as_object().expect("stalls object");
    let sum: f64 = stalls.values().filter_map(serde_json::Value::as_f64).sum();
    assert!((sum - 1.0).abs() < 1e-9, "{sum}");
    assert!(stalls.contains_key("long_scoreboard") && !stalls.contains_key("selected"));
    assert_eq!(bf16["bound_by"]["unit"], "latency");
    assert_eq!(bf16["busiest_pipe"]["unit"], "tensor");
    let fp64 = &rows[3];
    assert_eq!(fp64["verdict"], "compute-bound");
    // ncu's HighPipeUtilization on this DGEMM: "Shared is the highest-utilized pipeline
    // (87.9%) ... dominated by its Tensor (DP) sub-pipeline": DMMA runs on the tensor pipe.
    assert_eq!(fp64["bound_by"]["unit"], "tensor");
    let pct = fp64["bound_by"]["pct_of_peak"].as_f64().expect("pct");
    // The figure ncu's message gives: the shared pipe's active cycles.
    assert!(
        (pct - 87.93).abs() < 0.01,
        "{pct}: sm__pipe_shared_cycles_active"
    );
    // Tensor GEMMs: intensities as plotted, L1 left of L2 once TMA loads are counted.
    let i = &bf16["intensity"];
    let (l1, l2) = (i["l1"].as_f64().expect("l1"), i["l2"].as_f64().expect("l2"));
    assert!(l1 <= l2, "{l1} {l2}");
    assert!(i["asked"].is_null());
    assert!(fp64["latency_reason"].is_null());
    assert!(fp64["stalls"].is_object());
    // The human forms carry the reason in a `because` column; CSV in its own columns.
    let text = stdout(&capture(&["table", s(&art)]));
    assert!(
        text.lines()
            .any(|l| l.contains("verdict") && l.ends_with("because")),
        "{text}"
    );
    assert!(
        text.lines().any(|l| l.contains("latency-bound  ")
            && l.contains("  latency  ")
            && l.ends_with("0.97 waves: 4 of 132 SMs idle; top stall long scoreboard (25%)")),
        "{text}"
    );
    let md = stdout(&capture(&["table", s(&art), "--format", "markdown"]));
    assert!(md.contains("| because |"), "{md}");
    let csv = stdout(&capture(&["table", s(&art), "--format", "csv"]));
    assert!(csv.lines().next().is_some_and(|h| h
        .contains(",waves,latency_reason,stalls,bound_by_unit,")
        && h.ends_with(",sampled_measured,verdict_mixed,groups,ncu_verdict")));
    assert!(csv.contains("long_scoreboard=0.25"), "{csv}");

    // GPT-2 from capture profile's old metric set: waves, but no warp-state counters.
    let art = import(
        dir.path(),
        &[fixture("ncu-h200-torch/gpt2_bf16_profile_raw.csv")],
    );
    let t = table_json(&art, "launch");
    for r in t["kernels"].as_array().expect("kernels") {
        assert!(r["stalls"].is_null(), "{}", r["name"]);
        assert!(r["waves"].as_f64().is_some(), "{}", r["name"]);
        if r["verdict"] == "latency-bound" {
            let reason = r["latency_reason"].as_str().expect("a reason");
            assert!(reason.ends_with("no warp-state counters"), "{reason}");
        }
    }
}

#[test]
fn every_field_of_the_json_is_in_its_contract() {
    let doc = std::fs::read_to_string(root().join("docs/table-json.md")).expect("docs");
    for art in [sample_file("h200.json"), sample_file("h200-gpt2-bf16.json")] {
        let t = table_json(&art, "time");
        assert!(t["kernels"].as_array().is_some_and(|k| !k.is_empty()));
        let missing = undocumented_keys(&t, &doc, &["stalls"]);
        assert!(
            missing.is_empty(),
            "{}: fields of `capture table --format json` not in docs/table-json.md: {missing:?}",
            art.display()
        );
    }
}

#[test]
fn by_range_in_every_format_with_its_json_documented() {
    let dir = tempfile::tempdir().expect("tempdir");
    let doc = std::fs::read_to_string(root().join("docs/table-json.md")).expect("docs");
    // BERT's forward pass under a push/pop range; the corpus training step under a
    // start/end range.
    let forward = import(dir.path(), &[fixture("ncu-h200-bert/bert_full_raw.csv")]);
    let step_csv = gunzip_fixture(dir.path(), "corpus-h200/train_step_full_raw.csv.gz");
    let step = dir.path().join("step.json");
    let o = capture(&["import", s(&step_csv), "-o", s(&step)]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (art, name, launches) in [(&forward, "forward", 43), (&step, "measure", 58)] {
        let o = capture(&["table", s(art), "--by", "range", "--format", "json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let t: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("json");
        let nodes = t["nodes"].as_array().expect("nodes");
        assert_eq!(nodes.len(), 1, "{t}");
        assert_eq!(nodes[0]["name"], name);
        assert_eq!(nodes[0]["launches"], launches);
        assert_eq!(t["launches"], launches);
        let missing = undocumented_keys(&t, &doc, &["flops_by_kind", "verdicts"]);
        assert!(missing.is_empty(), "not in docs/table-json.md: {missing:?}");
        for (format, needle) in [
            ("table", format!("{name} ")),
            ("csv", "range,depth,threads,launches,".to_string()),
            ("markdown", format!("| {name} |")),
        ] {
            let o = capture(&["table", s(art), "--by", "range", "--format", format]);
            assert!(o.status.success(), "{format}: {}", stderr(&o));
            assert!(stdout(&o).contains(&needle), "{format}: {}", stdout(&o));
        }
    }
    let text = stdout(&capture(&["table", s(&forward), "--by", "range"]));
    assert!(text
        .lines()
        .nth(1)
        .is_some_and(|l| l.starts_with("forward ")));
    // --depth needs --by range, and at least one range.
    let o = capture(&["table", s(&forward), "--depth", "1"]);
    assert!(!o.status.success() && stderr(&o).contains("--by range"));
    let o = capture(&["table", s(&forward), "--by", "range", "--depth", "0"]);
    assert!(!o.status.success() && stderr(&o).contains("at least 1"));
}
