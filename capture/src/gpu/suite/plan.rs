//! What a launch is made of: its buffers, arguments and asked work ([`Plan`]), and the small
//! builders the kernel families write their plans with.

use shared::model::artifact::{AskedWork, LaunchShape, Precision};

/// Threads per block of the one-dimensional kernels.
pub const BLOCK: u32 = 256;

/// Element type of a device buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// `float`.
    F32,
    /// `double`.
    F64,
    /// bf16, as 16-bit words (filled by `fill_gemm`; inputs only).
    Bf16,
}

/// How a buffer is initialized before the launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fill {
    /// Input: element i is [`hash_value`](crate::gpu::data::hash_value)`(i, seed)`.
    Hash(u64),
    /// Output: every bit set (NaN), downloaded and checked after the launch.
    Poison,
}

/// One device buffer of a launch.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferSpec {
    /// Name in the kernel's signature.
    pub name: &'static str,
    /// Element type.
    pub elem: Elem,
    /// Elements.
    pub len: u64,
    /// Initialization.
    pub fill: Fill,
}

/// One kernel argument, in signature order.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arg {
    /// A device buffer, by index into [`Plan::buffers`].
    Buf(usize),
    /// `unsigned long long`.
    U64(u64),
    /// `unsigned int`.
    U32(u32),
    /// `int`.
    I32(i32),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

/// Everything needed to launch a kernel once and to account for it.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    /// Grid and block.
    pub launch: LaunchShape,
    /// Buffers, inputs and outputs.
    pub buffers: Vec<BufferSpec>,
    /// Arguments in signature order.
    pub args: Vec<Arg>,
    /// Bytes and FLOPs asked for, per launch, counted from the source.
    pub asked: AskedWork,
}

impl Plan {
    /// The fill seed of buffer `index` (0 when it is an output).
    pub fn seed(&self, index: usize) -> u64 {
        match self.buffers.get(index).map(|b| b.fill) {
            Some(Fill::Hash(s)) => s,
            _ => 0,
        }
    }
}

pub(super) fn grid1(n: u64, per_block: u64) -> LaunchShape {
    LaunchShape {
        grid: [n.div_ceil(per_block).min(u64::from(u32::MAX)) as u32, 1, 1],
        block: [BLOCK, 1, 1],
        shared_mem_bytes: 0,
    }
}

pub(super) fn grid2(x_blocks: u32, y_blocks: u32, block: [u32; 3]) -> LaunchShape {
    LaunchShape {
        grid: [x_blocks, y_blocks, 1],
        block,
        shared_mem_bytes: 0,
    }
}

pub(super) fn input(name: &'static str, len: u64, seed: u64) -> BufferSpec {
    BufferSpec {
        name,
        elem: Elem::F32,
        len,
        fill: Fill::Hash(seed),
    }
}

pub(super) fn output(name: &'static str, len: u64) -> BufferSpec {
    BufferSpec {
        name,
        elem: Elem::F32,
        len,
        fill: Fill::Poison,
    }
}

pub(super) fn asked(bytes: f64, flops: f64, precision: Precision, formula: String) -> AskedWork {
    AskedWork {
        bytes,
        flops,
        precision,
        formula,
    }
}

pub(super) fn idx(i: usize) -> u64 {
    i as u64
}
