//! Per-kernel figures for the views. They are worked in [`shared::analysis::figures`] (which calls
//! [`shared::analysis::metrics`] and [`shared::analysis::table`]), so the page shows what `capture table` prints;
//! this module only names them for the viewer's state.

pub use shared::analysis::figures::KernelFigures;
