//! The application shell: provides the shared context ([`crate::ctx::Ctx`]), keeps the URL
//! in step with the view, and lays out the page with its tabs.

use leptos::prelude::*;

use crate::browser;
use crate::components::explain::ExplainPanel;
use crate::components::kernel_list::{KernelList, RunList};
use crate::components::loader::Loader;
use crate::ctx::Ctx;
use crate::pages;
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
            <ErrorList />
            <p id="status" class="status">{move || ctx.status.get()}</p>
            <Show when=has_runs fallback=|| view! { <Welcome /> }>
                <div class="main">
                    <aside class="side">
                        <RunList />
                        <KernelList />
                    </aside>
                    <section class="content">
                        <Tabs />
                        <CurrentView />
                    </section>
                    <ExplainPanel />
                </div>
            </Show>
        </div>
    }
}

#[component]
fn ErrorList() -> impl IntoView {
    let ctx = Ctx::get();
    view! {
        <div id="errors" class="errors" role="alert">
            <For
                each=move || ctx.errors.get().into_iter().enumerate()
                key=|(i, e)| (*i, e.file.clone(), e.message.clone())
                children=move |(_, e)| {
                    view! {
                        <p class="error">
                            <strong class="error-file">{e.file.clone()}</strong>
                            ": "
                            <span class="error-message">{e.message.clone()}</span>
                        </p>
                    }
                }
            />
        </div>
    }
}

#[component]
fn Welcome() -> impl IntoView {
    view! {
        <div class="welcome">
            <p>
                "Open an artifact written by " <code>"capture"</code>
                ", an Nsight Compute report (" <code>".ncu-rep"</code>
                ", no Nsight Compute needed), or one or more Nsight Compute CSV exports ("
                <code>"--page raw"</code> ", " <code>"--page details"</code>
                ", or both of one run), with the button above or by dropping files anywhere on the page. Or pick a bundled sample from the menu."
            </p>
            <p>"Everything happens in this page: no file leaves your browser."</p>
        </div>
    }
}

#[component]
fn Tabs() -> impl IntoView {
    let ctx = Ctx::get();
    view! {
        <nav class="tabs" role="tablist">
            {View::ALL
                .into_iter()
                .map(|v| {
                    let active = move || ctx.view.with(|s| s.view == v);
                    view! {
                        <button
                            id=format!("tab-{}", v.slug())
                            role="tab"
                            class:active=active
                            aria-selected=move || active().to_string()
                            on:click=move |_| {
                                ctx.view_pinned.set(true);
                                ctx.view.update(|s| s.view = v)
                            }
                        >
                            {v.title()}
                        </button>
                    }
                })
                .collect_view()}
        </nav>
    }
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
    }
}
