//! Advice a roofline owes beyond the verdict: a matrix multiply whose work all ran on the
//! CUDA cores' FP32 pipe, on a GPU whose tensor cores run the same product in TF32 many
//! times faster. PyTorch leaves FP32 matmuls off the tensor cores by default
//! (`torch.backends.cuda.matmul.allow_tf32` is `False`), so an FP32 model's GEMMs land on
//! `sm80_xmma_gemm_f32f32_...` and its like; T5's was 21 % of the encoder's time at 33.7
//! TFLOP/s against a TF32 tensor peak of 535 on the H200. The verdict ("compute-bound,
//! fma") is right and says nothing of the way out.
//!
//! A kernel gets the sentence when its main kind of work is FP32, it did no tensor work,
//! its name is a matrix multiply's (cuBLAS, CUTLASS, Triton, XLA spellings:
//! [`MATMUL_NAMES`]) and it holds at least [`MIN_SHARE`] of the kernel time (a Llama
//! block's 0.5 % FP32 SGEMM at 0.1 TFLOP/s is not worth a sentence) and its FP32 rate is
//! at least [`MIN_FP32_OF_PEAK`] of the FP32 peak: below that its arithmetic, even done in
//! no time, is under a fifth of its time, so the tensor cores cannot be its way out (a
//! Llama decode step's rotary-angle SGEMM, 1.6 % of the step at 0.0 TFLOP/s, found on a
//! program held out from the rule's making). The figures are its FP32 rate and the
//! device's theoretical dense TF32 tensor peak.

use crate::analysis::table_row::{TableCeilings, TableRow};
use crate::model::work_kind::Work;

/// The least share of the kernel time a kernel holds to be advised (1 %).
pub const MIN_SHARE: f64 = 0.01;

/// The least FP32 rate, as a fraction of the device's FP32 peak, of a kernel to be advised
/// (20 %): its FP32 arithmetic at the peak takes at least that share of its time.
pub const MIN_FP32_OF_PEAK: f64 = 0.2;

/// Parts of a kernel name (lower case) that say it is a matrix multiply.
pub const MATMUL_NAMES: [&str; 7] = [
    "gemm",
    "matmul",
    "xmma",
    "nvjet",
    "cutlass",
    "triton_mm",
    "tem_fused_mm",
];

/// Whether `name` is a matrix multiply's kernel name ([`MATMUL_NAMES`]).
pub fn is_matmul_name(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    MATMUL_NAMES.iter().any(|m| lower.contains(m))
}

/// The advice for `row` under its table's `ceilings`, when it is an FP32 matrix multiply
/// on a device with a TF32 tensor peak; `None` otherwise.
pub fn fp32_matmul(row: &TableRow, ceilings: &TableCeilings) -> Option<String> {
    if row.precision.as_deref() != Some(Work::Fp32.key())
        || row
            .flops_by_precision
            .keys()
            .any(|k| k.starts_with("tensor"))
        || !is_matmul_name(&row.name)
        || row.time_share.is_none_or(|s| s < MIN_SHARE)
    {
        return None;
    }
    let rate = row.gflops.filter(|g| *g > 0.0)?;
    let peak = |w: Work| ceilings.theoretical.get(w.key()).copied().flatten();
    peak(Work::Fp32).filter(|p| rate >= MIN_FP32_OF_PEAK * p)?;
    let tf32 = peak(Work::TensorTf32).filter(|p| *p > rate)?;
    Some(format!(
        "a matrix multiply on the CUDA cores' FP32 pipe at {:.1} TFLOP/s; the tensor cores \
         run it in TF32 at up to {:.0} TFLOP/s (theoretical, dense): in PyTorch allow TF32 \
         (torch.backends.cuda.matmul.allow_tf32 = True) or compute in BF16; in CUDA use a \
         TF32 MMA (cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32, or wmma/mma.sync on tf32)",
        rate / 1e3,
        tf32 / 1e3
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn ceilings(tf32: Option<f64>) -> TableCeilings {
        let mut c = TableCeilings::default();
        c.theoretical.insert(Work::TensorTf32.key().into(), tf32);
        c.theoretical
            .insert(Work::Fp32.key().into(), Some(66_908.0));
        c
    }

    fn row(name: &str, kinds: &[(&str, f64)], gflops: f64) -> TableRow {
        let flops_by_precision: BTreeMap<String, f64> =
            kinds.iter().map(|(k, v)| ((*k).to_owned(), *v)).collect();
        TableRow {
            name: name.into(),
            precision: kinds.first().map(|(k, _)| (*k).to_owned()),
            flops_by_precision,
            gflops: Some(gflops),
            time_share: Some(0.1),
            ..TableRow::default()
        }
    }

    #[test]
    fn an_fp32_gemm_is_told_of_the_tensor_cores_and_nothing_else_is() {
        let c = ceilings(Some(535_000.0));
        let gemm = row(
            "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8_stage3",
            &[("fp32", 3.2e9)],
            37_245.2,
        );
        let advice = fp32_matmul(&gemm, &c).expect("advice");
        assert!(
            advice.contains("37.2 TFLOP/s") && advice.contains("535 TFLOP/s"),
            "{advice}"
        );
        // A bf16 GEMM, an FP32 elementwise kernel and a device without a TF32 peak: none.
        let bf16 = row("nvjet_sm90_tst_192x128", &[("tensor_bf16", 1e12)], 4e5);
        let add = row(
            "vectorized_elementwise_kernel<add>",
            &[("fp32", 1e6)],
            400.0,
        );
        assert_eq!(fp32_matmul(&bf16, &c), None);
        assert_eq!(fp32_matmul(&add, &c), None);
        assert_eq!(fp32_matmul(&gemm, &ceilings(None)), None);
        // One under 20 % of the FP32 peak (a decode step's rotary-angle SGEMM): none.
        let slow = row(
            "cutlass_80_simt_sgemm_128x32_8x5_tn_align1",
            &[("fp32", 1e6)],
            13_000.0,
        );
        assert_eq!(fp32_matmul(&slow, &c), None);
        let rare = TableRow {
            time_share: Some(0.005),
            ..gemm
        };
        assert_eq!(fp32_matmul(&rare, &c), None);
    }
}
