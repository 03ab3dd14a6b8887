//! Block operations built into a `.ncu-rep` report: the reader's growth cases (many
//! tables, processes, sources, mismatched counts). See `fuzz_checks::ncu_rep_blocks`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::ncu_rep_blocks(data);
});
