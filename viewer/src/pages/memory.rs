//! The memory chart of the selected kernel, with its headline memory figures.

use leptos::prelude::*;
use shared::chart::MemoryChart;

use super::{num, opt, pct};
use crate::components::canvas::MemoryCanvas;
use crate::components::explain::Term;
use crate::ctx::Ctx;

/// The memory chart of the selected kernel.
#[component]
pub fn MemoryPage() -> impl IntoView {
    let ctx = Ctx::get();
    let chart = Memo::new(move |_| {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| ws.kernel(r))
                .map(|(_, k)| MemoryChart {
                    title: k.short.clone(),
                    flows: k.flows.clone(),
                    compare: None,
                })
                .unwrap_or_default()
        })
    });
    let facts = move || {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| ws.kernel(r)).map(|(_, k)| {
                (
                    k.name.clone(),
                    k.sectors_per_request,
                    k.hit_rates.l1_pct,
                    k.hit_rates.l2_pct,
                    k.row.dram_per_ask,
                )
            })
        })
    };
    view! {
        <div class="page memory" id="page-memory">
            {move || {
                facts()
                    .map(|(name, spr, l1, l2, dpa)| {
                        view! {
                            <h2 class="kernel-name" id="memory-kernel">{name}</h2>
                            <p>
                                <Term key="sectors_per_request" text="sectors per request" />
                                {format!(": {}  ", opt(spr, num))}
                                <Term key="hit_rate" text="L1 hit" />
                                {format!(": {} %  ", opt(l1, pct))}
                                <Term key="hit_rate" text="L2 hit" />
                                {format!(": {} %  ", opt(l2, pct))}
                                <Term key="dram_per_ask" text="DRAM/ask" />
                                {format!(": {}", opt(dpa, |v| format!("{v:.4}")))}
                            </p>
                        }
                    })
            }}
            <MemoryCanvas chart=chart />
        </div>
    }
}
