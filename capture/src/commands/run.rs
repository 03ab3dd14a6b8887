//! `capture run`: the suite and the ceilings on each device asked for, one artifact each,
//! with ncu's counters attached; and its hidden `--profile-mode`, the half that runs under
//! ncu.

use std::ffi::OsString;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use shared::analysis::sampling::Depth;
use shared::model::artifact::{
    Artifact, CacheControl, DeviceInfo, KernelRecord, Origin, Provenance, TensorCeiling,
};

use super::table::print_table;
use super::{caches_of, usage};
use crate::cli::{DeviceArg, RunArgs, TableFormat};
use crate::exit::{Code, Fault};
use crate::files;
use crate::gpu::ceilings::ExtraMeasurement;
use crate::gpu::collect::{self, stem_of, Target, WorkDir};
use crate::gpu::console::{
    ceiling_lines, describe_device, kernel_line, size_warning, tensor_lines,
};
use crate::gpu::measure::{measure_kernel, open_gpu};
use crate::gpu::ncu::args::{Pass, Selection};
use crate::gpu::ncu::run::Ncu;
use crate::gpu::runner::Gpu;
use crate::gpu::suite::{self, KernelDef, Sizes};
use crate::gpu::{blas, ceilings, host, progress, runner, tensor};
use crate::ranks::{self, Env, OutputPlan, Placeholder, ProcessEnv};

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
    /// What the ncu pass collects (`--depth`).
    pass: Pass,
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
        keep_exports: args.ncu_opts.keep_exports,
        pass: match args.depth.depth() {
            Depth::Standard => Pass::Standard,
            depth => Pass::Counters(depth),
        },
    })
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
    let timeout = Duration::from_secs(args.ncu_opts.ncu_timeout);
    // The driver first: on a host without one the answer is "no GPU", whatever else is
    // missing.
    runner::require_driver()?;
    let ncu = if cfg.caches.is_empty() {
        None
    } else {
        Some(Ncu::locate(args.ncu_opts.ncu.as_deref(), timeout)?)
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
                "{} devices, one after the other (side by side they would share host memory, \
                 PCIe and the ncu pass, and lower each other's ceilings)",
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

/// What measuring the suite on one device produced: each kernel's record, what the ceiling
/// kernels measured beyond their timing, and the tensor-core ceilings.
struct SuiteResults {
    records: Vec<KernelRecord>,
    extra: Vec<ExtraMeasurement>,
    tensor: Vec<TensorCeiling>,
}

/// Checks and times every selected kernel on `gpu`, a line each, then the tensor-core
/// ceilings when asked for.
fn measure_suite(
    gpu: &Gpu,
    info: &DeviceInfo,
    sizes: &Sizes,
    cfg: &RunConfig,
) -> Result<SuiteResults> {
    let pb = progress::bar(cfg.kernels.len() as u64, "kernels");
    let mut records = Vec::new();
    let mut extra = Vec::new();
    for def in &cfg.kernels {
        pb.set_message(def.function);
        let m = measure_kernel(gpu, sizes, info, def, cfg.reps)
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
        let t = blas::measure_all(gpu, info, cfg.reps);
        spinner.finish_and_clear();
        for line in tensor_lines(&t) {
            progress::log(None, &line);
        }
        t
    } else {
        Vec::new()
    };
    Ok(SuiteResults {
        records,
        extra,
        tensor,
    })
}

/// The artifact of a run's timings: provenance, the ceilings (a tensor ceiling that failed its
/// check is a warning, not a roof), the device and the kernels, each ceiling printed.
fn timings_artifact(
    cfg: &RunConfig,
    info: DeviceInfo,
    sizes: &Sizes,
    suite: SuiteResults,
) -> Artifact {
    let SuiteResults {
        records,
        extra,
        tensor,
    } = suite;
    let mut artifact = Artifact::new(Provenance {
        host: host::host_name(),
        driver_version: host::nvidia_driver_version(),
        cuda_version: runner::driver_api_version(),
        nvrtc_version: runner::nvrtc_version(),
        distributed: cfg.outputs.distributed().cloned(),
        ..crate::provenance::base(Origin::Run, &[])
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
    artifact.warnings.push(size_warning(sizes, &info));
    artifact.device = Some(info);
    artifact.kernels = records;
    artifact.warnings.push(
        "times are CUDA-event medians at the clocks the GPU chose; byte and instruction counts \
         come from ncu at --clock-control none (rates ncu itself reports were not used)"
            .into(),
    );

    artifact
}

/// The profile half of `capture run` on `device`: this program re-run under ncu with
/// `--profile-mode`, its counters attached to `artifact`. When ncu fails, the timings-only
/// artifact is still written (complete in what it claims) before the error returns.
fn profile_half(
    args: &RunArgs,
    cfg: &RunConfig,
    ncu: &Ncu,
    device: u32,
    sizes: &Sizes,
    output: &std::path::Path,
    artifact: &mut Artifact,
) -> Result<()> {
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
    let profiled = collect::attach(
        artifact,
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
            pass: cfg.pass,
            env: Vec::new(),
        },
        work.path(),
        &stem_of(output),
    );
    if let Err(e) = profiled {
        // Still leave the timings: they are complete in what they claim.
        artifact
            .warnings
            .push(format!("no counters: the ncu pass failed: {e:#}"));
        files::write_artifact(output, artifact)?;
        progress::log(
            None,
            &format!("wrote the timings-only artifact {}", output.display()),
        );
        return Err(e);
    }

    Ok(())
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
    let suite = measure_suite(&gpu, &info, &sizes, cfg)?;
    drop(gpu);
    let mut artifact = timings_artifact(cfg, info, &sizes, suite);

    let failed: Vec<String> = artifact
        .kernels
        .iter()
        .filter(|k| k.check.as_ref().is_some_and(|c| !c.passed))
        .map(|k| k.name.to_string())
        .collect();
    if !failed.is_empty() {
        artifact.warnings.push(format!(
            "failed checks, no roofline point for: {}; ncu pass skipped",
            failed.join(", ")
        ));
        files::write_artifact(output, &artifact)?;
        print_table(&artifact, TableFormat::Table)?;
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
        profile_half(args, cfg, ncu, device, &sizes, output, &mut artifact)?;
    }

    files::write_artifact(output, &artifact)?;
    print_table(&artifact, TableFormat::Table)?;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::CacheArg;
    use std::collections::HashMap;
    use std::path::Path;

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
            ncu_opts: crate::cli::NcuOpts {
                ncu: None,
                ncu_timeout: 10,
                keep_exports: false,
            },
            depth: crate::cli::DepthArg::Standard,
            profile_mode: false,
        }
    }

    #[test]
    fn run_depth_work_collects_the_work_vector_and_standard_every_view() {
        let none: HashMap<&str, &str> = HashMap::new();
        let pass = |depth| {
            let mut args = run_args("r.json", DeviceArg::List(vec![0]));
            args.depth = depth;
            resolve_run_in(&args, &none, None)
                .unwrap_or_else(|e| panic!("{e:#}"))
                .pass
        };
        assert_eq!(pass(crate::cli::DepthArg::Standard), Pass::Standard);
        assert_eq!(
            pass(crate::cli::DepthArg::Work),
            Pass::Counters(Depth::Work)
        );
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
}
