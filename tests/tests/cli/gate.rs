//! `capture diff --gate` against planted damage (issue 39): copies of the committed H200
//! runs (`tests/fixtures/diff`) edited here, never committed. Samples no run can have
//! (1e300, -1e300, 1.7e308 ms) and an empty "before" fail with exit 13, each reason
//! named; one preempted sample five times the median in every kernel leaves the bands as
//! they were, so the same code still passes and the planted 2x regression still fails
//! with exit 12; the JSON has no `null` number without a reason beside it.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::diff::unpack;
use crate::util::{capture, gunzip_fixture, s, stderr, stdout};

fn load(path: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("json")
}

fn save(dir: &Path, name: &str, v: &Value) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, v.to_string()).expect("write");
    p
}

/// Sets sample `at` of every kernel's event timing to `value`, leaving min, median and max
/// as they were (as the hostile edit did).
fn plant_sample(v: &mut Value, at: usize, value: f64) {
    for k in v["kernels"].as_array_mut().expect("kernels") {
        k["timing"]["samples_ms"][at] = value.into();
    }
}

/// Makes sample `at` of every kernel five times its median, as a launch preempted on a
/// shared GPU would be, and its min, median and max those of the new samples (as `capture
/// run` would have written them).
fn plant_preempted(v: &mut Value, at: usize) {
    for k in v["kernels"].as_array_mut().expect("kernels") {
        let t = &mut k["timing"];
        let median = t["median_ms"].as_f64().expect("median");
        t["samples_ms"][at] = (5.0 * median).into();
        let mut sorted: Vec<f64> = t["samples_ms"]
            .as_array()
            .expect("samples")
            .iter()
            .map(|x| x.as_f64().expect("sample"))
            .collect();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        t["min_ms"] = sorted[0].into();
        t["max_ms"] = sorted[n - 1].into();
        t["median_ms"] = median.into();
    }
}

/// `capture diff A B --gate GATE --format json --force`: forced, since a timing dropped on
/// load also makes the runs unfair (one has event samples, the other not), which without
/// `--force` refuses to print a comparison (still with exit 13, tested below).
fn diff_json(a: &Path, b: &Path, gate: &str) -> (i32, Value, String) {
    let o = capture(&[
        "diff",
        s(a),
        s(b),
        "--gate",
        gate,
        "--format",
        "json",
        "--force",
    ]);
    let v = serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.code().unwrap_or(-1), v, stderr(&o))
}

/// Every nullable number of a diff's JSON that is null has a `why_null` beside it; no band
/// is null.
pub(crate) fn assert_nulls_explained(v: &Value, path: &str) {
    match v {
        Value::Object(map) => {
            for (k, x) in map {
                if x.is_null() && shared::analysis::diff::NULLABLE_NUMBERS.contains(&k.as_str()) {
                    assert!(
                        map.get("why_null").is_some_and(Value::is_string),
                        "{path}.{k} is null with no why_null: {v}"
                    );
                }
                assert!(
                    !(x.is_null() && k.contains("noise")),
                    "{path}.{k}: a band is always a number"
                );
                assert_nulls_explained(x, &format!("{path}.{k}"));
            }
        }
        Value::Array(items) => {
            for (i, x) in items.iter().enumerate() {
                assert_nulls_explained(x, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}

#[test]
fn samples_no_run_has_fail_the_gate_with_exit_13_naming_kernel_and_field() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, same) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let slow = unpack(dir.path(), "run_size2x");
    for (i, bad) in [1e300, -1e300, 1.7e308].into_iter().enumerate() {
        for (after, what) in [(&same, "same code"), (&slow, "2x slower")] {
            let mut v = load(after);
            plant_sample(&mut v, 7, bad);
            let planted = save(dir.path(), &format!("planted{i}.json"), &v);
            let (code, json, err) = diff_json(&a, &planted, "5");
            assert_eq!(code, 13, "{bad}, {what}: {err}");
            let gate = &json["gate"];
            assert_eq!(gate["failed"], true, "{bad}, {what}");
            let reasons = gate["cannot_judge"].as_array().expect("reasons");
            assert_eq!(reasons.len(), 20, "one per kernel: {reasons:?}");
            let first = reasons[0].as_str().expect("text");
            assert!(
                first.starts_with(
                    "after: copy ceiling: event timing is out of range: sample 8 of 20"
                ),
                "{first}"
            );
            assert!(
                err.contains("planted") && err.contains("copy ceiling: event timing"),
                "the load warning names file, kernel and field: {err}"
            );
            assert!(
                err.contains("gate failed: it cannot judge these runs"),
                "{err}"
            );
            assert_nulls_explained(&json, "");
        }
    }
    // Unforced, the runs are refused as unfair, still with the gate's code and reasons.
    let mut v = load(&same);
    plant_sample(&mut v, 0, 1e300);
    let planted = save(dir.path(), "planted.json", &v);
    let o = capture(&["diff", s(&a), s(&planted), "--gate", "5"]);
    assert_eq!(o.status.code(), Some(13), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "gate failed: it cannot judge these runs: after: copy ceiling: event \
                      timing is out of range: sample 1 of 20 (1e300 ms)"
        ),
        "{err}"
    );
    assert!(err.contains("cannot be compared fairly"), "{err}");
    // Forced, the human form says it on its first line.
    let o = capture(&["diff", s(&a), s(&planted), "--gate", "5", "--force"]);
    assert_eq!(o.status.code(), Some(13));
    let out = stdout(&o);
    assert!(
        out.lines()
            .next()
            .is_some_and(|l| l.starts_with("GATE CANNOT JUDGE these runs, so it fails: after: ")),
        "{out}"
    );
}

#[test]
fn an_empty_before_fails_the_gate_with_exit_13() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = unpack(dir.path(), "run1");
    let mut v = load(&a);
    v["kernels"] = Value::Array(Vec::new());
    let empty = save(dir.path(), "empty.json", &v);
    let (code, json, err) = diff_json(&empty, &a, "5");
    assert_eq!(code, 13, "{err}");
    assert_eq!(json["gate"]["cannot_judge"][0], "before: no kernels");
    assert_eq!(json["total"]["change_pct"], Value::Null);
    assert_nulls_explained(&json, "");
    // And as "after": nothing to compare either.
    let (code, json, _) = diff_json(&a, &empty, "5");
    assert_eq!(code, 13);
    assert_eq!(json["gate"]["cannot_judge"][0], "after: no kernels");
}

#[test]
fn one_preempted_sample_per_kernel_leaves_the_bands_and_the_verdicts_as_they_were() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let slow = unpack(dir.path(), "run_size2x");
    let (_, clean, _) = diff_json(&a, &b, "0");
    let mut v = load(&b);
    plant_preempted(&mut v, 5);
    let b5 = save(dir.path(), "run2_preempted.json", &v);
    let mut v = load(&a);
    plant_preempted(&mut v, 11);
    let a5 = save(dir.path(), "run1_preempted.json", &v);
    // The same code still passes, with bands as narrow as before.
    let (code, json, err) = diff_json(&a5, &b5, "2");
    assert_eq!(code, 0, "{err}\n{json:#}");
    let bands = |j: &Value| -> Vec<f64> {
        let mut k: Vec<(String, f64)> = j["kernels"]
            .as_array()
            .expect("kernels")
            .iter()
            .map(|k| {
                (
                    k["after"]["name"].as_str().expect("name").to_string(),
                    k["noise_pct"].as_f64().expect("band"),
                )
            })
            .collect();
        k.sort_by(|x, y| x.0.cmp(&y.0));
        k.into_iter().map(|(_, b)| b).collect()
    };
    for (planted, was) in bands(&json).iter().zip(bands(&clean)) {
        // Measured: 0.94 to 1.00 times the clean band (a median moved by one sample), where
        // half the full range of the samples made each about 200 %.
        assert!(
            *planted <= 1.0001 * was && *planted > 0.5 * was,
            "{planted} against {was}"
        );
    }
    for k in json["kernels"].as_array().expect("kernels") {
        // The planted one; vector add, stride 32 has one of its own in run1.
        for side in ["before", "after"] {
            let n = k[side]["noise_outliers"].as_u64().expect("count");
            assert!((1..=2).contains(&n), "{} {side}: {n}", k["after"]["name"]);
        }
    }
    // The planted 2x regression, preempted samples on both sides, still fails with 12
    // naming the total and the same 15 kernels (total +92.5 %, band 0.50 %, as clean).
    let mut v = load(&slow);
    plant_preempted(&mut v, 3);
    let slow5 = save(dir.path(), "size2x_preempted.json", &v);
    let (code, json, err) = diff_json(&a5, &slow5, "5");
    assert_eq!(code, 12, "{err}");
    let failures = json["gate"]["failures"].as_array().expect("failures");
    assert_eq!(failures.len(), 16, "{failures:?}");
    assert_eq!(failures[0], "total");
    assert!(json["gate"]["cannot_judge"]
        .as_array()
        .expect("list")
        .is_empty());
    assert_nulls_explained(&json, "");
}

#[test]
fn a_timing_whose_median_is_not_its_samples_cannot_be_judged() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let mut v = load(&b);
    // A faster median written over real samples: the gate would pass a slowdown.
    v["kernels"][4]["timing"]["median_ms"] = 0.1.into();
    let edited = save(dir.path(), "edited.json", &v);
    let (code, json, err) = diff_json(&a, &edited, "5");
    assert_eq!(code, 13, "{err}");
    let reason = json["gate"]["cannot_judge"][0].as_str().expect("reason");
    assert!(
        reason.starts_with("after: vector add: event timing is out of order")
            || reason.starts_with("after: vector add: event timing is not its samples'"),
        "{reason}"
    );
}

/// Scales every event time of the first kernel `pick` accepts by `factor` (its timing's
/// min, median, max and each sample); returns the kernel's name.
fn scale_timing(v: &mut Value, pick: impl Fn(&str) -> bool, factor: f64) -> String {
    let kernels = v["kernels"].as_array_mut().expect("kernels");
    let k = kernels
        .iter_mut()
        .find(|k| k["name"].as_str().is_some_and(&pick))
        .expect("a kernel to edit");
    let t = &mut k["timing"];
    for key in ["min_ms", "median_ms", "max_ms"] {
        t[key] = (t[key].as_f64().expect("ms") * factor).into();
    }
    for s in t["samples_ms"].as_array_mut().expect("samples") {
        *s = (s.as_f64().expect("sample") * factor).into();
    }
    k["name"].as_str().expect("name").to_string()
}

/// The names of the rows of `artifact`'s table JSON whose `key` is set.
fn flagged(artifact: &Path, key: &str) -> Vec<String> {
    let table: Value = serde_json::from_str(&stdout(&capture(&[
        "table",
        s(artifact),
        "--format",
        "json",
    ])))
    .expect("json");
    table["kernels"]
        .as_array()
        .expect("rows")
        .iter()
        .filter(|r| r[key].is_string())
        .filter_map(|r| r["name"].as_str().map(String::from))
        .collect()
}

/// Issue 37, item 4: a time under the physical floor of the kernel's work (its DRAM bytes at
/// the H200's theoretical 4814 GB/s) is flagged by name in the table and fails the gate with
/// exit 13; the kernel's whole timing scaled down, as an edit or a broken timer would leave
/// it, so the reader's own checks pass it.
#[test]
fn a_time_below_the_physical_floor_is_flagged_and_fails_the_gate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let before = unpack(dir.path(), "run1");
    let mut v = load(&before);
    let name = scale_timing(&mut v, |n| n.starts_with("copy"), 0.1);
    let after = save(dir.path(), "fast.json", &v);
    assert_eq!(
        flagged(&after, "below_floor"),
        [name],
        "only the edited kernel"
    );
    let text = stdout(&capture(&["table", s(&after)]));
    assert!(
        text.contains("impossible time on ") && text.contains("physical floor"),
        "{text}"
    );
    let (code, json, err) = diff_json(&before, &after, "5");
    assert_eq!(code, 13, "{err}");
    let reasons = json["gate"]["cannot_judge"].to_string();
    assert!(reasons.contains("below the physical floor"), "{reasons}");
    // The untouched run has no such time.
    let (code, _, err) = diff_json(&before, &before, "5");
    assert_eq!(code, 0, "{err}");
}

/// A kernel whose CUDA-event samples were cut to 60 % (possible for the hardware, so above
/// its floor) disagrees with ncu's duration of the same launches: flagged by name in the
/// table, and the gate will not judge the run. The 20 real `capture run`s of the suite on
/// the H200 flag nothing (their timers differ by at most 8.3 %).
#[test]
fn timers_that_disagree_are_flagged_and_fail_the_gate() {
    let dir = tempfile::tempdir().expect("tempdir");
    let before = unpack(dir.path(), "run1");
    let mut v = load(&before);
    scale_timing(&mut v, |n| n == "matmul, naive", 0.6);
    let after = save(dir.path(), "timers.json", &v);
    assert_eq!(
        flagged(&after, "timers_disagree"),
        ["matmul, naive"],
        "only the edited kernel"
    );
    assert!(flagged(&after, "below_floor").is_empty());
    let text = stdout(&capture(&["table", s(&after)]));
    assert!(
        text.contains("timers disagree on matmul, naive: "),
        "{text}"
    );
    let (code, json, err) = diff_json(&before, &after, "5");
    assert_eq!(code, 13, "{err}");
    let reasons = json["gate"]["cannot_judge"].to_string();
    assert!(
        reasons.contains("ncu's duration of the same launches"),
        "{reasons}"
    );

    for k in 1..=20 {
        let run = gunzip_fixture(
            dir.path(),
            &format!("determinism-h200/suite/run{k}.json.gz"),
        );
        let table: Value =
            serde_json::from_str(&stdout(&capture(&["table", s(&run), "--format", "json"])))
                .expect("json");
        let rows = table["kernels"].as_array().expect("rows");
        assert_eq!(rows.len(), 20, "run {k}");
        for r in rows {
            assert!(r["timers_disagree"].is_null(), "run {k}: {r:#}");
            assert!(r["below_floor"].is_null(), "run {k}: {r:#}");
        }
    }
}

/// Issue 51, item 6: the work gate never passes a run whose time is impossible. 'vector add'
/// of the H200's `capture run` edited here, in a copy, to 0.01 ms (its whole timing scaled,
/// so the reader's own checks pass it), far under the physical floor of its DRAM bytes:
/// `--gate-work` cannot judge the runs (exit 13) and says why on stderr and in its output;
/// the time gate does the same; the diff's text names the flagged time without a gate.
#[test]
fn the_work_gate_does_not_pass_a_time_below_the_physical_floor() {
    let dir = tempfile::tempdir().expect("tempdir");
    let before = unpack(dir.path(), "run1");
    let mut v = load(&before);
    let median = v["kernels"]
        .as_array()
        .and_then(|ks| ks.iter().find(|k| k["name"] == "vector add"))
        .and_then(|k| k["timing"]["median_ms"].as_f64())
        .expect("vector add's median");
    scale_timing(&mut v, |n| n == "vector add", 0.01 / median);
    let after = save(dir.path(), "edited.json", &v);
    assert_eq!(flagged(&after, "below_floor"), ["vector add"]);
    let o = capture(&["diff", s(&before), s(&after), "--gate-work", "1"]);
    assert_eq!(o.status.code(), Some(13), "{}", stderr(&o));
    let (out, err) = (stdout(&o), stderr(&o));
    let why = "after: vector add: ";
    assert!(
        err.contains("work gate failed: it cannot judge these runs: ")
            && err.contains(why)
            && err.contains("physical floor"),
        "{err}"
    );
    assert!(
        out.starts_with("WORK GATE CANNOT JUDGE these runs, so it fails: ") && out.contains(why),
        "{out}"
    );
    assert!(
        out.contains("flagged times (no gate judges a run with one): after: vector add: "),
        "{out}"
    );
    let o = capture(&[
        "diff",
        s(&before),
        s(&after),
        "--gate-work",
        "1",
        "--format",
        "json",
    ]);
    let j: Value = serde_json::from_str(&stdout(&o)).expect("json");
    assert_eq!(j["work"]["failed"], true);
    assert!(
        j["work"]["cannot_judge"]
            .to_string()
            .contains("physical floor"),
        "{}",
        j["work"]
    );
    // The time gate, likewise; the untouched run passes both.
    let (code, _, err) = diff_json(&before, &after, "5");
    assert_eq!(code, 13, "{err}");
    let o = capture(&["diff", s(&before), s(&before), "--gate-work", "1"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(!stdout(&o).contains("flagged times"), "{}", stdout(&o));
}
