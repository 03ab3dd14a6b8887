//! Drawing the memory chart ([`crate::chart::MemoryChart`]) onto any plotters backend: the
//! boxes, the arrows between them and the labels [`crate::chart::memory::memory_labels`]
//! writes.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::chart::memory::{memory_labels, MemoryChart};
use crate::error::ChartError;

/// Draws the memory chart onto `root`, sizes multiplied by `scale`.
pub fn draw_memory<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &MemoryChart,
    scale: f64,
) -> Result<(), ChartError> {
    root.fill(&WHITE).map_err(ChartError::from_draw)?;
    let painter = MemoryPainter::new(root, chart, scale);
    painter.title()?;
    painter.boxes()?;
    painter.arrows()?;
    painter.shared_arrow()?;
    painter.no_counters()?;
    root.present().map_err(ChartError::from_draw)?;
    Ok(())
}

/// The ink of names and labels.
const INK: RGBColor = RGBColor(30, 30, 30);

/// What the steps of [`draw_memory`] share: the frame of four columns (kernel, L1/TEX, L2,
/// DRAM; shared memory under L1/TEX) and the labels.
struct MemoryPainter<'a, DB: DrawingBackend> {
    root: &'a DrawingArea<DB, Shift>,
    chart: &'a MemoryChart,
    scale: f64,
    /// The drawing's width and height in backend pixels.
    w: f64,
    h: f64,
    /// A box's width and height, and the top of the first row of boxes.
    box_w: f64,
    box_h: f64,
    top: f64,
    /// Each box's and arrow's lines, by key.
    labels: Vec<(&'static str, Vec<String>)>,
}

impl<'a, DB: DrawingBackend> MemoryPainter<'a, DB> {
    fn new(root: &'a DrawingArea<DB, Shift>, chart: &'a MemoryChart, scale: f64) -> Self {
        let (w, h) = root.dim_in_pixel();
        let (w, h) = (f64::from(w), f64::from(h));
        MemoryPainter {
            root,
            chart,
            scale,
            w,
            h,
            box_w: w * 0.14,
            box_h: h * 0.22,
            top: h * 0.22,
            labels: memory_labels(chart),
        }
    }

    /// `v` CSS pixels in backend pixels.
    fn s(&self, v: f64) -> i32 {
        (v * self.scale).round() as i32
    }

    fn font(&self, size: f64) -> FontDesc<'static> {
        ("sans-serif", (size * self.scale).round().max(1.0) as u32).into_font()
    }

    /// The left edge of column `i`.
    fn col(&self, i: f64) -> f64 {
        self.w * 0.04 + i * (self.w * 0.92 - self.box_w) / 3.0
    }

    /// The lines of the box or arrow `key`.
    fn label_of(&self, key: &str) -> Vec<String> {
        self.labels
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    }

    fn text(
        &self,
        text: String,
        at: (i32, i32),
        size: f64,
        color: &RGBColor,
    ) -> Result<(), ChartError> {
        self.root
            .draw(&Text::new(text, at, self.font(size).color(color)))
            .map_err(ChartError::from_draw)
    }

    /// The lines of `key` from `at` down, `step` CSS pixels apart, each within `max_w`
    /// backend pixels and above `max_y` so that no text runs into a box, an arrow or another
    /// label: a line too wide wraps at its spaces (the next part indented), a word still
    /// too wide is drawn smaller, down to 9 CSS pixels, and rows past `max_y` are left out,
    /// the last drawn ending in `…`.
    fn lines(
        &self,
        key: &str,
        at: (i32, i32),
        step: f64,
        (max_w, max_y): (f64, i32),
        color: &RGBColor,
    ) -> Result<(), ChartError> {
        let mut parts = Vec::new();
        for line in self.label_of(key) {
            parts.extend(self.wrap(&line, max_w)?);
        }
        // The rows that end above `max_y`; the last of them marked when some are left out
        // (the list under the chart has every line whole).
        let fit = (0..parts.len())
            .take_while(|&i| at.1 + self.s(step) * (i as i32 + 1) <= max_y)
            .count();
        if fit < parts.len() {
            parts.truncate(fit);
            if let Some(last) = parts.last_mut() {
                last.push_str(" …");
            }
        }
        for (row, part) in parts.into_iter().enumerate() {
            let mut size = 11.0;
            while size > 9.0 && self.width(&part, size)? > max_w {
                size -= 0.5;
            }
            let at = (at.0, at.1 + self.s(step) * row as i32);
            self.text(part, at, size, color)?;
        }
        Ok(())
    }

    /// `line` cut at its spaces into parts of at most `max_w` backend pixels at 11 CSS
    /// pixels (a word wider than that is a part of its own); parts after the first are
    /// indented.
    fn wrap(&self, line: &str, max_w: f64) -> Result<Vec<String>, ChartError> {
        let mut parts: Vec<String> = Vec::new();
        let mut current = String::new();
        for word in line.split(' ').filter(|w| !w.is_empty()) {
            let joined = if current.is_empty() {
                let indent = if parts.is_empty() { "" } else { "  " };
                format!("{indent}{word}")
            } else {
                format!("{current} {word}")
            };
            if current.is_empty() || self.width(&joined, 11.0)? <= max_w {
                current = joined;
            } else {
                parts.push(std::mem::replace(&mut current, format!("  {word}")));
            }
        }
        if !current.is_empty() {
            parts.push(current);
        }
        Ok(parts)
    }

    /// The width `text` takes at `size` CSS pixels, in backend pixels.
    fn width(&self, text: &str, size: f64) -> Result<f64, ChartError> {
        let (w, _) = self
            .root
            .estimate_text_size(text, &self.font(size).into_text_style(self.root))
            .map_err(ChartError::from_draw)?;
        Ok(f64::from(w))
    }

    /// The room between two columns of boxes, less some air, in backend pixels.
    fn gap(&self) -> f64 {
        self.col(1.0) - self.col(0.0) - self.box_w - f64::from(self.s(8.0))
    }

    fn title(&self) -> Result<(), ChartError> {
        if self.chart.title.is_empty() {
            return Ok(());
        }
        self.text(
            self.chart.title.clone(),
            (self.s(10.0), self.s(8.0)),
            15.0,
            &INK,
        )
    }

    /// The boxes, each with its name and its lines.
    fn boxes(&self) -> Result<(), ChartError> {
        let (top, box_h) = (self.top, self.box_h);
        let boxes = [
            (
                "kernel-box",
                self.chart.flows.kernel_label.as_str(),
                self.col(0.0),
                top,
                RGBColor(225, 236, 250),
            ),
            (
                "l1-box",
                "L1/TEX",
                self.col(1.0),
                top,
                RGBColor(236, 228, 246),
            ),
            ("l2-box", "L2", self.col(2.0), top, RGBColor(225, 243, 236)),
            (
                "dram-box",
                "DRAM",
                self.col(3.0),
                top,
                RGBColor(246, 236, 222),
            ),
            (
                "shared-box",
                "shared",
                self.col(1.0),
                top + box_h * 2.0,
                RGBColor(240, 240, 240),
            ),
        ];
        for (key, name, x, y, fill) in &boxes {
            self.one_box(key, name, (*x as i32, *y as i32), fill)?;
        }
        Ok(())
    }

    /// The box `key` at `(x, y)`, filled with `fill`: its name (cut to 18 characters) and
    /// its lines.
    fn one_box(
        &self,
        key: &str,
        name: &str,
        (x, y): (i32, i32),
        fill: &RGBColor,
    ) -> Result<(), ChartError> {
        let (bw, bh) = (self.box_w as i32, self.box_h as i32);
        self.root
            .draw(&Rectangle::new([(x, y), (x + bw, y + bh)], fill.filled()))
            .map_err(ChartError::from_draw)?;
        self.root
            .draw(&Rectangle::new(
                [(x, y), (x + bw, y + bh)],
                ShapeStyle::from(&RGBColor(120, 120, 120)).stroke_width(self.s(1.0).max(1) as u32),
            ))
            .map_err(ChartError::from_draw)?;
        let name: String = if name.chars().count() > 18 {
            let mut t: String = name.chars().take(17).collect();
            t.push('…');
            t
        } else {
            name.to_string()
        };
        self.text(name, (x + self.s(6.0), y + self.s(6.0)), 13.0, &INK)?;
        self.lines(
            key,
            (x + self.s(6.0), y + self.s(26.0)),
            14.0,
            (self.box_w - f64::from(self.s(10.0)), y + self.box_h as i32),
            &RGBColor(60, 60, 60),
        )
    }

    /// The arrows along the top row, kernel to DRAM, each with its lines under it.
    fn arrows(&self) -> Result<(), ChartError> {
        let mid = (self.top + self.box_h / 2.0) as i32;
        let arrows = [
            ("kernel-l1", self.col(0.0) + self.box_w, self.col(1.0)),
            ("l1-l2", self.col(1.0) + self.box_w, self.col(2.0)),
            ("l2-dram", self.col(2.0) + self.box_w, self.col(3.0)),
        ];
        // The kernel → L1/TEX label ends above the arrow down to shared memory.
        let shared_y = (self.top + self.box_h * 2.5) as i32 - self.s(4.0);
        for (key, x0, x1) in arrows {
            draw_arrow(self.root, (x0 as i32, mid), (x1 as i32, mid), self.scale)?;
            let max_y = if key == "kernel-l1" {
                shared_y
            } else {
                self.h as i32
            };
            self.lines(
                key,
                (x0 as i32 + self.s(4.0), mid + self.s(8.0)),
                13.0,
                (self.gap(), max_y),
                &INK,
            )?;
        }
        Ok(())
    }

    /// Kernel to shared: down from the kernel box, then right into the shared box.
    fn shared_arrow(&self) -> Result<(), ChartError> {
        let kx = (self.col(0.0) + self.box_w / 2.0) as i32;
        let ky = (self.top + self.box_h) as i32;
        let sy = (self.top + self.box_h * 2.5) as i32;
        let sx = self.col(1.0) as i32;
        let style = ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(self.s(2.0).max(1) as u32);
        self.root
            .draw(&PathElement::new(vec![(kx, ky), (kx, sy)], style))
            .map_err(ChartError::from_draw)?;
        draw_arrow(self.root, (kx, sy), (sx, sy), self.scale)?;
        // Under the kernel box, left of the column the kernel → L1/TEX label runs down.
        let right = self.col(0.0) + self.box_w;
        self.lines(
            "kernel-shared",
            (kx + self.s(6.0), sy + self.s(6.0)),
            13.0,
            (right - f64::from(kx + self.s(10.0)), self.h as i32),
            &INK,
        )
    }

    /// A line saying so when neither side of the chart has a byte or request counter (the
    /// links may still carry their units' throughput, % of peak): in the lower row, right
    /// of the shared-memory box, where nothing else is drawn (at the left it ran into the
    /// shared box and its arrow).
    fn no_counters(&self) -> Result<(), ChartError> {
        let chart = self.chart;
        if chart.flows.has_any() || chart.compare.as_ref().is_some_and(|c| c.has_any()) {
            return Ok(());
        }
        self.text(
            "no byte or request counters in this data".to_string(),
            (
                self.col(2.0) as i32,
                (self.top + self.box_h * 2.0) as i32 + self.s(6.0),
            ),
            13.0,
            &RGBColor(150, 40, 40),
        )
    }
}

fn draw_arrow<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    from: (i32, i32),
    to: (i32, i32),
    scale: f64,
) -> Result<(), ChartError> {
    let s = |v: f64| (v * scale).round() as i32;
    let style = ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(s(2.0).max(1) as u32);
    root.draw(&PathElement::new(vec![from, to], style))
        .map_err(ChartError::from_draw)?;
    let head = vec![
        (to.0, to.1),
        (to.0 - s(9.0), to.1 - s(5.0)),
        (to.0 - s(9.0), to.1 + s(5.0)),
    ];
    root.draw(&Polygon::new(head, RGBColor(90, 90, 90).filled()))
        .map_err(ChartError::from_draw)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use crate::chart::memory::tests::{naive, tiled};
    use crate::chart::MemoryChart;

    #[test]
    fn draws_to_svg_with_the_numbers() {
        let chart = MemoryChart {
            title: "matmul".into(),
            flows: naive(),
            compare: Some(tiled()),
        };
        let svg = super::super::memory_svg(&chart, 900, 360);
        let svg = svg.unwrap_or_default();
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        for needle in ["L1/TEX", "DRAM", "4.74 MB → 4.64 MB", "97.9 % → 97.0 %"] {
            assert!(svg.contains(needle), "missing {needle}");
        }
    }

    #[test]
    fn the_note_of_no_counters_keeps_clear_of_the_shared_box() {
        let chart = MemoryChart::default();
        let svg = super::super::memory_svg(&chart, 800, 340).unwrap_or_default();
        let note = "no byte or request counters in this data";
        let at = svg.find(note).expect("the note");
        let tag = &svg[svg[..at].rfind("<text").expect("its tag")..at];
        let x: f64 = tag
            .split("x=\"")
            .nth(1)
            .and_then(|t| t.split('"').next())
            .and_then(|t| t.parse().ok())
            .expect("its x");
        // The shared box is the second column (from 800 / 4 = 200 px); the note starts in
        // the third, right of it.
        assert!(
            x >= 400.0,
            "the note starts at x = {x}, over the shared box: {tag}"
        );
    }
}
