//! A report and a source page (`u32 length, report, page`) through what `capture source
//! --sass PAGE` runs: the report streamed, the page joined to its launches. See
//! `fuzz_checks::source`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::source(data);
});
