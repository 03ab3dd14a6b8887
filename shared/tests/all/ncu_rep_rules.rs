//! The rule results of real reports read by `shared::read::ncu_rep` against the rule rows of the
//! details pages exported from the same reports (`ncu --import R --csv --page details`):
//! each launch's findings are the same, message for message (the details page orders them
//! by section, the report by rule, so they are compared sorted), with their type, section,
//! plain text and speedup kind; the speedup within half a unit of its printed last digit.
//! NVIDIA's own reader checks the same findings in `tests/oracle/`.

use shared::model::artifact::RuleResult;
use shared::read::ncu;
use shared::read::ncu_rep;

use crate::support::unpack;

const GEMMS_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-gemms/gemms_full.ncu-repz");
const GEMMS_DETAILS: &str =
    include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_details.csv");
const BERT_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-bert/bert_full.ncu-repz");
const BERT_DETAILS: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-bert/bert_full_details.csv.gz");
const PROBE_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200/probe_full.ncu-rep.gz");
const PROBE_DETAILS: &str = include_str!("../../../tests/fixtures/ncu-h200/probe_full_details.csv");

/// A finding without its speedup, for sorting and comparing.
fn key(r: &RuleResult) -> (String, String, String, String, Option<String>) {
    (
        r.section.clone(),
        r.name.clone(),
        r.kind.clone(),
        r.description.clone(),
        r.speedup_type.clone(),
    )
}

/// Asserts that every launch of the report has the details page's findings; returns how
/// many were compared.
fn assert_rules_match(report_gz: &[u8], details: &str) -> usize {
    let report = ncu_rep::read_export(&unpack(report_gz)).expect("report reads");
    let csv = ncu::read_export(details.as_bytes()).expect("details read");
    assert_eq!(report.launches.len(), csv.launches.len());
    let mut compared = 0;
    for (r, c) in report.launches.iter().zip(&csv.launches) {
        assert_eq!(r.id, c.id);
        let mut ours: Vec<&RuleResult> = r.rules.iter().collect();
        let mut theirs: Vec<&RuleResult> = c.rules.iter().collect();
        ours.sort_by_key(|x| key(x));
        theirs.sort_by_key(|x| key(x));
        assert_eq!(ours.len(), theirs.len(), "launch {}: finding count", r.id);
        for (o, t) in ours.iter().zip(&theirs) {
            assert_eq!(key(o), key(t), "launch {}", r.id);
            match (o.speedup_pct, t.speedup_pct) {
                (Some(a), Some(b)) => {
                    // The page prints four significant digits.
                    let tol = 0.5 * 10f64.powi(b.abs().log10().floor() as i32 - 3);
                    assert!((a - b).abs() <= tol, "launch {}: {a} vs {b}", r.id);
                }
                (a, b) => assert_eq!(a, b, "launch {} {}", r.id, o.name),
            }
            compared += 1;
        }
    }
    compared
}

#[test]
fn the_gemms_reports_findings_are_its_details_pages() {
    let n = assert_rules_match(GEMMS_REPORT, GEMMS_DETAILS);
    assert_eq!(n, 72, "six GEMMs' findings");
}

#[test]
fn the_bert_reports_findings_are_its_details_pages() {
    let details = String::from_utf8(unpack(BERT_DETAILS)).expect("UTF-8");
    let n = assert_rules_match(BERT_REPORT, &details);
    assert_eq!(n, 592, "the rule rows of the BERT forward's details page");
}

#[test]
fn the_probe_reports_findings_are_its_details_pages() {
    let n = assert_rules_match(PROBE_REPORT, PROBE_DETAILS);
    assert!(n > 0);
}

#[test]
fn findings_carry_titles_and_focus_metrics() {
    let report = ncu_rep::read_export(&unpack(GEMMS_REPORT)).expect("report reads");
    let first = &report.launches[0].rules[0];
    assert_eq!(first.name, "SOLBottleneck");
    assert_eq!(first.title.as_deref(), Some("Small Grid"));
    assert!(first.description.contains("Look at Launch Statistics for"));
    assert_eq!(
        first.focus_metrics[0].name,
        "launch__waves_per_multiprocessor"
    );
}
