//! Drawing the stall chart ([`crate::chart::StallChart`]) onto any plotters backend: one bar
//! per warp-state reason and series, the rows [`crate::chart::stalls::stall_rows`] gives.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::palette::palette;
use crate::chart::stalls::{layout, stall_rows, StallChart, MIN_SHARE};
use crate::error::ChartError;
use crate::text::names::elide_middle;

/// Draws the stall chart onto `root`, sizes multiplied by `scale`.
pub fn draw_stalls<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    chart: &StallChart,
    scale: f64,
) -> Result<(), ChartError> {
    root.fill(&WHITE).map_err(ChartError::from_draw)?;
    let (w, h) = root.dim_in_pixel();
    let (w, h) = (f64::from(w), f64::from(h));
    let s = |v: f64| (v * scale).round() as i32;
    let font = |size: f64| ("sans-serif", (size * scale).round().max(1.0) as u32).into_font();
    let ink = RGBColor(30, 30, 30);
    let draw = |e: Text<'_, (i32, i32), String>| root.draw(&e).map_err(ChartError::from_draw);
    if !chart.title.is_empty() {
        let style = font(15.0).color(&ink);
        let title = fitted(root, &chart.title, &style, w - f64::from(s(20.0)))?;
        draw(Text::new(title, (s(10.0), s(8.0)), style))?;
    }
    let comparing = chart.compare.is_some();
    let mut top = f64::from(s(layout::TOP));
    if comparing {
        let labels = [
            chart.series.as_ref().map(|x| x.label.clone()),
            chart
                .compare
                .as_ref()
                .and_then(|c| c.as_ref().map(|x| x.label.clone())),
        ];
        for (i, label) in labels.iter().enumerate() {
            let x = s(10.0) + (w * 0.45) as i32 * i as i32;
            let y = top as i32;
            root.draw(&Rectangle::new(
                [(x, y), (x + s(12.0), y + s(12.0))],
                palette(i).filled(),
            ))
            .map_err(ChartError::from_draw)?;
            let which = if i == 0 { "before" } else { "after" };
            let text = match label {
                Some(l) => format!("{which}: {l}"),
                None => format!("{which}: no warp-state counters"),
            };
            // Each within its half, so "before" never runs into "after" (BERT's GEMMs did).
            let style = font(12.0).color(&ink);
            let text = fitted(root, &text, &style, w * 0.45 - f64::from(s(26.0)))?;
            draw(Text::new(text, (x + s(18.0), y), style))?;
        }
        top += f64::from(s(layout::LEGEND));
    }
    let rows = stall_rows(chart);
    if rows.is_empty() {
        draw(Text::new(
            "no warp-state counters in this data".to_string(),
            (s(10.0), (top + f64::from(s(10.0))) as i32),
            font(13.0).color(&RGBColor(150, 40, 40)),
        ))?;
        root.present().map_err(ChartError::from_draw)?;
        return Ok(());
    }
    let name_w = w * 0.3;
    let text_w = if comparing { w * 0.22 } else { w * 0.1 };
    let bar_x = name_w + f64::from(s(8.0));
    let bar_max = (w - bar_x - text_w).max(1.0);
    let row_h = ((h - top - f64::from(s(layout::BOTTOM))) / rows.len() as f64)
        .min(f64::from(s(layout::ROW)));
    let largest = rows
        .iter()
        .flat_map(|r| [r.before, r.after])
        .flatten()
        .fold(MIN_SHARE, f64::max);
    for (i, row) in rows.iter().enumerate() {
        let y = top + row_h * i as f64;
        draw(Text::new(
            row.name.clone(),
            (s(10.0), (y + row_h * 0.25) as i32),
            font(12.0).color(&ink),
        ))?;
        let bars: Vec<(usize, Option<f64>)> = if comparing {
            vec![(0, row.before), (1, row.after)]
        } else {
            vec![(0, row.before)]
        };
        let bar_h = row_h * 0.7 / bars.len() as f64;
        let mut end = bar_x;
        for (j, (color, v)) in bars.iter().enumerate() {
            let len = v.unwrap_or(0.0) / largest * bar_max;
            let y0 = y + row_h * 0.15 + bar_h * j as f64;
            let (x0, x1) = (bar_x as i32, (bar_x + len).max(bar_x + 1.0) as i32);
            root.draw(&Rectangle::new(
                [(x0, y0 as i32), (x1, (y0 + bar_h) as i32)],
                palette(*color).filled(),
            ))
            .map_err(ChartError::from_draw)?;
            end = end.max(bar_x + len);
        }
        draw(Text::new(
            row.text.clone(),
            ((end + f64::from(s(6.0))) as i32, (y + row_h * 0.25) as i32),
            font(11.0).color(&RGBColor(60, 60, 60)),
        ))?;
    }
    root.present().map_err(ChartError::from_draw)?;
    Ok(())
}

/// `text` cut in the middle until it is at most `room` backend pixels wide in `style` (a
/// GEMM's name ran off the chart's edge; the heading above the chart has it whole).
fn fitted<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    text: &str,
    style: &TextStyle<'_>,
    room: f64,
) -> Result<String, ChartError> {
    let mut out = text.to_owned();
    let mut chars = out.chars().count();
    while chars > 8
        && f64::from(
            root.estimate_text_size(&out, style)
                .map_err(ChartError::from_draw)?
                .0,
        ) > room
    {
        chars -= 2;
        out = elide_middle(text, chars);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::stalls::tests::series;

    #[test]
    fn draws_bars_and_names_to_svg_and_says_when_there_is_nothing() {
        let chart = StallChart {
            title: "<b>gemm</b>".into(),
            series: Some(series("a", &[("long_scoreboard", 0.6), ("wait", 0.4)])),
            compare: Some(Some(series("b", &[("wait", 1.0)]))),
        };
        let svg = super::super::stalls_svg(&chart, 700, 300).unwrap_or_default();
        assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
        for needle in [
            "long scoreboard",
            "60.0 % → n/a",
            "40.0 % → 100.0 %",
            "&lt;b&gt;",
        ] {
            assert!(svg.contains(needle), "missing {needle}");
        }
        assert!(!svg.contains("<b>"), "title injected as markup");
        // Two series colours: a bar of each.
        for i in 0..2 {
            let RGBColor(r, g, b) = palette(i);
            let fill = format!("fill=\"#{r:02X}{g:02X}{b:02X}\"");
            assert!(svg.contains(&fill), "no bar in colour {i}: {fill}");
        }
        let empty = super::super::stalls_svg(&StallChart::default(), 700, 300).unwrap_or_default();
        assert!(empty.contains("no warp-state counters in this data"));
    }

    #[test]
    fn a_title_wider_than_the_chart_is_cut_in_the_middle() {
        let title = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT: where the warps waited";
        let chart = StallChart {
            title: title.into(),
            series: Some(series("a", &[("barrier", 1.0)])),
            compare: None,
        };
        let wide = super::super::stalls_svg(&chart, 900, 100).unwrap_or_default();
        assert!(wide.contains(title), "cut at 900 px");
        let narrow = super::super::stalls_svg(&chart, 400, 100).unwrap_or_default();
        assert!(!narrow.contains(title), "whole at 400 px");
        assert!(narrow.contains("nvjet_"), "its start lost");
        assert!(narrow.contains("warps waited"), "its end lost");
        // A comparison's two names each kept within its half of the legend.
        let before = "nvjet_sm90_tst_192x128_64x5_1x2_h_bz_coopB_bias_TNT";
        let compared = StallChart {
            compare: Some(Some(series(before, &[("barrier", 1.0)]))),
            series: Some(series(before, &[("barrier", 1.0)])),
            ..chart
        };
        let svg = super::super::stalls_svg(&compared, 700, 200).unwrap_or_default();
        assert!(!svg.contains(before), "a legend name whole in 700 px");
        assert!(svg.contains("before: nvjet_"), "{svg}");
    }
}
