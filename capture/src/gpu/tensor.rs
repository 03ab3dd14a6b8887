//! The tensor-core ceilings, without CUDA: which GEMM measures each kind of tensor work
//! ([`GEMMS`]), the element formats and their inputs (mirroring `fill_gemm` in
//! `kernels/fill.cu` bit for bit), the CPU reference of sampled output elements, and the
//! arithmetic that turns a timed GEMM into the artifact's [`TensorCeiling`].
//!
//! [`super::blas`] runs the GEMMs through cuBLASLt; the suite's own tensor-core kernel
//! (`kernels/tensor.cu`) shares the bf16 inputs and the reference ([`dot`]).

use shared::analysis::work::device_peak;
use shared::model::artifact::{
    Check, ComputeCapability, DeviceInfo, MeasuredCeilings, TensorCeiling,
};
use shared::model::roofline::giga_per_s;
use shared::model::work_kind::Work;

use super::checks::{self, Coverage};
use super::data::{hash_bits, unit_of, HostBits};

/// An element format of a GEMM operand, as it lies in device memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// bfloat16: 8 exponent bits, 7 mantissa bits.
    Bf16,
    /// IEEE half: 5 exponent bits, 10 mantissa bits.
    Fp16,
    /// FP8 E4M3: 4 exponent bits, 3 mantissa bits.
    E4m3,
    /// An f32 whose 13 low mantissa bits are zero, so it is exactly a TF32 value.
    Tf32,
    /// Signed 8-bit integer.
    Int8,
    /// IEEE double.
    Fp64,
    /// IEEE single (an output).
    Fp32,
    /// Signed 32-bit integer (an output).
    Int32,
}

impl Format {
    /// Bytes per element.
    pub const fn width(self) -> u64 {
        match self {
            Format::E4m3 | Format::Int8 => 1,
            Format::Bf16 | Format::Fp16 => 2,
            Format::Tf32 | Format::Fp32 | Format::Int32 => 4,
            Format::Fp64 => 8,
        }
    }

    /// The format code `fill_gemm` takes (`kernels/fill.cu`); outputs have none and share
    /// the code of their width's input.
    pub const fn fill_code(self) -> i32 {
        match self {
            Format::Bf16 => 0,
            Format::Fp16 => 1,
            Format::E4m3 => 2,
            Format::Tf32 | Format::Fp32 | Format::Int32 => 3,
            Format::Int8 => 4,
            Format::Fp64 => 5,
        }
    }

    /// The 32-bit pattern an output of this format is poisoned with before a checked
    /// launch: a NaN in every float format, `i32::MIN` (no sum of these inputs) for int32.
    pub const fn poison_word(self) -> u32 {
        match self {
            Format::Int32 | Format::Int8 => 0x8000_0000,
            _ => 0xFFFF_FFFF,
        }
    }

    /// The value of the bit pattern `bits` (the element's width, low bits); NaN for the
    /// poison pattern (of the formats that are outputs). FP16 and E4M3 decode finite
    /// patterns only: the inputs never hold anything else.
    pub fn decode(self, bits: u64) -> f64 {
        match self {
            Format::Bf16 => f64::from(f32::from_bits(((bits as u32) & 0xFFFF) << 16)),
            Format::Tf32 | Format::Fp32 => f64::from(f32::from_bits(bits as u32)),
            Format::Fp64 => f64::from_bits(bits),
            Format::Int8 => f64::from(bits as u8 as i8),
            Format::Int32 => {
                let v = bits as u32 as i32;
                if v == i32::MIN {
                    f64::NAN
                } else {
                    f64::from(v)
                }
            }
            Format::Fp16 => decode_small_float(bits & 0xFFFF, 10, 5, 15),
            Format::E4m3 => decode_small_float(bits & 0xFF, 3, 4, 7),
        }
    }

    /// A short name (`bf16`).
    pub fn name(self) -> &'static str {
        match self {
            Format::Bf16 => "bf16",
            Format::Fp16 => "fp16",
            Format::E4m3 => "fp8 e4m3",
            Format::Tf32 => "tf32",
            Format::Int8 => "int8",
            Format::Fp64 => "fp64",
            Format::Fp32 => "fp32",
            Format::Int32 => "int32",
        }
    }
}

/// The value of a finite pattern of a small float format with `mant` mantissa bits, `exp` exponent
/// bits and exponent bias `bias`.
fn decode_small_float(bits: u64, mant: u32, exp: u32, bias: i32) -> f64 {
    let sign = if bits >> (mant + exp) & 1 == 1 {
        -1.0
    } else {
        1.0
    };
    let e = ((bits >> mant) & ((1 << exp) - 1)) as i32;
    let m = (bits & ((1 << mant) - 1)) as f64 / f64::from(1u32 << mant);
    if e == 0 {
        // Zero or subnormal.
        return sign * m * 2f64.powi(1 - bias);
    }
    sign * (1.0 + m) * 2f64.powi(e - bias)
}

/// The bit pattern of input element `i` of format `f` under `seed`: what `fill_gemm` writes
/// (`kernels/fill.cu`), the low `width` bytes used.
pub fn input_bits(f: Format, i: u64, seed: u64) -> u64 {
    let z = hash_bits(i, seed);
    let b = unit_of(z).to_bits();
    let e = (b >> 23) & 0xFF;
    u64::from(match f {
        Format::Bf16 => b >> 16,
        Format::Fp16 => {
            let mut h = (b >> 16) & 0x8000;
            if e >= 113 {
                h |= ((e - 112) << 10) | ((b >> 13) & 0x3FF);
            }
            h
        }
        Format::E4m3 => {
            let mut q = (b >> 24) & 0x80;
            if e >= 121 {
                q |= ((e - 120) << 3) | ((b >> 20) & 0x7);
            }
            q
        }
        Format::Tf32 | Format::Fp32 | Format::Int32 => b & 0xFFFF_E000,
        Format::Int8 => (z >> 56) as u32,
        Format::Fp64 => return f64::from(unit_of(z)).to_bits(),
    })
}

/// The value of input element `i` of format `f` under `seed`.
pub fn input_value(f: Format, i: u64, seed: u64) -> f64 {
    f.decode(input_bits(f, i, seed))
}

/// `sum_k a[row_a * k + kk] * b[row_b * k + kk]` over the `k` inputs of format `f`, in f64,
/// and the sum of the magnitudes of its terms (the scale of any rounding error): element
/// (`row_a`, `row_b`) of a product of two matrices stored k-contiguous.
pub fn dot(f: Format, seeds: (u64, u64), rows: (u64, u64), k: u64) -> (f64, f64) {
    let (mut sum, mut mag) = (0.0f64, 0.0f64);
    for kk in 0..k {
        let x = input_value(f, rows.0 * k + kk, seeds.0);
        let y = input_value(f, rows.1 * k + kk, seeds.1);
        sum += x * y;
        mag += (x * y).abs();
    }
    (sum, mag)
}

/// How far an element may be from the f64 reference: `output` x |reference| (the rounding
/// of the stored result) + `accumulate` x the sum of |terms| (the accumulator's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Relative rounding of the output format.
    pub output: f64,
    /// Error of the accumulation, relative to the sum of the terms' magnitudes.
    pub accumulate: f64,
}

impl Tolerance {
    /// The allowed difference for a reference `(sum, magnitude)`.
    pub fn of(&self, (sum, mag): (f64, f64)) -> f64 {
        self.output * sum.abs() + self.accumulate * mag
    }
}

/// One tensor ceiling's GEMM: D (M x N) = A^T B, with A stored K x M and B K x N, both
/// column-major (so both are read along k: cuBLAS's "TN", the layout FP8 and INT8 need),
/// square, with inputs from `fill_gemm`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GemmSpec {
    /// The kind of work it measures.
    pub work: Work,
    /// Format of A and B.
    pub input: Format,
    /// Format of D.
    pub output: Format,
    /// What the tensor cores accumulate in, for people.
    pub accumulate: &'static str,
    /// M = N = K.
    pub dim: u64,
    /// Fill seeds of A and B.
    pub seeds: (u64, u64),
    /// Allowed difference from the reference.
    pub tolerance: Tolerance,
}

/// FP32 accumulation: products exact, sums rounded (truncated on some tensor cores) at
/// every step; 2^-14 of the terms' magnitudes bounds it with room at K = 8192.
const FP32_ACC: f64 = 1.0 / 16_384.0;

/// Every tensor ceiling `capture run` measures, in [`Work::ALL`] order. Square GEMMs of
/// 8192 (about 1.1 T operations, long enough that launch cost vanishes) for the 16- and
/// 8-bit types; 4096 for TF32 and FP64, whose peaks are 2 to 16 times lower.
pub const GEMMS: [GemmSpec; 6] = [
    GemmSpec {
        work: Work::TensorFp64,
        input: Format::Fp64,
        output: Format::Fp64,
        accumulate: "fp64",
        dim: 4096,
        seeds: (101, 102),
        tolerance: Tolerance {
            output: 0.0,
            accumulate: 1.0 / (1u64 << 36) as f64,
        },
    },
    GemmSpec {
        work: Work::TensorTf32,
        input: Format::Tf32,
        output: Format::Fp32,
        accumulate: "fp32",
        dim: 4096,
        seeds: (103, 104),
        tolerance: Tolerance {
            output: 1.0 / (1u64 << 23) as f64,
            accumulate: FP32_ACC,
        },
    },
    GemmSpec {
        work: Work::TensorFp16,
        input: Format::Fp16,
        output: Format::Fp16,
        accumulate: "fp32",
        dim: 8192,
        seeds: (105, 106),
        tolerance: Tolerance {
            output: 1.0 / 1024.0,
            accumulate: FP32_ACC,
        },
    },
    GemmSpec {
        work: Work::TensorBf16,
        input: Format::Bf16,
        output: Format::Bf16,
        accumulate: "fp32",
        dim: 8192,
        seeds: (107, 108),
        tolerance: Tolerance {
            output: 1.0 / 128.0,
            accumulate: FP32_ACC,
        },
    },
    GemmSpec {
        work: Work::TensorFp8,
        input: Format::E4m3,
        output: Format::Bf16,
        accumulate: "fp32, fast accumulation",
        dim: 8192,
        seeds: (109, 110),
        // Hopper's fast FP8 accumulation keeps fewer bits than fp32 (about 2 % relative
        // error reported at K = 4096): 2^-9 of the terms' magnitudes.
        tolerance: Tolerance {
            output: 1.0 / 128.0,
            accumulate: 1.0 / 512.0,
        },
    },
    GemmSpec {
        work: Work::TensorInt8,
        input: Format::Int8,
        output: Format::Int32,
        accumulate: "int32",
        dim: 8192,
        seeds: (111, 112),
        tolerance: Tolerance {
            output: 0.0,
            accumulate: 0.0,
        },
    },
];

/// Decodes output formats that are outputs here: FP16 outputs are normal numbers, zeros or
/// the poison; decoded like the inputs plus NaN for the all-ones pattern.
fn decode_output(f: Format, bits: u64) -> f64 {
    match f {
        Format::Fp16 if bits & 0xFFFF == 0xFFFF => f64::NAN,
        Format::Fp16 if bits & 0x7C00 == 0x7C00 => f64::INFINITY,
        _ => f.decode(bits),
    }
}

impl GemmSpec {
    /// Operations per GEMM: 2 M N K.
    pub fn ops(&self) -> f64 {
        2.0 * (self.dim as f64).powi(3)
    }

    /// Bytes of A, B and D.
    pub fn bytes(&self) -> f64 {
        let n2 = (self.dim * self.dim) as f64;
        n2 * (2.0 * self.input.width() as f64 + self.output.width() as f64)
    }

    /// Whether the device has tensor cores for this kind; `Err` says why not.
    pub fn supported(&self, cc: Option<ComputeCapability>) -> Result<(), String> {
        let Some(cc) = cc else {
            return Err("the device reports no compute capability".into());
        };
        let at_least = |major: u32, minor: u32, what: &str| {
            if (cc.major, cc.minor) >= (major, minor) {
                Ok(())
            } else {
                Err(format!(
                    "{what} tensor cores need compute capability {major}.{minor} or newer; this \
                     device is {cc}"
                ))
            }
        };
        match self.work {
            Work::TensorFp64 => {
                if matches!((cc.major, cc.minor), (8, 0) | (9, 0)) {
                    Ok(())
                } else {
                    Err(format!(
                        "FP64 tensor cores (DMMA) exist on compute capability 8.0 and 9.0 only; \
                         this device is {cc}"
                    ))
                }
            }
            Work::TensorFp16 => at_least(7, 0, "FP16"),
            Work::TensorInt8 => at_least(7, 5, "INT8"),
            Work::TensorBf16 => at_least(8, 0, "BF16"),
            Work::TensorTf32 => at_least(8, 0, "TF32"),
            Work::TensorFp8 => at_least(8, 9, "FP8"),
            other => Err(format!("no GEMM measures {}", other.label())),
        }
    }

    /// The types, for people: `bf16 in, fp32 accumulate, bf16 out`.
    pub fn types(&self) -> String {
        format!(
            "{} in, {} accumulate, {} out",
            self.input.name(),
            self.accumulate,
            self.output.name()
        )
    }

    /// Element `i` of D (column-major, M rows): `(reference, tolerance)`.
    pub fn reference(&self, i: usize) -> (f64, f64) {
        let m = i as u64 % self.dim;
        let n = i as u64 / self.dim;
        let r = dot(self.input, self.seeds, (m, n), self.dim);
        (r.0, self.tolerance.of(r))
    }

    /// Checks a downloaded D: every element written (none left poisoned), and sampled
    /// elements (every [`SAMPLE_STEP`]-th) within tolerance of the f64 reference.
    pub fn check(&self, d: &HostBits) -> Check {
        let what = format!(
            "D = A^T B ({}) against an f64 reference",
            self.output.name()
        );
        let cover = Coverage::Every(SAMPLE_STEP);
        let want = |i: usize| self.reference(i);
        let out = self.output;
        let n = (self.dim * self.dim) as usize;
        let got = match d {
            HostBits::U16(v) if out.width() == 2 => v.get(..n).map(|v| {
                checks::close_with(&what, v, cover, |b| decode_output(out, b.into()), want)
            }),
            HostBits::U32(v) if out.width() == 4 => v.get(..n).map(|v| {
                checks::close_with(&what, v, cover, |b| decode_output(out, b.into()), want)
            }),
            HostBits::U64(v) if out.width() == 8 => v
                .get(..n)
                .map(|v| checks::close_with(&what, v, cover, |b| decode_output(out, b), want)),
            _ => None,
        };
        got.unwrap_or_else(|| {
            checks::broken(&what, "D was not downloaded whole, or in another width")
        })
    }

    /// The artifact record of this GEMM, timed: the rate, the theoretical peak beside it, and
    /// the check joined with "the rate is at most the theoretical dense peak" (a faster
    /// ceiling means a miscount).
    pub fn record(
        &self,
        device: &DeviceInfo,
        means: String,
        timing: shared::model::artifact::Timing,
        check: Check,
    ) -> TensorCeiling {
        let measured = giga_per_s(self.ops(), timing.median_ms);
        let theoretical = device_peak(device, self.work);
        let bound = match (measured, theoretical) {
            (Some(m), Some(t)) => checks::condition(
                m <= t,
                format!(
                    "{m:.0} G{u}/s {} the theoretical dense peak {t:.0} G{u}/s",
                    if m <= t { "within" } else { "ABOVE" },
                    u = self.work.unit()
                ),
            ),
            (Some(_), None) => checks::condition(
                true,
                "no theoretical dense peak to compare with on this device".into(),
            ),
            (None, _) => checks::condition(false, "no positive event median".into()),
        };
        TensorCeiling {
            measured_gflop_per_s: measured,
            timing: Some(timing),
            check: Some(checks::both(check, bound)),
            means,
            ..self.not_measured(device, String::new())
        }
    }

    /// The artifact record of this GEMM, not measured, and why.
    pub fn not_measured(&self, device: &DeviceInfo, why: String) -> TensorCeiling {
        TensorCeiling {
            work: self.work,
            means: String::new(),
            m: self.dim,
            n: self.dim,
            k: self.dim,
            ops: self.ops(),
            bytes: self.bytes(),
            measured_gflop_per_s: None,
            theoretical_gflop_per_s: device_peak(device, self.work),
            timing: None,
            check: None,
            not_measured: (!why.is_empty()).then_some(why),
        }
    }
}

/// Sampled elements of D are every this many (a prime, so the samples visit many rows and
/// columns): 1,025 of 8192^2, 257 of 4096^2.
pub const SAMPLE_STEP: usize = 65_537;

/// Adds the tensor ceilings to the measured ceilings: every record, and the rate of each
/// whose check passed into `tensor_gflop_per_s`.
pub fn add_to(ceilings: &mut MeasuredCeilings, tensor: Vec<TensorCeiling>) {
    for t in &tensor {
        if let (Some(v), Some(c)) = (t.measured_gflop_per_s, &t.check) {
            if c.passed {
                ceilings.tensor_gflop_per_s.insert(t.work, v);
            }
        }
    }
    ceilings.tensor.extend(tensor);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::data::hash_value;

    #[test]
    fn inputs_are_exactly_the_truncated_hash_values() {
        for i in 0..20_000u64 {
            let x = hash_value(i, 5);
            let b = x.to_bits();
            let trunc = |mask: u32| f64::from(f32::from_bits(b & mask));
            assert_eq!(input_value(Format::Bf16, i, 5), trunc(0xFFFF_0000));
            assert_eq!(input_value(Format::Tf32, i, 5), trunc(0xFFFF_E000));
            assert_eq!(input_value(Format::Fp64, i, 5), f64::from(x));
            let fp16 = if x.abs() < 2f32.powi(-14) {
                0.0
            } else {
                trunc(0xFFFF_E000)
            };
            assert_eq!(input_value(Format::Fp16, i, 5), fp16, "{x}");
            let e4m3 = if x.abs() < 2f32.powi(-6) {
                0.0
            } else {
                trunc(0xFFF0_0000)
            };
            assert_eq!(input_value(Format::E4m3, i, 5), e4m3, "{x}");
            let v = input_value(Format::Int8, i, 5);
            assert!((-128.0..=127.0).contains(&v) && v == v.trunc());
        }
        // The patterns themselves, at a few known values: 1.0 and -0.5.
        assert_eq!(decode_small_float(0x3C00, 10, 5, 15), 1.0);
        assert_eq!(decode_small_float(0xB800, 10, 5, 15), -0.5);
        assert_eq!(decode_small_float(0x38, 3, 4, 7), 1.0);
        assert_eq!(decode_small_float(0xB0, 3, 4, 7), -0.5);
        assert_eq!(decode_small_float(0x3F, 3, 4, 7), 1.875);
    }

    #[test]
    fn int8_inputs_use_the_whole_range() {
        let (mut lo, mut hi) = (0.0f64, 0.0f64);
        for i in 0..10_000 {
            let v = input_value(Format::Int8, i, 1);
            lo = lo.min(v);
            hi = hi.max(v);
        }
        assert_eq!((lo, hi), (-128.0, 127.0));
    }

    #[test]
    fn every_gemm_counts_2mnk_and_its_bytes() {
        let bf16 = GEMMS
            .iter()
            .find(|g| g.work == Work::TensorBf16)
            .unwrap_or_else(|| panic!("bf16"));
        assert_eq!(bf16.ops(), 2.0 * 8192f64.powi(3));
        assert_eq!(bf16.bytes(), 3.0 * 2.0 * 8192f64.powi(2));
        let int8 = GEMMS
            .iter()
            .find(|g| g.work == Work::TensorInt8)
            .unwrap_or_else(|| panic!("int8"));
        assert_eq!(int8.bytes(), (1.0 + 1.0 + 4.0) * 8192f64.powi(2));
        let kinds: Vec<Work> = GEMMS.iter().map(|g| g.work).collect();
        let mut sorted = kinds.clone();
        sorted.sort();
        assert_eq!(kinds, sorted, "Work::ALL order");
        for g in GEMMS {
            assert!(g.work.is_tensor());
            assert_eq!(g.dim % 64, 0);
        }
    }

    #[test]
    fn support_follows_the_compute_capability() {
        let cc = |major, minor| Some(ComputeCapability { major, minor });
        let ok = |w: Work, c| {
            GEMMS
                .iter()
                .find(|g| g.work == w)
                .map(|g| g.supported(c).is_ok())
        };
        assert_eq!(ok(Work::TensorFp8, cc(9, 0)), Some(true));
        assert_eq!(ok(Work::TensorFp8, cc(8, 9)), Some(true));
        assert_eq!(ok(Work::TensorFp8, cc(8, 0)), Some(false));
        assert_eq!(ok(Work::TensorFp64, cc(8, 0)), Some(true));
        assert_eq!(ok(Work::TensorFp64, cc(8, 6)), Some(false));
        assert_eq!(ok(Work::TensorFp64, cc(9, 0)), Some(true));
        assert_eq!(ok(Work::TensorBf16, cc(7, 5)), Some(false));
        assert_eq!(ok(Work::TensorFp16, cc(7, 0)), Some(true));
        assert_eq!(ok(Work::TensorBf16, None), Some(false));
        let why = GEMMS[0].supported(cc(8, 6)).err().unwrap_or_default();
        assert!(why.contains("8.0 and 9.0") && why.contains("8.6"), "{why}");
    }

    /// A small GEMM of each format emulated on the host the device's way (fp32 or int32
    /// accumulation, then the output format's rounding), checked by the real check; one
    /// element changed, or one left poisoned, fails it.
    #[test]
    fn the_check_passes_an_emulated_gemm_and_fails_a_wrong_or_missing_element() {
        for g in GEMMS {
            let g = GemmSpec { dim: 64, ..g };
            let n = (g.dim * g.dim) as usize;
            let mut d: Vec<u64> = (0..n)
                .map(|i| {
                    let m = i as u64 % g.dim;
                    let col = i as u64 / g.dim;
                    let mut acc32 = 0.0f32;
                    let mut acc = 0.0f64;
                    for k in 0..g.dim {
                        let x = input_value(g.input, m * g.dim + k, g.seeds.0);
                        let y = input_value(g.input, col * g.dim + k, g.seeds.1);
                        acc32 += (x * y) as f32;
                        acc += x * y;
                    }
                    encode(g.output, acc32, acc)
                })
                .collect();
            let wrap = |d: &[u64]| match g.output.width() {
                2 => HostBits::U16(d.iter().map(|&b| b as u16).collect()),
                4 => HostBits::U32(d.iter().map(|&b| b as u32).collect()),
                _ => HostBits::U64(d.to_vec()),
            };
            let c = g.check(&wrap(&d));
            assert!(c.passed, "{:?}: {}", g.work, c.detail);
            // 64^2 = 4096 elements: only the first and the last are sampled.
            assert!(c.detail.contains("2 sampled of 4096"), "{}", c.detail);
            let saved = d[0];
            d[0] = encode(g.output, 1000.0, 1000.0);
            assert!(!g.check(&wrap(&d)).passed, "{:?}: wrong element", g.work);
            d[0] = saved;
            d[7] = u64::from(g.output.poison_word()) | (u64::from(g.output.poison_word()) << 32);
            let c = g.check(&wrap(&d));
            assert!(!c.passed, "{:?}: unwritten element", g.work);
            assert!(c.detail.contains("1 of 4096 never written"), "{}", c.detail);
            assert!(!g.check(&HostBits::U8(vec![0; n])).passed);
        }
    }

    /// The output bits of an accumulated value (f32 accumulator, or exact for int32/fp64).
    fn encode(f: Format, acc32: f32, exact: f64) -> u64 {
        match f {
            Format::Bf16 => {
                // Round to nearest even, as the GEMM's epilogue does.
                let b = acc32.to_bits();
                let r = b.wrapping_add(0x7FFF + ((b >> 16) & 1));
                u64::from(r >> 16)
            }
            Format::Fp16 => {
                // Values here are normal fp16 numbers; round the mantissa to 10 bits.
                let b = acc32.to_bits();
                let r = b.wrapping_add(0xFFF + ((b >> 13) & 1)) & 0xFFFF_E000;
                let e = (r >> 23) & 0xFF;
                let sign = (r >> 16) & 0x8000;
                if e < 113 {
                    u64::from(sign)
                } else {
                    u64::from(sign | ((e - 112) << 10) | ((r >> 13) & 0x3FF))
                }
            }
            Format::Fp32 | Format::Tf32 => u64::from(acc32.to_bits()),
            Format::Fp64 => exact.to_bits(),
            Format::Int32 => u64::from(exact as i32 as u32),
            _ => 0,
        }
    }

    #[test]
    fn records_carry_the_peak_and_flag_a_rate_above_it() {
        let device = shared::testing::h200();
        let bf16 = GEMMS[3];
        assert_eq!(bf16.work, Work::TensorBf16);
        let ok = checks::condition(true, "ok".into());
        let timing =
            |ms: f64| crate::gpu::stats::timing(3, vec![ms]).unwrap_or_else(|| panic!("timing"));
        // 1.0995e12 FLOPs in 1.4 ms: 785 TFLOP/s, under 4096 x 132 x 1.98 GHz = 1070.
        let r = bf16.record(&device, "cuBLASLt".into(), timing(1.4), ok.clone());
        let v = r.measured_gflop_per_s.unwrap_or_default();
        assert!((v - 785_365.4).abs() < 0.1, "{v}");
        let peak = r.theoretical_gflop_per_s.unwrap_or_default();
        assert!((peak - 1_070_530.0).abs() < 1.0, "{peak}");
        assert!(r.check.as_ref().is_some_and(|c| c.passed));
        // 0.9 ms would be 1,222 TFLOP/s: above the peak, so the check fails.
        let fast = bf16.record(&device, "cuBLASLt".into(), timing(0.9), ok);
        let c = fast.check.clone().unwrap_or_else(|| panic!("check"));
        assert!(!c.passed && c.detail.contains("ABOVE"), "{}", c.detail);
        let not = GEMMS[4].not_measured(&device, "no library".into());
        let mut ceilings = MeasuredCeilings::default();
        add_to(&mut ceilings, vec![r, fast, not]);
        assert_eq!(ceilings.tensor.len(), 3);
        assert_eq!(
            ceilings.tensor_gflop_per_s.keys().collect::<Vec<_>>(),
            [&Work::TensorBf16],
            "only the passed ceiling"
        );
        assert!((ceilings.tensor_gflop_per_s[&Work::TensorBf16] - v).abs() < 1e-9);
        assert_eq!(
            ceilings.tensor[2].not_measured.as_deref(),
            Some("no library")
        );
    }
}
