//! The ncu CSV reader behind a real header: the first byte picks a raw-page header (with or
//! without its units row, full or cut), a details-page header or the GUI export's first
//! line, taken from the fixtures; the rest of the bytes follow it. See
//! `fuzz_checks::structured`.
#![no_main]

use std::sync::OnceLock;

static PREFIXES: OnceLock<Vec<String>> = OnceLock::new();

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let prefixes = PREFIXES.get_or_init(fuzz_checks::structured_prefixes);
    fuzz_checks::structured(data, prefixes);
});
