//! Run against run, first on the compare page whenever two runs are open:
//! the whole runs compared as `capture diff` compares them (`shared::analysis::diff`, its
//! plain state [`shared::analysis::diff::view::DiffView`]): the summary, then a table of
//! every kernel's change, the most time gained or lost first (numbers right-aligned,
//! slower and faster marked, rows within the noise dimmed, moved metrics in words). A row's
//! click compares that pair. A leptos component like every page.

use leptos::prelude::*;
use shared::analysis::diff::view::{DiffView, HEADERS};
use shared::analysis::diff::{diff_figures, GateOptions};

use crate::ctx::Ctx;
use crate::state::view::KernelRef;

/// The view of run `before` against run `after` of the workspace (empty when either is
/// not loaded or they are one run).
fn view_of(ctx: Ctx, before: usize, after: usize) -> DiffView {
    ctx.ws
        .with(|ws| match (ws.runs.get(before), ws.runs.get(after)) {
            (Some(b), Some(a)) if before != after => {
                let d = diff_figures(
                    (&b.run.artifact, &b.kernels),
                    (&a.run.artifact, &a.kernels),
                    GateOptions::default(),
                )
                .named(b.run.name.clone(), a.run.name.clone());
                DiffView::of(&d)
            }
            _ => DiffView::default(),
        })
}

/// The class of column `c` of [`HEADERS`]: the numbers right-aligned on one line, the
/// change in percent marked up or down by its row's class (style.css).
fn cell_class(c: usize) -> &'static str {
    match HEADERS.get(c).copied() {
        Some("change") => "num change",
        Some("before ms" | "after ms" | "change ms" | "noise") => "num",
        Some("moved most") => "moved",
        // "memory-bound" broke at its hyphen, every row two lines.
        Some("verdict") => "nowrap",
        _ => "",
    }
}

/// The run-against-run section: nothing unless `runs` names two different runs. A row's
/// click compares that pair.
#[component]
pub fn RunDiff(
    /// (before run, after run), as the compare page's two pickers have them.
    runs: Signal<Option<(usize, usize)>>,
) -> impl IntoView {
    let ctx = Ctx::get();
    let view = Memo::new(move |_| match runs.get() {
        Some((b, a)) => view_of(ctx, b, a),
        None => DiffView::default(),
    });
    let pick = move |row: usize| {
        let Some((rb, ra)) = runs.get_untracked() else {
            return;
        };
        let pair = view.with_untracked(|v| v.rows.get(row).map(|r| (r.before, r.after)));
        let Some((Some(kb), Some(ka))) = pair else {
            return;
        };
        ctx.select(KernelRef {
            run: rb,
            kernel: kb,
        });
        ctx.view.update(|v| {
            v.compare = Some(KernelRef {
                run: ra,
                kernel: ka,
            })
        });
    };
    move || {
        view.with(|v| {
            if v.rows.is_empty() {
                return None;
            }
            let rows = v
                .rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let cells = r
                        .cells
                        .iter()
                        .enumerate()
                        .map(|(c, text)| view! { <td class=cell_class(c)>{text.clone()}</td> })
                        .collect_view();
                    // Within the noise (`-`) is dimmed by its class.
                    let class = if r.status == "-" { "noise" } else { r.status };
                    view! { <tr class=class on:click=move |_| pick(i)>{cells}</tr> }
                })
                .collect_view();
            let summary = v
                .summary
                .iter()
                .map(|s| view! { <p class="muted">{s.clone()}</p> })
                .collect_view();
            let head = HEADERS
                .iter()
                .enumerate()
                .map(|(c, h)| view! { <th class=cell_class(c)>{*h}</th> })
                .collect_view();
            Some(view! {
                <section class="run-diff" id="run-diff">
                    <h3>"Run against run"</h3>
                    {summary}
                    <table class="grid" id="run-diff-table">
                        <thead><tr>{head}</tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </section>
            })
        })
    }
}
