//! The loaded runs and the kernels of the current run, in the side bar. Full names are text
//! (never markup) and shown on hover; the list shows shortened names.

use leptos::prelude::*;

use crate::ctx::Ctx;
use crate::state::view::KernelRef;

/// Most kernels listed before the filter must narrow the list.
const MAX_LISTED: usize = 400;

/// The loaded runs, with a button to drop one.
#[component]
pub fn RunList() -> impl IntoView {
    let ctx = Ctx::get();
    let runs = move || {
        ctx.ws.with(|ws| {
            ws.runs
                .iter()
                .enumerate()
                .map(|(i, r)| (i, r.run.name.clone(), r.kernels.len()))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <div class="runs">
            <h2>"Runs"</h2>
            <ul id="run-list">
                <For
                    each=runs
                    key=|r| r.clone()
                    children=move |(i, name, n)| {
                        let current = move || ctx.current_run() == i;
                        view! {
                            <li class:current=current>
                                <button
                                    class="link run-name"
                                    title=name.clone()
                                    on:click=move |_| {
                                        let first = ctx
                                            .ws
                                            .with(|ws| ws.resolve_selection(Some(KernelRef { run: i, kernel: 0 })));
                                        if let Some(r) = first {
                                            ctx.select(r);
                                        }
                                    }
                                >
                                    {name.clone()}
                                </button>
                                <span class="muted">{format!(" {n} kernels ")}</span>
                                <button class="link remove" title="remove this run" on:click=move |_| ctx.remove_run(i)>
                                    "×"
                                </button>
                            </li>
                        }
                    }
                />
            </ul>
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
            let shown = all
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
                .collect::<Vec<_>>();
            (shown, total)
        })
    });
    view! {
        <div class="kernels">
            <h2>"Kernels"</h2>
            <input
                id="kernel-filter"
                type="search"
                placeholder="filter kernels"
                on:input=move |ev| filter.set(event_target_value(&ev))
            />
            <ul id="kernel-list">
                <For
                    each=move || items.get().0
                    key=|k| (k.0, k.1)
                    children=move |(run, index, short, name, verdict)| {
                        let r = KernelRef { run, kernel: index };
                        let selected = move || ctx.selected() == Some(r);
                        view! {
                            <li>
                                <button
                                    class="kernel link"
                                    class:selected=selected
                                    data-kernel=index.to_string()
                                    title=name
                                    on:click=move |_| ctx.select(r)
                                >
                                    {short}
                                </button>
                                <span class="verdict muted">{verdict.unwrap_or_default()}</span>
                            </li>
                        }
                    }
                />
            </ul>
            <Show when=move || { let (s, t) = items.get(); t > s.len() }>
                <p class="muted">
                    {move || {
                        let (s, t) = items.get();
                        format!("{} of {t} shown; filter to find the rest", s.len())
                    }}
                </p>
            </Show>
        </div>
    }
}
