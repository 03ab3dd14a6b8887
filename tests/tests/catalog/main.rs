//! What a read of the sources and docs can check, checked. One test binary, one module per
//! topic: [`invariants`] the architecture invariants, [`docs`] the docs against the tree and
//! the CLI, over [`lex`], a small Rust lexer. The architecture invariants:
//!
//! - no counter name is spelled in `capture/src` or `viewer/src`: they name counters through
//!   the catalog, `shared::model::counters`;
//! - `shared/src` reads counters only through the catalog: outside `counters.rs` and
//!   `#[cfg(test)]` code, no string holds a counter name (`metrics.rs` and `figures.rs`,
//!   which read the counters, included);
//! - `shared/src` does no I/O: no `std::fs`, `std::process`, `std::env`, `std::net`, and no
//!   clock (`Instant`, `SystemTime`);
//! - every workspace member takes the workspace's lints;
//! - `shared/src` and `viewer/src` sort only through `shared::order` (outside tests), so the
//!   viewer's wasm holds one compiled sort.
//!
//! The sources are read with a small Rust lexer ([`lex`]) that tells code, comments and
//! string literals apart, so a counter named in a doc comment is fine and one in a string
//! is not.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "an integration test reports a failure by panicking; clippy.toml's allow-*-in-tests covers only #[test] functions, not their helpers"
)]

mod circles;
mod docs;
mod invariants;
mod lex;
mod tree;

use std::path::{Path, PathBuf};

/// The workspace root.
pub(crate) fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, sorted, relative to the workspace root.
pub(crate) fn rust_files(dir: &str) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries =
            std::fs::read_dir(dir).unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|x| x == "rs") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&root().join(dir), &mut out);
    out.sort();
    assert!(!out.is_empty(), "no Rust sources under {dir}");
    out
}

/// A file's text; a test fails naming the file when it cannot be read.
pub(crate) fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// A file's name relative to the workspace root, for messages.
pub(crate) fn shown(path: &Path) -> String {
    let root = root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}
