//! The heat stencils (`kernels/stencil.cu`): five-point, from global memory and through
//! shared-memory tiles; the boundary must stay unwritten.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid2, idx, input, output, Arg, Plan};
use super::sizes::Sizes;
use crate::gpu::checks;
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "stencil.cu";

/// The heat stencils: global, then tiled.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/stencil.cu"),
    kernels: &[
        KernelDef {
            function: "heat_step_global",
            name: "stencil, global",
            file: FILE,
            role: Role::Suite,
            plan: plan_stencil_global,
            check: check_stencil,
        },
        KernelDef {
            function: "heat_step_tiled",
            name: "stencil, tiled",
            file: FILE,
            role: Role::Suite,
            plan: plan_stencil_tiled,
            check: check_stencil,
        },
    ],
};

/// Diffusion coefficient of the heat stencil.
pub const HEAT_ALPHA: f32 = 0.2;

/// Global reads of `heat_step_tiled` on a d x d grid (d a multiple of 16): every point once,
/// plus a 16-cell apron on each side of every tile edge that is not the grid's edge.
pub fn tiled_stencil_reads(d: u64) -> u64 {
    d * d + 4 * d * (d / 16 - 1)
}

fn plan_stencil(s: &Sizes, tiled: bool) -> Plan {
    let d = s.square_dim;
    let d64 = u64::from(d);
    let n = d64 * d64;
    let interior = (d64 - 2) * (d64 - 2);
    let (bytes, formula) = if tiled {
        (
            4.0 * (tiled_stencil_reads(d64) + interior) as f64,
            format!(
                "read each point once + tile aprons (d^2 + 4 d (d/16 - 1)) + write the interior \
                 ((d-2)^2), x 4, d = {d}"
            ),
        )
    } else {
        (
            24.0 * interior as f64,
            format!("5 reads + 1 write per interior point: 6 x 4 x (d-2)^2, d = {d}"),
        )
    };
    Plan {
        launch: grid2(d / 16, d / 16, [16, 16, 1]),
        buffers: vec![input("in", n, 51), output("out", n)],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::I32(d as i32),
            Arg::I32(d as i32),
            Arg::F32(HEAT_ALPHA),
        ],
        asked: asked(bytes, 7.0 * interior as f64, Precision::Fp32, formula),
    }
}

fn plan_stencil_global(s: &Sizes) -> Plan {
    plan_stencil(s, false)
}

fn plan_stencil_tiled(s: &Sizes) -> Plan {
    plan_stencil(s, true)
}

fn check_stencil(s: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let d = s.square_dim as usize;
    let seed = p.seed(0);
    let at = |x: usize, y: usize| hash_value(idx(y * d + x), seed);
    let boundary = |i: usize| {
        let (x, y) = (i % d, i / d);
        x == 0 || y == 0 || x + 1 == d || y + 1 == d
    };
    match o.f32(1) {
        // The kernel must not touch the boundary: it has to stay poisoned.
        Ok(out) => checks::exact_f32_poisoned_where(
            "interior heat step (boundary must stay unwritten)",
            out,
            boundary,
            |i| {
                let (x, y) = (i % d, i / d);
                let c = at(x, y);
                let sum = (at(x, y - 1) + at(x, y + 1)) + (at(x - 1, y) + at(x + 1, y));
                HEAT_ALPHA.mul_add((-4.0f32).mul_add(c, sum), c)
            },
        ),
        Err(e) => checks::broken("stencil", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::data::POISON_BITS;
    use crate::gpu::suite::testing::{input_of, outputs, pass_then_fail, small};

    #[test]
    fn stencil_reference_leaves_the_boundary_poisoned() {
        let s = small();
        let p = plan_stencil(&s, false);
        let d = s.square_dim as usize;
        let input = input_of(&p, 0);
        let mut out = vec![f32::from_bits(POISON_BITS); d * d];
        for y in 1..d - 1 {
            for x in 1..d - 1 {
                let c = input[y * d + x];
                let sum = (input[(y - 1) * d + x] + input[(y + 1) * d + x])
                    + (input[y * d + x - 1] + input[y * d + x + 1]);
                out[y * d + x] = HEAT_ALPHA.mul_add((-4.0f32).mul_add(c, sum), c);
            }
        }
        pass_then_fail("heat_step_tiled", 1, out.clone(), d + 1);
        // Writing the boundary is a failure too.
        let mut touched = out;
        touched[0] = 1.0;
        let c = check_stencil(&s, &p, &outputs(&p, 1, touched));
        assert!(!c.passed, "{}", c.detail);
    }
}
