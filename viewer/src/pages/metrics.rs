//! Every raw metric and details-page row of the selected kernel, searchable, values
//! formatted with their units (the exact value on hover). A kernel of 100 launches has tens
//! of thousands of rows; only those in view are in the page.

use std::sync::Arc;

use leptos::prelude::*;

use crate::components::virtual_table::{rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::model::search_metrics;
use crate::state::table::{metric_row, metrics_header};

/// Rows listed at most; the search narrows the rest.
const LIMIT: usize = 100_000;

/// The raw metrics of the selected kernel.
#[component]
pub fn MetricsPage() -> impl IntoView {
    let ctx = Ctx::get();
    let query = ctx.metric_query;
    let result = Memo::new(move |_| {
        let q = query.get();
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| ws.runs.get(r.run).map(|run| (run, r.kernel)))
                .map(|(run, k)| {
                    let name = run
                        .kernels
                        .get(k)
                        .map(|f| f.name.clone())
                        .unwrap_or_default();
                    let (rows, total) = search_metrics(run, k, &q, LIMIT);
                    (name, Arc::new(rows), total)
                })
                .unwrap_or_default()
        })
    });
    let rows = rows_memo(move || result.with(|(_, rows, _)| (0..rows.len()).collect()));
    // The warm-cache column only where the kernel has a warm pass; the table is made again
    // when that changes.
    let warm =
        Memo::new(move |_| result.with(|(_, rows, _)| rows.iter().any(|r| r.warm.is_some())));
    view! {
        <div class="page metrics" id="page-metrics">
            <h2 class="kernel-name">{move || result.with(|r| r.0.clone())}</h2>
            <input
                id="metric-search"
                type="search"
                placeholder="search metrics (all words must match)"
                prop:value=move || query.get()
                on:input=move |ev| query.set(event_target_value(&ev))
            />
            <p class="muted" id="metric-count">
                {move || {
                    result.with(|(_, rows, total)| format!("{} of {total} rows shown", rows.len()))
                }}
            </p>
            {move || {
                let warm = warm.get();
                let row = move |_: usize, i: usize| {
                    result.with_untracked(|(_, rows, _)| rows.get(i).map(|m| metric_row(m, warm)))
                };
                view! {
                    <VirtualTable
                        id="metrics-table"
                        rows=rows
                        header=metrics_header(warm)
                        row=Box::new(row)
                    />
                }
            }}
        </div>
    }
}
