//! The one place capture touches the file system for its inputs and outputs: reading
//! exports and artifacts with the file named in every error, and atomic writes.

use std::fs;
use std::io::Write;
use std::path::Path;

use anyhow::{Context, Result};
use shared::ncu::{self, Export};
use shared::Artifact;

/// Reads an ncu CSV export, streaming; errors name the file.
pub fn read_export(path: &Path) -> Result<Export> {
    let file = fs::File::open(path).with_context(|| format!("{}: cannot open", path.display()))?;
    let reader = std::io::BufReader::with_capacity(1 << 20, file);
    ncu::read_export(reader).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Reads and validates an artifact JSON file; errors name the file.
pub fn read_artifact(path: &Path) -> Result<Artifact> {
    let text =
        fs::read_to_string(path).with_context(|| format!("{}: cannot read", path.display()))?;
    Artifact::from_json(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))
}

/// Writes `bytes` to `path` atomically: a temporary file in the same folder, flushed and
/// synced, then renamed over the target. A crash leaves the old file or the new one.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).with_context(|| format!("{}: cannot create folder", dir.display()))?;
    let mut tmp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))?;
    tmp.write_all(bytes)
        .and_then(|()| tmp.as_file().sync_all())
        .with_context(|| format!("{}: cannot write", path.display()))?;
    tmp.persist(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot replace: {}", path.display(), e.error))?;
    Ok(())
}

/// Writes an artifact atomically as pretty JSON.
pub fn write_artifact(path: &Path, artifact: &Artifact) -> Result<()> {
    write_atomic(path, artifact.to_json().as_bytes())
}
