//! Reader of `ncu --csv --page raw`: one row per launch, one column per metric.
//!
//! The header names the columns (11 identity columns, then the metrics), the row under it
//! gives each metric's unit (empty cells under the identity columns; a page without it is
//! refused, see [`NcuError::NoUnitsRow`]), and every further row is one launch. Units are worked out once per column. Every launch has the same columns,
//! so the names and units are stored once ([`MetricColumns`], shared by every launch) and
//! each row holds only its values: no per-row names, sorting or large temporary buffers,
//! which matters with the 2,200 columns of a full-set export.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use crate::error::NcuError;
use crate::model::artifact::{LaunchCounters, MetricColumns, MetricKey, MetricValue, RowBuilder};

use super::ident::{IdColumns, ID_COLUMNS, NVTX_COLUMNS};
use super::lines::Header;
use super::records::Record;
use super::rows::{PageReader, RowInfo, Warnings};
use super::units::{is_known_unit, normalize_unit, UnitScale};
use super::value::{classify_in, classify_plain, plain_number, to_value, Cell};

/// One metric column.
struct Column {
    index: usize,
    name: String,
    scale: UnitScale,
    /// The unit as written, when this reader does not know it (its values are missing).
    unknown_unit: Option<Vec<u8>>,
}

/// The metric columns of a header, sorted by name; of duplicated names the last is kept.
fn metric_columns(header: &Header, warnings: &mut Warnings) -> Vec<Column> {
    let mut columns: Vec<Column> = header
        .fields
        .iter()
        .enumerate()
        .filter(|(_, name)| {
            let name = name.as_str();
            !ID_COLUMNS.contains(&name) && !NVTX_COLUMNS.contains(&name)
        })
        .map(|(index, name)| Column {
            index,
            name: name.clone(),
            scale: UnitScale::identity(""),
            unknown_unit: None,
        })
        .collect();
    // Stable: columns of the same name stay in file order, so the last one wins below.
    crate::order::sort_by(&mut columns, |a, b| a.name.cmp(&b.name));
    let mut kept: Vec<Column> = Vec::with_capacity(columns.len());
    for column in columns {
        match kept.last_mut() {
            Some(last) if last.name == column.name => {
                warnings.push(
                    Some(header.line),
                    format!(
                        "column {:?} appears more than once; the last one is kept",
                        column.name
                    ),
                );
                *last = column;
            }
            _ => kept.push(column),
        }
    }
    kept
}

/// The shared columns of every launch: names and base units, in `columns` order.
fn shared_columns(columns: &[Column]) -> Arc<MetricColumns> {
    MetricColumns::new(
        columns
            .iter()
            .map(|column| MetricKey {
                name: column.name.clone(),
                unit: column.scale.unit.clone(),
            })
            .collect(),
    )
}

/// A row kept for the later rows of its kind of launch ([`launch_kind`]): a cell whose
/// digits were not read ahead and that has the same text as this row's takes this row's
/// value without being read again. Launches of a kernel repeat most of their cells, and a
/// cell costs more to read than to compare; the result is the same, as the same text in
/// the same column reads as the same number.
struct Reference {
    record: Record,
    /// The row's values in `columns` order (NaN where it had no number).
    values: Vec<f64>,
}

/// Kinds of launch with a [`Reference`] kept, at most (some 60 KB each for a full set).
const MAX_REFERENCES: usize = 256;

/// Whether cell `i` of `record` has the same bytes as cell `i` of `other`: for cells of up
/// to sixteen bytes, nearly all, one masked 128-bit compare, with no call.
#[inline]
fn same_cell(record: &Record, other: &Record, i: usize) -> bool {
    let (Some((a, len)), Some((b, other_len))) = (record.get_with_tail(i), other.get_with_tail(i))
    else {
        return false;
    };
    if len != other_len {
        return false;
    }
    let (Some(a16), Some(b16), true) = (a.first_chunk::<16>(), b.first_chunk::<16>(), len <= 16)
    else {
        return a.get(..len) == b.get(..len);
    };
    // The bytes past the cells are masked off.
    let mask = u128::MAX.checked_shr(8 * (16 - len) as u32).unwrap_or(0);
    (u128::from_le_bytes(*a16) ^ u128::from_le_bytes(*b16)) & mask == 0
}

/// The reader of the rows after a raw-page header: the first is the units row, every
/// further one a launch.
pub struct Page {
    ids: IdColumns,
    width: usize,
    header_line: u64,
    columns: Vec<Column>,
    first_row: bool,
    units_read: bool,
    shared: Option<Arc<MetricColumns>>,
    references: HashMap<u64, Reference>,
}

impl Page {
    /// A reader of the rows under `header`; duplicated columns are warned of here.
    pub fn new(header: &Header, warnings: &mut Warnings) -> Page {
        Page {
            ids: IdColumns::from_header(&header.fields),
            width: header.fields.len(),
            header_line: header.line,
            columns: metric_columns(header, warnings),
            first_row: true,
            units_read: false,
            shared: None,
            references: HashMap::new(),
        }
    }
}

impl PageReader for Page {
    #[expect(
        clippy::too_many_lines,
        reason = "the import's hot path (docs/performance.md): a raw row's cells read in one pass with the page's columns and references at hand, rather than handed between helpers"
    )]
    fn row(
        &mut self,
        record: &Record,
        row: RowInfo,
        warnings: &mut Warnings,
        emit: &mut dyn FnMut(LaunchCounters),
    ) -> Result<(), NcuError> {
        let width = self.width;
        let columns = &mut self.columns;
        if row.truncated {
            warnings.push(
                Some(row.line),
                "the last row is cut off (truncated export); skipped",
            );
            return Ok(());
        }
        let is_units_row = self.first_row && self.ids.id_cell(record).trim_ascii().is_empty();
        self.first_row = false;
        let extra_filled = record
            .iter()
            .skip(width)
            .any(|f| !f.trim_ascii().is_empty());
        if record.len() < width || extra_filled {
            let why = if row.is_last && record.len() < width {
                " (truncated export)"
            } else {
                ""
            };
            warnings.push(
                Some(row.line),
                format!(
                    "row has {} fields, the header {width}{why}; skipped",
                    record.len()
                ),
            );
            return Ok(());
        }
        if is_units_row {
            for column in columns.iter_mut() {
                let unit = record.get(column.index).unwrap_or_default();
                let text = String::from_utf8_lossy(unit);
                column.scale = normalize_unit(&text);
                column.unknown_unit = (!is_known_unit(&text)).then(|| unit.to_vec());
            }
            self.units_read = true;
            return Ok(());
        }
        if !self.units_read {
            // Without units a value cannot be put in base units (is 2.85 a time in ms or
            // ns?), and every figure built on it could be off by a power of ten.
            return Err(NcuError::NoUnitsRow {
                line: row.line,
                header: self.header_line,
            });
        }
        let line = row.line;
        let mut warn = |why: String| warnings.push(Some(line), why);
        let launched = self.ids.launch(record, &mut warn);
        let mut launch = match launched {
            Ok(launch) => launch,
            Err(why) => {
                warnings.push(Some(row.line), format!("{why}; row skipped"));
                return Ok(());
            }
        };
        // Every launch shares the columns (built once, after the units row) and gets only
        // its own values, in `columns` order.
        let shared = self.shared.get_or_insert_with(|| shared_columns(columns));
        let mut metrics = RowBuilder::new(Arc::clone(shared));
        let kind = launch_kind(&launch);
        let reference = self.references.get(&kind);
        // Cells whose digits were not read ahead, and those of them that had the reference's
        // text.
        let (mut unread, mut same) = (0usize, 0usize);
        for (c, column) in columns.iter().enumerate() {
            if let Some(unit) = &column.unknown_unit {
                warnings.unknown_unit(&column.name, unit, row.line);
                metrics.push(MetricValue::Missing);
                continue;
            }
            // A plain decimal's digits were read by the splitter; anything else is read here.
            let digits = record.plain_decimal(column.index);
            if let Some(v) = digits.and_then(|(m, f)| plain_number(m, f, &column.scale)) {
                // Nearly every cell: nothing to warn about, no text to keep.
                metrics.push_number(v);
                continue;
            }
            if let Some(reference) = reference {
                unread += 1;
                let known = reference.values.get(c).copied().filter(|v| v.is_finite());
                if let Some(v) =
                    known.filter(|_| same_cell(record, &reference.record, column.index))
                {
                    same += 1;
                    metrics.push_number(v);
                    continue;
                }
            }
            let plain = digits.and_then(|(m, f)| classify_plain(m, f, &column.scale));
            let (tail, len) = record.get_with_tail(column.index).unwrap_or_default();
            match plain.unwrap_or_else(|| classify_in(tail, len, &column.scale)) {
                Cell::Number(v) => metrics.push_number(v),
                cell => {
                    let text = tail.get(..len).unwrap_or_default();
                    warnings.check_cell(&column.name, &cell, text, &column.scale, row.line);
                    metrics.push(to_value(text, cell));
                }
            }
        }
        // The first row of a kind is kept, and replaced by a row unlike it.
        let keep = match reference {
            None => self.references.len() < MAX_REFERENCES,
            Some(_) => 2 * same < unread,
        };
        if keep {
            let values = metrics.values().to_vec();
            self.references.insert(
                kind,
                Reference {
                    record: record.clone(),
                    values,
                },
            );
        }
        launch.metrics = metrics.finish();
        emit(launch);
        Ok(())
    }

    fn end(&mut self, _emit: &mut dyn FnMut(LaunchCounters)) {}
}

/// What makes launches alike, as a hash: the kernel and its launch shape. Launches of one
/// kind repeat most of their values (a device's attributes, the shape, every counter the
/// same from launch to launch), which the reader uses to store and read them once.
pub(crate) fn launch_kind(launch: &LaunchCounters) -> u64 {
    let mut kind = std::hash::DefaultHasher::new();
    (&launch.function, launch.site.grid, launch.site.block).hash(&mut kind);
    kind.finish()
}
