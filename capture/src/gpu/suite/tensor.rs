//! The tensor-core matmul (`kernels/tensor.cu`): bf16 inputs, fp32 accumulation through
//! `mma.m16n8k16`, checked on a sample against an f64 reference (`gpu::tensor`).

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid2, output, Arg, BufferSpec, Elem, Fill, Plan};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::Outputs;
use crate::gpu::tensor as reference;

/// The source file under `kernels/`.
const FILE: &str = "tensor.cu";

/// The bf16 tensor-core matmul.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/tensor.cu"),
    kernels: &[KernelDef {
        function: "matmul_bf16_mma",
        name: "matmul, bf16 tensor cores",
        file: FILE,
        role: Role::Suite,
        plan: plan_matmul_bf16,
        check: check_matmul_bf16,
    }],
};

/// Block tile of the tensor-core matmul, rows and columns of C.
pub const TENSOR_TILE: u32 = 64;

/// Fill seeds of the tensor-core matmul's A and B (stored transposed).
const TENSOR_SEEDS: (u64, u64) = (91, 92);

fn plan_matmul_bf16(s: &Sizes) -> Plan {
    let d = s.tensor_dim;
    let (d64, n) = (f64::from(d), u64::from(d) * u64::from(d));
    let tiles = d64 / f64::from(TENSOR_TILE);
    let bf16 = |name| BufferSpec {
        name,
        elem: Elem::Bf16,
        len: n,
        fill: Fill::Hash(if name == "a" {
            TENSOR_SEEDS.0
        } else {
            TENSOR_SEEDS.1
        }),
    };
    Plan {
        launch: grid2(d / TENSOR_TILE, d / TENSOR_TILE, [128, 1, 1]),
        buffers: vec![bf16("a"), bf16("bt"), output("c", n)],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::Buf(2),
            Arg::I32(d as i32),
            Arg::I32(d as i32),
            Arg::I32(d as i32),
        ],
        asked: asked(
            2.0 * tiles * d64 * d64 * 2.0 + 4.0 * d64 * d64,
            2.0 * d64.powi(3),
            Precision::TensorBf16,
            format!(
                "each of the (d/64)^2 blocks reads a 64-row panel of A and of B, 64 x d bf16                  each, and writes its 64 x 64 floats: 2 x (d/64) x d^2 x 2 + 4 d^2 bytes;                  2 d^3 tensor FLOPs (d^3/4096 mma.m16n8k16 of 4096), d = {d}"
            ),
        ),
    }
}

fn check_matmul_bf16(s: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let d = u64::from(s.tensor_dim);
    let (sa, sb) = (p.seed(0), p.seed(1));
    match o.f32(2) {
        // Products of bf16 are exact in f64; the tensor cores accumulate in fp32.
        Ok(c) => checks::close_f32(
            "C = A B (bf16, tensor cores) against an f64 reference",
            c,
            Coverage::Every(61),
            |i| {
                let (row, col) = (i as u64 / d, i as u64 % d);
                let r = reference::dot(reference::Format::Bf16, (sa, sb), (row, col), d);
                (r.0, TENSOR_TOLERANCE.of(r))
            },
        ),
        Err(e) => checks::broken("bf16 matmul", &e),
    }
}

/// The tensor-core matmul's tolerance: fp32 accumulation and output.
const TENSOR_TOLERANCE: reference::Tolerance = reference::Tolerance {
    output: 1.0 / 1_048_576.0,
    accumulate: 1.0 / 16_384.0,
};

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::suite::sizes::TENSOR_DIM;
    use crate::gpu::suite::testing::{pass_then_fail, sizes, small, H200};

    #[test]
    fn bf16_matmul_reference_and_hand_counts() {
        use crate::gpu::tensor::{input_value, Format};
        let s = small();
        let p = plan_matmul_bf16(&s);
        let d = s.tensor_dim as usize;
        let value = |i: usize, seed: u64| input_value(Format::Bf16, i as u64, seed) as f32;
        let a: Vec<f32> = (0..d * d).map(|i| value(i, p.seed(0))).collect();
        let bt: Vec<f32> = (0..d * d).map(|i| value(i, p.seed(1))).collect();
        // The kernel's arithmetic on the host: fp32 accumulation along k.
        let c: Vec<f32> = (0..d * d)
            .map(|i| {
                let (r, col) = (i / d, i % d);
                (0..d).fold(0.0f32, |acc, k| a[r * d + k].mul_add(bt[col * d + k], acc))
            })
            .collect();
        pass_then_fail("matmul_bf16_mma", 2, c, 61 * 3);
        // bf16 inputs truncated from the hash, as fill_gemm writes them.
        assert_eq!(a[0].to_bits() & 0xFFFF, 0);
        // FLOPs from the kernel's structure: blocks x 4 warps x d/32 slices x 16 mma per
        // warp and slice x 4096 FLOPs per m16n8k16 mma = 2 d^3, all on tensor cores.
        let d = f64::from(TENSOR_DIM);
        let h200 = plan_matmul_bf16(&sizes(&H200, None));
        let mma_flops = (d / 64.0).powi(2) * 4.0 * (d / 32.0) * 16.0 * 4096.0;
        assert_eq!(h200.asked.flops, mma_flops);
        assert_eq!(h200.asked.flops, 2.0 * 2048f64.powi(3));
        assert_eq!(h200.asked.precision, Precision::TensorBf16);
        // Bytes: each block reads 64 x d of A and of B (2 bytes each), writes 64 x 64 floats.
        let blocks = (d / 64.0).powi(2);
        assert_eq!(
            h200.asked.bytes,
            blocks * (2.0 * 64.0 * d * 2.0 + 64.0 * 64.0 * 4.0)
        );
        assert_eq!(h200.launch.grid, [32, 32, 1]);
        assert_eq!(TENSOR_DIM % TENSOR_TILE, 0, "no partial tile");
    }
}
