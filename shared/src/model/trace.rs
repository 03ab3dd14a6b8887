//! A trace: every kernel, copy and memory set of a program and the NVTX ranges around them, as
//! one plain run saw them (no replay, no serialization), with GPU start and end times on one
//! clock. `capture trace` records one through CUPTI's activity API; `capture import` makes one
//! from Nsight Systems' exports. Part of the artifact (schema 7, [`crate::Artifact::trace`]).
//!
//! Names are interned: every record points into [`Trace::strings`] by index. Times are in ns
//! on the recorder's clock (CUPTI's: the CPU clock the API calls are timed with, so GPU and
//! CPU times compare); only differences mean anything.

use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a trace's records came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TraceSource {
    /// `capture trace`: CUPTI's activity records, through capture's injection library.
    Cupti,
    /// Nsight Systems' SQLite export (`nsys export --type sqlite`).
    NsysSqlite,
    /// Nsight Systems' `nsys stats` CSV reports: summaries only, no timeline.
    NsysCsv,
}

/// The whole trace.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
#[cfg_attr(feature = "trace", derive(Deserialize))]
pub struct Trace {
    /// Where the records came from.
    pub source: Option<TraceSource>,
    /// Every process that recorded, in the order they started.
    #[serde(default)]
    pub processes: Vec<TraceProcess>,
    /// Every name the records point at (kernel names, mangled names, NVTX messages and
    /// domains), each once.
    #[serde(default)]
    pub strings: Vec<Arc<str>>,
    /// Kernel executions, in launch order within each process (the order of their launching
    /// calls, which is the order ncu numbers launches in).
    #[serde(default)]
    pub kernels: Vec<TraceKernel>,
    /// Copies and memory sets, in call order within each process.
    #[serde(default)]
    pub copies: Vec<TraceCopy>,
    /// NVTX ranges, in start order; a range's `parent` comes before it.
    #[serde(default)]
    pub ranges: Vec<TraceRange>,
    /// Per-kernel summaries where the source had no timeline (an `nsys stats` CSV): the
    /// figures as the report gave them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub summaries: Vec<KernelSummary>,
    /// Per-kind copy and memory-set summaries where the source had no timeline (an `nsys
    /// stats --report cuda_gpu_mem_time_sum` CSV): the figures as the report gave them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_summaries: Vec<CopySummary>,
    /// Hardware counters sampled over time in the same run (`capture trace --counters`: CUPTI's
    /// PM sampling), one series per process and device.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counters: Vec<CounterSeries>,
    /// True where a reader built without the `trace` feature (the viewer) met a trace and
    /// skipped it: the artifact holds one this reading left out. Never written.
    #[serde(skip)]
    #[schemars(skip)]
    pub unread: bool,
}

/// Without the `trace` feature a trace is skipped, not read ([`Trace::unread`]).
#[cfg(not(feature = "trace"))]
impl<'de> Deserialize<'de> for Trace {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        serde::de::IgnoredAny::deserialize(d)?;
        Ok(Trace {
            unread: true,
            ..Trace::default()
        })
    }
}

/// PM sampling of one device by one process: the metrics, the interval asked for, and each
/// interval in which the GPU did something (intervals whose every value is 0 are left out:
/// an idle GPU).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CounterSeries {
    /// The process that sampled.
    pub pid: u32,
    /// CUDA device ordinal.
    pub device: u32,
    /// The sampling interval asked for, ns of GPU time.
    pub interval_ns: u64,
    /// Indices into [`Trace::strings`] of the metrics, in the order of each sample's values.
    pub metrics: Vec<u32>,
    /// Samples in time order.
    pub samples: Vec<CounterSample>,
    /// Intervals left out as idle (every value 0).
    #[serde(default)]
    pub idle_samples: u64,
}

/// One PM sampling interval.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CounterSample {
    /// Start, ns, on the clock of the trace's records.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// The metrics' values over the interval, in [`CounterSeries::metrics`] order.
    pub values: Vec<f64>,
}

/// One process of the trace.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceProcess {
    /// Process id.
    pub pid: u32,
    /// Its parent's process id, when recorded.
    #[serde(default)]
    pub ppid: Option<u32>,
    /// True when the process exited normally and every buffer reached the file; false when
    /// it crashed, was killed or ended without `exit` (its last records may be missing).
    pub complete: bool,
    /// Records CUPTI dropped because its buffers were full (0 in a sound trace).
    #[serde(default)]
    pub dropped_records: u64,
    /// CUPTI's API version, when recorded.
    #[serde(default)]
    pub cupti_version: Option<u32>,
}

/// One kernel execution.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceKernel {
    /// Index into [`Trace::strings`] of its name (demangled where it could be).
    pub name: u32,
    /// Index into [`Trace::strings`] of its mangled name, when it differs from `name`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mangled: Option<u32>,
    /// Start on the GPU, ns.
    pub start_ns: u64,
    /// End on the GPU, ns.
    pub end_ns: u64,
    /// Process id.
    pub pid: u32,
    /// CUDA device ordinal.
    pub device: u32,
    /// CUDA context id.
    pub context: u32,
    /// CUDA stream id.
    pub stream: u32,
    /// The launching call's correlation id.
    pub correlation: u32,
    /// The launching CPU thread, when the call was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<u32>,
    /// When the launching call began on the CPU, ns (same clock).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch_ns: Option<u64>,
    /// Grid size.
    pub grid: [u32; 3],
    /// Block size.
    pub block: [u32; 3],
    /// Registers per thread.
    pub registers: u32,
    /// Static shared memory per block, bytes.
    pub static_shared_bytes: u32,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_shared_bytes: u32,
    /// Index into [`Trace::ranges`] of the innermost NVTX range open when it was launched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<u32>,
}

/// What a copy moved between, or a memory set.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum CopyKind {
    /// Host to device.
    HtoD,
    /// Device to host.
    DtoH,
    /// Device to device (one device).
    DtoD,
    /// Host to host.
    HtoH,
    /// Peer to peer (two devices).
    PtoP,
    /// Array copies and kinds CUPTI does not name.
    Other,
    /// A memory set (`cudaMemset*`).
    Memset,
}

impl CopyKind {
    /// CUPTI's `CUpti_ActivityMemcpyKind` as a kind.
    pub fn from_cupti(kind: u8) -> CopyKind {
        match kind {
            1 => CopyKind::HtoD,
            2 => CopyKind::DtoH,
            8 => CopyKind::DtoD,
            9 => CopyKind::HtoH,
            10 => CopyKind::PtoP,
            _ => CopyKind::Other,
        }
    }

    /// The kind an nsys memory report's `Operation` names: the labels of [`CopyKind::label`]
    /// and the older short forms (`[CUDA memcpy HtoD]`); anything else is
    /// [`CopyKind::Other`].
    pub fn from_operation(operation: &str) -> CopyKind {
        let op = operation
            .trim()
            .trim_start_matches('[')
            .trim_end_matches(']');
        let Some(what) = op.strip_prefix("CUDA ") else {
            return CopyKind::Other;
        };
        if what == "memset" {
            return CopyKind::Memset;
        }
        match what.strip_prefix("memcpy ") {
            Some("Host-to-Device" | "HtoD") => CopyKind::HtoD,
            Some("Device-to-Host" | "DtoH") => CopyKind::DtoH,
            Some("Device-to-Device" | "DtoD") => CopyKind::DtoD,
            Some("Host-to-Host" | "HtoH") => CopyKind::HtoH,
            Some("Peer-to-Peer" | "PtoP") => CopyKind::PtoP,
            _ => CopyKind::Other,
        }
    }

    /// The name nsys's memory reports give the operation.
    pub fn label(self) -> &'static str {
        match self {
            CopyKind::HtoD => "[CUDA memcpy Host-to-Device]",
            CopyKind::DtoH => "[CUDA memcpy Device-to-Host]",
            CopyKind::DtoD => "[CUDA memcpy Device-to-Device]",
            CopyKind::HtoH => "[CUDA memcpy Host-to-Host]",
            CopyKind::PtoP => "[CUDA memcpy Peer-to-Peer]",
            CopyKind::Other => "[CUDA memcpy other]",
            CopyKind::Memset => "[CUDA memset]",
        }
    }
}

/// One copy or memory set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceCopy {
    /// What it moved between.
    pub kind: CopyKind,
    /// Bytes moved or set.
    pub bytes: u64,
    /// Start on the GPU, ns.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// Process id.
    pub pid: u32,
    /// Device ordinal.
    pub device: u32,
    /// Stream id.
    pub stream: u32,
    /// The calling API's correlation id.
    pub correlation: u32,
    /// The calling CPU thread, when recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<u32>,
    /// Index into [`Trace::ranges`] of the innermost NVTX range open at the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<u32>,
}

/// Whose stack an NVTX range belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RangeScope {
    /// A push/pop range: open on one thread; holds what that thread launched.
    Thread,
    /// A start/end range: process-wide; holds what any thread launched while it was open.
    Process,
}

/// One NVTX range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TraceRange {
    /// Index into [`Trace::strings`] of its message.
    pub name: u32,
    /// Index into [`Trace::strings`] of its domain; absent for the default domain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<u32>,
    /// Start on the CPU, ns.
    pub start_ns: u64,
    /// End on the CPU, ns; absent when the range was never closed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_ns: Option<u64>,
    /// Process id.
    pub pid: u32,
    /// The thread that opened it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<u32>,
    /// Push/pop or start/end.
    pub scope: RangeScope,
    /// Index into [`Trace::ranges`] of the range it opened inside.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<u32>,
}

/// A kernel's summary line as a report without a timeline gave it (nsys's
/// `cuda_gpu_kern_sum`), in ns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KernelSummary {
    /// Kernel name.
    pub name: Arc<str>,
    /// Launches.
    pub instances: u64,
    /// Total time, ns.
    pub total_ns: f64,
    /// Mean, ns.
    pub avg_ns: f64,
    /// Median, ns; absent where the report had no median (nsys before 2022's `Med` column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub med_ns: Option<f64>,
    /// Shortest, ns.
    pub min_ns: f64,
    /// Longest, ns.
    pub max_ns: f64,
    /// Standard deviation, ns; absent where the report had none (the oldest `gpukernsum`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stddev_ns: Option<f64>,
}

/// One kind of copy's summary line as a report without a timeline gave it (nsys's
/// `cuda_gpu_mem_time_sum`), in ns.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CopySummary {
    /// What moved (from the report's `Operation`, e.g. `[CUDA memcpy Host-to-Device]`).
    pub kind: CopyKind,
    /// Operations.
    pub count: u64,
    /// Bytes moved, where the report gave them (the time report does not).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    /// Total time, ns.
    pub total_ns: f64,
    /// Mean, ns.
    pub avg_ns: f64,
    /// Median, ns, where the report gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub med_ns: Option<f64>,
    /// Shortest, ns.
    pub min_ns: f64,
    /// Longest, ns.
    pub max_ns: f64,
    /// Standard deviation, ns, where the report gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stddev_ns: Option<f64>,
}

impl Trace {
    /// The string at `index`, or "" where the index points nowhere.
    pub fn string(&self, index: u32) -> &str {
        self.strings.get(index as usize).map_or("", |s| s)
    }

    /// A kernel's (demangled) name.
    pub fn kernel_name(&self, kernel: &TraceKernel) -> &str {
        self.string(kernel.name)
    }

    /// A range's message.
    pub fn range_name(&self, range: &TraceRange) -> &str {
        self.string(range.name)
    }

    /// The chain of range indices from the outermost to `range` itself.
    pub fn range_path(&self, range: u32) -> Vec<u32> {
        let mut path = vec![range];
        let mut at = range;
        // A parent always comes before its child, so the walk ends; the bound guards a
        // file edited into a loop.
        while let Some(parent) = self.ranges.get(at as usize).and_then(|r| r.parent) {
            if parent >= at || path.len() > self.ranges.len() {
                break;
            }
            path.push(parent);
            at = parent;
        }
        path.reverse();
        path
    }
}
