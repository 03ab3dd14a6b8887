//! Progress bars and log lines on stderr (stdout carries only machine output and the final
//! table). Bars draw only on a terminal; log lines are printed either way.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// A bar over `len` steps.
pub fn bar(len: u64, prefix: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    if let Ok(style) = ProgressStyle::with_template("{prefix} [{bar:30}] {pos}/{len} {msg}") {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_prefix(prefix.to_string());
    pb
}

/// A spinner with elapsed time for work of unknown length (ncu, compilation).
pub fn spinner(what: &str) -> ProgressBar {
    let pb = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} ({elapsed})") {
        pb.set_style(style);
    }
    pb.set_message(what.to_string());
    pb.enable_steady_tick(Duration::from_millis(200));
    pb
}

/// Prints a log line on stderr without tearing a bar that is drawing.
pub fn log(pb: Option<&ProgressBar>, line: &str) {
    match pb {
        Some(pb) => pb.suspend(|| crate::out::eprint_line(line)),
        None => crate::out::eprint_line(line),
    }
}
