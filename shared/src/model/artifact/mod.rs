//! The artifact: the one JSON document that `capture` writes and the viewer reads.
//!
//! Every type of the public format lives in this module, so the format has one definition.
//! Field names carry their units (`_bytes`, `_ms`, `_gbyte_per_s`, ...). Any field that an
//! imported export cannot fill is an `Option` or an empty list, and every consumer must
//! handle its absence. A change to these types bumps [`SCHEMA_VERSION`], regenerates
//! `schema/artifact.schema.json` and adds a line to `CHANGELOG.md`.

mod columns;
mod json;
mod metrics_map;
mod values;

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::ser::SerializeStruct;
use serde::{Deserialize, Serialize, Serializer};

pub use self::columns::{MetricColumns, MetricKey};
pub use self::metrics_map::{varying_columns, ArraySource, CheckedRows, Metrics, RowBuilder};
use self::metrics_map::{with_array_source, ConstantsSer, ValuesSer, ValuesWire};
pub use self::values::Bases;
use crate::error::ArtifactError;
use crate::model::range::OutOfRange;
use crate::model::work_kind::Work;
use crate::text::names::shorten_kernel_name;

/// The 1-based line of the top-level `"schema"` field in `text` (the first such key).
fn schema_line(text: &str) -> usize {
    let Some(at) = text.find("\"schema\"") else {
        return 1;
    };
    1 + text
        .get(..at)
        .map_or(0, |before| before.matches('\n').count())
}

/// Version of the artifact format written by this build. Readers refuse newer versions
/// and read every older one.
///
/// 1: metrics of a launch as an object `name: {unit, value}`.
/// 2: metric names and units once per counter set (`metric_columns`), each launch's
///    `metrics` an array of values in that order.
/// 3: measured tensor-core ceilings (`ceilings.tensor_gflop_per_s`, `ceilings.tensor`); the
///    asked precision may name any kind of work (`tensor_bf16`, ...), not only `fp16`,
///    `fp32` and `fp64`. Added while schema 3 was unreleased, both optional and written only
///    when known: `provenance.distributed` (the rank of a job's process) and
///    `device.pci_bus_id`; and, where launches of a counter set share their columns, the
///    values the same in all of them written once (`constant_values`), each launch's
///    `metrics` listing only the `varying_columns`.
/// 4: rule results read from `.ncu-rep` reports too, each with its `title` and the
///    `focus_metrics` it cites (both optional; a details export has neither); a report's
///    rule messages are stored as plain text, its links written as the details page writes
///    them.
///    Also sampled profiles, all three optional and written only for one: `sampled` (launches
///    measured of all, groups, the timing pass's launches), each kernel's `sampled`
///    (measured of its launches) and a copied launch's `sampled_from` (the ID of the
///    measured launch whose counters it carries, scaled by time).
pub const SCHEMA_VERSION: u32 = 4;

/// One capture, import or merge: device, ceilings and per-kernel measurements.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Artifact {
    /// Format version; see [`SCHEMA_VERSION`].
    pub schema: u32,
    /// Where the numbers came from.
    #[serde(default)]
    pub provenance: Provenance,
    /// The GPU the kernels ran on, when known.
    #[serde(default)]
    pub device: Option<DeviceInfo>,
    /// Ceilings measured on the device by `capture run` (absent for imports).
    #[serde(default)]
    pub ceilings: Option<MeasuredCeilings>,
    /// Kernels in launch order (suite order for `capture run`).
    pub kernels: Vec<KernelRecord>,
    /// Things a reader of this artifact should know: skipped rows, failed checks, missing
    /// counters.
    #[serde(default)]
    pub warnings: Vec<String>,
    /// Present when the counters were measured on some launches only (`capture profile`
    /// without `--all-launches`): how many, of how many (see [`crate::analysis::sampling`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<Sampled>,
}

/// What a sampled profile measured: counters of `measured` launches of `launches`, the
/// others copied from a measured launch of their group and scaled by time.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Sampled {
    /// Launches whose counters were measured.
    pub measured: u64,
    /// Launches in the artifact (every launch of the timing pass that has counters).
    pub launches: u64,
    /// Groups of alike launches the plan made.
    pub groups: u64,
    /// Launches the timing pass saw.
    pub timing_launches: u64,
}

/// One kernel's share of a sampled profile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SampledCount {
    /// Its launches whose counters were measured.
    pub measured: u64,
    /// All its launches.
    pub launches: u64,
}

/// How an artifact came to be.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Origin {
    /// `capture run`: the kernel suite, timed and (usually) profiled.
    Run,
    /// `capture merge`: a timings artifact joined with ncu exports.
    Merge,
    /// `capture import`: ncu exports of any application, no timings.
    Import,
    /// `capture profile`: the user's program run under ncu by capture.
    Profile,
}

/// Cache state of an ncu collection.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CacheControl {
    /// `--cache-control all`: caches flushed before every replay pass.
    Cold,
    /// `--cache-control none --replay-mode application`: caches as the previous launch left
    /// them.
    Warm,
}

/// Provenance: tool versions, host, and the exact profiler command lines.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Provenance {
    /// How the artifact was made.
    #[serde(default)]
    pub origin: Option<Origin>,
    /// Name of the writing tool (`capture`).
    #[serde(default)]
    pub tool: String,
    /// Version of the writing tool.
    #[serde(default)]
    pub tool_version: String,
    /// Creation time, RFC 3339 in UTC.
    #[serde(default)]
    pub created_utc: Option<String>,
    /// Host name of the GPU machine (or of the ncu export).
    #[serde(default)]
    pub host: Option<String>,
    /// NVIDIA driver version.
    #[serde(default)]
    pub driver_version: Option<String>,
    /// CUDA driver API version, as `major.minor`.
    #[serde(default)]
    pub cuda_version: Option<String>,
    /// NVRTC version used to compile the suite, as `major.minor`.
    #[serde(default)]
    pub nvrtc_version: Option<String>,
    /// Nsight Compute version (`ncu --version`).
    #[serde(default)]
    pub ncu_version: Option<String>,
    /// The exact ncu command lines that produced the counters.
    #[serde(default)]
    pub ncu_commands: Vec<String>,
    /// ncu `--clock-control` used for the counters (`none` or `base`), when known.
    #[serde(default)]
    pub clock_control: Option<String>,
    /// The command line of the writing tool.
    #[serde(default)]
    pub command_line: Option<String>,
    /// Files this artifact was built from (exports, timings), by name.
    #[serde(default)]
    pub inputs: Vec<String>,
    /// The process's place in a job of several processes (a rank under `torchrun`, `srun`
    /// or `mpirun`), read from the launcher's environment variables; absent for a process
    /// started on its own, and in artifacts written before it existed (schema 3 added it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub distributed: Option<Distributed>,
}

/// Which launcher started a process of a job, told by the environment variables it sets.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Launcher {
    /// `torchrun` (and the launchers that follow PyTorch's convention): `RANK`,
    /// `LOCAL_RANK`, `WORLD_SIZE`, `LOCAL_WORLD_SIZE`, `TORCHELASTIC_RUN_ID`.
    Torchrun,
    /// Open MPI's `mpirun`: `OMPI_COMM_WORLD_RANK`, `OMPI_COMM_WORLD_LOCAL_RANK`,
    /// `OMPI_COMM_WORLD_SIZE`, `OMPI_COMM_WORLD_LOCAL_SIZE`.
    OpenMpi,
    /// Slurm's `srun`: `SLURM_PROCID`, `SLURM_LOCALID`, `SLURM_STEP_NUM_TASKS` (else
    /// `SLURM_NTASKS`), `SLURM_JOB_ID` and `SLURM_STEP_ID`.
    Slurm,
}

impl Launcher {
    /// For people: `torchrun`, `Open MPI (mpirun)`, `Slurm (srun)`.
    pub fn label(self) -> &'static str {
        match self {
            Launcher::Torchrun => "torchrun",
            Launcher::OpenMpi => "Open MPI (mpirun)",
            Launcher::Slurm => "Slurm (srun)",
        }
    }
}

/// One process's place in a job of several (its rank), as its launcher announced it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Distributed {
    /// Which launcher's variables these came from.
    pub launcher: Launcher,
    /// The variable the rank was read from (`RANK`, `SLURM_PROCID`, ...).
    pub rank_variable: String,
    /// Global rank, 0-based.
    pub rank: u32,
    /// Rank within this host, 0-based, when the launcher gives it.
    #[serde(default)]
    pub local_rank: Option<u32>,
    /// Number of processes in the job, when the launcher gives it.
    #[serde(default)]
    pub world_size: Option<u32>,
    /// Number of processes on this host, when the launcher gives it.
    #[serde(default)]
    pub local_world_size: Option<u32>,
    /// The job's identity, the same for every rank of one job, when the launcher gives one
    /// (`TORCHELASTIC_RUN_ID`; `SLURM_JOB_ID.SLURM_STEP_ID`).
    #[serde(default)]
    pub job_id: Option<String>,
}

/// Compute capability, `major.minor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ComputeCapability {
    /// Major version (9 for Hopper).
    pub major: u32,
    /// Minor version.
    pub minor: u32,
}

impl std::fmt::Display for ComputeCapability {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// Device attributes and the theoretical peaks worked from them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeviceInfo {
    /// CUDA device ordinal.
    #[serde(default)]
    pub index: Option<u32>,
    /// Marketing name (`NVIDIA H200`).
    pub name: String,
    /// Compute capability.
    #[serde(default)]
    pub compute_capability: Option<ComputeCapability>,
    /// Number of streaming multiprocessors.
    #[serde(default)]
    pub sm_count: Option<u32>,
    /// SM clock attribute, kHz (the boost clock the vendor quotes).
    #[serde(default)]
    pub sm_clock_khz: Option<u64>,
    /// Memory clock attribute, kHz.
    #[serde(default)]
    pub mem_clock_khz: Option<u64>,
    /// Global memory bus width, bits.
    #[serde(default)]
    pub bus_width_bits: Option<u32>,
    /// L2 cache size, bytes.
    #[serde(default)]
    pub l2_bytes: Option<u64>,
    /// Total device memory, bytes.
    #[serde(default)]
    pub total_mem_bytes: Option<u64>,
    /// PCI address (`0000:1b:00.0`, domain:bus:device.function), which names the physical
    /// GPU whatever `CUDA_VISIBLE_DEVICES` does to the ordinal; absent for imports and in
    /// artifacts written before it existed (schema 3 added it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pci_bus_id: Option<String>,
    /// Peaks worked from the attributes above.
    pub peaks: TheoreticalPeaks,
}

/// Theoretical peaks from device attributes (SPEC section 3). `None` where an input is
/// unknown, never a guess.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TheoreticalPeaks {
    /// FP32 lanes per SM for this compute capability.
    #[serde(default)]
    pub fp32_lanes_per_sm: Option<u32>,
    /// 2 x SMs x lanes x SM clock, GFLOP/s.
    #[serde(default)]
    pub fp32_gflop_per_s: Option<f64>,
    /// 2 x memory clock x bus width / 8, GB/s (10^9 bytes per second).
    #[serde(default)]
    pub dram_gbyte_per_s: Option<f64>,
    /// FP32 peak over DRAM bandwidth, FLOP per byte.
    #[serde(default)]
    pub ridge_flop_per_byte: Option<f64>,
}

/// Ceilings measured on the device by `capture run`, all event-timed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MeasuredCeilings {
    /// Vectorized copy kernel, bytes read plus written per second, GB/s.
    #[serde(default)]
    pub copy_gbyte_per_s: Option<f64>,
    /// Read-only streaming kernel, GB/s.
    #[serde(default)]
    pub read_gbyte_per_s: Option<f64>,
    /// Driver device-to-device memcpy of the same size, read plus write, GB/s.
    #[serde(default)]
    pub memcpy_gbyte_per_s: Option<f64>,
    /// Copy of an L2-resident buffer, read plus write, GB/s (the L2 roof).
    #[serde(default)]
    pub l2_copy_gbyte_per_s: Option<f64>,
    /// FP32 FMA kernel, GFLOP/s.
    #[serde(default)]
    pub fma_gflop_per_s: Option<f64>,
    /// SM clock the GPU actually held, measured by a cycle-counter spin timed with events,
    /// MHz.
    #[serde(default)]
    pub held_sm_clock_mhz: Option<f64>,
    /// Measured FMA ceiling over measured copy ceiling, FLOP per byte.
    #[serde(default)]
    pub ridge_flop_per_byte: Option<f64>,
    /// The individual measurements behind the figures above.
    #[serde(default)]
    pub measurements: Vec<CeilingMeasurement>,
    /// Tensor-core ceilings that passed their check, by kind of work (`tensor_bf16`, ...):
    /// GFLOP/s, GOP/s for integer kinds. Each is the event median of a large GEMM (see
    /// `tensor`). Absent before schema 3.
    #[serde(default)]
    pub tensor_gflop_per_s: BTreeMap<Work, f64>,
    /// Every tensor-core ceiling `capture run` tried, measured or not, with its GEMM, check
    /// and timings, or the reason it was not measured. Absent before schema 3.
    #[serde(default)]
    pub tensor: Vec<TensorCeiling>,
}

/// One tensor-core ceiling: a GEMM of one kind of work timed with CUDA events beside the
/// theoretical dense peak of that kind, or why it was not measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct TensorCeiling {
    /// The kind of work (`tensor_bf16`, `tensor_fp8`, ...).
    pub work: Work,
    /// How it was measured, in one line (library and version, layout, types, algorithm).
    #[serde(default)]
    pub means: String,
    /// Rows of the GEMM's output D (and of A).
    pub m: u64,
    /// Columns of D (and of B).
    pub n: u64,
    /// The reduction dimension.
    pub k: u64,
    /// Work per GEMM, 2 x M x N x K: FLOPs, or integer OPs for integer kinds.
    pub ops: f64,
    /// Bytes of A, B and D per GEMM (each read or written once).
    pub bytes: f64,
    /// Measured rate: `ops` over the event median, GFLOP/s (GOP/s for integer kinds);
    /// absent when not measured.
    #[serde(default)]
    pub measured_gflop_per_s: Option<f64>,
    /// The theoretical dense peak of this kind on this device (`shared::analysis::work::device_peak`),
    /// GFLOP/s (GOP/s); absent where the peak table has no figure.
    #[serde(default)]
    pub theoretical_gflop_per_s: Option<f64>,
    /// Event timings of the timed GEMMs.
    #[serde(default)]
    pub timing: Option<Timing>,
    /// CPU reference check on sampled elements of D (and every element written), and the
    /// rate at most the theoretical peak. A ceiling whose check failed is not in
    /// `tensor_gflop_per_s`.
    #[serde(default)]
    pub check: Option<Check>,
    /// Why the kind was not measured (library missing, no such tensor cores on this
    /// device, no algorithm), when it was not.
    #[serde(default)]
    pub not_measured: Option<String>,
}

/// One ceiling measurement: what was moved or computed, and how long it took.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct CeilingMeasurement {
    /// Which ceiling (`copy`, `read`, `memcpy`, `l2_copy`, `fma`, `clock`).
    pub name: String,
    /// Bytes moved per launch (read plus written).
    pub bytes: f64,
    /// FLOPs per launch.
    pub flops: f64,
    /// Event timings of the launches.
    pub timing: Timing,
}

/// Launch configuration of a kernel.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct LaunchShape {
    /// Grid dimensions, blocks.
    pub grid: [u32; 3],
    /// Block dimensions, threads.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, bytes.
    #[serde(default)]
    pub shared_mem_bytes: u32,
}

/// Work the kernel asks of global memory and the FPUs, counted by hand from its source, for
/// one launch.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct AskedWork {
    /// Compulsory global-memory bytes (read plus written), per launch.
    pub bytes: f64,
    /// Floating-point operations (an FMA counts two; an MMA's multiply-add two), per launch;
    /// integer OPs for integer kinds.
    pub flops: f64,
    /// The kind of work those FLOPs are (`fp32`, `tensor_bf16`, ...). Schemas 1 and 2 knew
    /// only `fp16`, `fp32` and `fp64`, which keep their keys.
    pub precision: Precision,
    /// How the counts were worked out, in one line (`3 x n x 4 bytes`).
    #[serde(default)]
    pub formula: String,
}

/// The kind of work of a hand count: a unit and a type, any [`Work`] kind (`Precision::Fp32`
/// is CUDA-core FP32, `Precision::TensorBf16` BF16 on tensor cores). One definition of the
/// kinds, so the asked work, the counted work and the ceilings name them alike.
pub type Precision = Work;

/// Event timings of repeated launches, after warm-ups.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Timing {
    /// Untimed warm-up launches before the samples.
    pub warmups: u32,
    /// Fastest sample, ms.
    pub min_ms: f64,
    /// Median sample, ms.
    pub median_ms: f64,
    /// Slowest sample, ms.
    pub max_ms: f64,
    /// Every sample in launch order, ms.
    pub samples_ms: Vec<f64>,
}

/// Result of comparing a kernel's output with a CPU reference.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Check {
    /// Whether the output matched. A failed kernel gets no roofline point.
    pub passed: bool,
    /// What was compared and what was found, in one line.
    pub detail: String,
    /// Largest absolute difference from the reference, when numeric.
    #[serde(default)]
    pub max_abs_error: Option<f64>,
}

/// One kernel: what it asks for, how long it took, whether it was right, what the counters
/// saw.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KernelRecord {
    /// Display name (`vector add, stride 32`), or the function name for imports.
    pub name: String,
    /// The CUDA function name as ncu reports it (`Kernel Name`), used to join counters.
    pub function: String,
    /// Source file under `kernels/`, for suite kernels.
    #[serde(default)]
    pub source_file: Option<String>,
    /// Launch configuration used by both the timed and the profiled path.
    #[serde(default)]
    pub launch: Option<LaunchShape>,
    /// Hand-counted bytes and FLOPs of one launch.
    #[serde(default)]
    pub asked: Option<AskedWork>,
    /// Event timings (absent for imports).
    #[serde(default)]
    pub timing: Option<Timing>,
    /// CPU reference check (absent for imports).
    #[serde(default)]
    pub check: Option<Check>,
    /// Counters with caches flushed (the default ncu collection).
    #[serde(default)]
    pub cold: Option<CounterSet>,
    /// Counters with warm caches, when captured.
    #[serde(default)]
    pub warm: Option<CounterSet>,
    /// In a sampled profile, how many of its launches were measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<SampledCount>,
}

impl KernelRecord {
    /// A record of a kernel with nothing measured yet.
    pub fn new(name: impl Into<String>, function: impl Into<String>) -> Self {
        KernelRecord {
            name: name.into(),
            function: function.into(),
            source_file: None,
            launch: None,
            asked: None,
            timing: None,
            check: None,
            cold: None,
            warm: None,
            sampled: None,
        }
    }
}

impl CounterSet {
    /// Launches collected under an unknown cache state.
    pub fn of(launches: Vec<LaunchCounters>) -> Self {
        CounterSet {
            cache_control: None,
            launches,
        }
    }
}

/// The ncu launches of one kernel under one cache state.
///
/// In JSON the raw-page metric names and units are listed once, in `metric_columns`, and
/// each launch's `metrics` is an array of values in that order; a launch with other columns
/// (joined from another export) lists its own (see [`CounterSetJson`]). Where two or more
/// launches share the columns and some values are the same in all of them, those are
/// written once, in `constant_values`, and each of those launches lists only the
/// `varying_columns`.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "CounterSetJson")]
pub struct CounterSet {
    /// Cache control of the collection, when known.
    pub cache_control: Option<CacheControl>,
    /// Every profiled launch of the kernel, in launch order.
    pub launches: Vec<LaunchCounters>,
}

/// The JSON form of a [`CounterSet`]: columns once, values per launch.
#[derive(Deserialize, JsonSchema)]
pub struct CounterSetJson {
    /// Cache control of the collection, when known.
    #[serde(default)]
    pub cache_control: Option<CacheControl>,
    /// Names and units of the raw-page metrics, in the order of every launch's `metrics`.
    #[serde(default)]
    pub metric_columns: Vec<MetricKey>,
    /// Indices (ascending) into `metric_columns` of the metrics whose values differ between
    /// the launches that share these columns: each such launch's `metrics` lists only these,
    /// in this order. Absent: every launch lists every column (schema 2 and earlier, a set
    /// of one launch, or no value the same in all).
    #[serde(default)]
    pub varying_columns: Option<Vec<u32>>,
    /// With `varying_columns`: the values of every other column, in column order, the same
    /// in every launch that shares the columns.
    #[serde(default)]
    pub constant_values: Option<ValuesWire>,
    /// Every profiled launch of the kernel, in launch order.
    pub launches: Vec<LaunchJson>,
}

/// The JSON form of a [`LaunchCounters`].
#[derive(Deserialize, JsonSchema)]
pub struct LaunchJson {
    /// Identity, launch shape, details-page rows and rules.
    #[serde(flatten)]
    pub launch: LaunchCounters,
    /// This launch's own metric names and units, when they differ from the counter set's
    /// `metric_columns` (launches joined from exports with other columns).
    #[serde(default)]
    pub metric_columns: Option<Vec<MetricKey>>,
    /// Raw-page metric values, in the order of the launch's `metric_columns` if it has
    /// them, else the counter set's: all of its columns, or only its `varying_columns`
    /// where the set has them.
    #[serde(default)]
    pub metrics: ValuesWire,
}

impl TryFrom<CounterSetJson> for CounterSet {
    type Error = String;

    fn try_from(json: CounterSetJson) -> Result<Self, String> {
        // Schema 2 shares one column list, which a launch may override with its own;
        // schema-1 launches bring their own. A launch whose columns equal the previous
        // launch's shares them. Schema 3 may write the shared columns' common values once.
        let shared = MetricColumns::new(json.metric_columns);
        let constants = match (json.varying_columns, json.constant_values) {
            (Some(varying), Some(values)) => {
                let ascending = varying.windows(2).all(|w| w[0] < w[1]);
                if !ascending || varying.last().is_some_and(|&v| v as usize >= shared.len()) {
                    return Err(
                        "varying_columns must be ascending indices into metric_columns".into(),
                    );
                }
                let row = values.into_constants(Arc::clone(&shared), &varying)?;
                Some((varying, row))
            }
            (None, None) => None,
            _ => return Err("varying_columns and constant_values go together".into()),
        };
        let mut last = Arc::clone(&shared);
        let launches = json
            .launches
            .into_iter()
            .map(|l| {
                let mut launch = l.launch;
                let metrics = match (l.metric_columns, &constants) {
                    (Some(keys), _) if keys.as_slice() == last.keys() => {
                        l.metrics.into_metrics(Arc::clone(&last))
                    }
                    (Some(keys), _) => l.metrics.into_metrics(MetricColumns::new(keys)),
                    (None, Some((varying, row))) => {
                        l.metrics
                            .into_metrics_with(Arc::clone(&shared), varying, row)
                    }
                    (None, None) => l.metrics.into_metrics(Arc::clone(&shared)),
                };
                launch.metrics = metrics.map_err(|e| format!("launch {}: {e}", launch.id))?;
                last = Arc::clone(launch.metrics.columns());
                Ok(launch)
            })
            .collect::<Result<Vec<_>, String>>()?;
        Ok(CounterSet {
            cache_control: json.cache_control,
            launches,
        })
    }
}

impl CounterSet {
    /// The columns in `metric_columns`: the first launch's.
    fn columns(&self) -> Option<&MetricColumns> {
        self.launches.first().map(|l| l.metrics.columns().as_ref())
    }

    /// Whether `launch` is written against the set's `metric_columns` (else it lists its
    /// own).
    fn shares_columns(launch: &LaunchCounters, columns: &MetricColumns) -> bool {
        let own = launch.metrics.columns();
        std::ptr::eq(Arc::as_ptr(own), columns) || own.keys() == columns.keys()
    }

    /// The columns whose values differ between the launches that share the set's columns,
    /// when the others are written once ([`varying_columns`]).
    pub fn varying_columns(&self) -> Option<Vec<u32>> {
        let columns = self.columns()?;
        let rows: Vec<&Metrics> = self
            .launches
            .iter()
            .filter(|l| Self::shares_columns(l, columns))
            .map(|l| &l.metrics)
            .collect();
        metrics_map::varying_columns(&rows)
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

impl Serialize for CounterSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct LaunchOut<'a> {
            #[serde(flatten)]
            launch: &'a LaunchCounters,
            #[serde(skip_serializing_if = "Option::is_none")]
            metric_columns: Option<&'a [MetricKey]>,
            metrics: ValuesSer<'a>,
        }
        struct LaunchesOut<'a>(&'a [LaunchCounters], &'a MetricColumns, Option<&'a [u32]>);
        impl Serialize for LaunchesOut<'_> {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_seq(self.0.iter().map(|launch| {
                    // Launches of one export share the set's columns; any other launch
                    // (joined from an export with other columns) lists its own.
                    let own = launch.metrics.columns();
                    let shared = CounterSet::shares_columns(launch, self.1);
                    LaunchOut {
                        launch,
                        metric_columns: (!shared).then(|| own.keys()),
                        metrics: ValuesSer {
                            metrics: &launch.metrics,
                            columns: if shared { self.1 } else { own },
                            only: self.2.filter(|_| shared),
                        },
                    }
                }))
            }
        }
        let empty = MetricColumns::default();
        let columns: &MetricColumns = self.columns().unwrap_or(&empty);
        // Worked out once per write: by the writer ahead ([`Artifact::write_json_with`]),
        // else here.
        let varying: Option<Arc<[u32]>> = match precomputed_varying(self) {
            Some(varying) => varying,
            None => self.varying_columns().map(Arc::from),
        };
        let first_shared = self
            .launches
            .iter()
            .find(|l| Self::shares_columns(l, columns));
        let mut st = s.serialize_struct("CounterSet", 5)?;
        st.serialize_field("cache_control", &self.cache_control)?;
        st.serialize_field("metric_columns", columns.keys())?;
        if let (Some(varying), Some(first)) = (&varying, first_shared) {
            st.serialize_field("varying_columns", &**varying)?;
            st.serialize_field(
                "constant_values",
                &ConstantsSer {
                    metrics: &first.metrics,
                    varying,
                },
            )?;
        }
        st.serialize_field(
            "launches",
            &LaunchesOut(&self.launches, columns, varying.as_deref()),
        )?;
        st.end()
    }
}

impl JsonSchema for CounterSet {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "CounterSet".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        CounterSetJson::json_schema(generator)
    }
}

/// Everything ncu reported about one kernel launch, in base units.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LaunchCounters {
    /// ncu's launch `ID` (unique per process).
    pub id: u64,
    /// Process ID.
    #[serde(default)]
    pub process_id: Option<u64>,
    /// Process name.
    #[serde(default)]
    pub process_name: Option<String>,
    /// Host name.
    #[serde(default)]
    pub host: Option<String>,
    /// Device ordinal.
    #[serde(default)]
    pub device: Option<u32>,
    /// Compute capability as ncu prints it (`9.0`).
    #[serde(default)]
    pub cc: Option<String>,
    /// CUDA context ID.
    #[serde(default)]
    pub context: Option<u64>,
    /// CUDA stream ID.
    #[serde(default)]
    pub stream: Option<u64>,
    /// Kernel name as ncu printed it (mangled or demangled, possibly very long).
    pub function: String,
    /// Demangled name, when the export has one besides `function`.
    #[serde(default)]
    pub demangled: Option<String>,
    /// Grid size, blocks.
    #[serde(default)]
    pub grid: Option<[u32; 3]>,
    /// Block size, threads.
    #[serde(default)]
    pub block: Option<[u32; 3]>,
    /// Raw-page metrics by full metric name, in base units (in JSON, an array of values
    /// in the order of the counter set's `metric_columns`).
    #[serde(skip)]
    #[schemars(skip)]
    pub metrics: Metrics,
    /// Details-page rows (section metrics), in export order, in base units.
    #[serde(default)]
    pub sections: Vec<SectionMetric>,
    /// Details-page rule results.
    #[serde(default)]
    pub rules: Vec<RuleResult>,
    /// In a sampled profile, the ID of the measured launch whose counters this launch
    /// carries, scaled by their times (absent: measured itself).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled_from: Option<u64>,
}

impl LaunchCounters {
    /// A launch of `function` carrying the numeric raw-page metrics `numbers` (name, value in
    /// base units), without units: what unit tests and synthetic examples need.
    pub fn from_numbers(function: &str, numbers: &[(&str, f64)]) -> Self {
        let mut l = LaunchCounters {
            function: function.to_string(),
            ..Default::default()
        };
        for (name, v) in numbers {
            l.metrics.insert(
                (*name).to_string(),
                Metric {
                    unit: String::new(),
                    value: MetricValue::Number(*v),
                },
            );
        }
        l
    }
}

/// A metric value with its unit. Numbers are normalized to base units on load (ns, byte,
/// hz, byte/s, %); the unit says which.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Metric {
    /// Unit after normalization (`byte`, `ns`, `hz`, `%`, `inst`, or empty).
    pub unit: String,
    /// The value.
    pub value: MetricValue,
}

/// A metric value: a number, a piece of text (`PolicySpread`, `(256, 1, 1)`) or nothing
/// (`n/a`, `no data`, an empty cell).
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[serde(untagged)]
pub enum MetricValue {
    /// A finite number in base units.
    Number(f64),
    /// Text that is not a number.
    Text(String),
    /// No value (`n/a`, `no data`, empty).
    Missing,
}

impl MetricValue {
    /// The number, if this value is one.
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            MetricValue::Number(v) => Some(*v),
            _ => None,
        }
    }
}

/// One row of the details page: a section's metric.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct SectionMetric {
    /// Section name (`GPU Speed Of Light Throughput`).
    pub section: String,
    /// Metric name (`DRAM Throughput`).
    pub name: String,
    /// Unit after normalization.
    pub unit: String,
    /// The value.
    pub value: MetricValue,
}

/// One message of ncu's rule engine (its guided analysis) about a launch: a row of the
/// details page, or a rule result of a report. A rule can give several (one per finding).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RuleResult {
    /// Section identifier the rule belongs to (`SpeedOfLight`; in a details export, the
    /// `Section Name` column of the rule's row).
    pub section: String,
    /// Rule identifier (`SOLBottleneck`).
    pub name: String,
    /// Rule type (`OPT`, `WRN`, `INF`).
    pub kind: String,
    /// The message's title (`Small Grid`), where ncu gives one (reports only; the details
    /// page has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The message as plain text: ncu's links (`@section:ID:Name@`, `@url:Name:URL@`) written
    /// as the details page writes them (`Name`, `Name (URL)`).
    pub description: String,
    /// Kind of estimated speedup (`local`, `global`), when given.
    #[serde(default)]
    pub speedup_type: Option<String>,
    /// Estimated speedup, percent, when given.
    #[serde(default)]
    pub speedup_pct: Option<f64>,
    /// The metrics the message cites, with their values as the rule read them (reports
    /// only).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub focus_metrics: Vec<FocusMetric>,
}

/// A metric a rule message cites (ncu's focus metric).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct FocusMetric {
    /// Full metric name (`launch__waves_per_multiprocessor`).
    pub name: String,
    /// Its value as the rule read it, in base units, when it has one.
    #[serde(default)]
    pub value: Option<f64>,
    /// What the rule advises about it (`Increase the grid size towards ...`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub advice: String,
}

impl Artifact {
    /// An empty artifact of the current schema with the given provenance.
    pub fn new(provenance: Provenance) -> Self {
        Artifact {
            schema: SCHEMA_VERSION,
            provenance,
            device: None,
            ceilings: None,
            kernels: Vec::new(),
            warnings: Vec::new(),
            sampled: None,
        }
    }

    /// Parses an artifact from JSON text, refusing future schema versions plainly. Values no
    /// measurement can have are dropped with warnings (see [`Artifact::from_json_checked`]).
    pub fn from_json(text: &str) -> Result<Self, ArtifactError> {
        Self::from_json_checked(text).map(|(a, _)| a)
    }

    /// Parses an artifact like [`Artifact::from_json`] and also returns the warnings of the
    /// load: numbers out of range (negative durations, sizes, rates or counts; magnitudes
    /// above [`crate::model::range::MAX_MAGNITUDE`]) are stored as missing, as the CSV reader does, and each
    /// becomes a warning (also added to `warnings`).
    ///
    /// A newer file is reported as such rather than as a confusing field error.
    pub fn from_json_checked(text: &str) -> Result<(Self, Vec<String>), ArtifactError> {
        let mut artifact = Self::parse(text)?;
        let dropped = artifact.drop_out_of_range();
        artifact.warnings.extend(dropped.iter().cloned());
        Ok((artifact, dropped))
    }

    fn parse(text: &str) -> Result<Self, ArtifactError> {
        // A byte-order mark before the JSON (editors on Windows write one) is no error.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let json_error = |e: serde_json::Error| ArtifactError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        let future = |found: u64| ArtifactError::FutureSchema {
            line: schema_line(text),
            found,
            supported: SCHEMA_VERSION,
        };
        // The whole document is read once when it loads (a large artifact takes seconds);
        // only a document that does not is read again for its version alone, so that a
        // newer file is reported as such rather than as a confusing field error.
        let error = match serde_json::from_str::<Artifact>(text) {
            Ok(artifact) if artifact.schema > SCHEMA_VERSION => {
                return Err(future(u64::from(artifact.schema)))
            }
            Ok(artifact) => return Ok(artifact),
            Err(e) => e,
        };
        // Read again as any JSON, to say in plain words what it is instead of naming a
        // type of this code.
        let doc: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        let found = match &doc {
            serde_json::Value::Object(_) => None,
            serde_json::Value::Null => Some("null"),
            serde_json::Value::Bool(_) => Some("a boolean"),
            serde_json::Value::Number(_) => Some("a number"),
            serde_json::Value::String(_) => Some("a string"),
            serde_json::Value::Array(_) => Some("a list"),
        };
        if let Some(found) = found {
            return Err(ArtifactError::NotAnObject { found });
        }
        let version = match doc.get("schema") {
            None => return Err(ArtifactError::NoSchema),
            Some(v) => v.as_u64().ok_or_else(|| ArtifactError::BadSchema {
                line: schema_line(text),
                found: v.to_string(),
            })?,
        };
        if version > u64::from(SCHEMA_VERSION) {
            return Err(future(version));
        }
        Err(json_error(error))
    }

    /// Stores as missing every number that no measurement can have; returns one warning per
    /// kernel and metric.
    fn drop_out_of_range(&mut self) -> Vec<String> {
        let bad = |unit: &str, v: f64| crate::model::range::check(unit, v).map(OutOfRange::reason);
        let mut warnings = Vec::new();
        // Base rows are shared by launches of a kernel, and by kernels of a run.
        let mut checked = CheckedRows::default();
        for kernel in &mut self.kernels {
            let name = shorten_kernel_name(&kernel.name, 80);
            let mut found: Vec<(String, &'static str)> = Vec::new();
            let mut note = |what: String, why: &'static str| {
                if !found.iter().any(|(w, _)| *w == what) {
                    found.push((what, why));
                }
            };
            for set in [&mut kernel.cold, &mut kernel.warm].into_iter().flatten() {
                for launch in &mut set.launches {
                    let at = launch
                        .metrics
                        .columns_where(&mut checked, |k, v| bad(&k.unit, v).is_some());
                    for &i in &at {
                        let key = launch.metrics.columns().keys().get(i);
                        let value = launch.metrics.number_at(i);
                        let why = key.zip(value).and_then(|(k, v)| bad(&k.unit, v));
                        if let (Some(key), Some(why)) = (key, why) {
                            note(key.name.clone(), why);
                        }
                    }
                    launch.metrics.drop_columns(&at);
                    for row in &mut launch.sections {
                        if let MetricValue::Number(v) = row.value {
                            if let Some(why) = bad(&row.unit, v) {
                                row.value = MetricValue::Missing;
                                note(format!("{} / {}", row.section, row.name), why);
                            }
                        }
                    }
                }
            }
            if let Some(t) = &kernel.timing {
                let times = [t.min_ms, t.median_ms, t.max_ms];
                if let Some(why) = times.iter().find_map(|&v| bad("ns", v)) {
                    kernel.timing = None;
                    note("event timing".into(), why);
                }
            }
            if let Some(a) = &kernel.asked {
                if let Some(why) = bad("byte", a.bytes).or_else(|| bad("inst", a.flops)) {
                    kernel.asked = None;
                    note("asked work".into(), why);
                }
            }
            warnings.extend(
                found
                    .into_iter()
                    .map(|(what, why)| format!("{name}: {what} is {why}; kept as missing")),
            );
        }
        // Peaks and ceilings: a rate, which no device has negative or beyond any counter
        // (a `theoretical -5 GB/s` would draw a roof under the floor).
        let mut rate = |what: &str, v: &mut Option<f64>| {
            if let Some(why) = v.and_then(|x| bad("byte/s", x)) {
                *v = None;
                warnings.push(format!("{what} is {why}; kept as missing"));
            }
        };
        if let Some(d) = &mut self.device {
            let p = &mut d.peaks;
            rate(
                "device: theoretical fp32_gflop_per_s",
                &mut p.fp32_gflop_per_s,
            );
            rate(
                "device: theoretical dram_gbyte_per_s",
                &mut p.dram_gbyte_per_s,
            );
            rate(
                "device: theoretical ridge_flop_per_byte",
                &mut p.ridge_flop_per_byte,
            );
        }
        if let Some(c) = &mut self.ceilings {
            rate("ceilings: copy_gbyte_per_s", &mut c.copy_gbyte_per_s);
            rate("ceilings: read_gbyte_per_s", &mut c.read_gbyte_per_s);
            rate("ceilings: memcpy_gbyte_per_s", &mut c.memcpy_gbyte_per_s);
            rate("ceilings: l2_copy_gbyte_per_s", &mut c.l2_copy_gbyte_per_s);
            rate("ceilings: fma_gflop_per_s", &mut c.fma_gflop_per_s);
            rate("ceilings: held_sm_clock_mhz", &mut c.held_sm_clock_mhz);
            rate("ceilings: ridge_flop_per_byte", &mut c.ridge_flop_per_byte);
            let bad_tensor: Vec<Work> = c
                .tensor_gflop_per_s
                .iter()
                .filter(|(_, &v)| bad("byte/s", v).is_some())
                .map(|(&w, _)| w)
                .collect();
            for w in bad_tensor {
                if let Some(v) = c.tensor_gflop_per_s.remove(&w) {
                    let why = bad("byte/s", v).unwrap_or("out of range");
                    warnings.push(format!(
                        "ceilings: tensor {} is {why}; kept as missing",
                        w.label()
                    ));
                }
            }
        }
        warnings
    }

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
        self.write_json_from(out, None)
    }

    /// [`Artifact::write_json`], with the launches' value arrays (the bulk of a large
    /// import) from `arrays`, which may have rendered them ahead on other threads with
    /// [`Metrics::json_array`]; the bytes must be that function's, and the file is then the
    /// same. `arrays` is called in the order of [`Artifact::value_arrays`]; `varying` is
    /// this artifact's [`Artifact::varying_columns`] (a list found for another set is not
    /// used), so that they are not worked out again.
    pub fn write_json_with<W: std::io::Write>(
        &self,
        out: W,
        arrays: ArraySource,
        varying: &VaryingColumns,
    ) -> Result<(), serde_json::Error> {
        self.write_json_from(out, Some((arrays, varying.clone())))
    }

    fn write_json_from<W: std::io::Write>(
        &self,
        out: W,
        arrays: Option<(ArraySource, VaryingColumns)>,
    ) -> Result<(), serde_json::Error> {
        use std::io::Write;
        let mut out = json::Buffered::new(out);
        let mut ser =
            serde_json::Serializer::with_formatter(&mut out, json::ObjectsIndented::new());
        let (arrays, varying) = arrays.unzip();
        with_varying(varying, || {
            with_array_source(arrays, || {
                json::with_raw_arrays(|| self.serialize(&mut ser))
            })
        })?;
        out.write_all(b"\n")
            .and_then(|()| out.flush())
            .map_err(serde_json::Error::io)
    }

    /// The launches' value arrays [`Artifact::write_json`] writes, in the order it writes
    /// them (each kernel's cold launches, then its warm ones): each launch's metrics and
    /// the columns its array lists (`None`: all; see [`CounterSet::varying_columns`]),
    /// from `varying`, this artifact's [`Artifact::varying_columns`].
    pub fn value_arrays(&self, varying: &VaryingColumns) -> Vec<(&Metrics, Option<Arc<[u32]>>)> {
        let mut out = Vec::new();
        for (i, set) in self.counter_sets().enumerate() {
            let varying = match varying.0.get(i) {
                Some((at, list)) if *at == set_address(set) => list.clone(),
                _ => set.varying_columns().map(Arc::from),
            };
            for (metrics, shares) in set.value_arrays() {
                out.push((metrics, varying.clone().filter(|_| shares)));
            }
        }
        out
    }

    /// Every counter set's [`CounterSet::varying_columns`], in the order
    /// [`Artifact::write_json`] writes the sets (a scan of every value of every launch:
    /// worked out once for [`Artifact::value_arrays`] and [`Artifact::write_json_with`]).
    pub fn varying_columns(&self) -> VaryingColumns {
        VaryingColumns(
            self.counter_sets()
                .map(|set| (set_address(set), set.varying_columns().map(Arc::from)))
                .collect(),
        )
    }

    /// The counter sets in the order they are written: each kernel's cold, then warm.
    fn counter_sets(&self) -> impl Iterator<Item = &CounterSet> + '_ {
        self.kernels
            .iter()
            .flat_map(|k| k.cold.iter().chain(k.warm.iter()))
    }

    /// The JSON Schema of the artifact format, as pretty JSON.
    pub fn json_schema() -> String {
        let schema = schemars::schema_for!(Artifact);
        let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// The varying columns of an artifact's counter sets, in the order they are written, each
/// with its set's address, so that a list is only ever used for the set it was found for
/// ([`Artifact::varying_columns`]).
#[derive(Clone, Debug, Default)]
pub struct VaryingColumns(Vec<(usize, Option<Arc<[u32]>>)>);

/// A counter set's address, to check that a list worked out ahead is its own.
fn set_address(set: &CounterSet) -> usize {
    set as *const CounterSet as usize
}

thread_local! {
    /// The varying columns of the artifact being written on this thread, and the index of
    /// the next set; none: each set works out its own.
    static VARYING: std::cell::RefCell<Option<(VaryingColumns, usize)>> =
        const { std::cell::RefCell::new(None) };
}

/// Runs `f` (writing an artifact) with `varying` giving the sets' varying columns,
/// restoring the previous ones afterwards, even if `f` panics.
fn with_varying<T>(varying: Option<VaryingColumns>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<(VaryingColumns, usize)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            VARYING.with(|v| *v.borrow_mut() = previous);
        }
    }
    let previous = VARYING.with(|v| v.replace(varying.map(|v| (v, 0))));
    let _restore = Restore(previous);
    f()
}

/// The varying columns worked out ahead for `set`, the next set written, if any: `None`
/// when there are none or they are another set's.
fn precomputed_varying(set: &CounterSet) -> Option<Option<Arc<[u32]>>> {
    VARYING.with(|v| {
        let mut v = v.borrow_mut();
        let (list, next) = v.as_mut()?;
        let (at, varying) = list.0.get(*next)?;
        *next += 1;
        (*at == set_address(set)).then(|| varying.clone())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_value_arrays_are_what_the_per_element_path_writes() {
        // Text, missing and every kind of number: a real full-set row, and the gemm rows.
        for csv in [
            include_str!("../../../../tests/fixtures/ncu-h200/probe_full_raw.csv"),
            include_str!("../../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv"),
        ] {
            let export = crate::read::ncu::read_export(csv.as_bytes()).expect("reads");
            let artifact = crate::analysis::merge::import_launches(
                export.launches,
                export.warnings,
                Provenance::default(),
            );
            let raw = artifact.to_json();
            let mut out = Vec::new();
            let mut ser =
                serde_json::Serializer::with_formatter(&mut out, json::ObjectsIndented::new());
            artifact.serialize(&mut ser).expect("serializes");
            out.push(b'\n');
            assert!(raw.as_bytes() == out.as_slice(), "the two paths differ");
            assert!(raw.contains("\"PolicySpread\"") && raw.contains("null"));
        }
    }

    #[test]
    fn varying_columns_worked_out_ahead_write_what_each_set_works_out() {
        use MetricValue::{Missing, Number as N, Text};
        let t = |s: &str| Text(s.into());
        let of = |cold: &[[MetricValue; 4]], warm: &[[MetricValue; 4]]| {
            let mut a = artifact_of(set_of(cold));
            a.kernels[0].warm = Some(set_of(warm));
            a
        };
        let artifact = of(
            &[
                [N(1.0), t("all"), N(5.0), Missing],
                [N(1.0), t("all"), N(6.0), N(2.0)],
            ],
            &[
                [N(1.0), t("x"), N(5.0), N(3.0)],
                [N(2.0), t("y"), N(5.0), N(3.0)],
            ],
        );
        let other = of(
            &[
                [N(1.0), N(2.0), N(3.0), N(4.0)],
                [N(1.0), N(2.0), N(3.0), N(5.0)],
            ],
            &[[N(1.0), N(2.0), N(3.0), N(4.0)]],
        );
        let own = artifact.varying_columns();
        let lists: Vec<Option<Vec<u32>>> = own
            .0
            .iter()
            .map(|(_, v)| v.as_deref().map(<[u32]>::to_vec))
            .collect();
        assert_eq!(lists, [Some(vec![2, 3]), Some(vec![0, 1])]);
        let plain = artifact.to_json();
        assert!(plain.contains("\"varying_columns\": [0,1]"), "{plain}");
        // Its own lists give the same bytes; lists of other sets (another artifact's, its
        // own in the wrong order, none) are not used, so they do too.
        let swapped = VaryingColumns(own.0.iter().rev().cloned().collect());
        for varying in [
            own,
            other.varying_columns(),
            swapped,
            VaryingColumns::default(),
        ] {
            let arrays: Vec<Option<Vec<u32>>> = artifact
                .value_arrays(&varying)
                .iter()
                .map(|(_, only)| only.as_deref().map(<[u32]>::to_vec))
                .collect();
            let want = [vec![2, 3], vec![2, 3], vec![0, 1], vec![0, 1]];
            assert_eq!(arrays, want.map(Some), "{varying:?}");
            let mut out = Vec::new();
            let source: ArraySource = Box::new(|_, m, only, buf| *buf = m.json_array(only));
            artifact
                .write_json_with(&mut out, source, &varying)
                .expect("writes");
            assert!(out == plain.as_bytes(), "{varying:?}");
        }
    }

    /// A counter set of `values.len()` launches of one export: columns `a` to `d`.
    fn set_of(values: &[[MetricValue; 4]]) -> CounterSet {
        let columns = MetricColumns::new(
            ["a", "b", "c", "d"]
                .iter()
                .map(|n| MetricKey {
                    name: (*n).into(),
                    unit: "byte".into(),
                })
                .collect(),
        );
        let launches = values
            .iter()
            .enumerate()
            .map(|(id, row)| {
                let mut metrics = Metrics::with_columns(Arc::clone(&columns));
                for (i, v) in row.iter().enumerate() {
                    metrics.set(i, v.clone());
                }
                LaunchCounters {
                    id: id as u64,
                    function: "k".into(),
                    metrics,
                    ..Default::default()
                }
            })
            .collect();
        CounterSet::of(launches)
    }

    fn artifact_of(set: CounterSet) -> Artifact {
        let mut a = Artifact::new(Provenance::default());
        a.kernels.push(KernelRecord {
            cold: Some(set),
            ..KernelRecord::new("k", "k")
        });
        a
    }

    #[test]
    fn values_the_same_in_every_launch_are_written_once() {
        use MetricValue::{Missing, Number as N, Text};
        let t = |s: &str| Text(s.into());
        let set = set_of(&[
            [N(1.0), t("all"), N(5.0), Missing],
            [N(1.0), t("all"), N(6.0), N(2.0)],
            [N(1.0), t("all"), N(7.0), Missing],
        ]);
        assert_eq!(set.varying_columns(), Some(vec![2, 3]));
        let a = artifact_of(set);
        let text = a.to_json();
        assert!(text.contains("\"varying_columns\": [2,3]"), "{text}");
        assert!(
            text.contains("\"constant_values\": [1.0,\"all\"]"),
            "{text}"
        );
        assert!(text.contains("\"metrics\": [6.0,2.0]"), "{text}");
        let back = Artifact::from_json(&text).expect("loads");
        assert_eq!(back, a);
        assert_eq!(
            back.kernels[0]
                .cold
                .as_ref()
                .map(|s| s.launches[1].metrics.get("b")),
            Some(Some(Metric {
                unit: "byte".into(),
                value: t("all")
            }))
        );
        assert_eq!(back.to_json(), text, "writes again the same");
        // One launch, or nothing the same in all: every launch lists every column.
        for values in [
            vec![[N(1.0), N(2.0), N(3.0), N(4.0)]],
            vec![
                [N(1.0), N(2.0), N(3.0), N(4.0)],
                [N(2.0), N(3.0), N(4.0), N(5.0)],
            ],
        ] {
            let set = set_of(&values);
            assert_eq!(set.varying_columns(), None);
            let text = artifact_of(set).to_json();
            assert!(!text.contains("varying_columns"), "{text}");
        }
        // Identical launches: nothing varies, each lists nothing.
        let row = [N(1.0), N(2.0), Missing, t("x")];
        let same = artifact_of(set_of(&[row.clone(), row.clone(), row]));
        let text = same.to_json();
        assert!(text.contains("\"varying_columns\": []"), "{text}");
        assert_eq!(Artifact::from_json(&text).expect("loads"), same);
    }

    #[test]
    fn broken_constant_values_are_errors() {
        use MetricValue::Number as N;
        let text = artifact_of(set_of(&[
            [N(1.0), N(2.0), N(5.0), N(0.0)],
            [N(1.0), N(2.0), N(6.0), N(0.0)],
        ]))
        .to_json();
        assert!(text.contains("\"varying_columns\": [2]"), "{text}");
        for (from, to) in [
            ("\"varying_columns\": [2]", "\"varying_columns\": [2,1]"),
            ("\"varying_columns\": [2]", "\"varying_columns\": [9]"),
            ("\"varying_columns\": [2]", "\"varying_columns\": [2,2]"),
            (
                "\"constant_values\": [1.0,2.0,0.0]",
                "\"constant_values\": [1,2,3,4]",
            ),
            ("\"metrics\": [6.0]", "\"metrics\": [6.0,7.0]"),
            ("\"constant_values\": [1.0,2.0,0.0],", ""),
        ] {
            assert!(text.contains(from), "{from}");
            let broken = text.replace(from, to);
            assert!(Artifact::from_json(&broken).is_err(), "{to}");
        }
        // Fewer values than columns: the rest are missing, as in schema 2.
        let short = text.replace(
            "\"constant_values\": [1.0,2.0,0.0]",
            "\"constant_values\": [1.0]",
        );
        let a = Artifact::from_json(&short).expect("loads");
        let m = &a.kernels[0]
            .cold
            .as_ref()
            .map(|s| s.launches[0].metrics.clone());
        assert_eq!(m.as_ref().and_then(|m| m.number("b")), None);
        assert_eq!(m.as_ref().and_then(|m| m.number("c")), Some(5.0));
    }

    #[test]
    fn value_arrays_come_in_the_order_they_are_written() {
        let csv = include_str!("../../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
        let export = crate::read::ncu::read_export(csv.as_bytes()).expect("reads");
        let artifact = crate::analysis::merge::import_launches(
            export.launches,
            export.warnings,
            Provenance::default(),
        );
        let varying = artifact.varying_columns();
        let order: Vec<usize> = artifact
            .value_arrays(&varying)
            .iter()
            .map(|(m, _)| *m as *const Metrics as usize)
            .collect();
        assert_eq!(order.len(), 6);
        let seen = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let log = std::rc::Rc::clone(&seen);
        let mut out = Vec::new();
        artifact
            .write_json_with(
                &mut out,
                Box::new(move |i, m, only, buf| {
                    log.borrow_mut().push((i, m as *const Metrics as usize));
                    *buf = m.json_array(only);
                }),
                &varying,
            )
            .expect("writes");
        let expected: Vec<(usize, usize)> = order.into_iter().enumerate().collect();
        assert_eq!(*seen.borrow(), expected);
        assert!(out == artifact.to_json().into_bytes());
    }

    #[test]
    fn committed_schema_is_current() {
        let committed = include_str!("../../../schema/artifact.schema.json");
        assert!(
            committed == Artifact::json_schema(),
            "shared/schema/artifact.schema.json is stale: regenerate it with \
             `cargo run -p capture -- schema > shared/schema/artifact.schema.json`, bump \
             SCHEMA_VERSION if the format changed, and add a CHANGELOG line"
        );
    }

    #[test]
    fn future_schema_is_refused_plainly() {
        let err =
            Artifact::from_json("{\n  \"kernels\": [],\n  \"schema\": 99}").expect_err("future");
        assert_eq!(
            err,
            ArtifactError::FutureSchema {
                line: 3,
                found: 99,
                supported: SCHEMA_VERSION
            }
        );
        assert!(err.to_string().contains("newer"));
    }

    #[test]
    fn launches_with_other_columns_round_trip_exactly() {
        let key = |name: &str, unit: &str| MetricKey {
            name: name.into(),
            unit: unit.into(),
        };
        let launch = |keys: Vec<MetricKey>, v: f64| {
            let mut metrics = Metrics::with_columns(MetricColumns::new(keys));
            metrics.set(0, MetricValue::Number(v));
            LaunchCounters {
                function: "k".into(),
                metrics,
                ..Default::default()
            }
        };
        let mut a = Artifact::new(Provenance::default());
        a.kernels.push(KernelRecord {
            cold: Some(CounterSet::of(vec![
                launch(vec![key("t", "ns")], 1.0),
                launch(vec![key("t", "sector/ms")], 2.0),
                launch(vec![key("t", "ns"), key("u", "")], 3.0),
            ])),
            ..KernelRecord::new("k", "k")
        });
        let text = a.to_json();
        let back = Artifact::from_json(&text).expect("loads");
        assert_eq!(back, a);
        let launches = &back.kernels[0].cold.as_ref().expect("cold").launches;
        assert_eq!(
            launches[1].metrics.get("t").map(|m| m.unit),
            Some("sector/ms".into())
        );
        assert!(Arc::ptr_eq(
            launches[0].metrics.columns(),
            launches[0].metrics.columns()
        ));
    }

    #[test]
    fn out_of_range_values_are_dropped_with_warnings() {
        let mut a = Artifact::new(Provenance::default());
        let columns = MetricColumns::new(vec![
            MetricKey {
                name: "gpu__time_duration.sum".into(),
                unit: "ns".into(),
            },
            MetricKey {
                name: "dram__bytes_read.sum".into(),
                unit: "byte".into(),
            },
            MetricKey {
                name: "sm__throughput.avg.pct_of_peak_sustained_elapsed".into(),
                unit: "%".into(),
            },
        ]);
        // Three launches: the duration the same in each (written once, and loaded as the
        // row the launches share), the bytes each their own.
        let launches = [1e308, 5.0, 7.0].map(|bytes| {
            let mut metrics = Metrics::with_columns(Arc::clone(&columns));
            metrics.set(0, MetricValue::Number(-2_854_816.0));
            metrics.set(1, MetricValue::Number(bytes));
            metrics.set(2, MetricValue::Number(-0.01));
            LaunchCounters {
                function: "copy".into(),
                metrics,
                ..Default::default()
            }
        });
        a.kernels.push(KernelRecord {
            cold: Some(CounterSet::of(launches.to_vec())),
            ..KernelRecord::new("copy", "copy")
        });
        let text = a.to_json();
        assert!(text.contains("\"varying_columns\": [1]"), "{text}");
        let (back, warnings) = Artifact::from_json_checked(&text).expect("loads");
        let loaded = &back.kernels[0].cold.as_ref().expect("cold").launches;
        for launch in loaded {
            assert_eq!(launch.metrics.number("gpu__time_duration.sum"), None);
        }
        let bytes: Vec<Option<f64>> = loaded
            .iter()
            .map(|l| l.metrics.number("dram__bytes_read.sum"))
            .collect();
        assert_eq!(bytes, [None, Some(5.0), Some(7.0)]);
        let launch = &loaded[0];
        assert_eq!(
            launch
                .metrics
                .number("sm__throughput.avg.pct_of_peak_sustained_elapsed"),
            Some(-0.01),
            "a slightly negative percentage is real"
        );
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("gpu__time_duration.sum") && warnings[0].contains("negative"));
        assert!(
            warnings[1].contains("dram__bytes_read.sum") && warnings[1].contains("larger"),
            "{warnings:?}"
        );
        assert!(back.warnings.contains(&warnings[1]));
    }

    #[test]
    fn non_artifacts_are_refused_with_a_position() {
        let cases = [
            ("", "line 1"),
            ("{\"kernels\": []}", "no numeric \"schema\""),
            ("[1, 2]", "not an artifact: the document is a list"),
            ("null", "not an artifact: the document is null"),
            ("{\"schema\": 3.0}", "its \"schema\" is 3.0"),
            ("\u{feff}{\"kernels\": []}", "no numeric \"schema\""),
            ("{\"schema\": 1,\n \"kernels\": 5}", "line 2"),
            ("\u{0}\u{1}binary", "not a valid artifact"),
        ];
        for (text, want) in cases {
            let err = Artifact::from_json(text).expect_err(text).to_string();
            assert!(err.contains(want), "{text:?}: {err}");
        }
    }

    #[test]
    fn minimal_artifact_with_absent_optional_fields_loads_and_round_trips() {
        let text = r#"{"schema": 1, "provenance": {"tool": "x", "tool_version": "0", "origin": null},
                       "kernels": [{"name": "k", "function": "k"}]}"#;
        let a = Artifact::from_json(text).expect("optional fields may be absent");
        assert_eq!(a.kernels.len(), 1);
        assert!(a.kernels[0].cold.is_none() && a.device.is_none());
        let again = Artifact::from_json(&a.to_json()).expect("round trip");
        assert_eq!(a, again);
    }

    #[test]
    fn schema_2_artifacts_load_and_tensor_ceilings_round_trip() {
        // A schema-2 run: FP32 ceilings only, asked precisions of the old three.
        let old = r#"{"schema": 2, "provenance": {"tool": "capture", "tool_version": "0.1.0"},
            "ceilings": {"copy_gbyte_per_s": 4272.0, "fma_gflop_per_s": 64000.0,
                         "measurements": []},
            "kernels": [{"name": "pair", "function": "horner64_f64",
                         "asked": {"bytes": 16.0, "flops": 128.0, "precision": "fp64"}}]}"#;
        let a = Artifact::from_json(old).expect("schema 2 loads");
        let c = a.ceilings.as_ref().expect("ceilings");
        assert!(c.tensor.is_empty() && c.tensor_gflop_per_s.is_empty());
        assert_eq!(
            a.kernels[0].asked.as_ref().map(|w| w.precision),
            Some(Work::Fp64)
        );
        // Schema 3: a tensor precision and tensor ceilings, keyed by the work keys.
        let mut a = Artifact::new(Provenance::default());
        let mut c = MeasuredCeilings::default();
        c.tensor_gflop_per_s.insert(Work::TensorBf16, 781_000.5);
        c.tensor.push(TensorCeiling {
            work: Work::TensorFp8,
            means: String::new(),
            m: 8192,
            n: 8192,
            k: 8192,
            ops: 1.0995e12,
            bytes: 3.3e8,
            measured_gflop_per_s: None,
            theoretical_gflop_per_s: Some(2_141_061.1),
            timing: None,
            check: None,
            not_measured: Some("FP8 tensor cores need compute capability 8.9".into()),
        });
        a.ceilings = Some(c);
        a.kernels.push(KernelRecord {
            asked: Some(AskedWork {
                bytes: 1.0,
                flops: 2.0,
                precision: Work::TensorBf16,
                formula: String::new(),
            }),
            ..KernelRecord::new("mma", "matmul_bf16_mma")
        });
        let text = a.to_json();
        assert!(text.contains("\"tensor_bf16\": 781000.5"), "{text}");
        assert!(text.contains("\"precision\": \"tensor_bf16\""), "{text}");
        assert!(text.contains("\"work\": \"tensor_fp8\""), "{text}");
        assert_eq!(Artifact::from_json(&text).expect("round trip"), a);
    }

    #[test]
    fn metric_values_serialize_as_number_text_or_null() {
        let v = serde_json::to_string(&[
            MetricValue::Number(1.5),
            MetricValue::Text("all".into()),
            MetricValue::Missing,
        ])
        .expect("serializes");
        assert_eq!(v, r#"[1.5,"all",null]"#);
        let back: Vec<MetricValue> = serde_json::from_str(&v).expect("parses");
        assert_eq!(back[2], MetricValue::Missing);
    }
}
