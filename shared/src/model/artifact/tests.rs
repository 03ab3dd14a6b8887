//! Tests of the artifact: reading, writing and the two writing paths agreeing, on real
//! exports and on small sets built to hit each case.

use std::sync::Arc;

use serde::Serialize;

use super::write::{json, ValuesSer};
use super::*;
use crate::error::ArtifactError;
use crate::model::work_kind::Work;

#[test]
fn raw_value_arrays_are_what_the_per_element_path_writes() {
    // Text, missing and every kind of number: a real full-set row, and the gemm rows.
    for csv in [
        include_str!("../../../../tests/fixtures/ncu-h200/probe_full_raw.csv"),
        include_str!("../../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv"),
    ] {
        let export = crate::read::ncu::read_export(csv.as_bytes()).expect("reads");
        let artifact = crate::analysis::merge::import_launches(
            export.launches,
            export.warnings,
            Provenance::default(),
        );
        let raw = artifact.to_json();
        let mut out = Vec::new();
        let mut ser =
            serde_json::Serializer::with_formatter(&mut out, json::ObjectsIndented::new());
        artifact.serialize(&mut ser).expect("serializes");
        out.push(b'\n');
        assert!(raw.as_bytes() == out.as_slice(), "the two paths differ");
        assert!(raw.contains("\"PolicySpread\"") && raw.contains("null"));
    }
}

#[test]
fn varying_columns_worked_out_ahead_write_what_each_set_works_out() {
    use MetricValue::{Missing, Number as N, Text};
    let t = |s: &str| Text(s.into());
    let of = |cold: &[[MetricValue; 4]], warm: &[[MetricValue; 4]]| {
        let mut a = artifact_of(set_of(cold));
        a.kernels[0].warm = Some(Box::new(set_of(warm)));
        a
    };
    let artifact = of(
        &[
            [N(1.0), t("all"), N(5.0), Missing],
            [N(1.0), t("all"), N(6.0), N(2.0)],
        ],
        &[
            [N(1.0), t("x"), N(5.0), N(3.0)],
            [N(2.0), t("y"), N(5.0), N(3.0)],
        ],
    );
    let other = of(
        &[
            [N(1.0), N(2.0), N(3.0), N(4.0)],
            [N(1.0), N(2.0), N(3.0), N(5.0)],
        ],
        &[[N(1.0), N(2.0), N(3.0), N(4.0)]],
    );
    let own = artifact.varying_columns();
    assert_eq!(format!("{own:?}"), "{0: [2, 3], 1: [0, 1]}");
    let plain = artifact.to_json();
    assert!(plain.contains("\"varying_columns\": [0,1]"), "{plain}");
    // Its own lists give the same bytes; another artifact's are not used, so they do too.
    for varying in [own, other.varying_columns()] {
        let arrays: Vec<Option<Vec<u32>>> = artifact
            .value_arrays(&varying)
            .map(|(_, only)| only.as_deref().map(<[u32]>::to_vec))
            .collect();
        let want = [vec![2, 3], vec![2, 3], vec![0, 1], vec![0, 1]];
        assert_eq!(arrays, want.map(Some), "{varying:?}");
        // The source is asked for every array, in that order.
        let asked = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let seen = std::rc::Rc::clone(&asked);
        let source: ArraySource = Box::new(move |i, m, only, buf| {
            seen.borrow_mut().push(i);
            *buf = m.json_array(only);
        });
        let mut out = Vec::new();
        artifact
            .write_json_with(&mut out, source, &varying)
            .expect("writes");
        assert!(out == plain.as_bytes(), "{varying:?}");
        assert_eq!(*asked.borrow(), [0, 1, 2, 3]);
    }
}

#[test]
fn the_writer_writes_what_the_derived_serializers_write() {
    // The writer names the fields of the artifact and of a kernel itself: every field,
    // the optional ones present and absent, must come out as the derived code writes it.
    use MetricValue::Number as N;
    let mut artifact = artifact_of(set_of(&[
        [N(1.0), N(2.0), N(3.0), N(4.0)],
        [N(1.0), N(2.0), N(3.0), N(5.0)],
    ]));
    let mut second = artifact.kernels[0].clone();
    second.name = "second".into();
    second.cold = None;
    second.warm = Some(Box::new(set_of(&[[N(1.0), N(2.0), N(3.0), N(4.0)]])));
    // Counts that are the launches' (the reader checks them: issue 39).
    second.sampled = Some(Box::new(SampledCount {
        measured: 1,
        launches: 1,
    }));
    second.source_file = Some("kernels/x.cu".into());
    artifact.kernels.push(second);
    artifact.warnings.push("a warning".into());
    for sampled in [
        None,
        Some(Sampled {
            measured: 3,
            launches: 3,
            groups: 1,
            timing_launches: 4,
        }),
    ] {
        artifact.sampled = sampled;
        let mut out = Vec::new();
        let mut ser =
            serde_json::Serializer::with_formatter(&mut out, json::ObjectsIndented::new());
        artifact.serialize(&mut ser).expect("serializes");
        out.push(b'\n');
        let written = artifact.to_json();
        assert!(written.as_bytes() == out.as_slice(), "{written}");
        // The second kernel's `sampled`, and the artifact's when it has one.
        let objects = written.matches("\"sampled\": {").count();
        assert_eq!(
            objects,
            1 + usize::from(artifact.sampled.is_some()),
            "{written}"
        );
        assert_eq!(Artifact::from_json(&written).expect("reads"), artifact);
    }
}

/// A counter set of `values.len()` launches of one export: columns `a` to `d`.
fn set_of(values: &[[MetricValue; 4]]) -> CounterSet {
    let columns = MetricColumns::new(
        ["a", "b", "c", "d"]
            .iter()
            .map(|n| MetricKey {
                name: (*n).into(),
                unit: "byte".into(),
            })
            .collect(),
    );
    let launches = values
        .iter()
        .enumerate()
        .map(|(id, row)| {
            let mut metrics = Metrics::with_columns(Arc::clone(&columns));
            for (i, v) in row.iter().enumerate() {
                metrics.set(i, v.clone());
            }
            LaunchCounters {
                id: id as u64,
                function: "k".into(),
                metrics,
                ..Default::default()
            }
        })
        .collect();
    CounterSet::of(launches)
}

fn artifact_of(set: CounterSet) -> Artifact {
    let mut a = Artifact::new(Provenance::default());
    a.kernels.push(KernelRecord {
        cold: Some(set),
        ..KernelRecord::new("k", "k")
    });
    a
}

#[test]
fn values_the_same_in_every_launch_are_written_once() {
    use MetricValue::{Missing, Number as N, Text};
    let t = |s: &str| Text(s.into());
    let set = set_of(&[
        [N(1.0), t("all"), N(5.0), Missing],
        [N(1.0), t("all"), N(6.0), N(2.0)],
        [N(1.0), t("all"), N(7.0), Missing],
    ]);
    assert_eq!(set.varying_columns(), Some(vec![2, 3]));
    let a = artifact_of(set);
    let text = a.to_json();
    assert!(text.contains("\"varying_columns\": [2,3]"), "{text}");
    assert!(
        text.contains("\"constant_values\": [1.0,\"all\"]"),
        "{text}"
    );
    assert!(text.contains("\"metrics\": [6.0,2.0]"), "{text}");
    let back = Artifact::from_json(&text).expect("loads");
    assert_eq!(back, a);
    assert_eq!(
        back.kernels[0]
            .cold
            .as_ref()
            .map(|s| s.launches[1].metrics.get("b")),
        Some(Some(Metric {
            unit: "byte".into(),
            value: t("all")
        }))
    );
    assert_eq!(back.to_json(), text, "writes again the same");
    // One launch, or nothing the same in all: every launch lists every column.
    for values in [
        vec![[N(1.0), N(2.0), N(3.0), N(4.0)]],
        vec![
            [N(1.0), N(2.0), N(3.0), N(4.0)],
            [N(2.0), N(3.0), N(4.0), N(5.0)],
        ],
    ] {
        let set = set_of(&values);
        assert_eq!(set.varying_columns(), None);
        let text = artifact_of(set).to_json();
        assert!(!text.contains("varying_columns"), "{text}");
    }
    // Identical launches: nothing varies, each lists nothing.
    let row = [N(1.0), N(2.0), Missing, t("x")];
    let same = artifact_of(set_of(&[row.clone(), row.clone(), row]));
    let text = same.to_json();
    assert!(text.contains("\"varying_columns\": []"), "{text}");
    assert_eq!(Artifact::from_json(&text).expect("loads"), same);
}

#[test]
fn broken_constant_values_are_errors() {
    use MetricValue::Number as N;
    let text = artifact_of(set_of(&[
        [N(1.0), N(2.0), N(5.0), N(0.0)],
        [N(1.0), N(2.0), N(6.0), N(0.0)],
    ]))
    .to_json();
    assert!(text.contains("\"varying_columns\": [2]"), "{text}");
    for (from, to) in [
        ("\"varying_columns\": [2]", "\"varying_columns\": [2,1]"),
        ("\"varying_columns\": [2]", "\"varying_columns\": [9]"),
        ("\"varying_columns\": [2]", "\"varying_columns\": [2,2]"),
        (
            "\"constant_values\": [1.0,2.0,0.0]",
            "\"constant_values\": [1,2,3,4]",
        ),
        ("\"metrics\": [6.0]", "\"metrics\": [6.0,7.0]"),
        ("\"constant_values\": [1.0,2.0,0.0],", ""),
    ] {
        assert!(text.contains(from), "{from}");
        let broken = text.replace(from, to);
        assert!(Artifact::from_json(&broken).is_err(), "{to}");
    }
    // Fewer values than columns: an array cut short, refused (it turned FLOPs into missing
    // figures silently before issue 39).
    let short = text.replace(
        "\"constant_values\": [1.0,2.0,0.0]",
        "\"constant_values\": [1.0]",
    );
    let err = Artifact::from_json(&short).expect_err("refused");
    assert!(
        err.to_string()
            .contains("1 constant_values for 3 columns not varying (an array cut short"),
        "{err}"
    );
}

#[test]
fn value_arrays_come_in_the_order_they_are_written() {
    let csv = include_str!("../../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
    let export = crate::read::ncu::read_export(csv.as_bytes()).expect("reads");
    let artifact = crate::analysis::merge::import_launches(
        export.launches,
        export.warnings,
        Provenance::default(),
    );
    let varying = artifact.varying_columns();
    let order: Vec<usize> = artifact
        .value_arrays(&varying)
        .map(|(m, _)| m as *const Metrics as usize)
        .collect();
    assert_eq!(order.len(), 6);
    let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let log = std::rc::Rc::clone(&seen);
    let mut out = Vec::new();
    artifact
        .write_json_with(
            &mut out,
            Box::new(move |i, m, only, buf| {
                log.borrow_mut().push((i, m as *const Metrics as usize));
                *buf = m.json_array(only);
            }),
            &varying,
        )
        .expect("writes");
    let expected: Vec<(usize, usize)> = order.into_iter().enumerate().collect();
    assert_eq!(*seen.borrow(), expected);
    assert!(out == artifact.to_json().into_bytes());
}

#[test]
fn committed_schema_is_current() {
    let committed = include_str!("../../../schema/artifact.schema.json");
    assert!(
        committed == Artifact::json_schema(),
        "shared/schema/artifact.schema.json is stale: regenerate it with \
         `cargo run -p capture -- schema > shared/schema/artifact.schema.json`, bump \
         SCHEMA_VERSION if the format changed, and add a CHANGELOG line"
    );
}

#[test]
fn future_schema_is_refused_plainly() {
    let err = Artifact::from_json("{\n  \"kernels\": [],\n  \"schema\": 99}").expect_err("future");
    assert_eq!(
        err,
        ArtifactError::FutureSchema {
            line: 3,
            found: 99,
            supported: SCHEMA_VERSION
        }
    );
    assert!(err.to_string().contains("newer"));
}

#[test]
fn launches_with_other_columns_round_trip_exactly() {
    let key = |name: &str, unit: &str| MetricKey {
        name: name.into(),
        unit: unit.into(),
    };
    let launch = |keys: Vec<MetricKey>, v: f64| {
        let mut metrics = Metrics::with_columns(MetricColumns::new(keys));
        metrics.set(0, MetricValue::Number(v));
        LaunchCounters {
            function: "k".into(),
            metrics,
            ..Default::default()
        }
    };
    let mut a = Artifact::new(Provenance::default());
    a.kernels.push(KernelRecord {
        cold: Some(CounterSet::of(vec![
            launch(vec![key("t", "ns")], 1.0),
            launch(vec![key("t", "sector/ms")], 2.0),
            launch(vec![key("t", "ns"), key("u", "")], 3.0),
        ])),
        ..KernelRecord::new("k", "k")
    });
    let text = a.to_json();
    let back = Artifact::from_json(&text).expect("loads");
    assert_eq!(back, a);
    let launches = &back.kernels[0].cold.as_ref().expect("cold").launches;
    assert_eq!(
        launches[1].metrics.get("t").map(|m| m.unit),
        Some("sector/ms".into())
    );
    assert!(Arc::ptr_eq(
        launches[0].metrics.columns(),
        launches[0].metrics.columns()
    ));
}

#[test]
fn out_of_range_values_are_dropped_with_warnings() {
    let mut a = Artifact::new(Provenance::default());
    let columns = MetricColumns::new(vec![
        MetricKey {
            name: "gpu__time_duration.sum".into(),
            unit: "ns".into(),
        },
        MetricKey {
            name: "dram__bytes_read.sum".into(),
            unit: "byte".into(),
        },
        MetricKey {
            name: "sm__throughput.avg.pct_of_peak_sustained_elapsed".into(),
            unit: "%".into(),
        },
    ]);
    // Three launches: the duration the same in each (written once, and loaded as the
    // row the launches share), the bytes each their own.
    let launches = [1e308, 5.0, 7.0].map(|bytes| {
        let mut metrics = Metrics::with_columns(Arc::clone(&columns));
        metrics.set(0, MetricValue::Number(-2_854_816.0));
        metrics.set(1, MetricValue::Number(bytes));
        metrics.set(2, MetricValue::Number(-0.01));
        LaunchCounters {
            function: "copy".into(),
            metrics,
            ..Default::default()
        }
    });
    a.kernels.push(KernelRecord {
        cold: Some(CounterSet::of(launches.to_vec())),
        ..KernelRecord::new("copy", "copy")
    });
    let text = a.to_json();
    assert!(text.contains("\"varying_columns\": [1]"), "{text}");
    let (back, warnings) = Artifact::from_json_checked(&text).expect("loads");
    let loaded = &back.kernels[0].cold.as_ref().expect("cold").launches;
    for launch in loaded {
        assert_eq!(launch.metrics.number("gpu__time_duration.sum"), None);
    }
    let bytes: Vec<Option<f64>> = loaded
        .iter()
        .map(|l| l.metrics.number("dram__bytes_read.sum"))
        .collect();
    assert_eq!(bytes, [None, Some(5.0), Some(7.0)]);
    let launch = &loaded[0];
    assert_eq!(
        launch
            .metrics
            .number("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
        Some(-0.01),
        "a slightly negative percentage is real"
    );
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    let (duration, bytes) = (&warnings[0], &warnings[1]);
    assert!(
        duration.message.contains("gpu__time_duration.sum")
            && duration.message.contains("negative")
    );
    assert_eq!(duration.field, LoadField::Duration, "a time the gate reads");
    assert!(
        bytes.message.contains("dram__bytes_read.sum") && bytes.message.contains("larger"),
        "{warnings:?}"
    );
    assert_eq!((bytes.kernel, bytes.field), (Some(0), LoadField::Counter));
    assert!(back.warnings.contains(&bytes.message));
}

#[test]
fn non_artifacts_are_refused_with_a_position() {
    let cases = [
        ("", "line 1"),
        ("{\"kernels\": []}", "no numeric \"schema\""),
        ("[1, 2]", "not an artifact: the document is a list"),
        ("null", "not an artifact: the document is null"),
        ("{\"schema\": 3.0}", "its \"schema\" is 3.0"),
        ("\u{feff}{\"kernels\": []}", "no numeric \"schema\""),
        ("{\"schema\": 1,\n \"kernels\": 5}", "line 2"),
        ("\u{0}\u{1}binary", "not a valid artifact"),
    ];
    for (text, want) in cases {
        let err = Artifact::from_json(text).expect_err(text).to_string();
        assert!(err.contains(want), "{text:?}: {err}");
    }
}

#[test]
fn minimal_artifact_with_absent_optional_fields_loads_and_round_trips() {
    let text = r#"{"schema": 1, "provenance": {"tool": "x", "tool_version": "0", "origin": null},
                   "kernels": [{"name": "k", "function": "k"}]}"#;
    let a = Artifact::from_json(text).expect("optional fields may be absent");
    assert_eq!(a.kernels.len(), 1);
    assert!(a.kernels[0].cold.is_none() && a.device.is_none());
    let again = Artifact::from_json(&a.to_json()).expect("round trip");
    assert_eq!(a, again);
}

#[test]
fn schema_2_artifacts_load_and_tensor_ceilings_round_trip() {
    // A schema-2 run: FP32 ceilings only, asked precisions of the old three.
    let old = r#"{"schema": 2, "provenance": {"tool": "capture", "tool_version": "0.1.0"},
        "ceilings": {"copy_gbyte_per_s": 4272.0, "fma_gflop_per_s": 64000.0,
                     "measurements": []},
        "kernels": [{"name": "pair", "function": "horner64_f64",
                     "asked": {"bytes": 16.0, "flops": 128.0, "precision": "fp64"}}]}"#;
    let a = Artifact::from_json(old).expect("schema 2 loads");
    let c = a.ceilings.as_ref().expect("ceilings");
    assert!(c.tensor.is_empty() && c.tensor_gflop_per_s.is_empty());
    assert_eq!(
        a.kernels[0].asked.as_ref().map(|w| w.precision),
        Some(Work::Fp64)
    );
    // Schema 3: a tensor precision and tensor ceilings, keyed by the work keys.
    let mut a = Artifact::new(Provenance::default());
    let mut c = MeasuredCeilings::default();
    c.tensor_gflop_per_s.insert(Work::TensorBf16, 781_000.5);
    c.tensor.push(TensorCeiling {
        work: Work::TensorFp8,
        means: String::new(),
        m: 8192,
        n: 8192,
        k: 8192,
        ops: 1.0995e12,
        bytes: 3.3e8,
        measured_gflop_per_s: None,
        theoretical_gflop_per_s: Some(2_141_061.1),
        timing: None,
        check: None,
        not_measured: Some("FP8 tensor cores need compute capability 8.9".into()),
    });
    a.ceilings = Some(c);
    a.kernels.push(KernelRecord {
        asked: Some(Box::new(AskedWork {
            bytes: 1.0,
            flops: 2.0,
            precision: Work::TensorBf16,
            formula: String::new(),
        })),
        ..KernelRecord::new("mma", "matmul_bf16_mma")
    });
    let text = a.to_json();
    assert!(text.contains("\"tensor_bf16\": 781000.5"), "{text}");
    assert!(text.contains("\"precision\": \"tensor_bf16\""), "{text}");
    assert!(text.contains("\"work\": \"tensor_fp8\""), "{text}");
    assert_eq!(Artifact::from_json(&text).expect("round trip"), a);
}

#[test]
fn metric_values_serialize_as_number_text_or_null() {
    let v = serde_json::to_string(&[
        MetricValue::Number(1.5),
        MetricValue::Text("all".into()),
        MetricValue::Missing,
    ])
    .expect("serializes");
    assert_eq!(v, r#"[1.5,"all",null]"#);
    let back: Vec<MetricValue> = serde_json::from_str(&v).expect("parses");
    assert_eq!(back[2], MetricValue::Missing);
}

#[test]
fn values_round_trip_through_json() {
    let key = |name: &str, unit: &str| MetricKey {
        name: name.into(),
        unit: unit.into(),
    };
    let cols = MetricColumns::new(vec![key("a", ""), key("b", ""), key("c", "")]);
    let mut m = Metrics::with_columns(cols.clone());
    m.set(0, MetricValue::Number(1.25));
    m.set(1, MetricValue::Text("all".into()));
    let text =
        ValuesSer::plain(&m, &cols, |values| serde_json::to_string(values)).expect("serializes");
    assert_eq!(text, r#"[1.25,"all",null]"#);
    let wire: ValuesWire = serde_json::from_str(&text).expect("parses");
    let back = wire.into_metrics(cols.clone()).expect("fits");
    assert_eq!(back, m);
    let too_many: ValuesWire = serde_json::from_str("[1,2,3,4]").expect("parses");
    assert!(too_many.into_metrics(cols.clone()).is_err());
    // Schema 1 wrote an object per launch; it still loads.
    let v1: ValuesWire = serde_json::from_str(
        r#"{"a": {"unit": "", "value": 1.25}, "b": {"unit": "", "value": "all"},
            "c": {"unit": "", "value": null}}"#,
    )
    .expect("parses");
    let back = v1.into_metrics(cols.clone()).expect("own columns");
    assert_eq!(back, m);
    assert!(
        Arc::ptr_eq(back.columns(), &cols),
        "same names reuse the columns"
    );
}

/// The in-memory sizes issue 25's memory goal rests on (200,000 one-launch kernels in a
/// 7 MB export within 10 x its size): a field added to a launch or a kernel record belongs
/// in its shared site or a box unless most launches or kernels have it.
#[cfg(target_pointer_width = "64")]
#[test]
fn launches_and_kernel_records_stay_small() {
    use std::mem::size_of;
    assert_eq!(size_of::<LaunchCounters>(), 88);
    assert_eq!(size_of::<KernelRecord>(), 136);
    assert_eq!(size_of::<Metrics>(), 32);
}

/// An instruction's address reads as hex text or as a plain number; other text, a negative
/// number or a fraction is refused, naming what it expected.
#[test]
fn instruction_addresses_read_as_hex_or_numbers() {
    use super::schema::Instruction;
    let read = |address: &str| {
        serde_json::from_str::<Instruction>(&format!("{{\"address\": {address}}}"))
            .map(|i| i.address)
            .map_err(|e| e.to_string())
    };
    assert_eq!(read("\"0x7fb1317a2b00\""), Ok(0x7fb1_317a_2b00));
    assert_eq!(read("\"0X10\""), Ok(16));
    assert_eq!(read("4096"), Ok(4096));
    let bad = read("\"7fb1\"").expect_err("no 0x");
    assert!(bad.contains("is not a hex number"), "{bad}");
    for refused in ["-1", "1.5", "null", "[]"] {
        let e = read(refused).expect_err(refused);
        assert!(e.contains("an address"), "{refused}: {e}");
    }
}
