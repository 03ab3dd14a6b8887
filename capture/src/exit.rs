//! Exit codes and the typed fault that carries one. `main` is the only place an error turns
//! into a code; everything else returns `anyhow::Error`, wrapping a [`Fault`] where the
//! cause deserves its own documented code.

use std::fmt;

/// Documented exit codes (README, "Exit codes").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Code {
    /// Bad input, I/O failure, or any other error.
    Failure = 1,
    /// Command-line usage error (clap's own code), including a `capture profile` program
    /// that does not exist or is not executable (found before ncu starts), and an `-o`
    /// that is one of the inputs. (A standard output closed by its reader is success, 0.)
    Usage = 2,
    /// No NVIDIA driver, or no CUDA device.
    NoGpu = 3,
    /// NVRTC library missing, or a kernel failed to compile.
    Nvrtc = 4,
    /// `ncu` not found.
    NoNcu = 5,
    /// ncu could not read counters (ERR_NVGPUCTRPERM); a timings-only artifact was written.
    CounterPermission = 6,
    /// A kernel's output did not match its CPU reference.
    CheckFailed = 7,
    /// ncu itself failed: killed, crashed, timed out, or reported an error of its own.
    NcuFailed = 8,
    /// `capture merge`: a kernel of the timings has no DRAM byte metric in the export.
    MissingKernel = 9,
    /// `capture profile`: the profiled program exited with a non-zero status. The launches
    /// ncu profiled before that were written, with a warning; with none, nothing was.
    ProgramFailed = 10,
    /// `capture profile`: ncu profiled no kernel launch: the program launched none, or none
    /// matched the filters (`--kernel-name`, `--launch-skip`, `--nvtx-include`, ...).
    NoKernels = 11,
    /// `capture diff --gate`: the total or a counted kernel is slower by more than the gate
    /// beyond its noise band; `--gate-work`: a kernel's work grew by more than the gate
    /// beyond its tolerance, or a kernel appeared or vanished. The output names them first.
    GateFailed = 12,
    /// `capture diff --gate`: the gate could not judge the runs, so it did not pass: a side
    /// with no kernel or no time, a timing sample no run can have (negative, not finite,
    /// longer than a day), a kernel timed one way in one run and another way in the other,
    /// times the artifact reader did not take as written, a slowdown beyond the gate inside
    /// a noise band wider than the gate and 10 %; for `--gate-work`, a side with no work
    /// vector, a matched kernel with no part in both runs, a stored work vector its counters
    /// contradict, a part one run has and the other lacks (but where the metric sets
    /// differ and that run lacks it in every kernel), counts that contradict each other. The
    /// output names each reason first; this code wins over 12.
    GateCannotJudge = 13,
    /// `capture verify`: the certificate does not hold for the runs given: a file that is
    /// not the one certified, a figure the runs do not give, a time below its physical floor
    /// or timers that disagree, work that changed unannounced. Each is named.
    VerifyFailed = 14,
    /// Interrupted by Ctrl-C (SIGINT), SIGTERM or SIGHUP; no output was left half-written
    /// (128 + SIGINT, as shells report it).
    Interrupted = 130,
}

/// An error with its own exit code. Wrap it in `anyhow::Error`; `main` finds it with
/// `downcast_ref`.
#[derive(Debug)]
pub struct Fault {
    /// Exit code for this fault.
    pub code: Code,
    /// The message shown to the user (may span lines: cause, then remedy).
    pub message: String,
}

impl Fault {
    /// A fault with the given code and message.
    pub fn new(code: Code, message: impl Into<String>) -> Self {
        Fault {
            code,
            message: message.into(),
        }
    }
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Fault {}

/// The exit code for an error: the [`Fault`]'s code anywhere in its chain, else
/// [`Code::Failure`].
pub fn code_of(err: &anyhow::Error) -> Code {
    err.chain()
        .find_map(|e| e.downcast_ref::<Fault>())
        .map_or(Code::Failure, |f| f.code)
}
