//! The application shell: provides the shared context ([`crate::ctx::Ctx`]), keeps the URL
//! in step with the view, and lays out the page with its tabs.

use std::rc::Rc;

use leptos::prelude::*;

use crate::browser;
use crate::components::kernel_list::{KernelList, RunList};
use crate::components::loader::Loader;
use crate::components::markup::markup_host;
use crate::ctx::Ctx;
use crate::pages;
use crate::state::page::shell;
use crate::state::view::{View, ViewState};

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let query = browser::query_string();
    let initial = ViewState::from_query(&query);
    let sources = initial.sources.clone();
    let ctx = Ctx::new(initial);
    ctx.view_pinned.set(
        crate::state::view::parse_query(&query)
            .iter()
            .any(|(k, _)| k == "view"),
    );
    provide_context(ctx);
    if !sources.is_empty() {
        ctx.load_sources(sources, false);
    }
    // Keep the address bar in step with the view.
    Effect::new(move |_| {
        let query = ctx.view.with(ViewState::to_query);
        browser::replace_query(&query);
    });

    let on_drop = move |ev: leptos::ev::DragEvent| {
        ev.prevent_default();
        if let Some(files) = ev.data_transfer().and_then(|d| d.files()) {
            let files = browser::files_of(&files);
            if !files.is_empty() {
                ctx.load_files(files);
            }
        }
    };
    let has_runs = move || ctx.ws.with(|ws| !ws.runs.is_empty());
    // While an exercise waits for answers, the other views and the kernel list (names,
    // verdicts, figures) stay out of the page.
    let hidden = Memo::new(move |_| {
        let run = ctx.run.get();
        ctx.view.with(|v| {
            v.view == View::Exercise && {
                let mysteries = ctx.ws.with(|ws| {
                    ws.runs
                        .get(run)
                        .map_or(0, |r| v.exercise.mystery_kernels(&r.kernels).len())
                });
                v.exercise.hides_page(mysteries)
            }
        })
    });

    view! {
        <div
            class="app"
            on:dragover=|ev: leptos::ev::DragEvent| ev.prevent_default()
            on:drop=on_drop
        >
            <header class="top">
                <h1>"Roofline viewer"</h1>
                <Loader />
            </header>
            {markup_host(Box::new(move || ctx.errors.with(|e| shell::error_list(e))), None)}
            <p id="status" class="status">{move || ctx.status.get()}</p>
            <Show when=has_runs fallback=|| markup_host(Box::new(shell::welcome), None)>
                <div class="main">
                    <aside class="side">
                        <RunList />
                        <Show when=move || !hidden.get()>
                            <KernelList />
                        </Show>
                    </aside>
                    <section class="content">
                        {tabs(hidden)}
                        <CurrentView />
                    </section>
                    {explain_panel()}
                </div>
            </Show>
        </div>
    }
}

/// The tabs, or the lock of an exercise in their place while it is `hidden`.
fn tabs(hidden: Memo<bool>) -> impl IntoView {
    let ctx = Ctx::get();
    let on_local = move |n: usize, _: String| {
        let view = View::ALL.get(n).copied().unwrap_or(View::Overview);
        if n == shell::LEAVE_EXERCISE || n < View::ALL.len() {
            ctx.view_pinned.set(true);
            ctx.view.update(|s| s.view = view);
        }
    };
    markup_host(
        Box::new(move || ctx.view.with(|v| shell::tabs(v.view, hidden.get()))),
        Some(Rc::new(on_local)),
    )
}

/// The explanation side panel.
fn explain_panel() -> impl IntoView {
    let ctx = Ctx::get();
    markup_host(
        Box::new(move || ctx.explain.with(|e| shell::explain_panel(*e))),
        Some(Rc::new(move |_, _| ctx.explain.set(None))),
    )
}

#[component]
fn CurrentView() -> impl IntoView {
    let ctx = Ctx::get();
    // A memo, so changing the selection does not rebuild the page.
    let kind = Memo::new(move |_| ctx.view.with(|v| v.view));
    move || match kind.get() {
        View::Overview => pages::overview::Overview().into_any(),
        View::Time => pages::time::TimePage().into_any(),
        View::Roofline => pages::roofline::RooflinePage().into_any(),
        View::Sol => pages::sol::SolPage().into_any(),
        View::Memory => pages::memory::MemoryPage().into_any(),
        View::Bytes => pages::bytes::BytesPage().into_any(),
        View::Occupancy => pages::occupancy::OccupancyPage().into_any(),
        View::Timing => pages::timing::TimingPage().into_any(),
        View::Metrics => pages::metrics::MetricsPage().into_any(),
        View::Compare => pages::compare::ComparePage().into_any(),
        View::Exercise => pages::exercise::ExercisePage().into_any(),
    }
}
