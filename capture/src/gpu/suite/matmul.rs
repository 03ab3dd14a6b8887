//! The cache-resident FP32 matmul pair (`kernels/matmul.cu`): naive and 16 x 16 tiled, one
//! f64 reference for both.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid2, idx, input, output, Arg, Plan};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "matmul.cu";

/// The FP32 matmuls: naive, then tiled 16.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/matmul.cu"),
    kernels: &[
        KernelDef {
            function: "matmul_naive",
            name: "matmul, naive",
            file: FILE,
            role: Role::Suite,
            plan: plan_matmul_naive,
            check: check_matmul,
        },
        KernelDef {
            function: "matmul_tiled16",
            name: "matmul, tiled 16",
            file: FILE,
            role: Role::Suite,
            plan: plan_matmul_tiled,
            check: check_matmul,
        },
    ],
};

fn plan_matmul(s: &Sizes, tiled: bool) -> Plan {
    let d = s.matmul_dim;
    let (d64, n) = (f64::from(d), u64::from(d) * u64::from(d));
    let (bytes, formula) = if tiled {
        (
            (2.0 * d64.powi(3) / 16.0 + d64 * d64) * 4.0,
            format!("each of d^2 threads reads 2 x d/16 floats per tile step's loads of A and B (2 d^3 / 16) + writes 1: (2 d^3/16 + d^2) x 4, d = {d}"),
        )
    } else {
        (
            (2.0 * d64.powi(3) + d64 * d64) * 4.0,
            format!("each of d^2 threads reads a row of A and a column of B (2 d^3) + writes 1: (2 d^3 + d^2) x 4, d = {d}"),
        )
    };
    Plan {
        launch: grid2(d.div_ceil(16), d.div_ceil(16), [16, 16, 1]),
        buffers: vec![input("a", n, 31), input("b", n, 32), output("c", n)],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::I32(d as i32)],
        asked: asked(bytes, 2.0 * d64.powi(3), Precision::Fp32, formula),
    }
}

fn plan_matmul_naive(s: &Sizes) -> Plan {
    plan_matmul(s, false)
}

fn plan_matmul_tiled(s: &Sizes) -> Plan {
    plan_matmul(s, true)
}

fn check_matmul(s: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let d = s.matmul_dim as usize;
    let a: Vec<f32> = (0..d * d).map(|i| hash_value(idx(i), p.seed(0))).collect();
    let b: Vec<f32> = (0..d * d).map(|i| hash_value(idx(i), p.seed(1))).collect();
    // Reference in f64; tolerance scales with sum |a||b| (f32 accumulation of d terms).
    let reference: Vec<(f64, f64)> = crate::gpu::data::par_ranges(d, |rows| {
        let mut out = Vec::with_capacity(rows.len() * d);
        for r in rows {
            for c in 0..d {
                let (mut acc, mut mag) = (0.0f64, 0.0f64);
                for k in 0..d {
                    let (x, y) = (f64::from(a[r * d + k]), f64::from(b[k * d + c]));
                    acc += x * y;
                    mag += (x * y).abs();
                }
                out.push((acc, 1e-5 * mag + 1e-6));
            }
        }
        out
    })
    .into_iter()
    .flatten()
    .collect();
    match o.f32(2) {
        Ok(c) => checks::close_f32("C = A B against an f64 reference", c, Coverage::All, |i| {
            reference.get(i).copied().unwrap_or((f64::NAN, 0.0))
        }),
        Err(e) => checks::broken("matmul", &e),
    }
}
