//! Occupancy: theoretical and achieved, the block limits that set the theoretical one, and
//! how each launch fits the GPU (waves, the limiting resource); under the table, the
//! selected kernel's stall chart with its largest reasons explained and its launch fit in
//! sentences. Rows and text are markup from `state::page`.

use leptos::prelude::*;

use super::{kernel_rows, table_page};
use crate::components::canvas::StallCanvas;
use crate::components::markup::markup_host;
use crate::components::virtual_table::virtual_table;
use crate::ctx::Ctx;
use crate::state::latency::stall_chart;
use crate::state::page::kernel::{latency_facts, stall_reasons};
use crate::state::page::tables::{occupancy_header, occupancy_intro, occupancy_row};
use crate::state::view::KernelRef;

/// The occupancy table of the current run, and the selected kernel's stalls.
#[component]
pub fn OccupancyPage() -> impl IntoView {
    let ctx = Ctx::get();
    let row = move |pos: usize, kernel: usize| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        let selected = ctx.selected();
        ctx.ws.with_untracked(|ws| {
            ws.kernel(kr)
                .map(|(r, k)| occupancy_row(kr, pos, r, k, selected))
        })
    };
    table_page(
        "page occupancy",
        "page-occupancy",
        Box::new(occupancy_intro),
        view! {
            {virtual_table(
                "occupancy-table",
                kernel_rows(),
                Box::new(occupancy_header),
                Box::new(row),
                None,
            )}
            <KernelStalls />
        }
        .into_any(),
    )
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
    let with_kernel = move |f: fn(Option<&crate::state::kernel::KernelFigures>) -> _| {
        let sel = ctx.selected();
        ctx.ws
            .with(|ws| f(sel.and_then(|r| ws.kernel(r)).map(|(_, k)| k)))
    };
    view! {
        <section class="latency" id="latency-panel">
            {markup_host(Box::new(move || with_kernel(latency_facts)), None)}
            <div class="side-by-side">
                <div>
                    <StallCanvas chart=chart />
                </div>
                <div>{markup_host(Box::new(move || with_kernel(stall_reasons)), None)}</div>
            </div>
        </section>
    }
}
