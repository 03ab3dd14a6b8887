//! Import and merge (`shared::analysis::merge::import_launches`, `attach_counters`) of fuzzed exports
//! into a fuzzed artifact, then the bytes table in every form. The input is an operation
//! byte, then an artifact and exports separated by 0xFF bytes. See
//! `fuzz_checks::merge_table`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::merge_table(data);
});
