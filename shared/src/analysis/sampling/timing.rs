//! The timing pass read back: one [`TimedLaunch`] per launch of an ncu raw page that holds
//! `gpu__time_duration.sum` (the one metric of `capture profile`'s first pass), with the
//! launch's kernel, shape, stream and its invocation number among the launches of its kernel.

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::artifact::{LaunchCounters, NvtxRanges};
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
    /// The NVTX ranges it ran in, when the pass recorded them (`--nvtx`).
    pub nvtx: Option<Arc<NvtxRanges>>,
    /// Shared memory per block, bytes, when the page has it.
    pub shared_mem: Option<f64>,
    /// `gpu__time_duration.sum`, ns.
    pub duration_ns: f64,
    /// Which launch of its kernel this is, from 1: the launches with the same kernel name
    /// counted in launch order (what ncu's `--kernel-id` counts as the invocation number; see
    /// [`number_invocations`]).
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
                function: l.function.to_string(),
            });
        };
        out.push(TimedLaunch {
            id: l.id,
            function: l.function.to_string(),
            grid: l.site.grid,
            block: l.site.block,
            context: l.site.context,
            stream: l.site.stream,
            nvtx: l.site.nvtx.clone(),
            shared_mem: l.metrics.number(counters::SHARED_MEM_PER_BLOCK.name),
            duration_ns,
            invocation: 0,
        });
    }
    crate::order::sort_by_key(&mut out, |t| t.id);
    if let Some(w) = out.windows(2).find(|w| w[0].id == w[1].id) {
        return Err(TimingError::DuplicateId(w[0].id));
    }
    number_invocations(&mut out);
    Ok(out)
}

/// Sets each launch's invocation number (launches in launch order): its rank among the
/// launches of the same kernel name, from 1, whatever their grid, block, context or stream.
///
/// That is how ncu 2025.3 counts for `--kernel-id :::NAME:N` with the context and stream left
/// empty, as measured on a BERT-base training step on the H200
/// (tests/fixtures/ncu-h200-train/base12): of the 48 launches ncu profiled for
/// `--kernel-id ':::^(1|3|55|60)$'`, numbering per kernel name predicts 46, numbering per
/// kernel x grid x block x context x stream 25. The other two are cuBLAS `nvjet` launches
/// that ncu counted under another kernel's name (its log names them so); the profiling
/// pass's rows are therefore matched to launches by shape and duration
/// ([`super::scale::assign`]), not by number alone.
pub fn number_invocations(launches: &mut [TimedLaunch]) {
    let mut seen: HashMap<String, u64> = HashMap::new();
    for t in launches {
        let n = seen.entry(t.function.clone()).or_insert(0);
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
        l.site_mut().grid = Some([grid, 1, 1]);
        l.site_mut().block = Some([128, 1, 1]);
        l
    }

    #[test]
    fn invocations_count_launches_of_one_kernel_name() {
        let t = timed_launches(&[
            launch(0, "a", 1, 10.0),
            launch(1, "a", 2, 10.0),
            launch(2, "a", 1, 11.0),
            launch(3, "b", 1, 5.0),
        ])
        .unwrap_or_default();
        let inv: Vec<u64> = t.iter().map(|t| t.invocation).collect();
        assert_eq!(inv, [1, 2, 3, 1]);
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
