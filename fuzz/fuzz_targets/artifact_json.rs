//! Any text into the artifact loader (`shared::Artifact::from_json`); an accepted artifact
//! must round-trip through `to_json` and render its bytes table. See
//! `fuzz_checks::artifact_json`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    fuzz_checks::artifact_json(data);
});
