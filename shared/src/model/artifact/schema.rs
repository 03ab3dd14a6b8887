//! The artifact's public format: every type of the JSON document that `capture` writes and
//! the viewer reads, with its field names, its optional fields and its version.
//!
//! This file is the format's one definition: reading ([`super::read`]), storage
//! ([`super::storage`]) and writing ([`super::write`]) live beside it and add no field.
//! Field names carry their units (`_bytes`, `_ms`, `_gbyte_per_s`, ...). Any field that an
//! imported export cannot fill is an `Option` or an empty list, and every consumer must
//! handle its absence. A change to these types bumps [`SCHEMA_VERSION`], regenerates
//! `schema/artifact.schema.json` and adds a line to `CHANGELOG.md`.

use std::collections::BTreeMap;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::storage::{List, Metrics};
use crate::model::work_kind::Work;

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
/// 5: each launch's NVTX ranges (ncu `--nvtx`): a counter set lists each distinct
///    context once (`nvtx_ranges`: the launching thread, its push/pop stack, the open
///    start/end ranges) and a launch names its own by index (`nvtx`); both optional and
///    written only where the export has ranges.
/// 6: each kernel's work vector (`work`, issue 37): what its launches did as the hardware
///    counted it, summed (instructions by class, requests, sectors, bytes, wavefronts,
///    FLOPs by kind), and per launch group when it has more than one; optional, written
///    where the counters are.
///    Also, added while 6 was unreleased: the source page of each kernel's longest launch
///    with source counters (`sources`: per instruction its address, figures, and the SASS
///    text and CUDA line where the writer had them; `capture import REPORT --source PAGE`,
///    `capture profile --source`); optional, written only where a launch has source
///    counters.
/// 7: a whole program's trace from one plain run (`trace`, issue 46): every kernel, copy
///    and memory set with its GPU start and end, the launching thread, and the NVTX ranges
///    around them ([`crate::model::trace`]); optional, written by `capture trace` and by
///    imports of Nsight Systems' exports. Where an import has summaries and no timeline
///    (`nsys stats` CSVs), the trace holds them: `summaries` by kernel (`med_ns` and
///    `stddev_ns` optional, absent from older nsys) and `copy_summaries` by copy kind.
pub const SCHEMA_VERSION: u32 = 7;

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
    /// The source page (per-instruction figures, with the SASS and CUDA lines' text where
    /// the writer had them) of each kernel's longest launch with source counters, in launch
    /// order; empty when no launch had source counters (schema 6).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sources: Vec<LaunchSource>,
    /// The program's GPU activity as one plain run saw it: every kernel, copy and range
    /// with its times (`capture trace`, Nsight Systems imports; schema 7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<Box<crate::model::trace::Trace>>,
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
    /// `capture trace`: the user's program run once, unreplayed, under CUPTI's activity
    /// trace (or an Nsight Systems export of such a run, imported).
    Trace,
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

/// Theoretical peaks from device attributes (`shared::model::roofline::theoretical_peaks`).
/// `None` where an input is unknown, never a guess.
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
    pub name: Arc<str>,
    /// The CUDA function name as ncu reports it (`Kernel Name`), used to join counters.
    pub function: Arc<str>,
    /// Source file under `kernels/`, for suite kernels.
    #[serde(default)]
    pub source_file: Option<Box<str>>,
    // Boxed, as `asked`, `timing`, `check`, `warm` and `sampled` are: imports have none,
    // and an import of 200,000 one-launch kernels kept 230 bytes of empty slots in each
    // record (the JSON is the same).
    /// Launch configuration used by both the timed and the profiled path.
    #[serde(default)]
    pub launch: Option<Box<LaunchShape>>,
    /// Hand-counted bytes and FLOPs of one launch.
    #[serde(default)]
    pub asked: Option<Box<AskedWork>>,
    /// Event timings (absent for imports).
    #[serde(default)]
    pub timing: Option<Box<Timing>>,
    /// CPU reference check (absent for imports).
    #[serde(default)]
    pub check: Option<Box<Check>>,
    /// Counters with caches flushed (the default ncu collection).
    #[serde(default)]
    pub cold: Option<CounterSet>,
    /// Counters with warm caches, when captured.
    #[serde(default)]
    pub warm: Option<Box<CounterSet>>,
    /// In a sampled profile, how many of its launches were measured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled: Option<Box<SampledCount>>,
    /// The work its launches did, counted by the hardware: `capture` writes it worked out
    /// from the counters (`crate::analysis::work_vector`) and holds none in memory; a
    /// reader keeps what the file says. Absent without counters and before schema 6. The
    /// viewer (wasm32) shows no work vector and skips it as it reads: its reader's code would
    /// cost the page's size guard some kilobytes for a field nothing there reads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(target_arch = "wasm32", serde(skip_deserializing))]
    pub work: Option<Box<KernelWork>>,
}

/// The work vector of a kernel: its launches' work summed, and per launch group (one grid,
/// block, registers and shared memory) when it has more than one group.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct KernelWork {
    /// Every launch of the kernel.
    pub total: WorkVector,
    /// Each launch group, in the order its first launch ran; empty when the kernel has one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub groups: Vec<GroupWork>,
}

/// One launch group's work: the launches of a kernel with one launch configuration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct GroupWork {
    /// Grid, blocks (x, y, z), when the export has it.
    #[serde(default)]
    pub grid: Option<[u32; 3]>,
    /// Block, threads (x, y, z), when the export has it.
    #[serde(default)]
    pub block: Option<[u32; 3]>,
    /// Registers per thread (`launch__registers_per_thread`), when collected.
    #[serde(default)]
    pub registers_per_thread: Option<u32>,
    /// Shared memory per block, static plus dynamic, bytes (`launch__shared_mem_per_block`).
    #[serde(default)]
    pub shared_mem_per_block_bytes: Option<u64>,
    /// What the group's launches did.
    pub work: WorkVector,
}

/// What launches did, summed: each component's count, from the hardware's counters.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct WorkVector {
    /// Launches summed.
    pub launches: u64,
    /// Of them, launches of a sampled profile whose counters were copied from the measured
    /// launch of their group: each counts the measured launch's work, unscaled.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub copied_launches: u64,
    /// Each component every launch has, summed, in its unit ([`WorkComponent::unit`]).
    #[serde(default)]
    pub counts: BTreeMap<WorkComponent, f64>,
    /// FLOPs (OPs for integer kinds) by kind, as `crate::analysis::work` counts them.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub flops: BTreeMap<Work, f64>,
    /// The FLOP kinds worked from a rate (`X.sum.per_cycle_elapsed` times cycles, as in a
    /// `--set full` export) rather than read as a total: close, not exact counts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub derived: Vec<Work>,
    /// Components some launches have and others lack (a NaN, negative or out-of-range
    /// counter the reader kept as missing): left out of `counts`, and a work gate refuses
    /// to judge them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub incomplete: Vec<WorkComponent>,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One component of a [`WorkVector`]; its JSON key is the snake-case name.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum WorkComponent {
    /// Warp instructions executed.
    Instructions,
    /// Integer thread instructions executed (only where `--depth work` collected them).
    IntegerInstructions,
    /// Global-load warp instructions.
    GlobalLoadInstructions,
    /// Global-store warp instructions.
    GlobalStoreInstructions,
    /// Local-load warp instructions (register spills among them).
    LocalLoadInstructions,
    /// Local-store warp instructions.
    LocalStoreInstructions,
    /// Shared-memory load warp instructions.
    SharedLoadInstructions,
    /// Shared-memory store warp instructions.
    SharedStoreInstructions,
    /// Branch warp instructions (control flow).
    BranchInstructions,
    /// Global-load requests at L1/TEX.
    L1GlobalLoadRequests,
    /// Global-load sectors at L1/TEX.
    L1GlobalLoadSectors,
    /// Global-store requests at L1/TEX.
    L1GlobalStoreRequests,
    /// Global-store sectors at L1/TEX.
    L1GlobalStoreSectors,
    /// Sectors through the L2 slices.
    L2Sectors,
    /// Bytes read from device memory.
    DramReadBytes,
    /// Bytes written to device memory.
    DramWriteBytes,
    /// Shared-memory wavefronts.
    SharedWavefronts,
    /// Shared-memory bank conflicts.
    SharedBankConflicts,
}

impl WorkComponent {
    /// Every component, in the order tables list them.
    pub const ALL: [WorkComponent; 18] = [
        WorkComponent::Instructions,
        WorkComponent::IntegerInstructions,
        WorkComponent::GlobalLoadInstructions,
        WorkComponent::GlobalStoreInstructions,
        WorkComponent::LocalLoadInstructions,
        WorkComponent::LocalStoreInstructions,
        WorkComponent::SharedLoadInstructions,
        WorkComponent::SharedStoreInstructions,
        WorkComponent::BranchInstructions,
        WorkComponent::L1GlobalLoadRequests,
        WorkComponent::L1GlobalLoadSectors,
        WorkComponent::L1GlobalStoreRequests,
        WorkComponent::L1GlobalStoreSectors,
        WorkComponent::L2Sectors,
        WorkComponent::DramReadBytes,
        WorkComponent::DramWriteBytes,
        WorkComponent::SharedWavefronts,
        WorkComponent::SharedBankConflicts,
    ];

    /// Its name for people (`L2 sectors`).
    pub fn label(self) -> &'static str {
        match self {
            WorkComponent::Instructions => "instructions",
            WorkComponent::IntegerInstructions => "integer instructions",
            WorkComponent::GlobalLoadInstructions => "global load instructions",
            WorkComponent::GlobalStoreInstructions => "global store instructions",
            WorkComponent::LocalLoadInstructions => "local load instructions",
            WorkComponent::LocalStoreInstructions => "local store instructions",
            WorkComponent::SharedLoadInstructions => "shared load instructions",
            WorkComponent::SharedStoreInstructions => "shared store instructions",
            WorkComponent::BranchInstructions => "branch instructions",
            WorkComponent::L1GlobalLoadRequests => "L1 global load requests",
            WorkComponent::L1GlobalLoadSectors => "L1 global load sectors",
            WorkComponent::L1GlobalStoreRequests => "L1 global store requests",
            WorkComponent::L1GlobalStoreSectors => "L1 global store sectors",
            WorkComponent::L2Sectors => "L2 sectors",
            WorkComponent::DramReadBytes => "DRAM bytes read",
            WorkComponent::DramWriteBytes => "DRAM bytes written",
            WorkComponent::SharedWavefronts => "shared wavefronts",
            WorkComponent::SharedBankConflicts => "shared bank conflicts",
        }
    }

    /// Its JSON key (`l2_sectors`).
    pub fn key(self) -> &'static str {
        match self {
            WorkComponent::Instructions => "instructions",
            WorkComponent::IntegerInstructions => "integer_instructions",
            WorkComponent::GlobalLoadInstructions => "global_load_instructions",
            WorkComponent::GlobalStoreInstructions => "global_store_instructions",
            WorkComponent::LocalLoadInstructions => "local_load_instructions",
            WorkComponent::LocalStoreInstructions => "local_store_instructions",
            WorkComponent::SharedLoadInstructions => "shared_load_instructions",
            WorkComponent::SharedStoreInstructions => "shared_store_instructions",
            WorkComponent::BranchInstructions => "branch_instructions",
            WorkComponent::L1GlobalLoadRequests => "l1_global_load_requests",
            WorkComponent::L1GlobalLoadSectors => "l1_global_load_sectors",
            WorkComponent::L1GlobalStoreRequests => "l1_global_store_requests",
            WorkComponent::L1GlobalStoreSectors => "l1_global_store_sectors",
            WorkComponent::L2Sectors => "l2_sectors",
            WorkComponent::DramReadBytes => "dram_read_bytes",
            WorkComponent::DramWriteBytes => "dram_write_bytes",
            WorkComponent::SharedWavefronts => "shared_wavefronts",
            WorkComponent::SharedBankConflicts => "shared_bank_conflicts",
        }
    }

    /// Its unit (`inst`, `request`, `sector`, `byte`, `wavefront`, `conflict`).
    pub fn unit(self) -> &'static str {
        match self {
            WorkComponent::L1GlobalLoadRequests | WorkComponent::L1GlobalStoreRequests => "request",
            WorkComponent::L1GlobalLoadSectors
            | WorkComponent::L1GlobalStoreSectors
            | WorkComponent::L2Sectors => "sector",
            WorkComponent::DramReadBytes | WorkComponent::DramWriteBytes => "byte",
            WorkComponent::SharedWavefronts => "wavefront",
            WorkComponent::SharedBankConflicts => "conflict",
            _ => "inst",
        }
    }
}

impl KernelRecord {
    /// What its `sampled` should say: of the launches of its cold counter set (else its warm
    /// one), those measured (without `sampled_from`) and all; `None` without counters.
    pub fn counted_sampled(&self) -> Option<SampledCount> {
        let set = self.cold.as_ref().or(self.warm.as_deref())?;
        let measured = set
            .launches
            .iter()
            .filter(|l| l.sampled_from.is_none())
            .count() as u64;
        Some(SampledCount {
            measured,
            launches: set.launches.len() as u64,
        })
    }

    /// A record of a kernel with nothing measured yet.
    pub fn new(name: impl Into<Arc<str>>, function: impl Into<Arc<str>>) -> Self {
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
            work: None,
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
    /// The distinct NVTX contexts of the set's launches, each once; a launch names its own
    /// by index (`nvtx`). Absent: no launch is in an NVTX range, or ncu ran without
    /// `--nvtx` (before schema 5, always).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub nvtx_ranges: Vec<NvtxRanges>,
    /// Every profiled launch of the kernel, in launch order.
    pub launches: Vec<LaunchJson>,
}

// Its identity, launch shape, details-page rows and rules, in the order they are written,
// then its values: one struct, not those fields `#[serde(flatten)]`ed into it from another,
// which serde reads through a buffer of every key (slower to load, and some 12 KB more of
// the viewer's wasm, issue 53). The JSON and its schema are the same.
/// The JSON form of a [`LaunchCounters`].
#[derive(Deserialize, JsonSchema)]
pub struct LaunchJson {
    /// ncu's launch `ID` (unique per process).
    pub id: u64,
    /// Process ID.
    #[serde(default)]
    pub process_id: Option<u64>,
    /// Process name.
    #[serde(default)]
    pub process_name: Option<Arc<str>>,
    /// Host name.
    #[serde(default)]
    pub host: Option<Arc<str>>,
    /// Device ordinal.
    #[serde(default)]
    pub device: Option<u32>,
    /// Compute capability as ncu prints it (`9.0`).
    #[serde(default)]
    pub cc: Option<Arc<str>>,
    /// CUDA context ID.
    #[serde(default)]
    pub context: Option<u64>,
    /// CUDA stream ID.
    #[serde(default)]
    pub stream: Option<u64>,
    /// Kernel name as ncu printed it (mangled or demangled, possibly very long).
    pub function: Arc<str>,
    /// Demangled name, when the export has one besides `function`.
    #[serde(default)]
    pub demangled: Option<Arc<str>>,
    /// Grid size, blocks.
    #[serde(default)]
    pub grid: Option<[u32; 3]>,
    /// Block size, threads.
    #[serde(default)]
    pub block: Option<[u32; 3]>,
    /// Details-page rows (section metrics), in export order, in base units.
    #[serde(default)]
    pub sections: List<SectionMetric>,
    /// Details-page rule results.
    #[serde(default)]
    pub rules: List<RuleResult>,
    /// In a sampled profile, the ID of the measured launch whose counters this launch
    /// carries, scaled by their times (absent: measured itself).
    // Written only when present, so the schema gives it no default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampled_from: Option<u64>,
    /// This launch's own metric names and units, when they differ from the counter set's
    /// `metric_columns` (launches joined from exports with other columns).
    #[serde(default)]
    pub metric_columns: Option<Vec<MetricKey>>,
    /// Index into the counter set's `nvtx_ranges` of this launch's NVTX context; absent
    /// when it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvtx: Option<u32>,
    /// Raw-page metric values, in the order of the launch's `metric_columns` if it has
    /// them, else the counter set's: all of its columns, or only its `varying_columns`
    /// where the set has them.
    #[serde(default)]
    pub metrics: ValuesWire,
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
///
/// In memory, what launch after launch repeats (the process, device, context, stream,
/// grid, block and demangled name) is one [`LaunchSite`] shared by every launch that has
/// it, so that a launch is 88 bytes and its values; in JSON each launch lists every field
/// ([`LaunchJson`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchCounters {
    /// ncu's launch `ID` (unique per process).
    pub id: u64,
    /// Where and in what shape the launch ran (shared; change it with
    /// [`LaunchCounters::site_mut`]).
    pub site: Arc<LaunchSite>,
    /// Kernel name as ncu printed it (mangled or demangled, possibly very long).
    pub function: Arc<str>,
    /// Raw-page metrics by full metric name, in base units (in JSON, an array of values
    /// in the order of the counter set's `metric_columns`).
    pub metrics: Metrics,
    /// Details-page rows (section metrics), in export order, in base units.
    pub sections: List<SectionMetric>,
    /// Details-page rule results.
    pub rules: List<RuleResult>,
    /// In a sampled profile, the ID of the measured launch whose counters this launch
    /// carries, scaled by their times (absent: measured itself). Boxed: 8 bytes in the
    /// many launches that have none.
    pub sampled_from: Option<Box<u64>>,
}

/// Where and in what shape a launch ran: the fields of a [`LaunchCounters`] that launch
/// after launch repeats, held once ([`super::storage::SiteInterner`]) and shared. A
/// million launches of one process each held their own (256 bytes a launch where 88 do
/// now). Each field is as in [`LaunchJson`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct LaunchSite {
    /// Process ID.
    pub process_id: Option<u64>,
    /// Process name.
    pub process_name: Option<Arc<str>>,
    /// Host name.
    pub host: Option<Arc<str>>,
    /// Device ordinal.
    pub device: Option<u32>,
    /// Compute capability as ncu prints it (`9.0`).
    pub cc: Option<Arc<str>>,
    /// CUDA context ID.
    pub context: Option<u64>,
    /// CUDA stream ID.
    pub stream: Option<u64>,
    /// Demangled name, when the export has one besides the launch's `function`.
    pub demangled: Option<Arc<str>>,
    /// Grid size, blocks.
    pub grid: Option<[u32; 3]>,
    /// Block size, threads.
    pub block: Option<[u32; 3]>,
    /// The NVTX ranges the launch ran in, when ncu recorded any (in JSON, an index into
    /// the counter set's `nvtx_ranges`).
    pub nvtx: Option<Arc<NvtxRanges>>,
}

/// A launch's NVTX context as ncu records it with `--nvtx`: the push/pop stack of the thread
/// that launched it, and the start/end ranges open in the process when it was launched.
///
/// Push/pop ranges are per thread: a launch from another thread (PyTorch's autograd engine
/// runs the backward pass on its own) is in none of the ranges the main thread pushed.
/// Start/end ranges are process-wide. Launches share one copy of each context, in memory
/// (through their [`LaunchSite`]) and in JSON (a counter set's `nvtx_ranges`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct NvtxRanges {
    /// ID of the thread that launched the kernel, as ncu gives it beside the push/pop stack;
    /// absent when the launch is in no push/pop range (ncu then leaves the column empty).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<u64>,
    /// The launching thread's push/pop stack, outermost range first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub push_pop: Vec<NvtxRange>,
    /// The start/end ranges open when the kernel was launched, in ncu's order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub start_end: Vec<NvtxRange>,
}

/// One NVTX range of a [`NvtxRanges`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
pub struct NvtxRange {
    /// A start/end range's ID as ncu numbers it (push/pop ranges have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<u64>,
    /// The NVTX domain (`TSL`); absent for the default domain (ncu's `<default domain>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// The range's name (its message).
    pub name: String,
}

impl LaunchCounters {
    /// The launch's site, to change: its own copy when other launches share it.
    pub fn site_mut(&mut self) -> &mut LaunchSite {
        Arc::make_mut(&mut self.site)
    }

    /// A launch of `function` carrying the numeric raw-page metrics `numbers` (name, value in
    /// base units), without units: what unit tests and synthetic examples need.
    pub fn from_numbers(function: &str, numbers: &[(&str, f64)]) -> Self {
        let mut l = LaunchCounters {
            function: function.into(),
            ..Default::default()
        };
        l.metrics.insert_all(
            numbers
                .iter()
                .map(|(name, v)| {
                    let metric = Metric {
                        unit: String::new(),
                        value: MetricValue::Number(*v),
                    };
                    ((*name).to_string(), metric)
                })
                .collect(),
        );
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

/// A metric's name and unit, shared by every launch of an export.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MetricKey {
    /// Full metric name as ncu prints it (`dram__bytes_read.sum`).
    pub name: String,
    /// Unit after normalization to base units (`byte`, `ns`, `hz`, `%`, or empty).
    pub unit: String,
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

/// One SASS instruction and its figures; every figure `None` where the input lacks it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Instruction {
    /// Address (program counter), written in JSON as hex (`0x7fb1317a2b00`).
    #[serde(serialize_with = "hex", deserialize_with = "from_hex")]
    #[schemars(with = "String")]
    pub address: u64,
    /// The SASS text (`LDG.E R2, desc[UR4][R2.64]`); `None` where neither a source-page
    /// export nor a disassembler gave it (a report keeps the binary, not its text).
    #[serde(default)]
    pub sass: Option<String>,
    /// Warp-level instructions executed.
    #[serde(default)]
    pub inst_executed: Option<f64>,
    /// Thread-level instructions executed.
    #[serde(default)]
    pub thread_inst_executed: Option<f64>,
    /// Warp-state samples at this address, all reasons.
    #[serde(default)]
    pub samples: Option<f64>,
    /// Samples by stall reason (`long_scoreboard`, ...), only reasons with samples.
    #[serde(default)]
    pub stalls: BTreeMap<String, f64>,
    /// Global-memory requests at the L1 tags.
    #[serde(default)]
    pub l1_tag_requests_global: Option<f64>,
    /// L2 sectors the global accesses need.
    #[serde(default)]
    pub l2_sectors_global: Option<f64>,
    /// L2 sectors a coalesced access would need.
    #[serde(default)]
    pub l2_sectors_global_ideal: Option<f64>,
    /// L2 sectors beyond the ideal (uncoalesced access).
    #[serde(default)]
    pub l2_sectors_global_excessive: Option<f64>,
    /// Shared-memory wavefronts.
    #[serde(default)]
    pub l1_wavefronts_shared: Option<f64>,
    /// Shared-memory wavefronts a conflict-free access would need.
    #[serde(default)]
    pub l1_wavefronts_shared_ideal: Option<f64>,
    /// Shared-memory wavefronts beyond the ideal (bank conflicts).
    #[serde(default)]
    pub l1_wavefronts_shared_excessive: Option<f64>,
    /// Average N-way bank conflict of the shared accesses.
    #[serde(default)]
    pub l1_conflicts_shared_nway: Option<f64>,
    /// Divergent branch targets.
    #[serde(default)]
    pub divergent_branches: Option<f64>,
    /// The CUDA source file the instruction was compiled from, where the input has line
    /// information (`-lineinfo`). Shared with the other instructions of the file (a path
    /// copied per instruction made a report's file name cost its length once per address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub file: Option<std::sync::Arc<str>>,
    /// Its line in that file, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// The text of that line, where the input holds the file (`--import-source yes`).
    /// Shared with the other instructions of the line: copied per instruction, a report
    /// whose file text was one long line needed gigabytes (issue 39).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Option<String>")]
    pub cuda: Option<std::sync::Arc<str>>,
}

/// One launch's instructions, in address order: ncu's source page of the launch. In an
/// artifact (schema 6, `sources`), the launch of each kernel that stands for it on the
/// Source page (the longest with source counters), with the SASS text where the writer had
/// it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct LaunchSource {
    /// The launch's place in its report or export, from 0.
    pub launch: u64,
    /// Kernel name as the input prints it.
    pub kernel: String,
    /// ncu's duration of the launch, ns (reports only).
    #[serde(default)]
    pub duration_ns: Option<f64>,
    /// The instructions.
    pub instructions: Vec<Instruction>,
}

fn hex<S: serde::Serializer>(address: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&format!("{address:#x}"))
}

/// An address as [`hex`] writes it (`"0x7fb1317a2b00"`), or a plain number. A visitor of
/// its own rather than an untagged enum, which serde reads through a buffer of the value
/// (2.5 KB more of the viewer's wasm, issue 53); the same values are accepted.
fn from_hex<'de, D: serde::Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    struct Address;
    impl serde::de::Visitor<'_> for Address {
        type Value = u64;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an address: a hex string like \"0x7fb1317a2b00\" or a number")
        }

        fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<u64, E> {
            Ok(n)
        }

        fn visit_str<E: serde::de::Error>(self, t: &str) -> Result<u64, E> {
            let digits = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X"));
            digits
                .and_then(|h| u64::from_str_radix(h, 16).ok())
                .ok_or_else(|| {
                    E::custom(format!(
                        "address {t:?} is not a hex number like \"0x7fb1317a2b00\""
                    ))
                })
        }
    }
    d.deserialize_any(Address)
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
            sources: Vec::new(),
            trace: None,
        }
    }

    /// The JSON Schema of the artifact format, as pretty JSON.
    pub fn json_schema() -> String {
        let schema = schemars::schema_for!(Artifact);
        let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// A launch's `metrics` (or a set's `constant_values`) as read, before they are joined to
/// their columns: an array in column order (schema 2 and later), or, from schema-1
/// artifacts, an object of `name: {unit, value}` that brings its own columns. Read and
/// joined by the loader (`read.rs`).
#[derive(Debug, Default)]
pub struct ValuesWire {
    /// The values in order, stored as a row stores them (texts and gaps marked).
    pub(in crate::model::artifact) values: Vec<f64>,
    /// The texts, by position in `values`.
    pub(in crate::model::artifact) texts: Vec<(u32, String)>,
    /// Columns of a schema-1 object, in its order.
    pub(in crate::model::artifact) own_columns: Option<Vec<MetricKey>>,
}

impl JsonSchema for ValuesWire {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MetricValues".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = <Vec<MetricValue>>::json_schema(generator);
        schema.insert(
            "description".into(),
            "Metric values in the order of the counter set's `metric_columns` (or of its \
             `varying_columns`, where it has them): a number in the column's unit, a string, \
             or null for no value."
                .into(),
        );
        schema
    }
}
