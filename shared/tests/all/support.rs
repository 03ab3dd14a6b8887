//! What several topics' tests need, once: un-gzipping a fixture, and importing an export
//! the way `capture import` does.

use std::io::Read;

use shared::model::artifact::Provenance;

/// A gzipped fixture, un-gzipped.
pub fn gunzip(gz: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut out)
        .expect("fixture gunzips");
    out
}

/// A CSV export imported into an artifact, as `capture import` would.
pub fn import(text: &str) -> shared::Artifact {
    let export = shared::read::ncu::read_export(text.as_bytes()).expect("export reads");
    let (launches, warnings) = shared::read::ncu::combine(vec![export]);
    shared::analysis::merge::import_launches(launches, warnings, Provenance::default())
}
