//! The Horner polynomial (`kernels/polynomial.cu`): degree 256, compute-bound on FP32.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid1, idx, input, output, Arg, Plan, BLOCK};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "polynomial.cu";

/// The degree-256 polynomial.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/polynomial.cu"),
    kernels: &[KernelDef {
        function: "polynomial_horner",
        name: "polynomial, 256",
        file: FILE,
        role: Role::Suite,
        plan: plan_polynomial,
        check: check_polynomial,
    }],
};

/// Degree of the Horner polynomial (`kernels/polynomial.cu`).
pub const POLY_DEGREE: u32 = 256;

const POLY_SCALE: f32 = 0.5;

const POLY_ADD: f32 = 0.5;

fn plan_polynomial(s: &Sizes) -> Plan {
    let n = s.stream_elems;
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![input("in", n, 61), output("out", n)],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::U64(n),
            Arg::F32(POLY_SCALE),
            Arg::F32(POLY_ADD),
        ],
        asked: asked(
            8.0 * n as f64,
            (1.0 + 2.0 * f64::from(POLY_DEGREE)) * n as f64,
            Precision::Fp32,
            format!("read + write n floats: 2 x 4 x n, n = {n}; 1 mul + {POLY_DEGREE} FMAs each (513 FLOPs)"),
        ),
    }
}

fn check_polynomial(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f32(1) {
        Ok(out) => checks::exact_f32("Horner degree 256", out, Coverage::Every(61), |i| {
            let x = hash_value(idx(i), seed) * POLY_SCALE;
            let mut acc = x;
            for _ in 0..POLY_DEGREE {
                acc = acc.mul_add(x, POLY_ADD);
            }
            acc
        }),
        Err(e) => checks::broken("polynomial", &e),
    }
}
