//! Overview: device and its theoretical peaks, measured ceilings and ridge points, the
//! compute roofs of every precision with where each comes from, the host's other devices
//! side by side, provenance, warnings, and what each kernel asks for. Built as markup by
//! `state::page::overview` (tested natively there); this page only shows it.

use leptos::prelude::*;

use crate::components::markup::markup_host;
use crate::ctx::Ctx;

/// The overview of the current run.
#[component]
pub fn Overview() -> impl IntoView {
    let ctx = Ctx::get();
    markup_host(
        Box::new(move || {
            let run = ctx.current_run();
            ctx.ws
                .with(|ws| crate::state::page::overview::overview(ws, run))
        }),
        None,
    )
}
