//! Per-kernel figures for the views: Speed of Light, occupancy, hit rates, memory flows and
//! the two time sources, all worked by [`shared::metrics`] and [`shared::table`] so the page
//! shows what `capture table` prints.

use shared::artifact::{CacheControl, KernelRecord, LaunchCounters, Timing};
use shared::chart::names::shorten_kernel_name;
use shared::chart::MemoryFlows;
use shared::metrics::{self, HitRates, LaunchTotals, Occupancy, SpeedOfLight, Verdict};
use shared::table::TableRow;

/// Longest label drawn beside a roofline point or in a narrow list.
pub const SHORT_NAME_CHARS: usize = 28;

/// Everything the views show about one kernel of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelFigures {
    /// Index of the kernel in the artifact.
    pub index: usize,
    /// Full name, exactly as the file has it (shown as text, never markup).
    pub name: String,
    /// Shortened name for labels.
    pub short: String,
    /// The bytes-table row, from [`shared::table`].
    pub row: TableRow,
    /// Totals over the cold launches, from [`shared::metrics::totals`].
    pub totals: LaunchTotals,
    /// Speed-of-Light verdict with its reason.
    pub verdict: Option<Verdict>,
    /// Occupancy of the first launch (the launch configuration is the same for all).
    pub occupancy: Occupancy,
    /// Hit rates, mean over launches.
    pub hit_rates: HitRates,
    /// Global-load sectors per request, over all launches.
    pub sectors_per_request: Option<f64>,
    /// Traffic through the memory hierarchy, summed over launches.
    pub flows: MemoryFlows,
    /// Event timings per launch, when the artifact has them.
    pub event: Option<Timing>,
    /// ncu duration per launch (mean over the cold launches), ms.
    pub ncu_cold_ms: Option<f64>,
    /// ncu duration per launch with warm caches, ms, when captured.
    pub ncu_warm_ms: Option<f64>,
    /// Cache control of the cold counters.
    pub cold_cache: Option<CacheControl>,
    /// Whether any counter launch exists.
    pub has_counters: bool,
    /// Number of raw metrics and section rows across launches, for the metrics view.
    pub metric_count: usize,
}

fn sum_over(launches: &[LaunchCounters], names: &[&str]) -> Option<f64> {
    let mut total = 0.0;
    let mut any = false;
    for launch in launches {
        for name in names {
            if let Some(v) = metrics::metric(launch, name) {
                total += v;
                any = true;
            }
        }
    }
    any.then_some(total)
}

fn mean_of(launches: &[LaunchCounters], f: impl Fn(&LaunchCounters) -> Option<f64>) -> Option<f64> {
    let values: Vec<f64> = launches.iter().filter_map(f).collect();
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Memory flows of a kernel's launches, from the counters the memory chart names.
pub fn memory_flows(label: &str, launches: &[LaunchCounters]) -> MemoryFlows {
    let global_ld = [
        "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    ];
    let sectors = [
        "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
        "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    ];
    let shared = [
        "smsp__sass_inst_executed_op_shared_ld.sum",
        "smsp__sass_inst_executed_op_shared_st.sum",
    ];
    let dram_read = sum_over(launches, &["dram__bytes_read.sum"]).or_else(|| {
        sum_over(launches, &["dram__sectors_read.sum"]).map(|s| s * metrics::SECTOR_BYTES)
    });
    let dram_write = sum_over(launches, &["dram__bytes_write.sum"]).or_else(|| {
        sum_over(launches, &["dram__sectors_write.sum"]).map(|s| s * metrics::SECTOR_BYTES)
    });
    let totals = metrics::totals(launches);
    MemoryFlows {
        kernel_label: label.to_string(),
        global_requests: sum_over(launches, &global_ld),
        l1_sectors: sum_over(launches, &sectors),
        l1_bytes: totals.l1_bytes,
        shared_requests: sum_over(launches, &shared),
        shared_bytes: None,
        l1_hit_pct: mean_of(launches, |l| metrics::hit_rates(l).l1_pct),
        l2_bytes: totals.l2_bytes,
        l2_sectors: sum_over(launches, &["lts__t_sectors.sum"]),
        l2_hit_pct: mean_of(launches, |l| metrics::hit_rates(l).l2_pct),
        dram_read_bytes: dram_read,
        dram_write_bytes: dram_write,
    }
}

impl KernelFigures {
    /// Works out the figures of kernel `index` of an artifact whose measured copy ceiling
    /// is `copy_gbs`.
    pub fn of(index: usize, kernel: &KernelRecord, copy_gbs: Option<f64>) -> Self {
        let launches: &[LaunchCounters] = kernel
            .cold
            .as_ref()
            .map(|c| c.launches.as_slice())
            .unwrap_or_default();
        let warm: &[LaunchCounters] = kernel
            .warm
            .as_ref()
            .map(|c| c.launches.as_slice())
            .unwrap_or_default();
        let totals = metrics::totals(launches);
        let short = shorten_kernel_name(&kernel.name, SHORT_NAME_CHARS);
        let sectors = sum_over(
            launches,
            &["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"],
        );
        let requests = sum_over(
            launches,
            &["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"],
        );
        KernelFigures {
            index,
            name: kernel.name.clone(),
            row: TableRow::of(kernel, copy_gbs),
            verdict: metrics::verdict(&totals.sol),
            occupancy: launches.first().map(metrics::occupancy).unwrap_or_default(),
            hit_rates: HitRates {
                l1_pct: mean_of(launches, |l| metrics::hit_rates(l).l1_pct),
                l2_pct: mean_of(launches, |l| metrics::hit_rates(l).l2_pct),
            },
            sectors_per_request: sectors
                .zip(requests)
                .and_then(|(s, r)| (r > 0.0).then(|| s / r)),
            flows: memory_flows(&short, launches),
            event: kernel.timing.clone(),
            ncu_cold_ms: mean_of(launches, metrics::duration_ns).map(|ns| ns / 1e6),
            ncu_warm_ms: mean_of(warm, metrics::duration_ns).map(|ns| ns / 1e6),
            cold_cache: kernel.cold.as_ref().and_then(|c| c.cache_control),
            has_counters: !launches.is_empty(),
            metric_count: launches
                .iter()
                .map(|l| l.metrics.len() + l.sections.len())
                .sum(),
            short,
            totals,
        }
    }

    /// The Speed-of-Light percentages (duration-weighted over launches).
    pub fn sol(&self) -> &SpeedOfLight {
        &self.totals.sol
    }
}
