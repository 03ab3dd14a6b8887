//! What every fuzz target does with one input, and what it asserts about the result.
//!
//! The targets in `fuzz_targets/` are one line each: they hand the fuzzer's bytes to a
//! function here. The regression test `shared/tests/all/fuzz_regressions.rs` includes this same
//! file (`#[path]`) and runs every saved input under `tests/fixtures/fuzz-regressions/`
//! through the same function, so a fixed crash stays fixed in the ordinary test suite.
//!
//! "Sensible" means: no panic; an error has a message and, where it names a line, a line that
//! exists in the input; an accepted export has launches, finite numbers and warnings with
//! real line numbers, and reads the same streamed as collected; an accepted or written
//! artifact reads back equal from its own JSON; the bytes table renders in every form, with
//! one row per kernel.
//!
//! This file needs only `shared` and `serde_json` (both dependencies of `roofline-shared`),
//! so it compiles in either crate.

use shared::error::{ExportError, NcuError, ReportError};
use shared::model::artifact::{CacheControl, LaunchCounters, MetricValue, Provenance};
use shared::model::counters;
use shared::read::ncu::{self, Export, Page};
use shared::read::ncu_rep;
use shared::Artifact;

/// The fixture whose raw-page header and units row prefix the structured inputs.
const RAW_FIXTURE: &str =
    include_str!("../../tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv");
/// The fixture whose details-page header prefixes the structured inputs.
const DETAILS_FIXTURE: &str = include_str!("../../tests/fixtures/ncu-h200/probe_full_details.csv");
/// The fixture whose first line prefixes the structured GUI inputs.
const GUI_FIXTURE: &str = include_str!("../../tests/fixtures/ncu-gui/probe_full_gui_raw.csv");

/// Number of lines the reader sees in `data`: newline-terminated lines plus an unterminated
/// last one. Every line number in a result must be at most this.
fn line_count(data: &[u8]) -> u64 {
    let newlines = data.iter().filter(|&&b| b == b'\n').count() as u64;
    let unterminated = u64::from(data.last().is_some_and(|&b| b != b'\n'));
    newlines + unterminated
}

/// The line an error names, if it names one.
fn error_line(error: &NcuError) -> Option<u64> {
    match error {
        NcuError::Binary { line }
        | NcuError::NotAnExport { line, .. }
        | NcuError::Csv { line, .. }
        | NcuError::NoRows { line, .. }
        | NcuError::NoUnitsRow { line, .. }
        | NcuError::Profiler { line, .. } => Some(*line),
        NcuError::Empty | NcuError::Io(_) => None,
        // A variant added later: its message is still checked.
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

fn assert_finite(value: &MetricValue, what: &str) {
    if let MetricValue::Number(v) = value {
        assert!(v.is_finite(), "{what}: non-finite number {v} stored");
    }
}

/// Checks an accepted export: launches, finite values, warnings with lines in the input.
fn check_export(export: &Export, lines: u64) {
    assert!(
        !export.launches.is_empty(),
        "an accepted export has no launches"
    );
    for warning in &export.warnings {
        assert!(!warning.message.is_empty(), "a warning without a message");
        if let Some(line) = warning.line {
            assert!(
                (1..=lines).contains(&line),
                "warning names line {line} of an input of {lines} lines: {warning}"
            );
        }
    }
    for launch in &export.launches {
        for (name, metric) in &launch.metrics {
            assert_finite(&metric.value, name);
        }
        for section in &launch.sections {
            assert_finite(&section.value, &section.name);
        }
        for rule in &launch.rules {
            if let Some(v) = rule.speedup_pct {
                assert!(v.is_finite(), "rule {}: non-finite speedup {v}", rule.name);
            }
        }
    }
}

/// Runs `data` through [`ncu::read_export`] and the streaming [`ncu::read_export_with`] and
/// checks that the result is sensible and that both agree; then checks that CRLF line ends
/// and a byte-order mark change nothing. Returns the export, if accepted.
pub fn read_export(data: &[u8]) -> Option<Export> {
    let export = read_export_once(data);
    // Only for text (the binary sniffing looks at a fixed number of bytes, which CRs and a
    // BOM shift) without CRs of its own (a CR inside a quoted field is kept as it is).
    let plain_text = std::str::from_utf8(data).is_ok_and(|t| !t.contains(['\r', '\0']));
    if plain_text && !data.starts_with(b"\xEF\xBB\xBF") {
        let mut crlf = Vec::with_capacity(data.len() * 2);
        for &b in data {
            if b == b'\n' {
                crlf.push(b'\r');
            }
            crlf.push(b);
        }
        assert_eq!(
            ncu::read_export(crlf.as_slice()),
            ncu::read_export(data),
            "CRLF line ends changed the result"
        );
        let mut bom = b"\xEF\xBB\xBF".to_vec();
        bom.extend_from_slice(data);
        assert_eq!(
            ncu::read_export(bom.as_slice()),
            ncu::read_export(data),
            "a byte-order mark changed the result"
        );
    }
    export
}

/// [`read_export`] without the line-end and byte-order-mark comparisons.
fn read_export_once(data: &[u8]) -> Option<Export> {
    let lines = line_count(data);
    let collected = ncu::read_export(data);
    let mut streamed_launches = 0usize;
    let streamed = ncu::read_export_with(data, |_| streamed_launches += 1);
    match collected {
        Ok(export) => {
            check_export(&export, lines);
            let summary = streamed.unwrap_or_else(|e| {
                panic!("read_export accepted the input, read_export_with refused it: {e}")
            });
            assert_eq!(
                summary.page, export.page,
                "the two reads saw different pages"
            );
            assert_eq!(summary.launches, streamed_launches);
            assert_eq!(
                summary.warnings, export.warnings,
                "the two reads warned differently"
            );
            // Only a details page may hand one launch on in pieces.
            if export.page == Page::Details {
                assert!(streamed_launches >= export.launches.len());
            } else {
                assert_eq!(streamed_launches, export.launches.len());
            }
            Some(export)
        }
        Err(error) => {
            assert!(!error.to_string().is_empty(), "an error without a message");
            if let Some(line) = error_line(&error) {
                assert!(
                    (1..=lines.max(1)).contains(&line),
                    "error names line {line} of an input of {lines} lines: {error}"
                );
            }
            assert_eq!(
                streamed.err(),
                Some(error),
                "read_export_with did not refuse the input the same way"
            );
            None
        }
    }
}

/// The header line (with its newline) of the first CLI header in a fixture, and the line
/// after it.
fn header_and_next(fixture: &'static str) -> (&'static str, &'static str) {
    let start = fixture.find("\"ID\"").unwrap_or(0);
    let rest = fixture.get(start..).unwrap_or_default();
    let mut lines = rest.split_inclusive('\n');
    (
        lines.next().unwrap_or_default(),
        lines.next().unwrap_or_default(),
    )
}

/// The raw header and units row cut to the identity columns and the metrics the model
/// reads (those of the counter catalog, `shared::model::counters`), both from the fixture (names
/// and units stay real).
fn cut_raw_header() -> String {
    let (header, units) = header_and_next(RAW_FIXTURE);
    // Field names and units in this fixture hold no commas, so a plain split is exact.
    let names: Vec<&str> = header.trim_end().split(',').collect();
    let units: Vec<&str> = units.trim_end().split(',').collect();
    let keep: Vec<usize> = names
        .iter()
        .enumerate()
        .filter(|(i, name)| {
            let bare = name.trim_matches('"');
            *i < ncu::ID_COLUMNS.len() || counters::find(bare).is_some()
        })
        .map(|(i, _)| i)
        .collect();
    let pick = |fields: &[&str]| -> String {
        keep.iter()
            .filter_map(|&i| fields.get(i).copied())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!("{}\n{}\n", pick(&names), pick(&units))
}

/// The prefixes of the structured target, chosen by the input's first byte: real headers
/// from the fixtures, so the fuzzer starts past header detection.
pub fn structured_prefixes() -> Vec<String> {
    let (raw_header, raw_units) = header_and_next(RAW_FIXTURE);
    let (details_header, _) = header_and_next(DETAILS_FIXTURE);
    let gui_first = GUI_FIXTURE.split_inclusive('\n').next().unwrap_or_default();
    vec![
        // The raw page: header only (the fuzzer writes the units row), then with units row.
        raw_header.to_owned(),
        format!("{raw_header}{raw_units}"),
        // The raw page cut to the columns the model reads, with its units row.
        cut_raw_header(),
        // The details page.
        details_header.to_owned(),
        // The GUI's two-column export (byte-order mark and `ID,0`).
        gui_first.to_owned(),
    ]
}

/// The input the structured target reads: the prefix chosen by the first byte, then the
/// rest of the bytes.
pub fn structured_input(data: &[u8], prefixes: &[String]) -> Option<Vec<u8>> {
    let (&choice, body) = data.split_first()?;
    let prefix = prefixes.get(usize::from(choice) % prefixes.len().max(1))?;
    let mut input = Vec::with_capacity(prefix.len() + body.len());
    input.extend_from_slice(prefix.as_bytes());
    input.extend_from_slice(body);
    Some(input)
}

/// The structured target: [`read_export`] on [`structured_input`].
pub fn structured(data: &[u8], prefixes: &[String]) {
    if let Some(input) = structured_input(data, prefixes) {
        read_export(&input);
    }
}

/// Renders the bytes table of `artifact` in every form and checks the forms agree with it.
pub fn table_forms(artifact: &Artifact) {
    let table = shared::analysis::table::bytes_table(artifact);
    assert_eq!(
        table.kernels.len(),
        artifact.kernels.len(),
        "one row per kernel"
    );
    let text = table.to_text();
    assert!(
        text.lines().count() >= 2 + table.kernels.len(),
        "text form lacks rows"
    );
    let markdown = table.to_markdown();
    assert!(markdown.lines().count() >= 2 + table.kernels.len());
    // Strings from files can neither drive a terminal nor split a row (issue 25).
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n')
            || matches!(c, '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    };
    assert!(
        !text.chars().any(unsafe_char),
        "raw control character in the text form"
    );
    assert!(
        !markdown.chars().any(unsafe_char),
        "raw control character in the markdown form"
    );
    let table_rows = markdown.lines().filter(|l| l.starts_with("| ")).count();
    assert_eq!(
        table_rows,
        2 + table.kernels.len(),
        "a name split a markdown row"
    );
    for line in markdown.lines().filter(|l| l.starts_with('|')) {
        let bytes = line.as_bytes();
        let pipes = (0..bytes.len())
            .filter(|&i| bytes[i] == b'|' && (i == 0 || bytes[i - 1] != b'\\'))
            .count();
        assert_eq!(
            pipes,
            shared::analysis::table::COLUMNS.len() + 1,
            "a name split a markdown cell: {line}"
        );
    }
    let csv = table.to_csv();
    assert!(csv.starts_with("name,"), "CSV form lacks its header");
    assert!(
        !csv.chars().any(|c| unsafe_char(c) && c != '\r'),
        "raw control character in CSV"
    );
    for r in &table.kernels {
        let cell = shared::text::escape::csv_cell(&r.name);
        assert!(
            !matches!(
                cell.chars().next(),
                Some('=' | '+' | '-' | '@' | '\t' | '\r')
            ),
            "CSV cell starts a formula: {cell:?}"
        );
    }
    let json = table.to_json();
    let value: serde_json::Value = serde_json::from_str(&json)
        .unwrap_or_else(|e| panic!("table JSON is not JSON: {e}\n{json}"));
    let rows = value
        .get("kernels")
        .and_then(|k| k.as_array())
        .map(Vec::len);
    assert_eq!(rows, Some(table.kernels.len()), "table JSON rows");
}

/// Writes `artifact` as JSON, reads it back and checks that nothing changed.
pub fn round_trip(artifact: &Artifact) {
    let json = artifact.to_json();
    let back = Artifact::from_json(&json)
        .unwrap_or_else(|e| panic!("a written artifact does not read back: {e}"));
    if back != *artifact {
        let before = serde_json::to_value(artifact).unwrap_or_default();
        let after = serde_json::to_value(&back).unwrap_or_default();
        let at = first_difference(&before, &after, String::new())
            .or_else(|| first_metric_difference(artifact, &back))
            .unwrap_or_else(|| first_debug_difference(artifact, &back));
        panic!("the artifact changed on a JSON round trip: {at}");
    }
}

/// The first raw-page metric whose lookup differs between two artifacts that write the same
/// JSON: the usual place for a difference the JSON does not show.
fn first_metric_difference(before: &Artifact, after: &Artifact) -> Option<String> {
    let sets = |a: &Artifact| -> Vec<(String, Vec<LaunchCounters>)> {
        let mut out = Vec::new();
        for (k, kernel) in a.kernels.iter().enumerate() {
            for (cache, set) in [
                ("cold", kernel.cold.as_ref()),
                ("warm", kernel.warm.as_deref()),
            ] {
                if let Some(set) = set {
                    out.push((format!("kernels[{k}].{cache}"), set.launches.clone()));
                }
            }
        }
        out
    };
    for ((at, xs), (_, ys)) in sets(before).iter().zip(&sets(after)) {
        for (i, (x, y)) in xs.iter().zip(ys).enumerate() {
            let names = x.metrics.iter().map(|(n, _)| n.to_string());
            let names: Vec<String> = names
                .chain(y.metrics.iter().map(|(n, _)| n.to_string()))
                .collect();
            for name in names {
                // A metric without a value counts as absent, as `Metrics::eq` has it.
                let value = |l: &LaunchCounters| {
                    l.metrics
                        .get(&name)
                        .filter(|m| m.value != MetricValue::Missing)
                };
                let (was, is) = (value(x), value(y));
                if was != is {
                    return Some(format!(
                        "{at}.launches[{i}] metric {name:?}: {was:?} became {is:?}"
                    ));
                }
            }
        }
    }
    None
}

/// Where the `Debug` forms of two artifacts that write the same JSON first differ.
fn first_debug_difference(before: &Artifact, after: &Artifact) -> String {
    let (a, b) = (format!("{before:?}"), format!("{after:?}"));
    let Some(at) = a.chars().zip(b.chars()).position(|(x, y)| x != y) else {
        return "both write the same JSON and print the same, yet compare unequal".into();
    };
    let window = |s: &str| -> String { s.chars().skip(at.saturating_sub(160)).take(320).collect() };
    format!(
        "both write the same JSON, but differ in memory:\nbefore ...{}\nafter  ...{}",
        window(&a),
        window(&b)
    )
}

/// Where two JSON values first differ, as a path with both values.
fn first_difference(a: &serde_json::Value, b: &serde_json::Value, path: String) -> Option<String> {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter().find_map(|k| {
                let (va, vb) = (x.get(k)?, y.get(k));
                match vb {
                    Some(vb) => first_difference(va, vb, format!("{path}.{k}")),
                    None => Some(format!("{path}.{k}: missing after")),
                }
            })
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(va, vb, format!("{path}[{i}]"))),
        (Value::Number(x), Value::Number(y)) => {
            let bits = |n: &serde_json::Number| n.as_f64().map(f64::to_bits);
            (x != y || bits(x) != bits(y)).then(|| format!("{path}: {x} became {y}"))
        }
        _ => (a != b).then(|| format!("{path}: {a} became {b}")),
    }
}

/// The artifact target: [`Artifact::from_json`]; an accepted artifact round-trips and
/// renders its bytes table.
pub fn artifact_json(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Artifact::from_json(text) {
        Ok(artifact) => {
            round_trip(&artifact);
            table_forms(&artifact);
        }
        Err(error) => assert!(!error.to_string().is_empty(), "an error without a message"),
    }
}

/// Separates the parts of a merge input: `artifact JSON 0xFF export 0xFF export ...`.
/// 0xFF never occurs in UTF-8 text, so no part can contain it.
pub const PART_SEPARATOR: u8 = 0xFF;

/// The merge target. The first byte picks the operation, the rest is an artifact and up to
/// three ncu exports separated by [`PART_SEPARATOR`]:
///
/// - 0: `import_launches` of the exports (the artifact part is ignored);
/// - 1, 2: `attach_counters` of the exports to the artifact, cold or warm;
/// - 3: cold, then warm, the same launches.
///
/// The exports are joined with `ncu::combine`. Whatever comes out must render its bytes
/// table and round-trip through JSON; a refused merge leaves the artifact unchanged.
pub fn merge_table(data: &[u8]) {
    let Some((&operation, rest)) = data.split_first() else {
        return;
    };
    let mut parts = rest.split(|&b| b == PART_SEPARATOR);
    let artifact_part = parts.next().unwrap_or_default();
    // The line-end and byte-order-mark comparisons are the reader targets' business.
    let exports: Vec<Export> = parts.take(3).filter_map(read_export_once).collect();
    if exports.is_empty() {
        return;
    }
    let (launches, warnings) = ncu::combine(exports);
    if operation % 4 == 0 {
        let artifact =
            shared::analysis::merge::import_launches(launches, warnings, Provenance::default());
        round_trip(&artifact);
        table_forms(&artifact);
        return;
    }
    let Some(mut artifact) = std::str::from_utf8(artifact_part)
        .ok()
        .and_then(|text| Artifact::from_json(text).ok())
    else {
        return;
    };
    let caches: &[CacheControl] = match operation % 4 {
        1 => &[CacheControl::Cold],
        2 => &[CacheControl::Warm],
        _ => &[CacheControl::Cold, CacheControl::Warm],
    };
    for &cache in caches {
        attach(&mut artifact, launches.clone(), cache);
    }
    round_trip(&artifact);
    table_forms(&artifact);
}

/// `attach_counters`, checking that a refusal leaves the artifact as it was.
fn attach(artifact: &mut Artifact, launches: Vec<LaunchCounters>, cache: CacheControl) {
    let before = artifact.clone();
    if let Err(error) = shared::analysis::merge::attach_counters(artifact, launches, cache) {
        assert!(!error.to_string().is_empty(), "an error without a message");
        assert!(*artifact == before, "a refused merge changed the artifact");
    }
}

/// A reader that hands out its bytes a few at a time (1 to 7 per call, cycling), so the
/// streaming report reader meets every frame split across reads.
struct Trickle<'a> {
    data: &'a [u8],
    calls: usize,
}

impl std::io::Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.calls += 1;
        let n = (1 + self.calls % 7).min(buf.len()).min(self.data.len());
        let (now, rest) = self.data.split_at(n);
        buf[..n].copy_from_slice(now);
        self.data = rest;
        Ok(n)
    }
}

/// The byte offset a report error names, if it names one.
fn report_offset(error: &ReportError) -> Option<u64> {
    match error {
        ReportError::NotAReport { .. } => Some(0),
        ReportError::Truncated { offset, .. }
        | ReportError::ZeroSize { offset, .. }
        | ReportError::Malformed { offset, .. }
        | ReportError::Layout { offset, .. } => Some(*offset),
        ReportError::NoResults | ReportError::Io(_) => None,
        // A variant added later: its message is still checked.
        #[allow(unreachable_patterns)]
        _ => None,
    }
}

/// The report target: any bytes into the `.ncu-rep` reader. The slice reader, the
/// streaming reader (fed a few bytes per read) and the decoded [`ncu_rep::Report`] must
/// agree; an error names a byte inside the input (its message starting `byte N: `); an
/// accepted report has launches with finite values, and what it imports to renders its
/// bytes table and round-trips through JSON. [`shared::read::exports::read`] must read it alike.
pub fn ncu_rep(data: &[u8]) {
    let export = ncu_rep::read_export(data);
    let streamed = ncu_rep::read_export_from(Trickle { data, calls: 0 });
    assert_eq!(export, streamed, "the slice and streaming readers disagree");
    let report = ncu_rep::read_report(data);
    match (&export, &report) {
        (Ok(export), Ok(report)) => assert_eq!(
            &report.to_export(),
            export,
            "read_report then to_export differs from read_export"
        ),
        (Err(a), Err(b)) => assert_eq!(a, b, "read_report refused the input differently"),
        _ => panic!("read_report and read_export disagree: {export:?} / {report:?}"),
    }
    if ncu_rep::is_report(data) {
        assert_eq!(
            shared::read::exports::read(data),
            export.clone().map_err(ExportError::from),
            "exports::read read a report differently"
        );
    }
    match export {
        Ok(export) => {
            assert!(
                !export.launches.is_empty(),
                "an accepted report has no launches"
            );
            for warning in &export.warnings {
                assert!(!warning.message.is_empty(), "a warning without a message");
            }
            for launch in &export.launches {
                for (name, metric) in &launch.metrics {
                    assert_finite(&metric.value, name);
                }
            }
            let artifact = shared::analysis::merge::import_launches(
                export.launches,
                export.warnings,
                Provenance::default(),
            );
            round_trip(&artifact);
            table_forms(&artifact);
        }
        Err(error) => {
            let message = error.to_string();
            assert!(!message.is_empty(), "an error without a message");
            if let Some(offset) = report_offset(&error) {
                assert!(
                    offset <= data.len() as u64,
                    "error names byte {offset} of an input of {} bytes: {message}",
                    data.len()
                );
                assert!(
                    message.starts_with(&format!("byte {offset}: ")),
                    "the message does not start with its byte: {message}"
                );
            }
        }
    }
}

/// Appends a protobuf varint.
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A varint field.
fn varint_field(out: &mut Vec<u8>, field: u64, v: u64) {
    put_varint(out, field << 3);
    put_varint(out, v);
}

/// A length-delimited field.
fn bytes_field(out: &mut Vec<u8>, field: u64, b: &[u8]) {
    put_varint(out, (field << 3) | 2);
    put_varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

/// A u32 size prefix and the bytes.
fn framed(out: &mut Vec<u8>, b: &[u8]) {
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b);
}

/// A report built from `data` as a list of block operations, the shapes that once grew
/// quadratically (issue 25): many string-table blocks, many processes, results between
/// table extensions, source blocks, and header counts that do not match the payload. Each
/// operation is two bytes: the kind (low 2 bits) and a parameter. The report goes through
/// [`ncu_rep`]'s checks.
pub fn ncu_rep_blocks(data: &[u8]) {
    let mut out = b"NVR\0".to_vec();
    let mut header = Vec::new();
    varint_field(&mut header, 1, 7);
    framed(&mut out, &header);
    // The session block: a device and the command line, as ncu writes them.
    let mut device = Vec::new();
    varint_field(&mut device, 1, 0);
    bytes_field(&mut device, 2, b"NVIDIA H200");
    let mut session = Vec::new();
    bytes_field(&mut session, 6, &device);
    bytes_field(&mut session, 11, b"ncu -o r ./prog");
    let block = |out: &mut Vec<u8>,
                 pid: u64,
                 strings: &[String],
                 sources: u64,
                 msgs: &[Vec<u8>],
                 results: u64| {
        let mut process = Vec::new();
        varint_field(&mut process, 1, pid);
        bytes_field(&mut process, 2, b"127.0.0.1");
        bytes_field(&mut process, 3, b"/usr/bin/prog");
        let mut table = Vec::new();
        for s in strings {
            bytes_field(&mut table, 1, s.as_bytes());
        }
        let mut payload = Vec::new();
        for m in msgs {
            framed(&mut payload, m);
        }
        let mut h = Vec::new();
        varint_field(&mut h, 1, sources);
        varint_field(&mut h, 2, results);
        bytes_field(&mut h, 4, &table);
        varint_field(&mut h, 5, payload.len() as u64);
        bytes_field(&mut h, 6, &process);
        framed(out, &h);
        out.extend_from_slice(&payload);
    };
    {
        let mut h = Vec::new();
        varint_field(&mut h, 1, 0);
        varint_field(&mut h, 2, 0);
        bytes_field(&mut h, 3, &session);
        varint_field(&mut h, 5, 0);
        let mut process = Vec::new();
        varint_field(&mut process, 1, 1);
        bytes_field(&mut h, 6, &process);
        framed(&mut out, &h);
    }
    let result = |pid: u64, metric: u64| {
        let mut dim = Vec::new();
        for f in 1..=3 {
            varint_field(&mut dim, f, 1);
        }
        let mut value = Vec::new();
        varint_field(&mut value, 5, 1000 + metric);
        let mut m = Vec::new();
        varint_field(&mut m, 1, metric);
        bytes_field(&mut m, 2, &value);
        let mut r = Vec::new();
        varint_field(&mut r, 1, pid);
        bytes_field(&mut r, 5, b"k");
        bytes_field(&mut r, 6, b"k");
        bytes_field(&mut r, 7, b"");
        bytes_field(&mut r, 10, &dim);
        bytes_field(&mut r, 11, &dim);
        bytes_field(&mut r, 13, &m);
        varint_field(&mut r, 22, 1);
        varint_field(&mut r, 23, 7);
        r
    };
    let mut names = 0u64;
    for op in data.chunks(2).take(4096) {
        let (kind, p) = (op[0] & 3, u64::from(op.get(1).copied().unwrap_or(0)));
        let pid = 1 + (p & 7);
        match kind {
            0 => {
                let strings: Vec<String> = (0..=p % 5)
                    .map(|_| {
                        names += 1;
                        format!("m{names}")
                    })
                    .collect();
                block(&mut out, pid, &strings, 0, &[], 0);
            }
            1 => block(&mut out, pid, &[], 0, &[result(pid, p % 7)], 1),
            2 => {
                let mut source = Vec::new();
                varint_field(&mut source, 1, 1);
                bytes_field(&mut source, 4, b"\x7fELF");
                block(&mut out, pid, &[], 1, &[source], 0);
            }
            _ => {
                // A header whose counts do not match its payload: 2^64-1 or p sources.
                let sources = if p & 1 == 0 { u64::MAX } else { p };
                block(&mut out, pid, &[], sources, &[result(pid, 0)], 1);
            }
        }
    }
    ncu_rep(&out);
}

/// The source-page target: [`shared::read::source::read_source_csv`] on any bytes. An
/// accepted page's launches render as text with no raw control character (kernel names and
/// SASS are the program's: escaped), with at most the asked number of hot spots, and as
/// valid JSON; of several launches one is the longest. An error has a message and names a
/// line that exists.
pub fn source_page(data: &[u8]) {
    use shared::read::source;
    match source::read_source_csv(data) {
        Ok(launches) => {
            for l in &launches {
                let text = source::to_text(l, 5);
                assert!(
                    !text.chars().any(|c| c.is_control() && c != '\n'),
                    "a raw control character in the text form: {text:?}"
                );
                assert!(l.hot_spots(5).len() <= 5, "more hot spots than asked");
                let json = serde_json::to_string(l).expect("a launch serializes");
                serde_json::from_str::<serde_json::Value>(&json).expect("its JSON reads back");
                let _ = (l.inst_executed(), l.samples());
            }
            let refs: Vec<&source::LaunchSource> = launches.iter().collect();
            assert!(
                launches.is_empty() || source::longest(&refs).is_some(),
                "no longest of {} launches",
                launches.len()
            );
        }
        Err(error) => {
            assert!(!error.to_string().is_empty(), "an error without a message");
            if let Some(line) = error_line(&error) {
                assert!(
                    line >= 1 && line <= line_count(data).max(1),
                    "error names line {line} of {}: {error}",
                    line_count(data)
                );
            }
        }
    }
}

/// Whether `text` holds a control character other than a line end: a name from an input
/// written raw to a terminal (an escape sequence) or splitting a Markdown row.
fn raw_control(text: &str) -> Option<char> {
    text.chars().find(|&c| c.is_control() && c != '\n')
}

/// Checks every object of `capture diff`'s JSON: a number asked for and `null` has a
/// `why_null` beside it, and the noise bands are numbers (never `null`: a band that is
/// not finite once let the gate pass anything).
fn check_diff_json(value: &serde_json::Value, path: &str) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            for key in shared::analysis::diff::NULLABLE_NUMBERS {
                if map.get(key).is_some_and(Value::is_null) {
                    assert!(
                        map.get("why_null").is_some_and(Value::is_string),
                        "{path}.{key} is null without a why_null beside it"
                    );
                }
            }
            if let Some(band) = map.get("noise_pct") {
                assert!(band.is_number(), "{path}.noise_pct is {band}, not a number");
            }
            for (key, v) in map {
                check_diff_json(v, &format!("{path}.{key}"));
            }
        }
        Value::Array(items) => {
            for (i, v) in items.iter().enumerate() {
                check_diff_json(v, &format!("{path}[{i}]"));
            }
        }
        _ => {}
    }
}

/// The diff target: two artifacts, `before 0xFF after` ([`PART_SEPARATOR`]), through what
/// `capture diff --gate 5` runs: [`Artifact::from_json_checked`] on each, then
/// [`shared::analysis::diff::diff_loaded`] and the three output forms. The gate never passes
/// runs it cannot judge (either side without kernels) and fails whenever it says it cannot
/// judge; the text and Markdown forms hold no raw control character; the JSON form is
/// valid, its bands numbers, and each `null` number has a `why_null` beside it.
pub fn diff(data: &[u8]) {
    use shared::analysis::diff::{diff_loaded, GateOptions};
    let mut parts = data.splitn(2, |&b| b == PART_SEPARATOR);
    let (Some(before), Some(after)) = (parts.next(), parts.next()) else {
        return;
    };
    let load = |part: &[u8]| {
        let text = std::str::from_utf8(part).ok()?;
        match Artifact::from_json_checked(text) {
            Ok(loaded) => Some(loaded),
            Err(error) => {
                assert!(!error.to_string().is_empty(), "an error without a message");
                None
            }
        }
    };
    let (Some((before, before_warnings)), Some((after, after_warnings))) =
        (load(before), load(after))
    else {
        return;
    };
    let d = diff_loaded(
        (&before, &before_warnings),
        (&after, &after_warnings),
        GateOptions {
            pct: Some(5.0),
            ..GateOptions::default()
        },
    )
    .named("before.json", "after.json");
    let gate = d.gate.as_ref().expect("--gate asked for a gate");
    assert!(
        gate.cannot_judge.is_empty() || gate.failed,
        "a gate that cannot judge passed: {:?}",
        gate.cannot_judge
    );
    if before.kernels.is_empty() || after.kernels.is_empty() {
        assert!(
            !gate.cannot_judge.is_empty(),
            "a run without kernels was judged"
        );
    }
    for (form, text) in [("text", d.to_text()), ("Markdown", d.to_markdown())] {
        if let Some(c) = raw_control(&text) {
            panic!("a raw control character {c:?} in the {form} form");
        }
    }
    let json: serde_json::Value =
        serde_json::from_str(&d.to_json()).expect("the JSON form is valid JSON");
    check_diff_json(&json, "");
    let _ = d.comparability.reasons();
    use shared::analysis::diff::ranges::{range_diff, NodeDiff, NodeSide};
    // By range: each launch is in one node of its run, so a side's nodes add up to its
    // total; the forms hold what the kernel diff's do.
    for depth in [None, Some(1)] {
        let r = range_diff(&before, &after, depth);
        for (form, text) in [
            ("range text", r.to_text()),
            ("range Markdown", r.to_markdown()),
        ] {
            if let Some(c) = raw_control(&text) {
                panic!("a raw control character {c:?} in the {form} form");
            }
        }
        let json: serde_json::Value =
            serde_json::from_str(&r.to_json()).expect("the range JSON form is valid JSON");
        check_diff_json(&json, "");
        let side_ms = |side: fn(&NodeDiff) -> Option<&NodeSide>| -> f64 {
            r.nodes.iter().filter_map(side).map(|s| s.time_ms).sum()
        };
        for (summed, total) in [
            (side_ms(|n| n.before.as_ref()), r.total.before_ms),
            (side_ms(|n| n.after.as_ref()), r.total.after_ms),
        ] {
            assert!(
                (summed - total).abs() <= 1e-9 * total.abs().max(1.0),
                "range nodes sum to {summed} ms, the run to {total} ms"
            );
        }
    }
}

/// The source target: a report and a source page, `u32 little-endian report length,
/// report, page`, through what `capture source --sass PAGE` runs. The report's launches
/// streamed ([`ncu_rep::read_sources_from`], fed a few bytes per read) must be those of the
/// whole report ([`ncu_rep::read_report`]), or both refuse it alike; the page read by
/// [`shared::read::source::read_source_csv`] is joined to them
/// ([`shared::read::source::join_page`]) and every index the join names exists; each
/// launch's text form holds no raw control character and its JSON reads back.
pub fn source(data: &[u8]) {
    use shared::read::source::{self, LaunchSource};
    let Some((len, rest)) = data.split_first_chunk::<4>() else {
        return;
    };
    let len = (u32::from_le_bytes(*len) as usize).min(rest.len());
    let (report, page) = rest.split_at(len);
    let mut streamed = Vec::new();
    let read = ncu_rep::read_sources_from(
        Trickle {
            data: report,
            calls: 0,
        },
        &mut |l| streamed.push(l),
    );
    let mut launches: Vec<LaunchSource> = match (ncu_rep::read_report(report), read) {
        (Ok(whole), Ok(warnings)) => {
            let sources: Vec<LaunchSource> =
                whole.results.iter().filter_map(|r| r.source()).collect();
            assert_eq!(
                streamed, sources,
                "streamed launches differ from the report's"
            );
            let mut want = whole.warnings.clone();
            want.extend(whole.source_warnings.clone());
            assert_eq!(warnings, want, "streamed warnings differ from the report's");
            sources
        }
        (Err(a), Err(b)) => {
            assert_eq!(a, b, "the streamed read refused the report differently");
            Vec::new()
        }
        (whole, streamed) => {
            panic!("the whole and streamed reads disagree: {whole:?} / {streamed:?}")
        }
    };
    let page = source::read_source_csv(page).unwrap_or_default();
    let join = source::join_page(&mut launches, &page);
    assert!(
        join.without_text.iter().all(|&i| i < launches.len()),
        "a launch index past the launches"
    );
    assert!(
        join.unmatched.iter().all(|&b| b < page.len()),
        "a block index past the page"
    );
    for l in &launches {
        let text = source::to_text(l, 5);
        if let Some(c) = raw_control(&text) {
            panic!("a raw control character {c:?} in the text form");
        }
        let json = serde_json::to_string(l).expect("a launch serializes");
        let back: serde_json::Value = serde_json::from_str(&json).expect("its JSON reads back");
        assert_eq!(
            back.get("instructions")
                .and_then(serde_json::Value::as_array)
                .map(Vec::len),
            Some(l.instructions.len()),
            "its JSON has another number of instructions"
        );
    }
    let refs: Vec<&LaunchSource> = launches.iter().collect();
    assert!(launches.is_empty() || source::longest(&refs).is_some());
}

/// The most a zstd input may decode to in the `zstd` target: enough for the seeds (the
/// two-process report, 278,567 bytes), small enough that a run never holds much.
const ZSTD_MAX_BYTES: u64 = 1 << 20;

/// The zstd target: any bytes into [`shared::read::zstd::Decoder`] (a `.ncu-repz`), capped
/// at [`ZSTD_MAX_BYTES`]. Read whole from a slice and streamed through a buffer of 1 to 7
/// bytes, the two must agree; an error that names a byte of the stream names one inside the
/// input (its message starting `byte N of the zstd stream: `); what comes out is at most
/// the cap, and, where it is a report, [`ncu_rep`]'s checks hold for it.
pub fn zstd(data: &[u8]) {
    use shared::error::ZstdError;
    use std::io::Read;
    let whole = shared::read::zstd::decode_all(data, ZSTD_MAX_BYTES);
    let capacity = 1 + data.len() % 7;
    let mut streamed = Vec::new();
    let mut decoder = shared::read::zstd::Decoder::new(
        std::io::BufReader::with_capacity(capacity, Trickle { data, calls: 0 }),
        ZSTD_MAX_BYTES,
    );
    let read = decoder.read_to_end(&mut streamed);
    match (&whole, &read) {
        (Ok(out), Ok(_)) => assert_eq!(out, &streamed, "the slice and streaming reads disagree"),
        (Err(e), Err(r)) => assert_eq!(e.to_string(), r.to_string(), "refused differently"),
        _ => panic!("the slice and streaming reads disagree: {whole:?} / {read:?}"),
    }
    match whole {
        Ok(out) => {
            assert!(out.len() as u64 <= ZSTD_MAX_BYTES, "more out than the cap");
            if ncu_rep::is_report(&out) {
                ncu_rep(&out);
            }
        }
        Err(e) => {
            let message = e.to_string();
            let offset = match e {
                ZstdError::Truncated { offset, .. }
                | ZstdError::Corrupt { offset, .. }
                | ZstdError::Checksum { offset, .. }
                | ZstdError::TooLarge { offset, .. } => Some(offset),
                ZstdError::NoFrame | ZstdError::Io(_) => None,
            };
            if let Some(offset) = offset {
                assert!(
                    offset <= data.len() as u64,
                    "{message}: past the input's end"
                );
                assert!(
                    message.starts_with(&format!("byte {offset} of the zstd stream: ")),
                    "{message}"
                );
            }
        }
    }
}
