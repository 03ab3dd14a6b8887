//! A kernel's verdict per launch shape: its launches grouped by what makes them alike, a
//! Speed-of-Light verdict, unit and reason per group, and the kernel's own verdict taken
//! from the groups, never from an average over launches of different shapes.
//!
//! cuBLAS runs BERT-base's 4096x768x768 projections and its 4096x3072x768 FFN GEMMs with one
//! kernel: averaged together, its one-wave launches (ncu: "Small Grid") and its long ones
//! ("Balanced Throughput") read "memory-bound", which no launch is. So:
//!
//! - **Groups.** Launches of one grid, block and shared memory per block
//!   (`launch__shared_mem_per_block`), split by duration as the sampling planner splits
//!   them ([`crate::analysis::sampling::plan::split_by_duration`], its default options):
//!   persistent kernels run every problem size on one grid; then by each launch's own
//!   verdict, so no group has a verdict one of its launches lacks.
//! - **Per group**, from its launches alone: the duration-weighted Speed of Light, the
//!   verdict ([`metrics::verdict`]: ncu's SOLBottleneck thresholds), the unit
//!   ([`bound::bound_by`]) and, latency-bound, why ([`latency::latency`]: its waves, its top
//!   stall); ncu's own SOLBottleneck finding beside it where the file has one
//!   ([`crate::analysis::ncu_verdict`]).
//! - **The kernel's verdict** is the one that holds the most of its time over its groups,
//!   with the reason and unit of the longest group that has it; `mixed` when groups
//!   disagree.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use crate::analysis::bound::{self, BoundBy};
use crate::analysis::latency;
use crate::analysis::metrics::{self, Verdict, VerdictKind};
use crate::analysis::ncu_verdict::{self, NcuVerdict};
use crate::analysis::sampling::plan::{split_by_duration, PlanOptions};
use crate::model::artifact::LaunchCounters;
use crate::model::counters as c;

/// One group of a kernel's launches, alike in shape, with its verdict.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchGroup {
    /// The shape in words: `grid 128x1x1, block 384x1x1, 213.0 KB shared`.
    pub shape: String,
    /// Grid size, blocks.
    pub grid: Option<[u32; 3]>,
    /// Block size, threads.
    pub block: Option<[u32; 3]>,
    /// Shared memory per block, bytes (static plus dynamic), when the file has it.
    pub shared_mem_bytes: Option<f64>,
    /// Launches in the group.
    pub launches: usize,
    /// Summed ncu duration, ms.
    pub time_ms: Option<f64>,
    /// Share of the kernel's ncu time, 0 to 1.
    pub time_share: Option<f64>,
    /// Compute (SM) Throughput, %, duration-weighted over the group.
    pub sm_pct: Option<f64>,
    /// Memory Throughput, %, duration-weighted over the group.
    pub memory_pct: Option<f64>,
    /// Waves per SM of the group's longest launch.
    pub waves: Option<f64>,
    /// The group's verdict (`latency-bound`, ...).
    pub verdict: Option<String>,
    /// The unit that bounds it and its % of peak.
    pub bound_by: Option<BoundBy>,
    /// The verdict's reason: the two Speed-of-Light figures against ncu's thresholds and
    /// the unit; for `latency-bound`, what holds it back (waves, top stall).
    pub reason: Option<String>,
    /// ncu's SOLBottleneck (and HighPipeUtilization) finding of the group, where the file
    /// has them.
    pub ncu_verdict: Option<Box<NcuVerdict>>,
}

impl LaunchGroup {
    /// The group in one line for people: launches, shape, time per launch, share of the
    /// kernel's time, verdict and reason (`8 x grid 2x64x1, block 384x1x1, 14.2 us each
    /// (62% of its time): latency-bound: ...`). Groups of one shape apart by duration are
    /// told apart by their time per launch.
    pub fn line(&self) -> String {
        let each = self
            .time_ms
            .map(|t| format!(", {:.1} us each", 1e3 * t / self.launches.max(1) as f64))
            .unwrap_or_default();
        let share = self
            .time_share
            .map(|s| format!(" ({:.0}% of its time)", 100.0 * s))
            .unwrap_or_default();
        format!(
            "{} x {}{each}{share}: {}: {}",
            self.launches,
            self.shape,
            self.verdict.as_deref().unwrap_or("-"),
            self.reason.as_deref().unwrap_or("-")
        )
    }
}

/// A kernel's verdict from its launch groups.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelVerdict {
    /// The kernel's verdict: the group verdict holding the most time, with the reason and
    /// unit of the longest group that has it.
    pub verdict: Option<Verdict>,
    /// For a `latency-bound` verdict, why (that group's waves and top stall).
    pub latency_reason: Option<String>,
    /// Whether its groups disagree.
    pub mixed: bool,
    /// The groups, most time first.
    pub groups: Vec<LaunchGroup>,
    /// Indices into the kernel's launches of each group, in the order of `groups`.
    pub members: Vec<Vec<usize>>,
    /// ncu's verdict of the kernel, where its launches have SOLBottleneck findings.
    pub ncu_verdict: Option<NcuVerdict>,
}

type ShapeKey = (Option<[u32; 3]>, Option<[u32; 3]>, Option<u64>);

/// A group as judged: its figures, its verdict and latency reason, its launches' indices.
type Judged = (LaunchGroup, Option<Verdict>, Option<String>, Vec<usize>);

fn shape_key(l: &LaunchCounters) -> ShapeKey {
    (
        l.site.grid,
        l.site.block,
        metrics::metric(l, c::SHARED_MEM_PER_BLOCK).map(f64::to_bits),
    )
}

fn dims(d: Option<[u32; 3]>) -> String {
    d.map_or_else(|| "?".into(), |[x, y, z]| format!("{x}x{y}x{z}"))
}

fn shape_text(key: &ShapeKey) -> String {
    let mut s = format!("grid {}, block {}", dims(key.0), dims(key.1));
    if let Some(b) = key.2.map(f64::from_bits).filter(|b| *b > 0.0) {
        s.push_str(&format!(", {:.1} KB shared", b / 1024.0));
    }
    s
}

/// The groups of `launches` (indices, each group in launch order; groups in order of first
/// launch): by grid, block and shared memory, each split by duration as the sampling
/// planner splits, then by each launch's own verdict, so that a group's verdict holds for
/// every launch in it (persistent GEMMs run problem sizes of different verdicts on one
/// grid at durations within the planner's 15 %).
pub fn group_launches(launches: &[LaunchCounters]) -> Vec<Vec<usize>> {
    match launches.len() {
        0 => return Vec::new(),
        1 => return vec![vec![0]],
        _ => {}
    }
    let mut shapes: Vec<Vec<usize>> = Vec::new();
    let mut index: HashMap<ShapeKey, usize> = HashMap::new();
    for (i, l) in launches.iter().enumerate() {
        let at = *index.entry(shape_key(l)).or_insert_with(|| {
            shapes.push(Vec::new());
            shapes.len() - 1
        });
        shapes[at].push(i);
    }
    let o = PlanOptions::default();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for idx in shapes {
        let d: Vec<f64> = idx
            .iter()
            .map(|&i| metrics::duration_ns(&launches[i]).unwrap_or(0.0))
            .collect();
        for part in split_by_duration(&d, o.split_cv, o.split_gap) {
            // Then by each launch's own verdict: a group's verdict is every launch's.
            let mut by_kind: Vec<(Option<VerdictKind>, Vec<usize>)> = Vec::new();
            for j in part {
                let i = idx[j];
                let kind = metrics::verdict(&metrics::speed_of_light(&launches[i])).map(|v| v.kind);
                match by_kind.iter_mut().find(|(k, _)| *k == kind) {
                    Some((_, v)) => v.push(i),
                    None => by_kind.push((kind, vec![i])),
                }
            }
            groups.extend(by_kind.into_iter().map(|(_, v)| v));
        }
    }
    crate::order::sort_by_key(&mut groups, |g| g.first().copied());
    groups
}

fn duration(l: &LaunchCounters) -> f64 {
    metrics::duration_ns(l).filter(|d| *d > 0.0).unwrap_or(0.0)
}

/// The verdict of one group of launches, with its latency reason.
fn group_verdict(
    launches: &[LaunchCounters],
    totals: &metrics::LaunchTotals,
) -> (Option<Verdict>, Option<String>) {
    let mut verdict = bound::verdict(&totals.sol, launches);
    // Every launch of a group has one verdict; its time-weighted figures can still fall
    // on the other side of a threshold (two balanced launches at 62/55 and 55/62 average
    // to 58.5/58.5): the launches' own verdict stands.
    let own = launches
        .first()
        .and_then(|l| metrics::verdict(&metrics::speed_of_light(l)));
    if let (Some(v), Some(own)) = (verdict.as_mut(), own) {
        if v.kind != own.kind {
            let unit = bound::bound_by(own.kind, &totals.sol, launches);
            v.reason = format!(
                "each launch's own figures read {} ({}); their time-weighted figures do not; \
                 bound by {}",
                own.kind.as_str(),
                own.reason,
                unit.label()
            );
            v.kind = own.kind;
            v.bound_by = Some(unit);
        }
    }
    // Why, for a latency-bound group only (the stalls and the launch fit cost lookups).
    let kind = verdict.as_ref().map(|v| v.kind);
    let reason = (kind == Some(VerdictKind::LatencyBound))
        .then(|| latency::latency(launches, kind).reason)
        .flatten();
    (verdict, reason)
}

/// ncu's verdict over `launches` (those with a SOLBottleneck finding), beside `ours`.
pub fn ncu_verdict_of(
    launches: &[&LaunchCounters],
    ours: Option<VerdictKind>,
) -> Option<NcuVerdict> {
    let mut by_kind: Vec<(VerdictKind, f64, String, String, f64)> = Vec::new();
    let mut with = 0;
    for l in launches {
        let Some(s) = ncu_verdict::sol_of(l) else {
            continue;
        };
        with += 1;
        let w = duration(l).max(f64::MIN_POSITIVE);
        match by_kind.iter_mut().find(|e| e.0 == s.kind) {
            Some(e) => {
                e.1 += w;
                if w > e.4 {
                    (e.2, e.3, e.4) = (s.title, s.message, w);
                }
            }
            None => by_kind.push((s.kind, w, s.title, s.message, w)),
        }
    }
    let total: f64 = by_kind.iter().map(|e| e.1).sum();
    let (kind, time, title, message, _) = by_kind.into_iter().max_by(|a, b| a.1.total_cmp(&b.1))?;
    let pipe = launches
        .iter()
        .filter_map(|l| ncu_verdict::pipe_of(l).map(|p| (duration(l), p)))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, p)| p.to_string());
    let agrees = ours == Some(kind);
    Some(NcuVerdict {
        verdict: kind.as_str().to_string(),
        title,
        message,
        share: if total > 0.0 { time / total } else { 0.0 },
        launches: with,
        agrees,
        why: None,
        pipe,
    })
}

/// Why our verdict of a group differs from ncu's: ncu judges each launch on its own
/// figures, we judge the group on its duration-weighted figures, so the two differ where
/// the group's launches straddle a threshold, or where the figures themselves differ (a
/// sampled profile's unmeasured launches carry a measured launch's counters).
fn why_differ(group: &LaunchGroup, ncu: &NcuVerdict, all: usize) -> String {
    let figs = match (group.sm_pct, group.memory_pct) {
        (Some(s), Some(m)) => format!("Compute (SM) {s:.1}% and Memory {m:.1}%"),
        _ => "no Speed-of-Light figures".into(),
    };
    if ncu.share < 0.999 {
        format!(
            "ncu judges each launch on its own and says {} ({}) for {:.0}% of this group's \
             time; we judge the group on its time-weighted {figs}, which straddles its \
             thresholds",
            ncu.verdict,
            ncu.title,
            100.0 * ncu.share
        )
    } else if ncu.launches < all {
        format!(
            "ncu's finding covers {} of the group's {all} launches; the others carry counters \
             scaled from a measured launch, and the group's time-weighted {figs} reads {}",
            ncu.launches,
            group.verdict.as_deref().unwrap_or("-")
        )
    } else {
        format!(
            "ncu says {} ({}) of every launch; our {figs} are the launches' own figures \
             weighted by time and read {} against the same thresholds, so a launch's figure \
             must sit at a threshold",
            ncu.verdict,
            ncu.title,
            group.verdict.as_deref().unwrap_or("-")
        )
    }
}

/// The verdict of a kernel whose launches (cold, else warm) are `launches`.
pub fn kernel_verdict(launches: &[LaunchCounters]) -> KernelVerdict {
    kernel_verdict_in(launches, &mut crate::analysis::work::Plans::default(), None)
}

/// [`kernel_verdict`], the totals worked out through `plans` (kept by a caller that goes
/// kernel after kernel), and `whole`, the totals of every launch where the caller has them,
/// taken for a group of every launch (most kernels) rather than worked out again.
pub fn kernel_verdict_in(
    launches: &[LaunchCounters],
    plans: &mut crate::analysis::work::Plans,
    whole: Option<&metrics::LaunchTotals>,
) -> KernelVerdict {
    let members = group_launches(launches);
    let kernel_ns: f64 = launches.iter().map(duration).sum();
    let mut groups: Vec<Judged> = members
        .into_iter()
        .map(|idx| {
            // One group of every launch (most kernels) is read in place; others are copied
            // out, as the totals read a slice.
            let copied: Vec<LaunchCounters>;
            let ls: &[LaunchCounters] = if idx.len() == launches.len() {
                launches
            } else {
                copied = idx.iter().map(|&i| launches[i].clone()).collect();
                &copied
            };
            let own;
            let totals = match whole.filter(|_| idx.len() == launches.len()) {
                Some(t) => t,
                None => {
                    own = metrics::totals_in(plans, ls);
                    &own
                }
            };
            let (verdict, latency_reason) = group_verdict(ls, totals);
            let sol = &totals.sol;
            let time_ns: f64 = ls.iter().map(duration).sum();
            let longest = ls.iter().max_by(|a, b| duration(a).total_cmp(&duration(b)));
            let refs: Vec<&LaunchCounters> = ls.iter().collect();
            let kind = verdict.as_ref().map(|v| v.kind);
            let mut group = LaunchGroup {
                shape: shape_text(&shape_key(&ls[0])),
                grid: ls[0].site.grid,
                block: ls[0].site.block,
                shared_mem_bytes: metrics::metric(&ls[0], c::SHARED_MEM_PER_BLOCK),
                launches: ls.len(),
                time_ms: (time_ns > 0.0).then_some(time_ns / 1e6),
                time_share: (kernel_ns > 0.0).then_some(time_ns / kernel_ns),
                sm_pct: sol.sm_pct,
                memory_pct: sol.memory_pct,
                waves: longest.and_then(|l| metrics::metric(l, c::WAVES_PER_SM)),
                verdict: kind.map(|k| k.as_str().to_string()),
                bound_by: verdict.as_ref().and_then(|v| v.bound_by.clone()),
                reason: verdict.as_ref().map(|v| match &latency_reason {
                    Some(r) => format!("{}; {r}", v.reason),
                    None => v.reason.clone(),
                }),
                ncu_verdict: ncu_verdict_of(&refs, kind).map(Box::new),
            };
            if let Some(n) = group.ncu_verdict.take() {
                let why = (!n.agrees).then(|| why_differ(&group, &n, ls.len()));
                group.ncu_verdict = Some(Box::new(NcuVerdict { why, ..*n }));
            }
            (group, verdict, latency_reason, idx)
        })
        .collect();
    crate::order::sort_by(&mut groups, |a, b| {
        let t = |g: &LaunchGroup| g.time_ms.unwrap_or(0.0);
        t(&b.0).total_cmp(&t(&a.0))
    });
    // The verdict holding the most time; ties to the kind of the longest group.
    let mut time_of: Vec<(VerdictKind, f64)> = Vec::new();
    for (g, v, _, _) in &groups {
        let Some(v) = v else { continue };
        let t = g.time_ms.unwrap_or(0.0);
        match time_of.iter_mut().find(|e| e.0 == v.kind) {
            Some(e) => e.1 += t,
            None => time_of.push((v.kind, t)),
        }
    }
    let main = time_of
        .iter()
        .fold(None::<(VerdictKind, f64)>, |best, &(k, t)| match best {
            Some((_, bt)) if bt >= t => best,
            _ => Some((k, t)),
        })
        .map(|(k, _)| k);
    let mixed = time_of.len() > 1;
    let chosen = groups
        .iter()
        .find(|(_, v, _, _)| v.as_ref().map(|v| v.kind) == main);
    let verdict = chosen.and_then(|(_, v, _, _)| v.clone());
    let latency_reason = chosen.and_then(|(_, _, r, _)| r.clone());
    let all: Vec<&LaunchCounters> = launches.iter().collect();
    let ncu = ncu_verdict_of(&all, main).map(|n| {
        let why = (!n.agrees).then(|| {
            let dominant = chosen.map(|(g, _, _, _)| g);
            match dominant {
                Some(g) => why_differ(g, &n, launches.len()),
                None => "we have no Speed-of-Light figures for this kernel".into(),
            }
        });
        NcuVerdict { why, ..n }
    });
    let (groups, members): (Vec<LaunchGroup>, Vec<Vec<usize>>) =
        groups.into_iter().map(|(g, _, _, idx)| (g, idx)).unzip();
    KernelVerdict {
        verdict,
        latency_reason,
        mixed,
        groups,
        members,
        ncu_verdict: ncu,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::LaunchSite;
    use crate::model::counters::Counter;
    use std::sync::Arc;

    fn launch(grid: u32, values: &[(Counter, f64)]) -> LaunchCounters {
        let named: Vec<(&str, f64)> = values.iter().map(|(c, v)| (c.name, *v)).collect();
        let mut l = LaunchCounters::from_numbers("nvjet", &named);
        l.site = Arc::new(LaunchSite {
            grid: Some([grid, 1, 1]),
            block: Some([384, 1, 1]),
            ..Default::default()
        });
        l
    }

    /// BERT-base's nvjet GEMM (issue 34): 19 one-wave launches of about 14 us at 47.4 / 50.7
    /// % and 4 of about 36 us at 75.8 / 77.9 %. Averaged they read memory-bound; per group,
    /// latency-bound (one wave) and balanced.
    #[test]
    fn the_bert_gemm_gets_a_verdict_per_shape() {
        let mut ls = Vec::new();
        for _ in 0..19 {
            ls.push(launch(
                128,
                &[
                    (c::GPU_TIME_DURATION, 14_000.0),
                    (c::SM_THROUGHPUT_PCT, 47.4),
                    (c::MEMORY_THROUGHPUT_PCT, 50.7),
                    (c::WAVES_PER_SM, 0.97),
                    (c::GRID_SIZE, 128.0),
                    (c::SM_COUNT, 132.0),
                ],
            ));
        }
        for _ in 0..4 {
            ls.push(launch(
                528,
                &[
                    (c::GPU_TIME_DURATION, 36_000.0),
                    (c::SM_THROUGHPUT_PCT, 75.8),
                    (c::MEMORY_THROUGHPUT_PCT, 77.9),
                    (c::WAVES_PER_SM, 4.0),
                ],
            ));
        }
        let whole = metrics::totals(&ls).sol;
        assert_eq!(
            metrics::verdict(&whole).map(|v| v.kind),
            Some(VerdictKind::Balanced),
            "the averaged figures ({:?} / {:?}) no longer decide",
            whole.sm_pct,
            whole.memory_pct
        );
        let k = kernel_verdict(&ls);
        assert_eq!(k.groups.len(), 2);
        assert!(k.mixed);
        let kinds: Vec<&str> = k
            .groups
            .iter()
            .filter_map(|g| g.verdict.as_deref())
            .collect();
        assert_eq!(kinds, ["latency-bound", "balanced"], "most time first");
        assert_eq!(k.verdict.map(|v| v.kind), Some(VerdictKind::LatencyBound));
        let reason = k.groups[0].reason.as_deref().unwrap_or_default();
        assert!(reason.contains("0.97 waves"), "{reason}");
        assert_eq!(k.groups[0].launches, 19);
        assert!((k.groups[0].time_share.unwrap_or(0.0) - 266.0 / 410.0).abs() < 1e-9);
    }

    #[test]
    fn a_persistent_kernel_is_split_by_duration() {
        let a = |d: f64, sm: f64| {
            launch(
                132,
                &[
                    (c::GPU_TIME_DURATION, d),
                    (c::SM_THROUGHPUT_PCT, sm),
                    (c::MEMORY_THROUGHPUT_PCT, 30.0),
                ],
            )
        };
        let ls = vec![a(10_000.0, 40.0), a(50_000.0, 85.0), a(10_500.0, 41.0)];
        let k = kernel_verdict(&ls);
        assert_eq!(k.members, vec![vec![1], vec![0, 2]]);
        assert_eq!(k.verdict.map(|v| v.kind), Some(VerdictKind::ComputeBound));
        assert!(k.mixed);
        let one = kernel_verdict(&ls[..1]);
        assert!(!one.mixed);
        assert_eq!(one.groups.len(), 1);
    }
}
