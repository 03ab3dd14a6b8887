//! Exercises over an artifact, for learning without a GPU: commit to an answer, then see
//! what the counters say.
//!
//! - [`predict`]: predict the direction of each kernel's DRAM/ask, then reveal, score, and
//!   explain each miss from the kernel's own counters ([`evidence`]).
//! - [`quiz`]: report-reading questions about the bundled samples, with the rows that
//!   settle them.
//! - [`mystery`]: kernels behind labels until a diagnosis is committed.
//! - [`figure`]: the report rows they quote, read from [`crate::analysis::figures`].
//! - [`direction`]: where a DRAM/ask falls (above, near or below 1), what a prediction says.
//!
//! Like the rest of the crate, nothing here does I/O; the questions are embedded.

pub mod direction;
pub mod evidence;
pub mod figure;
pub mod mystery;
pub mod predict;
pub mod quiz;
