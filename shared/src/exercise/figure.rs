//! The figures an exercise quotes: one name per report row or derived figure, with the label
//! the report gives it, the counters it is read from (through [`crate::model::counters`]) and its
//! value for one kernel of an artifact, taken from [`crate::analysis::figures::KernelFigures`] and
//! [`crate::analysis::table::TableRow`], never worked again here.
//!
//! The question file names figures by their snake-case name (`memory_pct`), so a question
//! can say which row settles it and the viewer can show that row's value from the sample.

use serde::{Deserialize, Deserializer};

use crate::analysis::ceilings::compute_ceilings;
use crate::analysis::figures::{roof_under, KernelFigures};
use crate::analysis::metrics;
use crate::model::artifact::{Artifact, KernelRecord};
use crate::model::counters::{self as c, Counter};
use crate::model::roofline;
use crate::text::format::{fmt_si, sig3};

/// A figure of a kernel (or of its run) that a question or a mystery card shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Figure {
    /// Bytes the algorithm asks for, counted by hand from the source.
    AskBytes,
    /// DRAM bytes read plus written.
    DramBytes,
    /// DRAM bytes read.
    DramReadBytes,
    /// DRAM bytes written.
    DramWriteBytes,
    /// Bytes through L1/TEX.
    L1Bytes,
    /// Bytes through the L2 slices.
    L2Bytes,
    /// DRAM bytes over asked bytes.
    DramPerAsk,
    /// DRAM GB/s as a percentage of the measured copy ceiling.
    PctOfCopy,
    /// Asked bytes over the time, as a percentage of the measured copy ceiling.
    AskPctOfCopy,
    /// The bytes table's time (event median, else ncu duration), ms.
    TimeMs,
    /// ncu's duration, ms.
    NcuMs,
    /// GFLOP/s of all floating-point work.
    GflopsTotal,
    /// Asked FLOPs over asked bytes.
    AskIntensity,
    /// The main kind's counted FLOPs over DRAM bytes.
    DramIntensity,
    /// The attainable GFLOP/s at the asked intensity under the measured (else theoretical)
    /// roofs of the kernel's main kind.
    AskRoofGflops,
    /// The theoretical dense peak of the kernel's main kind of work, GFLOP/s.
    KindPeakGflops,
    /// Achieved GFLOP/s of its main kind as a percentage of the roof it sits under.
    PctOfRoof,
    /// Compute (SM) Throughput, %.
    SmPct,
    /// Memory Throughput (the busiest memory unit), %.
    MemoryPct,
    /// DRAM Throughput, %.
    DramPct,
    /// L1/TEX Cache Throughput, %.
    L1Pct,
    /// L2 Cache Throughput, %.
    L2Pct,
    /// SM frequency during the launch, Hz.
    SmHz,
    /// L1/TEX sector hit rate, %.
    L1HitPct,
    /// L2 sector hit rate, %.
    L2HitPct,
    /// Global sectors per request, loads and stores together.
    SectorsPerRequest,
    /// Global load and store requests.
    GlobalRequests,
    /// Global load and store sectors at L1/TEX.
    GlobalSectors,
    /// Theoretical occupancy, %.
    TheoreticalOccupancyPct,
    /// Achieved occupancy, %.
    AchievedOccupancyPct,
    /// Registers per thread.
    RegistersPerThread,
    /// Blocks in the grid.
    GridBlocks,
    /// Threads per block.
    BlockThreads,
    /// The Speed-of-Light verdict.
    Verdict,
    /// The device's L2 cache size, bytes (run level).
    DeviceL2Bytes,
    /// The device's SM clock attribute (the boost clock), Hz (run level).
    DeviceSmClockHz,
    /// The measured copy ceiling, GB/s (run level).
    CopyGbs,
    /// The measured ridge point, FLOP per byte (run level).
    Ridge,
}

impl Figure {
    /// Every figure, in declaration order.
    pub const ALL: [Figure; 38] = [
        Figure::AskBytes,
        Figure::DramBytes,
        Figure::DramReadBytes,
        Figure::DramWriteBytes,
        Figure::L1Bytes,
        Figure::L2Bytes,
        Figure::DramPerAsk,
        Figure::PctOfCopy,
        Figure::AskPctOfCopy,
        Figure::TimeMs,
        Figure::NcuMs,
        Figure::GflopsTotal,
        Figure::AskIntensity,
        Figure::DramIntensity,
        Figure::AskRoofGflops,
        Figure::KindPeakGflops,
        Figure::PctOfRoof,
        Figure::SmPct,
        Figure::MemoryPct,
        Figure::DramPct,
        Figure::L1Pct,
        Figure::L2Pct,
        Figure::SmHz,
        Figure::L1HitPct,
        Figure::L2HitPct,
        Figure::SectorsPerRequest,
        Figure::GlobalRequests,
        Figure::GlobalSectors,
        Figure::TheoreticalOccupancyPct,
        Figure::AchievedOccupancyPct,
        Figure::RegistersPerThread,
        Figure::GridBlocks,
        Figure::BlockThreads,
        Figure::Verdict,
        Figure::DeviceL2Bytes,
        Figure::DeviceSmClockHz,
        Figure::CopyGbs,
        Figure::Ridge,
    ];

    /// Its name in the question file: the variant in snake case (`memory_pct`).
    pub fn key(self) -> &'static str {
        match self {
            Figure::AskBytes => "ask_bytes",
            Figure::DramBytes => "dram_bytes",
            Figure::DramReadBytes => "dram_read_bytes",
            Figure::DramWriteBytes => "dram_write_bytes",
            Figure::L1Bytes => "l1_bytes",
            Figure::L2Bytes => "l2_bytes",
            Figure::DramPerAsk => "dram_per_ask",
            Figure::PctOfCopy => "pct_of_copy",
            Figure::AskPctOfCopy => "ask_pct_of_copy",
            Figure::TimeMs => "time_ms",
            Figure::NcuMs => "ncu_ms",
            Figure::GflopsTotal => "gflops_total",
            Figure::AskIntensity => "ask_intensity",
            Figure::DramIntensity => "dram_intensity",
            Figure::AskRoofGflops => "ask_roof_gflops",
            Figure::KindPeakGflops => "kind_peak_gflops",
            Figure::PctOfRoof => "pct_of_roof",
            Figure::SmPct => "sm_pct",
            Figure::MemoryPct => "memory_pct",
            Figure::DramPct => "dram_pct",
            Figure::L1Pct => "l1_pct",
            Figure::L2Pct => "l2_pct",
            Figure::SmHz => "sm_hz",
            Figure::L1HitPct => "l1_hit_pct",
            Figure::L2HitPct => "l2_hit_pct",
            Figure::SectorsPerRequest => "sectors_per_request",
            Figure::GlobalRequests => "global_requests",
            Figure::GlobalSectors => "global_sectors",
            Figure::TheoreticalOccupancyPct => "theoretical_occupancy_pct",
            Figure::AchievedOccupancyPct => "achieved_occupancy_pct",
            Figure::RegistersPerThread => "registers_per_thread",
            Figure::GridBlocks => "grid_blocks",
            Figure::BlockThreads => "block_threads",
            Figure::Verdict => "verdict",
            Figure::DeviceL2Bytes => "device_l2_bytes",
            Figure::DeviceSmClockHz => "device_sm_clock_hz",
            Figure::CopyGbs => "copy_gbs",
            Figure::Ridge => "ridge",
        }
    }

    /// The figure named `key`.
    pub fn from_key(key: &str) -> Option<Figure> {
        Figure::ALL.into_iter().find(|f| f.key() == key)
    }
}

/// Read by name ([`Figure::key`]); an unknown name is an error that names it.
impl<'de> Deserialize<'de> for Figure {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let key = String::deserialize(d)?;
        Figure::from_key(&key)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown figure `{key}`")))
    }
}

/// A figure's value.
#[derive(Clone, Debug, PartialEq)]
pub enum FigureValue {
    /// A number, in the figure's unit.
    Number(f64),
    /// A word (a verdict).
    Text(String),
}

impl FigureValue {
    /// The number, if it is one.
    pub fn number(&self) -> Option<f64> {
        match self {
            FigureValue::Number(v) => Some(*v),
            FigureValue::Text(_) => None,
        }
    }
}

impl Figure {
    /// The row's name as the report or the bytes table prints it.
    pub fn label(self) -> &'static str {
        match self {
            Figure::AskBytes => "asked bytes (hand count)",
            Figure::DramBytes => "DRAM bytes (read + write)",
            Figure::DramReadBytes => "DRAM bytes read",
            Figure::DramWriteBytes => "DRAM bytes written",
            Figure::L1Bytes => "L1/TEX bytes",
            Figure::L2Bytes => "L2 bytes",
            Figure::DramPerAsk => "DRAM/ask",
            Figure::PctOfCopy => "DRAM GB/s, % of the copy ceiling",
            Figure::AskPctOfCopy => "asked bytes per second, % of the copy ceiling",
            Figure::TimeMs => "time (bytes table)",
            Figure::NcuMs => "Duration (ncu)",
            Figure::GflopsTotal => "GFLOP/s, all floating-point work",
            Figure::AskIntensity => "intensity at the asked bytes",
            Figure::DramIntensity => "intensity at the DRAM bytes",
            Figure::AskRoofGflops => "roof at the asked intensity",
            Figure::KindPeakGflops => "dense peak of its kind of work",
            Figure::PctOfRoof => "% of the roof it sits under",
            Figure::SmPct => "Compute (SM) Throughput",
            Figure::MemoryPct => "Memory Throughput",
            Figure::DramPct => "DRAM Throughput",
            Figure::L1Pct => "L1/TEX Cache Throughput",
            Figure::L2Pct => "L2 Cache Throughput",
            Figure::SmHz => "SM Frequency",
            Figure::L1HitPct => "L1/TEX Hit Rate",
            Figure::L2HitPct => "L2 Hit Rate",
            Figure::SectorsPerRequest => "sectors per request (global)",
            Figure::GlobalRequests => "global requests (loads + stores)",
            Figure::GlobalSectors => "global sectors (loads + stores)",
            Figure::TheoreticalOccupancyPct => "Theoretical Occupancy",
            Figure::AchievedOccupancyPct => "Achieved Occupancy",
            Figure::RegistersPerThread => "Registers Per Thread",
            Figure::GridBlocks => "Grid Size (blocks)",
            Figure::BlockThreads => "Block Size (threads)",
            Figure::Verdict => "Speed-of-Light verdict",
            Figure::DeviceL2Bytes => "L2 cache size (device)",
            Figure::DeviceSmClockHz => "SM clock attribute (device)",
            Figure::CopyGbs => "copy ceiling (measured)",
            Figure::Ridge => "ridge point (measured)",
        }
    }

    /// The counters the figure is read from; empty for hand counts, launch shapes and
    /// measured ceilings.
    pub fn counters(self) -> &'static [Counter] {
        match self {
            Figure::DramBytes | Figure::DramPerAsk | Figure::PctOfCopy => {
                &[c::DRAM_BYTES_READ, c::DRAM_BYTES_WRITE]
            }
            Figure::DramReadBytes => &[c::DRAM_BYTES_READ],
            Figure::DramWriteBytes => &[c::DRAM_BYTES_WRITE],
            Figure::L1Bytes => &[c::L1_BYTES],
            Figure::L2Bytes => &[c::L2_BYTES],
            Figure::NcuMs => &[c::GPU_TIME_DURATION],
            Figure::SmPct => &[c::SM_THROUGHPUT_PCT],
            Figure::MemoryPct => &[c::MEMORY_THROUGHPUT_PCT],
            Figure::DramPct => &[c::DRAM_THROUGHPUT_PCT],
            Figure::L1Pct => &[c::L1_THROUGHPUT_PCT],
            Figure::L2Pct => &[c::L2_THROUGHPUT_PCT],
            Figure::SmHz => &[c::SM_HZ],
            Figure::L1HitPct => &[c::L1_HIT_PCT],
            Figure::L2HitPct => &[c::L2_HIT_PCT],
            Figure::SectorsPerRequest | Figure::GlobalRequests | Figure::GlobalSectors => &[
                c::L1_SECTORS_GLOBAL_LD,
                c::L1_SECTORS_GLOBAL_ST,
                c::L1_REQUESTS_GLOBAL_LD,
                c::L1_REQUESTS_GLOBAL_ST,
            ],
            Figure::TheoreticalOccupancyPct => &[c::THEORETICAL_OCCUPANCY_PCT],
            Figure::AchievedOccupancyPct => &[c::ACHIEVED_OCCUPANCY_PCT],
            Figure::RegistersPerThread => &[c::REGISTERS_PER_THREAD],
            Figure::Verdict => &[c::SM_THROUGHPUT_PCT, c::MEMORY_THROUGHPUT_PCT],
            Figure::DeviceL2Bytes => &[c::L2_CACHE_BYTES],
            Figure::DeviceSmClockHz => &[c::SM_CLOCK_KHZ],
            Figure::AskBytes
            | Figure::AskPctOfCopy
            | Figure::TimeMs
            | Figure::GflopsTotal
            | Figure::AskIntensity
            | Figure::DramIntensity
            | Figure::AskRoofGflops
            | Figure::KindPeakGflops
            | Figure::PctOfRoof
            | Figure::GridBlocks
            | Figure::BlockThreads
            | Figure::CopyGbs
            | Figure::Ridge => &[],
        }
    }

    /// Whether the figure belongs to the run (device, ceilings) rather than to one kernel.
    pub fn is_run_level(self) -> bool {
        matches!(
            self,
            Figure::DeviceL2Bytes | Figure::DeviceSmClockHz | Figure::CopyGbs | Figure::Ridge
        )
    }

    /// The figure's value for kernel `fig` of `artifact` (ignored for run-level figures);
    /// `None` where the artifact lacks what it needs.
    pub fn value(self, artifact: &Artifact, fig: Option<&KernelFigures>) -> Option<FigureValue> {
        let num = |v: Option<f64>| v.map(FigureValue::Number);
        let device = artifact.device.as_ref();
        let ceilings = artifact.ceilings.as_ref();
        if self.is_run_level() {
            return num(match self {
                Figure::DeviceL2Bytes => device.and_then(|d| d.l2_bytes).map(|b| b as f64),
                Figure::DeviceSmClockHz => {
                    device.and_then(|d| d.sm_clock_khz).map(|k| k as f64 * 1e3)
                }
                Figure::CopyGbs => ceilings.and_then(|c| c.copy_gbyte_per_s),
                _ => ceilings.and_then(|c| c.ridge_flop_per_byte),
            });
        }
        let fig = fig?;
        let row = &fig.row;
        let record = artifact.kernels.get(fig.index);
        let sol = fig.sol();
        let flows = &fig.flows;
        let (grid, block) = record.map(launch_shape).unwrap_or_default();
        let main_flops = || {
            fig.work_of(fig.main_kind(record))
                .map(|(f, _)| f)
                .or(row.ask_flops)
        };
        let copy = ceilings.and_then(|c| c.copy_gbyte_per_s);
        match self {
            Figure::Verdict => fig
                .verdict
                .as_ref()
                .map(|v| FigureValue::Text(v.kind.as_str().to_string())),
            Figure::AskBytes => num(row.ask_bytes),
            Figure::DramBytes => num(row.dram_bytes),
            Figure::DramReadBytes => num(flows.dram_read_bytes),
            Figure::DramWriteBytes => num(flows.dram_write_bytes),
            Figure::L1Bytes => num(row.l1_bytes),
            Figure::L2Bytes => num(row.l2_bytes),
            Figure::DramPerAsk => num(row.dram_per_ask),
            Figure::PctOfCopy => num(row.pct_of_copy),
            Figure::AskPctOfCopy => num(row
                .ask_bytes
                .zip(row.time_ms)
                .and_then(|(b, t)| roofline::giga_per_s(b, t))
                .zip(copy)
                .and_then(|(g, c)| roofline::percent_of(g, c))),
            Figure::TimeMs => num(row.time_ms),
            Figure::NcuMs => num(fig.ncu_cold_ms.or(fig.ncu_warm_ms)),
            Figure::GflopsTotal => num(row.gflops_total),
            Figure::AskIntensity => num(row
                .ask_flops
                .zip(row.ask_bytes)
                .and_then(|(f, b)| roofline::intensity(f, b))),
            Figure::DramIntensity => num(main_flops()
                .zip(row.dram_bytes)
                .and_then(|(f, b)| roofline::intensity(f, b))),
            Figure::AskRoofGflops => {
                let kind = fig.main_kind(record);
                let roofs = compute_ceilings(artifact, kind);
                let peak = roofs.measured.or(roofs.theoretical);
                let bw = copy.or(device.and_then(|d| d.peaks.dram_gbyte_per_s));
                let oi = row
                    .ask_flops
                    .zip(row.ask_bytes)
                    .and_then(|(f, b)| roofline::intensity(f, b));
                num(match (oi, peak, bw) {
                    (Some(oi), Some(p), Some(bw)) => {
                        Some(roofline::attainable_gflop_per_s(oi, p, bw))
                    }
                    _ => None,
                })
            }
            Figure::KindPeakGflops => {
                num(compute_ceilings(artifact, fig.main_kind(record)).theoretical)
            }
            Figure::PctOfRoof => num(roof_under(artifact, fig).and_then(|r| r.pct_of_roof)),
            Figure::SmPct => num(sol.sm_pct),
            Figure::MemoryPct => num(sol.memory_pct),
            Figure::DramPct => num(sol.dram_pct),
            Figure::L1Pct => num(sol.l1_pct),
            Figure::L2Pct => num(sol.l2_pct),
            Figure::SmHz => num(sol.sm_hz),
            Figure::L1HitPct => num(fig.hit_rates.l1_pct),
            Figure::L2HitPct => num(fig.hit_rates.l2_pct),
            Figure::SectorsPerRequest => num(fig.sectors_per_request),
            Figure::GlobalRequests => num(flows.global_requests),
            Figure::GlobalSectors => num(flows.l1_sectors),
            Figure::TheoreticalOccupancyPct => num(fig.occupancy.theoretical_pct),
            Figure::AchievedOccupancyPct => num(fig.occupancy.achieved_pct),
            Figure::RegistersPerThread => num(fig.occupancy.registers_per_thread),
            Figure::GridBlocks => num(grid.map(|g| g.iter().map(|&v| f64::from(v)).product())),
            Figure::BlockThreads => num(block.map(|b| b.iter().map(|&v| f64::from(v)).product())),
            Figure::DeviceL2Bytes | Figure::DeviceSmClockHz | Figure::CopyGbs | Figure::Ridge => {
                None
            }
        }
    }

    /// A value written for people in the figure's unit (`81.2 %`, `2.10 MB`, `1.98 GHz`,
    /// DRAM/ask to four decimals as the bytes table prints it).
    pub fn format(self, value: &FigureValue) -> String {
        let v = match value {
            FigureValue::Text(t) => return t.clone(),
            FigureValue::Number(v) => *v,
        };
        match self {
            Figure::AskBytes
            | Figure::DramBytes
            | Figure::DramReadBytes
            | Figure::DramWriteBytes
            | Figure::L1Bytes
            | Figure::L2Bytes => fmt_si(v, "B"),
            Figure::DeviceL2Bytes => mib(v),
            Figure::DramPerAsk => format!("{v:.4}"),
            Figure::PctOfCopy
            | Figure::AskPctOfCopy
            | Figure::PctOfRoof
            | Figure::SmPct
            | Figure::MemoryPct
            | Figure::DramPct
            | Figure::L1Pct
            | Figure::L2Pct
            | Figure::L1HitPct
            | Figure::L2HitPct
            | Figure::TheoreticalOccupancyPct
            | Figure::AchievedOccupancyPct => format!("{v:.1} %"),
            Figure::TimeMs | Figure::NcuMs => format!("{v:.4} ms"),
            Figure::GflopsTotal | Figure::AskRoofGflops | Figure::KindPeakGflops => {
                fmt_si(v * 1e9, "FLOP/s")
            }
            Figure::CopyGbs => fmt_si(v * 1e9, "B/s"),
            Figure::AskIntensity | Figure::DramIntensity | Figure::Ridge => {
                format!("{} FLOP/byte", sig3(v))
            }
            Figure::SmHz | Figure::DeviceSmClockHz => fmt_si(v, "Hz"),
            Figure::SectorsPerRequest => sig3(v),
            Figure::GlobalRequests | Figure::GlobalSectors => fmt_si(v, ""),
            Figure::RegistersPerThread | Figure::GridBlocks | Figure::BlockThreads => {
                format!("{v:.0}")
            }
            Figure::Verdict => sig3(v),
        }
    }
}

/// Bytes in MiB when at least one (a cache size: `60 MiB`), else with an SI prefix.
pub fn mib(bytes: f64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    if bytes >= MIB {
        format!("{} MiB", sig3(bytes / MIB))
    } else {
        fmt_si(bytes, "B")
    }
}

/// The index of the kernel called `name` in `figures`: its short name (the bytes table's)
/// or its full name.
pub fn find_kernel(figures: &[KernelFigures], name: &str) -> Option<usize> {
    figures
        .iter()
        .find(|f| f.short == name)
        .or_else(|| figures.iter().find(|f| f.name == name))
        .map(|f| f.index)
}

/// The asked bytes' element width, bytes (4 for FP32), from the hand count's kind of work;
/// `None` for a type narrower than a byte.
pub fn element_bytes(kernel: Option<&KernelRecord>) -> Option<f64> {
    use crate::model::work_kind::Work;
    kernel
        .and_then(|k| k.asked.as_ref())
        .and_then(|a| match a.precision {
            Work::Fp64 | Work::TensorFp64 => Some(8.0),
            Work::Fp32 | Work::TensorTf32 => Some(4.0),
            Work::Fp16 | Work::TensorFp16 | Work::TensorBf16 | Work::TensorFp16Bf16Tf32 => {
                Some(2.0)
            }
            Work::TensorFp8 | Work::TensorInt8 => Some(1.0),
            Work::TensorFp6 | Work::TensorFp4 | Work::TensorInt4 | Work::TensorInt1 => None,
        })
}

/// The fewest 32-byte sectors one warp request of consecutive `element_bytes` values can
/// touch: 32 lanes x the width over the sector size (4 for `float`).
pub fn ideal_sectors_per_request(element_bytes: f64) -> f64 {
    32.0 * element_bytes / metrics::SECTOR_BYTES
}

/// A kernel's grid and block: the suite's launch plan, else its first profiled launch's own
/// (an imported application has no plan).
fn launch_shape(kernel: &KernelRecord) -> (Option<[u32; 3]>, Option<[u32; 3]>) {
    let first = crate::analysis::metrics::reference_launches(kernel).first();
    match kernel.launch.as_ref() {
        Some(plan) => (Some(plan.grid), Some(plan.block)),
        None => (
            first.and_then(|l| l.site.grid),
            first.and_then(|l| l.site.block),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_through_json() {
        for (f, name) in [
            (Figure::MemoryPct, "memory_pct"),
            (Figure::DramPerAsk, "dram_per_ask"),
            (Figure::DeviceL2Bytes, "device_l2_bytes"),
            (Figure::L1HitPct, "l1_hit_pct"),
        ] {
            assert_eq!(f.key(), name);
            assert_eq!(
                serde_json::from_str::<Figure>(&format!("\"{name}\"")).ok(),
                Some(f)
            );
        }
        for (i, f) in Figure::ALL.iter().enumerate() {
            assert_eq!(Figure::from_key(f.key()), Some(*f));
            assert!(Figure::ALL[..i].iter().all(|g| g.key() != f.key()));
        }
        let err = serde_json::from_str::<Figure>("\"memory_throughput\"").expect_err("unknown");
        assert!(err.to_string().contains("memory_throughput"), "{err}");
    }

    #[test]
    fn values_are_written_in_their_units() {
        let cases = [
            (Figure::MemoryPct, 81.224, "81.2 %"),
            (Figure::DramPerAsk, 0.001_956_459, "0.0020"),
            (Figure::DramBytes, 2_102_784.0, "2.10 MB"),
            (Figure::DeviceL2Bytes, 62_914_560.0, "60.0 MiB"),
            (Figure::SmHz, 1.98e9, "1.98 GHz"),
            (Figure::DramIntensity, 127.66, "128 FLOP/byte"),
            (Figure::GflopsTotal, 786_264.0, "786 TFLOP/s"),
        ];
        for (f, v, want) in cases {
            assert_eq!(f.format(&FigureValue::Number(v)), want, "{f:?}");
        }
        assert_eq!(ideal_sectors_per_request(4.0), 4.0);
        assert_eq!(ideal_sectors_per_request(8.0), 8.0);
    }
}
