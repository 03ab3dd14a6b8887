//! Per-kernel figures for the views. They are worked in [`shared::figures`] (which calls
//! [`shared::metrics`] and [`shared::table`]), so the page shows what `capture table` prints;
//! this module only names them for the viewer's state.

pub use shared::figures::KernelFigures;
