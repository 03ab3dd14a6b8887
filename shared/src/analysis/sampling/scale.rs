//! From the profiled launches back to every launch: each profiled row matched to its launch
//! of the timing pass ([`assign`]), then every launch of the timing pass given counters
//! ([`expand`]): its own where it was profiled, else those of the profiled launch of its
//! group nearest in duration, the amounts scaled by the two launches' measured times (by
//! their blocks where a tail borrows from a bigger grid of its kernel and block; not at all
//! where the group's measured launches did the same work, or where its one measured launch
//! ran within 15 % of it).
//! Every launch's duration is the timing pass's, so time shares come straight from it.

use std::collections::HashMap;

use crate::model::artifact::{LaunchCounters, MetricKey};
use crate::model::counters;

use super::plan::{blocks, Plan, SPLIT_GAP};
use super::timing::TimedLaunch;

/// Whether a metric is an amount that grows with the work of a launch (bytes, instructions,
/// sectors, FLOPs: a `.sum`; elapsed cycles) and so is scaled, rather than a rate, a ratio,
/// a percentage, a launch setting or a device attribute, which are copied.
pub fn scales_with_work(key: &MetricKey) -> bool {
    if key.name == counters::GPU_TIME_DURATION.name {
        return false;
    }
    key.name.ends_with(".sum")
        || (key.unit == "cycle"
            && [".avg", ".max", ".min"]
                .iter()
                .any(|s| key.name.ends_with(s)))
}

type ShapeKey = (String, Option<[u32; 3]>, Option<[u32; 3]>);

fn shape_of(l: &LaunchCounters) -> ShapeKey {
    (l.function.to_string(), l.site.grid, l.site.block)
}

/// Matches the profiling pass's rows to the plan's launches ([`assign_keeping`]); a row
/// of a shape the timing pass never saw is left out, with a warning.
///
/// Returns one entry per launch of the plan: its profiled row, if any.
pub fn assign(
    plan: &Plan,
    rows: Vec<LaunchCounters>,
) -> (Vec<Option<LaunchCounters>>, Vec<String>) {
    let mut a = assign_keeping(plan, rows);
    if !a.strays.is_empty() {
        a.warnings.push(format!(
            "sampling: {} profiled launch(es) matched no launch of the timing pass and \
             were left out",
            a.strays.len()
        ));
    }
    (a.rows, a.warnings)
}

/// The profiling pass's rows matched to the plan's launches ([`assign_keeping`]).
#[derive(Debug, Default)]
pub struct Assigned {
    /// One entry per launch of the plan: its profiled row, if any.
    pub rows: Vec<Option<LaunchCounters>>,
    /// Rows of a kernel and shape the timing pass never saw, in profiling order: the
    /// program launched other kernels in its profiling run than in its timing run (an
    /// autotuner that picks kernels by timing them at each run: XLA's, torch.compile's
    /// max-autotune).
    pub strays: Vec<LaunchCounters>,
    /// What a reader should know.
    pub warnings: Vec<String>,
}

/// Matches the profiling pass's rows to the plan's launches: per kernel x grid x block,
/// the n-th row profiled to the n-th launch the plan selected. Where ncu profiled another
/// number of launches of a shape than the plan predicted, each of its rows goes to the
/// launch of that shape nearest in duration not yet matched, with a warning; a row of a
/// shape the timing pass never saw, or one more than its shape's launches, is a stray.
pub fn assign_keeping(plan: &Plan, rows: Vec<LaunchCounters>) -> Assigned {
    let mut warnings = Vec::new();
    let mut expected: HashMap<ShapeKey, Vec<usize>> = HashMap::new();
    for &i in &plan.selected {
        let t = &plan.launches[i];
        expected
            .entry((t.function.clone(), t.grid, t.block))
            .or_default()
            .push(i);
    }
    let mut got: Vec<(ShapeKey, Vec<LaunchCounters>)> = Vec::new();
    let mut at: HashMap<ShapeKey, usize> = HashMap::new();
    for r in rows {
        let k = shape_of(&r);
        let i = *at.entry(k.clone()).or_insert_with(|| {
            got.push((k, Vec::new()));
            got.len() - 1
        });
        got[i].1.push(r);
    }
    let mut out: Vec<Option<LaunchCounters>> = vec![None; plan.launches.len()];
    let mut strays = Vec::new();
    for (key, rows) in got {
        let want = expected.get(&key).cloned().unwrap_or_default();
        if want.len() == rows.len() {
            for (i, r) in want.into_iter().zip(rows) {
                out[i] = Some(r);
            }
            continue;
        }
        let same: Vec<usize> = (0..plan.launches.len())
            .filter(|&i| plan.launches[i].shape() == (key.0.as_str(), key.1, key.2))
            .collect();
        if same.is_empty() {
            strays.extend(rows);
            continue;
        }
        warnings.push(format!(
            "sampling: ncu profiled {} launch(es) of {} where the plan selected {}; each was \
             matched to the launch of that kernel and shape nearest in duration",
            rows.len(),
            key.0,
            want.len()
        ));
        for r in rows {
            let d = r
                .metrics
                .number(counters::GPU_TIME_DURATION.name)
                .unwrap_or(0.0);
            let free = same
                .iter()
                .copied()
                .filter(|&i| out[i].is_none())
                .min_by(|&a, &b| {
                    (plan.launches[a].duration_ns - d)
                        .abs()
                        .total_cmp(&(plan.launches[b].duration_ns - d).abs())
                });
            match free {
                Some(i) => out[i] = Some(r),
                None => strays.push(r),
            }
        }
    }
    Assigned {
        rows: out,
        strays,
        warnings,
    }
}

/// Every launch of a sampled profile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expanded {
    /// One per launch of the timing pass that has counters, launch order.
    pub launches: Vec<LaunchCounters>,
    /// How many of them were profiled (the rest are scaled copies).
    pub measured: usize,
    /// Launches whose group had no profiled launch, given the counters of the nearest
    /// profiled launch of the same kernel in another group: planned for small groups
    /// ([`super::plan::Group::borrows`]), with a warning where ncu skipped a group.
    pub borrowed: usize,
    /// Launches of the timing pass left out: no launch of their kernel was profiled.
    pub left_out: usize,
    /// What a reader should know.
    pub warnings: Vec<String>,
}

/// The entry of `list` (index, duration) nearest in duration to `ns`.
fn nearest(list: &[(usize, f64)], ns: f64) -> Option<(usize, f64)> {
    list.iter()
        .copied()
        .min_by(|a, b| (a.1 - ns).abs().total_cmp(&(b.1 - ns).abs()))
}

/// How alike a launch to borrow from must be.
#[derive(Clone, Copy)]
enum Like {
    /// Same kernel, grid and block.
    Shape,
    /// Same kernel and block, any grid (a tail's bigger grid).
    Block,
    /// Same kernel.
    Kernel,
}

/// The profiled launches (`all`: index, duration) of `t`'s kernel that are `like` it.
fn of_shape(plan: &Plan, all: &[(usize, f64)], t: &TimedLaunch, like: Like) -> Vec<(usize, f64)> {
    all.iter()
        .copied()
        .filter(|&(j, _)| {
            let o = &plan.launches[j];
            o.function == t.function
                && match like {
                    Like::Shape => o.grid == t.grid && o.block == t.block,
                    Like::Block => o.block == t.block,
                    Like::Kernel => true,
                }
        })
        .collect()
}

/// How much of `rep`'s amounts launch `t` gets: the ratio of their blocks when they run
/// one kernel and block on different grids (a tail borrowing from its bigger grid: the
/// work per block is the same, the time per block is not, as the last wave is partial),
/// else the ratio of their measured times (`rep_ns`: `rep`'s).
fn scale_factor(rep: &TimedLaunch, t: &TimedLaunch, rep_ns: f64) -> f64 {
    let by_blocks = (rep.grid != t.grid && rep.block == t.block)
        .then(|| Some(blocks(t.grid)? / blocks(rep.grid)?))
        .flatten()
        .filter(|f| f.is_finite() && *f > 0.0);
    match by_blocks {
        Some(f) => f,
        None if rep_ns > 0.0 => t.duration_ns / rep_ns,
        None => 1.0,
    }
}

/// How far apart (relative) a group's measured launches' instruction counts may be for the
/// group to count as doing one fixed amount of work (1 %).
pub const SAME_WORK: f64 = 0.01;

/// Whether the measured launches `rows` of one group did the same work: two or more, each
/// warp- and thread-level instruction count (a `.sum` in `inst`, which replay makes
/// repeatable) within [`SAME_WORK`] of the others'. Such a group's other launches get its
/// amounts unscaled: a launch of the same kernel, grid and block that ran a little longer did
/// not do more (scaling by time gave the 4-layer BERT step's identical Linear launches up to
/// 5 % more or fewer FLOPs than their 2MNK). A group whose measured launches did different
/// work (an optimizer's `multi_tensor_apply_kernel` over chunks of different sizes, one grid)
/// keeps scaling by time.
fn same_work(rows: &[&LaunchCounters]) -> bool {
    let Some(first) = rows.first() else {
        return false;
    };
    let keys: Vec<&MetricKey> = first
        .metrics
        .columns()
        .keys()
        .iter()
        .filter(|k| k.unit == "inst" && k.name.ends_with(".sum"))
        .collect();
    rows.len() >= 2
        && !keys.is_empty()
        && keys.iter().all(|k| {
            let v: Vec<f64> = rows
                .iter()
                .filter_map(|r| r.metrics.number(&k.name))
                .collect();
            let (lo, hi) = v.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
            v.len() == rows.len() && hi <= lo * (1.0 + SAME_WORK)
        })
}

/// Whether launch `t` takes the amounts of its own group's measured launch (`own`: index,
/// duration) unscaled: where the group's measured launches did the same work (`same`:
/// `Some(Some(true))`), or where one was measured (`Some(None)`) and `t` ran within
/// [`SPLIT_GAP`] of it.
fn unscaled(own: Option<(usize, f64)>, same: Option<Option<bool>>, t: &TimedLaunch) -> bool {
    match (own, same) {
        (Some(_), Some(Some(same))) => same,
        (Some((_, rep_ns)), Some(None)) => {
            rep_ns > 0.0 && (t.duration_ns / rep_ns - 1.0).abs() < SPLIT_GAP
        }
        _ => false,
    }
}

/// A copy of `row` with its amounts ([`scales_with_work`]) multiplied by `factor`.
fn scaled_copy(row: &LaunchCounters, factor: f64) -> LaunchCounters {
    let mut copy = row.clone();
    if factor != 1.0 {
        let scaled: Vec<usize> = copy
            .metrics
            .columns()
            .keys()
            .iter()
            .enumerate()
            .filter(|(_, k)| scales_with_work(k))
            .map(|(j, _)| j)
            .collect();
        for j in scaled {
            if let Some(v) = copy.metrics.number_at(j) {
                copy.metrics.set_number(j, v * factor);
            }
        }
    }
    copy
}

/// A launch that borrows counters keeps its own place and shape (a tail or a minor group
/// borrows from another grid of its kernel): context, stream, grid and block from the timing
/// pass, its grid size, and its waves scaled from the measured launch's by blocks (same
/// block, so the same blocks per SM). Every launch keeps its own NVTX ranges, those the
/// timing pass saw it in: the counters scaled onto a launch are its group's, the ranges
/// are its own (`copied`: it carries another launch's counters, and so its ranges too
/// until replaced, even by none).
fn keep_own_site(launch: &mut LaunchCounters, t: &TimedLaunch, copied: bool) {
    if (copied || t.nvtx.is_some()) && launch.site.nvtx != t.nvtx {
        launch.site_mut().nvtx.clone_from(&t.nvtx);
    }
    if (t.context.is_some() && t.context != launch.site.context)
        || (t.stream.is_some() && t.stream != launch.site.stream)
        || (t.grid.is_some() && t.grid != launch.site.grid)
        || (t.block.is_some() && t.block != launch.site.block)
    {
        let site = launch.site_mut();
        site.context = t.context.or(site.context);
        site.stream = t.stream.or(site.stream);
        let rep_grid = site.grid;
        let same_block = t.block.is_none() || t.block == site.block;
        site.grid = t.grid.or(site.grid);
        site.block = t.block.or(site.block);
        // Its own grid size, and its waves from the measured launch's (same block, so
        // the same blocks per SM).
        let blocks =
            |g: Option<[u32; 3]>| g.map(|[x, y, z]| f64::from(x) * f64::from(y) * f64::from(z));
        if let (Some(own), Some(rep)) = (blocks(t.grid), blocks(rep_grid)) {
            let cols = launch.metrics.columns();
            let grid_at = cols.position(counters::GRID_SIZE.name);
            let waves_at = cols.position(counters::WAVES_PER_SM.name);
            if let Some(j) = grid_at {
                launch.metrics.set_number(j, own);
            }
            if let (Some(j), true) = (waves_at, same_block && rep > 0.0) {
                if let Some(w) = launch.metrics.number_at(j) {
                    launch.metrics.set_number(j, w * own / rep);
                }
            }
        }
    }
}

/// Gives every launch of the plan counters from `assigned` (one entry per launch, from
/// [`assign`]): a profiled launch keeps its own; any other gets a copy of the profiled
/// launch of its group nearest in duration, its amounts ([`scales_with_work`]) multiplied
/// by the ratio of the two launches' durations in the timing pass (unscaled where the
/// group's measured launches did the same work, `same_work`, or where the group has one
/// measured launch and the two ran within [`SPLIT_GAP`] of each other), and `sampled_from` set
/// to that launch's ID. A launch whose group has no profiled launch (ncu's selection
/// differed from the plan's, or the plan made it borrow) borrows likewise from the nearest
/// profiled launch of its kernel and shape, else of its kernel and block (scaled by blocks),
/// else of its kernel, counted in [`Expanded::borrowed`] (with a warning when unplanned);
/// only a launch of a kernel never profiled is left out. Each launch keeps its ID, context
/// and stream, and takes its duration from the timing pass.
pub fn expand(plan: &Plan, assigned: Vec<Option<LaunchCounters>>) -> Expanded {
    let group_of = plan.group_of();
    let mut out = Expanded::default();
    // The group's profiled launches: (index, duration).
    let mut profiled: Vec<Vec<(usize, f64)>> = vec![Vec::new(); plan.groups.len()];
    for (i, row) in assigned.iter().enumerate() {
        if row.is_some() {
            if let Some(&g) = group_of.get(i) {
                profiled[g].push((i, plan.launches[i].duration_ns));
            }
        }
    }
    let all: Vec<(usize, f64)> = profiled.iter().flatten().copied().collect();
    // Per group: whether its measured launches did the same work (None: only one measured,
    // no evidence either way).
    let fixed_work: Vec<Option<bool>> = profiled
        .iter()
        .map(|p| {
            let rows: Vec<&LaunchCounters> = p
                .iter()
                .filter_map(|&(i, _)| assigned[i].as_ref())
                .collect();
            (rows.len() >= 2).then(|| same_work(&rows))
        })
        .collect();
    let mut left_groups = std::collections::HashSet::new();
    let mut unplanned = 0usize;
    for (i, t) in plan.launches.iter().enumerate() {
        let (mut launch, from) = match &assigned[i] {
            Some(row) => {
                out.measured += 1;
                (row.clone(), None)
            }
            None => {
                let own = group_of
                    .get(i)
                    .and_then(|&g| profiled.get(g))
                    .and_then(|c| nearest(c, t.duration_ns));
                let fixed = unscaled(own, group_of.get(i).map(|&g| fixed_work[g]), t);
                let rep = match own {
                    Some(rep) => Some(rep),
                    None => {
                        // No profiled launch in its group (ncu counted another number
                        // of its kernel than the plan): the nearest profiled launch of
                        // the same kernel and shape, else of the same kernel.
                        let found = [Like::Shape, Like::Block, Like::Kernel]
                            .into_iter()
                            .find_map(|like| {
                                nearest(&of_shape(plan, &all, t, like), t.duration_ns)
                            });
                        if found.is_some() {
                            out.borrowed += 1;
                            if !group_of.get(i).is_some_and(|&g| plan.groups[g].borrows) {
                                unplanned += 1;
                            }
                        }
                        found
                    }
                };
                let Some((rep, rep_ns)) = rep else {
                    out.left_out += 1;
                    left_groups.insert(group_of.get(i).copied());
                    continue;
                };
                let Some(row) = assigned[rep].as_ref() else {
                    out.left_out += 1;
                    continue;
                };
                let factor = if fixed {
                    1.0
                } else {
                    scale_factor(&plan.launches[rep], t, rep_ns)
                };
                (scaled_copy(row, factor), Some(plan.launches[rep].id))
            }
        };
        launch.id = t.id;
        keep_own_site(&mut launch, t, from.is_some());
        launch.sampled_from = from.map(Box::new);
        if let Some(j) = launch
            .metrics
            .columns()
            .position(counters::GPU_TIME_DURATION.name)
        {
            launch.metrics.set_number(j, t.duration_ns);
        }
        out.launches.push(launch);
    }
    if unplanned > 0 {
        out.warnings.push(format!(
            "sampling: {unplanned} launch(es) are in groups of which ncu profiled no launch; \
             they took the counters of the nearest profiled launch of the same kernel (same \
             grid and block where one was profiled), scaled by duration"
        ));
    }
    if out.left_out > 0 {
        out.warnings.push(format!(
            "sampling: {} launch(es) in {} group(s) had no profiled launch of their kernel and \
             are left out",
            out.left_out,
            left_groups.len()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::plan::{plan, PlanOptions};
    use super::super::timing::{number_invocations, TimedLaunch};
    use super::*;

    fn timed(id: u64, f: &str, ns: f64) -> TimedLaunch {
        TimedLaunch {
            id,
            function: f.into(),
            grid: Some([4, 1, 1]),
            block: Some([128, 1, 1]),
            context: Some(1),
            stream: Some(7),
            nvtx: None,
            shared_mem: None,
            duration_ns: ns,
            invocation: 0,
        }
    }

    fn row(f: &str, ns: f64, bytes: f64, pct: f64) -> LaunchCounters {
        let mut l = LaunchCounters::from_numbers(
            f,
            &[
                (counters::GPU_TIME_DURATION.name, ns),
                (counters::DRAM_BYTES_READ.name, bytes),
                (counters::DRAM_THROUGHPUT_PCT.name, pct),
            ],
        );
        l.site_mut().grid = Some([4, 1, 1]);
        l.site_mut().block = Some([128, 1, 1]);
        l
    }

    fn three_launches() -> super::super::plan::Plan {
        let mut v = vec![
            timed(0, "k", 100.0),
            timed(1, "k", 104.0),
            timed(2, "k", 120.0),
        ];
        number_invocations(&mut v);
        let one = PlanOptions {
            major_picks: 1,
            ..PlanOptions::default()
        };
        plan(v, &one)
    }

    #[test]
    fn copies_scale_amounts_by_time_beyond_the_split_gap_and_keep_rates() {
        let p = three_launches();
        assert_eq!(p.selected, [0], "one group, one launch: invocation 1");
        let (assigned, warnings) = assign(&p, vec![row("k", 130.0, 1000.0, 50.0)]);
        assert!(warnings.is_empty(), "{warnings:?}");
        let e = expand(&p, assigned);
        assert_eq!((e.measured, e.left_out, e.launches.len()), (1, 0, 3));
        let second = &e.launches[1];
        assert_eq!(second.id, 1);
        assert_eq!(second.sampled_from.as_deref(), Some(&0));
        // 104 ns against the measured 100: within 15 %, the same work, unscaled; 120 ns:
        // beyond it, scaled by time.
        assert_eq!(
            second.metrics.number(counters::DRAM_BYTES_READ.name),
            Some(1000.0)
        );
        assert_eq!(
            e.launches[2].metrics.number(counters::DRAM_BYTES_READ.name),
            Some(1200.0)
        );
        assert_eq!(
            second.metrics.number(counters::DRAM_THROUGHPUT_PCT.name),
            Some(50.0)
        );
        // Durations are the timing pass's, the measured launch's too.
        assert_eq!(
            e.launches[0]
                .metrics
                .number(counters::GPU_TIME_DURATION.name),
            Some(100.0)
        );
        assert_eq!(e.launches[0].sampled_from, None);
    }

    #[test]
    fn rows_ncu_selected_otherwise_are_matched_by_duration_with_a_warning() {
        let p = three_launches();
        let rows = vec![
            row("k", 104.0, 1.0, 1.0),
            row("k", 100.0, 2.0, 1.0),
            row("other", 5.0, 3.0, 1.0),
        ];
        let (assigned, warnings) = assign(&p, rows);
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("profiled 2 launch(es) of k where the plan selected 1"));
        assert!(warnings[1].contains("1 profiled launch(es) matched no launch"));
        let bytes = |i: usize| {
            assigned[i]
                .as_ref()
                .and_then(|r| r.metrics.number(counters::DRAM_BYTES_READ.name))
        };
        assert_eq!((bytes(0), bytes(1), bytes(2)), (Some(2.0), Some(1.0), None));
    }

    #[test]
    fn a_group_without_a_measured_launch_is_left_out_and_said() {
        let p = three_launches();
        let e = expand(&p, vec![None, None, None]);
        assert_eq!((e.measured, e.left_out), (0, 3));
        assert!(e.launches.is_empty());
        assert!(e.warnings[0].contains("3 launch(es) in 1 group(s) had no profiled launch"));
    }

    #[test]
    fn a_group_ncu_skipped_borrows_from_its_kernel_with_a_warning() {
        // Two groups of one kernel (durations 10x apart: split), ncu profiled the long one
        // only; the short launches borrow its counters scaled by time.
        let mut v = vec![
            timed(0, "k", 100.0),
            timed(1, "k", 1000.0),
            timed(2, "k", 101.0),
            timed(3, "k", 1010.0),
        ];
        number_invocations(&mut v);
        let p = plan(v, &PlanOptions::default());
        assert_eq!(p.groups.len(), 2, "{:?}", p.groups);
        let mut assigned = vec![None; 4];
        assigned[1] = Some(row("k", 1000.0, 5000.0, 80.0));
        let e = expand(&p, assigned);
        assert_eq!((e.measured, e.borrowed, e.left_out), (1, 2, 0));
        assert_eq!(e.launches.len(), 4);
        assert_eq!(e.launches[0].sampled_from.as_deref(), Some(&1));
        assert_eq!(
            e.launches[0].metrics.number(counters::DRAM_BYTES_READ.name),
            Some(500.0)
        );
        assert!(
            e.warnings
                .iter()
                .any(|w| w.contains("2 launch(es) are in groups of which ncu profiled no launch")),
            "{:?}",
            e.warnings
        );
    }

    #[test]
    fn amounts_are_sums_and_elapsed_cycles() {
        let key = |name: &str, unit: &str| MetricKey {
            name: name.into(),
            unit: unit.into(),
        };
        assert!(scales_with_work(&key(
            counters::DRAM_BYTES_READ.name,
            "byte"
        )));
        assert!(scales_with_work(&key(counters::SM_CYCLES.name, "cycle")));
        assert!(!scales_with_work(&key(
            counters::GPU_TIME_DURATION.name,
            "ns"
        )));
        assert!(!scales_with_work(&key(counters::SM_HZ.name, "hz")));
        assert!(!scales_with_work(&key(
            counters::DRAM_THROUGHPUT_PCT.name,
            "%"
        )));
    }
}
