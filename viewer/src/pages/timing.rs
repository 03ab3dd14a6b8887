//! Event time and ncu duration side by side, each labelled with the cache and clock
//! control it was taken under, so a locked-clock replay is never read as the program's
//! own time. Rows and text are markup from `state::page::tables`.

use leptos::prelude::*;

use super::{kernel_rows, table_page};
use crate::components::virtual_table::virtual_table;
use crate::ctx::Ctx;
use crate::state::page::tables::{timing_header, timing_intro, timing_row};
use crate::state::view::KernelRef;

/// The timing table of the current run.
#[component]
pub fn TimingPage() -> impl IntoView {
    let ctx = Ctx::get();
    let row = move |pos: usize, kernel: usize| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        ctx.ws
            .with_untracked(|ws| ws.kernel(kr).map(|(_, k)| timing_row(kr, pos, k)))
    };
    table_page(
        "page timing",
        "page-timing",
        Box::new(move || {
            let run = ctx.current_run();
            ctx.ws
                .with(|ws| timing_intro(ws.runs.get(run).map(|r| &**r)))
        }),
        virtual_table(
            "timing-table",
            kernel_rows(),
            Box::new(timing_header),
            Box::new(row),
            None,
        )
        .into_any(),
    )
}
