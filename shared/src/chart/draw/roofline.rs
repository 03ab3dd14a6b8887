//! Drawing the roofline chart ([`crate::chart::RooflineChart`]) onto any plotters backend:
//! log-log axes fitted to the points ([`RooflineChart::fit`]), the roofs, each kernel's
//! points joined by a line, the roof labels and the labelled kernels' labels placed so none
//! covers another or a point ([`crate::chart::place`]), the key, and the emphasis layer of
//! the selected and hovered points.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::palette;
use crate::chart::hits::{HitGrid, HitPoint};
use crate::chart::place::{crosses, Box2, LabelBox, LabelOf, Placer};
use crate::chart::roofline::{
    chart_label, valid, ChartPoint, KernelSeries, Level, Roof, RooflineChart,
};
use crate::chart::ChartError;
use crate::text::format::fmt_tick;

/// What [`draw_roofline`] drew: where each point landed and every label's box.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    /// Where each drawn point landed (a point outside the axes at the edge it is clipped to).
    pub hits: Vec<HitPoint>,
    /// The roof and kernel labels, in backend pixels: none overlaps another or a point.
    pub labels: Vec<LabelBox>,
}

/// A point's place on the axes `x` x `y`: its own, or clamped to the edge it lies beyond,
/// with whether it was clamped.
fn clamp_to(p: &ChartPoint, x: (f64, f64), y: (f64, f64)) -> ((f64, f64), bool) {
    let cx = p.flop_per_byte.clamp(x.0, x.1);
    let cy = p.gflop_per_s.clamp(y.0, y.1);
    ((cx, cy), cx != p.flop_per_byte || cy != p.gflop_per_s)
}

/// Draws `chart` onto `root`, with sizes (fonts, strokes, margins) multiplied by `scale`
/// (the device pixel ratio on a canvas, 1 for SVG). Returns where each point landed and
/// where each label went.
///
/// The axes are [`RooflineChart::fit`]'s: a point beyond them is drawn at the edge with an
/// arrow pointing out. Roof labels and the labels of labelled (and selected) series are
/// placed after every point is known, so none covers another label or a point, and they are
/// drawn last on a white ground, so no line strikes through them.
#[expect(
    clippy::too_many_lines,
    reason = "draws the axes, roofs, series, labels and key in order on one chart context; split, each piece would take the context, the scale and the labels placed so far"
)]
pub fn draw_roofline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    scale: f64,
) -> Result<Drawn, ChartError> {
    let px = |v: f64| (v * scale).round().max(1.0) as u32;
    let pxi = |v: f64| (v * scale).round() as i32;
    root.fill(&WHITE).map_err(ChartError::from_draw)?;
    let fit = chart.fit();
    let ((x0, x1), (y0, y1)) = (fit.x, fit.y);

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
        .x_desc("operational intensity (FLOP/B)")
        .y_desc("performance (FLOP/s)")
        .x_labels(12)
        .y_labels(12)
        .x_label_formatter(&|v| fmt_tick(*v, ""))
        .y_label_formatter(&|v| fmt_tick(*v * 1e9, ""))
        .label_style(("sans-serif", px(12.0)))
        .axis_desc_style(("sans-serif", px(13.0)))
        .light_line_style(RGBColor(246, 246, 246))
        .bold_line_style(RGBColor(215, 215, 215))
        .draw()
        .map_err(ChartError::from_draw)?;

    let (plot_x, plot_y) = ctx.plotting_area().get_pixel_range();
    let area = Box2 {
        x0: plot_x.start,
        y0: plot_y.start,
        x1: plot_x.end,
        y1: plot_y.end,
    };
    let mut placer = Placer::new(area);
    let key_box = key_box(chart, (plot_x.end, plot_y.end), scale);
    if let Some(b) = key_box {
        placer.take(b);
    }
    let font = |size: f64| ("sans-serif", px(size)).into_font();
    let text_box = |text: &str, size: f64| -> Result<(i32, i32), ChartError> {
        let (w, h) = root
            .estimate_text_size(text, &font(size).into_text_style(root))
            .map_err(ChartError::from_draw)?;
        Ok((w as i32 + pxi(4.0), h as i32 + pxi(4.0)))
    };
    if !chart.subtitle.is_empty() {
        let (w, h) = text_box(&chart.subtitle, 12.0)?;
        placer.take(Box2::at(area.x0, area.y0, w + pxi(6.0), h + pxi(2.0)));
        root.draw(&Text::new(
            chart.subtitle.clone(),
            (area.x0 + pxi(6.0), area.y0 + pxi(4.0)),
            font(12.0).color(&RGBColor(90, 90, 90)),
        ))
        .map_err(ChartError::from_draw)?;
    }

    // Every point's place first, so the labels can keep clear of them.
    let mut placed: Vec<Vec<Option<Spot>>> = Vec::new();
    for series in &chart.series {
        let r = pxi(if series.selected { 6.0 } else { 4.0 }) + pxi(2.0);
        let mut row = Vec::new();
        for p in &series.points {
            if !(valid(p.flop_per_byte) && valid(p.gflop_per_s)) {
                row.push(None);
                continue;
            }
            let (at, clipped) = clamp_to(p, fit.x, fit.y);
            let (bx, by) = ctx.backend_coord(&at);
            placer.take(Box2 {
                x0: bx - r,
                y0: by - r,
                x1: bx + r,
                y1: by + r,
            });
            row.push(Some(((bx, by), clipped)));
        }
        placed.push(row);
    }

    // Roofs: sample the x range in log steps so the knee is drawn exactly.
    let mut roof_lines: Vec<Vec<(i32, i32)>> = Vec::new();
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
        roof_lines.push(line.iter().map(|p| ctx.backend_coord(p)).collect());
    }

    // Roof labels: above their line, from its right end leftwards, where they cover no
    // point, no other label and no roof line.
    let mut labels: Vec<(LabelBox, RGBColor, f64)> = Vec::new();
    for (i, roof) in chart.roofs.iter().enumerate() {
        let line = &roof_lines[i];
        if line.len() < 2 {
            continue;
        }
        let (w, h) = text_box(&roof.label, 11.0)?;
        let gap = pxi(3.0);
        let mut spots = Vec::new();
        for k in 0..=24 {
            let t = 1.0 - f64::from(k) / 24.0 * 0.85;
            let at = ((line.len() - 1) as f64 * t).round() as usize;
            let (lx, ly) = line[at.min(line.len() - 1)];
            // Right edge on the line's point, bottom just above the line: a roof rises
            // or stays flat to the right, so the line passes under the box.
            spots.push((lx.min(area.x1) - w, ly - gap - h));
            spots.push((lx.min(area.x1) - w, ly - gap - 2 * h));
        }
        let free = spots
            .into_iter()
            .map(|(x, y)| Box2::at(x, y, w, h))
            .find(|b| placer.free(b) && !crosses(b, &roof_lines));
        if let Some(b) = free {
            placer.take(b);
            labels.push((
                LabelBox {
                    text: roof.label.clone(),
                    of: LabelOf::Roof(i),
                    rect: b,
                },
                roof_color(roof, i),
                11.0,
            ));
        }
    }

    // Before/after links, under the points.
    for link in &chart.links {
        let (Some(a), Some(b)) = (chart.series.get(link.from), chart.series.get(link.to)) else {
            continue;
        };
        if let (Some(pa), Some(pb)) = (main_point(a), main_point(b)) {
            let style = ShapeStyle::from(&RGBColor(60, 60, 60)).stroke_width(px(1.5));
            let (fa, _) = clamp_to(pa, fit.x, fit.y);
            let (fb, _) = clamp_to(pb, fit.x, fit.y);
            ctx.draw_series(dashed(&[fa, fb], &ctx, style, pxi(4.0)))
                .map_err(ChartError::from_draw)?;
            let from = ctx.backend_coord(&fa);
            if let Some(head) = arrow_head(from, ctx.backend_coord(&fb), f64::from(pxi(9.0))) {
                ctx.draw_series(std::iter::once(
                    EmptyElement::at(fb) + PathElement::new(head.to_vec(), style),
                ))
                .map_err(ChartError::from_draw)?;
            }
        }
    }

    let mut hits = Vec::new();
    for (si, series) in chart.series.iter().enumerate() {
        let color = palette(series.color);
        let at: Vec<(i32, i32)> = placed[si].iter().flatten().map(|(p, _)| *p).collect();
        let width = if series.selected { 2.5 } else { 1.2 };
        if at.len() > 1 {
            root.draw(&PathElement::new(
                at,
                ShapeStyle::from(&color.mix(0.8)).stroke_width(px(width)),
            ))
            .map_err(ChartError::from_draw)?;
        }
        let radius = if series.selected { 6.0 } else { 4.0 };
        for (pi, p) in series.points.iter().enumerate() {
            let Some(((bx, by), clipped)) = placed[si].get(pi).copied().flatten() else {
                continue;
            };
            hits.push(HitPoint {
                series: si,
                point: pi,
                x: bx,
                y: by,
            });
            let r = pxi(radius);
            let elem = marker(p.level, series.run, (bx, by), r, &color, px(1.5));
            root.draw(&elem).map_err(ChartError::from_draw)?;
            if clipped {
                // An arrow beyond the marker, pointing off the axes.
                let out_x = if p.flop_per_byte > x1 {
                    1
                } else if p.flop_per_byte < x0 {
                    -1
                } else {
                    0
                };
                let out_y = if p.gflop_per_s > y1 {
                    -1
                } else if p.gflop_per_s < y0 {
                    1
                } else {
                    0
                };
                let tip = (bx + out_x * (r + pxi(7.0)), by + out_y * (r + pxi(7.0)));
                if let Some(head) = arrow_head((bx, by), tip, f64::from(pxi(6.0))) {
                    let pts: Vec<(i32, i32)> = head
                        .iter()
                        .map(|(dx, dy)| (tip.0 + dx, tip.1 + dy))
                        .collect();
                    root.draw(&PathElement::new(
                        vec![(bx, by), tip],
                        ShapeStyle::from(&RGBColor(30, 30, 30)).stroke_width(px(1.5)),
                    ))
                    .map_err(ChartError::from_draw)?;
                    root.draw(&PathElement::new(
                        pts,
                        ShapeStyle::from(&RGBColor(30, 30, 30)).stroke_width(px(1.5)),
                    ))
                    .map_err(ChartError::from_draw)?;
                }
            }
            if p.above_roof {
                root.draw(&Circle::new(
                    (bx, by),
                    r + pxi(4.0),
                    ShapeStyle::from(&RED).stroke_width(px(2.0)),
                ))
                .map_err(ChartError::from_draw)?;
                let mark = Box2::at(bx + r + pxi(5.0), by - r - pxi(10.0), pxi(6.0), pxi(13.0));
                if placer.free(&mark) {
                    placer.take(mark);
                    root.draw(&Text::new(
                        "!".to_string(),
                        (mark.x0, mark.y0),
                        font(13.0).color(&RED),
                    ))
                    .map_err(ChartError::from_draw)?;
                }
            }
        }
    }

    // Kernel labels: the labelled series (the page picks the largest shares) and the
    // selected ones, near their main point, where they cover nothing else (and, where
    // there is room, cross no roof and no kernel's line).
    let mut lines: Vec<Vec<(i32, i32)>> = roof_lines.clone();
    lines.extend(
        placed
            .iter()
            .map(|row| row.iter().flatten().map(|(p, _)| *p).collect::<Vec<_>>())
            .filter(|l| l.len() > 1),
    );
    let mut order: Vec<usize> = (0..chart.series.len())
        .filter(|&i| chart.series[i].labelled || chart.series[i].selected)
        .collect();
    order.sort_by_key(|&i| (chart.series[i].rank.unwrap_or(usize::MAX), i));
    for si in order {
        let series = &chart.series[si];
        let Some(pi) = main_index(series) else {
            continue;
        };
        let Some(((bx, by), _)) = placed[si].get(pi).copied().flatten() else {
            continue;
        };
        let text = chart_label(series);
        let size = 12.0;
        let (w, h) = text_box(&text, size)?;
        let gap = pxi(if series.selected { 8.0 } else { 6.0 });
        let Some(b) = placer.near_clear(bx, by, gap, w, h, &lines) else {
            continue;
        };
        // A leader line when the label had to move away from its point.
        let (nx, ny) = b.nearest(bx, by);
        if (f64::from(nx - bx)).hypot(f64::from(ny - by)) > f64::from(gap + pxi(4.0)) {
            root.draw(&PathElement::new(
                vec![(bx, by), (nx, ny)],
                ShapeStyle::from(&palette(series.color)).stroke_width(px(1.0)),
            ))
            .map_err(ChartError::from_draw)?;
        }
        labels.push((
            LabelBox {
                text,
                of: LabelOf::Series(si),
                rect: b,
            },
            RGBColor(20, 20, 20),
            size,
        ));
    }

    // The labels last, each on a white ground: no line or point strikes through one.
    for (label, color, size) in &labels {
        let b = label.rect;
        root.draw(&Rectangle::new(
            [(b.x0, b.y0), (b.x1, b.y1)],
            ShapeStyle::from(&WHITE.mix(0.92)).filled(),
        ))
        .map_err(ChartError::from_draw)?;
        if let LabelOf::Series(si) = label.of {
            let c = palette(chart.series[si].color);
            root.draw(&Rectangle::new(
                [(b.x0, b.y0), (b.x0 + pxi(3.0), b.y1)],
                ShapeStyle::from(&c).filled(),
            ))
            .map_err(ChartError::from_draw)?;
        }
        let inset = if matches!(label.of, LabelOf::Series(_)) {
            pxi(5.0)
        } else {
            pxi(2.0)
        };
        root.draw(&Text::new(
            label.text.clone(),
            (b.x0 + inset, b.y0 + pxi(2.0)),
            font(*size).color(color),
        ))
        .map_err(ChartError::from_draw)?;
    }
    if let Some(b) = key_box {
        draw_key(root, chart, (b.x0, b.y0), scale)?;
    }
    root.present().map_err(ChartError::from_draw)?;
    Ok(Drawn {
        hits,
        labels: labels.into_iter().map(|(l, _, _)| l).collect(),
    })
}

/// Where a point is drawn (backend pixels) and whether it was clamped to the axes.
type Spot = ((i32, i32), bool);

/// Draws the emphasis layer of a roofline drawn earlier (its points are in `grid`) onto a
/// transparent `root` of the same size: each series of `series` larger, with its joining
/// line and its label on a white ground (where the chart's `labels` put it, else at a free
/// spot near its point), and the point `hover` ringed, its series' line
/// drawn over the others. This is the canvas stacked over the chart, so a selection or a
/// hover redraws a few shapes, never the whole chart.
pub fn draw_highlight<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    grid: &HitGrid,
    labels: &[LabelBox],
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
            let style = ("sans-serif", px(12.0))
                .into_font()
                .color(&RGBColor(20, 20, 20));
            let text = chart_label(s);
            // Where the chart put this series' label, else a free spot near its point.
            let drawn = labels
                .iter()
                .find(|l| l.of == LabelOf::Series(si))
                .map(|l| l.rect);
            let rect = match drawn {
                Some(r) => Some(r),
                None => {
                    let (w, ht) = root
                        .estimate_text_size(&text, &style)
                        .map_err(ChartError::from_draw)?;
                    let (cw, ch) = root.dim_in_pixel();
                    let mut placer = Placer::new(Box2::at(0, 0, cw as i32, ch as i32));
                    for l in labels {
                        placer.take(l.rect);
                    }
                    let r = pxi(6.0);
                    for o in grid.hits() {
                        placer.take(Box2::at(o.x - r, o.y - r, 2 * r, 2 * r));
                    }
                    placer.near(
                        h.x,
                        h.y,
                        pxi(9.0),
                        w as i32 + pxi(9.0),
                        ht as i32 + pxi(4.0),
                    )
                }
            };
            if let Some(b) = rect {
                root.draw(&Rectangle::new(
                    [(b.x0, b.y0), (b.x1, b.y1)],
                    ShapeStyle::from(&WHITE).filled(),
                ))
                .map_err(ChartError::from_draw)?;
                root.draw(&Rectangle::new(
                    [(b.x0, b.y0), (b.x0 + pxi(3.0), b.y1)],
                    ShapeStyle::from(&color).filled(),
                ))
                .map_err(ChartError::from_draw)?;
                root.draw(&Rectangle::new(
                    [(b.x0, b.y0), (b.x1, b.y1)],
                    ShapeStyle::from(&color).stroke_width(px(1.0)),
                ))
                .map_err(ChartError::from_draw)?;
                root.draw(&Text::new(text, (b.x0 + pxi(5.0), b.y0 + pxi(2.0)), style))
                    .map_err(ChartError::from_draw)?;
            }
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
