//! Drawing the roofline chart ([`crate::chart::RooflineChart`]) onto any plotters backend:
//! log-log axes, the roofs, each kernel's points joined by a line, labels placed so that they
//! do not overlap, the key, and the emphasis layer of the selected and hovered points.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::palette;
use crate::chart::hits::{HitGrid, HitPoint};
use crate::chart::roofline::{valid, ChartPoint, KernelSeries, Level, Roof, RooflineChart};
use crate::chart::ChartError;
use crate::text::format::{fmt_si, sig3};

/// Draws `chart` onto `root`, with sizes (fonts, strokes, margins) multiplied by `scale`
/// (the device pixel ratio on a canvas, 1 for SVG). Returns where each point landed.
#[expect(
    clippy::too_many_lines,
    reason = "draws the axes, roofs, series, labels and key in order on one chart context; split, each piece would take the context, the scale and the labels placed so far"
)]
pub fn draw_roofline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    scale: f64,
) -> Result<Vec<HitPoint>, ChartError> {
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    let pxi = |v: f64| (v * scale).round() as i32;
    root.fill(&WHITE).map_err(ChartError::from_draw)?;
    let ((x0, x1), (y0, y1)) = chart.ranges();

    let mut builder = ChartBuilder::on(root);
    builder
        .margin(px(12.0))
        .x_label_area_size(px(44.0))
        .y_label_area_size(px(64.0));
    if !chart.title.is_empty() {
        builder.caption(&chart.title, ("sans-serif", px(16.0)));
    }
    let mut ctx = builder
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())
        .map_err(ChartError::from_draw)?;
    ctx.configure_mesh()
        .x_desc("operational intensity (FLOP/byte)")
        .y_desc("performance (FLOP/s)")
        .x_label_formatter(&|v| sig3(*v))
        .y_label_formatter(&|v| fmt_si(*v * 1e9, ""))
        .label_style(("sans-serif", px(12.0)))
        .axis_desc_style(("sans-serif", px(13.0)))
        .light_line_style(RGBColor(238, 238, 238))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw()
        .map_err(ChartError::from_draw)?;

    let (plot_x, plot_y) = ctx.plotting_area().get_pixel_range();
    let mut labels = LabelPlacer::new(plot_y.clone());
    let key_box = key_box(chart, (plot_x.end, plot_y.end), scale);
    if let Some(b) = key_box {
        labels.taken.push(b);
    }
    if !chart.subtitle.is_empty() {
        let area = ctx.plotting_area();
        let (ax, ay) = area.get_pixel_range();
        labels.taken.push(Box2 {
            x0: ax.start,
            y0: ay.start,
            x1: ax.start + pxi(6.0 + 6.2 * chart.subtitle.chars().count() as f64),
            y1: ay.start + pxi(18.0),
        });
        root.draw(&Text::new(
            chart.subtitle.clone(),
            (ax.start + pxi(6.0), ay.start + pxi(4.0)),
            ("sans-serif", px(12.0))
                .into_font()
                .color(&RGBColor(90, 90, 90)),
        ))
        .map_err(ChartError::from_draw)?;
    }

    // Roofs: sample the x range in log steps so the knee is drawn exactly.
    for (i, roof) in chart.roofs.iter().enumerate() {
        let mut xs: Vec<f64> = (0..=64)
            .map(|k| x0 * (x1 / x0).powf(f64::from(k) / 64.0))
            .collect();
        if let Some(r) = roof.ridge_flop_per_byte().filter(|r| *r > x0 && *r < x1) {
            xs.push(r);
            xs.sort_by(f64::total_cmp);
        }
        let line: Vec<(f64, f64)> = xs
            .iter()
            .filter_map(|&x| roof.attainable(x).map(|y| (x, y)))
            .filter(|&(_, y)| y >= y0 && y <= y1)
            .collect();
        let color = roof_color(roof, i);
        let style =
            ShapeStyle::from(&color).stroke_width(px(if roof.measured { 2.0 } else { 1.0 }));
        if roof.measured {
            ctx.draw_series(LineSeries::new(line.clone(), style))
                .map_err(ChartError::from_draw)?;
        } else {
            ctx.draw_series(dashed(&line, &ctx, style, pxi(6.0)))
                .map_err(ChartError::from_draw)?;
        }
        if let Some(&(lx, ly)) = line.last() {
            let (bx, by) = ctx.backend_coord(&(lx, ly));
            let w = pxi(6.2 * roof.label.chars().count() as f64);
            let at = labels.place(bx - pxi(4.0) - w, by - pxi(15.0), w, pxi(13.0));
            root.draw(&Text::new(
                roof.label.clone(),
                at,
                ("sans-serif", px(11.0)).into_font().color(&color),
            ))
            .map_err(ChartError::from_draw)?;
        }
    }

    // Before/after links, under the points.
    for link in &chart.links {
        let (Some(a), Some(b)) = (chart.series.get(link.from), chart.series.get(link.to)) else {
            continue;
        };
        if let (Some(pa), Some(pb)) = (main_point(a), main_point(b)) {
            let style = ShapeStyle::from(&RGBColor(60, 60, 60)).stroke_width(px(1.5));
            ctx.draw_series(dashed(
                &[
                    (pa.flop_per_byte, pa.gflop_per_s),
                    (pb.flop_per_byte, pb.gflop_per_s),
                ],
                &ctx,
                style,
                pxi(4.0),
            ))
            .map_err(ChartError::from_draw)?;
            let to = (pb.flop_per_byte, pb.gflop_per_s);
            let from = ctx.backend_coord(&(pa.flop_per_byte, pa.gflop_per_s));
            if let Some(head) = arrow_head(from, ctx.backend_coord(&to), f64::from(pxi(9.0))) {
                ctx.draw_series(std::iter::once(
                    EmptyElement::at(to) + PathElement::new(head.to_vec(), style),
                ))
                .map_err(ChartError::from_draw)?;
            }
        }
    }

    let mut hits = Vec::new();
    let label_all = chart.series.len() <= 16;
    for (si, series) in chart.series.iter().enumerate() {
        let color = palette(series.color);
        let pts: Vec<(f64, f64)> = series
            .points
            .iter()
            .filter(|p| valid(p.flop_per_byte) && valid(p.gflop_per_s))
            .map(|p| (p.flop_per_byte, p.gflop_per_s))
            .collect();
        let width = if series.selected { 2.5 } else { 1.2 };
        if pts.len() > 1 {
            ctx.draw_series(LineSeries::new(
                pts.clone(),
                ShapeStyle::from(&color.mix(0.8)).stroke_width(px(width)),
            ))
            .map_err(ChartError::from_draw)?;
        }
        let radius = if series.selected { 6.0 } else { 4.0 };
        for (pi, p) in series.points.iter().enumerate() {
            if !(valid(p.flop_per_byte) && valid(p.gflop_per_s)) {
                continue;
            }
            let at = (p.flop_per_byte, p.gflop_per_s);
            let (bx, by) = ctx.backend_coord(&at);
            if bx < 0 || by < 0 {
                continue;
            }
            hits.push(HitPoint {
                series: si,
                point: pi,
                x: bx,
                y: by,
            });
            let r = pxi(radius);
            let elem = marker(p.level, series.run, (bx, by), r, &color, px(1.5));
            root.draw(&elem).map_err(ChartError::from_draw)?;
            if p.above_roof {
                root.draw(&Circle::new(
                    (bx, by),
                    r + pxi(4.0),
                    ShapeStyle::from(&RED).stroke_width(px(2.0)),
                ))
                .map_err(ChartError::from_draw)?;
                root.draw(&Text::new(
                    "!".to_string(),
                    (bx + r + pxi(5.0), by - r - pxi(10.0)),
                    ("sans-serif", px(13.0)).into_font().color(&RED),
                ))
                .map_err(ChartError::from_draw)?;
            }
        }
        if series.selected || label_all {
            if let Some(p) = main_point(series) {
                let (bx, by) = ctx.backend_coord(&(p.flop_per_byte, p.gflop_per_s));
                let size = if series.selected { 13.0 } else { 11.0 };
                let w = pxi(0.56 * size * series.label.chars().count() as f64);
                let spot = (bx + pxi(8.0), by + pxi(4.0));
                // Thinned out: a label that would cover another (or a roof's) is left for
                // the hover text, unless its series is selected.
                if !series.selected && labels.overlaps(spot.0, spot.1, w, pxi(size + 2.0)) {
                    continue;
                }
                labels.taken.push(Box2 {
                    x0: spot.0,
                    y0: spot.1,
                    x1: spot.0 + w,
                    y1: spot.1 + pxi(size + 2.0),
                });
                root.draw(&Text::new(
                    series.label.clone(),
                    spot,
                    ("sans-serif", px(if series.selected { 13.0 } else { 11.0 }))
                        .into_font()
                        .color(&RGBColor(30, 30, 30)),
                ))
                .map_err(ChartError::from_draw)?;
            }
        }
    }
    if let Some(b) = key_box {
        draw_key(root, chart, (b.x0, b.y0), scale)?;
    }
    root.present().map_err(ChartError::from_draw)?;
    Ok(hits)
}

/// Draws the emphasis layer of a roofline drawn earlier (its points are in `grid`) onto a
/// transparent `root` of the same size: each series of `series` larger, with its joining
/// line and its label on a white ground, and the point `hover` ringed, its series' line
/// drawn over the others. This is the canvas stacked over the chart, so a selection or a
/// hover redraws a few shapes, never the whole chart.
pub fn draw_highlight<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    grid: &HitGrid,
    series: &[usize],
    hover: Option<HitPoint>,
    scale: f64,
) -> Result<(), ChartError> {
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    let pxi = |v: f64| (v * scale).round() as i32;
    let hovered = hover.map(|h| h.series).filter(|s| !series.contains(s));
    for (si, emphasis) in series
        .iter()
        .map(|s| (*s, true))
        .chain(hovered.map(|s| (s, false)))
    {
        let Some(s) = chart.series.get(si) else {
            continue;
        };
        let hits = grid.series_hits(si);
        let color = palette(s.color);
        let line: Vec<(i32, i32)> = hits.iter().map(|h| (h.x, h.y)).collect();
        if line.len() > 1 {
            let width = if emphasis { 2.5 } else { 2.0 };
            root.draw(&PathElement::new(
                line,
                ShapeStyle::from(&color).stroke_width(px(width)),
            ))
            .map_err(ChartError::from_draw)?;
        }
        if !emphasis {
            continue;
        }
        for h in hits {
            let Some(p) = s.points.get(h.point) else {
                continue;
            };
            let elem = marker(p.level, s.run, (h.x, h.y), pxi(6.0), &color, px(2.0));
            root.draw(&elem).map_err(ChartError::from_draw)?;
        }
        let at = main_index(s).and_then(|i| hits.iter().find(|h| h.point == i));
        if let Some(h) = at {
            let style = ("sans-serif", px(13.0))
                .into_font()
                .color(&RGBColor(20, 20, 20));
            let (w, ht) = root
                .estimate_text_size(&s.label, &style)
                .map_err(ChartError::from_draw)?;
            let (tx, ty) = (h.x + pxi(9.0), h.y + pxi(3.0));
            let pad = pxi(2.0);
            root.draw(&Rectangle::new(
                [
                    (tx - pad, ty - pad),
                    (tx + w as i32 + pad, ty + ht as i32 + pad),
                ],
                ShapeStyle::from(&WHITE.mix(0.9)).filled(),
            ))
            .map_err(ChartError::from_draw)?;
            root.draw(&Text::new(s.label.clone(), (tx, ty), style))
                .map_err(ChartError::from_draw)?;
        }
    }
    if let Some(h) = hover {
        root.draw(&Circle::new(
            (h.x, h.y),
            pxi(10.0),
            ShapeStyle::from(&RGBColor(20, 20, 20)).stroke_width(px(2.0)),
        ))
        .map_err(ChartError::from_draw)?;
    }
    root.present().map_err(ChartError::from_draw)?;
    Ok(())
}

/// Index of the point a label or a link attaches to: DRAM when present, else the first.
fn main_index(series: &KernelSeries) -> Option<usize> {
    let ok = |p: &ChartPoint| valid(p.flop_per_byte) && valid(p.gflop_per_s);
    series
        .points
        .iter()
        .position(|p| p.level == Level::Dram && ok(p))
        .or_else(|| series.points.iter().position(ok))
}

/// The point a label or a link attaches to: DRAM when present, else the first.
fn main_point(series: &KernelSeries) -> Option<&ChartPoint> {
    main_index(series).and_then(|i| series.points.get(i))
}

fn roof_color(roof: &Roof, index: usize) -> RGBColor {
    match (roof.level, roof.measured) {
        (Level::Dram | Level::Asked, true) => RGBColor(20, 20, 20),
        (Level::Dram | Level::Asked, false) => RGBColor(110, 110, 110),
        (Level::L2, _) => RGBColor(0, 120, 90),
        (Level::L1, _) => RGBColor(120, 60, 160),
    }
    .mix_index(index)
}

trait MixIndex {
    fn mix_index(self, index: usize) -> Self;
}

impl MixIndex for RGBColor {
    /// Keeps colours of equal kind apart slightly when several roofs share a level.
    fn mix_index(self, index: usize) -> Self {
        let d = (index % 3) as u8 * 12;
        RGBColor(self.0.saturating_add(d), self.1, self.2.saturating_add(d))
    }
}

/// A marker whose shape tells the level (hollow circle for asked, filled circle for DRAM,
/// square for L2, diamond for L1) and, in comparisons, a triangle for the second run.
fn marker<DB: DrawingBackend>(
    level: Level,
    run: usize,
    at: (i32, i32),
    r: i32,
    color: &RGBColor,
    stroke: u32,
) -> DynElement<'static, DB, (i32, i32)> {
    let (x, y) = at;
    let filled = ShapeStyle::from(color).filled();
    let hollow = ShapeStyle::from(color).stroke_width(stroke);
    if run % 2 == 1 && level != Level::Asked {
        let pts = vec![
            (x, y - r - 1),
            (x - r - 1, y + r),
            (x + r + 1, y + r),
            (x, y - r - 1),
        ];
        return Polygon::new(pts, filled).into_dyn();
    }
    match level {
        Level::Asked => Circle::new((x, y), r, hollow).into_dyn(),
        Level::Dram => Circle::new((x, y), r, filled).into_dyn(),
        Level::L2 => Rectangle::new([(x - r, y - r), (x + r, y + r)], filled).into_dyn(),
        Level::L1 => Polygon::new(
            vec![
                (x, y - r - 1),
                (x + r + 1, y),
                (x, y + r + 1),
                (x - r - 1, y),
            ],
            filled,
        )
        .into_dyn(),
    }
}

/// A dashed polyline (plotters 0.3.7 has no dash style for line series), in data
/// coordinates, with dashes of `dash` backend pixels.
fn dashed<DB: DrawingBackend>(
    line: &[(f64, f64)],
    ctx: &ChartContext<'_, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>,
    style: ShapeStyle,
    dash: i32,
) -> Vec<PathElement<(f64, f64)>> {
    let mut out = Vec::new();
    let dash = f64::from(dash.max(2));
    for pair in line.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        let (ax, ay) = ctx.backend_coord(&a);
        let (bx, by) = ctx.backend_coord(&b);
        let len = f64::from(bx - ax).hypot(f64::from(by - ay));
        let steps = (len / dash).ceil().max(1.0) as usize;
        for k in (0..steps).step_by(2) {
            let t0 = k as f64 / steps as f64;
            let t1 = ((k + 1) as f64 / steps as f64).min(1.0);
            // Interpolate in log space so dashes are even on the log-log axes.
            let lerp = |t: f64| {
                (
                    (a.0.ln() + (b.0.ln() - a.0.ln()) * t).exp(),
                    (a.1.ln() + (b.1.ln() - a.1.ln()) * t).exp(),
                )
            };
            out.push(PathElement::new(vec![lerp(t0), lerp(t1)], style));
        }
    }
    out
}

/// The head of an arrow from pixel `from` to pixel `to`, as a path relative to `to`: two
/// strokes `len` pixels long, 25 degrees either side of the shaft; `None` when the two
/// points draw on one pixel.
fn arrow_head(from: (i32, i32), to: (i32, i32), len: f64) -> Option<[(i32, i32); 3]> {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    let d = dx.hypot(dy);
    if d < 1.0 {
        return None;
    }
    let (ux, uy) = (dx / d, dy / d);
    let (c, s) = (25f64.to_radians().cos(), 25f64.to_radians().sin());
    let wing = |sign: f64| {
        let (wx, wy) = (ux * c - sign * uy * s, uy * c + sign * ux * s);
        ((-wx * len).round() as i32, (-wy * len).round() as i32)
    };
    Some([wing(1.0), (0, 0), wing(-1.0)])
}

/// A small key for the marker shapes, top left inside the plot.
/// A rectangle in backend pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Box2 {
    x0: i32,
    y0: i32,
    x1: i32,
    y1: i32,
}

impl Box2 {
    fn hits(&self, o: &Box2) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }
}

/// Places text so it covers no earlier label, the subtitle or the key: a label that would
/// is moved down a line at a time, staying inside the plot.
struct LabelPlacer {
    taken: Vec<Box2>,
    rows: std::ops::Range<i32>,
}

impl LabelPlacer {
    fn new(rows: std::ops::Range<i32>) -> Self {
        LabelPlacer {
            taken: Vec::new(),
            rows,
        }
    }

    fn overlaps(&self, x: i32, y: i32, w: i32, h: i32) -> bool {
        let b = Box2 {
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
        };
        self.taken.iter().any(|t| t.hits(&b))
    }

    /// The top-left corner for a `w` x `h` label wanted at (`x`, `y`), recorded as taken.
    fn place(&mut self, x: i32, y: i32, w: i32, h: i32) -> (i32, i32) {
        let mut y = y.max(self.rows.start);
        for _ in 0..24 {
            if !self.overlaps(x, y, w, h) || y + 2 * h > self.rows.end {
                break;
            }
            y += h;
        }
        self.taken.push(Box2 {
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
        });
        (x, y)
    }
}

/// The levels of bytes the chart's points use, in order.
fn key_levels(chart: &RooflineChart) -> Vec<Level> {
    let mut levels: Vec<Level> = chart
        .series
        .iter()
        .flat_map(|s| s.points.iter().map(|p| p.level))
        .collect();
    levels.sort();
    levels.dedup();
    levels
}

/// Where the key of point shapes goes: the bottom right corner of the plot (`corner`), where
/// a roofline rarely has points (high intensity, low performance).
fn key_box(chart: &RooflineChart, corner: (i32, i32), scale: f64) -> Option<Box2> {
    let n = key_levels(chart).len() as f64;
    if n == 0.0 {
        return None;
    }
    let pxi = |v: f64| (v * scale).round() as i32;
    Some(Box2 {
        x0: corner.0 - pxi(100.0),
        y0: corner.1 - pxi(8.0 + 16.0 * n),
        x1: corner.0,
        y1: corner.1,
    })
}

fn draw_key<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    top_left: (i32, i32),
    scale: f64,
) -> Result<(), ChartError> {
    let pxi = |v: f64| (v * scale).round() as i32;
    let x = top_left.0 + pxi(10.0);
    let mut y = top_left.1 + pxi(10.0);
    let grey = RGBColor(70, 70, 70);
    for level in key_levels(chart) {
        let elem: DynElement<'static, DB, (i32, i32)> = marker(
            level,
            0,
            (x, y),
            pxi(4.0),
            &grey,
            (1.5 * scale).round().max(1.0) as u32,
        );
        root.draw(&elem).map_err(ChartError::from_draw)?;
        root.draw(&Text::new(
            format!("{} bytes", level.label()),
            (x + pxi(10.0), y - pxi(6.0)),
            ("sans-serif", (11.0 * scale).round().max(1.0) as u32)
                .into_font()
                .color(&grey),
        ))
        .map_err(ChartError::from_draw)?;
        y += pxi(16.0);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #[test]
    fn arrow_heads_point_along_the_shaft_and_skip_a_zero_length_one() {
        // Rightwards: both wings trail to the left, one above and one below the tip.
        let head = super::arrow_head((0, 0), (100, 0), 9.0).expect("head");
        assert_eq!(head, [(-8, -4), (0, 0), (-8, 4)]);
        // Upwards on screen (y falls): the wings trail downwards.
        let up = super::arrow_head((5, 50), (5, 10), 9.0).expect("head");
        assert!(up[0].1 > 0 && up[2].1 > 0, "{up:?}");
        assert_eq!(super::arrow_head((3, 3), (3, 3), 9.0), None);
    }
}
