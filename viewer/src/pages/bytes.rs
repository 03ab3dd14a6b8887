//! The asked vs measured bytes table, sortable (click or Enter on a header) and exportable,
//! with the same rows and cell formatting as `capture table`; only the rows in view are in
//! the page. Rows are plain data from `state::table`.

use leptos::prelude::*;

use crate::browser;
use crate::components::term::Term;
use crate::components::virtual_table::{rows_memo, Rows, Sorting, VirtualTable};
use crate::ctx::Ctx;
use crate::state::model::{sorted_indices, Column};
use crate::state::table::{bytes_ceilings, bytes_columns, bytes_header, bytes_row, bytes_titles};
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
    // The columns some kernel of the run fills.
    let cols = Memo::new(move |_| {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| bytes_columns(&r.table.kernels))
                .unwrap_or_default()
        })
    });
    // A header sorts by its column (again: the other way) and explains it.
    let on_sort = Callback::new(move |i: usize| {
        let Some(col) = cols.with_untracked(|c| c.get(i).copied()) else {
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
    });
    let by = Signal::derive(move || {
        sort.get().and_then(|(col, asc)| {
            cols.with(|c| c.iter().position(|x| *x == col))
                .map(|i| (i, asc))
        })
    });
    let export = move |_| {
        let run = ctx.current_run();
        let csv = ctx.ws.with(|ws| ws.runs.get(run).map(|r| r.table.to_csv()));
        if let Some(csv) = csv {
            if let Err(e) = browser::download_text("bytes-table.csv", "text/csv", &csv) {
                ctx.status.set(format!("export failed: {e}"));
            }
        }
    };
    let ceilings = move || {
        let run = ctx.current_run();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| bytes_ceilings(r))
                .unwrap_or_default()
        })
    };
    view! {
        <div class="page bytes" id="page-bytes">
            <p class="muted">
                {ceilings}
                " Bytes and time are sums over each kernel's launches. "
                <Term key="dram_per_ask" text="DRAM/ask" />
                " to four decimals: 0.003 is a real answer. Click a header (or press Enter on it) to sort."
            </p>
            <button id="export-bytes-csv" on:click=export>
                "Export CSV"
            </button>
            {move || bytes_table(cols.get(), rows, Sorting { by, on_sort })}
        </div>
    }
}

/// The bytes table in columns `cols`, rebuilt when the columns change (another run).
fn bytes_table(cols: Vec<Column>, rows: Memo<Rows>, sorting: Sorting) -> impl IntoView {
    let ctx = Ctx::get();
    // Worked out once per table: every cell of a column has the same hover text.
    let titles = bytes_titles();
    let header = bytes_header(&cols);
    let row = move |_: usize, kernel: usize| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        let selected = ctx.selected();
        ctx.ws.with_untracked(|ws| {
            let run = ws.runs.get(kr.run)?;
            bytes_row(kr, run, &titles, selected, &cols)
        })
    };
    view! {
        <VirtualTable id="bytes-table" rows=rows header=header row=Box::new(row) sorting=sorting />
    }
}
