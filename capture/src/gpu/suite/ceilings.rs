//! The ceiling kernels (`kernels/ceilings.cu`): DRAM copy and read streams, an L2-resident copy
//! and FP32 FMA chains. Their figures become the artifact's measured ceilings; the clock kernel
//! beside the FMA chains is launched by `gpu::ceilings`, outside the suite.

use shared::model::artifact::{Check, LaunchShape, Precision};

use super::kernel::{CeilingKind, Family, KernelDef, Role};
use super::plan::{asked, grid1, idx, input, output, Arg, Plan, BLOCK};
use super::sizes::Sizes;
use crate::gpu::checks::{self, Coverage};
use crate::gpu::data::{hash_value, Outputs};

/// The source file under `kernels/`.
const FILE: &str = "ceilings.cu";

/// The ceilings, measured first: copy, read, L2 copy, FMA.
pub(super) const FAMILY: Family = Family {
    file: FILE,
    source: include_str!("../../../../kernels/ceilings.cu"),
    kernels: &[
        KernelDef {
            function: "copy_f4",
            name: "copy ceiling",
            file: FILE,
            role: Role::Ceiling(CeilingKind::Copy),
            plan: plan_copy,
            check: check_copy,
        },
        KernelDef {
            function: "read_f4",
            name: "read ceiling",
            file: FILE,
            role: Role::Ceiling(CeilingKind::Read),
            plan: plan_read,
            check: check_read,
        },
        KernelDef {
            function: "copy_l2_f4",
            name: "L2 copy ceiling",
            file: FILE,
            role: Role::Ceiling(CeilingKind::L2Copy),
            plan: plan_l2_copy,
            check: check_l2_copy,
        },
        KernelDef {
            function: "fma_f32_chains",
            name: "FMA ceiling",
            file: FILE,
            role: Role::Ceiling(CeilingKind::Fma),
            plan: plan_fma,
            check: check_fma,
        },
    ],
};

/// FMAs per chain per outer iteration of the FMA ceiling (`kernels/ceilings.cu`).
pub const FMA_UNROLL: u32 = 64;
/// Independent FMA chains per thread of the FMA ceiling.
pub const FMA_CHAINS: u32 = 8;
/// Outer iterations of the FMA ceiling: about 4 ms on an H200.
pub const FMA_OUTER: u32 = 1024;
/// Multiplier of the FMA recurrences, 1 + 2^-20: the chains grow slowly, never settle on a
/// fixed point, so a shortened loop gives a different answer.
pub const FMA_M: f32 = 1.0 + 1.0 / 1_048_576.0;
/// Addend of the FMA recurrences, 2^-20.
pub const FMA_C: f32 = 1.0 / 1_048_576.0;
/// Cycles the clock kernel spins for (about 10 ms at 2 GHz).
pub const CLOCK_CYCLES: i64 = 20_000_000;

fn plan_copy(s: &Sizes) -> Plan {
    let n = s.ceiling_elems;
    Plan {
        launch: grid1(n / 4, u64::from(BLOCK)),
        buffers: vec![input("in", n, 1), output("out", n)],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::U64(n / 4)],
        asked: asked(
            8.0 * n as f64,
            0.0,
            Precision::Fp32,
            format!("read + write n floats: 2 x 4 x n, n = {n}"),
        ),
    }
}

fn check_copy(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f32(1) {
        Ok(out) => checks::exact_f32("out = in", out, Coverage::All, |i| hash_value(idx(i), seed)),
        Err(e) => checks::broken("copy", &e),
    }
}

fn plan_read(s: &Sizes) -> Plan {
    // Twice the copy's array: a read-only pass is twice as fast, and the launch overhead
    // inside the event pair should stay as small a share as the copy's.
    let n = 2 * s.ceiling_elems;
    let warps = n / 512;
    Plan {
        launch: grid1(n / 4, 4 * u64::from(BLOCK)),
        buffers: vec![input("in", n, 2), output("warp_sums", warps)],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::U64(n / 4),
            Arg::F32(READ_KEY),
        ],
        asked: asked(
            4.0 * n as f64 + 4.0 * warps as f64,
            n as f64,
            Precision::Fp32,
            format!(
                "read n floats + write one sum per warp: 4 x n + 4 x n/512, n = {n}; 16 adds \
                 per thread of 16 floats"
            ),
        ),
    }
}

/// The run-time key of `read_f4`: no sum of sixteen values in [-1, 1) equals it, so only the
/// designated lane of each warp stores.
pub const READ_KEY: f32 = 1.0e30;

/// The exact sum `read_f4` stores for warp `w`: that of its lane `w % 32`, which adds its four
/// float4s in order.
pub fn read_warp_sum(w: u64, seed: u64) -> f32 {
    let t = w * 32 + w % 32;
    let (b, tid) = (t / u64::from(BLOCK), t % u64::from(BLOCK));
    let base = b * 4 * u64::from(BLOCK) + tid;
    let mut s = 0.0f32;
    for k in 0..4u64 {
        let f4 = base + k * u64::from(BLOCK);
        let v = |c: u64| hash_value(4 * f4 + c, seed);
        s += (v(0) + v(1)) + (v(2) + v(3));
    }
    s
}

fn check_read(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f32(1) {
        Ok(sums) => checks::exact_f32("warp sums", sums, Coverage::All, |w| {
            read_warp_sum(idx(w), seed)
        }),
        Err(e) => checks::broken("read", &e),
    }
}

fn plan_l2_copy(s: &Sizes) -> Plan {
    let n = s.l2_elems();
    Plan {
        launch: LaunchShape {
            grid: [s.l2_blocks, 1, 1],
            block: [BLOCK, 1, 1],
            shared_mem_bytes: 0,
        },
        buffers: vec![input("in", n, 3), output("out", n)],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::U32(s.l2_reps)],
        asked: asked(
            8.0 * n as f64 * f64::from(s.l2_reps),
            0.0,
            Precision::Fp32,
            format!(
                "reps x (read + write n floats): {} x 2 x 4 x n, n = {n} ({} KiB per buffer)",
                s.l2_reps,
                n * 4 / 1024
            ),
        ),
    }
}

fn check_l2_copy(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f32(1) {
        Ok(out) => checks::exact_f32("out = in", out, Coverage::All, |i| hash_value(idx(i), seed)),
        Err(e) => checks::broken("l2 copy", &e),
    }
}

fn plan_fma(s: &Sizes) -> Plan {
    let threads = s.fma_threads();
    let fmas = threads * u64::from(FMA_OUTER * FMA_UNROLL * FMA_CHAINS);
    Plan {
        launch: LaunchShape {
            grid: [s.fma_blocks, 1, 1],
            block: [BLOCK, 1, 1],
            shared_mem_bytes: 0,
        },
        buffers: vec![output("out", threads)],
        args: vec![
            Arg::Buf(0),
            Arg::F32(FMA_M),
            Arg::F32(FMA_C),
            Arg::I32(FMA_OUTER as i32),
        ],
        asked: asked(
            4.0 * threads as f64,
            2.0 * fmas as f64 + 7.0 * threads as f64,
            Precision::Fp32,
            format!(
                "{threads} threads x {FMA_OUTER} x {FMA_UNROLL} steps x {FMA_CHAINS} chains x 2 \
                 FLOPs + 7 adds per thread; one float stored per thread"
            ),
        ),
    }
}

/// What `fma_f32_chains` stores for a thread of class `class` (thread index mod 16): the
/// eight recurrences a <- fma(a, m, c), run `FMA_OUTER x FMA_UNROLL` times, summed in the
/// kernel's order.
pub fn fma_class_value(class: u32, outer: u32) -> f32 {
    let base = class as f32 * 0.0625;
    let mut a = [0.0f32; 8];
    for (k, v) in a.iter_mut().enumerate() {
        *v = base + k as f32 * 0.125;
    }
    for _ in 0..outer * FMA_UNROLL {
        for v in a.iter_mut() {
            *v = v.mul_add(FMA_M, FMA_C);
        }
    }
    ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]))
}

fn check_fma(_: &Sizes, _: &Plan, o: &Outputs) -> Check {
    let classes: Vec<f32> = crate::gpu::data::par_ranges(16, |r| {
        r.map(|c| fma_class_value(c as u32, FMA_OUTER))
            .collect::<Vec<_>>()
    })
    .into_iter()
    .flatten()
    .collect();
    match o.f32(0) {
        Ok(out) => checks::exact_f32(
            "host FMA recurrence (a shortened loop fails)",
            out,
            Coverage::All,
            |t| classes.get(t % 16).copied().unwrap_or(f32::NAN),
        ),
        Err(e) => checks::broken("fma", &e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::suite::testing::{input_of, pass_then_fail, small};

    #[test]
    fn read_reference_is_each_warps_designated_lane() {
        let s = small();
        let p = plan_read(&s);
        let warps = p.buffers[1].len as usize;
        let sums: Vec<f32> = (0..warps as u64)
            .map(|w| read_warp_sum(w, p.seed(0)))
            .collect();
        // Independently of the reference: warp w's stored sum is lane w % 32's, an f64 sum of
        // that thread's four float4s (block-strided) within rounding.
        let input = input_of(&p, 0);
        for (w, s) in sums.iter().enumerate().take(40) {
            let t = w * 32 + w % 32;
            let (b, lane) = (t / 256, t % 256);
            let mut exact = 0.0f64;
            for k in 0..4 {
                let f4 = b * 1024 + lane + k * 256;
                exact += (0..4).map(|c| f64::from(input[4 * f4 + c])).sum::<f64>();
            }
            assert!(
                (f64::from(*s) - exact).abs() < 1e-5,
                "warp {w}: {s} vs {exact}"
            );
        }
        pass_then_fail("read_f4", 1, sums, 1);
    }

    #[test]
    fn fma_recurrence_detects_a_shortened_loop() {
        let full = fma_class_value(3, 4);
        let short = fma_class_value(3, 3);
        assert_ne!(full.to_bits(), short.to_bits());
        assert!(full.is_finite());
        // The full-length chain at the real size neither settles nor overflows.
        let v = fma_class_value(15, FMA_OUTER);
        assert!(v.is_finite() && v > 8.0 && v < 100.0, "{v}");
    }
}
