//! Event time and ncu duration side by side, each labelled with the cache and clock
//! control it was taken under, so a locked-clock replay is never read as the program's
//! own time. Only the columns the run fills (an import has no event times). Rows are plain
//! data from `state::table`.

use leptos::prelude::*;

use super::{current_ref, kernel_rows};
use crate::components::term::Term;
use crate::components::virtual_table::VirtualTable;
use crate::ctx::Ctx;
use crate::state::table::{timing_controls, timing_header, timing_row, TimingColumns};

/// The timing table of the current run.
#[component]
pub fn TimingPage() -> impl IntoView {
    let ctx = Ctx::get();
    // The columns the current run fills; the table is made again when they change.
    let shown = Memo::new(move |_| {
        let run = ctx.current_run();
        ctx.ws
            .with(|ws| ws.runs.get(run).map(|r| TimingColumns::of(r)))
    });
    let controls = move || {
        let run = ctx.current_run();
        ctx.ws
            .with(|ws| ws.runs.get(run).map(|r| timing_controls(r)))
    };
    // Event time is described only where the run has it: an import or a profile has none,
    // and the sentence about plain runs read as if its column were missing.
    let event = move || {
        if shown.get().is_some_and(|c| c.event) {
            ": a plain run, no profiler, the GPU's own clocks, caches as the previous launch \
             left them."
        } else {
            ": none in this run (only capture run times kernels by CUDA events); every time \
             here is ncu's."
        }
    };
    view! {
        <div class="page timing" id="page-timing">
            {move || {
                controls()
                    .map(|(clock, cache)| {
                        view! {
                            <ul class="controls">
                                <li>
                                    <Term key="event_time" text="Event time" />
                                    {event}
                                </li>
                                <li>
                                    <Term key="ncu_duration" text="ncu duration" />
                                    {format!(": a profiled replay, {cache}, {clock}.")}
                                </li>
                            </ul>
                        }
                    })
            }}
            <p class="muted">"Every time here is per launch."</p>
            {move || {
                shown
                    .get()
                    .map(|cols| {
                        let row = move |_: usize, kernel: usize| {
                            let kr = current_ref(kernel);
                            ctx.ws.with_untracked(|ws| {
                                ws.kernel(kr).map(|(_, k)| timing_row(kr, k, cols))
                            })
                        };
                        view! {
                            <VirtualTable
                                id="timing-table"
                                rows=kernel_rows()
                                header=timing_header(cols)
                                row=Box::new(row)
                            />
                        }
                    })
            }}
        </div>
    }
}
