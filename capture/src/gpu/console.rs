//! The console text of the GPU commands: a device in a few lines, one line per measured
//! ceiling and per timed kernel, the sizes warning. Pure functions from results to text;
//! [`super::progress`] prints them on stderr. Percentages and peaks come from `shared::model::roofline`.

use shared::analysis::work::device_peak;
use shared::model::artifact::{Check, DeviceInfo, MeasuredCeilings, TensorCeiling, Timing};
use shared::model::roofline::{fp32_peak_gflop_per_s, percent_of};
use shared::model::work_kind::Work;

use super::suite::Sizes;

/// A value, or `unknown`.
pub fn or_unknown<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

/// A device as a few aligned lines, ending with the theoretical dense peak of every kind of
/// work the peak table knows for it ([`peak_lines`]).
pub fn describe_device(d: &DeviceInfo) -> String {
    let mut text = device_lines(d);
    for line in peak_lines(d) {
        text.push_str("\n  ");
        text.push_str(&line);
    }
    text
}

/// The theoretical dense peak of every kind of work the peak table knows for this device
/// (`shared::analysis::work::device_peak`: per clock per SM from the whitepapers x SMs x SM clock),
/// one line each; a line saying so when it knows none.
pub fn peak_lines(d: &DeviceInfo) -> Vec<String> {
    let lines: Vec<String> = Work::ALL
        .into_iter()
        .filter_map(|w| {
            let v = device_peak(d, w)?;
            Some(format!(
                "theoretical {:<22} {:>9.0} G{}/s",
                w.label(),
                v,
                w.unit()
            ))
        })
        .collect();
    if lines.is_empty() {
        vec!["theoretical peaks per precision: none known for this architecture".into()]
    } else {
        lines
    }
}

/// One line per tensor-core ceiling: the rate, its share of the theoretical dense peak,
/// the check and the means; or why it was not measured.
pub fn tensor_lines(tensor: &[TensorCeiling]) -> Vec<String> {
    tensor
        .iter()
        .map(|t| {
            let label = t.work.label();
            match (&t.not_measured, t.measured_gflop_per_s, &t.check) {
                (Some(why), _, _) => format!("{label:<12} not measured: {why}"),
                (None, Some(v), Some(c)) => format!(
                    "{label:<12} {v:8.0} G{}/s{} of the dense peak, {}x{}x{}  {}  {}; {}",
                    t.work.unit(),
                    pct(v, t.theoretical_gflop_per_s),
                    t.m,
                    t.n,
                    t.k,
                    if c.passed { "ok" } else { "FAILED" },
                    c.detail,
                    t.means
                ),
                _ => format!("{label:<12} not measured"),
            }
        })
        .collect()
}

fn device_lines(d: &DeviceInfo) -> String {
    let p = &d.peaks;
    format!(
        "device {}: {}\n  compute capability {}, {} SMs, SM clock {} MHz, memory clock {} MHz, \
         bus {} bits\n  L2 {} MiB, memory {} GiB\n  FP32 lanes per SM {}; theoretical FP32 {} \
         GFLOP/s, DRAM {} GB/s, ridge {} FLOP/byte",
        or_unknown(d.index),
        d.name,
        or_unknown(d.compute_capability),
        or_unknown(d.sm_count),
        or_unknown(d.sm_clock_khz.map(|k| k / 1000)),
        or_unknown(d.mem_clock_khz.map(|k| k / 1000)),
        or_unknown(d.bus_width_bits),
        or_unknown(d.l2_bytes.map(|b| format!("{:.1}", mib(b)))),
        or_unknown(
            d.total_mem_bytes
                .map(|b| format!("{:.1}", b as f64 / f64::from(1u32 << 30)))
        ),
        or_unknown(p.fp32_lanes_per_sm),
        or_unknown(p.fp32_gflop_per_s.map(|v| format!("{v:.0}"))),
        or_unknown(p.dram_gbyte_per_s.map(|v| format!("{v:.0}"))),
        or_unknown(p.ridge_flop_per_byte.map(|v| format!("{v:.2}"))),
    )
}

/// ` (P %)` of `of`, or nothing when there is no positive `of`.
fn pct(v: f64, of: Option<f64>) -> String {
    of.and_then(|o| percent_of(v, o))
        .map_or(String::new(), |p| format!(" ({p:.1} %)"))
}

/// One line per ceiling, with percentages of the theoretical figures.
pub fn ceiling_lines(c: &MeasuredCeilings, d: &DeviceInfo) -> Vec<String> {
    let mut out = Vec::new();
    let bw = d.peaks.dram_gbyte_per_s;
    if let Some(v) = c.copy_gbyte_per_s {
        let vs = c
            .memcpy_gbyte_per_s
            .and_then(|m| percent_of(v, m))
            .map_or(String::new(), |p| {
                format!(", {p:.2} % of the driver memcpy")
            });
        out.push(format!("copy     {v:8.0} GB/s{}{vs}", pct(v, bw)));
    }
    if let Some(v) = c.memcpy_gbyte_per_s {
        out.push(format!("memcpy   {v:8.0} GB/s{}", pct(v, bw)));
    }
    if let Some(v) = c.read_gbyte_per_s {
        out.push(format!("read     {v:8.0} GB/s{}", pct(v, bw)));
    }
    if let Some(v) = c.l2_copy_gbyte_per_s {
        out.push(format!("L2 copy  {v:8.0} GB/s{}", pct(v, bw)));
    }
    if let Some(v) = c.fma_gflop_per_s {
        let held = match (c.held_sm_clock_mhz, d.sm_count, d.peaks.fp32_lanes_per_sm) {
            (Some(mhz), Some(sms), Some(lanes)) => {
                // The peak's formula takes kHz, as the clock attribute is given.
                let cap = fp32_peak_gflop_per_s(sms, lanes, (mhz * 1e3).round() as u64);
                format!(
                    ",{} of lanes x held clock ({cap:.0})",
                    percent_of(v, cap).map_or(String::new(), |p| format!(" {p:.1} %"))
                )
            }
            _ => String::new(),
        };
        out.push(format!(
            "FMA      {v:8.0} GFLOP/s{} of the attribute clock{held}",
            pct(v, d.peaks.fp32_gflop_per_s)
        ));
    }
    if let Some(v) = c.held_sm_clock_mhz {
        out.push(format!("held SM clock {v:.0} MHz"));
    }
    if let Some(v) = c.ridge_flop_per_byte {
        out.push(format!("measured ridge {v:.2} FLOP/byte"));
    }
    out
}

/// The sizes the suite runs at, relative to the L2 (recorded as a warning in the artifact).
pub fn size_warning(s: &Sizes, d: &DeviceInfo) -> String {
    let l2 = d.l2_bytes.unwrap_or(0).max(1) as f64;
    format!(
        "sizes: streaming arrays {} elements ({:.0} MiB of float, {:.1} x L2); ceiling arrays {} \
         floats ({:.0} MiB); transpose and stencil {}^2; matmul {}^2 (cache-resident); L2 copy \
         {:.2} MiB per buffer x {} passes; FMA {} blocks x 256",
        s.stream_elems,
        mib(s.stream_elems * 4),
        s.stream_elems as f64 * 4.0 / l2,
        s.ceiling_elems,
        mib(s.ceiling_elems * 4),
        s.square_dim,
        s.matmul_dim,
        mib(s.l2_elems() * 4),
        s.l2_reps,
        s.fma_blocks
    )
}

/// One timed kernel: median, registers and local memory, check outcome.
pub fn kernel_line(
    function: &str,
    t: &Timing,
    c: &Check,
    registers: Option<i32>,
    local_bytes: Option<i32>,
) -> String {
    format!(
        "{:<20} median {:9.4} ms ({} regs, {} B local)  {:>6}  {}",
        function,
        t.median_ms,
        or_unknown(registers),
        or_unknown(local_bytes),
        if c.passed { "ok" } else { "FAILED" },
        c.detail
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceiling_lines_give_percentages_of_the_peaks() {
        let d = DeviceInfo {
            peaks: shared::model::artifact::TheoreticalPeaks {
                fp32_lanes_per_sm: Some(128),
                fp32_gflop_per_s: Some(66900.0),
                dram_gbyte_per_s: Some(4800.0),
                ridge_flop_per_byte: None,
            },
            ..shared::testing::h200()
        };
        let c = MeasuredCeilings {
            copy_gbyte_per_s: Some(4272.0),
            memcpy_gbyte_per_s: Some(4256.0),
            fma_gflop_per_s: Some(64000.0),
            held_sm_clock_mhz: Some(1955.0),
            ridge_flop_per_byte: Some(14.98),
            ..MeasuredCeilings::default()
        };
        let lines = ceiling_lines(&c, &d);
        assert_eq!(
            lines[0],
            "copy         4272 GB/s (89.0 %), 100.38 % of the driver memcpy"
        );
        assert_eq!(lines[1], "memcpy       4256 GB/s (88.7 %)");
        // 2 x 132 x 128 x 1.955 GHz = 66,063 GFLOP/s.
        assert_eq!(
            lines[2],
            "FMA         64000 GFLOP/s (95.7 %) of the attribute clock, 96.9 % of lanes x held \
             clock (66063)"
        );
        assert_eq!(lines[3], "held SM clock 1955 MHz");
        assert_eq!(lines[4], "measured ridge 14.98 FLOP/byte");
    }

    #[test]
    fn devices_list_the_theoretical_peak_of_every_precision_the_table_knows() {
        let h200 = shared::testing::h200();
        let lines = peak_lines(&h200);
        let kinds = [
            "FP64 ",
            "FP32 ",
            "FP16 ",
            "tensor FP64",
            "tensor TF32",
            "tensor FP16 ",
            "tensor BF16",
            "tensor FP8",
            "tensor INT8",
        ];
        assert_eq!(lines.len(), kinds.len(), "{lines:#?}");
        for (line, kind) in lines.iter().zip(kinds) {
            assert!(line.contains(kind), "{line} / {kind}");
        }
        // 4096 x 132 x 1.98 GHz and 8192 x 132 x 1.98 GHz (integer OPs).
        assert!(lines[6].ends_with("1070531 GFLOP/s"), "{}", lines[6]);
        assert!(lines[8].ends_with("2141061 GOP/s"), "{}", lines[8]);
        let text = describe_device(&h200);
        assert!(text.contains("\n  theoretical tensor BF16"), "{text}");
        let unknown = DeviceInfo {
            compute_capability: Some(shared::model::artifact::ComputeCapability {
                major: 6,
                minor: 1,
            }),
            ..h200
        };
        assert_eq!(
            peak_lines(&unknown),
            ["theoretical peaks per precision: none known for this architecture"]
        );
    }

    #[test]
    fn tensor_lines_show_rate_share_check_and_reasons() {
        let t = TensorCeiling {
            work: Work::TensorBf16,
            means: "cuBLASLt 13.1.0".into(),
            m: 8192,
            n: 8192,
            k: 8192,
            ops: 1.0,
            bytes: 1.0,
            measured_gflop_per_s: Some(781_000.0),
            theoretical_gflop_per_s: Some(1_070_530.0),
            timing: None,
            check: Some(Check {
                passed: true,
                detail: "sampled".into(),
                max_abs_error: None,
            }),
            not_measured: None,
        };
        let not = TensorCeiling {
            work: Work::TensorFp8,
            measured_gflop_per_s: None,
            check: None,
            not_measured: Some("FP8 tensor cores need 8.9".into()),
            ..t.clone()
        };
        let lines = tensor_lines(&[t, not]);
        assert_eq!(
            lines[0],
            "tensor BF16    781000 GFLOP/s (73.0 %) of the dense peak, 8192x8192x8192  ok  \
             sampled; cuBLASLt 13.1.0"
        );
        assert_eq!(
            lines[1],
            "tensor FP8   not measured: FP8 tensor cores need 8.9"
        );
    }
}
