//! The source view (`view=source`): the selected kernel's SASS with its per-instruction
//! figures (instructions executed, warp-state samples by stall reason, L1/L2 sectors and
//! excessive sectors, shared-memory bank conflicts, where the launch has them), CUDA source
//! lines beside their SASS where the input has line information, and its hot spots
//! ranked (a click scrolls to the instruction). A kernel can have tens of thousands of
//! instructions: only the rows in view are in the page. The rows are plain data from
//! `state::source`.

use std::sync::Arc;

use leptos::prelude::*;

use crate::components::virtual_table::{rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::source::{NoSource, SourceView};

/// CUDA source lines listed at most (a kernel of many inlined headers has thousands).
const LINES_SHOWN: usize = 2_000;

/// The view of the selected kernel, compared by identity (a launch's instructions are
/// never compared value by value).
#[derive(Clone, Default)]
struct Shown {
    name: String,
    view: Option<Arc<SourceView>>,
    /// Without a view: what is missing and the command that adds it.
    missing: Option<NoSource>,
}

impl PartialEq for Shown {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
            && match (&self.view, &other.view) {
                (Some(a), Some(b)) => Arc::ptr_eq(&a.source, &b.source),
                (None, None) => true,
                _ => false,
            }
            && self.missing == other.missing
    }
}

/// What a run without source figures lacks, and the command that adds it.
fn no_source(missing: Option<NoSource>) -> AnyView {
    let missing = missing.unwrap_or_else(|| NoSource {
        why: String::new(),
        command: String::new(),
    });
    view! {
        <div class="note" id="source-none">
            <p>{missing.why}</p>
            <pre class="command">{missing.command}</pre>
        </div>
    }
    .into_any()
}

/// The source view of the selected kernel.
#[component]
pub fn SourcePage() -> impl IntoView {
    let ctx = Ctx::get();
    let shown = Memo::new(move |_| {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| {
                let (run, k) = ws.kernel(r)?;
                let view = SourceView::of(run, r.kernel).map(Arc::new);
                Some(Shown {
                    name: k.name.clone(),
                    missing: view.is_none().then(|| NoSource::of(run)),
                    view,
                })
            })
            .unwrap_or_default()
        })
    });
    // The instruction a hot spot's click scrolls to (and marks).
    let focus = RwSignal::new(None::<usize>);
    Effect::new(move |_| {
        shown.track();
        focus.set(None);
    });
    let rows = rows_memo(move || {
        shown.with(|s| {
            s.view
                .as_ref()
                .map_or_else(Vec::new, |v| (0..v.source.instructions.len()).collect())
        })
    });
    let table = move || {
        shown.with(|s| {
            let Some(view) = s.view.clone() else {
                return no_source(s.missing.clone());
            };
            let header = view.header();
            let for_rows = Arc::clone(&view);
            let row = move |_: usize, at: usize| {
                let mut row = for_rows.row(at)?;
                row.selected = focus.get() == Some(at);
                Some(row)
            };
            let (has_line, has_text) = (view.hot_have_lines(), view.hot_have_text());
            let hot = hot_rows(&view, focus, has_line, has_text);
            let lines = lines_table(&view);
            let no_sass = view.sass_missing.clone().map(|how| {
                view! {
                    <p class="note" id="source-no-sass">
                        <strong>"No SASS text for this kernel. "</strong>
                        {how}
                        ". Or pick that source-page export here together with the report."
                    </p>
                }
            });
            view! {
                <p class="muted" id="source-summary">{view.summary.clone()}</p>
                {no_sass}
                <h3>"Hot spots"</h3>
                <p class="muted">
                    "Most warp-state samples first (where the warps wait), then most executed. \
                     A click on # moves to the instruction in the table below."
                </p>
                <table class="grid" id="source-hot">
                    <thead>
                        <tr>
                            <th>"#"</th>
                            <th>"address"</th>
                            <th>"samples"</th>
                            <th>"executed"</th>
                            <th>"top stall (samples)"</th>
                            {has_line.then(|| view! { <th>"file:line"</th> })}
                            {has_text.then(|| view! { <th>"SASS"</th> })}
                        </tr>
                    </thead>
                    <tbody>{hot}</tbody>
                </table>
                {lines}
                <h3>"Every instruction"</h3>
                <VirtualTable
                    id="source-table"
                    rows=rows
                    header=header
                    row=Box::new(row)
                    scroll_to=Signal::from(focus)
                />
            }
            .into_any()
        })
    };
    view! {
        <div class="page source" id="page-source">
            <h2 class="kernel-name" id="source-kernel">{move || shown.with(|s| s.name.clone())}</h2>
            {table}
        </div>
    }
}

/// The hot spots' rows, with the file:line and text cells where some hot spot has them; a
/// click on one sets `focus` to its instruction.
fn hot_rows(
    view: &SourceView,
    focus: RwSignal<Option<usize>>,
    has_line: bool,
    has_text: bool,
) -> impl IntoView {
    view.hot
        .iter()
        .filter_map(|&at| view.hot_line(at))
        .map(|h| {
            let at = h.at;
            view! {
                <tr>
                    <td class="num">
                        <button class="link" on:click=move |_| focus.set(Some(at))>
                            {format!("#{}", at + 1)}
                        </button>
                    </td>
                    <td class="addr">{h.address}</td>
                    <td class="num">{h.samples}</td>
                    <td class="num">{h.executed}</td>
                    <td>{h.stall}</td>
                    {has_line.then(|| view! { <td>{h.line}</td> })}
                    {has_text.then(|| view! { <td class="code">{h.text}</td> })}
                </tr>
            }
        })
        .collect_view()
}

/// The table of CUDA source lines, where the launch has line information.
fn lines_table(view: &SourceView) -> Option<impl IntoView> {
    (!view.lines.is_empty()).then(|| {
        let rows = view
            .lines
            .iter()
            .take(LINES_SHOWN)
            .cloned()
            .map(|l| {
                view! {
                    <tr>
                        <td data-col="place">{l.place}</td>
                        <td class="num">{l.executed}</td>
                        <td class="num">{l.samples}</td>
                        <td class="num">{l.sectors}</td>
                        <td class="num" data-col="sectors_per_request">{l.per_request}</td>
                        <td class="num">{l.excessive}</td>
                        <td class="code">{l.text}</td>
                    </tr>
                }
            })
            .collect_view();
        view! {
            <h3>"By CUDA source line"</h3>
            <p class="muted">
                "Each line's instructions summed. Sectors per request: L2 sectors over \
                 the times a warp executed the line's global loads and stores; 4 is a \
                 warp's coalesced 4-byte access, 32 a sector per thread. Pick the .cu \
                 files with the report for the lines' text where the report lacks it."
            </p>
            <table class="grid" id="source-lines">
                <thead>
                    <tr>
                        <th>"file:line"</th>
                        <th>"executed"</th>
                        <th>"samples"</th>
                        <th>"L2 sectors"</th>
                        <th>"sectors / request"</th>
                        <th>"L2 excessive sectors"</th>
                        <th>"CUDA source"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        }
    })
}
