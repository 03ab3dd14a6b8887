//! Writing an artifact: the JSON writer and the state one write carries.
//!
//! [`Artifact::write_json`] walks the artifact with a [`Writer`] handed down explicitly to
//! every serializer below it: the artifact, each kernel, each counter set, each launch's
//! value array. The writer says where the value arrays come from (rendered here, or ahead
//! on other threads by [`Artifact::write_json_with`]) and whether they go to the formatter
//! as bytes already rendered ([`json::ObjectsIndented::with_raw_arrays`]); each counter set
//! gets its varying columns from the list worked out once for the artifact
//! ([`Artifact::varying_columns`]). Nothing of a write is kept anywhere else, so what is
//! written depends on the artifact and the arguments alone.
//!
//! The derived `Serialize` of the schema types (any serializer, `serde_json::to_string`)
//! reaches the same code through [`CounterSet`]'s `Serialize`, with a plain writer: value
//! arrays element by element, each set working out its own varying columns. Both paths
//! write the same bytes (tested).

pub(crate) mod json;

use std::cell::Cell;
use std::collections::HashMap;
use std::sync::Arc;

use serde::ser::{SerializeSeq, SerializeStruct};
use serde::{Serialize, Serializer};

use super::schema::{
    Artifact, CounterSet, Instruction, KernelRecord, KernelWork, LaunchCounters, LaunchSource,
    MetricKey, MetricValue, NvtxRanges,
};
use super::storage::{self, MetricColumns, Metrics, TEXT_BITS};

/// Where the value arrays of an artifact being written come from: called with each array's
/// index (in the order of [`Artifact::value_arrays`]), its row, the columns it lists
/// (`None`: all) and an empty buffer to fill with exactly [`Metrics::json_array`]'s bytes.
pub type ArraySource = Box<dyn FnMut(usize, &Metrics, Option<&[u32]>, &mut Vec<u8>)>;

/// Works out a kernel's work vector from its counters (`crate::analysis::work_vector`, a
/// layer above this one, so handed in by the caller), kernel after kernel in the order
/// they are written: what [`Artifact::write_json_computing`] writes as each kernel's
/// `work`.
pub type WorkOf = Box<dyn FnMut(&KernelRecord) -> Option<KernelWork>>;

/// The state of one write of an artifact, handed down to the serializers of its parts.
pub(super) struct Writer {
    /// Where each kernel's `work` comes from: worked out from its counters as it is
    /// written (no vector is held for the whole artifact), else the record's own. Taken
    /// out while it works.
    work_of: Cell<Option<WorkOf>>,
    /// Whether value arrays go to the serializer as bytes already rendered as JSON; true
    /// only with a formatter made by [`json::ObjectsIndented::with_raw_arrays`], which
    /// writes such bytes as they are.
    raw_arrays: bool,
    /// The value arrays rendered ahead ([`Artifact::write_json_with`]); none: each row
    /// renders its own. Taken out while one is asked for.
    arrays: Cell<Option<ArraySource>>,
    /// The index of the next value array written, in the order of
    /// [`Artifact::value_arrays`].
    next_array: Cell<usize>,
}

impl Writer {
    /// A writer for any serializer: value arrays element by element.
    fn plain() -> Self {
        Writer {
            work_of: Cell::new(None),
            raw_arrays: false,
            arrays: Cell::new(None),
            next_array: Cell::new(0),
        }
    }

    /// A writer for a formatter that writes rendered arrays as they are, with the arrays
    /// from `arrays` when given.
    fn raw(arrays: Option<ArraySource>, work_of: Option<WorkOf>) -> Self {
        Writer {
            work_of: Cell::new(work_of),
            raw_arrays: true,
            arrays: Cell::new(arrays),
            next_array: Cell::new(0),
        }
    }

    /// The `work` to write for `kernel` when the caller handed in a [`WorkOf`]; `None`:
    /// the record's own.
    fn work(&self, kernel: &KernelRecord) -> Option<Option<Box<KernelWork>>> {
        let mut work_of = self.work_of.take()?;
        let work = work_of(kernel).map(Box::new);
        self.work_of.set(Some(work_of));
        Some(work)
    }

    /// The next value array, rendered: the values of `metrics` at `only` (all when none).
    fn next_array(&self, metrics: &Metrics, only: Option<&[u32]>) -> Vec<u8> {
        let index = self.next_array.replace(self.next_array.get() + 1);
        let Some(mut source) = self.arrays.take() else {
            return metrics.json_array(only);
        };
        let mut out = Vec::new();
        source(index, metrics, only, &mut out);
        self.arrays.set(Some(source));
        out
    }
}

/// The varying columns of an artifact's counter sets, in the order they are written,
/// worked out once ([`Artifact::varying_columns`]); borrowing the artifact, so that it
/// cannot change meanwhile and the lists are used for it alone.
#[derive(Clone)]
pub struct VaryingColumns<'a> {
    /// The artifact the lists were worked out for.
    artifact: &'a Artifact,
    /// Each set's [`CounterSet::varying_columns`], in the order of
    /// [`Artifact::value_arrays`].
    sets: SetLists,
}

impl VaryingColumns<'_> {
    /// The lists, when they were worked out for `artifact`.
    fn of(&self, artifact: &Artifact) -> Option<&SetLists> {
        std::ptr::eq(self.artifact, artifact).then_some(&self.sets)
    }
}

/// The counter sets' varying columns by the sets' index in writing order, kept for the
/// sets that have them only (sets of one launch have none: 200,000 one-launch kernels
/// kept 4 MB of empty slots).
#[derive(Clone, Debug, Default)]
struct SetLists(Vec<(usize, Arc<[u32]>)>);

impl SetLists {
    /// The lists of `sets`, in order.
    fn of<'a>(sets: impl Iterator<Item = &'a CounterSet>) -> Self {
        SetLists(
            sets.enumerate()
                .filter_map(|(i, set)| set.varying_columns().map(|v| (i, Arc::from(v))))
                .collect(),
        )
    }

    /// The varying columns of set `i`, if it has them.
    fn get(&self, i: usize) -> Option<Arc<[u32]>> {
        let at = self.0.binary_search_by_key(&i, |(set, _)| *set).ok()?;
        self.0.get(at).map(|(_, list)| Arc::clone(list))
    }
}

impl std::fmt::Debug for VaryingColumns<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.sets.0.iter().map(|(i, l)| (i, l)))
            .finish()
    }
}

impl Artifact {
    /// Serializes the artifact as JSON with a trailing newline: objects indented, arrays
    /// of values on one line (see [`Artifact::write_json`]).
    pub fn to_json(&self) -> String {
        let mut out = Vec::new();
        // Writing to a Vec cannot fail, and every map key of these types is a string.
        let _ = self.write_json(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }

    /// Writes the artifact as JSON to `out`, streaming: objects one key per line,
    /// indented; arrays on one line, so a launch's thousands of metric values stay compact.
    pub fn write_json<W: std::io::Write>(&self, out: W) -> Result<(), serde_json::Error> {
        self.write_json_from(out, None, &self.varying_columns(), None)
    }

    /// [`Artifact::write_json_with`] (the value arrays from `arrays` when given), each
    /// kernel's `work` worked out by `work_of` from its counters as it is written, rather
    /// than the record's own: what `capture` writes, so that every artifact carries the
    /// vectors without holding one per kernel in memory: a vector is two allocations of
    /// some 260 bytes even with one component, about 50 MB over the 200,000 one-launch
    /// kernels of docs/performance.md's `kernels` case (reckoned from the types' sizes, not
    /// measured), where the import's whole peak is 69 MB.
    pub fn write_json_computing<W: std::io::Write>(
        &self,
        out: W,
        arrays: Option<ArraySource>,
        varying: &VaryingColumns<'_>,
        work_of: WorkOf,
    ) -> Result<(), serde_json::Error> {
        self.write_json_from(out, arrays, varying, Some(work_of))
    }

    /// [`Artifact::write_json`], with the launches' value arrays (the bulk of a large
    /// import) from `arrays`, which may have rendered them ahead on other threads with
    /// [`Metrics::json_array`]; the bytes must be that function's, and the file is then the
    /// same. `arrays` is called in the order of [`Artifact::value_arrays`]; `varying` is
    /// this artifact's [`Artifact::varying_columns`], so that they are not worked out
    /// again (lists worked out for another artifact are not used).
    pub fn write_json_with<W: std::io::Write>(
        &self,
        out: W,
        arrays: ArraySource,
        varying: &VaryingColumns<'_>,
    ) -> Result<(), serde_json::Error> {
        self.write_json_from(out, Some(arrays), varying, None)
    }

    fn write_json_from<W: std::io::Write>(
        &self,
        out: W,
        arrays: Option<ArraySource>,
        varying: &VaryingColumns<'_>,
        work_of: Option<WorkOf>,
    ) -> Result<(), serde_json::Error> {
        use std::io::Write;
        let own;
        let sets = match varying.of(self) {
            Some(sets) => sets,
            None => {
                own = self.varying_columns();
                &own.sets
            }
        };
        let writer = Writer::raw(arrays, work_of);
        let mut out = json::Buffered::new(out);
        let mut ser = serde_json::Serializer::with_formatter(
            &mut out,
            json::ObjectsIndented::with_raw_arrays(),
        );
        ArtifactOut {
            artifact: self,
            sets,
            writer: &writer,
        }
        .serialize(&mut ser)?;
        // The array source goes first (with it, whatever it holds: a helper thread's
        // channel), then the rest is written out.
        drop(writer);
        out.write_all(b"\n")
            .and_then(|()| out.flush())
            .map_err(serde_json::Error::io)
    }

    /// The launches' value arrays [`Artifact::write_json`] writes, in the order it writes
    /// them (each kernel's cold launches, then its warm ones): each launch's metrics and
    /// the columns its array lists (`None`: all; see [`CounterSet::varying_columns`]),
    /// from `varying`, this artifact's [`Artifact::varying_columns`]. An iterator, not a
    /// list: a million launches' list was 24 MB alongside the artifact being written.
    pub fn value_arrays<'a>(
        &'a self,
        varying: &'a VaryingColumns<'_>,
    ) -> impl Iterator<Item = (&'a Metrics, Option<Arc<[u32]>>)> + 'a {
        let own = varying.of(self);
        self.counter_sets().enumerate().flat_map(move |(i, set)| {
            let varying = match own {
                Some(sets) => sets.get(i),
                None => set.varying_columns().map(Arc::from),
            };
            set.value_arrays()
                .map(move |(metrics, shares)| (metrics, varying.clone().filter(|_| shares)))
        })
    }

    /// Every counter set's [`CounterSet::varying_columns`], in the order
    /// [`Artifact::write_json`] writes the sets (a scan of every value of every launch:
    /// worked out once for [`Artifact::value_arrays`] and [`Artifact::write_json_with`]).
    pub fn varying_columns(&self) -> VaryingColumns<'_> {
        VaryingColumns {
            artifact: self,
            sets: SetLists::of(self.counter_sets()),
        }
    }

    /// The counter sets in the order they are written: each kernel's cold, then warm.
    fn counter_sets(&self) -> impl Iterator<Item = &CounterSet> + '_ {
        self.kernels
            .iter()
            .flat_map(|k| k.cold.iter().chain(k.warm.as_deref()))
    }
}

/// The artifact as [`Artifact::write_json`] writes it: its fields as the derived
/// `Serialize` writes them, the counter sets through `writer`.
struct ArtifactOut<'a> {
    artifact: &'a Artifact,
    /// The varying columns of each counter set, in the order they are written.
    sets: &'a SetLists,
    writer: &'a Writer,
}

impl Serialize for ArtifactOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Every field named, so that a field added to the format does not build until it
        // is written here too (in its order in [`Artifact`]).
        let Artifact {
            schema,
            provenance,
            device,
            ceilings,
            kernels,
            warnings,
            sampled,
            sources,
            trace,
        } = self.artifact;
        let mut st = s.serialize_struct("Artifact", 9)?;
        st.serialize_field("schema", schema)?;
        st.serialize_field("provenance", provenance)?;
        st.serialize_field("device", device)?;
        st.serialize_field("ceilings", ceilings)?;
        st.serialize_field(
            "kernels",
            &KernelsOut {
                kernels,
                sets: self.sets,
                writer: self.writer,
            },
        )?;
        st.serialize_field("warnings", warnings)?;
        match sampled {
            Some(_) => st.serialize_field("sampled", sampled)?,
            None => st.skip_field("sampled")?,
        }
        if sources.is_empty() {
            st.skip_field("sources")?;
        } else {
            st.serialize_field("sources", &SourcesOut(sources))?;
        }
        match trace {
            Some(_) => st.serialize_field("trace", trace)?,
            None => st.skip_field("trace")?,
        }
        st.end()
    }
}

/// The source pages as [`Artifact::write_json`] writes them: each instruction without the
/// figures it lacks (every figure is optional in the format), which halves what a kernel's
/// thousands of instructions take (`capture source --format json` writes them as null).
struct SourcesOut<'a>(&'a [LaunchSource]);

impl Serialize for SourcesOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.0.len()))?;
        for launch in self.0 {
            seq.serialize_element(&LaunchSourceOut(launch))?;
        }
        seq.end()
    }
}

struct LaunchSourceOut<'a>(&'a LaunchSource);

impl Serialize for LaunchSourceOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Every field named, as in [`ArtifactOut`].
        let LaunchSource {
            launch,
            kernel,
            duration_ns,
            instructions,
        } = self.0;
        let mut st = s.serialize_struct("LaunchSource", 4)?;
        st.serialize_field("launch", launch)?;
        st.serialize_field("kernel", kernel)?;
        st.serialize_field("duration_ns", duration_ns)?;
        st.serialize_field(
            "instructions",
            &instructions.iter().map(InstructionOut).collect::<Vec<_>>(),
        )?;
        st.end()
    }
}

struct InstructionOut<'a>(&'a Instruction);

impl Serialize for InstructionOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Every field named, as in [`ArtifactOut`].
        let Instruction {
            address,
            sass,
            inst_executed,
            thread_inst_executed,
            samples,
            stalls,
            l1_tag_requests_global,
            l2_sectors_global,
            l2_sectors_global_ideal,
            l2_sectors_global_excessive,
            l1_wavefronts_shared,
            l1_wavefronts_shared_ideal,
            l1_wavefronts_shared_excessive,
            l1_conflicts_shared_nway,
            divergent_branches,
            file,
            line,
            cuda,
        } = self.0;
        let mut st = s.serialize_struct("Instruction", 18)?;
        st.serialize_field("address", &format!("{address:#x}"))?;
        match sass {
            Some(_) => st.serialize_field("sass", sass)?,
            None => st.skip_field("sass")?,
        }
        let mut some = |name: &'static str, v: &Option<f64>| match v {
            Some(v) if v.is_finite() => st.serialize_field(name, v),
            _ => st.skip_field(name),
        };
        some("inst_executed", inst_executed)?;
        some("thread_inst_executed", thread_inst_executed)?;
        some("samples", samples)?;
        some("l1_tag_requests_global", l1_tag_requests_global)?;
        some("l2_sectors_global", l2_sectors_global)?;
        some("l2_sectors_global_ideal", l2_sectors_global_ideal)?;
        some("l2_sectors_global_excessive", l2_sectors_global_excessive)?;
        some("l1_wavefronts_shared", l1_wavefronts_shared)?;
        some("l1_wavefronts_shared_ideal", l1_wavefronts_shared_ideal)?;
        some(
            "l1_wavefronts_shared_excessive",
            l1_wavefronts_shared_excessive,
        )?;
        some("l1_conflicts_shared_nway", l1_conflicts_shared_nway)?;
        some("divergent_branches", divergent_branches)?;
        if stalls.is_empty() {
            st.skip_field("stalls")?;
        } else {
            st.serialize_field("stalls", stalls)?;
        }
        match file {
            Some(_) => st.serialize_field("file", file)?,
            None => st.skip_field("file")?,
        }
        match line {
            Some(_) => st.serialize_field("line", line)?,
            None => st.skip_field("line")?,
        }
        match cuda {
            Some(_) => st.serialize_field("cuda", cuda)?,
            None => st.skip_field("cuda")?,
        }
        st.end()
    }
}

/// The kernels, each counter set with its varying columns.
struct KernelsOut<'a> {
    kernels: &'a [KernelRecord],
    sets: &'a SetLists,
    writer: &'a Writer,
}

impl Serialize for KernelsOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let writer = self.writer;
        let mut next = 0;
        let mut list = || {
            next += 1;
            self.sets.get(next - 1)
        };
        let mut seq = s.serialize_seq(Some(self.kernels.len()))?;
        for kernel in self.kernels {
            // Cold, then warm: the order of the lists.
            let cold = kernel.cold.as_ref().map(|set| SetOut {
                set,
                varying: list(),
                writer,
            });
            let warm = kernel.warm.as_deref().map(|set| SetOut {
                set,
                varying: list(),
                writer,
            });
            let work = writer.work(kernel);
            seq.serialize_element(&KernelOut {
                kernel,
                cold,
                warm,
                work,
            })?;
        }
        seq.end()
    }
}

/// A kernel as [`Artifact::write_json`] writes it: its fields as the derived `Serialize`
/// writes them, its counter sets through the writer.
struct KernelOut<'a> {
    kernel: &'a KernelRecord,
    cold: Option<SetOut<'a>>,
    warm: Option<SetOut<'a>>,
    /// The work vector worked out as it is written; `None`: the record's own.
    work: Option<Option<Box<KernelWork>>>,
}

impl Serialize for KernelOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        // Every field named, as in [`ArtifactOut`].
        let KernelRecord {
            name,
            function,
            source_file,
            launch,
            asked,
            timing,
            check,
            cold: _,
            warm: _,
            sampled,
            work,
        } = self.kernel;
        let work = self.work.as_ref().unwrap_or(work);
        let mut st = s.serialize_struct("KernelRecord", 11)?;
        st.serialize_field("name", name)?;
        st.serialize_field("function", function)?;
        st.serialize_field("source_file", source_file)?;
        st.serialize_field("launch", launch)?;
        st.serialize_field("asked", asked)?;
        st.serialize_field("timing", timing)?;
        st.serialize_field("check", check)?;
        st.serialize_field("cold", &self.cold)?;
        st.serialize_field("warm", &self.warm)?;
        match sampled {
            Some(_) => st.serialize_field("sampled", sampled)?,
            None => st.skip_field("sampled")?,
        }
        match work {
            Some(_) => st.serialize_field("work", work)?,
            None => st.skip_field("work")?,
        }
        st.end()
    }
}

impl CounterSet {
    /// The columns in `metric_columns`: the first launch's.
    fn columns(&self) -> Option<&MetricColumns> {
        self.launches.first().map(|l| l.metrics.columns().as_ref())
    }

    /// The set's distinct NVTX contexts, each once in the order a launch first has it,
    /// and each launch's index into them (the `nvtx_ranges` and `nvtx` of the JSON).
    fn nvtx_table(&self) -> (Vec<&NvtxRanges>, Vec<Option<u32>>) {
        let mut table: Vec<&NvtxRanges> = Vec::new();
        let mut index: HashMap<&NvtxRanges, u32> = HashMap::new();
        let launches = self
            .launches
            .iter()
            .map(|l| {
                let ranges = l.site.nvtx.as_deref()?;
                let next = u32::try_from(table.len()).ok()?;
                Some(*index.entry(ranges).or_insert_with(|| {
                    table.push(ranges);
                    next
                }))
            })
            .collect();
        (table, launches)
    }

    /// Whether `launch` is written against the set's `metric_columns` (else it lists its
    /// own).
    fn shares_columns(launch: &LaunchCounters, columns: &MetricColumns) -> bool {
        let own = launch.metrics.columns();
        std::ptr::eq(Arc::as_ptr(own), columns) || own.keys() == columns.keys()
    }

    /// The columns whose values differ between the launches that share the set's columns,
    /// when the others are written once ([`storage::varying_columns`]).
    pub fn varying_columns(&self) -> Option<Vec<u32>> {
        let columns = self.columns()?;
        let rows: Vec<&Metrics> = self
            .launches
            .iter()
            .filter(|l| Self::shares_columns(l, columns))
            .map(|l| &l.metrics)
            .collect();
        storage::varying_columns(&rows)
    }

    /// Each launch's metrics, and whether it is written against the set's columns (so
    /// lists only the varying ones, when the set has them).
    fn value_arrays(&self) -> impl Iterator<Item = (&Metrics, bool)> + '_ {
        let columns = self.columns();
        self.launches.iter().map(move |l| {
            let shares = columns.is_some_and(|c| Self::shares_columns(l, c));
            (&l.metrics, shares)
        })
    }
}

/// Any serializer: a plain writer, the set's own varying columns.
impl Serialize for CounterSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        SetOut {
            set: self,
            varying: self.varying_columns().map(Arc::from),
            writer: &Writer::plain(),
        }
        .serialize(s)
    }
}

/// A counter set in its JSON form ([`super::schema::CounterSetJson`]): columns once, the
/// values the same in every launch once when `varying` is given, then each launch.
struct SetOut<'a> {
    set: &'a CounterSet,
    /// The set's [`CounterSet::varying_columns`].
    varying: Option<Arc<[u32]>>,
    writer: &'a Writer,
}

impl Serialize for SetOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let set = self.set;
        let empty = MetricColumns::default();
        let columns: &MetricColumns = set.columns().unwrap_or(&empty);
        let varying = self.varying.as_deref();
        let first_shared = set
            .launches
            .iter()
            .find(|l| CounterSet::shares_columns(l, columns));
        let (nvtx_ranges, nvtx) = set.nvtx_table();
        let mut st = s.serialize_struct("CounterSet", 6)?;
        st.serialize_field("cache_control", &set.cache_control)?;
        st.serialize_field("metric_columns", columns.keys())?;
        if let (Some(varying), Some(first)) = (varying, first_shared) {
            st.serialize_field("varying_columns", varying)?;
            st.serialize_field(
                "constant_values",
                &ConstantsSer {
                    metrics: &first.metrics,
                    varying,
                },
            )?;
        }
        if nvtx_ranges.is_empty() {
            st.skip_field("nvtx_ranges")?;
        } else {
            st.serialize_field("nvtx_ranges", &nvtx_ranges)?;
        }
        st.serialize_field(
            "launches",
            &LaunchesOut {
                launches: &set.launches,
                nvtx: &nvtx,
                columns,
                varying,
                writer: self.writer,
            },
        )?;
        st.end()
    }
}

/// The launches of a set.
struct LaunchesOut<'a> {
    launches: &'a [LaunchCounters],
    /// Each launch's index into the set's `nvtx_ranges`, in launch order.
    nvtx: &'a [Option<u32>],
    /// The set's `metric_columns`.
    columns: &'a MetricColumns,
    /// The set's varying columns, when it writes the others once.
    varying: Option<&'a [u32]>,
    writer: &'a Writer,
}

/// A launch's fields but its values, its site's among them, in the order of
/// [`super::schema::LaunchJson`].
impl Serialize for LaunchCounters {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let site = &*self.site;
        let sampled = self.sampled_from.is_some();
        let mut st = s.serialize_struct("LaunchCounters", 14 + usize::from(sampled))?;
        st.serialize_field("id", &self.id)?;
        st.serialize_field("process_id", &site.process_id)?;
        st.serialize_field("process_name", &site.process_name)?;
        st.serialize_field("host", &site.host)?;
        st.serialize_field("device", &site.device)?;
        st.serialize_field("cc", &site.cc)?;
        st.serialize_field("context", &site.context)?;
        st.serialize_field("stream", &site.stream)?;
        st.serialize_field("function", &self.function)?;
        st.serialize_field("demangled", &site.demangled)?;
        st.serialize_field("grid", &site.grid)?;
        st.serialize_field("block", &site.block)?;
        st.serialize_field("sections", &self.sections)?;
        st.serialize_field("rules", &self.rules)?;
        if sampled {
            st.serialize_field("sampled_from", &self.sampled_from)?;
        }
        st.end()
    }
}

/// A launch: its fields, its own columns when they are not the set's, its values.
#[derive(Serialize)]
struct LaunchOut<'a> {
    #[serde(flatten)]
    launch: &'a LaunchCounters,
    #[serde(skip_serializing_if = "Option::is_none")]
    metric_columns: Option<&'a [MetricKey]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    nvtx: Option<u32>,
    metrics: ValuesSer<'a>,
}

impl Serialize for LaunchesOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let nvtx = self.nvtx.iter().copied().chain(std::iter::repeat(None));
        s.collect_seq(self.launches.iter().zip(nvtx).map(|(launch, nvtx)| {
            // Launches of one export share the set's columns; any other launch (joined
            // from an export with other columns) lists its own.
            let own = launch.metrics.columns();
            let shared = CounterSet::shares_columns(launch, self.columns);
            LaunchOut {
                launch,
                metric_columns: (!shared).then(|| own.keys()),
                nvtx,
                metrics: ValuesSer {
                    metrics: &launch.metrics,
                    columns: if shared { self.columns } else { own },
                    only: self.varying.filter(|_| shared),
                    writer: self.writer,
                },
            }
        }))
    }
}

/// The values of a row's columns that are not in `varying` (ascending): the
/// `constant_values` of a counter set, written like a row's values.
struct ConstantsSer<'a> {
    /// A row of the counter set (any: the constants are the same in all).
    metrics: &'a Metrics,
    /// The columns left out.
    varying: &'a [u32],
}

impl Serialize for ConstantsSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.metrics;
        let mut varying = self.varying.iter().peekable();
        let mut seq = s.serialize_seq(Some(m.values.len().saturating_sub(self.varying.len())))?;
        for i in 0..m.values.len() {
            if varying.next_if(|&&v| v as usize == i).is_some() {
                continue;
            }
            seq.serialize_element(&m.value_at(i))?;
        }
        seq.end()
    }
}

/// Serializes a row's values in the order of `columns`: numbers, strings or null.
pub(super) struct ValuesSer<'a> {
    /// The row.
    metrics: &'a Metrics,
    /// The column order to write in.
    columns: &'a MetricColumns,
    /// Only these columns (ascending) of the row's own, when its counter set writes the
    /// others once ([`storage::varying_columns`]).
    only: Option<&'a [u32]>,
    /// The write this row is part of.
    writer: &'a Writer,
}

impl Serialize for ValuesSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.metrics;
        let own_columns = std::ptr::eq(Arc::as_ptr(&m.columns), self.columns);
        let in_order = own_columns || m.columns.keys == self.columns.keys;
        if self.writer.raw_arrays && in_order {
            return s.serialize_bytes(&self.writer.next_array(m, self.only));
        }
        if let (Some(only), true) = (self.only, in_order) {
            let mut seq = s.serialize_seq(Some(only.len()))?;
            for &i in only {
                seq.serialize_element(&m.value_at(i as usize))?;
            }
            return seq.end();
        }
        let mut seq = s.serialize_seq(Some(self.columns.len()))?;
        if own_columns {
            // The usual case, the row's own columns: its values as they are stored, texts
            // taken in column order, no value built per cell.
            let mut texts = m.texts().iter().peekable();
            for i in 0..self.columns.len() {
                match m.values.get(i) {
                    Some(v) if v.is_finite() => seq.serialize_element(&v)?,
                    Some(v) if v.to_bits() == TEXT_BITS => {
                        while texts.next_if(|(k, _)| (*k as usize) < i).is_some() {}
                        match texts.next_if(|(k, _)| *k as usize == i) {
                            Some((_, t)) => seq.serialize_element(t.as_str())?,
                            None => seq.serialize_element(&None::<f64>)?,
                        }
                    }
                    _ => seq.serialize_element(&None::<f64>)?,
                }
            }
        } else {
            for v in m.values_for(self.columns) {
                seq.serialize_element(&v)?;
            }
        }
        seq.end()
    }
}

impl ValuesSer<'_> {
    /// A row's values in the order of `columns`, for any serializer (a plain writer).
    #[cfg(test)]
    pub(super) fn plain<T>(
        metrics: &Metrics,
        columns: &MetricColumns,
        f: impl FnOnce(&ValuesSer<'_>) -> T,
    ) -> T {
        let writer = Writer::plain();
        f(&ValuesSer {
            metrics,
            columns,
            only: None,
            writer: &writer,
        })
    }
}

impl Metrics {
    /// The row's values as a JSON array, exactly as [`Artifact::write_json`] writes
    /// them: `[1056.0,"all",null]`; only the columns `only` (ascending) when given. A pure
    /// function of the row, so a caller may render the rows of an artifact on another
    /// thread ([`Artifact::write_json_with`]).
    pub fn json_array(&self, only: Option<&[u32]>) -> Vec<u8> {
        let count = only.map_or(self.values.len(), <[u32]>::len);
        let mut out = Vec::with_capacity(16 * count + 2);
        match only {
            Some(columns) => self.render_values(&mut out, columns.iter().map(|&i| i as usize)),
            None => self.render_values(&mut out, 0..self.values.len()),
        }
        out
    }

    /// Appends the values of `columns` (ascending) as a JSON array (see
    /// [`Metrics::json_array`]).
    fn render_values(&self, out: &mut Vec<u8>, columns: impl Iterator<Item = usize>) {
        out.push(b'[');
        let mut texts = self.texts().iter().peekable();
        for (n, i) in columns.enumerate() {
            if n > 0 {
                out.push(b',');
            }
            let Some(v) = self.values.get(i) else {
                out.extend_from_slice(b"null");
                continue;
            };
            if v.is_finite() {
                json::push_f64(out, v);
                continue;
            }
            if v.to_bits() == TEXT_BITS {
                while texts.next_if(|(k, _)| (*k as usize) < i).is_some() {}
                if let Some((_, t)) = texts.next_if(|(k, _)| *k as usize == i) {
                    // Writing a string to a Vec cannot fail.
                    let _ = serde_json::to_writer(&mut *out, t.as_str());
                    continue;
                }
            }
            out.extend_from_slice(b"null");
        }
        out.push(b']');
    }

    /// The value for each of `columns`, by name (missing where this row lacks the column).
    fn values_for<'a>(
        &'a self,
        columns: &'a MetricColumns,
    ) -> impl Iterator<Item = MetricValue> + 'a {
        let same =
            std::ptr::eq(Arc::as_ptr(&self.columns), columns) || self.columns.keys == columns.keys;
        columns.keys.iter().enumerate().map(move |(i, k)| {
            if same {
                self.value_at(i)
            } else {
                self.columns
                    .position(&k.name)
                    .map_or(MetricValue::Missing, |j| self.value_at(j))
            }
        })
    }
}
