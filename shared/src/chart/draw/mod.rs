//! The drawing half of the charts, behind the `draw` feature (on by default; `capture`
//! builds `shared` without it and links no plotters): each chart's plain numbers drawn onto
//! any plotters backend, a canvas in the browser (`plotters-canvas`) or SVG natively, where
//! tests check it.

pub mod memory;
pub mod palette;
pub mod roofline;
pub mod stalls;
pub mod surface;

use plotters::prelude::*;

pub use memory::draw_memory;
pub use palette::{palette, palette_css};
pub use roofline::{draw_highlight, draw_roofline};
pub use stalls::draw_stalls;
pub use surface::Surface;

use super::hits::HitPoint;
use crate::chart::memory::MemoryChart;
use crate::chart::roofline::RooflineChart;
use crate::chart::stalls::StallChart;
use crate::error::ChartError;

impl ChartError {
    /// Wraps a plotters drawing error.
    pub fn from_draw<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Self {
        ChartError(e.to_string())
    }
}

/// Draws the roofline to an SVG document of `width` x `height` pixels; also returns where
/// each point landed.
pub fn roofline_svg(
    chart: &RooflineChart,
    width: u32,
    height: u32,
) -> Result<(String, Vec<HitPoint>), ChartError> {
    let mut out = String::new();
    let drawn = {
        // Through a Surface, as the viewer's canvas draws it: one compiled painter for both.
        let mut svg = SVGBackend::with_string(&mut out, (width, height));
        draw_roofline(&Surface::new(&mut svg).into_drawing_area(), chart, 1.0)?
    };
    Ok((out, drawn.hits))
}

/// Draws the memory chart to an SVG document of `width` x `height` pixels.
pub fn memory_svg(chart: &MemoryChart, width: u32, height: u32) -> Result<String, ChartError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw_memory(&root, chart, 1.0)?;
    }
    Ok(out)
}

/// Draws the stall chart to an SVG document of `width` x `height` pixels.
pub fn stalls_svg(chart: &StallChart, width: u32, height: u32) -> Result<String, ChartError> {
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw_stalls(&root, chart, 1.0)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::{ChartPoint, HitGrid, KernelSeries, Level, Roof};

    #[test]
    fn roofline_svg_draws_roofs_points_and_escapes_names() {
        let mut chart = RooflineChart {
            title: "T4 roofline".into(),
            subtitle: "FP32, event time".into(),
            roofs: vec![Roof {
                label: "theoretical 320 GB/s".into(),
                measured: false,
                level: Level::Dram,
                gbyte_per_s: Some(320.0),
                gflop_per_s: Some(8141.0),
            }],
            series: vec![KernelSeries {
                label: "<img src=x onerror=alert(1)>".into(),
                color: 1,
                run: 0,
                selected: true,
                labelled: false,
                rank: None,
                points: vec![
                    ChartPoint {
                        level: Level::Asked,
                        flop_per_byte: 1.0 / 12.0,
                        gflop_per_s: 21.4,
                        above_roof: false,
                    },
                    ChartPoint {
                        level: Level::Dram,
                        flop_per_byte: 0.09,
                        gflop_per_s: 21.4,
                        above_roof: false,
                    },
                ],
            }],
            links: Vec::new(),
        };
        chart.flag_points_above_roofs();
        let (svg, hits) = roofline_svg(&chart, 800, 500).unwrap_or_default();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("theoretical 320 GB/s"));
        assert!(svg.contains("operational intensity"));
        // A kernel name is text: SVG escapes it, no element is injected.
        assert!(!svg.contains("<img"), "kernel name injected as markup");
        assert!(svg.contains("&lt;img"));
        assert_eq!(hits.len(), 2);
        // The asked point is left of the DRAM point (lower intensity), at the same height.
        assert!(hits[0].x < hits[1].x);
        assert_eq!(hits[0].y, hits[1].y);
        assert!(hits
            .iter()
            .all(|h| h.x > 0 && h.x < 800 && h.y > 0 && h.y < 500));

        // The emphasis layer: the selected series at its drawn points, with its label as
        // text, and a ring around the hovered point.
        let grid = HitGrid::new(hits.clone(), 9.0);
        let mut overlay = String::new();
        {
            let root = SVGBackend::with_string(&mut overlay, (800, 500)).into_drawing_area();
            draw_highlight(&root, &chart, &grid, &[], &[0], hits.first().copied(), 1.0)
                .unwrap_or_else(|e| panic!("{e}"));
        }
        assert!(!overlay.contains("<img"), "label injected as markup");
        assert!(overlay.contains("&lt;img"), "no label: {overlay}");
        let ring = format!("cx=\"{}\" cy=\"{}\" r=\"10\"", hits[0].x, hits[0].y);
        assert!(overlay.contains(&ring), "no hover ring: {overlay}");
        // No background: the chart under it stays visible.
        assert!(!overlay.contains("fill=\"#FFFFFF\" stroke=\"none\" x=\"0\" y=\"0\""));
    }
}
