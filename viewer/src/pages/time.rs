//! "Where the time goes": the kernels of a run ranked by their share of the summed kernel
//! time, with the running total, the kind of work each did most of, its verdict and the
//! roof it sits under (from `shared::analysis::figures::ranking`). The first page an application's
//! artifact opens on: the answer to "what is my program waiting on". Rows and text are
//! markup from `state::page::tables`.

use leptos::prelude::*;

use super::table_page;
use crate::components::virtual_table::{rows_memo, virtual_table};
use crate::ctx::Ctx;
use crate::state::page::tables::{time_header, time_intro, time_row};
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
    let row = move |pos: usize, rank: usize| {
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
                Some(time_row(kr, pos, rank, r, k, selected))
            })
        })
    };
    table_page(
        "page time",
        "page-time",
        Box::new(time_intro),
        virtual_table(
            "time-table",
            rows,
            Box::new(time_header),
            Box::new(row),
            None,
        )
        .into_any(),
    )
}
