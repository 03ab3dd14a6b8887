//! `capture trace` on the host: finds CUPTI and capture's injection library, runs the program
//! once with them in its environment (`CUDA_INJECTION64_PATH`, and `NVTX_INJECTION64_PATH`
//! so NVTX ranges reach CUPTI), and returns how it ended. Each process of the program that
//! initializes CUDA writes its own `PID.rltrace` into the trace folder
//! (`shared::read::trace::wire`).

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::read::trace::{build, TraceFile};

use crate::exit::{Code, Fault};

/// The injection library's file name, as cargo builds it.
pub const INJECT_FILE: &str = "libroofline_inject.so";

/// The injection library: `given`, else `ROOFLINE_INJECT`, else beside the capture
/// executable (and one folder up, for `target/release/deps` layouts).
pub fn find_injection(given: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = given {
        return existing(p, "--inject");
    }
    if let Some(p) = std::env::var_os("ROOFLINE_INJECT") {
        return existing(Path::new(&p), "ROOFLINE_INJECT");
    }
    let exe = std::env::current_exe().context("cannot tell where capture itself is")?;
    let mut tried = Vec::new();
    for dir in exe.ancestors().skip(1).take(2) {
        let p = dir.join(INJECT_FILE);
        if p.is_file() {
            return Ok(p);
        }
        tried.push(p.display().to_string());
    }
    Err(Fault::new(
        Code::Failure,
        format!(
            "no injection library ({INJECT_FILE}) at {}: build it beside capture with `cargo \
             build --release -p capture -p roofline-inject`, or name it with --inject",
            tried.join(" or ")
        ),
    )
    .into())
}

fn existing(p: &Path, from: &str) -> Result<PathBuf> {
    if p.is_file() {
        std::path::absolute(p).with_context(|| format!("{from} {}", p.display()))
    } else {
        Err(Fault::new(
            Code::Failure,
            format!("{from} {}: no such file", p.display()),
        )
        .into())
    }
}

/// CUPTI: `given`, else the newest `libcupti.so*` under `CUDA_HOME`, `CUDA_PATH` or
/// `/usr/local/cuda*` (in `extras/CUPTI/lib64`, `targets/*/lib` or `lib64`).
pub fn find_cupti(given: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = given {
        return existing(p, "--cupti");
    }
    let mut roots: Vec<PathBuf> = ["CUDA_HOME", "CUDA_PATH"]
        .iter()
        .filter_map(std::env::var_os)
        .map(PathBuf::from)
        .collect();
    roots.push(PathBuf::from("/usr/local/cuda"));
    if let Ok(entries) = std::fs::read_dir("/usr/local") {
        let mut versioned: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("cuda-"))
            })
            .collect();
        // Newest first: cuda-13.0 before cuda-12.8.
        versioned.sort_by_key(|p| std::cmp::Reverse(version_key(p)));
        roots.extend(versioned);
    }
    for root in &roots {
        let mut dirs = vec![root.join("extras/CUPTI/lib64"), root.join("lib64")];
        if let Ok(targets) = std::fs::read_dir(root.join("targets")) {
            dirs.extend(targets.filter_map(|t| t.ok().map(|t| t.path().join("lib"))));
        }
        for dir in dirs {
            if let Some(p) = cupti_in(&dir) {
                return Ok(p);
            }
        }
    }
    Err(Fault::new(
        Code::Failure,
        format!(
            "no CUPTI (libcupti.so) under {}: install the CUDA toolkit's CUPTI, or name it \
             with --cupti",
            roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    )
    .into())
}

fn version_key(p: &Path) -> Vec<u32> {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
        .trim_start_matches("cuda-")
        .split('.')
        .map(|x| x.parse().unwrap_or(0))
        .collect()
}

/// `libcupti.so` in `dir`, or its versioned file (`libcupti.so.13`) where the plain name is
/// missing (a runtime-only install).
fn cupti_in(dir: &Path) -> Option<PathBuf> {
    let plain = dir.join("libcupti.so");
    if plain.is_file() {
        return Some(plain);
    }
    let mut versioned: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("libcupti.so."))
        })
        .collect();
    versioned.sort();
    versioned.into_iter().next()
}

/// How the traced program ended.
pub struct Ended {
    /// Its exit status.
    pub status: ExitStatus,
    /// Its wall time, from spawn to exit.
    pub wall: Duration,
}

/// Runs `program` once with the trace injected; each process writes into `dir`.
pub fn run_traced(
    program: &[String],
    inject: &Path,
    cupti: &Path,
    dir: &Path,
    flush_ms: u32,
    extra_env: &[(OsString, OsString)],
) -> Result<Ended> {
    let Some((exe, args)) = program.split_first() else {
        return Err(Fault::new(Code::Usage, "no program to trace").into());
    };
    let mut cmd = Command::new(exe);
    cmd.args(args)
        .env("CUDA_INJECTION64_PATH", inject)
        .env("NVTX_INJECTION64_PATH", cupti)
        .env("ROOFLINE_CUPTI", cupti)
        .env("ROOFLINE_TRACE_DIR", dir)
        .env("ROOFLINE_TRACE_FLUSH_MS", flush_ms.to_string());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|e| Fault::new(Code::ProgramFailed, format!("cannot start {exe}: {e}")))?;
    let status = child.wait().with_context(|| format!("waiting for {exe}"))?;
    Ok(Ended {
        status,
        wall: started.elapsed(),
    })
}

/// A kernel name made readable: the Itanium C++ demangling, `None` for names that are not
/// mangled (C kernels, Triton's) or do not demangle.
pub fn demangle(name: &str) -> Option<String> {
    if !name.starts_with("_Z") {
        return None;
    }
    let symbol = cpp_demangle::Symbol::new(name).ok()?;
    symbol
        .demangle_with_options(&cpp_demangle::DemangleOptions::default())
        .ok()
}

/// Every process's records in `dir` read into one trace, processes by pid; nothing recorded
/// (by any process of `program`, named so in the message) is [`Code::NoKernels`].
pub fn read_records(
    dir: &Path,
    program: &str,
    status: Option<&ExitStatus>,
) -> Result<(shared::model::trace::Trace, Vec<String>)> {
    let mut paths: Vec<PathBuf> = list_records(dir)?.collect();
    if paths.is_empty() {
        return Err(Fault::new(
            Code::NoKernels,
            format!(
                "nothing recorded: no process of {} initialized CUDA with the trace loaded (it \
                 {}); nothing written",
                program,
                status.map_or_else(|| "was not run".into(), describe)
            ),
        )
        .into());
    }
    // Processes by pid: the first process CUDA started in comes first in most programs.
    paths.sort_by_key(|p| {
        p.file_stem()
            .and_then(|s| s.to_str())
            .and_then(|s| s.parse::<u64>().ok())
            .unwrap_or(u64::MAX)
    });
    let mut contents = Vec::with_capacity(paths.len());
    for p in &paths {
        contents.push((crate::files::shown(p), crate::files::read_records(p)?));
    }
    let files: Vec<TraceFile<'_>> = contents
        .iter()
        .map(|(name, bytes)| TraceFile { name, bytes })
        .collect();
    build(&files, &demangle).map_err(|e| anyhow::anyhow!(e))
}

/// The records (`PID.rltrace`) in a folder.
pub fn list_records(dir: &Path) -> Result<impl Iterator<Item = PathBuf>> {
    Ok(std::fs::read_dir(dir)
        .with_context(|| format!("{}: cannot list", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rltrace")))
}

/// "exited with status 3" or "was killed by signal 9".
pub fn describe(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(c), _) => format!("exited with status {c}"),
        (None, Some(s)) => format!("was killed by signal {s}"),
        _ => "ended abnormally".into(),
    }
}
