//! The application shell: the shared context (workspace, view state, errors), loading
//! actions, the URL sync, and the page layout with its tabs.

use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::browser;
use crate::components::explain::ExplainPanel;
use crate::components::kernel_list::{KernelList, RunList};
use crate::components::loader::Loader;
use crate::pages;
use crate::state::load::{load_batch, InputFile, LoadError, Run};
use crate::state::model::Workspace;
use crate::state::view::{is_local_path, KernelRef, View, ViewState};

/// Everything the components share, all reactive.
#[derive(Clone, Copy)]
pub struct Ctx {
    /// Loaded runs and their figures.
    pub ws: RwSignal<Workspace>,
    /// View, selection, precision, sources: what the URL keeps.
    pub view: RwSignal<ViewState>,
    /// Files that could not be loaded, newest batch.
    pub errors: RwSignal<Vec<LoadError>>,
    /// A line about the last load (what, how long).
    pub status: RwSignal<String>,
    /// When the user picked files (ms since page start), until the roofline is drawn.
    pub pending_since: RwSignal<Option<f64>>,
    /// Selection to draw time of the last load, ms.
    pub last_load_ms: RwSignal<Option<f64>>,
    /// The explanation open in the side panel.
    pub explain: RwSignal<Option<&'static str>>,
    /// The run the run-level views show (the selected kernel's). A memo, so views of a
    /// whole run are not rebuilt when only the selected kernel changes.
    pub run: Memo<usize>,
}

impl Ctx {
    /// The context provided by [`App`].
    pub fn get() -> Ctx {
        use_context::<Ctx>().unwrap_or_else(|| Ctx::new(ViewState::default()))
    }

    fn new(view: ViewState) -> Ctx {
        let ws = RwSignal::new(Workspace::default());
        let view = RwSignal::new(view);
        let run = Memo::new(move |_| {
            let wanted = view.with(|v| v.selected);
            ws.with(|ws| ws.resolve_selection(wanted))
                .map_or(0, |r| r.run)
        });
        Ctx {
            ws,
            view,
            errors: RwSignal::new(Vec::new()),
            status: RwSignal::new(String::new()),
            pending_since: RwSignal::new(None),
            last_load_ms: RwSignal::new(None),
            explain: RwSignal::new(None),
            run,
        }
    }

    /// The selected kernel, made valid against what is loaded.
    pub fn selected(&self) -> Option<KernelRef> {
        let wanted = self.view.with(|v| v.selected);
        self.ws.with(|ws| ws.resolve_selection(wanted))
    }

    /// The run the run-level views show: the selected kernel's.
    pub fn current_run(&self) -> usize {
        self.run.get()
    }

    /// Selects a kernel (and keeps the view).
    pub fn select(&self, r: KernelRef) {
        self.view.update(|v| v.selected = Some(r));
    }

    /// Adds loaded runs, reports errors, and selects the first new run.
    pub fn add_runs(&self, runs: Vec<Run>, errors: Vec<LoadError>, started_ms: f64) {
        let added = runs.len();
        let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
        let kernels: usize = runs.iter().map(|r| r.artifact.kernels.len()).sum();
        if added > 0 {
            let mut first = 0;
            self.ws.update(|ws| first = ws.add(runs));
            let sel = self.ws.with(|ws| {
                ws.runs.get(first).map(|run| {
                    let k = run
                        .kernels
                        .iter()
                        .find(|k| k.has_counters)
                        .map_or(0, |k| k.index);
                    KernelRef {
                        run: first,
                        kernel: k,
                    }
                })
            });
            self.view.update(|v| v.selected = sel);
            let ms = browser::now_ms() - started_ms;
            self.status.set(format!(
                "loaded {} ({kernels} kernels) in {ms:.0} ms",
                names.join(", ")
            ));
        }
        // A new batch replaces old messages; what was loaded before stays.
        self.errors.set(errors);
    }

    /// Reads picked or dropped files and loads them as a batch.
    pub fn load_files(&self, list: Vec<web_sys::File>) {
        let ctx = *self;
        let started = browser::now_ms();
        ctx.pending_since.set(Some(started));
        ctx.status.set("reading files…".into());
        spawn_local(async move {
            let (files, read_errors) = browser::read_files(list).await;
            let (runs, mut errors) = load_batch(files);
            errors.extend(
                read_errors
                    .into_iter()
                    .map(|(file, message)| LoadError { file, message }),
            );
            if runs.is_empty() {
                ctx.pending_since.set(None);
                ctx.status.set(String::new());
            }
            ctx.add_runs(runs, errors, started);
        });
    }

    /// Fetches bundled files by path and loads each as its own run, in order.
    pub fn load_sources(&self, sources: Vec<String>, remember: bool) {
        let ctx = *self;
        let started = browser::now_ms();
        ctx.pending_since.set(Some(started));
        spawn_local(async move {
            let mut runs = Vec::new();
            let mut errors = Vec::new();
            for src in sources {
                if !is_local_path(&src) {
                    errors.push(LoadError {
                        file: src.clone(),
                        message: "only files of this site can be opened by link".into(),
                    });
                    continue;
                }
                match browser::fetch_text(&src).await {
                    Ok(text) => {
                        let (mut loaded, errs) = load_batch(vec![InputFile {
                            name: src.clone(),
                            text,
                        }]);
                        for r in &mut loaded {
                            r.src = Some(src.clone());
                        }
                        runs.extend(loaded);
                        errors.extend(errs);
                    }
                    Err(message) => errors.push(LoadError {
                        file: src.clone(),
                        message,
                    }),
                }
            }
            if runs.is_empty() {
                ctx.pending_since.set(None);
            }
            let keep_view = ctx.view.get_untracked();
            let srcs: Vec<String> = runs.iter().filter_map(|r| r.src.clone()).collect();
            ctx.add_runs(runs, errors, started);
            if remember {
                ctx.view.update(|v| {
                    for s in srcs {
                        if !v.sources.contains(&s) {
                            v.sources.push(s);
                        }
                    }
                });
            } else {
                // Opening from the URL: keep the linked selection when it is valid.
                ctx.view.update(|v| {
                    v.sources = keep_view.sources.clone();
                    if keep_view.selected.is_some() {
                        v.selected = keep_view.selected;
                    }
                    v.compare = keep_view.compare;
                });
            }
        });
    }

    /// Removes a run and everything that pointed at it.
    pub fn remove_run(&self, index: usize) {
        let src = self
            .ws
            .with(|ws| ws.runs.get(index).and_then(|r| r.run.src.clone()));
        self.ws.update(|ws| {
            if index < ws.runs.len() {
                ws.runs.remove(index);
            }
        });
        self.view.update(|v| {
            if let Some(s) = src {
                v.sources.retain(|x| *x != s);
            }
            let fix = |r: Option<KernelRef>| match r {
                Some(r) if r.run == index => None,
                Some(r) if r.run > index => Some(KernelRef {
                    run: r.run - 1,
                    ..r
                }),
                other => other,
            };
            v.selected = fix(v.selected);
            v.compare = fix(v.compare);
        });
    }
}

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    let initial = ViewState::from_query(&browser::query_string());
    let sources = initial.sources.clone();
    let ctx = Ctx::new(initial);
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
                ", or one or more Nsight Compute CSV exports (" <code>"--page raw"</code> ", "
                <code>"--page details"</code>
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
                            on:click=move |_| ctx.view.update(|s| s.view = v)
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
