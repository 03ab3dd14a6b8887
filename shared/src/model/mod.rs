//! The data model: the artifact (the one JSON document `capture` writes and the viewer
//! reads), and the vocabulary every other layer speaks: the counter catalog, the kinds of
//! work, the range rules for values in base units, and the roofline model's arithmetic.
//!
//! Architecture invariant: this layer imports nothing of the layers above it (`read`,
//! `analysis`, `chart`, `exercise`); they all build on it.

pub mod artifact;
pub mod counters;
pub mod range;
pub mod roofline;
pub mod trace;
pub mod work_kind;
