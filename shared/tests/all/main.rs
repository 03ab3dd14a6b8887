//! `shared`'s integration tests on real exports and reports, one binary with a module per
//! topic (linked once, where each was a binary of its own) and one [`support`] module.
//! `growth.rs` stays a binary of its own: it times the readers, and other tests running
//! beside it in the same process would disturb its clock.
//!
//! One topic: `cargo test -p roofline-shared --test all sampling::`.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "an integration test reports a failure by panicking; clippy.toml's allow-*-in-tests covers only #[test] functions, not their helpers"
)]

mod support;

mod exercises;
mod fuzz_regressions;
mod hostile_values;
mod latency;
mod launch_keys;
mod ncu_rep;
mod ncu_rep_rules;
mod ncu_rep_sol;
mod ncu_rep_source;
mod ncu_rules;
mod nvtx;
mod real_workloads;
mod report_cuts;
mod sampling;
mod training_step;
mod verdict_corpus;
mod work_vector;
mod zstd;
