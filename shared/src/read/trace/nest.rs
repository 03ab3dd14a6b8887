//! The joins both trace readers share (capture's record stream, [`super::build`], and Nsight
//! Systems' SQLite export, [`crate::read::nsys`]): names interned once, each process's
//! ranges nested and each launch given its innermost range ([`nest`]), and a process's
//! records appended to the trace with their range indices moved past the ranges before
//! them ([`Parts::append_to`]).

use std::collections::HashMap;
use std::sync::Arc;

use crate::model::trace::{CounterSeries, RangeScope, Trace, TraceCopy, TraceKernel, TraceRange};

/// Strings interned once across every process.
#[derive(Default)]
pub(crate) struct Strings {
    pub(crate) list: Vec<Arc<str>>,
    index: HashMap<Arc<str>, u32>,
}

impl Strings {
    pub(crate) fn intern(&mut self, text: &str) -> u32 {
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        let i = self.list.len() as u32;
        let text: Arc<str> = Arc::from(text);
        self.list.push(text.clone());
        self.index.insert(text, i);
        i
    }
}

/// One process's records; range indices count from its own first range until
/// [`Parts::append_to`].
#[derive(Default)]
pub(crate) struct Parts {
    pub(crate) kernels: Vec<TraceKernel>,
    pub(crate) copies: Vec<TraceCopy>,
    pub(crate) ranges: Vec<TraceRange>,
    pub(crate) counters: Vec<CounterSeries>,
}

impl Parts {
    /// Appends the process's records to `trace`, its range indices moved past the trace's
    /// ranges so far.
    pub(crate) fn append_to(mut self, trace: &mut Trace) {
        let base = trace.ranges.len() as u32;
        for r in &mut self.ranges {
            r.parent = r.parent.map(|p| p + base);
        }
        for k in &mut self.kernels {
            k.range = k.range.map(|p| p + base);
        }
        for c in &mut self.copies {
            c.range = c.range.map(|p| p + base);
        }
        trace.kernels.extend(self.kernels);
        trace.copies.extend(self.copies);
        trace.ranges.extend(self.ranges);
        trace.counters.extend(self.counters);
    }
}

/// What happens at one instant of the sweep, in the order ties are taken.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Edge {
    /// A range opens (before anything at the same instant).
    Open(usize),
    /// A kernel's launching call.
    Kernel(usize),
    /// A copy's call.
    Copy(usize),
    /// A range closes (after anything at the same instant).
    Close(usize),
}

/// Orders ranges by start, then gives each range its parent and each launch its innermost
/// range: on its thread the innermost open push/pop range, in its process the latest-opened
/// start/end range still open, whichever opened later.
///
/// One process's records: `copy_calls[i]` is when the call of `parts.copies[i]` began on
/// the CPU, where known; a kernel's is its `launch_ns`.
///
/// `scopes_known` is false where the source cannot tell push/pop from start/end ranges
/// (CUPTI's marker records give both as the opening thread's, with the same flags: seen on
/// an H100, CUDA 13.0): there a launch from a thread with no range of its own open takes the
/// innermost range open on any thread of its process (the latest opened), as ncu's
/// `--nvtx-push-pop-scope process` does, so that PyTorch's backward pass, launched from the
/// autograd thread, stays inside the step its main thread opened.
pub(crate) fn nest(parts: &mut Parts, copy_calls: &[Option<u64>], scopes_known: bool) {
    crate::order::sort_by_key(&mut parts.ranges, |r| {
        (r.start_ns, std::cmp::Reverse(r.end_ns.unwrap_or(u64::MAX)))
    });
    let mut edges: Vec<(u64, Edge)> = Vec::new();
    for (i, r) in parts.ranges.iter().enumerate() {
        edges.push((r.start_ns, Edge::Open(i)));
        if let Some(end) = r.end_ns {
            edges.push((end, Edge::Close(i)));
        }
    }
    for (i, k) in parts.kernels.iter().enumerate() {
        if let Some(t) = k.launch_ns {
            edges.push((t, Edge::Kernel(i)));
        }
    }
    for (i, t) in copy_calls.iter().enumerate() {
        if let Some(t) = t {
            edges.push((*t, Edge::Copy(i)));
        }
    }
    crate::order::sort(&mut edges);
    let mut thread_open: HashMap<u32, Vec<usize>> = HashMap::new();
    let mut process_open: Vec<usize> = Vec::new();
    // Every open range, for a launch whose thread has none where scopes are not known.
    let mut all_open: Vec<usize> = Vec::new();
    let innermost = |thread_open: &HashMap<u32, Vec<usize>>,
                     process_open: &[usize],
                     all_open: &[usize],
                     tid: Option<u32>| {
        let on_thread = tid
            .and_then(|t| thread_open.get(&t))
            .and_then(|s| s.last().copied());
        let in_process = process_open.last().copied();
        match (on_thread, in_process) {
            (Some(a), Some(b)) => Some(a.max(b)),
            (None, None) if !scopes_known => all_open.iter().max().copied(),
            (a, b) => a.or(b),
        }
    };
    for (_, edge) in edges {
        match edge {
            Edge::Open(i) => {
                let r = &parts.ranges[i];
                let parent = innermost(&thread_open, &process_open, &all_open, r.thread);
                all_open.push(i);
                let (scope, thread) = (r.scope, r.thread);
                parts.ranges[i].parent = parent.map(|p| p as u32);
                match (scope, thread) {
                    (RangeScope::Thread, Some(t)) => thread_open.entry(t).or_default().push(i),
                    _ => process_open.push(i),
                }
            }
            Edge::Close(i) => {
                let r = &parts.ranges[i];
                let list = match (r.scope, r.thread) {
                    (RangeScope::Thread, Some(t)) => thread_open.entry(t).or_default(),
                    _ => &mut process_open,
                };
                if let Some(at) = list.iter().rposition(|&x| x == i) {
                    list.remove(at);
                }
                if let Some(at) = all_open.iter().rposition(|&x| x == i) {
                    all_open.remove(at);
                }
            }
            Edge::Kernel(i) => {
                let tid = parts.kernels[i].thread;
                parts.kernels[i].range =
                    innermost(&thread_open, &process_open, &all_open, tid).map(|p| p as u32);
            }
            Edge::Copy(i) => {
                let tid = parts.copies[i].thread;
                parts.copies[i].range =
                    innermost(&thread_open, &process_open, &all_open, tid).map(|p| p as u32);
            }
        }
    }
}
