//! What a trace says ([`crate::model::trace`]): the kernel summary with Nsight Systems'
//! columns and numbers (`nsys stats --report cuda_gpu_kern_sum`: Time %, Total, Instances,
//! Avg, Med, Min, Max, StdDev), the copies by kind (count, bytes, time, GB/s), and the
//! timeline: GPU busy and idle time, time with two or more kernels in flight, copy time and
//! the largest idle gaps with the range open on the CPU, for the whole run and per NVTX range.
//!
//! Every figure is measured from start and end times of one plain run; none is derived from a
//! rate except the copies' GB/s (bytes over the copies' own time), which says so.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::trace::{CopyKind, Trace};
use crate::text::format::fmt_pct;
use crate::text::table::{Column, Format, Table};

/// One kernel name's line of the kernel summary (nsys's columns; times in ns).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelLine {
    /// Share of all kernel time, percent.
    pub time_pct: f64,
    /// Summed duration.
    pub total_ns: f64,
    /// Launches.
    pub instances: u64,
    /// Mean duration.
    pub avg_ns: f64,
    /// Median duration (the mean of the two middle ones for an even count); absent where
    /// an imported summary had none.
    pub med_ns: Option<f64>,
    /// Shortest.
    pub min_ns: f64,
    /// Longest.
    pub max_ns: f64,
    /// Sample standard deviation (n - 1; 0 for one launch), as nsys gives it; absent where
    /// an imported summary had none.
    pub stddev_ns: Option<f64>,
    /// Kernel name (demangled where it could be).
    pub name: String,
}

/// The kernel summary: one line per kernel name, most time first (ties by name), as
/// `nsys stats --report cuda_gpu_kern_sum` orders it.
pub fn kernel_summary(trace: &Trace) -> Vec<KernelLine> {
    if trace.kernels.is_empty() && !trace.summaries.is_empty() {
        return from_summaries(trace);
    }
    let mut by_name: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for k in &trace.kernels {
        by_name
            .entry(trace.kernel_name(k))
            .or_default()
            .push((k.end_ns - k.start_ns) as f64);
    }
    let all: f64 = by_name.values().flatten().sum();
    let mut lines: Vec<KernelLine> = by_name
        .into_iter()
        .map(|(name, mut d)| {
            crate::order::sort_floats(&mut d);
            let n = d.len();
            let total: f64 = d.iter().sum();
            let avg = total / n as f64;
            let med = if n % 2 == 1 {
                d[n / 2]
            } else {
                (d[n / 2 - 1] + d[n / 2]) / 2.0
            };
            let stddev = if n > 1 {
                (d.iter().map(|x| (x - avg).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt()
            } else {
                0.0
            };
            KernelLine {
                time_pct: share(total, all),
                total_ns: total,
                instances: n as u64,
                avg_ns: avg,
                med_ns: Some(med),
                min_ns: d[0],
                max_ns: d[n - 1],
                stddev_ns: Some(stddev),
                name: name.to_owned(),
            }
        })
        .collect();
    sort_lines(&mut lines);
    lines
}

fn share(part: f64, all: f64) -> f64 {
    if all > 0.0 {
        100.0 * part / all
    } else {
        0.0
    }
}

fn sort_lines(lines: &mut [KernelLine]) {
    crate::order::sort_by(lines, |a, b| {
        b.total_ns
            .total_cmp(&a.total_ns)
            .then_with(|| a.name.cmp(&b.name))
    });
}

fn from_summaries(trace: &Trace) -> Vec<KernelLine> {
    let all: f64 = trace.summaries.iter().map(|s| s.total_ns).sum();
    let mut lines: Vec<KernelLine> = trace
        .summaries
        .iter()
        .map(|s| KernelLine {
            time_pct: share(s.total_ns, all),
            total_ns: s.total_ns,
            instances: s.instances,
            avg_ns: s.avg_ns,
            med_ns: s.med_ns,
            min_ns: s.min_ns,
            max_ns: s.max_ns,
            stddev_ns: s.stddev_ns,
            name: s.name.to_string(),
        })
        .collect();
    sort_lines(&mut lines);
    lines
}

/// One kind of copy's line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CopyLine {
    /// What moved.
    pub kind: CopyKind,
    /// Operations.
    pub count: u64,
    /// Bytes moved; absent where an imported summary did not give them.
    pub bytes: Option<u64>,
    /// Summed duration, ns.
    pub total_ns: u64,
    /// Bytes over summed duration, GB/s (a rate derived from the two columns before it).
    pub gbyte_per_s: Option<f64>,
}

/// The copies and memory sets by kind, most time first (for a trace without a timeline,
/// its imported copy summaries).
pub fn copy_summary(trace: &Trace) -> Vec<CopyLine> {
    let mut lines = if trace.copies.is_empty() && !trace.copy_summaries.is_empty() {
        from_copy_summaries(trace)
    } else {
        let mut by_kind: BTreeMap<CopyKind, (u64, u64, u64)> = BTreeMap::new();
        for c in &trace.copies {
            let e = by_kind.entry(c.kind).or_default();
            e.0 += 1;
            e.1 += c.bytes;
            e.2 += c.end_ns - c.start_ns;
        }
        by_kind
            .into_iter()
            .map(|(kind, (count, bytes, total_ns))| CopyLine {
                kind,
                count,
                bytes: Some(bytes),
                total_ns,
                gbyte_per_s: (total_ns > 0).then(|| bytes as f64 / total_ns as f64),
            })
            .collect()
    };
    crate::order::sort_by(&mut lines, |a, b| {
        b.total_ns.cmp(&a.total_ns).then(a.kind.cmp(&b.kind))
    });
    lines
}

/// The lines of imported copy summaries: GB/s only where the report gave bytes.
fn from_copy_summaries(trace: &Trace) -> Vec<CopyLine> {
    trace
        .copy_summaries
        .iter()
        .map(|s| {
            let total_ns = s.total_ns.round() as u64;
            CopyLine {
                kind: s.kind,
                count: s.count,
                bytes: s.bytes,
                total_ns,
                gbyte_per_s: s
                    .bytes
                    .filter(|_| total_ns > 0)
                    .map(|b| b as f64 / total_ns as f64),
            }
        })
        .collect()
}

/// Disjoint busy segments of a set of intervals, sorted, with prefix sums for windows.
struct Segments {
    /// (start, end), disjoint and sorted.
    spans: Vec<(u64, u64)>,
    /// `prefix[i]`: summed length of `spans[..i]`.
    prefix: Vec<u64>,
}

impl Segments {
    fn of(mut intervals: Vec<(u64, u64)>) -> Segments {
        crate::order::sort(&mut intervals);
        let mut spans: Vec<(u64, u64)> = Vec::new();
        for (s, e) in intervals {
            match spans.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => spans.push((s, e)),
            }
        }
        let mut prefix = Vec::with_capacity(spans.len() + 1);
        let mut sum = 0;
        prefix.push(0);
        for (s, e) in &spans {
            sum += e - s;
            prefix.push(sum);
        }
        Segments { spans, prefix }
    }

    /// Busy time inside `[lo, hi)`.
    fn within(&self, lo: u64, hi: u64) -> u64 {
        if hi <= lo {
            return 0;
        }
        let first = self.spans.partition_point(|&(_, e)| e <= lo);
        let last = self.spans.partition_point(|&(s, _)| s < hi);
        if first >= last {
            return 0;
        }
        let mut sum = self.prefix[last] - self.prefix[first];
        let (s0, _) = self.spans[first];
        if s0 < lo {
            sum -= lo - s0;
        }
        let (_, e1) = self.spans[last - 1];
        if e1 > hi {
            sum -= e1 - hi;
        }
        sum
    }
}

/// Time with two or more of `intervals` in flight.
fn concurrent(intervals: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut edges: Vec<(u64, i32)> = Vec::with_capacity(intervals.len() * 2);
    for &(s, e) in intervals {
        if e > s {
            edges.push((s, 1));
            edges.push((e, -1));
        }
    }
    // Ends before starts at one instant: back-to-back kernels do not overlap.
    crate::order::sort(&mut edges);
    let mut out = Vec::new();
    let mut depth = 0;
    let mut since = 0;
    for (t, d) in edges {
        let before = depth;
        depth += d;
        if before < 2 && depth >= 2 {
            since = t;
        } else if before >= 2 && depth < 2 && t > since {
            out.push((since, t));
        }
    }
    out
}

/// An idle stretch of the GPU.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Gap {
    /// Start, ns from the window's start.
    pub at_ns: u64,
    /// Length, ns.
    pub length_ns: u64,
    /// The innermost NVTX range open on the CPU when it began (its path), if any.
    pub range: Option<String>,
}

/// The timeline over a window: what the GPU did in it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Timeline {
    /// The window's length, ns.
    pub span_ns: u64,
    /// Time with a kernel, copy or set in flight.
    pub busy_ns: u64,
    /// Time with nothing in flight: `span_ns - busy_ns`.
    pub idle_ns: u64,
    /// Time with a kernel in flight.
    pub kernel_ns: u64,
    /// Time with two or more kernels in flight.
    pub concurrent_ns: u64,
    /// Time with a copy or set in flight.
    pub copy_ns: u64,
    /// The largest idle stretches, longest first (at most five).
    pub gaps: Vec<Gap>,
}

/// The GPU activity of a trace laid out for windows.
pub struct Activity {
    all: Segments,
    kernels: Segments,
    copies: Segments,
    concurrent: Segments,
}

impl Activity {
    /// The activity of one device's kernels and copies (`None`: every device).
    pub fn of(trace: &Trace, device: Option<u32>) -> Activity {
        let on = |d: u32| device.is_none_or(|x| x == d);
        let kernels: Vec<(u64, u64)> = trace
            .kernels
            .iter()
            .filter(|k| on(k.device))
            .map(|k| (k.start_ns, k.end_ns))
            .collect();
        let copies: Vec<(u64, u64)> = trace
            .copies
            .iter()
            .filter(|c| on(c.device))
            .map(|c| (c.start_ns, c.end_ns))
            .collect();
        let concurrent = Segments::of(concurrent(&kernels));
        let all = Segments::of(kernels.iter().chain(&copies).copied().collect());
        Activity {
            all,
            kernels: Segments::of(kernels),
            copies: Segments::of(copies),
            concurrent,
        }
    }

    /// From the first activity's start to the last one's end.
    pub fn extent(&self) -> Option<(u64, u64)> {
        Some((self.all.spans.first()?.0, self.all.spans.last()?.1))
    }

    /// The timeline of `[lo, hi)`; gaps name the range open at their start.
    pub fn timeline(&self, trace: &Trace, lo: u64, hi: u64) -> Timeline {
        let span = hi.saturating_sub(lo);
        let busy = self.all.within(lo, hi);
        let mut gaps: Vec<(u64, u64)> = Vec::new();
        let first = self.all.spans.partition_point(|&(_, e)| e <= lo);
        let mut at = lo;
        for &(s, e) in &self.all.spans[first..] {
            if s >= hi {
                break;
            }
            if s > at {
                gaps.push((at, s));
            }
            at = at.max(e);
        }
        if at < hi {
            gaps.push((at, hi));
        }
        crate::order::sort_by(&mut gaps, |a, b| {
            (b.1 - b.0).cmp(&(a.1 - a.0)).then(a.0.cmp(&b.0))
        });
        gaps.truncate(5);
        Timeline {
            span_ns: span,
            busy_ns: busy,
            idle_ns: span - busy.min(span),
            kernel_ns: self.kernels.within(lo, hi),
            concurrent_ns: self.concurrent.within(lo, hi),
            copy_ns: self.copies.within(lo, hi),
            gaps: gaps
                .into_iter()
                .map(|(s, e)| Gap {
                    at_ns: s - lo,
                    length_ns: e - s,
                    range: open_range_at(trace, s).map(|r| range_path_name(trace, r)),
                })
                .collect(),
        }
    }
}

/// The innermost range open at `t` (the latest-opened one containing it).
fn open_range_at(trace: &Trace, t: u64) -> Option<u32> {
    let mut best: Option<(u64, u32)> = None;
    for (i, r) in trace.ranges.iter().enumerate() {
        if r.start_ns <= t
            && r.end_ns.is_none_or(|e| e > t)
            && best.is_none_or(|(s, _)| r.start_ns >= s)
        {
            best = Some((r.start_ns, i as u32));
        }
    }
    best.map(|(_, i)| i)
}

/// A range's path of names, outermost first, joined by `/`.
pub fn range_path_name(trace: &Trace, range: u32) -> String {
    trace
        .range_path(range)
        .iter()
        .filter_map(|&i| trace.ranges.get(i as usize))
        .map(|r| trace.range_name(r))
        .collect::<Vec<_>>()
        .join("/")
}

/// One NVTX range path's line: its instances together.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RangeLine {
    /// The range's path of names.
    pub path: String,
    /// How many times it was open.
    pub instances: u64,
    /// Summed wall time on the CPU, ns.
    pub wall_ns: u64,
    /// Kernels launched inside it (its sub-ranges included).
    pub kernels: u64,
    /// Their summed duration, ns.
    pub kernel_time_ns: u64,
    /// The timeline of its windows, summed (gaps: the largest of any instance).
    pub timeline: Timeline,
}

/// One line per range path, most wall time first; a range never closed is left out.
pub fn range_summary(trace: &Trace, activity: &Activity) -> Vec<RangeLine> {
    let paths: Vec<String> = (0..trace.ranges.len() as u32)
        .map(|i| range_path_name(trace, i))
        .collect();
    let mut lines: BTreeMap<&str, RangeLine> = BTreeMap::new();
    for (i, r) in trace.ranges.iter().enumerate() {
        let Some(end) = r.end_ns else { continue };
        let t = activity.timeline(trace, r.start_ns, end);
        let line = lines.entry(&paths[i]).or_insert_with(|| RangeLine {
            path: paths[i].clone(),
            instances: 0,
            wall_ns: 0,
            kernels: 0,
            kernel_time_ns: 0,
            timeline: Timeline {
                span_ns: 0,
                busy_ns: 0,
                idle_ns: 0,
                kernel_ns: 0,
                concurrent_ns: 0,
                copy_ns: 0,
                gaps: Vec::new(),
            },
        });
        line.instances += 1;
        line.wall_ns += end - r.start_ns;
        let s = &mut line.timeline;
        s.span_ns += t.span_ns;
        s.busy_ns += t.busy_ns;
        s.idle_ns += t.idle_ns;
        s.kernel_ns += t.kernel_ns;
        s.concurrent_ns += t.concurrent_ns;
        s.copy_ns += t.copy_ns;
        s.gaps.extend(t.gaps);
        crate::order::sort_by_key(&mut s.gaps, |g| std::cmp::Reverse(g.length_ns));
        s.gaps.truncate(5);
    }
    // Each kernel counts toward every range on its path, once.
    for k in &trace.kernels {
        let Some(range) = k.range else { continue };
        let mut seen: Vec<&str> = Vec::new();
        for i in trace.range_path(range) {
            let p = paths[i as usize].as_str();
            if seen.contains(&p) {
                continue;
            }
            seen.push(p);
            if let Some(line) = lines.get_mut(p) {
                line.kernels += 1;
                line.kernel_time_ns += k.end_ns - k.start_ns;
            }
        }
    }
    let mut out: Vec<RangeLine> = lines.into_values().collect();
    crate::order::sort_by(&mut out, |a, b| {
        b.wall_ns.cmp(&a.wall_ns).then_with(|| a.path.cmp(&b.path))
    });
    out
}

/// Everything `capture table` shows of a trace.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceReport {
    /// Kernels by name.
    pub kernels: Vec<KernelLine>,
    /// Copies by kind.
    pub copies: Vec<CopyLine>,
    /// The whole run, per device: the device ordinal and its timeline.
    pub devices: Vec<(u32, Timeline)>,
    /// Per NVTX range path.
    pub ranges: Vec<RangeLine>,
    /// Launches not under any range, and all launches.
    pub launches_outside_ranges: (u64, u64),
    /// True where the trace holds summaries and no timeline (an imported `nsys stats` CSV):
    /// no timeline is shown.
    pub summaries_only: bool,
    /// Hardware counters sampled over time in the same run, by kernel (`capture trace
    /// --counters`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_pass: Option<crate::analysis::one_pass::OnePassReport>,
}

impl TraceReport {
    /// The report of a trace.
    pub fn of(trace: &Trace) -> TraceReport {
        let mut devices: Vec<u32> = trace
            .kernels
            .iter()
            .map(|k| k.device)
            .chain(trace.copies.iter().map(|c| c.device))
            .collect();
        crate::order::sort(&mut devices);
        devices.dedup();
        let timelines = devices
            .iter()
            .filter_map(|&d| {
                let a = Activity::of(trace, Some(d));
                let (lo, hi) = a.extent()?;
                Some((d, a.timeline(trace, lo, hi)))
            })
            .collect();
        let activity = Activity::of(trace, None);
        let outside = trace.kernels.iter().filter(|k| k.range.is_none()).count() as u64;
        TraceReport {
            kernels: kernel_summary(trace),
            copies: copy_summary(trace),
            devices: timelines,
            ranges: range_summary(trace, &activity),
            launches_outside_ranges: (outside, trace.kernels.len() as u64),
            summaries_only: trace.kernels.is_empty()
                && trace.copies.is_empty()
                && !(trace.summaries.is_empty() && trace.copy_summaries.is_empty()),
            one_pass: crate::analysis::one_pass::OnePassReport::of(trace),
        }
    }

    /// As aligned text, Markdown or CSV: the kernel summary, the copies and the timeline
    /// (`by_range`: one timeline line per range path instead of the largest twenty).
    pub fn render(&self, format: Format, by_range: bool) -> String {
        let mut out = String::new();
        let heading = |out: &mut String, title: &str| {
            if !out.is_empty() {
                out.push('\n');
            }
            match format {
                Format::Markdown => out.push_str(&format!("### {title}\n\n")),
                Format::Csv => out.push_str(&format!("# {title}\n")),
                _ => out.push_str(&format!("{title}\n")),
            }
        };
        if !by_range {
            heading(
                &mut out,
                "CUDA GPU kernel summary (as nsys stats' cuda_gpu_kern_sum)",
            );
            out.push_str(&self.kernel_table().render(format));
            heading(
                &mut out,
                "CUDA copies and memory sets by kind (GB/s = bytes / time)",
            );
            out.push_str(&self.copy_table().render(format));
            heading(&mut out, "GPU timeline, whole run");
            if self.summaries_only {
                out.push_str(
                    "none: the trace holds summaries only (an nsys stats CSV); its SQLite \
                     export has the timeline\n",
                );
            } else {
                out.push_str(&self.device_table().render(format));
            }
            for (device, t) in &self.devices {
                for g in &t.gaps {
                    out.push_str(&format!(
                        "  device {device}: idle {} from {} after the first activity{}\n",
                        ns_text(g.length_ns as f64),
                        ns_text(g.at_ns as f64),
                        g.range
                            .as_deref()
                            .map(|r| format!(", in range {}", crate::text::escape::controls(r)))
                            .unwrap_or_default()
                    ));
                }
            }
        }
        if !self.ranges.is_empty() {
            heading(
                &mut out,
                if by_range {
                    "GPU timeline by NVTX range"
                } else {
                    "GPU timeline by NVTX range (the 20 with most wall time; --by range lists all)"
                },
            );
            out.push_str(
                &self
                    .range_table(if by_range { usize::MAX } else { 20 })
                    .render(format),
            );
        }
        if let (Some(p), false) = (&self.one_pass, by_range) {
            heading(
                &mut out,
                &format!(
                    "Hardware counters sampled over time in this run (PM sampling every {}, one \
                     pass, not replayed; each interval split among the kernels in it by time)",
                    ns_text(p.interval_ns as f64)
                ),
            );
            out.push_str(&p.table().render(format));
            out.push_str(&p.footnote());
        }
        let (outside, all) = self.launches_outside_ranges;
        if !self.ranges.is_empty() && outside > 0 {
            out.push_str(&format!(
                "{outside} of {all} launches were under no NVTX range.\n"
            ));
        }
        out
    }

    fn kernel_table(&self) -> Table<'static> {
        const COLUMNS: &[Column] = &[
            Column::value("Time (%)"),
            Column::value("Total Time (ns)"),
            Column::value("Instances"),
            Column::value("Avg (ns)"),
            Column::value("Med (ns)"),
            Column::value("Min (ns)"),
            Column::value("Max (ns)"),
            Column::value("StdDev (ns)"),
            Column::text("Name"),
        ];
        let mut t = Table::new(COLUMNS);
        for l in &self.kernels {
            t.push([
                format!("{:.1}", l.time_pct),
                format!("{:.0}", l.total_ns),
                l.instances.to_string(),
                format!("{:.1}", l.avg_ns),
                l.med_ns.map_or("-".into(), |m| format!("{m:.1}")),
                format!("{:.0}", l.min_ns),
                format!("{:.0}", l.max_ns),
                l.stddev_ns.map_or("-".into(), |d| format!("{d:.1}")),
                l.name.clone(),
            ]);
        }
        t
    }

    fn copy_table(&self) -> Table<'static> {
        const COLUMNS: &[Column] = &[
            Column::text("Operation"),
            Column::value("Count"),
            Column::value("Total (MB)"),
            Column::value("Total Time (ns)"),
            Column::value("GB/s"),
        ];
        let mut t = Table::new(COLUMNS);
        for l in &self.copies {
            t.push([
                l.kind.label().to_owned(),
                l.count.to_string(),
                l.bytes
                    .map_or("-".into(), |b| format!("{:.3}", b as f64 / 1e6)),
                l.total_ns.to_string(),
                l.gbyte_per_s.map_or("-".into(), |g| format!("{g:.1}")),
            ]);
        }
        t
    }

    fn device_table(&self) -> Table<'static> {
        const COLUMNS: &[Column] = &[
            Column::value("Device"),
            Column::value("Span"),
            Column::value("Busy"),
            Column::value("Idle"),
            Column::value("Kernels"),
            Column::value("2+ kernels"),
            Column::value("Copies"),
        ];
        let mut t = Table::new(COLUMNS);
        for (d, l) in &self.devices {
            t.push(std::iter::once(d.to_string()).chain(timeline_cells(l)));
        }
        t
    }

    fn range_table(&self, limit: usize) -> Table<'static> {
        const COLUMNS: &[Column] = &[
            Column::text("Range"),
            Column::value("Instances"),
            Column::value("Launches"),
            Column::value("Kernel time"),
            Column::value("Span"),
            Column::value("Busy"),
            Column::value("Idle"),
            Column::value("Kernels"),
            Column::value("2+ kernels"),
            Column::value("Copies"),
        ];
        let mut t = Table::new(COLUMNS);
        for l in self.ranges.iter().take(limit) {
            let head = [
                l.path.clone(),
                l.instances.to_string(),
                l.kernels.to_string(),
                ns_text(l.kernel_time_ns as f64),
            ];
            t.push(head.into_iter().chain(timeline_cells(&l.timeline)));
        }
        t
    }
}

/// Span, then busy, idle, kernels, 2+ kernels and copies as time and share of the span.
fn timeline_cells(t: &Timeline) -> impl Iterator<Item = String> {
    let span = t.span_ns as f64;
    let part = move |v: u64| {
        if span > 0.0 {
            format!(
                "{} ({})",
                ns_text(v as f64),
                fmt_pct(100.0 * v as f64 / span)
            )
        } else {
            ns_text(v as f64)
        }
    };
    [
        ns_text(span),
        part(t.busy_ns),
        part(t.idle_ns),
        part(t.kernel_ns),
        part(t.concurrent_ns),
        part(t.copy_ns),
    ]
    .into_iter()
}

/// A duration in ns as µs, ms or s with three significant figures.
fn ns_text(ns: f64) -> String {
    if ns >= 1e9 {
        format!("{:.3} s", ns / 1e9)
    } else if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else {
        format!("{:.1} us", ns / 1e3)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::trace::wire::{
        self, ApiRec, CopyRec, KernelRec, MarkerRec, ProcessRec, Record,
    };
    use crate::read::trace::{build, TraceFile};

    fn kernel(name: u32, corr: u32, start: u64, end: u64) -> Record {
        Record::Kernel(KernelRec {
            start_ns: start,
            end_ns: end,
            device: 0,
            context: 1,
            stream: 7,
            correlation: corr,
            grid: [65536, 1, 1],
            block: [256, 1, 1],
            registers: 16,
            static_shared: 0,
            dynamic_shared: 0,
            name,
        })
    }

    fn call(corr: u32, tid: u32, at: u64) -> Record {
        Record::Api(ApiRec {
            driver: true,
            cbid: 307,
            start_ns: at,
            end_ns: at + 5,
            pid: 42,
            tid,
            correlation: corr,
        })
    }

    fn marker(flags: u32, at: u64, id: u32, kind: u32, tid: u32, name: u32) -> Record {
        Record::Marker(MarkerRec {
            flags,
            timestamp_ns: at,
            id,
            object_kind: kind,
            object_id: [42, tid, 0],
            name,
            domain: 0,
        })
    }

    /// The seed's example as CUPTI would hand it: `fused` twice (100 and 300 ns), `scale`
    /// (200 ns), then on a second thread `add` (50 ns); a process-wide range `program`
    /// around all, a push/pop `compute` on the main thread around the first three, a copy.
    fn seed_bytes(with_end: bool) -> Vec<u8> {
        let mut b = wire::MAGIC.to_vec();
        let mut push = |r: Record| r.encode(&mut b);
        push(Record::Process(ProcessRec {
            pid: 42,
            ppid: 1,
            cupti_version: 130001,
            start_ns: 0,
        }));
        for (id, text) in [
            (1, "fused"),
            (2, "scale"),
            (3, "add"),
            (4, "program"),
            (5, "compute"),
        ] {
            push(Record::String {
                id,
                text: text.into(),
            });
        }
        push(marker(2, 1_000, 1, 1, 0, 4));
        push(marker(2, 1_100, 2, 2, 10, 5));
        push(call(11, 10, 1_200));
        push(call(12, 10, 1_300));
        push(call(13, 10, 1_400));
        push(marker(4, 1_500, 2, 2, 10, 0));
        push(call(14, 20, 3_000));
        push(kernel(1, 11, 2_000, 2_100));
        push(kernel(1, 12, 2_100, 2_400));
        push(kernel(2, 13, 2_400, 2_600));
        push(kernel(3, 14, 3_100, 3_150));
        push(Record::Copy(CopyRec {
            copy_kind: 2,
            src_kind: 3,
            dst_kind: 1,
            flags: 0,
            bytes: 4_000,
            start_ns: 3_200,
            end_ns: 3_300,
            device: 0,
            context: 1,
            stream: 7,
            correlation: 15,
        }));
        push(marker(4, 4_000, 1, 1, 0, 0));
        if with_end {
            push(Record::End(5_000));
        }
        b
    }

    fn seed_trace(with_end: bool) -> (Trace, Vec<String>) {
        let bytes = seed_bytes(with_end);
        build(
            &[TraceFile {
                name: "42.rltrace",
                bytes: &bytes,
            }],
            &|_| None,
        )
        .expect("as built")
    }

    /// The seed's records with PM sampling records after them, as the injection writes them
    /// under `--counters`: the metrics, one idle interval, and intervals over the kernels.
    #[test]
    fn pm_samples_read_into_a_series_and_split_among_the_kernels_in_them() {
        let mut bytes = seed_bytes(true);
        let mut push = |r: Record| r.encode(&mut bytes);
        for (id, text) in [(6, "dram__bytes_read.sum"), (7, "dram__bytes_write.sum")] {
            push(Record::String {
                id,
                text: text.into(),
            });
        }
        push(Record::PmMetrics(wire::PmMetricsRec {
            device: 0,
            interval_ns: 200,
            names: vec![6, 7],
        }));
        for (start, read, write) in [
            (1_800, 0.0, 0.0),
            (2_000, 800.0, 200.0),
            (2_200, 400.0, 0.0),
        ] {
            push(Record::PmSample(wire::PmSampleRec {
                device: 0,
                start_ns: start,
                end_ns: start + 200,
                values: vec![read, write],
            }));
        }
        let (trace, warnings) = build(
            &[TraceFile {
                name: "42.rltrace",
                bytes: &bytes,
            }],
            &|_| None,
        )
        .expect("as built");
        assert!(warnings.is_empty(), "{warnings:?}");
        let series = &trace.counters[0];
        assert_eq!((series.samples.len(), series.idle_samples), (2, 1));
        let report = TraceReport::of(&trace);
        let p = report.one_pass.expect("counters");
        // [2000, 2200): fused (2000-2100) and fused (2100-2200 of 2100-2400) half each;
        // [2200, 2400): the second fused alone. So fused: 1000 + 400 bytes; scale none.
        let fused = p.kernels.iter().find(|l| l.name == "fused").expect("fused");
        assert_eq!((fused.launches, fused.sampled), (2, 2));
        assert_eq!(fused.dram_bytes, Some(1_400.0));
        let scale = p.kernels.iter().find(|l| l.name == "scale").expect("scale");
        assert_eq!((scale.sampled, scale.dram_bytes), (0, None));
        assert_eq!(p.dram_unattributed_pct, Some(0.0));
        let text = TraceReport::of(&trace).render(Format::Text, false);
        assert!(text.contains("sampled over time"), "{text}");
    }

    #[test]
    fn the_seed_example_gives_nsys_instances_order_and_shares() {
        let (trace, warnings) = seed_trace(true);
        assert!(warnings.is_empty(), "{warnings:?}");
        let lines = kernel_summary(&trace);
        let got: Vec<(&str, u64, f64)> = lines
            .iter()
            .map(|l| (l.name.as_str(), l.instances, l.total_ns))
            .collect();
        assert_eq!(
            got,
            [("fused", 2, 400.0), ("scale", 1, 200.0), ("add", 1, 50.0)]
        );
        // Shares of 650 ns, nsys's Time (%).
        assert!((lines[0].time_pct - 61.538).abs() < 1e-3);
        assert!((lines[2].time_pct - 7.692).abs() < 1e-3);
        // Two launches of 100 and 300 ns: mean 200, median 200, sample deviation 141.4.
        assert_eq!((lines[0].avg_ns, lines[0].med_ns), (200.0, Some(200.0)));
        assert!((lines[0].stddev_ns.unwrap_or(0.0) - 141.421).abs() < 1e-3);
        assert_eq!(lines[1].stddev_ns, Some(0.0));
    }

    #[test]
    fn launches_take_the_range_of_their_thread_or_their_process() {
        let (trace, _) = seed_trace(true);
        let path = |k: &crate::model::trace::TraceKernel| {
            k.range
                .map(|r| range_path_name(&trace, r))
                .unwrap_or_default()
        };
        let paths: Vec<String> = trace.kernels.iter().map(path).collect();
        // The second thread's `add` is outside `compute` (main thread's push/pop) but
        // inside the process-wide `program`.
        assert_eq!(
            paths,
            [
                "program/compute",
                "program/compute",
                "program/compute",
                "program"
            ]
        );
        assert_eq!(trace.kernels[3].thread, Some(20));
        assert_eq!(trace.copies[0].kind, CopyKind::DtoH);
    }

    #[test]
    fn the_timeline_counts_busy_idle_and_gaps() {
        let (trace, _) = seed_trace(true);
        let report = TraceReport::of(&trace);
        let (device, t) = &report.devices[0];
        assert_eq!(*device, 0);
        // 2000..2600 kernels, 3100..3150 kernel, 3200..3300 copy.
        assert_eq!(t.span_ns, 1_300);
        assert_eq!(t.busy_ns, 750);
        assert_eq!(t.idle_ns, 550);
        assert_eq!(t.kernel_ns, 650);
        assert_eq!(t.copy_ns, 100);
        assert_eq!(t.concurrent_ns, 0);
        assert_eq!(t.gaps[0].length_ns, 500);
        assert_eq!(t.gaps[0].at_ns, 600);
        assert_eq!(t.gaps[0].range.as_deref(), Some("program"));
        let program = report
            .ranges
            .iter()
            .find(|r| r.path == "program")
            .expect("as built");
        assert_eq!((program.kernels, program.kernel_time_ns), (4, 650));
        assert_eq!(program.timeline.span_ns, 3_000);
        let copies = copy_summary(&trace);
        assert_eq!(copies[0].gbyte_per_s, Some(40.0));
    }

    #[test]
    fn kernels_in_flight_together_are_counted_once_as_busy() {
        let mut t = Trace::default();
        for (s, e) in [(0, 100), (50, 150), (140, 200)] {
            t.kernels.push(crate::model::trace::TraceKernel {
                name: 0,
                mangled: None,
                start_ns: s,
                end_ns: e,
                pid: 1,
                device: 0,
                context: 1,
                stream: s as u32,
                correlation: 0,
                thread: None,
                launch_ns: None,
                grid: [1; 3],
                block: [1; 3],
                registers: 0,
                static_shared_bytes: 0,
                dynamic_shared_bytes: 0,
                range: None,
            });
        }
        let a = Activity::of(&t, None);
        let tl = a.timeline(&t, 0, 200);
        assert_eq!((tl.busy_ns, tl.kernel_ns, tl.concurrent_ns), (200, 200, 60));
    }

    #[test]
    fn a_killed_program_keeps_what_was_written_and_says_so() {
        let bytes = seed_bytes(false);
        let cut = &bytes[..bytes.len() - 30];
        let (trace, warnings) = build(
            &[TraceFile {
                name: "42.rltrace",
                bytes: cut,
            }],
            &|_| None,
        )
        .expect("as built");
        assert!(!trace.processes[0].complete);
        assert_eq!(trace.kernels.len(), 4);
        let all = warnings.join("\n");
        assert!(all.contains("42.rltrace: byte"), "{all}");
        assert!(all.contains("did not exit normally"), "{all}");
        assert!(all.contains("never closed"), "{all}");
    }
}
