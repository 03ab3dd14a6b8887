//! Speed-of-Light table: the headline percentages of each kernel with the verdict and the
//! numbers that produced it.

use leptos::prelude::*;

use super::{ms, opt, pct};
use crate::app::Ctx;
use crate::components::explain::{NumCell, Term};
use crate::state::view::KernelRef;

/// The Speed-of-Light table of the current run.
#[component]
pub fn SolPage() -> impl IntoView {
    let ctx = Ctx::get();
    let rows = move || {
        let run = ctx.current_run();
        let selected = ctx.selected();
        ctx.ws.with(|ws| {
            let Some(r) = ws.runs.get(run) else {
                return Vec::new();
            };
            r.kernels
                .iter()
                .map(|k| {
                    let s = k.sol().clone();
                    let kr = KernelRef { run, kernel: k.index };
                    let is_sel = selected == Some(kr);
                    view! {
                        <tr class:selected=is_sel data-kernel=k.index.to_string()>
                            <td class="name" title=k.name.clone()>
                                <button class="link" on:click=move |_| ctx.select(kr)>
                                    {k.name.clone()}
                                </button>
                            </td>
                            <NumCell text=opt(s.sm_pct, pct) value=s.sm_pct key="sm_pct" col="sm_pct" />
                            <NumCell text=opt(s.memory_pct, pct) value=s.memory_pct key="memory_pct" col="memory_pct" />
                            <NumCell text=opt(s.dram_pct, pct) value=s.dram_pct key="dram_pct" col="dram_pct" />
                            <NumCell text=opt(s.l1_pct, pct) value=s.l1_pct col="l1_pct" />
                            <NumCell text=opt(s.l2_pct, pct) value=s.l2_pct col="l2_pct" />
                            <NumCell
                                text=opt(s.duration_ns.map(|v| v / 1e6), ms)
                                value=s.duration_ns.map(|v| v / 1e6)
                                key="ncu_duration"
                                col="ncu_ms"
                            />
                            <NumCell
                                text=opt(s.sm_hz.map(|v| v / 1e6), |v| format!("{v:.0}"))
                                value=s.sm_hz.map(|v| v / 1e6)
                                key="ncu_duration"
                                col="sm_mhz"
                            />
                            <td data-col="verdict" class="verdict">
                                {k.verdict.as_ref().map(|v| v.kind.as_str().to_string()).unwrap_or_else(|| "-".into())}
                            </td>
                            <td class="reason muted">
                                {k.verdict.as_ref().map(|v| v.reason.clone()).unwrap_or_default()}
                            </td>
                        </tr>
                    }
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="page sol" id="page-sol">
            <p class="muted">
                "Percentages are of each unit's own peak over the kernel's elapsed cycles, at the clocks ncu ran it (see Timing). "
                <Term key="memory_pct" text="Memory Throughput is not DRAM throughput." />
            </p>
            <table class="grid" id="sol-table">
                <thead>
                    <tr>
                        <th>"kernel"</th>
                        <th><Term key="sm_pct" text="Compute (SM) %" /></th>
                        <th><Term key="memory_pct" text="Memory %" /></th>
                        <th><Term key="dram_pct" text="DRAM %" /></th>
                        <th>"L1/TEX %"</th>
                        <th>"L2 %"</th>
                        <th><Term key="ncu_duration" text="ncu duration ms" /></th>
                        <th>"SM MHz"</th>
                        <th><Term key="verdict" text="verdict" /></th>
                        <th>"because"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}
