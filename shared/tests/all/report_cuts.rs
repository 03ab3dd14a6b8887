//! Issue 25: a real report (two processes, four results; `tests/fixtures/ncu-h200-reports/
//! two_process.ncu-rep.gz`) cut at each block boundary, and a block whose declared count
//! is absurd: every loss is a warning naming the byte, except where the cut report reads
//! exactly as a complete report of fewer results.

use shared::read::ncu_rep;

use crate::support::unpack;

const TWO_PROCESS_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-reports/two_process.ncu-rep.gz");

fn u32_at(b: &[u8], at: usize) -> usize {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize
}

/// Reads a varint at `i`; the value and the next index.
fn varint(b: &[u8], mut i: usize) -> (u64, usize) {
    let (mut v, mut shift) = (0u64, 0);
    loop {
        let c = b[i];
        i += 1;
        v |= u64::from(c & 0x7f) << shift;
        shift += 7;
        if c < 0x80 {
            return (v, i);
        }
    }
}

/// The top-level varint fields of a message: (field, value, offset of the value).
fn varints(b: &[u8]) -> Vec<(u64, u64, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (key, j) = varint(b, i);
        match key & 7 {
            0 => {
                let (v, k) = varint(b, j);
                out.push((key >> 3, v, j));
                i = k;
            }
            2 => {
                let (n, k) = varint(b, j);
                i = k + n as usize;
            }
            1 => i = j + 8,
            5 => i = j + 4,
            _ => panic!("wire type"),
        }
    }
    out
}

/// Each block: its offset, where it ends, and its declared sources and results.
fn blocks(b: &[u8]) -> Vec<(usize, usize, u64, u64)> {
    let mut at = 8 + u32_at(b, 4);
    let mut out = Vec::new();
    while at < b.len() {
        let size = u32_at(b, at);
        let fields = varints(&b[at + 4..at + 4 + size]);
        let get = |f| fields.iter().find(|x| x.0 == f).map_or(0, |x| x.1);
        let end = at + 4 + size + get(5) as usize;
        out.push((at, end, get(1), get(2)));
        at = end;
    }
    out
}

#[test]
fn a_report_cut_at_a_block_boundary_warns_unless_it_reads_as_complete() {
    let bytes = unpack(TWO_PROCESS_REPORT);
    let blocks = blocks(&bytes);
    assert_eq!(blocks.len(), 16);
    let mut silent = Vec::new();
    let mut results = 0;
    for (i, &(_, end, _, n)) in blocks.iter().enumerate() {
        results += n as usize;
        let Ok(report) = ncu_rep::read_report(&bytes[..end]) else {
            assert_eq!(results, 0, "block {i}");
            continue;
        };
        assert_eq!(report.results.len(), results, "block {i}");
        let cut: Vec<&str> = report
            .warnings
            .iter()
            .map(|w| w.message.as_str())
            .filter(|m| m.contains("it looks cut after a block"))
            .collect();
        if cut.is_empty() {
            silent.push(i + 1);
        } else {
            assert!(cut[0].starts_with(&format!("byte {end}: ")), "{cut:?}");
        }
    }
    // Only cuts just after a result block that follows the session's closing blocks read
    // as complete (blocks 10, 12 and 14 end with a result; 16 is the whole report).
    assert_eq!(silent, [10, 12, 14, 16]);
}

#[test]
fn a_block_declaring_an_absurd_count_warns_naming_it() {
    let mut bytes = unpack(TWO_PROCESS_REPORT);
    let blocks = blocks(&bytes);
    // The last result block: its count of sources (0) set to 2^64-1, so its result reads
    // as a source and is stepped over.
    let &(at, _, sources, _) = blocks
        .iter()
        .rev()
        .find(|b| b.3 > 0)
        .expect("a result block");
    assert_eq!(sources, 0);
    let size = u32_at(&bytes, at);
    let header = bytes[at + 4..at + 4 + size].to_vec();
    let (_, _, value_at) = *varints(&header)
        .iter()
        .find(|f| f.0 == 1)
        .expect("sources field");
    // Field 1's one-byte value 0 becomes the ten-byte varint of 2^64-1.
    let mut new_header = header[..value_at].to_vec();
    new_header.extend([0xff; 9]);
    new_header.push(0x01);
    new_header.extend(&header[value_at + 1..]);
    let mut framed = (new_header.len() as u32).to_le_bytes().to_vec();
    framed.extend(new_header);
    bytes.splice(at..at + 4 + size, framed);
    let report = ncu_rep::read_report(&bytes).expect("reads");
    assert_eq!(report.results.len(), 3);
    assert!(
        report
            .warnings
            .iter()
            .any(|w| w.message.starts_with(&format!(
                "byte {at}: the block header declares 18446744073709551615 source message(s)"
            ))),
        "{:?}",
        report.warnings
    );
}

/// Every report among the fixtures, for the cut census.
const REPORTS: [(&str, &[u8]); 6] = [
    ("two_process", TWO_PROCESS_REPORT),
    (
        "gemms_basic",
        include_bytes!("../../../tests/fixtures/ncu-h200-reports/gemms_basic.ncu-repz"),
    ),
    (
        "gemms_full",
        include_bytes!("../../../tests/fixtures/ncu-h200-gemms/gemms_full.ncu-repz"),
    ),
    (
        "bert_full",
        include_bytes!("../../../tests/fixtures/ncu-h200-bert/bert_full.ncu-repz"),
    ),
    (
        "suite_src",
        include_bytes!("../../../tests/fixtures/ncu-h200-suite-source/suite_src.ncu-repz"),
    ),
    (
        "probe_full",
        include_bytes!("../../../tests/fixtures/ncu-h200/probe_full.ncu-rep.gz"),
    ),
];

/// Issue 39: every real report cut at every block boundary. Each cut is refused, or warns,
/// except those whose bytes are a complete report of fewer results: the cut falls after a
/// result block (or the session's command-line block after the first result), past the
/// command line. The format declares no count of blocks or results and ncu writes no
/// closing block (a complete report ends with its last result), so such a cut cannot be
/// told from a complete report by any reader; the test holds that every other cut warns
/// and prints the census.
#[test]
fn every_block_aligned_cut_of_every_report_warns_unless_it_is_a_complete_report() {
    let (mut total, mut refused, mut warned, mut silent) = (0, 0, 0, 0);
    for (name, gz) in REPORTS {
        let bytes = unpack(gz);
        let blocks = blocks(&bytes);
        let mut results = 0;
        for (i, &(_, end, sources, n)) in blocks.iter().enumerate() {
            results += n as usize;
            if end == bytes.len() {
                break;
            }
            total += 1;
            let Ok(report) = ncu_rep::read_report(&bytes[..end]) else {
                refused += 1;
                assert_eq!(results, 0, "{name} block {i}");
                continue;
            };
            let warns = report.warnings.iter().any(|w| w.message.contains("cut"));
            // A cut that reads as complete: past the session's command line (its last
            // block, after the first result), and not just after a block of sources.
            let looks_complete =
                results > 0 && report.session.command_line.is_some() && sources == 0;
            if warns {
                warned += 1;
            } else {
                silent += 1;
                assert!(
                    looks_complete,
                    "{name}: the cut after block {i} (byte {end}) is silent but does not read \
                     as a complete report"
                );
            }
        }
    }
    println!(
        "{total} block-aligned cuts of {} reports: {refused} refused, {warned} loaded with a \
         warning, {silent} read as complete reports of fewer results",
        REPORTS.len()
    );
    assert_eq!(total, refused + warned + silent);
    assert!(warned > 0 && silent > 0);
}
