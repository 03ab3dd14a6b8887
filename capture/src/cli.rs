//! Command-line flags, parsed by clap. Raw flags only: each command resolves them into its
//! own configuration before any work starts.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

pub mod reference;

/// Roofline and Nsight Compute capture: run the kernel suite on a GPU host, or turn any ncu
/// CSV export into an artifact the viewer opens.
#[derive(Debug, Parser)]
#[command(name = "capture", version, about, long_about = None)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
// `NcuCommand` ends with the enum's name because the subcommand is called `ncu-command`.
#[allow(clippy::enum_variant_names)]
#[derive(Debug, Subcommand)]
pub enum Command {
    /// List the GPUs with their attributes and theoretical peaks.
    Devices(DevicesArgs),
    /// Run the kernel suite: ceilings, checks, event timings, then an ncu pass; write an artifact.
    ///
    /// With several devices (`--device 0,3` or `all`) each device is measured in turn, never
    /// side by side, one artifact each (docs/gpu-host.md, "Many GPUs"). The ncu pass re-runs
    /// capture under ncu, launching each kernel exactly once.
    Run(RunArgs),
    /// Join a timings artifact (capture run --no-profile) with ncu exports of the suite.
    ///
    /// Exits 9, naming the kernel, when a kernel of the timings has no DRAM byte metric in
    /// the exports.
    Merge(MergeArgs),
    /// Turn ncu exports of any program (CSV pages or a .ncu-rep report) into an artifact.
    ///
    /// A CSV export may be the raw page, the details page, both of one run, or the GUI's
    /// two-column export; a report (`.ncu-rep`, or `.ncu-repz` compressed with zstd, told by
    /// its first bytes, not its name) is read alone or with CSV pages of its run, with no GPU
    /// and no Nsight Compute. Any input may be gzip or zstd compressed. Prints a one-line
    /// summary.
    ///
    /// Nsight Systems' exports become a trace, as `capture trace` records one: its SQLite
    /// export (`nsys export --type sqlite`: every kernel, copy and NVTX range), or the CSV of
    /// `nsys stats --format csv --report cuda_gpu_kern_sum` and `cuda_gpu_mem_time_sum`
    /// (summaries only), told by their first bytes (docs/nsys-import.md).
    Import(ImportArgs),
    /// Run your own program under ncu with every metric the views need; write an artifact.
    ///
    /// By default it samples: a timing pass of every launch, a plan printed with its
    /// predicted cost, then only the plan's launches profiled and their counters scaled to
    /// the others (the artifact and `capture table` say `sampled: N of M launches`). The
    /// launch filters and any `--ncu-arg` appear in the ncu command the artifact records
    /// (`provenance.ncu_commands`). Measured costs and accuracy: docs/sampling.md.
    Profile(ProfileArgs),
    /// Run your program once, unreplayed, and record every kernel, copy and NVTX range.
    ///
    /// Where does the time go: the program runs as it would (no replay, no serialization)
    /// with CUPTI's activity trace injected (CUDA_INJECTION64_PATH), at the cost of the plain
    /// run. The artifact holds each launch's GPU start and end, grid, block, stream and
    /// launching thread, each copy and memory set, and the NVTX ranges; `capture table`
    /// prints Nsight Systems' kernel summary, the copies and the GPU's busy and idle time
    /// (docs/trace.md). No hardware counters: use `capture profile` for those.
    Trace(TraceArgs),
    /// Print the exact ncu command lines for the profile half of capture run.
    NcuCommand(NcuCommandArgs),
    /// Print the asked-for vs measured bytes table of a run: an artifact, a report or the CSV
    /// pages of one export.
    Table(TableArgs),
    /// Print a kernel's SASS with per-instruction figures and hot spots, from a report or
    /// a source-page export.
    Source(SourceArgs),
    /// Compare two runs kernel by kernel (artifacts, ncu exports or reports); gate on it.
    ///
    /// Kernels are matched by name and shape, then by name, then with template arguments
    /// collapsed. For each: the time before and after with a noise band, the change, the
    /// verdict and roof before and after, the metrics that moved most; then the kernels in
    /// one run only, and the total. With `--by range`, NVTX range by range instead: which
    /// part of the program got slower. Runs that differ in device, driver, ncu, clock or
    /// cache control, metric set or sampling are refused (exit 1) unless `--force`. JSON:
    /// docs/diff-json.md.
    Diff(DiffArgs),
    /// Check a speedup certificate (`capture diff --certificate`) against its two runs.
    ///
    /// Recomputes the certificate from BEFORE and AFTER and exits 14, naming each, when a
    /// file's SHA-256 is not the certified one, a figure differs from what the runs give
    /// (an edited time), a time is below its physical floor or its timers disagree, or the
    /// work changed where the certificate says it did not. Offline: no GPU.
    Verify(VerifyArgs),
    /// Explain each kernel in a few lines: verdict, unit, roof, ncu's rules, the evidence.
    ///
    /// For people and agents: at most 2 KB of JSON per kernel, every `evidence` value a raw
    /// metric of the input (docs/explain.md). Reads artifacts, CSV exports and reports.
    Explain(ExplainArgs),
    /// Serve the read-only commands to an agent as a Model Context Protocol server on stdio.
    ///
    /// Tools: list kernels, explain, compare two runs, source hot spots, a profiling plan.
    /// Reads only files under `--root`; runs no program, unless `--allow-profile PROGRAM`
    /// names one for `profile_plan` (docs/mcp.md).
    Mcp(McpArgs),
    /// Print a JSON Schema: of the artifact format (default), or of `capture explain`'s JSON.
    Schema(SchemaArgs),
    /// Print this command reference in Markdown (docs/commands.md is its output).
    #[command(hide = true)]
    Reference,
}

/// `capture devices`.
#[derive(Debug, Args)]
pub struct DevicesArgs {
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
}

/// Cache state(s) to collect counters under.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum CacheArg {
    /// Flush caches before each replay pass (`--cache-control all`).
    Cold,
    /// Keep caches as the previous launch left them (`--cache-control none`, application replay).
    Warm,
    /// Both, one ncu pass each.
    Both,
}

/// The devices `capture run --device` measures.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceArg {
    /// `all`: every device the driver lists (after `CUDA_VISIBLE_DEVICES`).
    All,
    /// Ordinals, in the order given (`0,3`).
    List(Vec<u32>),
}

impl DeviceArg {
    /// Parses `all` or a comma-separated list of distinct CUDA ordinals.
    pub fn parse(text: &str) -> Result<DeviceArg, String> {
        if text.trim().eq_ignore_ascii_case("all") {
            return Ok(DeviceArg::All);
        }
        let mut list = Vec::new();
        for part in text.split(',').map(str::trim) {
            let n: u32 = part.parse().map_err(|_| {
                format!("{part:?} is not a device: give `all` or CUDA ordinals, like 0,3")
            })?;
            if list.contains(&n) {
                return Err(format!("device {n} is listed twice"));
            }
            list.push(n);
        }
        Ok(DeviceArg::List(list))
    }

    /// The ordinals on a host with `count` devices; an error names an ordinal it lacks.
    pub fn ordinals(&self, count: u32) -> Result<Vec<u32>, String> {
        match self {
            DeviceArg::All => Ok((0..count).collect()),
            DeviceArg::List(list) => match list.iter().find(|&&n| n >= count) {
                Some(n) => Err(format!(
                    "no CUDA device {n}: this host has {count} (ordinals 0 to {})",
                    count.saturating_sub(1)
                )),
                None => Ok(list.clone()),
            },
        }
    }
}

/// `capture run`.
#[derive(Debug, Args)]
pub struct RunArgs {
    /// Where to write the artifact. May hold `{device}` (the CUDA ordinal), `{host}`,
    /// `{rank}` and `{local_rank}`; with several devices and no `{device}`, `-gpuN` is added
    /// before the extension (`roofline-gpu3.json`).
    #[arg(short, long, default_value = "roofline.json")]
    pub output: PathBuf,
    /// Run only these kernels (suite function names, comma separated, e.g. vector_add).
    #[arg(long, value_delimiter = ',')]
    pub kernels: Vec<String>,
    /// Event-timed repetitions per kernel (after warm-ups).
    #[arg(long, default_value_t = 20)]
    pub reps: u32,
    /// Cache state(s) for the ncu pass.
    #[arg(long, value_enum, default_value_t = CacheArg::Cold)]
    pub cache: CacheArg,
    /// Skip the ncu pass: timings, ceilings and checks only.
    #[arg(long)]
    pub no_profile: bool,
    /// Skip the tensor-core ceilings (cuBLASLt GEMMs of every tensor type the device has).
    /// They are measured only when the whole suite runs (no --kernels).
    #[arg(long)]
    pub no_tensor_ceilings: bool,
    /// CUDA device ordinal, a list (`0,3`) or `all`: each device in turn, one artifact each.
    #[arg(long, default_value = "0", value_parser = DeviceArg::parse)]
    pub device: DeviceArg,
    /// Elements of the streaming arrays (default: scaled from the device's L2 size).
    #[arg(long)]
    pub size: Option<u64>,
    /// Which ncu, how long it may run, whether its exports are kept.
    #[command(flatten)]
    pub ncu_opts: NcuOpts,
    /// What the ncu pass collects, as `capture profile --depth` (`work`: the work vector).
    #[arg(long, value_enum, default_value_t = DepthArg::Standard)]
    pub depth: DepthArg,
    /// Internal: launch each kernel exactly once for the profiler, no timing loops.
    #[arg(long, hide = true)]
    pub profile_mode: bool,
}

/// The ncu options `capture run` and `capture profile` share, declared once.
#[derive(Debug, Args)]
pub struct NcuOpts {
    /// Path to ncu (default: `ncu` on PATH, then /usr/local/cuda/bin/ncu).
    #[arg(long)]
    pub ncu: Option<PathBuf>,
    /// Kill an ncu collection that runs longer than this many seconds.
    #[arg(long, default_value_t = 1800)]
    pub ncu_timeout: u64,
    /// Keep the ncu reports and CSV pages beside the artifact (`STEM-ncu-cold-raw.csv`, ...).
    #[arg(long)]
    pub keep_exports: bool,
}

/// `capture merge`.
#[derive(Debug, Args)]
pub struct MergeArgs {
    /// Timings artifact from `capture run --no-profile`.
    #[arg(long)]
    pub timings: PathBuf,
    /// ncu CSV export with caches flushed (raw page; a details page may follow).
    #[arg(long, required = true, num_args = 1..)]
    pub ncu: Vec<PathBuf>,
    /// ncu CSV export with warm caches.
    #[arg(long, num_args = 1..)]
    pub ncu_warm: Vec<PathBuf>,
    /// Where to write the merged artifact.
    #[arg(short, long)]
    pub output: PathBuf,
}

/// `capture import`.
#[derive(Debug, Args)]
pub struct ImportArgs {
    /// ncu exports of one run: CSV pages (raw, details, or both), a `.ncu-rep` or
    /// `.ncu-repz` report, or a report with CSV pages of its run. A report with source counters (`--set full`)
    /// gives the artifact each kernel's per-instruction figures (its longest launch); a
    /// source-page export among them is taken as `--source`. Or Nsight Systems' exports
    /// of one run: one SQLite export, or the kernel summary CSV, the memory-time summary CSV,
    /// or both.
    #[arg(required = true)]
    pub exports: Vec<PathBuf>,
    /// Where to write the artifact.
    #[arg(short, long)]
    pub output: PathBuf,
    /// The report's source-page export (`ncu --import R --csv --page source --print-source
    /// cuda,sass`), for the SASS text (and CUDA lines) a report does not hold: joined by
    /// kernel name and address range and kept in the artifact, so that the viewer's Source
    /// page and `capture source` show it from the artifact alone. Repeatable.
    #[arg(long, value_name = "PAGE")]
    pub source: Vec<PathBuf>,
    /// NVIDIA's disassembler, for the SASS text of a report's kernels (a report keeps their
    /// code, not its text), kept in the artifact. Without it, `nvdisasm` on PATH, in
    /// `$CUDA_HOME/bin`, in `/usr/local/cuda/bin` or of python3's `nvidia-cuda-nvdisasm`
    /// package is used. Not used with a source page, which is then the one source of text.
    #[arg(long, value_name = "PATH")]
    pub nvdisasm: Option<PathBuf>,
}

/// `capture profile`.
#[derive(Debug, Args)]
pub struct ProfileArgs {
    /// Where to write the artifact. May hold `{rank}`, `{local_rank}` and `{host}` (from
    /// torchrun's, Open MPI's or Slurm's variables); required when several ranks are
    /// detected, so that they do not write one file.
    #[arg(short, long, default_value = "profile.json")]
    pub output: PathBuf,
    /// Profile only kernels whose name matches this regular expression.
    #[arg(long)]
    pub kernel_name: Option<String>,
    /// Profile at most this many launches (ncu `-c`; counts only launches that match the
    /// other filters).
    #[arg(long)]
    pub launch_count: Option<u64>,
    /// Skip this many matching launches first (ncu `-s`), to leave out warm-up iterations.
    #[arg(long, value_name = "N")]
    pub launch_skip: Option<u64>,
    /// Profile only launches inside this NVTX range; repeatable, implies ncu `--nvtx`. A
    /// start/end range by its name (`step`), a push/pop range with a trailing `/`
    /// (`step/`), a range in a named domain `domain@range`. ncu keeps push/pop ranges per
    /// thread, which leaves out work another thread launches (PyTorch's backward pass), so
    /// with a push/pop filter capture passes ncu `--nvtx-push-pop-scope process` (unless
    /// `--ncu-arg` sets the scope); a start/end range (`torch.cuda.nvtx.range_start`) is
    /// process-wide already.
    #[arg(long, value_name = "RANGE")]
    pub nvtx_include: Vec<String>,
    /// Leave out launches inside this NVTX range; repeatable, implies ncu `--nvtx`.
    #[arg(long, value_name = "RANGE")]
    pub nvtx_exclude: Vec<String>,
    /// One more argument for the ncu collection, placed before the program; repeatable, one
    /// token each (`--ncu-arg=--target-processes=all`). Options capture sets itself are
    /// refused, naming the capture flag to use instead.
    #[arg(long, value_name = "ARG", allow_hyphen_values = true)]
    pub ncu_arg: Vec<String>,
    /// Cache state for the collection.
    #[arg(long, value_enum, default_value_t = CacheArg::Cold)]
    pub cache: CacheArg,
    /// Which ncu, how long it may run, whether its exports are kept.
    #[command(flatten)]
    pub ncu_opts: NcuOpts,
    /// Also collect ncu's SourceCounters section (per-instruction figures for `capture
    /// source`); keeps the reports beside the artifact, which holds no per-instruction
    /// figures. It costs one replay pass more per launch (26 against 25, measured on the H200:
    /// a 2-layer BERT forward, 43 launches, took 49.3 s both ways).
    #[arg(long)]
    pub source: bool,
    /// Name where in a PyTorch program each kernel was launched, with no change to the
    /// program: NVTX start/end ranges around every nn.Module's forward and backward, named by
    /// the module's place in the model, and around every optimizer step, set by PyTorch's
    /// global hooks from a sitecustomize that capture puts first on PYTHONPATH (docs/nvtx.md).
    /// `capture table --by range` then adds the time up by module.
    #[arg(long)]
    pub torch_modules: bool,
    /// With --torch-modules, also a push/pop range per aten op (PyTorch's emit_nvtx), at more
    /// CPU cost per op.
    #[arg(long, requires = "torch_modules")]
    pub torch_ops: bool,
    /// Profile every launch, each replayed once per pass, instead of a sample. By default
    /// a timing pass (one ncu pass of the duration only, caches and clocks left alone)
    /// times every launch, a plan groups alike launches and picks a few of each group,
    /// only those are profiled, and their counters are scaled to every launch by time;
    /// the artifact says "sampled: N of M launches".
    #[arg(long)]
    pub all_launches: bool,
    /// Run the timing pass, print the plan and its predicted cost, and stop (nothing
    /// written).
    #[arg(long, conflicts_with = "all_launches")]
    pub plan_only: bool,
    /// How much to collect per launch, and so how many replay passes ncu makes of each
    /// profiled launch (H200, ncu 2025.3.1).
    #[arg(long, value_enum, default_value_t = DepthArg::Standard)]
    pub depth: DepthArg,
    /// Where a sampled profile's timing pass takes every launch's duration from (ignored with
    /// --all-launches).
    #[arg(long, value_enum, default_value_t = TimingPassArg::Auto)]
    pub timing_pass: TimingPassArg,
    /// The program and its arguments.
    #[arg(last = true, required = true)]
    pub program: Vec<String>,
}

/// `capture profile --timing-pass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TimingPassArg {
    /// The trace where it can stand in for ncu's pass (capture's injection library and
    /// CUPTI found, no --kernel-name or --ncu-arg), else ncu's, saying why.
    Auto,
    /// One plain run under capture's CUPTI trace (as `capture trace`): every launch's
    /// duration with no replay; an error where the injection library or CUPTI is missing.
    Trace,
    /// One ncu pass of the duration over every launch, each replayed alone.
    Ncu,
}

/// `capture trace`.
#[derive(Debug, Args)]
pub struct TraceArgs {
    /// Where to write the artifact. May hold `{rank}`, `{local_rank}` and `{host}` (from
    /// torchrun's, Open MPI's or Slurm's variables), as `capture profile`'s `-o`; required
    /// when several ranks are detected, so that they do not write one file.
    #[arg(short, long, default_value = "trace.json")]
    pub output: PathBuf,
    /// NVTX ranges around every nn.Module's forward and backward and every optimizer step
    /// of a PyTorch program, as `capture profile --torch-modules` sets them.
    #[arg(long)]
    pub torch_modules: bool,
    /// With --torch-modules, also a push/pop range per aten op.
    #[arg(long, requires = "torch_modules")]
    pub torch_ops: bool,
    /// The CUPTI library to load (default: found under CUDA_HOME, CUDA_PATH,
    /// /usr/local/cuda*, or by the loader's search).
    #[arg(long, value_name = "PATH")]
    pub cupti: Option<PathBuf>,
    /// The injection library (default: `libroofline_inject.so` beside the capture
    /// executable, as `cargo build --release -p capture -p roofline-inject` leaves it).
    #[arg(long, value_name = "PATH")]
    pub inject: Option<PathBuf>,
    /// How often CUPTI hands over its buffers, in ms: what a killed program can lose at
    /// most.
    #[arg(long, value_name = "MS", default_value_t = 250)]
    pub flush_ms: u32,
    /// Also sample hardware counters over time in the same run (CUPTI PM sampling: no
    /// replay, no serialization): DRAM, L2 and L1 bytes, tensor and FMA work, those the GPU
    /// samples together in one pass; `capture table` attributes them to the kernels
    /// (docs/one-pass.md). Where PM sampling is refused, the trace says why and is written
    /// without counters.
    #[arg(long)]
    pub counters: bool,
    /// The PM sampling interval, ns of GPU time (with --counters).
    #[arg(
        long,
        value_name = "NS",
        default_value_t = 20_000,
        requires = "counters"
    )]
    pub counter_interval_ns: u64,
    /// Keep each process's raw records (`PID.rltrace`) in this folder instead of a
    /// temporary one (for bug reports and the reader's tests).
    #[arg(long, value_name = "DIR")]
    pub records: Option<PathBuf>,
    /// Run nothing: read the records a run kept with `--records DIR` into the artifact.
    #[arg(long, value_name = "DIR", conflicts_with_all = ["records", "torch_modules"])]
    pub from_records: Option<PathBuf>,
    /// The program and its arguments.
    #[arg(last = true, required_unless_present = "from_records")]
    pub program: Vec<String>,
}

/// `capture profile --depth`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DepthArg {
    /// Time, bytes per level, FLOPs per precision and tensor type: the roofline only. 10
    /// passes (measured on the H200).
    Roofline,
    /// Every view: also SOL %, the bound unit, occupancy, stalls, the details sections.
    /// 25 passes (measured on the H200).
    Standard,
    /// Standard plus the rest of ncu's `--set full` sections. 36 passes (measured on the
    /// H200).
    Full,
    /// The work vector only, what `capture diff --gate-work` compares: instructions by
    /// class, requests, sectors, DRAM bytes, shared-memory wavefronts and conflicts,
    /// FLOPs. 10 passes, as many as roofline (measured on the H200).
    Work,
}

impl DepthArg {
    /// The depth it names.
    pub fn depth(self) -> shared::analysis::sampling::Depth {
        use shared::analysis::sampling::Depth;
        match self {
            DepthArg::Roofline => Depth::Roofline,
            DepthArg::Standard => Depth::Standard,
            DepthArg::Full => Depth::Full,
            DepthArg::Work => Depth::Work,
        }
    }
}

/// `capture ncu-command`.
#[derive(Debug, Args)]
pub struct NcuCommandArgs {
    /// Cache state(s) to print commands for.
    #[arg(long, value_enum, default_value_t = CacheArg::Both)]
    pub cache: CacheArg,
    /// Only these kernels (suite function names, comma separated).
    #[arg(long, value_delimiter = ',')]
    pub kernels: Vec<String>,
    /// Elements of the streaming arrays, as given to `capture run --size`.
    #[arg(long)]
    pub size: Option<u64>,
    /// CUDA device ordinal.
    #[arg(long, default_value_t = 0)]
    pub device: u32,
}

/// Output format of `capture table`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableFormat {
    /// Aligned text for a terminal.
    Table,
    /// Comma-separated values.
    Csv,
    /// A GitHub-flavoured Markdown table.
    Markdown,
    /// The stable JSON contract documented in docs/table-json.md.
    Json,
}

/// `capture table`.
#[derive(Debug, Args)]
pub struct TableArgs {
    /// The run: an artifact (`.json`, `.json.gz`), or an ncu export `capture import` reads:
    /// a `.ncu-rep` (`.ncu-repz`) report or CSV pages, several files being the pages of one
    /// export (raw and details, paired by launch ID); `.gz` is read as what it holds. A lone
    /// page says what it lacks.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = TableFormat::Table)]
    pub format: TableFormat,
    /// Row order: `launch` (order of first launch), `time` (largest share of the summed
    /// kernel time first: where the time goes), `name` (by short name).
    #[arg(long, value_enum, default_value_t = TableSort::Launch)]
    pub sort: TableSort,
    /// Rows: `kernel` (one per kernel), or `range` (one per NVTX range path, the
    /// start/end ranges then the push/pop stack of each launch, `(no range)` for launches
    /// in none; each launch counts once, so the times add up to the total). Ranges are in
    /// exports made with ncu `--nvtx` (`capture profile` with `--nvtx-include`).
    #[arg(long, value_enum, default_value_t = TableBy::Kernel)]
    pub by: TableBy,
    /// With `--by range`: cut each path to its first N ranges (deeper ranges count for
    /// their ancestor at depth N).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Only the launches under this NVTX range path, as `capture explain --range`.
    #[arg(long, value_name = "PATH")]
    pub range: Option<String>,
    /// Only the first N rows (after `--sort`).
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
}

/// What a row of `capture table` or `capture diff` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableBy {
    /// One row per kernel.
    Kernel,
    /// One row per NVTX range path.
    Range,
}

impl TableBy {
    /// `--depth` checked against `--by`: only with `range`, and 1 or more.
    pub fn checked_depth(self, depth: Option<usize>) -> Result<Option<usize>, String> {
        match (self, depth) {
            (TableBy::Kernel, Some(_)) => Err("--depth applies to --by range only".into()),
            (_, Some(0)) => Err("--depth must be at least 1 (the outermost ranges)".into()),
            _ => Ok(depth),
        }
    }
}

/// `capture explain`.
#[derive(Debug, Args)]
pub struct ExplainArgs {
    /// The run, as `capture table` takes it: an artifact, a report, or the CSV pages of one
    /// export (raw and details, paired by launch ID); `.gz` read too.
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<PathBuf>,
    /// Regular expression a kernel's full name must match.
    #[arg(long)]
    pub kernel: Option<String>,
    /// Only the N kernels with the most time.
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    /// Only the launches under this NVTX range path: ranges joined by `/`, outermost first
    /// (`measure/step`), as `capture table --by range` lists them; `(no range)` for the
    /// launches in none.
    #[arg(long, value_name = "PATH")]
    pub range: Option<String>,
    /// The next step instead: kernels ranked by recoverable time (time x the larger of
    /// ncu's estimated speedup for its rules and the gap to its own roof), each with one
    /// action and the exact ncu command collecting its source counters, built from the
    /// run's recorded command (docs/explain.md).
    #[arg(long)]
    pub next: bool,
    /// Output format: a paragraph per kernel, or the JSON of docs/explain.md.
    #[arg(long, value_enum, default_value_t = ExplainFormat::Text)]
    pub format: ExplainFormat,
}

/// Output format of `capture explain`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum ExplainFormat {
    /// One paragraph per kernel, to paste into a review.
    Text,
    /// The versioned JSON contract (`capture schema explain`).
    Json,
}

/// `capture mcp`.
#[derive(Debug, Args)]
pub struct McpArgs {
    /// The only directory whose files the tools read (symbolic links out of it refused).
    #[arg(long)]
    pub root: PathBuf,
    /// Offer the `profile_plan` tool for PROGRAM (a file; relative paths from --root;
    /// repeat for more). It runs `capture profile --plan-only -- PROGRAM` in the root (ncu
    /// on PATH runs PROGRAM once, timing its launches; no counters), with no arguments (put
    /// them in a wrapper script), one call at a time, and nothing else: the agent picks
    /// among these programs and can name no other.
    #[arg(long, value_name = "PROGRAM")]
    pub allow_profile: Vec<PathBuf>,
}

/// `capture schema`.
#[derive(Debug, Args)]
pub struct SchemaArgs {
    /// Which schema.
    #[arg(value_enum, default_value_t = SchemaKind::Artifact)]
    pub which: SchemaKind,
}

/// The schemas `capture schema` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SchemaKind {
    /// The artifact format (shared/schema/artifact.schema.json).
    Artifact,
    /// `capture explain --format json`.
    Explain,
}

/// Output format of `capture source`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SourceFormat {
    /// The hot spots, then every instruction, for a terminal.
    Text,
    /// A list of `{address, sass, inst_executed, ...}`, one per instruction (docs/source.md).
    Json,
}

/// `capture source`.
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// A `.ncu-rep` (`.ncu-repz`) report with source counters (`--set full`), an `ncu
    /// --import R --csv --page source --print-source sass` export (`.gz`, `.zst` are read
    /// too), or an artifact of
    /// such a report (`capture import R --source PAGE`), which keeps each kernel's longest
    /// launch with its SASS text. Several files are read one after another (the reports
    /// or pages of one run).
    #[arg(required = true, value_name = "INPUT")]
    pub inputs: Vec<std::path::PathBuf>,
    /// Regular expression a kernel name must match; of the matching launches the longest
    /// is shown (a source-page export has no durations: the one that executed the most).
    #[arg(long)]
    pub kernel: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = SourceFormat::Text)]
    pub format: SourceFormat,
    /// A source-page export of the same report, for the SASS text a report does not hold
    /// (`--print-source cuda,sass`: with the CUDA lines' text where ncu could read them).
    /// Joined by kernel name and address range; launches left without text and blocks no
    /// launch took are warnings.
    #[arg(long)]
    pub sass: Option<std::path::PathBuf>,
    /// A directory holding the CUDA source files (by file name) for the text of the lines
    /// the report's line table names (`-lineinfo`), where the report does not hold it.
    #[arg(long)]
    pub cuda_dir: Option<std::path::PathBuf>,
    /// NVIDIA's disassembler, for a report's SASS text (a report keeps the kernels' code,
    /// not its text). Without it, `nvdisasm` on PATH, in `$CUDA_HOME/bin`, in
    /// `/usr/local/cuda/bin` or of python3's `nvidia-cuda-nvdisasm` package is used. Not
    /// used with `--sass`, whose page is then the one source of text.
    #[arg(long, value_name = "PATH")]
    pub nvdisasm: Option<std::path::PathBuf>,
    /// Every matching launch instead of the longest (JSON: a list of `{launch, kernel,
    /// duration_ns, instructions}`).
    #[arg(long)]
    pub all_launches: bool,
    /// Hot spots listed in the text form.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
}

/// Row order of `capture table`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum TableSort {
    /// Order of each kernel's first launch.
    Launch,
    /// Largest time share first.
    Time,
    /// By short name.
    Name,
}

/// Output format of `capture diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DiffFormat {
    /// Aligned text for a terminal.
    Table,
    /// GitHub-flavoured Markdown, for a pull-request comment.
    Markdown,
    /// The JSON contract of docs/diff-json.md.
    Json,
}

/// `capture diff`.
#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The run before the change: an artifact, or an ncu export or report `capture import`
    /// reads.
    pub before: PathBuf,
    /// The run after the change.
    pub after: PathBuf,
    /// Another file of the before run's export (its details page beside its raw page, or
    /// the report's pages), paired with BEFORE by launch ID; repeat for more.
    #[arg(long, value_name = "FILE")]
    pub before_page: Vec<PathBuf>,
    /// Another file of the after run's export, as `--before-page`.
    #[arg(long, value_name = "FILE")]
    pub after_page: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = DiffFormat::Table)]
    pub format: DiffFormat,
    /// Exit 12 when the total, or a counted kernel, is slower by more than PCT percent
    /// beyond its noise band (failures named first in the output); exit 13 when the runs
    /// cannot be judged (an empty side, samples no run can have, a slowdown beyond PCT
    /// inside a band wider than PCT and 10 %; reasons named first).
    #[arg(long, value_name = "PCT", value_parser = non_negative_pct)]
    pub gate: Option<f64>,
    /// Kernels count toward the gate when above PCT percent of the time in either run.
    #[arg(long, value_name = "PCT", default_value_t = shared::analysis::diff::DEFAULT_GATE_SHARE_PCT,
          value_parser = non_negative_pct)]
    pub gate_share: f64,
    /// Compare runs that the comparability check refuses (device, driver, ncu version,
    /// clock or cache control, metric set, sampling), with a warning.
    #[arg(long)]
    pub force: bool,
    /// Exit 12 when a matched kernel's work (instructions, requests, sectors, bytes,
    /// wavefronts, FLOPs) grows by more than PCT percent and beyond its tolerance, or a
    /// kernel appears or vanishes; 13 when the runs have no work to compare, a stored work
    /// vector its counters contradict, or a part one run has and the other lacks. A metric
    /// set or sampling that differs is then a warning, not a refusal: a part the other
    /// metric set does not collect (in any kernel of that run) is left out, said on stderr.
    #[arg(long, value_name = "PCT", value_parser = non_negative_pct)]
    pub gate_work: Option<f64>,
    /// The work gate's tolerances: a JSON file of each part's measured spread (docs/ci.md);
    /// without one every part must repeat exactly (not measured). Figures no measurement
    /// gives (sigmas above 6, a CV above 100 %, a tolerance above 100 %, a floor above 1e7,
    /// fewer than 2 runs, a part given twice) refuse the file (exit 1).
    #[arg(long, value_name = "FILE", requires = "gate_work")]
    pub work_tolerance: Option<PathBuf>,
    /// Repeat runs of the before run's code (artifacts, or exports and reports): each
    /// kernel's time CV over them, and their totals', is the run-to-run drift the bands
    /// include (a band is at least 2 x sqrt 2 x the CV); named in the output.
    #[arg(long, value_name = "RUN", num_args = 2.., conflicts_with = "noise_tolerance")]
    pub baseline_runs: Vec<PathBuf>,
    /// A tolerance file (docs/ci.md) whose measured time spread (`time.cv_pct`) is the
    /// run-to-run drift the bands include, for every kernel; named in the output. Without
    /// this or `--baseline-runs`, the bands are within-run only, said so, and a change under
    /// the H200's median drift between runs is not called beyond the noise.
    #[arg(long, value_name = "FILE")]
    pub noise_tolerance: Option<PathBuf>,
    /// Rows: `kernel` (matched kernels), or `range`: one per NVTX range path of either run
    /// (as `capture table --by range`), matched by path, the largest change in time first,
    /// with launches, FLOPs and DRAM bytes before and after; ranges of one run only shown
    /// as appeared or vanished. Noise bands as for kernels; no gate (docs/nvtx.md).
    #[arg(long, value_enum, default_value_t = TableBy::Kernel)]
    pub by: TableBy,
    /// With `--by range`: cut each path to its first N ranges (deeper ranges count for
    /// their ancestor at depth N).
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Also write a certificate of the comparison to FILE: the SHA-256 of every input, per
    /// kernel the times with their noise bands and physical floors, the timers' agreement,
    /// the work (equal, or what changed) and the comparability check; `capture verify`
    /// checks it. Kernel by kernel only.
    #[arg(long, value_name = "FILE")]
    pub certificate: Option<PathBuf>,
}

/// `capture verify`.
#[derive(Debug, Args)]
pub struct VerifyArgs {
    /// The certificate (`capture diff BEFORE AFTER --certificate FILE`).
    pub certificate: PathBuf,
    /// The run before, as `capture diff` took it.
    pub before: PathBuf,
    /// The run after.
    pub after: PathBuf,
    /// Another file of the before run's export, as `capture diff --before-page`.
    #[arg(long, value_name = "FILE")]
    pub before_page: Vec<PathBuf>,
    /// Another file of the after run's export.
    #[arg(long, value_name = "FILE")]
    pub after_page: Vec<PathBuf>,
}

/// A percentage flag: a finite number, 0 or more.
fn non_negative_pct(text: &str) -> Result<f64, String> {
    match text.trim().trim_end_matches('%').trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v >= 0.0 => Ok(v),
        _ => Err(format!(
            "{text:?} is not a percentage (a number, 0 or more)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn devices_parse_as_all_or_a_list_and_resolve_against_the_host() {
        // (flag, devices on the host, ordinals or the error's start)
        type Case = (&'static str, u32, Result<&'static [u32], &'static str>);
        let cases: [Case; 8] = [
            ("0", 1, Ok(&[0])),
            ("all", 8, Ok(&[0, 1, 2, 3, 4, 5, 6, 7])),
            ("ALL", 1, Ok(&[0])),
            ("0,3", 4, Ok(&[0, 3])),
            ("3, 0", 4, Ok(&[3, 0])),
            (
                "0,3",
                2,
                Err("no CUDA device 3: this host has 2 (ordinals 0 to 1)"),
            ),
            ("0,0", 2, Err("device 0 is listed twice")),
            ("gpu1", 2, Err("\"gpu1\" is not a device")),
        ];
        for (flag, count, want) in cases {
            let got = DeviceArg::parse(flag).and_then(|d| d.ordinals(count));
            match want {
                Ok(list) => assert_eq!(got.as_deref(), Ok(list), "{flag}"),
                Err(start) => {
                    let err = got.err().unwrap_or_default();
                    assert!(err.starts_with(start), "{flag}: {err}");
                }
            }
        }
    }
}
