//! The compute ceilings of an artifact's device per kind of work, G(FL)OP/s: the one
//! measured by `capture run` (the FP32 FMA kernel, a tensor-core GEMM whose check passed)
//! and the theoretical dense peak, each with where it came from. The table, the figures,
//! the exercises and the viewer's roofline all read them here.

use crate::analysis::work;
use crate::model::artifact::Artifact;
use crate::model::work_kind::Work;

/// The compute ceilings of one kind of work on an artifact's device, G(FL)OP/s, each with
/// where it came from.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ComputeCeilings {
    /// Theoretical dense peak from the device attributes ([`work::device_peak`]; FP32 as the
    /// artifact's own theoretical peak).
    pub theoretical: Option<f64>,
    /// Measured on the device by `capture run`: the FP32 FMA kernel, or a tensor-core GEMM
    /// whose check passed.
    pub measured: Option<f64>,
    /// Where `measured` came from, for people (`capture run: FP32 FMA kernel`).
    pub measured_source: Option<String>,
    /// Where `theoretical` came from, for people.
    pub theoretical_source: Option<&'static str>,
}

/// Where an FP32 theoretical peak comes from.
pub const FP32_PEAK_SOURCE: &str = "device attributes: 2 x FP32 lanes per SM x SMs x SM clock";

/// Where every other theoretical peak comes from ([`work::dense_flop_per_clock_per_sm`]).
pub const DENSE_PEAK_SOURCE: &str =
    "architecture whitepaper: dense FLOP (OP) per clock per SM x SMs x SM clock";

/// The compute ceilings of `kind` for `artifact`; `None` fields where the artifact or the
/// peak table has nothing (never a guess).
pub fn compute_ceilings(artifact: &Artifact, kind: Work) -> ComputeCeilings {
    let device = artifact.device.as_ref();
    let (theoretical, theoretical_from) = match kind {
        Work::Fp32 => (
            device.and_then(|d| d.peaks.fp32_gflop_per_s),
            FP32_PEAK_SOURCE,
        ),
        _ => (
            device.and_then(|d| work::device_peak(d, kind)),
            DENSE_PEAK_SOURCE,
        ),
    };
    let ceilings = artifact.ceilings.as_ref();
    let (measured, measured_source) = match kind {
        Work::Fp32 => {
            let v = ceilings.and_then(|c| c.fma_gflop_per_s);
            (v, v.map(|_| "capture run: FP32 FMA kernel".to_string()))
        }
        _ => {
            let v = ceilings.and_then(|c| c.tensor_gflop_per_s.get(&kind).copied());
            let means = ceilings
                .and_then(|c| c.tensor.iter().find(|t| t.work == kind))
                .map(|t| format!("capture run: {} ({} x {} x {})", t.means, t.m, t.n, t.k));
            (
                v,
                v.map(|_| means.unwrap_or_else(|| "capture run".to_string())),
            )
        }
    };
    ComputeCeilings {
        theoretical,
        measured,
        measured_source,
        theoretical_source: theoretical.map(|_| theoretical_from),
    }
}

/// [`compute_ceilings`] of every kind of work that has a measured or a theoretical ceiling
/// on `artifact`'s device, in [`Work::ALL`] order.
pub fn all_compute_ceilings(artifact: &Artifact) -> Vec<(Work, ComputeCeilings)> {
    Work::ALL
        .into_iter()
        .map(|w| (w, compute_ceilings(artifact, w)))
        .filter(|(_, c)| c.measured.is_some() || c.theoretical.is_some())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compute_ceilings_read_fma_and_passed_tensor_ceilings_with_their_sources() {
        use crate::model::artifact::{DeviceInfo, MeasuredCeilings, Provenance, TensorCeiling};
        let mut a = Artifact::new(Provenance::default());
        a.device = Some(DeviceInfo {
            peaks: crate::model::artifact::TheoreticalPeaks {
                fp32_gflop_per_s: Some(66_908.0),
                ..Default::default()
            },
            ..crate::testing::h200()
        });
        let mut c = MeasuredCeilings {
            fma_gflop_per_s: Some(64_000.0),
            ..MeasuredCeilings::default()
        };
        c.tensor_gflop_per_s.insert(Work::TensorBf16, 780_000.0);
        c.tensor.push(TensorCeiling {
            work: Work::TensorBf16,
            means: "cuBLASLt GEMM".into(),
            m: 8192,
            n: 8192,
            k: 8192,
            ops: 2.0 * 8192f64.powi(3),
            bytes: 0.0,
            measured_gflop_per_s: Some(780_000.0),
            theoretical_gflop_per_s: None,
            timing: None,
            check: None,
            not_measured: None,
        });
        a.ceilings = Some(c);
        let fp32 = compute_ceilings(&a, Work::Fp32);
        assert_eq!(fp32.measured, Some(64_000.0));
        assert_eq!(fp32.theoretical, Some(66_908.0));
        assert_eq!(
            fp32.measured_source.as_deref(),
            Some("capture run: FP32 FMA kernel")
        );
        assert_eq!(fp32.theoretical_source, Some(FP32_PEAK_SOURCE));
        let bf16 = compute_ceilings(&a, Work::TensorBf16);
        assert_eq!(bf16.measured, Some(780_000.0));
        let peak = bf16.theoretical.expect("H100-class peak");
        assert!((peak - 4096.0 * 132.0 * 1.98).abs() < 1e-6, "{peak}");
        assert_eq!(
            bf16.measured_source.as_deref(),
            Some("capture run: cuBLASLt GEMM (8192 x 8192 x 8192)")
        );
        assert_eq!(bf16.theoretical_source, Some(DENSE_PEAK_SOURCE));
        // FP8 has a peak but no measurement; INT1 neither, so it is not listed.
        let fp8 = compute_ceilings(&a, Work::TensorFp8);
        assert!(fp8.measured.is_none() && fp8.measured_source.is_none());
        assert!(fp8.theoretical.is_some());
        let all: Vec<Work> = all_compute_ceilings(&a)
            .into_iter()
            .map(|(w, _)| w)
            .collect();
        assert!(all.contains(&Work::TensorFp8) && !all.contains(&Work::TensorInt1));
        assert_eq!(all.first(), Some(&Work::Fp64));
    }
}
