//! Speed-of-Light table: the headline percentages of each kernel with the verdict and the
//! numbers that produced it; a latency-bound kernel's reason says why (its waves and top
//! stall). Rows and text are markup from `state::page::tables`.

use leptos::prelude::*;

use super::{kernel_rows, table_page};
use crate::components::virtual_table::virtual_table;
use crate::ctx::Ctx;
use crate::state::page::tables::{sol_header, sol_intro, sol_row};
use crate::state::view::KernelRef;

/// The Speed-of-Light table of the current run.
#[component]
pub fn SolPage() -> impl IntoView {
    let ctx = Ctx::get();
    let row = move |pos: usize, kernel: usize| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        let selected = ctx.selected();
        ctx.ws
            .with_untracked(|ws| ws.kernel(kr).map(|(_, k)| sol_row(kr, pos, k, selected)))
    };
    table_page(
        "page sol",
        "page-sol",
        Box::new(sol_intro),
        virtual_table(
            "sol-table",
            kernel_rows(),
            Box::new(sol_header),
            Box::new(row),
            None,
        )
        .into_any(),
    )
}
