//! Facts about the host for provenance: host name, NVIDIA driver version and the command
//! line (the time comes from `crate::clock`). Read from the system, never required: an
//! unknown fact is `None`.

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

/// This process's command line, shell-quoted.
pub fn command_line() -> String {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match args.split_first() {
        Some((first, rest)) => super::ncu::command_line(first, rest),
        None => String::new(),
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
}
