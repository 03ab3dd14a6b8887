//! Speed-of-Light table: the headline percentages of each kernel with the verdict and the
//! numbers that produced it; a latency-bound kernel's reason says why (its waves and top
//! stall).

use leptos::prelude::*;

use super::{ms, opt, pct};
use crate::components::explain::{NumCell, Term};
use crate::components::virtual_table::{aria_row, rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::view::KernelRef;

/// The Speed-of-Light table of the current run.
#[component]
pub fn SolPage() -> impl IntoView {
    let ctx = Ctx::get();
    let rows = rows_memo(move || {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| (0..r.kernels.len()).collect())
                .unwrap_or_default()
        })
    });
    let row = move |(pos, kernel): (usize, usize)| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        ctx.ws.with_untracked(|ws| {
            ws.kernel(kr).map(|(_, k)| {
                let s = k.sol().clone();
                // A latency-bound kernel says why (waves, stalls); the Speed-of-Light
                // numbers behind every verdict stay in the hover text.
                let numbers = k.verdict.as_ref().map(|v| v.reason.clone()).unwrap_or_default();
                let reason = k.latency.reason.clone().unwrap_or_else(|| numbers.clone());
                let reason_title = if k.latency.reason.is_some() {
                    format!("{reason}\n{numbers}")
                } else {
                    numbers
                };
                view! {
                    <tr
                        class:selected=move || ctx.selected() == Some(kr)
                        data-kernel=kr.kernel.to_string()
                        aria-rowindex=aria_row(pos)
                    >
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
                        <td class="reason muted" data-col="because" title=reason_title>{reason}</td>
                    </tr>
                }
                .into_any()
            })
        })
        .unwrap_or_else(|| ().into_any())
    };
    view! {
        <div class="page sol" id="page-sol">
            <p class="muted">
                "Percentages are of each unit's own peak over the kernel's elapsed cycles, at the clocks ncu ran it (see Timing). "
                <Term key="memory_pct" text="Memory Throughput is not DRAM throughput." />
            </p>
            <VirtualTable id="sol-table" rows=rows row=Callback::new(row)>
                <tr aria-rowindex="1">
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
            </VirtualTable>
        </div>
    }
}
