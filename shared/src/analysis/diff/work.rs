//! The work gate (`capture diff --gate-work PCT`, issue 37): run against run on the work
//! each kernel did ([`crate::analysis::work_vector`]), not on its time. Work counted by
//! the hardware repeats from run to run where time does not, so a gate on it can be tight.
//!
//! - Kernels are matched as for time, then by NVTX range and launch shapes, then by launch
//!   shapes alone ([`super::matching::match_renamed`]), in launch order: a renamed Triton
//!   kernel or another cuBLAS tile of the same shapes is still the same kernel. Each row
//!   says which rule matched it.
//! - For every part both sides have (each component, each FLOP kind) the change is
//!   `after / before - 1`. A part fails when it grows by more than PCT, by more than its
//!   tolerance (`sigmas x CV` from the tolerance file, [`WorkTolerance`], else 0: exact, the
//!   default, not measured) and by more than its floor in its unit (the file's, else 0).
//!   Growth from 0 fails. A part one side lacks is listed as not compared.
//! - A kernel that appears or vanishes is work too: it fails the gate.
//! - The gate cannot judge (and so fails) when a side has no work vector at all, or a
//!   matched kernel shares no part with its partner.

use std::collections::{BTreeMap, HashSet};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::matching::{match_renamed, MatchKind};
use crate::analysis::work_vector::{
    builds_of, checked_vectors, contradictions, parts, value, Build, CheckedWork, Part,
};
use crate::model::artifact::{Artifact, KernelWork, WorkComponent, WorkVector};
use crate::model::roofline::percent_of;
use crate::model::work_kind::Work;
use crate::text::names::distinct_short_names;

/// The version of the tolerance file format this build reads.
pub const TOLERANCE_VERSION: u32 = 1;

/// Standard deviations a part may move before it counts, when the file does not say.
pub const DEFAULT_SIGMAS: f64 = 3.0;

/// The most standard deviations a tolerance file may allow: beyond 6, a normal spread is
/// passed by fewer than one sample in 500 million, so a larger figure is no measured
/// tolerance but a gate turned off.
pub const MAX_SIGMAS: f64 = 6.0;

/// The largest coefficient of variation a tolerance file may give, percent. A count that
/// repeats no better than this (a standard deviation above its mean) is no count to gate
/// on; the largest measured is 15.1 % (DRAM bytes written, docs/ci.md).
pub const MAX_CV_PCT: f64 = 100.0;

/// The largest tolerance (`sigmas x cv_pct`) a part may be given, percent: one that lets a
/// part double is not a measurement of repeat runs (the largest measured: 3 x 15.1 %).
pub const MAX_TOLERANCE_PCT: f64 = 100.0;

/// The largest floor a part may be given, in its unit. `tests/determinism/cv.py` takes the
/// floor from kernels too small for a CV (below 10^6 in the part's unit, its
/// `--min-count`), so ten times that is no such spread; the largest measured is 343,808
/// (DRAM bytes written).
pub const MAX_FLOOR: f64 = 1e7;

/// The fewest runs a part's spread may be measured over: a standard deviation needs two
/// (`tests/determinism/corpus-pairs.tolerance.json` is pairs by design; cv.py compares a
/// kernel over 3 or more).
pub const MIN_RUNS: u32 = 2;

/// The work gate's tolerances, per part: read from a small JSON file (docs/ci.md), written
/// from measured repeat runs (`tests/determinism/`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkTolerance {
    /// The format's version: [`TOLERANCE_VERSION`].
    pub work_tolerance: u32,
    /// What the figures were measured on (GPU, ncu, programs), for people.
    #[serde(default)]
    pub measured_on: Option<String>,
    /// How many standard deviations a part may grow before it counts
    /// ([`DEFAULT_SIGMAS`] when absent).
    #[serde(default = "default_sigmas")]
    pub sigmas: f64,
    /// Each part's measured spread, by its key (`l2_sectors`, `flops.fp32`); a part not
    /// listed must repeat exactly. A key given twice is refused (JSON readers differ on
    /// which one counts).
    #[serde(deserialize_with = "each_once")]
    pub components: BTreeMap<String, ComponentTolerance>,
    /// The measured run-to-run spread of kernel time ([`super::drift`]: `capture diff
    /// --noise-tolerance` widens the time bands by it); absent in files written before it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<super::spread::TimeSpread>,
}

/// The components map, refusing a key given twice (serde's map would keep the last).
fn each_once<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<BTreeMap<String, ComponentTolerance>, D::Error> {
    struct Once;
    impl<'de> serde::de::Visitor<'de> for Once {
        type Value = BTreeMap<String, ComponentTolerance>;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a map of part keys to tolerances")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            let mut out = BTreeMap::new();
            while let Some(key) = map.next_key::<String>()? {
                if out.contains_key(&key) {
                    return Err(serde::de::Error::custom(format!(
                        "component {key:?} is given twice: a tolerance file names each part once"
                    )));
                }
                let value = map.next_value()?;
                out.insert(key, value);
            }
            Ok(out)
        }
    }
    d.deserialize_map(Once)
}

fn default_sigmas() -> f64 {
    DEFAULT_SIGMAS
}

/// One part's measured spread.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentTolerance {
    /// The largest coefficient of variation of the part over the kernels measured, percent
    /// (standard deviation over mean, of the repeat runs).
    pub cv_pct: f64,
    /// How many runs the CV was measured over.
    pub runs: u32,
    /// A change no larger than this, in the part's unit, is not held against a kernel:
    /// the largest spread (max - min over the runs) seen on kernels too small for their
    /// CV to mean anything (a few DRAM sectors written by a kernel of microseconds). 0
    /// when absent.
    #[serde(default)]
    pub floor: f64,
}

/// Why a tolerance file was refused.
#[derive(Debug, Error, PartialEq)]
pub enum ToleranceError {
    /// Not the JSON the format wants.
    #[error("line {line}, column {column}: {message}")]
    Json {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column.
        column: usize,
        /// serde_json's message.
        message: String,
    },
    /// A version this build does not read.
    #[error("work_tolerance {found} is not the version this build reads ({TOLERANCE_VERSION})")]
    Version {
        /// The file's version.
        found: u32,
    },
    /// A key that names no part of the work vector.
    #[error("component {key:?} is not a part of the work vector (keys: docs/ci.md)")]
    UnknownComponent {
        /// The key.
        key: String,
    },
    /// A number no measurement can give.
    #[error("{what} {} is not possible: {reason}", figure_text(*.value))]
    BadValue {
        /// Which figure (`l2_sectors.cv_pct`, `sigmas`).
        what: String,
        /// The value.
        value: f64,
        /// What it must be.
        reason: &'static str,
    },
}

/// A figure of a tolerance file as an error shows it: `1e308` rather than its 309 digits.
fn figure_text(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

impl WorkTolerance {
    /// Reads and checks a tolerance file's text.
    pub fn from_json(text: &str) -> Result<WorkTolerance, ToleranceError> {
        let t: WorkTolerance = serde_json::from_str(text).map_err(|e| {
            // serde_json's text ends with the place, which the error gives first.
            let text = e.to_string();
            let message = text
                .rsplit_once(" at line ")
                .map_or(text.as_str(), |(m, _)| m)
                .to_string();
            ToleranceError::Json {
                line: e.line(),
                column: e.column(),
                message,
            }
        })?;
        if t.work_tolerance != TOLERANCE_VERSION {
            return Err(ToleranceError::Version {
                found: t.work_tolerance,
            });
        }
        let bad = |what: String, value: f64, reason: &'static str| {
            Err(ToleranceError::BadValue {
                what,
                value,
                reason,
            })
        };
        if !(t.sigmas.is_finite() && (0.0..=MAX_SIGMAS).contains(&t.sigmas)) {
            return bad(
                "sigmas".into(),
                t.sigmas,
                "from 0 to 6 (MAX_SIGMAS): more lets any noise pass",
            );
        }
        for (key, c) in &t.components {
            if Part::from_key(key).is_none() {
                return Err(ToleranceError::UnknownComponent { key: key.clone() });
            }
            if !(c.cv_pct.is_finite() && (0.0..=MAX_CV_PCT).contains(&c.cv_pct)) {
                return bad(
                    format!("{key}.cv_pct"),
                    c.cv_pct,
                    "a percentage from 0 to 100 (MAX_CV_PCT): a count that repeats no better \
                     is no count to gate on",
                );
            }
            if t.sigmas * c.cv_pct > MAX_TOLERANCE_PCT {
                return bad(
                    format!("{key}: sigmas x cv_pct"),
                    t.sigmas * c.cv_pct,
                    "at most 100 % (MAX_TOLERANCE_PCT): a tolerance that lets a part double is \
                     no measurement of repeat runs",
                );
            }
            if !(c.floor.is_finite() && (0.0..=MAX_FLOOR).contains(&c.floor)) {
                return bad(
                    format!("{key}.floor"),
                    c.floor,
                    "an amount from 0 to 1e7 (MAX_FLOOR): floors are the spread of kernels \
                     below 1e6 in the part's unit",
                );
            }
            if c.runs < MIN_RUNS {
                return bad(
                    format!("{key}.runs"),
                    f64::from(c.runs),
                    "a spread needs 2 runs or more (MIN_RUNS)",
                );
            }
        }
        Ok(t)
    }

    /// A part's tolerance, percent: `sigmas x cv_pct`, 0 where the file has no figure.
    pub fn pct(&self, part: Part) -> f64 {
        self.components
            .get(&part.key())
            .map_or(0.0, |c| self.sigmas * c.cv_pct)
    }

    /// A part's floor, in its unit: 0 where the file has no figure.
    pub fn floor(&self, part: Part) -> f64 {
        self.components.get(&part.key()).map_or(0.0, |c| c.floor)
    }
}

/// One side of a kernel in the work gate.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkSide {
    /// Index of the kernel in its artifact.
    pub index: usize,
    /// Full name.
    pub name: String,
    /// Short name, distinct within its artifact.
    pub short_name: String,
    /// Launches summed (0 without a work vector).
    pub launches: u64,
    /// Of them, launches of a sampled profile counted as their group's measured launch.
    pub copied_launches: u64,
}

/// One part's change in a matched kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartChange {
    /// Key (`l2_sectors`, `flops.tensor_bf16`).
    pub key: String,
    /// For people (`L2 sectors`).
    pub label: String,
    /// Before.
    pub before: f64,
    /// After.
    pub after: f64,
    /// `after / before - 1`, percent; `null` when before is 0 (with `after` above 0 it is
    /// growth from nothing, and fails).
    pub change_pct: Option<f64>,
    /// The tolerance it was held to, percent (0: exact).
    pub tolerance_pct: f64,
    /// The change it may make whatever its percentage, in its unit (0: none).
    pub floor: f64,
    /// Worked from a rate on either side (FLOPs of a `--set full` export): close, not exact.
    pub derived: bool,
    /// Whether it grew by more than the gate and its tolerance.
    pub failed: bool,
}

/// One matched kernel's work, before against after.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelWorkDiff {
    /// The rule that matched the two sides.
    pub matched_by: MatchKind,
    /// The before run's side.
    pub before: WorkSide,
    /// The after run's side.
    pub after: WorkSide,
    /// Every part both sides have, in the vector's order.
    pub parts: Vec<PartChange>,
    /// Parts one side has and the other not (another metric set), not compared.
    pub not_compared: Vec<String>,
    /// The change in one line: the parts that failed, else the one that moved most, and
    /// instructions (`L2 sectors +3.1 %, instructions 0.0 %`).
    pub summary: String,
    /// Whether a part failed.
    pub gate_failed: bool,
    /// Another build of the kernel ran (`registers 40 -> 32, shared memory 9216 -> 1056 B
    /// per block`): the source of a change under one name, grid and block.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebuilt: Option<String>,
}

/// The work gate's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkDiff {
    /// `--gate-work`, percent.
    pub pct: f64,
    /// Where the tolerances came from (`file: ...`, or exact where none was given).
    pub tolerance: String,
    /// Whether it failed: a part grew beyond the gate and its tolerance, a kernel appeared
    /// or vanished, or the gate could not judge the runs.
    pub failed: bool,
    /// What failed, one line each (`vector_add: L2 sectors +3.1 %, instructions 0.0 %`,
    /// `appeared: copy_kernel`, `vanished: fused_add`).
    pub failures: Vec<String>,
    /// Why the gate could not judge the runs; empty when it could.
    pub cannot_judge: Vec<String>,
    /// Matched kernels, failed first, then in the before run's order.
    pub kernels: Vec<KernelWorkDiff>,
    /// Kernels that vanished.
    pub only_before: Vec<WorkSide>,
    /// Kernels that appeared.
    pub only_after: Vec<WorkSide>,
}

/// What the tolerance line says when no file was given.
pub const NO_TOLERANCE_FILE: &str =
    "none given: every part must repeat exactly (not measured; see docs/ci.md)";

/// The work gate over two runs: `pct` percent, with `tolerance` (exact without one).
pub fn work_diff(
    before: &Artifact,
    after: &Artifact,
    pct: f64,
    tolerance: Option<&WorkTolerance>,
) -> WorkDiff {
    let checked = [
        checked_vectors(&before.kernels),
        checked_vectors(&after.kernels),
    ];
    let shorts = [short_names(before), short_names(after)];
    let mut cannot_judge = unchecked(&checked, &shorts);
    let vectors: [Vec<Option<KernelWork>>; 2] =
        checked.map(|run| run.into_iter().map(|c| c.work).collect());
    let presence = Presence::of(before, after, &vectors);
    let side = |run: usize, i: usize| -> WorkSide {
        let artifact = if run == 0 { before } else { after };
        let total = vectors[run]
            .get(i)
            .and_then(|v| v.as_ref())
            .map(|w| &w.total);
        WorkSide {
            index: i,
            name: artifact
                .kernels
                .get(i)
                .map(|k| k.name.to_string())
                .unwrap_or_default(),
            short_name: shorts[run].get(i).cloned().unwrap_or_default(),
            launches: total.map_or(0, |t| t.launches),
            copied_launches: total.map_or(0, |t| t.copied_launches),
        }
    };
    let m = match_renamed(before, after);
    for (name, run) in ["before", "after"].iter().zip(&vectors) {
        if run.iter().all(Option::is_none) {
            cannot_judge.push(format!(
                "{name}: no kernel has a work vector (no instruction, sector or byte counters)"
            ));
        }
    }
    cannot_judge.extend(contradicting(&vectors, &shorts));
    let mut kernels: Vec<KernelWorkDiff> = Vec::new();
    for p in &m.pairs {
        let (b, a) = (side(0, p.before), side(1, p.after));
        let vb = vectors[0].get(p.before).and_then(|v| v.as_ref());
        let va = vectors[1].get(p.after).and_then(|v| v.as_ref());
        let Some((vb, va)) = vb.zip(va) else {
            if vb.is_some() || va.is_some() {
                cannot_judge.push(format!("{}: a work vector in one run only", a.short_name));
            }
            continue;
        };
        cannot_judge.extend(incomplete(&a.short_name, vb, va));
        let mut k = compare(p.matched_by, b, a, vb, va, pct, tolerance);
        k.rebuilt = before
            .kernels
            .get(p.before)
            .zip(after.kernels.get(p.after))
            .and_then(|(kb, ka)| rebuilt(&builds_of(kb), &builds_of(ka)));
        if let Some(r) = k.rebuilt.as_deref().filter(|_| k.gate_failed) {
            k.summary = format!("{} (another build: {r})", k.summary);
        }
        if k.parts.is_empty() {
            cannot_judge.push(format!(
                "{}: no part of the work vector in both runs",
                k.after.short_name
            ));
        }
        cannot_judge.extend(presence.missing(&k, vb));
        kernels.push(k);
    }
    let only_before: Vec<WorkSide> = m.only_before.iter().map(|&i| side(0, i)).collect();
    let only_after: Vec<WorkSide> = m.only_after.iter().map(|&i| side(1, i)).collect();
    crate::order::sort_by_key(&mut kernels, |k| !k.gate_failed);
    let mut failures: Vec<String> = kernels
        .iter()
        .filter(|k| k.gate_failed)
        .map(|k| format!("{}: {}", k.after.short_name, k.summary))
        .collect();
    failures.extend(
        only_before
            .iter()
            .map(|s| format!("vanished: {}", s.short_name)),
    );
    failures.extend(
        only_after
            .iter()
            .map(|s| format!("appeared: {}", s.short_name)),
    );
    WorkDiff {
        pct,
        tolerance: tolerance_text(tolerance),
        failed: !failures.is_empty() || !cannot_judge.is_empty(),
        failures,
        cannot_judge,
        kernels,
        only_before,
        only_after,
    }
}

/// Why the gate cannot judge kernels whose stored work vector is not what their counters
/// say ([`checked_vectors`]), one line each, by run and kernel.
fn unchecked(checked: &[Vec<CheckedWork>; 2], shorts: &[Vec<String>; 2]) -> Vec<String> {
    let mut out = Vec::new();
    for (run, name) in ["before", "after"].iter().enumerate() {
        for (i, c) in checked[run].iter().enumerate() {
            if let Some(p) = &c.problem {
                let short = shorts[run].get(i).map_or("", String::as_str);
                out.push(format!("{name}: {short}: {p}"));
            }
        }
    }
    out
}

/// Which parts each run has, to tell a part one run's metric set does not collect from one
/// that went missing.
struct Presence {
    /// The comparability check found the runs' metric sets different.
    metric_sets_differ: bool,
    /// The parts some kernel of each run has.
    in_run: [HashSet<Part>; 2],
}

/// A group of missing parts: which run has them, which lacks them, and why that is wrong.
type MissingKey = (&'static str, &'static str, &'static str);

impl Presence {
    fn of(before: &Artifact, after: &Artifact, vectors: &[Vec<Option<KernelWork>>; 2]) -> Self {
        Presence {
            metric_sets_differ: super::comparable::check(before, after)
                .mismatches
                .iter()
                .any(|m| m.what == "metric_set"),
            in_run: [0, 1].map(|run| {
                vectors[run]
                    .iter()
                    .flatten()
                    .flat_map(|w| parts(&w.total).into_iter().map(|(p, _)| p))
                    .collect()
            }),
        }
    }

    /// Why the gate cannot judge kernel `k` (whose before vector is `vb`) for the parts one
    /// run has and the other lacks, one line per side. A part is left out (not compared)
    /// only where the runs were collected with other metrics and the run lacks it in every
    /// kernel (a `--set full` export against a profile's work counters); otherwise the
    /// counter went missing (dropped as out of range, removed, edited).
    fn missing(&self, k: &KernelWorkDiff, vb: &KernelWork) -> Vec<String> {
        let mut groups: Vec<(MissingKey, Vec<String>)> = Vec::new();
        for part in k.not_compared.iter().filter_map(|key| Part::from_key(key)) {
            let (has, lacking, lacks) = if value(&vb.total, part).is_some() {
                ("before", "after", 1)
            } else {
                ("after", "before", 0)
            };
            let why = if !self.metric_sets_differ {
                "collected with the same metrics"
            } else if self.in_run[lacks].contains(&part) {
                "where other kernels have it"
            } else {
                continue;
            };
            let key = (has, lacking, why);
            match groups.iter_mut().find(|(w, _)| *w == key) {
                Some((_, labels)) => labels.push(part.label()),
                None => groups.push((key, vec![part.label()])),
            }
        }
        groups
            .into_iter()
            .map(|((has, lacking, why), labels)| {
                format!(
                    "{}: {} in the {has} run but missing in the {lacking} run, {why}",
                    k.after.short_name,
                    labels.join(", ")
                )
            })
            .collect()
    }
}

/// Where the tolerances came from, in one line.
fn tolerance_text(tolerance: Option<&WorkTolerance>) -> String {
    match tolerance {
        Some(t) => format!(
            "file: {} part(s) measured{}, {} sigma(s); parts not in it must repeat exactly",
            t.components.len(),
            t.measured_on
                .as_deref()
                .map(|m| format!(" on {m}"))
                .unwrap_or_default(),
            t.sigmas
        ),
        None => NO_TOLERANCE_FILE.into(),
    }
}

/// Why the gate cannot judge the runs' kernels whose counts contradict each other
/// ([`contradictions`]), one line each, by run and kernel.
fn contradicting(vectors: &[Vec<Option<KernelWork>>; 2], shorts: &[Vec<String>; 2]) -> Vec<String> {
    let mut out = Vec::new();
    for (run, name) in ["before", "after"].iter().enumerate() {
        for (i, w) in vectors[run].iter().enumerate() {
            for c in w.iter().flat_map(|w| contradictions(&w.total)) {
                let short = shorts[run].get(i).map_or("", String::as_str);
                out.push(format!("{name}: {short}: {c}"));
            }
        }
    }
    out
}

/// Why the gate cannot judge kernel `name`: the components some launches of a run lack
/// ([`crate::model::artifact::WorkVector::incomplete`]), one line per run.
fn incomplete(name: &str, vb: &KernelWork, va: &KernelWork) -> Vec<String> {
    [("before", vb), ("after", va)]
        .into_iter()
        .filter(|(_, v)| !v.total.incomplete.is_empty())
        .map(|(run, v)| {
            let parts: Vec<&str> = v.total.incomplete.iter().map(|c| c.label()).collect();
            format!(
                "{name}: {} missing in some launches of the {run} run (a NaN, negative or \
                 out-of-range counter, kept as missing)",
                parts.join(", ")
            )
        })
        .collect()
}

/// Short names of a run's kernels, distinct within it.
fn short_names(a: &Artifact) -> Vec<String> {
    let names: Vec<&str> = a.kernels.iter().map(|k| &*k.name).collect();
    distinct_short_names(&names)
}

/// One matched kernel's parts compared.
fn compare(
    matched_by: MatchKind,
    before: WorkSide,
    after: WorkSide,
    vb: &KernelWork,
    va: &KernelWork,
    pct: f64,
    tolerance: Option<&WorkTolerance>,
) -> KernelWorkDiff {
    let (tb, ta) = (&vb.total, &va.total);
    let mut changes = Vec::new();
    let mut not_compared = Vec::new();
    let mut seen: Vec<Part> = Vec::new();
    for (part, _) in parts(tb).into_iter().chain(parts(ta)) {
        if seen.contains(&part) {
            continue;
        }
        seen.push(part);
        let (Some(b), Some(a)) = (value(tb, part), value(ta, part)) else {
            not_compared.push(part.key());
            continue;
        };
        let change_pct = percent_of(a - b, b);
        let tolerance_pct = tolerance.map_or(0.0, |t| t.pct(part));
        let floor = tolerance.map_or(0.0, |t| t.floor(part));
        let failed = a - b > floor
            && match change_pct {
                Some(c) => c > pct && c > tolerance_pct,
                None => a > 0.0,
            };
        changes.push(PartChange {
            key: part.key(),
            label: part.label(),
            before: b,
            after: a,
            change_pct,
            tolerance_pct,
            floor,
            derived: is_derived(tb, part) || is_derived(ta, part),
            failed,
        });
    }
    let gate_failed = changes.iter().any(|c| c.failed);
    KernelWorkDiff {
        matched_by,
        summary: summary(&changes),
        before,
        after,
        parts: changes,
        not_compared,
        gate_failed,
        rebuilt: None,
    }
}

/// What differs between two runs' builds of a kernel ([`builds_of`]), in words; `None`
/// when they agree or either run lacks the launch counters.
fn rebuilt(before: &[Build], after: &[Build]) -> Option<String> {
    let known = |b: &[Build]| !b.is_empty() && b.iter().all(|(r, s)| r.is_some() && s.is_some());
    if before == after || !known(before) || !known(after) {
        return None;
    }
    let registers = |b: &[Build]| join(b.iter().filter_map(|x| x.0.map(u64::from)));
    let smem = |b: &[Build]| join(b.iter().filter_map(|x| x.1));
    let mut parts = Vec::new();
    let (rb, ra) = (registers(before), registers(after));
    if rb != ra {
        parts.push(format!("registers {rb} -> {ra}"));
    }
    let (sb, sa) = (smem(before), smem(after));
    if sb != sa {
        parts.push(format!("shared memory {sb} -> {sa} B per block"));
    }
    (!parts.is_empty()).then(|| parts.join(", "))
}

/// Numbers joined with `/`.
fn join(xs: impl Iterator<Item = u64>) -> String {
    xs.map(|x| x.to_string()).collect::<Vec<_>>().join("/")
}

fn is_derived(v: &WorkVector, part: Part) -> bool {
    matches!(part, Part::Flops(kind) if v.derived.contains(&kind))
}

/// A change in percent as the gate prints it (`+3.1 %`, `from 0`).
pub fn change_text(c: &PartChange) -> String {
    match c.change_pct {
        Some(p) => format!("{p:+.1} %"),
        None if c.after > 0.0 => format!("from 0 to {}", c.after),
        None => "0 -> 0".into(),
    }
}

/// The kernel's change in one line: failed parts (else the part that moved most), then
/// instructions where they are not among them.
fn summary(changes: &[PartChange]) -> String {
    let moved = |c: &&PartChange| c.change_pct.map_or(f64::INFINITY, f64::abs);
    let mut shown: Vec<&PartChange> = changes.iter().filter(|c| c.failed).collect();
    if shown.is_empty() {
        shown.extend(
            changes
                .iter()
                .filter(|c| c.change_pct != Some(0.0) && (c.before != 0.0 || c.after != 0.0))
                .max_by(|x, y| moved(x).total_cmp(&moved(y))),
        );
    }
    let instructions = Part::Component(WorkComponent::Instructions).key();
    if !shown.iter().any(|c| c.key == instructions) {
        shown.extend(changes.iter().find(|c| c.key == instructions));
    }
    if shown.is_empty() {
        return "no part in both runs".into();
    }
    shown
        .iter()
        .map(|c| format!("{} {}", c.label, change_text(c)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Every FLOP kind and component key a tolerance file may name, for its documentation.
pub fn part_keys() -> Vec<String> {
    WorkComponent::ALL
        .iter()
        .map(|&k| Part::Component(k).key())
        .chain(Work::ALL.iter().map(|&k| Part::Flops(k).key()))
        .collect()
}

#[cfg(test)]
mod tests {
    fn change(key: &str, before: f64, after: f64, pct: Option<f64>) -> PartChange {
        PartChange {
            key: key.into(),
            label: key.into(),
            before,
            after,
            change_pct: pct,
            tolerance_pct: 0.0,
            floor: 0.0,
            derived: false,
            failed: false,
        }
    }

    #[test]
    fn another_build_is_named_by_what_differs() {
        // Seen on the H200: max-autotune's two builds of triton_per_fused_native_layer_norm_0.
        assert_eq!(
            rebuilt(&[(Some(40), Some(9216))], &[(Some(32), Some(9216))]).as_deref(),
            Some("registers 40 -> 32")
        );
        assert_eq!(
            rebuilt(&[(Some(29), Some(9216))], &[(Some(23), Some(1056))]).as_deref(),
            Some("registers 29 -> 23, shared memory 9216 -> 1056 B per block")
        );
        assert_eq!(
            rebuilt(&[(Some(29), Some(9216))], &[(Some(29), Some(9216))]),
            None
        );
        assert_eq!(
            rebuilt(&[(None, Some(9216))], &[(Some(29), Some(1056))]),
            None
        );
    }

    #[test]
    fn a_part_zero_in_both_runs_is_not_what_moved_most() {
        // Seen on the H200: a passing Triton kernel's row read "FLOPs tensor_int1 0 -> 0".
        let changes = [
            change("flops.tensor_int1", 0.0, 0.0, None),
            change("l2_sectors", 100.0, 101.0, Some(1.0)),
            change("instructions", 10.0, 10.0, Some(0.0)),
        ];
        assert_eq!(summary(&changes), "l2_sectors +1.0 %, instructions +0.0 %");
    }

    use super::*;
    use crate::model::artifact::{CounterSet, KernelRecord, LaunchCounters, Provenance};

    /// A run of one-launch kernels: name, grid, and the L2 sectors and instructions each
    /// launch counted.
    fn run(kernels: &[(&str, u32, f64, f64)]) -> Artifact {
        let mut a = Artifact::new(Provenance::default());
        for (i, (name, grid, l2, inst)) in kernels.iter().enumerate() {
            let mut l = LaunchCounters {
                id: i as u64,
                function: (*name).into(),
                ..Default::default()
            };
            l.site = std::sync::Arc::new(crate::model::artifact::LaunchSite {
                grid: Some([*grid, 1, 1]),
                block: Some([256, 1, 1]),
                ..Default::default()
            });
            for (counter, v) in [
                (crate::model::counters::L2_SECTORS, l2),
                (crate::model::counters::INST_EXECUTED, inst),
            ] {
                l.metrics.insert(
                    counter.name.into(),
                    crate::model::artifact::Metric {
                        unit: counter.unit.into(),
                        value: crate::model::artifact::MetricValue::Number(*v),
                    },
                );
            }
            a.kernels.push(KernelRecord {
                cold: Some(CounterSet::of(vec![l])),
                ..KernelRecord::new(*name, *name)
            });
        }
        a
    }

    #[test]
    fn growth_beyond_the_gate_and_the_tolerance_fails_and_is_named() {
        let before = run(&[("vector_add", 64, 1000.0, 500.0), ("copy", 32, 10.0, 7.0)]);
        let after = run(&[("vector_add", 64, 1031.0, 500.0), ("copy", 32, 10.0, 7.0)]);
        let d = work_diff(&before, &after, 1.0, None);
        assert!(d.failed);
        assert_eq!(
            d.failures,
            vec!["vector_add: L2 sectors +3.1 %, instructions +0.0 %".to_string()]
        );
        // A tolerance of 3 x 1.1 % lets it pass; so does a floor of 31 sectors.
        let tol = |cv: f64, floor: f64| WorkTolerance {
            work_tolerance: 1,
            measured_on: None,
            sigmas: 3.0,
            components: [(
                "l2_sectors".to_string(),
                ComponentTolerance {
                    cv_pct: cv,
                    runs: 20,
                    floor,
                },
            )]
            .into(),
            time: None,
        };
        assert!(!work_diff(&before, &after, 1.0, Some(&tol(1.1, 0.0))).failed);
        assert!(!work_diff(&before, &after, 1.0, Some(&tol(0.0, 31.0))).failed);
        assert!(work_diff(&before, &after, 1.0, Some(&tol(1.0, 30.0))).failed);
        // Less work never fails.
        assert!(!work_diff(&after, &before, 0.0, None).failed);
    }

    #[test]
    fn growth_from_nothing_fails() {
        let before = run(&[("k", 8, 0.0, 100.0)]);
        let after = run(&[("k", 8, 64.0, 100.0)]);
        let d = work_diff(&before, &after, 1.0, None);
        assert_eq!(
            d.failures,
            vec!["k: L2 sectors from 0 to 64, instructions +0.0 %".to_string()]
        );
    }

    #[test]
    fn renamed_kernels_are_matched_by_shape_in_launch_order() {
        // No NVTX range: the shape rule, in order; the third has no partner of its shape.
        let before = run(&[
            ("triton_poi_fused_add_0", 128, 10.0, 5.0),
            ("triton_red_fused_sum_1", 64, 10.0, 5.0),
            ("triton_poi_fused_mul_2", 32, 10.0, 5.0),
        ]);
        let after = run(&[
            ("triton_poi_fused_add_4", 128, 10.0, 5.0),
            ("triton_red_fused_sum_5", 64, 10.0, 5.0),
            ("triton_poi_fused_mul_6", 16, 10.0, 5.0),
        ]);
        let d = work_diff(&before, &after, 1.0, None);
        let matched: Vec<(&str, &str, MatchKind)> = d
            .kernels
            .iter()
            .map(|k| (k.before.name.as_str(), k.after.name.as_str(), k.matched_by))
            .collect();
        assert_eq!(
            matched,
            vec![
                (
                    "triton_poi_fused_add_0",
                    "triton_poi_fused_add_4",
                    MatchKind::Shape
                ),
                (
                    "triton_red_fused_sum_1",
                    "triton_red_fused_sum_5",
                    MatchKind::Shape
                ),
            ]
        );
        assert_eq!(
            d.failures,
            vec![
                "vanished: triton_poi_fused_mul_2".to_string(),
                "appeared: triton_poi_fused_mul_6".to_string()
            ]
        );
    }

    #[test]
    fn a_run_without_counters_cannot_be_judged() {
        let mut empty = Artifact::new(Provenance::default());
        empty.kernels.push(KernelRecord::new("k", "k"));
        let d = work_diff(&empty, &run(&[("k", 1, 1.0, 1.0)]), 1.0, None);
        assert!(d.failed);
        assert_eq!(
            d.cannot_judge,
            vec![
                "before: no kernel has a work vector (no instruction, sector or byte counters)"
                    .to_string(),
                "k: a work vector in one run only".to_string()
            ]
        );
    }

    #[test]
    fn a_tolerance_file_is_checked_and_its_errors_say_where() {
        let ok = WorkTolerance::from_json(
            r#"{"work_tolerance": 1, "components": {"l2_sectors": {"cv_pct": 0.4, "runs": 20},
                "flops.tensor_bf16": {"cv_pct": 0, "runs": 20, "floor": 0}}}"#,
        )
        .expect("reads");
        assert_eq!(ok.sigmas, DEFAULT_SIGMAS);
        assert!((ok.pct(Part::Component(WorkComponent::L2Sectors)) - 1.2).abs() < 1e-12);
        assert_eq!(ok.pct(Part::Component(WorkComponent::Instructions)), 0.0);
        for (text, want) in [
            (
                "{\n\"work_tolerance\": 1,\n\"components\": [",
                "line 3, column 14: invalid type",
            ),
            (
                r#"{"work_tolerance": 1, "components": {}, "extra": 1}"#,
                "unknown field `extra`",
            ),
            (
                r#"{"work_tolerance": 1, "components": {"l2": {"cv_pct": 1, "runs": 2}}}"#,
                "component \"l2\" is not a part",
            ),
            (
                r#"{"work_tolerance": 1, "components": {"l2_sectors": {"cv_pct": -1, "runs": 2}}}"#,
                "l2_sectors.cv_pct -1 is not possible",
            ),
            (
                r#"{"work_tolerance": 1, "sigmas": -3, "components": {}}"#,
                "sigmas -3 is not possible",
            ),
            // Issue 48: figures no measured tolerance can be, and a part given twice.
            (
                r#"{"work_tolerance": 1, "sigmas": 1e308, "components": {}}"#,
                "sigmas 1e308 is not possible: from 0 to 6",
            ),
            (
                r#"{"work_tolerance": 1, "components": {"l2_sectors": {"cv_pct": 1e6, "runs": 3}}}"#,
                "l2_sectors.cv_pct 1000000 is not possible",
            ),
            (
                r#"{"work_tolerance": 1, "components": {"l2_sectors": {"cv_pct": 34, "runs": 3}}}"#,
                "l2_sectors: sigmas x cv_pct 102 is not possible: at most 100 %",
            ),
            (
                r#"{"work_tolerance": 1, "components": {"l2_sectors": {"cv_pct": 1, "runs": 3, "floor": 1e308}}}"#,
                "l2_sectors.floor 1e308 is not possible",
            ),
            (
                "{\"work_tolerance\": 1, \"components\": {\"l2_sectors\": {\"cv_pct\": 1, \"runs\": 3},\n \"l2_sectors\": {\"cv_pct\": 9, \"runs\": 3}}}",
                "line 2, column 13: component \"l2_sectors\" is given twice",
            ),
            (
                r#"{"work_tolerance": 1, "sigmas": 3, "sigmas": 6, "components": {}}"#,
                "duplicate field `sigmas`",
            ),
        ] {
            let err = WorkTolerance::from_json(text).expect_err(text).to_string();
            assert!(err.contains(want), "{text}: {err}");
        }
        // At the bounds a file still reads.
        let edge = WorkTolerance::from_json(
            r#"{"work_tolerance": 1, "sigmas": 6, "components": {"l2_sectors":
                {"cv_pct": 16.5, "runs": 2, "floor": 1e7}}}"#,
        );
        assert!(edge.is_ok(), "{edge:?}");
        assert_eq!(
            part_keys().len(),
            WorkComponent::ALL.len() + Work::ALL.len()
        );
        assert!(part_keys().iter().all(|k| Part::from_key(k).is_some()));
    }
}
