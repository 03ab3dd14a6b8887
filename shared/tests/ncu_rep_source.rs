//! The per-instruction figures of a real report (`shared::read::ncu_rep`, SourceCounters) against
//! the source page exported from the same report (`ncu --import R --csv --page source
//! --print-source sass`, read by `shared::read::source`): every launch, every instruction, every
//! figure both have. NVIDIA's own reader checks the report side in `tests/oracle/`.

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "an integration test reports a failure by panicking; clippy.toml's allow-*-in-tests covers only #[test] functions, not their helpers"
)]

use std::io::Read;

use shared::read::ncu_rep;
use shared::read::source::{read_source_csv, LaunchSource};

const BERT_REPORT: &[u8] =
    include_bytes!("../../tests/fixtures/ncu-h200-bert/bert_full.ncu-rep.gz");
const BERT_SOURCE: &[u8] =
    include_bytes!("../../tests/fixtures/ncu-h200-bert/bert_full_source.csv.gz");

fn gunzip(gz: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut out)
        .expect("fixture gunzips");
    out
}

#[test]
fn the_bert_reports_instructions_are_its_source_page() {
    let report = ncu_rep::read_report(&gunzip(BERT_REPORT)).expect("report reads");
    let page = read_source_csv(&gunzip(BERT_SOURCE)).expect("source page reads");
    let ours: Vec<LaunchSource> = report
        .results
        .iter()
        .map(|r| r.source().expect("--set full has source counters"))
        .collect();
    assert_eq!(ours.len(), 43);
    assert_eq!(page.len(), 43, "69 blocks, the repeated ones folded");
    let mut figures = 0;
    for (mut r, p) in ours.into_iter().zip(&page) {
        // Every instruction the page shows executed or sampled is in the report.
        let busy = |i: &&shared::read::source::Instruction| {
            i.inst_executed.unwrap_or(0.0) > 0.0 || i.samples.unwrap_or(0.0) > 0.0
        };
        for q in p.instructions.iter().filter(busy) {
            assert!(
                r.instructions.iter().any(|i| i.address == q.address),
                "launch {} {:#x}",
                r.launch,
                q.address
            );
        }
        assert!(r.instructions.len() <= p.instructions.len());
        assert_eq!(
            r.add_sass(p),
            r.instructions.len(),
            "every address is on the page"
        );
        for i in &r.instructions {
            let q = p
                .instructions
                .iter()
                .find(|q| q.address == i.address)
                .expect("address on the page");
            // A report lists, per metric, only the addresses it has a value for; the page
            // prints 0 for the others.
            assert_eq!(
                i.inst_executed.unwrap_or(0.0),
                q.inst_executed.unwrap_or(0.0),
                "launch {} {:#x}",
                r.launch,
                i.address
            );
            // The report leaves out addresses with no samples; the page prints 0.
            assert_eq!(
                i.samples.unwrap_or(0.0),
                q.samples.unwrap_or(0.0),
                "launch {} {:#x}",
                r.launch,
                i.address
            );
            assert_eq!(
                i.l2_sectors_global_excessive.unwrap_or(0.0),
                q.l2_sectors_global_excessive.unwrap_or(0.0),
                "launch {} {:#x}",
                r.launch,
                i.address
            );
            // The page (ncu 2025.3.1) has no column for Hopper's warpgroup reasons.
            let mut stalls = i.stalls.clone();
            stalls.retain(|r, _| r != "warpgroup_arrive" && r != "gmma");
            assert_eq!(stalls, q.stalls, "launch {} {:#x}", r.launch, i.address);
            figures += 3 + q.stalls.len();
        }
        assert_eq!(r.inst_executed(), p.inst_executed(), "launch {}", r.launch);
    }
    assert!(figures > 50_000, "{figures}");
}

#[test]
fn the_gemm_hot_spot_is_a_tensor_core_instruction() {
    let page = read_source_csv(&gunzip(BERT_SOURCE)).expect("source page reads");
    let gemm = page
        .iter()
        .find(|l| l.kernel.starts_with("nvjet"))
        .expect("a cuBLAS GEMM");
    let hot = gemm.hot_spots(5);
    assert!(!hot.is_empty());
    assert!(
        gemm.instructions
            .iter()
            .any(|i| i.sass.as_deref().is_some_and(|s| s.starts_with("HGMMA"))),
        "HGMMA in the SASS"
    );
}
