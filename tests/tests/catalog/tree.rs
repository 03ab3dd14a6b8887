//! The tracked tree travels (issue 52): a GPU run carries the whole working tree within
//! 64 MiB, so the tree stays under 40 MB, its large samples and fixtures compressed, and no
//! file is kept twice. Read from `git ls-files`, what a clone holds.

use std::collections::BTreeMap;
use std::process::Command;

use crate::root;

/// The most bytes the tracked files may take together.
const TREE_LIMIT_BYTES: u64 = 40_000_000;

/// The tracked files, relative to the workspace root.
fn tracked() -> Vec<String> {
    let out = Command::new("git")
        .args(["ls-files", "-z"])
        .current_dir(root())
        .output()
        .expect("git runs (the tree checks read what a clone holds)");
    assert!(out.status.success(), "git ls-files failed");
    String::from_utf8(out.stdout)
        .expect("UTF-8 paths")
        .split('\0')
        .filter(|p| !p.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Each tracked file that is present, with its bytes (a file deleted but not yet committed
/// is left out).
fn files() -> Vec<(String, Vec<u8>)> {
    tracked()
        .into_iter()
        .filter_map(|p| std::fs::read(root().join(&p)).ok().map(|b| (p, b)))
        .collect()
}

#[test]
fn the_tracked_tree_stays_under_40_mb() {
    let files = files();
    let total: u64 = files.iter().map(|(_, b)| b.len() as u64).sum();
    let mut largest: Vec<(usize, &str)> =
        files.iter().map(|(p, b)| (b.len(), p.as_str())).collect();
    largest.sort_unstable_by(|a, b| b.cmp(a));
    println!("tracked tree: {} files, {total} bytes", files.len());
    assert!(
        total < TREE_LIMIT_BYTES,
        "the tracked tree is {total} bytes, over {TREE_LIMIT_BYTES}: compress what the one \
         classifier reads (gzip; a report as a zstd .ncu-repz) or cut a fixture to what it \
         tests. Largest: {:?}",
        &largest[..largest.len().min(10)]
    );
}

#[test]
fn no_file_is_tracked_twice() {
    let mut by_bytes: BTreeMap<&[u8], Vec<&str>> = BTreeMap::new();
    let files = files();
    for (path, bytes) in &files {
        // Empty files and the small ones (a README's licence line, an `__init__.py`) are
        // not what fills the tree.
        if bytes.len() >= 4096 {
            by_bytes.entry(bytes.as_slice()).or_default().push(path);
        }
    }
    let twice: Vec<&Vec<&str>> = by_bytes.values().filter(|p| p.len() > 1).collect();
    assert!(
        twice.is_empty(),
        "files tracked twice, byte for byte (keep one and point its readers to it): {twice:?}"
    );
}
