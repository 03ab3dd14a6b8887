//! The measured ceilings: the procedures that time the two ceiling kernels with more than
//! their own launches (the FMA ceiling between two spins of the clock kernel, the copy
//! ceiling beside the driver's memcpy of the same buffers), and the arithmetic that turns
//! the ceiling kernels' medians into the artifact's [`MeasuredCeilings`].
//!
//! `mod.rs` measures every kernel and calls [`fma`] or [`copy`] for those two roles; every
//! formula here (rate, held clock, ridge) is `shared::model::roofline`'s.

use anyhow::{Context, Result};
use shared::model::artifact::{
    CeilingMeasurement, Check, DeviceInfo, KernelRecord, MeasuredCeilings, Timing,
};
use shared::model::roofline::{giga_per_s, held_clock_mhz, ridge};

use super::runner::{DevBuf, Gpu, WARMUPS};
use super::suite::{self, CeilingKind, KernelDef, Plan, Role, Sizes};
use super::{checks, console, data, stats};

/// Timed launches of the clock kernel on each side of the FMA ceiling's repetitions.
pub const CLOCK_REPS: u32 = 3;

/// A measurement taken beside a ceiling kernel, not by a kernel of the suite.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extra {
    /// The driver's device-to-device memcpy of the copy ceiling's buffers.
    Memcpy,
    /// The clock kernel spinning [`suite::CLOCK_CYCLES`] cycles on each side of the FMA
    /// ceiling: the SM clock held under that load.
    HeldClock,
}

impl Extra {
    /// Its name in the artifact's `ceilings.measurements` (a public format: never renamed).
    pub fn as_str(self) -> &'static str {
        match self {
            Extra::Memcpy => "memcpy",
            Extra::HeldClock => "clock",
        }
    }
}

/// One [`Extra`] measurement: what it moved and how long it took.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtraMeasurement {
    /// Which measurement.
    pub kind: Extra,
    /// Bytes moved per repetition (0 for the clock).
    pub bytes: f64,
    /// Event times of its repetitions.
    pub timing: Timing,
}

impl ExtraMeasurement {
    /// As the artifact records it.
    fn into_artifact(self) -> CeilingMeasurement {
        CeilingMeasurement {
            name: self.kind.as_str().to_string(),
            bytes: self.bytes,
            flops: 0.0,
            timing: self.timing,
        }
    }
}

/// What a ceiling procedure measured: the ceiling kernel's own timing, the check of what it
/// measured beside it, and that measurement.
pub struct Ceiling {
    /// Event times of the ceiling kernel.
    pub timing: Timing,
    /// The check of the extra measurement (joined to the kernel's own check by the caller).
    pub check: Check,
    /// The extra measurement.
    pub extra: ExtraMeasurement,
}

/// The FMA ceiling: warm the SMs up, spin the clock kernel, time the FMA repetitions, spin
/// the clock kernel again. The held clock is the median of both spins, so it is read under
/// the same load; it is checked against the clock attribute for plausibility.
pub fn fma(
    gpu: &Gpu,
    sizes: &Sizes,
    info: &DeviceInfo,
    def: &KernelDef,
    plan: &Plan,
    bufs: &[DevBuf],
    reps: u32,
) -> Result<Ceiling> {
    let launch = || gpu.launch(def.function, plan, bufs);
    let clock_out = gpu.alloc(&suite::BufferSpec {
        name: "clock_out",
        elem: suite::Elem::F32,
        len: sizes.fma_threads(),
        fill: suite::Fill::Poison,
    })?;
    let spin = || {
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
    for _ in 0..WARMUPS {
        launch()?;
    }
    let before = spin()?;
    let timing = gpu.time(WARMUPS, reps, launch)?;
    let after = spin()?;
    let mut samples = before.samples_ms.clone();
    samples.extend(&after.samples_ms);
    let clock = stats::timing(0, samples).context("no clock samples")?;
    let mhz = held_clock_mhz(suite::CLOCK_CYCLES as f64, clock.median_ms);
    let attr_mhz = info.sm_clock_khz.map(|k| k as f64 / 1e3);
    let plausible = mhz.is_some_and(|mhz| attr_mhz.is_none_or(|a| mhz > 0.2 * a && mhz < 1.2 * a));
    let check = checks::condition(
        plausible,
        format!(
            "held SM clock {} MHz from {} cycles spun under FMA load (attribute {} MHz){}",
            console::or_unknown(mhz.map(|m| format!("{m:.0}"))),
            suite::CLOCK_CYCLES,
            console::or_unknown(attr_mhz.map(|a| format!("{a:.0}"))),
            if plausible {
                ""
            } else {
                ": implausible, the clock kernel is broken"
            }
        ),
    );
    Ok(Ceiling {
        timing,
        check,
        extra: ExtraMeasurement {
            kind: Extra::HeldClock,
            bytes: 0.0,
            timing: clock,
        },
    })
}

/// The copy ceiling, then the driver's device-to-device memcpy of the same buffers, checked
/// the same way (every element) and timed the same way.
pub fn copy(
    gpu: &Gpu,
    def: &KernelDef,
    plan: &Plan,
    bufs: &mut [DevBuf],
    reps: u32,
) -> Result<Ceiling> {
    let timing = gpu.time(WARMUPS, reps, || gpu.launch(def.function, plan, bufs))?;
    let no_pair = || {
        anyhow::anyhow!(
            "{}: the copy plan needs an input and an output",
            def.function
        )
    };
    let (Some(out_spec), [src, dst, ..]) = (plan.buffers.get(1), &mut *bufs) else {
        return Err(no_pair());
    };
    gpu.fill(dst, out_spec)?;
    gpu.memcpy(src, dst)?;
    gpu.sync()?;
    let copied = gpu.outputs(plan, bufs)?;
    let check = match copied.f32(1) {
        Ok(out) => {
            let seed = plan.seed(0);
            checks::exact_f32("driver memcpy dst = src", out, checks::Coverage::All, |i| {
                data::hash_value(i as u64, seed)
            })
        }
        Err(e) => checks::broken("memcpy", &e),
    };
    drop(copied);
    let [src, dst, ..] = bufs else {
        return Err(no_pair());
    };
    let memcpy = gpu.time(WARMUPS, reps, || gpu.memcpy(src, dst))?;
    Ok(Ceiling {
        timing,
        check,
        extra: ExtraMeasurement {
            kind: Extra::Memcpy,
            bytes: plan.asked.bytes,
            timing: memcpy,
        },
    })
}

/// Measured ceilings from the ceiling kernels' records (asked work over the event median)
/// and the extra measurements; `None` when no ceiling kernel was timed.
pub fn ceilings_of(
    kernels: &[&KernelDef],
    records: &[KernelRecord],
    extra: Vec<ExtraMeasurement>,
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
        c.measurements.push(CeilingMeasurement {
            name: kind.as_str().to_string(),
            bytes: asked.bytes,
            flops: asked.flops,
            timing: (**timing).clone(),
        });
    }
    for m in extra {
        match m.kind {
            Extra::Memcpy => c.memcpy_gbyte_per_s = giga_per_s(m.bytes, m.timing.median_ms),
            Extra::HeldClock => {
                c.held_sm_clock_mhz = held_clock_mhz(suite::CLOCK_CYCLES as f64, m.timing.median_ms)
            }
        }
        c.measurements.push(m.into_artifact());
    }
    c.ridge_flop_per_byte = ridge(c.fma_gflop_per_s, c.copy_gbyte_per_s);
    any.then_some(c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ceilings_come_from_medians() {
        let defs: Vec<&KernelDef> = suite::SUITE.iter().take(4).collect();
        let t = |ms: f64| stats::timing(0, vec![ms]).unwrap_or_else(|| panic!("timing"));
        let records: Vec<KernelRecord> = defs
            .iter()
            .map(|d| KernelRecord {
                asked: Some(Box::new(shared::model::artifact::AskedWork {
                    bytes: 4e9,
                    flops: 6e10,
                    precision: shared::model::artifact::Precision::Fp32,
                    formula: String::new(),
                })),
                timing: Some(Box::new(t(1.0))),
                ..KernelRecord::new(d.name, d.function)
            })
            .collect();
        let extra = vec![
            ExtraMeasurement {
                kind: Extra::Memcpy,
                bytes: 4e9,
                timing: t(2.0),
            },
            ExtraMeasurement {
                kind: Extra::HeldClock,
                bytes: 0.0,
                timing: t(10.0),
            },
        ];
        let c = ceilings_of(&defs, &records, extra).unwrap_or_else(|| panic!("ceilings"));
        assert_eq!(c.copy_gbyte_per_s, Some(4000.0));
        assert_eq!(c.memcpy_gbyte_per_s, Some(2000.0));
        assert_eq!(c.fma_gflop_per_s, Some(60000.0));
        assert_eq!(c.ridge_flop_per_byte, Some(15.0));
        assert_eq!(c.held_sm_clock_mhz, Some(2000.0), "2e7 cycles in 10 ms");
        assert_eq!(c.measurements.len(), 6);
        let names: Vec<&str> = c.measurements.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["copy", "read", "l2_copy", "fma", "memcpy", "clock"]);
    }
}
