//! Work by precision, bytes and time from real exports of programs nobody on the project
//! wrote: six cuBLAS/CUTLASS GEMMs in six precisions (`tests/fixtures/ncu-h200-gemms/`) and a
//! Hugging Face GPT-2 in bf16 (`tests/fixtures/ncu-h200-torch/`), each under ncu's own sets.
//! The independent truth is 2MNK per GEMM and the export's own columns.

use shared::analysis::metrics;
use shared::analysis::work::{self, Source};
use shared::model::work_kind::Work;

use crate::support::import;

const GEMMS_FULL: &str = include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
const GEMMS_ROOFLINE: &str =
    include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_roofline_raw.csv");
const GEMMS_DETAILED: &str =
    include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_detailed_raw.csv");
const GPT2_ROOFLINE: &str =
    include_str!("../../../tests/fixtures/ncu-h200-torch/gpt2_bf16_roofline_set_raw.csv");
const GPT2_PROFILE: &str =
    include_str!("../../../tests/fixtures/ncu-h200-torch/gpt2_bf16_profile_raw.csv");

/// M = 2048, N = 1536, K = 1024.
const TWO_MNK: f64 = 2.0 * 2048.0 * 1536.0 * 1024.0;

fn gemm_kinds() -> [(&'static str, Work); 6] {
    [
        ("nvjet_sm90_tst_", Work::TensorBf16),
        ("nvjet_sm90_hsh_", Work::TensorFp16),
        ("tf32f32", Work::TensorTf32),
        ("f64f64", Work::TensorFp64),
        ("nvjet_sm90_qqtst_", Work::TensorFp8),
        ("gemm_s8", Work::TensorInt8),
    ]
}

#[test]
fn six_gemms_give_exactly_2mnk_in_their_precision_in_full_and_roofline_sets() {
    for (set, text) in [("full", GEMMS_FULL), ("roofline", GEMMS_ROOFLINE)] {
        let a = import(text);
        assert_eq!(a.kernels.len(), 6, "{set}");
        for (needle, kind) in gemm_kinds() {
            let k = a
                .kernels
                .iter()
                .find(|k| k.name.contains(needle))
                .unwrap_or_else(|| panic!("{set}: no kernel {needle}"));
            let by = work::work_over(metrics::reference_launches(k));
            let tensor: Vec<_> = by
                .iter()
                .filter(|(w, c)| w.is_tensor() && c.ops > 0.0)
                .collect();
            assert_eq!(tensor.len(), 1, "{set} {needle}: {by:?}");
            let (w, count) = tensor[0];
            assert_eq!(*w, kind, "{set} {needle}");
            assert_eq!(count.ops, TWO_MNK, "{set} {needle}: exactly 2MNK");
            assert_eq!(count.source, Source::Total, "{set} {needle}");
            assert_eq!(work::main_kind(&by), Some(kind), "{set} {needle}");
        }
    }
}

#[test]
fn integer_tensor_ops_are_not_flops() {
    let a = import(GEMMS_FULL);
    let k = a
        .kernels
        .iter()
        .find(|k| k.name.contains("gemm_s8"))
        .expect("int8 GEMM");
    let by = work::work_over(metrics::reference_launches(k));
    assert_eq!(by.get(&Work::TensorInt8).map(|w| w.ops), Some(TWO_MNK));
    assert!(
        work::flops_total(&by) < 1e9,
        "int8 OPs kept apart from FLOPs"
    );
}

#[test]
fn dram_bytes_from_the_rate_match_the_totals_of_the_same_export() {
    // --set full has both dram__bytes_read/write.sum and dram__bytes.sum.per_second: the
    // derived total must agree with the export's own columns within the rate's rounding.
    let a = import(GEMMS_FULL);
    for k in &a.kernels {
        for l in metrics::reference_launches(k) {
            let (direct, s) = metrics::dram_bytes_with_source(l).expect("dram");
            assert_eq!(s, Source::Total);
            let (rate, s) = work::total(l, shared::model::counters::DRAM_BYTES).expect("rate");
            assert_eq!(s, Source::PerSecond);
            assert!(
                (rate - direct).abs() <= 1e-4 * direct + 64.0,
                "{}: {rate} vs {direct}",
                k.name
            );
        }
    }
}

#[test]
fn the_roofline_set_gives_every_kernel_derived_dram_bytes() {
    let a = import(GPT2_ROOFLINE);
    assert!(a.kernels.len() > 10);
    for k in &a.kernels {
        let t = metrics::totals(metrics::reference_launches(k));
        assert!(t.dram_bytes.is_some(), "{}", k.name);
        assert!(
            t.derived_bytes.iter().any(|d| d == "dram_bytes"),
            "{}",
            k.name
        );
    }
    let mm = a
        .kernels
        .iter()
        .find(|k| &*k.name == "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT")
        .expect("the 4096^3 matmul");
    let launches = metrics::reference_launches(mm);
    assert_eq!(launches.len(), 2);
    let by = work::work_over(launches);
    assert_eq!(
        by.get(&Work::TensorBf16).map(|w| w.ops),
        Some(2.0 * 137_438_953_472.0)
    );
    assert_eq!(work::main_kind(&by), Some(Work::TensorBf16));
}

#[test]
fn cuda_core_flops_from_per_cycle_values_match_the_totals_of_another_run() {
    // The GPT-2 program ran twice: under capture's metric set (totals) and under ncu's
    // roofline sections (per-cycle values only). Kernel by kernel in launch order, the FP32
    // work derived from per-cycle values must match the totals within a few percent.
    let totals = import(GPT2_PROFILE);
    let rates = import(GPT2_ROOFLINE);
    let mut compared = 0;
    for (kt, kr) in totals.kernels.iter().zip(&rates.kernels) {
        assert_eq!(kt.name, kr.name);
        let t = work::work_over(metrics::reference_launches(kt));
        let r = work::work_over(metrics::reference_launches(kr));
        let (Some(t), Some(r)) = (t.get(&Work::Fp32), r.get(&Work::Fp32)) else {
            continue;
        };
        if t.ops < 1e6 {
            continue;
        }
        assert_eq!(r.source, Source::PerCycle, "{}", kt.name);
        let rel = (r.ops - t.ops).abs() / t.ops;
        assert!(rel < 0.03, "{}: {} vs {} ({rel})", kt.name, r.ops, t.ops);
        compared += 1;
    }
    assert!(compared >= 5, "compared {compared} kernels");
}

#[test]
fn the_detailed_set_gives_bytes_and_cuda_core_flops_but_no_tensor_work() {
    let a = import(GEMMS_DETAILED);
    for k in &a.kernels {
        let t = metrics::totals(metrics::reference_launches(k));
        assert!(t.dram_bytes.is_some(), "{}", k.name);
        assert!(t.work.contains_key(&Work::Fp32), "{}", k.name);
        assert!(t.work.keys().all(|w| !w.is_tensor()), "{}", k.name);
    }
}
