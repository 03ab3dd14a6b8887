//! The asked vs measured bytes table, by time (most first) until sorted by a header (click
//! or Enter), and exportable,
//! with the same rows and cell formatting as `capture table`; only the rows in view are in
//! the page. Rows are plain data from `state::table`.

use leptos::prelude::*;

use super::kernel_rows;
use crate::browser;
use crate::components::term::Term;
use crate::components::virtual_table::{Rows, VirtualTable};
use crate::ctx::Ctx;
use crate::state::model::Column;
use crate::state::table::{bytes_ceilings, bytes_columns, bytes_header, bytes_row, bytes_titles};
use crate::state::view::KernelRef;

/// The bytes table of the current run.
#[component]
pub fn BytesPage() -> impl IntoView {
    let ctx = Ctx::get();
    // Time, most first, until a header sorts it otherwise.
    let rows = kernel_rows();
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
                " to four decimals: 0.003 is a real answer. Kernels by time, most first; click a header (or press Enter on it) to sort."
            </p>
            <button id="export-bytes-csv" on:click=export>
                "Export CSV"
            </button>
            {move || bytes_table(cols.get(), rows)}
        </div>
    }
}

/// The bytes table in columns `cols`, rebuilt when the columns change (another run).
fn bytes_table(cols: Vec<Column>, rows: Memo<Rows>) -> impl IntoView {
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
        <VirtualTable id="bytes-table" rows=rows header=header row=Box::new(row) />
    }
}
