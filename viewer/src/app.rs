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
            <ErrorList />
            <p id="status" class="status">{move || ctx.status.get()}</p>
            <Show when=has_runs fallback=|| view! { <Welcome /> }>
                <div class="main">
                    <aside class="side">
                        <RunList />
                        <Show when=move || !hidden.get()>
                            <KernelList />
                        </Show>
                    </aside>
                    <section class="content">
                        <Show when=move || !hidden.get() fallback=|| view! { <ExerciseLock /> }>
                            <Tabs />
                        </Show>
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
            <h2>"Learning without a GPU"</h2>
            <p>
                "The Exercises tab turns a report into a lesson: commit to an answer, then see what the counters say. "
                "A course can hand out links such as "
                <code>"?src=samples/h200.json&view=exercise"</code>
                ": the learner predicts whether each kernel's DRAM/ask lands above 1, near 1 (0.85 to 1.15) or below 1, with no measured figure in the page until they submit; then sees the measured values, a score, and each miss explained from that kernel's own counters. "
                "Reading the report ("
                <code>"&ex=quiz"</code>
                ") asks questions about the bundled samples and shows the rows that settle them; mystery kernels ("
                <code>"&ex=mystery"</code>
                ") hide names and sources until a diagnosis is committed. Every choice is kept in the link, so a learner can hand in or come back to their answers."
            </p>
        </div>
    }
}

/// In place of the tabs while an exercise waits for answers.
#[component]
fn ExerciseLock() -> impl IntoView {
    let ctx = Ctx::get();
    view! {
        <div id="exercise-lock" class="lock">
            <span>
                "Exercise in progress: the other views and the kernel list come back once you commit your answers."
            </span>
            <button
                class="link"
                id="leave-exercise"
                on:click=move |_| {
                    ctx.view_pinned.set(true);
                    ctx.view.update(|s| s.view = View::Overview)
                }
            >
                "leave the exercise (shows the answers)"
            </button>
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
        View::Exercise => pages::exercise::ExercisePage().into_any(),
    }
}
