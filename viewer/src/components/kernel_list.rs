//! The loaded runs and the kernels of the current run, in the side bar. The kernels are in
//! time order with their share and verdict (`state::shell::kernel_list`); full names are
//! text (never markup) and shown on hover.

use leptos::prelude::*;

use crate::ctx::Ctx;
use crate::state::shell::kernel_list;
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
                .map(|r| (r.run.name.clone(), r.run.file_names(), r.kernels.len()))
                .collect::<Vec<_>>()
        })
    };
    let open = move |i: usize| {
        let first = ctx
            .ws
            .with(|ws| ws.resolve_selection(Some(KernelRef { run: i, kernel: 0 })));
        if let Some(r) = first {
            ctx.select(r);
        }
    };
    view! {
        <div class="runs">
            <h2>"Runs"</h2>
            <ul id="run-list">
                {move || {
                    let current = ctx.current_run();
                    runs()
                        .into_iter()
                        .enumerate()
                        .map(|(i, (title, name, n))| {
                            // The files' own names show (the side bar cut
                            // `samples/h200-two-process.ncu-rep` at its end); the paths
                            // are the title.
                            view! {
                                <li class=(i == current).then_some("current")>
                                    <button
                                        class="link run-name"
                                        title=title
                                        on:click=move |_| open(i)
                                    >
                                        {name}
                                    </button>
                                    <span class="muted">{format!(" {n} kernels ")}</span>
                                    <button
                                        class="link remove"
                                        title="remove this run"
                                        aria-label="remove this run"
                                        on:click=move |_| ctx.remove_run(i)
                                    >
                                        "×"
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ul>
        </div>
    }
}

/// The kernels of the current run, most time first, filterable; a click selects.
#[component]
pub fn KernelList() -> impl IntoView {
    let ctx = Ctx::get();
    let filter = RwSignal::new(String::new());
    let items = Memo::new(move |_| {
        let run = ctx.current_run();
        let needle = filter.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| kernel_list(r, &needle, MAX_LISTED))
                .unwrap_or_default()
        })
    });
    let list = move || {
        let run = ctx.current_run();
        let selected = ctx.selected();
        items.with(|(shown, _)| {
            shown
                .iter()
                .map(|k| {
                    let r = KernelRef {
                        run,
                        kernel: k.index,
                    };
                    let current = selected == Some(r);
                    let class = if current {
                        "kernel link selected"
                    } else {
                        "kernel link"
                    };
                    view! {
                        <li>
                            <button
                                class=class
                                data-kernel=k.index.to_string()
                                aria-current=current.then_some("true")
                                title=k.name.clone()
                                on:click=move |_| ctx.select(r)
                            >
                                <span class="kname">{k.short.clone()}</span>
                                <span class="kfacts">
                                    <span class="share">{k.share.clone()}</span>
                                    " "
                                    <span class="verdict">{k.verdict.clone()}</span>
                                </span>
                            </button>
                        </li>
                    }
                })
                .collect_view()
        })
    };
    let more = move || {
        items.with(|(shown, total)| {
            (*total > shown.len()).then(|| {
                view! {
                    <p class="muted">
                        {format!("{} of {total} shown; filter to find the rest", shown.len())}
                    </p>
                }
            })
        })
    };
    view! {
        <div class="kernels">
            <h2>"Kernels"</h2>
            <p class="muted hint">"most time first"</p>
            <input
                id="kernel-filter"
                type="search"
                placeholder="filter kernels"
                aria-label="filter kernels"
                on:input=move |ev| filter.set(event_target_value(&ev))
            />
            <ul id="kernel-list">{list}</ul>
            {more}
        </div>
    }
}
