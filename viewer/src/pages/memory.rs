//! The memory chart of the selected kernel, with its headline memory figures.

use leptos::prelude::*;
use shared::chart::MemoryChart;
use shared::text::format::sig3;

use crate::components::canvas::MemoryCanvas;
use crate::components::term::Term;
use crate::ctx::Ctx;
use shared::text::format::opt;

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
    // Name, sectors per request, L1 and L2 hit rates, DRAM/ask.
    let facts = Memo::new(move |_| {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| ws.kernel(r)).map(|(_, k)| {
                // The unit with the number: a missing rate reads "-", not "- %".
                let pct = |v: f64| format!("{v:.1} %");
                (
                    k.name.clone(),
                    opt(k.sectors_per_request, sig3),
                    opt(k.hit_rates.l1_pct, pct),
                    opt(k.hit_rates.l2_pct, pct),
                    opt(k.row.dram_per_ask, |v| format!("{v:.4}")),
                )
            })
        })
    });
    view! {
        <div class="page memory" id="page-memory">
            {move || {
                facts
                    .get()
                    .map(|(name, spr, l1, l2, dpa)| {
                        view! {
                            <h2 class="kernel-name" id="memory-kernel">{name}</h2>
                            <p>
                                <Term key="sectors_per_request" text="sectors per request" />
                                {format!(": {spr}  ")}
                                <Term key="hit_rate" text="L1 hit" />
                                {format!(": {l1}  ")}
                                <Term key="hit_rate" text="L2 hit" />
                                {format!(": {l2}  ")}
                                <Term key="dram_per_ask" text="DRAM/ask" />
                                {format!(": {dpa}")}
                            </p>
                        }
                    })
            }}
            <MemoryCanvas chart=chart />
        </div>
    }
}
