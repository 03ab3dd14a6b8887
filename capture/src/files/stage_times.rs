//! Stage timers for `capture import` and `capture table`: with `CAPTURE_STAGE_TIMES=1` in
//! the environment, the wall time of each stage (for an import: reading and parsing,
//! building the artifact, writing its JSON, syncing it to disk; for a table: reading the
//! artifact, the rows, their annotations, rendering, printing) is printed to stderr when the
//! command ends. This is how both were profiled (docs/performance.md); without the variable
//! nothing is measured or printed.

use std::time::{Duration, Instant};

/// The variable that turns the timers on.
const VARIABLE: &str = "CAPTURE_STAGE_TIMES";

/// Stage timers: each `mark` closes the stage that began at the previous mark.
pub struct Stages {
    started: Option<Instant>,
    last: Option<Instant>,
    done: Vec<(&'static str, Duration)>,
}

impl Stages {
    /// Timers that run only when `CAPTURE_STAGE_TIMES` is set (to anything but `0`).
    pub fn from_env() -> Self {
        let on = std::env::var_os(VARIABLE).is_some_and(|v| v != "0");
        let now = on.then(Instant::now);
        Stages {
            started: now,
            last: now,
            done: Vec::new(),
        }
    }

    /// Timers that never run.
    pub fn off() -> Self {
        Stages {
            started: None,
            last: None,
            done: Vec::new(),
        }
    }

    /// Ends the current stage, named `name`, and starts the next.
    pub fn mark(&mut self, name: &'static str) {
        if let Some(last) = self.last {
            let now = Instant::now();
            self.done.push((name, now - last));
            self.last = Some(now);
        }
    }

    /// Prints every stage and the total to stderr (when on).
    pub fn print(&self) {
        let Some(started) = self.started else {
            return;
        };
        let parts: Vec<String> = self
            .done
            .iter()
            .map(|(name, d)| format!("{name} {:.3} s", d.as_secs_f64()))
            .collect();
        crate::out::eprint_line(&format!(
            "stages: {}; total {:.3} s",
            parts.join(", "),
            started.elapsed().as_secs_f64()
        ));
    }
}
