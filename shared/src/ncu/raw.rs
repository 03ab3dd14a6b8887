//! Reader of `ncu --csv --page raw`: one row per launch, one column per metric.
//!
//! The header names the columns (11 identity columns, then the metrics), the row under it
//! gives each metric's unit (empty cells under the identity columns), and every further row
//! is one launch. Units are worked out once per column; each launch's metrics are built in
//! sorted name order, so filling its `BTreeMap` is a linear bulk build even with the 2,200
//! columns of a full-set export.

use std::io::Read;

use crate::artifact::{LaunchCounters, Metric};
use crate::error::NcuError;

use super::ident::{IdColumns, ID_COLUMNS};
use super::lines::Header;
use super::rows::{for_each_row, Parser, Warnings};
use super::units::{normalize_unit, UnitScale};
use super::value::{classify, to_value, Cell};

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

/// Reads the rows after a raw-page header.
pub fn read<R: Read>(
    parser: &mut Parser<R>,
    header: &Header,
    warnings: &mut Warnings,
) -> Result<Vec<LaunchCounters>, NcuError> {
    let ids = IdColumns::from_header(&header.fields);
    let width = header.fields.len();
    let mut columns = metric_columns(header, warnings);
    let mut launches = Vec::new();
    let mut first_row = true;
    for_each_row(parser, |record, row| {
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
            return Ok(());
        }
        let mut launch = match ids.launch(record) {
            Ok(launch) => launch,
            Err(why) => {
                warnings.push(Some(row.line), format!("{why}; row skipped"));
                return Ok(());
            }
        };
        let mut metrics = Vec::with_capacity(columns.len());
        for column in &columns {
            let text = record.get(column.index).unwrap_or_default();
            let cell = classify(text, &column.scale);
            if cell == Cell::NonFinite {
                warnings.non_finite(&column.name, text, row.line);
            }
            metrics.push((
                column.name.clone(),
                Metric {
                    unit: column.scale.unit.clone(),
                    value: to_value(text, cell),
                },
            ));
        }
        // Already sorted and unique: the map is bulk-built in linear time.
        launch.metrics = metrics.into_iter().collect();
        launches.push(launch);
        Ok(())
    })?;
    Ok(launches)
}
