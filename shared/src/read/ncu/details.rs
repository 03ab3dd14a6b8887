//! Reader of `ncu --csv --page details`: one row per section metric, plus rule rows.
//!
//! Each row repeats the launch's identity columns, then `Section Name`, `Metric Name`,
//! `Metric Unit`, `Metric Value` and the rule columns. A row with a metric name is a
//! [`SectionMetric`]; a row with no metric name but a rule name is a [`RuleResult`] (its
//! `Section Name` is the section identifier, `SpeedOfLight`). Adjacent rows of the same launch (same
//! process and launch ID) gather into one [`LaunchCounters`], in file order, handed on when a
//! row of another launch comes (`read_export` joins the pieces of a launch whose rows are
//! not adjacent). Metric rows end
//! after `Metric Value` (ncu leaves the rule columns out), so only the columns up to the
//! value are required.

use std::collections::{HashMap, HashSet};

use super::records::Record;

use crate::error::NcuError;
use crate::model::artifact::{LaunchCounters, MetricValue, RuleResult, SectionMetric};

use super::ident::IdColumns;
use super::lines::Header;
use super::rows::{PageReader, RowInfo, Warnings};
use super::sections::is_known_section;
use super::units::{is_known_unit, normalize_unit, UnitScale};
use super::value::{classify, parse_number, to_value, Cell};

/// Where the details columns are.
struct Columns {
    section: usize,
    metric: usize,
    unit: usize,
    value: usize,
    rule_name: Option<usize>,
    rule_type: Option<usize>,
    rule_description: Option<usize>,
    speedup_type: Option<usize>,
    speedup: Option<usize>,
}

impl Columns {
    fn from_header(fields: &[String]) -> Option<Self> {
        let find = |name: &str| fields.iter().position(|f| f == name);
        Some(Columns {
            section: find("Section Name")?,
            metric: find("Metric Name")?,
            unit: find("Metric Unit")?,
            value: find("Metric Value")?,
            rule_name: find("Rule Name"),
            rule_type: find("Rule Type"),
            rule_description: find("Rule Description"),
            speedup_type: find("Estimated Speedup Type"),
            speedup: find("Estimated Speedup"),
        })
    }

    /// Fields a metric row needs.
    fn required(&self) -> usize {
        1 + self.section.max(self.metric).max(self.unit).max(self.value)
    }
}

fn cell(record: &Record, column: Option<usize>) -> &[u8] {
    column
        .and_then(|c| record.get(c))
        .unwrap_or_default()
        .trim_ascii()
}

fn text(cell: &[u8]) -> String {
    String::from_utf8_lossy(cell).into_owned()
}

/// The reader of the rows after a details-page header: each launch is handed on when the
/// next row belongs to another launch, the last one at the end.
pub struct Page {
    ids: IdColumns,
    columns: Columns,
    required: usize,
    /// The launch whose rows are being read, with its key.
    current: Option<((Option<u64>, u64), LaunchCounters)>,
    units: HashMap<Vec<u8>, UnitScale>,
    unknown_sections: HashSet<String>,
}

impl Page {
    /// A reader of the rows under `header`.
    ///
    /// # Errors
    ///
    /// [`NcuError::NotAnExport`] when the header lacks a details page's columns.
    pub fn new(header: &Header) -> Result<Page, NcuError> {
        let columns =
            Columns::from_header(&header.fields).ok_or_else(|| NcuError::NotAnExport {
                line: header.line,
                found: "a details header without Section Name, Metric Name, Metric Unit and \
                        Metric Value columns"
                    .to_owned(),
            })?;
        Ok(Page {
            ids: IdColumns::from_header(&header.fields),
            required: columns.required(),
            columns,
            current: None,
            units: HashMap::new(),
            unknown_sections: HashSet::new(),
        })
    }
}

impl PageReader for Page {
    #[expect(
        clippy::too_many_lines,
        reason = "the per-row path of the details reader: a row's cells read in one pass with the page's state at hand, rather than handed between helpers"
    )]
    fn row(
        &mut self,
        record: &Record,
        row: RowInfo,
        warnings: &mut Warnings,
        emit: &mut dyn FnMut(LaunchCounters),
    ) -> Result<(), NcuError> {
        let Page {
            ids,
            columns,
            required,
            current,
            units,
            unknown_sections,
        } = self;
        let required = *required;
        if row.truncated {
            warnings.push(
                Some(row.line),
                "the last row is cut off (truncated export); skipped",
            );
            return Ok(());
        }
        if record.len() < required {
            let why = if row.is_last {
                " (truncated export)"
            } else {
                ""
            };
            warnings.push(
                Some(row.line),
                format!(
                    "row has {} fields, a details row needs {required}{why}; skipped",
                    record.len()
                ),
            );
            return Ok(());
        }
        let key = match ids.key(record) {
            Ok(key) => key,
            Err(why) => {
                warnings.push(Some(row.line), format!("{why}; row skipped"));
                return Ok(());
            }
        };
        let section = text(cell(record, Some(columns.section)));
        let metric = cell(record, Some(columns.metric));
        let rule_name = cell(record, columns.rule_name);
        if metric.is_empty() && rule_name.is_empty() {
            warnings.push(
                Some(row.line),
                "row has neither a metric name nor a rule name; skipped",
            );
            return Ok(());
        }
        if !section.is_empty()
            && !is_known_section(&section)
            && !unknown_sections.contains(&section)
        {
            warnings.push(
                Some(row.line),
                format!("unknown section {section:?}; its rows are loaded as they are"),
            );
            unknown_sections.insert(section.clone());
        }
        if current.as_ref().map(|(k, _)| *k) != Some(key) {
            // Identity fields come from the launch's first row.
            let line = row.line;
            let mut warn = |why: String| warnings.push(Some(line), why);
            let launched = ids.launch(record, &mut warn);
            let launch = match launched {
                Ok(launch) => launch,
                Err(why) => {
                    warnings.push(Some(row.line), format!("{why}; row skipped"));
                    return Ok(());
                }
            };
            if let Some((_, done)) = current.replace((key, launch)) {
                emit(done);
            }
        }
        let Some((_, launch)) = current.as_mut() else {
            return Ok(());
        };
        if metric.is_empty() {
            let speedup_type = cell(record, columns.speedup_type);
            launch.rules.push(RuleResult {
                section,
                name: text(rule_name),
                kind: text(cell(record, columns.rule_type)),
                title: None,
                description: text(cell(record, columns.rule_description)),
                speedup_type: (!speedup_type.is_empty()).then(|| text(speedup_type)),
                speedup_pct: parse_number(cell(record, columns.speedup), 0)
                    .filter(|v| v.is_finite()),
                focus_metrics: Vec::new(),
            });
            return Ok(());
        }
        let unit = cell(record, Some(columns.unit));
        if !units.contains_key(unit) {
            units.insert(
                unit.to_vec(),
                normalize_unit(&String::from_utf8_lossy(unit)),
            );
        }
        let Some(scale) = units.get(unit) else {
            return Ok(());
        };
        let value_text = cell(record, Some(columns.value));
        let name = text(metric);
        if !is_known_unit(&scale.unit) {
            // Not in base units and not to be put there: a number could be off by any
            // factor.
            let what = format!("{section} / {name}");
            warnings.unknown_unit(&what, unit, row.line);
            launch.sections.push(SectionMetric {
                section,
                name,
                unit: scale.unit.clone(),
                value: MetricValue::Missing,
            });
            return Ok(());
        }
        let value = classify(value_text, scale);
        if !matches!(value, Cell::Number(_) | Cell::Missing) {
            let what = format!("{section} / {name}");
            warnings.check_cell(&what, &value, value_text, scale, row.line);
        }
        launch.sections.push(SectionMetric {
            section,
            name,
            unit: scale.unit.clone(),
            value: to_value(value_text, value),
        });
        Ok(())
    }

    fn end(&mut self, emit: &mut dyn FnMut(LaunchCounters)) {
        if let Some((_, done)) = self.current.take() {
            emit(done);
        }
    }
}
