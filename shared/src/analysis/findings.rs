//! What Nsight Compute's rule engine says about a kernel, ranked: the findings of its
//! longest launch (the one its time is mostly spent in), largest estimated speedup first.
//!
//! The findings come from a report or a details export ([`crate::model::artifact::RuleResult`],
//! one per message); this module only picks the launch and orders them, for
//! `capture table --format json` and the viewer's rules panel alike.

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};

use crate::analysis::metrics;
use crate::model::artifact::{KernelRecord, LaunchCounters, RuleResult};

/// One finding as the table's JSON gives it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Finding {
    /// ncu's rule identifier (`SOLBottleneck`).
    pub rule: String,
    /// Rule type: `OPT` (an optimization with an estimated gain), `WRN` or `INF`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The message's title (`Small Grid`); `null` where ncu gives none (always, from a
    /// details export).
    pub title: Option<String>,
    /// The message, plain text.
    pub message: String,
    /// ncu's estimated speedup, percent of the kernel's time; `null` where none.
    pub speedup_pct: Option<f64>,
    /// `local` (of the part the rule looks at) or `global` (of the kernel); `null` where
    /// there is no speedup.
    pub speedup_type: Option<String>,
    /// Section the rule belongs to (`SpeedOfLight`).
    pub section: String,
    /// The metrics the message cites (reports only).
    pub focus_metrics: Vec<String>,
}

impl Finding {
    /// The finding of one rule result.
    pub fn of(r: &RuleResult) -> Finding {
        Finding {
            rule: r.name.clone(),
            kind: r.kind.clone(),
            title: r.title.clone(),
            message: r.description.clone(),
            speedup_pct: r.speedup_pct,
            speedup_type: r.speedup_pct.and(r.speedup_type.clone()),
            section: r.section.clone(),
            focus_metrics: r.focus_metrics.iter().map(|m| m.name.clone()).collect(),
        }
    }
}

/// Place of a rule type in the ranking after the speedup: optimizations, warnings, then
/// information.
fn kind_rank(kind: &str) -> u8 {
    match kind {
        "OPT" => 0,
        "WRN" => 1,
        "INF" => 2,
        _ => 3,
    }
}

/// The order of the ranking: larger estimated speedup first (none last), then by type,
/// then ncu's own order (the sort is stable).
pub fn rank(a: &Finding, b: &Finding) -> Ordering {
    let speed = |f: &Finding| f.speedup_pct.unwrap_or(f64::NEG_INFINITY);
    speed(b)
        .total_cmp(&speed(a))
        .then_with(|| kind_rank(&a.kind).cmp(&kind_rank(&b.kind)))
}

/// The launch whose findings stand for the kernel: the longest (by ncu's duration) of
/// its launches that carry findings, of either counter set; `None` when none does.
pub fn findings_launch(kernel: &KernelRecord) -> Option<&LaunchCounters> {
    let sets = [kernel.cold.as_ref(), kernel.warm.as_deref()];
    sets.into_iter()
        .flatten()
        .flat_map(|s| s.launches.iter())
        .filter(|l| !l.rules.is_empty())
        .max_by(|a, b| {
            let d = |l: &LaunchCounters| metrics::duration_ns(l).unwrap_or(f64::NEG_INFINITY);
            d(a).total_cmp(&d(b))
        })
}

/// The kernel's findings, ranked ([`rank`]); empty when no launch has any.
pub fn kernel_findings(kernel: &KernelRecord) -> Vec<Finding> {
    let mut out: Vec<Finding> = findings_launch(kernel)
        .map(|l| l.rules.iter().map(Finding::of).collect())
        .unwrap_or_default();
    crate::order::sort_by(&mut out, rank);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::{CounterSet, Metric, MetricValue};

    fn rule(name: &str, kind: &str, speedup: Option<f64>) -> RuleResult {
        RuleResult {
            section: "S".into(),
            name: name.into(),
            kind: kind.into(),
            title: None,
            description: format!("{name} says"),
            speedup_type: speedup.map(|_| "global".into()),
            speedup_pct: speedup,
            focus_metrics: Vec::new(),
        }
    }

    fn launch(ns: f64, rules: Vec<RuleResult>) -> LaunchCounters {
        let mut l = LaunchCounters {
            function: "k".into(),
            rules: rules.into(),
            ..Default::default()
        };
        l.metrics.insert(
            crate::model::counters::GPU_TIME_DURATION.name.to_owned(),
            Metric {
                unit: "ns".into(),
                value: MetricValue::Number(ns),
            },
        );
        l
    }

    #[test]
    fn the_longest_launch_with_findings_ranked_by_speedup_then_type() {
        let mut k = KernelRecord::new("k", "k");
        k.cold = Some(CounterSet {
            launches: vec![
                launch(10.0, vec![rule("Short", "OPT", Some(90.0))]),
                launch(
                    30.0,
                    vec![
                        rule("Info", "INF", None),
                        rule("Small", "OPT", Some(5.0)),
                        rule("Warn", "WRN", None),
                        rule("Big", "OPT", Some(40.0)),
                    ],
                ),
                launch(50.0, Vec::new()),
            ],
            cache_control: None,
        });
        let names: Vec<String> = kernel_findings(&k).into_iter().map(|f| f.rule).collect();
        assert_eq!(names, ["Big", "Small", "Warn", "Info"]);
        assert!(kernel_findings(&KernelRecord::new("x", "x")).is_empty());
    }
}
