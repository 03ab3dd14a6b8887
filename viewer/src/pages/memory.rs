//! The memory chart of the selected kernel, with its headline memory figures (markup from
//! `state::page::kernel`).

use leptos::prelude::*;
use shared::chart::MemoryChart;

use crate::components::canvas::MemoryCanvas;
use crate::components::markup::markup_host;
use crate::ctx::Ctx;
use crate::state::page::kernel::memory_facts;

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
        ctx.ws
            .with(|ws| memory_facts(sel.and_then(|r| ws.kernel(r)).map(|(_, k)| k)))
    };
    view! {
        <div class="page memory" id="page-memory">
            {markup_host(Box::new(facts), None)}
            <MemoryCanvas chart=chart />
        </div>
    }
}
