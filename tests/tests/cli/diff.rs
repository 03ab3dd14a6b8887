//! `capture diff` on real H200 runs (tests/fixtures/diff/README.md): the same code twice
//! passes the gate, a planted regression (streaming arrays doubled) fails it with exit 12
//! naming the kernels; the JSON contract, Markdown, the comparability check and `--force`.

use std::io::Read;
use std::path::{Path, PathBuf};

use crate::util::{capture, fixture, root, s, stderr, stdout, undocumented_keys};

/// Unpacks `tests/fixtures/diff/NAME.json.gz` into `dir`.
pub fn unpack(dir: &Path, name: &str) -> PathBuf {
    let gz = std::fs::File::open(fixture(&format!("diff/{name}.json.gz"))).expect("fixture");
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .expect("gzip");
    let out = dir.join(format!("{name}.json"));
    std::fs::write(&out, text).expect("write");
    out
}

fn json(args: &[&str]) -> (i32, serde_json::Value) {
    let o = capture(args);
    let v = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.code().unwrap_or(-1), v)
}

#[test]
fn an_artifact_with_a_byte_order_mark_is_an_artifact_as_in_the_viewer() {
    // `capture diff` once took such a file for an export (its first byte is not `{`) and
    // failed to import it; the viewer strips the mark. Both now ask `kind_of`.
    let dir = tempfile::tempdir().expect("tempdir");
    let a = unpack(dir.path(), "run1");
    let marked = dir.path().join("marked.json");
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(std::fs::read(&a).expect("read"));
    std::fs::write(&marked, bytes).expect("write");
    let (code, v) = json(&["diff", s(&a), s(&marked), "--format", "json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["kernels"].as_array().expect("kernels").len(), 20);
}

#[test]
fn the_same_code_twice_passes_the_gate_within_its_noise() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let (code, v) = json(&["diff", s(&a), s(&b), "--gate", "2", "--format", "json"]);
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["version"], 2);
    assert_eq!(v["gate"]["failed"], false);
    assert!(v["comparability"]["mismatches"]
        .as_array()
        .expect("list")
        .is_empty());
    let kernels = v["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 20, "every kernel matched");
    assert!(v["only_before"].as_array().expect("list").is_empty());
    for k in kernels {
        assert_eq!(k["matched_by"], "name_and_shape", "{}", k["after"]["name"]);
        assert_eq!(k["before"]["noise_source"], "event_samples");
        let (change, noise) = (
            k["change_pct"].as_f64().expect("change"),
            k["noise_pct"].as_f64().expect("noise"),
        );
        // Measured on these runs: at most 0.44 % (FP64 pair), bands 0.05 % to 2.7 %.
        assert!(change.abs() < 0.5, "{}: {change}", k["after"]["name"]);
        assert!(
            noise > 0.0 && noise < 3.0,
            "{}: {noise}",
            k["after"]["name"]
        );
        assert_eq!(k["beyond_noise"], false, "{}", k["after"]["name"]);
    }
    let total = &v["total"];
    assert!(
        total["change_pct"].as_f64().expect("total").abs() < 0.1,
        "{total}"
    );
    assert_eq!(total["beyond_noise"], false);
    // Even a gate of 0 passes: nothing is slower beyond its band.
    let o = capture(&["diff", s(&a), s(&b), "--gate", "0"]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(stdout(&o).starts_with("gate passed"), "{}", stdout(&o));
}

#[test]
fn doubled_arrays_fail_the_gate_with_exit_12_naming_the_kernels_first() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run_size2x"));
    let o = capture(&["diff", s(&a), s(&b), "--gate", "5"]);
    assert_eq!(o.status.code(), Some(12), "{}", stderr(&o));
    let out = stdout(&o);
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("GATE FAILED: slower by more than 5 % beyond the noise: total; "),
        "{first}"
    );
    for name in [
        "vector add, stride 32",
        "vector add",
        "transpose, naive",
        "fusion: fused",
    ] {
        assert!(
            first.split("; ").any(|f| f == name),
            "{name} not named: {first}"
        );
    }
    for kept in ["matmul, naive", "FMA ceiling", "L2 copy ceiling"] {
        assert!(!first.contains(kept), "{kept} named: {first}");
    }
    assert!(stderr(&o).contains("gate failed"), "{}", stderr(&o));
    let (code, v) = json(&["diff", s(&a), s(&b), "--gate", "5", "--format", "json"]);
    assert_eq!(code, 12);
    assert_eq!(v["gate"]["failures"][0], "total");
    assert_eq!(v["gate"]["failures"].as_array().expect("list").len(), 16);
    let by = |name: &str| {
        v["kernels"]
            .as_array()
            .expect("kernels")
            .iter()
            .find(|k| k["after"]["name"] == name)
            .cloned()
            .expect(name)
    };
    let add = by("vector add");
    assert_eq!(
        add["matched_by"], "name",
        "the grid doubled: matched by name"
    );
    assert_eq!(add["gate_failed"], true);
    let change = add["change_pct"].as_f64().expect("change");
    assert!((90.0..110.0).contains(&change), "{change}");
    assert_eq!(add["moved"][0]["key"], "dram_bytes", "{}", add["moved"]);
    let mm = by("matmul, naive");
    assert_eq!(mm["matched_by"], "name_and_shape");
    assert_eq!(mm["gate_failed"], false);
    // The planted regression doubles the work, so the kernels' shares barely move but the
    // total does: +92 % measured.
    assert!(v["total"]["change_pct"].as_f64().expect("total") > 80.0);
}

#[test]
fn markdown_for_a_pull_request_and_gate_share_leave_small_kernels_out() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run_size2x"));
    let o = capture(&["diff", s(&a), s(&b), "--gate", "5", "--format", "markdown"]);
    assert_eq!(o.status.code(), Some(12));
    let md = stdout(&o);
    assert!(md.starts_with("**GATE FAILED"), "{md}");
    assert!(
        md.contains("| kernel | match | launches | before ms |"),
        "{md}"
    );
    assert!(md.contains("| GATE vector add | name | 1 |"), "{md}");
    // transpose, tiled is 0.7 % of the before run and 1.4 % of the after one: counted at
    // 1 %, not at 2 %.
    let (_, v) = json(&[
        "diff",
        s(&a),
        s(&b),
        "--gate",
        "5",
        "--gate-share",
        "2",
        "--format",
        "json",
    ]);
    let failures: Vec<&str> = v["gate"]["failures"]
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    assert!(!failures.contains(&"transpose, tiled"), "{failures:?}");
    assert!(failures.contains(&"vector add, stride 32"), "{failures:?}");
}

#[test]
fn runs_that_cannot_be_compared_are_refused_unless_forced() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = unpack(dir.path(), "run1");
    let text = std::fs::read_to_string(&a).expect("read");
    let mut v: serde_json::Value = serde_json::from_str(&text).expect("json");
    v["provenance"]["clock_control"] = "base".into();
    v["provenance"]["driver_version"] = "575.51.03".into();
    let b = dir.path().join("locked.json");
    std::fs::write(&b, v.to_string()).expect("write");
    let o = capture(&["diff", s(&a), s(&b)]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert!(err.contains("cannot be compared fairly"), "{err}");
    assert!(
        err.contains("driver: before 580.159.04, after 575.51.03"),
        "{err}"
    );
    assert!(
        err.contains("clock_control: before none, after base"),
        "{err}"
    );
    assert!(stdout(&o).is_empty());
    let o = capture(&["diff", s(&a), s(&b), "--force"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("warning: not comparable (--force): clock_control"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("warning: not comparable: clock_control"),
        "{}",
        stdout(&o)
    );
}

#[test]
fn exports_diff_like_their_artifacts_with_the_launch_spread_as_noise() {
    // A raw CSV export against the artifact imported from it: the same kernels, no change,
    // the bands from the spread of each kernel's launches.
    let dir = tempfile::tempdir().expect("tempdir");
    let export = fixture("ncu-h200-torch/gpt2_bf16_profile_raw.csv");
    let art = dir.path().join("gpt2.json");
    let o = capture(&["import", s(&export), "-o", s(&art)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let (code, v) = json(&[
        "diff",
        s(&export),
        s(&art),
        "--gate",
        "0",
        "--format",
        "json",
    ]);
    assert_eq!(code, 0, "{v:#}");
    let kernels = v["kernels"].as_array().expect("kernels");
    assert!(!kernels.is_empty());
    assert!(kernels.iter().all(|k| k["change_pct"] == 0.0), "{v:#}");
    assert!(
        kernels
            .iter()
            .any(|k| k["before"]["noise_source"] == "launch_spread"),
        "{v:#}"
    );
}

#[test]
fn a_missing_or_broken_input_names_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = unpack(dir.path(), "run1");
    let bad = dir.path().join("cut.json");
    std::fs::write(&bad, "{\"schema\": 3, \"kernels\": [").expect("write");
    let o = capture(&["diff", s(&a), s(&bad)]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("cut.json"), "{}", stderr(&o));
    let o = capture(&["diff", s(&a), "/nonexistent/x.json"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("/nonexistent/x.json: cannot open"),
        "{}",
        stderr(&o)
    );
    let o = capture(&["diff", s(&a), s(&a), "--gate", "-3"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn every_field_of_the_json_is_in_its_contract() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let (_, v) = json(&["diff", s(&a), s(&b), "--gate", "2", "--format", "json"]);
    let doc = std::fs::read_to_string(root().join("docs/diff-json.md")).expect("docs");
    let missing = undocumented_keys(&v, &doc, &[]);
    assert!(
        missing.is_empty(),
        "fields of `capture diff --format json` not in docs/diff-json.md: {missing:?}"
    );
}
