//! Opening a device for the suite (driver and NVRTC checked, sizes derived, every source
//! compiled for its architecture) and measuring one suite kernel on it: checked against its
//! CPU reference, then timed (the two ceiling kernels through [`super::ceilings`]).

use std::time::Instant;

use anyhow::{Context, Result};
use shared::model::artifact::{DeviceInfo, KernelRecord};

use super::ceilings::{self, ExtraMeasurement};
use super::runner::{self, Gpu, WARMUPS};
use super::suite::{self, CeilingKind, KernelDef, Role, Sizes};
use super::{checks, progress};
use crate::exit::{Code, Fault};

/// Opens the device, sizes the suite and compiles it.
pub fn open_gpu(device: u32, size: Option<u64>, quiet: bool) -> Result<(Gpu, DeviceInfo, Sizes)> {
    runner::require_driver()?;
    runner::require_nvrtc()?;
    let (info, facts) = runner::describe(device)?;
    let sizes = Sizes::derive(&facts, size)
        .map_err(|e| anyhow::Error::from(Fault::new(Code::Usage, e.0)))?;
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

/// What measuring one kernel produced.
pub struct Measured {
    /// The kernel's record: launch, asked work, timing and check.
    pub record: KernelRecord,
    /// What a ceiling kernel measured beyond its timing.
    pub extra: Option<ExtraMeasurement>,
}

/// Checks one kernel against its CPU reference, then times it (the two ceiling kernels
/// through their procedures in [`ceilings`]).
pub fn measure_kernel(
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
            source_file: Some(def.source_path().into()),
            launch: Some(Box::new(plan.launch.clone())),
            asked: Some(Box::new(plan.asked.clone())),
            timing: Some(Box::new(timing)),
            check: Some(Box::new(check)),
            ..KernelRecord::new(def.name, def.function)
        },
        extra,
    })
}
