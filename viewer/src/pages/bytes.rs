//! The asked vs measured bytes table, sortable and exportable, with the same rows and cell
//! formatting as `capture table`; only the rows in view are in the page. Rows and text are
//! markup from `state::page::tables`.

use std::rc::Rc;

use leptos::prelude::*;

use super::table_page;
use crate::browser;
use crate::components::virtual_table::{rows_memo, virtual_table};
use crate::ctx::Ctx;
use crate::state::model::{sorted_indices, Column};
use crate::state::page::tables::{bytes_header, bytes_intro, bytes_row, bytes_titles};
use crate::state::view::KernelRef;

/// The bytes table of the current run.
#[component]
pub fn BytesPage() -> impl IntoView {
    let ctx = Ctx::get();
    let sort = RwSignal::new(None::<(Column, bool)>);
    // The rows' order: recomputed on a new run, new data or a new sort, not on scrolling.
    let rows = rows_memo(move || {
        let run = ctx.run.get();
        let order = sort.get();
        ctx.ws.with(|ws| {
            let Some(r) = ws.runs.get(run) else {
                return Vec::new();
            };
            let rows = &r.table.kernels;
            match order {
                Some((col, asc)) => sorted_indices(rows, col, asc),
                None => (0..rows.len()).collect(),
            }
        })
    });
    // Worked out once: every cell of a column has the same hover text.
    let titles = Rc::new(bytes_titles());
    let header_titles = titles.clone();
    let row = move |pos: usize, kernel: usize| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        let selected = ctx.selected();
        ctx.ws.with_untracked(|ws| {
            let run = ws.runs.get(kr.run)?;
            bytes_row(kr, pos, run, &titles, selected)
        })
    };
    // A header click sorts by its column (again: the other way) and explains it.
    let on_header = move |i: usize, _: String| {
        let Some(col) = Column::ALL.get(i).copied() else {
            return;
        };
        sort.update(|s| {
            *s = match *s {
                Some((c, asc)) if c == col => Some((col, !asc)),
                _ => Some((col, col == Column::Name)),
            };
        });
        let key = col.explain_key();
        if !key.is_empty() {
            ctx.explain.set(Some(key));
        }
    };
    let export = move |_| {
        let run = ctx.current_run();
        let csv = ctx.ws.with(|ws| ws.runs.get(run).map(|r| r.table.to_csv()));
        if let Some(csv) = csv {
            if let Err(e) = browser::download_text("bytes-table.csv", "text/csv", &csv) {
                ctx.status.set(format!("export failed: {e}"));
            }
        }
    };
    table_page(
        "page bytes",
        "page-bytes",
        Box::new(move || {
            let run = ctx.current_run();
            ctx.ws
                .with(|ws| bytes_intro(ws.runs.get(run).map(|r| &**r)))
        }),
        view! {
            <button id="export-bytes-csv" on:click=export>"Export CSV"</button>
            {virtual_table(
                "bytes-table",
                rows,
                Box::new(move || bytes_header(sort.get(), &header_titles)),
                Box::new(row),
                Some(Rc::new(on_header)),
            )}
        }
        .into_any(),
    )
}
