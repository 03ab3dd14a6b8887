//! The drawing's palette: ten colours that stay distinct for colour-blind readers, indexed
//! as [`crate::chart::kernel_colors`] gives them out; every chart draws with it.

use plotters::prelude::RGBColor;

use crate::chart::colors::PALETTE_LEN;

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
    COLORS[index % COLORS.len()]
}

/// Colour `index` of [`palette`] as CSS (`rgb(0, 114, 178)`), for the page's keys.
pub fn palette_css(index: usize) -> String {
    let RGBColor(r, g, b) = palette(index);
    format!("rgb({r}, {g}, {b})")
}
