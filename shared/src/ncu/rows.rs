//! The row loop shared by the page readers, and the warning collector.
//!
//! [`for_each_row`] streams records out of the CSV parser with one record of lookahead, so
//! each page reader knows which row is the last one and whether the input ended inside it
//! (a truncated file), and gets every row's 1-based line in the original input.
//! [`Warnings`] gathers what the readers skipped; repeated non-finite values of the same
//! metric become one warning, so a 10,000-launch export cannot drown its own messages.

use std::collections::HashMap;
use std::io::Read;

use csv::ByteRecord;

use crate::error::NcuError;

use super::lines::LineFilter;
use super::Warning;

/// Where a row is and how it ended.
#[derive(Clone, Copy, Debug)]
pub struct RowInfo {
    /// 1-based line of the row in the original input.
    pub line: u64,
    /// Whether this is the last row of the input.
    pub is_last: bool,
    /// Whether the input ended inside this row's quoted field (the file was cut).
    pub truncated: bool,
}

/// A parser over the export's own lines.
pub type Parser<R> = csv::Reader<LineFilter<R>>;

/// Reads one record; false at the end of input.
fn next_record<R: Read>(parser: &mut Parser<R>, record: &mut ByteRecord) -> Result<bool, NcuError> {
    parser.read_byte_record(record).map_err(|e| {
        let line = e
            .position()
            .map(|p| parser.get_ref().original_line(p.line()))
            .unwrap_or(0);
        match e.into_kind() {
            csv::ErrorKind::Io(io) => NcuError::Io(io.to_string()),
            kind => NcuError::Csv {
                line,
                message: format!("{kind:?}"),
            },
        }
    })
}

/// Calls `each` on every remaining record, in order, reusing two record buffers.
pub fn for_each_row<R, F>(parser: &mut Parser<R>, mut each: F) -> Result<(), NcuError>
where
    R: Read,
    F: FnMut(&ByteRecord, RowInfo) -> Result<(), NcuError>,
{
    let mut current = ByteRecord::new();
    let mut next = ByteRecord::new();
    let mut have = next_record(parser, &mut current)?;
    while have {
        let have_next = next_record(parser, &mut next)?;
        let filter = parser.get_ref();
        let info = RowInfo {
            line: current
                .position()
                .map(|p| filter.original_line(p.line()))
                .unwrap_or(0),
            is_last: !have_next,
            truncated: !have_next && filter.eof_in_quote(),
        };
        each(&current, info)?;
        std::mem::swap(&mut current, &mut next);
        have = have_next;
    }
    Ok(())
}

/// Repeated non-finite values of one metric.
struct NonFinite {
    what: String,
    text: String,
    line: u64,
    count: u64,
}

/// Collects warnings while a page is read.
#[derive(Default)]
pub struct Warnings {
    list: Vec<Warning>,
    non_finite: Vec<NonFinite>,
    non_finite_index: HashMap<String, usize>,
}

impl Warnings {
    /// Adds a warning.
    pub fn push(&mut self, line: Option<u64>, message: impl Into<String>) {
        self.list.push(Warning {
            line,
            message: message.into(),
        });
    }

    /// Notes a non-finite value (`nan`, `inf`) of `what`, stored as missing.
    pub fn non_finite(&mut self, what: &str, text: &[u8], line: u64) {
        match self.non_finite_index.get(what) {
            Some(&i) => {
                if let Some(entry) = self.non_finite.get_mut(i) {
                    entry.count += 1;
                }
            }
            None => {
                self.non_finite_index
                    .insert(what.to_owned(), self.non_finite.len());
                self.non_finite.push(NonFinite {
                    what: what.to_owned(),
                    text: String::from_utf8_lossy(text.trim_ascii()).into_owned(),
                    line,
                    count: 1,
                });
            }
        }
    }

    /// All warnings, in line order (warnings without a line last).
    pub fn finish(mut self) -> Vec<Warning> {
        for entry in self.non_finite {
            let times = if entry.count == 1 {
                String::new()
            } else {
                format!(" ({} rows, the first here)", entry.count)
            };
            self.list.push(Warning {
                line: Some(entry.line),
                message: format!(
                    "{} is not a finite number ({:?}); kept as missing{times}",
                    entry.what, entry.text
                ),
            });
        }
        self.list.sort_by_key(|w| w.line.unwrap_or(u64::MAX));
        self.list
    }
}
