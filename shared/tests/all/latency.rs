//! Latency-bound, explained, on real exports: the stall breakdown of ncu's `--set full`
//! exports (six cuBLAS/CUTLASS GEMMs and the teaching kernels), the launch fit against
//! ncu's own `launch__waves_per_multiprocessor` on every raw export that has it, and the
//! reason every latency-bound kernel gets, with and without warp-state counters (the GPT-2
//! exports were collected without them).

use shared::analysis::latency::fit::{fit_of, WavesSource};
use shared::analysis::table::bytes_table;
use shared::model::artifact::LaunchCounters;
use shared::model::counters as c;

use crate::support::import;

const GEMMS_FULL: &str = include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
const PROBE_FULL: &str = include_str!("../../../tests/fixtures/ncu-h200/probe_full_raw.csv");
const RESNET18_FULL: &str =
    include_str!("../../../tests/fixtures/ncu-h200-torch/resnet18_full_raw.csv");

/// Every raw export of the fixtures that carries ncu's waves per SM.
const WITH_WAVES: [(&str, &str); 10] = [
    ("gemms full", GEMMS_FULL),
    ("resnet-18 full", RESNET18_FULL),
    ("probe full", PROBE_FULL),
    (
        "gemms roofline",
        include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_roofline_raw.csv"),
    ),
    (
        "gemms detailed",
        include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_detailed_raw.csv"),
    ),
    (
        "gemms capture profile",
        include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_capture_profile_raw.csv"),
    ),
    (
        "gpt2 roofline set",
        include_str!("../../../tests/fixtures/ncu-h200-torch/gpt2_bf16_roofline_set_raw.csv"),
    ),
    (
        "gpt2 capture profile",
        include_str!("../../../tests/fixtures/ncu-h200-torch/gpt2_bf16_profile_raw.csv"),
    ),
    (
        "gemms basic set",
        include_str!("../../../tests/fixtures/ncu-h200-reports/gemms_basic_raw.csv"),
    ),
    (
        "two processes",
        include_str!("../../../tests/fixtures/ncu-h200-reports/two_process_raw.csv"),
    ),
];

fn launches(text: &str) -> Vec<LaunchCounters> {
    shared::read::ncu::read_export(text.as_bytes())
        .expect("export reads")
        .launches
}

#[test]
fn computed_waves_match_ncus_own_to_its_printed_precision() {
    let mut compared = 0;
    for (name, text) in WITH_WAVES {
        for l in launches(text) {
            let exported = l.metrics.number(c::WAVES_PER_SM.name);
            let exported = exported.unwrap_or_else(|| panic!("{name}: {} lacks waves", l.function));
            let fit = fit_of(&l);
            assert_eq!(fit.waves, Some(exported), "{name}: {}", l.function);
            assert_eq!(fit.waves_source, Some(WavesSource::Export));
            let computed = fit
                .computed_waves
                .unwrap_or_else(|| panic!("{name}: {}: no computed waves", l.function));
            // ncu prints waves with at most two decimals.
            let printed = (computed * 100.0).round() / 100.0;
            assert!(
                (printed - exported).abs() < 1e-9,
                "{name}: {}: computed {computed}, ncu {exported}",
                l.function
            );
            compared += 1;
        }
    }
    assert!(compared > 50, "{compared} launches compared");
}

#[test]
fn the_full_set_gives_every_kernel_stall_shares_that_sum_to_one() {
    for (name, text) in [
        ("gemms", GEMMS_FULL),
        ("probe", PROBE_FULL),
        ("resnet-18", RESNET18_FULL),
    ] {
        let table = bytes_table(&import(text));
        for row in &table.kernels {
            let stalls = row
                .stalls
                .as_ref()
                .unwrap_or_else(|| panic!("{name}: {} has no stalls", row.name));
            let sum: f64 = stalls.values().sum();
            assert!((sum - 1.0).abs() < 1e-9, "{name}: {}: {sum}", row.name);
            assert!(
                !stalls.contains_key("selected"),
                "the issuing warp is no stall"
            );
            assert_eq!(stalls.len(), c::STALLS.len() - 1, "{name}: {}", row.name);
            assert!(row.waves.is_some(), "{name}: {}", row.name);
            let latency_bound = row.verdict.as_deref() == Some("latency-bound");
            assert_eq!(row.latency_reason.is_some(), latency_bound, "{}", row.name);
        }
    }
}

#[test]
fn the_gemms_latency_reasons_name_waves_and_the_top_stall() {
    let table = bytes_table(&import(GEMMS_FULL));
    let reason = |needle: &str| {
        table
            .kernels
            .iter()
            .find(|r| r.name.contains(needle))
            .and_then(|r| r.latency_reason.clone())
            .unwrap_or_else(|| panic!("{needle}: no latency reason"))
    };
    // bf16: 128 blocks, one per SM (registers and shared memory), 132 SMs; long
    // scoreboard 3.11 of 12.35 stalled warps per issue.
    assert_eq!(
        reason("nvjet_sm90_tst_"),
        "0.97 waves: 4 of 132 SMs idle; top stall long scoreboard (25%)"
    );
    // tf32: 120 blocks.
    assert_eq!(
        reason("tf32f32"),
        "0.91 waves: 12 of 132 SMs idle; top stall long scoreboard (38%)"
    );
    // fp8: 132 blocks, exactly one wave.
    assert_eq!(
        reason("nvjet_sm90_qqtst_"),
        "1.00 waves; top stall long scoreboard (31%)"
    );
    let kinds: Vec<Option<&str>> = table.kernels.iter().map(|r| r.verdict.as_deref()).collect();
    assert_eq!(
        kinds,
        [
            Some("latency-bound"),
            Some("latency-bound"),
            Some("latency-bound"),
            Some("compute-bound"),
            Some("latency-bound"),
            Some("memory-bound"),
        ]
    );
    // The compute-bound FP64 GEMM waits on its math pipe and its dependent chains.
    let fp64 = table
        .kernels
        .iter()
        .find(|r| r.name.contains("f64f64"))
        .and_then(|r| r.stalls.clone())
        .expect("fp64 stalls");
    let top = fp64
        .iter()
        .max_by(|a, b| a.1.total_cmp(b.1))
        .map(|(k, _)| k.as_str());
    assert_eq!(top, Some("wait"));
    assert!(fp64["math_pipe_throttle"] > 0.35, "{fp64:?}");
}

#[test]
fn gpt2_has_no_warp_state_counters_and_every_latency_bound_kernel_still_has_a_reason() {
    let (_, profile) = WITH_WAVES[6];
    let (_, roofline) = WITH_WAVES[5];
    for text in [profile, roofline] {
        let table = bytes_table(&import(text));
        let mut latency_bound = 0;
        for row in &table.kernels {
            assert_eq!(row.stalls, None, "{}", row.name);
            if row.verdict.as_deref() == Some("latency-bound") {
                latency_bound += 1;
                let reason = row.latency_reason.as_deref().unwrap_or_default();
                assert!(reason.contains(" waves"), "{}: {reason}", row.name);
                assert!(
                    reason.ends_with("no warp-state counters"),
                    "{}: {reason}",
                    row.name
                );
            } else {
                assert_eq!(row.latency_reason, None, "{}", row.name);
            }
        }
        assert!(latency_bound > 5, "{latency_bound} latency-bound kernels");
    }
}
