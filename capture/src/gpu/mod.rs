//! The subcommands that need a GPU host or Nsight Compute: `devices`, `run` (and its hidden
//! `--profile-mode`, the half that runs under ncu), `profile` and `ncu-command`.
//!
//! Code map: [`suite`] declares every kernel once (source, launch shape, asked work, CPU
//! reference); [`checks`] and [`data`] hold the host-side comparison machinery; [`runner`]
//! is the only module that talks to CUDA; [`ncu`] builds ncu command lines and runs ncu
//! behind the [`ncu::Profiler`] trait; [`stats`], [`host`] and [`progress`] are small
//! helpers. This module resolves flags into work and assembles artifacts.

pub mod checks;
pub mod data;
pub mod host;
pub mod ncu;
pub mod progress;
pub mod runner;
pub mod stats;
pub mod suite;

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::artifact::{
    Artifact, CacheControl, CeilingMeasurement, Check, DeviceInfo, KernelRecord, MeasuredCeilings,
    Origin, Provenance, Timing,
};

use crate::cli::{CacheArg, DevicesArgs, NcuCommandArgs, ProfileArgs, RunArgs};
use crate::exit::{Code, Fault};
use crate::files;

use self::ncu::{Collection, Ncu, ProfileRequest, Profiler};
use self::runner::{DevBuf, Gpu};
use self::stats::giga_per_s;
use self::suite::{CeilingKind, KernelDef, Role, Sizes};

/// Untimed launches before the timed repetitions.
pub const WARMUPS: u32 = 3;
/// Timed launches of the clock kernel on each side of the FMA ceiling's repetitions.
pub const CLOCK_REPS: u32 = 3;

fn usage(msg: impl Into<String>) -> anyhow::Error {
    Fault::new(Code::Usage, msg).into()
}

fn caches_of(arg: CacheArg) -> Vec<CacheControl> {
    match arg {
        CacheArg::Cold => vec![CacheControl::Cold],
        CacheArg::Warm => vec![CacheControl::Warm],
        CacheArg::Both => vec![CacheControl::Cold, CacheControl::Warm],
    }
}

fn cache_name(c: CacheControl) -> &'static str {
    match c {
        CacheControl::Cold => "cold",
        CacheControl::Warm => "warm",
    }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / f64::from(1u32 << 20)
}

// ---------------------------------------------------------------------------------------
// capture devices
// ---------------------------------------------------------------------------------------

/// `capture devices`: every GPU with its attributes and theoretical peaks.
pub fn devices(args: &DevicesArgs) -> Result<ExitCode> {
    let count = runner::device_count()?;
    let infos: Vec<DeviceInfo> = (0..count)
        .map(|i| runner::describe(i).map(|(info, _)| info))
        .collect::<Result<_>>()?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&infos).context("serializing devices")?
        );
    } else {
        for d in &infos {
            println!("{}", describe_device(d));
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn opt<T: std::fmt::Display>(v: Option<T>) -> String {
    v.map_or_else(|| "unknown".to_string(), |v| v.to_string())
}

/// A device as a few aligned lines.
pub fn describe_device(d: &DeviceInfo) -> String {
    let p = &d.peaks;
    format!(
        "device {}: {}\n  compute capability {}, {} SMs, SM clock {} MHz, memory clock {} MHz, \
         bus {} bits\n  L2 {} MiB, memory {} GiB\n  FP32 lanes per SM {}; theoretical FP32 {} \
         GFLOP/s, DRAM {} GB/s, ridge {} FLOP/byte",
        opt(d.index),
        d.name,
        opt(d.compute_capability),
        opt(d.sm_count),
        opt(d.sm_clock_khz.map(|k| k / 1000)),
        opt(d.mem_clock_khz.map(|k| k / 1000)),
        opt(d.bus_width_bits),
        opt(d.l2_bytes.map(|b| format!("{:.1}", mib(b)))),
        opt(d
            .total_mem_bytes
            .map(|b| format!("{:.1}", b as f64 / f64::from(1u32 << 30)))),
        opt(p.fp32_lanes_per_sm),
        opt(p.fp32_gflop_per_s.map(|v| format!("{v:.0}"))),
        opt(p.dram_gbyte_per_s.map(|v| format!("{v:.0}"))),
        opt(p.ridge_flop_per_byte.map(|v| format!("{v:.2}"))),
    )
}

// ---------------------------------------------------------------------------------------
// capture run
// ---------------------------------------------------------------------------------------

/// Resolved configuration of `capture run`.
struct RunConfig {
    kernels: Vec<&'static KernelDef>,
    reps: u32,
    caches: Vec<CacheControl>,
    output: PathBuf,
    keep_exports: bool,
}

fn resolve_run(args: &RunArgs) -> Result<RunConfig> {
    let kernels = suite::select(&args.kernels).map_err(usage)?;
    if args.reps == 0 {
        return Err(usage("--reps must be at least 1"));
    }
    Ok(RunConfig {
        kernels,
        reps: args.reps,
        caches: if args.no_profile {
            Vec::new()
        } else {
            caches_of(args.cache)
        },
        output: args.output.clone(),
        keep_exports: args.keep_exports,
    })
}

/// Opens the device, sizes the suite and compiles it.
fn open_gpu(device: u32, size: Option<u64>, quiet: bool) -> Result<(Gpu, DeviceInfo, Sizes)> {
    runner::require_driver()?;
    runner::require_nvrtc()?;
    let (info, facts) = runner::describe(device)?;
    let sizes = Sizes::derive(&facts, size).map_err(|e| usage(e.0))?;
    let cc = info.compute_capability.ok_or_else(|| {
        Fault::new(
            Code::NoGpu,
            "the device reports no compute capability; cannot pick an NVRTC target",
        )
    })?;
    let started = Instant::now();
    let spinner = (!quiet).then(|| {
        progress::spinner(&format!(
            "compiling kernels/ for sm_{}{}",
            cc.major, cc.minor
        ))
    });
    let modules = runner::compile_all(cc)?;
    let gpu = Gpu::open(device, facts.sm_count, modules)?;
    if let Some(s) = spinner {
        s.finish_and_clear();
        progress::log(
            None,
            &format!(
                "compiled {} sources with NVRTC for sm_{}{} in {:.2} s",
                suite::SOURCES.len(),
                cc.major,
                cc.minor,
                started.elapsed().as_secs_f64()
            ),
        );
    }
    Ok((gpu, info, sizes))
}

/// The hidden half of `capture run` that ncu profiles: each selected kernel launched exactly
/// once on freshly filled buffers; no checks, no timing loops.
fn profile_mode(args: &RunArgs) -> Result<ExitCode> {
    let kernels = suite::select(&args.kernels).map_err(usage)?;
    let (gpu, _, sizes) = open_gpu(args.device, args.size, true)?;
    for def in kernels {
        let plan = (def.plan)(&sizes);
        let bufs = gpu.buffers(&plan)?;
        gpu.launch(def.function, &plan, &bufs)?;
        gpu.sync()
            .with_context(|| format!("{} under the profiler", def.function))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// What measuring one kernel produced.
struct Measured {
    record: KernelRecord,
    extra: Vec<CeilingMeasurement>,
}

fn measurement(name: &str, bytes: f64, flops: f64, timing: Timing) -> CeilingMeasurement {
    CeilingMeasurement {
        name: name.to_string(),
        bytes,
        flops,
        timing,
    }
}

/// Both checks must pass; details joined.
fn both(a: Check, b: Check) -> Check {
    Check {
        passed: a.passed && b.passed,
        detail: format!("{}; {}", a.detail, b.detail),
        max_abs_error: match (a.max_abs_error, b.max_abs_error) {
            (Some(x), Some(y)) => Some(x.max(y)),
            (x, y) => x.or(y),
        },
    }
}

fn measure_kernel(
    gpu: &Gpu,
    sizes: &Sizes,
    info: &DeviceInfo,
    def: &KernelDef,
    reps: u32,
) -> Result<Measured> {
    let plan = (def.plan)(sizes);
    let mut bufs = gpu.buffers(&plan)?;
    gpu.launch(def.function, &plan, &bufs)?;
    gpu.sync()
        .with_context(|| format!("{}: checked launch", def.function))?;
    let outputs = gpu.outputs(&plan, &bufs)?;
    let mut check = (def.check)(sizes, &plan, &outputs);
    drop(outputs);
    let mut extra = Vec::new();
    let launch = |bufs: &[DevBuf]| gpu.launch(def.function, &plan, bufs);
    let timing = match def.role {
        Role::Ceiling(CeilingKind::Fma) => {
            let clock_out = gpu.alloc(&suite::BufferSpec {
                name: "clock_out",
                elem: suite::Elem::F32,
                len: sizes.fma_threads(),
                fill: suite::Fill::Poison,
            })?;
            let spin = |gpu: &Gpu| {
                gpu.time(0, CLOCK_REPS, || {
                    gpu.launch_clock(
                        &clock_out,
                        sizes.fma_blocks,
                        suite::CLOCK_CYCLES,
                        suite::FMA_M,
                        suite::FMA_C,
                    )
                })
            };
            // Warm the SMs up, read the clock, time the FMA ceiling, read the clock again.
            for _ in 0..WARMUPS {
                launch(&bufs)?;
            }
            let before = spin(gpu)?;
            let timing = gpu.time(WARMUPS, reps, || launch(&bufs))?;
            let after = spin(gpu)?;
            let mut samples = before.samples_ms.clone();
            samples.extend(&after.samples_ms);
            let clock = stats::timing(0, samples).context("no clock samples")?;
            let mhz = suite::CLOCK_CYCLES as f64 / (clock.median_ms * 1e3);
            let attr_mhz = info.sm_clock_khz.map(|k| k as f64 / 1e3);
            let plausible = attr_mhz.is_none_or(|a| mhz > 0.2 * a && mhz < 1.2 * a);
            check =
                both(
                    check,
                    checks::condition(
                        plausible,
                        format!(
                        "held SM clock {mhz:.0} MHz from {} cycles spun under FMA load (attribute \
                         {} MHz){}",
                        suite::CLOCK_CYCLES,
                        opt(attr_mhz.map(|a| format!("{a:.0}"))),
                        if plausible { "" } else { ": implausible, the clock kernel is broken" }
                    ),
                    ),
                );
            extra.push(measurement("clock", 0.0, 0.0, clock));
            timing
        }
        Role::Ceiling(CeilingKind::Copy) => {
            let timing = gpu.time(WARMUPS, reps, || launch(&bufs))?;
            // The driver's device-to-device copy of the same buffers, checked the same way.
            let (Some(out_spec), [src, dst, ..]) = (plan.buffers.get(1), bufs.as_mut_slice())
            else {
                anyhow::bail!(
                    "{}: the copy plan needs an input and an output",
                    def.function
                );
            };
            gpu.fill(dst, out_spec)?;
            gpu.memcpy(src, dst)?;
            gpu.sync()?;
            let copied = gpu.outputs(&plan, &bufs)?;
            let memcpy_check = match copied.f32(1) {
                Ok(out) => {
                    let seed = plan.seed(0);
                    checks::exact_f32("driver memcpy dst = src", out, checks::Coverage::All, |i| {
                        data::hash_value(i as u64, seed)
                    })
                }
                Err(e) => checks::broken("memcpy", &e),
            };
            drop(copied);
            check = both(check, memcpy_check);
            let [src, dst, ..] = bufs.as_mut_slice() else {
                anyhow::bail!(
                    "{}: the copy plan needs an input and an output",
                    def.function
                );
            };
            let memcpy = gpu.time(WARMUPS, reps, || gpu.memcpy(src, dst))?;
            extra.push(measurement("memcpy", plan.asked.bytes, 0.0, memcpy));
            timing
        }
        _ => gpu.time(WARMUPS, reps, || launch(&bufs))?,
    };
    drop(bufs);
    Ok(Measured {
        record: KernelRecord {
            source_file: Some(def.source_path()),
            launch: Some(plan.launch.clone()),
            asked: Some(plan.asked.clone()),
            timing: Some(timing),
            check: Some(check),
            ..KernelRecord::new(def.name, def.function)
        },
        extra,
    })
}

/// Measured ceilings from the ceiling kernels' records and the extra measurements.
fn ceilings_of(
    kernels: &[&KernelDef],
    records: &[KernelRecord],
    extra: Vec<CeilingMeasurement>,
) -> Option<MeasuredCeilings> {
    let mut c = MeasuredCeilings::default();
    let mut any = false;
    for (def, rec) in kernels.iter().zip(records) {
        let Role::Ceiling(kind) = def.role else {
            continue;
        };
        let (Some(asked), Some(timing)) = (&rec.asked, &rec.timing) else {
            continue;
        };
        any = true;
        let gb = giga_per_s(asked.bytes, timing.median_ms);
        match kind {
            CeilingKind::Copy => c.copy_gbyte_per_s = gb,
            CeilingKind::Read => c.read_gbyte_per_s = gb,
            CeilingKind::L2Copy => c.l2_copy_gbyte_per_s = gb,
            CeilingKind::Fma => c.fma_gflop_per_s = giga_per_s(asked.flops, timing.median_ms),
        }
        let name = match kind {
            CeilingKind::Copy => "copy",
            CeilingKind::Read => "read",
            CeilingKind::L2Copy => "l2_copy",
            CeilingKind::Fma => "fma",
        };
        c.measurements
            .push(measurement(name, asked.bytes, asked.flops, timing.clone()));
    }
    for m in extra {
        match m.name.as_str() {
            "memcpy" => c.memcpy_gbyte_per_s = giga_per_s(m.bytes, m.timing.median_ms),
            "clock" => {
                c.held_sm_clock_mhz = Some(suite::CLOCK_CYCLES as f64 / (m.timing.median_ms * 1e3))
            }
            _ => {}
        }
        c.measurements.push(m);
    }
    c.ridge_flop_per_byte = match (c.fma_gflop_per_s, c.copy_gbyte_per_s) {
        (Some(f), Some(b)) if b > 0.0 => Some(f / b),
        _ => None,
    };
    any.then_some(c)
}

/// One line per ceiling, with percentages of the theoretical figures.
fn ceiling_lines(c: &MeasuredCeilings, d: &DeviceInfo) -> Vec<String> {
    let mut out = Vec::new();
    let bw = d.peaks.dram_gbyte_per_s;
    let pct = |v: f64, of: Option<f64>| {
        of.map_or(String::new(), |o| format!(" ({:.1} %)", 100.0 * v / o))
    };
    if let Some(v) = c.copy_gbyte_per_s {
        let vs = c.memcpy_gbyte_per_s.map_or(String::new(), |m| {
            format!(", {:.2} % of the driver memcpy", 100.0 * v / m)
        });
        out.push(format!("copy     {v:8.0} GB/s{}{vs}", pct(v, bw)));
    }
    if let Some(v) = c.memcpy_gbyte_per_s {
        out.push(format!("memcpy   {v:8.0} GB/s{}", pct(v, bw)));
    }
    if let Some(v) = c.read_gbyte_per_s {
        out.push(format!("read     {v:8.0} GB/s{}", pct(v, bw)));
    }
    if let Some(v) = c.l2_copy_gbyte_per_s {
        out.push(format!("L2 copy  {v:8.0} GB/s{}", pct(v, bw)));
    }
    if let Some(v) = c.fma_gflop_per_s {
        let held = match (c.held_sm_clock_mhz, d.sm_count, d.peaks.fp32_lanes_per_sm) {
            (Some(mhz), Some(sms), Some(lanes)) => {
                let cap = 2.0 * f64::from(sms) * f64::from(lanes) * mhz / 1e3;
                format!(
                    ", {:.1} % of lanes x held clock ({cap:.0})",
                    100.0 * v / cap
                )
            }
            _ => String::new(),
        };
        out.push(format!(
            "FMA      {v:8.0} GFLOP/s{} of the attribute clock{held}",
            pct(v, d.peaks.fp32_gflop_per_s)
        ));
    }
    if let Some(v) = c.held_sm_clock_mhz {
        out.push(format!("held SM clock {v:.0} MHz"));
    }
    if let Some(v) = c.ridge_flop_per_byte {
        out.push(format!("measured ridge {v:.2} FLOP/byte"));
    }
    out
}

fn size_warning(s: &Sizes, d: &DeviceInfo) -> String {
    let l2 = d.l2_bytes.unwrap_or(0).max(1) as f64;
    format!(
        "sizes: streaming arrays {} elements ({:.0} MiB of float, {:.1} x L2); ceiling arrays {} \
         floats ({:.0} MiB); transpose and stencil {}^2; matmul {}^2 (cache-resident); L2 copy \
         {:.2} MiB per buffer x {} passes; FMA {} blocks x 256",
        s.stream_elems,
        mib(s.stream_elems * 4),
        s.stream_elems as f64 * 4.0 / l2,
        s.ceiling_elems,
        mib(s.ceiling_elems * 4),
        s.square_dim,
        s.matmul_dim,
        mib(s.l2_elems() * 4),
        s.l2_reps,
        s.fma_blocks
    )
}

/// Where a run keeps the ncu reports and pages: beside the artifact (`--keep-exports`) or in
/// a temporary folder removed at the end.
enum WorkDir {
    Kept(PathBuf),
    /// Removed when dropped, or by the Ctrl-C handler (which exits without dropping).
    Temp {
        dir: tempfile::TempDir,
        _undo: crate::interrupt::Guard,
    },
}

impl WorkDir {
    fn new(keep: bool, output: &Path) -> Result<WorkDir> {
        if keep {
            let dir = match output.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("{}: cannot create folder", dir.display()))?;
            Ok(WorkDir::Kept(dir))
        } else {
            let dir = tempfile::tempdir().context("cannot create a temporary folder for ncu")?;
            let undo = crate::interrupt::remove_on_interrupt(dir.path());
            Ok(WorkDir::Temp { dir, _undo: undo })
        }
    }

    fn path(&self) -> &Path {
        match self {
            WorkDir::Kept(p) => p,
            WorkDir::Temp { dir, .. } => dir.path(),
        }
    }
}

fn stem_of(output: &Path) -> String {
    output.file_stem().map_or_else(
        || "capture".to_string(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// What a suite profile runs: the program and which of its launches ncu keeps.
pub struct Target<'a> {
    /// The program and its arguments (this executable in `--profile-mode`).
    pub program: &'a [OsString],
    /// `-k` filter.
    pub kernel_filter: Option<String>,
    /// `-c` launch count.
    pub launch_count: Option<u64>,
}

/// Collects counters for every cache state through `profiler` and attaches them to the
/// artifact's kernel records. GPU-free: the profiler may be real ncu or a fake.
pub fn profile_and_attach(
    artifact: &mut Artifact,
    profiler: &dyn Profiler,
    caches: &[CacheControl],
    target: &Target<'_>,
    work_dir: &Path,
    stem: &str,
) -> Result<()> {
    for &cache in caches {
        let name = format!("{stem}-ncu-{}", cache_name(cache));
        let req = ProfileRequest {
            collection: Collection {
                cache,
                kernel_filter: target.kernel_filter.clone(),
                launch_count: target.launch_count,
            },
            program: target.program,
            work_dir,
            name: &name,
        };
        let out = profiler.profile(&req)?;
        let exports = vec![
            files::read_export(&out.raw_csv)?,
            files::read_export(&out.details_csv)?,
        ];
        let (launches, warnings) = shared::ncu::combine(exports);
        let missing = ncu::missing_metrics(&launches);
        if !missing.is_empty() {
            artifact.warnings.push(format!(
                "{} ncu collection: requested metrics absent from the export (ncu dropped \
                 them): {}",
                cache_name(cache),
                missing.join(", ")
            ));
        }
        artifact.warnings.extend(
            warnings
                .iter()
                .map(|w| format!("{}: {w}", out.raw_csv.display())),
        );
        artifact.warnings.extend(out.warnings.iter().cloned());
        shared::merge::attach_counters(artifact, launches, cache)
            .map_err(|e| Fault::new(Code::MissingKernel, e.to_string()))?;
        artifact.provenance.ncu_commands.extend(out.commands);
        for p in [&out.raw_csv, &out.details_csv] {
            if let Some(n) = p.file_name() {
                artifact
                    .provenance
                    .inputs
                    .push(n.to_string_lossy().into_owned());
            }
        }
    }
    if !caches.is_empty() {
        artifact.provenance.clock_control = Some("none".into());
        artifact.provenance.ncu_version = profiler.version();
    }
    Ok(())
}

fn print_summary(artifact: &Artifact) {
    crate::table::print_table(artifact, crate::cli::TableFormat::Table);
}

/// `capture run`.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    if args.profile_mode {
        return profile_mode(args);
    }
    let started = Instant::now();
    let cfg = resolve_run(args)?;
    let timeout = Duration::from_secs(args.ncu_timeout);
    // The driver first: on a host without one the answer is "no GPU", whatever else is
    // missing.
    runner::require_driver()?;
    let ncu = if cfg.caches.is_empty() {
        None
    } else {
        Some(Ncu::locate(args.ncu.as_deref(), timeout)?)
    };
    let (gpu, info, sizes) = open_gpu(args.device, args.size, false)?;
    progress::log(None, &describe_device(&info));
    progress::log(None, &size_warning(&sizes, &info));

    let pb = progress::bar(cfg.kernels.len() as u64, "kernels");
    let mut records = Vec::new();
    let mut extra = Vec::new();
    for def in &cfg.kernels {
        pb.set_message(def.function);
        let m = measure_kernel(&gpu, &sizes, &info, def, cfg.reps)
            .with_context(|| format!("kernel {} ({})", def.function, def.name))?;
        if let (Some(t), Some(c)) = (&m.record.timing, &m.record.check) {
            progress::log(
                Some(&pb),
                &format!(
                    "{:<20} median {:9.4} ms ({} regs, {} B local)  {:>6}  {}",
                    def.function,
                    t.median_ms,
                    opt(gpu.registers(def.function)),
                    opt(gpu.local_bytes(def.function)),
                    if c.passed { "ok" } else { "FAILED" },
                    c.detail
                ),
            );
        }
        records.push(m.record);
        extra.extend(m.extra);
        pb.inc(1);
    }
    pb.finish_and_clear();
    drop(gpu);

    let mut artifact = Artifact::new(Provenance {
        origin: Some(Origin::Run),
        tool: "capture".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        created_utc: Some(crate::clock::now_rfc3339()),
        host: host::host_name(),
        driver_version: host::nvidia_driver_version(),
        cuda_version: runner::driver_api_version(),
        nvrtc_version: runner::nvrtc_version(),
        command_line: Some(host::command_line()),
        ..Provenance::default()
    });
    artifact.ceilings = ceilings_of(&cfg.kernels, &records, extra);
    if let Some(c) = &artifact.ceilings {
        for line in ceiling_lines(c, &info) {
            progress::log(None, &line);
        }
    }
    artifact.warnings.push(size_warning(&sizes, &info));
    artifact.device = Some(info);
    artifact.kernels = records;
    artifact.warnings.push(
        "times are CUDA-event medians at the clocks the GPU chose; byte and instruction counts \
         come from ncu at --clock-control none (rates ncu itself reports were not used)"
            .into(),
    );

    let failed: Vec<String> = artifact
        .kernels
        .iter()
        .filter(|k| k.check.as_ref().is_some_and(|c| !c.passed))
        .map(|k| k.name.clone())
        .collect();
    if !failed.is_empty() {
        artifact.warnings.push(format!(
            "failed checks, no roofline point for: {}; ncu pass skipped",
            failed.join(", ")
        ));
        files::write_artifact(&cfg.output, &artifact)?;
        print_summary(&artifact);
        return Err(Fault::new(
            Code::CheckFailed,
            format!(
                "{} kernel(s) failed their CPU reference check: {}; the artifact {} marks them",
                failed.len(),
                failed.join(", "),
                cfg.output.display()
            ),
        )
        .into());
    }

    if let Some(ncu) = &ncu {
        let work = WorkDir::new(cfg.keep_exports, &cfg.output)?;
        let exe = std::env::current_exe().context("locating this executable for ncu")?;
        let mut program: Vec<OsString> = vec![
            exe.into_os_string(),
            "run".into(),
            "--profile-mode".into(),
            "--device".into(),
            args.device.to_string().into(),
            "--size".into(),
            sizes.stream_elems.to_string().into(),
        ];
        if !args.kernels.is_empty() {
            program.push("--kernels".into());
            program.push(args.kernels.join(",").into());
        }
        let profiled = profile_and_attach(
            &mut artifact,
            ncu,
            &cfg.caches,
            &Target {
                program: &program,
                kernel_filter: Some(suite::ncu_kernel_regex(&cfg.kernels)),
                launch_count: Some(cfg.kernels.len() as u64),
            },
            work.path(),
            &stem_of(&cfg.output),
        );
        if let Err(e) = profiled {
            // Still leave the timings: they are complete in what they claim.
            artifact
                .warnings
                .push(format!("no counters: the ncu pass failed: {e:#}"));
            files::write_artifact(&cfg.output, &artifact)?;
            progress::log(
                None,
                &format!("wrote the timings-only artifact {}", cfg.output.display()),
            );
            return Err(e);
        }
    }

    files::write_artifact(&cfg.output, &artifact)?;
    print_summary(&artifact);
    progress::log(
        None,
        &format!(
            "wrote {} in {:.1} s",
            cfg.output.display(),
            started.elapsed().as_secs_f64()
        ),
    );
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------
// capture profile
// ---------------------------------------------------------------------------------------

/// `capture profile -- PROGRAM ARGS`: the user's program under ncu with every metric the
/// views need.
pub fn profile(args: &ProfileArgs) -> Result<ExitCode> {
    let ncu = Ncu::locate(args.ncu.as_deref(), Duration::from_secs(args.ncu_timeout))?;
    profile_with(args, &ncu)
}

/// `capture profile` with any profiler (tests pass a fake).
pub fn profile_with(args: &ProfileArgs, profiler: &dyn Profiler) -> Result<ExitCode> {
    let started = Instant::now();
    let program: Vec<OsString> = args.program.iter().map(OsString::from).collect();
    if program.is_empty() {
        return Err(usage("capture profile needs a program after --"));
    }
    let caches = caches_of(args.cache);
    let work = WorkDir::new(args.keep_exports, &args.output)?;
    let stem = stem_of(&args.output);
    let filter = args.kernel_name.as_ref().map(|re| format!("regex:{re}"));
    let mut artifact: Option<Artifact> = None;
    let mut commands = Vec::new();
    let mut inputs = Vec::new();
    for &cache in &caches {
        let name = format!("{stem}-ncu-{}", cache_name(cache));
        let out = profiler.profile(&ProfileRequest {
            collection: Collection {
                cache,
                kernel_filter: filter.clone(),
                launch_count: args.launch_count,
            },
            program: &program,
            work_dir: work.path(),
            name: &name,
        })?;
        let exports = vec![
            files::read_export(&out.raw_csv)?,
            files::read_export(&out.details_csv)?,
        ];
        let (launches, warnings) = shared::ncu::combine(exports);
        if launches.is_empty() {
            return Err(Fault::new(
                Code::NcuFailed,
                format!(
                    "ncu profiled no kernel launch of {} (is the kernel filter right, and does \
                     the program use the GPU?)",
                    program
                        .first()
                        .map(|p| p.to_string_lossy().into_owned())
                        .unwrap_or_default()
                ),
            )
            .into());
        }
        let missing = ncu::missing_metrics(&launches);
        commands.extend(out.commands.iter().cloned());
        for p in [&out.raw_csv, &out.details_csv] {
            if let Some(n) = p.file_name() {
                inputs.push(n.to_string_lossy().into_owned());
            }
        }
        match artifact.as_mut() {
            None => {
                let mut a = shared::merge::import_launches(
                    launches,
                    warnings,
                    Provenance {
                        origin: Some(Origin::Profile),
                        tool: "capture".into(),
                        tool_version: env!("CARGO_PKG_VERSION").into(),
                        created_utc: Some(crate::clock::now_rfc3339()),
                        command_line: Some(host::command_line()),
                        clock_control: Some("none".into()),
                        ..Provenance::default()
                    },
                );
                for k in &mut a.kernels {
                    if cache == CacheControl::Warm {
                        k.warm = k.cold.take();
                    }
                    for set in [&mut k.cold, &mut k.warm].into_iter().flatten() {
                        set.cache_control = Some(cache);
                    }
                }
                a.warnings.extend(out.warnings.iter().cloned());
                artifact = Some(a);
            }
            Some(a) => {
                a.warnings.extend(
                    warnings
                        .iter()
                        .map(|w| format!("{}: {w}", out.raw_csv.display())),
                );
                a.warnings.extend(out.warnings.iter().cloned());
                if let Err(e) = shared::merge::attach_counters(a, launches, cache) {
                    a.warnings
                        .push(format!("{} counters not attached: {e}", cache_name(cache)));
                }
            }
        }
        if let Some(a) = artifact.as_mut() {
            if !missing.is_empty() {
                a.warnings.push(format!(
                    "{} collection: requested metrics absent from the export: {}",
                    cache_name(cache),
                    missing.join(", ")
                ));
            }
        }
    }
    let Some(mut artifact) = artifact else {
        return Err(usage("no cache state to collect"));
    };
    artifact.provenance.ncu_commands = commands;
    artifact.provenance.inputs = inputs;
    artifact.provenance.ncu_version = profiler.version();
    files::write_artifact(&args.output, &artifact)?;
    print_summary(&artifact);
    progress::log(
        None,
        &format!(
            "wrote {} ({} kernels) in {:.1} s",
            args.output.display(),
            artifact.kernels.len(),
            started.elapsed().as_secs_f64()
        ),
    );
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------
// capture ncu-command
// ---------------------------------------------------------------------------------------

/// The command lines `capture ncu-command` prints, for users who run the profile half
/// themselves (often with sudo) and then `capture merge`.
pub fn ncu_command_lines(args: &NcuCommandArgs, exe: &OsString) -> Result<Vec<String>> {
    let kernels = suite::select(&args.kernels).map_err(usage)?;
    let mut program: Vec<OsString> = vec![
        exe.clone(),
        "run".into(),
        "--profile-mode".into(),
        "--device".into(),
        args.device.to_string().into(),
    ];
    if let Some(n) = args.size {
        program.push("--size".into());
        program.push(n.to_string().into());
    }
    if !args.kernels.is_empty() {
        program.push("--kernels".into());
        program.push(args.kernels.join(",").into());
    }
    let ncu = OsString::from("ncu");
    let mut lines = vec![format!(
        "# Profile half of `capture run`: {} kernel launches, one per suite kernel, filtered by \
         name. Run as root (sudo) where counters are admin-only.",
        kernels.len()
    )];
    let mut merge: Vec<OsString> = vec![
        exe.clone(),
        "merge".into(),
        "--timings".into(),
        "timings.json".into(),
    ];
    for cache in caches_of(args.cache) {
        let base = PathBuf::from(format!("capture-ncu-{}", cache_name(cache)));
        let collection = Collection {
            cache,
            kernel_filter: Some(suite::ncu_kernel_regex(&kernels)),
            launch_count: Some(kernels.len() as u64),
        };
        lines.push(format!("# {} caches", cache_name(cache)));
        lines.push(ncu::command_line(
            &ncu,
            &ncu::collect_args(&base, &collection, &program),
        ));
        let report = ncu::report_file(&base);
        let flag = match cache {
            CacheControl::Cold => "--ncu",
            CacheControl::Warm => "--ncu-warm",
        };
        merge.push(flag.into());
        for page in [ncu::Page::Raw, ncu::Page::Details] {
            let csv = format!(
                "capture-ncu-{}-{}.csv",
                cache_name(cache),
                if page == ncu::Page::Raw {
                    "raw"
                } else {
                    "details"
                }
            );
            lines.push(format!(
                "{} > {csv}",
                ncu::command_line(&ncu, &ncu::import_args(&report, page))
            ));
            merge.push(csv.into());
        }
    }
    merge.extend(["-o", "roofline.json"].map(OsString::from));
    lines.push("# timings (no counters needed), then the merge".into());
    let mut timings: Vec<OsString> = vec![
        "run".into(),
        "--no-profile".into(),
        "--device".into(),
        args.device.to_string().into(),
        "-o".into(),
        "timings.json".into(),
    ];
    if let Some(n) = args.size {
        timings.push("--size".into());
        timings.push(n.to_string().into());
    }
    if !args.kernels.is_empty() {
        timings.push("--kernels".into());
        timings.push(args.kernels.join(",").into());
    }
    lines.push(ncu::command_line(exe, &timings));
    lines.push(ncu::command_line(
        merge.first().map(|s| s.as_os_str()).unwrap_or_default(),
        merge.get(1..).unwrap_or_default(),
    ));
    Ok(lines)
}

/// `capture ncu-command`.
pub fn ncu_command(args: &NcuCommandArgs) -> Result<ExitCode> {
    let exe = std::env::current_exe()
        .map(PathBuf::into_os_string)
        .unwrap_or_else(|_| OsString::from("capture"));
    for line in ncu_command_lines(args, &exe)? {
        println!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// Replays real H200 exports (tests/fixtures/ncu-h200) instead of running ncu, and
    /// remembers what it was asked.
    struct FakeProfiler {
        raw: &'static str,
        details: &'static str,
        asked: RefCell<Vec<Collection>>,
    }

    fn fixture(name: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/fixtures/ncu-h200")
            .join(name)
    }

    impl Profiler for FakeProfiler {
        fn version(&self) -> Option<String> {
            Some("fake 1.0".into())
        }

        fn profile(&self, req: &ProfileRequest<'_>) -> Result<ProfileOutput> {
            self.asked.borrow_mut().push(req.collection.clone());
            Ok(ProfileOutput {
                raw_csv: fixture(self.raw),
                details_csv: fixture(self.details),
                commands: vec![format!("fake {}", req.name)],
                warnings: Vec::new(),
            })
        }
    }

    use self::ncu::ProfileOutput;

    fn fake() -> FakeProfiler {
        FakeProfiler {
            raw: "probe_full_raw.csv",
            details: "probe_full_details.csv",
            asked: RefCell::new(Vec::new()),
        }
    }

    /// A timings artifact as `capture run` builds it, with one kernel named like the
    /// fixture's (`copy`).
    fn timings(function: &str) -> Artifact {
        let mut a = Artifact::new(Provenance {
            origin: Some(Origin::Run),
            tool: "capture".into(),
            tool_version: "test".into(),
            ..Provenance::default()
        });
        a.kernels.push(KernelRecord {
            source_file: Some("kernels/ceilings.cu".into()),
            ..KernelRecord::new("copy ceiling", function)
        });
        a
    }

    #[test]
    fn run_merge_path_attaches_replayed_counters_for_each_cache() {
        let mut a = timings("copy");
        let p = fake();
        let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        profile_and_attach(
            &mut a,
            &p,
            &[CacheControl::Cold, CacheControl::Warm],
            &Target {
                program: &["capture".into(), "run".into(), "--profile-mode".into()],
                kernel_filter: Some("regex:^(copy)$".into()),
                launch_count: Some(1),
            },
            work.path(),
            "h200",
        )
        .unwrap_or_else(|e| panic!("{e:#}"));
        let k = &a.kernels[0];
        let cold = k
            .cold
            .as_ref()
            .unwrap_or_else(|| panic!("no cold counters"));
        assert_eq!(cold.cache_control, Some(CacheControl::Cold));
        assert!(!cold.launches.is_empty());
        assert!(cold.launches[0]
            .metrics
            .contains_key("dram__bytes_read.sum"));
        assert!(!cold.launches[0].sections.is_empty(), "details page joined");
        assert_eq!(
            k.warm.as_ref().and_then(|w| w.cache_control),
            Some(CacheControl::Warm)
        );
        let asked = p.asked.borrow();
        assert_eq!(asked.len(), 2);
        assert_eq!(asked[0].kernel_filter.as_deref(), Some("regex:^(copy)$"));
        assert_eq!(asked[1].cache, CacheControl::Warm);
        assert_eq!(
            a.provenance.ncu_commands,
            ["fake h200-ncu-cold", "fake h200-ncu-warm"]
        );
        assert_eq!(a.provenance.ncu_version.as_deref(), Some("fake 1.0"));
        assert_eq!(a.provenance.clock_control.as_deref(), Some("none"));
        // The probe capture used a different metric set: what it lacks is named.
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("requested metrics absent") && w.contains("lts__t_bytes.sum")),
            "{:?}",
            a.warnings
        );
    }

    #[test]
    fn run_merge_path_names_a_kernel_the_profiler_never_saw() {
        let mut a = timings("vector_add");
        let work = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let err = profile_and_attach(
            &mut a,
            &fake(),
            &[CacheControl::Cold],
            &Target {
                program: &["x".into()],
                kernel_filter: None,
                launch_count: None,
            },
            work.path(),
            "t",
        )
        .err()
        .unwrap_or_else(|| panic!("a kernel without counters must fail"));
        assert_eq!(crate::exit::code_of(&err), Code::MissingKernel);
        assert!(format!("{err:#}").contains("vector_add"), "{err:#}");
    }

    #[test]
    fn profile_command_builds_an_artifact_from_replayed_exports() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("p.json");
        let args = ProfileArgs {
            output: out.clone(),
            kernel_name: Some("copy".into()),
            launch_count: Some(3),
            cache: CacheArg::Cold,
            ncu: None,
            ncu_timeout: 10,
            keep_exports: false,
            program: vec!["python3".into(), "x.py".into()],
        };
        let p = fake();
        profile_with(&args, &p).unwrap_or_else(|e| panic!("{e:#}"));
        let a = files::read_artifact(&out).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(a.provenance.origin, Some(Origin::Profile));
        assert_eq!(a.kernels.len(), 1);
        assert_eq!(a.kernels[0].function, "copy");
        assert!(a.kernels[0].cold.is_some());
        let asked = p.asked.borrow();
        assert_eq!(asked[0].kernel_filter.as_deref(), Some("regex:copy"));
        assert_eq!(asked[0].launch_count, Some(3));
    }

    #[test]
    fn ncu_command_prints_collection_import_and_merge() {
        let args = NcuCommandArgs {
            cache: CacheArg::Both,
            kernels: Vec::new(),
            size: None,
            device: 0,
        };
        let lines = ncu_command_lines(&args, &OsString::from("/opt/capture"))
            .unwrap_or_else(|e| panic!("{e:#}"));
        let text = lines.join("\n");
        let n = suite::SUITE.len();
        assert!(text.contains(&format!(" -c {n} ")), "{text}");
        assert!(
            text.contains("--cache-control all --replay-mode kernel"),
            "{text}"
        );
        assert!(
            text.contains("--cache-control none --replay-mode application"),
            "{text}"
        );
        assert!(
            text.contains("/opt/capture run --profile-mode --device 0"),
            "{text}"
        );
        assert!(text.contains("--page raw --print-units base > capture-ncu-cold-raw.csv"));
        assert!(
            text.contains(
                "/opt/capture merge --timings timings.json --ncu capture-ncu-cold-raw.csv \
             capture-ncu-cold-details.csv --ncu-warm capture-ncu-warm-raw.csv \
             capture-ncu-warm-details.csv -o roofline.json"
            ),
            "{text}"
        );
        assert!(text.contains("/opt/capture run --no-profile --device 0 -o timings.json"));
        let bad = NcuCommandArgs {
            kernels: vec!["nope".into()],
            ..args
        };
        assert!(ncu_command_lines(&bad, &OsString::from("c")).is_err());
    }

    #[test]
    fn ceilings_come_from_medians() {
        let defs: Vec<&KernelDef> = suite::SUITE.iter().take(4).collect();
        let t = |ms: f64| stats::timing(0, vec![ms]).unwrap_or_else(|| panic!("timing"));
        let records: Vec<KernelRecord> = defs
            .iter()
            .map(|d| KernelRecord {
                asked: Some(shared::artifact::AskedWork {
                    bytes: 4e9,
                    flops: 6e10,
                    precision: shared::artifact::Precision::Fp32,
                    formula: String::new(),
                }),
                timing: Some(t(1.0)),
                ..KernelRecord::new(d.name, d.function)
            })
            .collect();
        let extra = vec![
            measurement("memcpy", 4e9, 0.0, t(2.0)),
            measurement("clock", 0.0, 0.0, t(10.0)),
        ];
        let c = ceilings_of(&defs, &records, extra).unwrap_or_else(|| panic!("ceilings"));
        assert_eq!(c.copy_gbyte_per_s, Some(4000.0));
        assert_eq!(c.memcpy_gbyte_per_s, Some(2000.0));
        assert_eq!(c.fma_gflop_per_s, Some(60000.0));
        assert_eq!(c.ridge_flop_per_byte, Some(15.0));
        assert_eq!(c.held_sm_clock_mhz, Some(2000.0), "2e7 cycles in 10 ms");
        assert_eq!(c.measurements.len(), 6);
    }
}
