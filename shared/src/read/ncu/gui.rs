//! Reader of the Nsight Compute GUI's two-column export of one result's raw page.
//!
//! After a byte-order mark, each line is one field, `name [unit],value`
//! (`gpu__time_duration.sum [us],741.86`). Identity fields without a unit come first (`ID`,
//! `Function Name`, `Demangled Name`, `Grid Size` as `"16384,    2,    1"`, ...); `breakdown:`
//! lines list metric names and are kept as text, never read as numbers. Fields the launch
//! model has no slot for (`Device Name`) are kept as metrics under their own name. A further
//! `ID` line starts another launch, so an export of several results also loads; one that
//! comes before any metric of the launch its `ID` started is a warning (that launch's lines
//! would be dropped for the next's). A line of more than two comma-separated fields (a
//! value with a comma ncu would have quoted) is read with its fields joined, with a
//! warning.

use std::borrow::Cow;
use std::sync::Arc;

use crate::error::NcuError;
use crate::model::artifact::{LaunchCounters, Metric, MetricValue};

use super::ident::{parse_dim3, parse_u64};
use super::lines::Header;
use super::records::Record;
use super::rows::{PageReader, RowInfo, Warnings};
use super::units::{is_known_unit, normalize_unit};
use super::value::{classify, to_value};

/// Splits `name [unit]` into its name and unit; a name without brackets has no unit.
pub fn split_unit(field: &str) -> (&str, &str) {
    let field = field.trim();
    if let Some(inside) = field.strip_suffix(']') {
        if let Some(open) = inside.rfind('[') {
            let name = inside.get(..open).unwrap_or_default().trim_end();
            let unit = inside.get(open + 1..).unwrap_or_default().trim();
            if !name.is_empty() {
                return (name, unit);
            }
        }
    }
    (field, "")
}

/// The launch being filled and whether it has anything in it yet.
struct Current {
    launch: LaunchCounters,
    /// Its metrics, stored at the end in one go (one by one, each copied the row).
    metrics: Vec<(String, Metric)>,
    has_id: bool,
    /// The line of its `ID`.
    id_line: u64,
}

impl Current {
    fn new() -> Self {
        Current {
            launch: LaunchCounters::default(),
            metrics: Vec::new(),
            has_id: false,
            id_line: 0,
        }
    }

    /// The launch, if it holds any measurement.
    fn finish(self) -> Option<LaunchCounters> {
        let mut launch = self.launch;
        launch.metrics.insert_all(self.metrics);
        if launch.function.is_empty() {
            if let Some(demangled) = &launch.site.demangled {
                launch.function = Arc::clone(demangled);
            }
        }
        (!launch.metrics.is_empty()).then_some(launch)
    }
}

/// The reader of the lines of a GUI export, starting with its first (`ID`) line: each
/// launch is handed on when the next `ID` line comes, the last one at the end.
pub struct Page {
    delimiter: u8,
    current: Current,
}

impl Page {
    /// A reader of the lines under `header` (the first line).
    pub fn new(header: &Header) -> Page {
        Page {
            delimiter: header.delimiter,
            current: Current::new(),
        }
    }
}

impl PageReader for Page {
    #[expect(
        clippy::too_many_lines,
        reason = "the per-row path of the GUI export reader: a row's cells read in one pass with the page's state at hand, rather than handed between helpers"
    )]
    fn row(
        &mut self,
        record: &Record,
        row: RowInfo,
        warnings: &mut Warnings,
        emit: &mut dyn FnMut(LaunchCounters),
    ) -> Result<(), NcuError> {
        let current = &mut self.current;
        if row.truncated {
            warnings.push(
                Some(row.line),
                "the last line is cut off (truncated export); skipped",
            );
            return Ok(());
        }
        let field = String::from_utf8_lossy(record.get(0).unwrap_or_default());
        let (name, unit) = split_unit(&field);
        if name.is_empty() {
            warnings.push(Some(row.line), "line has no field name; skipped");
            return Ok(());
        }
        if field.contains('\n') {
            // ncu writes one `name,value` per line: a name over several lines is a quote
            // left open, which swallowed the lines up to the next quote.
            let newlines: usize = record
                .iter()
                .map(|f| f.iter().filter(|&&b| b == b'\n').count())
                .sum();
            warnings.push(
                Some(row.line),
                format!(
                    "a quote opened here is not closed until line {}: \"{}\" is no field \
                     name; lines {} to {} skipped",
                    row.line + newlines as u64,
                    crate::text::escape::one_line(&field, 60),
                    row.line,
                    row.line + newlines as u64
                ),
            );
            return Ok(());
        }
        if record.len() < 2 {
            // Every line of the export is `name,value`: without the comma it is no metric.
            warnings.push(
                Some(row.line),
                format!(
                    "line {:?} has no value (no `,` after the field name); skipped",
                    crate::text::escape::one_line(&field, 80)
                ),
            );
            return Ok(());
        }
        // An unquoted value with commas in it spans several CSV fields: join them back,
        // and say so (ncu quotes such values: `"16384,    2,    1"`).
        let value: Cow<[u8]> = if record.len() <= 2 {
            Cow::Borrowed(record.get(1).unwrap_or_default())
        } else {
            let parts: Vec<&[u8]> = record.iter().skip(1).collect();
            let joined = parts.join(&self.delimiter);
            warnings.push(
                Some(row.line),
                format!(
                    "{:?} has {} comma-separated values where ncu writes one (quoted when it \
                     holds a comma); read as {:?}",
                    crate::text::escape::one_line(name, 80),
                    parts.len(),
                    crate::text::escape::one_line(&String::from_utf8_lossy(&joined), 80)
                ),
            );
            Cow::Owned(joined)
        };
        let value = value.trim_ascii();
        let text = || {
            let t = value.trim_ascii();
            (!t.is_empty()).then(|| String::from_utf8_lossy(t).into_owned())
        };
        let launch = &mut current.launch;
        match name {
            "ID" => {
                if current.has_id {
                    let done = std::mem::replace(current, Current::new());
                    let (first, first_line) = (done.launch.id, done.id_line);
                    match done.finish() {
                        Some(launch) => emit(launch),
                        None => warnings.push(
                            Some(row.line),
                            format!(
                                "a second ID line before any metric of the launch of ID \
                                 {first} (line {first_line}): that launch has no measurement \
                                 and its lines {first_line} to {} are dropped; a new launch \
                                 starts here",
                                row.line - 1
                            ),
                        ),
                    }
                }
                current.has_id = true;
                current.id_line = row.line;
                match parse_u64(value) {
                    Some(id) => current.launch.id = id,
                    None => warnings.push(
                        Some(row.line),
                        format!(
                            "launch ID {:?} is not a number; 0 used",
                            String::from_utf8_lossy(value)
                        ),
                    ),
                }
            }
            "Process ID" => launch.site_mut().process_id = parse_u64(value),
            "Process Name" => launch.site_mut().process_name = text().map(Arc::from),
            "Host Name" => launch.site_mut().host = text().map(Arc::from),
            "Function Name" | "Kernel Name" => launch.function = text().unwrap_or_default().into(),
            "Demangled Name" => launch.site_mut().demangled = text().map(Arc::from),
            "Context" => launch.site_mut().context = parse_u64(value),
            "Stream" => launch.site_mut().stream = parse_u64(value),
            "Device" => {
                launch.site_mut().device = parse_u64(value).and_then(|d| u32::try_from(d).ok())
            }
            "CC" => launch.site_mut().cc = text().map(Arc::from),
            "Grid Size" => launch.site_mut().grid = text().and_then(|t| parse_dim3(&t)),
            "Block Size" => launch.site_mut().block = text().and_then(|t| parse_dim3(&t)),
            _ if name.starts_with("breakdown:") => {
                // Lists metric names: text, never a number.
                let value = text().map_or(MetricValue::Missing, MetricValue::Text);
                current.metrics.push((
                    name.to_owned(),
                    Metric {
                        unit: unit.to_owned(),
                        value,
                    },
                ));
            }
            _ if !is_known_unit(unit) => {
                warnings.unknown_unit(name, unit.as_bytes(), row.line);
                current.metrics.push((
                    name.to_owned(),
                    Metric {
                        unit: unit.to_owned(),
                        value: MetricValue::Missing,
                    },
                ));
            }
            _ => {
                let scale = normalize_unit(unit);
                let cell = classify(value, &scale);
                warnings.check_cell(name, &cell, value, &scale, row.line);
                current.metrics.push((
                    name.to_owned(),
                    Metric {
                        unit: scale.unit,
                        value: to_value(value, cell),
                    },
                ));
            }
        }
        Ok(())
    }

    fn end(&mut self, emit: &mut dyn FnMut(LaunchCounters)) {
        if let Some(launch) = std::mem::replace(&mut self.current, Current::new()).finish() {
            emit(launch);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_units() {
        assert_eq!(
            split_unit("gpu__time_duration.sum [us]"),
            ("gpu__time_duration.sum", "us")
        );
        assert_eq!(split_unit("ID"), ("ID", ""));
        assert_eq!(split_unit("x []"), ("x", ""));
        assert_eq!(split_unit("[us]"), ("[us]", ""));
        assert_eq!(split_unit("a]"), ("a]", ""));
    }
}
