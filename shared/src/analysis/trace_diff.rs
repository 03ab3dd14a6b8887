//! Two traces compared ([`crate::model::trace`]): per kernel name its launches and time before
//! and after, per kind of copy its count and bytes. With the work gate (`capture diff
//! --gate-work PCT`), what a trace counts exactly is work: a kernel's launches and a copy
//! kind's operations and bytes. A copy or kernel that appears, or one whose count or bytes
//! grew by more than PCT, fails the gate; times are shown, never gated here (a trace's times
//! are one run's, with no noise band).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::analysis::trace::{copy_summary, kernel_summary};
use crate::model::trace::{CopyKind, Trace};
use crate::text::table::{Column, Format, Table};

/// One kernel name's launches and time in both runs (0 where absent).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct KernelChange {
    /// Kernel name.
    pub name: String,
    /// Launches before.
    pub instances_before: u64,
    /// Launches after.
    pub instances_after: u64,
    /// Summed duration before, ns.
    pub total_ns_before: f64,
    /// Summed duration after, ns.
    pub total_ns_after: f64,
}

/// One kind of copy in both runs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CopyChange {
    /// What moved.
    pub kind: CopyKind,
    /// Operations before.
    pub count_before: u64,
    /// Operations after.
    pub count_after: u64,
    /// Bytes before.
    pub bytes_before: u64,
    /// Bytes after.
    pub bytes_after: u64,
}

/// The comparison, and the work gate's failures when it was asked for.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TraceDiff {
    /// Kernels, most time after first.
    pub kernels: Vec<KernelChange>,
    /// Copies by kind.
    pub copies: Vec<CopyChange>,
    /// The gate's threshold, percent, when asked for.
    pub gate_pct: Option<f64>,
    /// Each failure of the gate, in words.
    pub failures: Vec<String>,
    /// Why the gate cannot judge these traces (a process that did not end normally, records
    /// CUPTI dropped): work missing from a record is no proof it was not done.
    pub cannot_judge: Vec<String>,
}

/// What a trace is missing: its processes that did not end normally or lost records.
fn incomplete(side: &str, trace: &Trace) -> Vec<String> {
    trace
        .processes
        .iter()
        .filter(|p| !p.complete || p.dropped_records > 0)
        .map(|p| {
            format!(
                "{side}: process {} {}",
                p.pid,
                if p.complete {
                    format!("lost {} records CUPTI dropped", p.dropped_records)
                } else {
                    "did not end normally (its last records may be missing)".to_owned()
                }
            )
        })
        .collect()
}

/// Whether `after` exceeds `before` by more than `pct` percent (anything appearing from
/// zero does).
fn grew(before: u64, after: u64, pct: f64) -> bool {
    if before == 0 {
        return after > 0;
    }
    (after as f64 - before as f64) / before as f64 * 100.0 > pct
}

/// Compares two traces; `gate_pct` asks for the work gate.
pub fn trace_diff(before: &Trace, after: &Trace, gate_pct: Option<f64>) -> TraceDiff {
    let mut kernels: BTreeMap<String, KernelChange> = BTreeMap::new();
    for (side, trace) in [(0, before), (1, after)] {
        for l in kernel_summary(trace) {
            let e = kernels
                .entry(l.name.clone())
                .or_insert_with(|| KernelChange {
                    name: l.name.clone(),
                    instances_before: 0,
                    instances_after: 0,
                    total_ns_before: 0.0,
                    total_ns_after: 0.0,
                });
            if side == 0 {
                e.instances_before = l.instances;
                e.total_ns_before = l.total_ns;
            } else {
                e.instances_after = l.instances;
                e.total_ns_after = l.total_ns;
            }
        }
    }
    let mut copies: BTreeMap<CopyKind, CopyChange> = BTreeMap::new();
    for (side, trace) in [(0, before), (1, after)] {
        for l in copy_summary(trace) {
            let e = copies.entry(l.kind).or_insert_with(|| CopyChange {
                kind: l.kind,
                count_before: 0,
                count_after: 0,
                bytes_before: 0,
                bytes_after: 0,
            });
            if side == 0 {
                (e.count_before, e.bytes_before) = (l.count, l.bytes.unwrap_or(0));
            } else {
                (e.count_after, e.bytes_after) = (l.count, l.bytes.unwrap_or(0));
            }
        }
    }
    let mut kernels: Vec<KernelChange> = kernels.into_values().collect();
    crate::order::sort_by(&mut kernels, |a, b| {
        b.total_ns_after.total_cmp(&a.total_ns_after)
    });
    let copies: Vec<CopyChange> = copies.into_values().collect();
    let mut failures = Vec::new();
    let mut cannot_judge = Vec::new();
    if gate_pct.is_some() {
        cannot_judge.extend(incomplete("before", before));
        cannot_judge.extend(incomplete("after", after));
    }
    if let Some(pct) = gate_pct {
        for c in &copies {
            if c.count_before == 0 && c.count_after > 0 {
                failures.push(format!(
                    "a copy appeared: {} 0 -> {} ({} bytes)",
                    c.kind.label(),
                    c.count_after,
                    c.bytes_after
                ));
            } else if grew(c.count_before, c.count_after, pct)
                || grew(c.bytes_before, c.bytes_after, pct)
            {
                failures.push(format!(
                    "{}: {} -> {} operations, {} -> {} bytes",
                    c.kind.label(),
                    c.count_before,
                    c.count_after,
                    c.bytes_before,
                    c.bytes_after
                ));
            }
        }
        for k in &kernels {
            if k.instances_before == 0 && k.instances_after > 0 {
                failures.push(format!(
                    "a kernel appeared: {} ({} launches)",
                    k.name, k.instances_after
                ));
            } else if grew(k.instances_before, k.instances_after, pct) {
                failures.push(format!(
                    "{}: {} -> {} launches",
                    k.name, k.instances_before, k.instances_after
                ));
            }
        }
    }
    TraceDiff {
        kernels,
        copies,
        gate_pct,
        failures,
        cannot_judge,
    }
}

impl TraceDiff {
    /// As aligned text or Markdown: kernels, then copies, then the gate's line.
    pub fn render(&self, format: Format) -> String {
        const KERNELS: &[Column] = &[
            Column::text("Kernel"),
            Column::value("Launches before"),
            Column::value("Launches after"),
            Column::value("Total before (ns)"),
            Column::value("Total after (ns)"),
        ];
        const COPIES: &[Column] = &[
            Column::text("Operation"),
            Column::value("Count before"),
            Column::value("Count after"),
            Column::value("Bytes before"),
            Column::value("Bytes after"),
        ];
        let mut k = Table::new(KERNELS);
        for c in &self.kernels {
            k.push([
                c.name.clone(),
                c.instances_before.to_string(),
                c.instances_after.to_string(),
                format!("{:.0}", c.total_ns_before),
                format!("{:.0}", c.total_ns_after),
            ]);
        }
        let mut t = Table::new(COPIES);
        for c in &self.copies {
            t.push([
                c.kind.label().to_owned(),
                c.count_before.to_string(),
                c.count_after.to_string(),
                c.bytes_before.to_string(),
                c.bytes_after.to_string(),
            ]);
        }
        let mut out = k.render(format);
        out.push('\n');
        out.push_str(&t.render(format));
        if let Some(pct) = self.gate_pct {
            out.push('\n');
            if !self.cannot_judge.is_empty() {
                out.push_str(&format!(
                    "work gate ({pct} %): cannot judge: {}\n",
                    self.cannot_judge.join("; ")
                ));
            } else if self.failures.is_empty() {
                out.push_str(&format!(
                    "work gate ({pct} %): passed: the same kernels and copies, none grew\n"
                ));
            } else {
                out.push_str(&format!(
                    "work gate ({pct} %): failed: {}\n",
                    self.failures.join("; ")
                ));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::trace::TraceCopy;

    fn copy(kind: CopyKind, bytes: u64) -> TraceCopy {
        TraceCopy {
            kind,
            bytes,
            start_ns: 0,
            end_ns: 10,
            pid: 1,
            device: 0,
            stream: 7,
            correlation: 1,
            thread: None,
            range: None,
        }
    }

    #[test]
    fn a_copy_that_appears_fails_the_work_gate_and_the_same_run_passes() {
        let mut before = Trace::default();
        before.copies.push(copy(CopyKind::HtoD, 64));
        let mut after = before.clone();
        after.copies.push(copy(CopyKind::DtoD, 1 << 26));
        let d = trace_diff(&before, &after, Some(1.0));
        assert_eq!(d.failures.len(), 1, "{:?}", d.failures);
        assert!(d.failures[0].contains("a copy appeared: [CUDA memcpy Device-to-Device] 0 -> 1"));
        assert!(trace_diff(&before, &before, Some(1.0)).failures.is_empty());
        assert!(trace_diff(&before, &after, None).failures.is_empty());
    }

    #[test]
    fn a_trace_that_lost_records_cannot_be_judged() {
        let mut before = Trace::default();
        before.processes.push(crate::model::trace::TraceProcess {
            pid: 7,
            ppid: None,
            complete: true,
            dropped_records: 0,
            cupti_version: None,
        });
        let mut after = before.clone();
        after.processes[0].complete = false;
        let d = trace_diff(&before, &after, Some(1.0));
        assert_eq!(d.cannot_judge.len(), 1, "{:?}", d.cannot_judge);
        assert!(d.cannot_judge[0].contains("after: process 7 did not end normally"));
        after.processes[0].complete = true;
        after.processes[0].dropped_records = 3;
        let d = trace_diff(&before, &after, Some(1.0));
        assert!(
            d.cannot_judge[0].contains("lost 3 records"),
            "{:?}",
            d.cannot_judge
        );
        assert!(trace_diff(&before, &before, Some(1.0))
            .cannot_judge
            .is_empty());
    }
}
