//! The drawing's palette: ten colours that stay distinct for colour-blind readers, indexed
//! as [`crate::chart::kernel_colors`] gives them out; every chart draws with it.

use plotters::prelude::RGBColor;

use crate::chart::colors::PALETTE_LEN;

/// Series colour `index` of a ten-colour palette that stays distinct for colour-blind
/// readers (Okabe-Ito, extended), each at 3:1 or more against the charts' white (WCAG 2.1's
/// contrast for graphics, [`contrast`]): Okabe-Ito's orange (#E69F00, 2.25:1) and sky blue
/// (#56B4E9, 2.31:1) are darkened to #B07800 and #0087AA (issue 53).
pub fn palette(index: usize) -> RGBColor {
    const COLORS: [RGBColor; PALETTE_LEN] = [
        RGBColor(0, 114, 178),
        RGBColor(213, 94, 0),
        RGBColor(0, 158, 115),
        RGBColor(204, 121, 167),
        RGBColor(176, 120, 0),
        RGBColor(0, 135, 170),
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

/// The WCAG 2.1 contrast ratio of two sRGB colours, 1 to 21: (L1 + 0.05) / (L2 + 0.05) of
/// their relative luminances, the lighter over the darker. Text needs 4.5:1 against its
/// background, graphics (a chart's lines and points) 3:1.
pub fn contrast(a: (u8, u8, u8), b: (u8, u8, u8)) -> f64 {
    fn luminance((r, g, b): (u8, u8, u8)) -> f64 {
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.040_45 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
    }
    let (la, lb) = (luminance(a), luminance(b));
    (la.max(lb) + 0.05) / (la.min(lb) + 0.05)
}

#[cfg(test)]
mod tests {
    use super::{contrast, palette, PALETTE_LEN};

    /// Every colour of the palette against the charts' white, at 3:1 or more, and against
    /// every other of the palette distinct as a colour (no two the same).
    #[test]
    fn every_palette_colour_holds_3_to_1_on_white() {
        let white = (255, 255, 255);
        for i in 0..PALETTE_LEN {
            let c = palette(i);
            let ratio = contrast((c.0, c.1, c.2), white);
            assert!(ratio >= 3.0, "colour {i} {c:?}: {ratio:.2}:1 on white");
            for j in 0..i {
                assert_ne!(palette(j), c, "colours {j} and {i}");
            }
        }
        // The formula's known points: black on white 21:1, a colour on itself 1:1.
        assert!((contrast((0, 0, 0), white) - 21.0).abs() < 1e-9);
        assert!((contrast((86, 180, 233), (86, 180, 233)) - 1.0).abs() < 1e-12);
        // The two colours the review measured (issue 53): 2.31:1 and 2.25:1.
        assert!((contrast((86, 180, 233), white) - 2.31).abs() < 0.01);
        assert!((contrast((230, 159, 0), white) - 2.25).abs() < 0.01);
    }
}
