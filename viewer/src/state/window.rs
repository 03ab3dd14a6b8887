//! Which rows of a long table to render: the rows in the scrolled viewport and a margin
//! either side, so a table of 10,000 kernels (or 30,000 raw metrics) keeps a few dozen rows
//! in the page however far it is scrolled. Pure arithmetic, tested here; the component that
//! uses it is `components::virtual_table`.

/// Rows rendered beyond each edge of the viewport, so a small scroll shows rows already
/// there while the next window is built.
pub const OVERSCAN_ROWS: usize = 12;

/// The rows `start..end` of a table to render, and the empty space standing in for the
/// rows before and after them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowWindow {
    /// First rendered row.
    pub start: usize,
    /// One past the last rendered row.
    pub end: usize,
    /// Height of the rows before `start`, CSS pixels.
    pub before_px: f64,
    /// Height of the rows from `end` on, CSS pixels.
    pub after_px: f64,
}

/// The window of a table of `len` rows, each `row_px` high, whose body is scrolled
/// `scroll_px` down in a viewport `viewport_px` high.
pub fn row_window(len: usize, scroll_px: f64, viewport_px: f64, row_px: f64) -> RowWindow {
    let row_px = if row_px.is_finite() && row_px >= 1.0 {
        row_px
    } else {
        1.0
    };
    let scroll = if scroll_px.is_finite() {
        scroll_px.max(0.0)
    } else {
        0.0
    };
    let viewport = if viewport_px.is_finite() {
        viewport_px.max(0.0)
    } else {
        0.0
    };
    let first = ((scroll / row_px).floor() as usize).min(len);
    let last = (((scroll + viewport) / row_px).ceil() as usize).min(len);
    let start = first.saturating_sub(OVERSCAN_ROWS);
    let end = last.saturating_add(OVERSCAN_ROWS).min(len).max(start);
    RowWindow {
        start,
        end,
        before_px: start as f64 * row_px,
        after_px: (len - end) as f64 * row_px,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_cover_the_viewport_with_a_margin() {
        // (len, scroll, viewport, row) -> (start, end)
        let cases = [
            ((0, 0.0, 800.0, 25.0), (0, 0)),
            ((20, 0.0, 800.0, 25.0), (0, 20)),
            ((10_000, 0.0, 800.0, 25.0), (0, 32 + OVERSCAN_ROWS)),
            (
                (10_000, 25_000.0, 800.0, 25.0),
                (1_000 - OVERSCAN_ROWS, 1_032 + OVERSCAN_ROWS),
            ),
            ((10_000, 1e9, 800.0, 25.0), (10_000 - OVERSCAN_ROWS, 10_000)),
            ((10_000, -50.0, 800.0, 25.0), (0, 32 + OVERSCAN_ROWS)),
            ((10_000, f64::NAN, f64::NAN, 0.0), (0, OVERSCAN_ROWS)),
        ];
        for ((len, scroll, viewport, row), (start, end)) in cases {
            let w = row_window(len, scroll, viewport, row);
            assert_eq!((w.start, w.end), (start, end), "{len} {scroll} {viewport}");
        }
    }

    #[test]
    fn the_spacers_and_rows_add_up_to_the_whole_table() {
        for scroll in [0.0, 13.0, 4_000.0, 249_000.0, 250_000.0] {
            let w = row_window(10_000, scroll, 700.0, 25.0);
            let rows = (w.end - w.start) as f64 * 25.0;
            assert_eq!(w.before_px + rows + w.after_px, 250_000.0);
            // The viewport's rows are rendered.
            let first_seen = (scroll / 25.0).floor() as usize;
            assert!(w.start <= first_seen.min(9_999) && w.end > first_seen.min(9_999));
        }
    }
}
