//! The row loop shared by the page readers, and the warning collector.
//!
//! [`read_some`] hands a [`PageReader`] the rows of [`super::records::Rows`] (or of any
//! iterator of them, such as a channel from another thread), each with its 1-based line in
//! the original input, whether it is the last row and whether the input ended inside it
//! (a truncated file). [`Warnings`] gathers what the readers skipped; repeated non-finite
//! or out-of-range values of the same metric become one warning, so a 10,000-launch export
//! cannot drown its own messages.

use std::collections::HashMap;

use crate::error::NcuError;
use crate::model::artifact::LaunchCounters;

use super::export::Warning;
use super::records::{Record, RowStream};
use super::units::UnitScale;
use super::value::{parse_number, Cell};
use crate::model::range::{OutOfRange, MAX_MAGNITUDE};

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

/// The rows a page reader reads: split records, in order, or the error that stopped them.
pub type RowSource<'a> = dyn RowStream + 'a;

/// A page's reader of the rows after its header, one row at a time, so that a read can
/// stop between rows and go on later (the viewer reads a large export in parts, the tab
/// free between them).
pub trait PageReader {
    /// Reads one row, handing any launch it completes to `emit`.
    ///
    /// # Errors
    ///
    /// An error that ends the read (a raw page without its units row).
    fn row(
        &mut self,
        record: &Record,
        row: RowInfo,
        warnings: &mut Warnings,
        emit: &mut dyn FnMut(LaunchCounters),
    ) -> Result<(), NcuError>;

    /// After the last row: hands on the launch still being gathered, if any.
    fn end(&mut self, emit: &mut dyn FnMut(LaunchCounters));
}

/// Hands `page` at most `limit` of the remaining rows, in order, each handed back to `rows`
/// after; whether rows may remain (`false` once `rows` has ended).
///
/// # Errors
///
/// The first error of `rows` or of `page`.
pub fn read_some(
    rows: &mut RowSource<'_>,
    page: &mut dyn PageReader,
    limit: usize,
    warnings: &mut Warnings,
    emit: &mut dyn FnMut(LaunchCounters),
) -> Result<bool, NcuError> {
    for _ in 0..limit {
        let Some(row) = rows.next_row() else {
            return Ok(false);
        };
        let row = row?;
        let info = RowInfo {
            line: row.line,
            is_last: row.is_last,
            truncated: row.truncated,
        };
        page.row(&row.record, info, warnings, emit)?;
        rows.recycle(row);
    }
    Ok(true)
}

/// Why a number was stored as missing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Reason {
    NonFinite,
    Negative,
    TooLarge,
    /// Text that looks like a number ncu never writes (`0x10`, `1_000`, `1.2.3`, `1,2`,
    /// non-ASCII digits, `∞`): kept as text, which every figure reads as missing.
    NotANumber,
    /// A unit this reader does not know: the number cannot be put in base units.
    UnknownUnit,
}

/// Repeated dropped numbers of one metric, for one reason.
struct Dropped {
    what: String,
    reason: Reason,
    text: String,
    unit: String,
    /// The value in base units, when the export's unit was scaled (for the message).
    base_value: Option<f64>,
    line: u64,
    count: u64,
}

/// Collects warnings while a page is read.
#[derive(Default)]
pub struct Warnings {
    list: Vec<Warning>,
    dropped: Vec<Dropped>,
    dropped_index: HashMap<(String, Reason), usize>,
}

impl Warnings {
    /// Adds a warning.
    pub fn push(&mut self, line: Option<u64>, message: impl Into<String>) {
        self.list.push(Warning {
            line,
            message: message.into(),
        });
    }

    /// Notes the cell of `what` (a metric) if it is a number stored as missing (`nan`, or
    /// out of range) or text that looks like a number ncu never writes. `scale` is its
    /// unit's.
    pub fn check_cell(
        &mut self,
        what: &str,
        cell: &Cell,
        text: &[u8],
        scale: &UnitScale,
        line: u64,
    ) {
        let reason = match cell {
            Cell::NonFinite => Reason::NonFinite,
            Cell::OutOfRange(OutOfRange::Negative) => Reason::Negative,
            Cell::OutOfRange(OutOfRange::TooLarge) => Reason::TooLarge,
            Cell::Text if looks_numeric(text) => Reason::NotANumber,
            Cell::Number(_) | Cell::Missing | Cell::Text => return,
        };
        self.note(what, reason, text, scale, line);
    }

    /// Notes a value of `what` in a unit this reader does not know (`text` is the unit as
    /// written), stored as missing.
    pub fn unknown_unit(&mut self, what: &str, unit: &[u8], line: u64) {
        self.note(
            what,
            Reason::UnknownUnit,
            unit,
            &UnitScale::identity(""),
            line,
        );
    }

    /// Counts one dropped or doubted value; the first of each metric and reason is kept.
    fn note(&mut self, what: &str, reason: Reason, text: &[u8], scale: &UnitScale, line: u64) {
        let unit = scale.unit.as_str();
        let key = (what.to_owned(), reason);
        match self.dropped_index.get(&key) {
            Some(&i) => {
                if let Some(entry) = self.dropped.get_mut(i) {
                    entry.count += 1;
                }
            }
            None => {
                self.dropped_index.insert(key, self.dropped.len());
                self.dropped.push(Dropped {
                    what: what.to_owned(),
                    reason,
                    text: String::from_utf8_lossy(text.trim_ascii()).into_owned(),
                    unit: unit.to_owned(),
                    base_value: (reason == Reason::TooLarge && !scale.is_identity())
                        .then(|| parse_number(text.trim_ascii(), scale.exp10))
                        .flatten()
                        .map(|v| v * scale.factor),
                    line,
                    count: 1,
                });
            }
        }
    }

    /// All warnings, in line order (warnings without a line last).
    pub fn finish(mut self) -> Vec<Warning> {
        for entry in self.dropped {
            let times = if entry.count == 1 {
                String::new()
            } else {
                format!(" ({} rows, the first here)", entry.count)
            };
            let (what, text) = (&entry.what, &entry.text);
            let in_unit = if entry.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", entry.unit)
            };
            let why = match entry.reason {
                Reason::Negative => format!(
                    "is negative ({text:?}{in_unit}), which a duration, size, rate or count \
                     cannot be"
                ),
                Reason::TooLarge => match entry.base_value {
                    Some(v) => format!(
                        "is out of range ({text:?} in the export's unit, {v:e}{in_unit} in base \
                         units): above {MAX_MAGNITUDE:e} in base units, more than any counter \
                         holds"
                    ),
                    None => format!(
                        "is out of range ({text:?}{in_unit}): above {MAX_MAGNITUDE:e} in base \
                         units, more than any counter holds"
                    ),
                },
                Reason::NonFinite => format!("is not a finite number ({text:?})"),
                Reason::NotANumber => format!(
                    "holds {text:?}, which is not a number as ncu writes them (decimal digits, \
                     `,` between thousands, `.` before the fraction, an exponent)"
                ),
                Reason::UnknownUnit => format!(
                    "is in unit {text:?}, which this reader does not know, so its value \
                     cannot be put in base units"
                ),
            };
            let kept = if entry.reason == Reason::NotANumber {
                "kept as text, read as missing"
            } else {
                "kept as missing"
            };
            self.list.push(Warning {
                line: Some(entry.line),
                message: format!("{what} {why}; {kept}{times}"),
            });
        }
        crate::order::sort_by_key(&mut self.list, |w| w.line.unwrap_or(u64::MAX));
        self.list
    }
}

/// Whether a text cell looks like a number ncu never writes: only digits (any script's),
/// signs, points, commas, underscores, `x`, hex letters, exponents or `∞`, with at least
/// one digit or `∞`. A host name such as `127.0.0.1` is an identity column, never a metric
/// cell; texts ncu writes in metric cells (`(256, 1, 1)`, `CachePreferNone`, `No-CC`, the
/// GUI's `1056,    1,    1`) have spaces or other letters.
fn looks_numeric(text: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(text.trim_ascii()) else {
        return false;
    };
    let mut any_digit = false;
    for c in text.chars() {
        if c.is_numeric() || c == '\u{221e}' {
            any_digit = true;
        } else if !matches!(c, '+' | '-' | '.' | ',' | '_' | 'x' | 'X' | 'a'..='f' | 'A'..='F') {
            return false;
        }
    }
    any_digit
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::MetricValue;
    use crate::read::ncu::read_export;
    use crate::read::ncu::units::normalize_unit;
    use crate::read::ncu::value::classify;

    const METRICS_RAW_STDOUT: &str =
        include_str!("../../../../tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv");

    /// The CSV lines of the raw fixture (header, units, copy, fma_loop).
    fn csv_lines() -> Vec<&'static str> {
        METRICS_RAW_STDOUT
            .lines()
            .filter(|l| l.starts_with('"'))
            .collect()
    }

    #[test]
    fn dropped_numbers_become_one_warning_per_metric_and_reason() {
        let mut w = Warnings::default();
        let ns = normalize_unit("ns");
        for (text, line) in [("-2,854,816", 11), ("-1,252,992", 12), ("nan", 13)] {
            let cell = classify(text.as_bytes(), &ns);
            w.check_cell("gpu__time_duration.sum", &cell, text.as_bytes(), &ns, line);
        }
        let byte = normalize_unit("byte");
        let cell = classify(b"1e308", &byte);
        w.check_cell("dram__bytes_read.sum", &cell, b"1e308", &byte, 12);
        let fine = classify(b"4,294,976,256", &byte);
        w.check_cell("dram__bytes_read.sum", &fine, b"4,294,976,256", &byte, 11);
        let messages: Vec<String> = w.finish().iter().map(ToString::to_string).collect();
        assert_eq!(
            messages,
            [
                "line 11: gpu__time_duration.sum is negative (\"-2,854,816\" ns), which a \
                 duration, size, rate or count cannot be; kept as missing (2 rows, the first \
                 here)",
                "line 12: dram__bytes_read.sum is out of range (\"1e308\" byte): above 1e30 in \
                 base units, more than any counter holds; kept as missing",
                "line 13: gpu__time_duration.sum is not a finite number (\"nan\"); kept as \
                 missing",
            ]
        );
    }

    #[test]
    fn out_of_range_raw_values_load_as_missing_with_warnings() {
        let lines = csv_lines();
        // The four gpu__time_duration columns (avg, max, min, sum) of copy hold this value.
        let copy = lines[2].replace("\"2,854,816\"", "\"-2,854,816\"");
        let fma = lines[3].replacen("\"4,329,472\"", "\"1e308\"", 1);
        let text = [lines[0], lines[1], &copy, &fma].join("\n");
        let export = read_export(text.as_bytes()).expect("loads");
        assert_eq!(export.launches.len(), 2);
        let value = |i: usize, name: &str| {
            export.launches[i]
                .metrics
                .get(name)
                .map(|m| m.value.clone())
        };
        assert_eq!(
            value(0, "gpu__time_duration.sum"),
            Some(MetricValue::Missing)
        );
        assert_eq!(value(1, "dram__bytes_read.sum"), Some(MetricValue::Missing));
        assert_eq!(
            value(1, "gpu__time_duration.sum"),
            Some(MetricValue::Number(1_252_992.0))
        );
        let warnings: Vec<String> = export.warnings.iter().map(ToString::to_string).collect();
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("line 3: gpu__time_duration.sum is negative")),
            "{warnings:?}"
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with("line 4: dram__bytes_read.sum is out of range")),
            "{warnings:?}"
        );
    }

    #[test]
    fn a_warning_in_a_file_names_the_file_then_the_line() {
        let w = Warning {
            line: Some(50),
            message: "the last row is cut off (truncated export); skipped".into(),
        };
        let named = w.in_file("cut.csv");
        assert_eq!(named.line, None);
        assert_eq!(
            named.to_string(),
            "cut.csv: line 50: the last row is cut off (truncated export); skipped"
        );
    }

    #[test]
    fn a_raw_page_without_its_units_row_is_refused() {
        let lines = csv_lines();
        let text = format!("==PROF== x\n{}\n{}\n{}\n", lines[0], lines[2], lines[3]);
        let err = read_export(text.as_bytes()).expect_err("refused");
        assert_eq!(err, NcuError::NoUnitsRow { line: 3, header: 2 });
        assert!(err.to_string().starts_with("line 3: no units row"), "{err}");
    }
}
