//! The rules panel of a kernel: Nsight Compute's rule findings of its longest launch
//! ([`shared::analysis::findings`], the same the table's JSON gives), largest estimated
//! speedup first, each with its type, title, message and the metrics it cites. Messages
//! are text from the file, rendered as text, never markup (their `@section:` links were
//! made plain names by the readers). Plain data, tested natively; `pages::rules` renders it.

use shared::analysis::findings::{findings_launch, rank, Finding};
use shared::model::artifact::{KernelRecord, MetricValue};
use shared::model::counters;

/// A metric a finding cites, with where the viewer shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Cite {
    /// Full metric name (`launch__waves_per_multiprocessor`).
    pub metric: String,
    /// Its value as the rule read it, as text (empty where the report gives none).
    pub value: String,
    /// What it measures, from the counter catalog (empty for a metric it does not list).
    pub meaning: String,
    /// Whether the launch's raw metrics hold it, so the raw metrics page, searched for
    /// its name, shows it.
    pub in_metrics: bool,
}

/// One finding as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct RuleRow {
    /// The finding, as the table's JSON gives it.
    pub finding: Finding,
    /// The estimated speedup in words (`44.1 % global`, or `-`).
    pub speedup: String,
    /// The row's class by type (`rule-opt`, `rule-wrn`, `rule-inf`).
    pub class: &'static str,
    /// The metrics it cites.
    pub cites: Vec<Cite>,
}

/// The panel of one kernel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RulesPanel {
    /// The kernel's name.
    pub kernel: String,
    /// The launch the findings are of (its ID), when there are any.
    pub launch: Option<u64>,
    /// The findings, ranked.
    pub rows: Vec<RuleRow>,
}

/// The estimated speedup as the panel shows it.
pub fn speedup_text(pct: Option<f64>, kind: Option<&str>) -> String {
    match (pct, kind) {
        (Some(p), Some(k)) => format!("{p:.1} % {k}"),
        (Some(p), None) => format!("{p:.1} %"),
        _ => "-".to_owned(),
    }
}

/// A value as text: whole numbers in full, others to four significant digits.
fn value_text(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        crate::state::table::round_sig(v)
    }
}

/// The rules panel of kernel `record` (named `name` in the views).
pub fn rules_panel(name: &str, record: &KernelRecord) -> RulesPanel {
    let Some(launch) = findings_launch(record) else {
        return RulesPanel {
            kernel: name.to_owned(),
            ..RulesPanel::default()
        };
    };
    let mut rows: Vec<RuleRow> = launch
        .rules
        .iter()
        .map(|r| {
            let finding = Finding::of(r);
            let cites = r
                .focus_metrics
                .iter()
                .map(|m| Cite {
                    metric: m.name.clone(),
                    value: m.value.map(value_text).unwrap_or_default(),
                    meaning: counters::find(&m.name)
                        .map(|c| c.meaning.to_owned())
                        .unwrap_or_default(),
                    in_metrics: launch
                        .metrics
                        .get(&m.name)
                        .is_some_and(|v| !matches!(v.value, MetricValue::Missing)),
                })
                .collect();
            RuleRow {
                speedup: speedup_text(finding.speedup_pct, finding.speedup_type.as_deref()),
                class: match finding.kind.as_str() {
                    "OPT" => "rule-opt",
                    "WRN" => "rule-wrn",
                    _ => "rule-inf",
                },
                finding,
                cites,
            }
        })
        .collect();
    shared::order::sort_by(&mut rows, |a, b| rank(&a.finding, &b.finding));
    RulesPanel {
        kernel: name.to_owned(),
        launch: Some(launch.id),
        rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::load::{load_batch, InputFile};
    use crate::state::test_support::unpack;

    #[test]
    fn a_reports_findings_are_ranked_with_their_cited_metrics() {
        let bytes = unpack("tests/fixtures/ncu-h200-gemms/gemms_full.ncu-repz");
        let (runs, errors) = load_batch(vec![InputFile {
            name: "gemms_full.ncu-rep".into(),
            bytes,
        }]);
        assert!(errors.is_empty(), "{errors:?}");
        let artifact = &runs[0].artifact;
        let record = &artifact.kernels[0];
        let panel = rules_panel(&record.name, record);
        assert!(panel.launch.is_some());
        assert!(!panel.rows.is_empty());
        // Ranked as the table's JSON ranks them.
        let table = shared::analysis::table::bytes_table(artifact);
        let ours: Vec<&Finding> = panel.rows.iter().map(|r| &r.finding).collect();
        let theirs: Vec<&Finding> = table.kernels[0].rules.iter().collect();
        assert_eq!(ours, theirs);
        let speeds: Vec<f64> = panel
            .rows
            .iter()
            .filter_map(|r| r.finding.speedup_pct)
            .collect();
        assert!(speeds.windows(2).all(|w| w[0] >= w[1]), "{speeds:?}");
        // Plain text: no ncu link syntax is left in a message.
        assert!(panel
            .rows
            .iter()
            .all(|r| !r.finding.message.contains("@section:")));
        // A report's findings cite metrics, most of them among the launch's raw metrics.
        let cites: Vec<&Cite> = panel.rows.iter().flat_map(|r| &r.cites).collect();
        assert!(!cites.is_empty());
        assert!(cites.iter().any(|c| c.in_metrics && !c.value.is_empty()));
    }

    #[test]
    fn a_details_export_gives_findings_without_cited_metrics() {
        let (runs, errors) = load_batch(vec![InputFile {
            name: "bert_full_details.csv".into(),
            bytes: crate::state::test_support::unpack(
                "tests/fixtures/ncu-h200-bert/bert_full_details.csv.gz",
            ),
        }]);
        assert!(errors.is_empty(), "{errors:?}");
        let with: Vec<RulesPanel> = runs[0]
            .artifact
            .kernels
            .iter()
            .map(|k| rules_panel(&k.name, k))
            .filter(|p| !p.rows.is_empty())
            .collect();
        assert!(!with.is_empty());
        assert!(with
            .iter()
            .flat_map(|p| &p.rows)
            .any(|r| r.finding.kind == "OPT" && r.speedup != "-"));
        assert_eq!(speedup_text(Some(44.14), Some("local")), "44.1 % local");
        assert_eq!(speedup_text(None, None), "-");
        let none = rules_panel("k", &KernelRecord::new("k", "k"));
        assert_eq!((none.launch, none.rows.len()), (None, 0));
    }
}
