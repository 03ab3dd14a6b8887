//! The memory chart of one kernel: kernel, shared memory, L1/TEX, L2 and DRAM boxes, with
//! arrows labelled by the bytes, requests and sectors that crossed them, and hit rates in
//! the cache boxes. Given a second set of flows ("after"), every label shows both values and
//! their ratio, so a comparison keeps the chart instead of reducing it to a table.

use crate::text::format::{fmt_pct, fmt_ratio, fmt_si};

/// Traffic of one kernel through the memory hierarchy, as counted by ncu. Every field is
/// optional: an export has what its sections collected.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryFlows {
    /// Label of the kernel box.
    pub kernel_label: String,
    /// Global load and store requests the kernel issued to L1/TEX.
    pub global_requests: Option<f64>,
    /// Sectors L1/TEX moved for those requests.
    pub l1_sectors: Option<f64>,
    /// Sectors per request, global loads and stores together
    /// ([`crate::analysis::metrics::sectors_per_request`]).
    pub sectors_per_request: Option<f64>,
    /// Bytes L1/TEX moved for global memory.
    pub l1_bytes: Option<f64>,
    /// Bytes TMA loads brought from L2 into shared memory, which `l1_bytes` does not count
    /// (`l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum`, where the export has it).
    pub tma_load_bytes: Option<f64>,
    /// A tensor kernel whose TMA loads the export cannot show: L1/TEX sees fewer bytes than
    /// L2 and no counter of the loads is there ([`crate::analysis::levels::LevelBytes`]'s
    /// `unseen_tma`, the roofline's "no L1 point" note).
    pub tma_unseen: bool,
    /// Shared-memory load and store requests (instructions, no sectors fetched).
    pub shared_requests: Option<f64>,
    /// Bytes read and written in shared memory, when known.
    pub shared_bytes: Option<f64>,
    /// L1/TEX sector hit rate, percent.
    pub l1_hit_pct: Option<f64>,
    /// Bytes that went between L1 and L2.
    pub l2_bytes: Option<f64>,
    /// Sectors that went between L1 and L2.
    pub l2_sectors: Option<f64>,
    /// L2 sector hit rate, percent.
    pub l2_hit_pct: Option<f64>,
    /// Bytes read from DRAM.
    pub dram_read_bytes: Option<f64>,
    /// Bytes written to DRAM.
    pub dram_write_bytes: Option<f64>,
    /// DRAM bytes read plus written ([`crate::analysis::metrics::dram_bytes`], summed over launches).
    pub dram_bytes: Option<f64>,
    /// The launches' summed duration, ns: the time the bytes above moved in.
    pub duration_ns: Option<f64>,
    /// L1/TEX Cache Throughput, % of peak (ncu's, duration-weighted over launches).
    pub l1_pct: Option<f64>,
    /// L2 Cache Throughput, % of peak.
    pub l2_pct: Option<f64>,
    /// DRAM Throughput, % of peak.
    pub dram_pct: Option<f64>,
}

/// What each key of [`memory_labels`] names, for people (`l2-dram` is `L2 ↔ DRAM`).
pub fn memory_label_name(key: &str) -> &'static str {
    match key {
        "kernel-l1" => "kernel → L1/TEX (global loads and stores)",
        "kernel-shared" => "kernel → shared memory",
        "l1-l2" => "L1/TEX ↔ L2",
        "l2-dram" => "L2 ↔ DRAM",
        "l1-box" => "L1/TEX cache",
        "l2-box" => "L2 cache",
        "dram-box" => "DRAM",
        _ => "",
    }
}

/// A link's bandwidth over the launches' time and its `unit`'s throughput, % of peak, as
/// ncu gives it (`2.10 TB/s, DRAM at 43.7 % of peak`), or "before → after" in a comparison.
fn rate_line(
    f: &MemoryFlows,
    c: Option<&MemoryFlows>,
    bytes: fn(&MemoryFlows) -> Option<f64>,
    unit: &str,
    pct: fn(&MemoryFlows) -> Option<f64>,
) -> Option<String> {
    let rate = |m: &MemoryFlows| {
        crate::model::roofline::giga_per_s(bytes(m)?, m.duration_ns? / 1e6).map(|g| g * 1e9)
    };
    let bw = value_text(rate(f), c.map(rate), |v| fmt_si(v, "B/s"));
    let of = value_text(pct(f), c.map(pct), fmt_pct).map(|p| format!("{unit} at {p} of peak"));
    match (bw, of) {
        (Some(b), Some(p)) => Some(format!("{b}, {p}")),
        (b, p) => b.or(p),
    }
}

impl MemoryFlows {
    /// Whether any counter is present (an artifact without counters has none).
    pub fn has_any(&self) -> bool {
        [
            self.global_requests,
            self.l1_sectors,
            self.l1_bytes,
            self.tma_load_bytes,
            self.shared_requests,
            self.l1_hit_pct,
            self.l2_bytes,
            self.l2_hit_pct,
            self.dram_read_bytes,
            self.dram_write_bytes,
        ]
        .iter()
        .any(Option::is_some)
    }
}

/// The chart: one kernel's flows, and optionally a second to compare against.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MemoryChart {
    /// Caption.
    pub title: String,
    /// The flows (the "before" in a comparison).
    pub flows: MemoryFlows,
    /// The "after" flows of a comparison.
    pub compare: Option<MemoryFlows>,
}

/// One value, or "before → after (ratio)" in a comparison.
fn value_text(
    before: Option<f64>,
    after: Option<Option<f64>>,
    format: impl Fn(f64) -> String,
) -> Option<String> {
    match after {
        None => before.map(&format),
        Some(after) => match (before, after) {
            (None, None) => None,
            (Some(b), Some(a)) => Some(format!(
                "{} → {} ({})",
                format(b),
                format(a),
                fmt_ratio(a, b)
            )),
            (b, a) => Some(format!(
                "{} → {}",
                b.map_or("n/a".into(), &format),
                a.map_or("n/a".into(), &format)
            )),
        },
    }
}

/// The text lines of each arrow and box, in drawing order, so tests can check the numbers
/// without parsing SVG. Keys: `kernel-l1`, `kernel-shared`, `l1-l2`, `l2-dram`, `l1-box`,
/// `l2-box`, `dram-box`.
pub fn memory_labels(chart: &MemoryChart) -> Vec<(&'static str, Vec<String>)> {
    let f = &chart.flows;
    let c = chart.compare.as_ref();
    let bytes = |v: f64| fmt_si(v, "B");
    let count = |v: f64| fmt_si(v, "");
    let pct = fmt_pct;
    let mut out = Vec::new();
    let pick = |sel: fn(&MemoryFlows) -> Option<f64>| (sel(f), c.map(sel));
    let line =
        |(b, a): (Option<f64>, Option<Option<f64>>), fmt: &dyn Fn(f64) -> String, suffix: &str| {
            value_text(b, a, fmt).map(|t| {
                if suffix.is_empty() {
                    t
                } else {
                    format!("{t} {suffix}")
                }
            })
        };
    let arrow =
        |parts: Vec<Option<String>>| -> Vec<String> { parts.into_iter().flatten().collect() };
    out.push((
        "kernel-l1",
        arrow(vec![
            line(pick(|m| m.l1_bytes), &bytes, ""),
            // A Hopper GEMM's operands come by TMA, unseen by the bytes above (BERT's nvjet:
            // 1.97 MB through L1/TEX, 1.01 GB by TMA), as the roofline's L1 point counts them.
            line(pick(|m| m.tma_load_bytes), &bytes, "TMA loads").map(|t| format!("+ {t}")),
            // Where no counter shows them (GPT-2's nvjet: 24.3 kB into L1/TEX, L1/TEX at
            // 73.5 % of peak), the chart says so rather than let the bytes read as all.
            (f.tma_unseen || c.is_some_and(|c| c.tma_unseen))
                .then(|| "+ TMA loads, not counted in this export".to_string()),
            line(pick(|m| m.global_requests), &count, "requests"),
            line(pick(|m| m.l1_sectors), &count, "sectors"),
            sectors_per_request(f, c),
            rate_line(f, c, |m| m.l1_bytes, "L1/TEX", |m| m.l1_pct),
        ]),
    ));
    out.push((
        "kernel-shared",
        arrow(vec![
            line(pick(|m| m.shared_bytes), &bytes, ""),
            line(pick(|m| m.shared_requests), &count, "requests"),
        ]),
    ));
    out.push((
        "l1-l2",
        arrow(vec![
            line(pick(|m| m.l2_bytes), &bytes, ""),
            line(pick(|m| m.l2_sectors), &count, "sectors"),
            rate_line(f, c, |m| m.l2_bytes, "L2", |m| m.l2_pct),
        ]),
    ));
    out.push((
        "l2-dram",
        arrow(vec![
            line(pick(|m| m.dram_bytes), &bytes, ""),
            line(pick(|m| m.dram_read_bytes), &bytes, "read"),
            line(pick(|m| m.dram_write_bytes), &bytes, "written"),
            rate_line(f, c, |m| m.dram_bytes, "DRAM", |m| m.dram_pct),
        ]),
    ));
    out.push((
        "l1-box",
        arrow(vec![line(pick(|m| m.l1_hit_pct), &pct, "hit")]),
    ));
    out.push((
        "l2-box",
        arrow(vec![line(pick(|m| m.l2_hit_pct), &pct, "hit")]),
    ));
    out.push(("dram-box", Vec::new()));
    out
}

fn sectors_per_request(f: &MemoryFlows, c: Option<&MemoryFlows>) -> Option<String> {
    let spr = |m: &MemoryFlows| m.sectors_per_request;
    value_text(spr(f), c.map(spr), |v| format!("{v:.2}")).map(|t| format!("{t} sectors/request"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The naive and tiled matmul rows of the Nsight Compute seed (Tesla T4).
    pub(crate) fn naive() -> MemoryFlows {
        MemoryFlows {
            kernel_label: "naive".into(),
            global_requests: Some(8_388_608.0),
            l1_sectors: Some(16_777_077.0),
            sectors_per_request: crate::model::roofline::ratio(16_777_077.0, 8_388_608.0),
            l1_hit_pct: Some(87.58),
            l2_hit_pct: Some(97.93),
            dram_read_bytes: Some(4_741_440.0),
            dram_bytes: Some(4_741_440.0),
            duration_ns: Some(1_000_000.0),
            dram_pct: Some(1.5),
            ..MemoryFlows::default()
        }
    }

    pub(crate) fn tiled() -> MemoryFlows {
        MemoryFlows {
            kernel_label: "tiled".into(),
            global_requests: Some(524_288.0),
            l1_sectors: Some(2_083_878.0),
            sectors_per_request: crate::model::roofline::ratio(2_083_878.0, 524_288.0),
            l1_hit_pct: Some(5.13),
            l2_hit_pct: Some(97.05),
            dram_read_bytes: Some(4_641_024.0),
            dram_bytes: Some(4_641_024.0),
            ..MemoryFlows::default()
        }
    }

    #[test]
    fn tma_loads_are_a_line_of_the_kernel_to_l1_arrow() {
        let mut flows = tiled();
        flows.l1_bytes = Some(1.97e6);
        flows.tma_load_bytes = Some(1.01e9);
        let chart = MemoryChart {
            title: String::new(),
            flows,
            compare: None,
        };
        let labels = memory_labels(&chart);
        let kernel_l1 = labels
            .iter()
            .find(|(key, _)| *key == "kernel-l1")
            .map(|(_, l)| l.clone())
            .unwrap_or_default();
        assert_eq!(
            kernel_l1[..2],
            ["1.97 MB", "+ 1.01 GB TMA loads"],
            "{kernel_l1:?}"
        );
        let plain = memory_labels(&MemoryChart {
            title: String::new(),
            flows: tiled(),
            compare: None,
        });
        assert!(!format!("{plain:?}").contains("TMA"), "{plain:?}");
        let mut unseen = tiled();
        unseen.tma_unseen = true;
        let labels = memory_labels(&MemoryChart {
            title: String::new(),
            flows: unseen,
            compare: None,
        });
        assert!(
            format!("{labels:?}").contains("+ TMA loads, not counted in this export"),
            "{labels:?}"
        );
    }

    #[test]
    fn labels_carry_requests_sectors_and_hit_rates() {
        let chart = MemoryChart {
            title: String::new(),
            flows: naive(),
            compare: None,
        };
        let labels = memory_labels(&chart);
        let get = |k: &str| {
            labels
                .iter()
                .find(|(key, _)| *key == k)
                .map(|(_, v)| v.clone())
        };
        assert_eq!(
            get("kernel-l1"),
            Some(vec![
                "8.39 M requests".to_string(),
                "16.8 M sectors".to_string(),
                "2.00 sectors/request".to_string()
            ])
        );
        assert_eq!(get("l1-box"), Some(vec!["87.6 % hit".to_string()]));
        assert_eq!(
            get("l2-dram").and_then(|v| v.first().cloned()),
            Some("4.74 MB".to_string())
        );
        // 4.74 MB in 1 ms.
        assert_eq!(
            get("l2-dram").and_then(|v| v.last().cloned()),
            Some("4.74 GB/s, DRAM at 1.5 % of peak".to_string())
        );
        assert_eq!(memory_label_name("l2-box"), "L2 cache");
    }

    #[test]
    fn comparison_labels_show_both_values_and_the_ratio() {
        let chart = MemoryChart {
            title: String::new(),
            flows: naive(),
            compare: Some(tiled()),
        };
        let labels = memory_labels(&chart);
        let kernel_l1 = labels
            .iter()
            .find(|(k, _)| *k == "kernel-l1")
            .map(|(_, v)| v.clone());
        let kernel_l1 = kernel_l1.unwrap_or_default();
        assert!(
            kernel_l1.contains(&"16.8 M → 2.08 M (x0.124) sectors".to_string()),
            "{kernel_l1:?}"
        );
        assert!(
            kernel_l1.contains(&"2.00 → 3.97 (x1.99) sectors/request".to_string()),
            "{kernel_l1:?}"
        );
    }
}
