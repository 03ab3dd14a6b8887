//! Reading ncu's log: what a finished collection's log says happened (ncu's own errors, the
//! program's exit status, whether any kernel was profiled), and how far a running one has
//! got. Pure functions of the text; [`super::judge`] judges the outcome from them and
//! [`super::run`] drives the spinner.
//!
//! The log holds ncu's lines and the program's own output, interleaved. ncu's lines start
//! with `==PROF==`, `==WARNING==` or `==ERROR==` (seen with Nsight Compute 2025.3.1 and in
//! published logs of earlier versions):
//!
//! ```text
//! ==PROF== Profiling "copy" - 0: 0%....50%....100% - 9 passes
//! ==ERROR== The application returned an error code (3).
//! ==WARNING== No kernels were profiled.
//! ```

/// ncu's line for the program's exit status (`... error code (3).`).
const PROGRAM_STATUS: &str = "==ERROR== The application returned an error code (";
/// ncu's warning when no launch was profiled.
const NO_KERNELS: &str = "No kernels were profiled";
/// The start of ncu's line for each launch it profiles.
const PROFILING: &str = "==PROF== Profiling \"";

/// What a finished collection's log says.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LogFacts {
    /// ncu could not read the counters (`ERR_NVGPUCTRPERM`).
    pub counter_permission: bool,
    /// ncu's own `==ERROR==` lines: all but its report of the program's exit status.
    pub errors: Vec<String>,
    /// The program's exit status as ncu reported it.
    pub program_status: Option<i32>,
    /// ncu said no kernel was profiled.
    pub no_kernels: bool,
    /// `==PROF== Profiling` lines: launches ncu started to profile.
    pub launches: u64,
}

/// The facts of a finished collection's log.
pub fn read_log(text: &str) -> LogFacts {
    let mut f = LogFacts {
        counter_permission: text.contains("ERR_NVGPUCTRPERM"),
        ..LogFacts::default()
    };
    for line in text.lines().map(str::trim_end) {
        if let Some(rest) = line.strip_prefix(PROGRAM_STATUS) {
            f.program_status = rest.split(')').next().and_then(|n| n.trim().parse().ok());
        } else if line.starts_with("==ERROR==") {
            f.errors.push(line.to_string());
        } else if line.starts_with("==") && line.contains(NO_KERNELS) {
            f.no_kernels = true;
        } else if line.starts_with(PROFILING) {
            f.launches += 1;
        }
    }
    f
}

/// The last `n` lines of the program's own output in the log (ncu's lines left out), one
/// line joined by ` | `; empty when it printed nothing.
pub fn program_output_tail(text: &str, n: usize) -> String {
    let own: Vec<&str> = text
        .lines()
        .map(str::trim_end)
        .filter(|l| !l.is_empty() && !l.starts_with("==PROF==") && !l.starts_with("==WARNING=="))
        .filter(|l| !l.starts_with("==ERROR=="))
        .collect();
    own[own.len().saturating_sub(n)..].join(" | ")
}

/// How far a running collection has got, fed the log as it grows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Progress {
    /// The last, unfinished line.
    pending: String,
    /// Launches whose profiling finished.
    pub profiled: u64,
    /// The kernel of the last launch ncu started on.
    pub kernel: Option<String>,
    /// The passes the last finished launch took.
    pub passes: Option<u64>,
    /// Whether ncu is still on [`Progress::kernel`].
    pub in_progress: bool,
}

/// A long line without an end is program output, not ncu's: forget it past this size.
const PENDING_LIMIT: usize = 64 * 1024;

fn kernel_of(rest: &str) -> String {
    let name = rest.split('"').next().unwrap_or(rest);
    match name.char_indices().nth(60) {
        Some((i, _)) => format!("{}...", &name[..i]),
        None => name.to_string(),
    }
}

fn passes_of(line: &str) -> Option<u64> {
    line.strip_suffix(" passes")?
        .rsplit(' ')
        .next()?
        .parse()
        .ok()
}

impl Progress {
    /// Takes in more of the log.
    pub fn feed(&mut self, chunk: &str) {
        self.pending.push_str(chunk);
        while let Some(i) = self.pending.find('\n') {
            let line: String = self.pending.drain(..=i).collect();
            self.line(line.trim_end());
        }
        if let Some(rest) = self.pending.strip_prefix(PROFILING) {
            self.kernel = Some(kernel_of(rest));
            self.in_progress = true;
        } else if self.pending.len() > PENDING_LIMIT {
            self.pending.clear();
        }
    }

    fn line(&mut self, line: &str) {
        if let Some(rest) = line.strip_prefix(PROFILING) {
            self.kernel = Some(kernel_of(rest));
            self.profiled += 1;
            self.passes = passes_of(rest);
            self.in_progress = false;
        } else if self.passes.is_none() && self.profiled > 0 && !line.starts_with("==") {
            // ncu's progress dots can end up on a line of their own.
            self.passes = passes_of(line).or(self.passes);
        }
    }

    /// One line for the spinner: launches profiled, the current or last kernel, its passes.
    pub fn summary(&self) -> Option<String> {
        let kernel = self.kernel.as_ref()?;
        let mut s = format!(
            "{} launch{} profiled",
            self.profiled,
            if self.profiled == 1 { "" } else { "es" }
        );
        if self.in_progress {
            s.push_str(&format!(", now {kernel}"));
        } else {
            s.push_str(&format!(", last {kernel}"));
            if let Some(p) = self.passes {
                s.push_str(&format!(" ({p} passes)"));
            }
        }
        Some(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn facts_of_finished_logs() {
        let cases: &[(&str, LogFacts)] = &[
            (
                "==PROF== Connected to process 1 (/usr/bin/python3)\n\
                 ==PROF== Profiling \"copy\" - 0: 0%....50%....100% - 9 passes\n\
                 out\n==PROF== Disconnected from process 1\n",
                LogFacts {
                    launches: 1,
                    ..LogFacts::default()
                },
            ),
            (
                "Traceback (most recent call last):\nValueError: bad\n\
                 ==ERROR== The application returned an error code (3).\n\
                 ==WARNING== No kernels were profiled.\n",
                LogFacts {
                    program_status: Some(3),
                    no_kernels: true,
                    ..LogFacts::default()
                },
            ),
            (
                "==ERROR== Nsight Compute failed to connect to the CUDA driver.\n\
                 ==ERROR== The application returned an error code (1).\n\
                 ==WARNING== No kernels were profiled.\n",
                LogFacts {
                    errors: vec![
                        "==ERROR== Nsight Compute failed to connect to the CUDA driver.".into(),
                    ],
                    program_status: Some(1),
                    no_kernels: true,
                    ..LogFacts::default()
                },
            ),
            (
                "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission\n",
                LogFacts {
                    counter_permission: true,
                    errors: vec![
                        "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission".into(),
                    ],
                    ..LogFacts::default()
                },
            ),
            // The program printing ncu-like words is not ncu.
            (
                "No kernels were profiled, said the program\n",
                LogFacts::default(),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(&read_log(text), want, "{text}");
        }
    }

    #[test]
    fn the_program_output_tail_leaves_ncu_out() {
        let log = "==PROF== Connected\nline 1\n\nline 2\n==ERROR== The application returned \
                   an error code (3).\n==WARNING== No kernels were profiled.\n";
        assert_eq!(program_output_tail(log, 5), "line 1 | line 2");
        assert_eq!(program_output_tail(log, 1), "line 2");
        assert_eq!(program_output_tail("==PROF== x\n", 3), "");
    }

    #[test]
    fn progress_follows_the_log_as_it_grows() {
        let mut p = Progress::default();
        assert_eq!(p.summary(), None);
        p.feed("==PROF== Connected to process 7\nprogram says hi\n==PROF== Profiling \"gemm\" - 0: 0%..");
        assert_eq!(
            p.summary().as_deref(),
            Some("0 launches profiled, now gemm")
        );
        p.feed("..50%....100% - 41 passes\n");
        assert_eq!(
            p.summary().as_deref(),
            Some("1 launch profiled, last gemm (41 passes)")
        );
        p.feed("==PROF== Profiling \"copy\" - 1: \n0%....50%....100% - 9 passes\n");
        assert_eq!(
            p.summary().as_deref(),
            Some("2 launches profiled, last copy (9 passes)")
        );
        let long = "x".repeat(200);
        p.feed(&format!("==PROF== Profiling \"{long}\" - 2: 0%"));
        let s = p.summary().unwrap_or_default();
        assert!(s.ends_with(&format!("now {}...", "x".repeat(60))), "{s}");
    }
}
