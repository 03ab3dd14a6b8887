//! The transposes (`kernels/transpose.cu`): naive, and tiled through shared memory; the same
//! plan and reference serve both.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid2, idx, input, output, Arg, Plan};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "transpose.cu";

/// The transposes: naive, then tiled.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/transpose.cu"),
    kernels: &[
        KernelDef {
            function: "transpose_naive",
            name: "transpose, naive",
            file: FILE,
            role: Role::Suite,
            plan: plan_transpose,
            check: check_transpose,
        },
        KernelDef {
            function: "transpose_tiled",
            name: "transpose, tiled",
            file: FILE,
            role: Role::Suite,
            plan: plan_transpose,
            check: check_transpose,
        },
    ],
};

fn plan_transpose(s: &Sizes) -> Plan {
    let d = s.square_dim;
    let n = u64::from(d) * u64::from(d);
    Plan {
        launch: grid2(d / 32, d / 32, [32, 8, 1]),
        buffers: vec![input("in", n, 21), output("out", n)],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::I32(d as i32),
            Arg::I32(d as i32),
        ],
        asked: asked(
            8.0 * n as f64,
            0.0,
            Precision::Fp32,
            format!("read + write a {d} x {d} matrix: 2 x 4 x d^2"),
        ),
    }
}

fn check_transpose(s: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let d = s.square_dim as usize;
    let seed = p.seed(0);
    match o.f32(1) {
        Ok(out) => checks::exact_f32("out[x][y] = in[y][x]", out, Coverage::All, |i| {
            let (x, y) = (i / d, i % d);
            hash_value(idx(y * d + x), seed)
        }),
        Err(e) => checks::broken("transpose", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::suite::testing::{input_of, pass_then_fail, small};

    #[test]
    fn transpose_reference_follows_the_kernel_indexing() {
        let s = small();
        let p = plan_transpose(&s);
        let d = s.square_dim as usize;
        let input = input_of(&p, 0);
        let mut out = vec![0.0f32; d * d];
        for y in 0..d {
            for x in 0..d {
                out[x * d + y] = input[y * d + x];
            }
        }
        pass_then_fail("transpose_naive", 1, out, 100);
    }
}
