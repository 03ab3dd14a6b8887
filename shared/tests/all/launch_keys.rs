//! Issue 25: launches are keyed so that distinct kernels never merge, and true duplicates
//! warn. Inputs are the real raw page of the H200 probe (`copy` launch ID 0, `fma_loop`
//! launch ID 1, process 656) with its ID or name cells changed.

use shared::read::ncu::{combine, combine_named, read_export, Export};

const RAW: &str =
    include_str!("../../../tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv");

fn read(text: &str) -> Export {
    read_export(text.as_bytes()).expect("export reads")
}

/// The fixture with the row of `function` changed by `edit` (its cells as text).
fn edit_row(function: &str, edit: impl Fn(&str) -> String) -> String {
    RAW.lines()
        .map(|l| {
            if l.contains(&format!(",\"{function}\",")) {
                edit(l)
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The time of the launch of `function`.
fn times(launches: &[shared::model::artifact::LaunchCounters], function: &str) -> Vec<Option<f64>> {
    launches
        .iter()
        .filter(|l| &*l.function == function)
        .map(|l| {
            l.metrics
                .number(shared::model::counters::GPU_TIME_DURATION.name)
        })
        .collect()
}

#[test]
fn two_kernels_with_one_launch_id_in_one_export_stay_two() {
    // fma_loop's row says launch ID 0, as copy's does.
    let text = edit_row("fma_loop", |l| l.replacen("\"1\",", "\"0\",", 1));
    let (launches, warnings) = combine(vec![read(&text)]);
    let names: Vec<&str> = launches.iter().map(|l| &*l.function).collect();
    assert_eq!(names, ["copy", "fma_loop"]);
    let (whole, _) = combine(vec![read(RAW)]);
    // Each keeps its own time (before, copy's row carried fma_loop's).
    assert_eq!(times(&launches, "copy"), times(&whole, "copy"));
    assert_eq!(times(&launches, "fma_loop"), times(&whole, "fma_loop"));
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|w| w
            .contains("export 1: launch ID 0 of process 656 is both copy and fma_loop")
            && w.contains("kept as distinct launches")),
        "{text:?}"
    );
}

#[test]
fn the_same_ids_in_exports_of_different_runs_are_not_joined() {
    // A second run's export: the same process and launch IDs, the kernels the other way.
    let swapped = RAW
        .replace(",\"copy\",", ",\"KERNEL_A\",")
        .replace(",\"fma_loop\",", ",\"copy\",")
        .replace(",\"KERNEL_A\",", ",\"fma_loop\",");
    let (launches, warnings) = combine_named(vec![
        ("a.csv".into(), read(RAW)),
        ("b.csv".into(), read(&swapped)),
    ]);
    assert_eq!(launches.len(), 4);
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|w| w
            .contains("launch ID 0 of process 656 is copy in a.csv and fma_loop in b.csv")
            && w.contains("(and 1 more like it)")),
        "{text:?}"
    );
}

#[test]
fn the_same_launch_with_other_values_in_two_exports_is_not_joined() {
    // copy's time changed: the same launch cannot have two times.
    let header = RAW
        .lines()
        .find(|l| l.starts_with("\"ID\""))
        .expect("header");
    let col = header
        .split("\",\"")
        .position(|c| c == shared::model::counters::GPU_TIME_DURATION.name)
        .expect("time column");
    let other = edit_row("copy", |l| {
        let mut cells: Vec<String> = l.split("\",\"").map(str::to_string).collect();
        cells[col] = "1".into();
        cells.join("\",\"")
    });
    let (launches, warnings) = combine_named(vec![
        ("a.csv".into(), read(RAW)),
        ("b.csv".into(), read(&other)),
    ]);
    assert_eq!(times(&launches, "copy").len(), 2, "{warnings:?}");
    assert!(
        warnings.iter().any(|w| w
            .to_string()
            .contains("has different values in a.csv and b.csv")),
        "{warnings:?}"
    );
}

#[test]
fn an_exactly_repeated_raw_row_is_dropped_with_a_warning() {
    let copy_row = RAW
        .lines()
        .find(|l| l.contains(",\"copy\","))
        .expect("copy row");
    let text = RAW.replacen(copy_row, &format!("{copy_row}\n{copy_row}"), 1);
    let (launches, warnings) = combine(vec![read(&text)]);
    let names: Vec<&str> = launches.iter().map(|l| &*l.function).collect();
    assert_eq!(names, ["copy", "fma_loop"]);
    assert!(
        warnings.iter().any(|w| w.to_string().contains(
            "launch ID 0 of process 656 (copy) appears more than once with the same values"
        )),
        "{warnings:?}"
    );
}

#[test]
fn many_rows_sharing_one_id_stay_apart_with_one_warning() {
    // 2,000 launches of fma_loop, all launch ID 1, each with its own grid size.
    let row = RAW
        .lines()
        .find(|l| l.contains(",\"fma_loop\","))
        .expect("fma_loop row");
    let mut text: Vec<String> = RAW.lines().map(str::to_string).collect();
    for i in 0..2_000 {
        text.push(row.replace("\"(4224, 1, 1)\"", &format!("\"({}, 1, 1)\"", 5_000 + i)));
    }
    let (launches, warnings) = combine(vec![read(&text.join("\n"))]);
    assert_eq!(launches.len(), 2_002);
    let collisions: Vec<String> = warnings
        .iter()
        .map(ToString::to_string)
        .filter(|w| w.contains("launch ID 1"))
        .collect();
    assert_eq!(collisions.len(), 1, "{collisions:?}");
    assert!(
        collisions[0].contains("(and 1999 more like it)"),
        "{collisions:?}"
    );
}

#[test]
fn the_same_export_given_twice_warns_and_keeps_each_launch_once() {
    let (launches, warnings) = combine_named(vec![
        ("a.csv".into(), read(RAW)),
        ("a.csv".into(), read(RAW)),
    ]);
    let names: Vec<&str> = launches.iter().map(|l| &*l.function).collect();
    assert_eq!(names, ["copy", "fma_loop"]);
    let text: Vec<String> = warnings.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|w| w.contains(
            "launch ID 0 of process 656 (copy) is in a.csv and again, with the same values \
             and nothing more, in a.csv (and 1 more like it); kept once"
        )),
        "{text:?}"
    );
    // A raw and a details page of one launch share some metrics: joined without a word.
    let raw = include_str!("../../../tests/fixtures/ncu-h200/probe_full_raw.csv");
    let details = include_str!("../../../tests/fixtures/ncu-h200/probe_full_details.csv");
    let (launches, warnings) = combine_named(vec![
        ("raw.csv".into(), read(raw)),
        ("details.csv".into(), read(details)),
    ]);
    assert_eq!(launches.len(), 1, "the two pages of one launch join");
    assert!(
        !warnings.iter().any(|w| w.to_string().contains("again")),
        "{warnings:?}"
    );
}
