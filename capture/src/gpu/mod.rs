//! The subcommands that need a GPU host or Nsight Compute: `devices`, `run` (and its hidden
//! `--profile-mode`, the half that runs under ncu), `profile` and `ncu-command`. This module
//! resolves flags into work and orchestrates it; the work itself lives in its neighbours.
//!
//! Code map: [`suite`] declares every kernel once (source, launch shape, asked work, CPU
//! reference); [`checks`] and [`data`] hold the host-side comparison machinery; [`runner`]
//! and [`blas`] (cuBLASLt) are the only modules that talk to CUDA; [`ceilings`] holds the
//! ceiling procedures and their arithmetic, [`tensor`] the tensor-core ceilings' GEMMs,
//! inputs, references and records; [`ncu`] builds ncu command lines and runs ncu behind the
//! [`ncu::Profiler`] trait; [`mod@profile`] is the per-cache profile loop `run` and `profile`
//! share; [`console`] writes what the commands print; [`stats`], [`host`] and [`progress`]
//! are small helpers.

pub mod blas;
pub mod ceilings;
pub mod checks;
pub mod console;
pub mod data;
#[cfg(test)]
mod fake;
pub mod host;
pub mod ncu;
pub mod ncu_log;
pub mod profile;
pub mod progress;
pub mod runner;
pub mod sample;
pub mod stats;
pub mod suite;
pub mod tensor;

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::model::artifact::{
    Artifact, CacheControl, DeviceInfo, Distributed, KernelRecord, Origin, Provenance,
};

use crate::cli::{
    CacheArg, DepthArg, DeviceArg, DevicesArgs, NcuCommandArgs, ProfileArgs, RunArgs,
};
use crate::exit::{Code, Fault};
use crate::files;
use crate::ranks::{self, Env, OutputPlan, Placeholder, ProcessEnv};

use self::ceilings::ExtraMeasurement;
use self::console::{
    ceiling_lines, describe_device, kernel_line, print_summary, size_warning, tensor_lines,
};
use self::ncu::{Collection, Ncu, Pass, Profiler, Selection};
use self::profile::{cache_name, stem_of, Target, WorkDir};
use self::runner::Gpu;
use self::suite::{CeilingKind, KernelDef, Role, Sizes};
use shared::analysis::sampling::{self, plan::PlanOptions, Depth};

/// Untimed launches before the timed repetitions.
pub const WARMUPS: u32 = 3;

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
        crate::out::println(&serde_json::to_string_pretty(&infos).context("serializing devices")?)?;
    } else {
        for d in &infos {
            crate::out::println(&describe_device(d))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------
// capture run
// ---------------------------------------------------------------------------------------

/// Resolved configuration of `capture run`.
struct RunConfig {
    kernels: Vec<&'static KernelDef>,
    /// Whether to measure the tensor-core ceilings (whole suite, not switched off).
    tensor_ceilings: bool,
    reps: u32,
    caches: Vec<CacheControl>,
    /// `-o`, resolved against this process's rank and host; one path per device.
    outputs: OutputPlan,
    keep_exports: bool,
}

impl RunConfig {
    /// Where device `device`'s artifact goes: `-o` with its placeholders filled, and
    /// `-gpuN` before the extension when several devices run and `-o` has no `{device}`.
    fn output_for(&self, device: u32, several: bool) -> Result<PathBuf> {
        let path = self.outputs.path(Some(device)).map_err(usage)?;
        Ok(if several && !self.outputs.has(Placeholder::Device) {
            ranks::with_suffix(&path, &format!("-gpu{device}"))
        } else {
            path
        })
    }
}

/// Checks `capture run`'s flags, with this process's environment and host name.
fn resolve_run(args: &RunArgs) -> Result<RunConfig> {
    resolve_run_in(args, &ProcessEnv, host::host_name())
}

/// [`resolve_run`] against any environment (tests pass a map).
fn resolve_run_in(args: &RunArgs, env: &dyn Env, host: Option<String>) -> Result<RunConfig> {
    let kernels = suite::select(&args.kernels).map_err(usage)?;
    if args.reps == 0 {
        return Err(usage("--reps must be at least 1"));
    }
    let distributed = ranks::detect(env).map_err(usage)?;
    let outputs =
        OutputPlan::new(&args.output, &Placeholder::ALL, distributed, host).map_err(usage)?;
    Ok(RunConfig {
        kernels,
        tensor_ceilings: args.kernels.is_empty() && !args.no_tensor_ceilings,
        reps: args.reps,
        caches: if args.no_profile {
            Vec::new()
        } else {
            caches_of(args.cache)
        },
        outputs,
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
    let device = match &args.device {
        DeviceArg::List(list) if list.len() == 1 => list.first().copied().unwrap_or_default(),
        _ => return Err(usage("--profile-mode runs on one device")),
    };
    let (gpu, _, sizes) = open_gpu(device, args.size, true)?;
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
    extra: Option<ExtraMeasurement>,
}

/// Checks one kernel against its CPU reference, then times it (the two ceiling kernels
/// through their procedures in [`ceilings`]).
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
    let ceiling = match def.role {
        Role::Ceiling(CeilingKind::Fma) => {
            Some(ceilings::fma(gpu, sizes, info, def, &plan, &bufs, reps)?)
        }
        Role::Ceiling(CeilingKind::Copy) => Some(ceilings::copy(gpu, def, &plan, &mut bufs, reps)?),
        _ => None,
    };
    let (timing, extra) = match ceiling {
        Some(c) => {
            check = checks::both(check, c.check);
            (c.timing, Some(c.extra))
        }
        None => (
            gpu.time(WARMUPS, reps, || gpu.launch(def.function, &plan, &bufs))?,
            None,
        ),
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

/// `capture run`: the suite and the ceilings on each device asked for, one after the other,
/// one artifact each. Never concurrently: devices of one host share the host's memory
/// bandwidth, PCIe and CPU cores, and ncu profiles one kernel at a time, so runs side by
/// side would lower each other's ceilings, the very figures compared across devices. A
/// device that fails does not stop the others; the first failure is the exit status.
pub fn run(args: &RunArgs) -> Result<ExitCode> {
    if args.profile_mode {
        return profile_mode(args);
    }
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
    let devices = args
        .device
        .ordinals(runner::device_count()?)
        .map_err(usage)?;
    let several = devices.len() > 1;
    let outputs: Vec<PathBuf> = devices
        .iter()
        .map(|&d| cfg.output_for(d, several))
        .collect::<Result<_>>()?;
    if several {
        progress::log(
            None,
            &format!(
                "{} devices, one after the other (side by side they would share host memory,                  PCIe and the ncu pass, and lower each other's ceilings)",
                devices.len()
            ),
        );
    }
    let mut failures: Vec<(u32, anyhow::Error)> = Vec::new();
    for (&device, output) in devices.iter().zip(&outputs) {
        if several {
            progress::log(None, &format!("device {device} -> {}", output.display()));
        }
        if let Err(e) = run_device(args, &cfg, ncu.as_ref(), device, output) {
            if !several {
                return Err(e);
            }
            crate::out::eprint_line(&format!("error: device {device}: {e:#}"));
            failures.push((device, e));
        }
    }
    let failed: Vec<String> = failures.iter().map(|(d, _)| d.to_string()).collect();
    match failures.into_iter().next() {
        None => Ok(ExitCode::SUCCESS),
        Some((device, e)) => Err(e.context(format!(
            "device {device} failed (failed: {} of {} devices)",
            failed.join(", "),
            devices.len()
        ))),
    }
}

/// `capture run` on one device, writing `output`.
fn run_device(
    args: &RunArgs,
    cfg: &RunConfig,
    ncu: Option<&Ncu>,
    device: u32,
    output: &std::path::Path,
) -> Result<ExitCode> {
    let started = Instant::now();
    let (gpu, info, sizes) = open_gpu(device, args.size, false)?;
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
                &kernel_line(
                    def.function,
                    t,
                    c,
                    gpu.registers(def.function),
                    gpu.local_bytes(def.function),
                ),
            );
        }
        records.push(m.record);
        extra.extend(m.extra);
        pb.inc(1);
    }
    pb.finish_and_clear();
    let tensor = if cfg.tensor_ceilings {
        let spinner = progress::spinner("tensor-core ceilings (cuBLASLt GEMMs)");
        let t = blas::measure_all(&gpu, &info, cfg.reps);
        spinner.finish_and_clear();
        for line in tensor_lines(&t) {
            progress::log(None, &line);
        }
        t
    } else {
        Vec::new()
    };
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
        distributed: cfg.outputs.distributed().cloned(),
        ..Provenance::default()
    });
    artifact.ceilings = ceilings::ceilings_of(&cfg.kernels, &records, extra);
    for t in &tensor {
        if let Some(c) = t.check.as_ref().filter(|c| !c.passed) {
            artifact.warnings.push(format!(
                "the {} ceiling failed its check and is not a roof: {}",
                t.work.label(),
                c.detail
            ));
        }
    }
    if !tensor.is_empty() {
        tensor::add_to(
            artifact.ceilings.get_or_insert_with(Default::default),
            tensor,
        );
    }
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
        files::write_artifact(output, &artifact)?;
        print_summary(&artifact)?;
        return Err(Fault::new(
            Code::CheckFailed,
            format!(
                "{} kernel(s) failed their CPU reference check: {}; the artifact {} marks them",
                failed.len(),
                failed.join(", "),
                output.display()
            ),
        )
        .into());
    }

    if let Some(ncu) = ncu {
        let work = WorkDir::new(cfg.keep_exports, output)?;
        let exe = std::env::current_exe().context("locating this executable for ncu")?;
        let mut program: Vec<OsString> = vec![
            exe.into_os_string(),
            "run".into(),
            "--profile-mode".into(),
            "--device".into(),
            device.to_string().into(),
            "--size".into(),
            sizes.stream_elems.to_string().into(),
        ];
        if !args.kernels.is_empty() {
            program.push("--kernels".into());
            program.push(args.kernels.join(",").into());
        }
        let profiled = profile::attach(
            &mut artifact,
            ncu,
            &cfg.caches,
            &Target {
                program: &program,
                selection: Selection {
                    kernel_filter: Some(suite::ncu_kernel_regex(&cfg.kernels)),
                    launch_count: Some(cfg.kernels.len() as u64),
                    ..Selection::default()
                },
                ncu_args: Vec::new(),
                pass: Pass::Standard,
            },
            work.path(),
            &stem_of(output),
        );
        if let Err(e) = profiled {
            // Still leave the timings: they are complete in what they claim.
            artifact
                .warnings
                .push(format!("no counters: the ncu pass failed: {e:#}"));
            files::write_artifact(output, &artifact)?;
            progress::log(
                None,
                &format!("wrote the timings-only artifact {}", output.display()),
            );
            return Err(e);
        }
    }

    files::write_artifact(output, &artifact)?;
    print_summary(&artifact)?;
    progress::log(
        None,
        &format!(
            "wrote {} in {:.1} s",
            output.display(),
            started.elapsed().as_secs_f64()
        ),
    );
    Ok(ExitCode::SUCCESS)
}

// ---------------------------------------------------------------------------------------
// capture profile
// ---------------------------------------------------------------------------------------

/// Resolved configuration of `capture profile`.
pub struct ProfileConfig {
    /// The program and its arguments; the program was found and may be executed.
    program: Vec<OsString>,
    /// Which of its launches.
    selection: Selection,
    /// More ncu arguments, checked (`--ncu-arg`).
    ncu_args: Vec<String>,
    /// One collection each, cold first.
    caches: Vec<CacheControl>,
    /// Where the artifact goes: `-o` with its placeholders filled.
    output: PathBuf,
    /// Keep the reports and pages beside it.
    keep_exports: bool,
    /// This process's place in a job, for provenance.
    distributed: Option<Distributed>,
    /// This machine's host name, for provenance.
    host: Option<String>,
    /// Profile every launch (`--all-launches`) rather than a sample.
    all_launches: bool,
    /// Stop after printing the plan.
    plan_only: bool,
    /// What to collect per launch.
    depth: Depth,
}

/// The depth a `--depth` value names.
fn depth_of(d: DepthArg) -> Depth {
    match d {
        DepthArg::Roofline => Depth::Roofline,
        DepthArg::Standard => Depth::Standard,
        DepthArg::Full => Depth::Full,
    }
}

/// Checks `capture profile`'s flags and finds its program, before ncu starts: a program
/// that does not exist or may not be executed is a usage error naming it, and so is an `-o`
/// that several detected ranks would share.
pub fn resolve_profile(args: &ProfileArgs) -> Result<ProfileConfig> {
    resolve_profile_in(args, &ProcessEnv, host::host_name())
}

/// [`resolve_profile`] against any environment and host name (tests pass a map).
pub fn resolve_profile_in(
    args: &ProfileArgs,
    env: &dyn Env,
    host: Option<String>,
) -> Result<ProfileConfig> {
    let program: Vec<OsString> = args.program.iter().map(OsString::from).collect();
    let Some(first) = program.first() else {
        return Err(usage("capture profile needs a program after --"));
    };
    host::find_program(first).map_err(|e| usage(format!("cannot profile {e}")))?;
    if args.launch_count == Some(0) {
        return Err(usage("--launch-count must be at least 1"));
    }
    ncu::check_ncu_args(&args.ncu_arg).map_err(usage)?;
    if !args.all_launches && (args.launch_skip.is_some() || args.launch_count.is_some()) {
        // ncu applies -s and -c after the --kernel-id that selects a sample's launches, so
        // they would pick other launches in the profiling pass than in the timing pass.
        return Err(usage(
            "--launch-skip and --launch-count do not combine with sampling: select the launches \
             with --nvtx-include (or --kernel-name), or add --all-launches",
        ));
    }
    if !args.all_launches {
        if let Some(a) = args.ncu_arg.iter().find(|a| {
            let o = a.split('=').next().unwrap_or(a);
            o == "--kernel-id" || o == "--kernel-name-base"
        }) {
            return Err(usage(format!(
                "--ncu-arg {a}: a sampled profile selects its launches with --kernel-id itself;                  add --all-launches to pass it"
            )));
        }
    }
    let distributed = ranks::detect(env).map_err(usage)?;
    let allowed = [Placeholder::Rank, Placeholder::LocalRank, Placeholder::Host];
    let plan = OutputPlan::new(&args.output, &allowed, distributed, host.clone()).map_err(usage)?;
    let output = plan.path(None).map_err(usage)?;
    Ok(ProfileConfig {
        program,
        selection: Selection {
            kernel_filter: args.kernel_name.as_ref().map(|re| format!("regex:{re}")),
            launch_skip: args.launch_skip,
            launch_count: args.launch_count,
            nvtx_include: args.nvtx_include.clone(),
            nvtx_exclude: args.nvtx_exclude.clone(),
            kernel_id: None,
        },
        ncu_args: ncu_args_of(args),
        caches: caches_of(args.cache),
        output,
        keep_exports: args.keep_exports || args.source,
        distributed: plan.distributed().cloned(),
        host,
        all_launches: args.all_launches,
        plan_only: args.plan_only,
        depth: depth_of(args.depth),
    })
}

/// The ncu section `capture profile --source` adds: per-instruction figures.
const SOURCE_SECTION: &str = "SourceCounters";

/// `--ncu-arg`'s arguments, and the SourceCounters section with `--source`.
fn ncu_args_of(args: &ProfileArgs) -> Vec<String> {
    let mut out = args.ncu_arg.clone();
    if args.source {
        out.extend(["--section".to_owned(), SOURCE_SECTION.to_owned()]);
    }
    out
}

/// `capture profile -- PROGRAM ARGS`: the user's program under ncu with every metric the
/// views need.
pub fn profile(args: &ProfileArgs) -> Result<ExitCode> {
    let cfg = resolve_profile(args)?;
    let ncu = Ncu::locate(args.ncu.as_deref(), Duration::from_secs(args.ncu_timeout))?;
    profile_with(&cfg, &ncu)
}

/// `capture profile` with any profiler (tests pass a fake). A program that fails after
/// launches were profiled still gets its artifact, then [`Code::ProgramFailed`]; the warm
/// collection is not tried after a failed cold one.
pub fn profile_with(cfg: &ProfileConfig, profiler: &dyn Profiler) -> Result<ExitCode> {
    let started = Instant::now();
    let work = WorkDir::new(cfg.keep_exports, &cfg.output)?;
    let stem = stem_of(&cfg.output);
    let target = Target {
        program: &cfg.program,
        selection: cfg.selection.clone(),
        ncu_args: cfg.ncu_args.clone(),
        pass: match cfg.depth {
            Depth::Standard => Pass::Standard,
            d => Pass::Counters(d),
        },
    };
    let program = ncu::program_name(&cfg.program);
    let timed = if cfg.all_launches {
        None
    } else {
        let t = sample::timing_pass(
            profiler,
            &target,
            work.path(),
            &stem,
            &PlanOptions::default(),
        )?;
        crate::out::println(&sample::plan_text(&t.plan, cfg.depth, t.wall_s))?;
        if cfg.plan_only {
            return Ok(ExitCode::SUCCESS);
        }
        Some(t)
    };
    let mut collected = Vec::new();
    let mut failed = None;
    for (i, &cache) in cfg.caches.iter().enumerate() {
        let mut c = match &timed {
            None => profile::collect(profiler, cache, &target, work.path(), &stem)?,
            Some(t) => sample::profiling_pass(
                profiler,
                &t.plan,
                cfg.depth,
                cache,
                &target,
                work.path(),
                &stem,
            )?,
        };
        if c.launches.is_empty() {
            let collection = Collection {
                pass: target.pass,
                cache,
                selection: target.selection.clone(),
                ncu_args: target.ncu_args.clone(),
            };
            return Err(Fault::new(
                Code::NoKernels,
                ncu::no_kernels_message(&program, &collection),
            )
            .into());
        }
        if let Some(n) = c.program_status {
            if let Some(skipped) = cfg.caches.get(i + 1..).filter(|s| !s.is_empty()) {
                c.warnings.push(format!(
                    "not collected after the program failed: {}",
                    skipped
                        .iter()
                        .map(|&c| format!("{} caches", cache_name(c)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            failed = Some((n, c.launches.len()));
            collected.push(c);
            break;
        }
        collected.push(c);
    }
    let provenance = Provenance {
        origin: Some(Origin::Profile),
        tool: "capture".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        created_utc: Some(crate::clock::now_rfc3339()),
        host: cfg.host.clone(),
        driver_version: host::nvidia_driver_version(),
        command_line: Some(host::command_line()),
        distributed: cfg.distributed.clone(),
        ..Provenance::default()
    };
    if let (Some(t), Some(first)) = (timed.as_ref(), collected.first_mut()) {
        // The timing pass ran first: its command, page and warnings lead.
        let mut commands = t.commands.clone();
        commands.append(&mut first.commands);
        first.commands = commands;
        let mut inputs = t.inputs.clone();
        inputs.append(&mut first.inputs);
        first.inputs = inputs;
        let mut warnings = t.warnings.clone();
        warnings.append(&mut first.warnings);
        first.warnings = warnings;
    }
    let mut artifact = profile::import(collected, provenance, profiler)
        .ok_or_else(|| usage("no cache state to collect"))?;
    if let Some(t) = &timed {
        sampling::label(&mut artifact, t.plan.groups.len(), t.plan.launches.len());
        if let Some(banner) = sampling::banner(&artifact) {
            artifact.warnings.insert(0, banner);
        }
    }
    files::write_artifact(&cfg.output, &artifact)?;
    print_summary(&artifact)?;
    if let Some((status, launches)) = failed {
        return Err(Fault::new(
            Code::ProgramFailed,
            format!(
                "the program {program} exited with status {status}; wrote {} with the {launches} \
                 launch(es) ncu profiled before that",
                cfg.output.display()
            ),
        )
        .into());
    }
    progress::log(
        None,
        &format!(
            "wrote {} ({} kernels) in {:.1} s",
            cfg.output.display(),
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
            pass: Pass::Standard,
            cache,
            selection: Selection {
                kernel_filter: Some(suite::ncu_kernel_regex(&kernels)),
                launch_count: Some(kernels.len() as u64),
                ..Selection::default()
            },
            ncu_args: Vec::new(),
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
        crate::out::println(&line)?;
    }
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;
    use std::path::Path;

    /// `capture profile` flags for `program`, writing `out`.
    fn profile_args(out: &Path, program: &[&str]) -> ProfileArgs {
        ProfileArgs {
            output: out.to_path_buf(),
            kernel_name: None,
            launch_count: None,
            launch_skip: None,
            nvtx_include: Vec::new(),
            nvtx_exclude: Vec::new(),
            ncu_arg: Vec::new(),
            cache: CacheArg::Cold,
            ncu: None,
            ncu_timeout: 10,
            keep_exports: false,
            source: false,
            all_launches: true,
            plan_only: false,
            depth: DepthArg::Standard,
            program: program.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn profile_source_adds_the_source_counters_section_and_keeps_the_reports() {
        let dir = tempfile::tempdir().expect("tempdir");
        let out = dir.path().join("p.json");
        let mut args = profile_args(&out, &["/bin/true"]);
        args.source = true;
        let cfg = resolved(&args).expect("resolves");
        assert_eq!(cfg.ncu_args, ["--section", "SourceCounters"]);
        assert!(cfg.keep_exports);
    }

    /// `capture profile`'s flags resolved in an empty environment on host `h`, whatever
    /// launcher the tests run under.
    fn resolved(args: &ProfileArgs) -> Result<ProfileConfig> {
        resolve_profile_in(args, &HashMap::new(), Some("h".into()))
    }

    /// `capture run` flags writing `out`.
    fn run_args(out: &str, device: DeviceArg) -> RunArgs {
        RunArgs {
            output: PathBuf::from(out),
            kernels: Vec::new(),
            reps: 20,
            cache: CacheArg::Cold,
            no_profile: true,
            no_tensor_ceilings: false,
            device,
            size: None,
            ncu: None,
            ncu_timeout: 10,
            keep_exports: false,
            profile_mode: false,
        }
    }

    #[test]
    fn two_ranks_write_one_artifact_each_with_rank_and_host() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let template = dir.path().join("p-{rank}.json");
        let exe = this_program();
        for rank in ["0", "1"] {
            let env = HashMap::from([("RANK", rank), ("LOCAL_RANK", rank), ("WORLD_SIZE", "2")]);
            let args = profile_args(&template, &[&exe]);
            let cfg = resolve_profile_in(&args, &env, Some("node7".into()))
                .unwrap_or_else(|e| panic!("{e:#}"));
            profile_with(&cfg, &fake::probe()).unwrap_or_else(|e| panic!("{e:#}"));
        }
        for rank in [0, 1] {
            let path = dir.path().join(format!("p-{rank}.json"));
            let a = files::read_artifact(&path).unwrap_or_else(|e| panic!("{e:#}"));
            let d = a.provenance.distributed.expect("the rank is recorded");
            assert_eq!(
                (d.rank, d.world_size, d.local_rank),
                (rank, Some(2), Some(rank))
            );
            assert_eq!(d.rank_variable, "RANK");
            assert_eq!(a.provenance.host.as_deref(), Some("node7"));
        }
        // Both are one job to the viewer's arithmetic.
        let read = |r: u32| files::read_artifact(&dir.path().join(format!("p-{r}.json")));
        let (a0, a1) = (
            read(0).unwrap_or_else(|e| panic!("{e:#}")),
            read(1).unwrap_or_else(|e| panic!("{e:#}")),
        );
        let jobs = shared::analysis::multi::ranks::jobs(&[&a0, &a1]);
        assert_eq!(jobs.len(), 1);
        assert_eq!(jobs[0].missing, Vec::<u32>::new());
    }

    #[test]
    fn several_ranks_sharing_one_output_are_refused_before_ncu_starts() {
        let exe = this_program();
        let args = profile_args(Path::new("prof.json"), &[&exe]);
        let env = HashMap::from([("SLURM_PROCID", "0"), ("SLURM_STEP_NUM_TASKS", "4")]);
        let err = resolve_profile_in(&args, &env, None)
            .err()
            .unwrap_or_else(|| panic!("four ranks may not share prof.json"));
        assert_eq!(crate::exit::code_of(&err), Code::Usage);
        let msg = format!("{err:#}");
        assert!(
            msg.starts_with("4 ranks detected (SLURM_PROCID=0, of 4)"),
            "{msg}"
        );
        assert!(msg.contains("-o prof-{rank}.json"), "{msg}");
        let env = HashMap::from([("RANK", "x")]);
        let err = resolve_profile_in(&args, &env, None)
            .err()
            .map(|e| format!("{e:#}"));
        assert_eq!(err.as_deref(), Some("RANK=x is not a whole number from 0"));
        let args = profile_args(Path::new("p-{device}.json"), &[&exe]);
        let err = resolve_profile_in(&args, &HashMap::new(), None)
            .err()
            .map(|e| format!("{e:#}"));
        assert!(err.is_some_and(|e| e.contains("{device} is not a placeholder here")));
    }

    #[test]
    fn run_outputs_one_file_per_device() {
        let none: HashMap<&str, &str> = HashMap::new();
        let cfg = |out: &str| {
            resolve_run_in(&run_args(out, DeviceArg::All), &none, Some("n1".into()))
                .unwrap_or_else(|e| panic!("{e:#}"))
        };
        let path = |c: &RunConfig, d: u32, several: bool| {
            c.output_for(d, several).unwrap_or_else(|e| panic!("{e:#}"))
        };
        let plain = cfg("out/run.json");
        assert_eq!(path(&plain, 0, false), Path::new("out/run.json"));
        assert_eq!(path(&plain, 3, true), Path::new("out/run-gpu3.json"));
        let named = cfg("run-{host}-{device}.json");
        assert_eq!(path(&named, 3, true), Path::new("run-n1-3.json"));
        assert_eq!(path(&named, 0, false), Path::new("run-n1-0.json"));
        // Under a launcher, run is refused like profile when ranks would share a file.
        let env = HashMap::from([("RANK", "1"), ("WORLD_SIZE", "2")]);
        let err = resolve_run_in(&run_args("run.json", DeviceArg::All), &env, None).err();
        assert_eq!(err.map(|e| crate::exit::code_of(&e)), Some(Code::Usage));
        let ok = resolve_run_in(&run_args("run-{rank}.json", DeviceArg::All), &env, None)
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(path(&ok, 0, false), Path::new("run-1.json"));
        assert_eq!(ok.outputs.distributed().map(|d| d.rank), Some(1));
    }

    /// This test binary: a program that exists and may be executed.
    fn this_program() -> String {
        std::env::current_exe()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn profile_command_builds_an_artifact_from_replayed_exports() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("p.json");
        let exe = this_program();
        let args = ProfileArgs {
            kernel_name: Some("copy".into()),
            launch_count: Some(3),
            launch_skip: Some(2),
            nvtx_include: vec!["step/".into()],
            ncu_arg: vec!["--target-processes=all".into()],
            ..profile_args(&out, &[&exe, "x.py"])
        };
        let p = fake::probe();
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        profile_with(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        let a = files::read_artifact(&out).unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(a.provenance.origin, Some(Origin::Profile));
        assert_eq!(a.kernels.len(), 1);
        assert_eq!(a.kernels[0].function, "copy");
        assert!(a.kernels[0].cold.is_some());
        let asked = p.asked.borrow();
        let sel = &asked[0].selection;
        assert_eq!(sel.kernel_filter.as_deref(), Some("regex:copy"));
        assert_eq!(sel.launch_count, Some(3));
        assert_eq!(sel.launch_skip, Some(2));
        assert_eq!(sel.nvtx_include, ["step/"]);
        assert_eq!(asked[0].ncu_args, ["--target-processes=all"]);
    }

    #[test]
    fn profile_samples_by_default_and_labels_the_artifact_and_its_table() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("s.json");
        let exe = this_program();
        let args = ProfileArgs {
            all_launches: false,
            nvtx_include: vec!["step/".into()],
            ..profile_args(&out, &[&exe, "train.py"])
        };
        let p = sample::tests::training_step();
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        profile_with(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        let a = files::read_artifact(&out).unwrap_or_else(|e| panic!("{e:#}"));
        let s = a
            .sampled
            .clone()
            .unwrap_or_else(|| panic!("not labelled sampled"));
        assert_eq!((s.measured, s.launches, s.timing_launches), (81, 172, 172));
        assert!(a.warnings[0].starts_with("Sampled profile: counters were measured on 81 of 172"));
        let per_kernel: u64 = a
            .kernels
            .iter()
            .filter_map(|k| k.sampled)
            .map(|c| c.launches)
            .sum();
        assert_eq!(per_kernel, 172);
        assert_eq!(
            a.provenance.ncu_commands.first().map(String::as_str),
            Some("replay s-ncu-timing"),
            "the timing pass is recorded first"
        );
        let text = crate::table::render(&a, crate::cli::TableFormat::Table);
        assert!(
            text.starts_with("sampled: 81 of 172 launches measured"),
            "{text}"
        );
        assert!(text.contains("70/"), "launches N/M in the table: {text}");
        let json = crate::table::render(&a, crate::cli::TableFormat::Json);
        assert!(json.contains("\"sampled\": {"), "{json}");
        let csv = crate::table::render(&a, crate::cli::TableFormat::Csv);
        assert!(
            csv.lines()
                .next()
                .unwrap_or("")
                .ends_with(",sampled_measured"),
            "{csv}"
        );
    }

    #[test]
    fn plan_only_prints_the_plan_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("s.json");
        let exe = this_program();
        let args = ProfileArgs {
            all_launches: false,
            plan_only: true,
            depth: DepthArg::Roofline,
            ..profile_args(&out, &[&exe])
        };
        let p = sample::tests::training_step();
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        profile_with(&cfg, &p).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(!out.exists());
        assert_eq!(p.asked.borrow().len(), 1, "only the timing pass ran");
        assert_eq!(p.asked.borrow()[0].pass, Pass::Timing);
    }

    #[test]
    fn a_sampled_profile_refuses_a_kernel_id_of_its_own() {
        let exe = this_program();
        let args = ProfileArgs {
            all_launches: false,
            ncu_arg: vec!["--kernel-id=::gemm:2".into()],
            ..profile_args(Path::new("p.json"), &[&exe])
        };
        let err = resolved(&args)
            .err()
            .map(|e| format!("{e:#}"))
            .unwrap_or_default();
        assert!(err.contains("add --all-launches"), "{err}");
        let args = ProfileArgs {
            all_launches: true,
            ..args
        };
        assert!(resolved(&args).is_ok());
    }

    #[test]
    fn a_program_that_fails_after_profiled_launches_keeps_them_and_exits_10() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let out = dir.path().join("p.json");
        let exe = this_program();
        let args = ProfileArgs {
            cache: CacheArg::Both,
            ..profile_args(&out, &[&exe])
        };
        let p = fake::FakeProfiler {
            program_status: Some(3),
            ..fake::probe()
        };
        let cfg = resolved(&args).unwrap_or_else(|e| panic!("{e:#}"));
        let err = profile_with(&cfg, &p)
            .err()
            .unwrap_or_else(|| panic!("a failed program is not a success"));
        assert_eq!(crate::exit::code_of(&err), Code::ProgramFailed);
        let msg = format!("{err:#}");
        assert!(msg.contains("exited with status 3; wrote"), "{msg}");
        assert_eq!(
            p.asked.borrow().len(),
            1,
            "no warm collection after the failure"
        );
        let a = files::read_artifact(&out).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(a.kernels[0].cold.is_some());
        assert!(
            a.warnings
                .iter()
                .any(|w| w.contains("not collected after the program failed: warm caches")),
            "{:?}",
            a.warnings
        );
        assert!(a.warnings.iter().any(|w| w.contains("status 3")));
    }

    #[test]
    fn profile_flags_are_checked_before_ncu_starts() {
        let out = Path::new("p.json");
        let exe = this_program();
        let usage_error = |args: ProfileArgs| {
            let err = resolved(&args)
                .err()
                .unwrap_or_else(|| panic!("{:?} must be refused", args.program));
            assert_eq!(crate::exit::code_of(&err), Code::Usage);
            format!("{err:#}")
        };
        let msg = usage_error(profile_args(out, &["/nonexistent/prog", "--x"]));
        assert!(
            msg.starts_with("cannot profile /nonexistent/prog: "),
            "{msg}"
        );
        let msg = usage_error(profile_args(out, &[]));
        assert!(msg.contains("needs a program"), "{msg}");
        let msg = usage_error(ProfileArgs {
            ncu_arg: vec!["-k".into(), "gemm".into()],
            ..profile_args(out, &[&exe])
        });
        assert!(msg.contains("use --kernel-name"), "{msg}");
        let msg = usage_error(ProfileArgs {
            launch_count: Some(0),
            ..profile_args(out, &[&exe])
        });
        assert!(msg.contains("--launch-count"), "{msg}");
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
}
