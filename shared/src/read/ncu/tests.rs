//! Tests of the export reader on the real H200 exports in `tests/fixtures/ncu-h200/`, the
//! hand-reformatted GUI export in `tests/fixtures/ncu-gui/`, and broken inputs derived from
//! them. Fixtures are compiled in with `include_str!`, so the crate stays free of I/O.

use super::*;
use crate::model::artifact::{MetricValue, SectionMetric};

const METRICS_RAW_STDOUT: &str =
    include_str!("../../../../tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv");
const SECTIONS_DETAILS_STDOUT: &str = include_str!(
    "../../../../tests/fixtures/ncu-h200/probe_sections_details_base_units_with_stdout.csv"
);
const FULL_DETAILS: &str =
    include_str!("../../../../tests/fixtures/ncu-h200/probe_full_details.csv");
const FULL_RAW: &str = include_str!("../../../../tests/fixtures/ncu-h200/probe_full_raw.csv");
const GUI_RAW: &str = include_str!("../../../../tests/fixtures/ncu-gui/probe_full_gui_raw.csv");

fn read(text: &str) -> Result<Export, NcuError> {
    read_export(text.as_bytes())
}

fn ok(text: &str) -> Export {
    match read(text) {
        Ok(export) => export,
        Err(e) => panic!("export did not load: {e}"),
    }
}

fn number(launch: &LaunchCounters, name: &str) -> f64 {
    match launch.metrics.get(name).map(|m| m.value) {
        Some(MetricValue::Number(v)) => v,
        other => panic!("{name}: expected a number, found {other:?}"),
    }
}

fn unit(launch: &LaunchCounters, name: &str) -> String {
    launch
        .metrics
        .get(name)
        .map_or_else(|| "<absent>".to_owned(), |m| m.unit)
}

fn section<'a>(launch: &'a LaunchCounters, section: &str, name: &str) -> &'a SectionMetric {
    launch
        .sections
        .iter()
        .find(|s| s.section == section && s.name == name)
        .unwrap_or_else(|| panic!("no {section} / {name}"))
}

const SOL: &str = "GPU Speed Of Light Throughput";

/// The lines of a fixture that belong to the CSV (they start with a quote).
fn csv_lines(text: &str) -> Vec<&str> {
    text.lines().filter(|l| l.starts_with('"')).collect()
}

#[test]
fn raw_metrics_with_program_output() {
    let export = ok(METRICS_RAW_STDOUT);
    assert_eq!(export.page, Page::Raw);
    let [copy, fma] = export.launches.as_slice() else {
        panic!("expected 2 launches, got {}", export.launches.len());
    };
    assert_eq!((copy.id, &*copy.function), (0, "copy"));
    assert_eq!((fma.id, &*fma.function), (1, "fma_loop"));
    assert_eq!(copy.site.process_id, Some(656));
    assert_eq!(copy.site.process_name.as_deref(), Some("cprobe"));
    assert_eq!(copy.site.host.as_deref(), Some("127.0.0.1"));
    assert_eq!((copy.site.context, copy.site.stream), (Some(1), Some(7)));
    assert_eq!(
        (copy.site.device, copy.site.cc.as_deref()),
        (Some(0), Some("9.0"))
    );
    assert_eq!(copy.site.block, Some([256, 1, 1]));
    assert_eq!(copy.site.grid, Some([1056, 1, 1]));
    assert_eq!(fma.site.grid, Some([4224, 1, 1]));

    let read_bytes = number(copy, "dram__bytes_read.sum");
    let write_bytes = number(copy, "dram__bytes_write.sum");
    assert_eq!(read_bytes, 4_294_976_256.0);
    assert_eq!(write_bytes, 4_275_911_936.0);
    assert_eq!(read_bytes + write_bytes, 8_570_888_192.0);
    assert_eq!(unit(copy, "dram__bytes_read.sum"), "byte");
    assert_eq!(number(copy, "gpu__time_duration.sum"), 2_854_816.0);
    assert_eq!(unit(copy, "gpu__time_duration.sum"), "ns");
    assert_eq!(
        number(fma, "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"),
        35_433_480_192.0
    );
    assert_eq!(
        copy.metrics
            .get("launch__cluster_scheduling_policy")
            .map(|m| m.value),
        Some(MetricValue::Text("PolicySpread".to_owned()))
    );
    // 301 columns, 11 of them identity columns.
    assert_eq!(copy.metrics.len(), 290);

    // The 8 lines of program output and ncu messages before the header: one warning.
    let [skipped] = export.warnings.as_slice() else {
        panic!("expected one warning, got {:?}", export.warnings);
    };
    assert_eq!(skipped.line, Some(1));
    assert!(skipped.message.contains("skipped 8 lines"), "{skipped}");
    assert!(skipped.message.contains("==WARNING=="), "{skipped}");
}

#[test]
fn details_in_base_units_with_program_output() {
    let export = ok(SECTIONS_DETAILS_STDOUT);
    assert_eq!(export.page, Page::Details);
    let [copy] = export.launches.as_slice() else {
        panic!("expected 1 launch, got {}", export.launches.len());
    };
    assert_eq!((copy.id, copy.site.process_id), (0, Some(833)));
    assert_eq!(&*copy.function, "copy");
    assert_eq!(copy.site.grid, Some([1056, 1, 1]));
    assert!(copy.metrics.is_empty());
    let expect = [
        ("Memory Throughput", "%", 62.40),
        ("DRAM Throughput", "%", 62.40),
        ("Compute (SM) Throughput", "%", 18.00),
        ("Duration", "ns", 2_854_592.0),
        ("SM Frequency", "hz", 1_979_211_608.87),
        ("DRAM Frequency", "hz", 3_199_426_981.74),
        ("Elapsed Cycles", "cycle", 5_651_791.0),
    ];
    for (name, unit, value) in expect {
        let row = section(copy, SOL, name);
        assert_eq!(
            (row.unit.as_str(), &row.value),
            (unit, &MetricValue::Number(value)),
            "{name}"
        );
    }
    let spilling = section(
        copy,
        "Memory Workload Analysis",
        "Local Memory Spilling Request Overhead",
    );
    assert_eq!(spilling.value, MetricValue::Missing);
    assert_eq!(
        section(copy, "Memory Workload Analysis", "Memory Throughput").value,
        MetricValue::Number(3_002_596_776_001.61)
    );
    assert_eq!(
        section(copy, "Launch Statistics", "Cluster Scheduling Policy").value,
        MetricValue::Text("PolicySpread".to_owned())
    );
    assert_eq!(
        section(copy, "Launch Statistics", "Grid Size").value,
        MetricValue::Number(1056.0)
    );
    // 53 data rows, one of them a rule.
    assert_eq!((copy.sections.len(), copy.rules.len()), (52, 1));
    let rule = &copy.rules[0];
    assert_eq!(
        (
            rule.section.as_str(),
            rule.name.as_str(),
            rule.kind.as_str()
        ),
        ("SpeedOfLight", "SOLBottleneck", "OPT")
    );
    assert!(rule
        .description
        .starts_with("Memory is more heavily utilized"));
    assert_eq!(
        (rule.speedup_type.as_deref(), rule.speedup_pct),
        (None, None)
    );
    // Nine lines before the header (one of them the program's own error).
    let [skipped] = export.warnings.as_slice() else {
        panic!("expected one warning, got {:?}", export.warnings);
    };
    assert!(skipped.message.contains("skipped 9 lines"), "{skipped}");
}

#[test]
fn details_in_scaled_units() {
    let export = ok(FULL_DETAILS);
    let [copy] = export.launches.as_slice() else {
        panic!("expected 1 launch, got {}", export.launches.len());
    };
    assert_eq!(copy.site.process_id, Some(714));
    let expect = [
        (SOL, "Duration", "ns", 2_850_000.0),
        (SOL, "SM Frequency", "hz", 1_980_000_000.0),
        (SOL, "DRAM Frequency", "hz", 3_200_000_000.0),
        (SOL, "Memory Throughput", "%", 62.43),
        (
            "Memory Workload Analysis",
            "Memory Throughput",
            "byte/s",
            3.0e12,
        ),
        (
            "Memory Workload Analysis",
            "L2 Persisting Size",
            "byte",
            11_800_000.0,
        ),
        ("PM Sampling", "Maximum Buffer Size", "byte", 61_930_000.0),
        ("PM Sampling", "Maximum Sampling Interval", "ns", 1_500.0),
        (
            "Launch Statistics",
            "Shared Memory Configuration Size",
            "byte",
            32_770.0,
        ),
        (
            "Launch Statistics",
            "Driver Shared Memory Per Block",
            "byte/block",
            1_020.0,
        ),
        ("Launch Statistics", "Threads", "thread", 270_336.0),
    ];
    for (sec, name, unit, value) in expect {
        let row = section(copy, sec, name);
        assert_eq!(
            (row.unit.as_str(), &row.value),
            (unit, &MetricValue::Number(value)),
            "{sec} / {name}"
        );
    }
    assert_eq!(
        section(copy, "Launch Statistics", "Enabled TPC IDs").value,
        MetricValue::Text("all".to_owned())
    );
    assert_eq!((copy.sections.len(), copy.rules.len()), (87, 7));
    let pipe = copy
        .rules
        .iter()
        .find(|r| r.name == "HighPipeUtilization")
        .expect("HighPipeUtilization rule");
    assert_eq!(pipe.section, "ComputeWorkloadAnalysis");
    assert_eq!(
        (pipe.speedup_type.as_deref(), pipe.speedup_pct),
        (Some("local"), Some(82.0))
    );
    // Every section of a real full-set export is known: no warnings.
    assert_eq!(export.warnings, Vec::<Warning>::new());
}

#[test]
fn raw_full_set_in_scaled_units() {
    let export = ok(FULL_RAW);
    let [copy] = export.launches.as_slice() else {
        panic!("expected 1 launch, got {}", export.launches.len());
    };
    assert_eq!((copy.id, copy.site.process_id), (0, Some(714)));
    assert_eq!(copy.metrics.len(), 2238 - 11);
    assert_eq!(number(copy, "dram__bytes_read.sum"), 4_295_008_000.0);
    assert_eq!(number(copy, "dram__bytes_write.sum"), 4_275_941_000.0);
    assert_eq!(unit(copy, "dram__bytes_read.sum"), "byte");
    assert_eq!(number(copy, "gpu__time_duration.sum"), 2_852_960.0);
    assert_eq!(unit(copy, "gpu__time_duration.sum"), "ns");
    assert_eq!(
        number(copy, "dram__bytes.sum.per_second"),
        3_004_230_000_000.0
    );
    assert_eq!(unit(copy, "dram__bytes.sum.per_second"), "byte/s");
    assert_eq!(number(copy, "dram__bytes.sum.peak_sustained"), 1_504.0);
    assert_eq!(unit(copy, "dram__bytes.sum.peak_sustained"), "byte/cycle");
    assert_eq!(
        number(copy, "sm__cycles_elapsed.avg.per_second"),
        1_979_619_000.0
    );
    assert_eq!(unit(copy, "sm__cycles_elapsed.avg.per_second"), "hz");
    assert_eq!(
        number(copy, "lts__lts2xbar_cycles_active.avg.per_second"),
        500_552_349.0
    );
    assert_eq!(
        number(copy, "lts__t_sectors_data_ecc.sum.per_second"),
        44_164.657
    );
    assert_eq!(
        unit(copy, "lts__t_sectors_data_ecc.sum.per_second"),
        "sector/s"
    );
    assert_eq!(number(copy, "profiler__pmsampler_interval_time"), 1_500.0);
    assert_eq!(
        copy.metrics
            .get("sass__inst_executed_register_spilling_mem_local")
            .map(|m| m.value),
        Some(MetricValue::Missing)
    );
    // The export really holds a `nan`: missing, with one warning naming it.
    assert_eq!(
        copy.metrics.get("derived_tempMetric4").map(|m| m.value),
        Some(MetricValue::Missing)
    );
    let [nan] = export.warnings.as_slice() else {
        panic!("expected one warning, got {:?}", export.warnings);
    };
    assert_eq!(nan.line, Some(3));
    assert!(nan.message.contains("derived_tempMetric4"), "{nan}");
}

#[test]
fn gui_export_reformatted_from_the_raw_fixture() {
    let export = ok(GUI_RAW);
    assert_eq!(export.page, Page::GuiRaw);
    let [copy] = export.launches.as_slice() else {
        panic!("expected 1 launch, got {}", export.launches.len());
    };
    let raw = ok(FULL_RAW);
    let cli = &raw.launches[0];
    assert_eq!(copy.id, 0);
    assert_eq!(&*copy.function, "copy");
    assert_eq!(copy.site.demangled.as_deref(), Some("copy"));
    assert_eq!(copy.site.process_id, Some(714));
    assert_eq!(copy.site.grid, Some([1056, 1, 1]));
    assert_eq!(copy.site.block, Some([256, 1, 1]));
    assert_eq!(copy.site.cc.as_deref(), Some("9.0"));
    // Every metric of the GUI file has the raw page's value and unit after normalization.
    let mut compared = 0;
    for (name, metric) in &copy.metrics {
        if let Some(expected) = cli.metrics.get(name) {
            assert_eq!(metric, expected, "{name}");
            compared += 1;
        }
    }
    assert!(compared >= 20, "only {compared} metrics compared");
    assert_eq!(number(copy, "dram__bytes_read.sum"), 4_295_008_000.0);
    assert_eq!(number(copy, "gpu__time_duration.sum"), 2_852_960.0);
    assert_eq!(number(copy, "launch__grid_size"), 1_056.0);
    match copy
        .metrics
        .get("breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed")
    {
        Some(m) => assert!(
            matches!(&m.value, MetricValue::Text(t) if t.contains("sm__inst_executed")),
            "{m:?}"
        ),
        None => panic!("breakdown line missing"),
    }
    assert_eq!(
        copy.metrics.get("Device Name").map(|m| m.value),
        Some(MetricValue::Text("NVIDIA H200".to_owned()))
    );
}

#[test]
fn combine_joins_raw_and_details_of_one_run() {
    let raw = ok(FULL_RAW);
    let details = ok(FULL_DETAILS);
    let (launches, warnings) = combine(vec![raw, details]);
    let [copy] = launches.as_slice() else {
        panic!("expected 1 launch, got {}", launches.len());
    };
    assert_eq!((copy.id, copy.site.process_id), (0, Some(714)));
    assert_eq!(copy.metrics.len(), 2227);
    assert_eq!((copy.sections.len(), copy.rules.len()), (87, 7));
    assert_eq!(warnings.len(), 1);
}

#[test]
fn combine_keeps_the_ranges_of_the_export_that_has_start_end_ones() {
    use crate::model::artifact::{LaunchSite, NvtxRange, NvtxRanges};
    use std::sync::Arc;
    // A report's launch (push/pop stack only) and the same launch from a CSV page (its
    // start/end range too), in either order.
    let range = |id, name: &str| NvtxRange {
        id,
        domain: None,
        name: name.to_owned(),
    };
    let push_pop = NvtxRanges {
        thread: Some(6020),
        push_pop: vec![range(None, "step")],
        start_end: Vec::new(),
    };
    let both = NvtxRanges {
        start_end: vec![range(Some(0), "measure")],
        ..push_pop.clone()
    };
    let launch = |nvtx: &NvtxRanges, page| Export {
        page,
        launches: vec![LaunchCounters {
            site: Arc::new(LaunchSite {
                process_id: Some(1),
                nvtx: Some(Arc::new(nvtx.clone())),
                ..LaunchSite::default()
            }),
            function: "k".into(),
            ..LaunchCounters::default()
        }],
        warnings: Vec::new(),
    };
    for (a, b) in [(&push_pop, &both), (&both, &push_pop)] {
        let (launches, _) = combine(vec![launch(a, Page::Raw), launch(b, Page::Details)]);
        let [joined] = launches.as_slice() else {
            panic!("expected 1 launch, got {}", launches.len());
        };
        assert_eq!(joined.site.nvtx.as_deref(), Some(&both));
    }
}

#[test]
fn combine_keeps_first_seen_order_for_many_launches() {
    let make = |process_id, id| LaunchCounters {
        id,
        site: std::sync::Arc::new(crate::model::artifact::LaunchSite {
            process_id: Some(process_id),
            ..Default::default()
        }),
        function: format!("k{id}").into(),
        ..LaunchCounters::default()
    };
    let first = Export {
        page: Page::Raw,
        launches: (0..10_000).map(|i| make(1, i)).collect(),
        warnings: Vec::new(),
    };
    // The same launches in reverse, plus a second process with the same IDs.
    let second = Export {
        page: Page::Details,
        launches: (0..10_000)
            .rev()
            .map(|i| make(1, i))
            .chain((0..3).map(|i| make(2, i)))
            .collect(),
        warnings: Vec::new(),
    };
    let (launches, _) = combine(vec![first, second]);
    assert_eq!(launches.len(), 10_003);
    assert!(launches
        .iter()
        .take(10_000)
        .enumerate()
        .all(|(i, l)| l.id == i as u64));
    assert_eq!(launches[10_000].site.process_id, Some(2));
}

#[test]
fn several_launches_processes_and_devices() {
    let lines = csv_lines(METRICS_RAW_STDOUT);
    let (header, units, copy) = (lines[0], lines[1], lines[2]);
    let again = copy.replacen("\"0\",\"656\"", "\"2\",\"656\"", 1);
    let other_process = copy.replacen("\"0\",\"656\"", "\"0\",\"657\"", 1).replacen(
        "\"0\",\"9.0\"",
        "\"1\",\"9.0\"",
        1,
    );
    let text = [header, units, copy, &again, &other_process].join("\n");
    let export = ok(&text);
    let keys: Vec<_> = export
        .launches
        .iter()
        .map(|l| (l.site.process_id, l.id, l.site.device))
        .collect();
    assert_eq!(
        keys,
        vec![
            (Some(656), 0, Some(0)),
            (Some(656), 2, Some(0)),
            (Some(657), 0, Some(1)),
        ]
    );
    assert!(export.launches.iter().all(|l| &*l.function == "copy"));
}

#[test]
fn details_rows_of_a_launch_gather_even_when_apart() {
    let lines = csv_lines(SECTIONS_DETAILS_STDOUT);
    let other: Vec<String> = lines[1..4]
        .iter()
        .map(|l| l.replacen("\"0\",\"833\"", "\"1\",\"833\"", 1))
        .collect();
    // launch 0 (rows 1-10), launch 1 (3 rows), launch 0 again (the rest).
    let mut text: Vec<&str> = lines[..11].to_vec();
    text.extend(other.iter().map(String::as_str));
    text.extend(&lines[11..]);
    let export = ok(&text.join("\n"));
    let keys: Vec<_> = export
        .launches
        .iter()
        .map(|l| (l.id, l.sections.len()))
        .collect();
    assert_eq!(keys, vec![(0, 52), (1, 3)]);
    // Streaming hands launch 0 on in two pieces, which combine() joins.
    let mut pieces = Vec::new();
    let summary = read_export_with(text.join("\n").as_bytes(), |l| pieces.push(l)).expect("loads");
    assert_eq!((summary.page, summary.launches), (Page::Details, 3));
    let (joined, _) = combine(vec![Export {
        page: summary.page,
        launches: pieces,
        warnings: summary.warnings,
    }]);
    assert_eq!(joined, export.launches);
}

#[test]
fn streaming_hands_on_each_raw_launch() {
    let mut functions = Vec::new();
    let summary = read_export_with(METRICS_RAW_STDOUT.as_bytes(), |l| {
        functions.push(l.function.to_string())
    })
    .expect("loads");
    assert_eq!(functions, ["copy", "fma_loop"]);
    assert_eq!((summary.page, summary.launches), (Page::Raw, 2));
    assert_eq!(summary.warnings, ok(METRICS_RAW_STDOUT).warnings);
}

#[test]
fn older_headline_names_load_beside_current_ones() {
    // Older ncu versions named the Speed-of-Light headlines `Compute (SM) [%]` and
    // `Memory [%]`; an export may hold both spellings. They are section metrics like any other.
    let lines = csv_lines(SECTIONS_DETAILS_STDOUT);
    let compute = lines
        .iter()
        .find(|l| l.contains("\"Compute (SM) Throughput\""))
        .expect("compute row")
        .replace(
            "\"Compute (SM) Throughput\",\"%\"",
            "\"Compute (SM) [%]\",\"\"",
        );
    let memory = lines
        .iter()
        .find(|l| l.contains("\"Memory Throughput\",\"%\""))
        .expect("memory row")
        .replace("\"Memory Throughput\",\"%\"", "\"Memory [%]\",\"\"");
    let mut text: Vec<&str> = lines.clone();
    text.insert(2, &compute);
    text.insert(3, &memory);
    let export = ok(&text.join("\n"));
    let copy = &export.launches[0];
    assert_eq!(
        section(copy, SOL, "Compute (SM) [%]").value,
        MetricValue::Number(18.0)
    );
    assert_eq!(
        section(copy, SOL, "Memory [%]").value,
        MetricValue::Number(62.4)
    );
    assert_eq!(
        section(copy, SOL, "Memory Throughput").value,
        MetricValue::Number(62.4)
    );
    assert_eq!(copy.sections.len(), 54);
}

// ---- Error cases and damaged inputs ----

#[test]
fn empty_and_blank_inputs() {
    assert_eq!(read(""), Err(NcuError::Empty));
    assert_eq!(read("  \n\t\r\n\n"), Err(NcuError::Empty));
}

#[test]
fn binary_input() {
    assert_eq!(
        read_export(&b"NVPROF\0\x01\x02\xff\xfe"[..]),
        Err(NcuError::Binary { line: 1 })
    );
    assert_eq!(
        read_export(&b"\"ID\",\"Kernel Name\"\n\xc3\x28 bad utf-8"[..]),
        Err(NcuError::Binary { line: 2 })
    );
}

#[test]
fn plain_csv_is_not_an_export() {
    let err = read("a,b\n1,2\n").expect_err("not an export");
    assert_eq!(
        err,
        NcuError::NotAnExport {
            line: 1,
            found: "a,b".to_owned()
        }
    );
    let message = err.to_string();
    assert!(
        message.starts_with("line 1: not an Nsight Compute CSV export"),
        "{message}"
    );
    assert!(message.contains("Kernel Name"), "{message}");
    // A quoted CSV of something else, after some blank lines.
    assert_eq!(
        read("\n\n\"name\",\"value\"\n\"x\",\"1\"\n"),
        Err(NcuError::NotAnExport {
            line: 3,
            found: "\"name\",\"value\"".to_owned()
        })
    );
}

#[test]
fn ncu_error_without_export() {
    let text = "==PROF== Connected to process 1\n\
                ==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n";
    assert_eq!(
        read(text),
        Err(NcuError::Profiler {
            line: 2,
            message: "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission".to_owned()
        })
    );
}

#[test]
fn header_without_rows() {
    let lines = csv_lines(METRICS_RAW_STDOUT);
    assert_eq!(
        read(lines[0]),
        Err(NcuError::NoRows {
            line: 1,
            why: String::new()
        })
    );
    // Header and units row, no launch.
    let text = format!("{}\n{}\n", lines[0], lines[1]);
    assert_eq!(
        read(&text),
        Err(NcuError::NoRows {
            line: 1,
            why: String::new()
        })
    );
    let details = csv_lines(FULL_DETAILS);
    assert_eq!(
        read(&format!("==PROF== x\n{}\n", details[0])),
        Err(NcuError::NoRows {
            line: 2,
            why: String::new()
        })
    );
}

#[test]
fn raw_export_cut_in_the_last_row() {
    // Cut in the middle of fma_loop's row (line 12 of the file), inside a quoted value.
    let cut = METRICS_RAW_STDOUT.len() - 200;
    let text = &METRICS_RAW_STDOUT[..cut];
    assert!(text.ends_with(|c: char| c != '"'));
    let export = ok(text);
    assert_eq!(export.launches.len(), 1);
    assert_eq!(&*export.launches[0].function, "copy");
    let cut_warning = export
        .warnings
        .iter()
        .find(|w| w.message.contains("truncated"))
        .expect("a truncation warning");
    assert_eq!(cut_warning.line, Some(12));
    // Cut between two fields: the row is short.
    let at_field = METRICS_RAW_STDOUT[..cut]
        .rfind("\",\"")
        .expect("a field boundary")
        + 1;
    let export = ok(&METRICS_RAW_STDOUT[..at_field]);
    assert_eq!(export.launches.len(), 1);
    let short = export
        .warnings
        .iter()
        .find(|w| w.line == Some(12))
        .expect("a warning for line 12");
    assert!(short.message.contains("fields"), "{short}");
}

#[test]
fn details_export_cut_in_the_last_row() {
    let lines = csv_lines(SECTIONS_DETAILS_STDOUT);
    let last = lines[lines.len() - 1];
    let cut_row = &last[..last.len() - 4]; // inside the quoted value "62.93"
    let text = format!("{}\n{}", lines[..lines.len() - 1].join("\n"), cut_row);
    let export = ok(&text);
    let copy = &export.launches[0];
    assert_eq!(copy.sections.len(), 51);
    assert_eq!(export.warnings.len(), 1);
    assert_eq!(export.warnings[0].line, Some(lines.len() as u64));
}

#[test]
fn unknown_section_loads_with_one_warning() {
    let lines = csv_lines(SECTIONS_DETAILS_STDOUT);
    let mut rows: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    for row in rows.iter_mut().skip(24).take(3) {
        *row = row.replace("\"Launch Statistics\"", "\"Invented Section\"");
    }
    let export = ok(&rows.join("\n"));
    let copy = &export.launches[0];
    assert_eq!(copy.sections.len(), 52);
    let invented: Vec<_> = copy
        .sections
        .iter()
        .filter(|s| s.section == "Invented Section")
        .collect();
    assert_eq!(invented.len(), 3);
    let [warning] = export.warnings.as_slice() else {
        panic!("expected one warning, got {:?}", export.warnings);
    };
    assert_eq!(warning.line, Some(25));
    assert!(warning.message.contains("Invented Section"), "{warning}");
}

#[test]
fn missing_values() {
    let lines = csv_lines(FULL_DETAILS);
    let row = lines
        .iter()
        .find(|l| l.contains("\"Memory Throughput\",\"%\""))
        .expect("a row");
    let na = row.replace("\"62.43\"", "\"n/a\"");
    let no_data = row.replace("\"62.43\"", "\"no data\"");
    let empty = row.replace("\"62.43\"", "\"\"");
    let text = [lines[0], &na, &no_data, &empty].join("\n");
    let export = ok(&text);
    let values: Vec<_> = export.launches[0]
        .sections
        .iter()
        .map(|s| s.value.clone())
        .collect();
    assert_eq!(values, vec![MetricValue::Missing; 3]);
    assert!(export.warnings.is_empty());
}

#[test]
fn very_long_kernel_name() {
    let name = format!(
        "void at::native::elementwise_kernel<128, 4, {}>(int, T3)",
        "at::native::gpu_kernel_impl<at::native::CUDAFunctor_add<float>, (int)1>(\
         at::TensorIteratorBase &, const T1 &)::[lambda(int) (instance 1)], "
            .repeat(80)
    );
    assert!(name.len() > 10_000);
    let quoted = format!("\"{name}\"");
    let raw: Vec<String> = csv_lines(METRICS_RAW_STDOUT)
        .iter()
        .map(|l| l.replacen("\"copy\"", &quoted, 1))
        .collect();
    let export = ok(&raw.join("\n"));
    assert_eq!(&*export.launches[0].function, name);
    assert_eq!(&*export.launches[1].function, "fma_loop");
    let details: Vec<String> = csv_lines(SECTIONS_DETAILS_STDOUT)
        .iter()
        .map(|l| l.replacen("\"copy\"", &quoted, 1))
        .collect();
    let export = ok(&details.join("\n"));
    assert_eq!(export.launches.len(), 1);
    assert_eq!(&*export.launches[0].function, name);
}

#[test]
fn crlf_line_endings() {
    let crlf = METRICS_RAW_STDOUT.replace('\n', "\r\n");
    let export = ok(&crlf);
    assert_eq!(export.launches.len(), 2);
    assert_eq!(
        number(
            &export.launches[1],
            "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum"
        ),
        35_433_480_192.0
    );
    assert_eq!(export.launches[1].site.cc.as_deref(), Some("9.0"));
    // Line numbers still count original lines.
    let cut = &crlf[..crlf.len() - 200];
    let export = ok(cut);
    assert!(
        export.warnings.iter().any(|w| w.line == Some(12)),
        "{:?}",
        export.warnings
    );
}

#[test]
fn byte_order_mark_before_a_raw_header() {
    let text = format!("\u{feff}{}", csv_lines(METRICS_RAW_STDOUT).join("\n"));
    let export = ok(&text);
    assert_eq!(export.launches.len(), 2);
    assert!(export.warnings.is_empty(), "{:?}", export.warnings);
}

#[test]
fn semicolon_separated_export() {
    let text = csv_lines(SECTIONS_DETAILS_STDOUT)
        .iter()
        .map(|l| l.replace("\",\"", "\";\"").replace("\",", "\";"))
        .collect::<Vec<_>>()
        .join("\n");
    let export = ok(&text);
    let copy = &export.launches[0];
    assert_eq!(copy.sections.len(), 52);
    assert_eq!(
        section(copy, SOL, "SM Frequency").value,
        MetricValue::Number(1_979_211_608.87)
    );
}

#[test]
fn program_output_between_rows_and_after() {
    let lines = csv_lines(METRICS_RAW_STDOUT);
    let text = format!(
        "{}\n{}\n{}\nkernel printed this\n{}\n==PROF== Disconnected\n",
        lines[0], lines[1], lines[2], lines[3]
    );
    let export = ok(&text);
    assert_eq!(export.launches.len(), 2);
    let [warning] = export.warnings.as_slice() else {
        panic!("expected one warning, got {:?}", export.warnings);
    };
    assert_eq!(warning.line, Some(4));
    assert!(warning.message.contains("skipped 2 lines"), "{warning}");
}

#[test]
fn never_panics_on_random_inputs() {
    // A small deterministic generator over the bytes that matter to the reader.
    let alphabet = b"\"\",;\n\r ID Kernel Name1,0.5e9n/a==PROF==[us]\xef\xbb\xbf";
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let header = csv_lines(SECTIONS_DETAILS_STDOUT)[0];
    for round in 0..300 {
        let len = (next() % 400) as usize;
        let mut input: Vec<u8> = if round % 2 == 0 {
            format!("{header}\n").into_bytes()
        } else {
            Vec::new()
        };
        input.extend((0..len).map(|_| alphabet[(next() % alphabet.len() as u64) as usize]));
        let _ = read_export(input.as_slice());
    }
}

#[test]
fn never_panics_on_damaged_inputs() {
    let sources = [METRICS_RAW_STDOUT, SECTIONS_DETAILS_STDOUT, GUI_RAW];
    for source in sources {
        // Every prefix length at a coarse stride, and a few byte flips.
        let bytes = source.as_bytes();
        for cut in (0..bytes.len()).step_by(97) {
            let _ = read_export(&bytes[..cut]);
        }
        for at in (0..bytes.len()).step_by(101) {
            let mut damaged = bytes.to_vec();
            damaged[at] = b'"';
            let _ = read_export(damaged.as_slice());
            damaged[at] = b'\n';
            let _ = read_export(damaged.as_slice());
        }
    }
}

/// Rows whose short fields' digits are read ahead on every `every`-th row only (0: never),
/// as capture's splitting thread switches between reading them and leaving them to the
/// reader of the rows.
struct Switching<'a> {
    rows: Rows<&'a [u8]>,
    every: usize,
    n: usize,
}

impl RowStream for Switching<'_> {
    fn next_row(&mut self) -> Option<Result<Row, NcuError>> {
        self.n += 1;
        self.rows
            .read_digits(self.every != 0 && self.n.is_multiple_of(self.every));
        self.rows.next_row()
    }

    fn recycle(&mut self, row: Row) {
        self.rows.recycle(row);
    }
}

fn read_switching(text: &str, every: usize) -> Export {
    let rows = Rows::open(text.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
    let header = rows.header().clone();
    let mut stream = Switching { rows, every, n: 0 };
    let mut launches = Launches::default();
    let read = read_rows(&header, &mut stream, &mut |page, launch| {
        launches.push(page, launch);
    })
    .unwrap_or_else(|e| panic!("{e}"));
    let summary = read
        .finish(stream.rows.skipped_warning())
        .unwrap_or_else(|e| panic!("{e}"));
    launches.into_export(summary)
}

/// `text`'s data rows `times` times over, each copy's launch IDs their own, and in every
/// other copy one long and one short cell of each row changed.
fn repeated_rows(text: &str, times: usize) -> String {
    let mut lines = text.lines();
    let (Some(header), Some(units)) = (lines.next(), lines.next()) else {
        panic!("no header");
    };
    let data: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
    let mut out = format!("{header}\n{units}\n");
    for copy in 0..times {
        for (n, row) in data.iter().enumerate() {
            let mut fields: Vec<String> = row.split("\",\"").map(str::to_owned).collect();
            if let Some(id) = fields.first_mut() {
                *id = format!("\"{}", copy * data.len() + n);
            }
            if copy % 2 == 1 {
                for field in fields.iter_mut().skip(11) {
                    if field.len() >= 8 && field.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
                        field.push('1');
                        break;
                    }
                }
                for field in fields.iter_mut().skip(11) {
                    if (1..4).contains(&field.len()) && field.bytes().all(|b| b.is_ascii_digit()) {
                        field.push('7');
                        break;
                    }
                }
            }
            out.push_str(&fields.join("\",\""));
            out.push('\n');
        }
    }
    out
}

#[test]
fn digits_read_ahead_or_not_and_cells_taken_from_an_earlier_row_read_the_same() {
    let gemms = include_str!("../../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
    let resnet = include_str!("../../../../tests/fixtures/ncu-h200-torch/resnet18_full_raw.csv");
    let gpt2 = include_str!("../../../../tests/fixtures/ncu-h200-torch/gpt2_bf16_profile_raw.csv");
    for (name, text) in [
        ("probe", repeated_rows(FULL_RAW, 6)),
        ("gemms", repeated_rows(gemms, 3)),
        ("resnet18", resnet.to_owned()),
        ("gpt2", gpt2.to_owned()),
    ] {
        let plain = ok(&text);
        assert!(plain.launches.len() > 1, "{name}");
        for every in [0, 1, 2, 3] {
            let other = read_switching(&text, every);
            assert_eq!(other.launches.len(), plain.launches.len(), "{name}");
            for (a, b) in plain.launches.iter().zip(&other.launches) {
                assert_eq!(
                    a.metrics.json_array(None),
                    b.metrics.json_array(None),
                    "{name}, launch {}, digits read every {every} rows",
                    a.id
                );
                assert_eq!(a, b, "{name}, launch {}", a.id);
            }
            assert_eq!(other.warnings, plain.warnings, "{name}");
        }
        // Each launch reads as its row alone reads, with no earlier row to take cells from.
        let mut lines = text.lines();
        let (Some(header), Some(units)) = (lines.next(), lines.next()) else {
            panic!("{name}: no header");
        };
        let rows: Vec<&str> = lines.filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(rows.len(), plain.launches.len(), "{name}");
        for (row, launch) in rows.iter().zip(&plain.launches) {
            let alone = ok(&format!("{header}\n{units}\n{row}\n"));
            let [one] = alone.launches.as_slice() else {
                panic!("{name}: one launch expected");
            };
            assert_eq!(
                one.metrics.json_array(None),
                launch.metrics.json_array(None),
                "{name}, launch {}",
                launch.id
            );
        }
    }
}

/// `text` read by [`Reading`] in steps of `rows` rows, with how many steps it took and the
/// input left unread before each step (never growing, none at the end).
fn read_in_steps(text: &str, rows: usize) -> (Result<Export, NcuError>, usize) {
    let mut reading = match Reading::open(text.as_bytes()) {
        Ok(reading) => reading,
        Err(e) => return (Err(e), 0),
    };
    let mut steps = 0;
    let mut left = reading.input().len();
    loop {
        steps += 1;
        match reading.step(rows) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => return (Err(e), steps),
        }
        assert!(reading.input().len() <= left, "the input left grew");
        left = reading.input().len();
    }
    assert_eq!(reading.input().len(), 0, "input left at the end");
    (reading.finish(), steps)
}

#[test]
fn a_read_in_steps_of_any_size_is_the_read_at_once() {
    let cut = &FULL_RAW[..FULL_RAW.len() - 200];
    let no_units = {
        let lines = csv_lines(METRICS_RAW_STDOUT);
        format!("{}\n{}\n", lines[0], lines[2])
    };
    let repeated = repeated_rows(FULL_RAW, 5);
    for (name, text) in [
        ("raw with program output", METRICS_RAW_STDOUT),
        ("details with program output", SECTIONS_DETAILS_STDOUT),
        ("full details", FULL_DETAILS),
        ("gui", GUI_RAW),
        ("repeated full raw", repeated.as_str()),
        ("cut in the last row", cut),
        ("no units row", no_units.as_str()),
        ("empty", ""),
    ] {
        let whole = read(text);
        for rows in [1, 2, 3, 7] {
            let (stepped, steps) = read_in_steps(text, rows);
            assert_eq!(stepped, whole, "{name}, {rows} rows a step");
            if let Ok(export) = &whole {
                // Rows, not launches: details pages have many a launch.
                let min_steps = export.launches.len() / rows;
                assert!(steps > min_steps, "{name}: {steps} steps of {rows}");
            }
        }
    }
    // Files cut anywhere, or with a quote or line end where it should not be, read the
    // same in steps as at once, errors and warnings included.
    for source in [METRICS_RAW_STDOUT, SECTIONS_DETAILS_STDOUT, GUI_RAW] {
        let bytes = source.as_bytes();
        let mut inputs: Vec<Vec<u8>> = (0..bytes.len())
            .step_by(211)
            .map(|cut| bytes[..cut].to_vec())
            .collect();
        for at in (0..bytes.len()).step_by(307) {
            for b in [b'"', b'\n'] {
                let mut damaged = bytes.to_vec();
                damaged[at] = b;
                inputs.push(damaged);
            }
        }
        for input in inputs {
            let text = String::from_utf8_lossy(&input);
            let (stepped, _) = read_in_steps(&text, 2);
            assert_eq!(stepped, read(&text));
        }
    }
}
