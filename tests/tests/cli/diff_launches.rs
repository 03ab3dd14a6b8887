//! `capture diff` of runs that launched kernels a different number of times, and clock
//! control read from what a run holds (issue 51, item 2), on the corpus's T5 encoder: its
//! `ncu --set full` export (raw and details pages, 52 launches: the collection was cut at
//! 120 s) against `capture profile` of the same program (75 launches), both at
//! `--clock-control none` (tests/fixtures/corpus-h200/README.md).

use std::io::Read;
use std::path::Path;

use serde_json::Value;

use crate::util::*;

const RAW: &str = "corpus-h200/t5_encoder_full_raw.csv.gz";
const DETAILS: &str = "corpus-h200/t5_encoder_full_details.csv.gz";
const PROFILE: &str = "corpus-h200/t5_encoder_profile.json.gz";

/// `capture diff` of the export (`details` its details page) against the profile.
fn diff_t5(details: &Path, extra: &[&str]) -> std::process::Output {
    let (raw, profile) = (fixture(RAW), fixture(PROFILE));
    let mut args = vec!["diff", s(&raw), s(&profile), "--before-page", s(details)];
    args.extend(extra);
    capture(&args)
}

/// The text of a gzipped fixture.
fn gunzipped(rel: &str) -> String {
    let bytes = std::fs::read(fixture(rel)).expect("fixture");
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_string(&mut text)
        .expect("gunzip");
    text
}

#[test]
fn an_export_against_a_profile_of_more_launches_is_read_per_launch() {
    // The metric sets differ (the full set against capture's own), so --force.
    let o = diff_t5(&fixture(DETAILS), &["--force", "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let d: Value = serde_json::from_str(&stdout(&o)).expect("diff JSON");
    let l = &d["launch_counts"];
    assert_eq!(
        (l["before_launches"].as_u64(), l["after_launches"].as_u64()),
        (Some(52), Some(75)),
        "{l}"
    );
    assert_eq!(l["differ"], true);
    // Each row's launches are the table's, and its median launch before is the median of
    // that kernel's `gpu__time_duration.sum` in the raw page (read here from the CSV).
    let raw = gunzipped(RAW);
    let mut lines = raw
        .lines()
        .filter(|l| l.starts_with("\"ID\"") || l.starts_with("\""))
        .map(csv_fields);
    let header = lines.next().expect("header");
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (name_col, dur_col) = (col("Kernel Name"), col("gpu__time_duration.sum"));
    let rows: Vec<Vec<String>> = lines.filter(|r| r.len() == header.len()).skip(1).collect();
    let kernels = d["kernels"].as_array().expect("kernels");
    let counts = l["kernels"].as_array().expect("launch kernels");
    assert_eq!(kernels.len(), counts.len());
    let mut checked = 0;
    for (k, c) in kernels.iter().zip(counts) {
        assert_eq!(c["before_launches"], k["before"]["launches"], "{c}");
        assert_eq!(c["after_launches"], k["after"]["launches"], "{c}");
        let name = k["before"]["name"].as_str().expect("name");
        let mut ns: Vec<f64> = rows
            .iter()
            .filter(|r| r[name_col] == name)
            .filter_map(|r| r[dur_col].replace(',', "").parse().ok())
            .collect();
        if ns.len() as u64 != c["before_launches"].as_u64().unwrap_or(0) {
            continue; // the row's name is not unique to one kernel of the table
        }
        ns.sort_by(f64::total_cmp);
        let mid = ns.len() / 2;
        let median = if ns.len() % 2 == 1 {
            ns[mid]
        } else {
            (ns[mid - 1] + ns[mid]) / 2.0
        };
        let got = c["median_before_ms"].as_f64().expect("median");
        assert!(
            (got - median / 1e6).abs() < 1e-9,
            "{name}: {got} vs {median} ns"
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked} kernels checked against the CSV");
    // The total per matched launch: the launches both runs have, the rest apart.
    let m = &l["matched"];
    assert_eq!(m["launches"].as_u64(), Some(52), "{m}");
    let apart = m["unmatched_after_ms"].as_f64().unwrap_or(0.0);
    let total_after = d["total"]["after_ms"].as_f64().unwrap_or(0.0);
    let matched_after = m["after_ms"].as_f64().unwrap_or(0.0);
    assert!((matched_after + apart - total_after).abs() < 1e-9, "{m}");

    // The text: launches on every row and the total, the warning above the table.
    let o = diff_t5(&fixture(DETAILS), &["--force"]);
    let text = stdout(&o);
    assert!(
        text.contains("launch counts differ (52 launches before, 75 after)"),
        "{text}"
    );
    assert!(text.contains("launches 52 -> 75"), "{text}");
    assert!(text.contains("\nper matched launch (52 launches"), "{text}");
    assert!(
        text.contains(" 3 -> 5 ") && text.contains("median "),
        "{text}"
    );
    // Clock control is read from the export's launches (SM Frequency floats: none) and the
    // profile's command (none): checked, the same.
    assert!(!text.contains("clock_control"), "{text}");
}

#[test]
fn a_clock_control_read_from_a_details_page_that_differs_is_refused() {
    // A copy of the details page made here, every launch's `SM Frequency` set to the lowest
    // the page holds (as a clock locked by ncu's default `--clock-control base` reads the
    // same on every launch); the committed page is not edited.
    let dir = tempfile::tempdir().expect("tempdir");
    let text = gunzipped(DETAILS);
    // The value is the field after the metric's name and its unit.
    let at = |f: &[String]| {
        let name = f.iter().position(|x| x == "SM Frequency")?;
        (f.get(name + 1)? == "hz").then_some(name + 2)
    };
    let freq = |line: &str| -> Option<f64> {
        let f = csv_fields(line);
        f.get(at(&f)?)?.replace(',', "").parse().ok()
    };
    let lowest = text.lines().filter_map(freq).fold(f64::INFINITY, f64::min);
    assert!(lowest.is_finite() && lowest > 1e9, "{lowest}");
    let edited: Vec<String> = text
        .lines()
        .map(|line| match freq(line) {
            Some(_) => {
                let mut f = csv_fields(line);
                if let Some(i) = at(&f) {
                    f[i] = format!("{lowest:.2}");
                }
                csv_line(&f)
            }
            None => line.to_string(),
        })
        .collect();
    let locked = dir.path().join("t5_locked_details.csv");
    std::fs::write(&locked, edited.join("\n") + "\n").expect("write");
    let ghz = format!("{:.2} GHz", lowest / 1e9);

    let o = diff_t5(&locked, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let err = stderr(&o);
    assert!(
        err.contains(&format!(
            "clock_control: before base (read from its launches: SM Frequency {ghz} on every one \
             of 52 launches: one locked clock), after none"
        )),
        "{err}"
    );
    // Forced, it compares and warns of it.
    let o = diff_t5(&locked, &["--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("not comparable (--force): clock_control: before base"),
        "{}",
        stderr(&o)
    );
}
