//! The one place capture touches the file system for its inputs and outputs: reading
//! exports (CSV text or `.ncu-rep` reports, un-compressed as they are read where they are gzip
//! or zstd streams, a `.ncu-repz` report among them: [`open`]) and artifacts with the file
//! named in every error, and atomic writes (every artifact and CSV page capture writes goes through
//! [`write_atomic`]; only ncu's own log and report are written by ncu as it runs).
//!
//! Inside: [`parallel`] reads an export and writes an artifact on several threads, with the
//! single-threaded result byte for byte; [`stage_times`] times an import's stages when
//! asked; [`nsys`] reads Nsight Systems' SQLite export.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use shared::model::artifact::LoadWarning;
use shared::read::exports;
use shared::read::kind::{kind_of, looks_like, FileKind};
use shared::read::ncu::Export;
use shared::read::source::LaunchSource;
use shared::Artifact;

use crate::exit::{Code, Fault};
pub mod input;
pub mod name;
pub mod nsys;
pub mod parallel;
pub mod stage_times;

use self::stage_times::Stages;
use crate::interrupt;

/// Reads an ncu export, streaming, through [`shared::read::exports`]: a binary report
/// (`.ncu-rep`, told by its magic) into the launches its raw CSV page would give, else a
/// CSV text export, read on two threads ([`parallel::read_export`]); either un-compressed as
/// it is read where the file is a gzip or zstd stream (a `.ncu-repz` report, [`open`]).
/// Errors name the file, and the line or byte offset.
pub fn read_export(path: &Path) -> Result<Export> {
    let opened = open_export(path)?;
    read_opened_export(path, opened)
}

/// [`open`] for the export readers, which refuse text of no kind themselves
/// ([`exports::read_from_with`], with the message every export reader gives).
fn open_export(path: &Path) -> Result<Opened> {
    let name = shown(path);
    let file = fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let size = file_size(&file);
    open_unjudged(&name, file, size)
}

/// [`read_export`] of an input [`open`]ed.
fn read_opened_export(path: &Path, opened: Opened) -> Result<Export> {
    // Small: the CSV reader buffers its input itself, and reads larger blocks past this.
    let reader = std::io::BufReader::with_capacity(64 << 10, opened.reader());
    exports::read_from_with(reader, parallel::read_export)
        .map_err(|e| anyhow::anyhow!("{}: {e}", shown(path)))
}

/// [`read_export`], and for a report also the source page of each launch that has source
/// counters and the code of its kernels (read in the same pass,
/// [`shared::read::ncu_rep::read_export_with_source_and_code_from`]); a CSV export has
/// neither.
pub fn read_export_with_sources(
    path: &Path,
) -> Result<(
    Export,
    Vec<shared::read::source::LaunchSource>,
    Vec<shared::read::ncu_rep::cubin::CodeSection>,
)> {
    let opened = open_export(path)?;
    if opened.kind != FileKind::Report {
        return Ok((read_opened_export(path, opened)?, Vec::new(), Vec::new()));
    }
    let reader = std::io::BufReader::with_capacity(64 << 10, opened.reader());
    shared::read::ncu_rep::read_export_with_source_and_code_from(reader)
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

/// What the file at `path` holds: [`kind`], and of a gzip or zstd stream the kind of what
/// it un-compresses to (from its first bytes); a stream that does not un-compress stays
/// [`FileKind::Gzip`] or [`FileKind::Zstd`].
pub fn kind_inside(path: &Path) -> Result<FileKind> {
    use std::io::Read;
    let name = shown(path);
    let file = fs::File::open(path).with_context(|| format!("{name}: cannot open"))?;
    let (packing, reader) = unpacked(&name, file)?;
    if packing == Packing::Plain {
        return kind(path);
    }
    let mut first = Vec::new();
    Ok(match reader.take(4 << 10).read_to_end(&mut first) {
        Ok(_) => kind_of(&first),
        Err(_) => packing.kind(),
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
        FileKind::Zstd => anyhow::bail!(
            "{name}: zstd data (a .ncu-repz report, or a file compressed with zstd), not an \
             artifact (a JSON text starting with `{{`): import a report first (`capture import \
             {name} -o A.json`), un-compress anything else"
        ),
        FileKind::Binary { at } => {
            let b = bytes.get(at).copied().unwrap_or(0);
            anyhow::bail!(
                "{name}: byte {at}: binary data (0x{b:02x}), not an artifact (a JSON text \
                 starting with `{{`); an export or a report is read by `capture import`"
            );
        }
        FileKind::Unrecognized { at } => anyhow::bail!(
            "{name}: byte {at}: not an artifact (a JSON text starting with `{{`) nor any \
             export: no line ends in the first 64 KiB of text; it starts {}",
            looks_like(&bytes)
        ),
        FileKind::SourcePage | FileKind::CsvExport => {
            // Text that no JSON value starts with (an export's `==PROF==` line, a source
            // page's `Kernel Name`) is refused here, not read to the end first; what
            // could be JSON (`null`, `[`, a quote) is left to the JSON reader's message.
            let text = bytes.strip_prefix(shared::read::bom::BOM).unwrap_or(&bytes);
            let first = text.iter().position(|b| !b.is_ascii_whitespace());
            if let Some((at, &b)) = first.and_then(|at| text.get(at).map(|b| (at, b))) {
                if !matches!(b, b'[' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') {
                    let at = at + bytes.len() - text.len();
                    anyhow::bail!(
                        "{name}: byte {at}: not an artifact (a JSON text starting with `{{`); it \
                         starts {}; an export or a report is read by `capture import`",
                        looks_like(bytes.get(at..).unwrap_or_default())
                    );
                }
            }
        }
        FileKind::Sqlite | FileKind::NsysStats => anyhow::bail!(
            "{name}: {}, not an artifact: import it first (`capture import {name} -o A.json`)",
            kind_of(&bytes).describe()
        ),
        FileKind::Empty | FileKind::Artifact => {}
    }
    if let Some((at, why)) = broken_json(&bytes) {
        anyhow::bail!(
            "{name}: byte {at}: not an artifact (a JSON text starting with `{{`): {why}; it \
             starts {}",
            looks_like(&bytes)
        );
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

/// Where the JSON text whose first bytes are `head` (64 KiB, the rest unread) is already
/// broken, and why: a syntax error (or nesting past the JSON reader's limit) that lies
/// before the last bytes of the head, where a cut could make a sound text look broken.
/// Text that could start JSON was read whole before the JSON reader refused it: `yes '{'`
/// took 4.2 GB (issue 48); now it is refused at its third byte.
fn broken_json(head: &[u8]) -> Option<(usize, String)> {
    let text = head.strip_prefix(shared::read::bom::BOM).unwrap_or(head);
    let e = serde_json::from_slice::<serde::de::IgnoredAny>(text).err()?;
    if !e.is_syntax() {
        return None;
    }
    // serde_json counts lines from 1 and columns in bytes from 1.
    let line_start = match e.line() {
        0 | 1 => 0,
        n => text
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(n - 2)
            .map_or(text.len(), |(at, _)| at + 1),
    };
    let at = line_start + e.column().saturating_sub(1) + (head.len() - text.len());
    let why = e.to_string();
    let why = why.split(" at line ").next().unwrap_or(&why).to_owned();
    (at + 16 < head.len()).then_some((at, why))
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

/// How an input's bytes are stored: as they are, or compressed (told by [`kind_of`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Packing {
    /// As they are.
    Plain,
    /// A gzip stream (`.gz`).
    Gzip,
    /// A zstd stream (a `.ncu-repz` report, `.zst`).
    Zstd,
}

impl Packing {
    /// How the file starting with `first` is stored.
    fn of(first: &[u8]) -> Packing {
        match kind_of(first) {
            FileKind::Gzip => Packing::Gzip,
            FileKind::Zstd => Packing::Zstd,
            _ => Packing::Plain,
        }
    }

    /// The kind of a file stored so, where it is compressed.
    fn kind(self) -> FileKind {
        match self {
            Packing::Gzip => FileKind::Gzip,
            Packing::Zstd => FileKind::Zstd,
            Packing::Plain => FileKind::Empty,
        }
    }

    /// What un-compressing it is called in a message (`gunzip`, `un-zstd`).
    pub fn verb(self) -> &'static str {
        match self {
            Packing::Plain => "read",
            Packing::Gzip => "gunzip",
            Packing::Zstd => "un-zstd",
        }
    }

    /// Where a message names a byte offset of what a compressed file holds: ` (after
    /// gunzip)`, ` (after un-zstd)`; nothing for a plain file.
    pub fn after(self) -> String {
        match self {
            Packing::Plain => String::new(),
            _ => format!(" (after {})", self.verb()),
        }
    }
}

/// An input opened for reading front to back ([`open`]): what it is, and its bytes,
/// un-compressed as they are read where the file is a gzip or zstd stream.
pub struct Opened {
    /// What the (un-compressed) bytes are, from the first of them ([`kind_of`]).
    pub kind: FileKind,
    /// The first bytes (up to 64 KiB), which told the kind.
    pub head: Vec<u8>,
    /// The bytes after `head`, un-compressed where `packing` says; more than
    /// [`MAX_ARTIFACT_BYTES`] of them (after un-compressing) are an error of the read that
    /// passes the cap.
    rest: Box<dyn std::io::Read + Send>,
    /// How the file is stored.
    pub packing: Packing,
    /// The file's size where it is a regular file of at most [`MAX_ARTIFACT_BYTES`] (0
    /// otherwise, and for a compressed stream), to size a buffer for it.
    pub size: usize,
}

/// How many of an input's first bytes [`open`] looks at: enough for a byte order mark,
/// white space and any kind's first bytes, and for [`kind_of`] to see a first line.
const HEAD_BYTES: u64 = 64 << 10;

/// Opens the input at `path` (a report, an export, a source page or an artifact) to be read
/// front to back, un-compressing it as it is read when it is a gzip or zstd stream (told by
/// [`kind_of`], as every kind is; a `.ncu-repz` report is a zstd stream), so that a reader
/// that streams (a report for `capture import` or `capture source`) never holds the file.
/// Every command reads its exports, reports and source pages through here. Its first bytes
/// are read to tell its kind; errors name the file. What a compressed stream holds is
/// judged from its first 64 KiB ([`shared::read::kind::refused_inside`]: a small `.zst` of
/// gigabytes of zeros is refused from them), and a stream that un-compresses past
/// [`MAX_ARTIFACT_BYTES`] fails the read that passes the cap.
pub fn open(path: &Path) -> Result<Opened> {
    let name = shown(path);
    let file = fs::File::open(path).with_context(|| format!("{name}: cannot read"))?;
    let size = file_size(&file);
    open_reader(&name, file, size)
}

/// The bytes of `file` (named `name` in errors) as its readers take them: un-compressed as
/// they are read where it is a gzip or zstd stream, at most [`MAX_ARTIFACT_BYTES`] of them
/// (the read that passes the cap fails); and how it is stored.
fn unpacked(
    name: &str,
    file: impl std::io::Read + Send + 'static,
) -> Result<(Packing, Box<dyn std::io::Read + Send>)> {
    use std::io::BufRead;
    let mut file = std::io::BufReader::new(file);
    let start = file
        .fill_buf()
        .with_context(|| format!("{name}: cannot read"))?;
    let packing = Packing::of(start);
    let reader: Box<dyn std::io::Read + Send> = match packing {
        Packing::Plain => Box::new(file),
        Packing::Gzip => Box::new(Capped {
            inner: flate2::read::GzDecoder::new(file),
            read: 0,
        }),
        Packing::Zstd => Box::new(shared::read::zstd::Decoder::new(file, MAX_ARTIFACT_BYTES)),
    };
    Ok((packing, reader))
}

/// [`open`] on the bytes of `file`, named `name` in errors, of `size` bytes where known.
/// Text that [`kind_of`] tells is no export, report, artifact or compressed stream
/// ([`FileKind::Unrecognized`]) is refused from its first 64 KiB, unread past them; so is
/// what a compressed stream holds where [`shared::read::kind::refused_inside`] says.
fn open_reader(
    name: &str,
    file: impl std::io::Read + Send + 'static,
    size: usize,
) -> Result<Opened> {
    let opened = open_unjudged(name, file, size)?;
    if let FileKind::Unrecognized { at } = opened.kind {
        anyhow::bail!(
            "{name}: byte {at}: neither a report, a CSV export nor an artifact (no line ends \
             in the first 64 KiB of text, and it does not start like a CSV header or JSON); \
             it starts {}",
            looks_like(&opened.head)
        );
    }
    Ok(opened)
}

/// [`open_reader`], but text of no kind in a plain file is left to the caller's reader.
fn open_unjudged(
    name: &str,
    file: impl std::io::Read + Send + 'static,
    size: usize,
) -> Result<Opened> {
    use std::io::Read;
    let (packing, mut reader) = unpacked(name, file)?;
    let mut head = Vec::new();
    (&mut reader)
        .take(HEAD_BYTES)
        .read_to_end(&mut head)
        .with_context(|| format!("{name}: cannot {}", packing.verb()))?;
    let kind = kind_of(&head);
    if packing != Packing::Plain {
        if let Some(why) = shared::read::kind::refused_inside(&head, packing.verb()) {
            anyhow::bail!("{name}: {why}");
        }
    }
    Ok(Opened {
        kind,
        head,
        rest: reader,
        packing,
        size: if packing == Packing::Plain { size } else { 0 },
    })
}

impl Opened {
    /// The input's bytes from the first (`head`, then the rest).
    pub fn reader(self) -> impl std::io::Read + Send {
        use std::io::Read;
        std::io::Cursor::new(self.head).chain(self.rest)
    }
}

/// An un-gzipped stream that fails once more than [`MAX_ARTIFACT_BYTES`] came out of it.
struct Capped<R> {
    inner: R,
    read: u64,
}

impl<R: std::io::Read> std::io::Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        if self.read > MAX_ARTIFACT_BYTES {
            return Err(std::io::Error::other(format!(
                "more than {} GiB after gunzip, more than any report or export capture reads; \
                 not read further",
                MAX_ARTIFACT_BYTES >> 30
            )));
        }
        Ok(n)
    }
}

/// Reads a file of `capture trace`'s records (`PID.rltrace`, binary) as it is; errors name
/// the file.
pub fn read_records(path: &Path) -> Result<Vec<u8>> {
    std::fs::read(path).with_context(|| format!("{}: cannot read", shown(path)))
}

/// Reads a whole input file (a report or a source-page export for `capture source`),
/// un-compressing it when it is a gzip or zstd stream ([`open`]); errors name the file. Bounded as
/// artifacts are: binary data that is not a report (`/dev/zero`) is refused from its first
/// 64 KiB, and more than [`MAX_ARTIFACT_BYTES`] (read, or un-compressed) is refused rather
/// than held.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>> {
    read_all(path, open(path)?)
}

/// The bytes of `opened` (the file at `path`) to the end, as [`read_bytes`] reads them.
pub fn read_all(path: &Path, opened: Opened) -> Result<Vec<u8>> {
    use std::io::Read;
    let name = shown(path);
    let (what, after) = (
        format!("cannot {}", opened.packing.verb()),
        opened.packing.after(),
    );
    if let FileKind::Binary { at } = opened.kind {
        let b = opened.head.get(at).copied().unwrap_or(0);
        anyhow::bail!(
            "{name}: byte {at}{after}: binary data (0x{b:02x}), neither an Nsight Compute \
             report (.ncu-rep) nor a CSV text export"
        );
    }
    let mut bytes = Vec::with_capacity(opened.size);
    let mut head = opened.reader().take(MAX_ARTIFACT_BYTES + 1);
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

/// The launches of a source-page export, streamed from `opened` (the file at `path`):
/// never held whole, each record of it at most
/// [`shared::read::source::MAX_RECORD_BYTES`] (issue 48: a 1 MB `.gz` of one endless
/// quoted cell took 5.3 GB when read whole first).
pub fn read_source_page(path: &Path, opened: Opened) -> Result<Vec<LaunchSource>> {
    let mut launches = Vec::new();
    stream_source_page(path, opened, &mut |l| launches.push(l))?;
    Ok(launches)
}

/// [`read_source_page`], each launch handed to `each` once it is whole, so that a caller
/// keeping one launch holds one.
pub fn stream_source_page(
    path: &Path,
    opened: Opened,
    each: &mut dyn FnMut(LaunchSource),
) -> Result<()> {
    let name = shown(path);
    if let FileKind::Binary { at } = opened.kind {
        let b = opened.head.get(at).copied().unwrap_or(0);
        let after = opened.packing.after();
        anyhow::bail!(
            "{name}: byte {at}{after}: binary data (0x{b:02x}), not a source-page export"
        );
    }
    shared::read::source::read_source_csv_from(opened.reader(), each)
        .map_err(|e| anyhow::anyhow!("{name}: {e}"))
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
    let name = self::name::display_name(path);
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
    use std::io::Read;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::sync::Arc;

    /// `left` bytes of printable junk (`line` repeated), counting what was read of it.
    struct Junk {
        line: &'static [u8],
        left: u64,
        read: Arc<AtomicU64>,
    }

    impl Read for Junk {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = buf
                .len()
                .min(usize::try_from(self.left).unwrap_or(usize::MAX));
            let at = self.read.load(Ordering::Relaxed) as usize;
            for (i, b) in buf.iter_mut().take(n).enumerate() {
                *b = self.line[(at + i) % self.line.len()];
            }
            self.left -= n as u64;
            self.read.fetch_add(n as u64, Ordering::Relaxed);
            Ok(n)
        }
    }

    fn junk(line: &'static [u8], n: u64) -> (Junk, Arc<AtomicU64>) {
        let read = Arc::new(AtomicU64::new(0));
        let j = Junk {
            line,
            left: n,
            read: Arc::clone(&read),
        };
        (j, read)
    }

    #[test]
    fn fifty_megabytes_of_printable_junk_are_refused_from_their_first_64_kib() {
        const FIFTY_MB: u64 = 50 << 20;
        // Without line ends: no file kind, refused by `open` itself.
        let (file, read) = junk(b"qwertyuiop asdfghjkl zxcvbnm 0123456789 ", FIFTY_MB);
        let e = open_reader("junk.txt", file, FIFTY_MB as usize)
            .err()
            .map(|e| format!("{e:#}"));
        let e = e.expect("refused");
        assert!(
            e.starts_with("junk.txt: byte 65536: neither a report, a CSV export nor an artifact")
                && e.ends_with("it starts \"qwertyuiop asdfghjkl zxcvbnm 0123456789 \"..."),
            "{e}"
        );
        // What was read: the 64 KiB that told, and at most one buffer besides.
        let n = read.load(Ordering::Relaxed);
        assert!(
            (64 << 10..=(64 << 10) + (8 << 10)).contains(&n),
            "{n} bytes read"
        );
        // With line ends: text lines as far as these bytes tell; what the reader reads
        // next is the 64 KiB already taken, then the rest.
        let (file, read) = junk(b"not an export, not a report\n", FIFTY_MB);
        let opened = open_reader("lines.txt", file, FIFTY_MB as usize).expect("opened");
        assert_eq!(opened.kind, FileKind::CsvExport);
        assert!(read.load(Ordering::Relaxed) <= (64 << 10) + (8 << 10));
        let mut start = [0u8; 8];
        opened.reader().read_exact(&mut start).expect("read");
        assert_eq!(&start, b"not an e");
    }

    #[test]
    fn a_gzip_that_inflates_to_junk_is_refused_after_64_kib_of_it() {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        for _ in 0..8 {
            gz.write_all(&[b'a'; 1 << 20]).expect("gzip");
        }
        let gz = gz.finish().expect("gzip");
        let size = gz.len();
        let e = open_reader("bomb.gz", std::io::Cursor::new(gz), size)
            .err()
            .map(|e| format!("{e:#}"));
        let e = e.expect("refused");
        assert!(
            e.starts_with("bomb.gz: byte 65536 (after gunzip): neither"),
            "{e}"
        );
    }

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
