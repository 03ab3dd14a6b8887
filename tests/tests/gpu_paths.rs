//! The GPU half of `capture` on a machine without a GPU: the no-driver error path of
//! `devices` and `run`, `ncu-command`, and `capture profile` driven through fake `ncu`
//! programs that replay real H200 exports or fail the ways ncu and the profiled program fail
//! (no counter permission, killed, hung, missing; a program that is missing, exits non-zero
//! before or after launches were profiled, or launches nothing the filters let through).

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "an integration test reports a failure by panicking; clippy.toml's allow-*-in-tests covers only #[test] functions, not their helpers"
)]

#[allow(dead_code)]
#[path = "cli/util.rs"]
mod util;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use util::{capture, fixture, s, stderr, stdout};

/// Whether this machine has a CUDA driver library (then the no-GPU tests do not apply).
fn has_driver() -> bool {
    std::process::Command::new("ldconfig")
        .arg("-p")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("libcuda.so"))
        .unwrap_or(false)
        || Path::new("/usr/lib/x86_64-linux-gnu/libcuda.so.1").exists()
}

#[test]
fn devices_without_a_driver_exits_3_and_points_at_the_samples() {
    if has_driver() {
        eprintln!("a CUDA driver is installed here; no-GPU path not testable");
        return;
    }
    for args in [vec!["devices"], vec!["devices", "--json"]] {
        let o = capture(&args);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains("no NVIDIA driver"), "{err}");
        assert!(err.contains("site/samples/"), "{err}");
        assert!(stdout(&o).is_empty());
    }
}

#[test]
fn run_without_a_driver_exits_3_and_writes_nothing() {
    if has_driver() {
        eprintln!("a CUDA driver is installed here; no-GPU path not testable");
        return;
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("r.json");
    // With and without the ncu pass: no driver is reported before a missing ncu.
    for extra in [vec!["--no-profile"], vec!["--ncu", "/nonexistent/ncu"]] {
        let mut args = vec!["run", "-o", s(&out)];
        args.extend(extra);
        let o = capture(&args);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(stderr(&o).contains("Viewing artifacts needs no GPU"));
        assert!(!out.exists(), "nothing half-written");
    }
}

#[test]
fn run_rejects_unknown_kernels_and_zero_reps_as_usage_errors() {
    let o = capture(&["run", "--kernels", "vector_add,warp_drive", "--no-profile"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("unknown kernel 'warp_drive'"));
    let o = capture(&["run", "--reps", "0", "--no-profile"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn ncu_command_prints_the_profile_half_with_suite_launch_counts() {
    let o = capture(&["ncu-command", "--kernels", "vector_add,vector_add_stride32"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.contains("-k 'regex:^(vector_add|vector_add_stride32)$' -c 2 --metrics"),
        "{text}"
    );
    assert!(text.contains("--clock-control none --cache-control all --replay-mode kernel"));
    assert!(text.contains("--cache-control none --replay-mode application"));
    assert!(text.contains("run --profile-mode --device 0 --kernels vector_add,vector_add_stride32"));
    assert!(text.contains("--csv --page details --print-units base > capture-ncu-warm-details.csv"));
    assert!(text.contains("merge --timings timings.json --ncu capture-ncu-cold-raw.csv"));
    let o = capture(&["ncu-command", "--cache", "cold"]);
    assert!(o.status.success());
    assert!(!stdout(&o).contains("--ncu-warm"));
}

/// Writes an executable fake `ncu` whose collection step runs `collect` (bash) and whose
/// import step prints the real fixture pages. Every call appends its arguments to `calls`
/// beside it ([`ncu_calls`]).
fn fake_ncu(dir: &Path, collect: &str) -> PathBuf {
    let raw = fixture("ncu-h200/probe_full_raw.csv");
    let details = fixture("ncu-h200/probe_full_details.csv");
    let script = format!(
        r#"#!/usr/bin/env bash
echo "$@" >> "$(dirname "$0")/calls"
if [ "$1" = "--version" ]; then
  echo "NVIDIA (R) Nsight Compute Command Line Profiler"
  echo "Version 2025.3.1.0 (build 36398880) (public-release)"
  exit 0
fi
if [ "$1" = "--import" ]; then
  case "$*" in
    *"--page raw"*) cat '{raw}' ;;
    *"--page details"*) cat '{details}' ;;
  esac
  exit 0
fi
# Collection: ncu -f -o BASE ... PROGRAM
BASE="$3"
{collect}
"#,
        raw = raw.display(),
        details = details.display(),
    );
    let path = dir.join("ncu");
    std::fs::write(&path, script).expect("write fake ncu");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// The argument lists the fake `ncu` in `dir` was called with, one per call.
fn ncu_calls(dir: &Path) -> Vec<String> {
    std::fs::read_to_string(dir.join("calls"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// What ncu prints for one profiled launch.
const PROFILED: &str = r#"echo '==PROF== Profiling "copy" - 0: 0%....50%....100% - 9 passes'"#;

#[test]
fn profile_through_a_fake_ncu_writes_an_artifact_from_the_replayed_exports() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(
        dir.path(),
        r#"echo "==PROF== Connected to process 1"; echo "program output"; touch "$BASE.ncu-rep"; exit 0"#,
    );
    let out = dir.path().join("p.json");
    let o = capture(&[
        "profile",
        "--ncu",
        s(&ncu),
        "--keep-exports",
        "-o",
        s(&out),
        "--kernel-name",
        "copy",
        "--",
        "python3",
        "script.py",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("artifact")).expect("json");
    assert_eq!(a["provenance"]["origin"], "profile");
    assert_eq!(a["provenance"]["ncu_version"], "2025.3.1.0");
    let cmd = a["provenance"]["ncu_commands"][0]
        .as_str()
        .unwrap_or_default();
    assert!(cmd.contains("-k regex:copy"), "{cmd}");
    assert!(cmd.contains(" python3 script.py > "), "{cmd}");
    assert_eq!(a["kernels"][0]["function"], "copy");
    let cold = &a["kernels"][0]["cold"];
    let column = cold["metric_columns"]
        .as_array()
        .and_then(|c| c.iter().position(|k| k["name"] == "dram__bytes_read.sum"))
        .expect("a DRAM read column");
    assert!(cold["launches"][0]["metrics"][column].is_number());
    // --keep-exports leaves the pages beside the artifact, program output kept out.
    let raw = std::fs::read_to_string(dir.path().join("p-ncu-cold-raw.csv")).expect("raw page");
    assert!(raw.starts_with("\"ID\""), "clean CSV");
    assert!(stdout(&o).contains("copy"), "summary table on stdout");
    // The timing pass imports its raw page only; the profiling pass both pages.
    let calls = ncu_calls(dir.path());
    let collections: Vec<&String> = calls.iter().filter(|c| c.starts_with("-f -o")).collect();
    assert_eq!(collections.len(), 2, "{calls:?}");
    assert!(
        collections[0].contains("--metrics gpu__time_duration.sum "),
        "{calls:?}"
    );
    let imports: Vec<&String> = calls.iter().filter(|c| c.starts_with("--import")).collect();
    assert_eq!(imports.len(), 3, "{calls:?}");
    assert!(
        imports[0].contains("p-ncu-timing.ncu-rep --csv --page raw"),
        "{calls:?}"
    );
    assert!(
        imports[1..]
            .iter()
            .all(|c| c.contains("p-ncu-cold.ncu-rep")),
        "{calls:?}"
    );
}

#[test]
fn counter_permission_failure_exits_6_with_the_remedies() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(
        dir.path(),
        r#"echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0."; exit 1"#,
    );
    let out = dir.path().join("p.json");
    let o = capture(&["profile", "--ncu", s(&ncu), "-o", s(&out), "--", "true"]);
    assert_eq!(o.status.code(), Some(6), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("ERR_NVGPUCTRPERM") && err.contains("sudo"),
        "{err}"
    );
    assert!(
        err.contains("NVreg_RestrictProfilingToAdminUsers=0"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn killed_or_hung_ncu_exits_8() {
    let dir = tempfile::tempdir().expect("tempdir");
    let killed = fake_ncu(dir.path(), r#"kill -9 $$"#);
    let o = capture(&[
        "profile",
        "--ncu",
        s(&killed),
        "-o",
        s(&dir.path().join("k.json")),
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(stderr(&o).contains("killed by a signal"), "{}", stderr(&o));

    let hung = fake_ncu(dir.path(), "sleep 30");
    let started = std::time::Instant::now();
    let o = capture(&[
        "profile",
        "--ncu",
        s(&hung),
        "--ncu-timeout",
        "1",
        "-o",
        s(&dir.path().join("h.json")),
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("did not finish within 1 s"),
        "{}",
        stderr(&o)
    );
    assert!(started.elapsed().as_secs() < 20, "the hung ncu was killed");

    let failed = fake_ncu(dir.path(), r#"echo "==ERROR== something broke"; exit 2"#);
    let o = capture(&[
        "profile",
        "--ncu",
        s(&failed),
        "-o",
        s(&dir.path().join("f.json")),
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("something broke"),
        "the log tail is shown"
    );
}

#[test]
fn missing_ncu_exits_5() {
    let o = capture(&["profile", "--ncu", "/nonexistent/ncu", "--", "true"]);
    assert_eq!(o.status.code(), Some(5), "{}", stderr(&o));
    assert!(stderr(&o).contains("ncu not found"));
}

#[test]
fn a_missing_or_unexecutable_program_exits_2_before_ncu_starts() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(dir.path(), r#"touch "$BASE.ncu-rep"; exit 0"#);
    let script = dir.path().join("train.py");
    std::fs::write(&script, "print('hi')\n").expect("write");
    let out = dir.path().join("p.json");
    for (program, says) in [
        ("/nonexistent/prog", "cannot profile /nonexistent/prog: "),
        (
            "no-such-program-on-path",
            "no-such-program-on-path: not found on PATH",
        ),
        (
            s(&script),
            "is not executable (chmod +x it, or run it through its interpreter: -- python3",
        ),
    ] {
        let o = capture(&[
            "profile",
            "--ncu",
            s(&ncu),
            "-o",
            s(&out),
            "--",
            program,
            "--x",
        ]);
        assert_eq!(o.status.code(), Some(2), "{program}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.contains(says), "{err}");
        assert_eq!(err.trim().lines().count(), 1, "one line: {err}");
    }
    assert!(ncu_calls(dir.path()).is_empty(), "ncu never started");
    assert!(!out.exists());
}

#[test]
fn a_program_failing_before_any_launch_exits_10_and_writes_nothing() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(
        dir.path(),
        r#"echo "==PROF== Connected to process 1 (/usr/bin/python3)"
echo "Traceback (most recent call last):"
echo "ValueError: no such dataset"
echo "==PROF== Disconnected from process 1"
echo "==ERROR== The application returned an error code (3)."
echo "==WARNING== No kernels were profiled."
exit 3"#,
    );
    let out = dir.path().join("p.json");
    let o = capture(&["profile", "--ncu", s(&ncu), "-o", s(&out), "--", "true"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains(
            "the program true exited with status 3 before ncu profiled any kernel launch; \
             nothing written. Its last output: Traceback (most recent call last): | ValueError: \
             no such dataset"
        ),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn a_program_failing_after_profiled_launches_keeps_them_and_exits_10() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(
        dir.path(),
        &format!(
            r#"{PROFILED}
echo "out of memory"
echo "==ERROR== The application returned an error code (3)."
touch "$BASE.ncu-rep"
exit 3"#
        ),
    );
    let out = dir.path().join("p.json");
    // Sampled, the failure in the timing pass leaves nothing to sample from.
    let o = capture(&["profile", "--ncu", s(&ncu), "-o", s(&out), "--", "true"]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("exited with status 3 during the timing pass"),
        "{}",
        stderr(&o)
    );
    assert!(!out.exists());
    std::fs::remove_file(dir.path().join("calls")).expect("calls");
    let o = capture(&[
        "profile",
        "--all-launches",
        "--ncu",
        s(&ncu),
        "--cache",
        "both",
        "-o",
        s(&out),
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(10), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("the program true exited with status 3; wrote "),
        "{err}"
    );
    let a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("artifact")).expect("json");
    assert!(a["kernels"][0]["cold"].is_object());
    let warnings = a["warnings"].to_string();
    assert!(
        warnings.contains("exited with status 3: only the 1 launch(es) ncu profiled before that")
            && warnings.contains("out of memory")
            && warnings.contains("not collected after the program failed: warm caches"),
        "{warnings}"
    );
    let collections = ncu_calls(dir.path())
        .iter()
        .filter(|c| c.starts_with("-f -o"))
        .count();
    assert_eq!(collections, 1, "the warm collection was not tried");
}

#[test]
fn no_kernel_launch_exits_11_saying_which_filters_to_widen() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(
        dir.path(),
        r#"echo "==PROF== Connected to process 1"; echo "==WARNING== No kernels were profiled."; exit 0"#,
    );
    let out = dir.path().join("p.json");
    let o = capture(&["profile", "--ncu", s(&ncu), "-o", s(&out), "--", "true"]);
    assert_eq!(o.status.code(), Some(11), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("true launched no kernel on the GPU"),
        "{}",
        stderr(&o)
    );
    let o = capture(&[
        "profile",
        "--ncu",
        s(&ncu),
        "-o",
        s(&out),
        "--nvtx-include",
        "step/",
        "--launch-skip",
        "10",
        "--all-launches",
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(11), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("none matched the filters (--launch-skip 10, --nvtx-include step/)")
            && err.contains("Widen or drop them"),
        "{err}"
    );
    // The error in one line; beside it, the push/pop filter's warning.
    let lines: Vec<&str> = err.trim().lines().collect();
    let (warnings, errors): (Vec<&str>, Vec<&str>) =
        lines.iter().partition(|l| l.starts_with("warning: "));
    assert_eq!(errors.len(), 1, "one line: {err}");
    assert!(
        warnings.len() == 1 && warnings[0].contains("is a push/pop range"),
        "{err}"
    );
    assert!(!out.exists());
}

#[test]
fn filters_and_passed_arguments_reach_ncu_and_the_provenance() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(
        dir.path(),
        &format!(r#"{PROFILED}; touch "$BASE.ncu-rep"; exit 0"#),
    );
    let out = dir.path().join("p.json");
    let o = capture(&[
        "profile",
        "--ncu",
        s(&ncu),
        "-o",
        s(&out),
        "--all-launches",
        "--launch-skip",
        "5",
        "--launch-count",
        "2",
        "--nvtx-include",
        "step/",
        "--nvtx-include",
        "train@fwd/",
        "--nvtx-exclude",
        "warmup/",
        "--ncu-arg=--target-processes=all",
        "--ncu-arg",
        "--print-summary=per-kernel",
        "--",
        "true",
        "--epochs",
        "1",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let expected = " -s 5 -c 2 --nvtx --nvtx-include step/ --nvtx-include train@fwd/ \
                    --nvtx-exclude warmup/ --nvtx-push-pop-scope process --metrics ";
    let calls = ncu_calls(dir.path());
    let collect = calls
        .iter()
        .find(|c| c.starts_with("-f -o"))
        .expect("a collection");
    assert!(collect.contains(expected), "{collect}");
    assert!(
        collect.ends_with(" --target-processes=all --print-summary=per-kernel true --epochs 1"),
        "{collect}"
    );
    let a: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("artifact")).expect("json");
    let cmd = a["provenance"]["ncu_commands"][0]
        .as_str()
        .unwrap_or_default();
    assert!(cmd.contains(expected), "{cmd}");
    assert!(
        cmd.contains(" --target-processes=all --print-summary=per-kernel true --epochs 1 > "),
        "{cmd}"
    );
    assert!(
        a["provenance"]["command_line"]
            .as_str()
            .unwrap_or_default()
            .contains("--nvtx-include step/"),
        "capture's own flags are recorded too"
    );
}

#[test]
fn an_ncu_option_capture_sets_is_refused_by_ncu_arg() {
    let o = capture(&["profile", "--ncu-arg=--clock-control=base", "--", "true"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("--ncu-arg --clock-control=base: capture sets this ncu option itself"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn an_ncu_error_behind_the_programs_status_stays_ncu_failed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let ncu = fake_ncu(
        dir.path(),
        r#"echo "==ERROR== Nsight Compute failed to connect to the CUDA driver (stub libcuda.so[.1] on path?)."
echo "==ERROR== The application returned an error code (1)."
echo "==WARNING== No kernels were profiled."
exit 1"#,
    );
    let o = capture(&[
        "profile",
        "--ncu",
        s(&ncu),
        "-o",
        s(&dir.path().join("p.json")),
        "--",
        "true",
    ]);
    assert_eq!(o.status.code(), Some(8), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("failed to connect to the CUDA driver"),
        "{}",
        stderr(&o)
    );
}
