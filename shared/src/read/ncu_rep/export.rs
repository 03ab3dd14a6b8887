//! Profile results as the launches the CSV reader makes of the same report's raw page
//! (`ncu --import R --csv --page raw`), so both feed [`crate::analysis::merge`] alike.
//!
//! The raw page has one column per metric of the result except the `breakdown:` and
//! `group:` lists (which only the GUI shows), each labelled with its base unit (see
//! [`super::units`]). Its identity columns come from the result and its process: `ID` is
//! the result's place in the report, `Kernel Name` the demangled name (the function name
//! for `extern "C"` kernels), `Device` and `CC` the `launch__device_id` and
//! `device__attribute_compute_capability_*` metrics. Values go through the same rules as
//! CSV cells: numbers no measurement can have are stored as missing with a warning
//! ([`crate::model::range`]), and text is classified as a cell would be (empty is missing).

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::artifact::{
    LaunchCounters, LaunchSite, List, MetricColumns, MetricKey, MetricValue, Metrics, SharedText,
    SiteInterner,
};
use crate::model::range::{self, OutOfRange};
use crate::read::ncu::units::UnitScale;
use crate::read::ncu::value::{classify, to_value, Cell};
use crate::read::ncu::Warning;

use super::report::{Entry, ProfileResult, ResultValue};
use super::strings::StringTable;
use super::units::UnitTable;

/// Name prefixes of the metric lists the CLI's raw page leaves out.
const NOT_ON_RAW_PAGE: [&str; 2] = ["breakdown:", "group:"];

/// What the converter knows about each string of one table (and of the versions of it the
/// table extends: see [`StringTable`]).
#[derive(Clone)]
struct TableInfo {
    table: Arc<StringTable>,
    /// Base unit of each string as a metric name.
    unit: Vec<String>,
    /// Whether the raw page has the metric.
    kept: Vec<bool>,
}

impl TableInfo {
    fn new(table: Arc<StringTable>, units: &UnitTable) -> Self {
        let mut info = TableInfo {
            table: Arc::clone(&table),
            unit: Vec::new(),
            kept: Vec::new(),
        };
        info.extend_to(table, units);
        info
    }

    /// Takes in `table`, an extension of this one's table: the strings past those known.
    fn extend_to(&mut self, table: Arc<StringTable>, units: &UnitTable) {
        for s in table.iter_from(self.kept.len()) {
            let kept = !NOT_ON_RAW_PAGE.iter().any(|p| s.starts_with(p));
            self.kept.push(kept);
            self.unit
                .push(if kept { units.unit(s) } else { String::new() });
        }
        self.table = table;
    }
}

/// Why a value was stored as missing.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Dropped {
    NonFinite,
    Out(OutOfRange),
}

/// Repeated dropped values of one metric, for one reason.
struct DroppedValues {
    name: String,
    why: Dropped,
    shown: String,
    first_result: u64,
    count: u64,
}

/// Turns profile results into launches, sharing metric columns between launches with the
/// same metrics.
#[derive(Default)]
pub struct Converter {
    units: UnitTable,
    info: Option<Arc<TableInfo>>,
    /// The kept metrics' name indices of the last result in file order, and their places
    /// in it in the raw page's column order (by name, the last of a name given twice).
    last_order: Option<(Vec<u32>, Vec<u32>)>,
    last_columns: Option<(Vec<u32>, Arc<MetricColumns>)>,
    dropped: Vec<DroppedValues>,
    dropped_index: HashMap<(String, Dropped), usize>,
    /// The last launch's process name, host, compute capability and kernel name, shared by
    /// the next.
    texts: [SharedText; 4],
    /// One copy of each launch site.
    sites: SiteInterner,
}

impl Converter {
    /// What the converter knows about `table`, worked out once per table, and for an
    /// extension of the last table only for the strings it adds (worked out again for the
    /// whole table on each extension, a report whose blocks each extend it was quadratic:
    /// issue 39).
    fn info(&mut self, table: &Arc<StringTable>) -> Arc<TableInfo> {
        match &mut self.info {
            Some(info) if Arc::ptr_eq(&info.table, table) => Arc::clone(info),
            Some(info)
                if info.table.lineage() == table.lineage() && info.table.len() <= table.len() =>
            {
                // In place: the last call's handle is gone by now.
                Arc::make_mut(info).extend_to(Arc::clone(table), &self.units);
                Arc::clone(info)
            }
            _ => {
                self.last_columns = None;
                self.last_order = None;
                let info = Arc::new(TableInfo::new(Arc::clone(table), &self.units));
                self.info = Some(Arc::clone(&info));
                info
            }
        }
    }

    /// The places in `result`'s metrics of the raw page's columns, in its column order: by
    /// name (then string index), of a name index given twice the last.
    fn order(&mut self, info: &TableInfo, result: &ProfileResult) -> Vec<u32> {
        let names: Vec<u32> = result
            .metrics
            .iter()
            .map(|e| e.name)
            .filter(|&n| info.kept.get(n as usize).copied().unwrap_or(false))
            .collect();
        if let Some((last, order)) = &self.last_order {
            if *last == names {
                return order.clone();
            }
        }
        let mut order: Vec<(&str, u32, u32)> = result
            .metrics
            .iter()
            .enumerate()
            .filter(|(_, e)| info.kept.get(e.name as usize).copied().unwrap_or(false))
            .map(|(pos, e)| {
                (
                    info.table.get(u64::from(e.name)).unwrap_or_default(),
                    e.name,
                    pos as u32,
                )
            })
            .collect();
        crate::order::sort(&mut order);
        let mut positions: Vec<u32> = Vec::with_capacity(order.len());
        for (i, &(_, name, pos)) in order.iter().enumerate() {
            let next_same = order.get(i + 1).is_some_and(|&(_, n, _)| n == name);
            if !next_same {
                positions.push(pos);
            }
        }
        self.last_order = Some((names, positions.clone()));
        positions
    }

    /// The launch of `result`, as the raw page's row of it reads.
    pub fn launch(&mut self, result: &ProfileResult) -> LaunchCounters {
        let info = self.info(&result.strings);
        let positions = self.order(&info, result);
        let entries: Vec<&Entry> = positions
            .iter()
            .filter_map(|&p| result.metrics.get(p as usize))
            .collect();
        let names: Vec<u32> = entries.iter().map(|e| e.name).collect();
        let columns = match &self.last_columns {
            Some((last, columns)) if *last == names => Arc::clone(columns),
            _ => {
                let keys = names
                    .iter()
                    .map(|&n| MetricKey {
                        name: info.table.get(u64::from(n)).unwrap_or_default().to_owned(),
                        unit: info.unit.get(n as usize).cloned().unwrap_or_default(),
                    })
                    .collect();
                let columns = MetricColumns::new(keys);
                self.last_columns = Some((names, Arc::clone(&columns)));
                columns
            }
        };
        let mut metrics = Metrics::with_columns(Arc::clone(&columns));
        let mut dropped = Vec::new();
        for (i, (entry, key)) in entries.iter().zip(columns.keys()).enumerate() {
            let (value, why) = value_of(&entry.value, &key.unit);
            if let Some(why) = why {
                dropped.push((key.name.clone(), why, shown(&entry.value, &key.unit)));
            }
            metrics.set(i, value);
        }
        for (name, why, text) in dropped {
            self.note_dropped(name, why, text, result.index);
        }
        let number = |name: &str| metrics.number(name).filter(|v| *v >= 0.0);
        let cc = match (
            number(crate::model::counters::CC_MAJOR.name),
            number(crate::model::counters::CC_MINOR.name),
        ) {
            (Some(major), Some(minor)) => Some(format!("{major}.{minor}")),
            _ => None,
        };
        let device = number(crate::model::counters::LAUNCH_DEVICE_ID.name)
            .and_then(|d| u32::try_from(d as u64).ok());
        let site = LaunchSite {
            process_id: result.process.id,
            process_name: result.process.name().map(|t| self.texts[0].of(t)),
            host: result.process.host.as_deref().map(|t| self.texts[1].of(t)),
            device,
            cc: cc.map(|t| self.texts[2].of(&t)),
            context: result.context,
            stream: result.stream,
            demangled: None,
            grid: result.grid,
            block: result.block,
            nvtx: result.nvtx.clone().map(Arc::new),
        };
        LaunchCounters {
            id: result.index,
            site: self.sites.of(site),
            function: self.texts[3].of(result.names.display()),
            metrics,
            sections: List::new(),
            rules: result.rules.clone().into(),
            sampled_from: None,
        }
    }

    fn note_dropped(&mut self, name: String, why: Dropped, shown: String, result: u64) {
        let key = (name, why);
        match self.dropped_index.get(&key) {
            Some(&i) => {
                if let Some(d) = self.dropped.get_mut(i) {
                    d.count += 1;
                }
            }
            None => {
                self.dropped_index.insert(key.clone(), self.dropped.len());
                self.dropped.push(DroppedValues {
                    name: key.0,
                    why,
                    shown,
                    first_result: result,
                    count: 1,
                });
            }
        }
    }

    /// One warning per metric and reason of the values stored as missing.
    pub fn warnings(&self) -> Vec<Warning> {
        self.dropped
            .iter()
            .map(|d| {
                let why = match d.why {
                    Dropped::NonFinite => "not a finite number",
                    Dropped::Out(o) => o.reason(),
                };
                let more = match d.count {
                    1 => String::new(),
                    n => format!(" ({n} results, the first here)"),
                };
                Warning {
                    line: None,
                    message: format!(
                        "result {}: {} is {why} ({}); kept as missing{more}",
                        d.first_result, d.name, d.shown
                    ),
                }
            })
            .collect()
    }
}

/// A value as the warnings show it.
fn shown(value: &ResultValue, unit: &str) -> String {
    let text = match value {
        ResultValue::Double(v) => v.to_string(),
        ResultValue::Uint(v) => v.to_string(),
        ResultValue::Text(t) => format!("{t:?}"),
        ResultValue::Absent => String::new(),
    };
    if unit.is_empty() {
        text
    } else {
        format!("{text} {unit}")
    }
}

/// The stored value of a result value in `unit`, and why it was dropped if it was.
fn value_of(value: &ResultValue, unit: &str) -> (MetricValue, Option<Dropped>) {
    let number = |v: f64| {
        if !v.is_finite() {
            return (MetricValue::Missing, Some(Dropped::NonFinite));
        }
        match range::check(unit, v) {
            Some(why) => (MetricValue::Missing, Some(Dropped::Out(why))),
            None => (MetricValue::Number(v), None),
        }
    };
    match value {
        ResultValue::Double(v) => number(*v),
        ResultValue::Uint(v) => number(*v as f64),
        ResultValue::Text(t) => {
            let cell = classify(t.as_bytes(), &UnitScale::identity(unit));
            let why = match cell {
                Cell::NonFinite => Some(Dropped::NonFinite),
                Cell::OutOfRange(o) => Some(Dropped::Out(o)),
                _ => None,
            };
            (to_value(t.as_bytes(), cell), why)
        }
        ResultValue::Absent => (MetricValue::Missing, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_follow_the_csv_cell_rules() {
        let cases: Vec<(ResultValue, &str, MetricValue, bool)> = vec![
            (
                ResultValue::Double(2.5),
                "ns",
                MetricValue::Number(2.5),
                false,
            ),
            (
                ResultValue::Double(f64::NAN),
                "",
                MetricValue::Missing,
                true,
            ),
            (
                ResultValue::Double(-1.0),
                "byte",
                MetricValue::Missing,
                true,
            ),
            (
                ResultValue::Double(-0.01),
                "%",
                MetricValue::Number(-0.01),
                false,
            ),
            (ResultValue::Double(1e31), "", MetricValue::Missing, true),
            (
                ResultValue::Uint(4_294_976_256),
                "byte",
                MetricValue::Number(4_294_976_256.0),
                false,
            ),
            (
                ResultValue::Text("PolicySpread".into()),
                "",
                MetricValue::Text("PolicySpread".into()),
                false,
            ),
            (
                ResultValue::Text(String::new()),
                "",
                MetricValue::Missing,
                false,
            ),
            (
                ResultValue::Text("nan".into()),
                "",
                MetricValue::Missing,
                true,
            ),
            (ResultValue::Absent, "byte", MetricValue::Missing, false),
        ];
        for (raw, unit, want, dropped) in cases {
            let (got, why) = value_of(&raw, unit);
            assert_eq!(got, want, "{raw:?} {unit}");
            assert_eq!(why.is_some(), dropped, "{raw:?} {unit}");
        }
    }
}
