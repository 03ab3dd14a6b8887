//! Nsight Compute's rules for the selected kernel: its findings ranked by estimated speedup,
//! with type, title and message (markup from `state::page::rules`).

use leptos::prelude::*;

use crate::components::markup::markup_host;
use crate::ctx::Ctx;
use crate::state::page::rules::rules_panel;

/// The rules panel of the selected kernel.
#[component]
pub fn RulesPage() -> impl IntoView {
    let ctx = Ctx::get();
    let panel = move || {
        let sel = ctx.selected();
        ctx.ws
            .with(|ws| rules_panel(sel.and_then(|r| ws.kernel(r)).map(|(_, k)| k)))
    };
    view! {
        <section class="page rules" id="page-rules">
            {markup_host(Box::new(panel), None)}
        </section>
    }
}
