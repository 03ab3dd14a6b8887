//! The GPU half of `capture`: everything the subcommands in [`crate::commands`] that need a
//! GPU host or Nsight Compute (`devices`, `run`, `profile`, `ncu-command`) do on the device
//! or with ncu.
//!
//! Code map: [`suite`] declares every kernel once (source, launch shape, asked work, CPU
//! reference); [`checks`] and [`data`] hold the host-side comparison machinery; [`runner`]
//! and [`blas`] (cuBLASLt) are the only modules that talk to CUDA; [`measure`] opens a device
//! for the suite and checks then times one kernel; [`ceilings`] holds the ceiling procedures
//! and their arithmetic, [`tensor`] the tensor-core ceilings' GEMMs, inputs, references and
//! records; [`ncu`] builds ncu command lines, runs ncu behind the [`ncu::Profiler`] trait
//! and judges its outcome; [`collect`] is the one ncu collection `run` and `profile` both
//! read back, [`sample`] what a sampled profile adds (the timing pass, the plan's text, the
//! sample's counters spread to every launch); [`console`] writes what the commands print;
//! [`stats`], [`host`] and [`progress`] are small helpers.

pub mod blas;
pub mod ceilings;
pub mod checks;
pub mod collect;
pub mod console;
pub mod data;
#[cfg(test)]
pub mod fake;
pub mod host;
pub mod measure;
pub mod ncu;
pub mod progress;
pub mod runner;
pub mod sample;
pub mod stats;
pub mod suite;
pub mod tensor;
pub mod trace;
