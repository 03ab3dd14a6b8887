//! The measured run-to-run spread of kernel time a tolerance file holds (`time`), one floor
//! below both its readers: the work gate's tolerance file (`work.rs`) and the drift the
//! diff's bands include (`drift.rs`).

use serde::{Deserialize, Serialize};

/// A tolerance file's measured time spread: the CV of a kernel's time over repeat runs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeSpread {
    /// The CV (standard deviation over mean) of a kernel's time over the runs, %: the 90th
    /// percentile over the kernels measured, so that nine kernels in ten drift less.
    pub cv_pct: f64,
    /// The largest CV of any kernel, %.
    pub max_cv_pct: f64,
    /// How many kernel configurations were measured.
    pub kernels: usize,
}
