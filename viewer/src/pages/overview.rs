//! Overview: device and its theoretical peaks, measured ceilings and ridge points, the
//! compute roofs of every precision with where each comes from, the host's other devices
//! side by side when their runs are loaded (`pages::multi`), provenance, warnings, and what
//! each kernel asks for (so a miscount is visible).

use leptos::prelude::*;
use shared::text::format::fmt_si;

use super::multi::DevicesSection;
use super::{num, opt};
use crate::components::explain::Term;
use crate::ctx::Ctx;

fn row(label: &'static str, value: String) -> impl IntoView {
    view! {
        <tr>
            <th scope="row">{label}</th>
            <td>{value}</td>
        </tr>
    }
}

/// The overview of the current run.
#[component]
pub fn Overview() -> impl IntoView {
    let ctx = Ctx::get();
    move || {
        let run_index = ctx.current_run();
        let Some(run) = ctx.ws.with(|ws| ws.runs.get(run_index).cloned()) else {
            return view! { <p>"Nothing loaded."</p> }.into_any();
        };
        let a = &run.run.artifact;
        let p = &a.provenance;
        let device = a.device.clone();
        let peaks = device.as_ref().map(|d| d.peaks.clone()).unwrap_or_default();
        let c = a.ceilings.clone().unwrap_or_default();
        let ridge_measured = c
            .ridge_flop_per_byte
            .or_else(|| shared::roofline::ridge(c.fma_gflop_per_s, c.copy_gbyte_per_s));
        let roofs = shared::figures::all_compute_ceilings(a)
            .into_iter()
            .map(|(w, c)| {
                let rate = |v: Option<f64>| opt(v, |v| fmt_si(v * 1e9, &format!("{}/s", w.unit())));
                view! {
                    <tr>
                        <td>{w.label()}</td>
                        <td>{rate(c.measured)}</td>
                        <td>{c.measured_source.unwrap_or_else(|| "not measured".into())}</td>
                        <td>{rate(c.theoretical)}</td>
                        <td>{c.theoretical_source.unwrap_or("no figure for this device")}</td>
                    </tr>
                }
            })
            .collect_view();
        let gbs = |v: f64| fmt_si(v * 1e9, "B/s");
        let gflops = |v: f64| fmt_si(v * 1e9, "FLOP/s");
        let device_rows = device.map(|d| {
            view! {
                <table class="kv" id="device">
                    {row("name", d.name.clone())}
                    {row("ordinal, PCI", format!("{}, {}", d.index.map_or("-".into(), |i| i.to_string()), d.pci_bus_id.clone().unwrap_or("-".into())))}
                    {row("compute capability", d.compute_capability.map(|c| c.to_string()).unwrap_or("-".into()))}
                    {row("SMs", d.sm_count.map(|v| v.to_string()).unwrap_or("-".into()))}
                    {row("SM clock", opt(d.sm_clock_khz.map(|v| v as f64 * 1e3), |v| fmt_si(v, "Hz")))}
                    {row("memory clock", opt(d.mem_clock_khz.map(|v| v as f64 * 1e3), |v| fmt_si(v, "Hz")))}
                    {row("bus width", d.bus_width_bits.map(|v| format!("{v} bits")).unwrap_or("-".into()))}
                    {row("L2", opt(d.l2_bytes.map(|v| v as f64), |v| fmt_si(v, "B")))}
                    {row("FP32 lanes per SM", d.peaks.fp32_lanes_per_sm.map(|v| v.to_string()).unwrap_or("unknown for this architecture".into()))}
                </table>
            }
        });
        let kernels =
            a.kernels
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
                    let check = k.check.as_ref().map(|c| {
                        format!("{}: {}", if c.passed { "pass" } else { "FAIL" }, c.detail)
                    });
                    view! {
                        <tr>
                            <td class="name">{k.name.clone()}</td>
                            <td>{k.source_file.clone().unwrap_or_default()}</td>
                            <td>{shape.unwrap_or_default()}</td>
                            <td>{asked.unwrap_or_else(|| "-".into())}</td>
                            <td>{check.unwrap_or_else(|| "-".into())}</td>
                        </tr>
                    }
                })
                .collect_view();
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
        let warnings = a.warnings.clone();
        view! {
            <div class="page overview" id="page-overview">
                <h2>{run.run.name.clone()}</h2>
                <div class="cards">
                    <div class="card">
                        <h3>"Device"</h3>
                        {device_rows}
                    </div>
                    <div class="card">
                        <h3>
                            <Term key="peaks" text="Theoretical peaks" />
                        </h3>
                        <table class="kv" id="peaks">
                            {row("FP32", opt(peaks.fp32_gflop_per_s, gflops))}
                            {row("DRAM", opt(peaks.dram_gbyte_per_s, gbs))}
                            {row("ridge (FLOP/byte)", opt(peaks.ridge_flop_per_byte, num))}
                        </table>
                    </div>
                    <div class="card">
                        <h3>
                            <Term key="ceilings" text="Measured ceilings" />
                        </h3>
                        <table class="kv" id="ceilings">
                            {row("copy (read + write)", opt(c.copy_gbyte_per_s, gbs))}
                            {row("read only", opt(c.read_gbyte_per_s, gbs))}
                            {row("driver memcpy", opt(c.memcpy_gbyte_per_s, gbs))}
                            {row("L2-resident copy", opt(c.l2_copy_gbyte_per_s, gbs))}
                            {row("FP32 FMA", opt(c.fma_gflop_per_s, gflops))}
                            {row("held SM clock", opt(c.held_sm_clock_mhz.map(|v| v * 1e6), |v| fmt_si(v, "Hz")))}
                            {row("ridge (FLOP/byte)", opt(ridge_measured, num))}
                        </table>
                    </div>
                    <div class="card">
                        <h3>"Provenance"</h3>
                        <table class="kv" id="provenance">
                            {row("origin", p.origin.map(|o| format!("{o:?}").to_lowercase()).unwrap_or("-".into()))}
                            {row("tool", format!("{} {}", p.tool, p.tool_version))}
                            {row("created (UTC)", p.created_utc.clone().unwrap_or("-".into()))}
                            {row("host", p.host.clone().unwrap_or("-".into()))}
                            {row("rank", rank.clone())}
                            {row("driver", p.driver_version.clone().unwrap_or("-".into()))}
                            {row("CUDA", p.cuda_version.clone().unwrap_or("-".into()))}
                            {row("NVRTC", p.nvrtc_version.clone().unwrap_or("-".into()))}
                            {row("Nsight Compute", p.ncu_version.clone().unwrap_or("-".into()))}
                            {row("ncu clock control", p.clock_control.clone().unwrap_or("unknown".into()))}
                            {row("inputs", p.inputs.join(", "))}
                        </table>
                        <ul class="commands">
                            {p.ncu_commands.iter().map(|c| view! { <li><code>{c.clone()}</code></li> }).collect_view()}
                        </ul>
                    </div>
                </div>
                <h3>
                    <Term key="ceilings" text="Compute roofs per precision" />
                </h3>
                <table class="grid" id="compute-roofs">
                    <thead>
                        <tr>
                            <th>"precision"</th>
                            <th>"measured"</th>
                            <th>"measured by"</th>
                            <th>"theoretical"</th>
                            <th>"theoretical from"</th>
                        </tr>
                    </thead>
                    <tbody>{roofs}</tbody>
                </table>
                <DevicesSection run=Signal::derive(move || ctx.current_run()) />
                <h3>"Warnings"</h3>
                <ul class="warnings" id="warnings">
                    {if warnings.is_empty() {
                        view! { <li class="muted">"none"</li> }.into_any()
                    } else {
                        warnings.into_iter().map(|w| view! { <li>{w}</li> }).collect_view().into_any()
                    }}
                </ul>
                <h3>
                    <Term key="ask_bytes" text="What each kernel asks for" />
                </h3>
                <table class="grid" id="kernels-asked">
                    <thead>
                        <tr>
                            <th>"kernel"</th>
                            <th>"source"</th>
                            <th>"launch"</th>
                            <th>"asked bytes and FLOPs"</th>
                            <th>"check"</th>
                        </tr>
                    </thead>
                    <tbody>{kernels}</tbody>
                </table>
            </div>
        }
            .into_any()
    }
}
