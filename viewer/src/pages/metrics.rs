//! Every raw metric and details-page row of the selected kernel, searchable.

use leptos::prelude::*;

use crate::app::Ctx;
use crate::state::model::search_metrics;

/// Rows shown at most; the search narrows the rest.
const LIMIT: usize = 500;

/// The raw metrics of the selected kernel.
#[component]
pub fn MetricsPage() -> impl IntoView {
    let ctx = Ctx::get();
    let query = RwSignal::new(String::new());
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
                    (name, rows, total)
                })
                .unwrap_or_default()
        })
    });
    view! {
        <div class="page metrics" id="page-metrics">
            <h2 class="kernel-name">{move || result.with(|r| r.0.clone())}</h2>
            <input
                id="metric-search"
                type="search"
                placeholder="search metrics (all words must match)"
                on:input=move |ev| query.set(event_target_value(&ev))
            />
            <p class="muted" id="metric-count">
                {move || {
                    result.with(|(_, rows, total)| format!("{} of {total} rows shown", rows.len()))
                }}
            </p>
            <table class="grid" id="metrics-table">
                <thead>
                    <tr>
                        <th>"launch"</th>
                        <th>"section"</th>
                        <th>"metric"</th>
                        <th>"unit"</th>
                        <th>"value"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        result
                            .with(|(_, rows, _)| rows.clone())
                            .into_iter()
                            .map(|m| {
                                view! {
                                    <tr>
                                        <td class="num">{m.launch}</td>
                                        <td>{m.section}</td>
                                        <td class="metric">{m.name}</td>
                                        <td>{m.unit}</td>
                                        <td class="num">{m.value}</td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
        </div>
    }
}
