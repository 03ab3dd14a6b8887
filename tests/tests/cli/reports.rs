//! `capture import` of Nsight Compute's binary reports (`.ncu-rep`): each real report
//! gives the artifact its own raw CSV page gives (same kernels, launches, DRAM bytes,
//! times, FLOPs by precision), alone or joined with CSV pages; broken reports are refused
//! naming the file and the byte offset, and a cut one loads its complete results.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::*;

/// `capture table --format json` of the artifact imported from `exports`.
fn table_of(dir: &Path, exports: &[PathBuf]) -> Value {
    let sub = tempfile::tempdir_in(dir).expect("tempdir");
    let art = import(sub.path(), exports);
    let o = capture(&["table", s(&art), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("table json")
}

/// The table without each kernel's `rules`, and those rules: a raw page has no findings, a
/// report has them (`shared/tests/all/ncu_rep_rules.rs` and `tests/oracle/` check them).
fn rules_apart(mut table: Value) -> (Value, Vec<Value>) {
    let mut rules = Vec::new();
    for k in table["kernels"].as_array_mut().expect("kernels") {
        let Some(k) = k.as_object_mut() else { continue };
        rules.push(k.remove("rules").unwrap_or_default());
        // ncu's verdict is read from the rule results too: a raw page has none.
        k.remove("ncu_verdict");
        for g in k
            .get_mut("groups")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Some(g) = g.as_object_mut() {
                g.remove("ncu_verdict");
            }
        }
    }
    (table, rules)
}

/// Figures a CSV in base units prints in full, which must match exactly; every other
/// number may differ by the CSV's rounding (the report's values are exact): see
/// [`tolerance`].
const EXACT: &[&str] = &["launches", "time_ms", "dram_bytes", "l1_bytes", "l2_bytes"];

/// A CSV in scaled units (Gbyte, msecond) rounds every figure but the launch count.
const EXACT_SCALED: &[&str] = &["launches"];

/// How far a figure at `at` (named `key`) from the CSV, `csv`, may be from the report's:
/// nothing for the `exact` figures; for a stall reason's share of the stalled warps 0.001
/// (the CSV prints each stall ratio to two decimals); for waves per SM 0.5% (worked from
/// the occupancy, printed to a few digits); for a unit's percentage of peak 0.01 (two
/// decimals in the CSV); else 1e-4 relatively (counts printed to five or
/// six digits).
fn tolerance(at: &str, key: &str, exact: &[&str], csv: f64) -> f64 {
    if exact.contains(&key) {
        0.0
    } else if at.contains(".stalls.") {
        1e-3
    } else if key == "waves" {
        5e-3 * csv.abs()
    } else if matches!(key, "pct_of_peak" | "sm_pct" | "memory_pct") {
        // A percentage the CSV prints to two decimals (a launch's, or a time-weighted mean).
        0.01
    } else {
        1e-4 * csv.abs()
    }
}

/// Asserts two tables are the same: same keys, texts, and numbers, those named in `exact`
/// exactly.
fn assert_same(report: &Value, csv: &Value, exact: &[&str], at: &str) {
    match (report, csv) {
        (Value::Object(r), Value::Object(c)) => {
            let keys = |m: &serde_json::Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
            assert_eq!(keys(r), keys(c), "{at}: keys");
            for (k, v) in r {
                assert_same(v, &c[k], exact, &format!("{at}.{k}"));
            }
        }
        (Value::Array(r), Value::Array(c)) => {
            assert_eq!(r.len(), c.len(), "{at}: length");
            for (i, (r, c)) in r.iter().zip(c).enumerate() {
                assert_same(r, c, exact, &format!("{at}[{i}]"));
            }
        }
        (Value::Number(r), Value::Number(c)) => {
            let (r, c) = (r.as_f64().expect("f64"), c.as_f64().expect("f64"));
            let key = at.rsplit('.').next().unwrap_or_default();
            let tolerance = tolerance(at, key, exact, c);
            assert!(
                (r - c).abs() <= tolerance,
                "{at}: {r} from the report, {c} from the CSV"
            );
        }
        (r, c) => assert_eq!(r, c, "{at}"),
    }
}

#[test]
fn the_two_process_report_imports_as_its_raw_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = gunzip_fixture(dir.path(), "ncu-h200-reports/two_process.ncu-rep.gz");
    let (from_report, _) = rules_apart(table_of(dir.path(), &[report]));
    let (from_csv, _) = rules_apart(table_of(
        dir.path(),
        &[fixture("ncu-h200-reports/two_process_raw.csv")],
    ));
    assert_same(&from_report, &from_csv, EXACT, "table");
    let launches: Vec<u64> = from_report["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .filter_map(|k| k["launches"].as_u64())
        .collect();
    assert_eq!(
        launches,
        [2, 2],
        "two kernels, one launch of each per process"
    );
}

#[test]
fn the_gemms_report_imports_as_its_raw_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = unzstd_fixture(dir.path(), "ncu-h200-gemms/gemms_full.ncu-repz");
    let (from_report, rules) = rules_apart(table_of(dir.path(), &[report]));
    let (from_csv, csv_rules) = rules_apart(table_of(
        dir.path(),
        &[fixture("ncu-h200-gemms/gemms_full_raw.csv")],
    ));
    assert_same(&from_report, &from_csv, EXACT, "table");
    // Each GEMM's findings, largest estimated speedup first; the raw page has none.
    assert!(csv_rules
        .iter()
        .all(|r| r.as_array().is_some_and(Vec::is_empty)));
    for r in &rules {
        let r = r.as_array().expect("rules");
        assert!(!r.is_empty());
        let speedups: Vec<f64> = r.iter().filter_map(|f| f["speedup_pct"].as_f64()).collect();
        assert!(speedups.windows(2).all(|w| w[0] >= w[1]), "{speedups:?}");
        assert!(r
            .iter()
            .all(|f| f["rule"].is_string() && f["message"].is_string()));
        assert!(r
            .iter()
            .all(|f| !f["message"].as_str().unwrap_or("@").contains("@section:")));
    }
    let kernels = from_report["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 6);
    assert!(kernels.iter().all(|k| k["dram_bytes"].as_f64() > Some(0.0)));
    // The report's FLOPs are exact counts where the CSV prints five or six digits.
    assert_eq!(
        kernels[2]["flops_by_precision"]["fp32"].as_f64(),
        Some(6_429_696.0)
    );
}

#[test]
fn a_report_joins_csv_pages_of_its_run() {
    let dir = tempfile::tempdir().expect("tempdir");
    let details = fixture("ncu-h200/probe_full_details.csv");
    let report = gunzip_fixture(dir.path(), "ncu-h200/probe_full.ncu-rep.gz");
    let (from_report, report_rules) = rules_apart(table_of(dir.path(), &[report, details.clone()]));
    let (from_csv, csv_rules) = rules_apart(table_of(
        dir.path(),
        &[fixture("ncu-h200/probe_full_raw.csv"), details],
    ));
    // The same findings once, not twice: the report's (with titles) where both have them.
    let count = |r: &[Value]| r[0].as_array().map(Vec::len);
    assert_eq!(count(&report_rules), count(&csv_rules));
    assert!(report_rules[0][0]["title"].is_string());
    // The probe's raw page is in scaled units.
    assert_same(&from_report, &from_csv, EXACT_SCALED, "table");
    assert_eq!(from_report["kernels"].as_array().map(Vec::len), Some(1));
}

/// A copy of `report` changed by `edit`, written as `name` in `dir`.
fn damaged(dir: &Path, report: &[u8], name: &str, edit: impl FnOnce(&mut Vec<u8>)) -> PathBuf {
    let mut bytes = report.to_vec();
    edit(&mut bytes);
    let path = dir.join(name);
    std::fs::write(&path, bytes).expect("write");
    path
}

/// Asserts `capture import path` fails with exit code 1 and one line naming the file and
/// the byte offset, containing `needle`.
fn assert_refused(path: &Path, needle: &str) {
    let out = path.with_extension("json");
    let o = capture(&["import", s(path), "-o", s(&out)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{}: {err}", path.display());
    let want = format!("{}: byte ", s(path));
    assert!(
        err.starts_with(&format!("error: {want}")) || err.contains(&want),
        "{err}"
    );
    assert!(err.contains(needle), "expected {needle:?} in: {err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "one line: {err}");
    assert!(!out.exists(), "nothing written");
}

#[test]
fn broken_reports_are_refused_naming_file_and_byte() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = gunzip_fixture(dir.path(), "ncu-h200-reports/two_process.ncu-rep.gz");
    let report = std::fs::read(&good).expect("report");
    let header_size = |b: &[u8]| u32::from_le_bytes([b[4], b[5], b[6], b[7]]) as usize;
    let first_block = 8 + header_size(&report);

    let wrong_magic = damaged(dir.path(), &report, "wrong_magic.ncu-rep", |b| b[2] = b'X');
    assert_refused(&wrong_magic, "byte 0: neither a CSV text export");
    let zero = damaged(dir.path(), &report, "zero_size.ncu-rep", |b| {
        b[first_block..first_block + 4].copy_from_slice(&[0; 4]);
    });
    assert_refused(&zero, &format!("byte {first_block}: "));
    assert_refused(&zero, "size 0");
    let oversized = damaged(dir.path(), &report, "oversized.ncu-rep", |b| {
        b[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    });
    assert_refused(&oversized, "4294967295 bytes declared");
    let garbage = damaged(dir.path(), &report, "garbage.ncu-rep", |b| {
        for (i, x) in b[8..first_block + 64].iter_mut().enumerate() {
            *x = (i as u8).wrapping_mul(37) | 0x80;
        }
    });
    assert_refused(&garbage, "byte ");
    let empty_report = damaged(dir.path(), &report, "magic_only.ncu-rep", |b| b.truncate(4));
    assert_refused(&empty_report, "byte 4: ");
}

#[test]
fn a_cut_report_loads_its_complete_results_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = gunzip_fixture(dir.path(), "ncu-h200-reports/two_process.ncu-rep.gz");
    let report = std::fs::read(&good).expect("report");
    let cut = damaged(dir.path(), &report, "cut.ncu-rep", |b| {
        b.truncate(b.len() - 1000)
    });
    let out = dir.path().join("cut.json");
    let o = capture(&["import", s(&cut), "-o", s(&out)]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("warning: cut.ncu-rep: byte "), "{err}");
    assert!(
        err.contains("the 3 complete results before it are loaded"),
        "{err}"
    );
    assert!(
        stdout(&o).contains("imported 3 launch(es)"),
        "{}",
        stdout(&o)
    );
}
