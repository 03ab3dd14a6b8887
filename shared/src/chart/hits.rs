//! Finding the drawn point under a pointer: a screen-space grid over the points
//! [`super::draw_roofline`] reports, so a hover or a click looks at the few points in the
//! cells around the pointer instead of every point (10,000 kernels draw 30,000 points).
//!
//! The answer is exactly [`nearest_hit`]'s, ties included (a test checks
//! the two against each other); the grid only makes it cheap.

/// Where a drawn point landed, in backend pixels, for tooltips and clicks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HitPoint {
    /// Index into [`super::RooflineChart::series`].
    pub series: usize,
    /// Index into that series' points.
    pub point: usize,
    /// Backend x, pixels.
    pub x: i32,
    /// Backend y, pixels.
    pub y: i32,
}

/// The hit nearest to backend pixel (x, y) within `radius` pixels, for tooltips and clicks.
pub fn nearest_hit(hits: &[HitPoint], x: f64, y: f64, radius: f64) -> Option<HitPoint> {
    hits.iter()
        .map(|h| (h, (f64::from(h.x) - x).hypot(f64::from(h.y) - y)))
        .filter(|(_, d)| *d <= radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(h, _)| *h)
}

/// Most cells a grid allocates; a larger plot gets coarser cells.
const MAX_CELLS: usize = 1 << 20;

/// The drawn points of a chart, bucketed by screen cell.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HitGrid {
    /// The points in drawing order (series ascending, points in series order).
    hits: Vec<HitPoint>,
    /// Indices into `hits`, grouped by cell, drawing order within a cell.
    order: Vec<u32>,
    /// `order[starts[c]..starts[c + 1]]` are the points of cell `c` (row-major).
    starts: Vec<u32>,
    /// Backend pixel of the grid's top-left corner.
    origin: (i32, i32),
    /// Side of a cell, backend pixels.
    cell_px: i32,
    /// Cells across and down.
    cols: usize,
    rows: usize,
}

impl HitGrid {
    /// Buckets `hits` into square cells of about `cell_px` backend pixels (the pick radius
    /// is a good size: a query then reads at most 3 x 3 cells).
    pub fn new(hits: Vec<HitPoint>, cell_px: f64) -> Self {
        let Some(first) = hits.first() else {
            return HitGrid::default();
        };
        let (mut x0, mut y0, mut x1, mut y1) = (first.x, first.y, first.x, first.y);
        for h in &hits {
            x0 = x0.min(h.x);
            y0 = y0.min(h.y);
            x1 = x1.max(h.x);
            y1 = y1.max(h.y);
        }
        let span_x = i64::from(x1) - i64::from(x0) + 1;
        let span_y = i64::from(y1) - i64::from(y0) + 1;
        let mut cell = if cell_px.is_finite() {
            cell_px.round().clamp(1.0, f64::from(i32::MAX)) as i64
        } else {
            1
        };
        let dims = |cell: i64| ((span_x + cell - 1) / cell, (span_y + cell - 1) / cell);
        while {
            let (c, r) = dims(cell);
            c.saturating_mul(r) > MAX_CELLS as i64
        } {
            cell *= 2;
        }
        let (cols, rows) = dims(cell);
        let (cols, rows) = (cols as usize, rows as usize);
        let cell_px = cell as i32;
        let cell_of = |h: &HitPoint| {
            let cx = ((i64::from(h.x) - i64::from(x0)) / cell) as usize;
            let cy = ((i64::from(h.y) - i64::from(y0)) / cell) as usize;
            cy * cols + cx
        };
        // Counting sort by cell: stable, so drawing order survives within a cell.
        let mut starts = vec![0u32; cols * rows + 1];
        for h in &hits {
            starts[cell_of(h) + 1] += 1;
        }
        for c in 1..starts.len() {
            starts[c] += starts[c - 1];
        }
        let mut next = starts.clone();
        let mut order = vec![0u32; hits.len()];
        for (i, h) in hits.iter().enumerate() {
            let c = cell_of(h);
            order[next[c] as usize] = i as u32;
            next[c] += 1;
        }
        HitGrid {
            hits,
            order,
            starts,
            origin: (x0, y0),
            cell_px,
            cols,
            rows,
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.hits.len()
    }

    /// No points at all.
    pub fn is_empty(&self) -> bool {
        self.hits.is_empty()
    }

    /// Every point, in drawing order.
    pub fn hits(&self) -> &[HitPoint] {
        &self.hits
    }

    /// The points of series `series`, in point order (a binary search: points are stored
    /// series by series).
    pub fn series_hits(&self, series: usize) -> &[HitPoint] {
        let from = self.hits.partition_point(|h| h.series < series);
        let to = self.hits.partition_point(|h| h.series <= series);
        self.hits.get(from..to).unwrap_or_default()
    }

    /// The point nearest to backend pixel (x, y) within `radius` pixels; among equally near
    /// points the first drawn.
    pub fn nearest(&self, x: f64, y: f64, radius: f64) -> Option<HitPoint> {
        if self.hits.is_empty() || !(x.is_finite() && y.is_finite() && radius >= 0.0) {
            return None;
        }
        let cell = f64::from(self.cell_px);
        let col = |v: f64| ((v - f64::from(self.origin.0)) / cell).floor();
        let row = |v: f64| ((v - f64::from(self.origin.1)) / cell).floor();
        let last_col = self.cols as f64 - 1.0;
        let last_row = self.rows as f64 - 1.0;
        let (c0, c1) = (col(x - radius).max(0.0), col(x + radius).min(last_col));
        let (r0, r1) = (row(y - radius).max(0.0), row(y + radius).min(last_row));
        if c0 > c1 || r0 > r1 {
            return None;
        }
        let mut best: Option<(f64, u32)> = None;
        for r in r0 as usize..=r1 as usize {
            let from = self.starts[r * self.cols + c0 as usize] as usize;
            let to = self.starts[r * self.cols + c1 as usize + 1] as usize;
            for &i in &self.order[from..to] {
                let h = &self.hits[i as usize];
                let d = (f64::from(h.x) - x).hypot(f64::from(h.y) - y);
                let better = match best {
                    None => true,
                    Some((bd, bi)) => d < bd || (d == bd && i < bi),
                };
                if d <= radius && better {
                    best = Some((d, i));
                }
            }
        }
        best.map(|(_, i)| self.hits[i as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator, so the comparison covers many layouts.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, n: u32) -> i32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % u64::from(n)) as i32
        }
    }

    fn points(rng: &mut Lcg, n: usize, w: u32, h: u32) -> Vec<HitPoint> {
        (0..n)
            .map(|i| HitPoint {
                series: i / 3,
                point: i % 3,
                x: rng.next(w),
                y: rng.next(h),
            })
            .collect()
    }

    #[test]
    fn the_grid_answers_as_the_linear_scan_does() {
        let mut rng = Lcg(7);
        for (n, w, h, cell, radius) in [
            (0, 100, 100, 9.0, 9.0),
            (1, 100, 100, 9.0, 9.0),
            (50, 40, 40, 9.0, 9.0),
            (3_000, 1_600, 1_100, 18.0, 18.0),
            (3_000, 1_600, 1_100, 4.0, 12.0),
            (500, 30, 20, 9.0, 9.0),
        ] {
            let hits = points(&mut rng, n, w, h);
            let grid = HitGrid::new(hits.clone(), cell);
            assert_eq!(grid.len(), n);
            for _ in 0..2_000 {
                let x = f64::from(rng.next(w + 40)) - 20.0 + 0.5;
                let y = f64::from(rng.next(h + 40)) - 20.0 + 0.25;
                assert_eq!(
                    grid.nearest(x, y, radius),
                    nearest_hit(&hits, x, y, radius),
                    "n {n}, at ({x}, {y})"
                );
            }
        }
    }

    #[test]
    fn stacked_points_give_the_first_drawn() {
        let hits: Vec<HitPoint> = (0..1_000)
            .map(|s| HitPoint {
                series: s,
                point: 0,
                x: 200,
                y: 300,
            })
            .collect();
        let grid = HitGrid::new(hits, 9.0);
        assert_eq!(grid.nearest(203.0, 301.0, 9.0).map(|h| h.series), Some(0));
        assert_eq!(grid.nearest(230.0, 301.0, 9.0), None);
    }

    #[test]
    fn series_hits_are_found_by_series() {
        let mut rng = Lcg(3);
        let hits = points(&mut rng, 30, 500, 500);
        let grid = HitGrid::new(hits, 9.0);
        let of_4 = grid.series_hits(4);
        assert_eq!(of_4.len(), 3);
        assert!(of_4.iter().all(|h| h.series == 4));
        assert!(grid.series_hits(99).is_empty());
    }

    #[test]
    fn huge_spans_stay_within_the_cell_budget() {
        let hits = vec![
            HitPoint {
                series: 0,
                point: 0,
                x: i32::MIN / 2,
                y: 0,
            },
            HitPoint {
                series: 1,
                point: 0,
                x: i32::MAX / 2,
                y: i32::MAX / 2,
            },
        ];
        let grid = HitGrid::new(hits, 1.0);
        assert!(grid.cols * grid.rows <= MAX_CELLS);
        assert_eq!(
            grid.nearest(f64::from(i32::MAX / 2), f64::from(i32::MAX / 2), 2.0)
                .map(|h| h.series),
            Some(1)
        );
        assert_eq!(grid.nearest(f64::NAN, 0.0, 9.0), None);
    }

    #[test]
    fn nearest_hit_picks_the_closest_within_the_radius() {
        let hit = |series, x, y| HitPoint {
            series,
            point: 0,
            x,
            y,
        };
        let hits = [hit(0, 100, 100), hit(1, 106, 100), hit(2, 300, 300)];
        assert_eq!(
            nearest_hit(&hits, 104.0, 100.0, 9.0).map(|h| h.series),
            Some(1)
        );
        assert_eq!(
            nearest_hit(&hits, 99.0, 101.0, 9.0).map(|h| h.series),
            Some(0)
        );
        assert_eq!(nearest_hit(&hits, 200.0, 200.0, 9.0), None);
    }
}
