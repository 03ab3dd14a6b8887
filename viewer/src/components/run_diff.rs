//! Run against run on the compare page: when the two kernels compared come from two runs,
//! the whole runs compared as `capture diff` compares them (`shared::analysis::diff`, its plain
//! state [`shared::analysis::diff::view::DiffView`]): the summary, then a table of every kernel's
//! change, the most time gained or lost first. A row's click compares that pair.

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

/// The run-against-run section: nothing unless `runs` names two different runs.
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
    let pick = move |before: Option<usize>, after: Option<usize>| {
        let (Some((rb, ra)), Some(kb), Some(ka)) = (runs.get_untracked(), before, after) else {
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
        let v = view.get();
        if v.rows.is_empty() {
            return None;
        }
        let rows = v
            .rows
            .into_iter()
            .map(|r| {
                let (before, after) = (r.before, r.after);
                view! {
                    <tr class=r.status on:click=move |_| pick(before, after)>
                        {r.cells.into_iter().map(|c| view! { <td>{c}</td> }).collect_view()}
                    </tr>
                }
            })
            .collect_view();
        Some(view! {
            <section class="run-diff" id="run-diff">
                <h3>"Run against run"</h3>
                {v.summary.into_iter().map(|s| view! { <p class="muted">{s}</p> }).collect_view()}
                <table class="grid" id="run-diff-table">
                    <thead>
                        <tr>{HEADERS.iter().map(|h| view! { <th>{*h}</th> }).collect_view()}</tr>
                    </thead>
                    <tbody>{rows}</tbody>
                </table>
            </section>
        })
    }
}
