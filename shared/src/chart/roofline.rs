//! The roofline chart: log-log axes, bandwidth and compute roofs, and each kernel's points
//! at several intensities (asked-for, DRAM, L2, L1) joined by a line.
//!
//! The input is plain numbers ([`RooflineChart`]); which counters and formulas made them is
//! the caller's business (the viewer's state layer). Drawing is generic over the plotters
//! backend, so the browser draws to a canvas and tests draw to SVG. Points that sit above a
//! roof they cannot exceed are flagged by [`RooflineChart::flag_points_above_roofs`] and drawn
//! with a red ring, never silently.

/// Which bytes a point's intensity is computed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Hand-counted bytes the kernel asks for (compulsory traffic).
    Asked,
    /// Bytes ncu measured at DRAM.
    Dram,
    /// Bytes ncu measured at L2.
    L2,
    /// Bytes ncu measured at L1/TEX.
    L1,
}

impl Level {
    /// Short name for legends and tooltips.
    pub fn label(self) -> &'static str {
        match self {
            Level::Asked => "asked",
            Level::Dram => "DRAM",
            Level::L2 => "L2",
            Level::L1 => "L1",
        }
    }
}

/// A roof: a bandwidth slope, a compute ceiling, or both (drawn as min of the two).
#[derive(Clone, Debug, PartialEq)]
pub struct Roof {
    /// Legend text (`measured copy 4.28 TB/s`).
    pub label: String,
    /// Measured on the device (solid) or worked from attributes (dashed).
    pub measured: bool,
    /// Memory level whose bandwidth this is; points of that level (and asked points, for
    /// DRAM) may not rise above it.
    pub level: Level,
    /// Bandwidth, GB/s (10^9 bytes per second), when this roof has a slope.
    pub gbyte_per_s: Option<f64>,
    /// Compute ceiling, GFLOP/s, when this roof has a flat part.
    pub gflop_per_s: Option<f64>,
}

impl Roof {
    /// Attainable GFLOP/s under this roof at `flop_per_byte`, or `None` for a roof with
    /// neither part.
    pub fn attainable(&self, flop_per_byte: f64) -> Option<f64> {
        let unbounded = f64::INFINITY;
        match (self.gbyte_per_s, self.gflop_per_s) {
            (None, None) => None,
            (bw, peak) => Some(crate::model::roofline::attainable_gflop_per_s(
                flop_per_byte,
                peak.unwrap_or(unbounded),
                bw.unwrap_or(unbounded),
            )),
        }
    }

    /// Ridge point (FLOP per byte) where the slope meets the ceiling, when both exist.
    pub fn ridge_flop_per_byte(&self) -> Option<f64> {
        crate::model::roofline::ridge(self.gflop_per_s, self.gbyte_per_s)
    }
}

/// One point of a kernel.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartPoint {
    /// Which bytes the intensity uses.
    pub level: Level,
    /// Operational intensity, FLOP per byte.
    pub flop_per_byte: f64,
    /// Achieved performance, GFLOP/s.
    pub gflop_per_s: f64,
    /// Set by [`RooflineChart::flag_points_above_roofs`]: the point is above a roof it
    /// cannot exceed, so a count or a time is wrong (often bytes that caches served).
    pub above_roof: bool,
}

/// One kernel's points, joined by a line in the order given.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSeries {
    /// Short label drawn beside the points (see [`crate::text::names::shorten_kernel_name`]).
    pub label: String,
    /// Palette index for the colour.
    pub color: usize,
    /// Which run (file) the kernel comes from: 0 draws circles, 1 triangles, and so on.
    pub run: usize,
    /// Drawn larger, labelled always.
    pub selected: bool,
    /// Labelled on the chart (the page labels the kernels with the most time).
    pub labelled: bool,
    /// Rank by time in its run (1 = most time), shown before the label on the chart and in
    /// the page's list so the two match.
    pub rank: Option<usize>,
    /// The points, usually asked then DRAM then L2 then L1.
    pub points: Vec<ChartPoint>,
}

/// A before/after link between two series (comparison of runs or kernels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeriesLink {
    /// Index of the "before" series.
    pub from: usize,
    /// Index of the "after" series.
    pub to: usize,
}

/// Everything the roofline drawing needs, in plain numbers.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RooflineChart {
    /// Caption above the plot.
    pub title: String,
    /// Caption under the title: precision, time source, analytic or measured.
    pub subtitle: String,
    /// Roofs to draw.
    pub roofs: Vec<Roof>,
    /// Kernels.
    pub series: Vec<KernelSeries>,
    /// Before/after joins between series.
    pub links: Vec<SeriesLink>,
}

/// Relative tolerance before a point counts as above a roof: counters and clocks jitter by
/// a percent or so, and a point exactly on a measured ceiling is normal.
pub const ROOF_TOLERANCE: f64 = 0.02;

impl RooflineChart {
    /// Marks every point that sits above the highest roof that bounds it: asked and DRAM
    /// points by the DRAM bandwidth roofs, L2 and L1 points by their own level's roofs (when
    /// any), and all points by the compute ceilings. Returns how many were flagged.
    pub fn flag_points_above_roofs(&mut self) -> usize {
        let mut flagged = 0;
        let roofs = &self.roofs;
        let peak = roofs
            .iter()
            .filter_map(|r| r.gflop_per_s)
            .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
        for series in &mut self.series {
            for p in &mut series.points {
                let level = if p.level == Level::Asked {
                    Level::Dram
                } else {
                    p.level
                };
                let bandwidth = roofs
                    .iter()
                    .filter(|r| r.level == level)
                    .filter_map(|r| r.gbyte_per_s)
                    .fold(None, |m: Option<f64>, v| Some(m.map_or(v, |m| m.max(v))));
                let limit = Roof {
                    label: String::new(),
                    measured: false,
                    level,
                    gbyte_per_s: bandwidth,
                    gflop_per_s: peak,
                }
                .attainable(p.flop_per_byte);
                p.above_roof = limit.is_some_and(|l| p.gflop_per_s > l * (1.0 + ROOF_TOLERANCE));
                if p.above_roof {
                    flagged += 1;
                }
            }
        }
        flagged
    }

    /// Axis ranges (x FLOP/B, y GFLOP/s): [`RooflineChart::fit`]'s.
    pub fn ranges(&self) -> ((f64, f64), (f64, f64)) {
        let f = self.fit();
        (f.x, f.y)
    }

    /// The axes fitted to the points, ridges and compute peaks, with some air. A point set
    /// apart from the rest by more than [`OUTLIER_GAP`] (at most a quarter of the points,
    /// from either end of either axis) does not stretch them: it is drawn at the edge and
    /// listed in [`Fit::clipped`].
    pub fn fit(&self) -> Fit {
        let mut xs: Vec<f64> = Vec::new();
        let mut ys: Vec<f64> = Vec::new();
        for s in &self.series {
            for p in &s.points {
                if valid(p.flop_per_byte) && valid(p.gflop_per_s) {
                    xs.push(p.flop_per_byte);
                    ys.push(p.gflop_per_s);
                }
            }
        }
        let ridges: Vec<f64> = self
            .roofs
            .iter()
            .filter_map(|r| r.ridge_flop_per_byte().filter(|v| valid(*v)))
            .collect();
        let peaks: Vec<f64> = self
            .roofs
            .iter()
            .filter_map(|r| r.gflop_per_s.filter(|v| valid(*v)))
            .collect();
        let (px0, px1) = core_span(&xs, &ridges);
        let (py0, py1) = core_span(&ys, &peaks);
        let mut xs_all: Vec<f64> = ridges.clone();
        xs_all.extend([px0, px1].into_iter().flatten());
        let mut ys_all: Vec<f64> = peaks.clone();
        ys_all.extend([py0, py1].into_iter().flatten());
        let (x0, x1) = span(&xs_all, (0.01, 100.0));
        let (y0, y1) = span(&ys_all, (1.0, 1e5));
        // Widen to at least two decades each way so a lone point still shows its roofs.
        let x = widen(x0 / 3.0, x1 * 3.0, 100.0);
        let y = widen(y0 / 3.0, y1 * 2.0, 100.0);
        let mut clipped = Vec::new();
        for (si, s) in self.series.iter().enumerate() {
            for (pi, p) in s.points.iter().enumerate() {
                if valid(p.flop_per_byte)
                    && valid(p.gflop_per_s)
                    && (p.flop_per_byte < x.0
                        || p.flop_per_byte > x.1
                        || p.gflop_per_s < y.0
                        || p.gflop_per_s > y.1)
                {
                    clipped.push((si, pi));
                }
            }
        }
        Fit { x, y, clipped }
    }
}

/// A point this many times beyond its nearest neighbour on an axis (two decades), at either
/// end, is an outlier: drawn at the edge, not fitted.
pub const OUTLIER_GAP: f64 = 100.0;

/// The axes of a roofline and the points left outside them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fit {
    /// Intensity range, FLOP/B.
    pub x: (f64, f64),
    /// Performance range, GFLOP/s.
    pub y: (f64, f64),
    /// (series, point) of every point outside the ranges, drawn at the edge.
    pub clipped: Vec<(usize, usize)>,
}

/// The span of `values` without outliers at either end: a value more than [`OUTLIER_GAP`]
/// beyond the next value (or the nearest of `anchors` it passes) is dropped, at most a
/// quarter of the values. `None` ends when there are no values.
fn core_span(values: &[f64], anchors: &[f64]) -> (Option<f64>, Option<f64>) {
    let mut v: Vec<f64> = values.to_vec();
    crate::order::sort_floats(&mut v);
    if v.is_empty() {
        return (None, None);
    }
    let most = (v.len() / 4).max(usize::from(v.len() >= 3));
    let (mut lo, mut hi) = (0usize, v.len() - 1);
    let mut dropped = 0;
    while dropped < most && hi > lo {
        let top = v[hi];
        let next = anchors
            .iter()
            .copied()
            .filter(|a| *a < top)
            .fold(v[hi - 1], f64::max);
        if top / next > OUTLIER_GAP {
            hi -= 1;
            dropped += 1;
        } else {
            break;
        }
    }
    while dropped < most && hi > lo {
        let bottom = v[lo];
        let next = anchors
            .iter()
            .copied()
            .filter(|a| *a > bottom)
            .fold(v[lo + 1], f64::min);
        if next / bottom > OUTLIER_GAP {
            lo += 1;
            dropped += 1;
        } else {
            break;
        }
    }
    (Some(v[lo]), Some(v[hi]))
}

/// Most characters of a kernel's label on the chart; the page's list has the whole name.
pub const CHART_LABEL_CHARS: usize = 30;

/// The text a labelled series gets on the chart: its rank and its label, cut in the middle
/// to [`CHART_LABEL_CHARS`] so the end that tells one template's kernels apart stays
/// (`3 vectorized_…tanh_kernel_cuda…>`).
pub fn chart_label(series: &KernelSeries) -> String {
    let text = crate::text::names::elide_middle(&series.label, CHART_LABEL_CHARS);
    match series.rank {
        Some(r) => format!("{r} {text}"),
        None => text,
    }
}

/// A value a log axis can show: finite and above zero.
pub(crate) fn valid(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

fn span(values: &[f64], default: (f64, f64)) -> (f64, f64) {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if lo.is_finite() && hi.is_finite() {
        (lo, hi)
    } else {
        default
    }
}

fn widen(lo: f64, hi: f64, min_ratio: f64) -> (f64, f64) {
    if hi / lo >= min_ratio {
        return (lo, hi);
    }
    let centre = (lo * hi).sqrt();
    let half = min_ratio.sqrt();
    (centre / half, centre * half)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roofs() -> Vec<Roof> {
        vec![
            Roof {
                label: "theoretical".into(),
                measured: false,
                level: Level::Dram,
                gbyte_per_s: Some(320.0),
                gflop_per_s: Some(8141.0),
            },
            Roof {
                label: "measured".into(),
                measured: true,
                level: Level::Dram,
                gbyte_per_s: Some(257.0),
                gflop_per_s: Some(8054.0),
            },
        ]
    }

    fn point(level: Level, oi: f64, gflops: f64) -> ChartPoint {
        ChartPoint {
            level,
            flop_per_byte: oi,
            gflop_per_s: gflops,
            above_roof: false,
        }
    }

    #[test]
    fn roof_attainable_and_ridge_match_the_t4_seed() {
        let t4 = &roofs()[0];
        assert_eq!(t4.attainable(1.0 / 12.0).map(|v| v.round()), Some(27.0));
        assert_eq!(t4.attainable(4096.0), Some(8141.0));
        let ridge = t4.ridge_flop_per_byte().unwrap_or_default();
        assert!((ridge - 25.44).abs() < 0.01, "{ridge}");
    }

    #[test]
    fn points_above_their_roof_are_flagged() {
        let mut chart = RooflineChart {
            roofs: roofs(),
            series: vec![KernelSeries {
                label: "vecadd".into(),
                color: 0,
                run: 0,
                selected: false,
                labelled: false,
                rank: None,
                points: vec![
                    // 21.4 GFLOP/s at 1/12 FLOP/B is 257 GB/s: under the 320 GB/s roof.
                    point(Level::Asked, 1.0 / 12.0, 21.4),
                    // 1,000 % of the copy ceiling: the hand count included cache hits.
                    point(Level::Asked, 0.01, 30.0),
                    // L2 points have no L2 roof here, only the compute ceiling.
                    point(Level::L2, 0.01, 30.0),
                    point(Level::Dram, 100.0, 9000.0),
                ],
            }],
            ..RooflineChart::default()
        };
        assert_eq!(chart.flag_points_above_roofs(), 2);
        let flags: Vec<bool> = chart.series[0]
            .points
            .iter()
            .map(|p| p.above_roof)
            .collect();
        assert_eq!(flags, vec![false, true, false, true]);
    }

    #[test]
    fn ranges_hold_points_and_ridges() {
        let chart = RooflineChart {
            roofs: roofs(),
            series: vec![KernelSeries {
                label: "k".into(),
                color: 0,
                run: 0,
                selected: true,
                labelled: false,
                rank: None,
                points: vec![point(Level::Dram, 0.05, 10.0)],
            }],
            ..RooflineChart::default()
        };
        let ((x0, x1), (y0, y1)) = chart.ranges();
        assert!(x0 < 0.05 && x1 > 25.4, "{x0} {x1}");
        assert!(y0 < 10.0 && y1 > 8141.0, "{y0} {y1}");
    }
}
