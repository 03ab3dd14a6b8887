//! Joining the launches of several exports of one run (a raw and a details page, say) into
//! one list, keyed so that distinct kernels never merge.
//!
//! A launch is known by its process ID, its launch `ID` and its kernel's name. Two launches
//! with the same key join (the details page's rows of one launch, handed on in pieces; the
//! raw and the details page of one launch) unless they hold different values for the same
//! metric, which two exports of one launch never do. Otherwise they stay apart, each
//! collision a warning:
//!
//! - the same process and launch ID with another kernel: two runs' exports given together,
//!   or an export whose IDs were edited; kept as two launches;
//! - the same key with different values: kept as two launches;
//! - a row of a raw page repeated exactly (same key, same values, in one export): a true
//!   duplicate, dropped;
//! - a whole row (raw page) given again in another raw page with the same values and no
//!   metric more (the same export given twice): kept once.
//!
//! Each kind of collision gives one warning, with its count and its first instance, so a
//! million rows sharing an ID give three lines at most, not a million. Linear in the number
//! of launches: a launch is compared with the latest launch of its key only.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

use super::export::{Export, Page, Warning};
use crate::model::artifact::{LaunchCounters, MetricValue, NvtxRanges};

/// Joins the launches of several exports of the same run, keeping first-seen order (see
/// the module's doc); the exports are named `export 1`, `export 2`, ... in warnings.
pub fn combine(exports: Vec<Export>) -> (Vec<LaunchCounters>, Vec<Warning>) {
    let named = exports
        .into_iter()
        .enumerate()
        .map(|(i, e)| (format!("export {}", i + 1), e))
        .collect();
    combine_named(named)
}

/// [`combine`], with each export's name (its file) for the warnings.
///
/// Metrics of a later export are added to those of the same launch; section rows are
/// appended; rules are those of one export (a report's where there is one, else the first
/// that has any).
pub fn combine_named(exports: Vec<(String, Export)>) -> (Vec<LaunchCounters>, Vec<Warning>) {
    let mut kept = Kept::default();
    // Only launches whose process and launch ID another has go in the maps below.
    let (may_collide, mut ordinal) = (sharing_keys(&exports), 0usize);
    // Which export each launch came from.
    let mut origin: Vec<u32> = Vec::new();
    // The latest launch of each (process, ID, kernel name hash).
    let mut latest: HashMap<(Option<u64>, u64, u64), usize> = HashMap::new();
    // The first launch of each (process, ID), whatever its kernel.
    let mut first: HashMap<(Option<u64>, u64), usize> = HashMap::new();
    let mut warnings = Vec::new();
    let [mut other_kernel, mut other_values, mut duplicates, mut given_twice] =
        <[Collisions; 4]>::default();
    let names: Vec<String> = exports.iter().map(|(n, _)| n.clone()).collect();
    let whole: Vec<bool> = exports
        .iter()
        .map(|(_, x)| matches!(x.page, Page::Raw | Page::GuiRaw))
        .collect();
    for (e, (_, export)) in exports.into_iter().enumerate() {
        warnings.extend(export.warnings);
        // Each row of these pages is a whole launch: a second one with the same key in the
        // same export is never a piece of the first.
        let whole_rows = matches!(export.page, Page::Raw | Page::GuiRaw);
        let e32 = u32::try_from(e).unwrap_or(u32::MAX);
        let step = |launch: LaunchCounters, kept: &mut Kept| {
            let lonely = !may_collide.get(ordinal);
            ordinal += 1;
            if lonely {
                kept.push(launch);
                origin.push(e32);
                return;
            }
            let (process, id) = (launch.site.process_id, launch.id);
            let key = (process, id, name_hash(&launch.function));
            let at = latest
                .get(&key)
                .copied()
                .filter(|&i| kept.get(i).is_some_and(|l| l.function == launch.function));
            if let Some(i) = at {
                let same_export = origin.get(i) == Some(&e32);
                let Some(existing) = kept.get_mut(i) else {
                    return;
                };
                if !conflicts(existing, &launch) {
                    if same_export && whole_rows {
                        duplicates.note(|| {
                            format!(
                                "{}: {} appears more than once with the same values",
                                names.get(e).map_or("", String::as_str),
                                launch_text(&launch)
                            )
                        });
                    } else {
                        let first_in = origin.get(i).map_or(e, |&o| o as usize);
                        if whole_rows
                            && whole.get(first_in) == Some(&true)
                            && adds_nothing(existing, &launch)
                        {
                            given_twice.note(|| {
                                format!(
                                    "{} is in {} and again, with the same values and nothing \
                                     more, in {}",
                                    launch_text(&launch),
                                    names.get(first_in).map_or("", String::as_str),
                                    names.get(e).map_or("", String::as_str)
                                )
                            });
                        }
                        merge_into(existing, launch);
                    }
                    return;
                }
                let first_in = origin.get(i).map_or(e, |&o| o as usize);
                other_values.note(|| {
                    format!(
                        "{} has different values in {} and {}",
                        launch_text(&launch),
                        names.get(first_in).map_or("", String::as_str),
                        names.get(e).map_or("", String::as_str)
                    )
                });
            } else if let Some(&j) = first.get(&(process, id)) {
                if let Some(other) = kept.get(j) {
                    let name_of = |k: usize| names.get(k).map_or("", String::as_str);
                    let first_in = origin.get(j).map_or(e, |&o| o as usize);
                    other_kernel.note(|| {
                        let same = first_in == e;
                        other_kernel_text(other, &launch, same, name_of(first_in), name_of(e))
                    });
                }
            }
            first.entry((process, id)).or_insert(kept.len());
            latest.insert(key, kept.len());
            kept.push(launch);
            origin.push(e32);
        };
        kept.take_each(export.launches, e == 0, step);
    }
    warnings.extend(collision_warnings([
        other_kernel,
        other_values,
        duplicates,
        given_twice,
    ]));
    kept.v.truncate(kept.len);
    (kept.v, warnings)
}

/// The warnings of the four kinds of collision, in the order other kernel, other values,
/// duplicates, given twice.
fn collision_warnings(kinds: [Collisions; 4]) -> impl Iterator<Item = Warning> {
    let then = [
        "kept as distinct launches (exports of different runs given together, or edited IDs?)",
        "kept as distinct launches, not joined",
        "the repeats are dropped",
        "kept once (the same export given twice?)",
    ];
    kinds
        .into_iter()
        .zip(then)
        .filter_map(|(collisions, then)| collisions.warning(then))
}

/// One bit per launch of `exports`, in order: set where another launch may have the same
/// process and launch ID (their hashes are equal), clear where none has.
struct Bits(Vec<u64>);

impl Bits {
    fn get(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }
}

/// Which launches of `exports` share their process and launch ID with another, by a sort
/// of their hashes (16 bytes a launch, freed before the launches are gone through): a hash
/// shared by chance only sends a launch through the exact look-ups. The others need none
/// (a million launches in the look-ups' maps took 200 MB).
fn sharing_keys(exports: &[(String, Export)]) -> Bits {
    let total: usize = exports.iter().map(|(_, x)| x.launches.len()).sum();
    let mut hashes: Vec<(u64, usize)> = Vec::with_capacity(total);
    for launch in exports.iter().flat_map(|(_, x)| &x.launches) {
        let mut h = std::hash::DefaultHasher::new();
        (launch.site.process_id, launch.id).hash(&mut h);
        hashes.push((h.finish(), hashes.len()));
    }
    crate::order::sort(&mut hashes);
    let mut bits = vec![0u64; total.div_ceil(64)];
    for run in hashes
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
    {
        for &(_, i) in run {
            if let Some(w) = bits.get_mut(i / 64) {
                *w |= 1 << (i % 64);
            }
        }
    }
    Bits(bits)
}

/// The launches kept so far: the first `len` of `v` (see [`combine_named`]).
#[derive(Default)]
struct Kept {
    v: Vec<LaunchCounters>,
    len: usize,
}

impl Kept {
    fn len(&self) -> usize {
        self.len
    }

    fn get(&self, i: usize) -> Option<&LaunchCounters> {
        self.v.get(..self.len).and_then(|kept| kept.get(i))
    }

    fn get_mut(&mut self, i: usize) -> Option<&mut LaunchCounters> {
        let len = self.len;
        self.v.get_mut(..len).and_then(|kept| kept.get_mut(i))
    }

    /// Hands each of `launches` to `step`. The first export's are taken from their own
    /// vector, which becomes the kept one, in place: launch i is taken out and written back
    /// at or before i, so no second vector of launches is made.
    fn take_each(
        &mut self,
        launches: Vec<LaunchCounters>,
        first: bool,
        mut step: impl FnMut(LaunchCounters, &mut Kept),
    ) {
        self.v.truncate(self.len);
        if first && self.v.is_empty() {
            self.v = launches;
            for i in 0..self.v.len() {
                let Some(slot) = self.v.get_mut(i) else {
                    break;
                };
                let launch = std::mem::take(slot);
                step(launch, self);
            }
            self.v.truncate(self.len);
        } else {
            self.v.reserve_exact(launches.len());
            for launch in launches {
                step(launch, self);
            }
        }
    }

    /// Keeps `launch` after the others, over a slot already taken from when there is one.
    fn push(&mut self, launch: LaunchCounters) {
        match self.v.get_mut(self.len) {
            Some(slot) => *slot = launch,
            None => self.v.push(launch),
        }
        self.len += 1;
    }
}

/// One kind of key collision: how many, and the first, described.
#[derive(Default)]
struct Collisions {
    count: u64,
    first: Option<String>,
}

impl Collisions {
    /// Counts one more; describes it only when it is the first.
    fn note(&mut self, describe: impl FnOnce() -> String) {
        self.count += 1;
        if self.first.is_none() {
            self.first = Some(describe());
        }
    }

    /// The warning, when there was any: the first instance, the count, and `then`.
    fn warning(self, then: &str) -> Option<Warning> {
        let first = self.first?;
        let more = match self.count {
            1 => String::new(),
            n => format!(" (and {} more like it)", n - 1),
        };
        Some(Warning {
            line: None,
            message: format!("{first}{more}; {then}"),
        })
    }
}

/// `launch ID N of process P (kernel)`, for the collision warnings.
fn launch_text(l: &LaunchCounters) -> String {
    format!(
        "launch ID {}{} ({})",
        l.id,
        process(l.site.process_id),
        l.function
    )
}

/// The same process and launch ID as `other` (first seen in export `first_in`) given to
/// another kernel, `launch`, in export `this` (`same`: one export).
fn other_kernel_text(
    other: &LaunchCounters,
    launch: &LaunchCounters,
    same: bool,
    first_in: &str,
    this: &str,
) -> String {
    let id = format!("launch ID {}{}", launch.id, process(launch.site.process_id));
    if same {
        format!(
            "{this}: {id} is both {} and {}",
            other.function, launch.function
        )
    } else {
        format!(
            "{id} is {} in {first_in} and {} in {this}",
            other.function, launch.function
        )
    }
}

/// ` of process P`, or nothing when the export names no process.
fn process(pid: Option<u64>) -> String {
    pid.map_or_else(String::new, |p| format!(" of process {p}"))
}

/// A hash of a kernel name, for the index (equality is checked on the names themselves).
fn name_hash(name: &str) -> u64 {
    let mut h = std::hash::DefaultHasher::new();
    name.hash(&mut h);
    h.finish()
}

/// Whether `a` and `b` hold different values for a metric both have, or different grid or
/// block sizes: then they are not one launch.
fn conflicts(a: &LaunchCounters, b: &LaunchCounters) -> bool {
    let differ = |x: Option<[u32; 3]>, y: Option<[u32; 3]>| x.is_some() && y.is_some() && x != y;
    if differ(a.site.grid, b.site.grid) || differ(a.site.block, b.site.block) {
        return true;
    }
    b.metrics.iter().any(|(name, m)| {
        m.value != MetricValue::Missing
            && a.metrics
                .get(name)
                .is_some_and(|e| e.value != MetricValue::Missing && e != m)
    })
}

/// Whether `other` (which does not [`conflicts`] with `existing`) holds no metric that
/// `existing` lacks: a second copy of the same whole row, not another page of the launch.
fn adds_nothing(existing: &LaunchCounters, other: &LaunchCounters) -> bool {
    other.metrics.iter().all(|(name, m)| {
        m.value == MetricValue::Missing
            || existing
                .metrics
                .get(name)
                .is_some_and(|e| e.value != MetricValue::Missing)
    })
}

/// Adds `other`'s measurements to `existing` and fills identity fields it lacks.
pub(super) fn merge_into(existing: &mut LaunchCounters, other: LaunchCounters) {
    existing.metrics.extend(other.metrics);
    existing.sections.extend(other.sections);
    // A report and a details page of the same run carry the same findings: one set is
    // kept, a report's where there is one (its findings have titles and focus metrics, a
    // page's none), else the first.
    let from_report = |rules: &[crate::model::artifact::RuleResult]| {
        rules
            .iter()
            .any(|r| r.title.is_some() || !r.focus_metrics.is_empty())
    };
    if existing.rules.is_empty() || (from_report(&other.rules) && !from_report(&existing.rules)) {
        existing.rules = other.rules;
    }
    if existing.function.is_empty() {
        existing.function = other.function;
    }
    if existing.site != other.site {
        let (mine, theirs) = (existing.site_mut(), &*other.site);
        let text = |mine: &mut Option<Arc<str>>, theirs: &Option<Arc<str>>| {
            if mine.is_none() {
                mine.clone_from(theirs);
            }
        };
        text(&mut mine.demangled, &theirs.demangled);
        text(&mut mine.process_name, &theirs.process_name);
        text(&mut mine.host, &theirs.host);
        text(&mut mine.cc, &theirs.cc);
        mine.device = mine.device.or(theirs.device);
        mine.context = mine.context.or(theirs.context);
        mine.stream = mine.stream.or(theirs.stream);
        mine.grid = mine.grid.or(theirs.grid);
        mine.block = mine.block.or(theirs.block);
        // A report keeps push/pop ranges only; a CSV page of it has the start/end ones too.
        let has_start_end =
            |n: &Option<Arc<NvtxRanges>>| n.as_ref().is_some_and(|n| !n.start_end.is_empty());
        if mine.nvtx.is_none() || (has_start_end(&theirs.nvtx) && !has_start_end(&mine.nvtx)) {
            mine.nvtx.clone_from(&theirs.nvtx);
        }
    }
}
