//! The overview of a run as markup: device and its theoretical peaks, measured ceilings
//! and ridge points, the compute roofs of every precision with where each comes from, the
//! host's other devices side by side when their runs are loaded ([`super::multi`]),
//! provenance, warnings, and what each kernel asks for (so a miscount is visible).

use shared::text::format::{fmt_si, sig3};

use super::{plain_row, term, PageNode};
use crate::state::markup::{el, text, Str};
use crate::state::model::Workspace;

/// `-` for an absent value, else `f(value)`.
fn opt(value: Option<f64>, f: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "-".to_string(), f)
}

/// `-` for an absent text.
fn or_dash(v: Option<String>) -> String {
    v.unwrap_or_else(|| "-".into())
}

/// A labelled row of a key-value table.
fn row(label: &'static str, value: impl Into<Str>) -> PageNode {
    el("tr")
        .child(el("th").attr("scope", "row").text(label))
        .child(el("td").text(value))
        .into()
}

/// A key-value table with its id.
fn kv(id: &'static str, rows: Vec<PageNode>) -> PageNode {
    el("table").class("kv").id(id).children(rows).into()
}

/// A grid table with its id, header labels and body rows.
pub(crate) fn grid<const N: usize>(
    id: &'static str,
    headers: [&'static str; N],
    rows: Vec<PageNode>,
) -> PageNode {
    el("table")
        .class("grid")
        .id(id)
        .child(el("thead").child(plain_row("th", headers)))
        .child(el("tbody").children(rows))
        .into()
}

fn card(title: PageNode, table: Option<PageNode>) -> PageNode {
    el("div")
        .class("card")
        .child(el("h3").child(title))
        .children(table)
        .into()
}

/// The overview of run `run_index`; the devices of its host side by side when more are
/// loaded.
pub fn overview(ws: &Workspace, run_index: usize) -> PageNode {
    let Some(run) = ws.runs.get(run_index) else {
        return el("p").text("Nothing loaded.").into();
    };
    let a = &run.run.artifact;
    let p = &a.provenance;
    let peaks = a
        .device
        .as_ref()
        .map(|d| d.peaks.clone())
        .unwrap_or_default();
    let c = a.ceilings.clone().unwrap_or_default();
    let ridge_measured = c
        .ridge_flop_per_byte
        .or_else(|| shared::model::roofline::ridge(c.fma_gflop_per_s, c.copy_gbyte_per_s));
    let roofs = shared::analysis::ceilings::all_compute_ceilings(a)
        .into_iter()
        .map(|(w, c)| {
            let rate = |v: Option<f64>| opt(v, |v| fmt_si(v * 1e9, &format!("{}/s", w.unit())));
            plain_row(
                "td",
                [
                    w.label().to_string(),
                    rate(c.measured),
                    c.measured_source.unwrap_or_else(|| "not measured".into()),
                    rate(c.theoretical),
                    c.theoretical_source
                        .unwrap_or("no figure for this device")
                        .to_string(),
                ],
            )
            .into()
        })
        .collect();
    let gbs = |v: f64| fmt_si(v * 1e9, "B/s");
    let gflops = |v: f64| fmt_si(v * 1e9, "FLOP/s");
    let device = a.device.as_ref().map(|d| {
        let n = |v: Option<u32>| or_dash(v.map(|v| v.to_string()));
        kv(
            "device",
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
            ],
        )
    });
    let kernels = a
        .kernels
        .iter()
        .map(|k| {
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
            el("tr")
                .child(el("td").class("name").text(k.name.clone()))
                .child(el("td").text(k.source_file.clone().unwrap_or_default()))
                .child(el("td").text(shape.unwrap_or_default()))
                .child(el("td").text(or_dash(asked)))
                .child(el("td").text(or_dash(check)))
                .into()
        })
        .collect();
    let rank = p.distributed.as_ref().map_or_else(
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
    );
    let s = |v: &Option<String>| or_dash(v.clone());
    let provenance = kv(
        "provenance",
        vec![
            row(
                "origin",
                or_dash(p.origin.map(|o| format!("{o:?}").to_lowercase())),
            ),
            row("tool", format!("{} {}", p.tool, p.tool_version)),
            row("created (UTC)", s(&p.created_utc)),
            row("host", s(&p.host)),
            row("rank", rank),
            row("driver", s(&p.driver_version)),
            row("CUDA", s(&p.cuda_version)),
            row("NVRTC", s(&p.nvrtc_version)),
            row("Nsight Compute", s(&p.ncu_version)),
            row(
                "ncu clock control",
                p.clock_control.clone().unwrap_or("unknown".into()),
            ),
            row("inputs", p.inputs.join(", ")),
        ],
    );
    let commands = el("ul").class("commands").children(
        p.ncu_commands
            .iter()
            .map(|c| el("li").child(el("code").text(c.clone()))),
    );
    let warnings = if a.warnings.is_empty() {
        vec![el("li").class("muted").text("none")]
    } else {
        a.warnings
            .iter()
            .map(|w| el("li").text(w.clone()))
            .collect()
    };
    el("div")
        .class("page overview")
        .id("page-overview")
        .child(el("h2").text(run.run.name.clone()))
        .child(
            el("div")
                .class("cards")
                .child(card(text("Device"), device))
                .child(card(
                    term("peaks", "Theoretical peaks").into(),
                    Some(kv(
                        "peaks",
                        vec![
                            row("FP32", opt(peaks.fp32_gflop_per_s, gflops)),
                            row("DRAM", opt(peaks.dram_gbyte_per_s, gbs)),
                            row("ridge (FLOP/byte)", opt(peaks.ridge_flop_per_byte, sig3)),
                        ],
                    )),
                ))
                .child(card(
                    term("ceilings", "Measured ceilings").into(),
                    Some(kv(
                        "ceilings",
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
                        ],
                    )),
                ))
                .child(
                    el("div")
                        .class("card")
                        .child(el("h3").text("Provenance"))
                        .child(provenance)
                        .child(commands),
                ),
        )
        .child(el("h3").child(term("ceilings", "Compute roofs per precision")))
        .child(grid(
            "compute-roofs",
            [
                "precision",
                "measured",
                "measured by",
                "theoretical",
                "theoretical from",
            ],
            roofs,
        ))
        .children(super::multi::devices_section(ws, Some(run_index)))
        .child(el("h3").text("Warnings"))
        .child(el("ul").class("warnings").id("warnings").children(warnings))
        .child(el("h3").child(term("ask_bytes", "What each kernel asks for")))
        .child(grid(
            "kernels-asked",
            [
                "kernel",
                "source",
                "launch",
                "asked bytes and FLOPs",
                "check",
            ],
            kernels,
        ))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::load::{load_batch, InputFile};

    fn sample(name: &str) -> Workspace {
        let path = format!("{}/../site/samples/{name}", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let (runs, errors) = load_batch(vec![InputFile {
            name: name.into(),
            bytes,
        }]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws = Workspace::default();
        ws.add(runs);
        ws
    }

    #[test]
    fn the_overview_shows_device_ceilings_roofs_and_asks() {
        let ws = sample("h200.json");
        let page = overview(&ws, 0);
        for id in [
            "page-overview",
            "device",
            "peaks",
            "ceilings",
            "provenance",
            "compute-roofs",
            "warnings",
            "kernels-asked",
        ] {
            assert!(page.find(id).is_some(), "no #{id}");
        }
        let device = page.find("device").map(|d| Node::El(d.clone()));
        assert!(device.is_some_and(|d| d.text_content().contains("H200")));
        let asked = page.find("kernels-asked").map(|t| Node::El(t.clone()));
        let rows = asked.map_or(0, |t| t.count(&|e| e.tag == "tr"));
        let kernels = ws.runs.first().map_or(0, |r| r.run.artifact.kernels.len());
        assert_eq!(rows, kernels + 1);
        // Terms open their explanation.
        assert!(page.count(&|e| e.get("data-explain") == Some("ceilings")) == 2);
    }

    #[test]
    fn nothing_loaded_says_so() {
        let page = overview(&Workspace::default(), 0);
        assert_eq!(page.text_content(), "Nothing loaded.");
    }

    use crate::state::markup::Node;
}
