//! The overview of a run as plain data: device and its theoretical peaks, measured
//! ceilings and ridge points, the compute roofs of every precision with where each comes
//! from, provenance and the ncu command lines, warnings, and what each kernel asks for (so
//! a miscount is visible). `pages::overview` lays it out.

use shared::model::artifact::{Artifact, DeviceInfo, KernelRecord, MeasuredCeilings, Provenance};
use shared::text::format::{fmt_si, opt, sig3};

use super::model::Workspace;

/// `-` for an absent text.
fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "-".into())
}

/// A labelled value of a key-value table.
pub type Kv = (&'static str, String);

/// What the overview of a run shows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Overview {
    /// The run's name.
    pub name: String,
    /// The device, when the artifact names one.
    pub device: Option<Vec<Kv>>,
    /// Theoretical peaks.
    pub peaks: Vec<Kv>,
    /// Measured ceilings; `None` where the run measured none (an import or a profile: the
    /// card said so in seven dashes).
    pub ceilings: Option<Vec<Kv>>,
    /// Compute roofs per precision: precision, measured, measured by, theoretical,
    /// theoretical from.
    pub roofs: Vec<[String; 5]>,
    /// Where the data comes from.
    pub provenance: Vec<Kv>,
    /// The ncu command lines.
    pub commands: Vec<String>,
    /// The run's warnings, as the banner counts them (`shell::banner`).
    pub warnings: Vec<String>,
    /// Each kernel: name, source, launch, asked bytes and FLOPs, check.
    pub kernels: Vec<[String; 5]>,
}

/// The overview of run `run_index`, `None` when there is no such run.
pub fn overview(ws: &Workspace, run_index: usize) -> Option<Overview> {
    let run = ws.runs.get(run_index)?;
    let a = &run.run.artifact;
    let p = &a.provenance;
    let peaks = a
        .device
        .as_ref()
        .map(|d| d.peaks.clone())
        .unwrap_or_default();
    let ceilings = a
        .ceilings
        .as_ref()
        .filter(|c| any_measured(c))
        .map(ceiling_rows);
    let peaks = vec![
        row("FP32", opt(peaks.fp32_gflop_per_s, gflops)),
        row("DRAM", opt(peaks.dram_gbyte_per_s, gbs)),
        row("ridge (FLOP/byte)", opt(peaks.ridge_flop_per_byte, sig3)),
    ];
    Some(Overview {
        name: run.run.name.clone(),
        device: a.device.as_ref().map(device_rows),
        peaks,
        ceilings,
        roofs: roof_rows(a),
        provenance: provenance_rows(p),
        commands: p.ncu_commands.clone(),
        // The banner's lines: the artifact's warnings and what the page found (times no GPU
        // could reach, bytes derived from rates); BERT's banner said 3 over a list of 2.
        warnings: super::shell::banner(run),
        kernels: a.kernels.iter().map(kernel_row).collect(),
    })
}

/// A rate of bytes in GB/s, with its unit.
fn gbs(v: f64) -> String {
    fmt_si(v * 1e9, "B/s")
}

/// A rate of FLOPs in GFLOP/s, with its unit.
fn gflops(v: f64) -> String {
    fmt_si(v * 1e9, "FLOP/s")
}

/// The compute roof of each precision: precision, measured, measured by, theoretical,
/// theoretical from.
fn roof_rows(a: &Artifact) -> Vec<[String; 5]> {
    shared::analysis::ceilings::all_compute_ceilings(a)
        .into_iter()
        .map(|(w, c)| {
            let rate = |v: Option<f64>| opt(v, |v| fmt_si(v * 1e9, &format!("{}/s", w.unit())));
            [
                w.label().to_string(),
                rate(c.measured),
                c.measured_source.unwrap_or_else(|| "not measured".into()),
                rate(c.theoretical),
                c.theoretical_source
                    .unwrap_or("no figure for this device")
                    .to_string(),
            ]
        })
        .collect()
}

/// The device's table.
fn device_rows(d: &DeviceInfo) -> Vec<Kv> {
    let n = |v: Option<u32>| or_dash(v.map(|v| v.to_string()));
    vec![
        row("name", d.name.clone()),
        row(
            "ordinal, PCI",
            format!(
                "{}, {}",
                or_dash(d.index.map(|i| i.to_string())),
                or_dash(d.pci_bus_id.clone())
            ),
        ),
        row(
            "compute capability",
            or_dash(d.compute_capability.map(|c| c.to_string())),
        ),
        row("SMs", n(d.sm_count)),
        row(
            "SM clock",
            opt(d.sm_clock_khz.map(|v| v as f64 * 1e3), |v| fmt_si(v, "Hz")),
        ),
        row(
            "memory clock",
            opt(d.mem_clock_khz.map(|v| v as f64 * 1e3), |v| fmt_si(v, "Hz")),
        ),
        row(
            "bus width",
            or_dash(d.bus_width_bits.map(|v| format!("{v} bits"))),
        ),
        row("L2", opt(d.l2_bytes.map(|v| v as f64), |v| fmt_si(v, "B"))),
        row(
            "FP32 lanes per SM",
            d.peaks
                .fp32_lanes_per_sm
                .map(|v| v.to_string())
                .unwrap_or("unknown for this architecture".into()),
        ),
    ]
}

/// A kernel's row: name, source, launch, asked bytes and FLOPs, check.
fn kernel_row(k: &KernelRecord) -> [String; 5] {
    let asked = k.asked.as_ref().map(|w| {
        format!(
            "{} and {} per launch ({}){}",
            fmt_si(w.bytes, "B"),
            fmt_si(w.flops, w.precision.unit()),
            w.precision.label(),
            if w.formula.is_empty() {
                String::new()
            } else {
                format!(": {}", w.formula)
            }
        )
    });
    let shape = k.launch.as_ref().map(|l| {
        format!(
            "grid {:?} x block {:?}, {} B dynamic shared",
            l.grid, l.block, l.shared_mem_bytes
        )
    });
    let check = k
        .check
        .as_ref()
        .map(|c| format!("{}: {}", if c.passed { "pass" } else { "FAIL" }, c.detail));
    [
        k.name.to_string(),
        k.source_file.as_deref().unwrap_or_default().to_string(),
        shape.unwrap_or_default(),
        or_dash(asked),
        or_dash(check),
    ]
}

/// The rank of a distributed run: rank, of how many, local rank, job, and how it was
/// found; `-` for a run of one process.
fn rank_text(p: &Provenance) -> String {
    p.distributed.as_ref().map_or_else(
        || "-".to_string(),
        |d| {
            let of = d
                .world_size
                .map_or_else(String::new, |n| format!(" of {n}"));
            let local = d
                .local_rank
                .map_or_else(String::new, |l| format!(", local rank {l}"));
            let job = d
                .job_id
                .as_ref()
                .map_or_else(String::new, |j| format!(", job {j}"));
            format!(
                "{}{of}{local}{job} ({}, from {})",
                d.rank,
                d.launcher.label(),
                d.rank_variable
            )
        },
    )
}

/// Where the data comes from.
fn provenance_rows(p: &Provenance) -> Vec<Kv> {
    let s = |v: &Option<String>| or_dash(v.clone());
    vec![
        row(
            "origin",
            or_dash(p.origin.map(|o| format!("{o:?}").to_lowercase())),
        ),
        row("tool", format!("{} {}", p.tool, p.tool_version)),
        row("created (UTC)", s(&p.created_utc)),
        row("host", s(&p.host)),
        row("rank", rank_text(p)),
        row("driver", s(&p.driver_version)),
        row("CUDA", s(&p.cuda_version)),
        row("NVRTC", s(&p.nvrtc_version)),
        row("Nsight Compute", s(&p.ncu_version)),
        row(
            "ncu clock control",
            p.clock_control.clone().unwrap_or("unknown".into()),
        ),
        row("inputs", p.inputs.join(", ")),
    ]
}

/// Whether `c` holds any of the ceilings the card lists.
fn any_measured(c: &MeasuredCeilings) -> bool {
    [
        c.copy_gbyte_per_s,
        c.read_gbyte_per_s,
        c.memcpy_gbyte_per_s,
        c.l2_copy_gbyte_per_s,
        c.fma_gflop_per_s,
        c.held_sm_clock_mhz,
        c.ridge_flop_per_byte,
    ]
    .iter()
    .any(Option::is_some)
}

/// The measured ceilings, with the ridge they make.
fn ceiling_rows(c: &MeasuredCeilings) -> Vec<Kv> {
    let ridge_measured = c
        .ridge_flop_per_byte
        .or_else(|| shared::model::roofline::ridge(c.fma_gflop_per_s, c.copy_gbyte_per_s));
    vec![
        row("copy (read + write)", opt(c.copy_gbyte_per_s, gbs)),
        row("read only", opt(c.read_gbyte_per_s, gbs)),
        row("driver memcpy", opt(c.memcpy_gbyte_per_s, gbs)),
        row("L2-resident copy", opt(c.l2_copy_gbyte_per_s, gbs)),
        row("FP32 FMA", opt(c.fma_gflop_per_s, gflops)),
        row(
            "held SM clock",
            opt(c.held_sm_clock_mhz.map(|v| v * 1e6), |v| fmt_si(v, "Hz")),
        ),
        row("ridge (FLOP/byte)", opt(ridge_measured, sig3)),
    ]
}

/// A labelled row.
fn row(label: &'static str, value: impl Into<String>) -> Kv {
    (label, value.into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_support::sample;

    /// The overview lists what the banner counts: on BERT-base's export (its raw and
    /// details pages as one run) that includes the kernels whose bytes came from rates.
    #[test]
    fn the_overview_lists_the_banner_s_warnings() {
        use crate::state::load::{load_batch, InputFile};
        use crate::state::test_support::unpack;
        let files = ["raw", "details"].map(|page| {
            let name = format!("bert_base_fwd_full_{page}.csv");
            InputFile {
                bytes: unpack(&format!("tests/fixtures/corpus-h200/{name}.gz")),
                name,
            }
        });
        let (runs, errors) = load_batch(files.into());
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws = crate::state::model::Workspace::default();
        ws.add(runs);
        let Some(o) = overview(&ws, 0) else {
            panic!("no overview")
        };
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        assert_eq!(o.warnings, crate::state::shell::banner(run));
        assert!(
            o.warnings.iter().any(|w| w.contains("derived from rates")),
            "{:?}",
            o.warnings
        );
    }

    #[test]
    fn the_overview_shows_device_ceilings_roofs_and_asks() {
        let ws = sample("h200.json");
        let Some(o) = overview(&ws, 0) else {
            panic!("no overview")
        };
        let device = o.device.unwrap_or_default();
        assert!(device.iter().any(|(_, v)| v.contains("H200")), "{device:?}");
        let kernels = ws.runs.first().map_or(0, |r| r.run.artifact.kernels.len());
        assert_eq!(o.kernels.len(), kernels);
        assert!(!o.roofs.is_empty());
        assert!(o.provenance.iter().any(|(k, _)| *k == "Nsight Compute"));
        // The suite measured its ceilings; GPT-2 under capture profile has none.
        let ceilings = o.ceilings.unwrap_or_default();
        assert!(
            ceilings
                .iter()
                .any(|(k, v)| *k == "copy (read + write)" && v != "-"),
            "{ceilings:?}"
        );
        let gpt2 = sample("h200-gpt2-bf16.json");
        assert_eq!(overview(&gpt2, 0).map(|o| o.ceilings), Some(None));
    }

    #[test]
    fn nothing_loaded_has_no_overview() {
        assert!(overview(&Workspace::default(), 0).is_none());
    }
}
