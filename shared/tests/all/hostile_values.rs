//! Issue 25: every value the readers cannot take as a measurement is a warning naming the
//! line: units this reader does not know, numbers ncu never writes, out-of-range values in
//! a scaled unit, and lines of a GUI export that are not `name,value`. Inputs are the real
//! H200 probe exports with one cell changed.

use shared::read::ncu::read_export;

const RAW: &str =
    include_str!("../../../tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv");
const DETAILS: &str = include_str!(
    "../../../tests/fixtures/ncu-h200/probe_sections_details_base_units_with_stdout.csv"
);
const GUI: &str = include_str!("../../../tests/fixtures/ncu-gui/probe_full_gui_raw.csv");

/// The raw fixture's lines: header (line 9), units (10), copy (11), fma_loop (12).
fn raw_lines() -> Vec<String> {
    RAW.lines().map(str::to_string).collect()
}

/// Sets the cell of `column` in raw line `line` (1-based) to `value`.
fn set_cell(lines: &mut [String], line: usize, column: &str, value: &str) {
    let header: Vec<String> = lines[8].split("\",\"").map(str::to_string).collect();
    let col = header
        .iter()
        .position(|c| c.trim_matches('"') == column)
        .expect("column");
    let mut cells: Vec<String> = lines[line - 1].split("\",\"").map(str::to_string).collect();
    let last = cells.len() - 1;
    cells[col] = if col == 0 {
        format!("\"{value}")
    } else if col == last {
        format!("{value}\"")
    } else {
        value.to_string()
    };
    lines[line - 1] = cells.join("\",\"");
}

fn warnings_of(text: &str) -> Vec<String> {
    read_export(text.as_bytes())
        .expect("reads")
        .warnings
        .iter()
        .map(ToString::to_string)
        .collect()
}

#[test]
fn an_unknown_unit_is_a_warning_and_its_values_are_missing() {
    let mut lines = raw_lines();
    set_cell(&mut lines, 10, "gpu__time_duration.sum", "fortnight");
    let export = read_export(lines.join("\n").as_bytes()).expect("reads");
    for launch in &export.launches {
        assert_eq!(launch.metrics.number("gpu__time_duration.sum"), None);
    }
    let w: Vec<String> = export.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter().any(|w| w.starts_with("line 11: gpu__time_duration.sum is in unit \"fortnight\", which this reader does not know")
            && w.contains("kept as missing (2 rows, the first here)")),
        "{w:?}"
    );
}

#[test]
fn an_unknown_unit_in_a_details_page_is_a_warning() {
    let line = DETAILS
        .lines()
        .position(|l| l.contains("\"byte\","))
        .expect("a row in byte");
    let mut lines: Vec<String> = DETAILS.lines().map(str::to_string).collect();
    lines[line] = lines[line].replacen("\"byte\",", "\"parsec\",", 1);
    let w = warnings_of(&lines.join("\n"));
    assert!(
        w.iter()
            .any(|w| w.starts_with(&format!("line {}: ", line + 1))
                && w.contains("is in unit \"parsec\"")),
        "{w:?}"
    );
}

#[test]
fn numbers_ncu_never_writes_are_warnings() {
    for bad in [
        "0x10",
        "1_000",
        "1.2.3",
        "\u{661}\u{662}\u{663}",
        "\u{221e}",
        "1,2",
    ] {
        let mut lines = raw_lines();
        set_cell(&mut lines, 11, "dram__bytes_read.sum", bad);
        let w = warnings_of(&lines.join("\n"));
        let want = format!(
            "line 11: dram__bytes_read.sum holds {bad:?}, which is not a number as ncu writes them"
        );
        assert!(w.iter().any(|w| w.starts_with(&want)), "{bad}: {w:?}");
    }
}

#[test]
fn an_out_of_range_value_in_a_scaled_unit_says_both_units() {
    let mut lines = raw_lines();
    set_cell(&mut lines, 10, "dram__bytes_read.sum", "Tbyte");
    set_cell(&mut lines, 11, "dram__bytes_read.sum", "1e20");
    let w = warnings_of(&lines.join("\n"));
    assert!(
        w.iter().any(|w| w.contains(
            "dram__bytes_read.sum is out of range (\"1e20\" in the export's unit, 1e32 byte in base units)"
        )),
        "{w:?}"
    );
}

#[test]
fn a_gui_line_without_a_comma_is_skipped_with_a_warning() {
    let mut lines: Vec<String> = GUI.lines().map(str::to_string).collect();
    lines.insert(3, "no comma here".into());
    let export = read_export(lines.join("\n").as_bytes()).expect("reads");
    assert!(export
        .launches
        .iter()
        .all(|l| !l.metrics.contains_key("no comma here")));
    let w: Vec<String> = export.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter()
            .any(|w| w.starts_with("line 4: line \"no comma here\" has no value")),
        "{w:?}"
    );
}

/// Issue 39: a second `ID` line before any metric of the first launch dropped that launch's
/// lines for the next's without a word.
#[test]
fn a_second_gui_id_line_before_any_metric_is_a_warning() {
    let mut lines: Vec<String> = GUI.lines().map(str::to_string).collect();
    lines.insert(2, "ID,1".into());
    let export = read_export(lines.join("\n").as_bytes()).expect("reads");
    assert_eq!(export.launches.len(), 1);
    assert_eq!(
        export.launches[0].id, 1,
        "the second ID's launch is the one kept"
    );
    let w: Vec<String> = export.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter().any(|w| w.starts_with(
            "line 3: a second ID line before any metric of the launch of ID 0 (line 1): that \
             launch has no measurement and its lines 1 to 2 are dropped"
        )),
        "{w:?}"
    );
    // The committed export, with its one ID, reads without a warning.
    assert!(read_export(GUI.as_bytes())
        .expect("reads")
        .warnings
        .is_empty());
}

/// Issue 39: a line of three fields read as a metric of the joined value without a word.
#[test]
fn a_gui_line_of_three_fields_is_a_warning() {
    let mut lines: Vec<String> = GUI.lines().map(str::to_string).collect();
    lines.insert(12, "sm__cycles_elapsed.max [cycle],5,7".into());
    let export = read_export(lines.join("\n").as_bytes()).expect("reads");
    let w: Vec<String> = export.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter().any(|w| w.starts_with(
            "line 13: \"sm__cycles_elapsed.max\" has 2 comma-separated values where ncu \
             writes one (quoted when it holds a comma); read as \"5,7\""
        )),
        "{w:?}"
    );
}

/// The suite's sample (`site/samples/h200.json`, kept gzipped in the tree).
fn sample() -> String {
    let gz = include_bytes!("../../../site/samples/h200.json.gz");
    String::from_utf8(crate::support::unpack(gz)).expect("UTF-8")
}

#[test]
fn a_launch_value_array_shorter_than_its_columns_is_refused() {
    let mut doc: serde_json::Value = serde_json::from_str(&sample()).expect("json");
    let set = doc["kernels"]
        .as_array_mut()
        .and_then(|ks| ks.iter_mut().find(|k| k["cold"]["launches"].is_array()))
        .map(|k| &mut k["cold"])
        .expect("a kernel with counters");
    let metrics = set["launches"][0]["metrics"]
        .as_array_mut()
        .expect("value array");
    metrics.truncate(metrics.len() / 2);
    let err = shared::Artifact::from_json_checked(&doc.to_string()).expect_err("refused");
    assert!(
        err.to_string()
            .contains("(an array cut short: a damaged artifact?)"),
        "{err}"
    );
}

#[test]
fn negative_peaks_and_ceilings_are_warnings_and_missing() {
    let mut doc: serde_json::Value = serde_json::from_str(&sample()).expect("json");
    doc["device"]["peaks"]["dram_gbyte_per_s"] = serde_json::json!(-5.0);
    doc["ceilings"]["copy_gbyte_per_s"] = serde_json::json!(-1.0);
    let (artifact, warnings) =
        shared::Artifact::from_json_checked(&doc.to_string()).expect("loads");
    assert_eq!(
        artifact
            .device
            .as_ref()
            .and_then(|d| d.peaks.dram_gbyte_per_s),
        None
    );
    assert_eq!(
        artifact.ceilings.as_ref().and_then(|c| c.copy_gbyte_per_s),
        None
    );
    for want in [
        "device: theoretical dram_gbyte_per_s is negative",
        "ceilings: copy_gbyte_per_s is negative",
    ] {
        assert!(
            warnings.iter().any(|w| w.message.starts_with(want)),
            "{want}: {warnings:?}"
        );
    }
}

#[test]
fn a_gui_line_with_an_unclosed_quote_names_the_lines_it_swallowed() {
    let mut lines: Vec<String> = GUI.lines().map(str::to_string).collect();
    // Line 5 opens a quote; the next quote is the one opening "Grid Size"'s value.
    lines.insert(4, "\"unterminated,quote".into());
    let grid = lines
        .iter()
        .position(|l| l.starts_with("Grid Size,"))
        .expect("Grid Size line")
        + 1;
    let export = read_export(lines.join("\n").as_bytes()).expect("reads");
    assert!(export
        .launches
        .iter()
        .all(|l| l.metrics.iter().all(|(n, _)| !n.contains('\n'))));
    let w: Vec<String> = export.warnings.iter().map(ToString::to_string).collect();
    assert!(
        w.iter().any(|w| w.starts_with(&format!(
            "line 5: a quote opened here is not closed until line {grid}: \"unterminated,quote\\nFunction Name"
        )) && w.ends_with(&format!("lines 5 to {grid} skipped"))),
        "{w:?}"
    );
}

/// Issue 39: an event timing is checked sample by sample and against its own summary.
#[test]
fn event_samples_no_run_has_and_summaries_not_their_samples_drop_the_timing() {
    use shared::model::artifact::LoadField;
    type Edit = fn(&mut serde_json::Value);
    let cases: [(&str, Edit); 4] = [
        ("sample 3 of 20 (1e300 ms) is larger", |t| {
            t["samples_ms"][2] = 1e300.into();
        }),
        ("sample 3 of 20 (-1e300 ms) is negative", |t| {
            t["samples_ms"][2] = (-1e300).into();
        }),
        ("sample 3 of 20 (1.7e308 ms) is larger", |t| {
            t["samples_ms"][2] = 1.7e308.into();
        }),
        ("is not its samples'", |t| {
            t["median_ms"] = t["min_ms"].clone();
        }),
    ];
    for (want, edit) in cases {
        let mut doc: serde_json::Value = serde_json::from_str(&sample()).expect("json");
        edit(&mut doc["kernels"][4]["timing"]);
        let (artifact, warnings) =
            shared::Artifact::from_json_checked(&doc.to_string()).expect("loads");
        assert!(artifact.kernels[4].timing.is_none(), "{want}");
        assert!(artifact.kernels[3].timing.is_some(), "{want}");
        assert_eq!(warnings.len(), 1, "{want}: {warnings:?}");
        let w = &warnings[0];
        assert_eq!((w.kernel, w.field), (Some(4), LoadField::Timing));
        assert!(
            w.message.starts_with("vector add: event timing is ")
                && w.message.contains(want)
                && w.message.ends_with("; kept as missing"),
            "{want}: {}",
            w.message
        );
        assert!(
            artifact.warnings.contains(&w.message),
            "kept in the artifact"
        );
    }
    // The committed runs' timings are all their samples'.
    let (_, warnings) = shared::Artifact::from_json_checked(&sample()).expect("loads");
    assert!(warnings.is_empty(), "{warnings:?}");
}

/// Issue 39: launches copied from a measured one (`sampled_from`) are estimates; without
/// the `sampled` block that says so, or with one that does not count them, the load warns.
#[test]
fn a_sampled_block_removed_or_miscounted_is_a_warning() {
    use shared::model::artifact::LoadField;
    let mut doc: serde_json::Value = serde_json::from_str(&sample()).expect("json");
    // A second launch of kernel 4, copied from its first as a sampled profile would.
    let launches = doc["kernels"][4]["cold"]["launches"]
        .as_array_mut()
        .expect("launches");
    let mut copy = launches[0].clone();
    let id = copy["id"].as_u64().expect("id");
    copy["id"] = (id + 1000).into();
    copy["sampled_from"] = id.into();
    launches.push(copy);
    let (artifact, warnings) =
        shared::Artifact::from_json_checked(&doc.to_string()).expect("loads");
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(
        (warnings[0].kernel, warnings[0].field),
        (None, LoadField::Sampled)
    );
    assert!(
        warnings[0].message.starts_with(
            "1 of 21 launches carry counters copied from a measured launch and scaled by \
             time (sampled_from), but the artifact has no sampled block"
        ),
        "{}",
        warnings[0].message
    );
    let counted = artifact.kernels[4].sampled.as_deref().expect("counted");
    assert_eq!((counted.measured, counted.launches), (1, 2));
    // A block that counts other launches than the artifact holds.
    doc["sampled"] = serde_json::json!({
        "measured": 21, "launches": 21, "groups": 20, "timing_launches": 21
    });
    doc["kernels"][4]["sampled"] = serde_json::json!({"measured": 2, "launches": 2});
    let (artifact, warnings) =
        shared::Artifact::from_json_checked(&doc.to_string()).expect("loads");
    let texts: Vec<&str> = warnings.iter().map(|w| w.message.as_str()).collect();
    assert_eq!(texts.len(), 2, "{texts:?}");
    assert!(
        texts[0].starts_with("vector add: sampled says 2 of 2 launches measured, but its launches are 1 measured of 2"),
        "{texts:?}"
    );
    assert!(
        texts[1].starts_with(
            "sampled says 21 of 21 launches measured, but the kernels hold 20 measured of 21"
        ),
        "{texts:?}"
    );
    let counted = artifact.kernels[4].sampled.as_deref().expect("counted");
    assert_eq!((counted.measured, counted.launches), (1, 2));
}

/// Issue 39: a `constant_values` array cut short turned the FLOP and byte figures of every
/// launch of its counter set into missing ones without a word; it is refused now, as a
/// short `metrics` array is. The artifact is the real GPT-2 export imported.
#[test]
fn a_constant_values_array_cut_short_is_refused() {
    let csv = crate::support::unpack(include_bytes!(
        "../../../site/samples/h200-gpt2-bf16-ncu-cold-raw.csv.gz"
    ));
    let export = read_export(&csv[..]).expect("reads");
    let artifact = shared::analysis::merge::import_launches(
        export.launches,
        export.warnings,
        shared::model::artifact::Provenance::default(),
    );
    let mut doc: serde_json::Value = serde_json::from_str(&artifact.to_json()).expect("json");
    let set = doc["kernels"]
        .as_array_mut()
        .and_then(|ks| {
            ks.iter_mut().find(|k| {
                k["cold"]["constant_values"]
                    .as_array()
                    .is_some_and(|v| v.len() > 4)
            })
        })
        .map(|k| &mut k["cold"])
        .expect("a counter set with constant values");
    let values = set["constant_values"].as_array_mut().expect("values");
    let n = values.len();
    values.truncate(n / 2);
    let err = shared::Artifact::from_json_checked(&doc.to_string()).expect_err("refused");
    assert!(
        err.to_string().contains(&format!(
            "{} constant_values for {n} columns not varying (an array cut short: a damaged \
             artifact?)",
            n / 2
        )),
        "{err}"
    );
}
