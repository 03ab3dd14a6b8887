//! The one place capture touches the file system for its inputs and outputs: reading
//! exports (CSV text or `.ncu-rep` reports) and artifacts with the file named in every
//! error, and atomic writes (every artifact and CSV page capture writes goes through
//! [`write_atomic`]; only ncu's own log and report are written by ncu as it runs).
//!
//! Inside: [`parallel`] reads an export and writes an artifact on several threads, with the
//! single-threaded result byte for byte; [`stage_times`] times an import's stages when
//! asked.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use shared::model::artifact::LoadWarning;
use shared::read::exports;
use shared::read::kind::{kind_of, FileKind};
use shared::read::ncu::Export;
use shared::Artifact;

use crate::exit::{Code, Fault};
pub mod parallel;
pub mod stage_times;

use self::stage_times::Stages;
use crate::interrupt;

/// Reads an ncu export, streaming, through [`shared::read::exports`]: a binary report
/// (`.ncu-rep`, told by its magic) into the launches its raw CSV page would give, else a
/// CSV text export, read on two threads ([`parallel::read_export`]). Errors name the file,
/// and the line or byte offset.
pub fn read_export(path: &Path) -> Result<Export> {
    let file = fs::File::open(path).with_context(|| format!("{}: cannot open", shown(path)))?;
    // Small: the CSV reader buffers its input itself, and reads larger blocks past this.
    let reader = std::io::BufReader::with_capacity(64 << 10, file);
    exports::read_from_with(reader, parallel::read_export)
        .map_err(|e| anyhow::anyhow!("{}: {e}", shown(path)))
}

/// [`read_export`], and for a report also the source page of each launch that has source
/// counters (read in the same pass, [`shared::read::ncu_rep::read_export_with_source_from`]);
/// a CSV export has none.
pub fn read_export_with_sources(
    path: &Path,
) -> Result<(Export, Vec<shared::read::source::LaunchSource>)> {
    if kind(path)? != FileKind::Report {
        return Ok((read_export(path)?, Vec::new()));
    }
    let file = fs::File::open(path).with_context(|| format!("{}: cannot open", shown(path)))?;
    let reader = std::io::BufReader::with_capacity(64 << 10, file);
    shared::read::ncu_rep::read_export_with_source_from(reader)
        .map_err(|e| anyhow::anyhow!("{}: {e}", shown(path)))
}

/// What the file at `path` is, from its first bytes ([`kind_of`]).
pub fn kind(path: &Path) -> Result<FileKind> {
    use std::io::Read;
    let file = fs::File::open(path).with_context(|| format!("{}: cannot open", shown(path)))?;
    let mut first = Vec::new();
    // Enough for a byte order mark, white space and any kind's first bytes.
    file.take(4 << 10)
        .read_to_end(&mut first)
        .with_context(|| format!("{}: cannot read", shown(path)))?;
    Ok(kind_of(&first))
}

/// What the file at `path` holds: [`kind`], and of a gzip stream the kind of what it
/// un-gzips to (from its first bytes); a stream that does not un-gzip stays
/// [`FileKind::Gzip`].
pub fn kind_inside(path: &Path) -> Result<FileKind> {
    use std::io::Read;
    let outer = kind(path)?;
    if outer != FileKind::Gzip {
        return Ok(outer);
    }
    let file = fs::File::open(path).with_context(|| format!("{}: cannot open", shown(path)))?;
    let mut first = Vec::new();
    let read = flate2::read::GzDecoder::new(file)
        .take(4 << 10)
        .read_to_end(&mut first);
    Ok(match read {
        Ok(_) => kind_of(&first),
        Err(_) => FileKind::Gzip,
    })
}

/// The largest artifact capture reads: 4 GiB, some ten times the artifact of the largest
/// export measured (500 MB). A file that grows past it (`/dev/zero` passes the first check
/// only if it starts like JSON; an endless stream of `{`) is refused rather than held.
pub const MAX_ARTIFACT_BYTES: u64 = 4 << 30;

/// The size of a regular file of at most [`MAX_ARTIFACT_BYTES`] (0 for anything else: a
/// pipe, a device, a file too large, which is refused as it is read), to read it into a
/// buffer of its size: grown by doubling as it was read, a 169 MB artifact's text held
/// 268 MB.
fn file_size(file: &fs::File) -> usize {
    file.metadata()
        .ok()
        .filter(|m| m.is_file() && m.len() <= MAX_ARTIFACT_BYTES)
        .map_or(0, |m| m.len() as usize)
}

/// Reads an artifact's text, refusing at once what cannot be one: binary data (a report,
/// `/dev/zero`), text that is not UTF-8 (with the byte offset), and more than
/// [`MAX_ARTIFACT_BYTES`].
fn read_artifact_text(path: &Path) -> Result<String> {
    use std::io::Read;
    let name = shown(path);
    let file = fs::File::open(path).with_context(|| format!("{name}: cannot read"))?;
    let size = file_size(&file);
    let mut bytes = Vec::new();
    let mut head = file.take(MAX_ARTIFACT_BYTES + 1);
    // The first 64 KiB decide whether the rest is read.
    (&mut head)
        .take(64 << 10)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    match kind_of(&bytes) {
        FileKind::Report => anyhow::bail!(
            "{name}: an Nsight Compute report (.ncu-rep), not an artifact: import it first \
             (`capture import {name} -o A.json`)"
        ),
        FileKind::Gzip => anyhow::bail!(
            "{name}: gzip data, not an artifact (a JSON text starting with `{{`): gunzip it \
             first"
        ),
        FileKind::Binary { at } => {
            let b = bytes.get(at).copied().unwrap_or(0);
            anyhow::bail!(
                "{name}: byte {at}: binary data (0x{b:02x}), not an artifact (a JSON text \
                 starting with `{{`); an export or a report is read by `capture import`"
            );
        }
        FileKind::Empty | FileKind::Artifact | FileKind::SourcePage | FileKind::CsvExport => {}
    }
    bytes.reserve_exact(size.saturating_sub(bytes.len()));
    head.read_to_end(&mut bytes)
        .with_context(|| format!("{name}: cannot read"))?;
    if bytes.len() as u64 > MAX_ARTIFACT_BYTES {
        anyhow::bail!(
            "{name}: larger than {} GiB, more than any artifact capture writes; not read",
            MAX_ARTIFACT_BYTES >> 30
        );
    }
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{name}: byte {}: not UTF-8 text, so not an artifact (JSON is UTF-8); an export \
             or a report is read by `capture import`",
            e.utf8_error().valid_up_to()
        )
    })
}

/// A path for a one-line message: control characters (a newline in a file name) escaped.
pub fn shown(path: &Path) -> String {
    shared::text::escape::controls(&path.display().to_string()).into_owned()
}

/// Refuses an output that is one of the inputs (the same file, by any path): writing it
/// would replace the input with the result.
pub fn refuse_output_among_inputs<'a>(
    output: &Path,
    inputs: impl IntoIterator<Item = &'a PathBuf>,
) -> Result<()> {
    let Ok(out) = fs::metadata(output) else {
        return Ok(());
    };
    for input in inputs {
        let same = match fs::metadata(input) {
            #[cfg(unix)]
            Ok(m) => {
                use std::os::unix::fs::MetadataExt;
                m.dev() == out.dev() && m.ino() == out.ino()
            }
            #[cfg(not(unix))]
            Ok(_) => fs::canonicalize(input).ok() == fs::canonicalize(output).ok(),
            Err(_) => false,
        };
        if same {
            return Err(Fault::new(
                Code::Usage,
                format!(
                    "-o {} is also an input ({}): it would be replaced by the result; write \
                     to another file",
                    shown(output),
                    shown(input)
                ),
            )
            .into());
        }
    }
    Ok(())
}

/// Reads a whole input file (a report or a source-page export for `capture source`),
/// un-gzipping it when it is a gzip stream (told by [`kind_of`], as every kind is); errors
/// name the file. Bounded as artifacts
/// are: binary data that is not a report (`/dev/zero`) is refused from its first 64 KiB,
/// and more than [`MAX_ARTIFACT_BYTES`] (read, or after gunzip) is refused rather than held.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    use std::io::{BufRead, Read};
    let name = shown(path);
    let file = fs::File::open(path).with_context(|| format!("{name}: cannot read"))?;
    let size = file_size(&file);
    let mut file = std::io::BufReader::new(file);
    let start = file
        .fill_buf()
        .with_context(|| format!("{name}: cannot read"))?;
    let gz = kind_of(start) == FileKind::Gzip;
    let (reader, size): (Box<dyn Read>, usize) = if gz {
        (Box::new(flate2::read::GzDecoder::new(file)), 0)
    } else {
        (Box::new(file), size)
    };
    let what = if gz { "cannot gunzip" } else { "cannot read" };
    let after = if gz { " (after gunzip)" } else { "" };
    let mut head = reader.take(MAX_ARTIFACT_BYTES + 1);
    let mut bytes = Vec::new();
    (&mut head)
        .take(64 << 10)
        .read_to_end(&mut bytes)
        .with_context(|| format!("{name}: {what}"))?;
    if let FileKind::Binary { at } = kind_of(&bytes) {
        let b = bytes.get(at).copied().unwrap_or(0);
        anyhow::bail!(
            "{name}: byte {at}{after}: binary data (0x{b:02x}), neither an Nsight Compute \
             report (.ncu-rep) nor a CSV text export"
        );
    }
    bytes.reserve_exact(size.saturating_sub(bytes.len()));
    head.read_to_end(&mut bytes)
        .with_context(|| format!("{name}: {what}"))?;
    if bytes.len() as u64 > MAX_ARTIFACT_BYTES {
        anyhow::bail!(
            "{name}: larger than {} GiB{after}, more than any report or export capture \
             reads; not read",
            MAX_ARTIFACT_BYTES >> 30
        );
    }
    Ok(bytes)
}

/// Reads and validates an artifact JSON file; errors name the file.
pub fn read_artifact(path: &Path) -> Result<Artifact> {
    read_artifact_checked(path).map(|(artifact, _)| artifact)
}

/// [`read_artifact`], with what the reader did not take as written (each also printed as
/// a warning naming the file), for `capture diff --gate`.
pub fn read_artifact_checked(path: &Path) -> Result<(Artifact, Vec<LoadWarning>)> {
    let text = read_artifact_text(path)?;
    let (artifact, dropped) =
        Artifact::from_json_checked(&text).map_err(|e| anyhow::anyhow!("{}: {e}", shown(path)))?;
    let name = path.file_name().map_or_else(
        || shown(path),
        |n| shared::text::escape::controls(&n.to_string_lossy()).into_owned(),
    );
    for w in &dropped {
        crate::out::warn(&format!("{name}: {w}"));
    }
    Ok((artifact, dropped))
}

/// The temporary file an output is written to before it is renamed over `path`: beside it
/// (a rename within one folder is atomic), hidden, and named after it, `.NAME.tmpXXXXXX`, so
/// that one left by a killed process says what it was and is never taken for an output.
fn temp_file_for(path: &Path, dir: &Path) -> Result<tempfile::NamedTempFile> {
    let mut prefix = std::ffi::OsString::from(".");
    prefix.push(path.file_name().unwrap_or_else(|| "output".as_ref()));
    prefix.push(".tmp");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).rand_bytes(6);
    // Readable as fs::write would leave it (0666 less the umask), not the 0600 of a
    // temporary file: artifacts are meant to be shared and served.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(0o666));
    }
    builder
        .tempfile_in(dir)
        .with_context(|| format!("{}: cannot create a temporary file", dir.display()))
}

/// Writes to `path` atomically: `write` fills a temporary file in the same folder (see
/// [`temp_file_for`]), which is flushed, synced, then renamed over the target. A crash or a
/// kill leaves the old file or the new one, never a mix; Ctrl-C also removes the temporary
/// file (see `interrupt`).
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    write_atomic_staged(path, &mut Stages::off(), write)
}

/// [`write_atomic_with`], marking the end of the writing (`write`) and of the sync and
/// rename (`sync`) in `stages`.
fn write_atomic_staged(
    path: &Path,
    stages: &mut Stages,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    fs::create_dir_all(dir).with_context(|| format!("{}: cannot create folder", dir.display()))?;
    let (tmp, _undo) = interrupt::made(
        || temp_file_for(path, dir),
        |t| interrupt::Undo::Remove(t.path().to_path_buf()),
    )?;
    {
        // A second thread writes the bytes to disk while `write` produces them.
        let file = tmp
            .as_file()
            .try_clone()
            .with_context(|| format!("{}: cannot write", shown(path)))?;
        let mut out = parallel::BackgroundWriter::new(file)
            .with_context(|| format!("{}: cannot write", shown(path)))?;
        write(&mut out)
            .and_then(|()| out.finish())
            .with_context(|| format!("{}: cannot write", shown(path)))?;
    }
    stages.mark("write");
    tmp.as_file()
        .sync_all()
        .with_context(|| format!("{}: cannot write", shown(path)))?;
    tmp.persist(path)
        .map_err(|e| anyhow::anyhow!("{}: cannot replace: {}", shown(path), e.error))?;
    stages.mark("sync");
    Ok(())
}

/// Writes `bytes` to `path` atomically (see [`write_atomic_with`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// Writes an artifact atomically, streaming its JSON (a large import is never held as
/// text in memory).
pub fn write_artifact(path: &Path, artifact: &Artifact) -> Result<()> {
    write_artifact_staged(path, artifact, &mut Stages::off())
}

/// [`write_artifact`], marking its stages in `stages` (see [`write_atomic_staged`]).
pub fn write_artifact_staged(path: &Path, artifact: &Artifact, stages: &mut Stages) -> Result<()> {
    write_atomic_staged(path, stages, |out| {
        parallel::write_artifact_json(artifact, out)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .map(|entries| {
                entries
                    .filter_map(|e| e.ok())
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    }

    #[test]
    fn writes_replace_the_target_and_leave_nothing_else() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let target = dir.path().join("a.json");
        write_atomic(&target, b"old").unwrap_or_else(|e| panic!("{e:#}"));
        write_atomic(&target, b"new").unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(fs::read(&target).ok().as_deref(), Some(&b"new"[..]));
        assert_eq!(names(dir.path()), ["a.json"]);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&target).map(|m| m.permissions().mode() & 0o777);
            // Readable by others unless the umask forbids it; never the 0600 of a temp file.
            assert_ne!(mode.ok(), Some(0o600));
        }
    }

    #[test]
    fn the_temporary_file_is_hidden_beside_the_target_and_named_after_it() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let tmp = temp_file_for(&dir.path().join("run.json"), dir.path())
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(tmp.path().parent(), Some(dir.path()));
        let name = tmp
            .path()
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        assert!(name.starts_with(".run.json.tmp"), "{name}");
        assert_eq!(name.len(), ".run.json.tmp".len() + 6, "{name}");
    }
}
