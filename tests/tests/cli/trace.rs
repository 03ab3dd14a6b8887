//! `capture trace` on this machine (no GPU): what it needs and says before anything runs,
//! and what it says when nothing was recorded. Real traces of the H200 are read in
//! `trace_h200`.

use crate::util::*;

#[test]
fn a_missing_injection_library_is_named_with_how_to_build_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("t.json");
    let o = capture(&[
        "trace",
        "--inject",
        "/no/such/libroofline_inject.so",
        "-o",
        s(&out),
        "--",
        "true",
    ]);
    assert!(!o.status.success());
    let err = stderr(&o);
    assert!(
        err.contains("--inject /no/such/libroofline_inject.so: no such file"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn a_program_that_never_starts_cuda_records_nothing_and_says_so() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = dir.path().join("lib.so");
    std::fs::write(&fake, b"not a library").expect("write");
    let out = dir.path().join("t.json");
    let o = capture(&[
        "trace",
        "--inject",
        s(&fake),
        "--cupti",
        s(&fake),
        "-o",
        s(&out),
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(11), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("nothing recorded: no process of true initialized CUDA"),
        "{err}"
    );
    assert!(err.contains("exited with status 0"), "{err}");
    assert!(!out.exists());
}

#[test]
fn a_records_folder_of_an_earlier_run_is_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let fake = dir.path().join("lib.so");
    std::fs::write(&fake, b"x").expect("write");
    let records = dir.path().join("rec");
    std::fs::create_dir_all(&records).expect("mkdir");
    std::fs::write(records.join("12.rltrace"), b"RLTRACE1").expect("write");
    let o = capture(&[
        "trace",
        "--inject",
        s(&fake),
        "--cupti",
        s(&fake),
        "--records",
        s(&records),
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("records of an earlier run"),
        "{}",
        stderr(&o)
    );
}

/// Several ranks of a job may not share one trace file: with torchrun's variables set and an
/// `-o` without `{rank}`, `capture trace` refuses before it runs anything, and says how.
#[test]
fn ranks_of_a_job_need_their_own_trace_files() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("trace.json");
    let o = std::process::Command::new(capture_bin())
        .args(["trace", "-o", s(&out), "--", "true"])
        .env("RANK", "1")
        .env("LOCAL_RANK", "1")
        .env("WORLD_SIZE", "2")
        .env("LOCAL_WORLD_SIZE", "2")
        .output()
        .expect("capture runs");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("{rank}"), "{}", stderr(&o));
    assert!(!out.exists());
}
