//! A sampled profile checked against a profile of every launch of the same run: the totals
//! the roofline stands on (DRAM and L2 bytes, FLOPs per precision, tensor FLOPs), each
//! kernel's share of the time, bytes and FLOPs, and whether the kernels rank the same by
//! time. The CPU tests run it on recorded data; `tests/device/sampling.sh` prints the same
//! comparison from a device run.

use std::collections::BTreeMap;

use crate::analysis::work;
use crate::model::artifact::LaunchCounters;
use crate::model::counters;
use crate::model::work_kind::Work;

/// Totals over launches.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Totals {
    /// Launch time, ns.
    pub time_ns: f64,
    /// DRAM bytes read plus written.
    pub dram_bytes: f64,
    /// Bytes through L2.
    pub l2_bytes: f64,
    /// FLOPs (OPs for integer kinds) per kind of work.
    pub work: BTreeMap<Work, f64>,
    /// Tensor-core FLOPs (integer OPs excluded).
    pub tensor_flops: f64,
    /// All FLOPs (integer OPs excluded).
    pub flops: f64,
}

fn amount(l: &LaunchCounters, c: counters::Counter) -> f64 {
    work::total(l, c).map_or(0.0, |(v, _)| v)
}

/// The totals of `launches`.
pub fn totals(launches: &[LaunchCounters]) -> Totals {
    let mut t = Totals::default();
    for l in launches {
        t.time_ns += l
            .metrics
            .number(counters::GPU_TIME_DURATION.name)
            .unwrap_or(0.0);
        t.dram_bytes +=
            amount(l, counters::DRAM_BYTES_READ) + amount(l, counters::DRAM_BYTES_WRITE);
        t.l2_bytes += amount(l, counters::L2_BYTES);
    }
    let by = work::work_over(launches);
    for (kind, w) in &by {
        t.work.insert(*kind, w.ops);
        if kind.is_tensor() && !kind.is_integer() {
            t.tensor_flops += w.ops;
        }
    }
    t.flops = work::flops_total(&by);
    t
}

/// One kernel in both profiles.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelComparison {
    /// The kernel.
    pub function: String,
    /// Its totals in the sampled profile.
    pub sampled: Totals,
    /// Its totals in the full profile.
    pub full: Totals,
    /// Its share of the sampled profile's time (0-1).
    pub share: f64,
}

/// A sampled profile against a full one.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    /// Totals of the sampled profile.
    pub sampled: Totals,
    /// Totals of the full profile.
    pub full: Totals,
    /// Per kernel, most time (sampled) first.
    pub kernels: Vec<KernelComparison>,
    /// Kernels by time, most first, in the sampled profile.
    pub ranking_sampled: Vec<String>,
    /// The same in the full profile.
    pub ranking_full: Vec<String>,
}

impl Comparison {
    /// Whether the kernels rank the same by time in both.
    pub fn ranking_same(&self) -> bool {
        self.ranking_sampled == self.ranking_full
    }
}

/// Relative difference of `a` from `b` (0 when both are 0).
pub fn relative(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        if a == 0.0 {
            0.0
        } else {
            f64::INFINITY
        }
    } else {
        (a - b).abs() / b.abs()
    }
}

fn by_function(launches: &[LaunchCounters]) -> BTreeMap<&str, Vec<LaunchCounters>> {
    let mut m: BTreeMap<&str, Vec<LaunchCounters>> = BTreeMap::new();
    for l in launches {
        m.entry(l.function.as_ref()).or_default().push(l.clone());
    }
    m
}

fn ranking(per: &BTreeMap<&str, Totals>) -> Vec<String> {
    let mut v: Vec<(&str, f64)> = per.iter().map(|(k, t)| (*k, t.time_ns)).collect();
    crate::order::sort_by(&mut v, |a, b| b.1.total_cmp(&a.1).then(a.0.cmp(b.0)));
    v.into_iter().map(|(k, _)| k.to_string()).collect()
}

/// Compares a sampled profile's launches with a full profile's.
pub fn compare(sampled: &[LaunchCounters], full: &[LaunchCounters]) -> Comparison {
    let s_all = totals(sampled);
    let f_all = totals(full);
    let s: BTreeMap<&str, Totals> = by_function(sampled)
        .into_iter()
        .map(|(k, v)| (k, totals(&v)))
        .collect();
    let f: BTreeMap<&str, Totals> = by_function(full)
        .into_iter()
        .map(|(k, v)| (k, totals(&v)))
        .collect();
    let ranking_sampled = ranking(&s);
    let ranking_full = ranking(&f);
    let kernels = ranking_sampled
        .iter()
        .map(|k| {
            let st = s.get(k.as_str()).cloned().unwrap_or_default();
            KernelComparison {
                function: k.clone(),
                share: if s_all.time_ns > 0.0 {
                    st.time_ns / s_all.time_ns
                } else {
                    0.0
                },
                sampled: st,
                full: f.get(k.as_str()).cloned().unwrap_or_default(),
            }
        })
        .collect();
    Comparison {
        sampled: s_all,
        full: f_all,
        kernels,
        ranking_sampled,
        ranking_full,
    }
}

/// The kernels whose place in the time ranking differs between the two profiles, each with
/// its time in the sampled and in the full profile, ns.
pub fn rank_swaps(c: &Comparison) -> Vec<(String, f64, f64)> {
    c.ranking_sampled
        .iter()
        .zip(&c.ranking_full)
        .filter(|(s, f)| s != f)
        .filter_map(|(s, _)| {
            let k = c.kernels.iter().find(|k| &k.function == s)?;
            Some((s.clone(), k.sampled.time_ns, k.full.time_ns))
        })
        .collect()
}
