//! The application shell: provides the shared context ([`crate::ctx::Ctx`]), keeps the URL
//! in step with the view, and lays out the page: a skip link, the loader, the warning
//! banner of the current run, the tabs (a `tablist`, arrow keys move between them) and the
//! current page from [`PAGES`].

use leptos::prelude::*;

use crate::browser;
use crate::components::kernel_list::{KernelList, RunList};
use crate::components::loader::Loader;
use crate::components::range_tree::RangeBanner;
use crate::components::shell::{Banner, ErrorList, ExplainPanel, Welcome};
use crate::ctx::Ctx;
use crate::pages;
use crate::state::view::{View, ViewState};

/// A page of the viewer: the view it shows and its component.
pub type Page = (View, fn() -> AnyView);

/// Every page, in tab order. A new page is a component in `pages/`, a [`View`] (its slug
/// and title) and an entry here.
pub const PAGES: &[Page] = &[
    (View::Overview, || pages::overview::Overview().into_any()),
    (View::Time, || pages::time::TimePage().into_any()),
    (View::Roofline, || {
        pages::roofline::RooflinePage().into_any()
    }),
    (View::Sol, || pages::sol::SolPage().into_any()),
    (View::Memory, || pages::memory::MemoryPage().into_any()),
    (View::Bytes, || pages::bytes::BytesPage().into_any()),
    (View::Occupancy, || {
        pages::occupancy::OccupancyPage().into_any()
    }),
    (View::Rules, || pages::rules::RulesPage().into_any()),
    (View::Source, || pages::source::SourcePage().into_any()),
    (View::Timing, || pages::timing::TimingPage().into_any()),
    (View::Metrics, || pages::metrics::MetricsPage().into_any()),
    (View::Compare, || pages::compare::ComparePage().into_any()),
    (View::Exercise, || {
        pages::exercise::ExercisePage().into_any()
    }),
];

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
    let picked_before = sources.is_empty().then(browser::picked_before).flatten();
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
            <a class="skip" href="#content">"Skip to the page"</a>
            <header class="top">
                <h1>"Roofline viewer"</h1>
                <Loader />
            </header>
            <ErrorList />
            <p id="status" class="status" role="status">{move || ctx.status.get()}</p>
            <Show
                when=has_runs
                fallback=move || view! { <Welcome picked_before=picked_before.clone() /> }
            >
                <Show when=move || !hidden.get()>
                    <Banner />
                </Show>
                <div class="main">
                    <aside class="side">
                        <RunList />
                        <Show when=move || !hidden.get()>
                            <KernelList />
                        </Show>
                    </aside>
                    <main class="content" id="content" tabindex="-1">
                        <Tabs hidden=hidden />
                        <RangeBanner />
                        <CurrentView />
                    </main>
                    <ExplainPanel />
                </div>
            </Show>
        </div>
    }
}

/// The tabs, a `tablist` (arrow keys, Home and End move between them), or the lock of an
/// exercise in their place while it is `hidden`.
#[component]
fn Tabs(hidden: Memo<bool>) -> impl IntoView {
    let ctx = Ctx::get();
    let show = move |view: View| {
        ctx.view_pinned.set(true);
        ctx.view.update(|s| s.view = view);
    };
    let current = Memo::new(move |_| ctx.view.with(|v| v.view));
    // Focuses tab `v` and opens its page, except the exercise's: while it waits for answers
    // it hides these tabs, which would drop the focus, so that tab is only focused and opens
    // with Enter, Space or a click.
    let go = move |v: View| {
        if v != View::Exercise {
            show(v);
        }
        focus_tab(v);
    };
    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let n = PAGES.len();
        // From the focused tab (the exercise's may be focused and not open), else the open one.
        let from = focused_tab().unwrap_or_else(|| current.get_untracked());
        let at = PAGES.iter().position(|(v, _)| *v == from).unwrap_or(0);
        let to = match ev.key().as_str() {
            "ArrowRight" | "ArrowDown" => (at + 1) % n,
            "ArrowLeft" | "ArrowUp" => (at + n - 1) % n,
            "Home" => 0,
            "End" => n - 1,
            _ => return,
        };
        ev.prevent_default();
        if let Some((v, _)) = PAGES.get(to) {
            go(*v);
        }
    };
    move || {
        if hidden.get() {
            return view! {
                <div id="exercise-lock" class="lock">
                    <span>
                        "Exercise in progress: the other views and the kernel list come back once \
                         you commit your answers."
                    </span>
                    <button class="link" id="leave-exercise" on:click=move |_| show(View::Overview)>
                        "leave the exercise (shows the answers)"
                    </button>
                </div>
            }
            .into_any();
        }
        view! {
            <nav class="tabs" role="tablist" aria-label="views" on:keydown=on_key>
                {PAGES
                    .iter()
                    .map(|(v, _)| {
                        let v = *v;
                        let active = move || current.get() == v;
                        view! {
                            <button
                                id=format!("tab-{}", v.slug())
                                role="tab"
                                class=move || active().then_some("active")
                                aria-selected=move || active().to_string()
                                aria-controls="page"
                                tabindex=move || if active() { "0" } else { "-1" }
                                on:click=move |_| show(v)
                            >
                                {v.title()}
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
        }
        .into_any()
    }
}

/// The page of the focused tab, if a tab has the focus.
fn focused_tab() -> Option<View> {
    let id = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.active_element())
        .map(|e| e.id())?;
    let slug = id.strip_prefix("tab-")?;
    PAGES.iter().map(|(v, _)| *v).find(|v| v.slug() == slug)
}

/// Focuses the tab of view `v`, once it is drawn.
fn focus_tab(v: View) {
    request_animation_frame(move || {
        let el = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.get_element_by_id(&format!("tab-{}", v.slug())));
        if let Some(el) =
            el.and_then(|e| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(e).ok())
        {
            let _ = el.focus();
        }
    });
}

/// The current page.
#[component]
fn CurrentView() -> impl IntoView {
    let ctx = Ctx::get();
    // A memo, so changing the selection does not rebuild the page.
    let kind = Memo::new(move |_| ctx.view.with(|v| v.view));
    view! {
        <div id="page" role="tabpanel">
            {move || {
                let v = kind.get();
                PAGES
                    .iter()
                    .find(|(p, _)| *p == v)
                    .map(|(_, page)| page())
            }}
        </div>
    }
}
