//! Work by precision and by unit: how many floating-point operations (or integer OPs) a
//! launch did on CUDA cores and on tensor cores, per type, from whatever form of the
//! counters an export carries, and the theoretical dense peak of each type.
//!
//! **CUDA cores** (SASS thread-instruction counters): FP64 and FP32 count add + mul + 2 x fma;
//! FP16 follows ncu's own Half roofline, where each half instruction may be a packed `half2`:
//! 2 x hadd + 2 x hmul + 4 x hfma (NERSC and LIKWID count 1, 1, 2 instead; this tool uses
//! ncu's convention, so its FP16 figures match ncu's Half roofline chart).
//!
//! **Register moves are not FP16 work** ([`fp16_is_register_moves`]). The compiler zeroes
//! registers and loads 32-bit constants with `HFMA2.MMA Rn, -RZ, RZ, ...` (seen in the
//! `cuobjdump -sass` of the suite's FP32 kernels built for sm_90), and
//! `smsp__sass_thread_inst_executed_op_hfma_pred_on` counts each one as a half FMA: the
//! H200 sample's stride-32 vector add shows one per thread, 536,870,912 "FP16 FLOPs" beside
//! 134,217,728 real FP32 ones. The thread-level counters cannot tell the opcodes apart, so
//! the rule reads what else the hardware counted: a launch's half FMAs are register moves,
//! and make no FP16 work, when it executed no half add and no half multiply (`hadd` and
//! `hmul` zero or not collected) and, where the export has it, the FMA pipe executed no
//! FP16 instruction (`sm__inst_executed_pipe_fma_type_fp16`, in `--set full` and in
//! `capture`'s list: 0 on every PyTorch, cuBLAS and cuDNN kernel of the BERT, GPT-2 and
//! ResNet-18 exports here, whose HFMAs are these moves). Any `hadd` or `hmul`, or FP16
//! instructions on the FMA pipe, make all three counters FP16 work as above. The raw counts
//! stay in the artifact; [`register_moves`] gives them for a note. Limit: a kernel whose only
//! half arithmetic is packed FMAs, profiled without the FMA-pipe counter, is read as moves.
//!
//! **Tensor cores**: `sm__ops_path_tensor_src_<type>[_dst_<acc>][_sparsity_on|off].sum`
//! counts FLOPs (an MMA's multiply-add counts 2), integer OPs for `int` types. The reader
//! takes every counter of that family the export has, whatever the architecture, one level
//! only (the `src` family, never the op-level `sm__ops_path_tensor_op_*` counters, which count
//! the same work again), and per (source, accumulator) family the total or, when the export
//! has no total, its dense plus sparse split: never both. Volta has no such counter; there the
//! work is estimated as 512 x `sm__inst_executed_pipe_tensor.sum` (NERSC's method) and
//! labelled an estimate.
//!
//! **Any form of a counter** ([`total`]): where the export has no `.sum` total, the total is
//! derived the way ncu's roofline sections do: `X.sum.per_second x gpu__time_duration.sum`, or
//! `X.sum.per_cycle_elapsed x sm__cycles_elapsed.avg` (else `x sm__cycles_elapsed.avg.per_second
//! x gpu__time_duration.sum`). A derived total says so ([`Source`]) wherever it is shown.
//!
//! **Peaks** ([`dense_flop_per_clock_per_sm`]): dense FLOP (or OP) per clock per SM from the
//! vendor's architecture whitepapers, times SMs and the SM clock attribute. An architecture
//! or type the table does not know is `None`, never a guess. ncu's own `peak_sustained` values
//! stay in the artifact's raw metrics, but ncu's un-suffixed tensor peaks on Hopper are the
//! 2:4-sparse rate, twice the dense one: the roof is the dense peak.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::model::artifact::{LaunchCounters, MetricColumns};
use crate::model::counters::{self as c, Counter};
use crate::model::work_kind::Work;

/// The tensor kind of a source-type token list of a `sm__ops_path_tensor_src_*` name
/// (`bf16`, `fp16_bf16_tf32`); `None` for a type this tool does not know.
fn tensor_kind_of_sources(sources: &str) -> Option<Work> {
    Some(match sources {
        "fp64" => Work::TensorFp64,
        "tf32" => Work::TensorTf32,
        "fp16" => Work::TensorFp16,
        "bf16" => Work::TensorBf16,
        "fp16_bf16_tf32" => Work::TensorFp16Bf16Tf32,
        "fp8" => Work::TensorFp8,
        "fp6" => Work::TensorFp6,
        "fp4" => Work::TensorFp4,
        "int8" => Work::TensorInt8,
        "int4" => Work::TensorInt4,
        "int1" => Work::TensorInt1,
        _ => return None,
    })
}

/// How a total was obtained.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The export's own `.sum` total.
    Total,
    /// Derived: `X.sum.per_second x gpu__time_duration.sum`.
    PerSecond,
    /// Derived: `X.sum.per_cycle_elapsed x` SM cycles elapsed.
    PerCycle,
    /// Estimated (Volta: 512 x tensor-pipe instructions).
    Estimate,
}

impl Source {
    /// Whether the value is not the export's own total.
    pub fn is_derived(self) -> bool {
        self != Source::Total
    }
}

/// The total of counter `name` (a `.sum` metric) in a launch, in whatever form the export
/// has it, with how it was obtained (see the module documentation). `None` when no form is
/// present or the time or cycles a rate needs are missing.
pub fn total_of(launch: &LaunchCounters, name: &str) -> Option<(f64, Source)> {
    total_from(&ByName {
        metrics: &launch.metrics,
        name,
    })
}

/// Where [`total_from`] reads a counter's forms and the time and cycles its rates need.
trait Forms {
    /// `name`.
    fn total(&self) -> Option<f64>;
    /// `name.per_second`.
    fn per_second(&self) -> Option<f64>;
    /// `name.per_cycle_elapsed`.
    fn per_cycle(&self) -> Option<f64>;
    /// The launch's duration, ns.
    fn duration_ns(&self) -> Option<f64>;
    /// The launch's SM cycles.
    fn sm_cycles(&self) -> Option<f64>;
    /// The launch's SM clock, Hz.
    fn sm_hz(&self) -> Option<f64>;
}

/// The one formula of [`total_of`], whichever way the forms are found.
fn total_from(forms: &impl Forms) -> Option<(f64, Source)> {
    if let Some(v) = forms.total() {
        return Some((v, Source::Total));
    }
    if let Some(rate) = forms.per_second() {
        return Some((rate * forms.duration_ns()? / 1e9, Source::PerSecond));
    }
    if let Some(per_cycle) = forms.per_cycle() {
        let cycles = forms
            .sm_cycles()
            .or_else(|| Some(forms.sm_hz()? * forms.duration_ns()? / 1e9))?;
        return Some((per_cycle * cycles, Source::PerCycle));
    }
    None
}

/// A counter's forms looked up by name.
struct ByName<'a> {
    metrics: &'a crate::model::artifact::Metrics,
    name: &'a str,
}

impl Forms for ByName<'_> {
    fn total(&self) -> Option<f64> {
        self.metrics.number(self.name)
    }
    fn per_second(&self) -> Option<f64> {
        self.metrics.number_suffixed(self.name, ".per_second")
    }
    fn per_cycle(&self) -> Option<f64> {
        self.metrics
            .number_suffixed(self.name, ".per_cycle_elapsed")
    }
    fn duration_ns(&self) -> Option<f64> {
        self.metrics.number(c::GPU_TIME_DURATION.name)
    }
    fn sm_cycles(&self) -> Option<f64> {
        self.metrics.number(c::SM_CYCLES.name)
    }
    fn sm_hz(&self) -> Option<f64> {
        self.metrics.number(c::SM_HZ.name)
    }
}

/// The columns of a counter's forms in a column set (see [`Forms`]).
#[derive(Clone, Copy, Debug, Default)]
struct FormColumns {
    total: Option<usize>,
    per_second: Option<usize>,
    per_cycle: Option<usize>,
}

impl FormColumns {
    fn of(columns: &MetricColumns, name: &str) -> Self {
        FormColumns {
            total: columns.position(name),
            per_second: columns.position_suffixed(name, ".per_second"),
            per_cycle: columns.position_suffixed(name, ".per_cycle_elapsed"),
        }
    }
}

/// The columns of the time and cycles rates need.
#[derive(Clone, Copy, Debug, Default)]
struct TimeColumns {
    duration_ns: Option<usize>,
    sm_cycles: Option<usize>,
    sm_hz: Option<usize>,
}

impl TimeColumns {
    fn of(columns: &MetricColumns) -> Self {
        TimeColumns {
            duration_ns: columns.position(c::GPU_TIME_DURATION.name),
            sm_cycles: columns.position(c::SM_CYCLES.name),
            sm_hz: columns.position(c::SM_HZ.name),
        }
    }
}

/// [`total`] of several counters over launches that share their columns, the columns of
/// each counter's forms looked up once per column list (a lookup by name builds the rate
/// forms' names each time).
pub struct TotalsAt {
    counters: Vec<Counter>,
    columns: Option<Arc<MetricColumns>>,
    forms: Vec<FormColumns>,
    time: TimeColumns,
}

impl TotalsAt {
    /// For `counters`, in this order.
    pub fn new(counters: Vec<Counter>) -> Self {
        TotalsAt {
            counters,
            columns: None,
            forms: Vec::new(),
            time: TimeColumns::default(),
        }
    }

    /// The total of the `i`-th counter in `launch`, as [`total`] reads it.
    pub fn total(&mut self, launch: &LaunchCounters, i: usize) -> Option<(f64, Source)> {
        let columns = launch.metrics.columns();
        if !self
            .columns
            .as_ref()
            .is_some_and(|c| Arc::ptr_eq(c, columns))
        {
            self.forms = self
                .counters
                .iter()
                .map(|k| FormColumns::of(columns, k.name))
                .collect();
            self.time = TimeColumns::of(columns);
            self.columns = Some(Arc::clone(columns));
        }
        total_from(&ByColumn {
            metrics: &launch.metrics,
            forms: *self.forms.get(i)?,
            time: self.time,
        })
    }
}

/// A counter's forms read from a launch by column, through a plan made for its columns.
struct ByColumn<'a> {
    metrics: &'a crate::model::artifact::Metrics,
    forms: FormColumns,
    time: TimeColumns,
}

impl ByColumn<'_> {
    fn at(&self, column: Option<usize>) -> Option<f64> {
        self.metrics.number_at(column?)
    }
}

impl Forms for ByColumn<'_> {
    fn total(&self) -> Option<f64> {
        self.at(self.forms.total)
    }
    fn per_second(&self) -> Option<f64> {
        self.at(self.forms.per_second)
    }
    fn per_cycle(&self) -> Option<f64> {
        self.at(self.forms.per_cycle)
    }
    fn duration_ns(&self) -> Option<f64> {
        self.at(self.time.duration_ns)
    }
    fn sm_cycles(&self) -> Option<f64> {
        self.at(self.time.sm_cycles)
    }
    fn sm_hz(&self) -> Option<f64> {
        self.at(self.time.sm_hz)
    }
}

/// [`total_of`] for a catalog counter.
pub fn total(launch: &LaunchCounters, counter: Counter) -> Option<(f64, Source)> {
    total_of(launch, counter.name)
}

/// The work of one kind in a launch (or summed over launches), with how it was obtained.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkCount {
    /// FLOPs (or OPs for integer kinds).
    pub ops: f64,
    /// The least direct source among the counters summed (a total beats a rate).
    pub source: Source,
    /// Counters of the formula the export lacks (CUDA-core kinds): when non-empty, `ops` is
    /// a lower bound.
    pub missing: Vec<String>,
}

/// Work by kind of a launch (or of several): only kinds with a counter present.
pub type WorkByKind = BTreeMap<Work, WorkCount>;

/// The CUDA-core counters of a kind and their weights (FLOPs per thread instruction).
pub fn cuda_core_counters(work: Work) -> Option<[(Counter, f64); 3]> {
    Some(match work {
        Work::Fp32 => [(c::FADD, 1.0), (c::FMUL, 1.0), (c::FFMA, 2.0)],
        Work::Fp64 => [(c::DADD, 1.0), (c::DMUL, 1.0), (c::DFMA, 2.0)],
        Work::Fp16 => [(c::HADD, 2.0), (c::HMUL, 2.0), (c::HFMA, 4.0)],
        _ => return None,
    })
}

/// CUDA-core work of one kind in a launch; `None` when none of its counters is present,
/// and for FP16 when its counts are register moves ([`fp16_is_register_moves`]).
pub fn cuda_core_work(launch: &LaunchCounters, work: Work) -> Option<WorkCount> {
    let counters = cuda_core_counters(work)?;
    let found = counters.map(|(counter, weight)| (counter, weight, total(launch, counter)));
    if work == Work::Fp16 && fp16_is_register_moves(values(&found), fma_fp16_by_name(launch)) {
        return None;
    }
    weighted_sum(found)
}

/// A CUDA-core kind's counters, each with its weight and its total where found.
type Found = [(Counter, f64, Option<(f64, Source)>); 3];

/// The values of a kind's counters as found, in [`cuda_core_counters`] order.
fn values(found: &Found) -> [Option<f64>; 3] {
    found.each_ref().map(|(_, _, v)| v.map(|(x, _)| x))
}

/// The FMA pipe's FP16 instructions of a launch, in whichever form the export has them
/// (a count, or a percentage of peak: only zero or not matters).
fn fma_fp16_by_name(launch: &LaunchCounters) -> Option<f64> {
    total_of(launch, c::FMA_FP16_INST.name)
        .map(|(v, _)| v)
        .or_else(|| launch.metrics.number(c::FMA_FP16_INST_PCT.name))
}

/// Whether a launch's FP16 counters (`[hadd, hmul, hfma]` thread instructions, as found)
/// are the compiler's register moves rather than half arithmetic (module documentation):
/// some HFMAs, no HADD and no HMUL, and no FP16 instruction on the FMA pipe where
/// `fma_pipe_fp16` (that pipe's FP16 instructions, any form) was collected.
pub fn fp16_is_register_moves(counts: [Option<f64>; 3], fma_pipe_fp16: Option<f64>) -> bool {
    let [hadd, hmul, hfma] = counts.map(|v| v.unwrap_or(0.0));
    hfma > 0.0 && hadd == 0.0 && hmul == 0.0 && fma_pipe_fp16.is_none_or(|v| v == 0.0)
}

/// The HFMA thread instructions of `launches` read as register moves
/// ([`fp16_is_register_moves`]), summed; `None` when no launch has any. The views put the
/// count in a note, so the raw counter stays explained.
pub fn register_moves(launches: &[LaunchCounters]) -> Option<f64> {
    let mut sum = None;
    for launch in launches {
        let counts = [c::HADD, c::HMUL, c::HFMA].map(|k| total(launch, k).map(|(v, _)| v));
        if fp16_is_register_moves(counts, fma_fp16_by_name(launch)) {
            *sum.get_or_insert(0.0) += counts[2].unwrap_or(0.0);
        }
    }
    sum
}

/// The weighted sum of a CUDA-core kind's counters, each with its total if the launch has
/// it: the least direct source among those found, and the names of the others; `None` when
/// none is found.
fn weighted_sum(
    counters: impl IntoIterator<Item = (Counter, f64, Option<(f64, Source)>)>,
) -> Option<WorkCount> {
    let mut ops = 0.0;
    let mut source = Source::Total;
    let mut missing = Vec::new();
    let mut any = false;
    for (counter, weight, found) in counters {
        match found {
            Some((v, s)) => {
                any = true;
                ops += weight * v;
                source = source.max(s);
            }
            None => missing.push(counter.name.to_string()),
        }
    }
    any.then_some(WorkCount {
        ops,
        source,
        missing,
    })
}

/// A CUDA-core kind's counters as [`cuda_core_counters`] gives them, each with the columns
/// of its forms.
type CudaCounters = [(Counter, f64, FormColumns); 3];

/// [`cuda_core_work`] through a plan's columns; `fp16_pipe` is the FMA pipe's FP16
/// instructions for an FP16 kind (`None` for the others, or where not collected).
fn cuda_core_work_at(
    launch: &LaunchCounters,
    work: Work,
    counters: &CudaCounters,
    time: TimeColumns,
    fp16_pipe: Option<f64>,
) -> Option<WorkCount> {
    let found = counters.map(|(counter, weight, forms)| {
        let found = total_from(&ByColumn {
            metrics: &launch.metrics,
            forms,
            time,
        });
        (counter, weight, found)
    });
    if work == Work::Fp16 && fp16_is_register_moves(values(&found), fp16_pipe) {
        return None;
    }
    weighted_sum(found)
}

/// One tensor counter name taken apart: its kind, its family (sources and accumulator) and
/// its sparsity split, if any.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TensorName<'a> {
    /// The work kind of its sources.
    pub work: Work,
    /// Sources and accumulator (`bf16_dst_fp32`): counters of one family count the same work.
    pub family: &'a str,
    /// `None` for the family total, `Some(false)` for `_sparsity_off`, `Some(true)` for `_on`.
    pub sparse: Option<bool>,
}

/// Parses `sm__ops_path_tensor_src_<sources>[_dst_<acc>][_sparsity_on|_off]` (the metric
/// name without its `.sum` suffix); `None` for any other name or an unknown source type.
pub fn parse_tensor_name(base: &str) -> Option<TensorName<'_>> {
    let rest = base.strip_prefix(c::TENSOR_SRC_PREFIX)?;
    let (family, sparse) = match rest.strip_suffix("_sparsity_off") {
        Some(f) => (f, Some(false)),
        None => match rest.strip_suffix("_sparsity_on") {
            Some(f) => (f, Some(true)),
            None => (rest, None),
        },
    };
    let sources = family.split_once("_dst_").map_or(family, |(s, _)| s);
    Some(TensorName {
        work: tensor_kind_of_sources(sources)?,
        family,
        sparse,
    })
}

/// The base name (before `.sum`) of a tensor-work metric in any of the forms [`total_of`]
/// reads; `None` for other suffixes (`.avg`, `.peak_sustained`, `pct_of_peak...`).
fn tensor_total_base(name: &str) -> Option<&str> {
    // The prefix first: it rules out nearly every name of a full set at its first bytes.
    if !name.starts_with(c::TENSOR_SRC_PREFIX) {
        return None;
    }
    let base = name
        .strip_suffix(".sum")
        .or_else(|| name.strip_suffix(".sum.per_second"))
        .or_else(|| name.strip_suffix(".sum.per_cycle_elapsed"))?;
    Some(base)
}

/// Where a launch's columns keep the counters of its work: worked out once from the names
/// of a column set, then used for every launch that shares it (every launch of an export
/// does), so the thousands of names of a full set are not parsed, nor the counters looked
/// up by name, per launch.
struct WorkPlan {
    /// The column set this plan was made for.
    columns: Arc<MetricColumns>,
    /// Tensor-core `(work, family)` in sorted order, each with the form columns of its
    /// total (`base.sum`) per slot: total, dense, sparse.
    families: Vec<(Work, [FormColumns; 3])>,
    /// `(column, family, slot)` for every tensor counter column, in column order.
    entries: Vec<(usize, usize, usize)>,
    /// The CUDA-core kinds with their counters, weights and form columns.
    cuda: Vec<(Work, CudaCounters)>,
    /// The time and cycles rates need.
    time: TimeColumns,
    /// The Volta tensor-pipe counter and compute capability.
    volta: (FormColumns, Option<usize>, Option<usize>),
    /// The FMA pipe's FP16 instructions: the count's forms, and the percentage column.
    fp16_pipe: (FormColumns, Option<usize>),
}

impl WorkPlan {
    fn of(columns: &Arc<MetricColumns>) -> WorkPlan {
        let mut by_family: BTreeMap<(Work, String), [Option<String>; 3]> = BTreeMap::new();
        let mut found = Vec::new();
        for (i, key) in columns.keys().iter().enumerate() {
            let Some(base) = tensor_total_base(&key.name) else {
                continue;
            };
            let Some(t) = parse_tensor_name(base) else {
                continue;
            };
            let slot = match t.sparse {
                None => 0,
                Some(false) => 1,
                Some(true) => 2,
            };
            let names = by_family.entry((t.work, t.family.to_string())).or_default();
            if let Some(name) = names.get_mut(slot) {
                name.get_or_insert_with(|| format!("{base}.sum"));
            }
            found.push((i, (t.work, t.family.to_string()), slot));
        }
        let order: Vec<(Work, String)> = by_family.keys().cloned().collect();
        let entries = found
            .into_iter()
            .filter_map(|(i, family, slot)| order.binary_search(&family).ok().map(|f| (i, f, slot)))
            .collect();
        let forms = |name: Option<&str>| {
            name.map_or_else(FormColumns::default, |n| FormColumns::of(columns, n))
        };
        let cuda = [Work::Fp64, Work::Fp32, Work::Fp16]
            .into_iter()
            .filter_map(|work| {
                let counters = cuda_core_counters(work)?;
                Some((
                    work,
                    counters.map(|(counter, weight)| (counter, weight, forms(Some(counter.name)))),
                ))
            })
            .collect();
        WorkPlan {
            columns: Arc::clone(columns),
            families: by_family
                .into_iter()
                .map(|((work, _), names)| (work, names.each_ref().map(|n| forms(n.as_deref()))))
                .collect(),
            entries,
            cuda,
            time: TimeColumns::of(columns),
            volta: (
                forms(Some(c::TENSOR_PIPE_INST.name)),
                columns.position(c::CC_MAJOR.name),
                columns.position(c::CC_MINOR.name),
            ),
            fp16_pipe: (
                forms(Some(c::FMA_FP16_INST.name)),
                columns.position(c::FMA_FP16_INST_PCT.name),
            ),
        }
    }

    /// The total of a counter with these form columns in `launch`.
    fn total(&self, launch: &LaunchCounters, forms: FormColumns) -> Option<(f64, Source)> {
        total_from(&ByColumn {
            metrics: &launch.metrics,
            forms,
            time: self.time,
        })
    }

    /// Tensor-core work of `launch`, whose metrics have this plan's columns.
    fn tensor_work(&self, launch: &LaunchCounters) -> WorkByKind {
        // family -> (total, dense, sparse), each with its source; a slot is filled by the
        // first of its columns that holds a number, as a scan of the names in column order
        // would.
        type Parts = [Option<(f64, Source)>; 3];
        let mut parts: Vec<Parts> = vec![[None; 3]; self.families.len()];
        let mut seen: Vec<[bool; 3]> = vec![[false; 3]; self.families.len()];
        for &(column, family, slot) in &self.entries {
            if launch.metrics.number_at(column).is_none() {
                continue;
            }
            let (Some(done), Some(part), Some((_, forms))) = (
                seen.get_mut(family).and_then(|s| s.get_mut(slot)),
                parts.get_mut(family).and_then(|p| p.get_mut(slot)),
                self.families.get(family),
            ) else {
                continue;
            };
            if !*done {
                *done = true;
                *part = forms.get(slot).and_then(|f| self.total(launch, *f));
            }
        }
        let mut out = WorkByKind::new();
        for ((work, _), [whole, dense, sparse]) in self.families.iter().zip(parts) {
            let value = whole.or(match (dense, sparse) {
                (None, None) => None,
                (d, s) => {
                    let d = d.unwrap_or((0.0, Source::Total));
                    let s = s.unwrap_or((0.0, Source::Total));
                    Some((d.0 + s.0, d.1.max(s.1)))
                }
            });
            if let Some((ops, source)) = value {
                add(&mut out, *work, ops, source, &[]);
            }
        }
        let (pipe, major, minor) = self.volta;
        let at = |column: Option<usize>| column.and_then(|i| launch.metrics.number_at(i));
        if out.is_empty() && at(major) == Some(7.0) && at(minor) == Some(0.0) {
            if let Some((inst, _)) = self.total(launch, pipe) {
                add(
                    &mut out,
                    Work::TensorFp16,
                    VOLTA_FLOP_PER_TENSOR_INST * inst,
                    Source::Estimate,
                    &[],
                );
            }
        }
        out
    }

    /// All work of `launch` by kind ([`work`]).
    fn work(&self, launch: &LaunchCounters) -> WorkByKind {
        let mut out = self.tensor_work(launch);
        let (pipe_forms, pipe_pct) = self.fp16_pipe;
        let fp16_pipe = self
            .total(launch, pipe_forms)
            .map(|(v, _)| v)
            .or_else(|| pipe_pct.and_then(|i| launch.metrics.number_at(i)));
        for (kind, counters) in &self.cuda {
            if let Some(w) = cuda_core_work_at(launch, *kind, counters, self.time, fp16_pipe) {
                add(&mut out, *kind, w.ops, w.source, &w.missing);
            }
        }
        out
    }
}

/// Tensor-core work of a launch by kind, with no double counting (module documentation).
pub fn tensor_work(launch: &LaunchCounters) -> WorkByKind {
    WorkPlan::of(launch.metrics.columns()).tensor_work(launch)
}

/// FLOPs per warp-level tensor instruction on Volta (NERSC's roofline method: each HMMA
/// instruction of a warp does a 16x16x16 slice split in steps, 512 FLOPs).
pub const VOLTA_FLOP_PER_TENSOR_INST: f64 = 512.0;

fn add(out: &mut WorkByKind, work: Work, ops: f64, source: Source, missing: &[String]) {
    let entry = out.entry(work).or_insert(WorkCount {
        ops: 0.0,
        source: Source::Total,
        missing: Vec::new(),
    });
    entry.ops += ops;
    entry.source = entry.source.max(source);
    for m in missing {
        if !entry.missing.contains(m) {
            entry.missing.push(m.clone());
        }
    }
}

/// All work of a launch by kind: CUDA cores and tensor cores.
pub fn work(launch: &LaunchCounters) -> WorkByKind {
    WorkPlan::of(launch.metrics.columns()).work(launch)
}

/// [`work`] of launch after launch, each column list's plan made once: launches of one
/// export share their columns, and so one plan.
#[derive(Default)]
pub struct Plans {
    plan: Option<WorkPlan>,
}

impl Plans {
    /// All work of `launch` by kind, as [`work`]. The plan is made again only for another
    /// column list: an artifact read back gives each counter set its own copy of the same
    /// list, so equal lists keep the plan too (a plan per kernel was a quarter of
    /// `capture table`'s time on 200,000 one-launch kernels).
    pub fn work(&mut self, launch: &LaunchCounters) -> WorkByKind {
        let columns = launch.metrics.columns();
        let plan = match self.plan.take() {
            Some(p) if Arc::ptr_eq(&p.columns, columns) => self.plan.insert(p),
            Some(mut p) if p.columns.keys() == columns.keys() => {
                p.columns = Arc::clone(columns);
                self.plan.insert(p)
            }
            _ => self.plan.insert(WorkPlan::of(columns)),
        };
        plan.work(launch)
    }
}

/// Work by kind summed over launches.
pub fn work_over(launches: &[LaunchCounters]) -> WorkByKind {
    work_over_in(&mut Plans::default(), launches)
}

/// [`work_over`] through `plans`, kept by a caller that sums kernel after kernel.
pub fn work_over_in(plans: &mut Plans, launches: &[LaunchCounters]) -> WorkByKind {
    let mut out = WorkByKind::new();
    for launch in launches {
        for (kind, w) in plans.work(launch) {
            add(&mut out, kind, w.ops, w.source, &w.missing);
        }
    }
    out
}

/// All floating-point work (CUDA and tensor cores; integer OPs excluded), FLOPs.
pub fn flops_total(by: &WorkByKind) -> f64 {
    by.iter()
        .filter(|(k, _)| !k.is_integer())
        .map(|(_, w)| w.ops)
        .sum()
}

/// The kind with the most work (FLOPs and OPs compared as counts); `None` when all are zero.
pub fn main_kind(by: &WorkByKind) -> Option<Work> {
    by.iter()
        .filter(|(_, w)| w.ops > 0.0)
        .max_by(|a, b| a.1.ops.total_cmp(&b.1.ops))
        .map(|(k, _)| *k)
}

/// Dense FLOP (OP for integer kinds) per clock per SM of `work` on compute capability
/// `major.minor`; `None` where the table has no public figure. Sources: NVIDIA Tesla V100
/// GPU Architecture whitepaper (2017), NVIDIA A100 Tensor Core GPU Architecture whitepaper
/// (2020), NVIDIA H100 Tensor Core GPU Architecture whitepaper (2022): each peak divided by
/// SMs and the clock the paper quotes it at. FP32 is 2 x the lanes of
/// [`crate::model::roofline::fp32_lanes_per_sm`] on every architecture that table knows.
pub fn dense_flop_per_clock_per_sm(major: u32, minor: u32, work: Work) -> Option<f64> {
    if work == Work::Fp32 {
        return crate::model::roofline::fp32_lanes_per_sm(major, minor).map(|l| 2.0 * f64::from(l));
    }
    let v = match ((major, minor), work) {
        // V100: 80 SMs at 1530 MHz; 7.8 TFLOP/s FP64, 31.4 FP16, 125 tensor FP16.
        ((7, 0), Work::Fp64) => 64.0,
        ((7, 0), Work::Fp16) => 256.0,
        ((7, 0), Work::TensorFp16) => 1024.0,
        // A100: 108 SMs at 1410 MHz; FP64 9.7, FP16 78, tensor FP64 19.5, TF32 156,
        // FP16/BF16 312, INT8 624, INT4 1248, INT1 4992 (dense).
        ((8, 0), Work::Fp64) => 64.0,
        ((8, 0), Work::Fp16) => 512.0,
        ((8, 0), Work::TensorFp64) => 128.0,
        ((8, 0), Work::TensorTf32) => 1024.0,
        ((8, 0), Work::TensorFp16 | Work::TensorBf16) => 2048.0,
        ((8, 0), Work::TensorInt8) => 4096.0,
        ((8, 0), Work::TensorInt4) => 8192.0,
        ((8, 0), Work::TensorInt1) => 32768.0,
        // H100 SXM5: 132 SMs; FP64 33.5, FP16 133.8, tensor FP64 66.9 (at 1980 MHz);
        // TF32 494.7, FP16/BF16 989.4, FP8 1978.9, INT8 1978.9 (dense, at 1830 MHz).
        ((9, 0), Work::Fp64) => 128.0,
        ((9, 0), Work::Fp16) => 512.0,
        ((9, 0), Work::TensorFp64) => 256.0,
        ((9, 0), Work::TensorTf32) => 2048.0,
        ((9, 0), Work::TensorFp16 | Work::TensorBf16) => 4096.0,
        ((9, 0), Work::TensorFp8 | Work::TensorInt8) => 8192.0,
        _ => return None,
    };
    Some(v)
}

/// Theoretical dense peak of `work` in G(FL)OP/s: per clock per SM x SMs x SM clock.
pub fn peak_giga_per_s(
    major: u32,
    minor: u32,
    sm_count: u32,
    sm_clock_khz: u64,
    work: Work,
) -> Option<f64> {
    let per_sm = dense_flop_per_clock_per_sm(major, minor, work)?;
    Some(per_sm * f64::from(sm_count) * sm_clock_khz as f64 * 1e3 / 1e9)
}

/// [`peak_giga_per_s`] of a device record; `None` when an attribute is unknown.
pub fn device_peak(device: &crate::model::artifact::DeviceInfo, work: Work) -> Option<f64> {
    let cc = device.compute_capability?;
    peak_giga_per_s(
        cc.major,
        cc.minor,
        device.sm_count?,
        device.sm_clock_khz?,
        work,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_column_plan_finds_what_the_names_find() {
        // CUDA-core work by column (the plan every launch of an export shares) against the
        // same counters looked up by name, on real exports of every set.
        for csv in [
            include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv"),
            include_str!("../../../tests/fixtures/ncu-h200-torch/gpt2_bf16_roofline_set_raw.csv"),
            include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_detailed_raw.csv"),
        ] {
            let export = crate::read::ncu::read_export(csv.as_bytes()).expect("reads");
            for launch in &export.launches {
                let by_plan = work(launch);
                for kind in [Work::Fp64, Work::Fp32, Work::Fp16] {
                    assert_eq!(by_plan.get(&kind), cuda_core_work(launch, kind).as_ref());
                }
            }
        }
    }

    fn launch(metrics: &[(&str, f64)]) -> LaunchCounters {
        LaunchCounters::from_numbers("k", metrics)
    }

    #[test]
    fn register_moves_are_not_fp16_work() {
        // The H200 sample's suite: the FP32 kernels' HFMA2.MMA moves (one per thread in the
        // stride-32 vector add, the matmuls, the polynomial and the FP32 precision pair) make
        // no FP16 work; GPT-2's bf16 copy, CatArrayBatchedCopy and elementwise kernels
        // neither (up to 9 moves per thread in its layer norm).
        for (csv, at_least) in [
            (
                &crate::testing::gunzip_text(include_bytes!(
                    "../../../site/samples/h200-ncu-cold-raw.csv.gz"
                )),
                134_217_728.0,
            ),
            (
                &crate::testing::gunzip_text(include_bytes!(
                    "../../../site/samples/h200-gpt2-bf16-ncu-cold-raw.csv.gz"
                )),
                1_572_864.0,
            ),
        ] {
            let export = crate::read::ncu::read_export(csv.as_bytes()).expect("reads");
            let mut moves = 0.0;
            for launch in &export.launches {
                let hfma = total(launch, c::HFMA).map_or(0.0, |(v, _)| v);
                moves += hfma;
                let fp16 = work(launch).get(&Work::Fp16).map(|w| w.ops);
                assert!(fp16.is_none_or(|v| v == 0.0), "{}", launch.function);
                let by_name = cuda_core_work(launch, Work::Fp16).map(|w| w.ops);
                assert_eq!(by_name, fp16);
            }
            let counted = register_moves(&export.launches).expect("some moves");
            assert_eq!(
                counted, moves,
                "every HFMA is a move, and stays counted as one"
            );
            assert!(counted >= at_least, "{counted}");
        }
        // Any half add or multiply, or FP16 instructions on the FMA pipe, is half arithmetic.
        let real = launch(&[
            (c::HFMA.name, 10.0),
            (c::HADD.name, 1.0),
            (c::HMUL.name, 0.0),
        ]);
        assert_eq!(
            work(&real).get(&Work::Fp16).map(|w| w.ops),
            Some(42.0),
            "4 x 10 + 2 x 1"
        );
        let on_pipe = launch(&[(c::HFMA.name, 10.0), (c::FMA_FP16_INST.name, 1.0)]);
        assert!(work(&on_pipe).contains_key(&Work::Fp16));
        let pct_zero = launch(&[(c::HFMA.name, 10.0), (c::FMA_FP16_INST_PCT.name, 0.0)]);
        assert!(!work(&pct_zero).contains_key(&Work::Fp16));
        assert_eq!(register_moves(&[real]), None);
        assert!(fp16_is_register_moves([None, None, Some(1.0)], None));
        assert!(!fp16_is_register_moves([None, None, Some(0.0)], None));
    }

    #[test]
    fn bert_full_set_hfmas_are_moves_by_the_fma_pipe_counter() {
        // ncu --set full of a BERT bf16 forward: its layer norm and elementwise kernels count
        // HFMAs (as per-cycle values) while the FMA pipe ran no FP16 instruction.
        let csv = include_str!("../../../tests/fixtures/ncu-h200-bert/bert_full_raw.csv");
        let export = crate::read::ncu::read_export(csv.as_bytes()).expect("reads");
        let with_hfma = export
            .launches
            .iter()
            .filter(|l| total(l, c::HFMA).is_some_and(|(v, _)| v > 0.0))
            .count();
        assert!(with_hfma > 5, "{with_hfma}");
        for l in &export.launches {
            assert_eq!(l.metrics.number(c::FMA_FP16_INST_PCT.name), Some(0.0));
            let fp16 = work(l).get(&Work::Fp16).map(|w| w.ops);
            assert!(fp16.is_none_or(|v| v == 0.0), "{}", l.function);
        }
    }

    #[test]
    fn tensor_names_parse_into_kind_family_and_split() {
        let cases = [
            (
                "sm__ops_path_tensor_src_bf16_dst_fp32",
                Work::TensorBf16,
                "bf16_dst_fp32",
                None,
            ),
            (
                "sm__ops_path_tensor_src_fp16",
                Work::TensorFp16,
                "fp16",
                None,
            ),
            (
                "sm__ops_path_tensor_src_fp8_sparsity_off",
                Work::TensorFp8,
                "fp8",
                Some(false),
            ),
            (
                "sm__ops_path_tensor_src_int8_sparsity_on",
                Work::TensorInt8,
                "int8",
                Some(true),
            ),
            (
                "sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32",
                Work::TensorFp16Bf16Tf32,
                "fp16_bf16_tf32_dst_fp32",
                None,
            ),
            ("sm__ops_path_tensor_src_fp4", Work::TensorFp4, "fp4", None),
        ];
        for (name, work, family, sparse) in cases {
            let t = parse_tensor_name(name).expect(name);
            assert_eq!(
                (t.work, t.family, t.sparse),
                (work, family, sparse),
                "{name}"
            );
        }
        assert_eq!(
            parse_tensor_name("sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32"),
            None
        );
        assert_eq!(parse_tensor_name("sm__ops_path_tensor_src_fp9"), None);
        assert_eq!(parse_tensor_name("smsp__ops_path_tensor_src_fp16"), None);
    }

    #[test]
    fn no_double_counting_one_level_and_total_or_split() {
        // What ncu's full set holds for one bf16 wgmma GEMM: the src total, the op-level
        // (hgmma) counter of the same work, and per-SM statistics. Plus an fp8 family with a
        // total and its split, and an int8 family with only its split.
        let l = launch(&[
            ("sm__ops_path_tensor_src_bf16_dst_fp32.sum", 100.0),
            (
                "sm__ops_path_tensor_op_hgmma_src_bf16_dst_fp32_sparsity_off.sum",
                100.0,
            ),
            ("sm__ops_path_tensor_src_bf16_dst_fp32.avg", 1.0),
            (
                "sm__ops_path_tensor_src_bf16_dst_fp32.sum.peak_sustained",
                1e6,
            ),
            ("sm__ops_path_tensor_src_fp8.sum", 40.0),
            ("sm__ops_path_tensor_src_fp8_sparsity_off.sum", 30.0),
            ("sm__ops_path_tensor_src_fp8_sparsity_on.sum", 10.0),
            ("sm__ops_path_tensor_src_int8_sparsity_off.sum", 7.0),
            ("sm__ops_path_tensor_src_int8_sparsity_on.sum", 1.0),
            ("sm__ops_path_tensor_src_fp16_dst_fp16.sum", 5.0),
            ("sm__ops_path_tensor_src_fp16_dst_fp32.sum", 6.0),
        ]);
        let by = tensor_work(&l);
        let ops = |w: Work| by.get(&w).map(|c| c.ops);
        assert_eq!(ops(Work::TensorBf16), Some(100.0));
        assert_eq!(
            ops(Work::TensorFp8),
            Some(40.0),
            "the total, not total plus split"
        );
        assert_eq!(
            ops(Work::TensorInt8),
            Some(8.0),
            "the split where no total exists"
        );
        assert_eq!(
            ops(Work::TensorFp16),
            Some(11.0),
            "two accumulator families add"
        );
        assert_eq!(flops_total(&by), 151.0, "int8 OPs are not FLOPs");
        assert_eq!(main_kind(&by), Some(Work::TensorBf16));
    }

    #[test]
    fn totals_from_rates_and_per_cycle_values_are_labelled() {
        let l = launch(&[
            (c::GPU_TIME_DURATION.name, 2_000.0),
            ("dram__bytes.sum.per_second", 1e12),
            (c::SM_CYCLES.name, 3_000.0),
            (
                "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed",
                10.0,
            ),
            ("sm__ops_path_tensor_src_fp16.sum.per_second", 5e14),
        ]);
        assert_eq!(
            total(&l, c::DRAM_BYTES),
            Some((2_000_000.0, Source::PerSecond))
        );
        assert_eq!(total(&l, c::FFMA), Some((30_000.0, Source::PerCycle)));
        let fp32 = cuda_core_work(&l, Work::Fp32).expect("ffma");
        assert_eq!(fp32.ops, 60_000.0);
        assert_eq!(fp32.source, Source::PerCycle);
        assert_eq!(fp32.missing.len(), 2, "fadd and fmul absent");
        let t = tensor_work(&l);
        assert_eq!(
            t.get(&Work::TensorFp16).map(|w| (w.ops, w.source)),
            Some((1e9, Source::PerSecond))
        );
        // Without cycles, per-cycle values use the SM clock x the duration.
        let l = launch(&[
            (c::GPU_TIME_DURATION.name, 1_000.0),
            (c::SM_HZ.name, 2e9),
            (
                "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum.per_cycle_elapsed",
                1.0,
            ),
        ]);
        assert_eq!(total(&l, c::FADD), Some((2_000.0, Source::PerCycle)));
        assert_eq!(total(&launch(&[]), c::FADD), None);
    }

    #[test]
    fn volta_work_is_an_estimate_from_tensor_instructions() {
        let l = launch(&[
            (c::CC_MAJOR.name, 7.0),
            (c::CC_MINOR.name, 0.0),
            (c::TENSOR_PIPE_INST.name, 1_000.0),
        ]);
        let by = tensor_work(&l);
        let w = by.get(&Work::TensorFp16).expect("estimate");
        assert_eq!((w.ops, w.source), (512_000.0, Source::Estimate));
        // Elsewhere the instruction count is not work.
        let l = launch(&[
            (c::CC_MAJOR.name, 9.0),
            (c::CC_MINOR.name, 0.0),
            (c::TENSOR_PIPE_INST.name, 1.0),
        ]);
        assert!(tensor_work(&l).is_empty());
    }

    #[test]
    fn each_architecture_asks_for_its_own_tensor_counters() {
        let names = |cc: (u32, u32)| -> Vec<&str> {
            c::tensor_work(cc.0, cc.1).iter().map(|c| c.name).collect()
        };
        assert_eq!(names((7, 0)), ["sm__inst_executed_pipe_tensor.sum"]);
        assert!(names((7, 5)).contains(&"sm__ops_path_tensor_src_fp16_bf16_tf32_dst_fp32.sum"));
        assert!(names((8, 0)).contains(&"sm__ops_path_tensor_src_fp16_dst_fp32.sum"));
        assert!(!names((8, 0)).iter().any(|n| n.contains("fp8")));
        assert!(names((8, 9)).contains(&"sm__ops_path_tensor_src_fp8_sparsity_off.sum"));
        assert_eq!(
            names((9, 0)),
            [
                "sm__ops_path_tensor_src_bf16_dst_fp32.sum",
                "sm__ops_path_tensor_src_fp16.sum",
                "sm__ops_path_tensor_src_tf32_dst_fp32.sum",
                "sm__ops_path_tensor_src_fp8.sum",
                "sm__ops_path_tensor_src_fp64.sum",
                "sm__ops_path_tensor_src_int8.sum",
                "sm__ops_path_tensor_src_int1.sum",
            ]
        );
        assert!(
            names((6, 1)).is_empty(),
            "unknown architecture: nothing guessed"
        );
        // Every tensor counter of every architecture is one the reader counts.
        for cc in [(7, 5), (8, 0), (8, 9), (9, 0)] {
            for name in names(cc) {
                let base = name.strip_suffix(".sum").expect("a total");
                assert!(parse_tensor_name(base).is_some(), "{name}");
            }
        }
    }

    #[test]
    fn dense_peaks_match_the_whitepapers() {
        // H100 SXM5, 132 SMs: BF16 989.4 TFLOP/s dense at 1830 MHz, FP8 1978.9, TF32 494.7.
        let tflops = |w: Work, khz: u64| peak_giga_per_s(9, 0, 132, khz, w).expect("known") / 1e3;
        assert!((tflops(Work::TensorBf16, 1_830_000) - 989.4).abs() < 0.1);
        assert!((tflops(Work::TensorFp8, 1_830_000) - 1978.9).abs() < 0.1);
        assert!((tflops(Work::TensorTf32, 1_830_000) - 494.7).abs() < 0.1);
        // FP32 66.9 and FP64 tensor 66.9 at 1980 MHz; FP32 agrees with the lanes table.
        assert!((tflops(Work::Fp32, 1_980_000) - 66.9).abs() < 0.05);
        assert!((tflops(Work::TensorFp64, 1_980_000) - 66.9).abs() < 0.05);
        // A100, 108 SMs at 1410 MHz: FP16 tensor 312, FP64 tensor 19.5.
        let a100 = |w: Work| peak_giga_per_s(8, 0, 108, 1_410_000, w).expect("known") / 1e3;
        assert!((a100(Work::TensorFp16) - 311.9).abs() < 0.1);
        assert!((a100(Work::TensorFp64) - 19.5).abs() < 0.05);
        // V100, 80 SMs at 1530 MHz: 125 tensor TFLOP/s.
        assert!(
            (peak_giga_per_s(7, 0, 80, 1_530_000, Work::TensorFp16).expect("v100") / 1e3 - 125.3)
                .abs()
                < 0.1
        );
        assert_eq!(
            dense_flop_per_clock_per_sm(8, 6, Work::TensorBf16),
            None,
            "not in the table"
        );
        assert_eq!(dense_flop_per_clock_per_sm(10, 0, Work::TensorFp4), None);
        assert_eq!(dense_flop_per_clock_per_sm(9, 0, Work::TensorInt1), None);
    }

    #[test]
    fn keys_round_trip_and_integers_are_ops() {
        for w in Work::ALL {
            assert_eq!(Work::from_key(w.key()), Some(w));
            // JSON writes the key, so the artifact's precision and the table agree.
            let json = serde_json::to_string(&w).expect("serializes");
            assert_eq!(json, format!("\"{}\"", w.key()));
            assert_eq!(w.unit() == "OP", w.is_integer());
        }
        assert!(!Work::Fp32.is_tensor() && Work::TensorTf32.is_tensor());
    }
}
