//! Occupancy: theoretical and achieved, and the block limits that set the theoretical one.

use leptos::prelude::*;

use super::{opt, pct};
use crate::components::explain::{NumCell, Term};
use crate::components::virtual_table::{aria_row, rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::view::KernelRef;

fn count(v: f64) -> String {
    format!("{v:.0}")
}

/// The occupancy table of the current run.
#[component]
pub fn OccupancyPage() -> impl IntoView {
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
            ws.kernel(kr).map(|(r, k)| {
                let o = k.occupancy.clone();
                let launch = r
                    .run
                    .artifact
                    .kernels
                    .get(k.index)
                    .and_then(|rec| rec.cold.as_ref())
                    .and_then(|c| c.launches.first())
                    .map(|l| {
                        format!(
                            "{} x {}",
                            l.grid.map(|g| format!("{g:?}")).unwrap_or("?".into()),
                            l.block.map(|b| format!("{b:?}")).unwrap_or("?".into())
                        )
                    })
                    .unwrap_or_default();
                view! {
                    <tr
                        class:selected=move || ctx.selected() == Some(kr)
                        data-kernel=kr.kernel.to_string()
                        aria-rowindex=aria_row(pos)
                    >
                        <td class="name" title=k.name.clone()>
                            <button class="link" on:click=move |_| ctx.select(kr)>{k.short.clone()}</button>
                        </td>
                        <td>{launch}</td>
                        <NumCell text=opt(o.theoretical_pct, pct) value=o.theoretical_pct key="occupancy" col="theoretical" />
                        <NumCell text=opt(o.achieved_pct, pct) value=o.achieved_pct key="occupancy" col="achieved" />
                        <NumCell text=opt(o.registers_per_thread, count) value=o.registers_per_thread col="registers" />
                        <NumCell text=opt(o.limit_registers, count) value=o.limit_registers col="limit_registers" />
                        <NumCell text=opt(o.limit_shared_mem, count) value=o.limit_shared_mem col="limit_shared" />
                        <NumCell text=opt(o.limit_warps, count) value=o.limit_warps col="limit_warps" />
                        <NumCell text=opt(o.limit_blocks, count) value=o.limit_blocks col="limit_blocks" />
                    </tr>
                }
                .into_any()
            })
        })
        .unwrap_or_else(|| ().into_any())
    };
    view! {
        <div class="page occupancy" id="page-occupancy">
            <p class="muted">
                <Term key="occupancy" text="Occupancy" />
                " buys latency hiding, nothing else. The block limits (blocks per SM allowed by each resource) set the theoretical figure; barriers and tail effects separate achieved from theoretical."
            </p>
            <VirtualTable id="occupancy-table" rows=rows row=Callback::new(row)>
                <tr aria-rowindex="1">
                    <th>"kernel"</th>
                    <th>"grid x block"</th>
                    <th>"theoretical %"</th>
                    <th>"achieved %"</th>
                    <th>"registers/thread"</th>
                    <th>"limit: registers"</th>
                    <th>"limit: shared mem"</th>
                    <th>"limit: warps"</th>
                    <th>"limit: block slots"</th>
                </tr>
            </VirtualTable>
        </div>
    }
}
