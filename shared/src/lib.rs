//! The shared core of the roofline tool, in layers, each building only on those below it:
//!
//! - [`model`]: the artifact (the public JSON format), the counter catalog, the kinds of
//!   work, the range rules for values and the roofline model's arithmetic;
//! - [`read`]: the Nsight Compute CSV and `.ncu-rep` readers, into the model's launches;
//! - [`chart`]: roofline, memory and stall charts drawn from plain numbers onto any plotters
//!   backend;
//! - [`analysis`]: every figure the views and tables show, import and merge, several runs
//!   read together, the bytes table;
//! - [`exercise`]: predict-then-reveal exercises over an artifact;
//!
//! with [`error`] (the typed errors) and [`text`] (names and numbers for people) beneath them all.
//!
//! Architecture invariant: this crate does no I/O. It reads from any `std::io::Read` handed
//! to it, never opens files, spawns processes, reads clocks or touches CUDA, so it builds for
//! `wasm32-unknown-unknown` and the CLI and the viewer compute every number the same way.

#![forbid(unsafe_code)]

pub mod analysis;
pub mod chart;
pub mod error;
pub mod exercise;
pub mod model;
pub mod order;
pub mod read;
#[cfg(any(test, feature = "testing"))]
pub mod testing;
pub mod text;

pub use model::artifact::Artifact;
