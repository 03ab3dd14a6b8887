//! The kernel suite: every kernel declared once, with its CUDA source file, its launch shape,
//! the bytes and FLOPs it asks for (counted from its source), its buffers and arguments, and
//! its CPU reference check. The timed path (`capture run`) and the profiled path
//! (`capture run --profile-mode` under ncu) both build launches from [`KernelDef::plan`], so
//! the two can never drift apart. Nothing here touches CUDA: the runner executes plans.
//!
//! Problem sizes come from the device ([`Sizes::derive`]): streaming arrays are at least
//! eight times the L2 (rounded up to a power of two), the matmul pair is cache-resident
//! (512^3), the tensor-core matmul is 2048^3 (large enough to keep the tensor
//! cores busy, with no partial tile), the L2 copy works on buffers a quarter of the L2.

use shared::model::artifact::{AskedWork, Check, LaunchShape, Precision};

use super::checks::{self, Coverage};
use super::data::{hash_value, Outputs};

/// Threads per block of the one-dimensional kernels.
pub const BLOCK: u32 = 256;
/// Degree of the Horner polynomial (`kernels/polynomial.cu`).
pub const POLY_DEGREE: u32 = 256;
/// Horner steps of the FP64/FP32 pair (`kernels/precision.cu`).
pub const PAIR_STEPS: u32 = 64;
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
/// Diffusion coefficient of the heat stencil.
pub const HEAT_ALPHA: f32 = 0.2;
/// Smallest streaming size `--size` accepts.
pub const MIN_STREAM_ELEMS: u64 = 1 << 16;
/// Side of the tensor-core matmul (`kernels/tensor.cu`): 2048^3, 17.2 GFLOP, 8 MiB per
/// bf16 operand.
pub const TENSOR_DIM: u32 = 2048;
/// Block tile of the tensor-core matmul, rows and columns of C.
pub const TENSOR_TILE: u32 = 64;

/// The CUDA sources, embedded at build time: (file name under `kernels/`, text).
pub const SOURCES: &[(&str, &str)] = &[
    ("fill.cu", include_str!("../../../kernels/fill.cu")),
    ("ceilings.cu", include_str!("../../../kernels/ceilings.cu")),
    (
        "vector_add.cu",
        include_str!("../../../kernels/vector_add.cu"),
    ),
    (
        "transpose.cu",
        include_str!("../../../kernels/transpose.cu"),
    ),
    ("matmul.cu", include_str!("../../../kernels/matmul.cu")),
    ("tensor.cu", include_str!("../../../kernels/tensor.cu")),
    (
        "reduction.cu",
        include_str!("../../../kernels/reduction.cu"),
    ),
    ("stencil.cu", include_str!("../../../kernels/stencil.cu")),
    (
        "polynomial.cu",
        include_str!("../../../kernels/polynomial.cu"),
    ),
    ("fusion.cu", include_str!("../../../kernels/fusion.cu")),
    (
        "precision.cu",
        include_str!("../../../kernels/precision.cu"),
    ),
];

/// What the runner needs to know about the device to size the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceFacts {
    /// L2 size, bytes.
    pub l2_bytes: u64,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Resident threads per SM at most.
    pub max_threads_per_sm: u32,
    /// Device memory, bytes.
    pub total_mem_bytes: u64,
}

/// Problem sizes of one run, derived from the device (or `--size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Elements of each streaming array (vector adds, reduction, polynomial, fusion, pair).
    pub stream_elems: u64,
    /// Floats per array of the copy, read and memcpy ceilings.
    pub ceiling_elems: u64,
    /// Side of the square matrices of the transposes and stencils.
    pub square_dim: u32,
    /// Side of the cache-resident matmul pair.
    pub matmul_dim: u32,
    /// Side of the tensor-core matmul (a multiple of its 64 x 64 tiles).
    pub tensor_dim: u32,
    /// Blocks of the L2 copy (each owns 256 x 4 float4s = 16 KiB of each buffer).
    pub l2_blocks: u32,
    /// Passes of the L2 copy over its buffers.
    pub l2_reps: u32,
    /// Blocks of the FMA ceiling and clock kernels (a full SM's worth of threads each SM).
    pub fma_blocks: u32,
}

/// Why sizes could not be derived.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SizeError(pub String);

impl std::fmt::Display for SizeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

fn pow2_floor(x: u64) -> u64 {
    if x == 0 {
        0
    } else {
        1 << (63 - x.leading_zeros())
    }
}

impl Sizes {
    /// Sizes for `dev`: streaming arrays the smallest power of two of at least 8 x L2 bytes
    /// (2^27 floats, 512 MiB, on a 60 MiB H200), or `stream_override` elements (a multiple
    /// of 1024, at least [`MIN_STREAM_ELEMS`]).
    pub fn derive(dev: &DeviceFacts, stream_override: Option<u64>) -> Result<Sizes, SizeError> {
        if dev.sm_count == 0 || dev.max_threads_per_sm < BLOCK {
            return Err(SizeError(format!(
                "device reports {} SMs and {} threads per SM; cannot size the suite",
                dev.sm_count, dev.max_threads_per_sm
            )));
        }
        let l2 = dev.l2_bytes.max(1 << 20);
        let stream_elems = match stream_override {
            Some(n) => {
                if n < MIN_STREAM_ELEMS || n % 1024 != 0 {
                    return Err(SizeError(format!(
                        "--size {n}: streaming arrays need a multiple of 1024 elements, at \
                         least {MIN_STREAM_ELEMS}"
                    )));
                }
                n
            }
            None => (8 * l2 / 4).next_power_of_two(),
        };
        // Two ceiling arrays of 4 x the streaming size, but at most a quarter of memory.
        let mem_cap = pow2_floor(dev.total_mem_bytes / 32).max(MIN_STREAM_ELEMS);
        let ceiling_elems = (4 * stream_elems).min(mem_cap.max(stream_elems));
        let square_dim = pow2_floor((stream_elems as f64).sqrt() as u64).clamp(256, 1 << 15) as u32;
        let mut matmul_dim = 512u32;
        while matmul_dim > 64 && 3 * u64::from(matmul_dim).pow(2) * 4 > l2 {
            matmul_dim /= 2;
        }
        let l2_blocks = ((l2 / 4) / (16 * 1024)).clamp(1, u64::from(dev.sm_count) * 4) as u32;
        let l2_buffer = u64::from(l2_blocks) * 16 * 1024;
        let l2_reps = ((4u64 << 30) / (2 * l2_buffer)).clamp(1, 4096) as u32;
        let fma_blocks = dev.sm_count * (dev.max_threads_per_sm / BLOCK);
        Ok(Sizes {
            stream_elems,
            ceiling_elems,
            square_dim,
            matmul_dim,
            tensor_dim: TENSOR_DIM,
            l2_blocks,
            l2_reps,
            fma_blocks,
        })
    }

    /// Floats in each L2-copy buffer.
    pub fn l2_elems(&self) -> u64 {
        u64::from(self.l2_blocks) * u64::from(BLOCK) * 4 * 4
    }

    /// Threads of the FMA ceiling.
    pub fn fma_threads(&self) -> u64 {
        u64::from(self.fma_blocks) * u64::from(BLOCK)
    }
}

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
    /// Input: element i is [`hash_value`]`(i, seed)`.
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

/// The role a kernel plays in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Measures a ceiling; its figure goes into the artifact's measured ceilings.
    Ceiling(CeilingKind),
    /// A teaching kernel placed on the roofline.
    Suite,
}

/// Which ceiling a ceiling kernel measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeilingKind {
    /// DRAM copy (and, beside it, the driver's memcpy of the same buffers).
    Copy,
    /// DRAM read-only stream.
    Read,
    /// L2-resident copy.
    L2Copy,
    /// FP32 FMA (and, around it, the held SM clock).
    Fma,
}

impl CeilingKind {
    /// The name of its measurement in the artifact's `ceilings.measurements`.
    pub fn as_str(self) -> &'static str {
        match self {
            CeilingKind::Copy => "copy",
            CeilingKind::Read => "read",
            CeilingKind::L2Copy => "l2_copy",
            CeilingKind::Fma => "fma",
        }
    }
}

/// A CPU reference check: compares the downloaded outputs with the reference.
pub type CheckFn = fn(&Sizes, &Plan, &Outputs) -> Check;

/// One kernel of the suite.
#[derive(Clone, Copy, Debug)]
pub struct KernelDef {
    /// The CUDA function name (extern "C", so ncu reports it as is); also the id `--kernels`
    /// takes.
    pub function: &'static str,
    /// Display name in the artifact and tables.
    pub name: &'static str,
    /// Source file under `kernels/`.
    pub file: &'static str,
    /// Ceiling or suite kernel.
    pub role: Role,
    /// Launch plan for given sizes.
    pub plan: fn(&Sizes) -> Plan,
    /// CPU reference check.
    pub check: CheckFn,
}

impl KernelDef {
    /// The source path as recorded in the artifact (`kernels/vector_add.cu`).
    pub fn source_path(&self) -> String {
        format!("kernels/{}", self.file)
    }
}

fn grid1(n: u64, per_block: u64) -> LaunchShape {
    LaunchShape {
        grid: [n.div_ceil(per_block).min(u64::from(u32::MAX)) as u32, 1, 1],
        block: [BLOCK, 1, 1],
        shared_mem_bytes: 0,
    }
}

fn grid2(x_blocks: u32, y_blocks: u32, block: [u32; 3]) -> LaunchShape {
    LaunchShape {
        grid: [x_blocks, y_blocks, 1],
        block,
        shared_mem_bytes: 0,
    }
}

fn input(name: &'static str, len: u64, seed: u64) -> BufferSpec {
    BufferSpec {
        name,
        elem: Elem::F32,
        len,
        fill: Fill::Hash(seed),
    }
}

fn output(name: &'static str, len: u64) -> BufferSpec {
    BufferSpec {
        name,
        elem: Elem::F32,
        len,
        fill: Fill::Poison,
    }
}

fn asked(bytes: f64, flops: f64, precision: Precision, formula: String) -> AskedWork {
    AskedWork {
        bytes,
        flops,
        precision,
        formula,
    }
}

fn idx(i: usize) -> u64 {
    i as u64
}

// ---------------------------------------------------------------------------------------
// Ceilings (kernels/ceilings.cu)
// ---------------------------------------------------------------------------------------

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
    let classes: Vec<f32> = super::data::par_ranges(16, |r| {
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

// ---------------------------------------------------------------------------------------
// Vector adds (kernels/vector_add.cu)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Transposes (kernels/transpose.cu)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Matmuls (kernels/matmul.cu)
// ---------------------------------------------------------------------------------------

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
    let reference: Vec<(f64, f64)> = super::data::par_ranges(d, |rows| {
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

// ---------------------------------------------------------------------------------------
// Tensor-core matmul (kernels/tensor.cu)
// ---------------------------------------------------------------------------------------

/// Fill seeds of the tensor-core matmul's A and B (stored transposed).
const TENSOR_SEEDS: (u64, u64) = (91, 92);

fn plan_matmul_bf16(s: &Sizes) -> Plan {
    let d = s.tensor_dim;
    let (d64, n) = (f64::from(d), u64::from(d) * u64::from(d));
    let tiles = d64 / f64::from(TENSOR_TILE);
    let bf16 = |name| BufferSpec {
        name,
        elem: Elem::Bf16,
        len: n,
        fill: Fill::Hash(if name == "a" {
            TENSOR_SEEDS.0
        } else {
            TENSOR_SEEDS.1
        }),
    };
    Plan {
        launch: grid2(d / TENSOR_TILE, d / TENSOR_TILE, [128, 1, 1]),
        buffers: vec![bf16("a"), bf16("bt"), output("c", n)],
        args: vec![
            Arg::Buf(0),
            Arg::Buf(1),
            Arg::Buf(2),
            Arg::I32(d as i32),
            Arg::I32(d as i32),
            Arg::I32(d as i32),
        ],
        asked: asked(
            2.0 * tiles * d64 * d64 * 2.0 + 4.0 * d64 * d64,
            2.0 * d64.powi(3),
            Precision::TensorBf16,
            format!(
                "each of the (d/64)^2 blocks reads a 64-row panel of A and of B, 64 x d bf16                  each, and writes its 64 x 64 floats: 2 x (d/64) x d^2 x 2 + 4 d^2 bytes;                  2 d^3 tensor FLOPs (d^3/4096 mma.m16n8k16 of 4096), d = {d}"
            ),
        ),
    }
}

fn check_matmul_bf16(s: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let d = u64::from(s.tensor_dim);
    let (sa, sb) = (p.seed(0), p.seed(1));
    match o.f32(2) {
        // Products of bf16 are exact in f64; the tensor cores accumulate in fp32.
        Ok(c) => checks::close_f32(
            "C = A B (bf16, tensor cores) against an f64 reference",
            c,
            Coverage::Every(61),
            |i| {
                let (row, col) = (i as u64 / d, i as u64 % d);
                let r = super::tensor::dot(super::tensor::Format::Bf16, (sa, sb), (row, col), d);
                (r.0, TENSOR_TOLERANCE.of(r))
            },
        ),
        Err(e) => checks::broken("bf16 matmul", &e),
    }
}

/// The tensor-core matmul's tolerance: fp32 accumulation and output.
const TENSOR_TOLERANCE: super::tensor::Tolerance = super::tensor::Tolerance {
    output: 1.0 / 1_048_576.0,
    accumulate: 1.0 / 16_384.0,
};

// ---------------------------------------------------------------------------------------
// Block reduction (kernels/reduction.cu)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Heat stencils (kernels/stencil.cu)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Polynomial (kernels/polynomial.cu)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// Fusion trio (kernels/fusion.cu)
// ---------------------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------------------
// FP64/FP32 pair (kernels/precision.cu)
// ---------------------------------------------------------------------------------------

const PAIR_ADD: f32 = 0.5;

fn plan_pair(s: &Sizes, elem: Elem) -> Plan {
    let n = s.stream_elems;
    let (width, precision, add) = if elem == Elem::F64 {
        (8.0, Precision::Fp64, Arg::F64(f64::from(PAIR_ADD)))
    } else {
        (4.0, Precision::Fp32, Arg::F32(PAIR_ADD))
    };
    let seed = if elem == Elem::F32 { 81 } else { 82 };
    Plan {
        launch: grid1(n, u64::from(BLOCK)),
        buffers: vec![
            BufferSpec {
                name: "in",
                elem,
                len: n,
                fill: Fill::Hash(seed),
            },
            BufferSpec {
                name: "out",
                elem,
                len: n,
                fill: Fill::Poison,
            },
        ],
        args: vec![Arg::Buf(0), Arg::Buf(1), Arg::U64(n), add],
        asked: asked(
            2.0 * width * n as f64,
            2.0 * f64::from(PAIR_STEPS) * n as f64,
            precision,
            format!(
                "read + write n {}-byte values: 2 x {width} x n, n = {n}; {PAIR_STEPS} FMAs each",
                width as u32
            ),
        ),
    }
}

fn plan_pair_f32(s: &Sizes) -> Plan {
    plan_pair(s, Elem::F32)
}

fn plan_pair_f64(s: &Sizes) -> Plan {
    plan_pair(s, Elem::F64)
}

fn check_pair_f32(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f32(1) {
        Ok(out) => checks::exact_f32("FP32 Horner, 64 steps", out, Coverage::Every(61), |i| {
            let x = hash_value(idx(i), seed);
            let mut acc = x;
            for _ in 0..PAIR_STEPS {
                acc = acc.mul_add(x, PAIR_ADD);
            }
            acc
        }),
        Err(e) => checks::broken("horner64_f32", &e),
    }
}

fn check_pair_f64(_: &Sizes, p: &Plan, o: &Outputs) -> Check {
    let seed = p.seed(0);
    match o.f64(1) {
        Ok(out) => checks::exact_f64("FP64 Horner, 64 steps", out, Coverage::Every(61), |i| {
            let x = f64::from(hash_value(idx(i), seed));
            let mut acc = x;
            for _ in 0..PAIR_STEPS {
                acc = acc.mul_add(x, f64::from(PAIR_ADD));
            }
            acc
        }),
        Err(e) => checks::broken("horner64_f64", &e),
    }
}

/// The whole suite in run order: ceilings first, then the teaching kernels.
pub const SUITE: &[KernelDef] = &[
    KernelDef {
        function: "copy_f4",
        name: "copy ceiling",
        file: "ceilings.cu",
        role: Role::Ceiling(CeilingKind::Copy),
        plan: plan_copy,
        check: check_copy,
    },
    KernelDef {
        function: "read_f4",
        name: "read ceiling",
        file: "ceilings.cu",
        role: Role::Ceiling(CeilingKind::Read),
        plan: plan_read,
        check: check_read,
    },
    KernelDef {
        function: "copy_l2_f4",
        name: "L2 copy ceiling",
        file: "ceilings.cu",
        role: Role::Ceiling(CeilingKind::L2Copy),
        plan: plan_l2_copy,
        check: check_l2_copy,
    },
    KernelDef {
        function: "fma_f32_chains",
        name: "FMA ceiling",
        file: "ceilings.cu",
        role: Role::Ceiling(CeilingKind::Fma),
        plan: plan_fma,
        check: check_fma,
    },
    KernelDef {
        function: "vector_add",
        name: "vector add",
        file: "vector_add.cu",
        role: Role::Suite,
        plan: plan_vector_add,
        check: check_vector_add,
    },
    KernelDef {
        function: "vector_add_stride32",
        name: "vector add, stride 32",
        file: "vector_add.cu",
        role: Role::Suite,
        plan: plan_vector_add,
        check: check_vector_add,
    },
    KernelDef {
        function: "transpose_naive",
        name: "transpose, naive",
        file: "transpose.cu",
        role: Role::Suite,
        plan: plan_transpose,
        check: check_transpose,
    },
    KernelDef {
        function: "transpose_tiled",
        name: "transpose, tiled",
        file: "transpose.cu",
        role: Role::Suite,
        plan: plan_transpose,
        check: check_transpose,
    },
    KernelDef {
        function: "matmul_naive",
        name: "matmul, naive",
        file: "matmul.cu",
        role: Role::Suite,
        plan: plan_matmul_naive,
        check: check_matmul,
    },
    KernelDef {
        function: "matmul_tiled16",
        name: "matmul, tiled 16",
        file: "matmul.cu",
        role: Role::Suite,
        plan: plan_matmul_tiled,
        check: check_matmul,
    },
    KernelDef {
        function: "matmul_bf16_mma",
        name: "matmul, bf16 tensor cores",
        file: "tensor.cu",
        role: Role::Suite,
        plan: plan_matmul_bf16,
        check: check_matmul_bf16,
    },
    KernelDef {
        function: "block_reduce",
        name: "block reduction",
        file: "reduction.cu",
        role: Role::Suite,
        plan: plan_reduce,
        check: check_reduce,
    },
    KernelDef {
        function: "heat_step_global",
        name: "stencil, global",
        file: "stencil.cu",
        role: Role::Suite,
        plan: plan_stencil_global,
        check: check_stencil,
    },
    KernelDef {
        function: "heat_step_tiled",
        name: "stencil, tiled",
        file: "stencil.cu",
        role: Role::Suite,
        plan: plan_stencil_tiled,
        check: check_stencil,
    },
    KernelDef {
        function: "polynomial_horner",
        name: "polynomial, 256",
        file: "polynomial.cu",
        role: Role::Suite,
        plan: plan_polynomial,
        check: check_polynomial,
    },
    KernelDef {
        function: "fusion_scale",
        name: "fusion: scale",
        file: "fusion.cu",
        role: Role::Suite,
        plan: plan_fusion_scale,
        check: check_fusion_scale,
    },
    KernelDef {
        function: "fusion_add",
        name: "fusion: add",
        file: "fusion.cu",
        role: Role::Suite,
        plan: plan_fusion_add,
        check: check_fusion_add,
    },
    KernelDef {
        function: "fusion_fused",
        name: "fusion: fused",
        file: "fusion.cu",
        role: Role::Suite,
        plan: plan_fusion_fused,
        check: check_fusion_fused,
    },
    KernelDef {
        function: "horner64_f32",
        name: "precision pair: FP32",
        file: "precision.cu",
        role: Role::Suite,
        plan: plan_pair_f32,
        check: check_pair_f32,
    },
    KernelDef {
        function: "horner64_f64",
        name: "precision pair: FP64",
        file: "precision.cu",
        role: Role::Suite,
        plan: plan_pair_f64,
        check: check_pair_f64,
    },
];

/// The kernels named in `--kernels` (function names), in suite order; all when empty.
/// Unknown names are an error listing the valid ones.
pub fn select(names: &[String]) -> Result<Vec<&'static KernelDef>, String> {
    if names.is_empty() {
        return Ok(SUITE.iter().collect());
    }
    if let Some(bad) = names
        .iter()
        .find(|n| !SUITE.iter().any(|k| k.function == n.as_str()))
    {
        let valid: Vec<&str> = SUITE.iter().map(|k| k.function).collect();
        return Err(format!(
            "unknown kernel '{bad}'; the suite has: {}",
            valid.join(", ")
        ));
    }
    Ok(SUITE
        .iter()
        .filter(|k| names.iter().any(|n| n == k.function))
        .collect())
}

/// The kernel-name filter for ncu that matches exactly the given kernels.
pub fn ncu_kernel_regex(kernels: &[&KernelDef]) -> String {
    let names: Vec<&str> = kernels.iter().map(|k| k.function).collect();
    format!("regex:^({})$", names.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::data::{HostData, POISON_BITS};

    const H200: DeviceFacts = DeviceFacts {
        l2_bytes: 62_914_560,
        sm_count: 132,
        max_threads_per_sm: 2048,
        total_mem_bytes: 150_000_000_000,
    };
    const T4: DeviceFacts = DeviceFacts {
        l2_bytes: 4 << 20,
        sm_count: 40,
        max_threads_per_sm: 1024,
        total_mem_bytes: 15_000_000_000,
    };

    fn sizes(dev: &DeviceFacts, n: Option<u64>) -> Sizes {
        Sizes::derive(dev, n).unwrap_or_else(|e| panic!("{e}"))
    }

    fn def(function: &str) -> &'static KernelDef {
        SUITE
            .iter()
            .find(|k| k.function == function)
            .unwrap_or_else(|| panic!("no {function}"))
    }

    #[test]
    fn h200_sizes_follow_its_l2() {
        let s = sizes(&H200, None);
        assert_eq!(
            s.stream_elems,
            1 << 27,
            "8 x 60 MiB rounded up to a power of two"
        );
        assert!(s.stream_elems * 4 >= 8 * H200.l2_bytes);
        assert_eq!(s.ceiling_elems, 1 << 29, "2 GiB per ceiling array");
        assert_eq!(s.square_dim, 8192, "256 MiB matrices, 4.3 x L2");
        assert_eq!(s.matmul_dim, 512, "three 1 MiB matrices stay in L2");
        assert_eq!(s.tensor_dim, 2048);
        assert_eq!(s.fma_blocks, 132 * 8, "2048 threads on every SM");
        assert_eq!(s.l2_blocks, 528);
        assert!(
            s.l2_elems() * 4 * 2 <= H200.l2_bytes / 2,
            "L2 copy fits in half the L2"
        );
        assert_eq!(s.l2_reps, 248);
    }

    #[test]
    fn t4_sizes_follow_its_l2() {
        let s = sizes(&T4, None);
        assert_eq!(s.stream_elems, 1 << 23);
        assert_eq!(s.square_dim, 2048);
        assert_eq!(s.matmul_dim, 512);
        assert_eq!(s.fma_blocks, 160);
        assert_eq!(s.l2_blocks, 64);
    }

    #[test]
    fn size_override_is_validated() {
        assert_eq!(sizes(&H200, Some(1 << 20)).stream_elems, 1 << 20);
        assert_eq!(sizes(&H200, Some(1 << 20)).ceiling_elems, 1 << 22);
        assert!(Sizes::derive(&H200, Some(1000)).is_err());
        assert!(Sizes::derive(&H200, Some((1 << 20) + 1)).is_err());
        let broken = DeviceFacts {
            sm_count: 0,
            ..H200
        };
        assert!(Sizes::derive(&broken, None).is_err());
    }

    /// The asked-for megabytes at fixed sizes (n = 2^24, 4096^2
    /// transpose, 2048^2 stencil, 512^3 matmul).
    #[test]
    fn asked_bytes_match_the_hand_counts() {
        let s = sizes(&T4, Some(1 << 24));
        let mb = |f: &str, s: &Sizes| (def(f).plan)(s).asked.bytes / 1e6;
        let close = |a: f64, b: f64| (a - b).abs() < 0.05;
        assert!(close(mb("vector_add", &s), 201.3));
        assert!(close(mb("vector_add_stride32", &s), 201.3));
        assert!(close(mb("matmul_naive", &s), 1074.8));
        assert!(close(mb("matmul_tiled16", &s), 68.2));
        assert!(close(mb("block_reduce", &s), 67.4));
        assert!(close(mb("polynomial_horner", &s), 134.2));
        let square = |d: u32| Sizes { square_dim: d, ..s };
        assert!(close(mb("transpose_naive", &square(4096)), 134.2));
        assert!(close(mb("heat_step_global", &square(2048)), 100.5));
        // The tiled stencil's count is this source's own (16 x 16 tiles, 1-cell apron).
        let tiled = (def("heat_step_tiled").plan)(&square(2048)).asked.bytes;
        assert_eq!(
            tiled,
            4.0 * (2048.0 * 2048.0 + 4.0 * 2048.0 * 127.0 + 2046.0 * 2046.0)
        );
        // FLOPs: 513 per polynomial element, 2 d^3 per matmul.
        assert_eq!(
            (def("polynomial_horner").plan)(&s).asked.flops,
            513.0 * f64::from(1 << 24)
        );
        assert_eq!(
            (def("matmul_naive").plan)(&s).asked.flops,
            2.0 * 512f64.powi(3)
        );
    }

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

    #[test]
    fn launch_shapes_cover_the_buffers_exactly() {
        for dev in [H200, T4] {
            let s = sizes(&dev, None);
            for k in SUITE {
                let p = (k.plan)(&s);
                let threads: u64 = p.launch.grid.iter().map(|&g| u64::from(g)).product::<u64>()
                    * p.launch
                        .block
                        .iter()
                        .map(|&b| u64::from(b))
                        .product::<u64>();
                let out = p
                    .buffers
                    .iter()
                    .find(|b| b.fill == Fill::Poison)
                    .unwrap_or_else(|| panic!("{} has no output", k.function));
                let per_thread = match k.function {
                    "copy_f4" => 4,
                    "read_f4" => 16,
                    "copy_l2_f4" => 16,
                    "transpose_naive" | "transpose_tiled" => 4,
                    "matmul_bf16_mma" => 32,
                    _ => 1,
                };
                let covered = threads * per_thread;
                let expected = match k.function {
                    "read_f4" => p.buffers[0].len,
                    "block_reduce" => p.buffers[0].len,
                    _ => out.len,
                };
                assert_eq!(covered, expected, "{}: {threads} threads", k.function);
                assert!(
                    p.launch.block.iter().product::<u32>() <= 1024,
                    "{}",
                    k.function
                );
                for a in &p.args {
                    if let Arg::Buf(i) = a {
                        assert!(*i < p.buffers.len(), "{}", k.function);
                    }
                }
            }
        }
    }

    #[test]
    fn every_function_is_in_its_source_and_unique() {
        for k in SUITE {
            let src = SOURCES
                .iter()
                .find(|(f, _)| *f == k.file)
                .map(|(_, s)| *s)
                .unwrap_or_else(|| panic!("{} not embedded", k.file));
            assert!(
                src.contains(&format!("\n{}(", k.function))
                    || src.contains(&format!(" {}(", k.function)),
                "{} not defined in {}",
                k.function,
                k.file
            );
            assert_eq!(SUITE.iter().filter(|o| o.function == k.function).count(), 1);
        }
        assert!(
            SUITE.len() >= 15,
            "the issue asks for at least fifteen checks"
        );
    }

    #[test]
    fn selection_and_regex() {
        let all = select(&[]).unwrap_or_default();
        assert_eq!(all.len(), SUITE.len());
        let two = select(&["matmul_naive".into(), "copy_f4".into()]).unwrap_or_default();
        assert_eq!(
            two.iter().map(|k| k.function).collect::<Vec<_>>(),
            ["copy_f4", "matmul_naive"],
            "suite order"
        );
        let err = select(&["nope".into()]).err().unwrap_or_default();
        assert!(
            err.contains("unknown kernel 'nope'") && err.contains("vector_add"),
            "{err}"
        );
        assert_eq!(ncu_kernel_regex(&two), "regex:^(copy_f4|matmul_naive)$");
    }

    /// Small sizes for the reference checks.
    fn small() -> Sizes {
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

    fn outputs(p: &Plan, index: usize, data: Vec<f32>) -> Outputs {
        let mut o = Outputs::with_len(p.buffers.len());
        o.set(index, HostData::F32(data));
        o
    }

    fn input_of(p: &Plan, i: usize) -> Vec<f32> {
        (0..p.buffers[i].len)
            .map(|k| hash_value(k, p.seed(i)))
            .collect()
    }

    /// Runs a kernel's check on host-emulated output, then on the same output with one
    /// element changed: the first must pass, the second fail.
    fn pass_then_fail(function: &str, out_index: usize, emulated: Vec<f32>, poke: usize) {
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

    #[test]
    fn vector_add_reference() {
        let p = plan_vector_add(&small());
        let (a, b) = (input_of(&p, 0), input_of(&p, 1));
        let c: Vec<f32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
        pass_then_fail("vector_add", 2, c.clone(), 12_345);
        pass_then_fail("vector_add_stride32", 2, c, 7);
    }

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

    #[test]
    fn reduction_and_read_references() {
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
    fn bf16_matmul_reference_and_hand_counts() {
        use crate::gpu::tensor::{input_value, Format};
        let s = small();
        let p = plan_matmul_bf16(&s);
        let d = s.tensor_dim as usize;
        let value = |i: usize, seed: u64| input_value(Format::Bf16, i as u64, seed) as f32;
        let a: Vec<f32> = (0..d * d).map(|i| value(i, p.seed(0))).collect();
        let bt: Vec<f32> = (0..d * d).map(|i| value(i, p.seed(1))).collect();
        // The kernel's arithmetic on the host: fp32 accumulation along k.
        let c: Vec<f32> = (0..d * d)
            .map(|i| {
                let (r, col) = (i / d, i % d);
                (0..d).fold(0.0f32, |acc, k| a[r * d + k].mul_add(bt[col * d + k], acc))
            })
            .collect();
        pass_then_fail("matmul_bf16_mma", 2, c, 61 * 3);
        // bf16 inputs truncated from the hash, as fill_gemm writes them.
        assert_eq!(a[0].to_bits() & 0xFFFF, 0);
        // FLOPs from the kernel's structure: blocks x 4 warps x d/32 slices x 16 mma per
        // warp and slice x 4096 FLOPs per m16n8k16 mma = 2 d^3, all on tensor cores.
        let d = f64::from(TENSOR_DIM);
        let h200 = plan_matmul_bf16(&sizes(&H200, None));
        let mma_flops = (d / 64.0).powi(2) * 4.0 * (d / 32.0) * 16.0 * 4096.0;
        assert_eq!(h200.asked.flops, mma_flops);
        assert_eq!(h200.asked.flops, 2.0 * 2048f64.powi(3));
        assert_eq!(h200.asked.precision, Precision::TensorBf16);
        // Bytes: each block reads 64 x d of A and of B (2 bytes each), writes 64 x 64 floats.
        let blocks = (d / 64.0).powi(2);
        assert_eq!(
            h200.asked.bytes,
            blocks * (2.0 * 64.0 * d * 2.0 + 64.0 * 64.0 * 4.0)
        );
        assert_eq!(h200.launch.grid, [32, 32, 1]);
        assert_eq!(TENSOR_DIM % TENSOR_TILE, 0, "no partial tile");
    }

    /// Everything the suite declares, rendered: each kernel's identity and role, its plan
    /// (launch, buffers, arguments, asked bytes, FLOPs and formula) on an H200 and a T4, and
    /// what its CPU reference says of an all-zero output at small sizes (the first expected
    /// value and the largest difference, which pin the reference). Compared with
    /// `tests/golden/suite_plans.txt`; `BLESS=1` rewrites that file.
    #[test]
    fn the_suite_matches_its_golden_rendering() {
        use std::fmt::Write as _;
        let mut out = String::new();
        let files: Vec<&str> = SOURCES.iter().map(|(f, _)| *f).collect();
        let _ = writeln!(out, "sources: {}", files.join(", "));
        for (label, s) in [("H200", sizes(&H200, None)), ("T4", sizes(&T4, None))] {
            let _ = writeln!(out, "\n# {label}: {s:?}");
            for k in SUITE {
                let _ = writeln!(
                    out,
                    "{} | {} | {} | {:?}\n  {:?}",
                    k.function,
                    k.name,
                    k.source_path(),
                    k.role,
                    (k.plan)(&s)
                );
            }
        }
        let s = small();
        let _ = writeln!(out, "\n# checks of an all-zero output, {s:?}");
        for k in SUITE {
            let p = (k.plan)(&s);
            let mut o = Outputs::with_len(p.buffers.len());
            for (i, b) in p.buffers.iter().enumerate() {
                if b.fill == Fill::Poison {
                    let len = b.len as usize;
                    o.set(
                        i,
                        match b.elem {
                            Elem::F64 => HostData::F64(vec![0.0; len]),
                            _ => HostData::F32(vec![0.0; len]),
                        },
                    );
                }
            }
            let _ = writeln!(out, "{}: {:?}", k.function, (k.check)(&s, &p, &o));
        }
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/suite_plans.txt");
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&path, &out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            golden == out,
            "{} differs from the suite (BLESS=1 rewrites it):\n{out}",
            path.display()
        );
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
