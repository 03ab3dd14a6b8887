//! Two artifacts, `before 0xFF after`, through what `capture diff --gate 5` runs
//! (`shared::analysis::diff::diff_loaded` and its three forms). See `fuzz_checks::diff`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::diff(data);
});
