//! Any bytes into the source-page reader (`shared::read::source::read_source_csv`, what
//! `capture source` reads from `ncu --page source --csv --print-source sass`); an accepted
//! page must render as escaped text and valid JSON. See `fuzz_checks::source_page`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::source_page(data);
});
