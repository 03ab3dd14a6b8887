//! Reusable pieces of the page: the loader, the run and kernel lists, chart canvases, the
//! host that shows markup pages (`state::page`), long tables rendered a window at a
//! time, and the run-against-run table of the compare page.

pub mod canvas;
pub mod kernel_list;
pub mod loader;
pub mod markup;
pub mod run_diff;
pub mod virtual_table;
