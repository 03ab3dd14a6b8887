//! Test support shared by the kernel families' tests: two real devices' facts, small sizes for
//! the reference checks, and a check that must pass on emulated output and fail on a wrong one.

use super::{DeviceFacts, KernelDef, Plan, Sizes, SUITE};
use crate::gpu::data::{hash_value, HostData, Outputs};

/// An H200's facts.
pub(super) const H200: DeviceFacts = DeviceFacts {
    l2_bytes: 62_914_560,
    sm_count: 132,
    max_threads_per_sm: 2048,
    total_mem_bytes: 150_000_000_000,
};
/// A T4's facts.
pub(super) const T4: DeviceFacts = DeviceFacts {
    l2_bytes: 4 << 20,
    sm_count: 40,
    max_threads_per_sm: 1024,
    total_mem_bytes: 15_000_000_000,
};

/// The sizes of `dev`, or of a streaming override.
pub(super) fn sizes(dev: &DeviceFacts, n: Option<u64>) -> Sizes {
    Sizes::derive(dev, n).unwrap_or_else(|e| panic!("{e}"))
}

/// The suite's kernel `function`.
pub(super) fn def(function: &str) -> &'static KernelDef {
    SUITE
        .iter()
        .find(|k| k.function == function)
        .unwrap_or_else(|| panic!("no {function}"))
}

/// Small sizes for the reference checks.
pub(super) fn small() -> Sizes {
    Sizes {
        stream_elems: 1 << 16,
        ceiling_elems: 1 << 16,
        square_dim: 64,
        matmul_dim: 32,
        tensor_dim: 128,
        l2_blocks: 2,
        l2_reps: 1,
        fma_blocks: 2,
    }
}

/// Outputs of `p` with buffer `index` set to `data`.
pub(super) fn outputs(p: &Plan, index: usize, data: Vec<f32>) -> Outputs {
    let mut o = Outputs::with_len(p.buffers.len());
    o.set(index, HostData::F32(data));
    o
}

/// The fill of input buffer `i` of `p`.
pub(super) fn input_of(p: &Plan, i: usize) -> Vec<f32> {
    (0..p.buffers[i].len)
        .map(|k| hash_value(k, p.seed(i)))
        .collect()
}

/// Runs a kernel's check on host-emulated output, then on the same output with one
/// element changed: the first must pass, the second fail.
pub(super) fn pass_then_fail(function: &str, out_index: usize, emulated: Vec<f32>, poke: usize) {
    let s = small();
    let k = def(function);
    let p = (k.plan)(&s);
    let c = (k.check)(&s, &p, &outputs(&p, out_index, emulated.clone()));
    assert!(c.passed, "{function}: {}", c.detail);
    let mut bad = emulated;
    bad[poke] = if bad[poke] == 0.5 { 0.25 } else { 0.5 };
    let c = (k.check)(&s, &p, &outputs(&p, out_index, bad));
    assert!(!c.passed, "{function}: a wrong element must fail");
    let missing = (k.check)(&s, &p, &Outputs::with_len(p.buffers.len()));
    assert!(!missing.passed, "{function}: no output must fail");
}
