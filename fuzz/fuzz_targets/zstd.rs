//! Any bytes into the zstd decoder of `.ncu-repz` reports (`shared::read::zstd`). See
//! `fuzz_checks::zstd`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::zstd(data);
});
