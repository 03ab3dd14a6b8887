//! Issue 25: hostile inputs and careless surroundings. A reader that closes the pipe early
//! ends the command quietly with status 0; a full disk on standard output is an error with
//! a message, never a panic; a full standard error does not turn a finished command into a
//! failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::*;

/// A real `capture run` artifact of the H200 (the site's sample).
fn golden() -> PathBuf {
    sample_file("h200.json")
}

/// Every command that prints to standard output and needs no GPU, with its arguments; the
/// import and merge ones write their artifact into `dir`.
fn printing_commands(dir: &Path) -> Vec<Vec<String>> {
    let g = s(&golden()).to_string();
    let raw = s(&sample_file("h200-ncu-cold-raw.csv")).to_string();
    let out = s(&dir.join("out.json")).to_string();
    let mut cmds: Vec<Vec<String>> = ["table", "csv", "markdown", "json"]
        .iter()
        .map(|f| vec!["table".into(), g.clone(), "--format".into(), (*f).into()])
        .collect();
    for format in ["table", "markdown", "json"] {
        cmds.push(
            ["diff", &g, &g, "--format", format]
                .map(String::from)
                .to_vec(),
        );
    }
    let page = s(&root().join("tests/fixtures/ncu-h200-bert/bert_full_source.csv.gz")).to_string();
    for format in ["text", "json"] {
        cmds.push(
            ["source", &page, "--kernel", "nvjet", "--format", format]
                .map(String::from)
                .to_vec(),
        );
    }
    cmds.push(vec!["schema".into()]);
    cmds.push(vec!["ncu-command".into()]);
    cmds.push(vec!["import".into(), raw.clone(), "-o".into(), out.clone()]);
    cmds.push(vec![
        "merge".into(),
        "--timings".into(),
        g,
        "--ncu".into(),
        raw,
        "-o".into(),
        out,
    ]);
    cmds
}

#[test]
fn a_reader_that_closes_the_pipe_ends_the_command_quietly() {
    let dir = tempfile::tempdir().expect("tempdir");
    for args in printing_commands(dir.path()) {
        let mut child = Command::new(capture_bin())
            .args(&args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("capture starts");
        // The only read end is closed before capture writes: every write is EPIPE.
        drop(child.stdout.take());
        let o = child.wait_with_output().expect("capture ends");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
        assert!(
            !err.contains("panicked") && !err.contains("error"),
            "{args:?}: {err}"
        );
    }
}

#[test]
fn a_full_disk_on_standard_output_is_an_error_never_a_panic() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    for args in printing_commands(dir.path()) {
        let full = std::fs::File::create("/dev/full").expect("/dev/full opens");
        let o = Command::new(capture_bin())
            .args(&args)
            .stdout(Stdio::from(full))
            .output()
            .expect("capture runs");
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert!(
            err.contains("standard output: cannot write: No space left on device"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

#[test]
fn a_full_standard_error_does_not_fail_a_finished_import() {
    if !Path::new("/dev/full").exists() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    // The details page with program output before it: the import warns (on stderr).
    let export = fixture("ncu-h200/probe_sections_details_base_units_with_stdout.csv");
    let out = dir.path().join("a.json");
    let full = std::fs::File::create("/dev/full").expect("/dev/full opens");
    let o = Command::new(capture_bin())
        .args(["import", s(&export), "-o", s(&out)])
        .stderr(Stdio::from(full))
        .output()
        .expect("capture runs");
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    assert!(
        stdout(&o).starts_with("imported 1 launch(es)"),
        "{}",
        stdout(&o)
    );
    assert!(out.exists());
}

/// Runs capture and returns (exit code, stdout, stderr).
fn run_capture(args: &[&str]) -> (Option<i32>, String, String) {
    let o = capture(args);
    (o.status.code(), stdout(&o), stderr(&o))
}

#[test]
fn endless_or_binary_inputs_are_refused_at_once() {
    if !Path::new("/dev/zero").exists() {
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("out.json");
    let raw = sample_file("h200-ncu-cold-raw.csv");
    // An artifact (merge's timings) is refused as an artifact, a run (table's input, an
    // artifact or an export) as an export: either from its first bytes.
    let (code, _, err) = run_capture(&["table", "/dev/zero"]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.starts_with(
            "error: /dev/zero: byte 0: neither a CSV text export (binary data on line 1) nor an \
             Nsight Compute report"
        ),
        "{err}"
    );
    let args = [
        "merge",
        "--timings",
        "/dev/zero",
        "--ncu",
        s(&raw),
        "-o",
        s(&out),
    ];
    let (code, _, err) = run_capture(&args);
    assert_eq!(code, Some(1), "{args:?}: {err}");
    assert!(
        err.starts_with("error: /dev/zero: byte 0: binary data (0x00), not an artifact"),
        "{args:?}: {err}"
    );
    // Every other file argument: exports and reports (import, merge, diff) and the inputs
    // of `source`, refused from their first bytes rather than read to the end.
    let page = root().join("tests/fixtures/ncu-h200-bert/bert_full_source.csv.gz");
    let timings = s(&golden()).to_string();
    for args in [
        vec!["import", "/dev/zero", "-o", s(&out)],
        vec![
            "merge",
            "--timings",
            &timings,
            "--ncu",
            "/dev/zero",
            "-o",
            s(&out),
        ],
        vec![
            "merge",
            "--timings",
            &timings,
            "--ncu",
            s(&raw),
            "--ncu-warm",
            "/dev/zero",
            "-o",
            s(&out),
        ],
        vec!["diff", "/dev/zero", &timings],
        vec!["diff", &timings, "/dev/zero"],
        vec!["source", "/dev/zero", "--kernel", "."],
        vec![
            "source",
            s(&page),
            "--kernel",
            "nvjet",
            "--sass",
            "/dev/zero",
        ],
    ] {
        let (code, _, err) = run_capture(&args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.starts_with("error: /dev/zero: byte 0") && err.contains("binary data"),
            "{args:?}: {err}"
        );
    }
    // A report given to `table` is read as every read-only command reads it (issue 52: it
    // was refused here and read by `explain`).
    let report = sample_file("h200-two-process.ncu-rep");
    let (code, out, err) = run_capture(&["table", s(&report)]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.starts_with("device "), "{out}");
}

#[test]
fn text_of_no_kind_is_refused_from_its_first_64_kib() {
    // A megabyte of printable junk without line ends, plain and gzipped (the gzip of a
    // gigabyte of one letter was read to the 4 GiB cap before it was refused; issue 39).
    let dir = tempfile::tempdir().expect("tempdir");
    let junk = dir.path().join("junk.txt");
    std::fs::write(&junk, b"0123456789abcdef".repeat(1 << 16)).expect("write");
    let gz = dir.path().join("junk.txt.gz");
    let bytes = std::fs::read(&junk).expect("read");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    std::io::Write::write_all(&mut enc, &bytes).expect("gzip");
    std::fs::write(&gz, enc.finish().expect("gzip")).expect("write");
    let out = dir.path().join("out.json");
    let (junk, gz) = (s(&junk), s(&gz));
    // Text in lines may be an export (the program's output comes before ncu's header), but
    // neither an artifact nor a source page: those commands refuse it from its first byte.
    let lines = dir.path().join("lines.txt");
    std::fs::write(&lines, b"lines 0123456789abcdef\n".repeat(1 << 16)).expect("write");
    let lines = s(&lines);
    for (args, say) in [
        (
            vec!["table", lines],
            "line 1: not an Nsight Compute CSV export",
        ),
        (
            vec!["source", lines, "--kernel", "."],
            "byte 0: neither a report nor a source-page",
        ),
        (
            vec!["source", junk, "--kernel", "."],
            "byte 65536: neither a report",
        ),
        (
            vec!["source", gz, "--kernel", "."],
            "byte 65536 (after gunzip): neither",
        ),
        (vec!["table", junk], "byte 65536: neither a CSV text export"),
        (
            vec!["import", junk, "-o", s(&out)],
            "byte 65536: neither a CSV text export",
        ),
    ] {
        let (code, _, err) = run_capture(&args);
        assert_eq!(code, Some(1), "{args:?}: {err}");
        assert!(
            err.contains(say) && err.contains("0123456789abcdef"),
            "{args:?}: {err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn an_output_that_is_an_input_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let export = dir.path().join("x.csv");
    std::fs::copy(sample_file("h200-ncu-cold-raw.csv"), &export).expect("copy");
    let before = std::fs::read(&export).expect("read");
    // The same file by another spelling of its path.
    let other = dir.path().join(".").join("x.csv");
    let (code, _, err) = run_capture(&["import", s(&export), "-o", s(&other)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is also an input"), "{err}");
    assert_eq!(
        std::fs::read(&export).expect("read"),
        before,
        "the export is intact"
    );
    let timings = dir.path().join("t.json");
    std::fs::copy(golden(), &timings).expect("copy");
    let (code, _, err) = run_capture(&[
        "merge",
        "--timings",
        s(&timings),
        "--ncu",
        s(&export),
        "-o",
        s(&export),
    ]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(std::fs::read(&export).expect("read"), before);
}

#[test]
fn hostile_kernel_names_are_neutralized_in_every_table_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(dir.path(), &[fixture("bad/hostile_names.csv")]);
    for format in ["table", "csv", "markdown"] {
        let (code, out, err) = run_capture(&["table", s(&art), "--format", format]);
        assert_eq!(code, Some(0), "{err}");
        for raw in ['\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(!out.contains(raw), "{format}: {raw:?} written raw: {out:?}");
        }
        assert!(out.contains("\\u{1b}[2J"), "{format}: {out}");
        // The newline in the name does not split its row: one row per kernel.
        let rows = out.lines().filter(|l| l.contains("evil")).count();
        assert_eq!(rows, 1, "{format}: {out}");
        if format == "csv" {
            // The hostile names hold no comma or quote: every cell is a plain field.
            for cell in out.lines().flat_map(|l| l.split(',')) {
                let first = cell.trim_start_matches('"').chars().next();
                assert!(
                    !(matches!(first, Some('=' | '+' | '@' | '\t' | '\r'))
                        || first == Some('-') && cell.parse::<f64>().is_err()),
                    "formula cell {cell:?}"
                );
            }
            assert!(out.contains("'=cmd|' /C calc'!A0"), "{out}");
        }
        if format == "markdown" {
            assert!(out.contains("\\|x\\ny"), "{out}");
        }
    }
}

#[test]
fn a_file_name_with_a_newline_stays_on_one_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = dir.path().join("two\nlines.json");
    std::fs::write(&bad, b"null").expect("write");
    let (code, _, err) = run_capture(&["table", s(&bad)]);
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err:?}");
    assert!(err.contains("two\\nlines.json"), "{err:?}");
}

#[test]
fn a_profile_output_that_is_a_file_of_the_program_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let script = dir.path().join("train.py");
    std::fs::write(&script, b"print(1)\n").expect("write");
    // Refused before ncu is looked for: no Nsight Compute is needed to see the mistake.
    let (code, _, err) = run_capture(&["profile", "-o", s(&script), "--", "python3", s(&script)]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("is also an input"), "{err}");
    assert_eq!(std::fs::read(&script).expect("read"), b"print(1)\n");
}

/// Whether `text` holds a control character other than a newline, or a bidi override.
fn raw_controls(text: &str) -> Option<char> {
    text.chars()
        .find(|&c| (c.is_control() && c != '\n') || c == '\u{202e}')
}

#[test]
fn hostile_names_are_escaped_in_diff_source_and_warnings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(dir.path(), &[fixture("bad/hostile_names.csv")]);
    let a = s(&art);
    for format in ["table", "markdown"] {
        let (code, out, err) = run_capture(&["diff", a, a, "--format", format]);
        assert_eq!(code, Some(0), "{err}");
        assert_eq!(raw_controls(&out), None, "diff {format}: {out:?}");
        assert!(out.contains("\\u{1b}[2J"), "diff {format}: {out}");
        let rows = out.lines().filter(|l| l.contains("evil")).count();
        assert_eq!(rows, 1, "diff {format}: the newline split the row: {out}");
    }
    // A source page whose kernel name and SASS carry terminal escapes.
    let page = dir.path().join("source.csv");
    std::fs::write(
        &page,
        "\"Kernel Name\",\"evil\u{1b}[2J\u{202e}k(int)\",\n\
         \"Address\",\"Source\",\"# Samples\",\"Instructions Executed\"\n\
         \"0x10\",\"  LDG\u{1b}]52;c;aGk=\u{7} R2\",\"7\",\"1,024\"\n",
    )
    .expect("write");
    let (code, out, err) = run_capture(&["source", s(&page), "--kernel", "."]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(raw_controls(&out), None, "source: {out:?}");
    assert!(out.contains("evil\\u{1b}[2J\\u{202e}k(int)"), "{out}");
    // Warnings quoting such names (two kernels given one launch ID) stay on one line.
    let text = std::fs::read_to_string(fixture("bad/hostile_names.csv")).expect("read");
    let dup = dir.path().join("dup.csv");
    std::fs::write(
        &dup,
        text.replace("\"1\",\"656\",\"cprobe\"", "\"0\",\"656\",\"cprobe\""),
    )
    .expect("write");
    let out_json = dir.path().join("dup.json");
    let (code, _, err) = run_capture(&["import", s(&dup), "-o", s(&out_json)]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(raw_controls(&err), None, "{err:?}");
    let warning = err
        .lines()
        .find(|l| l.contains("is both"))
        .unwrap_or_else(|| panic!("no collision warning: {err}"));
    assert!(
        warning.contains("\\u{1b}[2J") && warning.contains("|x\\ny"),
        "{warning}"
    );
}
