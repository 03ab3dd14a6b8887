//! The timing pass taken from a trace (`capture trace`'s one plain run) instead of ncu's
//! duration-only replay: every launch the profile's filters keep, in launch order, with its
//! duration on the GPU, its kernel, shape, stream and NVTX ranges, numbered as ncu's
//! `--kernel-id` counts ([`timed_launches`]). The profiling pass then prints ncu's own
//! demangled names, which differ from the trace's (cpp_demangle writes
//! `at::native::foo<...>(at::TensorIteratorBase&)::{lambda(float)#1}` where ncu writes
//! `at::foo<...>(at::TensorIteratorBase &)::[lambda(float) (instance 1)]`), so the plan takes
//! the profiled rows' names before they are matched to it ([`adopt_profiled_names`]).
//!
//! Which launches ncu counts: with `--kernel-name-base mangled` (what `capture profile` passes
//! with `--kernel-id`), ncu numbers the invocations of each mangled name among the launches
//! its other filters keep (the NVTX ones); so the numbering here is per mangled name, after
//! the filters.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use crate::model::artifact::{LaunchCounters, NvtxRange, NvtxRanges};
use crate::model::trace::{RangeScope, Trace, TraceKernel, TraceSource};

use super::plan::Plan;
use super::timing::TimedLaunch;
use crate::analysis::one_pass::base_name;

/// Why a trace cannot stand in for ncu's timing pass.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FromTraceError {
    /// An NVTX filter this reading cannot evaluate as ncu would (wildcards, anchors).
    Filter(String),
    /// Kernels of more than one process (ncu numbers launches per process).
    Processes(usize),
    /// No launch is left after the filters.
    Empty,
}

impl std::fmt::Display for FromTraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FromTraceError::Filter(r) => write!(
                f,
                "the NVTX filter `{r}` uses ncu's wildcards or anchors (`*`, `[`, `]`), which \
                 the trace's timing pass does not evaluate"
            ),
            FromTraceError::Processes(n) => write!(
                f,
                "kernels of {n} processes: ncu numbers launches per process, so a sampled \
                 profile needs one process's launches (use --all-launches)"
            ),
            FromTraceError::Empty => {
                f.write_str("the trace holds no kernel launch that the filters keep")
            }
        }
    }
}

impl std::error::Error for FromTraceError {}

/// One `--nvtx-include`/`--nvtx-exclude` expression, as ncu reads it: `[domain@]name` names
/// a start/end range, `[domain@]outer/inner/` a push/pop range nested directly in another.
#[derive(Clone, Debug, PartialEq, Eq)]
struct RangeSpec {
    domain: Option<String>,
    names: Vec<String>,
    push_pop: bool,
}

impl RangeSpec {
    fn parse(spec: &str) -> Result<RangeSpec, FromTraceError> {
        if spec.contains(['*', '[', ']']) {
            return Err(FromTraceError::Filter(spec.to_owned()));
        }
        let (domain, rest) = match spec.split_once('@') {
            Some((d, r)) => (Some(d.to_owned()), r),
            None => (None, spec),
        };
        let push_pop = rest.contains('/');
        let names: Vec<String> = if push_pop {
            rest.trim_end_matches('/')
                .split('/')
                .map(str::to_owned)
                .collect()
        } else {
            vec![rest.to_owned()]
        };
        Ok(RangeSpec {
            domain,
            names,
            push_pop,
        })
    }

    /// Whether a launch whose open ranges are `chain` (outermost first: name, domain) is in
    /// the range. A start/end expression matches a range of its name anywhere in the chain;
    /// a push/pop one matches its names as consecutive ranges of the chain. The trace cannot
    /// always tell the two kinds apart (CUPTI's markers give both alike), so neither checks
    /// the range's kind.
    fn matches(&self, chain: &[(&str, Option<&str>)]) -> bool {
        let same = |(name, domain): (&str, Option<&str>), want: &str| {
            name == want && domain == self.domain.as_deref()
        };
        if self.push_pop {
            let n = self.names.len();
            chain.len() >= n
                && chain
                    .windows(n)
                    .any(|w| w.iter().zip(&self.names).all(|(&r, want)| same(r, want)))
        } else {
            chain.iter().any(|&r| same(r, &self.names[0]))
        }
    }
}

/// The launches of `trace` that the NVTX filters `include` (any of them) and `exclude`
/// (none of them) keep, as a timing pass: launch order (CUPTI's correlation order), IDs
/// from 0, each launch's invocation number among the kept launches of its mangled name,
/// its GPU duration and the ranges open when it was launched (as ncu's start/end ranges,
/// outermost first, where the trace cannot tell the kinds apart).
///
/// # Errors
///
/// [`FromTraceError`]: an expression with wildcards, kernels of several processes, nothing
/// kept.
pub fn timed_launches(
    trace: &Trace,
    include: &[String],
    exclude: &[String],
) -> Result<Vec<TimedLaunch>, FromTraceError> {
    let include: Vec<RangeSpec> = include
        .iter()
        .map(|s| RangeSpec::parse(s))
        .collect::<Result<_, _>>()?;
    let exclude: Vec<RangeSpec> = exclude
        .iter()
        .map(|s| RangeSpec::parse(s))
        .collect::<Result<_, _>>()?;
    let mut pids: Vec<u32> = trace.kernels.iter().map(|k| k.pid).collect();
    crate::order::sort(&mut pids);
    pids.dedup();
    if pids.len() > 1 {
        return Err(FromTraceError::Processes(pids.len()));
    }
    let mut contexts: HashMap<Option<u32>, Option<Arc<NvtxRanges>>> = HashMap::new();
    let mut out = Vec::new();
    let mut seen: HashMap<u32, u64> = HashMap::new();
    for k in &trace.kernels {
        let path = k.range.map(|r| trace.range_path(r)).unwrap_or_default();
        let chain: Vec<(&str, Option<&str>)> = path
            .iter()
            .filter_map(|&i| trace.ranges.get(i as usize))
            .map(|r| (trace.range_name(r), r.domain.map(|d| trace.string(d))))
            .collect();
        let kept = (include.is_empty() || include.iter().any(|s| s.matches(&chain)))
            && !exclude.iter().any(|s| s.matches(&chain));
        if !kept {
            continue;
        }
        let n = seen.entry(k.mangled.unwrap_or(k.name)).or_insert(0);
        *n += 1;
        let nvtx = contexts
            .entry(k.range)
            .or_insert_with(|| nvtx_of(trace, &path))
            .clone();
        out.push(timed(trace, k, out.len() as u64, *n, nvtx));
    }
    if out.is_empty() {
        return Err(FromTraceError::Empty);
    }
    Ok(out)
}

fn timed(
    trace: &Trace,
    k: &TraceKernel,
    id: u64,
    invocation: u64,
    nvtx: Option<Arc<NvtxRanges>>,
) -> TimedLaunch {
    TimedLaunch {
        id,
        function: trace.kernel_name(k).to_owned(),
        grid: Some(k.grid),
        block: Some(k.block),
        context: Some(u64::from(k.context)),
        stream: Some(u64::from(k.stream)),
        nvtx,
        shared_mem: Some(f64::from(k.static_shared_bytes) + f64::from(k.dynamic_shared_bytes)),
        duration_ns: k.end_ns.saturating_sub(k.start_ns) as f64,
        invocation,
    }
}

/// The ranges of `path` (outermost first) as ncu's NVTX context: push/pop ranges where the
/// trace knows them for the launching thread's, the others (and all, where the kinds are not
/// known) as start/end ranges.
fn nvtx_of(trace: &Trace, path: &[u32]) -> Option<Arc<NvtxRanges>> {
    if path.is_empty() {
        return None;
    }
    // CUPTI's marker records give push/pop and start/end ranges alike; nsys's export tells.
    let kinds_known = trace.source == Some(TraceSource::NsysSqlite);
    let mut n = NvtxRanges::default();
    for r in path.iter().filter_map(|&i| trace.ranges.get(i as usize)) {
        let range = NvtxRange {
            id: None,
            domain: r.domain.map(|d| trace.string(d).to_owned()),
            name: trace.range_name(r).to_owned(),
        };
        match (r.scope, kinds_known) {
            (RangeScope::Thread, true) => {
                n.thread = r.thread.map(u64::from);
                n.push_pop.push(range);
            }
            _ => n.start_end.push(range),
        }
    }
    Some(Arc::new(n))
}

/// Gives the plan's launches the names ncu printed for them in the profiling pass (`rows`,
/// in ncu's launch order), where a plan name is none of the rows': the n-th selected launch
/// of a base name, grid and block takes the name of the n-th row of the same, and every
/// launch of the plan with that name is renamed. A plan from ncu's own timing pass already
/// has ncu's names and is left as it is. Returns what a reader should know (a name two rows
/// disagree on is left as it was).
pub fn adopt_profiled_names(plan: &mut Plan, rows: &[LaunchCounters]) -> Vec<String> {
    let row_names: std::collections::HashSet<&str> = rows.iter().map(|r| &*r.function).collect();
    type Key<'a> = (&'a str, Option<[u32; 3]>, Option<[u32; 3]>);
    let mut queues: HashMap<Key<'_>, VecDeque<&str>> = HashMap::new();
    for r in rows {
        queues
            .entry((base_name(&r.function), r.site.grid, r.site.block))
            .or_default()
            .push_back(&r.function);
    }
    let mut renames: HashMap<String, Option<String>> = HashMap::new();
    for &i in &plan.selected {
        let t = &plan.launches[i];
        if row_names.contains(t.function.as_str()) {
            continue;
        }
        let Some(name) = queues
            .get_mut(&(base_name(&t.function), t.grid, t.block))
            .and_then(VecDeque::pop_front)
        else {
            continue;
        };
        match renames.get(&t.function) {
            None => {
                renames.insert(t.function.clone(), Some(name.to_owned()));
            }
            Some(Some(n)) if n != name => {
                renames.insert(t.function.clone(), None);
            }
            Some(_) => {}
        }
    }
    let mut warnings = Vec::new();
    for (from, to) in &renames {
        if to.is_none() {
            warnings.push(format!(
                "sampling: the trace's kernel {from} matched profiled launches of several ncu \
                 names; it keeps the trace's name"
            ));
        }
    }
    crate::order::sort(&mut warnings);
    for t in &mut plan.launches {
        if let Some(Some(to)) = renames.get(&t.function) {
            t.function.clone_from(to);
        }
    }
    warnings
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(s: &str) -> RangeSpec {
        RangeSpec::parse(s).unwrap_or_else(|e| panic!("{e}"))
    }

    fn chain<'a>(names: &[&'a str]) -> Vec<(&'a str, Option<&'a str>)> {
        names.iter().map(|&n| (n, None)).collect()
    }

    #[test]
    fn start_end_expressions_match_anywhere_and_push_pop_ones_as_consecutive_ranges() {
        let c = chain(&["step", "backward", "bert", "encoder"]);
        assert!(spec("step").matches(&c));
        assert!(spec("encoder").matches(&c));
        assert!(!spec("forward").matches(&c));
        assert!(spec("backward/bert/").matches(&c));
        assert!(!spec("step/bert/").matches(&c));
        assert!(!spec("TSL@step").matches(&c));
        let in_domain = vec![("step", Some("TSL"))];
        assert!(spec("TSL@step").matches(&in_domain));
        assert!(!spec("step").matches(&in_domain));
        assert_eq!(
            RangeSpec::parse("step/*/x"),
            Err(FromTraceError::Filter("step/*/x".into()))
        );
    }

    #[test]
    fn base_names_agree_across_the_two_demanglers() {
        let ncu = "void at::vectorized_elementwise_kernel<8, at::bfloat16_copy_kernel_cuda(at::TensorIteratorBase &)::[lambda(float) (instance 1)], std::array<char *, 2>>(int, T2, T3)";
        let ours = "void at::native::vectorized_elementwise_kernel<8, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, (unsigned long)2> >(int, at::native::bfloat16_copy_kernel_cuda(at::TensorIteratorBase&)::{lambda(float)#1}, std::array<char*, (unsigned long)2>)";
        assert_eq!(base_name(ncu), "vectorized_elementwise_kernel");
        assert_eq!(base_name(ours), base_name(ncu));
        assert_eq!(base_name("nvjet_sm90_tst_128x64"), "nvjet_sm90_tst_128x64");
    }
}
