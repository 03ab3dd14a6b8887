//! One-pass counters: the hardware counters PM sampling recorded over time in a trace's run
//! (`capture trace --counters`), attributed to the launches that ran in each interval.
//!
//! **The rule.** Each sampling interval's counts go to the kernels of its process and device
//! that ran during it, in proportion to the time each ran inside the interval: a kernel
//! wholly inside one interval with another gets the share of its time, and an interval that
//! holds one kernel gives it everything. Where two kernels ran at the same instant (streams
//! in parallel), their split is by time too, but the figures are marked **shared**
//! ([`Sampled::shared_ns`]): the counters cannot say which of the two did the work. Counts
//! of an interval in which no kernel ran (copies, a memory set, the tail of a kernel whose end
//! the trace places earlier) are **unattributed**, counted per series.
//!
//! **The error this adds.** A launch shorter than the interval shares its intervals with its
//! neighbours, and the split by time gives it their work in proportion to its time, not its
//! own: its figures are as good as the neighbours are alike. A launch much longer than the
//! interval loses or gains at most the parts of its first and last intervals. The measured
//! error against replay is docs/one-pass.md's.
//!
//! **The clock.** PM sampling stamps intervals with the GPU's timer; the activity records are
//! on CUPTI's clock. Where the two disagree (the samples fall outside the span of the
//! kernels), the offset is estimated as the shift that puts the most sampled intervals inside
//! kernels ([`clock_offset`]), and reported.

use serde::Serialize;

use crate::model::counters::{self as c, Counter};
use crate::model::trace::{CounterSeries, Trace};
use crate::text::table::{Column, Table};

/// How far (in intervals, each way) the clock offset search goes around its first guess.
pub const OFFSET_SEARCH_INTERVALS: i64 = 400;
/// How many samples the offset search scores (the first ones with activity).
pub const OFFSET_SEARCH_SAMPLES: usize = 4000;

/// One launch's one-pass figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Sampled {
    /// Index into [`Trace::counters`] of the series they come from.
    pub series: usize,
    /// The series' metrics' counts attributed to the launch, in the series' order.
    pub values: Vec<f64>,
    /// Time of the launch inside sampled intervals, ns.
    pub covered_ns: f64,
    /// Of that, time during which another kernel ran too, ns: those counts are shared.
    pub shared_ns: f64,
}

/// One series' attribution, as a whole.
#[derive(Clone, Debug, PartialEq)]
pub struct SeriesOutcome {
    /// The shift added to the samples' times to put them on the trace's clock, ns.
    pub clock_offset_ns: i64,
    /// Each metric's counts over every sample.
    pub totals: Vec<f64>,
    /// Each metric's counts in intervals with no kernel.
    pub unattributed: Vec<f64>,
}

/// Every launch's figures (by index of [`Trace::kernels`]; `None` where no sample covered it
/// or no series is of its process and device) and each series' outcome.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Attributed {
    /// By kernel index.
    pub kernels: Vec<Option<Sampled>>,
    /// By series index.
    pub series: Vec<SeriesOutcome>,
}

/// Attributes every series of `trace` to its kernels ([the rule](self)).
pub fn attribute(trace: &Trace) -> Attributed {
    let mut out = Attributed {
        kernels: vec![None; trace.kernels.len()],
        series: Vec::new(),
    };
    for (si, series) in trace.counters.iter().enumerate() {
        let mut ks: Vec<usize> = (0..trace.kernels.len())
            .filter(|&i| {
                let k = &trace.kernels[i];
                k.pid == series.pid && k.device == series.device
            })
            .collect();
        crate::order::sort_by_key(&mut ks, |&i| trace.kernels[i].start_ns);
        let spans: Vec<(u64, u64)> = ks
            .iter()
            .map(|&i| (trace.kernels[i].start_ns, trace.kernels[i].end_ns))
            .collect();
        let offset = clock_offset(series, &spans);
        let n = series.metrics.len();
        let mut outcome = SeriesOutcome {
            clock_offset_ns: offset,
            totals: vec![0.0; n],
            unattributed: vec![0.0; n],
        };
        let mut next = 0usize;
        let mut active: Vec<usize> = Vec::new();
        for sample in &series.samples {
            let s = shift(sample.start_ns, offset);
            let e = shift(sample.end_ns, offset).max(s);
            for (t, v) in outcome.totals.iter_mut().zip(&sample.values) {
                *t += v;
            }
            while next < spans.len() && spans[next].0 < e {
                active.push(next);
                next += 1;
            }
            active.retain(|&j| spans[j].1 > s);
            let overlaps: Vec<(usize, u64, u64)> = active
                .iter()
                .filter_map(|&j| {
                    let (a, b) = (spans[j].0.max(s), spans[j].1.min(e));
                    (b > a).then_some((j, a, b))
                })
                .collect();
            let total: u64 = overlaps.iter().map(|o| o.2 - o.1).sum();
            if total == 0 {
                for (u, v) in outcome.unattributed.iter_mut().zip(&sample.values) {
                    *u += v;
                }
                continue;
            }
            for &(j, a, b) in &overlaps {
                let share = (b - a) as f64 / total as f64;
                let with_other: u64 = overlaps
                    .iter()
                    .filter(|o| o.0 != j)
                    .map(|o| o.2.min(b).saturating_sub(o.1.max(a)))
                    .max()
                    .unwrap_or(0);
                let k = out.kernels[ks[j]].get_or_insert_with(|| Sampled {
                    series: si,
                    values: vec![0.0; n],
                    covered_ns: 0.0,
                    shared_ns: 0.0,
                });
                for (kv, v) in k.values.iter_mut().zip(&sample.values) {
                    *kv += v * share;
                }
                k.covered_ns += (b - a) as f64;
                k.shared_ns += with_other as f64;
            }
        }
        out.series.push(outcome);
    }
    out
}

fn shift(t: u64, offset: i64) -> u64 {
    t.saturating_add_signed(offset)
}

/// The shift that puts `series`' samples on the clock of the kernels' `spans` (sorted by
/// start): 0 where the samples already fall within the kernels' span; else, from a first
/// guess that aligns the first sample with the first kernel, the shift (in quarter
/// intervals, up to [`OFFSET_SEARCH_INTERVALS`] intervals each way) that puts the most of
/// the first [`OFFSET_SEARCH_SAMPLES`] samples' time inside kernels.
pub fn clock_offset(series: &CounterSeries, spans: &[(u64, u64)]) -> i64 {
    let (Some(first), Some(k0)) = (series.samples.first(), spans.first()) else {
        return 0;
    };
    let k_end = spans.iter().map(|s| s.1).max().unwrap_or(k0.1);
    let last = series.samples.last().map_or(first.end_ns, |s| s.end_ns);
    if first.start_ns < k_end && last > k0.0 {
        return 0;
    }
    let busy = merged(spans);
    let guess = k0.0 as i64 - first.start_ns as i64;
    let step = (series.interval_ns as i64 / 4).max(1);
    let samples = &series.samples[..series.samples.len().min(OFFSET_SEARCH_SAMPLES)];
    let score = |offset: i64| -> u64 {
        samples
            .iter()
            .map(|s| covered(&busy, shift(s.start_ns, offset), shift(s.end_ns, offset)))
            .sum()
    };
    let reach = OFFSET_SEARCH_INTERVALS * 4;
    let mut best = (score(guess), guess);
    for j in -reach..=reach {
        let o = guess + j * step;
        let sc = score(o);
        if sc > best.0 {
            best = (sc, o);
        }
    }
    best.1
}

/// The union of `spans` (sorted by start) as disjoint intervals.
fn merged(spans: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut out: Vec<(u64, u64)> = Vec::new();
    for &(a, b) in spans {
        match out.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => out.push((a, b)),
        }
    }
    out
}

/// Time of `[a, b)` inside the disjoint sorted intervals `busy`.
fn covered(busy: &[(u64, u64)], a: u64, b: u64) -> u64 {
    let from = busy.partition_point(|x| x.1 <= a);
    busy[from..]
        .iter()
        .take_while(|x| x.0 < b)
        .map(|x| x.1.min(b).saturating_sub(x.0.max(a)))
        .sum()
}

/// The one-pass figures of a trace by kernel name, as `capture table` shows them: every figure
/// sampled over time in the plain run (PM sampling), not replayed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OnePassReport {
    /// The metrics sampled, as CUPTI names them.
    pub metrics: Vec<String>,
    /// The sampling interval asked for, ns (of the first series).
    pub interval_ns: u64,
    /// Intervals with activity, and idle ones left out, over every series.
    pub samples: (u64, u64),
    /// Each series' clock offset, ns ([`clock_offset`]).
    pub clock_offsets_ns: Vec<i64>,
    /// The share of the DRAM bytes sampled that fell in no kernel, %, where DRAM was sampled.
    pub dram_unattributed_pct: Option<f64>,
    /// One line per kernel name, most time first.
    pub kernels: Vec<OnePassLine>,
}

/// One kernel name's one-pass figures: the sums over its launches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct OnePassLine {
    /// Kernel name.
    pub name: String,
    /// Launches, and how many of them sampled intervals covered.
    pub launches: u64,
    /// Launches with figures.
    pub sampled: u64,
    /// Kernel time, ns (the trace's).
    pub time_ns: f64,
    /// DRAM bytes read and written, where both were sampled.
    pub dram_bytes: Option<f64>,
    /// L2 bytes (`lts__t_bytes.sum`), where sampled.
    pub l2_bytes: Option<f64>,
    /// Tensor FLOPs, every source type sampled.
    pub tensor_flops: Option<f64>,
    /// FMA-pipe warp instructions, where sampled.
    pub fma_pipe_inst: Option<f64>,
    /// Of the launches' sampled time, the share during which another kernel ran too, %.
    pub shared_pct: f64,
    /// Of the launches' time, the share inside sampled intervals, %.
    pub covered_pct: f64,
}

impl OnePassReport {
    /// The lines as a table: sums over each kernel's launches.
    pub fn table(&self) -> Table<'static> {
        const COLUMNS: &[Column] = &[
            Column::value("Time (ns)"),
            Column::value("Launches"),
            Column::value("Sampled"),
            Column::value("DRAM (MB)"),
            Column::value("L2 (MB)"),
            Column::value("Tensor (GFLOP)"),
            Column::value("FMA inst (M)"),
            Column::value("FLOP/DRAM byte"),
            Column::value("Shared (%)"),
            Column::text("Name"),
        ];
        let mut t = Table::new(COLUMNS);
        let opt = |v: Option<f64>, scale: f64, digits: usize| {
            v.map_or_else(|| "-".to_owned(), |v| format!("{:.*}", digits, v / scale))
        };
        for l in &self.kernels {
            let intensity = match (l.tensor_flops, l.dram_bytes) {
                (Some(f), Some(b)) if b > 0.0 => format!("{:.1}", f / b),
                _ => "-".into(),
            };
            t.push([
                format!("{:.0}", l.time_ns),
                l.launches.to_string(),
                l.sampled.to_string(),
                opt(l.dram_bytes, 1e6, 3),
                opt(l.l2_bytes, 1e6, 3),
                opt(l.tensor_flops, 1e9, 3),
                opt(l.fma_pipe_inst, 1e6, 3),
                intensity,
                format!("{:.0}", l.shared_pct),
                l.name.clone(),
            ]);
        }
        t
    }

    /// The lines under the table: samples, the clock, what fell in no kernel, the metrics.
    pub fn footnote(&self) -> String {
        let mut out = format!(
            "{} intervals with activity ({} idle left out); metrics: {}\n",
            self.samples.0,
            self.samples.1,
            self.metrics.join(", ")
        );
        if self.clock_offsets_ns.iter().any(|&o| o != 0) {
            out.push_str(&format!(
                "the samples' clock was shifted by {} ns to the trace's (the shift that puts the \
                 most sampled intervals inside kernels)\n",
                self.clock_offsets_ns
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        if let Some(p) = self.dram_unattributed_pct {
            out.push_str(&format!(
                "{p:.1} % of the DRAM bytes sampled fell in intervals with no kernel (copies, \
                 memory sets)\n"
            ));
        }
        out
    }
}

/// The share of the DRAM bytes sampled that fell in intervals with no kernel, %, where DRAM
/// was sampled.
fn dram_unattributed_pct(attributed: &Attributed, slots: &[Slots]) -> Option<f64> {
    let (mut all, mut none) = (0.0, 0.0);
    let mut any = false;
    for (o, sl) in attributed.series.iter().zip(slots) {
        if let Some((r, w)) = sl.dram {
            any = true;
            all += o.totals[r] + o.totals[w];
            none += o.unattributed[r] + o.unattributed[w];
        }
    }
    (any && all > 0.0).then(|| 100.0 * none / all)
}

/// Where each figure of a line is in a series' values.
struct Slots {
    dram: Option<(usize, usize)>,
    l2: Option<usize>,
    tensor: Vec<usize>,
    fma: Option<usize>,
}

impl Slots {
    fn of(trace: &Trace, series: &CounterSeries) -> Slots {
        let at = |c: &Counter| {
            series
                .metrics
                .iter()
                .position(|&m| trace.string(m) == c.name)
        };
        // Tensor FLOPs by source type; fp16's two accumulator counters only where the
        // counter of every fp16 source is missing (they are parts of it).
        let mut tensor: Vec<usize> = [c::T_BF16, c::T_TF32, c::T_FP8]
            .iter()
            .filter_map(at)
            .collect();
        match at(&c::T_FP16) {
            Some(i) => tensor.push(i),
            None => tensor.extend(
                [c::T_FP16_DST_FP32, c::T_FP16_DST_FP16]
                    .iter()
                    .filter_map(at),
            ),
        }
        Slots {
            dram: at(&c::DRAM_BYTES_READ).zip(at(&c::DRAM_BYTES_WRITE)),
            l2: at(&c::L2_BYTES),
            tensor,
            fma: at(&c::PM_FMA_PIPE_INST),
        }
    }
}

impl OnePassReport {
    /// The report of a trace with counters; `None` without.
    pub fn of(trace: &Trace) -> Option<OnePassReport> {
        let first = trace.counters.first()?;
        let attributed = attribute(trace);
        let slots: Vec<Slots> = trace.counters.iter().map(|s| Slots::of(trace, s)).collect();
        let mut by: Vec<(String, OnePassLine)> = Vec::new();
        let mut at: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        let add = |x: &mut Option<f64>, v: Option<f64>| {
            if let Some(v) = v {
                *x = Some(x.unwrap_or(0.0) + v);
            }
        };
        let mut covered: Vec<(f64, f64)> = Vec::new();
        for (k, sampled) in trace.kernels.iter().zip(&attributed.kernels) {
            let name = trace.kernel_name(k);
            let i = *at.entry(name).or_insert_with(|| {
                by.push((
                    name.to_owned(),
                    OnePassLine {
                        name: name.to_owned(),
                        launches: 0,
                        sampled: 0,
                        time_ns: 0.0,
                        dram_bytes: None,
                        l2_bytes: None,
                        tensor_flops: None,
                        fma_pipe_inst: None,
                        shared_pct: 0.0,
                        covered_pct: 0.0,
                    },
                ));
                covered.push((0.0, 0.0));
                by.len() - 1
            });
            let line = &mut by[i].1;
            line.launches += 1;
            line.time_ns += k.end_ns.saturating_sub(k.start_ns) as f64;
            let Some(s) = sampled else { continue };
            line.sampled += 1;
            covered[i].0 += s.covered_ns;
            covered[i].1 += s.shared_ns;
            let sl = &slots[s.series];
            let v = |j: usize| s.values.get(j).copied();
            add(
                &mut line.dram_bytes,
                sl.dram.and_then(|(r, w)| Some(v(r)? + v(w)?)),
            );
            add(&mut line.l2_bytes, sl.l2.and_then(v));
            if !sl.tensor.is_empty() {
                add(
                    &mut line.tensor_flops,
                    Some(sl.tensor.iter().filter_map(|&j| v(j)).sum()),
                );
            }
            add(&mut line.fma_pipe_inst, sl.fma.and_then(v));
        }
        let mut kernels: Vec<OnePassLine> = by
            .into_iter()
            .zip(covered)
            .map(|((_, mut l), (cov, shared))| {
                l.covered_pct = if l.time_ns > 0.0 {
                    100.0 * cov / l.time_ns
                } else {
                    0.0
                };
                l.shared_pct = if cov > 0.0 { 100.0 * shared / cov } else { 0.0 };
                l
            })
            .collect();
        crate::order::sort_by(&mut kernels, |a, b| {
            b.time_ns
                .total_cmp(&a.time_ns)
                .then_with(|| a.name.cmp(&b.name))
        });
        let dram_unattributed_pct = dram_unattributed_pct(&attributed, &slots);
        Some(OnePassReport {
            metrics: first
                .metrics
                .iter()
                .map(|&m| trace.string(m).to_owned())
                .collect(),
            interval_ns: first.interval_ns,
            samples: (
                trace.counters.iter().map(|s| s.samples.len() as u64).sum(),
                trace.counters.iter().map(|s| s.idle_samples).sum(),
            ),
            clock_offsets_ns: attributed
                .series
                .iter()
                .map(|o| o.clock_offset_ns)
                .collect(),
            dram_unattributed_pct,
            kernels,
        })
    }
}

/// One kernel's figures from a replayed profile of the same program, to calibrate against.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    /// Kernel name as the profile gives it.
    pub name: String,
    /// DRAM bytes over its launches.
    pub dram_bytes: Option<f64>,
    /// L2 bytes over its launches.
    pub l2_bytes: Option<f64>,
    /// Launches.
    pub launches: u64,
}

/// One kernel's one-pass figure against its replayed one.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CalibrationLine {
    /// Kernel name (the trace's).
    pub name: String,
    /// Its time in the trace, ns: the weight.
    pub time_ns: f64,
    /// Its launches' mean duration over the sampling interval: below 1, it shares intervals.
    pub launch_over_interval: f64,
    /// Relative error of the one-pass DRAM bytes, % (one-pass minus replayed, over replayed).
    pub dram_error_pct: Option<f64>,
    /// Relative error of the one-pass L2 bytes, %.
    pub l2_error_pct: Option<f64>,
}

/// The error of one-pass figures against replay, per kernel and time-weighted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Calibration {
    /// Kernels found in both, most time first.
    pub lines: Vec<CalibrationLine>,
    /// Kernels of the trace with no unique match in the profile.
    pub unmatched: Vec<String>,
    /// Time-weighted median and 90th percentile of |DRAM error|, %.
    pub dram_abs_error_pct: Option<(f64, f64)>,
    /// The same of |L2 error|, %.
    pub l2_abs_error_pct: Option<(f64, f64)>,
    /// Summed one-pass DRAM bytes over summed replayed, of the matched kernels, minus 1, %.
    pub dram_total_error_pct: Option<f64>,
}

impl Calibration {
    /// `report`'s kernels matched to `replayed`'s by name (exactly, else by base name where
    /// that is unique on both sides and the launch counts agree).
    pub fn of(report: &OnePassReport, replayed: &[Replayed]) -> Calibration {
        let mut lines = Vec::new();
        let mut unmatched = Vec::new();
        let (mut ours, mut theirs) = (0.0, 0.0);
        for k in &report.kernels {
            let exact: Vec<&Replayed> = replayed.iter().filter(|r| r.name == k.name).collect();
            let found = if exact.len() == 1 {
                Some(exact[0])
            } else {
                let b = base_name(&k.name);
                let same: Vec<&Replayed> = replayed
                    .iter()
                    .filter(|r| base_name(&r.name) == b && r.launches == k.launches)
                    .collect();
                let ours_same = report
                    .kernels
                    .iter()
                    .filter(|o| base_name(&o.name) == b && o.launches == k.launches)
                    .count();
                (same.len() == 1 && ours_same == 1).then(|| same[0])
            };
            let Some(r) = found else {
                unmatched.push(k.name.clone());
                continue;
            };
            let err = |a: Option<f64>, b: Option<f64>| match (a, b) {
                (Some(a), Some(b)) if b > 0.0 => Some(100.0 * (a - b) / b),
                _ => None,
            };
            if let (Some(a), Some(b)) = (k.dram_bytes, r.dram_bytes) {
                ours += a;
                theirs += b;
            }
            lines.push(CalibrationLine {
                name: k.name.clone(),
                time_ns: k.time_ns,
                launch_over_interval: if k.launches > 0 && report.interval_ns > 0 {
                    k.time_ns / k.launches as f64 / report.interval_ns as f64
                } else {
                    0.0
                },
                dram_error_pct: err(k.dram_bytes, r.dram_bytes),
                l2_error_pct: err(k.l2_bytes, r.l2_bytes),
            });
        }
        let weighted = |f: fn(&CalibrationLine) -> Option<f64>| {
            let mut v: Vec<(f64, f64)> = lines
                .iter()
                .filter_map(|l| Some((f(l)?.abs(), l.time_ns)))
                .collect();
            Some((
                weighted_quantile(&mut v, 0.5)?,
                weighted_quantile(&mut v, 0.9)?,
            ))
        };
        Calibration {
            dram_abs_error_pct: weighted(|l| l.dram_error_pct),
            l2_abs_error_pct: weighted(|l| l.l2_error_pct),
            dram_total_error_pct: (theirs > 0.0).then(|| 100.0 * (ours - theirs) / theirs),
            lines,
            unmatched,
        }
    }
}

/// The `q` quantile of values weighted by their weights (`(value, weight)`): the smallest
/// value at which the cumulative weight reaches `q` of the total.
fn weighted_quantile(v: &mut [(f64, f64)], q: f64) -> Option<f64> {
    crate::order::sort_by(v, |a, b| a.0.total_cmp(&b.0));
    let total: f64 = v.iter().map(|x| x.1).sum();
    if total <= 0.0 {
        return None;
    }
    let mut acc = 0.0;
    for &(x, w) in v.iter() {
        acc += w;
        if acc >= q * total {
            return Some(x);
        }
    }
    v.last().map(|x| x.0)
}

/// A kernel's base name: its last identifier before any template or parameter list, the
/// part every demangler writes alike.
pub fn base_name(name: &str) -> &str {
    let name = name.strip_prefix("void ").unwrap_or(name);
    let cut = [name.find('<'), name.find('(')]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(name.len());
    name[..cut].rsplit("::").next().unwrap_or("").trim()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::{CounterSample, TraceKernel};

    fn kernel(start_ns: u64, end_ns: u64, stream: u32) -> TraceKernel {
        TraceKernel {
            name: 0,
            mangled: None,
            start_ns,
            end_ns,
            pid: 1,
            device: 0,
            context: 1,
            stream,
            correlation: 0,
            thread: None,
            launch_ns: None,
            grid: [1, 1, 1],
            block: [1, 1, 1],
            registers: 0,
            static_shared_bytes: 0,
            dynamic_shared_bytes: 0,
            range: None,
        }
    }

    fn series(samples: &[(u64, u64, f64)]) -> CounterSeries {
        CounterSeries {
            pid: 1,
            device: 0,
            interval_ns: 100,
            metrics: vec![0],
            samples: samples
                .iter()
                .map(|&(s, e, v)| CounterSample {
                    start_ns: s,
                    end_ns: e,
                    values: vec![v],
                })
                .collect(),
            idle_samples: 0,
        }
    }

    #[test]
    fn intervals_split_by_time_and_concurrent_kernels_are_marked_shared() {
        let trace = Trace {
            kernels: vec![
                kernel(1000, 1250, 7), // wholly in [1000, 1100), [1100, 1200), half of [1200, 1300)
                kernel(1250, 1300, 7), // the other half of [1200, 1300)
                kernel(1400, 1500, 7), // alone in [1400, 1500)...
                kernel(1400, 1500, 9), // ...with a kernel of another stream: shared
            ],
            counters: vec![series(&[
                (1000, 1100, 10.0),
                (1100, 1200, 10.0),
                (1200, 1300, 8.0),
                (1300, 1400, 5.0), // no kernel: unattributed
                (1400, 1500, 6.0),
            ])],
            ..Trace::default()
        };
        let a = attribute(&trace);
        let k = |i: usize| a.kernels[i].as_ref().map(|s| (s.values[0], s.shared_ns));
        assert_eq!(k(0), Some((24.0, 0.0)));
        assert_eq!(k(1), Some((4.0, 0.0)));
        assert_eq!(k(2), Some((3.0, 100.0)));
        assert_eq!(k(3), Some((3.0, 100.0)));
        assert_eq!(a.series[0].totals, vec![39.0]);
        assert_eq!(a.series[0].unattributed, vec![5.0]);
        assert_eq!(a.series[0].clock_offset_ns, 0);
    }

    #[test]
    fn samples_on_another_clock_are_shifted_onto_the_kernels() {
        // The same samples 5,000,000 ns later than the kernels' clock puts them.
        let far = 5_000_000;
        let trace = Trace {
            kernels: vec![kernel(1000, 1200, 7), kernel(1600, 1800, 7)],
            counters: vec![series(&[
                (1000 + far, 1100 + far, 1.0),
                (1100 + far, 1200 + far, 1.0),
                (1600 + far, 1700 + far, 1.0),
                (1700 + far, 1800 + far, 1.0),
            ])],
            ..Trace::default()
        };
        let a = attribute(&trace);
        assert_eq!(a.series[0].clock_offset_ns, -(far as i64));
        assert_eq!(a.kernels[1].as_ref().map(|s| s.values[0]), Some(2.0));
        assert_eq!(a.series[0].unattributed, vec![0.0]);
    }
}
