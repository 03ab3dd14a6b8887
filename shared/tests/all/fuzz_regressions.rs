//! Inputs that made a fuzz target (`fuzz/`) fail, kept under
//! `tests/fixtures/fuzz-regressions/<target>/` and run through the very checks the targets
//! run: `fuzz/src/lib.rs` is included here as a module, so this test and the fuzzer cannot
//! drift apart. A check panics when a result is not sensible (see that file).
//!
//! Each per-target test runs every saved input of its target: a fixed bug's input must pass,
//! and the input of a bug still open (listed in [`OPEN`]) must still fail, so that the fix
//! of an open bug shows here as a reminder to move its input out of the list. Each open bug
//! also has an ignored test that runs its input as it should behave once fixed:
//! `cargo test -p roofline-shared --test all fuzz_regressions:: -- --ignored` shows what is left.

// shared/clippy.toml bans file I/O in the crate; this test, not the library, reads the saved
// inputs from disk.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use shared::error::NcuError;

// The fuzz crate is not a workspace member (it needs nightly and libFuzzer); its checks
// need only `shared` and `serde_json`, so the file compiles here as it is. The checks of
// targets without saved inputs, and the fuzz runs' switches, go unused here.
#[allow(
    dead_code,
    clippy::expect_used,
    clippy::panic,
    reason = "the fuzz targets' checks report a failure by panicking, as libFuzzer expects"
)]
#[path = "../../../fuzz/src/lib.rs"]
mod checks;

/// Inputs of open bugs, as (target, file name); each gets an ignored test below. Empty:
/// every bug found so far is fixed (fuzz/README.md lists them).
const OPEN: &[(&str, &str)] = &[];

fn regressions_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/fuzz-regressions")
}

fn read(target: &str, name: &str) -> Vec<u8> {
    let path = regressions_dir().join(target).join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The file names of the saved inputs of one target, sorted.
fn input_names(target: &str) -> Vec<String> {
    let dir = regressions_dir().join(target);
    let entries =
        std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
    let mut names: Vec<String> = entries
        .map(|entry| {
            let entry = entry.unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
            entry.file_name().to_string_lossy().into_owned()
        })
        .collect();
    names.sort();
    names
}

/// Runs `check` on every saved input of `target`: inputs of fixed bugs must pass, inputs of
/// open bugs must still fail. Fails naming every input that did otherwise.
fn run_all(target: &str, check: impl Fn(&[u8])) {
    let names = input_names(target);
    assert!(!names.is_empty(), "no saved inputs for {target}");
    let mut wrong = Vec::new();
    for name in &names {
        let data = read(target, name);
        let passed = catch_unwind(AssertUnwindSafe(|| check(&data))).is_ok();
        let open = OPEN.iter().any(|(t, f)| *t == target && f == name);
        match (open, passed) {
            (false, false) => wrong.push(format!("{target}/{name}: fails again")),
            (true, true) => wrong.push(format!(
                "{target}/{name}: passes now; take it out of OPEN and drop its ignored test"
            )),
            _ => {}
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn structured_prefixes_start_past_header_detection() {
    // The structured target puts these real headers in front of its input; the reader must
    // recognize each of them, or the target fuzzes header detection only.
    let prefixes = checks::structured_prefixes();
    assert_eq!(prefixes.len(), 5);
    for prefix in &prefixes {
        match shared::read::ncu::read_export(prefix.as_bytes()) {
            Err(NcuError::NoRows { .. } | NcuError::NoUnitsRow { .. }) => {}
            other => panic!("prefix {prefix:.60?}... read as {other:?}"),
        }
    }
}

#[test]
fn artifact_inputs() {
    run_all("artifact_json", checks::artifact_json);
}

#[test]
fn merge_inputs() {
    run_all("merge_table", checks::merge_table);
}

#[test]
fn report_inputs() {
    run_all("ncu_rep", checks::ncu_rep);
}

#[test]
fn report_checks_pass_on_a_real_report_and_its_cuts() {
    // The checks of the report target must hold for a real report, cut anywhere: at frame
    // boundaries of its first results and a byte either side (the fuzzer's seeds are such
    // cuts, `fuzz/seeds.py`), and at a few places in between.
    let gz = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/ncu-h200-reports/two_process.ncu-rep.gz"),
    )
    .expect("fixture");
    let report = crate::support::unpack(&gz);
    checks::ncu_rep(&report);
    // Where its frames start (file header, block headers, messages; `ncu_rep::outline`).
    let frames = [10, 145, 5522, 32523, 87935, 96412, 102975, 157080];
    for cut in frames.iter().flat_map(|&f| [f - 1, f, f + 1, f + 4]) {
        checks::ncu_rep(&report[..cut]);
    }
    for cut in (0..report.len()).step_by(49_999) {
        checks::ncu_rep(&report[..cut]);
    }
}

#[test]
fn zstd_checks_pass_on_the_ncu_repz_fixtures_and_their_cuts() {
    // The checks of the zstd target must hold for each `.ncu-repz` fixture that fits its
    // cap (one frame, five frames, a skippable frame in front), cut anywhere, and changed
    // in a byte.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/ncu-repz");
    for name in [
        "two_process.ncu-repz",
        "two_process_frames.ncu-repz",
        "two_process_skippable.ncu-repz",
    ] {
        let repz = std::fs::read(dir.join(name)).expect("fixture");
        checks::zstd(&repz);
        for cut in (0..repz.len()).step_by(997) {
            checks::zstd(&repz[..cut]);
        }
        for at in (0..repz.len()).step_by(1999) {
            let mut changed = repz.clone();
            changed[at] ^= 0x20;
            checks::zstd(&changed);
        }
    }
}

#[test]
fn source_page_checks_pass_on_the_real_page_and_hostile_names() {
    // The BERT `--set full` source page (43 launches), whole and cut inside its rows.
    let gz = std::fs::read(regressions_dir().join("../ncu-h200-bert/bert_full_source.csv.gz"))
        .expect("the BERT source page");
    let page = crate::support::unpack(&gz);
    checks::source_page(&page);
    for cut in [1, 100, 5_000, 77_777] {
        checks::source_page(&page[..cut.min(page.len())]);
    }
    // A kernel name and SASS with terminal escapes and a bidi override: escaped in the text.
    checks::source_page(
        "\"Kernel Name\",\"evil\u{1b}[2J\u{202e}k(int)\",\n\
         \"Address\",\"Source\",\"# Samples\",\"Instructions Executed\"\n\
         \"0x10\",\"  LDG\u{1b}]52;c;aGk=\u{7} R2\",\"7\",\"1,024\"\n"
            .as_bytes(),
    );
}

#[test]
fn source_page_inputs() {
    run_all("source_page", checks::source_page);
}

#[test]
fn diff_checks_pass_on_the_committed_runs_and_an_empty_side() {
    // The committed H200 runs (`tests/fixtures/diff`), each against each, as the diff target
    // gets them (`before 0xFF after`), and against an artifact with no kernels.
    let run = |name: &str| {
        let gz = std::fs::read(regressions_dir().join("../diff").join(name)).expect("fixture");
        crate::support::unpack(&gz)
    };
    let runs = [
        run("run1.json.gz"),
        run("run2.json.gz"),
        run("run_size2x.json.gz"),
    ];
    let empty = br#"{"schema": 1, "kernels": []}"#.to_vec();
    let joined = |a: &[u8], b: &[u8]| [a, &[checks::PART_SEPARATOR], b].concat();
    for a in runs.iter().chain([&empty]) {
        for b in runs.iter().chain([&empty]) {
            checks::diff(&joined(a, b));
        }
    }
}

#[test]
fn source_checks_pass_on_the_suite_report_with_its_pages() {
    // The suite's report with imported sources against its `cuda,sass` and `sass` pages and
    // no page (the source target's input: `u32 length, report, page`).
    let fixture = |name: &str| {
        let gz = std::fs::read(
            regressions_dir()
                .join("../ncu-h200-suite-source")
                .join(name),
        )
        .expect("fixture");
        crate::support::unpack(&gz)
    };
    let report = fixture("suite_src.ncu-repz");
    let length = u32::try_from(report.len()).expect("small").to_le_bytes();
    for page in [
        fixture("suite_src_cuda_sass.csv.gz"),
        fixture("suite_src_sass.csv.gz"),
        Vec::new(),
    ] {
        checks::source(&[&length[..], &report, &page].concat());
    }
    // A report cut inside its first result: refused alike, whole and streamed.
    checks::source(&[&100_000u32.to_le_bytes()[..], &report[..100_000]].concat());
}
