//! Reusable pieces of the page: the loader, the run and kernel lists, chart canvases,
//! number cells with explanations, and the explanation side panel.

pub mod canvas;
pub mod explain;
pub mod kernel_list;
pub mod loader;
