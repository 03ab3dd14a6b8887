//! The suite's problem sizes, derived from the device (or `--size`): streaming arrays at least
//! eight times the L2, the matmul pair cache-resident, the L2 copy a quarter of the L2.

use super::plan::BLOCK;

/// Side of the tensor-core matmul (`kernels/tensor.cu`): 2048^3, 17.2 GFLOP, 8 MiB per
/// bf16 operand.
pub const TENSOR_DIM: u32 = 2048;

/// Smallest streaming size `--size` accepts.
pub const MIN_STREAM_ELEMS: u64 = 1 << 16;

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::suite::testing::{sizes, H200, T4};

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
}
