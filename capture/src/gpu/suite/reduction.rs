//! The block reduction (`kernels/reduction.cu`): a shared-memory tree per block, replayed
//! exactly on the host.

use shared::model::artifact::{Check, Precision};

use super::kernel::{Family, KernelDef, Role};
use super::plan::{asked, grid1, idx, input, output, Arg, Plan, BLOCK};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "reduction.cu";

/// The block reduction.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/reduction.cu"),
    kernels: &[KernelDef {
        function: "block_reduce",
        name: "block reduction",
        file: FILE,
        role: Role::Suite,
        plan: plan_reduce,
        check: check_reduce,
    }],
};

fn plan_reduce(s: &Sizes) -> Plan {
    let n = s.stream_elems;
    let blocks = n.div_ceil(u64::from(BLOCK));
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![input("in", n, 41), output("partial", blocks)],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::U64(n)],
        asked: asked(
            4.0 * (n + blocks) as f64,
            255.0 * blocks as f64,
            Precision::Fp32,
            format!(
                "read n + write one partial per block: 4 x (n + n/256), n = {n}; 255 adds per \
                 block tree"
            ),
        ),
    }
}

/// The exact partial `block_reduce` stores for block `b`: its shared-memory tree replayed.
pub fn reduce_block(b: u64, n: u64, seed: u64) -> f32 {
    let mut s = [0.0f32; 256];
    for (t, v) in s.iter_mut().enumerate() {
        let i = b * 256 + t as u64;
        *v = if i < n { hash_value(i, seed) } else { 0.0 };
    }
    let mut stride = 128;
    while stride > 0 {
        for t in 0..stride {
            s[t] += s[t + stride];
        }
        stride /= 2;
    }
    s[0]
}

fn check_reduce(s: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let (n, seed) = (s.stream_elems, p.seed(0));
    match o.f32(1) {
        Ok(partial) => checks::exact_f32("block partial sums", partial, Coverage::All, |b| {
            reduce_block(idx(b), n, seed)
        }),
        Err(e) => checks::broken("reduction", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::suite::testing::{input_of, pass_then_fail, small};

    #[test]
    fn reduction_reference_replays_the_block_tree() {
        let s = small();
        let p = plan_reduce(&s);
        let input = input_of(&p, 0);
        let partial: Vec<f32> = input
            .chunks(256)
            .map(|c| {
                let mut v = c.to_vec();
                let mut stride = 128;
                while stride > 0 {
                    for t in 0..stride {
                        v[t] += v[t + stride];
                    }
                    stride /= 2;
                }
                v[0]
            })
            .collect();
        pass_then_fail("block_reduce", 1, partial, 3);
    }
}
