//! `.ncu-repz` reports (zstd streams) through `shared::read::zstd`: the fixtures of
//! `tests/fixtures/ncu-repz/` (one frame, several frames, a skippable frame in front, made
//! with the `zstd` command by its `make.sh`) decode to their `.ncu-rep` byte for byte and read
//! to the same launches; broken streams made from them end in an error naming the byte (the
//! streams made by hand are tested beside the decoder, `shared/src/read/zstd.rs`).

use shared::error::ZstdError;
use shared::read::kind::{kind_of, FileKind};
use shared::read::ncu_rep;
use shared::read::zstd::{decode_all, Decoder};

use crate::support::unpack;

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

/// What a decoder reading `bytes` ends with: the bytes, or the error.
fn decoded(bytes: &[u8]) -> Result<Vec<u8>, ZstdError> {
    decode_all(bytes, FOUR_GIB)
}

#[test]
fn one_frame_several_frames_and_a_skippable_frame_decode_to_the_report() {
    let report = unpack(TWO_PROCESS);
    for (name, repz) in [
        ("one frame", ONE_FRAME),
        ("5 frames", FRAMES),
        ("skippable", SKIPPABLE),
    ] {
        assert_eq!(kind_of(repz), FileKind::Zstd, "{name}");
        assert!(decoded(repz).expect(name) == report, "{name}");
    }
    assert!(decoded(PROBE_REPZ).expect("probe") == unpack(PROBE));
}

#[test]
fn a_report_streamed_through_the_decoder_reads_as_the_report() {
    for (report, repz) in [(unpack(TWO_PROCESS), FRAMES), (unpack(PROBE), PROBE_REPZ)] {
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
