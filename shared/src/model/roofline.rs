//! Roofline math: theoretical peaks from device attributes, operational intensity,
//! attainable performance, and which roof binds.
//!
//! Formulas: FP32 peak = 2 x SMs x FP32 lanes per SM x SM clock;
//! DRAM bandwidth = 2 x memory clock x bus width / 8; ridge = FP32 peak / bandwidth;
//! attainable = min(peak, OI x bandwidth); a compute peak at another SM clock = peak x
//! clock / the peak's clock. GB/s and GFLOP/s are decimal (10^9).

use serde::{Deserialize, Serialize};

use crate::model::artifact::TheoreticalPeaks;

/// FP32 lanes per SM by compute capability; `None` for an architecture this table does not
/// know, so a peak is never guessed.
///
/// Volta and Turing (7.x) and A100 (8.0) have 64; GA10x (8.6), Ada (8.9) and Hopper (9.0)
/// have 128.
pub fn fp32_lanes_per_sm(major: u32, minor: u32) -> Option<u32> {
    match (major, minor) {
        (7, _) | (8, 0) => Some(64),
        (8, 6) | (8, 7) | (8, 9) | (9, 0) => Some(128),
        _ => None,
    }
}

/// FP32 peak in GFLOP/s: 2 FLOPs per FMA x SMs x lanes x clock.
pub fn fp32_peak_gflop_per_s(sm_count: u32, lanes_per_sm: u32, sm_clock_khz: u64) -> f64 {
    2.0 * f64::from(sm_count) * f64::from(lanes_per_sm) * sm_clock_khz as f64 * 1e3 / 1e9
}

/// A compute peak `peak` (GFLOP/s or GOP/s, worked out or measured at the SM clock
/// `peak_clock_hz`) at the SM clock `clock_hz`: every compute peak is a count per SM cycle
/// times the clock, so it scales with it (1.61 GHz of 1.98: 81 %). DRAM bandwidth does not
/// (its own clock). `None` for a clock that is not positive.
pub fn peak_at_clock(peak: f64, peak_clock_hz: f64, clock_hz: f64) -> Option<f64> {
    (peak_clock_hz > 0.0 && clock_hz > 0.0).then(|| peak * clock_hz / peak_clock_hz)
}

/// DRAM bandwidth in GB/s: two transfers per memory clock over the whole bus.
pub fn dram_peak_gbyte_per_s(mem_clock_khz: u64, bus_width_bits: u32) -> f64 {
    2.0 * mem_clock_khz as f64 * 1e3 * f64::from(bus_width_bits) / 8.0 / 1e9
}

/// Theoretical peaks from attributes; any unknown input leaves the dependent peaks `None`.
pub fn theoretical_peaks(
    sm_count: Option<u32>,
    sm_clock_khz: Option<u64>,
    mem_clock_khz: Option<u64>,
    bus_width_bits: Option<u32>,
    lanes_per_sm: Option<u32>,
) -> TheoreticalPeaks {
    let fp32 = match (sm_count, lanes_per_sm, sm_clock_khz) {
        (Some(sms), Some(lanes), Some(clk)) => Some(fp32_peak_gflop_per_s(sms, lanes, clk)),
        _ => None,
    };
    let dram = match (mem_clock_khz, bus_width_bits) {
        (Some(clk), Some(bits)) => Some(dram_peak_gbyte_per_s(clk, bits)),
        _ => None,
    };
    TheoreticalPeaks {
        fp32_lanes_per_sm: lanes_per_sm,
        fp32_gflop_per_s: fp32,
        dram_gbyte_per_s: dram,
        ridge_flop_per_byte: ridge(fp32, dram),
    }
}

/// Ridge point, FLOP per byte: peak compute over peak bandwidth.
pub fn ridge(gflop_per_s: Option<f64>, gbyte_per_s: Option<f64>) -> Option<f64> {
    ratio(gflop_per_s?, gbyte_per_s?)
}

/// Operational intensity, FLOP per byte; `None` when no bytes moved.
pub fn intensity(flops: f64, bytes: f64) -> Option<f64> {
    ratio(flops, bytes)
}

/// Attainable GFLOP/s at an intensity: min(peak, OI x bandwidth).
pub fn attainable_gflop_per_s(flop_per_byte: f64, peak_gflop_per_s: f64, gbyte_per_s: f64) -> f64 {
    peak_gflop_per_s.min(flop_per_byte * gbyte_per_s)
}

/// Which roof limits a kernel at a given intensity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Bound {
    /// Left of the ridge: bandwidth limits.
    Memory,
    /// Right of (or on) the ridge: arithmetic limits.
    Compute,
}

impl Bound {
    /// Human name (`memory`, `compute`).
    pub fn as_str(self) -> &'static str {
        match self {
            Bound::Memory => "memory",
            Bound::Compute => "compute",
        }
    }
}

/// The roof that binds at this intensity: memory when OI x bandwidth is below the peak.
pub fn bound(flop_per_byte: f64, peak_gflop_per_s: f64, gbyte_per_s: f64) -> Bound {
    if flop_per_byte * gbyte_per_s < peak_gflop_per_s {
        Bound::Memory
    } else {
        Bound::Compute
    }
}

/// A count per second in units of 10^9 (GB/s from bytes, GFLOP/s from FLOPs) over a time in
/// milliseconds; `None` for a time that is not positive and finite. The one rate formula:
/// capture's ceilings, the bytes table and the viewer's points all call it.
pub fn giga_per_s(count: f64, time_ms: f64) -> Option<f64> {
    (time_ms > 0.0 && time_ms.is_finite()).then(|| count / (time_ms * 1e-3) / 1e9)
}

/// The SM clock in MHz held during a spin of `cycles` clock cycles that took `time_ms`
/// (capture's clock kernel spins on `clock64()` until the count has passed).
pub fn held_clock_mhz(cycles: f64, time_ms: f64) -> Option<f64> {
    (time_ms > 0.0 && time_ms.is_finite()).then(|| cycles / (time_ms * 1e3))
}

/// `value` as a percentage of `of` (a ceiling, a peak); `None` when `of` is not positive.
pub fn percent_of(value: f64, of: f64) -> Option<f64> {
    (of > 0.0).then(|| 100.0 * value / of)
}

/// A ratio of two counts (DRAM over asked bytes, sectors over requests); `None` when the
/// denominator is not positive.
pub fn ratio(numerator: f64, denominator: f64) -> Option<f64> {
    (denominator > 0.0).then(|| numerator / denominator)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn t4_peaks_from_its_attributes() {
        // Tesla T4: 40 SMs, 1590 MHz, 5001 MHz memory, 256-bit bus, 64 lanes (7.5).
        let lanes = fp32_lanes_per_sm(7, 5);
        assert_eq!(lanes, Some(64));
        let p = theoretical_peaks(Some(40), Some(1_590_000), Some(5_001_000), Some(256), lanes);
        let fp32 = p.fp32_gflop_per_s.expect("fp32");
        let bw = p.dram_gbyte_per_s.expect("bw");
        assert_eq!(fp32.round(), 8141.0);
        assert_eq!(bw.round(), 320.0);
        assert!(close(p.ridge_flop_per_byte.expect("ridge"), 25.4, 0.05));
    }

    #[test]
    fn h200_peaks_from_attributes() {
        // NOTES: 132 SMs, 1,980,000 kHz, memory 3,201,000 kHz, 6016-bit bus -> 4,814 GB/s.
        let p = theoretical_peaks(
            Some(132),
            Some(1_980_000),
            Some(3_201_000),
            Some(6016),
            fp32_lanes_per_sm(9, 0),
        );
        assert_eq!(p.dram_gbyte_per_s.expect("bw").round(), 4814.0);
        assert!(close(p.fp32_gflop_per_s.expect("fp32"), 66_908.16, 0.01));
    }

    #[test]
    fn lanes_table() {
        let cases = [
            ((7, 0), Some(64)),
            ((7, 5), Some(64)),
            ((8, 0), Some(64)),
            ((8, 6), Some(128)),
            ((8, 9), Some(128)),
            ((9, 0), Some(128)),
            ((10, 0), None),
            ((6, 1), None),
        ];
        for ((major, minor), want) in cases {
            assert_eq!(fp32_lanes_per_sm(major, minor), want, "{major}.{minor}");
        }
    }

    #[test]
    fn unknown_inputs_leave_peaks_unknown() {
        let p = theoretical_peaks(Some(40), Some(1_590_000), None, Some(256), None);
        assert_eq!(p.fp32_gflop_per_s, None);
        assert_eq!(p.dram_gbyte_per_s, None);
        assert_eq!(p.ridge_flop_per_byte, None);
    }

    #[test]
    fn oi_table_of_the_t4() {
        // On the T4: (FLOPs, bytes) per element -> OI, attainable, bound.
        let cases = [
            ("y = a * x", 1.0, 8.0, 0.125, 40.0, Bound::Memory),
            ("c = a + b", 1.0, 12.0, 0.083, 27.0, Bound::Memory),
            ("y = a * x + y", 2.0, 12.0, 0.167, 53.0, Bound::Memory),
            (
                "fma loop, 4096 x 4",
                2.0 * 4.0 * 4096.0,
                8.0,
                4096.0,
                8141.0,
                Bound::Compute,
            ),
        ];
        for (name, flops, bytes, oi_want, roof_want, bound_want) in cases {
            let oi = intensity(flops, bytes).expect("bytes > 0");
            assert!(close(oi, oi_want, 0.0005), "{name}: oi {oi}");
            let roof = attainable_gflop_per_s(oi, 8141.0, 320.0);
            assert_eq!(roof.round(), roof_want, "{name}: roof {roof}");
            assert_eq!(bound(oi, 8141.0, 320.0), bound_want, "{name}");
        }
    }

    #[test]
    fn rates_in_giga_units() {
        // 96,000,000 bytes in 2.71 ms is 35.4 GB/s.
        let gbs = giga_per_s(96_000_000.0, 2.71).expect("duration");
        assert!(close(gbs, 35.4, 0.05));
        assert_eq!(giga_per_s(1.0, 0.0), None);
        assert_eq!(intensity(1.0, 0.0), None);
        assert_eq!(giga_per_s(1e9, 1.0), Some(1000.0));
        assert_eq!(giga_per_s(1.0, f64::NAN), None);
    }

    #[test]
    fn held_clock_percent_and_ratio() {
        // 20,000,000 cycles spun in 10.23 ms: 1,955 MHz (NOTES).
        let mhz = held_clock_mhz(20_000_000.0, 10.23).expect("time");
        assert!(close(mhz, 1955.0, 0.1), "{mhz}");
        assert_eq!(held_clock_mhz(1.0, 0.0), None);
        assert_eq!(percent_of(4278.0, 4814.0).map(f64::round), Some(89.0));
        assert_eq!(percent_of(1.0, 0.0), None);
        assert_eq!(ratio(16_777_216.0, 8_388_608.0), Some(2.0));
        assert_eq!(ratio(1.0, 0.0), None);
        assert_eq!(
            ridge(Some(8141.0), Some(320.0)).map(|r| (r * 10.0).round()),
            Some(254.0)
        );
        assert_eq!(ridge(Some(1.0), None), None);
    }
}
