//! The work vector (issue 37): what a kernel's launches did, as the hardware counted it,
//! independent of clocks and neighbours: warp instructions by class, L1 requests and
//! sectors, L2 sectors, DRAM bytes, shared-memory wavefronts and bank conflicts, and the
//! FLOPs by kind that [`crate::analysis::work`] counts (read there, never recounted here).
//! Summed per kernel and per launch group (one grid, block, registers and shared memory).
//!
//! A component is in a vector only when every launch summed has its counter, so a sum is
//! never a part passed off as the whole. In a sampled profile a launch whose counters were
//! copied from the measured launch of its group (`sampled_from`) counts that launch's work
//! unscaled: the copy was scaled by time, and time is what the vector leaves out.
//! `capture diff --gate-work` compares vectors ([`crate::analysis::diff::work`]).

use std::collections::{HashMap, HashSet};

use crate::analysis::metrics::reference_launches;
use crate::analysis::work::{self, Source};
use crate::model::artifact::{
    GroupWork, KernelRecord, KernelWork, LaunchCounters, WorkComponent, WorkVector,
};
use crate::model::counters::{self as c, Counter};
use crate::model::work_kind::Work;

/// The counter a component is read from.
pub fn counter_of(component: WorkComponent) -> Counter {
    match component {
        WorkComponent::Instructions => c::INST_EXECUTED,
        WorkComponent::IntegerInstructions => c::INTEGER_THREAD_INST,
        WorkComponent::GlobalLoadInstructions => c::GLOBAL_LD_INST,
        WorkComponent::GlobalStoreInstructions => c::GLOBAL_ST_INST,
        WorkComponent::LocalLoadInstructions => c::LOCAL_LD_INST,
        WorkComponent::LocalStoreInstructions => c::LOCAL_ST_INST,
        WorkComponent::SharedLoadInstructions => c::SHARED_LD_INST,
        WorkComponent::SharedStoreInstructions => c::SHARED_ST_INST,
        WorkComponent::BranchInstructions => c::BRANCH_INST,
        WorkComponent::L1GlobalLoadRequests => c::L1_REQUESTS_GLOBAL_LD,
        WorkComponent::L1GlobalLoadSectors => c::L1_SECTORS_GLOBAL_LD,
        WorkComponent::L1GlobalStoreRequests => c::L1_REQUESTS_GLOBAL_ST,
        WorkComponent::L1GlobalStoreSectors => c::L1_SECTORS_GLOBAL_ST,
        WorkComponent::L2Sectors => c::L2_SECTORS,
        WorkComponent::DramReadBytes => c::DRAM_BYTES_READ,
        WorkComponent::DramWriteBytes => c::DRAM_BYTES_WRITE,
        WorkComponent::SharedWavefronts => c::SHARED_WAVEFRONTS,
        WorkComponent::SharedBankConflicts => c::SHARED_BANK_CONFLICTS,
    }
}

/// Every counter the vector reads by name: each component's, the CUDA-core FLOP
/// instructions and the launch configuration. The tensor FLOPs are read from whichever
/// `sm__ops_path_tensor_src_*` counters an export has ([`c::TENSOR`] is what capture asks
/// for), and a rate's total needs the SM cycles ([`work::total_of`]).
pub fn counters() -> Vec<Counter> {
    let mut out: Vec<Counter> = WorkComponent::ALL.iter().map(|&k| counter_of(k)).collect();
    for kind in [Work::Fp32, Work::Fp64, Work::Fp16] {
        out.extend(
            work::cuda_core_counters(kind)
                .into_iter()
                .flatten()
                .map(|p| p.0),
        );
    }
    out.extend([c::REGISTERS_PER_THREAD, c::SHARED_MEM_PER_BLOCK]);
    out
}

/// The counters of [`counters`] that ncu's `--set full` does not collect: `--depth work`
/// asks for them, and a vector from a `--set full` export has no such component.
pub fn beyond_full_set() -> &'static [Counter] {
    c::WORK_CLASSES
}

/// Works out vectors kernel after kernel, the columns of each counter looked up once per
/// column list the launches share (an import's kernels share one).
pub struct Vectors {
    plans: work::Plans,
    parts: work::TotalsAt,
}

impl Default for Vectors {
    fn default() -> Self {
        Vectors {
            plans: work::Plans::default(),
            parts: work::TotalsAt::new(WorkComponent::ALL.iter().map(|&k| counter_of(k)).collect()),
        }
    }
}

impl Vectors {
    /// A kernel's vector ([`of_kernel`]).
    pub fn of_kernel(&mut self, kernel: &KernelRecord) -> Option<KernelWork> {
        self.of_launches(reference_launches(kernel))
    }

    /// One launch's work: its components (those it has) and FLOPs by kind, with the kinds
    /// worked from a rate.
    fn of_launch(&mut self, launch: &LaunchCounters) -> WorkVector {
        let mut v = WorkVector {
            launches: 1,
            ..WorkVector::default()
        };
        for (i, k) in WorkComponent::ALL.into_iter().enumerate() {
            if let Some((x, _)) = self.parts.total(launch, i) {
                v.counts.insert(k, x);
            }
        }
        for (kind, w) in self.plans.work(launch) {
            v.flops.insert(kind, w.ops);
            if w.source != Source::Total {
                v.derived.push(kind);
            }
        }
        v
    }
}

/// Adds `b` to `a`, keeping only the components both have, the others marked
/// `incomplete`, and every FLOP kind (an empty `a` with no launches takes `b` whole).
fn add(a: &mut WorkVector, b: &WorkVector) {
    if a.launches == 0 {
        let copied = a.copied_launches;
        *a = b.clone();
        a.copied_launches += copied;
        return;
    }
    let one_side: Vec<WorkComponent> = a
        .counts
        .keys()
        .filter(|k| !b.counts.contains_key(k))
        .chain(b.counts.keys().filter(|k| !a.counts.contains_key(k)))
        .chain(&b.incomplete)
        .copied()
        .collect();
    for k in one_side {
        if !a.incomplete.contains(&k) {
            a.incomplete.push(k);
        }
    }
    crate::order::sort(&mut a.incomplete);
    a.launches += b.launches;
    a.copied_launches += b.copied_launches;
    a.counts.retain(|k, _| b.counts.contains_key(k));
    for (k, x) in &mut a.counts {
        *x += b.counts.get(k).copied().unwrap_or(0.0);
    }
    // A FLOP kind one launch lacks did none of that work there (work counts only kinds
    // with a counter present, and a kernel's launches share their columns).
    for (kind, x) in &b.flops {
        *a.flops.entry(*kind).or_insert(0.0) += x;
    }
    for kind in &b.derived {
        if !a.derived.contains(kind) {
            a.derived.push(*kind);
        }
    }
}

/// A launch group's key: grid, block, registers per thread, shared memory per block.
type GroupKey = (Option<[u32; 3]>, Option<[u32; 3]>, Option<u32>, Option<u64>);

fn group_key(launch: &LaunchCounters) -> GroupKey {
    let whole = |counter: Counter| {
        launch
            .metrics
            .number(counter.name)
            .filter(|x| x.is_finite() && *x >= 0.0)
    };
    (
        launch.site.grid,
        launch.site.block,
        whole(c::REGISTERS_PER_THREAD).map(|x| x as u32),
        whole(c::SHARED_MEM_PER_BLOCK).map(|x| x as u64),
    )
}

/// One build of a kernel: registers per thread, shared memory per block (bytes).
pub type Build = (Option<u32>, Option<u64>);

/// A kernel's builds: each distinct (registers per thread, shared memory per block) its
/// launches ran with, in launch order. Two builds of one kernel (an autotuner's other
/// choice of tile or stages) can share name, grid and block and differ here.
pub fn builds_of(kernel: &KernelRecord) -> Vec<Build> {
    let mut out = Vec::new();
    for launch in reference_launches(kernel) {
        let (_, _, registers, smem) = group_key(launch);
        if !out.contains(&(registers, smem)) {
            out.push((registers, smem));
        }
    }
    out
}

/// The work vector of launches (one kernel's, in launch order): the total and, when they
/// form more than one launch group, each group's. `None` when no launch has any component.
/// Memory stays that of the groups: only the measured launches a copy names are kept.
pub fn of_launches(launches: &[LaunchCounters]) -> Option<KernelWork> {
    Vectors::default().of_launches(launches)
}

impl Vectors {
    /// [`of_launches`].
    fn of_launches(&mut self, launches: &[LaunchCounters]) -> Option<KernelWork> {
        // The measured launches copies name, by ID, and their vectors once worked out.
        let named: HashSet<u64> = launches
            .iter()
            .filter_map(|l| l.sampled_from.as_deref().copied())
            .collect();
        let measured_at: HashMap<u64, usize> = launches
            .iter()
            .enumerate()
            .filter(|(_, l)| l.sampled_from.is_none() && named.contains(&l.id))
            .map(|(i, l)| (l.id, i))
            .collect();
        let mut kept: HashMap<usize, WorkVector> = HashMap::new();
        let mut total = WorkVector::default();
        let mut groups: Vec<(GroupKey, WorkVector)> = Vec::new();
        let mut group_at: HashMap<GroupKey, usize> = HashMap::new();
        for (i, launch) in launches.iter().enumerate() {
            let measured = launch
                .sampled_from
                .as_deref()
                .and_then(|id| measured_at.get(id).copied());
            let at = measured.unwrap_or(i);
            let mut v = match kept.get(&at) {
                Some(v) => v.clone(),
                None => {
                    let source = launches.get(at).unwrap_or(launch);
                    let v = self.of_launch(source);
                    if source.sampled_from.is_none() && measured_at.contains_key(&source.id) {
                        kept.insert(at, v.clone());
                    }
                    v
                }
            };
            v.copied_launches = u64::from(measured.is_some());
            let key = group_key(launch);
            match group_at.get(&key) {
                Some(&g) => {
                    if let Some((_, group)) = groups.get_mut(g) {
                        add(group, &v);
                    }
                }
                None => {
                    group_at.insert(key, groups.len());
                    groups.push((key, v.clone()));
                }
            }
            add(&mut total, &v);
        }
        if total.counts.is_empty() && total.flops.is_empty() {
            return None;
        }
        let groups = if groups.len() > 1 {
            groups
                .into_iter()
                .map(|((grid, block, registers, smem), work)| GroupWork {
                    grid,
                    block,
                    registers_per_thread: registers,
                    shared_mem_per_block_bytes: smem,
                    work,
                })
                .collect()
        } else {
            Vec::new()
        };
        Some(KernelWork { total, groups })
    }
}

/// A kernel's work vector from its counters (cold, else warm): what `capture` writes as
/// each record's `work` ([`crate::model::artifact::Artifact::write_json_computing`]).
pub fn of_kernel(kernel: &KernelRecord) -> Option<KernelWork> {
    Vectors::default().of_kernel(kernel)
}

/// A component's value in a vector, or a FLOP kind's.
pub fn value(v: &WorkVector, part: Part) -> Option<f64> {
    match part {
        Part::Component(k) => v.counts.get(&k).copied(),
        Part::Flops(kind) => v.flops.get(&kind).copied(),
    }
}

/// A part of a vector: a counted component or the FLOPs of one kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    /// A counted component.
    Component(WorkComponent),
    /// FLOPs (OPs) of one kind.
    Flops(Work),
}

impl Part {
    /// Its name for people (`L2 sectors`, `FLOPs tensor_bf16`).
    pub fn label(self) -> String {
        match self {
            Part::Component(k) => k.label().to_string(),
            Part::Flops(kind) => format!("FLOPs {}", kind.key()),
        }
    }

    /// Its key in JSON and in the tolerance file (`l2_sectors`, `flops.tensor_bf16`).
    pub fn key(self) -> String {
        match self {
            Part::Component(k) => k.key().to_string(),
            Part::Flops(kind) => format!("flops.{}", kind.key()),
        }
    }

    /// The part a key names ([`Part::key`]); `None` for a key no part has.
    pub fn from_key(key: &str) -> Option<Part> {
        if let Some(kind) = key.strip_prefix("flops.") {
            return Work::from_key(kind).map(Part::Flops);
        }
        WorkComponent::ALL
            .into_iter()
            .find(|k| k.key() == key)
            .map(Part::Component)
    }
}

/// The parts of a vector, components first (in [`WorkComponent::ALL`] order), then FLOP
/// kinds.
pub fn parts(v: &WorkVector) -> Vec<(Part, f64)> {
    v.counts
        .iter()
        .map(|(k, x)| (Part::Component(*k), *x))
        .chain(v.flops.iter().map(|(k, x)| (Part::Flops(*k), *x)))
        .collect()
}

/// The most bytes DRAM may deliver per L2 sector looked up: a miss fetches its sector, or
/// with the L2's sector promotion its whole 128-byte line.
pub const DRAM_BYTES_PER_L2_SECTOR: f64 = 128.0;

/// The most L1 sectors one warp-wide global request is let touch before the counts are
/// called contradictory. In principle 32 (32 threads, each access naturally aligned and at
/// most 16 bytes, so inside one 32-byte sector), but ncu's store counters go past it on
/// real kernels of the H200 (32.03 on a naive transpose's column stores, 32.14 on cuDNN's
/// `convert_dq_to_16bits`), so the bound is twice that.
pub const SECTORS_PER_REQUEST: f64 = 64.0;

/// Where a vector's counts contradict each other or the launches, one line each: no
/// instructions in a launch, more DRAM bytes read than the L2's lookups can explain, more
/// L1 sectors than a warp's requests can touch. Such
/// counts are wrong (a counter from another pass, a replay that went astray, an edit), and
/// the work gate will not judge them. Over every artifact and export in the project's
/// fixtures (real workloads among them) the largest ratios are 0.22 of the DRAM bound and
/// 32.14 sectors per request.
pub fn contradictions(v: &WorkVector) -> Vec<String> {
    let get = |k: WorkComponent| v.counts.get(&k).copied().filter(|x| x.is_finite());
    let mut out = Vec::new();
    if v.launches > 0 && get(WorkComponent::Instructions) == Some(0.0) {
        out.push(format!(
            "no instructions executed in {} launch(es): every launch executes some",
            v.launches
        ));
    }
    if let (Some(dram), Some(l2)) = (
        get(WorkComponent::DramReadBytes),
        get(WorkComponent::L2Sectors),
    ) {
        if dram > DRAM_BYTES_PER_L2_SECTOR * l2 {
            out.push(format!(
                "DRAM read {dram:.0} bytes but the L2 looked up only {l2:.0} sectors, and a \
                 miss fetches at most {DRAM_BYTES_PER_L2_SECTOR:.0} bytes per sector"
            ));
        }
    }
    for (what, sectors, requests) in [
        (
            "load",
            WorkComponent::L1GlobalLoadSectors,
            WorkComponent::L1GlobalLoadRequests,
        ),
        (
            "store",
            WorkComponent::L1GlobalStoreSectors,
            WorkComponent::L1GlobalStoreRequests,
        ),
    ] {
        if let (Some(s), Some(r)) = (get(sectors), get(requests)) {
            if s > SECTORS_PER_REQUEST * r {
                out.push(format!(
                    "{s:.0} L1 global {what} sectors from {r:.0} requests: a warp's request \
                     touches at most 32 (ncu's counts stay under {SECTORS_PER_REQUEST:.0})"
                ));
            }
        }
    }
    out
}

/// Each kernel's vector, for callers that hold an artifact's kernels: the stored one,
/// else worked from its counters (artifacts before schema 6).
pub fn kernel_vectors(kernels: &[KernelRecord]) -> Vec<Option<KernelWork>> {
    kernels
        .iter()
        .map(|k| k.work.as_deref().cloned().or_else(|| of_kernel(k)))
        .collect()
}

/// A kernel's work vector as a gate may judge it: worked out from its counters, the
/// stored `work` block held against it.
#[derive(Clone, Debug, PartialEq)]
pub struct CheckedWork {
    /// The vector: the counters', else (no counters) the stored one; `None` with neither.
    pub work: Option<KernelWork>,
    /// Why the vector cannot be judged, when it cannot: a stored block that its counters
    /// contradict, or that no counters back, or a part no count can be (negative, not
    /// finite).
    pub problem: Option<String>,
}

/// Each kernel's vector for a gate ([`CheckedWork`]). The stored block is what `capture`
/// wrote from the counters, so the two agree on every artifact it writes; a block copied
/// from another run, edited, or left behind when counters were removed does not, and a
/// gate reading it alone judged the edit, not the run (issue 48). The counters are the
/// measurement: they give the vector, and a stored block that differs is named.
pub fn checked_vectors(kernels: &[KernelRecord]) -> Vec<CheckedWork> {
    let mut vectors = Vectors::default();
    kernels
        .iter()
        .map(|k| {
            let counted = vectors.of_kernel(k);
            let stored = k.work.as_deref();
            let problem = match (stored, &counted) {
                (Some(s), Some(c)) => disagreement(s, c)
                    .map(|d| format!("the stored work vector does not match its counters ({d})")),
                (Some(_), None) => Some(
                    "a stored work vector but no counters to check it against (removed?)".into(),
                ),
                _ => None,
            };
            let work = counted.or_else(|| stored.cloned());
            let problem = problem.or_else(|| work.as_ref().and_then(|w| impossible(&w.total)));
            CheckedWork { work, problem }
        })
        .collect()
}

/// The first part of `v` no count can be: negative or not finite, in words.
fn impossible(v: &WorkVector) -> Option<String> {
    parts(v)
        .into_iter()
        .find(|(_, x)| !(x.is_finite() && *x >= 0.0))
        .map(|(part, x)| {
            format!(
                "{} is {}, which no count can be",
                part.label(),
                count_text(x)
            )
        })
}

/// A count as a message shows it: whole digits, or `-1e308` where digits would run long.
fn count_text(x: f64) -> String {
    if x.is_finite() && x.abs() < 1e15 {
        x.to_string()
    } else {
        format!("{x:e}")
    }
}

/// Where a stored vector and the one worked out from the counters differ, in words: the
/// first part that differs (beyond the last bits of a sum), one side lacks, or the launch
/// counts; `None` when they agree.
fn disagreement(stored: &KernelWork, counted: &KernelWork) -> Option<String> {
    fn groups(w: &KernelWork) -> Vec<&WorkVector> {
        w.groups.iter().map(|g| &g.work).collect()
    }
    let (gs, gc) = (groups(stored), groups(counted));
    if gs.len() != gc.len() {
        return Some(format!(
            "{} launch group(s) stored, {} counted",
            gs.len(),
            gc.len()
        ));
    }
    std::iter::once((&stored.total, &counted.total))
        .chain(gs.into_iter().zip(gc))
        .find_map(|(s, c)| vector_disagreement(s, c))
}

fn vector_disagreement(stored: &WorkVector, counted: &WorkVector) -> Option<String> {
    if stored.launches != counted.launches || stored.copied_launches != counted.copied_launches {
        return Some(format!(
            "{} launch(es) stored, {} counted",
            stored.launches, counted.launches
        ));
    }
    let (ps, pc) = (parts(stored), parts(counted));
    for (part, _) in ps.iter().chain(&pc) {
        let (s, c) = (value(stored, *part), value(counted, *part));
        let same = match (s, c) {
            (Some(s), Some(c)) => s == c || (s - c).abs() <= 1e-9 * s.abs().max(c.abs()),
            (None, None) => true,
            _ => false,
        };
        if !same {
            let shown = |x: Option<f64>| x.map_or("none".to_string(), count_text);
            return Some(format!(
                "{}: {} stored, {} counted",
                part.label(),
                shown(s),
                shown(c)
            ));
        }
    }
    let mut incomplete = (stored.incomplete.clone(), counted.incomplete.clone());
    crate::order::sort(&mut incomplete.0);
    crate::order::sort(&mut incomplete.1);
    (incomplete.0 != incomplete.1).then(|| "the components some launches lack differ".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One kernel of one launch with `instructions` counted, its stored block as `capture`
    /// wrote it.
    fn kernel(instructions: f64) -> KernelRecord {
        let mut l = LaunchCounters {
            function: "k".into(),
            ..Default::default()
        };
        l.metrics.insert(
            c::INST_EXECUTED.name.into(),
            crate::model::artifact::Metric {
                unit: c::INST_EXECUTED.unit.into(),
                value: crate::model::artifact::MetricValue::Number(instructions),
            },
        );
        let mut k = KernelRecord {
            cold: Some(crate::model::artifact::CounterSet::of(vec![l])),
            ..KernelRecord::new("k", "k")
        };
        k.work = of_kernel(&k).map(Box::new);
        k
    }

    #[test]
    fn a_stored_vector_is_held_to_its_counters() {
        let k = kernel(100.0);
        let checked = checked_vectors(std::slice::from_ref(&k));
        assert_eq!(checked[0].problem, None);
        assert_eq!(checked[0].work.as_ref(), k.work.as_deref());
        // Edited, copied from another run, or left without its counters: named, and the
        // counters' vector is the one judged.
        let mut edited = k.clone();
        if let Some(w) = edited.work.as_deref_mut() {
            w.total.counts.insert(WorkComponent::Instructions, -1e308);
        }
        let copied = KernelRecord {
            work: kernel(90.0).work,
            ..k.clone()
        };
        let bare = KernelRecord {
            cold: None,
            ..k.clone()
        };
        let found = checked_vectors(&[edited, copied, bare]);
        let problems: Vec<&str> = found.iter().filter_map(|c| c.problem.as_deref()).collect();
        assert_eq!(
            problems,
            [
                "the stored work vector does not match its counters (instructions: -1e308 \
                 stored, 100 counted)",
                "the stored work vector does not match its counters (instructions: 90 stored, \
                 100 counted)",
                "a stored work vector but no counters to check it against (removed?)",
            ]
        );
        assert_eq!(
            found[0]
                .work
                .as_ref()
                .map(|w| w.total.counts[&WorkComponent::Instructions]),
            Some(100.0)
        );
        // A vector with no counters behind it and a part no count can be.
        let mut stored_only = KernelRecord::new("k", "k");
        let mut w = k.work.as_deref().cloned().expect("work");
        w.total.counts.insert(WorkComponent::L2Sectors, f64::NAN);
        stored_only.work = Some(Box::new(w));
        assert_eq!(
            impossible(
                &checked_vectors(&[stored_only])[0]
                    .work
                    .as_ref()
                    .expect("work")
                    .total
            ),
            Some("L2 sectors is NaN, which no count can be".into())
        );
    }

    #[test]
    fn counts_that_contradict_each_other_are_named() {
        let mut v = WorkVector {
            launches: 2,
            ..WorkVector::default()
        };
        v.counts.insert(WorkComponent::Instructions, 1.0);
        v.counts
            .insert(WorkComponent::DramReadBytes, 1000.0 * 128.0);
        v.counts.insert(WorkComponent::L2Sectors, 1000.0);
        v.counts
            .insert(WorkComponent::L1GlobalLoadSectors, 64.0 * 64.0);
        v.counts.insert(WorkComponent::L1GlobalLoadRequests, 64.0);
        assert!(contradictions(&v).is_empty(), "at the bounds");
        v.counts
            .insert(WorkComponent::DramReadBytes, 1001.0 * 128.0);
        v.counts
            .insert(WorkComponent::L1GlobalLoadSectors, 64.0 * 64.0 + 1.0);
        v.counts.insert(WorkComponent::Instructions, 0.0);
        let found = contradictions(&v);
        assert_eq!(found.len(), 3, "{found:?}");
        assert!(found[0].starts_with("no instructions executed in 2 launch(es)"));
        let found = &found[1..];
        assert!(found[0].starts_with("DRAM read 128128 bytes"), "{found:?}");
        assert!(
            found[1].contains("global load sectors from 64 requests"),
            "{found:?}"
        );
    }
}
