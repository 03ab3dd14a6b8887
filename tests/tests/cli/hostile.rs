//! Issue 25: hostile inputs and careless surroundings. A reader that closes the pipe early
//! ends the command quietly with status 0; a full disk on standard output is an error with
//! a message, never a panic; a full standard error does not turn a finished command into a
//! failure.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::util::*;

/// A real `capture run` artifact of the H200 (the site's sample).
fn golden() -> PathBuf {
    root().join("site/samples/h200.json")
}

/// Every command that prints to standard output and needs no GPU, with its arguments; the
/// import and merge ones write their artifact into `dir`.
fn printing_commands(dir: &Path) -> Vec<Vec<String>> {
    let g = s(&golden()).to_string();
    let raw = s(&root().join("site/samples/h200-ncu-cold-raw.csv")).to_string();
    let out = s(&dir.join("out.json")).to_string();
    let mut cmds: Vec<Vec<String>> = ["table", "csv", "markdown", "json"]
        .iter()
        .map(|f| vec!["table".into(), g.clone(), "--format".into(), (*f).into()])
        .collect();
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
