//! The loaded runs and the kernels of the current run, in the side bar. Full names are text
//! (never markup) and shown on hover; the list shows shortened names. The lists are markup
//! from `state::page::shell`.

use std::rc::Rc;

use leptos::prelude::*;

use crate::components::markup::markup_host;
use crate::ctx::Ctx;
use crate::state::page::shell::{self, ListedKernel};
use crate::state::view::KernelRef;

/// Most kernels listed before the filter must narrow the list.
const MAX_LISTED: usize = 400;

/// The loaded runs, with a button to drop one.
#[component]
pub fn RunList() -> impl IntoView {
    let ctx = Ctx::get();
    let runs = move || {
        let current = ctx.current_run();
        ctx.ws.with(|ws| {
            let runs: Vec<(String, usize)> = ws
                .runs
                .iter()
                .map(|r| (r.run.name.clone(), r.kernels.len()))
                .collect();
            shell::run_list(&runs, current)
        })
    };
    let on_local = move |n: usize, _: String| {
        let i = n / 2;
        if n == shell::run_action(i) {
            let first = ctx
                .ws
                .with(|ws| ws.resolve_selection(Some(KernelRef { run: i, kernel: 0 })));
            if let Some(r) = first {
                ctx.select(r);
            }
        } else {
            ctx.remove_run(i);
        }
    };
    view! {
        <div class="runs">
            <h2>"Runs"</h2>
            {markup_host(Box::new(runs), Some(Rc::new(on_local)))}
        </div>
    }
}

/// The kernels of the current run, filterable; a click selects.
#[component]
pub fn KernelList() -> impl IntoView {
    let ctx = Ctx::get();
    let filter = RwSignal::new(String::new());
    let items = Memo::new(move |_| {
        let run = ctx.current_run();
        let needle = filter.get().to_lowercase();
        ctx.ws.with(|ws| {
            let Some(r) = ws.runs.get(run) else {
                return (Vec::new(), 0);
            };
            let all: Vec<_> = r
                .kernels
                .iter()
                .filter(|k| needle.is_empty() || k.name.to_lowercase().contains(&needle))
                .collect();
            let total = all.len();
            let shown: Vec<ListedKernel> = all
                .into_iter()
                .take(MAX_LISTED)
                .map(|k| {
                    (
                        run,
                        k.index,
                        k.short.clone(),
                        k.name.clone(),
                        k.row.verdict.clone(),
                    )
                })
                .collect();
            (shown, total)
        })
    });
    let list = move || {
        let selected = ctx.selected();
        items.with(|(shown, total)| shell::kernel_items(shown, *total, selected))
    };
    view! {
        <div class="kernels">
            <h2>"Kernels"</h2>
            <input
                id="kernel-filter"
                type="search"
                placeholder="filter kernels"
                on:input=move |ev| filter.set(event_target_value(&ev))
            />
            {markup_host(Box::new(list), None)}
        </div>
    }
}
