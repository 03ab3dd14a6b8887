//! Run against run on the compare page: when the two kernels compared come from two runs,
//! the whole runs compared as `capture diff` compares them (`shared::analysis::diff`, its
//! plain state [`shared::analysis::diff::view::DiffView`]): the summary, then a table of
//! every kernel's change, the most time gained or lost first. A row's click compares that
//! pair. The table is plain markup (`state::markup`) put in by the one markup host, so it
//! costs the wasm little code.

use std::rc::Rc;

use leptos::prelude::*;
use shared::analysis::diff::view::{DiffView, HEADERS};
use shared::analysis::diff::{diff_figures, GateOptions};

use crate::components::markup::markup_host;
use crate::ctx::Ctx;
use crate::state::markup::{el, text};
use crate::state::page::{Act, PageNode};
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

/// The section's markup: nothing for an empty view; a row's click sends `Local(row)`.
pub fn diff_markup(v: &DiffView) -> PageNode {
    if v.rows.is_empty() {
        return text("");
    }
    let head = el("tr").children(HEADERS.iter().map(|h| el("th").text(*h)));
    let rows = v.rows.iter().enumerate().map(|(i, r)| {
        el("tr")
            .class(r.status)
            .on_click(Act::Local(i))
            .children(r.cells.iter().map(|c| el("td").text(c.clone())))
    });
    el("section")
        .class("run-diff")
        .id("run-diff")
        .child(el("h3").text("Run against run"))
        .children(
            v.summary
                .iter()
                .map(|s| el("p").class("muted").text(s.clone())),
        )
        .child(
            el("table")
                .class("grid")
                .id("run-diff-table")
                .child(el("thead").child(head))
                .child(el("tbody").children(rows)),
        )
        .into()
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
    let pick = move |row: usize, _: String| {
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
    markup_host(
        Box::new(move || view.with(diff_markup)),
        Some(Rc::new(pick)),
    )
}
