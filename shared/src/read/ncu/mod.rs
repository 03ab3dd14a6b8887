//! Reader for Nsight Compute CSV exports: `--page raw`, `--page details`, and the GUI's
//! two-column `name [unit],value` export of one result.
//!
//! Input is any `std::io::Read`; the reader streams it row by row and never holds the whole
//! file ([`read_export_with`] does not even hold the launches). Values are normalized to base
//! units (ns, byte, hz, byte/s; see [`units`]). Program output and `==PROF==` lines around
//! the CSV are skipped. A file that is not an export is an [`NcuError`]; a partly broken one
//! loads what is valid and lists the rest as [`Warning`]s.
//!
//! Reading is two stages, which a caller may run on two threads: [`Rows`] (in `records`)
//! reads the input and splits it into records, and [`read_rows`] turns records into
//! launches; [`read_export`] runs both in turn. Inside: `export` holds what a read gives
//! ([`Page`], [`Warning`], [`Export`]), `lines` recognizes the input and
//! filters its lines, `records` splits them, `rows` runs the row loop, `raw`, `details` and
//! `gui` read one page shape each, `ident` parses the launch identity
//! columns, [`value`] and [`units`] turn cells into base-unit numbers, and [`sections`]
//! lists the section names the details reader knows.

use std::collections::HashMap;

use crate::error::NcuError;
use crate::model::artifact::{Bases, LaunchCounters};

mod combine;
mod details;
mod export;
mod gui;
mod ident;
mod lines;
pub mod nvtx;
mod raw;
mod records;
mod rows;
pub mod sections;
pub mod units;
pub mod value;

#[cfg(test)]
mod tests;

pub use combine::{combine, combine_named};
pub use export::{Export, Page, Warning};
pub use ident::{parse_dim3, ID_COLUMNS, NVTX_COLUMNS};
pub use lines::Header;
pub use records::{Record, Row, RowStream, Rows};
pub use sections::{is_known_section, KNOWN_SECTION_IDS, KNOWN_SECTION_NAMES};
pub use units::{normalize_unit, UnitScale};

/// What a streamed read ([`read_export_with`]) found besides the launches it handed on.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportSummary {
    /// Which page the input was.
    pub page: Page,
    /// How many launches were handed on.
    pub launches: usize,
    /// What was skipped, with line numbers.
    pub warnings: Vec<Warning>,
}

/// Reads one export from `input`, streaming it row by row.
///
/// Recognizes the page from its header: `--page raw`, `--page details` (comma or semicolon
/// separated) or the GUI's two-column export. Lines around the CSV that are not part of it
/// (program output, `==PROF==` messages) are skipped with one warning; rows that cannot be
/// read (a truncated last row, a row of the wrong width) are skipped with a warning naming
/// their line. Numbers are converted to base units (see [`units`]). Details rows of one
/// launch are gathered into one [`LaunchCounters`] even when they are not adjacent.
///
/// # Errors
///
/// [`NcuError::Empty`] for an empty or blank input, [`NcuError::Binary`] for non-text data,
/// [`NcuError::Profiler`] when ncu printed an error instead of an export,
/// [`NcuError::NotAnExport`] when no header is found, [`NcuError::NoRows`] when a header has
/// no complete row after it, and [`NcuError::Io`] when reading fails.
pub fn read_export<R: std::io::Read>(input: R) -> Result<Export, NcuError> {
    let mut reading = Reading::open(input)?;
    while reading.step(usize::MAX)? {}
    reading.finish()
}

/// An export being read as [`read_export`] reads it, a part at a time: the caller says how
/// many rows each [`Reading::step`] reads, and can do other work between steps (a browser
/// tab draws its progress and stays responsive while it reads a large export). The
/// launches are the same whatever the steps.
pub struct Reading<R: std::io::Read> {
    rows: Rows<R>,
    reader: RowReader,
    launches: Launches,
}

impl<R: std::io::Read> Reading<R> {
    /// Recognizes the export from its header, ready to read its rows.
    ///
    /// # Errors
    ///
    /// As [`read_export`], for what its header shows.
    pub fn open(input: R) -> Result<Self, NcuError> {
        let rows = Rows::open(input)?;
        let reader = RowReader::new(rows.header())?;
        Ok(Reading {
            rows,
            reader,
            launches: Launches::default(),
        })
    }

    /// Reads at most `rows` more rows; whether any may remain (`false` once all are read).
    ///
    /// # Errors
    ///
    /// As [`read_export`]; nothing is to be read after an error.
    pub fn step(&mut self, rows: usize) -> Result<bool, NcuError> {
        let launches = &mut self.launches;
        self.reader.read(&mut self.rows, rows, &mut |page, launch| {
            launches.push(page, launch)
        })
    }

    /// The input, as far as it has not been taken in yet (reading runs ahead of the rows
    /// read by up to one buffer).
    pub fn input(&self) -> &R {
        self.rows.input()
    }

    /// The input, to add to it as it arrives (a reader that ends only when the input has).
    pub fn input_mut(&mut self) -> &mut R {
        self.rows.input_mut()
    }

    /// The export, once [`Reading::step`] has said no rows remain.
    ///
    /// # Errors
    ///
    /// [`NcuError::NoRows`] when no launch was read.
    pub fn finish(self) -> Result<Export, NcuError> {
        let mut launches = self.launches;
        let read = self
            .reader
            .end(&mut |page, launch| launches.push(page, launch));
        let summary = read.finish(self.rows.skipped_warning())?;
        Ok(launches.into_export(summary))
    }
}

/// Launches gathered as [`read_export`] keeps them: in file order, the pieces of one
/// details-page launch joined; the values of a kernel's raw-page launches stored once where
/// they repeat ([`Bases`]).
#[derive(Default)]
pub struct Launches {
    launches: Vec<LaunchCounters>,
    index: HashMap<(Option<u64>, u64), usize>,
    is_details: Option<bool>,
    bases: Bases,
}

impl Launches {
    /// Adds a launch read from a `page`.
    pub fn push(&mut self, page: Page, mut launch: LaunchCounters) {
        // Only a details page hands a launch on in pieces (when its rows are not adjacent);
        // two raw rows of the same launch ID stay two launches, as in the file.
        if *self.is_details.get_or_insert(page == Page::Details) {
            // The pieces of one launch name one kernel: rows of another kernel with the
            // same IDs are another launch (which `combine` then warns about).
            let key = (launch.site.process_id, launch.id);
            match self.index.get(&key).and_then(|&i| self.launches.get_mut(i)) {
                Some(existing) if existing.function == launch.function => {
                    combine::merge_into(existing, launch);
                    return;
                }
                Some(_) => {}
                None => {
                    self.index.insert(key, self.launches.len());
                }
            }
        } else {
            // A raw row is a whole launch: most of its values are those of the last launch
            // of the same kernel and shape.
            let kind = raw::launch_kind(&launch);
            launch.metrics.share_values(kind, &mut self.bases);
        }
        self.launches.push(launch);
    }

    /// The export: these launches with what the read found.
    pub fn into_export(self, summary: ExportSummary) -> Export {
        Export {
            page: summary.page,
            launches: self.launches,
            warnings: summary.warnings,
        }
    }
}

/// Reads one export like [`read_export`], but hands each launch to `on_launch` as soon as it
/// is complete instead of keeping them, so an export of any size is read in the memory of
/// one launch (a full-set raw row becomes about 2,200 metrics, some 350 KB).
///
/// Launches arrive in file order. The details page hands a launch on when the next row
/// belongs to another launch; should the rows of one launch not be adjacent, it arrives in
/// pieces with the same process and launch ID, which [`combine`] joins.
///
/// # Errors
///
/// As [`read_export`]. Launches handed on before an error stay handed on.
pub fn read_export_with<R, F>(input: R, mut on_launch: F) -> Result<ExportSummary, NcuError>
where
    R: std::io::Read,
    F: FnMut(LaunchCounters),
{
    let mut rows = Rows::open(input)?;
    let header = rows.header().clone();
    let read = read_rows(&header, &mut rows, &mut |_, launch| on_launch(launch))?;
    read.finish(rows.skipped_warning())
}

/// What [`read_rows`] found, before the record stage's own warning is added
/// ([`RowsRead::finish`]).
pub struct RowsRead {
    page: Page,
    header_line: u64,
    launches: usize,
    warnings: rows::Warnings,
}

impl RowsRead {
    /// The summary of the whole read, with `skipped`, the warning of [`Rows::skipped_warning`]
    /// once the rows are exhausted.
    ///
    /// # Errors
    ///
    /// [`NcuError::NoRows`] when no launch was read.
    pub fn finish(self, skipped: Option<Warning>) -> Result<ExportSummary, NcuError> {
        if self.launches == 0 {
            let first = self.warnings.finish().into_iter().next();
            return Err(NcuError::NoRows {
                line: self.header_line,
                why: first.map_or_else(String::new, |w| {
                    format!("; every row was skipped, the first: {w}")
                }),
            });
        }
        let mut warnings = self.warnings;
        if let Some(skipped) = skipped {
            warnings.push(skipped.line, skipped.message);
        }
        Ok(ExportSummary {
            page: self.page,
            launches: self.launches,
            warnings: warnings.finish(),
        })
    }
}

/// The second stage of a read: the launches of the `rows` split from an export with this
/// `header` (both from [`Rows`]), each handed to `on_launch` with its page as soon as it is
/// complete. The rows may come from another thread; finish with [`RowsRead::finish`].
///
/// # Errors
///
/// The first error of `rows` (reading failed), or of the page: [`NcuError::NoUnitsRow`]
/// for a raw page without its units row.
pub fn read_rows(
    header: &Header,
    rows: &mut dyn RowStream,
    on_launch: &mut dyn FnMut(Page, LaunchCounters),
) -> Result<RowsRead, NcuError> {
    let mut reader = RowReader::new(header)?;
    while reader.read(rows, usize::MAX, on_launch)? {}
    Ok(reader.end(on_launch))
}

/// The second stage of a read ([`read_rows`]), a part at a time: rows in, launches out.
struct RowReader {
    page: Page,
    header_line: u64,
    launches: usize,
    warnings: rows::Warnings,
    /// The page shape's own reader.
    page_reader: Box<dyn rows::PageReader + Send>,
}

impl RowReader {
    /// A reader of the rows under `header`.
    fn new(header: &Header) -> Result<Self, NcuError> {
        let mut warnings = rows::Warnings::default();
        let page_reader: Box<dyn rows::PageReader + Send> = match header.page {
            Page::Raw => Box::new(raw::Page::new(header, &mut warnings)),
            Page::Details => Box::new(details::Page::new(header)?),
            Page::GuiRaw => Box::new(gui::Page::new(header)),
        };
        Ok(RowReader {
            page: header.page,
            header_line: header.line,
            launches: 0,
            warnings,
            page_reader,
        })
    }

    /// Reads at most `limit` rows of `rows`, handing each complete launch to `on_launch`;
    /// whether rows may remain.
    fn read(
        &mut self,
        rows: &mut dyn RowStream,
        limit: usize,
        on_launch: &mut dyn FnMut(Page, LaunchCounters),
    ) -> Result<bool, NcuError> {
        let page = self.page;
        let mut count = self.launches;
        let mut warnings = std::mem::take(&mut self.warnings);
        let mut emit = |launch: LaunchCounters| {
            count += 1;
            on_launch(page, launch);
        };
        let more = rows::read_some(
            rows,
            &mut *self.page_reader,
            limit,
            &mut warnings,
            &mut emit,
        );
        self.launches = count;
        self.warnings = warnings;
        more
    }

    /// After the last row: the launch still being gathered goes to `on_launch`, and what
    /// was read is summed up.
    fn end(mut self, on_launch: &mut dyn FnMut(Page, LaunchCounters)) -> RowsRead {
        let page = self.page;
        let mut count = self.launches;
        self.page_reader.end(&mut |launch| {
            count += 1;
            on_launch(page, launch);
        });
        RowsRead {
            page,
            header_line: self.header_line,
            launches: count,
            warnings: self.warnings,
        }
    }
}
