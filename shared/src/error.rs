//! Typed errors of the shared crate. Each variant says what was wrong and where; callers
//! (capture, the viewer) add the file name and show it once.

use thiserror::Error;

/// Why an artifact JSON document could not be loaded.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ArtifactError {
    /// The text is not valid JSON, or does not match the artifact format.
    #[error("line {line}, column {column}: not a valid artifact: {message}")]
    Json {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// What serde_json reported.
        message: String,
    },
    /// A JSON document without a numeric `schema` field is not an artifact.
    #[error("not an artifact: no numeric \"schema\" field at the top level")]
    NoSchema,
    /// A JSON document that is not an object (`null`, a list, a number).
    #[error(
        "not an artifact: the document is {found}, where an artifact is a JSON object with a \
         \"schema\" field"
    )]
    NotAnObject {
        /// What the document is, in words (`null`, `a list`, `a number`).
        found: &'static str,
    },
    /// A `schema` field that is not a whole, non-negative version number.
    #[error(
        "line {line}: not an artifact: its \"schema\" is {found}, where a version is a whole \
         number such as 3"
    )]
    BadSchema {
        /// 1-based line of the `schema` field.
        line: usize,
        /// The value found, as JSON.
        found: String,
    },
    /// Written by a newer version of the tool.
    #[error(
        "line {line}: artifact schema version {found} is newer than this build understands \
         (up to {supported}); update the tool to read it"
    )]
    FutureSchema {
        /// 1-based line of the `schema` field.
        line: usize,
        /// Version found in the file.
        found: u64,
        /// Newest version this build reads.
        supported: u32,
    },
}

/// Why an Nsight Compute CSV export could not be read at all.
///
/// Problems that leave part of the file usable are warnings on the result instead
/// (see [`crate::read::ncu::Warning`]).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum NcuError {
    /// The input has no bytes, or only whitespace.
    #[error("empty file: no Nsight Compute CSV header found")]
    Empty,
    /// The input is not text.
    #[error("line {line}: binary data, not a CSV text export")]
    Binary {
        /// 1-based line where non-text bytes were found.
        line: u64,
    },
    /// No line looks like an ncu CSV header.
    #[error(
        "line {line}: not an Nsight Compute CSV export: expected a header with \"ID\" and \
         \"Kernel Name\" columns (ncu --csv --page raw or --page details), or the \
         Nsight Compute GUI's two-column \"name [unit],value\" export starting with an \"ID\" \
         line; found {found:?}"
    )]
    NotAnExport {
        /// 1-based line inspected.
        line: u64,
        /// The start of what was found there.
        found: String,
    },
    /// A source-page export (`ncu --page source --csv`) with a line that is not one of its
    /// rows: a record longer than any page has, a row of another number of cells than its
    /// header, an `Address` that is not an address.
    #[error("line {line}: not a row of a source-page export: {found}")]
    NotASourceRow {
        /// 1-based line of the row.
        line: u64,
        /// What it was.
        found: String,
    },
    /// The CSV itself is malformed beyond recovery.
    #[error("line {line}: malformed CSV: {message}")]
    Csv {
        /// 1-based line of the problem.
        line: u64,
        /// What the CSV reader reported.
        message: String,
    },
    /// A raw page (`--page raw`) whose header is not followed by the units row ncu writes
    /// under it: without units the values cannot be put in base units.
    #[error(
        "line {line}: no units row under the raw-page header (line {header}): ncu writes one \
         with an empty ID cell, but this row is a launch; without units the values cannot be \
         read in base units (export the page again with ncu --csv --page raw)"
    )]
    NoUnitsRow {
        /// 1-based line of the row found where the units row belongs.
        line: u64,
        /// 1-based line of the header.
        header: u64,
    },
    /// The header was recognized but no launch row could be read.
    #[error("line {line}: header found but no complete launch row follows{why}")]
    NoRows {
        /// 1-based line of the header.
        line: u64,
        /// Why the rows under it were skipped, from the first warning (`; every row was
        /// skipped, the first: line 11: ...`), or empty when there were none.
        why: String,
    },
    /// ncu printed an error (`==ERROR==`) and no CSV header followed: the profile failed
    /// (for example ERR_NVGPUCTRPERM, no access to the counters).
    #[error("line {line}: Nsight Compute reported an error and wrote no export: {message}")]
    Profiler {
        /// 1-based line of the first `==ERROR==` message.
        line: u64,
        /// That message.
        message: String,
    },
    /// Reading from the underlying source failed.
    #[error("read error: {0}")]
    Io(String),
}

/// Why an export file of either kind, CSV text or binary report, could not be read (see
/// [`crate::read::exports`]).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ExportError {
    /// A CSV text export that could not be read.
    #[error(transparent)]
    Csv(#[from] NcuError),
    /// A binary report (it starts with the report magic) that could not be read.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// Binary data that does not start with the report magic either: neither kind.
    #[error(
        "byte 0: neither a CSV text export (binary data on line {line}) nor an Nsight Compute \
         report (expected the magic \"NVR\\0\", found \"{found}\")"
    )]
    Unrecognized {
        /// 1-based line where the CSV reader found non-text bytes.
        line: u64,
        /// The first bytes found (at most four), escaped.
        found: String,
    },
    /// Text without a line end in its first 64 KiB that does not start like a CSV header
    /// ([`crate::read::kind::FileKind::Unrecognized`]): refused from those bytes, unread past
    /// them.
    #[error(
        "byte {at}: neither a CSV text export (no line ends in its first 64 KiB, and it does \
         not start like a CSV header) nor an Nsight Compute report; it starts {found}"
    )]
    NoLines {
        /// Offset of the byte where the text was given up on.
        at: u64,
        /// What its first characters are ([`crate::read::kind::looks_like`]).
        found: String,
    },
}

/// Why an Nsight Compute report (`.ncu-rep`) could not be read at all. Every variant names
/// the byte offset of the problem. A report cut short after some complete results is not
/// an error: those results load, with a warning (see [`crate::read::ncu_rep`]).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ReportError {
    /// The file does not start with the report magic `NVR\0`.
    #[error(
        "byte 0: not an Nsight Compute report: expected the magic \"NVR\\0\", found \"{found}\""
    )]
    NotAReport {
        /// The first bytes found (at most four), escaped.
        found: String,
    },
    /// The report ends before its first complete result: inside the size prefix or the body
    /// of a header or message, or a size prefix claims more bytes than the file has.
    #[error(
        "byte {offset}: the report ends inside {what}: {size} bytes declared, {available} \
         present (the file is cut, or the size is corrupt); no complete result before it"
    )]
    Truncated {
        /// Byte offset of the size prefix or body.
        offset: u64,
        /// What was being read (`the file header`, `a block header`, `a result`).
        what: &'static str,
        /// Bytes it declares (4 for a size prefix itself).
        size: u64,
        /// Bytes the file still has there.
        available: u64,
    },
    /// A size prefix of zero where a header or message must follow.
    #[error("byte {offset}: {what} has size 0 (garbage, not a report layout this reader knows)")]
    ZeroSize {
        /// Byte offset of the size prefix.
        offset: u64,
        /// What the size was for.
        what: &'static str,
    },
    /// A message that is not valid protobuf, or whose size runs past its block.
    #[error("byte {offset}: malformed {what}: {problem} (report file version {version})")]
    Malformed {
        /// Byte offset of the problem.
        offset: u64,
        /// The message being read.
        what: &'static str,
        /// What was wrong with it.
        problem: String,
        /// The file version from the file header (0 before it is read).
        version: u64,
    },
    /// Valid protobuf, but not laid out as this reader knows the report format (the layout
    /// changes between Nsight Compute versions): a needed field is missing, or a metric name
    /// index is beyond its string table.
    #[error(
        "byte {offset}: {problem}: report file version {version} is laid out differently \
         from the versions this reader knows ({known})"
    )]
    Layout {
        /// Byte offset of the message.
        offset: u64,
        /// What did not match.
        problem: String,
        /// The file version from the file header.
        version: u64,
        /// The versions this reader was written against.
        known: &'static str,
    },
    /// A well-formed report without any profile result (no kernel was profiled).
    #[error("the report holds no profile results (ncu profiled no kernel launch)")]
    NoResults,
    /// Reading from the underlying source failed.
    #[error("read error: {0}")]
    Io(String),
}

/// Why an Nsight Systems export could not be read at all (see [`crate::read::nsys`]).
#[derive(Debug, Error, Clone, PartialEq)]
pub enum NsysError {
    /// No line looks like the header of a kernel or memory-time summary.
    #[error(
        "not an nsys stats CSV: no header of `nsys stats --report cuda_gpu_kern_sum` or \
         `cuda_gpu_mem_time_sum` (\"Time (%)\",\"Total Time (ns)\",...,\"Name\" or \
         \"Operation\") in the first {lines} line(s)"
    )]
    NoHeader {
        /// How many lines were looked at.
        lines: usize,
    },
    /// The header lacks a column the summary needs.
    #[error("line {line}: the header has no {column:?} column")]
    MissingColumn {
        /// 1-based line of the header.
        line: u64,
        /// The column, as the current nsys names it.
        column: &'static str,
    },
    /// A cell that should hold a number does not.
    #[error("line {line}: {column:?} is {found:?}, not a number")]
    BadNumber {
        /// 1-based line of the row.
        line: u64,
        /// The column's header.
        column: String,
        /// The cell.
        found: String,
    },
    /// A row that the CSV parser cannot split, or with fewer cells than the header.
    #[error("line {line}: {message}")]
    BadRow {
        /// 1-based line of the row.
        line: u64,
        /// What is wrong with it.
        message: String,
    },
}

/// Why a zstd stream (a `.ncu-repz` report, any file compressed with `zstd`) could not be
/// un-compressed ([`crate::read::zstd`]). Every variant but [`ZstdError::Io`] and
/// [`ZstdError::NoFrame`] names the byte of the compressed stream where the problem was.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum ZstdError {
    /// The stream ends inside a frame: the file is cut.
    #[error("byte {offset} of the zstd stream: it ends inside {what} (the file is cut short)")]
    Truncated {
        /// Byte offset where the stream ended.
        offset: u64,
        /// What was being read (`frame 2`, `a skippable frame ...`).
        what: String,
    },
    /// A frame that does not decode (a bad header or block, a window over
    /// [`crate::read::zstd::MAX_WINDOW_BYTES`]).
    #[error("byte {offset} of the zstd stream: frame {frame} does not decode: {reason}")]
    Corrupt {
        /// Byte offset reached when the problem was found.
        offset: u64,
        /// 1-based number of the frame (skippable frames not counted).
        frame: u32,
        /// What the decoder said.
        reason: String,
    },
    /// A frame whose stored checksum is not that of what it decodes to.
    #[error(
        "byte {offset} of the zstd stream: frame {frame}'s checksum is {stored:#010x}, but what \
         it decodes to has {computed:#010x}: the file is corrupt"
    )]
    Checksum {
        /// Byte offset of the stored checksum.
        offset: u64,
        /// 1-based number of the frame.
        frame: u32,
        /// The checksum the frame stores.
        stored: u32,
        /// The checksum of what it decoded to.
        computed: u32,
    },
    /// More bytes come out than the reader takes.
    #[error(
        "byte {offset} of the zstd stream: it holds more than {max_bytes} bytes, more than is \
         read of any input; not read further"
    )]
    TooLarge {
        /// Byte offset reached when the limit was passed.
        offset: u64,
        /// The limit, in bytes.
        max_bytes: u64,
    },
    /// The stream holds no bytes at all.
    #[error("an empty zstd stream: no frame")]
    NoFrame,
    /// Reading the compressed bytes failed.
    #[error("read error: {0}")]
    Io(String),
}

/// A drawing failed (the backend refused an operation).
#[derive(Debug, Clone, PartialEq, Error)]
#[error("chart drawing failed: {0}")]
pub struct ChartError(pub String);

/// Why `nvdisasm`'s output could not be read ([`crate::read::nvdisasm`]).
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DisassemblyError {
    /// An instruction line whose address is not hexadecimal.
    #[error("line {line} of nvdisasm's output: {reason}")]
    Line {
        /// 1-based line number.
        line: usize,
        /// What was wrong with it.
        reason: String,
    },
}
