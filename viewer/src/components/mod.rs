//! Reusable pieces of the page: the loader, the run and kernel lists, chart canvases,
//! number cells with explanations, the explanation side panel, and long tables rendered a
//! window at a time.

pub mod canvas;
pub mod explain;
pub mod kernel_list;
pub mod loader;
pub mod markup;
pub mod virtual_table;
