//! Turning ncu launches into artifacts: `import` (any application's export becomes one
//! kernel record per function name) and `merge` (counters joined to the kernel records of a
//! timings artifact by function name).

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use thiserror::Error;

use crate::analysis::metrics::{self, metric};
use crate::analysis::work;
use crate::model::artifact::{
    Artifact, CacheControl, ComputeCapability, CounterSet, DeviceInfo, KernelRecord,
    LaunchCounters, Origin, Provenance,
};
use crate::model::counters as c;
use crate::model::roofline;
use crate::model::work_kind::Work;
use crate::read::ncu::Warning;
use crate::text::names::shorten_kernel_name;

/// Why counters could not be merged into a timings artifact.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MergeError {
    /// A kernel of the timings has no launch with a DRAM byte metric in the export: the
    /// profiler never saw that launch, or the export lacks the DRAM counters.
    #[error(
        "kernel '{kernel}' (function {function}) has no DRAM byte metric in the {cache} export: \
         the profiler did not capture that launch, or {}/{} were not collected",
        c::DRAM_BYTES_READ.name,
        c::DRAM_BYTES_WRITE.name
    )]
    MissingKernel {
        /// Display name of the kernel.
        kernel: String,
        /// CUDA function name searched for.
        function: String,
        /// Which export (`cold` or `warm`).
        cache: String,
    },
}

/// Whether an ncu kernel name denotes the function `function`: equal, or a demangled
/// signature `function(...)`, or a templated `function<...>(...)`.
pub fn names_function(ncu_name: &str, function: &str) -> bool {
    match ncu_name.strip_prefix(function) {
        Some("") => true,
        Some(rest) => rest.starts_with('(') || rest.starts_with('<'),
        None => false,
    }
}

/// The kernels' function names for [`names_function`] looked up by hash rather than by
/// trying every kernel per launch (an export of 100,000 launches against 100,000 kernels
/// was 10^10 comparisons): the functions an ncu name can denote are the whole name and its
/// prefixes that end just before a `(` or a `<`.
struct FunctionIndex<'a> {
    /// The first kernel of each function name.
    first: HashMap<&'a str, usize>,
    /// The byte lengths of the function names (only prefixes of these lengths are looked up).
    lengths: HashSet<usize>,
}

impl<'a> FunctionIndex<'a> {
    fn of(kernels: &'a [KernelRecord]) -> Self {
        let mut first = HashMap::new();
        let mut lengths = HashSet::new();
        for (i, k) in kernels.iter().enumerate() {
            first.entry(k.function.as_ref()).or_insert(i);
            lengths.insert(k.function.len());
        }
        FunctionIndex { first, lengths }
    }

    /// The first kernel whose function `ncu_name` denotes (as the first kernel for which
    /// [`names_function`] holds), if any.
    fn first_named_by(&self, ncu_name: &str) -> Option<usize> {
        let whole = self.first.get(ncu_name).copied();
        let prefixes = ncu_name
            .bytes()
            .enumerate()
            .filter(|&(at, b)| (b == b'(' || b == b'<') && self.lengths.contains(&at))
            .filter_map(|(at, _)| ncu_name.get(..at))
            .filter_map(|prefix| self.first.get(prefix).copied());
        whole.into_iter().chain(prefixes).min()
    }
}

/// Device attributes as ncu's raw page reports them (`device__attribute_*`), from the first
/// launch that has a display name.
pub fn device_from_launches(launches: &[LaunchCounters]) -> Option<DeviceInfo> {
    let l = launches.iter().find(|l| {
        l.metrics
            .get(c::DEVICE_NAME.name)
            .is_some_and(|m| matches!(m.value, crate::model::artifact::MetricValue::Text(_)))
    })?;
    let name = match l.metrics.get(c::DEVICE_NAME.name)?.value {
        crate::model::artifact::MetricValue::Text(t) => t,
        _ => return None,
    };
    let int = |n: c::Counter| {
        metric(l, n)
            .filter(|v| *v >= 0.0 && v.is_finite())
            .map(|v| v as u64)
    };
    let cc = match (int(c::CC_MAJOR), int(c::CC_MINOR)) {
        (Some(major), Some(minor)) => Some(ComputeCapability {
            major: major as u32,
            minor: minor as u32,
        }),
        _ => None,
    };
    let sm_count = int(c::SM_COUNT).map(|v| v as u32);
    // ncu prints these clock attributes in kHz, like the CUDA attributes they mirror.
    let sm_clock_khz = int(c::SM_CLOCK_KHZ);
    let mem_clock_khz = int(c::MEMORY_CLOCK_KHZ);
    let bus_width_bits = int(c::BUS_WIDTH_BITS).map(|v| v as u32);
    let lanes = cc.and_then(|c| roofline::fp32_lanes_per_sm(c.major, c.minor));
    Some(DeviceInfo {
        index: l.site.device,
        name,
        compute_capability: cc,
        sm_count,
        sm_clock_khz,
        mem_clock_khz,
        bus_width_bits,
        l2_bytes: int(c::L2_CACHE_BYTES),
        total_mem_bytes: int(c::TOTAL_MEMORY_BYTES),
        pci_bus_id: None,
        peaks: roofline::theoretical_peaks(
            sm_count,
            sm_clock_khz,
            mem_clock_khz,
            bus_width_bits,
            lanes,
        ),
    })
}

/// Up to this many kernels sharing a missing-counter reason get a warning line each; more
/// share one line that counts them and names the first few.
const WARN_EACH_UP_TO: usize = 3;

/// Why a kernel's figures are incomplete: the counters they need that its launches lack.
fn missing_counters(kernel: &KernelRecord) -> Vec<String> {
    let Some(set) = &kernel.cold else {
        return Vec::new();
    };
    // Only the two figures warned about, not all of `metrics::totals`: an import of tens
    // of thousands of launches spends its build stage here.
    let mut out = Vec::new();
    if set.launches.is_empty()
        || set
            .launches
            .iter()
            .any(|l| metrics::dram_bytes(l).is_none())
    {
        out.push(format!(
            "no DRAM byte counters ({} + {}); no measured-intensity point",
            c::DRAM_BYTES_READ,
            c::DRAM_BYTES_WRITE
        ));
    }
    match work::work_over(&set.launches).get(&Work::Fp32) {
        Some(f) if !f.missing.is_empty() => out.push(format!(
            "FP32 FLOP counters not collected: {}; FLOP figures are lower bounds",
            f.missing.join(", ")
        )),
        _ => {}
    }
    out
}

/// Warnings about counters the kernels' figures need but their launches lack, in order of
/// first kernel: `kernel: reason` for a reason few kernels share, else one line for all
/// of them (an export of 200,000 kernels without DRAM write counters gave 200,000 lines).
fn counter_warnings(kernels: &[KernelRecord]) -> Vec<String> {
    // Per reason: how many kernels, and the first few names.
    let mut reasons: Vec<(String, usize, Vec<String>)> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for kernel in kernels {
        for reason in missing_counters(kernel) {
            let at = *index.entry(reason).or_insert_with_key(|reason| {
                reasons.push((reason.clone(), 0, Vec::new()));
                reasons.len() - 1
            });
            if let Some((_, count, names)) = reasons.get_mut(at) {
                *count += 1;
                if names.len() < WARN_EACH_UP_TO {
                    names.push(shorten_kernel_name(&kernel.name, 80));
                }
            }
        }
    }
    let mut out = Vec::new();
    for (reason, count, names) in reasons {
        if count <= WARN_EACH_UP_TO {
            out.extend(names.iter().map(|name| format!("{name}: {reason}")));
        } else {
            out.push(format!(
                "{count} kernels: {reason} ({} and {} more)",
                names.join(", "),
                count - names.len()
            ));
        }
    }
    out
}

/// `launches` grouped by function name into one kernel record each (its launches its cold
/// set), in order of first launch, each group in launch order, with about one copy of the
/// launches in memory at any time: the launches are put in group order in their own
/// vector (a permutation applied by swaps), then each group is split off its end into a
/// vector of its exact size, the rest shrunk as it empties, and handed to its record at
/// once. The largest group is laid out first and keeps the input's vector, so a million
/// launches of one kernel are never copied. (Pushing each launch onto its group's growing
/// vector held the input and the groups at once, and four slots for every group of one
/// launch: 200,000 kernels of a 7 MB export took 494 MB.)
fn group_by_function(mut launches: Vec<LaunchCounters>) -> Vec<KernelRecord> {
    // The reader's spare slots (up to half of the vector) are not kept beside the records.
    launches.shrink_to_fit();
    let mut index: HashMap<&str, usize> = HashMap::new();
    // Each launch's group, then (below) where it goes.
    let mut place: Vec<usize> = Vec::with_capacity(launches.len());
    let mut sizes: Vec<usize> = Vec::new();
    let mut names: Vec<Arc<str>> = Vec::new();
    for launch in &launches {
        let g = *index.entry(launch.function.as_ref()).or_insert_with(|| {
            names.push(Arc::clone(&launch.function));
            sizes.push(0);
            sizes.len() - 1
        });
        if let Some(n) = sizes.get_mut(g) {
            *n += 1;
        }
        place.push(g);
    }
    drop(index);
    names.shrink_to_fit();
    sizes.shrink_to_fit();
    // Layout: the largest group first (the first of equals), then the others in order.
    let largest = (0..sizes.len())
        .max_by_key(|&g| (sizes.get(g).copied(), std::cmp::Reverse(g)))
        .unwrap_or_default();
    let layout = || std::iter::once(largest).chain((0..sizes.len()).filter(|&g| g != largest));
    // Where each launch goes: its group's start plus its rank in the group.
    let mut next = vec![0usize; sizes.len()];
    let mut at = 0;
    for g in layout() {
        if let (Some(s), Some(n)) = (next.get_mut(g), sizes.get(g)) {
            *s = at;
            at += n;
        }
    }
    for slot in &mut place {
        *slot = next.get_mut(*slot).map_or(0, |n| {
            *n += 1;
            *n - 1
        });
    }
    drop(next);
    for i in 0..place.len() {
        // Cycle by cycle: each swap puts one launch in its place.
        while let Some(&t) = place.get(i) {
            if t == i || t >= launches.len() {
                break;
            }
            launches.swap(i, t);
            place.swap(i, t);
        }
    }
    drop(place);
    // Each group is split off the end of what is left (the layout backwards) and its record
    // made at once, so that the records grow as the launches' vector shrinks (made all
    // beforehand, they peaked 3 MB over the end's memory on 200,000 one-launch kernels).
    let backwards = (0..sizes.len())
        .rev()
        .filter(|&g| g != largest)
        .chain(std::iter::once(largest).filter(|&g| g < sizes.len()));
    let mut records: Vec<KernelRecord> = Vec::with_capacity(sizes.len());
    let mut largest_name = None;
    for g in backwards {
        let size = sizes.get(g).copied().unwrap_or_default();
        let part = if size >= launches.len() {
            std::mem::take(&mut launches)
        } else {
            let part = launches.split_off(launches.len() - size);
            if launches.capacity() > launches.len() + launches.len() / 8 + 16 {
                launches.shrink_to_fit();
            }
            part
        };
        // The names are taken off their end too (the largest's kept aside on the way).
        let name = if g == largest {
            largest_name.take().or_else(|| names.pop())
        } else {
            if names.len() == largest + 1 {
                largest_name = names.pop();
            }
            names.pop()
        };
        if names.capacity() > 2 * names.len() + 16 {
            names.shrink_to_fit();
        }
        let name = name.unwrap_or_default();
        records.push(KernelRecord {
            cold: Some(CounterSet::of(part)),
            ..KernelRecord::new(Arc::clone(&name), name)
        });
    }
    // Made backwards with the largest last: reversed, the largest is first, then the
    // others in order; it goes to its own place.
    records.reverse();
    if let Some(head) = records.get_mut(..=largest) {
        head.rotate_left(1);
    }
    records
}

/// An artifact from the launches of one or more exports of any program: one kernel record
/// per function name, in order of first launch, all launches kept in order.
pub fn import_launches(
    launches: Vec<LaunchCounters>,
    warnings: Vec<Warning>,
    provenance: Provenance,
) -> Artifact {
    let mut artifact = Artifact::new(Provenance {
        origin: provenance.origin.or(Some(Origin::Import)),
        ..provenance
    });
    artifact.device = device_from_launches(&launches);
    if artifact.provenance.host.is_none() {
        artifact.provenance.host = launches
            .iter()
            .find_map(|l| l.site.host.as_deref().map(String::from));
    }
    artifact
        .warnings
        .extend(warnings.iter().map(|w| w.to_string()));
    artifact.kernels = group_by_function(launches);
    let extra = counter_warnings(&artifact.kernels);
    artifact.warnings.extend(extra);
    artifact
}

/// Joins ncu launches to the kernel records of `artifact` by function name, under one cache
/// state. Every kernel must get at least one launch with DRAM bytes, else
/// [`MergeError::MissingKernel`] names the first that did not; the artifact is unchanged
/// then. Launches of functions the artifact does not know become a warning.
pub fn attach_counters(
    artifact: &mut Artifact,
    launches: Vec<LaunchCounters>,
    cache: CacheControl,
) -> Result<(), MergeError> {
    let cache_name = match cache {
        CacheControl::Cold => "cold",
        CacheControl::Warm => "warm",
    };
    let mut sets: Vec<Vec<LaunchCounters>> = vec![Vec::new(); artifact.kernels.len()];
    let mut unknown: Vec<String> = Vec::new();
    let mut unknown_seen: HashSet<String> = HashSet::new();
    let functions = FunctionIndex::of(&artifact.kernels);
    // Launches of one function repeat: each distinct ncu name is matched once.
    let mut matched: HashMap<String, Option<usize>> = HashMap::new();
    for launch in launches {
        let found = match matched.get(&*launch.function) {
            Some(&found) => found,
            None => {
                let found = functions.first_named_by(&launch.function);
                matched.insert(launch.function.to_string(), found);
                found
            }
        };
        match found {
            Some(i) => {
                if let Some(set) = sets.get_mut(i) {
                    set.push(launch);
                }
            }
            None => {
                if unknown_seen.insert(launch.function.to_string()) {
                    unknown.push(launch.function.to_string());
                }
            }
        }
    }
    for (kernel, set) in artifact.kernels.iter().zip(&sets) {
        if !set.iter().any(|l| metrics::dram_bytes(l).is_some()) {
            return Err(MergeError::MissingKernel {
                kernel: kernel.name.to_string(),
                function: kernel.function.to_string(),
                cache: cache_name.to_string(),
            });
        }
    }
    if artifact.device.is_none() {
        let all: Vec<LaunchCounters> = sets.iter().flatten().take(1).cloned().collect();
        artifact.device = device_from_launches(&all);
    }
    for (kernel, set) in artifact.kernels.iter_mut().zip(sets) {
        let counters = Some(CounterSet {
            cache_control: Some(cache),
            launches: set,
        });
        match cache {
            CacheControl::Cold => kernel.cold = counters,
            CacheControl::Warm => kernel.warm = counters.map(Box::new),
        }
    }
    if !unknown.is_empty() {
        artifact.warnings.push(format!(
            "{cache_name} export has launches of functions outside the timings, ignored: {}",
            unknown.join(", ")
        ));
    }
    if cache == CacheControl::Cold {
        let extra = counter_warnings(&artifact.kernels);
        artifact.warnings.extend(extra);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::{Metric, MetricValue};

    fn launch(id: u64, function: &str, dram: Option<f64>) -> LaunchCounters {
        let mut l = LaunchCounters {
            id,
            function: function.into(),
            ..Default::default()
        };
        if let Some(d) = dram {
            l.metrics.insert(
                "dram__bytes.sum".into(),
                Metric {
                    unit: "byte".into(),
                    value: MetricValue::Number(d),
                },
            );
        }
        l
    }

    fn record(name: &str, function: &str) -> KernelRecord {
        KernelRecord::new(name, function)
    }

    #[test]
    fn function_names_match_plain_demangled_and_templated() {
        assert!(names_function("vec_add", "vec_add"));
        assert!(names_function("vec_add(const float *, int)", "vec_add"));
        assert!(names_function("vec_add<float>(float *)", "vec_add"));
        assert!(!names_function("vec_add_strided", "vec_add"));
        assert!(!names_function("vec", "vec_add"));
    }

    #[test]
    fn import_groups_launches_by_function_in_first_seen_order() {
        let a = import_launches(
            vec![
                launch(0, "b", Some(1.0)),
                launch(1, "a", Some(2.0)),
                launch(2, "b", Some(3.0)),
            ],
            Vec::new(),
            Provenance::default(),
        );
        let names: Vec<&str> = a.kernels.iter().map(|k| k.name.as_ref()).collect();
        assert_eq!(names, ["b", "a"]);
        let ids: Vec<u64> = a.kernels[0]
            .cold
            .as_ref()
            .map(|c| c.launches.iter().map(|l| l.id).collect())
            .unwrap_or_default();
        assert_eq!(ids, [0, 2]);
        assert_eq!(a.provenance.origin, Some(Origin::Import));
    }

    #[test]
    fn grouping_keeps_launch_order_in_every_group_and_sizes_each_exactly() {
        // b is the largest group (kept in the input's vector), a and c interleave with it.
        let order = ["a", "b", "b", "c", "b", "a", "b", "c", "a", "b"];
        let launches: Vec<LaunchCounters> = order
            .iter()
            .enumerate()
            .map(|(i, f)| launch(i as u64, f, None))
            .collect();
        let records = group_by_function(launches);
        let sets: Vec<(&str, &Vec<LaunchCounters>)> = records
            .iter()
            .filter_map(|k| Some((&*k.function, &k.cold.as_ref()?.launches)))
            .collect();
        let got: Vec<(&str, Vec<u64>)> = sets
            .iter()
            .map(|(f, set)| (*f, set.iter().map(|l| l.id).collect()))
            .collect();
        assert_eq!(
            got,
            [
                ("a", vec![0, 5, 8]),
                ("b", vec![1, 2, 4, 6, 9]),
                ("c", vec![3, 7])
            ]
        );
        // The groups split off are exact; the largest keeps the input's vector, shrunk
        // to within an eighth (and 16 slots) of its length.
        for (f, set) in &sets {
            let slack = if *f == "b" { set.len() / 8 + 16 } else { 0 };
            assert!(
                set.capacity() <= set.len() + slack,
                "{f}: {}",
                set.capacity()
            );
        }
        assert!(group_by_function(Vec::new()).is_empty());
    }

    #[test]
    fn merge_names_the_kernel_without_dram_bytes_and_leaves_artifact_alone() {
        let mut a = Artifact::new(Provenance::default());
        a.kernels.push(record("copy", "copy_f4"));
        a.kernels.push(record("vector add", "vec_add"));
        let before = a.clone();
        let err = attach_counters(
            &mut a,
            vec![launch(0, "copy_f4", Some(8.0)), launch(1, "vec_add", None)],
            CacheControl::Cold,
        )
        .expect_err("vec_add has no DRAM bytes");
        assert!(err.to_string().contains("'vector add'"), "{err}");
        assert_eq!(a, before);
    }

    #[test]
    fn merge_attaches_cold_and_warm_and_warns_about_strangers() {
        let mut a = Artifact::new(Provenance::default());
        a.kernels.push(record("copy", "copy_f4"));
        attach_counters(
            &mut a,
            vec![
                launch(0, "copy_f4", Some(8.0)),
                launch(1, "memset_kernel", Some(1.0)),
            ],
            CacheControl::Cold,
        )
        .expect("cold merges");
        attach_counters(
            &mut a,
            vec![launch(0, "copy_f4", Some(4.0))],
            CacheControl::Warm,
        )
        .expect("warm merges");
        let k = &a.kernels[0];
        assert_eq!(k.cold.as_ref().map(|c| c.launches.len()), Some(1));
        assert_eq!(
            k.warm.as_deref().and_then(|c| c.cache_control),
            Some(CacheControl::Warm)
        );
        assert!(a.warnings.iter().any(|w| w.contains("memset_kernel")));
    }

    #[test]
    fn a_missing_counter_warns_per_kernel_when_few_share_it_and_once_when_many_do() {
        let without = |n: u64| {
            let launches = (0..n).map(|i| launch(i, &format!("k{i}"), None)).collect();
            import_launches(launches, Vec::new(), Provenance::default()).warnings
        };
        let dram = |w: &String| w.contains("no DRAM byte counters");
        let few: Vec<String> = without(3).into_iter().filter(dram).collect();
        assert_eq!(few.len(), 3);
        assert!(few[0].starts_with("k0: no DRAM byte counters ("), "{few:?}");
        let many: Vec<String> = without(200).into_iter().filter(dram).collect();
        assert_eq!(many.len(), 1, "{many:?}");
        assert!(
            many[0].starts_with("200 kernels: no DRAM byte counters ("),
            "{many:?}"
        );
        assert!(many[0].ends_with("(k0, k1, k2 and 197 more)"), "{many:?}");
        let with = import_launches(
            (0..200)
                .map(|i| launch(i, &format!("k{i}"), Some(1.0)))
                .collect(),
            Vec::new(),
            Provenance::default(),
        );
        assert!(!with.warnings.iter().any(dram), "{:?}", with.warnings);
    }
}
