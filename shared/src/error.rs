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
/// (see [`crate::ncu::Warning`]).
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
    #[error("line {line}: header found but no complete launch row follows")]
    NoRows {
        /// 1-based line of the header.
        line: u64,
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
