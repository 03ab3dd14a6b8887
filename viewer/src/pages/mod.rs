//! One module per view, each a leptos component over plain state (`state/`): pages read
//! the shared context and render tables and charts; all numbers come from the state layer.
//! The shell lists them in `app::PAGES` (a new page: a module here, a [`View`] and an
//! entry there).
//!
//! [`View`]: crate::state::view::View

pub mod bytes;
pub mod compare;
pub mod exercise;
pub mod memory;
pub mod metrics;
pub mod multi;
pub mod occupancy;
pub mod overview;
pub mod roofline;
pub mod rules;
pub mod sol;
pub mod source;
pub mod time;
pub mod timing;

use crate::components::virtual_table::{rows_memo, Rows};
use crate::ctx::Ctx;
use crate::state::view::KernelRef;

/// The rows of a table of every kernel of the current run, by time, most first (the order
/// every kernel table opens in; a header sorts it otherwise).
pub fn kernel_rows() -> leptos::prelude::Memo<Rows> {
    use leptos::prelude::*;
    let ctx = Ctx::get();
    rows_memo(move || {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| r.by_time.clone())
                .unwrap_or_default()
        })
    })
}

/// Kernel `kernel` of the current run (read without tracking the run: the rows memo does).
pub fn current_ref(kernel: usize) -> KernelRef {
    use leptos::prelude::*;
    KernelRef {
        run: Ctx::get().run.get_untracked(),
        kernel,
    }
}
