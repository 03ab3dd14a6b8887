//! The fusion trio (`kernels/fusion.cu`): a scale and an add in two launches, and the same
//! work fused into one FMA pass.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid1, idx, input, output, Arg, Plan, BLOCK};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "fusion.cu";

/// The fusion trio: scale, add, fused.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/fusion.cu"),
    kernels: &[
        KernelDef {
            function: "fusion_scale",
            name: "fusion: scale",
            file: FILE,
            role: Role::Suite,
            plan: plan_fusion_scale,
            check: check_fusion_scale,
        },
        KernelDef {
            function: "fusion_add",
            name: "fusion: add",
            file: FILE,
            role: Role::Suite,
            plan: plan_fusion_add,
            check: check_fusion_add,
        },
        KernelDef {
            function: "fusion_fused",
            name: "fusion: fused",
            file: FILE,
            role: Role::Suite,
            plan: plan_fusion_fused,
            check: check_fusion_fused,
        },
    ],
};

fn plan_fusion_scale(s: &Sizes) -> Plan {
    let n = s.stream_elems;
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![input("x", n, 71), input("a", n, 72), output("y", n)],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::U64(n)],
        asked: asked(
            12.0 * n as f64,
            n as f64,
            Precision::Fp32,
            format!("read x, a + write y: 3 x 4 x n, n = {n}; one mul each"),
        ),
    }
}

fn check_fusion_scale(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let (sx, sa) = (p.seed(0), p.seed(1));
    match o.f32(2) {
        Ok(y) => checks::exact_f32("y = a x", y, Coverage::All, |i| {
            hash_value(idx(i), sa) * hash_value(idx(i), sx)
        }),
        Err(e) => checks::broken("scale", &e),
    }
}

fn plan_fusion_add(s: &Sizes) -> Plan {
    let n = s.stream_elems;
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![input("y", n, 73), input("b", n, 74), output("out", n)],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::Buf(2), Arg::U64(n)],
        asked: asked(
            12.0 * n as f64,
            n as f64,
            Precision::Fp32,
            format!("read y, b + write out: 3 x 4 x n, n = {n}; one add each"),
        ),
    }
}

fn check_fusion_add(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let (sy, sb) = (p.seed(0), p.seed(1));
    match o.f32(2) {
        Ok(out) => checks::exact_f32("out = y + b", out, Coverage::All, |i| {
            hash_value(idx(i), sy) + hash_value(idx(i), sb)
        }),
        Err(e) => checks::broken("add", &e),
    }
}

fn plan_fusion_fused(s: &Sizes) -> Plan {
    let n = s.stream_elems;
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![
            input("x", n, 71),
            input("a", n, 72),
            input("b", n, 74),
            output("out", n),
        ],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::Buf(2),
            Arg::Buf(3),
            Arg::U64(n),
        ],
        asked: asked(
            16.0 * n as f64,
            2.0 * n as f64,
            Precision::Fp32,
            format!("read x, a, b + write out: 4 x 4 x n, n = {n}; one FMA each"),
        ),
    }
}

fn check_fusion_fused(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let (sx, sa, sb) = (p.seed(0), p.seed(1), p.seed(2));
    match o.f32(3) {
        Ok(out) => checks::exact_f32("out = fma(a, x, b)", out, Coverage::All, |i| {
            hash_value(idx(i), sa).mul_add(hash_value(idx(i), sx), hash_value(idx(i), sb))
        }),
        Err(e) => checks::broken("fused", &e),
    }
}

#[cfg(test)]
mod tests {

    use crate::gpu::suite::testing::{def, sizes, H200};

    #[test]
    fn fusion_moves_six_array_passes_against_four() {
        let s = sizes(&H200, None);
        let b = |f: &str| (def(f).plan)(&s).asked.bytes;
        assert_eq!(b("fusion_scale") + b("fusion_add"), 1.5 * b("fusion_fused"));
        let flops = |f: &str| (def(f).plan)(&s).asked.flops;
        assert_eq!(
            flops("fusion_scale") + flops("fusion_add"),
            flops("fusion_fused")
        );
    }
}
