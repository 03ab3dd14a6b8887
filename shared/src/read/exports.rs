//! An export file of either kind: an Nsight Compute CSV text export (read by
//! [`crate::read::ncu`]) or a binary report (`.ncu-rep`, read by [`crate::read::ncu_rep`] into the
//! launches of its raw CSV page), told apart by [`kind_of`] from its first bytes, never by
//! its name. `capture import`, `merge` and `diff` read their exports here
//! ([`read_from_with`]); the viewer, which streams a CSV export from the pieces of a picked
//! file, uses the same test ([`kind_of`]), the same two readers and [`neither`] for the
//! error, so a file means the same to both.

use std::io::{BufRead, Cursor};

use crate::error::{ExportError, NcuError};
use crate::read::kind::{kind_of, looks_like, FileKind};
use crate::read::ncu::{self, Export};
use crate::read::ncu_rep;

/// Reads an export held in memory: a report when it starts with the report magic, else a
/// CSV text export.
///
/// # Errors
///
/// [`ExportError::Report`] for a report that cannot be read (naming the byte offset),
/// [`ExportError::Csv`] for a CSV export that cannot be read (naming the line), and
/// [`ExportError::Unrecognized`] for binary data that is neither.
pub fn read(bytes: &[u8]) -> Result<Export, ExportError> {
    let mut reading = Reading::open(bytes)?;
    while reading.step(usize::MAX)? {}
    reading.finish()
}

/// An export held in memory, read a part at a time, so that the caller can do other work
/// between parts; [`read`] runs its steps to the end. A CSV export is read a number of rows
/// per [`Reading::step`] ([`ncu::Reading`]; the viewer uses that directly, over the pieces
/// of a file as they arrive); a report, which reads at hundreds of MB/s, in one go at
/// [`Reading::finish`].
pub struct Reading<B: AsRef<[u8]>> {
    state: State<B>,
}

enum State<B: AsRef<[u8]>> {
    Report(B),
    Csv {
        /// Boxed: a report's state is only its bytes.
        reading: Box<ncu::Reading<Cursor<B>>>,
        /// The file's first bytes, for the message should it be binary.
        start: Vec<u8>,
    },
}

impl<B: AsRef<[u8]>> Reading<B> {
    /// Tells a report from a CSV export and, for the latter, reads its header.
    ///
    /// # Errors
    ///
    /// As [`read`], for what the start of the file shows.
    pub fn open(bytes: B) -> Result<Self, ExportError> {
        let all = bytes.as_ref();
        match kind_of(all) {
            FileKind::Report => {
                return Ok(Reading {
                    state: State::Report(bytes),
                })
            }
            FileKind::Unrecognized { at } => return Err(no_lines(all, at)),
            _ => {}
        }
        let start = all.get(..4).unwrap_or(all).to_vec();
        let reading = ncu::Reading::open(Cursor::new(bytes)).map_err(|e| neither(e, &start))?;
        let reading = Box::new(reading);
        Ok(Reading {
            state: State::Csv { reading, start },
        })
    }

    /// Reads at most `rows` more rows of a CSV export; whether any may remain.
    ///
    /// # Errors
    ///
    /// As [`read`]; nothing is to be read after an error.
    pub fn step(&mut self, rows: usize) -> Result<bool, ExportError> {
        match &mut self.state {
            State::Report(_) => Ok(false),
            State::Csv { reading, start } => reading.step(rows).map_err(|e| neither(e, start)),
        }
    }

    /// The export, once [`Reading::step`] has said no rows remain (a report is read here).
    ///
    /// # Errors
    ///
    /// As [`read`].
    pub fn finish(self) -> Result<Export, ExportError> {
        match self.state {
            State::Report(bytes) => Ok(ncu_rep::read_export(bytes.as_ref())?),
            State::Csv { reading, start } => reading.finish().map_err(|e| neither(e, &start)),
        }
    }
}

/// Reads an export from a buffered reader, streaming either kind: a report when its first
/// buffered bytes are the report magic, else a CSV text export.
///
/// # Errors
///
/// As [`read`]; reading errors are [`NcuError::Io`] or the report's `Io`.
pub fn read_from<R: BufRead>(input: R) -> Result<Export, ExportError> {
    read_from_with(input, ncu::read_export)
}

/// [`read_from`], with a CSV text export read by `csv` (which must read it as
/// [`ncu::read_export`] does: `capture import` runs that reader's two stages on two
/// threads).
///
/// # Errors
///
/// As [`read_from`].
pub fn read_from_with<R: BufRead>(
    mut input: R,
    csv: impl FnOnce(R) -> Result<Export, NcuError>,
) -> Result<Export, ExportError> {
    let start = input.fill_buf().map_err(|e| NcuError::Io(e.to_string()))?;
    match kind_of(start) {
        FileKind::Report => return Ok(ncu_rep::read_export_from(input)?),
        FileKind::Unrecognized { at } => return Err(no_lines(start, at)),
        _ => {}
    }
    let start = start.get(..4).unwrap_or(start).to_vec();
    csv(input).map_err(|e| neither(e, &start))
}

/// [`ExportError::NoLines`] for text starting with `start`, given up on at byte `at`.
fn no_lines(start: &[u8], at: usize) -> ExportError {
    ExportError::NoLines {
        at: at as u64,
        found: looks_like(start),
    }
}

/// A CSV reader's error for a file starting with `start` (its first four bytes will do):
/// binary data is [`ExportError::Unrecognized`], as it is no report either. For a caller
/// that reads a CSV export itself ([`ncu::Reading`] over its own reader), as [`read`] says.
pub fn neither(e: NcuError, start: &[u8]) -> ExportError {
    match e {
        NcuError::Binary { line } => ExportError::Unrecognized {
            line,
            found: ncu_rep::escaped_start(start),
        },
        e => ExportError::Csv(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_data_that_is_no_report_says_what_it_found() {
        let elf = b"\x7fELF\x02\x01\x01\0\0\0";
        let e = read(elf).expect_err("refused");
        assert_eq!(read_from(&elf[..]).expect_err("refused"), e);
        assert_eq!(
            e.to_string(),
            "byte 0: neither a CSV text export (binary data on line 1) nor an Nsight Compute \
             report (expected the magic \"NVR\\0\", found \"\\x7fELF\")"
        );
    }

    #[test]
    fn text_without_line_ends_is_refused_from_its_first_64_kib() {
        let junk = b"x".repeat(1 << 20);
        let e = read(&junk).expect_err("refused");
        // A buffered reader of 64 KiB, as `capture import` reads: refused from its first fill.
        let streamed = read_from(std::io::BufReader::with_capacity(64 << 10, &junk[..]));
        assert_eq!(streamed.expect_err("refused"), e);
        assert_eq!(
            e.to_string(),
            "byte 65536: neither a CSV text export (no line ends in its first 64 KiB, and it \
             does not start like a CSV header) nor an Nsight Compute report; it starts \
             \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"..."
        );
    }

    #[test]
    fn each_kind_is_told_by_its_start() {
        let csv = read(b"a,b\n1,2\n").expect_err("not an export");
        assert!(
            matches!(csv, ExportError::Csv(NcuError::NotAnExport { .. })),
            "{csv}"
        );
        let report = read(b"NVR\0\0\0\0\0").expect_err("zero size");
        assert!(matches!(report, ExportError::Report(_)), "{report}");
        assert!(report.to_string().starts_with("byte 4: "), "{report}");
    }
}
