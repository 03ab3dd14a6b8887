//! `.ncu-repz` reports (zstd streams) through `shared::read::zstd`: the fixtures of
//! `tests/fixtures/ncu-repz/` (one frame, several frames, a skippable frame in front, made
//! with the `zstd` command by its `make.sh`) decode to their `.ncu-rep` byte for byte and read
//! to the same launches; broken streams, made here from them or by hand, end in an error
//! naming the byte, and a small stream of gigabytes of zeros is judged from its first bytes.

use std::io::Read;

use shared::error::ZstdError;
use shared::read::kind::{kind_of, refused_inside, FileKind};
use shared::read::ncu_rep;
use shared::read::zstd::{decode_all, Decoder, MAGIC};

use crate::support::gunzip;

const TWO_PROCESS: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-reports/two_process.ncu-rep.gz");
const PROBE: &[u8] = include_bytes!("../../../tests/fixtures/ncu-h200/probe_full.ncu-rep.gz");
const ONE_FRAME: &[u8] = include_bytes!("../../../tests/fixtures/ncu-repz/two_process.ncu-repz");
const FRAMES: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-repz/two_process_frames.ncu-repz");
const SKIPPABLE: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-repz/two_process_skippable.ncu-repz");
const PROBE_REPZ: &[u8] = include_bytes!("../../../tests/fixtures/ncu-repz/probe_full.ncu-repz");

/// More than any input is read of: the cap `capture` applies.
const FOUR_GIB: u64 = 4 << 30;

/// A zstd frame of `total` bytes of `byte`, by hand: a 128 KiB window, no content size and
/// no checksum, then RLE blocks of 128 KiB (4 bytes each), so 4 GiB take 128 KiB.
pub fn rle_frame(total: u64, byte: u8) -> Vec<u8> {
    const BLOCK: u64 = 128 << 10;
    let mut out = MAGIC.to_vec();
    // Frame header descriptor: nothing set; window descriptor: 2^(10 + 7) bytes.
    out.extend([0x00, 7 << 3]);
    let mut left = total;
    while left > 0 {
        let size = left.min(BLOCK);
        left -= size;
        let last = u32::from(left == 0);
        // Block header, 3 bytes little-endian: last flag, type 1 (RLE), size.
        let header = last | (1 << 1) | ((size as u32) << 3);
        out.extend(&header.to_le_bytes()[..3]);
        out.push(byte);
    }
    out
}

/// What a decoder reading `bytes` ends with: the bytes, or the error.
fn decoded(bytes: &[u8]) -> Result<Vec<u8>, ZstdError> {
    decode_all(bytes, FOUR_GIB)
}

#[test]
fn one_frame_several_frames_and_a_skippable_frame_decode_to_the_report() {
    let report = gunzip(TWO_PROCESS);
    for (name, repz) in [
        ("one frame", ONE_FRAME),
        ("5 frames", FRAMES),
        ("skippable", SKIPPABLE),
    ] {
        assert_eq!(kind_of(repz), FileKind::Zstd, "{name}");
        assert!(decoded(repz).expect(name) == report, "{name}");
    }
    assert!(decoded(PROBE_REPZ).expect("probe") == gunzip(PROBE));
}

#[test]
fn a_report_streamed_through_the_decoder_reads_as_the_report() {
    for (report, repz) in [(gunzip(TWO_PROCESS), FRAMES), (gunzip(PROBE), PROBE_REPZ)] {
        let want = ncu_rep::read_export(&report).expect("report reads");
        // A small buffer, so the report reader's reads cross frames and blocks.
        let stream = std::io::BufReader::with_capacity(1000, repz);
        let got = ncu_rep::read_export_from(Decoder::new(stream, FOUR_GIB)).expect("repz reads");
        assert_eq!(got, want);
    }
}

#[test]
fn a_cut_stream_says_where_it_ends() {
    for cut in [3, 10, ONE_FRAME.len() / 2, ONE_FRAME.len() - 1] {
        let e = decoded(&ONE_FRAME[..cut]).expect_err("cut");
        assert!(
            matches!(e, ZstdError::Truncated { offset, .. } if offset <= cut as u64),
            "cut at {cut}: {e}"
        );
    }
    // A cut between frames is the end of a shorter stream: the report reader says what
    // is missing.
    let e = decoded(&SKIPPABLE[..20]).expect_err("cut in the skippable frame");
    assert_eq!(
        e.to_string(),
        "byte 20 of the zstd stream: it ends inside a skippable frame (at byte 0, 16 bytes \
         declared) (the file is cut short)"
    );
}

#[test]
fn a_checksum_that_does_not_match_is_refused_with_its_byte() {
    let mut bad = ONE_FRAME.to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 0x55;
    let e = decoded(&bad).expect_err("checksum");
    assert!(
        matches!(e, ZstdError::Checksum { offset, frame: 1, .. } if offset == last as u64 - 3),
        "{e}"
    );
    assert!(e.to_string().contains("checksum"), "{e}");
    // The report reader above it fails too, rather than keep a report that may be wrong.
    let e = ncu_rep::read_export_from(Decoder::new(&bad[..], FOUR_GIB)).expect_err("refused");
    assert!(e.to_string().contains("checksum"), "{e}");
}

#[test]
fn bytes_that_are_no_frame_are_refused_with_their_byte() {
    let mut bad = ONE_FRAME.to_vec();
    bad.extend(b"NVR\0 not a frame");
    let e = decoded(&bad).expect_err("junk after the frame");
    assert!(
        matches!(e, ZstdError::Corrupt { offset, frame: 2, .. } if offset >= ONE_FRAME.len() as u64),
        "{e}"
    );
}

#[test]
fn four_gib_of_zeros_in_128_kib_are_judged_from_their_first_64_kib() {
    let bomb = rle_frame(FOUR_GIB, 0);
    assert!(bomb.len() < 200 << 10, "{}", bomb.len());
    let mut decoder = Decoder::new(&bomb[..], FOUR_GIB);
    let mut head = Vec::new();
    (&mut decoder)
        .take(64 << 10)
        .read_to_end(&mut head)
        .expect("decodes");
    assert_eq!(head.len(), 64 << 10);
    // What capture and the viewer both do with those bytes.
    assert_eq!(
        refused_inside(&head, "un-zstd").as_deref(),
        Some(
            "byte 0 (after un-zstd): binary data (0x00), neither an Nsight Compute report nor a \
             CSV export or artifact"
        )
    );
    // Past a cap, the read that passes it fails.
    let e = decode_all(&rle_frame(1 << 20, b'a'), 1000).expect_err("capped");
    assert!(
        matches!(e, ZstdError::TooLarge { max_bytes: 1000, .. }),
        "{e}"
    );
}

#[test]
fn a_stream_compressed_twice_and_text_without_lines_are_refused_from_their_start() {
    let twice = refused_inside(ONE_FRAME, "un-zstd");
    assert_eq!(
        twice.as_deref(),
        Some("byte 0 (after un-zstd): zstd data again, compressed twice; un-compress it first")
    );
    let lines = decoded(&rle_frame(1 << 20, b'a')).expect("decodes");
    let why = refused_inside(&lines, "un-zstd").expect("refused");
    assert!(why.starts_with("byte 65536 (after un-zstd): neither"), "{why}");
    // What the readers take is not refused.
    assert_eq!(refused_inside(&gunzip(TWO_PROCESS), "un-zstd"), None);
}
