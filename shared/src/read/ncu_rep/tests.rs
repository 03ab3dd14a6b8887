//! Unit tests of the report reader on small reports built here field by field (the real
//! reports are tested in `shared/tests/all/ncu_rep.rs`): layouts, string tables over several
//! blocks and processes, and every kind of bad input, which must be a typed error naming
//! its byte offset or, for a cut report, its complete results with a warning.

use std::sync::Arc;

use super::*;
use crate::model::artifact::MetricValue;

/// A protobuf message under construction.
#[derive(Clone, Default)]
struct Msg(Vec<u8>);

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Msg {
    fn varint(mut self, field: u32, v: u64) -> Self {
        put_varint(&mut self.0, u64::from(field) << 3);
        put_varint(&mut self.0, v);
        self
    }
    fn bytes(mut self, field: u32, b: &[u8]) -> Self {
        put_varint(&mut self.0, (u64::from(field) << 3) | 2);
        put_varint(&mut self.0, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    fn msg(self, field: u32, m: Msg) -> Self {
        self.bytes(field, &m.0)
    }
    fn double(mut self, field: u32, v: f64) -> Self {
        put_varint(&mut self.0, (u64::from(field) << 3) | 1);
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
}

/// A u32 size prefix and the bytes.
fn framed(b: &[u8]) -> Vec<u8> {
    let mut out = (b.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(b);
    out
}

fn file_start(version: u64) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend(framed(&Msg::default().varint(1, version).0));
    out
}

fn process(pid: u64) -> Msg {
    Msg::default()
        .varint(1, pid)
        .bytes(2, b"127.0.0.1")
        .bytes(3, b"/usr/bin/prog")
}

/// A block of `pid` with string table `strings`, `sources` source messages and `results`.
fn block(pid: u64, strings: &[&str], sources: usize, results: &[Msg]) -> Vec<u8> {
    let table = strings
        .iter()
        .fold(Msg::default(), |m, s| m.bytes(1, s.as_bytes()));
    block_sized(pid, table, sources, results, |n| n)
}

/// A block as [`block`] whose header declares `size(payload length)` payload bytes.
fn block_sized(
    pid: u64,
    table: Msg,
    sources: usize,
    results: &[Msg],
    size: impl Fn(u64) -> u64,
) -> Vec<u8> {
    let mut payload = Vec::new();
    for _ in 0..sources {
        payload.extend(framed(&Msg::default().varint(1, 1).bytes(4, b"\x7fELF").0));
    }
    for r in results {
        payload.extend(framed(&r.0));
    }
    let header = Msg::default()
        .varint(1, sources as u64)
        .varint(2, results.len() as u64)
        .msg(4, table)
        .varint(5, size(payload.len() as u64))
        .msg(6, process(pid));
    let mut out = framed(&header.0);
    out.extend(payload);
    out
}

fn dim3(x: u64, y: u64, z: u64) -> Msg {
    Msg::default().varint(1, x).varint(2, y).varint(3, z)
}

/// A metric result naming string `name` with a value message.
fn metric(name: u64, value: Msg) -> Msg {
    Msg::default().varint(1, name).msg(2, value)
}

/// A profile result of `pid` for kernel `name` with metric results.
fn result(pid: u64, name: &str, metrics: Vec<Msg>) -> Msg {
    let r = Msg::default()
        .varint(1, pid)
        .bytes(5, name.as_bytes())
        .bytes(6, name.as_bytes())
        .bytes(7, b"")
        .msg(10, dim3(1056, 1, 1))
        .msg(11, dim3(256, 1, 1));
    let r = metrics.into_iter().fold(r, |r, m| r.msg(13, m));
    r.varint(22, 1).varint(23, 7)
}

const NAMES: [&str; 5] = [
    "dram__bytes_read.sum",
    "gpu__time_duration.sum",
    "launch__func_cache_config",
    "derived_tempMetric4",
    "breakdown:sm__throughput.avg.pct_of_peak_sustained_elapsed",
];

/// A report of one process: a session block, then `n` result blocks; only the first
/// result block carries the string table, as ncu writes it.
fn report(n: usize) -> Vec<u8> {
    let mut out = file_start(7);
    let device = Msg::default().varint(1, 0).bytes(2, b"NVIDIA H200");
    // ncu writes the command line after the first result; here it comes first (the reader
    // only asks whether the report has one).
    let session = Msg::default()
        .msg(6, device)
        .bytes(11, b"ncu --set full -o r ./prog");
    let header = Msg::default()
        .varint(1, 0)
        .varint(2, 0)
        .msg(3, session)
        .varint(5, 0)
        .msg(6, process(714));
    out.extend(framed(&header.0));
    for i in 0..n {
        let metrics = vec![
            metric(0, Msg::default().varint(5, 1000 + i as u64)),
            metric(1, Msg::default().double(3, 2.5)),
            metric(2, Msg::default().bytes(1, b"CachePreferNone")),
            metric(3, Msg::default().double(3, f64::NAN)),
            metric(4, Msg::default().bytes(1, b"a,b")),
        ];
        let table: &[&str] = if i == 0 { &NAMES } else { &[] };
        out.extend(block(714, table, 1, &[result(714, "copy", metrics)]));
    }
    out
}

/// Byte offsets where each result block of `report(n)` ends.
fn block_ends(bytes: &[u8]) -> Vec<usize> {
    let mut ends = Vec::new();
    let header = u32::from_le_bytes([bytes[4], bytes[5], bytes[6], bytes[7]]) as usize;
    let mut at = 8 + header;
    while at < bytes.len() {
        let size =
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]]) as usize;
        let header = read_header(&bytes[at + 4..at + 4 + size]);
        at += 4 + size + header;
        ends.push(at);
    }
    ends
}

/// The payload size of a block header.
fn read_header(header: &[u8]) -> usize {
    wire::Fields::new(header, 0)
        .filter_map(Result::ok)
        .find(|f| f.number == 5)
        .and_then(|f| f.varint())
        .unwrap_or(0) as usize
}

#[test]
fn a_small_report_decodes_field_by_field() {
    let bytes = report(2);
    let report = read_report(&bytes).expect("reads");
    assert_eq!(report.version, 7);
    assert!(report.warnings.is_empty(), "{:?}", report.warnings);
    assert_eq!(report.results.len(), 2);
    assert_eq!(report.session.devices[0].name, "NVIDIA H200");
    let r = &report.results[1];
    assert_eq!(r.index, 1);
    assert_eq!(r.names.display(), "copy");
    assert_eq!((r.grid, r.block), (Some([1056, 1, 1]), Some([256, 1, 1])));
    assert_eq!((r.context, r.stream), (Some(1), Some(7)));
    assert_eq!(r.process.name(), Some("prog"));
    // The second block has no table of its own: its names come from the first block's.
    assert_eq!(
        r.metric("dram__bytes_read.sum"),
        Some(&ResultValue::Uint(1001))
    );
    assert_eq!(
        r.metric("gpu__time_duration.sum"),
        Some(&ResultValue::Double(2.5))
    );

    let export = report.to_export();
    assert_eq!(export.launches.len(), 2);
    let l = &export.launches[1];
    assert_eq!(
        (l.id, l.site.process_id, &*l.function),
        (1, Some(714), "copy")
    );
    let m = |name: &str| l.metrics.get(name).map(|m| (m.unit, m.value));
    assert_eq!(
        m("dram__bytes_read.sum"),
        Some(("byte".into(), MetricValue::Number(1001.0)))
    );
    assert_eq!(
        m("gpu__time_duration.sum"),
        Some(("ns".into(), MetricValue::Number(2.5)))
    );
    assert_eq!(
        m("launch__func_cache_config"),
        Some((String::new(), MetricValue::Text("CachePreferNone".into())))
    );
    assert_eq!(
        m("derived_tempMetric4"),
        Some((String::new(), MetricValue::Missing))
    );
    // The GUI-only lists are not on the raw page.
    assert_eq!(l.metrics.len(), 4);
    assert_eq!(export.warnings.len(), 1, "{:?}", export.warnings);
    assert_eq!(
        export.warnings[0].message,
        "result 0: derived_tempMetric4 is not a finite number (NaN); kept as missing (2 \
         results, the first here)"
    );
    // Launches with the same metrics share their columns.
    assert!(Arc::ptr_eq(
        export.launches[0].metrics.columns(),
        l.metrics.columns()
    ));
    assert_eq!(read_export(&bytes), Ok(export.clone()));
    assert_eq!(read_export_from(&bytes[..]), Ok(export));
}

#[test]
fn blocks_of_several_processes_each_with_a_string_table() {
    let mut bytes = file_start(7);
    let names_1 = ["dram__bytes_read.sum", "gpu__time_duration.sum"];
    // Process 2 restates a table of its own, in another order.
    let names_2 = ["gpu__time_duration.sum", "dram__bytes_read.sum"];
    let value = |v| Msg::default().varint(5, v);
    bytes.extend(block(
        1,
        &names_1,
        0,
        &[result(1, "a", vec![metric(0, value(10))])],
    ));
    bytes.extend(block(
        2,
        &names_2,
        0,
        &[result(2, "b", vec![metric(1, value(20))])],
    ));
    // Process 1 again: its own table, extended by one name.
    bytes.extend(block(
        1,
        &["launch__grid_size"],
        0,
        &[result(
            1,
            "c",
            vec![metric(0, value(30)), metric(2, value(40))],
        )],
    ));
    bytes.extend(block(
        2,
        &[],
        0,
        &[result(2, "d", vec![metric(0, value(50))])],
    ));
    let report = read_report(&bytes).expect("reads");
    let named: Vec<Vec<(String, ResultValue)>> = report
        .results
        .iter()
        .map(|r| {
            r.metrics()
                .map(|m| (m.name.to_owned(), m.value.clone()))
                .collect()
        })
        .collect();
    let v = |n: &str, x| (n.to_owned(), ResultValue::Uint(x));
    assert_eq!(
        named,
        [
            vec![v("dram__bytes_read.sum", 10)],
            vec![v("dram__bytes_read.sum", 20)],
            vec![v("dram__bytes_read.sum", 30), v("launch__grid_size", 40)],
            vec![v("gpu__time_duration.sum", 50)],
        ]
    );
    let pids: Vec<Option<u64>> = report.session.processes.iter().map(|p| p.id).collect();
    assert_eq!(pids, [Some(1), Some(2)]);
}

/// What a decode of bad input must give.
#[derive(Debug)]
enum Want {
    NotAReport,
    Truncated(u64),
    ZeroSize(u64),
    Malformed(u64),
    Layout(u64),
    NoResults,
}

fn check(name: &str, bytes: &[u8], want: Want) {
    for (how, got) in [
        ("slice", read_report(bytes).map(|_| ())),
        ("reader", read_report_from(bytes).map(|_| ())),
    ] {
        let err = got.expect_err(name);
        let ok = match (&want, &err) {
            (Want::NotAReport, ReportError::NotAReport { .. })
            | (Want::NoResults, ReportError::NoResults) => true,
            (Want::Truncated(o), ReportError::Truncated { offset, .. })
            | (Want::ZeroSize(o), ReportError::ZeroSize { offset, .. })
            | (Want::Malformed(o), ReportError::Malformed { offset, .. })
            | (Want::Layout(o), ReportError::Layout { offset, .. }) => o == offset,
            _ => false,
        };
        assert!(ok, "{name} ({how}): wanted {want:?}, got {err:?}: {err}");
        let text = err.to_string();
        if !matches!(want, Want::NoResults) {
            assert!(text.starts_with("byte "), "{name}: {text}");
        }
    }
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "a table of damaged reports beside the error each must give, read best side by side"
)]
fn bad_input_is_a_typed_error_naming_its_offset() {
    let good = report(1);
    let block_at = file_start(7).len() as u64;
    let with = |at: usize, patch: &[u8]| {
        let mut b = good.clone();
        b.splice(at..at + patch.len(), patch.iter().copied());
        b
    };
    let session_size = u32::from_le_bytes([
        good[block_at as usize],
        good[block_at as usize + 1],
        good[block_at as usize + 2],
        good[block_at as usize + 3],
    ]) as u64;
    let result_block = block_at + 4 + session_size;
    let mut garbage = MAGIC.to_vec();
    garbage.extend_from_slice(b"\x05\x00\x00\x00\xff\xff\xff\xff\xff");
    let mut no_payload_size = file_start(7);
    no_payload_size.extend(framed(&Msg::default().varint(1, 0).0));
    let mut bad_index = file_start(7);
    bad_index.extend(block(
        1,
        &["a"],
        0,
        &[result(1, "k", vec![metric(3, Msg::default())])],
    ));
    // A result block whose header declares one byte less than its messages.
    let mut past_payload = file_start(7);
    let table = Msg::default().bytes(1, b"a");
    past_payload.extend(block_sized(
        1,
        table,
        1,
        &[result(1, "k", Vec::new())],
        |n| n - 1,
    ));
    let mut zero_message = file_start(7);
    zero_message.extend(framed(
        &Msg::default()
            .varint(1, 0)
            .varint(2, 1)
            .varint(5, 4)
            .msg(6, process(1))
            .0,
    ));
    zero_message.extend_from_slice(&[0, 0, 0, 0]);
    let zero_at = zero_message.len() as u64 - 4;

    let cases: Vec<(&str, Vec<u8>, Want)> = vec![
        ("empty", Vec::new(), Want::NotAReport),
        ("wrong magic", b"PK\x03\x04rest".to_vec(), Want::NotAReport),
        (
            "a CSV export",
            b"\"ID\",\"Process ID\"\n".to_vec(),
            Want::NotAReport,
        ),
        ("magic only", MAGIC.to_vec(), Want::Truncated(4)),
        ("garbage after the magic", garbage, Want::Malformed(8)),
        (
            "zero file header size",
            with(4, &[0, 0, 0, 0]),
            Want::ZeroSize(4),
        ),
        (
            "oversized file header",
            with(4, &[0xff, 0xff, 0xff, 0xff]),
            Want::Truncated(8),
        ),
        (
            "zero block header size",
            with(block_at as usize, &[0, 0, 0, 0]),
            Want::ZeroSize(block_at),
        ),
        (
            "oversized block header",
            with(block_at as usize, &[0xf0, 0xff, 0xff, 0xff]),
            Want::Truncated(block_at + 4),
        ),
        (
            "a block header without payload size",
            no_payload_size,
            Want::Layout(block_at + 4),
        ),
        (
            "a metric name beyond the string table",
            bad_index,
            Want::Layout(0),
        ),
        (
            "a message past its payload",
            past_payload,
            Want::Malformed(0),
        ),
        ("a zero-size message", zero_message, Want::ZeroSize(zero_at)),
        (
            "no results",
            good[..result_block as usize].to_vec(),
            Want::NoResults,
        ),
    ];
    for (name, bytes, want) in cases {
        // Offsets that depend on the layout built above are looked up, not written out.
        let want = match want {
            Want::Layout(0) | Want::Malformed(0) => match read_report(&bytes) {
                Err(ReportError::Layout { offset, .. }) => Want::Layout(offset),
                Err(ReportError::Malformed { offset, .. }) => Want::Malformed(offset),
                other => panic!("{name}: {other:?}"),
            },
            w => w,
        };
        check(name, &bytes, want);
    }
}

#[test]
fn a_cut_report_loads_its_complete_results_with_a_warning() {
    let bytes = report(3);
    let ends = block_ends(&bytes);
    // The session block, then three result blocks.
    assert_eq!(ends.len(), 4);
    for cut in 0..bytes.len() {
        let head = &bytes[..cut];
        let complete = ends[1..].iter().filter(|&&e| e <= cut).count();
        for got in [read_report(head), read_report_from(head)] {
            match got {
                Ok(r) => {
                    assert_eq!(r.results.len(), complete, "cut at {cut}");
                    let at_block_end = ends.contains(&cut);
                    if at_block_end {
                        assert!(r.warnings.is_empty(), "cut at {cut}: {:?}", r.warnings);
                    } else {
                        let s = if complete == 1 { "" } else { "s" };
                        let tail =
                            format!("the {complete} complete result{s} before it are loaded");
                        assert!(
                            r.warnings.len() == 1 && r.warnings[0].message.ends_with(&tail),
                            "cut at {cut}: {:?}",
                            r.warnings
                        );
                        assert!(r.warnings[0].message.starts_with("byte "));
                    }
                }
                Err(e) => {
                    assert_eq!(complete, 0, "cut at {cut}: {e}");
                    assert!(
                        matches!(
                            e,
                            ReportError::NotAReport { .. }
                                | ReportError::Truncated { .. }
                                | ReportError::NoResults
                        ),
                        "cut at {cut}: {e:?}"
                    );
                }
            }
        }
    }
}

#[test]
fn another_file_version_reads_with_a_warning() {
    let mut bytes = report(1);
    bytes.splice(8..10, Msg::default().varint(1, 8).0);
    let report = read_report(&bytes).expect("reads");
    assert_eq!(report.version, 8);
    assert!(
        report.warnings[0]
            .message
            .starts_with("report file version 8;"),
        "{:?}",
        report.warnings
    );
}

#[test]
fn every_byte_flipped_never_panics() {
    let good = report(2);
    for at in 0..good.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = good.clone();
            b[at] ^= flip;
            let _ = read_report(&b);
            let _ = read_export_from(&b[..]);
        }
    }
}
