//! Reusable pieces of the page: the loader, the run and kernel lists, chart canvases, the
//! host that shows markup pages (`state::page`) and long tables rendered a window at a
//! time.

pub mod canvas;
pub mod kernel_list;
pub mod loader;
pub mod markup;
pub mod virtual_table;
