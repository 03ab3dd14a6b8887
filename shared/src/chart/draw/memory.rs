//! Drawing the memory chart ([`crate::chart::MemoryChart`]) onto any plotters backend: the
//! boxes, the arrows between them and the labels [`crate::chart::memory::memory_labels`]
//! writes.

use plotters::coord::Shift;
use plotters::prelude::*;

use crate::chart::memory::{memory_labels, MemoryChart};
use crate::chart::ChartError;

/// Draws the memory chart onto `root`, sizes multiplied by `scale`.
#[expect(
    clippy::too_many_lines,
    reason = "draws the boxes, the arrows and their labels in one coordinate frame; split, each piece would take the frame, the scale and the labels"
)]
pub fn draw_memory<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &MemoryChart,
    scale: f64,
) -> Result<(), ChartError> {
    root.fill(&WHITE).map_err(ChartError::from_draw)?;
    let (w, h) = root.dim_in_pixel();
    let (w, h) = (f64::from(w), f64::from(h));
    let s = |v: f64| (v * scale).round() as i32;
    let font = |size: f64| ("sans-serif", (size * scale).round().max(1.0) as u32).into_font();
    let ink = RGBColor(30, 30, 30);
    if !chart.title.is_empty() {
        root.draw(&Text::new(
            chart.title.clone(),
            (s(10.0), s(8.0)),
            font(15.0).color(&ink),
        ))
        .map_err(ChartError::from_draw)?;
    }
    // Four columns (kernel, L1/TEX, L2, DRAM); shared memory sits under L1/TEX.
    let box_w = w * 0.14;
    let box_h = h * 0.22;
    let top = h * 0.22;
    let col = |i: f64| w * 0.04 + i * (w * 0.92 - box_w) / 3.0;
    let boxes = [
        (
            "kernel-box",
            chart.flows.kernel_label.as_str(),
            col(0.0),
            top,
            RGBColor(225, 236, 250),
        ),
        ("l1-box", "L1/TEX", col(1.0), top, RGBColor(236, 228, 246)),
        ("l2-box", "L2", col(2.0), top, RGBColor(225, 243, 236)),
        ("dram-box", "DRAM", col(3.0), top, RGBColor(246, 236, 222)),
        (
            "shared-box",
            "shared",
            col(1.0),
            top + box_h * 2.0,
            RGBColor(240, 240, 240),
        ),
    ];
    let labels = memory_labels(chart);
    let label_of = |key: &str| -> Vec<String> {
        labels
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    for (key, name, x, y, fill) in &boxes {
        let (x, y) = (*x as i32, *y as i32);
        let (bw, bh) = (box_w as i32, box_h as i32);
        root.draw(&Rectangle::new([(x, y), (x + bw, y + bh)], fill.filled()))
            .map_err(ChartError::from_draw)?;
        root.draw(&Rectangle::new(
            [(x, y), (x + bw, y + bh)],
            ShapeStyle::from(&RGBColor(120, 120, 120)).stroke_width(s(1.0).max(1) as u32),
        ))
        .map_err(ChartError::from_draw)?;
        let name: String = if name.chars().count() > 18 {
            let mut t: String = name.chars().take(17).collect();
            t.push('…');
            t
        } else {
            (*name).to_string()
        };
        root.draw(&Text::new(
            name,
            (x + s(6.0), y + s(6.0)),
            font(13.0).color(&ink),
        ))
        .map_err(ChartError::from_draw)?;
        for (i, line) in label_of(key).iter().enumerate() {
            root.draw(&Text::new(
                line.clone(),
                (x + s(6.0), y + s(26.0) + s(14.0) * i as i32),
                font(11.0).color(&RGBColor(60, 60, 60)),
            ))
            .map_err(ChartError::from_draw)?;
        }
    }
    let mid = (top + box_h / 2.0) as i32;
    let arrows = [
        ("kernel-l1", col(0.0) + box_w, mid, col(1.0), mid),
        ("l1-l2", col(1.0) + box_w, mid, col(2.0), mid),
        ("l2-dram", col(2.0) + box_w, mid, col(3.0), mid),
    ];
    for (key, x0, y0, x1, y1) in arrows {
        draw_arrow(root, (x0 as i32, y0), (x1 as i32, y1), scale)?;
        for (i, line) in label_of(key).iter().enumerate() {
            root.draw(&Text::new(
                line.clone(),
                (x0 as i32 + s(4.0), y0 + s(8.0) + s(13.0) * i as i32),
                font(11.0).color(&ink),
            ))
            .map_err(ChartError::from_draw)?;
        }
    }
    // Kernel to shared: down from the kernel box, then right into the shared box.
    let kx = (col(0.0) + box_w / 2.0) as i32;
    let ky = (top + box_h) as i32;
    let sy = (top + box_h * 2.5) as i32;
    let sx = col(1.0) as i32;
    let style = ShapeStyle::from(&RGBColor(90, 90, 90)).stroke_width(s(2.0).max(1) as u32);
    root.draw(&PathElement::new(vec![(kx, ky), (kx, sy)], style))
        .map_err(ChartError::from_draw)?;
    draw_arrow(root, (kx, sy), (sx, sy), scale)?;
    for (i, line) in label_of("kernel-shared").iter().enumerate() {
        root.draw(&Text::new(
            line.clone(),
            (kx + s(6.0), sy + s(6.0) + s(13.0) * i as i32),
            font(11.0).color(&ink),
        ))
        .map_err(ChartError::from_draw)?;
    }
    if !chart.flows.has_any() && chart.compare.as_ref().is_none_or(|c| !c.has_any()) {
        root.draw(&Text::new(
            "no memory counters in this data".to_string(),
            (s(10.0), (h * 0.85) as i32),
            font(13.0).color(&RGBColor(150, 40, 40)),
        ))
        .map_err(ChartError::from_draw)?;
    }
    root.present().map_err(ChartError::from_draw)?;
    Ok(())
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
}
