//! The vector adds (`kernels/vector_add.cu`): coalesced, and with a stride of 32 that wastes
//! most of every sector; the same plan and reference serve both.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid1, idx, input, output, Arg, Plan, BLOCK};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "vector_add.cu";

/// The vector adds: coalesced, then stride 32.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/vector_add.cu"),
    kernels: &[
        KernelDef {
            function: "vector_add",
            name: "vector add",
            file: FILE,
            role: Role::Suite,
            plan: plan_vector_add,
            check: check_vector_add,
        },
        KernelDef {
            function: "vector_add_stride32",
            name: "vector add, stride 32",
            file: FILE,
            role: Role::Suite,
            plan: plan_vector_add,
            check: check_vector_add,
        },
    ],
};

fn plan_vector_add(s: &Sizes) -> Plan {
    let n = s.stream_elems;
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![input("a", n, 11), input("b", n, 12), output("c", n)],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::U64(n)],
        asked: asked(
            12.0 * n as f64,
            n as f64,
            Precision::Fp32,
            format!("read a, b + write c: 3 x 4 x n, n = {n}; one add each"),
        ),
    }
}

fn check_vector_add(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let (sa, sb) = (p.seed(0), p.seed(1));
    match o.f32(2) {
        Ok(c) => checks::exact_f32("c = a + b", c, Coverage::All, |i| {
            hash_value(idx(i), sa) + hash_value(idx(i), sb)
        }),
        Err(e) => checks::broken("vector add", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::suite::testing::{input_of, pass_then_fail, small};

    #[test]
    fn vector_add_reference() {
        let p = plan_vector_add(&small());
        let (a, b) = (input_of(&p, 0), input_of(&p, 1));
        let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        pass_then_fail("vector_add", 2, c.clone(), 12_345);
        pass_then_fail("vector_add_stride32", 2, c, 7);
    }
}
