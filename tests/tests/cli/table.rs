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
