//! `.ncu-repz` reports (zstd streams, `tests/fixtures/ncu-repz/`: one frame, several frames, a
//! skippable frame in front) read by every command that reads a `.ncu-rep`, with the same
//! results; and broken ones (cut, a checksum that does not match, 4 GiB of zeros in 128 KiB)
//! refused in one line naming the file and the byte, within a second.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::util::*;

/// The `.ncu-repz` fixture `name`.
fn repz(name: &str) -> PathBuf {
    fixture(&format!("ncu-repz/{name}.ncu-repz"))
}

/// `capture ARGS`' standard output, the command having succeeded.
fn ok(args: &[&str]) -> String {
    let o = capture(args);
    assert!(o.status.success(), "{args:?}: {}", stderr(&o));
    stdout(&o)
}

/// The artifact `capture import` writes of `input`, without its provenance (which names the
/// file), and its warnings' file names without the `.ncu-repz`'s `z`.
fn imported(dir: &Path, input: &Path) -> Value {
    let out = dir.join("out.json");
    ok(&["import", s(input), "-o", s(&out)]);
    let text = std::fs::read_to_string(&out).expect("artifact");
    let mut artifact: Value =
        serde_json::from_str(&text.replace(".ncu-repz:", ".ncu-rep:")).expect("JSON");
    artifact
        .as_object_mut()
        .expect("an object")
        .remove("provenance");
    artifact
}

#[test]
fn import_reads_each_ncu_repz_as_its_ncu_rep() {
    let dir = tempfile::tempdir().expect("tempdir");
    let two = gunzip_fixture(dir.path(), "ncu-h200-reports/two_process.ncu-rep.gz");
    let want = imported(dir.path(), &two);
    assert_eq!(want["kernels"].as_array().map(Vec::len), Some(2));
    for name in ["two_process", "two_process_frames", "two_process_skippable"] {
        assert!(imported(dir.path(), &repz(name)) == want, "{name}");
    }
    let probe = gunzip_fixture(dir.path(), "ncu-h200/probe_full.ncu-rep.gz");
    assert!(imported(dir.path(), &repz("probe_full")) == imported(dir.path(), &probe));
}

#[test]
fn source_explain_and_diff_read_a_ncu_repz_as_its_ncu_rep() {
    let dir = tempfile::tempdir().expect("tempdir");
    let rep = gunzip_fixture(dir.path(), "ncu-h200/probe_full.ncu-rep.gz");
    let repz = repz("probe_full");
    for args in [
        &[
            "source",
            "--kernel",
            ".",
            "--all-launches",
            "--format",
            "json",
        ][..],
        &["explain", "--format", "json"],
    ] {
        let (cmd, rest) = args.split_first().expect("a command");
        let run = |input: &Path| {
            let mut all = vec![*cmd, s(input)];
            all.extend(rest);
            ok(&all)
        };
        let (from_rep, from_repz) = (run(&rep), run(&repz));
        assert!(from_rep.len() > 100, "{cmd}: {from_rep}");
        assert_eq!(
            from_repz.replace("probe_full.ncu-repz", "probe_full.ncu-rep"),
            from_rep,
            "{cmd}"
        );
    }
    let diff = ok(&["diff", s(&rep), s(&repz), "--format", "json"]);
    let diff: Value = serde_json::from_str(&diff).expect("diff's JSON");
    assert_eq!(diff["total"]["change_pct"], 0.0, "{diff}");
}

#[test]
fn broken_ncu_repz_are_refused_in_one_line_within_a_second() {
    let dir = tempfile::tempdir().expect("tempdir");
    let good = std::fs::read(repz("two_process")).expect("fixture");
    let write = |name: &str, bytes: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, bytes).expect("write");
        path
    };
    let cut = write("cut.ncu-repz", &good[..good.len() / 2]);
    let mut flipped = good.clone();
    if let Some(last) = flipped.last_mut() {
        *last ^= 0x55;
    }
    let checksum = write("checksum.ncu-repz", &flipped);
    let bomb = write(
        "zeros.ncu-repz",
        &shared::testing::zstd_rle_frame(4 << 30, 0),
    );
    let out = dir.path().join("out.json");
    for (input, say) in [
        (
            &cut,
            "of the zstd stream: it ends inside frame 1 (the file is cut short)",
        ),
        (&checksum, "of the zstd stream: frame 1's checksum is"),
        (
            &bomb,
            "byte 0 (after un-zstd): binary data (0x00), neither an Nsight Compute report",
        ),
    ] {
        for args in [
            vec!["import", s(input), "-o", s(&out)],
            vec!["source", s(input), "--kernel", "."],
            vec!["explain", s(input)],
        ] {
            // The best of three: the machine may be busy with other tests.
            let (o, took) = (0..3)
                .map(|_| {
                    let started = Instant::now();
                    (capture(&args), started.elapsed())
                })
                .min_by_key(|(_, took)| *took)
                .expect("three runs");
            let err = stderr(&o);
            assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
            assert!(
                err.contains(s(input)) && err.contains(say),
                "{args:?}: {err}"
            );
            assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
            assert!(took < Duration::from_secs(1), "{args:?}: {took:?}");
        }
    }
    assert!(!out.exists());
}
