//! Facts about the host: for provenance, the host name, NVIDIA driver version and the
//! command line (the time comes from `crate::clock`), read from the system and never
//! required (an unknown fact is `None`); and where a program `capture profile` is asked to
//! run lives, so a missing one is found before ncu starts.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// This machine's host name.
pub fn host_name() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The NVIDIA kernel module's version (`580.159.04`) from /proc/driver/nvidia/version.
pub fn nvidia_driver_version() -> Option<String> {
    let text = std::fs::read_to_string("/proc/driver/nvidia/version").ok()?;
    parse_driver_version(&text)
}

/// The version after "Kernel Module" on the NVRM line.
pub fn parse_driver_version(text: &str) -> Option<String> {
    let line = text.lines().find(|l| l.starts_with("NVRM"))?;
    let after = line.split("Kernel Module").nth(1)?;
    let token = after
        .split_whitespace()
        .find(|t| t.chars().next().is_some_and(|c| c.is_ascii_digit()) && t.contains('.'))?;
    Some(token.to_string())
}

/// Whether `p` is a file this user may execute (any execute bit, on Unix).
fn executable(p: &Path) -> bool {
    match std::fs::metadata(p) {
        #[cfg(unix)]
        Ok(m) => {
            use std::os::unix::fs::PermissionsExt;
            m.is_file() && m.permissions().mode() & 0o111 != 0
        }
        #[cfg(not(unix))]
        Ok(m) => m.is_file(),
        Err(_) => false,
    }
}

/// The program a command line starts, as the shell would find it: a name with a `/` as a
/// path, any other name on `PATH`. The error says why it cannot run, naming it.
pub fn find_program(name: &OsStr) -> Result<PathBuf, String> {
    let shown = name.to_string_lossy();
    if name.is_empty() {
        return Err("the program name is empty".into());
    }
    let not_executable = |p: &Path| {
        let interpreter = match p.extension().and_then(OsStr::to_str) {
            Some("py") => Some("python3"),
            Some("sh") => Some("bash"),
            _ => None,
        };
        format!(
            "{} is not executable (chmod +x it{})",
            p.display(),
            interpreter.map_or(String::new(), |i| format!(
                ", or run it through its interpreter: -- {i} {shown}"
            ))
        )
    };
    if shown.contains('/') {
        let p = Path::new(name);
        return match std::fs::metadata(p) {
            Err(e) => Err(format!("{shown}: {e}")),
            Ok(m) if m.is_dir() => Err(format!("{shown} is a folder, not a program")),
            Ok(_) if executable(p) => Ok(p.to_path_buf()),
            Ok(_) => Err(not_executable(p)),
        };
    }
    let dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    let candidates: Vec<PathBuf> = dirs
        .iter()
        .map(|d| d.join(name))
        .filter(|p| p.is_file())
        .collect();
    match candidates.iter().find(|p| executable(p)) {
        Some(p) => Ok(p.clone()),
        None => match candidates.first() {
            Some(p) => Err(not_executable(p)),
            None => Err(format!("{shown}: not found on PATH")),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_version_from_proc_text() {
        let text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Tue Oct  1 \
                    00:00:00 UTC 2025\nGCC version:  gcc version 12\n";
        assert_eq!(parse_driver_version(text).as_deref(), Some("580.159.04"));
        assert_eq!(parse_driver_version("nothing"), None);
    }

    #[test]
    fn programs_are_found_or_refused_by_name() {
        let exe = std::env::current_exe().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(find_program(exe.as_os_str()).as_ref(), Ok(&exe));
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let script = dir.path().join("train.py");
        std::fs::write(&script, "print(1)\n").unwrap_or_else(|e| panic!("{e}"));
        let err = find_program(script.as_os_str()).err().unwrap_or_default();
        assert!(
            err.contains("is not executable") && err.contains("python3"),
            "{err}"
        );
        let err = find_program(dir.path().as_os_str())
            .err()
            .unwrap_or_default();
        assert!(err.contains("is a folder"), "{err}");
        let err = find_program(OsStr::new("/nonexistent/prog"))
            .err()
            .unwrap_or_default();
        assert!(err.starts_with("/nonexistent/prog: "), "{err}");
        let err = find_program(OsStr::new("no-such-program-xyz"))
            .err()
            .unwrap_or_default();
        assert_eq!(err, "no-such-program-xyz: not found on PATH");
    }
}
