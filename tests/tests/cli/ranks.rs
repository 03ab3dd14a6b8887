//! Rank-aware outputs through the real binary and its real environment: several ranks that
//! would share one `-o` are refused with a usage error before ncu is looked for, and a bad
//! `--device` list is refused by the flag parser. (Detection, placeholders and the refusal
//! are tested case by case beside `capture/src/ranks.rs`.)

use crate::util::*;
use std::process::Command;

/// `capture ARGS` with `vars` added to its environment and the launchers' own removed.
fn capture_with(vars: &[(&str, &str)], args: &[&str]) -> std::process::Output {
    let mut cmd = Command::new(capture_bin());
    for v in [
        "RANK",
        "LOCAL_RANK",
        "WORLD_SIZE",
        "OMPI_COMM_WORLD_RANK",
        "OMPI_COMM_WORLD_SIZE",
        "SLURM_PROCID",
        "SLURM_NTASKS",
        "SLURM_STEP_NUM_TASKS",
    ] {
        cmd.env_remove(v);
    }
    cmd.envs(vars.iter().copied())
        .args(args)
        .output()
        .expect("capture starts")
}

#[test]
fn two_ranks_sharing_one_output_exit_2_before_ncu_is_needed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("prof.json");
    let o = capture_with(
        &[("RANK", "1"), ("WORLD_SIZE", "2")],
        &[
            "profile",
            "--ncu",
            "/nonexistent/ncu",
            "-o",
            s(&out),
            "--",
            "python3",
            "-c",
            "pass",
        ],
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("2 ranks detected (RANK=1, of 2)"), "{err}");
    assert!(err.contains("prof-{rank}.json"), "{err}");
    assert!(!out.exists());
}

#[test]
fn device_lists_are_checked_by_the_flag_parser() {
    for bad in ["0,0", "gpu1", ""] {
        let o = capture_with(&[], &["run", "--device", bad, "--no-profile"]);
        assert_eq!(o.status.code(), Some(2), "--device {bad:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("--device"), "{}", stderr(&o));
    }
}
