//! The timing pass read back: one [`TimedLaunch`] per launch of an ncu raw page that holds
//! `gpu__time_duration.sum` (the one metric of `capture profile`'s first pass), with the
//! launch's kernel, shape, stream and its invocation number among the launches alike.

use std::collections::HashMap;

use crate::model::artifact::LaunchCounters;
use crate::model::counters;

/// One launch of the timing pass.
#[derive(Clone, Debug, PartialEq)]
pub struct TimedLaunch {
    /// ncu's launch `ID` in the timing pass (launch order).
    pub id: u64,
    /// Kernel name as the raw page prints it (demangled).
    pub function: String,
    /// Grid size, blocks.
    pub grid: Option<[u32; 3]>,
    /// Block size, threads.
    pub block: Option<[u32; 3]>,
    /// CUDA context ID.
    pub context: Option<u64>,
    /// CUDA stream ID.
    pub stream: Option<u64>,
    /// Shared memory per block, bytes, when the page has it.
    pub shared_mem: Option<f64>,
    /// `gpu__time_duration.sum`, ns.
    pub duration_ns: f64,
    /// Which launch of its launch configuration this is, from 1: the launches with the same
    /// context, stream, kernel, grid, block and shared memory counted in launch order (what
    /// ncu's `--kernel-id` counts as the invocation number).
    pub invocation: u64,
}

impl TimedLaunch {
    /// Kernel, grid and block: what launches of one group share.
    pub fn shape(&self) -> (&str, Option<[u32; 3]>, Option<[u32; 3]>) {
        (&self.function, self.grid, self.block)
    }
}

/// Why a page is not a usable timing pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimingError {
    /// The page has no launch.
    Empty,
    /// A launch has no duration.
    NoDuration {
        /// Its ncu `ID`.
        id: u64,
        /// Its kernel.
        function: String,
    },
    /// Two launches share an `ID` (pages of several processes: not supported).
    DuplicateId(u64),
}

impl std::fmt::Display for TimingError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TimingError::Empty => f.write_str("the timing pass holds no kernel launch"),
            TimingError::NoDuration { id, function } => write!(
                f,
                "launch {id} ({function}) has no {} value: not a timing pass",
                counters::GPU_TIME_DURATION.name
            ),
            TimingError::DuplicateId(id) => write!(
                f,
                "launch ID {id} appears twice (several processes?): sampling needs one \
                 process's launches; use --all-launches"
            ),
        }
    }
}

impl std::error::Error for TimingError {}

/// The launches of a timing pass in launch order, each with its invocation number.
///
/// # Errors
///
/// [`TimingError`] when the page is empty, a launch has no duration or IDs repeat.
pub fn timed_launches(launches: &[LaunchCounters]) -> Result<Vec<TimedLaunch>, TimingError> {
    if launches.is_empty() {
        return Err(TimingError::Empty);
    }
    let mut out = Vec::with_capacity(launches.len());
    for l in launches {
        let Some(duration_ns) = l.metrics.number(counters::GPU_TIME_DURATION.name) else {
            return Err(TimingError::NoDuration {
                id: l.id,
                function: l.function.clone(),
            });
        };
        out.push(TimedLaunch {
            id: l.id,
            function: l.function.clone(),
            grid: l.grid,
            block: l.block,
            context: l.context,
            stream: l.stream,
            shared_mem: l.metrics.number(counters::SHARED_MEM_PER_BLOCK.name),
            duration_ns,
            invocation: 0,
        });
    }
    out.sort_by_key(|t| t.id);
    if let Some(w) = out.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(TimingError::DuplicateId(w[0].id));
    }
    number_invocations(&mut out);
    Ok(out)
}

/// The configuration ncu counts invocations of.
type ConfigKey = (
    Option<u64>,
    Option<u64>,
    String,
    Option<[u32; 3]>,
    Option<[u32; 3]>,
    Option<u64>,
);

/// Sets each launch's invocation number (launches in launch order).
pub fn number_invocations(launches: &mut [TimedLaunch]) {
    let mut seen: HashMap<ConfigKey, u64> = HashMap::new();
    for t in launches {
        let key = (
            t.context,
            t.stream,
            t.function.clone(),
            t.grid,
            t.block,
            t.shared_mem.map(f64::to_bits),
        );
        let n = seen.entry(key).or_insert(0);
        *n += 1;
        t.invocation = *n;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(id: u64, f: &str, grid: u32, ns: f64) -> LaunchCounters {
        let mut l = LaunchCounters::from_numbers(f, &[(counters::GPU_TIME_DURATION.name, ns)]);
        l.id = id;
        l.grid = Some([grid, 1, 1]);
        l.block = Some([128, 1, 1]);
        l
    }

    #[test]
    fn invocations_count_launches_of_one_configuration() {
        let t = timed_launches(&[
            launch(0, "a", 1, 10.0),
            launch(1, "a", 2, 10.0),
            launch(2, "a", 1, 11.0),
            launch(3, "b", 1, 5.0),
        ])
        .unwrap_or_default();
        let inv: Vec<u64> = t.iter().map(|t| t.invocation).collect();
        assert_eq!(inv, [1, 1, 2, 1]);
    }

    #[test]
    fn a_page_without_durations_is_refused_naming_the_launch() {
        let mut l = launch(7, "k", 1, 1.0);
        l.metrics = Default::default();
        let e = timed_launches(&[l]).err().map(|e| e.to_string());
        assert_eq!(
            e.as_deref(),
            Some("launch 7 (k) has no gpu__time_duration.sum value: not a timing pass")
        );
        assert_eq!(timed_launches(&[]), Err(TimingError::Empty));
        let e = timed_launches(&[launch(1, "a", 1, 1.0), launch(1, "a", 1, 1.0)]);
        assert_eq!(e, Err(TimingError::DuplicateId(1)));
    }
}
