//! The base unit of a metric, by name: a report file stores values without unit names, so
//! the reader labels them the way ncu's own CSV export does.
//!
//! The values in a report are already in base units (ns, byte, hz, byte/s): every value of
//! the `--set full` fixtures equals its `--print-units base` CSV cell, so no number is
//! converted. Only the label is looked up, in `metric_units.txt`, which `metric_units.py`
//! writes from the units row of such an export. The table gives a counter's unit
//! (`dram__bytes.*  byte`), from which its rollups and rates follow by [`derive()`]
//! (`dram__bytes.sum.per_second` is `byte/s`), and full names where ncu says otherwise. A
//! metric the table does not know gets no unit (as ncu prints many), so a report of another
//! chip may show fewer units than its CSV export; its numbers are the same.
//!
//! A few `derived__*` metrics have a unit that depends on the section set that defined them
//! (`derived__smsp__sass_thread_inst_executed_op_ffma_pred_on_x2` is `thread` in `--set full`
//! and `inst` in `--set roofline`); the table follows the full set.

use std::collections::HashMap;

/// The table, as `metric_units.py` wrote it.
const TABLE: &str = include_str!("metric_units.txt");

/// The rollups that split a metric name into counter and submetric.
const ROLLUPS: [&str; 4] = ["sum", "avg", "max", "min"];

/// A metric name split at its rollup: `dram__bytes.sum.per_second` is counter `dram__bytes`
/// and submetric `per_second`; `None` for a name without a rollup (`launch__grid_size`).
fn split(name: &str) -> Option<(&str, &str)> {
    let mut start = 0;
    let mut first = true;
    for part in name.split('.') {
        let end = start + part.len();
        if !first && ROLLUPS.contains(&part) {
            let counter = name.get(..start.saturating_sub(1))?;
            let sub = name.get(end + 1..).unwrap_or("");
            return Some((counter, sub));
        }
        first = false;
        start = end + 1;
    }
    None
}

/// The unit of `COUNTER.ROLLUP.sub` given the counter's unit: the rollup keeps it, a
/// percentage of peak is `%`, a rate per second divides by `s` (cycles per second are `hz`),
/// a rate per cycle divides by `cycle`; a counter without a unit has none in any form.
pub fn derive(unit: &str, sub: &str) -> String {
    match sub {
        "" => unit.to_owned(),
        _ if sub.starts_with("pct_of_peak") => "%".to_owned(),
        "per_second" | "peak_sustained_elapsed.per_second" => match unit {
            "" => String::new(),
            "cycle" => "hz".to_owned(),
            _ => format!("{unit}/s"),
        },
        "per_cycle_elapsed" | "per_cycle_active" | "peak_sustained" => match unit {
            "" => String::new(),
            _ => format!("{unit}/cycle"),
        },
        _ => String::new(),
    }
}

/// Metric units by name, parsed once from the table.
pub struct UnitTable {
    exact: HashMap<&'static str, &'static str>,
    counters: HashMap<&'static str, &'static str>,
}

impl UnitTable {
    /// The embedded table.
    pub fn new() -> Self {
        let mut exact = HashMap::new();
        let mut counters = HashMap::new();
        for line in TABLE.lines() {
            if line.starts_with('#') || line.is_empty() {
                continue;
            }
            let (key, unit) = line.split_once('\t').unwrap_or((line, ""));
            match key.strip_suffix(".*") {
                Some(counter) => counters.insert(counter, unit),
                None => exact.insert(key, unit),
            };
        }
        UnitTable { exact, counters }
    }

    /// The base unit of `name`, as ncu's CSV export prints it with `--print-units base`
    /// (empty where it prints none or the table does not know the metric).
    pub fn unit(&self, name: &str) -> String {
        if let Some(unit) = self.exact.get(name) {
            return (*unit).to_owned();
        }
        match split(name) {
            Some((_, sub)) if sub.starts_with("pct_of_peak") => derive("", sub),
            Some((counter, sub)) => self
                .counters
                .get(counter)
                .map_or_else(String::new, |unit| derive(unit, sub)),
            None => String::new(),
        }
    }
}

impl Default for UnitTable {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_at_their_rollup() {
        let cases = [
            (
                "dram__bytes.sum.per_second",
                Some(("dram__bytes", "per_second")),
            ),
            ("dram__bytes.sum", Some(("dram__bytes", ""))),
            (
                "TPC.TriageCompute.sm__cycles_active.avg",
                Some(("TPC.TriageCompute.sm__cycles_active", "")),
            ),
            (
                "sm__ops.avg.peak_sustained_elapsed.per_second",
                Some(("sm__ops", "peak_sustained_elapsed.per_second")),
            ),
            ("launch__grid_size", None),
            ("sum.x", None),
            ("smsp__x.ratio", None),
        ];
        for (name, want) in cases {
            assert_eq!(split(name), want, "{name}");
        }
    }

    #[test]
    fn units_follow_the_counter_and_the_table() {
        let table = UnitTable::new();
        let cases = [
            ("dram__bytes.sum", "byte"),
            ("dram__bytes.sum.per_second", "byte/s"),
            ("dram__bytes.sum.pct_of_peak_sustained_elapsed", "%"),
            ("gpu__time_duration.sum", "ns"),
            ("sm__cycles_elapsed.avg.per_second", "hz"),
            ("smsp__inst_executed.avg.per_cycle_active", "inst/cycle"),
            ("launch__grid_size", ""),
            ("launch__registers_per_thread", "register/thread"),
            ("no_such__counter.sum", ""),
            ("no_such__counter.sum.pct_of_peak_sustained_active", "%"),
        ];
        for (name, want) in cases {
            assert_eq!(table.unit(name), want, "{name}");
        }
    }
}
