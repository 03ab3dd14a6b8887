//! A report's Speed-of-Light figures: the BERT `--set full` report (no raw-page
//! `dram__throughput` or `sm__cycles_elapsed.avg.per_second` stored, only the section's own
//! `gpu__dram_throughput` and `gpc__cycles_elapsed`) gives every launch the DRAM % and the SM
//! clock that its raw page export prints, launch for launch.

use shared::analysis::metrics::speed_of_light;
use shared::read::{ncu, ncu_rep};

use crate::support::unpack;

const BERT_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-bert/bert_full.ncu-repz");
const BERT_RAW: &str = include_str!("../../../tests/fixtures/ncu-h200-bert/bert_full_raw.csv");

#[test]
fn a_report_has_the_dram_percent_and_sm_clock_its_raw_page_prints() {
    let report = ncu_rep::read_export(&unpack(BERT_REPORT)).expect("report reads");
    let csv = ncu::read_export(BERT_RAW.as_bytes()).expect("raw page reads");
    assert_eq!(report.launches.len(), csv.launches.len());
    for (r, c) in report.launches.iter().zip(&csv.launches) {
        let (ours, theirs) = (speed_of_light(r), speed_of_light(c));
        let (Some(dram), Some(want)) = (ours.dram_pct, theirs.dram_pct) else {
            panic!(
                "launch {}: DRAM % {:?} vs {:?}",
                r.id, ours.dram_pct, theirs.dram_pct
            );
        };
        // The export prints two decimals.
        assert!(
            (dram - want).abs() <= 0.006,
            "launch {}: {dram} vs {want}",
            r.id
        );
        let (Some(hz), Some(want)) = (ours.sm_hz, theirs.sm_hz) else {
            panic!(
                "launch {}: SM clock {:?} vs {:?}",
                r.id, ours.sm_hz, theirs.sm_hz
            );
        };
        // sm__ and gpc__ clocks differ by the cycles each counts over (within 5 %).
        assert!(
            (hz / want - 1.0).abs() < 0.05,
            "launch {}: {hz} vs {want}",
            r.id
        );
    }
}
