//! Writes never corrupt: `capture` killed (SIGKILL) or interrupted (SIGINT, as Ctrl-C sends)
//! while it writes an artifact, or while ncu collects, leaves the previous artifact intact or
//! a complete new one, never a half-written target. SIGINT also leaves no temporary file
//! and no ncu behind; SIGKILL cannot be caught and may leave a hidden `.NAME.tmpXXXXXX` file,
//! which is never the target.
//!
//! No GPU is needed: the write is that of `capture import` on a large export generated from
//! the real fixture's rows, and the collection is a fake `ncu` that sleeps.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shared::Artifact;

use crate::util::*;

/// Launches in the generated export: its artifact is a few MB, whose temporary file lives
/// from milliseconds (written at once) to tenths of a second (serialized into it) in a debug
/// build. The tests poll for it without sleeping and retry until a signal lands mid-write.
const LAUNCHES: usize = 200;

/// Imports tried before a test gives up catching one mid-write.
const ATTEMPTS: usize = 10;

/// A raw export of `LAUNCHES` launches: the header, units row and launch row of the real
/// full-set fixture, the row repeated with fresh launch IDs.
fn large_export(dir: &Path) -> PathBuf {
    let text = std::fs::read_to_string(fixture("ncu-h200/probe_full_raw.csv")).expect("fixture");
    let lines: Vec<&str> = text.lines().collect();
    let [header, units, row] = lines.as_slice() else {
        panic!("the full raw fixture has a header, a units row and one launch");
    };
    let rest = row.strip_prefix("\"0\",").expect("launch 0 first");
    let mut out = format!("{header}\n{units}\n");
    for id in 0..LAUNCHES {
        out.push_str(&format!("\"{id}\",{rest}\n"));
    }
    let path = dir.join("large_raw.csv");
    std::fs::write(&path, out).expect("write export");
    path
}

/// Names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Temporary files of target `name` in `dir`.
fn temp_files(dir: &Path, name: &str) -> Vec<String> {
    let prefix = format!(".{name}.tmp");
    names(dir)
        .into_iter()
        .filter(|n| n.starts_with(&prefix))
        .collect()
}

/// A previous artifact at `target` (a real import), returned as bytes.
fn previous_artifact(target: &Path) -> Vec<u8> {
    let o = capture(&[
        "import",
        s(&fixture("ncu-h200/probe_metrics_raw_with_stdout.csv")),
        "-o",
        s(target),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read(target).expect("previous artifact")
}

fn spawn(args: &[&str]) -> Child {
    Command::new(capture_bin())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("capture starts")
}

/// Sends `signal` (`INT`, `KILL`) to `pid`.
fn signal(pid: u32, signal: &str) {
    let status = Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(pid.to_string())
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{signal} {pid}");
}

/// Waits for `child` to exit, at most 30 s; returns its exit code and stderr.
fn finish(mut child: Child) -> (Option<i32>, String) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().expect("wait").is_none() {
        assert!(Instant::now() < deadline, "capture did not exit");
        std::thread::sleep(Duration::from_millis(20));
    }
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        e.read_to_string(&mut err).expect("stderr");
    }
    (child.wait().expect("wait").code(), err)
}

/// Runs `capture import` of the large export into `target` and sends `sig` the moment its
/// temporary file appears. Returns whether the signal landed mid-write (false when the
/// write finished first), with the exit code and stderr.
fn import_and_signal(export: &Path, target: &Path, sig: &str) -> (bool, Option<i32>, String) {
    let dir = target.parent().expect("folder");
    let name = target.file_name().and_then(|n| n.to_str()).expect("name");
    let mut child = spawn(&["import", s(export), "-o", s(target)]);
    let mut caught = false;
    let deadline = Instant::now() + Duration::from_secs(120);
    while child.try_wait().expect("wait").is_none() {
        if !temp_files(dir, name).is_empty() {
            signal(child.id(), sig);
            caught = true;
            break;
        }
        assert!(Instant::now() < deadline, "import did not start writing");
    }
    let (code, err) = finish(child);
    (caught, code, err)
}

/// Whether the target is the previous artifact, or else a complete new one.
fn assert_old_or_complete(target: &Path, previous: &[u8]) -> bool {
    let now = std::fs::read(target).expect("the target still exists");
    if now == previous {
        return true;
    }
    let a = Artifact::from_json(std::str::from_utf8(&now).expect("utf-8"))
        .unwrap_or_else(|e| panic!("half-written target {}: {e}", target.display()));
    let launches: usize = a
        .kernels
        .iter()
        .filter_map(|k| k.cold.as_ref())
        .map(|c| c.launches.len())
        .sum();
    assert_eq!(launches, LAUNCHES, "a new target is complete");
    false
}

#[test]
fn import_killed_mid_write_leaves_the_previous_artifact() {
    let input = tempfile::tempdir().expect("tempdir");
    let export = large_export(input.path());
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("a.json");
    let previous = previous_artifact(&target);
    let mut landed = false;
    for _ in 0..ATTEMPTS {
        let (caught, code, err) = import_and_signal(&export, &target, "KILL");
        assert!(!err.contains("panicked"), "{err}");
        let old = assert_old_or_complete(&target, &previous);
        if caught && code.is_none() {
            // Killed before the rename: the old file, and at most the hidden temporary file.
            assert!(old, "killed mid-write, yet the target changed");
            for extra in names(dir.path()).iter().filter(|n| *n != "a.json") {
                assert!(extra.starts_with(".a.json.tmp"), "left behind: {extra}");
                assert_eq!(extra.len(), ".a.json.tmp".len() + 6, "{extra}");
            }
            landed = true;
            break;
        }
        // The write won the race: the target is the complete new artifact. Try again.
        std::fs::write(&target, &previous).expect("restore");
    }
    assert!(landed, "never caught the import while it wrote");
    // A later run is not confused by what the killed one left, and replaces the target.
    let o = capture(&["import", s(&export), "-o", s(&target)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!assert_old_or_complete(&target, &previous));
    let o = capture(&["table", s(&target), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
}

#[test]
fn import_interrupted_mid_write_removes_its_temporary_file() {
    let input = tempfile::tempdir().expect("tempdir");
    let export = large_export(input.path());
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("a.json");
    let previous = previous_artifact(&target);
    let mut landed = false;
    for _ in 0..ATTEMPTS {
        let (caught, code, err) = import_and_signal(&export, &target, "INT");
        assert!(!err.contains("panicked"), "{err}");
        let old = assert_old_or_complete(&target, &previous);
        if caught && code == Some(130) {
            assert!(old, "interrupted mid-write, yet the target changed");
            assert!(err.contains("error: interrupted"), "{err}");
            assert_eq!(names(dir.path()), ["a.json"], "nothing left behind");
            landed = true;
            break;
        }
        assert_eq!(code, Some(0), "{err}");
        std::fs::write(&target, &previous).expect("restore");
    }
    assert!(landed, "never caught the import while it wrote");
}

/// A fake `ncu` whose collection writes its process ID to `pid_file` and then sleeps (as
/// ncu does while a long program runs), in the same process: `exec` keeps the ID.
fn sleeping_ncu(dir: &Path, pid_file: &Path) -> PathBuf {
    let script = format!(
        "#!/usr/bin/env bash\n\
         if [ \"$1\" = \"--version\" ]; then echo 'Version 2025.3.1.0 (fake)'; exit 0; fi\n\
         echo $$ > '{pid}.part' && mv '{pid}.part' '{pid}'\n\
         exec sleep 60\n",
        pid = pid_file.display()
    );
    let path = dir.join("ncu");
    std::fs::write(&path, script).expect("write fake ncu");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

/// Whether process `pid` is running (a zombie is not).
fn alive(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            // The state follows the parenthesized command name.
            let after = stat.rsplit_once(')')?.1;
            after
                .split_whitespace()
                .next()
                .map(|s| s != "Z" && s != "X")
        })
        .unwrap_or(false)
}

/// Starts `capture profile -o TARGET --keep-exports` through a sleeping fake ncu and waits
/// until the fake is collecting; returns capture and the fake's process ID.
fn profile_until_collecting(dir: &Path, target: &Path) -> (Child, u32) {
    let pid_file = dir.join("ncu.pid");
    let ncu = sleeping_ncu(dir, &pid_file);
    let mut child = spawn(&[
        "profile",
        "--ncu",
        s(&ncu),
        "--keep-exports",
        "-o",
        s(target),
        "--",
        "python3",
        "script.py",
    ]);
    let pid = collecting_ncu(&mut child, &pid_file);
    (child, pid)
}

/// The fake ncu's process ID, once it is collecting (capture is stopped if it never does).
fn collecting_ncu(capture: &mut Child, pid_file: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(pid) = std::fs::read_to_string(pid_file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        if Instant::now() > deadline {
            let _ = capture.kill();
            let _ = capture.wait();
            panic!("the fake ncu never started");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// What a profile run may leave in its folder besides the artifact: the fake, its PID file
/// and ncu's log. No CSV page, no report, no temporary file.
fn assert_no_partial_outputs(dir: &Path) {
    for name in names(dir) {
        assert!(
            matches!(name.as_str(), "a.json" | "ncu" | "ncu.pid") || name.ends_with(".log"),
            "left behind: {name}"
        );
    }
}

#[test]
fn profile_interrupted_during_collection_keeps_the_previous_artifact_and_stops_ncu() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("a.json");
    let previous = previous_artifact(&target);
    let (child, ncu_pid) = profile_until_collecting(dir.path(), &target);
    signal(child.id(), "INT");
    let (code, err) = finish(child);
    assert_eq!(code, Some(130), "{err}");
    assert!(err.contains("profiler process group(s) killed"), "{err}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(ncu_pid) {
        assert!(Instant::now() < deadline, "ncu still runs after Ctrl-C");
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(std::fs::read(&target).expect("target"), previous);
    assert_no_partial_outputs(dir.path());
}

#[test]
fn profile_killed_during_collection_keeps_the_previous_artifact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("a.json");
    let previous = previous_artifact(&target);
    let (child, ncu_pid) = profile_until_collecting(dir.path(), &target);
    signal(child.id(), "KILL");
    let (code, _) = finish(child);
    // SIGKILL cannot be handled: the fake ncu outlives capture; stop it here.
    signal(ncu_pid, "KILL");
    assert_eq!(code, None, "killed by the signal");
    assert_eq!(std::fs::read(&target).expect("target"), previous);
    assert_no_partial_outputs(dir.path());
}

#[test]
fn ncu_killed_during_collection_exits_8_and_keeps_the_previous_artifact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let target = dir.path().join("a.json");
    let previous = previous_artifact(&target);
    let (child, ncu_pid) = profile_until_collecting(dir.path(), &target);
    signal(ncu_pid, "KILL");
    let (code, err) = finish(child);
    assert_eq!(code, Some(8), "{err}");
    assert!(err.contains("ncu was killed by a signal"), "{err}");
    assert_eq!(std::fs::read(&target).expect("target"), previous);
    assert_no_partial_outputs(dir.path());
}
