//! The FP64/FP32 pair (`kernels/precision.cu`): the same 64-step Horner loop in both
//! precisions, to show the FP64 roof.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid1, idx, Arg, BufferSpec, Elem, Fill, Plan, BLOCK};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "precision.cu";

/// The precision pair: FP32, then FP64.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/precision.cu"),
    kernels: &[
        KernelDef {
            function: "horner64_f32",
            name: "precision pair: FP32",
            file: FILE,
            role: Role::Suite,
            plan: plan_pair_f32,
            check: check_pair_f32,
        },
        KernelDef {
            function: "horner64_f64",
            name: "precision pair: FP64",
            file: FILE,
            role: Role::Suite,
            plan: plan_pair_f64,
            check: check_pair_f64,
        },
    ],
};

/// Horner steps of the FP64/FP32 pair (`kernels/precision.cu`).
pub const PAIR_STEPS: u32 = 64;

const PAIR_ADD: f32 = 0.5;

fn plan_pair(s: &Sizes, elem: Elem) -> Plan {
    let n = s.stream_elems;
    let (width, precision, add) = if elem == Elem::F64 {
        (8.0, Precision::Fp64, Arg::F64(f64::from(PAIR_ADD)))
    } else {
        (4.0, Precision::Fp32, Arg::F32(PAIR_ADD))
    };
    let seed = if elem == Elem::F32 { 81 } else { 82 };
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![
            BufferSpec {
                name: "in",
                elem,
                len: n,
                fill: Fill::Hash(seed),
            },
            BufferSpec {
                name: "out",
                elem,
                len: n,
                fill: Fill::Poison,
            },
        ],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::U64(n), add],
        asked: asked(
            2.0 * width * n as f64,
            2.0 * f64::from(PAIR_STEPS) * n as f64,
            precision,
            format!(
                "read + write n {}-byte values: 2 x {width} x n, n = {n}; {PAIR_STEPS} FMAs each",
                width as u32
            ),
        ),
    }
}

fn plan_pair_f32(s: &Sizes) -> Plan {
    plan_pair(s, Elem::F32)
}

fn plan_pair_f64(s: &Sizes) -> Plan {
    plan_pair(s, Elem::F64)
}

fn check_pair_f32(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f32(1) {
        Ok(out) => checks::exact_f32("FP32 Horner, 64 steps", out, Coverage::Every(61), |i| {
            let x = hash_value(idx(i), seed);
            let mut acc = x;
            for _ in 0..PAIR_STEPS {
                acc = acc.mul_add(x, PAIR_ADD);
            }
            acc
        }),
        Err(e) => checks::broken("horner64_f32", &e),
    }
}

fn check_pair_f64(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f64(1) {
        Ok(out) => checks::exact_f64("FP64 Horner, 64 steps", out, Coverage::Every(61), |i| {
            let x = f64::from(hash_value(idx(i), seed));
            let mut acc = x;
            for _ in 0..PAIR_STEPS {
                acc = acc.mul_add(x, f64::from(PAIR_ADD));
            }
            acc
        }),
        Err(e) => checks::broken("horner64_f64", &e),
    }
}
