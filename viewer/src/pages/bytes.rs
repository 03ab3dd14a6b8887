//! The asked vs measured bytes table, sortable and exportable, with the same rows and cell
//! formatting as `capture table`; only the rows in view are in the page.

use leptos::prelude::*;

use crate::browser;
use crate::components::explain::Term;
use crate::components::virtual_table::{aria_row, rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::model::{sorted_indices, Column};
use crate::state::view::KernelRef;

/// Header labels, as `capture table` prints them.
const HEADERS: [&str; 16] = shared::table::COLUMNS;

/// The explanation of a column's numbers, for its cells' and header's hover text.
fn column_title(col: Column) -> String {
    crate::state::explain::explain(col.explain_key())
        .map(|e| e.as_text())
        .unwrap_or_default()
}

/// The bytes table of the current run.
#[component]
pub fn BytesPage() -> impl IntoView {
    let ctx = Ctx::get();
    let sort = RwSignal::new(None::<(Column, bool)>);
    let ceilings = move || {
        let run = ctx.current_run();
        ctx.ws
            .with(|ws| ws.runs.get(run).map(|r| r.table.ceilings.clone()))
    };
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
    let titles = StoredValue::new(Column::ALL.map(column_title));
    let row = move |(pos, kernel): (usize, usize)| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        ctx.ws.with_untracked(|ws| {
            ws.runs
                .get(kr.run)
                .and_then(|r| r.table.kernels.get(kr.kernel))
                .map(|row| {
                    let tds = Column::ALL
                        .into_iter()
                        .zip(row.short_cells())
                        .enumerate()
                        .map(|(i, (col, text))| {
                            let value = col
                                .number(row)
                                .map(|v| v.to_string())
                                .or_else(|| col.text(row).map(str::to_string))
                                .unwrap_or_default();
                            if col == Column::Name {
                                view! {
                                    <td class="name" data-col=col.field() data-value=value title=row.name.clone()>
                                        <button class="link" on:click=move |_| ctx.select(kr)>{text}</button>
                                    </td>
                                }
                                    .into_any()
                            } else {
                                view! {
                                    <td class="num" data-col=col.field() data-value=value title=titles.with_value(|t| t[i].clone())>
                                        {text}
                                    </td>
                                }
                                    .into_any()
                            }
                        })
                        .collect_view();
                    view! {
                        <tr
                            class:selected=move || ctx.selected() == Some(kr)
                            data-kernel=kr.kernel.to_string()
                            aria-rowindex=aria_row(pos)
                        >
                            {tds}
                        </tr>
                    }
                    .into_any()
                })
        })
        .unwrap_or_else(|| ().into_any())
    };
    let header = move || {
        Column::ALL
            .into_iter()
            .zip(HEADERS)
            .map(|(col, label)| {
                let arrow = move || match sort.get() {
                    Some((c, true)) if c == col => " ▲",
                    Some((c, false)) if c == col => " ▼",
                    _ => "",
                };
                let key = col.explain_key();
                let title = column_title(col);
                view! {
                    <th
                        class="sortable"
                        data-col=col.field()
                        title=title
                        on:click=move |_| {
                            sort.update(|s| {
                                *s = match *s {
                                    Some((c, asc)) if c == col => Some((col, !asc)),
                                    _ => Some((col, col == Column::Name)),
                                };
                            });
                            if !key.is_empty() {
                                ctx.explain.set(Some(key));
                            }
                        }
                    >
                        {label}
                        {arrow}
                    </th>
                }
            })
            .collect_view()
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
    view! {
        <div class="page bytes" id="page-bytes">
            <p class="muted">
                {move || {
                    ceilings()
                        .map(|c| {
                            let mut parts = Vec::new();
                            if let Some(v) = c.copy_gbs {
                                parts.push(format!("copy ceiling {v:.1} GB/s"));
                            }
                            if let Some(v) = c.theoretical_gbs {
                                parts.push(format!("theoretical {v:.0} GB/s"));
                            }
                            parts.join(", ")
                        })
                        .unwrap_or_default()
                }}
                " Sums over each kernel's launches. "
                <Term key="dram_per_ask" text="DRAM/ask" />
                " to four decimals: 0.003 is a real answer. Click a header to sort."
            </p>
            <button id="export-bytes-csv" on:click=export>"Export CSV"</button>
            <VirtualTable id="bytes-table" rows=rows row=Callback::new(row)>
                <tr aria-rowindex="1">{header}</tr>
            </VirtualTable>
        </div>
    }
}
