//! Turning the bytes of dropped, picked or fetched files into runs.
//!
//! An artifact JSON file is one run. Nsight Compute exports picked together, CSV pages or
//! binary reports (`.ncu-rep`, told by their magic; a `.ncu-repz` report, a zstd stream, is
//! un-compressed first, [`unzstd`]), are pages of one run (a raw page and a
//! details page, say) and are read and joined exactly as `capture import` does, through
//! [`shared::read::exports`] and [`shared::analysis::merge::import_launches`]. Every failure names the file
//! it came from; the caller keeps whatever was loaded before.
//!
//! A report's launches with source counters also give their source pages (per-instruction
//! figures, [`shared::read::source`]), and a source-page export (`ncu --page source --csv`)
//! picked with the report or the raw page of the same profile gives its SASS text (and the
//! figures, where no report is picked); a run keeps them for the source view. A CUDA
//! source file (`.cu`, `.cuh`) picked with them gives its lines' text to the instructions
//! the report's line table places in a file of that name.

use std::collections::VecDeque;
use std::io::Read;

use shared::error::ExportError;
use shared::model::artifact::{Artifact, Origin, Provenance};
use shared::read::bom::BOM;
use shared::read::kind::{kind_of, refused_inside, FileKind};
use shared::read::ncu::{self, Export};
use shared::read::source::{self, LaunchSource};
use shared::read::zstd;

/// One file handed to the viewer: its name (for messages) and its bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct InputFile {
    /// File name or sample path, shown in messages and provenance.
    pub name: String,
    /// The file's contents: text for artifacts and CSV exports, binary for reports.
    pub bytes: Vec<u8>,
}

/// What kind of file a run was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// An artifact JSON document.
    Artifact,
    /// One or more Nsight Compute exports (CSV pages or `.ncu-rep` reports), imported in
    /// the browser.
    NcuExport,
}

/// A loaded run: an artifact and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Display name: the file name, or the export names joined with " + ".
    pub name: String,
    /// Paths the run was fetched from (`samples/h200.json`; the exports of one run, several),
    /// when it came by URL, so a link can reopen it.
    pub srcs: Vec<String>,
    /// Artifact or imported export.
    pub kind: SourceKind,
    /// The data.
    pub artifact: Artifact,
    /// The source pages of its launches that have them (from reports and source-page
    /// exports, or those an artifact keeps: each kernel's longest launch), in launch order.
    pub sources: Vec<LaunchSource>,
}

impl Run {
    /// The run's name with each file's own name only, its folders dropped
    /// (`h200-two-process.ncu-rep`; `raw.csv + details.csv`): what the side bar and the
    /// kernel pickers show, the paths being kept for a title.
    pub fn file_names(&self) -> String {
        self.name
            .split(" + ")
            .map(|part| part.rsplit('/').next().unwrap_or(part))
            .collect::<Vec<_>>()
            .join(" + ")
    }
}

/// A file that could not be loaded, with the reason, for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file's name.
    pub file: String,
    /// What was wrong, in words.
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// The largest file the viewer reads, in bytes. A picked CSV export streams in (its pieces
/// dropped once read), its rows read in slices with the progress drawn between them; an
/// artifact or a report is held whole (in WebAssembly's memory, at most 4 GiB) and read in
/// one go. Then the tab holds the launches' values (shared between launches that repeat
/// them, as `capture import` keeps them). Measured in headless Chromium 156 on the
/// development machine (`tests/browser/examples/load_size.rs`, docs/performance.md), raw
/// full-set 500 MB exports load in 4.7 to 6 s with the tab at 0.39 GB, and in 7.6 to 8.5 s
/// at 0.48 GB when a third of each launch's values are its own; before values were shared
/// and the file streamed, 1 GB took 16 s at 3.2 GB and 1.5 GB 23 s at 4.7 GB. Past this
/// limit a load would take well over ten seconds; the same export imported by `capture
/// import` is an artifact that writes each kernel's repeated values once (the 500 MB
/// export's is 13 MB and loads in about 1 s).
pub const MAX_FILE_BYTES: u64 = 600 * 1000 * 1000;

/// Refuses a file of `bytes` bytes larger than [`MAX_FILE_BYTES`] before it is read, with a
/// message that says so and what to do instead; `None` when it may be read.
pub fn refuse_large_file(name: &str, bytes: u64) -> Option<LoadError> {
    (bytes > MAX_FILE_BYTES).then(|| LoadError {
        file: name.to_string(),
        message: format!(
            "{:.0} MB is more than a browser tab can load (at most {} MB); import it with \
             `capture import {name} -o run.json` and open run.json instead",
            // Rounded up, so that a file just over the limit does not read as at it.
            (bytes as f64 / 1e6).ceil(),
            MAX_FILE_BYTES / 1_000_000
        ),
    })
}

/// Whether a file's bytes look like JSON (an artifact) rather than an export
/// ([`kind_of`], as `capture` tells them).
fn looks_like_json(bytes: &[u8]) -> bool {
    kind_of(bytes) == FileKind::Artifact
}

/// Parses one artifact JSON file.
pub fn load_artifact(file: &InputFile) -> Result<Run, LoadError> {
    let error = |message: String| LoadError {
        file: file.name.clone(),
        message,
    };
    let bytes = file.bytes.strip_prefix(BOM).unwrap_or(&file.bytes);
    let text = std::str::from_utf8(bytes).map_err(|e| {
        error(format!(
            "byte {}: not UTF-8 text, so not an artifact",
            e.valid_up_to() + file.bytes.len() - bytes.len()
        ))
    })?;
    Artifact::from_json(text)
        .map(|mut artifact| Run {
            name: file.name.clone(),
            srcs: Vec::new(),
            kind: SourceKind::Artifact,
            // The source pages the artifact keeps (schema 6), where the views look for them.
            sources: std::mem::take(&mut artifact.sources),
            artifact,
        })
        .map_err(|e| error(e.to_string()))
}

/// Imports exports of one run, read from the files `names`, into an artifact, the same
/// way `capture import` does; `sources` are the source pages of its launches.
fn import_read(
    names: Vec<String>,
    exports: Vec<Export>,
    sources: Vec<LaunchSource>,
) -> Result<Run, LoadError> {
    let named = names.iter().cloned().zip(exports).collect();
    let (launches, warnings) = ncu::combine_named(named);
    if launches.is_empty() {
        return Err(LoadError {
            file: names.join(" + "),
            message: "no kernel launches found in the export".into(),
        });
    }
    let provenance = Provenance {
        origin: Some(Origin::Import),
        tool: "viewer".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        inputs: names.clone(),
        ..Provenance::default()
    };
    Ok(Run {
        name: names.join(" + "),
        srcs: Vec::new(),
        kind: SourceKind::NcuExport,
        artifact: shared::analysis::merge::import_launches(launches, warnings, provenance),
        sources,
    })
}

/// Loads a batch of files picked or dropped together: each artifact becomes a run, and all
/// exports (CSV pages and reports) together become one run. Files that fail are reported
/// one by one; the exports that did read still import. Each file is read once.
pub fn load_batch(files: Vec<InputFile>) -> (Vec<Run>, Vec<LoadError>) {
    let mut loading = Loading::new(files);
    while loading.step(usize::MAX) {}
    loading.finish()
}

/// What is being done with a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Its bytes are being copied into the tab.
    Copy,
    /// Its rows are being read into launches ([`Loading`]).
    Rows,
    /// It is read in one go, an artifact or a report, the tab busy meanwhile.
    Whole,
}

/// How far the load of a file is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Progress {
    /// What is being done.
    pub stage: Stage,
    /// The file being read.
    pub file: String,
    /// Its bytes taken in so far.
    pub read_bytes: u64,
    /// Its size in bytes.
    pub total_bytes: u64,
}

impl Progress {
    /// The progress in words, for the status line: `reading the launches of trace.csv: 230
    /// of 500 MB`.
    pub fn line(&self) -> String {
        let (read, total) = (self.read_bytes as f64 / 1e6, self.total_bytes as f64 / 1e6);
        match self.stage {
            Stage::Copy => format!(
                "copying {} into the tab: {read:.0} of {total:.0} MB",
                self.file
            ),
            Stage::Rows => format!(
                "reading the launches of {}: {read:.0} of {total:.0} MB",
                self.file
            ),
            Stage::Whole => format!("reading {} ({total:.0} MB) in one go…", self.file),
        }
    }
}

/// Whether a file named `name` is CUDA source (`.cu`, `.cuh`), by its name.
pub fn is_cuda_file(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.ends_with(".cu") || lower.ends_with(".cuh")
}

/// Whether a file's bytes are a source-page export (`ncu --page source --csv`): its
/// first line names a kernel (`--print-source sass`) or a file (`cuda,sass`).
pub fn is_source_page(bytes: &[u8]) -> bool {
    kind_of(bytes) == FileKind::SourcePage
}

/// Whether a file that starts with `first` can be read as its pieces arrive
/// ([`Loading::stream`]): a CSV export, neither an artifact, a report, a source page nor a
/// compressed stream.
pub fn streams(first: &[u8]) -> bool {
    !matches!(
        kind_of(first),
        FileKind::Artifact
            | FileKind::Report
            | FileKind::SourcePage
            | FileKind::Gzip
            | FileKind::Zstd
    )
}

/// What the zstd stream `bytes` of the file `name` holds (a `.ncu-repz` report),
/// un-compressed by the decoder `capture` uses ([`zstd::Decoder`]): judged from its first
/// 64 KiB as `capture` judges it ([`refused_inside`]: a small file of gigabytes of zeros is
/// refused from them), and refused past [`MAX_FILE_BYTES`] as a large file is.
pub fn unzstd(name: &str, bytes: &[u8]) -> Result<Vec<u8>, LoadError> {
    let failed = |message| LoadError {
        file: name.to_owned(),
        message,
    };
    let mut decoder = zstd::Decoder::new(bytes, MAX_FILE_BYTES);
    let mut inside = Vec::new();
    let read = (&mut decoder).take(HEAD_BYTES).read_to_end(&mut inside);
    read.map_err(|e| failed(format!("zstd data that does not un-compress: {e}")))?;
    if let Some(why) = refused_inside(&inside, "un-zstd") {
        return Err(failed(why));
    }
    if let Err(e) = decoder.read_to_end(&mut inside) {
        if inside.len() as u64 >= MAX_FILE_BYTES {
            let mut e = refuse_large_file(name, MAX_FILE_BYTES + 1)
                .unwrap_or_else(|| failed(e.to_string()));
            e.message = format!("un-compressed, {}", e.message);
            return Err(e);
        }
        return Err(failed(format!("zstd data that does not un-compress: {e}")));
    }
    Ok(inside)
}

/// How many of a compressed file's first bytes [`unzstd`] judges it by, as `capture` does.
const HEAD_BYTES: u64 = 64 << 10;

/// A file's bytes as they arrive, piece by piece: the CSV reader reads them as they come
/// (`Read`), and the pieces read are dropped, so the tab holds a few pieces of a streamed
/// export, never the whole file.
#[derive(Default)]
pub struct Pieces {
    queue: VecDeque<Vec<u8>>,
    /// Bytes of the front piece already read.
    at: usize,
    /// Bytes queued and not read yet.
    queued: usize,
    /// Bytes read so far.
    taken: u64,
    /// Whether the last piece is in.
    ended: bool,
    /// Whether a read found no bytes before the last piece was in (the reader then took
    /// the input to have ended, so what it read is not the file's).
    starved: bool,
}

impl Pieces {
    fn push(&mut self, piece: Vec<u8>) {
        self.queued += piece.len();
        self.queue.push_back(piece);
    }
}

impl Read for Pieces {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        while let Some(front) = self.queue.front() {
            let rest = front.get(self.at..).unwrap_or_default();
            if rest.is_empty() {
                self.queue.pop_front();
                self.at = 0;
                continue;
            }
            let n = rest.len().min(buf.len());
            for (to, from) in buf.iter_mut().zip(rest) {
                *to = *from;
            }
            self.at += n;
            self.queued -= n;
            self.taken += n as u64;
            return Ok(n);
        }
        if !self.ended {
            self.starved = true;
        }
        Ok(0)
    }
}

/// How many bytes of a streamed export are kept queued ahead of its reader (unless the
/// file has no more): far more than a step of rows takes (16 full-set rows are some
/// 300 KB, and the reader buffers 256 KB), so the reader never runs out mid-step.
pub const STREAM_AHEAD_BYTES: usize = 32 * 1024 * 1024;

/// A file whose turn has not come.
enum Pending {
    /// Held whole.
    File(InputFile),
    /// A CSV export arriving in pieces ([`Loading::stream`]).
    Stream(String, u64, Pieces),
}

/// The export being read.
enum Current {
    /// A report, read in one go at its end.
    Report(String, Vec<u8>),
    /// A CSV export read in steps, held whole (its one piece in) or arriving in pieces,
    /// with its size and its first bytes.
    Csv {
        name: String,
        total: u64,
        start: Vec<u8>,
        reading: Box<ncu::Reading<Pieces>>,
    },
}

/// A batch being loaded as [`load_batch`] loads it, a part at a time: each
/// [`Loading::step`] reads some rows of the export at hand (or a whole artifact, or a
/// report), so that the tab can draw the progress and take input between steps; the runs
/// are the same however the steps go. A CSV export may also come in pieces as the tab
/// reads the file ([`Loading::stream`], [`Loading::feed`]), so that the tab never holds all
/// of it.
pub struct Loading {
    /// Bytes kept queued ahead of a streamed export's reader ([`STREAM_AHEAD_BYTES`]).
    ahead: usize,
    pending: VecDeque<Pending>,
    current: Option<Current>,
    /// A streamed export whose reader ran out of bytes before the file ended, to be read
    /// again whole ([`Loading::take_starved`]).
    starved: Option<String>,
    runs: Vec<Run>,
    errors: Vec<LoadError>,
    /// The exports read so far, with their files' names, imported together at the end.
    names: Vec<String>,
    exports: Vec<Export>,
    /// The source pages of the reports read so far.
    sources: Vec<LaunchSource>,
    /// The source-page exports read so far, with their files' names.
    pages: Vec<(String, Vec<LaunchSource>)>,
    /// CUDA source files picked with them: name and text.
    cuda_files: Vec<(String, String)>,
}

impl Loading {
    /// A load of `files`, nothing read yet.
    pub fn new(files: Vec<InputFile>) -> Loading {
        Loading {
            ahead: STREAM_AHEAD_BYTES,
            pending: files.into_iter().map(Pending::File).collect(),
            current: None,
            starved: None,
            runs: Vec::new(),
            errors: Vec::new(),
            names: Vec::new(),
            exports: Vec::new(),
            sources: Vec::new(),
            pages: Vec::new(),
            cuda_files: Vec::new(),
        }
    }

    /// This load, keeping `bytes` queued ahead of a streamed export's reader instead of
    /// [`STREAM_AHEAD_BYTES`] (a test's small files stream in small pieces).
    pub fn with_stream_ahead(mut self, bytes: usize) -> Self {
        self.ahead = bytes;
        self
    }

    /// Adds a file that could not be loaded, in its place among the others' errors.
    pub fn add_error(&mut self, error: LoadError) {
        self.errors.push(error);
    }

    /// Adds a file held whole, read after those already added.
    pub fn push(&mut self, file: InputFile) {
        self.pending.push_back(Pending::File(file));
    }

    /// Adds a CSV export of `total` bytes that arrives in pieces, the first being `first`,
    /// read after the files already added; its further pieces go to [`Loading::feed`].
    pub fn stream(&mut self, name: String, total: u64, first: Vec<u8>) {
        let mut pieces = Pieces::default();
        pieces.push(first);
        self.pending.push_back(Pending::Stream(name, total, pieces));
    }

    /// The streamed export's pieces, wherever it is (read, or waiting its turn).
    fn stream_pieces(&mut self) -> Option<&mut Pieces> {
        if let Some(Current::Csv { reading, .. }) = self.current.as_mut() {
            return Some(reading.input_mut());
        }
        self.pending.iter_mut().rev().find_map(|p| match p {
            Pending::Stream(_, _, pieces) => Some(pieces),
            Pending::File(_) => None,
        })
    }

    /// Whether the streamed export wants its next piece: fewer than
    /// [`STREAM_AHEAD_BYTES`] are queued ahead of its reader and the last piece is not in
    /// (nothing is read until it has them).
    pub fn wants_piece(&mut self) -> bool {
        let ahead = self.ahead;
        self.stream_pieces()
            .is_some_and(|p| !p.ended && p.queued < ahead)
    }

    /// The streamed export's next piece; `None` when it has no more.
    pub fn feed(&mut self, piece: Option<Vec<u8>>) {
        if let Some(pieces) = self.stream_pieces() {
            match piece {
                Some(piece) => pieces.push(piece),
                None => pieces.ended = true,
            }
        }
    }

    /// Drops the streamed export, which could not be read further, with why.
    pub fn fail_stream(&mut self, message: String) {
        let name = match self.current.take() {
            Some(Current::Csv { name, reading, .. }) if !reading.input().ended => Some(name),
            other => {
                self.current = other;
                let at = self
                    .pending
                    .iter()
                    .rposition(|p| matches!(p, Pending::Stream(..)));
                match at.and_then(|at| self.pending.remove(at)) {
                    Some(Pending::Stream(name, _, _)) => Some(name),
                    _ => None,
                }
            }
        };
        if let Some(file) = name {
            self.errors.push(LoadError { file, message });
        }
    }

    /// The name of a streamed export that had to be dropped because its reader ran out of
    /// bytes (a step took more than [`STREAM_AHEAD_BYTES`]); the caller reads the file
    /// whole and [`Loading::push`]es it, which loads it exactly.
    pub fn take_starved(&mut self) -> Option<String> {
        self.starved.take()
    }

    /// Does the next part of the work: at most `rows` rows of the export being read, or
    /// the next file's start (an artifact is parsed whole); whether work remains. Nothing
    /// is done while a streamed export waits for its next piece ([`Loading::wants_piece`]).
    pub fn step(&mut self, rows: usize) -> bool {
        if self.wants_piece() {
            return true;
        }
        match self.current.take() {
            Some(Current::Report(name, bytes)) => {
                let read = shared::read::ncu_rep::read_export_with_source(&bytes);
                let export = match read {
                    Ok((export, sources)) => {
                        self.sources.extend(sources);
                        Ok(export)
                    }
                    Err(e) => Err(ExportError::from(e)),
                };
                self.add_export(name, export);
                return !self.pending.is_empty();
            }
            Some(Current::Csv {
                name,
                total,
                start,
                mut reading,
            }) => {
                let result = reading
                    .step(rows)
                    .map_err(|e| shared::read::exports::neither(e, &start));
                if reading.input().starved {
                    self.starved = Some(name);
                } else if let Ok(true) = result {
                    self.current = Some(Current::Csv {
                        name,
                        total,
                        start,
                        reading,
                    });
                    return true;
                } else {
                    let export = result.and_then(|_| {
                        reading
                            .finish()
                            .map_err(|e| shared::read::exports::neither(e, &start))
                    });
                    self.add_export(name, export);
                }
                return !self.pending.is_empty();
            }
            None => {}
        }
        let Some(next) = self.pending.pop_front() else {
            return false;
        };
        match next {
            Pending::File(file) => self.start_file(file),
            Pending::Stream(name, total, pieces) => self.open_csv(name, total, pieces),
        }
        self.current.is_some() || !self.pending.is_empty()
    }

    /// Starts on a file held whole: an artifact is loaded now, a report or a CSV export
    /// opened.
    fn start_file(&mut self, file: InputFile) {
        if is_cuda_file(&file.name) {
            let text = String::from_utf8_lossy(&file.bytes).into_owned();
            self.cuda_files.push((file.name, text));
        } else if looks_like_json(&file.bytes) {
            match load_artifact(&file) {
                Ok(run) => self.runs.push(run),
                Err(e) => self.errors.push(e),
            }
        } else if file.bytes.trim_ascii().is_empty() {
            self.errors.push(LoadError {
                file: file.name,
                message: "the file is empty".into(),
            });
        } else if kind_of(&file.bytes) == FileKind::Gzip {
            // The page un-gzips a file before it gets here (`ctx`); this one was not.
            self.errors.push(LoadError {
                file: file.name,
                message: "gzip data that was not un-gzipped: gunzip it and pick the file inside"
                    .into(),
            });
        } else if kind_of(&file.bytes) == FileKind::Zstd {
            // A `.ncu-repz` report: un-compressed here, then taken as what it holds.
            match unzstd(&file.name, &file.bytes) {
                Ok(bytes) => self.start_file(InputFile {
                    name: file.name,
                    bytes,
                }),
                Err(e) => self.errors.push(e),
            }
        } else if kind_of(&file.bytes) == FileKind::Report {
            self.current = Some(Current::Report(file.name, file.bytes));
        } else if is_source_page(&file.bytes) {
            match source::read_source_csv(&file.bytes) {
                Ok(page) => self.pages.push((file.name, page)),
                Err(e) => self.errors.push(LoadError {
                    file: file.name,
                    message: format!("a source-page export that does not read: {e}"),
                }),
            }
        } else {
            let total = file.bytes.len() as u64;
            let mut pieces = Pieces::default();
            pieces.push(file.bytes);
            pieces.ended = true;
            self.open_csv(file.name, total, pieces);
        }
    }

    /// Opens a CSV export of `total` bytes on its `pieces`.
    fn open_csv(&mut self, name: String, total: u64, pieces: Pieces) {
        let start = pieces
            .queue
            .front()
            .map_or(Vec::new(), |first| first.get(..4).unwrap_or(first).to_vec());
        let ended = pieces.ended;
        match ncu::Reading::open(pieces) {
            Ok(reading) if !reading.input().starved => {
                self.current = Some(Current::Csv {
                    name,
                    total,
                    start,
                    reading: Box::new(reading),
                })
            }
            Err(e) if ended => self.errors.push(LoadError {
                file: name,
                message: shared::read::exports::neither(e, &start).to_string(),
            }),
            // Out of bytes before its header, or no export in what came of it: read whole,
            // it loads, or fails, as a file held whole does.
            _ => self.starved = Some(name),
        }
    }

    /// Keeps an export read from file `name`, or why it could not be.
    fn add_export(&mut self, name: String, export: Result<Export, ExportError>) {
        match export {
            Ok(mut export) => {
                // Its warnings name the file first, as `capture import` prints them.
                for w in &mut export.warnings {
                    *w = w.in_file(&name);
                }
                self.names.push(name);
                self.exports.push(export);
            }
            Err(e) => self.errors.push(LoadError {
                file: name,
                message: e.to_string(),
            }),
        }
    }

    /// What the next step reads: the export being read and how far, or the next file.
    pub fn progress(&self) -> Option<Progress> {
        match &self.current {
            Some(Current::Report(name, bytes)) => {
                return Some(Progress {
                    stage: Stage::Whole,
                    file: name.clone(),
                    read_bytes: 0,
                    total_bytes: bytes.len() as u64,
                })
            }
            Some(Current::Csv {
                name,
                total,
                reading,
                ..
            }) => {
                return Some(Progress {
                    stage: Stage::Rows,
                    file: name.clone(),
                    read_bytes: reading.input().taken,
                    total_bytes: *total,
                })
            }
            None => {}
        }
        Some(match self.pending.front()? {
            Pending::File(next) => Progress {
                stage: if looks_like_json(&next.bytes) {
                    Stage::Whole
                } else {
                    Stage::Rows
                },
                file: next.name.clone(),
                read_bytes: 0,
                total_bytes: next.bytes.len() as u64,
            },
            Pending::Stream(name, total, _) => Progress {
                stage: Stage::Rows,
                file: name.clone(),
                read_bytes: 0,
                total_bytes: *total,
            },
        })
    }

    /// The runs: the artifacts loaded, then the exports imported together as one run; and
    /// the files that failed. Call once [`Loading::step`] has said no work remains.
    pub fn finish(self) -> (Vec<Run>, Vec<LoadError>) {
        let (mut runs, mut errors) = (self.runs, self.errors);
        if self.exports.is_empty() {
            for (file, _) in self.cuda_files {
                errors.push(LoadError {
                    file,
                    message: "a CUDA source file gives the text of a report's source lines: \
                              pick it together with the report"
                        .into(),
                });
            }
            for (file, _) in self.pages {
                errors.push(LoadError {
                    file,
                    message: "a source-page export has no launch figures of its own: pick it \
                              together with the report or the raw page of the same profile"
                        .into(),
                });
            }
            return (runs, errors);
        }
        let mut names = self.names;
        let mut sources = self.sources;
        for (name, page) in self.pages {
            join_source_page(&mut sources, page);
            names.push(name);
        }
        for (name, text) in &self.cuda_files {
            for s in &mut sources {
                s.add_cuda_text(name, text);
            }
        }
        match import_read(names, self.exports, sources) {
            Ok(run) => runs.push(run),
            Err(e) => errors.push(e),
        }
        (runs, errors)
    }
}

/// Joins a source-page export's launches to the reports' source pages: the SASS text (and
/// CUDA lines) of a page's launch go to the report's launch of the same place and kernel; a
/// page's launch no report has is kept as the page gives it.
fn join_source_page(sources: &mut Vec<LaunchSource>, page: Vec<LaunchSource>) {
    for p in page {
        // Same place, and the same kernel: by name, or (a `cuda,sass` page names the
        // function, a report the demangled signature) by an address both have.
        let same = |s: &LaunchSource| {
            s.launch == p.launch
                && (s.kernel == p.kernel
                    || p.instructions.first().is_some_and(|first| {
                        s.instructions
                            .binary_search_by_key(&first.address, |i| i.address)
                            .is_ok()
                    }))
        };
        match sources.iter_mut().find(|s| same(s)) {
            Some(s) => {
                s.add_page_text(&p);
            }
            None => sources.push(p),
        }
    }
    shared::order::sort_by_key(sources, |s| s.launch);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A page of the H200 probe suite, `tests/fixtures/ncu-h200/NAME`.
    fn fixture(name: &str) -> InputFile {
        crate::state::test_support::input(&format!("tests/fixtures/ncu-h200/{name}"))
    }

    #[test]
    fn gzip_data_that_reaches_the_reader_is_named_as_gzip() {
        let gz = crate::state::test_support::input(
            "tests/fixtures/ncu-h200-bert/bert_full_details.csv.gz",
        );
        let (runs, errors) = load_batch(vec![gz]);
        assert!(runs.is_empty());
        let message = &errors[0].message;
        assert!(message.starts_with("gzip data"), "{message}");
        assert!(!message.contains("NVR"), "{message}");
    }

    #[test]
    fn a_ncu_repz_loads_as_its_ncu_rep_in_one_frame_or_several() {
        use crate::state::test_support::{input, unpack};
        let rep = InputFile {
            name: "two_process.ncu-rep".into(),
            bytes: unpack("tests/fixtures/ncu-h200-reports/two_process.ncu-rep.gz"),
        };
        let (want, errors) = load_batch(vec![rep]);
        assert!(errors.is_empty(), "{errors:?}");
        for name in ["two_process", "two_process_frames", "two_process_skippable"] {
            let repz = input(&format!("tests/fixtures/ncu-repz/{name}.ncu-repz"));
            let (runs, errors) = load_batch(vec![repz]);
            assert!(errors.is_empty(), "{name}: {errors:?}");
            assert_eq!(runs.len(), 1, "{name}");
            assert!(
                runs[0].artifact.kernels == want[0].artifact.kernels,
                "{name}"
            );
            assert_eq!(runs[0].name, format!("{name}.ncu-repz"));
        }
    }

    #[test]
    fn a_broken_ncu_repz_is_refused_with_its_file_and_byte() {
        let good =
            crate::state::test_support::input("tests/fixtures/ncu-repz/two_process.ncu-repz");
        let mut checksum = good.bytes.clone();
        if let Some(last) = checksum.last_mut() {
            *last ^= 0x55;
        }
        let cut = good
            .bytes
            .get(..good.bytes.len() / 2)
            .unwrap_or_default()
            .to_vec();
        let zeros = shared::testing::zstd_rle_frame(4 << 30, 0);
        for (bytes, say) in [
            (checksum, "frame 1's checksum is"),
            (cut, "it ends inside frame 1 (the file is cut short)"),
            (zeros, "byte 0 (after un-zstd): binary data (0x00)"),
        ] {
            let file = InputFile {
                name: "r.ncu-repz".into(),
                bytes,
            };
            let (runs, errors) = load_batch(vec![file]);
            assert!(runs.is_empty());
            assert_eq!(errors.len(), 1);
            assert_eq!(errors[0].file, "r.ncu-repz");
            assert!(errors[0].message.contains(say), "{}", errors[0].message);
        }
    }

    #[test]
    fn a_file_too_large_for_the_tab_is_refused_with_what_to_do() {
        assert_eq!(refuse_large_file("run.csv", MAX_FILE_BYTES), None);
        let just_over = refuse_large_file("a.csv", MAX_FILE_BYTES + 1).map(|e| e.message);
        assert!(just_over.is_some_and(|m| m.starts_with("601 MB is more")));
        assert_eq!(refuse_large_file("big-raw.csv", 500_009_714), None);
        let e = refuse_large_file("big-raw.csv", 1_000_013_221).expect("refused");
        assert_eq!(e.file, "big-raw.csv");
        assert_eq!(
            e.to_string(),
            "big-raw.csv: 1001 MB is more than a browser tab can load (at most 600 MB); \
             import it with `capture import big-raw.csv -o run.json` and open run.json instead"
        );
    }

    #[test]
    fn a_batch_loaded_in_steps_of_any_size_is_the_batch_loaded_at_once() {
        let sample = |rel: &str| InputFile {
            name: rel.into(),
            bytes: crate::state::test_support::input(rel).bytes,
        };
        let batch = vec![
            sample("site/samples/h200.json"),
            fixture("probe_full_raw.csv"),
            InputFile {
                name: "notes.txt".into(),
                bytes: b"hello, this is not an export\n".to_vec(),
            },
            sample("site/samples/h200-gpt2-bf16-ncu-cold-raw.csv"),
            fixture("probe_full_details.csv"),
            sample("site/samples/h200-two-process.ncu-rep"),
            InputFile {
                name: "empty.csv".into(),
                bytes: Vec::new(),
            },
        ];
        let (runs, errors) = load_batch(batch.clone());
        assert_eq!(runs.len(), 2, "{errors:?}");
        assert_eq!(errors.len(), 2, "{errors:?}");
        for rows in [1, 5] {
            let mut loading = Loading::new(batch.clone());
            let mut seen: Vec<Progress> = loading.progress().into_iter().collect();
            while loading.step(rows) {
                seen.extend(loading.progress());
            }
            assert_eq!(loading.progress(), None);
            assert_eq!(
                loading.finish(),
                (runs.clone(), errors.clone()),
                "{rows} rows a step"
            );
            // The GPT-2 page, 124 launches, was seen going from its start to its end.
            let gpt2: Vec<&Progress> = seen
                .iter()
                .filter(|p| p.file.ends_with("gpt2-bf16-ncu-cold-raw.csv"))
                .collect();
            assert!(gpt2.len() > 124 / rows, "{} steps", gpt2.len());
            assert!(gpt2.windows(2).all(|w| w[0].read_bytes <= w[1].read_bytes));
            let last = gpt2.last().map(|p| (p.read_bytes, p.total_bytes));
            assert!(last.is_some_and(|(read, total)| read == total && total > 0));
            assert!(gpt2.iter().all(|p| p.stage == Stage::Rows));
            // The artifact and the report are read in one go, and said to be.
            let whole: Vec<&str> = seen
                .iter()
                .filter(|p| p.stage == Stage::Whole)
                .map(|p| p.file.as_str())
                .collect();
            assert!(
                whole.contains(&"site/samples/h200-two-process.ncu-rep"),
                "{whole:?}"
            );
            assert!(whole.contains(&"site/samples/h200.json"), "{whole:?}");
        }
    }

    /// `file` loaded as the tab loads a picked CSV export: streamed in pieces of `piece`
    /// bytes, `ahead` kept queued, `rows` a step, read again whole should a step outrun the
    /// pieces; with whether it had to be.
    fn load_streamed(
        file: &InputFile,
        piece: usize,
        ahead: usize,
        rows: usize,
    ) -> ((Vec<Run>, Vec<LoadError>), bool) {
        let mut loading = Loading::new(Vec::new()).with_stream_ahead(ahead);
        let mut pieces = file.bytes.chunks(piece).map(<[u8]>::to_vec);
        let first = pieces.next().unwrap_or_default();
        assert!(streams(&first));
        loading.stream(file.name.clone(), file.bytes.len() as u64, first);
        let mut read = Vec::new();
        loop {
            while loading.wants_piece() {
                loading.feed(pieces.next());
            }
            if let Some(p) = loading.progress() {
                read.push(p.read_bytes);
            }
            if !loading.step(rows) {
                break;
            }
        }
        assert!(read.windows(2).all(|w| w[0] <= w[1]), "progress went back");
        let starved = loading.take_starved().is_some();
        if starved {
            loading.push(file.clone());
            while loading.step(usize::MAX) {}
        }
        (loading.finish(), starved)
    }

    #[test]
    fn an_export_streamed_in_pieces_loads_as_it_does_whole() {
        let sample = |rel: &str| InputFile {
            name: rel.into(),
            bytes: crate::state::test_support::input(rel).bytes,
        };
        let gpt2 = sample("site/samples/h200-gpt2-bf16-ncu-cold-raw.csv");
        let details = fixture("probe_sections_details_base_units_with_stdout.csv");
        let cut = InputFile {
            name: "cut.csv".into(),
            bytes: gpt2.bytes[..gpt2.bytes.len() - 5000].to_vec(),
        };
        let binary = InputFile {
            name: "binary.csv".into(),
            bytes: [b"\"ID\",\"x\"\n".as_slice(), &[0, 159, 146, 150, 0, 1]].concat(),
        };
        for file in [&gpt2, &details, &cut, &binary] {
            let whole = load_batch(vec![file.clone()]);
            // Pieces far ahead of the reader: streamed to the end.
            for (piece, rows) in [(4096, 1), (65_536, 3), (1 << 20, 16)] {
                let (streamed, starved) = load_streamed(file, piece, 1 << 20, rows);
                assert!(!starved, "{}: {piece}-byte pieces", file.name);
                assert_eq!(streamed, whole, "{}: {piece}-byte pieces", file.name);
            }
            // A step that outruns its pieces is read again whole, to the same runs.
            let (streamed, _) = load_streamed(file, 512, 1024, 8);
            assert_eq!(streamed, whole, "{}: starved", file.name);
        }
        // The GPT-2 page's rows are some 20 KB: 1 KB ahead cannot hold a step.
        assert!(load_streamed(&gpt2, 512, 1024, 8).1, "it was starved");
        // A read error drops the file with the reason, and the rest still loads.
        let mut loading = Loading::new(vec![fixture("probe_full_raw.csv")]);
        loading.stream("gone.csv".into(), 1 << 20, gpt2.bytes[..4096].to_vec());
        loading.fail_stream("could not be read: NotReadableError".into());
        assert!(!loading.wants_piece());
        while loading.step(4) {}
        let (runs, errors) = loading.finish();
        assert_eq!(runs.len(), 1);
        assert_eq!(
            errors.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["gone.csv: could not be read: NotReadableError"]
        );
    }

    #[test]
    fn progress_reads_in_megabytes() {
        let progress = Progress {
            stage: Stage::Rows,
            file: "trace.csv".into(),
            read_bytes: 230_400_000,
            total_bytes: 500_009_714,
        };
        assert_eq!(
            progress.line(),
            "reading the launches of trace.csv: 230 of 500 MB"
        );
        let copying = Progress {
            stage: Stage::Copy,
            ..progress
        };
        assert_eq!(
            copying.line(),
            "copying trace.csv into the tab: 230 of 500 MB"
        );
    }

    #[test]
    fn a_bad_file_is_named_in_the_error() {
        let (runs, errors) = load_batch(vec![InputFile {
            name: "notes.txt".into(),
            bytes: b"hello, this is not an export\n".to_vec(),
        }]);
        assert!(runs.is_empty());
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].file, "notes.txt");
        assert!(!errors[0].message.is_empty());
    }

    #[test]
    fn broken_json_says_where() {
        let (runs, errors) = load_batch(vec![InputFile {
            name: "broken.json".into(),
            bytes: b"{\"schema\": 1, \"kernels\": [".to_vec(),
        }]);
        assert!(runs.is_empty());
        assert!(
            errors[0].to_string().starts_with("broken.json: "),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn future_schema_is_refused_plainly() {
        let (_, errors) = load_batch(vec![InputFile {
            name: "new.json".into(),
            bytes: b"{\"schema\": 99}".to_vec(),
        }]);
        assert!(errors[0].message.contains("newer"), "{}", errors[0]);
    }

    #[test]
    fn a_raw_export_imports_like_capture_import() {
        let raw = fixture("probe_metrics_raw_with_stdout.csv");
        let (runs, errors) = load_batch(vec![raw.clone()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.kind, SourceKind::NcuExport);
        let names: Vec<&str> = run
            .artifact
            .kernels
            .iter()
            .map(|k| k.name.as_ref())
            .collect();
        assert_eq!(names, vec!["copy", "fma_loop"]);
        // The same launches through the shared importer directly.
        let export = ncu::read_export(&raw.bytes[..]);
        let direct = export.map(|e| e.launches.len()).unwrap_or(0);
        let via_viewer: usize = run
            .artifact
            .kernels
            .iter()
            .map(|k| k.cold.as_ref().map_or(0, |c| c.launches.len()))
            .sum();
        assert_eq!(direct, via_viewer);
    }

    #[test]
    fn warnings_name_the_file_first_as_capture_prints_them() {
        let path = format!(
            "{}/../tests/fixtures/bad/out_of_range.csv",
            env!("CARGO_MANIFEST_DIR")
        );
        let file = InputFile {
            name: "out_of_range.csv".into(),
            bytes: std::fs::read(&path).unwrap_or_default(),
        };
        let (runs, errors) = load_batch(vec![file]);
        assert!(errors.is_empty(), "{errors:?}");
        let warnings = &runs[0].artifact.warnings;
        let negative = format!(
            "out_of_range.csv: line 11: {} is negative",
            shared::model::counters::GPU_TIME_DURATION.name
        );
        assert!(
            warnings.iter().any(|w| w.starts_with(&negative)),
            "{warnings:?}"
        );
    }

    #[test]
    fn raw_and_details_pages_of_one_run_join() {
        let (runs, errors) = load_batch(vec![
            fixture("probe_full_raw.csv"),
            fixture("probe_full_details.csv"),
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].name, "probe_full_raw.csv + probe_full_details.csv");
        let launch = runs[0].artifact.kernels[0]
            .cold
            .as_ref()
            .and_then(|c| c.launches.first());
        let launch = launch.map(|l| (l.metrics.is_empty(), l.sections.is_empty()));
        assert_eq!(launch, Some((false, false)));
    }

    /// The two-process report bundled with the site, and its raw CSV page.
    fn two_process() -> (InputFile, InputFile) {
        let read = |rel: &str| crate::state::test_support::input(rel).bytes;
        (
            InputFile {
                name: "h200-two-process.ncu-rep".into(),
                bytes: read("site/samples/h200-two-process.ncu-rep"),
            },
            InputFile {
                name: "two_process_raw.csv".into(),
                bytes: read("tests/fixtures/ncu-h200-reports/two_process_raw.csv"),
            },
        )
    }

    #[test]
    fn a_report_imports_as_its_raw_page() {
        let (report, csv) = two_process();
        let (from_report, errors) = load_batch(vec![report]);
        assert!(errors.is_empty(), "{errors:?}");
        let (from_csv, errors) = load_batch(vec![csv]);
        assert!(errors.is_empty(), "{errors:?}");
        let (a, b) = (&from_report[0], &from_csv[0]);
        assert_eq!(a.kind, SourceKind::NcuExport);
        assert_eq!(a.name, "h200-two-process.ncu-rep");
        // The bytes table of each, as `capture table` prints it: the same kernels, launches,
        // times, bytes, FLOPs and verdicts (figures worked from cells the CSV rounds, such
        // as waves and stall shares, differ in their last digits; the CLI tests bound them).
        let rows = |run: &Run| {
            shared::analysis::table::bytes_table(&run.artifact)
                .kernels
                .into_iter()
                .map(|r| {
                    let bytes = (r.l1_bytes, r.l2_bytes, r.dram_bytes);
                    (
                        r.name,
                        r.launches,
                        r.time_ms,
                        bytes,
                        r.flops_by_precision,
                        r.verdict,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(rows(a), rows(b));
        assert_eq!(a.artifact.device, b.artifact.device);
        let launches: usize = a
            .artifact
            .kernels
            .iter()
            .map(|k| k.cold.as_ref().map_or(0, |c| c.launches.len()))
            .sum();
        assert_eq!(launches, 4);
    }

    #[test]
    fn a_cut_report_loads_its_complete_results_with_a_warning() {
        let (mut report, _) = two_process();
        report.bytes.truncate(report.bytes.len() - 1000);
        let (runs, errors) = load_batch(vec![report]);
        assert!(errors.is_empty(), "{errors:?}");
        let warnings = &runs[0].artifact.warnings;
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("h200-two-process.ncu-rep: byte ")
                    && w.ends_with("the 3 complete results before it are loaded")),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_broken_report_is_named_with_its_byte_offset() {
        let (report, _) = two_process();
        let cases: [(&str, usize, &[u8], &str); 3] = [
            (
                "wrong magic",
                0,
                b"NVX\0",
                "byte 0: neither a CSV text export",
            ),
            (
                "zero size",
                4,
                &[0; 4],
                "byte 4: the file header has size 0",
            ),
            (
                "oversized",
                4,
                &[0xff; 4],
                "byte 8: the report ends inside the file header",
            ),
        ];
        for (what, at, patch, want) in cases {
            let mut file = report.clone();
            file.bytes[at..at + patch.len()].copy_from_slice(patch);
            let (runs, errors) = load_batch(vec![file]);
            assert!(runs.is_empty(), "{what}");
            let e = errors.first().map(ToString::to_string).unwrap_or_default();
            assert!(
                e.starts_with(&format!("h200-two-process.ncu-rep: {want}")),
                "{what}: {e}"
            );
        }
    }
}
