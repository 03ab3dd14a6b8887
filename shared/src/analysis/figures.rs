//! Everything the views show about one kernel of a run, worked once: the bytes-table row
//! ([`crate::analysis::table`]), the Speed-of-Light totals and verdict, occupancy, hit rates, sectors
//! per request and memory flows ([`crate::analysis::metrics`]), the stall breakdown and launch fit
//! ([`crate::analysis::latency`]), and the two ncu time sources.
//!
//! The viewer's pages and charts read these figures and compute none of their own, and
//! every figure comes from the launches [`metrics::reference_launches`] picks (cold, else
//! warm), exactly as `capture table` does, so the page shows what the CLI prints.

use crate::analysis::ceilings::compute_ceilings;
use crate::analysis::latency::{self, Latency};
use crate::analysis::metrics::{self, HitRates, LaunchTotals, Occupancy, SpeedOfLight, Verdict};
use crate::analysis::table::{BytesTable, TableRow};
use crate::analysis::work::{self, Source};
use crate::chart::MemoryFlows;
use crate::model::artifact::Artifact;
use crate::model::artifact::{CacheControl, KernelRecord, LaunchCounters, Timing};
use crate::model::roofline::{self, Bound};
use crate::model::work_kind::Work;
use crate::text::names::{distinct_labels, LABEL_CHARS};

/// Everything the views show about one kernel of a run.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelFigures {
    /// Index of the kernel in the artifact.
    pub index: usize,
    /// Full name, exactly as the file has it (shown as text, never markup).
    pub name: String,
    /// Short name, distinct within the artifact (the bytes table's `short_name`).
    pub short: String,
    /// The short name in at most [`LABEL_CHARS`] characters for a table cell or a list,
    /// distinct within the artifact too ([`distinct_labels`]); the short name alone when the
    /// figures are worked out for one kernel ([`KernelFigures::of`]).
    pub label: String,
    /// The bytes-table row, from [`crate::analysis::table`].
    pub row: TableRow,
    /// Totals over the reference launches, from [`metrics::totals`].
    pub totals: LaunchTotals,
    /// The bytes of each roofline level's point, with why one is missing or flagged
    /// ([`crate::analysis::levels`]): the chart draws these, not the raw byte figures.
    pub levels: crate::analysis::levels::LevelBytes,
    /// Speed-of-Light verdict with its reason.
    pub verdict: Option<Verdict>,
    /// Occupancy of the first launch (the launch configuration is the same for all).
    pub occupancy: Occupancy,
    /// Stall breakdown, launch fit and, when latency-bound, the reason
    /// ([`crate::analysis::latency::latency`], as the table's `stalls`, `waves` and `latency_reason`).
    pub latency: Latency,
    /// Hit rates, mean over launches.
    pub hit_rates: HitRates,
    /// Global sectors per request, loads and stores together, over all launches
    /// ([`metrics::sectors_per_request`]; the memory chart shows the same figure).
    pub sectors_per_request: Option<f64>,
    /// Traffic through the memory hierarchy, summed over launches.
    pub flows: MemoryFlows,
    /// Event timings per launch, when the artifact has them.
    pub event: Option<Timing>,
    /// ncu duration per launch (mean over the cold launches), ms.
    pub ncu_cold_ms: Option<f64>,
    /// ncu duration per launch with warm caches, ms, when captured.
    pub ncu_warm_ms: Option<f64>,
    /// Cache control of the counters the figures come from.
    pub cold_cache: Option<CacheControl>,
    /// Whether any counter launch exists.
    pub has_counters: bool,
    /// Number of raw metrics and section rows across launches, for the metrics view.
    pub metric_count: usize,
}

fn launches_of(set: Option<&crate::model::artifact::CounterSet>) -> &[LaunchCounters] {
    set.map(|c| c.launches.as_slice()).unwrap_or_default()
}

fn mean_ms(launches: &[LaunchCounters]) -> Option<f64> {
    metrics::mean_of(launches, metrics::duration_ns).map(|ns| ns / 1e6)
}

impl KernelFigures {
    /// The figures of every kernel of `artifact`, whose bytes table is `table`
    /// ([`crate::analysis::table::bytes_table`], in artifact order): the rows, short names and time
    /// shares are the table's own.
    pub fn all(artifact: &Artifact, table: &BytesTable) -> Vec<KernelFigures> {
        let mut all = artifact
            .kernels
            .iter()
            .zip(&table.kernels)
            .enumerate()
            .map(|(i, (k, row))| KernelFigures::of(i, k, row.clone()))
            .collect::<Vec<_>>();
        let shorts: Vec<&str> = all.iter().map(|k| k.short.as_str()).collect();
        let labels = distinct_labels(&shorts, LABEL_CHARS);
        for (k, label) in all.iter_mut().zip(labels) {
            k.label = label;
        }
        all
    }

    /// Works out the figures of kernel `index` with its bytes-table row `row`.
    pub fn of(index: usize, kernel: &KernelRecord, row: TableRow) -> Self {
        let launches = metrics::reference_launches(kernel);
        let totals = metrics::totals(launches);
        let short = row.short_name.clone();
        let kv = crate::analysis::groups::kernel_verdict(launches);
        let mut latency = latency::latency(launches, None);
        latency.reason = kv.latency_reason;
        let levels = crate::analysis::levels::of_totals(launches, &totals);
        let mut flows = metrics::memory_flows(&short, launches);
        flows.tma_unseen = levels.unseen_tma.is_some();
        KernelFigures {
            index,
            name: kernel.name.to_string(),
            row,
            latency,
            verdict: kv.verdict,
            levels,
            occupancy: launches.first().map(metrics::occupancy).unwrap_or_default(),
            hit_rates: HitRates {
                l1_pct: metrics::mean_of(launches, |l| metrics::hit_rates(l).l1_pct),
                l2_pct: metrics::mean_of(launches, |l| metrics::hit_rates(l).l2_pct),
            },
            sectors_per_request: metrics::sectors_per_request(launches),
            flows,
            event: kernel.timing.as_deref().cloned(),
            ncu_cold_ms: mean_ms(launches_of(kernel.cold.as_ref())),
            ncu_warm_ms: mean_ms(launches_of(kernel.warm.as_deref())),
            cold_cache: metrics::reference_set(kernel).and_then(|c| c.cache_control),
            has_counters: !launches.is_empty(),
            metric_count: launches
                .iter()
                .map(|l| l.metrics.len() + l.sections.len())
                .sum(),
            label: short.clone(),
            short,
            totals,
        }
    }

    /// The Speed-of-Light percentages (duration-weighted over launches).
    pub fn sol(&self) -> &SpeedOfLight {
        &self.totals.sol
    }

    /// The kind of work this kernel did most of (the table's `precision`), else the kind its
    /// hand count names, else FP32.
    pub fn main_kind(&self, kernel: Option<&KernelRecord>) -> Work {
        self.row
            .precision
            .as_deref()
            .and_then(Work::from_key)
            .or_else(|| {
                kernel
                    .and_then(|k| k.asked.as_ref())
                    .filter(|a| a.flops > 0.0)
                    .map(|a| a.precision)
            })
            .unwrap_or(Work::Fp32)
    }

    /// The counted work of `kind` over the reference launches, when there is any: FLOPs (OPs
    /// for integer kinds) and, where the figure is not the export's plain total, why
    /// (a lower bound, derived from rates, an estimate).
    pub fn work_of(&self, kind: Work) -> Option<(f64, Option<String>)> {
        let w = self.totals.work.get(&kind).filter(|w| w.ops > 0.0)?;
        let note = if !w.missing.is_empty() {
            Some(format!(
                "FLOPs are a lower bound: missing {}",
                w.missing.join(", ")
            ))
        } else {
            match w.source {
                Source::Total => None,
                Source::PerSecond => Some(format!(
                    "{}s derived from a rate x {}",
                    kind.unit(),
                    crate::model::counters::GPU_TIME_DURATION
                )),
                Source::PerCycle => Some(format!(
                    "{}s derived from a per-cycle value x SM cycles",
                    kind.unit()
                )),
                Source::Estimate => Some(format!(
                    "{}s estimated: {} x tensor-pipe instructions (Volta)",
                    kind.unit(),
                    work::VOLTA_FLOP_PER_TENSOR_INST
                )),
            }
        };
        Some((w.ops, note))
    }
}

/// The roof a kernel sits under: which side of its kind's ridge its DRAM intensity falls
/// on, and how close to that roof it runs (at the SM clock it ran at, from
/// [`roof_under_at_run_clock`], with its [`RoofClock`]).
#[derive(Clone, Debug, PartialEq)]
pub struct RoofUnder {
    /// The kind of work (the kernel's main kind).
    pub kind: Work,
    /// Memory (left of the ridge) or compute (right of it).
    pub bound: Bound,
    /// Whether the roof is measured (`capture run`) rather than theoretical.
    pub measured: bool,
    /// Attainable G(FL)OP/s at the kernel's DRAM intensity under that roof (its compute
    /// part at [`RoofClock::clock_hz`] where that is known).
    pub attainable: f64,
    /// Achieved G(FL)OP/s as a percentage of `attainable`.
    pub pct_of_roof: Option<f64>,
}

/// The clocks of a [`RoofUnder`] from [`roof_under_at_run_clock`]: apart from it, so that
/// the viewer, whose views use [`roof_under`] at the peak clock, carries none of it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RoofClock {
    /// The SM clock the roof is drawn at, Hz: the one ncu recorded for the kernel's launches
    /// (`sm__cycles_elapsed.avg.per_second`, duration-weighted) where its time is ncu's;
    /// `None` where the roof stays at the clock of its peak ([`RoofClock::peak_clock_hz`]).
    pub clock_hz: Option<f64>,
    /// The SM clock the compute peak was worked out (the device's boost clock attribute) or
    /// measured at (`capture run`'s held clock), Hz, where known.
    pub peak_clock_hz: Option<f64>,
    /// Achieved as a percentage of the roof at `peak_clock_hz`, where moving the roof to
    /// `clock_hz` changed it (the figure a roof drawn at the peak clock reads); `None` left
    /// of both ridges, where the roof is the bandwidth at any clock.
    pub pct_of_peak_clock: Option<f64>,
}

/// The SM clock kernel `fig` ran at while its time was taken, Hz: ncu's record
/// (`sm__cycles_elapsed.avg.per_second`) where the time is ncu's duration; `None` for an
/// event-timed kernel (its clock was not recorded per launch).
fn run_clock_hz(fig: &KernelFigures) -> Option<f64> {
    match fig.row.time_source? {
        crate::analysis::table_row::TimeSource::NcuDuration => fig.sol().sm_hz,
        crate::analysis::table_row::TimeSource::EventMedian => None,
    }
}

/// The roof kernel `fig` sits under in `artifact`: its main kind's compute ceiling (measured,
/// else theoretical) at the SM clock it ran at ([`RoofClock::clock_hz`]), and the DRAM
/// bandwidth (measured copy, else theoretical), at its DRAM intensity; `None` without FLOPs,
/// bytes, time or a ceiling. `capture explain` says it.
pub fn roof_under_at_run_clock(
    artifact: &Artifact,
    fig: &KernelFigures,
) -> Option<(RoofUnder, RoofClock)> {
    roof_at::<true>(artifact, fig)
}

/// [`roof_under_at_run_clock`] with the compute roof at its peak's clock, whatever clock the
/// kernel ran at: what the viewer's views use (the
/// ranking, the compare page's roofs, the exercises), whose release wasm is at its budget
/// (the clock costs it about 1 KB) until room is made.
pub fn roof_under(artifact: &Artifact, fig: &KernelFigures) -> Option<RoofUnder> {
    roof_at::<false>(artifact, fig).map(|(r, _)| r)
}

fn roof_at<const RUN_CLOCK: bool>(
    artifact: &Artifact,
    fig: &KernelFigures,
) -> Option<(RoofUnder, RoofClock)> {
    let kind = fig.main_kind(artifact.kernels.get(fig.index));
    let (flops, _) = fig.work_of(kind)?;
    let oi = roofline::intensity(flops, fig.row.dram_bytes?)?;
    let c = compute_ceilings(artifact, kind);
    let peak = c.measured.or(c.theoretical)?;
    let peak_clock_hz = if !RUN_CLOCK {
        None
    } else if c.measured.is_some() {
        artifact
            .ceilings
            .as_ref()
            .and_then(|c| c.held_sm_clock_mhz)
            .map(|m| m * 1e6)
    } else {
        artifact
            .device
            .as_ref()
            .and_then(|d| d.sm_clock_khz)
            .map(|k| k as f64 * 1e3)
    };
    let clock_hz = if RUN_CLOCK {
        run_clock_hz(fig).zip(peak_clock_hz)
    } else {
        None
    };
    let at_clock = clock_hz
        .and_then(|(run, of_peak)| roofline::peak_at_clock(peak, of_peak, run))
        .unwrap_or(peak);
    let measured_bw = artifact.ceilings.as_ref().and_then(|c| c.copy_gbyte_per_s);
    let bw = measured_bw.or(artifact.device.as_ref()?.peaks.dram_gbyte_per_s)?;
    let attainable = roofline::attainable_gflop_per_s(oi, at_clock, bw);
    let achieved = roofline::giga_per_s(flops, fig.row.time_ms?)?;
    let at_peak_clock = roofline::attainable_gflop_per_s(oi, peak, bw);
    // Left of both ridges the roof is the bandwidth, whatever the clock.
    let moved = clock_hz.is_some() && at_peak_clock != attainable;
    Some((
        RoofUnder {
            kind,
            bound: roofline::bound(oi, at_clock, bw),
            measured: c.measured.is_some() && measured_bw.is_some(),
            attainable,
            pct_of_roof: roofline::percent_of(achieved, attainable),
        },
        RoofClock {
            clock_hz: clock_hz.map(|(run, _)| run),
            peak_clock_hz,
            pct_of_peak_clock: if moved {
                roofline::percent_of(achieved, at_peak_clock)
            } else {
                None
            },
        },
    ))
}

/// The clocks of a roof in words, for every text that prints a percentage of a roof:
/// `" at the 1.62 GHz it ran; 74 % of the 1.98 GHz peak"` where the roof was moved to the
/// kernel's clock, `" at the 1.98 GHz peak clock"` where it stays at its peak's clock, and
/// nothing where no clock is known.
pub fn roof_clock_words(r: &RoofClock) -> String {
    clock_words(r.clock_hz, r.peak_clock_hz, r.pct_of_peak_clock)
}

/// [`roof_clock_words`] of a roof's clock (`clock_hz`), its peak's clock and the percentage
/// of the roof at the peak clock, as the explain JSON keeps them.
pub fn clock_words(
    clock_hz: Option<f64>,
    peak_clock_hz: Option<f64>,
    pct_of_peak_clock: Option<f64>,
) -> String {
    let ghz = |hz: f64| format!("{:.2} GHz", hz / 1e9);
    match (clock_hz, peak_clock_hz, pct_of_peak_clock) {
        (Some(run), Some(peak), Some(pct)) => {
            format!(
                " at the {} it ran; {pct:.0} % of the {} peak",
                ghz(run),
                ghz(peak)
            )
        }
        (Some(run), _, _) => format!(" at the {} it ran", ghz(run)),
        (None, Some(peak), _) => format!(" at the {} peak clock", ghz(peak)),
        (None, None, _) => String::new(),
    }
}

/// One row of "where the time goes".
#[derive(Clone, Debug, PartialEq)]
pub struct RankRow {
    /// Index of the kernel (into the artifact and the figures).
    pub index: usize,
    /// Its share of the summed kernel time (the table's `time_share`).
    pub share: Option<f64>,
    /// The shares of this row and every row above it.
    pub cumulative: Option<f64>,
    /// The roof it sits under, at its peak's clock ([`roof_under`]).
    pub roof: Option<RoofUnder>,
}

/// The kernels ranked by their share of the summed kernel time, largest first (kernels
/// without a time last, in artifact order), with the running total of the shares.
pub fn ranking(artifact: &Artifact, figures: &[KernelFigures]) -> Vec<RankRow> {
    let mut order: Vec<&KernelFigures> = figures.iter().collect();
    crate::order::sort_by(&mut order, |a, b| {
        let t = |f: &KernelFigures| f.row.time_share.unwrap_or(f64::NEG_INFINITY);
        t(b).total_cmp(&t(a))
    });
    let mut running = 0.0;
    order
        .into_iter()
        .map(|f| {
            let cumulative = f.row.time_share.map(|s| {
                running += s;
                running
            });
            RankRow {
                index: f.index,
                share: f.row.time_share,
                cumulative,
                roof: roof_under(artifact, f),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::CounterSet;
    use crate::model::counters as c;

    fn launch(metrics: &[(crate::model::counters::Counter, f64)]) -> LaunchCounters {
        let named: Vec<(&str, f64)> = metrics.iter().map(|(c, v)| (c.name, *v)).collect();
        LaunchCounters::from_numbers("k", &named)
    }

    fn set(cache: CacheControl, launches: Vec<LaunchCounters>) -> CounterSet {
        CounterSet {
            cache_control: Some(cache),
            launches,
        }
    }

    #[test]
    fn a_warm_only_kernel_has_the_figures_the_table_prints() {
        let l = launch(&[
            (c::DRAM_BYTES_READ, 4_000_000.0),
            (c::DRAM_BYTES_WRITE, 2_000_000.0),
            (c::GPU_TIME_DURATION, 10_000.0),
            (c::SM_THROUGHPUT_PCT, 12.0),
            (c::MEMORY_THROUGHPUT_PCT, 80.0),
            (c::L1_SECTORS_GLOBAL_LD, 400.0),
            (c::L1_REQUESTS_GLOBAL_LD, 100.0),
        ]);
        let mut k = KernelRecord::new("k", "k");
        k.warm = Some(Box::new(set(CacheControl::Warm, vec![l])));
        let f = KernelFigures::of(0, &k, TableRow::of(&k, None));
        assert!(f.has_counters);
        assert_eq!(f.totals.dram_bytes, Some(6_000_000.0));
        assert_eq!(f.totals.dram_bytes, f.row.dram_bytes);
        assert_eq!(
            f.verdict.as_ref().map(|v| v.kind.as_str()),
            f.row.verdict.as_deref()
        );
        assert_eq!(f.row.verdict.as_deref(), Some("memory-bound"));
        assert_eq!(f.sectors_per_request, Some(4.0));
        assert_eq!(f.flows.dram_bytes, Some(6_000_000.0));
        assert_eq!(f.cold_cache, Some(CacheControl::Warm));
        assert_eq!(f.ncu_warm_ms, Some(0.01));
        assert_eq!(f.ncu_cold_ms, None);
    }

    #[test]
    fn kernels_rank_by_time_with_the_roof_they_sit_under() {
        let text =
            include_str!("../../../tests/fixtures/ncu-h200-torch/gpt2_bf16_roofline_set_raw.csv");
        let export = crate::read::ncu::read_export(text.as_bytes()).expect("export");
        let (launches, warnings) = crate::read::ncu::combine(vec![export]);
        let a = crate::analysis::merge::import_launches(launches, warnings, Default::default());
        let table = crate::analysis::table::bytes_table(&a);
        let figs = KernelFigures::all(&a, &table);
        let rows = ranking(&a, &figs);
        assert_eq!(rows.len(), a.kernels.len());
        let last = rows.last().and_then(|r| r.cumulative).expect("cumulative");
        assert!((last - 1.0).abs() < 1e-9, "{last}");
        assert!(rows.windows(2).all(|w| w[0].share >= w[1].share));
        let top = &figs[rows[0].index];
        assert_eq!(top.name, "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT");
        // The ranking's roof (the viewer's) is at the peak clock.
        let ranked = rows[0].roof.as_ref().expect("a roof");
        let (roof, clocks) = &roof_under_at_run_clock(&a, top).expect("a roof");
        assert_eq!(roof.kind, Work::TensorBf16);
        assert_eq!(
            roof.bound,
            Bound::Compute,
            "the 4096^3 matmul is right of the ridge"
        );
        assert!(!roof.measured, "an import has only theoretical roofs");
        // ncu ran it at its locked base clock, 1.62 GHz (1,615,580,248 and 1,618,904,579 Hz
        // recorded for its two launches) of the H200's 1.98 GHz boost: its SOL
        // reads SM 90.3 %, and so does its roof at that clock; at the boost peak it read 73.5 %.
        let clock = clocks.clock_hz.expect("the clock ncu recorded");
        assert!((1.61e9..1.62e9).contains(&clock), "{clock}");
        assert_eq!(clocks.peak_clock_hz, Some(1.98e9));
        let pct = roof.pct_of_roof.expect("pct");
        assert_eq!(
            format!("{pct:.0}"),
            "90",
            "{pct} % of the roof at its clock"
        );
        let at_peak = clocks.pct_of_peak_clock.expect("pct at the peak clock");
        assert_eq!(
            format!("{at_peak:.0}"),
            "74",
            "{at_peak} % of the boost-clock roof"
        );
        assert_eq!(ranked.pct_of_roof, Some(at_peak));
        assert_eq!(
            roof_clock_words(clocks),
            " at the 1.62 GHz it ran; 74 % of the 1.98 GHz peak"
        );
    }

    #[test]
    fn cold_counters_win_over_warm() {
        let cold = launch(&[(c::DRAM_BYTES, 100.0)]);
        let warm = launch(&[(c::DRAM_BYTES, 1.0)]);
        let mut k = KernelRecord::new("k", "k");
        k.cold = Some(set(CacheControl::Cold, vec![cold]));
        k.warm = Some(Box::new(set(CacheControl::Warm, vec![warm])));
        let f = KernelFigures::of(0, &k, TableRow::of(&k, None));
        assert_eq!(f.totals.dram_bytes, Some(100.0));
        assert_eq!(f.row.dram_bytes, Some(100.0));
        assert_eq!(f.cold_cache, Some(CacheControl::Cold));
    }
}
