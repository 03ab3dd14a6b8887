//! "Where the time goes": the kernels of a run ranked by their share of the summed kernel
//! time, with the running total, each one's verdict beside its name, the kind of work it
//! did most of and the roof it sits under (from `shared::analysis::figures::ranking`). The first page
//! an application's artifact opens on: the answer to "what is my program waiting on". A
//! kernel whose launch groups disagree opens into its groups under the table.

use leptos::prelude::*;

use super::sol::MixedKernels;
use crate::components::range_tree::RangeTree;
use crate::components::term::Term;
use crate::components::virtual_table::{rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::table::{time_header, time_row};
use crate::state::view::KernelRef;

/// The ranked kernels of the current run.
#[component]
pub fn TimePage() -> impl IntoView {
    let ctx = Ctx::get();
    let ranking = Memo::new(move |_| {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| shared::analysis::figures::ranking(&r.run.artifact, &r.kernels))
                .unwrap_or_default()
        })
    });
    let rows = rows_memo(move || (0..ranking.with(Vec::len)).collect());
    let row = move |_: usize, rank: usize| {
        let run = ctx.run.get_untracked();
        let selected = ctx.selected();
        ranking.with_untracked(|rows| {
            let r = rows.get(rank)?;
            let kr = KernelRef {
                run,
                kernel: r.index,
            };
            ctx.ws.with_untracked(|ws| {
                let k = ws.runs.get(run)?.kernels.get(r.index)?;
                Some(time_row(kr, rank, r, k, selected))
            })
        })
    };
    view! {
        <div class="page time" id="page-time">
            <p class="muted">
                "Kernels by their share of the summed kernel "
                <Term key="time" text="time" />
                " (each kernel's launches summed), largest first, with the running total: the top \
                 rows are where the time goes. Work is the kind of arithmetic each did most of; the \
                 roof is the one its DRAM intensity sits under, with how close it runs to it."
            </p>
            <RangeTree />
            <VirtualTable id="time-table" rows=rows header=time_header() row=Box::new(row) />
            <MixedKernels id="time-groups" />
        </div>
    }
}
