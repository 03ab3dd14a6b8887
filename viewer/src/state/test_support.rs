//! Test support for the state layer: workspaces loaded from the repository's real files (the
//! H200 fixtures under `tests/fixtures/`, the site's samples) through the loader the page
//! uses. A file that is missing or does not load fails the test, naming it.

use super::load::{load_batch, InputFile};
use super::model::Workspace;

/// The file at `path`, relative to the repository root, as the page would be handed it. A
/// site sample the tree keeps gzipped (`site/samples/NAME.gz`, published un-gzipped by
/// `site/build.sh`) is handed over un-gzipped, as the site serves it.
pub fn input(path: &str) -> InputFile {
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let name = path.rsplit('/').next().unwrap_or(path).to_owned();
    if path.starts_with("site/samples/") && !std::path::Path::new(&full).exists() {
        let bytes = unpack(&format!("{path}.gz"));
        return InputFile { name, bytes };
    }
    let bytes = std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    InputFile { name, bytes }
}

/// The compressed file at `path` (relative to the repository root), un-compressed: gzip,
/// or zstd (a `.ncu-repz`, how the tree keeps its large reports), told by its first bytes.
pub fn unpack(path: &str) -> Vec<u8> {
    use std::io::Read;
    let full = format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"));
    let packed = std::fs::read(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    if shared::read::zstd::is_zstd(&packed) {
        return shared::read::zstd::decode_all(&packed, u64::MAX)
            .unwrap_or_else(|e| panic!("{full}: {e}"));
    }
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(&packed[..])
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{full}: {e}"));
    out
}

/// A workspace of the files at `paths` (relative to the repository root), loaded together.
pub fn workspace(paths: &[&str]) -> Workspace {
    let (runs, errors) = load_batch(paths.iter().map(|p| input(p)).collect());
    assert!(errors.is_empty(), "{paths:?}: {errors:?}");
    let mut ws = Workspace::default();
    ws.add(runs);
    ws
}

/// A workspace of one compressed fixture, `tests/fixtures/NAME.gz` (a report: `NAMEz`, a
/// `.ncu-repz`), un-compressed and named `NAME` as the page would be handed it after its
/// own un-compressing.
pub fn packed_fixture(name: &str) -> Workspace {
    let packed = if name.ends_with(".ncu-rep") {
        format!("tests/fixtures/{name}z")
    } else {
        format!("tests/fixtures/{name}.gz")
    };
    let bytes = unpack(&packed);
    let name = name.rsplit('/').next().unwrap_or(name).to_owned();
    let (runs, errors) = load_batch(vec![InputFile { name, bytes }]);
    assert!(errors.is_empty(), "{errors:?}");
    let mut ws = Workspace::default();
    ws.add(runs);
    ws
}

/// A workspace of one fixture, `tests/fixtures/NAME`.
pub fn fixture(name: &str) -> Workspace {
    workspace(&[&format!("tests/fixtures/{name}")])
}

/// A workspace of one of the site's samples, `site/samples/NAME`.
pub fn sample(name: &str) -> Workspace {
    workspace(&[&format!("site/samples/{name}")])
}
