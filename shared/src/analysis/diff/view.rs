//! The plain state behind the viewer's run-against-run table: a [`RunDiff`] as rows of
//! text cells (the figures `capture diff` prints, the metrics that moved in words, one a
//! line), ordered by the time gained or lost, with the kernel pairs the roofline joins with
//! an arrow. No UI types: the viewer's
//! component renders it, native tests check it.

use super::{render, KernelDiff, MatchKind, RunDiff};
use crate::text::format::{ms, opt};

/// Column headers of the table.
pub const HEADERS: [&str; 9] = [
    "kernel",
    "match",
    "before ms",
    "after ms",
    "change ms",
    "change",
    "noise",
    "verdict",
    "moved most",
];

/// One row: a matched kernel, or a kernel of one run only.
#[derive(Clone, Debug, PartialEq)]
pub struct DiffRow {
    /// The cells, in [`HEADERS`] order.
    pub cells: [String; 9],
    /// `slower`, `faster`, `-` (within the noise), `only before` or `only after`: the row's
    /// class in the page.
    pub status: &'static str,
    /// The kernel's index in the before run, when it is there.
    pub before: Option<usize>,
    /// The kernel's index in the after run, when it is there.
    pub after: Option<usize>,
}

/// The run-against-run table and the pairs to join on the roofline.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiffView {
    /// One line above the table: the total's change and, when one differs, what makes the
    /// runs unfair to compare.
    pub summary: Vec<String>,
    /// Rows: matched kernels by the time gained or lost, the largest first, then kernels only
    /// in the after run, then only in the before run.
    pub rows: Vec<DiffRow>,
    /// Matched kernels as (before index, after index, rule), for the roofline's arrows.
    pub links: Vec<(usize, usize, MatchKind)>,
}

fn row(k: &KernelDiff) -> DiffRow {
    let verdict = match (&k.before.verdict, &k.after.verdict) {
        (Some(b), Some(a)) if b == a => b.clone(),
        (None, None) => "-".into(),
        (b, a) => format!(
            "{} → {}",
            b.as_deref().unwrap_or("-"),
            a.as_deref().unwrap_or("-")
        ),
    };
    DiffRow {
        cells: [
            k.label(),
            k.matched_by.label().into(),
            opt(k.before.time_ms, ms),
            opt(k.after.time_ms, ms),
            k.change_ms
                .map_or_else(|| "-".into(), |c| format!("{c:+.4}")),
            k.change_pct
                .map_or_else(|| "-".into(), |c| format!("{c:+.2} %")),
            format!("±{:.2} %", k.noise_pct),
            verdict,
            k.moved
                .iter()
                .take(3)
                .map(render::move_words)
                .collect::<Vec<_>>()
                .join("\n"),
        ],
        status: k.beyond_text(),
        before: Some(k.before.index),
        after: Some(k.after.index),
    }
}

fn one_side(s: &super::KernelSide, after: bool) -> DiffRow {
    let t = opt(s.time_ms, ms);
    let (b, a, change) = if after {
        ("-".to_string(), t, s.time_ms.map(|x| format!("{x:+.4}")))
    } else {
        (t, "-".to_string(), s.time_ms.map(|x| format!("{:+.4}", -x)))
    };
    DiffRow {
        cells: [
            s.short_name.clone(),
            "-".into(),
            b,
            a,
            change.unwrap_or_else(|| "-".into()),
            "-".into(),
            format!("±{:.2} %", s.noise_pct),
            s.verdict.clone().unwrap_or_else(|| "-".into()),
            String::new(),
        ],
        status: if after { "only after" } else { "only before" },
        before: (!after).then_some(s.index),
        after: after.then_some(s.index),
    }
}

impl DiffView {
    /// The view of `diff`.
    pub fn of(diff: &RunDiff) -> DiffView {
        let mut matched: Vec<&KernelDiff> = diff.kernels.iter().collect();
        crate::order::sort_by(&mut matched, |x, y| {
            let c = |k: &KernelDiff| k.change_ms.map_or(f64::NEG_INFINITY, f64::abs);
            c(y).total_cmp(&c(x))
        });
        let mut rows: Vec<DiffRow> = matched.iter().map(|k| row(k)).collect();
        rows.extend(diff.only_after.iter().map(|s| one_side(s, true)));
        rows.extend(diff.only_before.iter().map(|s| one_side(s, false)));
        let t = &diff.total;
        let mut summary = vec![format!(
            "{} → {}: total {:.4} ms → {:.4} ms, {} (noise ±{:.2} %, {})",
            diff.before,
            diff.after,
            t.before_ms,
            t.after_ms,
            t.change_pct
                .map_or_else(|| "-".into(), |c| format!("{c:+.2} %")),
            t.noise_pct,
            if t.beyond_noise {
                "beyond the noise"
            } else {
                "within the noise"
            }
        )];
        summary.extend(
            diff.comparability
                .reasons()
                .into_iter()
                .map(|r| format!("not comparable: {r}")),
        );
        DiffView {
            summary,
            rows,
            links: diff
                .kernels
                .iter()
                .map(|k| (k.before.index, k.after.index, k.matched_by))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::diff::{diff, GateOptions};
    use crate::model::artifact::{Artifact, KernelRecord, Provenance, Timing};

    fn run(kernels: &[(&str, f64)]) -> Artifact {
        let mut a = Artifact::new(Provenance::default());
        for (name, ms) in kernels {
            a.kernels.push(KernelRecord {
                timing: Some(Box::new(Timing {
                    warmups: 1,
                    min_ms: *ms,
                    median_ms: *ms,
                    max_ms: *ms,
                    samples_ms: vec![*ms, *ms],
                })),
                ..KernelRecord::new(*name, *name)
            });
        }
        a
    }

    #[test]
    fn rows_go_by_time_gained_or_lost_then_kernels_of_one_run() {
        let before = run(&[("a", 1.0), ("b", 2.0), ("gone", 0.5)]);
        let after = run(&[("new", 0.25), ("b", 1.0), ("a", 1.1)]);
        let d = diff(&before, &after, GateOptions::default()).named("x.json", "y.json");
        let v = DiffView::of(&d);
        let names: Vec<&str> = v.rows.iter().map(|r| r.cells[0].as_str()).collect();
        assert_eq!(names, ["b", "a", "new", "gone"]);
        let status: Vec<&str> = v.rows.iter().map(|r| r.status).collect();
        assert_eq!(status, ["faster", "slower", "only after", "only before"]);
        assert_eq!(v.rows[0].cells[4], "-1.0000");
        assert_eq!(v.rows[1].cells[5], "+10.00 %");
        assert_eq!((v.rows[2].before, v.rows[2].after), (None, Some(0)));
        // No launch shapes on either side: matched by name and (no) shape, largest change
        // first as the diff orders them.
        assert_eq!(
            v.links,
            [
                (1, 1, MatchKind::NameAndShape),
                (0, 2, MatchKind::NameAndShape)
            ]
        );
        assert!(
            v.summary[0].starts_with("x.json → y.json: total 3.5000 ms → 2.3500 ms"),
            "{:?}",
            v.summary
        );
    }
}
