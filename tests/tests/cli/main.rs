//! Integration tests of the `capture` binary on real fixtures: one binary, one module per
//! topic, helpers in `util`.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "an integration test reports a failure by panicking; clippy.toml's allow-*-in-tests covers only #[test] functions, not their helpers"
)]

mod bad_input;
mod bounds;
mod certificate;
mod corpus;
mod diff;
mod diff_launches;
mod diff_range;
mod drift;
mod explain;
mod gate;
mod gate_closed;
mod golden;
mod hostile;
mod import;
mod interrupt;
mod mcp;
mod merge;
mod nsys_import;
mod one_pass;
mod ranks;
mod reports;
mod repz;
mod source;
mod table;
mod trace;
mod trace_h100;
mod util;
mod work_gate;
mod work_h200;
