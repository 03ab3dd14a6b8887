//! Any bytes into the ncu CSV reader (`shared::read::ncu::read_export`): raw page, details page,
//! the GUI's two-column export, or anything else. See `fuzz_checks::read_export`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::read_export(data);
});
