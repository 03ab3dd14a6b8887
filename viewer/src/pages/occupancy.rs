//! Occupancy: theoretical and achieved, the block limits that set the theoretical one, and
//! how each launch fits the GPU (waves, the limiting resource); under the table, the
//! selected kernel's stall chart with its largest reasons explained and its launch fit in
//! sentences.

use leptos::prelude::*;

use super::{opt, pct};
use crate::components::canvas::StallCanvas;
use crate::components::explain::{NumCell, Term};
use crate::components::virtual_table::{aria_row, rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::latency::{stall_chart, top_reasons};
use crate::state::view::KernelRef;

fn count(v: f64) -> String {
    format!("{v:.0}")
}

/// The occupancy table of the current run, and the selected kernel's stalls.
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
                let fit = &k.latency.fit;
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
                let limiter = fit
                    .limiters
                    .iter()
                    .map(|l| l.as_str())
                    .collect::<Vec<_>>()
                    .join(", ");
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
                        <NumCell text=opt(fit.waves, |w| format!("{w:.2}")) value=fit.waves key="waves" col="waves" />
                        <td data-col="limiter">{if limiter.is_empty() { "-".to_string() } else { limiter }}</td>
                        <NumCell text=opt(o.registers_per_thread, count) value=o.registers_per_thread col="registers" />
                        <NumCell text=opt(o.limit_registers, count) value=o.limit_registers col="limit_registers" />
                        <NumCell text=opt(o.limit_shared_mem, count) value=o.limit_shared_mem col="limit_shared" />
                        <NumCell text=opt(o.limit_warps, count) value=o.limit_warps col="limit_warps" />
                        <NumCell text=opt(o.limit_blocks, count) value=o.limit_blocks col="limit_blocks" />
                        <NumCell text=opt(o.limit_barriers, count) value=o.limit_barriers col="limit_barriers" />
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
                " buys latency hiding, nothing else. The block limits (blocks per SM allowed by each resource) set the theoretical figure; barriers and tail effects separate achieved from theoretical. "
                <Term key="waves" text="Waves" />
                " say whether the grid could fill the GPU at all."
            </p>
            <VirtualTable id="occupancy-table" rows=rows row=Callback::new(row)>
                <tr aria-rowindex="1">
                    <th>"kernel"</th>
                    <th>"grid x block"</th>
                    <th>"theoretical %"</th>
                    <th>"achieved %"</th>
                    <th><Term key="waves" text="waves/SM" /></th>
                    <th>"limited by"</th>
                    <th>"registers/thread"</th>
                    <th>"limit: registers"</th>
                    <th>"limit: shared mem"</th>
                    <th>"limit: warps"</th>
                    <th>"limit: block slots"</th>
                    <th>"limit: barriers"</th>
                </tr>
            </VirtualTable>
            <KernelStalls />
        </div>
    }
}

/// The selected kernel's stall chart, its largest reasons explained, and its launch fit.
#[component]
fn KernelStalls() -> impl IntoView {
    let ctx = Ctx::get();
    let chart = Memo::new(move |_| {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| ws.kernel(r))
                .map(|(_, k)| stall_chart(k))
                .unwrap_or_default()
        })
    });
    let facts = move || {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| ws.kernel(r)).map(|(_, k)| {
                let verdict = k
                    .verdict
                    .as_ref()
                    .map(|v| v.kind.as_str().to_string())
                    .unwrap_or_else(|| "no verdict".into());
                let line = match &k.latency.reason {
                    Some(reason) => format!("{verdict}: {reason}"),
                    None => verdict,
                };
                (k.name.clone(), line, k.latency.fit.notes(), top_reasons(k))
            })
        })
    };
    let reasons = move || {
        facts()
            .map(|(_, _, _, reasons)| reasons)
            .unwrap_or_default()
    };
    view! {
        <section class="latency" id="latency-panel">
            {move || {
                facts()
                    .map(|(name, line, notes, _)| {
                        view! {
                            <h2 class="kernel-name" id="latency-kernel">{name}</h2>
                            <p id="latency-reason">{line}</p>
                            <ul id="fit-notes">
                                {notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                            </ul>
                        }
                    })
            }}
            <div class="side-by-side">
                <div>
                    <StallCanvas chart=chart />
                </div>
                <div>
                    <h3><Term key="stalls" text="Largest stalls" /></h3>
                    {move || {
                        (facts().is_some() && reasons().is_empty())
                            .then(|| {
                                view! {
                                    <p class="muted" id="no-stalls">
                                        "This export has no warp-state counters: collect them with ncu's --set full (or its WarpStateStats section), or with capture profile."
                                    </p>
                                }
                            })
                    }}
                    <ul class="reasons" id="stall-reasons">
                        {move || {
                            reasons()
                                .into_iter()
                                .map(|n| {
                                    view! {
                                        <li data-stall=n.reason.key>
                                            <strong>{format!("{} ({})", n.reason.name, n.share)}</strong>
                                            {format!(
                                                ": a warp waits on {}. Usually {}. What helps: {}.",
                                                n.reason.waits_on,
                                                n.reason.causes,
                                                n.reason.helps,
                                            )}
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ul>
                </div>
            </div>
        </section>
    }
}
