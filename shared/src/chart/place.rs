//! Placing text on a chart so no label covers another label, a point or the key: boxes in
//! backend pixels, a register of what is taken, and a search of spots around an anchor.
//!
//! The roofline places its roof labels and its kernel labels through one [`Placer`] that
//! already holds every drawn point, so the boxes it hands out never overlap each other or a
//! point; the boxes come back to the caller ([`LabelBox`]) so a page can check them.

/// A rectangle in backend pixels, `x0 <= x1`, `y0 <= y1`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Box2 {
    /// Left edge.
    pub x0: i32,
    /// Top edge.
    pub y0: i32,
    /// Right edge.
    pub x1: i32,
    /// Bottom edge.
    pub y1: i32,
}

impl Box2 {
    /// The `w` x `h` box with its top-left corner at (`x`, `y`).
    pub fn at(x: i32, y: i32, w: i32, h: i32) -> Box2 {
        Box2 {
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
        }
    }

    /// Whether the two boxes share any area (touching edges do not count).
    pub fn hits(&self, o: &Box2) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether `self` lies wholly inside `o`.
    pub fn inside(&self, o: &Box2) -> bool {
        self.x0 >= o.x0 && self.x1 <= o.x1 && self.y0 >= o.y0 && self.y1 <= o.y1
    }

    /// The point of the box nearest to (`x`, `y`): where a leader line meets it.
    pub fn nearest(&self, x: i32, y: i32) -> (i32, i32) {
        (x.clamp(self.x0, self.x1), y.clamp(self.y0, self.y1))
    }
}

/// The spots of [`Placer::ring`] near enough that a label clear of lines is worth them
/// (the first two distances); beyond them the nearest free spot wins, line or not: BERT's
/// and GPT-2's labels at 800 px went 76 to 107 px from their points to avoid a line, their
/// leaders crossing other kernels (a label has a white ground, so a line it covers is only
/// interrupted).
const NEAR_SPOTS: usize = 2 * RING_SPOTS;

/// The spots [`Placer::ring`] tries at each distance.
const RING_SPOTS: usize = 12;

/// What a placed label names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabelOf {
    /// A roof, by index into [`super::RooflineChart::roofs`].
    Roof(usize),
    /// A kernel, by index into [`super::RooflineChart::series`].
    Series(usize),
}

/// A label as drawn: its text, what it names and its box in backend pixels.
#[derive(Clone, Debug, PartialEq)]
pub struct LabelBox {
    /// The text drawn.
    pub text: String,
    /// What it names.
    pub of: LabelOf,
    /// Where it is, backend pixels.
    pub rect: Box2,
}

/// The boxes taken on a chart, inside a plot area.
#[derive(Clone, Debug)]
pub struct Placer {
    /// The plot area labels must stay inside.
    pub area: Box2,
    taken: Vec<Box2>,
}

impl Placer {
    /// A placer for labels inside `area`, nothing taken yet.
    pub fn new(area: Box2) -> Self {
        Placer {
            area,
            taken: Vec::new(),
        }
    }

    /// Marks `b` as taken (a point, the key, a caption).
    pub fn take(&mut self, b: Box2) {
        self.taken.push(b);
    }

    /// Whether `b` is inside the area and covers nothing taken.
    pub fn free(&self, b: &Box2) -> bool {
        b.inside(&self.area) && !self.taken.iter().any(|t| t.hits(b))
    }

    /// The first free box among `candidates` (top-left corners of `w` x `h` boxes), taken.
    pub fn first_free(
        &mut self,
        candidates: impl IntoIterator<Item = (i32, i32)>,
        w: i32,
        h: i32,
    ) -> Option<Box2> {
        let found = candidates
            .into_iter()
            .map(|(x, y)| Box2::at(x, y, w, h))
            .find(|b| self.free(b))?;
        self.taken.push(found);
        Some(found)
    }

    /// A free `w` x `h` box near the anchor (`ax`, `ay`), taken: first the spots around the
    /// anchor at growing distances (right, left, above, below, then the corners), then any
    /// free spot of the area, nearest first. `None` when the area has no room at all.
    pub fn near(&mut self, ax: i32, ay: i32, gap: i32, w: i32, h: i32) -> Option<Box2> {
        self.near_clear(ax, ay, gap, w, h, &[])
    }

    /// As [`Placer::near`], but the nearest spots around the anchor (`NEAR_SPOTS`) that no
    /// polyline of `lines` passes through come first (a label then strikes no roof and no
    /// kernel's line).
    pub fn near_clear(
        &mut self,
        ax: i32,
        ay: i32,
        gap: i32,
        w: i32,
        h: i32,
        lines: &[Vec<(i32, i32)>],
    ) -> Option<Box2> {
        let ring = Self::ring(ax, ay, gap, w, h);
        if !lines.is_empty() {
            let clear = ring
                .iter()
                .take(NEAR_SPOTS)
                .map(|&(x, y)| Box2::at(x, y, w, h))
                .find(|b| self.free(b) && !crosses(b, lines));
            if let Some(b) = clear {
                self.taken.push(b);
                return Some(b);
            }
        }
        self.anywhere_near(ring, ax, ay, w, h)
    }

    /// The spots around an anchor at growing distances: right, left, above, below, the
    /// corners, then above and below ending or starting at the anchor's x (a point near the
    /// plot's right edge has no room centred under it: BERT's second GEMM at 800 px).
    fn ring(ax: i32, ay: i32, gap: i32, w: i32, h: i32) -> Vec<(i32, i32)> {
        let mut ring = Vec::new();
        for step in [0, 1, 2, 3, 5] {
            let d = gap + step * h;
            let spots: [(i32, i32); RING_SPOTS] = [
                (ax + d, ay - h / 2),
                (ax - d - w, ay - h / 2),
                (ax - w / 2, ay - d - h),
                (ax - w / 2, ay + d),
                (ax + d, ay - d - h),
                (ax + d, ay + d),
                (ax - d - w, ay - d - h),
                (ax - d - w, ay + d),
                (ax - w, ay + d),
                (ax - w, ay - d - h),
                (ax, ay + d),
                (ax, ay - d - h),
            ];
            ring.extend(spots);
        }
        ring
    }

    fn anywhere_near(
        &mut self,
        ring: Vec<(i32, i32)>,
        ax: i32,
        ay: i32,
        w: i32,
        h: i32,
    ) -> Option<Box2> {
        if let Some(b) = self.first_free(ring, w, h) {
            return Some(b);
        }
        // Anywhere in the area, nearest to the anchor first.
        let step = h.max(4);
        let mut spots = Vec::new();
        let mut y = self.area.y0;
        while y + h <= self.area.y1 {
            let mut x = self.area.x0;
            while x + w <= self.area.x1 {
                spots.push((x, y));
                x += step;
            }
            y += step;
        }
        let centre = |(x, y): (i32, i32)| {
            let (cx, cy) = (i64::from(x + w / 2 - ax), i64::from(y + h / 2 - ay));
            cx * cx + cy * cy
        };
        crate::order::sort_by_key(&mut spots, |s| centre(*s));
        self.first_free(spots, w, h)
    }
}

/// Whether any segment of the polylines `lines` (backend pixels) passes through `b`.
pub fn crosses(b: &Box2, lines: &[Vec<(i32, i32)>]) -> bool {
    lines
        .iter()
        .any(|line| line.windows(2).any(|s| segment_hits_box(s[0], s[1], b)))
}

/// Whether the segment `a`-`b` (backend pixels) passes through box `r`.
pub fn segment_hits_box(a: (i32, i32), b: (i32, i32), r: &Box2) -> bool {
    // Both ends on one outer side: no crossing (the common case, decided at once).
    if (a.0 <= r.x0 && b.0 <= r.x0)
        || (a.0 >= r.x1 && b.0 >= r.x1)
        || (a.1 <= r.y0 && b.1 <= r.y0)
        || (a.1 >= r.y1 && b.1 >= r.y1)
    {
        return false;
    }
    let steps = (a.0 - b.0).abs().max((a.1 - b.1).abs()).max(1);
    (0..=steps).any(|k| {
        let t = f64::from(k) / f64::from(steps);
        let x = f64::from(a.0) + f64::from(b.0 - a.0) * t;
        let y = f64::from(a.1) + f64::from(b.1 - a.1) * t;
        x > f64::from(r.x0) && x < f64::from(r.x1) && y > f64::from(r.y0) && y < f64::from(r.y1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_never_cover_each_other_or_what_is_taken() {
        let mut p = Placer::new(Box2::at(0, 0, 400, 300));
        // A point at the middle, and many labels wanted at the same anchor.
        p.take(Box2::at(195, 145, 10, 10));
        let mut placed = Vec::new();
        for _ in 0..12 {
            placed.push(p.near(200, 150, 8, 90, 14).expect("room"));
        }
        for (i, a) in placed.iter().enumerate() {
            assert!(a.inside(&p.area), "{a:?}");
            assert!(
                !a.hits(&Box2::at(195, 145, 10, 10)),
                "{a:?} covers the point"
            );
            for b in &placed[i + 1..] {
                assert!(!a.hits(b), "{a:?} and {b:?} overlap");
            }
        }
        // The first goes right of the anchor, centred on it.
        assert_eq!(placed[0], Box2::at(208, 143, 90, 14));
    }

    #[test]
    fn a_label_keeps_off_lines_where_it_can() {
        let mut p = Placer::new(Box2::at(0, 0, 400, 300));
        // A horizontal line through the anchor's right-hand spot.
        let line = vec![vec![(200, 150), (400, 150)]];
        let b = p.near_clear(200, 150, 8, 90, 14, &line).expect("room");
        assert!(!crosses(&b, &line), "{b:?}");
        assert!(segment_hits_box((0, 5), (50, 5), &Box2::at(10, 0, 10, 10)));
        assert!(!segment_hits_box(
            (0, 50),
            (50, 50),
            &Box2::at(10, 0, 10, 10)
        ));
    }

    #[test]
    fn a_full_area_has_no_room() {
        let mut p = Placer::new(Box2::at(0, 0, 100, 20));
        p.take(Box2::at(0, 0, 100, 20));
        assert_eq!(p.near(50, 10, 4, 30, 10), None);
        assert_eq!(Box2::at(0, 0, 10, 10).nearest(20, 5), (10, 5));
    }
}
