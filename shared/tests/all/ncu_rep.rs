//! Real reports read by `shared::read::ncu_rep` against their own CSV raw exports: each report
//! must import to what its `ncu --import --csv --page raw` export imports to. CSV cells are
//! rounded to their printed digits, so numbers are compared within half a unit of the last
//! printed digit (in the printed unit), and exactly where the cell is an integer in its
//! base unit.

use shared::error::ReportError;
use shared::model::artifact::{LaunchCounters, MetricValue, Provenance};
use shared::read::ncu::units::normalize_unit;
use shared::read::ncu::{self, ID_COLUMNS};
use shared::read::ncu_rep;

use crate::support::unpack;

const PROBE_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200/probe_full.ncu-rep.gz");
const PROBE_RAW: &str = include_str!("../../../tests/fixtures/ncu-h200/probe_full_raw.csv");
const GEMMS_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-gemms/gemms_full.ncu-repz");
const GEMMS_RAW: &str = include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
const TWO_PROCESS_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-reports/two_process.ncu-rep.gz");
const TWO_PROCESS_RAW: &str =
    include_str!("../../../tests/fixtures/ncu-h200-reports/two_process_raw.csv");
const BASIC_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-reports/gemms_basic.ncu-repz");
const BASIC_RAW: &str =
    include_str!("../../../tests/fixtures/ncu-h200-reports/gemms_basic_raw.csv");

/// How far a number read from `text`, printed in `unit`, may be from the exact value, in
/// base units: half a unit of the last printed digit (0 for an integer in a base unit).
fn tolerance(text: &str, unit: &str) -> f64 {
    let scale = normalize_unit(unit);
    let digits = text
        .trim()
        .split_once('.')
        .map_or(0, |(_, frac)| frac.len() as i32);
    if digits == 0 && scale.is_identity() {
        return 0.0;
    }
    0.5 * 10f64.powi(scale.exp10 - digits) * scale.factor
}

/// Asserts that the report `report` (gzipped) imports to what the raw page `csv` imports
/// to: same launches, identity columns, metric names, units and values, at least
/// `min_metrics` of them per launch.
fn assert_report_matches_csv(report_gz: &[u8], csv: &str, min_metrics: usize) {
    let report = unpack(report_gz);
    let from_csv = ncu::read_export(csv.as_bytes()).expect("CSV reads");
    let from_report = ncu_rep::read_export(&report).expect("report reads");
    let streamed = ncu_rep::read_export_from(&report[..]).expect("report streams");
    assert_eq!(from_report, streamed, "slice and reader decode alike");
    // The same values are dropped, with one warning per metric on either side.
    let warned = |w: &[ncu::Warning], skip: usize| -> Vec<String> {
        w.iter()
            .filter_map(|w| w.message.split(' ').nth(skip).map(str::to_owned))
            .collect()
    };
    assert_eq!(
        warned(&from_report.warnings, 2),
        warned(&from_csv.warnings, 0)
    );
    assert_eq!(from_report.launches.len(), from_csv.launches.len());

    // The printed cells, for the tolerance of each comparison.
    let mut rows = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(csv.as_bytes());
    let records: Vec<csv::StringRecord> = rows.records().map(|r| r.expect("row")).collect();
    let (header, units) = (&records[0], &records[1]);

    let mut compared = 0;
    for (i, (r, c)) in from_report
        .launches
        .iter()
        .zip(&from_csv.launches)
        .enumerate()
    {
        assert_identity(r, c);
        let cells = &records[2 + i];
        assert_eq!(r.metrics.len(), c.metrics.len(), "launch {i}: metric count");
        for (col, name) in header.iter().enumerate() {
            if ID_COLUMNS.contains(&name) {
                continue;
            }
            let want = c.metrics.get(name).expect("CSV column");
            let got = r
                .metrics
                .get(name)
                .unwrap_or_else(|| panic!("launch {i}: report lacks {name}"));
            assert_eq!(got.unit, want.unit, "launch {i}: unit of {name}");
            match (&got.value, &want.value) {
                (MetricValue::Number(g), MetricValue::Number(w)) => {
                    let tol = tolerance(&cells[col].replace(',', ""), &units[col]);
                    assert!(
                        (g - w).abs() <= tol + w.abs() * 1e-15,
                        "launch {i}: {name} is {g} in the report, {w} in the CSV ({:?} {})",
                        &cells[col],
                        &units[col]
                    );
                }
                (g, w) => assert_eq!(g, w, "launch {i}: {name}"),
            }
            compared += 1;
        }
    }
    assert!(
        compared >= min_metrics * from_csv.launches.len(),
        "{compared} values compared"
    );

    // And the artifacts they import to: same kernels with the same launches.
    let provenance = Provenance::default;
    let a =
        shared::analysis::merge::import_launches(from_report.launches, Vec::new(), provenance());
    let b = shared::analysis::merge::import_launches(from_csv.launches, Vec::new(), provenance());
    let kernels = |a: &shared::Artifact| -> Vec<(String, usize)> {
        a.kernels
            .iter()
            .map(|k| {
                (
                    k.name.to_string(),
                    k.cold.as_ref().map_or(0, |s| s.launches.len()),
                )
            })
            .collect()
    };
    assert_eq!(kernels(&a), kernels(&b));
    assert_eq!(a.device, b.device);
}

/// The identity columns of a launch.
fn assert_identity(r: &LaunchCounters, c: &LaunchCounters) {
    let id = |l: &LaunchCounters| {
        (
            l.id,
            l.site.process_id,
            l.site.process_name.clone(),
            l.site.host.clone(),
            l.function.clone(),
            l.site.context,
            l.site.stream,
            l.site.grid,
            l.site.block,
            l.site.device,
            l.site.cc.clone(),
        )
    };
    assert_eq!(id(r), id(c));
}

#[test]
fn the_probe_report_imports_as_its_raw_export_in_scaled_units() {
    assert_report_matches_csv(PROBE_REPORT, PROBE_RAW, 2000);
}

#[test]
fn the_gemms_report_imports_as_its_raw_export_in_base_units() {
    assert_report_matches_csv(GEMMS_REPORT, GEMMS_RAW, 2000);
}

/// Two processes, each with its own blocks: the second process's string table starts fresh
/// and `ID` counts results over the whole file.
#[test]
fn the_two_process_report_imports_as_its_raw_export() {
    assert_report_matches_csv(TWO_PROCESS_REPORT, TWO_PROCESS_RAW, 500);
    let report = ncu_rep::read_report(&unpack(TWO_PROCESS_REPORT)).expect("reads");
    assert_eq!(report.session.processes.len(), 2);
    let ids: Vec<(u64, Option<u64>)> = report
        .results
        .iter()
        .map(|r| (r.index, r.process.id))
        .collect();
    assert_eq!(
        ids,
        [
            (0, Some(4021)),
            (1, Some(4021)),
            (2, Some(4070)),
            (3, Some(4070))
        ]
    );
}

#[test]
fn the_basic_set_report_imports_as_its_raw_export() {
    assert_report_matches_csv(BASIC_REPORT, BASIC_RAW, 500);
}

#[test]
fn the_gemms_report_names_and_session() {
    let report = ncu_rep::read_report(&unpack(GEMMS_REPORT)).expect("reads");
    assert_eq!(report.version, ncu_rep::KNOWN_VERSION);
    assert_eq!(report.results.len(), 6);
    let cutlass = &report.results[5];
    assert_eq!(cutlass.names.function, "Kernel2");
    assert!(cutlass.names.mangled.starts_with("_ZN7cutlass7Kernel2I"));
    assert_eq!(
        cutlass.names.demangled.as_deref(),
        Some(
            "void cutlass::Kernel2<cutlass_80_wmma_tensorop_i161616gemm_s8_forwardCompat_\
             128x128_32x2_nn_align4>(T1::Params)"
        )
    );
    let nvjet = &report.results[0].names;
    assert_eq!(nvjet.mangled, nvjet.function);
    assert_eq!(nvjet.demangled, None);
    assert_eq!(report.results[0].grid, Some([2, 64, 1]));
    assert_eq!(report.results[0].block, Some([384, 1, 1]));
    assert_eq!(report.results[0].process.name(), Some("python3.12"));
    assert_eq!(
        report.results[0].metric("dram__bytes_read.sum"),
        report.results[0]
            .metrics()
            .find(|m| m.name == "dram__bytes_read.sum")
            .map(|m| m.value)
    );
    assert!(report.results.iter().all(|r| r.metric_count() > 2200));
    let device = report.session.devices.first().expect("a device");
    assert_eq!(device.name, "NVIDIA H200");
    assert!(report
        .session
        .tools
        .iter()
        .any(|(name, v)| name == "Nsight Compute Target" && v.starts_with("2025.3.1")));
    assert!(report
        .session
        .command_line
        .as_deref()
        .is_some_and(|c| c.contains("--set full")));
    assert_eq!(report.session.processes.len(), 1);
}

#[test]
fn a_cut_report_loads_its_complete_results_with_a_warning() {
    let report = unpack(GEMMS_REPORT);
    let whole = ncu_rep::read_export(&report).expect("reads");
    // 60% in, the file ends inside the kernel binary before the fourth result.
    let cut = &report[..report.len() * 6 / 10];
    for export in [
        ncu_rep::read_export(cut).expect("a cut report loads"),
        ncu_rep::read_export_from(cut).expect("a cut report streams"),
    ] {
        assert_eq!(export.launches, whole.launches[..3]);
        let last = export
            .warnings
            .iter()
            .find(|w| w.message.contains("cut"))
            .expect("a warning");
        assert!(last.message.starts_with("byte "), "{last}");
        assert!(
            last.message
                .ends_with("the 3 complete results before it are loaded"),
            "{last}"
        );
    }
}

#[test]
fn damaged_reports_never_panic() {
    let report = unpack(PROBE_REPORT);
    // A fixed pseudo-random walk over the file: flip a byte, decode, put it back.
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut damaged = report.clone();
    for _ in 0..60 {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1);
        let at = (state >> 33) as usize % report.len();
        damaged[at] ^= (state >> 8) as u8 | 1;
        let _ = ncu_rep::read_export(&damaged);
        damaged[at] = report[at];
    }
    // Cuts at every size class stay typed: complete results, or an error.
    for cut in [0, 3, 4, 9, 10, 100, 7_000, 200_000, report.len() - 1] {
        match ncu_rep::read_export(&report[..cut]) {
            Ok(export) => assert!(!export.launches.is_empty()),
            Err(ReportError::NoResults) => assert!(cut <= 7_285, "ends before any result"),
            Err(e) => assert!(e.to_string().starts_with("byte "), "{e}"),
        }
    }
}

/// Decode speed on a 65 MB report: the gemms report with its result blocks repeated.
/// `cargo test --release -p roofline-shared --test all ncu_rep:: -- --ignored --nocapture`
#[test]
#[ignore = "a benchmark; run in release"]
#[allow(clippy::disallowed_methods, clippy::disallowed_types)] // a benchmark: it times itself
fn decode_speed_of_a_65_mb_report() {
    let report = unpack(GEMMS_REPORT);
    // Result blocks after the first carry no string table of their own, so they can be
    // repeated: a report of many launches, as a small model's profile is.
    let mut at = 8 + u32::from_le_bytes(report[4..8].try_into().expect("4 bytes")) as usize;
    let mut starts = Vec::new();
    while at < report.len() {
        starts.push(at);
        let size = u32::from_le_bytes(report[at..at + 4].try_into().expect("4 bytes")) as usize;
        let header = &report[at + 4..at + 4 + size];
        let payload = ncu_rep::wire::Fields::new(header, 0)
            .filter_map(Result::ok)
            .find(|f| f.number == 5)
            .and_then(|f| f.varint())
            .expect("payload size") as usize;
        at += 4 + size + payload;
    }
    starts.push(report.len());
    let mut big = report.clone();
    'fill: loop {
        // Blocks 11, 13, ... 19 are the results of kernels 1 to 5.
        for pair in starts[11..].windows(2).step_by(2) {
            if big.len() >= 65_000_000 {
                break 'fill;
            }
            big.extend_from_slice(&report[pair[0]..pair[1]]);
        }
    }
    let start = std::time::Instant::now();
    let export = ncu_rep::read_export(&big).expect("reads");
    let slice_s = start.elapsed().as_secs_f64();
    let start = std::time::Instant::now();
    let streamed = ncu_rep::read_export_from(&big[..]).expect("reads");
    let stream_s = start.elapsed().as_secs_f64();
    assert_eq!(export.launches.len(), streamed.launches.len());
    let mb = big.len() as f64 / 1e6;
    println!(
        "{mb:.1} MB, {} launches: slice {:.0} ms ({:.0} MB/s), reader {:.0} ms ({:.0} MB/s)",
        export.launches.len(),
        slice_s * 1e3,
        mb / slice_s,
        stream_s * 1e3,
        mb / stream_s
    );
}

/// The frames and field trees of the probe report, the way its field numbers were found:
/// `cargo test -p roofline-shared --test all ncu_rep::outline -- --ignored --nocapture`.
#[test]
#[ignore = "prints the probe report's field tree"]
fn outline_of_the_probe_report() {
    println!("{}", ncu_rep::outline(&unpack(PROBE_REPORT), 3, 12));
}

#[test]
fn the_outline_lists_every_frame() {
    let text = ncu_rep::outline(&unpack(PROBE_REPORT), 2, 4);
    assert_eq!(text.matches("== block header").count(), 10, "{text}");
    assert_eq!(text.matches("== payload message").count(), 2, "{text}");
    assert!(text.contains("text \"launch__grid_size\""), "{text}");
    assert!(
        text.starts_with("== file header at byte 4, 2 bytes\n1: varint 7\n"),
        "{text}"
    );
}
