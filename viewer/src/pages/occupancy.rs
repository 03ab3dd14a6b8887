//! Occupancy: theoretical and achieved, the block limits that set the theoretical one, and
//! how each launch fits the GPU (waves, the limiting resource); under the table, the
//! selected kernel's stall chart with its largest reasons explained and its launch fit in
//! sentences. Rows are plain data from `state::table`; the stalls from `state::latency`.

use leptos::prelude::*;

use super::{current_ref, kernel_rows};
use crate::components::canvas::StallCanvas;
use crate::components::term::Term;
use crate::components::virtual_table::VirtualTable;
use crate::ctx::Ctx;
use crate::state::latency::{stall_chart, top_reasons};
use crate::state::table::{occupancy_header, occupancy_row};

/// The occupancy table of the current run, and the selected kernel's stalls.
#[component]
pub fn OccupancyPage() -> impl IntoView {
    let ctx = Ctx::get();
    let row = move |_: usize, kernel: usize| {
        let kr = current_ref(kernel);
        let selected = ctx.selected();
        ctx.ws.with_untracked(|ws| {
            ws.kernel(kr)
                .map(|(r, k)| occupancy_row(kr, r, k, selected))
        })
    };
    view! {
        <div class="page occupancy" id="page-occupancy">
            <p class="muted">
                <Term key="occupancy" text="Occupancy" />
                " buys latency hiding, nothing else. The block limits (blocks per SM allowed by \
                 each resource) set the theoretical figure; barriers and tail effects separate \
                 achieved from theoretical. "
                <Term key="waves" text="Waves" />
                " say whether the grid could fill the GPU at all."
            </p>
            <VirtualTable
                id="occupancy-table"
                rows=kernel_rows()
                header=occupancy_header()
                row=Box::new(row)
            />
            <KernelStalls />
        </div>
    }
}

/// What the latency panel shows of the selected kernel.
#[derive(Clone, Debug, PartialEq)]
struct Facts {
    name: String,
    line: String,
    notes: Vec<String>,
    /// (key, heading, text) of each of the largest stalls.
    stalls: Vec<(&'static str, String, String)>,
}

/// The selected kernel's stall chart, its largest reasons explained, and its launch fit.
#[component]
fn KernelStalls() -> impl IntoView {
    let ctx = Ctx::get();
    let chart = Memo::new(move |_| {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| ws.kernel(r))
                .map(|(_, k)| stall_chart(k))
                .unwrap_or_default()
        })
    });
    let facts = Memo::new(move |_| {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            let (_, k) = sel.and_then(|r| ws.kernel(r))?;
            let verdict = k
                .verdict
                .as_ref()
                .map(|v| v.kind.as_str().to_string())
                .unwrap_or_else(|| "no verdict".into());
            let line = match &k.latency.reason {
                Some(reason) => format!("{verdict}: {reason}"),
                None => verdict,
            };
            let stalls = top_reasons(k)
                .into_iter()
                .map(|n| {
                    (
                        n.reason.key,
                        format!("{} ({})", n.reason.name, n.share),
                        format!(
                            ": a warp waits on {}. Usually {}. What helps: {}.",
                            n.reason.waits_on, n.reason.causes, n.reason.helps,
                        ),
                    )
                })
                .collect();
            Some(Facts {
                name: k.name.clone(),
                line,
                notes: k.latency.fit.notes(),
                stalls,
            })
        })
    });
    view! {
        <section class="latency" id="latency-panel">
            {move || {
                facts
                    .get()
                    .map(|f| {
                        view! {
                            <h2 class="kernel-name" id="latency-kernel">{f.name}</h2>
                            <p id="latency-reason">{f.line}</p>
                            <ul id="fit-notes">
                                {f.notes.into_iter().map(|n| view! { <li>{n}</li> }).collect_view()}
                            </ul>
                        }
                    })
            }}
            <div class="side-by-side">
                <div>
                    <StallCanvas chart=chart />
                </div>
                <div>
                    <h3>
                        <Term key="stalls" text="Largest stalls" />
                    </h3>
                    {move || {
                        facts
                            .with(|f| f.as_ref().is_some_and(|f| f.stalls.is_empty()))
                            .then(|| {
                                view! {
                                    <p class="muted" id="no-stalls">
                                        "This export has no warp-state counters: collect them with \
                                         ncu's --set full (or its WarpStateStats section), or with \
                                         capture profile."
                                    </p>
                                }
                            })
                    }}
                    <ul class="reasons" id="stall-reasons">
                        {move || {
                            facts
                                .get()
                                .map(|f| f.stalls)
                                .unwrap_or_default()
                                .into_iter()
                                .map(|(key, head, text)| {
                                    view! {
                                        <li data-stall=key>
                                            <strong>{head}</strong>
                                            {text}
                                        </li>
                                    }
                                })
                                .collect_view()
                        }}
                    </ul>
                </div>
            </div>
        </section>
    }
}
