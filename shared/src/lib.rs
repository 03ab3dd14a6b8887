//! The shared core of the roofline tool: the artifact data model, the Nsight Compute CSV
//! reader, roofline math and derived metrics, merge and import, the bytes table, and chart
//! drawing generic over a plotters backend.
//!
//! Architecture invariant: this crate does no I/O. It reads from any `std::io::Read` handed
//! to it, never opens files, spawns processes, reads clocks or touches CUDA, so it builds for
//! `wasm32-unknown-unknown` and the CLI and the viewer compute every number the same way.

pub mod artifact;
pub mod ceilings;
pub mod chart;
pub mod counters;
pub mod diff;
pub mod error;
pub mod exercise;
pub mod exports;
pub mod figures;
pub mod latency;
pub mod merge;
pub mod metrics;
pub mod multi;
pub mod ncu;
pub mod ncu_rep;
pub mod range;
pub mod roofline;
pub mod table;
pub mod text;
pub mod work;

pub use artifact::Artifact;
