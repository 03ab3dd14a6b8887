//! The shared context of the user interface: the loaded workspace, the view state, load
//! errors and status, all reactive, with the loading actions. The shell (`app.rs`) provides
//! it; pages and components take it with [`Ctx::get`], so none of them depends on the shell.

use leptos::prelude::*;
use leptos::task::spawn_local;
use shared::read::kind::{kind_of, FileKind};

use crate::browser;
use crate::state::load::{InputFile, LoadError, Loading, Progress, Run, SourceKind, Stage};
use crate::state::model::Workspace;
use crate::state::view::{is_local_path, KernelRef, ViewState};

/// How long the tab works on a load before it draws and takes input again, in ms.
const SLICE_MS: f64 = 50.0;

/// Rows of an export read between looks at the clock: some milliseconds of full-set rows
/// (2,200 cells each), far less of other pages.
const STEP_ROWS: usize = 16;

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
    /// The raw metrics page's search (a rule's cited metric sets it).
    pub metric_query: RwSignal<String>,
    /// The view was chosen (by the link or by the user): loading a run does not change it.
    /// Until then, the first application artifact loaded opens on "where the time goes".
    pub view_pinned: RwSignal<bool>,
    /// The run the run-level views show (the selected kernel's). A memo, so views of a
    /// whole run are not rebuilt when only the selected kernel changes.
    pub run: Memo<usize>,
}

impl Ctx {
    /// The context the shell provided (a fresh one outside it).
    pub fn get() -> Ctx {
        use_context::<Ctx>().unwrap_or_else(|| Ctx::new(ViewState::default()))
    }

    /// A fresh context over `view`, with nothing loaded.
    pub fn new(view: ViewState) -> Ctx {
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
            metric_query: RwSignal::new(String::new()),
            view_pinned: RwSignal::new(false),
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

    /// Narrows the current run to the NVTX range node `path` (its launches and those below
    /// it), or shows it whole for `None`; the URL keeps it, and the run's default kernel is
    /// selected.
    pub fn set_range(&self, path: Option<Vec<String>>) {
        let run = self.run.get_untracked();
        self.ws.update(|ws| ws.narrow(run, path.clone()));
        let kernel = self
            .ws
            .with_untracked(|ws| ws.runs.get(run).and_then(|r| r.default_kernel()));
        self.view.update(|v| {
            v.range = path;
            v.selected = kernel.map(|kernel| KernelRef { run, kernel });
        });
    }

    /// Adds loaded runs, reports errors, and selects the first new run.
    pub fn add_runs(&self, runs: Vec<Run>, errors: Vec<LoadError>, started_ms: f64) {
        let added = runs.len();
        let names: Vec<String> = runs.iter().map(|r| r.name.clone()).collect();
        let kernels: usize = runs.iter().map(|r| r.artifact.kernels.len()).sum();
        if added > 0 {
            let mut first = 0;
            let range = self.view.with_untracked(|v| v.range.clone());
            self.ws.update(|ws| {
                first = ws.add(runs);
                // A link's range narrows the run it opens.
                if range.is_some() {
                    ws.narrow(first, range);
                }
            });
            let sel = self.ws.with(|ws| {
                ws.runs.get(first).map(|run| KernelRef {
                    run: first,
                    kernel: run.default_kernel().unwrap_or(0),
                })
            });
            let application = self.ws.with(|ws| {
                ws.runs
                    .get(first)
                    .is_some_and(|r| crate::state::model::is_application(&r.run.artifact))
            });
            let runs = self.ws.with_untracked(|ws| ws.runs.len());
            let pinned = self.view_pinned.get_untracked();
            self.view.update(|v| {
                v.selected = sel;
                v.view = crate::state::view::opening_view(v.view, runs, application, pinned);
            });
            self.view_pinned.set(true);
            let ms = browser::now_ms() - started_ms;
            self.status.set(format!(
                "loaded {} ({kernels} kernels) in {ms:.0} ms",
                names.join(", ")
            ));
        }
        // A new batch replaces old messages; what was loaded before stays.
        self.errors.set(errors);
    }

    /// Runs `loading`'s steps in slices of some [`SLICE_MS`] each, between which the tab
    /// draws the progress in the status line and takes input, until no work remains; a
    /// streamed export is fed its pieces from `pieces` as it asks for them.
    async fn drive(&self, loading: &mut Loading, mut pieces: Option<&mut browser::FilePieces>) {
        let mut slice_started = browser::now_ms();
        loop {
            while loading.wants_piece() {
                match pieces.as_mut() {
                    Some(source) => match source.next().await {
                        Ok(piece) => loading.feed(piece),
                        Err(message) => loading.fail_stream(message),
                    },
                    None => loading.feed(None),
                }
            }
            let next = loading.progress();
            let whole = next.as_ref().is_some_and(|p| p.stage == Stage::Whole);
            if whole || browser::now_ms() - slice_started >= SLICE_MS {
                // A file read in one go is announced before the tab goes busy with it.
                if let Some(progress) = next {
                    self.status.set(progress.line());
                }
                browser::yield_to_browser().await;
                slice_started = browser::now_ms();
            }
            if !loading.step(STEP_ROWS) {
                break;
            }
        }
    }

    /// The runs of a load whose steps are done (the import and the figures, in one go).
    async fn finish_loading(&self, loading: Loading) -> (Vec<Run>, Vec<LoadError>) {
        self.status.set("working out the figures…".into());
        browser::yield_to_browser().await;
        loading.finish()
    }

    /// Loads a batch of files held in memory as [`crate::state::load::load_batch`] does,
    /// in slices ([`Ctx::drive`]).
    async fn load_in_slices(&self, files: Vec<InputFile>) -> (Vec<Run>, Vec<LoadError>) {
        let mut loading = Loading::new(files);
        self.drive(&mut loading, None).await;
        self.finish_loading(loading).await
    }

    /// Adds a picked file to `loading`. A CSV export larger than one piece is read as its
    /// pieces arrive, so the tab never holds it whole (should a step outrun the pieces, it
    /// is read again whole); anything else is read whole first. A file too large for the
    /// tab is refused before it is read.
    async fn load_file(&self, loading: &mut Loading, file: web_sys::File) {
        let name = file.name();
        let size = file.size() as u64;
        if let Some(e) = crate::state::load::refuse_large_file(&name, size) {
            loading.add_error(e);
            return;
        }
        let mut pieces = browser::FilePieces::new(file);
        let failed = |message| LoadError {
            file: name.clone(),
            message,
        };
        let mut bytes = match pieces.next().await {
            Ok(first) => first.unwrap_or_default(),
            Err(message) => return loading.add_error(failed(message)),
        };
        if kind_of(&bytes) == FileKind::Gzip {
            // Read whole, un-gzipped by the browser, then taken as what it holds.
            let show = |_| {};
            if let Err(message) = pieces.rest_into(&mut bytes, &show).await {
                return loading.add_error(failed(message));
            }
            return match unpacked(&name, &bytes).await {
                Ok(bytes) => loading.push(InputFile { name, bytes }),
                Err(e) => loading.add_error(e),
            };
        }
        if pieces.has_more()
            && crate::state::load::streams(&bytes)
            && !crate::state::load::is_cuda_file(&name)
        {
            loading.stream(name.clone(), size, bytes);
            self.drive(loading, Some(&mut pieces)).await;
            if loading.take_starved().is_none() {
                return;
            }
            pieces.restart();
            bytes = Vec::new();
        }
        let show = |read_bytes| {
            let progress = Progress {
                stage: Stage::Copy,
                file: name.clone(),
                read_bytes,
                total_bytes: size,
            };
            self.status.set(progress.line());
        };
        match pieces.rest_into(&mut bytes, &show).await {
            Ok(()) => loading.push(InputFile {
                name: name.clone(),
                bytes,
            }),
            Err(message) => loading.add_error(failed(message)),
        }
    }

    /// Reads picked or dropped files and loads them as a batch.
    pub fn load_files(&self, list: Vec<web_sys::File>) {
        let ctx = *self;
        let started = browser::now_ms();
        ctx.pending_since.set(Some(started));
        ctx.status.set("reading files…".into());
        browser::remember_picked(&list.iter().map(|f| f.name()).collect::<Vec<_>>());
        spawn_local(async move {
            let mut loading = Loading::new(Vec::new());
            for file in list {
                ctx.load_file(&mut loading, file).await;
            }
            ctx.drive(&mut loading, None).await;
            let (runs, errors) = ctx.finish_loading(loading).await;
            if runs.is_empty() {
                ctx.pending_since.set(None);
                ctx.status.set(String::new());
            }
            ctx.add_runs(runs, errors, started);
        });
    }

    /// Fetches bundled files by path and loads them as picked files load: each artifact a
    /// run, the exports together one run (a report and its pages, `?src=raw.csv&src=
    /// details.csv`); a gzip file un-gzipped first.
    pub fn load_sources(&self, sources: Vec<String>, remember: bool) {
        let ctx = *self;
        let started = browser::now_ms();
        ctx.pending_since.set(Some(started));
        spawn_local(async move {
            let mut files = Vec::new();
            let mut errors = Vec::new();
            for src in sources {
                if !is_local_path(&src) {
                    errors.push(LoadError {
                        file: src.clone(),
                        message: "only files of this site can be opened by link".into(),
                    });
                    continue;
                }
                let fetched = match browser::fetch_bytes(&src).await {
                    Ok(bytes) if kind_of(&bytes) == FileKind::Gzip => unpacked(&src, &bytes).await,
                    Ok(bytes) => Ok(bytes),
                    Err(message) => Err(LoadError {
                        file: src.clone(),
                        message,
                    }),
                };
                match fetched {
                    Ok(bytes) => files.push(InputFile { name: src, bytes }),
                    Err(e) => errors.push(e),
                }
            }
            let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
            let (mut runs, errs) = ctx.load_in_slices(files).await;
            errors.extend(errs);
            // Each run's paths: an artifact's own, the exports' run those of the rest.
            let mut exports: Vec<String> = names
                .iter()
                .filter(|n| {
                    !runs
                        .iter()
                        .any(|r| r.kind == SourceKind::Artifact && r.name == **n)
                })
                .cloned()
                .collect();
            for r in &mut runs {
                r.srcs = if r.kind == SourceKind::Artifact {
                    vec![r.name.clone()]
                } else {
                    std::mem::take(&mut exports)
                };
            }
            if runs.is_empty() {
                ctx.pending_since.set(None);
            }
            let keep_view = ctx.view.get_untracked();
            let srcs: Vec<String> = runs.iter().flat_map(|r| r.srcs.clone()).collect();
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
        let srcs = self
            .ws
            .with(|ws| ws.runs.get(index).map(|r| r.run.srcs.clone()))
            .unwrap_or_default();
        self.ws.update(|ws| {
            if index < ws.runs.len() {
                ws.runs.remove(index);
            }
        });
        self.view.update(|v| {
            v.sources.retain(|x| !srcs.contains(x));
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

/// The file `name`'s gzip `bytes` un-gzipped by the browser ([`browser::gunzip`]), refused as
/// a file too large for the tab is when what they hold is, and as `capture` refuses what a
/// compressed file holds ([`shared::read::kind::refused_inside`]: binary data that is no
/// report, text without lines, a stream compressed again).
async fn unpacked(name: &str, bytes: &[u8]) -> Result<Vec<u8>, LoadError> {
    let error = |message| LoadError {
        file: name.to_owned(),
        message,
    };
    let inside = browser::gunzip(bytes).await.map_err(error)?;
    let head = inside.get(..64 << 10).unwrap_or(&inside);
    if let Some(why) = shared::read::kind::refused_inside(head, "gunzip") {
        return Err(error(why));
    }
    if let Some(mut e) = crate::state::load::refuse_large_file(name, inside.len() as u64) {
        e.message = format!("un-gzipped, {}", e.message);
        return Err(e);
    }
    Ok(inside)
}
