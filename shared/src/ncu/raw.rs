//! Reader of `ncu --csv --page raw`: one row per launch, one column per metric.
//!
//! The header names the columns (11 identity columns, then the metrics), the row under it
//! gives each metric's unit (empty cells under the identity columns; a page without it is
//! refused, see [`NcuError::NoUnitsRow`]), and every further row is one launch. Units are worked out once per column. Every launch has the same columns,
//! so the names and units are stored once ([`MetricColumns`], shared by every launch) and
//! each row holds only its values: no per-row names, sorting or large temporary buffers,
//! which matters with the 2,200 columns of a full-set export.

use std::sync::Arc;

use crate::artifact::{LaunchCounters, MetricColumns, MetricKey, RowBuilder};
use crate::error::NcuError;

use super::ident::{IdColumns, ID_COLUMNS};
use super::lines::Header;
use super::rows::{for_each_row, RowSource, Warnings};
use super::units::{normalize_unit, UnitScale};
use super::value::{classify_in, classify_plain, plain_number, to_value, Cell};

/// One metric column.
struct Column {
    index: usize,
    name: String,
    scale: UnitScale,
}

/// The metric columns of a header, sorted by name; of duplicated names the last is kept.
fn metric_columns(header: &Header, warnings: &mut Warnings) -> Vec<Column> {
    let mut columns: Vec<Column> = header
        .fields
        .iter()
        .enumerate()
        .filter(|(_, name)| !ID_COLUMNS.contains(&name.as_str()))
        .map(|(index, name)| Column {
            index,
            name: name.clone(),
            scale: UnitScale::identity(""),
        })
        .collect();
    // Stable: columns of the same name stay in file order, so the last one wins below.
    columns.sort_by(|a, b| a.name.cmp(&b.name));
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

/// Reads the rows after a raw-page header, handing each launch to `emit`.
pub fn read(
    rows: &mut RowSource<'_>,
    header: &Header,
    warnings: &mut Warnings,
    emit: &mut dyn FnMut(LaunchCounters),
) -> Result<(), NcuError> {
    let ids = IdColumns::from_header(&header.fields);
    let width = header.fields.len();
    let mut columns = metric_columns(header, warnings);
    let mut first_row = true;
    let mut units_read = false;
    let mut shared: Option<Arc<MetricColumns>> = None;
    for_each_row(rows, |record, row| {
        if row.truncated {
            warnings.push(
                Some(row.line),
                "the last row is cut off (truncated export); skipped",
            );
            return Ok(());
        }
        let is_units_row = first_row && ids.id_cell(record).trim_ascii().is_empty();
        first_row = false;
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
            for column in &mut columns {
                let unit = record.get(column.index).unwrap_or_default();
                column.scale = normalize_unit(&String::from_utf8_lossy(unit));
            }
            units_read = true;
            return Ok(());
        }
        if !units_read {
            // Without units a value cannot be put in base units (is 2.85 a time in ms or
            // ns?), and every figure built on it could be off by a power of ten.
            return Err(NcuError::NoUnitsRow {
                line: row.line,
                header: header.line,
            });
        }
        let mut launch = match ids.launch(record) {
            Ok(launch) => launch,
            Err(why) => {
                warnings.push(Some(row.line), format!("{why}; row skipped"));
                return Ok(());
            }
        };
        // Every launch shares the columns (built once, after the units row) and gets only
        // its own values, in `columns` order.
        let shared = shared.get_or_insert_with(|| shared_columns(&columns));
        let mut metrics = RowBuilder::new(Arc::clone(shared));
        for column in &columns {
            // A plain decimal's digits were read by the splitter; anything else is read here.
            let digits = record.plain_decimal(column.index);
            if let Some(v) = digits.and_then(|(m, f)| plain_number(m, f, &column.scale)) {
                // Nearly every cell: nothing to warn about, no text to keep.
                metrics.push_number(v);
                continue;
            }
            let plain = digits.and_then(|(m, f)| classify_plain(m, f, &column.scale));
            let (tail, len) = record.get_with_tail(column.index).unwrap_or_default();
            match plain.unwrap_or_else(|| classify_in(tail, len, &column.scale)) {
                Cell::Number(v) => metrics.push_number(v),
                cell => {
                    let text = tail.get(..len).unwrap_or_default();
                    warnings.check_cell(&column.name, &cell, text, &column.scale.unit, row.line);
                    metrics.push(to_value(text, cell));
                }
            }
        }
        launch.metrics = metrics.finish();
        emit(launch);
        Ok(())
    })
}
