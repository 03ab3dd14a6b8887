//! Chart drawing, generic over the plotters backend: the same code draws to a canvas in the
//! browser (`plotters-canvas`) and to SVG natively, where tests check it.
//!
//! Architecture invariant: charts take plain numbers (see [`roofline::RooflineChart`],
//! [`memory::MemoryChart`] and [`stalls::StallChart`]); they do not read artifacts or counters. The viewer's state
//! layer turns an artifact into those numbers with [`crate::analysis::metrics`], so a chart can never
//! compute a figure differently from the tables.

pub mod hits;
pub mod memory;
pub mod place;
pub mod roofline;
pub mod stalls;

use plotters::prelude::*;

pub use hits::{HitGrid, HitPoint};
pub use memory::{draw_memory, MemoryChart, MemoryFlows};
pub use place::{Box2, LabelBox, LabelOf};
pub use roofline::{
    draw_highlight, draw_roofline, ChartPoint, Drawn, KernelSeries, Level, Roof, RooflineChart,
};
pub use stalls::{draw_stalls, StallChart, StallSeries};

/// A drawing failed (the backend refused an operation).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("chart drawing failed: {0}")]
pub struct ChartError(pub String);

impl ChartError {
    /// Wraps a plotters drawing error.
    pub fn from_draw<E: std::error::Error + Send + Sync>(e: DrawingAreaErrorKind<E>) -> Self {
        ChartError(e.to_string())
    }
}

/// Series colour `index` of a ten-colour palette that stays distinct for colour-blind
/// readers (Okabe-Ito, extended).
pub fn palette(index: usize) -> RGBColor {
    const COLORS: [RGBColor; PALETTE_LEN] = [
        RGBColor(0, 114, 178),
        RGBColor(213, 94, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
        RGBColor(230, 159, 0),
        RGBColor(86, 180, 233),
        RGBColor(120, 94, 240),
        RGBColor(100, 100, 100),
        RGBColor(170, 40, 40),
        RGBColor(40, 110, 40),
    ];
    COLORS[index % PALETTE_LEN]
}

/// Colour `index` of [`palette`] as CSS (`rgb(0, 114, 178)`), for the page's keys.
pub fn palette_css(index: usize) -> String {
    let RGBColor(r, g, b) = palette(index);
    format!("rgb({r}, {g}, {b})")
}

/// How many colours [`palette`] has.
pub const PALETTE_LEN: usize = 10;

/// A colour for each kernel of a run, as [`palette`] indices, from the kernels' names in
/// rank order (most time first): each kernel's colour comes from its name (an FNV-1a hash),
/// so it stays the same in every precision mode and on every page, and moves to the next
/// free colour when that would repeat one of the two kernels ranked just above it, so
/// neighbours in the ranking never share a colour.
pub fn kernel_colors(names_by_rank: &[&str]) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::with_capacity(names_by_rank.len());
    for name in names_by_rank {
        let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
        for b in name.bytes() {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        let mut c = (hash % PALETTE_LEN as u64) as usize;
        let recent: Vec<usize> = out.iter().rev().take(2).copied().collect();
        while recent.contains(&c) {
            c = (c + 1) % PALETTE_LEN;
        }
        out.push(c);
    }
    out
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
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        draw_roofline(&root, chart, 1.0)?
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

    #[test]
    fn kernel_colours_follow_the_name_and_differ_between_neighbours() {
        let names: Vec<String> = (0..40).map(|i| format!("kernel_{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let colors = kernel_colors(&refs);
        for w in colors.windows(3) {
            assert!(w[0] != w[1] && w[1] != w[2] && w[0] != w[2], "{colors:?}");
        }
        // The first kernel's colour is its name's, wherever it ranks first.
        assert_eq!(kernel_colors(&refs[..1]), kernel_colors(&["kernel_0"]));
        assert!(colors.iter().all(|c| *c < PALETTE_LEN));
    }

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
