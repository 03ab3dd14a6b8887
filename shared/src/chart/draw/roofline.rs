//! Drawing the roofline chart ([`crate::chart::RooflineChart`]) onto any plotters backend:
//! log-log axes fitted to the points ([`RooflineChart::fit`]), the roofs, each kernel's
//! points joined by a line, the roof labels and the labelled kernels' labels placed so none
//! covers another or a point ([`crate::chart::place`]), the key, and the emphasis layer of
//! the selected and hovered points.
//!
//! [`draw_roofline`] is a recipe over a `RooflinePainter`, which holds what every step
//! shares: the chart context, the scale, the plot area and the [`Placer`] that remembers
//! what each step took, so a later label keeps clear of it. The steps run in a fixed order
//! because each one's place depends on what the ones before it took.

use plotters::coord::Shift;
use plotters::element::{Drawable, PointCollection};
use plotters::prelude::*;

use super::palette::palette;
use crate::chart::hits::{HitGrid, HitPoint};
use crate::chart::place::{crosses, Box2, LabelBox, LabelOf, Placer};
use crate::chart::roofline::{
    chart_label, valid, ChartPoint, KernelSeries, Level, Roof, RooflineChart,
};
use crate::error::ChartError;
use crate::text::format::fmt_tick;

/// What [`draw_roofline`] drew: where each point landed and every label's box.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Drawn {
    /// Where each drawn point landed (a point outside the axes at the edge it is clipped to).
    pub hits: Vec<HitPoint>,
    /// The roof and kernel labels, in backend pixels: none overlaps another or a point.
    pub labels: Vec<LabelBox>,
    /// The plot area inside the axes, in backend pixels.
    pub area: Box2,
}

/// How far (CSS pixels) a kernel label keeps from the x and y axes.
const AXIS_MARGIN: f64 = 4.0;

/// A point's place on the axes `x` x `y`: its own, or clamped to the edge it lies beyond,
/// with whether it was clamped.
fn clamp_to(p: &ChartPoint, x: (f64, f64), y: (f64, f64)) -> ((f64, f64), bool) {
    let cx = p.flop_per_byte.clamp(x.0, x.1);
    let cy = p.gflop_per_s.clamp(y.0, y.1);
    ((cx, cy), cx != p.flop_per_byte || cy != p.gflop_per_s)
}

/// A size of `v` CSS pixels in backend pixels at `scale`, at least one: a stroke or a font.
fn px(scale: f64, v: f64) -> u32 {
    (v * scale).round().max(1.0) as u32
}

/// An offset of `v` CSS pixels in backend pixels at `scale`.
fn pxi(scale: f64, v: f64) -> i32 {
    (v * scale).round() as i32
}

/// Draws `chart` onto `root`, with sizes (fonts, strokes, margins) multiplied by `scale`
/// (the device pixel ratio on a canvas, 1 for SVG). Returns where each point landed and
/// where each label went.
///
/// The axes are [`RooflineChart::fit`]'s: a point beyond them is drawn at the edge with an
/// arrow pointing out. Roof labels and the labels of labelled (and selected) series are
/// placed after every point is known, so none covers another label or a point, and they are
/// drawn last on a white ground, so no line strikes through them.
pub fn draw_roofline<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    scale: f64,
) -> Result<Drawn, ChartError> {
    root.fill(&WHITE).map_err(ChartError::from_draw)?;
    let mut painter = RooflinePainter::new(root, chart, scale)?;
    painter.subtitle()?;
    // Every point's place first, so the labels can keep clear of them.
    let placed = painter.place_points();
    let roof_lines = painter.roofs()?;
    painter.roof_labels(&roof_lines)?;
    painter.links()?;
    let hits = painter.points(&placed)?;
    painter.kernel_labels(&placed, &roof_lines)?;
    painter.draw_labels()?;
    painter.key()?;
    root.present().map_err(ChartError::from_draw)?;
    Ok(Drawn {
        hits,
        labels: painter.labels.into_iter().map(|l| l.0).collect(),
        area: painter.area,
    })
}

/// Where a point is drawn (backend pixels) and whether it was clamped to the axes.
type Spot = ((i32, i32), bool);

/// Where each series' points are drawn, by series then point; `None` for a point that is
/// not drawn (not a finite positive number).
type Placed = Vec<Vec<Option<Spot>>>;

/// The chart context of a roofline: log intensity by log performance.
type LogLog<'a, DB> = ChartContext<'a, DB, Cartesian2d<LogCoord<f64>, LogCoord<f64>>>;

/// A label to draw last: its box, its colour and its font size in CSS pixels.
type Label = (LabelBox, RGBColor, f64);

/// What the steps of [`draw_roofline`] share.
struct RooflinePainter<'a, DB: DrawingBackend> {
    root: &'a DrawingArea<DB, Shift>,
    chart: &'a RooflineChart,
    /// Backend pixels per CSS pixel.
    scale: f64,
    /// The axes: intensity (FLOP/B) and performance (GFLOP/s) ranges.
    x: (f64, f64),
    y: (f64, f64),
    ctx: LogLog<'a, DB>,
    /// The plot area inside the axes, in backend pixels.
    area: Box2,
    /// What the steps so far took: the key, the subtitle, the points and the labels.
    placer: Placer,
    /// Where the key goes, taken before anything else is placed.
    key: Option<Box2>,
    /// The roof and kernel labels placed so far, drawn last.
    labels: Vec<Label>,
}

impl<'a, DB: DrawingBackend> RooflinePainter<'a, DB> {
    /// Draws the axes fitted to `chart` (with its title) and reserves the key's corner.
    fn new(
        root: &'a DrawingArea<DB, Shift>,
        chart: &'a RooflineChart,
        scale: f64,
    ) -> Result<Self, ChartError> {
        let fit = chart.fit();
        let ctx = axes(root, chart, scale, fit.x, fit.y)?;
        let (plot_x, plot_y) = ctx.plotting_area().get_pixel_range();
        let area = Box2 {
            x0: plot_x.start,
            y0: plot_y.start,
            x1: plot_x.end,
            y1: plot_y.end,
        };
        let mut placer = Placer::new(area);
        let key = key_box(chart, (plot_x.end, plot_y.end), scale);
        if let Some(b) = key {
            placer.take(b);
        }
        Ok(RooflinePainter {
            root,
            chart,
            scale,
            x: fit.x,
            y: fit.y,
            ctx,
            area,
            placer,
            key,
            labels: Vec::new(),
        })
    }

    fn px(&self, v: f64) -> u32 {
        px(self.scale, v)
    }

    fn pxi(&self, v: f64) -> i32 {
        pxi(self.scale, v)
    }

    /// The chart's font at `size` CSS pixels.
    fn font(&self, size: f64) -> FontDesc<'static> {
        ("sans-serif", self.px(size)).into_font()
    }

    /// The box `text` takes at `size`, with two pixels of air each side.
    fn text_box(&self, text: &str, size: f64) -> Result<(i32, i32), ChartError> {
        let (w, h) = self
            .root
            .estimate_text_size(text, &self.font(size).into_text_style(self.root))
            .map_err(ChartError::from_draw)?;
        Ok((w as i32 + self.pxi(4.0), h as i32 + self.pxi(4.0)))
    }

    /// Draws `element` on the whole drawing area.
    fn draw<E>(&self, element: &E) -> Result<(), ChartError>
    where
        for<'b> &'b E: PointCollection<'b, (i32, i32)>,
        E: Drawable<DB>,
    {
        self.root.draw(element).map_err(ChartError::from_draw)
    }

    /// The subtitle in the top left corner of the plot.
    fn subtitle(&mut self) -> Result<(), ChartError> {
        if self.chart.subtitle.is_empty() {
            return Ok(());
        }
        let (w, h) = self.text_box(&self.chart.subtitle, 12.0)?;
        let (x0, y0) = (self.area.x0, self.area.y0);
        self.placer
            .take(Box2::at(x0, y0, w + self.pxi(6.0), h + self.pxi(2.0)));
        self.draw(&Text::new(
            self.chart.subtitle.clone(),
            (x0 + self.pxi(6.0), y0 + self.pxi(4.0)),
            self.font(12.0).color(&RGBColor(90, 90, 90)),
        ))
    }

    /// Where every point is drawn, each taken from the placer with its marker's room.
    fn place_points(&mut self) -> Placed {
        let mut placed = Vec::new();
        for series in &self.chart.series {
            let r = self.pxi(if series.selected { 6.0 } else { 4.0 }) + self.pxi(2.0);
            let mut row = Vec::new();
            for p in &series.points {
                if !(valid(p.flop_per_byte) && valid(p.gflop_per_s)) {
                    row.push(None);
                    continue;
                }
                let (at, clipped) = clamp_to(p, self.x, self.y);
                let (bx, by) = self.ctx.backend_coord(&at);
                self.placer.take(Box2 {
                    x0: bx - r,
                    y0: by - r,
                    x1: bx + r,
                    y1: by + r,
                });
                row.push(Some(((bx, by), clipped)));
            }
            placed.push(row);
        }
        placed
    }

    /// Draws the roofs, measured ones solid and theoretical ones dashed; returns each roof's
    /// line in backend pixels.
    fn roofs(&mut self) -> Result<Vec<Vec<(i32, i32)>>, ChartError> {
        let mut roof_lines = Vec::new();
        for (i, roof) in self.chart.roofs.iter().enumerate() {
            let line = roof_line(roof, self.x, self.y);
            let style = ShapeStyle::from(&roof_color(roof, i))
                .stroke_width(self.px(if roof.measured { 2.0 } else { 1.0 }));
            if roof.measured {
                self.ctx
                    .draw_series(LineSeries::new(line.clone(), style))
                    .map_err(ChartError::from_draw)?;
            } else {
                let dash = self.pxi(6.0);
                self.ctx
                    .draw_series(dashed(&line, &self.ctx, style, dash))
                    .map_err(ChartError::from_draw)?;
            }
            roof_lines.push(line.iter().map(|p| self.ctx.backend_coord(p)).collect());
        }
        Ok(roof_lines)
    }

    /// Roof labels: above their line, from its right end leftwards, where they cover no
    /// point, no other label and no roof line.
    fn roof_labels(&mut self, roof_lines: &[Vec<(i32, i32)>]) -> Result<(), ChartError> {
        for (i, (roof, line)) in self.chart.roofs.iter().zip(roof_lines).enumerate() {
            if line.len() < 2 {
                continue;
            }
            let (w, h) = self.text_box(&roof.label, 11.0)?;
            let gap = self.pxi(3.0);
            let mut spots = Vec::new();
            for k in 0..=24 {
                let t = 1.0 - f64::from(k) / 24.0 * 0.85;
                let at = ((line.len() - 1) as f64 * t).round() as usize;
                let (lx, ly) = line[at.min(line.len() - 1)];
                // Right edge on the line's point, bottom just above the line: a roof rises
                // or stays flat to the right, so the line passes under the box.
                spots.push((lx.min(self.area.x1) - w, ly - gap - h));
                spots.push((lx.min(self.area.x1) - w, ly - gap - 2 * h));
            }
            // Then under the line, where kernels crowd above it (GPT-2's and BERT's tensor
            // BF16 roof, the one their GEMMs are judged by, had no spot above).
            for k in 0..=24 {
                let t = 1.0 - f64::from(k) / 24.0 * 0.85;
                let at = ((line.len() - 1) as f64 * t).round() as usize;
                let (lx, ly) = line[at.min(line.len() - 1)];
                spots.push((lx.min(self.area.x1) - w, ly + gap));
            }
            let free = spots
                .into_iter()
                .map(|(x, y)| Box2::at(x, y, w, h))
                .find(|b| self.placer.free(b) && !crosses(b, roof_lines));
            if let Some(b) = free {
                self.placer.take(b);
                let label = LabelBox {
                    text: roof.label.clone(),
                    of: LabelOf::Roof(i),
                    rect: b,
                };
                self.labels.push((label, roof_color(roof, i), 11.0));
            }
        }
        Ok(())
    }

    /// Before/after links, under the points: a dashed line from the first series' main
    /// point to the second's, with an arrow head.
    fn links(&mut self) -> Result<(), ChartError> {
        let chart = self.chart;
        for link in &chart.links {
            let (Some(a), Some(b)) = (chart.series.get(link.from), chart.series.get(link.to))
            else {
                continue;
            };
            let (Some(pa), Some(pb)) = (main_point(a), main_point(b)) else {
                continue;
            };
            let style = ShapeStyle::from(&RGBColor(60, 60, 60)).stroke_width(self.px(1.5));
            let (fa, _) = clamp_to(pa, self.x, self.y);
            let (fb, _) = clamp_to(pb, self.x, self.y);
            let dash = self.pxi(4.0);
            self.ctx
                .draw_series(dashed(&[fa, fb], &self.ctx, style, dash))
                .map_err(ChartError::from_draw)?;
            let from = self.ctx.backend_coord(&fa);
            let to = self.ctx.backend_coord(&fb);
            if let Some(head) = arrow_head(from, to, f64::from(self.pxi(9.0))) {
                self.ctx
                    .draw_series(std::iter::once(
                        EmptyElement::at(fb) + PathElement::new(head.to_vec(), style),
                    ))
                    .map_err(ChartError::from_draw)?;
            }
        }
        Ok(())
    }

    /// Each series' points joined by a line, then its markers (with an arrow out for a
    /// clipped point and a red ring for one above its roof); returns where each landed.
    fn points(&mut self, placed: &Placed) -> Result<Vec<HitPoint>, ChartError> {
        let chart = self.chart;
        let mut hits = Vec::new();
        for ((si, series), row) in chart.series.iter().enumerate().zip(placed) {
            let color = palette(series.color);
            let at: Vec<(i32, i32)> = row.iter().flatten().map(|(p, _)| *p).collect();
            let width = if series.selected { 2.5 } else { 1.2 };
            if at.len() > 1 {
                self.draw(&PathElement::new(
                    at,
                    ShapeStyle::from(&color.mix(0.8)).stroke_width(self.px(width)),
                ))?;
            }
            let r = self.pxi(if series.selected { 6.0 } else { 4.0 });
            for (pi, p) in series.points.iter().enumerate() {
                let Some((at, clipped)) = row.get(pi).copied().flatten() else {
                    continue;
                };
                hits.push(HitPoint {
                    series: si,
                    point: pi,
                    x: at.0,
                    y: at.1,
                });
                let elem = marker(p.level, series.run, at, r, &color, self.px(1.5));
                self.draw(&elem)?;
                if clipped {
                    self.clip_arrow(p, at, r)?;
                }
                if p.above_roof {
                    self.above_roof_mark(at, r)?;
                }
            }
        }
        Ok(hits)
    }

    /// An arrow beyond the marker of radius `r` at `at`, pointing off the axes the way `p`
    /// lies beyond them.
    fn clip_arrow(&self, p: &ChartPoint, at: (i32, i32), r: i32) -> Result<(), ChartError> {
        let beyond = |v: f64, (lo, hi): (f64, f64)| {
            if v > hi {
                1
            } else if v < lo {
                -1
            } else {
                0
            }
        };
        let out_x = beyond(p.flop_per_byte, self.x);
        // Up the screen is down the pixel rows.
        let out_y = -beyond(p.gflop_per_s, self.y);
        let (bx, by) = at;
        let reach = r + self.pxi(7.0);
        let tip = (bx + out_x * reach, by + out_y * reach);
        let Some(head) = arrow_head(at, tip, f64::from(self.pxi(6.0))) else {
            return Ok(());
        };
        let wings: Vec<(i32, i32)> = head
            .iter()
            .map(|(dx, dy)| (tip.0 + dx, tip.1 + dy))
            .collect();
        let style = ShapeStyle::from(&RGBColor(30, 30, 30)).stroke_width(self.px(1.5));
        self.draw(&PathElement::new(vec![at, tip], style))?;
        self.draw(&PathElement::new(wings, style))
    }

    /// A red ring around the marker of radius `r` at `at`, and a "!" beside it where there
    /// is room.
    fn above_roof_mark(&mut self, at: (i32, i32), r: i32) -> Result<(), ChartError> {
        self.draw(&Circle::new(
            at,
            r + self.pxi(4.0),
            ShapeStyle::from(&RED).stroke_width(self.px(2.0)),
        ))?;
        let (bx, by) = at;
        let mark = Box2::at(
            bx + r + self.pxi(5.0),
            by - r - self.pxi(10.0),
            self.pxi(6.0),
            self.pxi(13.0),
        );
        if !self.placer.free(&mark) {
            return Ok(());
        }
        self.placer.take(mark);
        self.draw(&Text::new(
            "!".to_string(),
            (mark.x0, mark.y0),
            self.font(13.0).color(&RED),
        ))
    }

    /// Kernel labels: the labelled series (the page picks the largest shares) and the
    /// selected ones, near their main point, where they cover nothing else (and, where
    /// there is room, cross no roof and no kernel's line).
    fn kernel_labels(
        &mut self,
        placed: &Placed,
        roof_lines: &[Vec<(i32, i32)>],
    ) -> Result<(), ChartError> {
        let mut lines: Vec<Vec<(i32, i32)>> = roof_lines.to_vec();
        lines.extend(
            placed
                .iter()
                .map(|row| row.iter().flatten().map(|(p, _)| *p).collect::<Vec<_>>())
                .filter(|l| l.len() > 1),
        );
        let chart = self.chart;
        let series = &chart.series;
        let mut order: Vec<usize> = (0..series.len())
            .filter(|&i| series[i].labelled || series[i].selected)
            .collect();
        crate::order::sort_by_key(&mut order, |&i| (series[i].rank.unwrap_or(usize::MAX), i));
        // Kernel labels keep off the two axes: one on the bottom edge read as a label of
        // the x axis (GPT-2's fifth kernel at 800 px).
        let whole = self.area;
        let margin = self.pxi(AXIS_MARGIN);
        self.placer.area = Box2 {
            x0: whole.x0 + margin,
            y1: whole.y1 - margin,
            ..whole
        };
        let result = order.into_iter().try_for_each(|si| {
            let spot = main_index(&series[si]).and_then(|pi| placed[si].get(pi).copied());
            match spot {
                Some(Some((at, _))) => self.kernel_label(si, at, &lines),
                _ => Ok(()),
            }
        });
        self.placer.area = whole;
        result
    }

    /// The label of series `si`, whose main point is at `at`, placed clear of `lines`; with
    /// a leader line when it had to move away from its point.
    fn kernel_label(
        &mut self,
        si: usize,
        at: (i32, i32),
        lines: &[Vec<(i32, i32)>],
    ) -> Result<(), ChartError> {
        let chart = self.chart;
        let series = &chart.series[si];
        let text = chart_label(series);
        let size = 12.0;
        let (w, h) = self.text_box(&text, size)?;
        let gap = self.pxi(if series.selected { 8.0 } else { 6.0 });
        let (bx, by) = at;
        let Some(b) = self.placer.near_clear(bx, by, gap, w, h, lines) else {
            return Ok(());
        };
        let (nx, ny) = b.nearest(bx, by);
        if (f64::from(nx - bx)).hypot(f64::from(ny - by)) > f64::from(gap + self.pxi(4.0)) {
            self.draw(&PathElement::new(
                vec![at, (nx, ny)],
                ShapeStyle::from(&palette(series.color)).stroke_width(self.px(1.0)),
            ))?;
        }
        let label = LabelBox {
            text,
            of: LabelOf::Series(si),
            rect: b,
        };
        self.labels.push((label, RGBColor(20, 20, 20), size));
        Ok(())
    }

    /// The labels last, each on a white ground: no line or point strikes through one. A
    /// kernel's label has a bar of its colour on the left.
    fn draw_labels(&self) -> Result<(), ChartError> {
        for (label, color, size) in &self.labels {
            let b = label.rect;
            self.draw(&Rectangle::new(
                [(b.x0, b.y0), (b.x1, b.y1)],
                ShapeStyle::from(&WHITE.mix(0.92)).filled(),
            ))?;
            let inset = if let LabelOf::Series(si) = label.of {
                let c = palette(self.chart.series[si].color);
                self.draw(&Rectangle::new(
                    [(b.x0, b.y0), (b.x0 + self.pxi(3.0), b.y1)],
                    ShapeStyle::from(&c).filled(),
                ))?;
                self.pxi(5.0)
            } else {
                self.pxi(2.0)
            };
            self.draw(&Text::new(
                label.text.clone(),
                (b.x0 + inset, b.y0 + self.pxi(2.0)),
                self.font(*size).color(color),
            ))?;
        }
        Ok(())
    }

    /// The key of point shapes, in the corner reserved for it.
    fn key(&self) -> Result<(), ChartError> {
        match self.key {
            Some(b) => draw_key(self.root, self.chart, (b.x0, b.y0), self.scale),
            None => Ok(()),
        }
    }
}

/// The log-log axes over `x` x `y` with their grid, ticks and names, and the chart's title.
fn axes<'a, DB: DrawingBackend>(
    root: &'a DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    scale: f64,
    (x0, x1): (f64, f64),
    (y0, y1): (f64, f64),
) -> Result<LogLog<'a, DB>, ChartError> {
    let px = |v: f64| px(scale, v);
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
    Ok(ctx)
}

/// The roof's line over the intensity range `x`, in data coordinates, within the
/// performance range `y`: the range sampled in log steps, with the ridge added so the knee
/// is drawn exactly.
fn roof_line(roof: &Roof, (x0, x1): (f64, f64), (y0, y1): (f64, f64)) -> Vec<(f64, f64)> {
    let mut xs: Vec<f64> = (0..=64)
        .map(|k| x0 * (x1 / x0).powf(f64::from(k) / 64.0))
        .collect();
    if let Some(r) = roof.ridge_flop_per_byte().filter(|r| *r > x0 && *r < x1) {
        xs.push(r);
        crate::order::sort_floats(&mut xs);
    }
    xs.iter()
        .filter_map(|&x| roof.attainable(x).map(|y| (x, y)))
        .filter(|&(_, y)| y >= y0 && y <= y1)
        .collect()
}

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
    let layer = Highlight {
        root,
        chart,
        grid,
        labels,
        scale,
    };
    let hovered = hover.map(|h| h.series).filter(|s| !series.contains(s));
    for (si, emphasis) in series
        .iter()
        .map(|s| (*s, true))
        .chain(hovered.map(|s| (s, false)))
    {
        layer.series(si, emphasis)?;
    }
    if let Some(h) = hover {
        root.draw(&Circle::new(
            (h.x, h.y),
            pxi(scale, 10.0),
            ShapeStyle::from(&RGBColor(20, 20, 20)).stroke_width(px(scale, 2.0)),
        ))
        .map_err(ChartError::from_draw)?;
    }
    root.present().map_err(ChartError::from_draw)?;
    Ok(())
}

/// What [`draw_highlight`]'s steps share.
struct Highlight<'a, DB: DrawingBackend> {
    root: &'a DrawingArea<DB, Shift>,
    chart: &'a RooflineChart,
    /// Where the chart under this layer drew its points.
    grid: &'a HitGrid,
    /// Where the chart under this layer put its labels.
    labels: &'a [LabelBox],
    scale: f64,
}

impl<DB: DrawingBackend> Highlight<'_, DB> {
    /// Series `si` drawn over the chart: its line, and, with `emphasis` (selected, not only
    /// hovered), its markers larger and its label.
    fn series(&self, si: usize, emphasis: bool) -> Result<(), ChartError> {
        let Some(s) = self.chart.series.get(si) else {
            return Ok(());
        };
        let hits = self.grid.series_hits(si);
        let color = palette(s.color);
        let line: Vec<(i32, i32)> = hits.iter().map(|h| (h.x, h.y)).collect();
        if line.len() > 1 {
            let width = if emphasis { 2.5 } else { 2.0 };
            self.root
                .draw(&PathElement::new(
                    line,
                    ShapeStyle::from(&color).stroke_width(px(self.scale, width)),
                ))
                .map_err(ChartError::from_draw)?;
        }
        if !emphasis {
            return Ok(());
        }
        for h in hits {
            let Some(p) = s.points.get(h.point) else {
                continue;
            };
            let r = pxi(self.scale, 6.0);
            let elem = marker(p.level, s.run, (h.x, h.y), r, &color, px(self.scale, 2.0));
            self.root.draw(&elem).map_err(ChartError::from_draw)?;
        }
        let at = main_index(s).and_then(|i| hits.iter().find(|h| h.point == i));
        match at {
            Some(h) => self.label(si, s, (h.x, h.y)),
            None => Ok(()),
        }
    }

    /// The label of series `si` (`s`) on a white ground with a border of its colour: where
    /// the chart put it, else at a free spot near its main point `at`.
    fn label(&self, si: usize, s: &KernelSeries, at: (i32, i32)) -> Result<(), ChartError> {
        let pxi = |v: f64| pxi(self.scale, v);
        let color = palette(s.color);
        let style = ("sans-serif", px(self.scale, 12.0))
            .into_font()
            .color(&RGBColor(20, 20, 20));
        let text = chart_label(s);
        let drawn = self
            .labels
            .iter()
            .find(|l| l.of == LabelOf::Series(si))
            .map(|l| l.rect);
        let rect = match drawn {
            Some(r) => Some(r),
            None => {
                let (w, h) = self
                    .root
                    .estimate_text_size(&text, &style)
                    .map_err(ChartError::from_draw)?;
                self.free_spot(at, w as i32 + pxi(9.0), h as i32 + pxi(4.0))
            }
        };
        let Some(b) = rect else {
            return Ok(());
        };
        let stroke = px(self.scale, 1.0);
        let shapes = [
            Rectangle::new(
                [(b.x0, b.y0), (b.x1, b.y1)],
                ShapeStyle::from(&WHITE).filled(),
            ),
            Rectangle::new(
                [(b.x0, b.y0), (b.x0 + pxi(3.0), b.y1)],
                ShapeStyle::from(&color).filled(),
            ),
            Rectangle::new(
                [(b.x0, b.y0), (b.x1, b.y1)],
                ShapeStyle::from(&color).stroke_width(stroke),
            ),
        ];
        for shape in &shapes {
            self.root.draw(shape).map_err(ChartError::from_draw)?;
        }
        self.root
            .draw(&Text::new(text, (b.x0 + pxi(5.0), b.y0 + pxi(2.0)), style))
            .map_err(ChartError::from_draw)
    }

    /// A box of `w` x `h` near `at` that covers none of the chart's labels and points.
    fn free_spot(&self, at: (i32, i32), w: i32, h: i32) -> Option<Box2> {
        let (cw, ch) = self.root.dim_in_pixel();
        let mut placer = Placer::new(Box2::at(0, 0, cw as i32, ch as i32));
        for l in self.labels {
            placer.take(l.rect);
        }
        let r = pxi(self.scale, 6.0);
        for o in self.grid.hits() {
            placer.take(Box2::at(o.x - r, o.y - r, 2 * r, 2 * r));
        }
        placer.near(at.0, at.1, pxi(self.scale, 9.0), w, h)
    }
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
    crate::order::sort(&mut levels);
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
    let pxi = |v: f64| pxi(scale, v);
    Some(Box2 {
        x0: corner.0 - pxi(100.0),
        y0: corner.1 - pxi(8.0 + 16.0 * n),
        x1: corner.0,
        y1: corner.1,
    })
}

/// The key: each level's marker and its name, one under another from `top_left`.
fn draw_key<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &RooflineChart,
    top_left: (i32, i32),
    scale: f64,
) -> Result<(), ChartError> {
    let pxi = |v: f64| pxi(scale, v);
    let x = top_left.0 + pxi(10.0);
    let mut y = top_left.1 + pxi(10.0);
    let grey = RGBColor(70, 70, 70);
    for level in key_levels(chart) {
        let elem: DynElement<'static, DB, (i32, i32)> =
            marker(level, 0, (x, y), pxi(4.0), &grey, px(scale, 1.5));
        root.draw(&elem).map_err(ChartError::from_draw)?;
        root.draw(&Text::new(
            format!("{} bytes", level.label()),
            (x + pxi(10.0), y - pxi(6.0)),
            ("sans-serif", px(scale, 11.0)).into_font().color(&grey),
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
