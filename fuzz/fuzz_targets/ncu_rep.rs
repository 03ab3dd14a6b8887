//! Any bytes into the `.ncu-rep` report reader (`shared::read::ncu_rep`): slice and streaming
//! reads, the decoded report, and the artifact it imports to. See `fuzz_checks::ncu_rep`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::ncu_rep(data);
});
