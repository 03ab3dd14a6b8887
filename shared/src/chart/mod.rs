//! The charts: their plain numbers here (the roofline's roofs and points, the memory chart's
//! flows, the stall chart's shares, the hit grid a hover searches), and their drawing, generic
//! over the plotters backend, in [`draw`] behind the `draw` feature: the same code draws to a
//! canvas in the browser (`plotters-canvas`) and to SVG natively, where tests check it.
//!
//! Architecture invariant: charts take plain numbers (see [`roofline::RooflineChart`],
//! [`memory::MemoryChart`] and [`stalls::StallChart`]); they do not read artifacts or counters. The viewer's state
//! layer turns an artifact into those numbers with [`crate::analysis::metrics`], so a chart can never
//! compute a figure differently from the tables.

pub mod colors;
pub mod hits;
pub mod memory;
pub mod place;
pub mod roofline;
pub mod stalls;

pub use crate::error::ChartError;
pub use colors::{kernel_colors, PALETTE_LEN};
pub use hits::{HitGrid, HitPoint};
pub use memory::{MemoryChart, MemoryFlows};
pub use place::{Box2, LabelBox, LabelOf};
pub use roofline::{ChartPoint, KernelSeries, Level, Roof, RooflineChart};
pub use stalls::{StallChart, StallSeries};

#[cfg(feature = "draw")]
pub mod draw;
#[cfg(feature = "draw")]
pub use draw::{
    draw_highlight, draw_memory, draw_roofline, draw_stalls, memory_svg, palette, palette_css,
    roofline::Drawn, roofline_svg, stalls_svg, Surface,
};
