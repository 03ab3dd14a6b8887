//! The decoded report's types: the report, its session, processes, devices, and one profile
//! result per kernel launch with its metric results. The readers of the folder fill them
//! (`container.rs`, `layout.rs`) and convert them (`export.rs`, `source.rs`); they stand
//! below all of those, and `mod.rs` hands them on.

use std::sync::Arc;

use super::lines;
use super::strings::StringTable;
use crate::read::ncu::Warning;

/// The first four bytes of every report.
pub const MAGIC: &[u8; 4] = b"NVR\0";

/// Whether `start` (the first bytes of a file) is the start of a report, to tell a report
/// from a CSV export before reading it.
pub fn is_report(start: &[u8]) -> bool {
    start.starts_with(MAGIC)
}

/// A decoded report.
#[derive(Clone, Debug)]
pub struct Report {
    /// File version from the file header (7 for Nsight Compute 2025.3.1).
    pub version: u64,
    /// Devices, tool versions, command line and processes.
    pub session: Session,
    /// One result per profiled kernel launch, in file order.
    pub results: Vec<ProfileResult>,
    /// What was skipped or doubted (a cut file, an unknown version).
    pub warnings: Vec<Warning>,
    /// What was doubted about the per-instruction data alone (a kernel module whose line
    /// table did not decode); [`Report::to_export`] leaves these out, as the raw page would.
    pub source_warnings: Vec<Warning>,
}

/// What the report says about the profiling session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// The processes blocks belong to, in order of first appearance.
    pub processes: Vec<Process>,
    /// The devices, with their attributes (`device__attribute_*`).
    pub devices: Vec<Device>,
    /// Tool names and versions (`Nsight Compute Target`, `CUDA Version`, ...).
    pub tools: Vec<(String, String)>,
    /// The ncu command line that made the report.
    pub command_line: Option<String>,
}

/// A profiled process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Process {
    /// Process ID.
    pub id: Option<u64>,
    /// Host name.
    pub host: Option<String>,
    /// Path of the executable.
    pub executable: Option<String>,
}

impl Process {
    /// The process name as ncu's exports print it: the executable's file name.
    pub fn name(&self) -> Option<&str> {
        let path = self.executable.as_deref()?;
        path.rsplit('/').next().filter(|n| !n.is_empty())
    }
}

/// A device of the session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Device {
    /// Device ordinal.
    pub id: u64,
    /// Display name (`NVIDIA H200`).
    pub name: String,
    /// Attributes by name, in file order, values as stored.
    pub attributes: Vec<(String, ResultValue)>,
}

/// A kernel's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelNames {
    /// Mangled (linkage) name; the plain name for `extern "C"` kernels.
    pub mangled: String,
    /// Function name without scope, template arguments or parameters (`Kernel2`).
    pub function: String,
    /// Demangled signature, when the name is mangled.
    pub demangled: Option<String>,
}

impl KernelNames {
    /// The name ncu's exports print by default: demangled where there is one.
    pub fn display(&self) -> &str {
        match &self.demangled {
            Some(d) => d,
            None if !self.function.is_empty() => &self.function,
            None => &self.mangled,
        }
    }
}

/// A metric value as the report stores it, in the metric's base unit.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultValue {
    /// A floating-point value.
    Double(f64),
    /// An unsigned integer (counts, sizes, IDs), exact.
    Uint(u64),
    /// Text (`PolicySpread`, `NVIDIA H200`).
    Text(String),
    /// No value (ncu prints an empty cell or `n/a`).
    Absent,
}

/// One metric result of a [`ProfileResult`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResultMetric<'a> {
    /// Full metric name (`dram__bytes_read.sum`).
    pub name: &'a str,
    /// The value.
    pub value: &'a ResultValue,
    /// How many instance values it has besides (per-unit or per-PC values; not decoded).
    pub instances: u32,
}

/// A metric result: a string table index and a value.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Entry {
    pub(super) name: u32,
    pub(super) value: ResultValue,
    pub(super) instances: u32,
}

/// One profiled kernel launch.
#[derive(Clone, Debug)]
pub struct ProfileResult {
    /// Place in the report, from 0: the `ID` ncu's exports print.
    pub index: u64,
    /// Byte offset of the result message in the file.
    pub offset: u64,
    /// The process that launched it.
    pub process: Process,
    /// Kernel names.
    pub names: KernelNames,
    /// Grid size, blocks.
    pub grid: Option<[u32; 3]>,
    /// Block size, threads.
    pub block: Option<[u32; 3]>,
    /// CUDA context ID.
    pub context: Option<u64>,
    /// CUDA stream ID.
    pub stream: Option<u64>,
    /// The NVTX push/pop stack it was launched in, when ncu recorded one (`nvtx.rs`).
    pub nvtx: Option<crate::model::artifact::NvtxRanges>,
    /// The rule engine's findings, one per message, in file order (`rules.rs`).
    pub rules: Vec<crate::model::artifact::RuleResult>,
    /// Per-instruction values of the SourceCounters metrics ([`crate::model::counters::SOURCE`],
    /// [`crate::model::counters::SOURCE_STALLS`]): `(address, value)` pairs per metric;
    /// filled by [`read_report`](super::read_report) and
    /// [`read_report_from`](super::read_report_from), empty where only the launches of the
    /// raw page are read ([`read_export`](super::read_export)).
    pub per_pc: Vec<(&'static crate::model::counters::Counter, Vec<(u64, f64)>)>,
    /// The CUDA source line of each address of `per_pc` that a module's line table covers
    /// (`lines.rs`), by address; empty without line information.
    pub lines: Vec<(u64, lines::Location)>,
    pub(super) metrics: Vec<Entry>,
    pub(super) strings: Arc<StringTable>,
}

impl ProfileResult {
    /// Every metric result, in file order.
    pub fn metrics(&self) -> impl Iterator<Item = ResultMetric<'_>> + '_ {
        self.metrics.iter().map(|e| ResultMetric {
            name: self.strings.get(u64::from(e.name)).unwrap_or_default(),
            value: &e.value,
            instances: e.instances,
        })
    }

    /// The value of metric `name` (the last, should it appear twice).
    pub fn metric(&self, name: &str) -> Option<&ResultValue> {
        self.metrics()
            .filter(|m| m.name == name)
            .last()
            .map(|m| m.value)
    }

    /// Number of metric results.
    pub fn metric_count(&self) -> usize {
        self.metrics.len()
    }
}
