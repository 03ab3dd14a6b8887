//! What several topics' tests need, once: un-compressing a fixture, and importing an export
//! the way `capture import` does.

use std::io::Read;

use shared::model::artifact::Provenance;

/// A compressed fixture, un-compressed: gzip, or zstd (the large reports, `.ncu-repz`,
/// which zstd packs three to four times smaller), told apart by the first bytes.
pub fn unpack(packed: &[u8]) -> Vec<u8> {
    if shared::read::zstd::is_zstd(packed) {
        return shared::read::zstd::decode_all(packed, u64::MAX).expect("fixture un-zstds");
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(packed)
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
