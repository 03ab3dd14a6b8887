//! The shell's own pieces: the front page, the load errors, the warning banner of the
//! current run and the explanation side panel.

use leptos::prelude::*;

use crate::ctx::Ctx;
use crate::state::explain::{explain, ALL};
use crate::state::shell::{banner, sampled_line, BANNER_SHOWN};

/// The bundled samples the front page describes: the link and what it shows.
const SAMPLES: [(&str, &str, &str); 4] = [
    (
        "?src=samples/h200.json&view=roofline",
        "H200 teaching suite",
        "capture run on an NVIDIA H200: the ceiling kernels and small teaching kernels \
         (vector add, transposes, matmuls, a reduction) with their asked-for bytes, under the \
         roofs measured on that GPU.",
    ),
    (
        "?src=samples/h200-gpt2-bf16.json&view=time",
        "GPT-2 in bf16 (an application)",
        "a Hugging Face GPT-2 forward under capture profile, tensor counters included: its \
         kernels ranked by time, the cuBLAS matmuls on the BF16 tensor roof.",
    ),
    (
        "?src=samples/h200-bert-train-step.json.gz&view=time",
        "A BERT training step, by module",
        "a whole training step (forward, backward, AdamW) of a 4-layer BERT in bf16 under \
         capture profile --torch-modules, sampled: where the time goes by nn.Module, the \
         backward pass included.",
    ),
    (
        "?src=samples/h200-two-process.ncu-rep&view=roofline",
        "An Nsight Compute report",
        "a real two-process --set basic .ncu-rep from the H200, read in the browser without \
         Nsight Compute (times without bytes).",
    ),
];

/// What the page says before anything is loaded: what the tool shows, the samples as
/// described links, the exercises; after a reload, which picked files to pick again.
#[component]
pub fn Welcome(
    /// The names of the files picked before the page was reloaded.
    picked_before: Option<String>,
) -> impl IntoView {
    view! {
        <div class="welcome" id="welcome">
            {picked_before
                .map(|names| {
                    view! {
                        <p class="reload-note" id="reload-note" role="status">
                            {format!(
                                "The page was reloaded: files you pick are read in this tab and not kept, so {names} must be picked again (Open files…, or drop them here)."
                            )}
                        </p>
                    }
                })}
            <p class="lead">
                "A roofline of every kernel (how many FLOPs it did per byte it moved, against the \
                 GPU's measured roofs), why each one is bound where it is, and where the program's \
                 time goes, from an artifact written by "
                <code>"capture"</code>
                ", an Nsight Compute report ("
                <code>".ncu-rep"</code>
                ", no Nsight Compute needed) or Nsight Compute CSV exports ("
                <code>"--page raw"</code>
                ", "
                <code>"--page details"</code>
                "). Open them with the button above or drop them anywhere on the page: no file \
                 leaves your browser."
            </p>
            <h2>"Try a sample"</h2>
            <ul class="sample-links" id="sample-links">
                {SAMPLES
                    .map(|(href, title, about)| {
                        view! {
                            <li>
                                <a href=href>{title}</a>
                                {format!(": {about}")}
                            </li>
                        }
                    })
                    .into_iter()
                    .collect_view()}
            </ul>
            <h2>"Learning without a GPU"</h2>
            <p>
                "The "
                <a href="?src=samples/h200.json&view=exercise" id="exercise-link">
                    "exercises"
                </a>
                " turn a report into a lesson: predict whether each kernel's DRAM/ask lands above \
                 1, near 1 (0.85 to 1.15) or below 1, with no measured figure in the page until \
                 you submit; then see the measured values, a score, and each miss explained from \
                 that kernel's own counters. "
                <a href="?src=samples/h200.json&view=exercise&ex=quiz">"Reading the report"</a>
                " asks questions about the bundled samples; "
                <a href="?src=samples/h200.json&view=exercise&ex=mystery">"mystery kernels"</a>
                " hide names and sources until a diagnosis is committed. Every choice is kept in \
                 the link, so a learner can hand in or come back to their answers."
            </p>
        </div>
    }
}

/// The files of the last batch that could not be loaded, each with what was wrong.
#[component]
pub fn ErrorList() -> impl IntoView {
    let ctx = Ctx::get();
    view! {
        <div id="errors" class="errors" role="alert">
            {move || {
                ctx.errors
                    .get()
                    .into_iter()
                    .map(|e| {
                        view! {
                            <p class="error">
                                <strong class="error-file">{e.file}</strong>
                                ": "
                                <span class="error-message">{e.message}</span>
                            </p>
                        }
                    })
                    .collect_view()
            }}
        </div>
    }
}

/// The current run's warnings, on every page: one line with their count, opened to the
/// first few and how many more (all of them on the overview).
#[component]
pub fn Banner() -> impl IntoView {
    let ctx = Ctx::get();
    let lines = Memo::new(move |_| {
        let run = ctx.current_run();
        ctx.ws
            .with(|ws| ws.runs.get(run).map(|r| banner(r)).unwrap_or_default())
    });
    let sampled = Memo::new(move |_| {
        let run = ctx.current_run();
        ctx.ws
            .with(|ws| ws.runs.get(run).and_then(|r| sampled_line(r)))
    });
    move || {
        let lines = lines.get();
        let sampled = sampled.get();
        (!lines.is_empty() || sampled.is_some()).then(|| {
            let more = lines.len().saturating_sub(BANNER_SHOWN);
            view! {
                <div class="banner" id="warning-banner" role="status">
                    {sampled.map(|s| view! { <p class="sampled" id="sampled-line">{s}</p> })}
                    // The warnings are collapsed to one line (ncu's own NaNs and negative
                    // counts on every page of a report shouted; issue 38); a click opens them.
                    {(!lines.is_empty())
                        .then(|| {
                            let n = lines.len();
                            view! {
                                <details id="warning-details">
                                    <summary>
                                        <strong>
                                            {format!(
                                                "{n} warning{} on this run",
                                                if n == 1 { "" } else { "s" },
                                            )}
                                        </strong>
                                        ": show them"
                                    </summary>
                                    <ul>
                                        {lines
                                            .into_iter()
                                            .take(BANNER_SHOWN)
                                            .map(|l| {
                                                let title = l.clone();
                                                view! { <li title=title>{l}</li> }
                                            })
                                            .collect_view()}
                                    </ul>
                                    {(more > 0)
                                        .then(|| {
                                            view! {
                                                <p class="muted">
                                                    {format!(
                                                        "and {more} more: all of them are on the Overview.",
                                                    )}
                                                </p>
                                            }
                                        })}
                                </details>
                            }
                        })}
                </div>
            }
        })
    }
}

/// The side panel: the open explanation, or the list of all of them.
#[component]
pub fn ExplainPanel() -> impl IntoView {
    let ctx = Ctx::get();
    let body = move || {
        match ctx.explain.get().and_then(explain) {
        Some(e) => view! {
            <div class="explanation" data-explain=e.key>
                <h3>{e.title}</h3>
                <p>{e.what()}</p>
                <p>
                    <strong>"How: "</strong>
                    {e.formula()}
                </p>
                <p>
                    <strong>"Careful: "</strong>
                    {e.pitfall}
                </p>
                <button class="link" on:click=move |_| ctx.explain.set(None)>
                    "all explanations"
                </button>
            </div>
        }
        .into_any(),
        None => view! {
            <div>
                <p class="muted">
                    "Hover a number or a column header for its meaning; click it to read it here."
                </p>
                <ul class="explain-index">
                    {ALL
                        .iter()
                        .map(|e| {
                            let key = e.key;
                            view! {
                                <li>
                                    <button class="link" on:click=move |_| ctx.explain.set(Some(key))>
                                        {e.title}
                                    </button>
                                </li>
                            }
                        })
                        .collect_view()}
                </ul>
            </div>
        }
        .into_any(),
    }
    };
    view! {
        <aside class="explain" id="explain-panel">
            <h2>"What the numbers mean"</h2>
            {body}
        </aside>
    }
}
