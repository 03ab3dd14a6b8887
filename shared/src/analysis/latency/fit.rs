//! The launch's fit to the machine: how many waves of blocks the grid makes on the GPU,
//! which resource limits the blocks per SM, whether SMs sat idle or a last partial wave
//! left the GPU half empty, and whether the kernel is so short that launching it costs
//! about as much as running it.
//!
//! A wave is as many blocks as the GPU holds at once: SMs x the blocks per SM that the
//! occupancy limits allow. ncu prints the ratio as `launch__waves_per_multiprocessor`;
//! where an export lacks it, it is worked from the grid, the SM count and the limits.

use crate::analysis::metrics::{self, Occupancy};
use crate::model::artifact::LaunchCounters;
use crate::model::counters::{self as c, Counter};

/// A launch shorter than this (per launch, ns) is about as long as launching it: a few
/// microseconds of launch overhead.
pub const SHORT_LAUNCH_NS: f64 = 5_000.0;

/// A last partial wave is worth naming when it leaves at least this share of the block
/// slots of all waves empty (1.45 waves leave 27.5 % of two waves' slots empty).
pub const TAIL_EMPTY_SHARE: f64 = 0.2;

/// The resource whose limit sets a launch's blocks per SM.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limiter {
    /// Registers per thread x threads per block.
    Registers,
    /// Shared memory per block.
    SharedMem,
    /// Warps per block against the SM's warp slots.
    Warps,
    /// The SM's block slots.
    Blocks,
    /// The SM's barriers.
    Barriers,
}

impl Limiter {
    /// In plain words.
    pub fn as_str(self) -> &'static str {
        match self {
            Limiter::Registers => "registers",
            Limiter::SharedMem => "shared memory",
            Limiter::Warps => "warps",
            Limiter::Blocks => "block slots",
            Limiter::Barriers => "barriers",
        }
    }

    /// The limit of an occupancy.
    fn limit(self, o: &Occupancy) -> Option<f64> {
        match self {
            Limiter::Registers => o.limit_registers,
            Limiter::SharedMem => o.limit_shared_mem,
            Limiter::Warps => o.limit_warps,
            Limiter::Blocks => o.limit_blocks,
            Limiter::Barriers => o.limit_barriers,
        }
    }

    const ALL: [Limiter; 5] = [
        Limiter::Registers,
        Limiter::SharedMem,
        Limiter::Warps,
        Limiter::Blocks,
        Limiter::Barriers,
    ];
}

/// Where a fit's waves came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WavesSource {
    /// ncu's `launch__waves_per_multiprocessor` (or the details page's Waves Per SM).
    Export,
    /// Worked out: blocks / (SMs x blocks per SM).
    Computed,
}

/// How one launch of a kernel fits the GPU.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LaunchFit {
    /// Blocks in the grid.
    pub blocks: Option<f64>,
    /// Threads per block.
    pub threads_per_block: Option<f64>,
    /// SMs of the device.
    pub sm_count: Option<f64>,
    /// Blocks per SM the occupancy limits allow: the smallest `launch__occupancy_limit_*`.
    pub blocks_per_sm: Option<f64>,
    /// The limits that are the smallest (several when tied), in [`Limiter`] order.
    pub limiters: Vec<Limiter>,
    /// Waves per SM: the export's figure where it has one, else the computed one.
    pub waves: Option<f64>,
    /// Where `waves` came from.
    pub waves_source: Option<WavesSource>,
    /// Waves worked from blocks, SMs and blocks per SM, whether or not the export has them.
    pub computed_waves: Option<f64>,
    /// Mean duration of one launch, ns (`gpu__time_duration.sum`).
    pub launch_ns: Option<f64>,
}

/// Blocks over (SMs x blocks per SM); `None` unless all three are positive.
pub fn computed_waves(blocks: f64, sm_count: f64, blocks_per_sm: f64) -> Option<f64> {
    (blocks > 0.0 && sm_count > 0.0 && blocks_per_sm > 0.0)
        .then(|| blocks / (sm_count * blocks_per_sm))
}

fn either(launch: &LaunchCounters, raw: Counter, details: &str) -> Option<f64> {
    metrics::metric(launch, raw).or_else(|| metrics::section_metric(launch, None, details, None))
}

/// The fit of one launch: blocks from `launch__grid_size` (else the grid), SMs from
/// `device__attribute_multiprocessor_count` (else `launch__sm_count`), blocks per SM from
/// the occupancy limits ([`metrics::occupancy`]), waves from
/// `launch__waves_per_multiprocessor` (else the details page's Waves Per SM, else computed).
pub fn fit_of(launch: &LaunchCounters) -> LaunchFit {
    let product = |d: Option<[u32; 3]>| d.map(|d| d.iter().map(|&v| f64::from(v)).product());
    let blocks = either(launch, c::GRID_SIZE, "Grid Size").or_else(|| product(launch.site.grid));
    let threads_per_block = product(launch.site.block);
    let sm_count = metrics::metric(launch, c::SM_COUNT)
        .or_else(|| either(launch, c::LAUNCH_SM_COUNT, "# SMs"));
    let occupancy = metrics::occupancy(launch);
    let limits: Vec<(Limiter, f64)> = Limiter::ALL
        .iter()
        .filter_map(|&l| l.limit(&occupancy).map(|v| (l, v)))
        .collect();
    let blocks_per_sm = limits.iter().map(|(_, v)| *v).reduce(f64::min);
    let limiters = limits
        .iter()
        .filter(|(_, v)| Some(*v) == blocks_per_sm)
        .map(|(l, _)| *l)
        .collect();
    let computed = match (blocks, sm_count, blocks_per_sm) {
        (Some(b), Some(s), Some(p)) => computed_waves(b, s, p),
        _ => None,
    };
    let exported = either(launch, c::WAVES_PER_SM, "Waves Per SM");
    let (waves, waves_source) = match (exported, computed) {
        (Some(w), _) => (Some(w), Some(WavesSource::Export)),
        (None, Some(w)) => (Some(w), Some(WavesSource::Computed)),
        (None, None) => (None, None),
    };
    LaunchFit {
        blocks,
        threads_per_block,
        sm_count,
        blocks_per_sm,
        limiters,
        waves,
        waves_source,
        computed_waves: computed,
        launch_ns: metrics::duration_ns(launch),
    }
}

/// The fit of a kernel: that of its longest launch (launches of one kernel can differ in
/// grid), with the mean duration of its launches.
pub fn launch_fit(launches: &[LaunchCounters]) -> LaunchFit {
    let longest = launches.iter().max_by(|a, b| {
        let d = |l: &LaunchCounters| metrics::duration_ns(l).unwrap_or(f64::NEG_INFINITY);
        d(a).total_cmp(&d(b))
    });
    let Some(longest) = longest else {
        return LaunchFit::default();
    };
    LaunchFit {
        launch_ns: metrics::mean_of(launches, metrics::duration_ns),
        ..fit_of(longest)
    }
}

impl LaunchFit {
    /// SMs without a block, when the grid has fewer blocks than the GPU has SMs.
    pub fn idle_sms(&self) -> Option<f64> {
        let (blocks, sms) = (self.blocks?, self.sm_count?);
        (blocks < sms).then_some(sms - blocks)
    }

    /// Under one wave with every SM busy: the block slots left empty and all of them.
    pub fn empty_slots(&self) -> Option<(f64, f64)> {
        let slots = self.sm_count? * self.blocks_per_sm?;
        let blocks = self.blocks?;
        (self.idle_sms().is_none() && blocks < slots).then_some((slots - blocks, slots))
    }

    /// With more than one wave, how full the last one is (0 to 1), when the partial wave
    /// leaves at least [`TAIL_EMPTY_SHARE`] of all waves' slots empty.
    pub fn tail(&self) -> Option<f64> {
        let w = self.waves?;
        let waves = w.ceil();
        let last = w - w.floor();
        (w > 1.0 && last > 0.0 && (waves - w) / waves >= TAIL_EMPTY_SHARE).then_some(last)
    }

    /// Whether one launch is about as short as launching it ([`SHORT_LAUNCH_NS`]).
    pub fn is_short(&self) -> bool {
        self.launch_ns.is_some_and(|ns| ns < SHORT_LAUNCH_NS)
    }

    /// The waves in one phrase, with what they leave empty: `0.79 waves: 28 of 132 SMs
    /// idle`, `0.50 waves: 132 of 264 block slots empty`, `1.45 waves: the last wave is 45%
    /// full`, or `3.20 waves`. `None` without waves.
    pub fn summary(&self) -> Option<String> {
        let w = self.waves?;
        let detail = if let (Some(idle), Some(sms)) = (self.idle_sms(), self.sm_count) {
            Some(format!("{idle:.0} of {sms:.0} SMs idle"))
        } else if let Some((empty, slots)) = self.empty_slots() {
            Some(format!("{empty:.0} of {slots:.0} block slots empty"))
        } else {
            self.tail()
                .map(|last| format!("the last wave is {:.0}% full", 100.0 * last))
        };
        Some(match detail {
            Some(d) => format!("{w:.2} waves: {d}"),
            None => format!("{w:.2} waves"),
        })
    }

    /// The fit in sentences, for the page beside the stall chart: the grid against the
    /// SMs and what limits the blocks per SM, what the waves leave empty, and, for a launch
    /// about as short as its overhead, the levers.
    pub fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        let mut grid = match (self.blocks, self.threads_per_block) {
            (Some(b), Some(t)) => format!("{b:.0} blocks of {t:.0} threads"),
            (Some(b), None) => format!("{b:.0} blocks"),
            _ => String::new(),
        };
        if let (false, Some(sms)) = (grid.is_empty(), self.sm_count) {
            grid.push_str(&format!(" on {sms:.0} SMs"));
        }
        if let Some(per_sm) = self.blocks_per_sm {
            let limit: Vec<&str> = self.limiters.iter().map(|l| l.as_str()).collect();
            let limit = match limit.as_slice() {
                [] => String::new(),
                [one] => format!(", limited by {one}"),
                [rest @ .., last] => format!(", limited by {} and {last}", rest.join(", ")),
            };
            let plural = if per_sm == 1.0 { "" } else { "s" };
            let part = format!("at most {per_sm:.0} block{plural} per SM{limit}");
            grid = if grid.is_empty() {
                capitalized(&part)
            } else {
                format!("{grid}; {part}")
            };
        }
        if !grid.is_empty() {
            out.push(format!("{grid}."));
        }
        if let Some(w) = self.waves {
            let source = match self.waves_source {
                Some(WavesSource::Computed) => " (worked from the grid, SMs and block limit)",
                _ => "",
            };
            let detail = if let (Some(idle), Some(sms)) = (self.idle_sms(), self.sm_count) {
                format!(": {idle:.0} of the {sms:.0} SMs had no block at all")
            } else if let Some((empty, slots)) = self.empty_slots() {
                format!(": {empty:.0} of {slots:.0} block slots stayed empty")
            } else if let Some(last) = self.tail() {
                format!(
                    ": the last wave is {:.0}% full, so much of the GPU idles while it runs",
                    100.0 * last
                )
            } else {
                String::new()
            };
            out.push(format!("{w:.2} waves per SM{source}{detail}."));
        }
        if let Some(ns) = self.launch_ns.filter(|_| self.is_short()) {
            out.push(format!(
                "{:.1} us per launch: about what launching a kernel costs (a few                  microseconds), so the launch, not the kernel, sets its time. Fusing it with                  its neighbours or replaying the sequence as a CUDA graph are the levers.",
                ns / 1e3
            ));
        }
        out
    }

    /// The short-launch phrase (`3.1 us per launch, about its launch overhead`), when
    /// [`LaunchFit::is_short`].
    pub fn short_note(&self) -> Option<String> {
        let ns = self.launch_ns.filter(|_| self.is_short())?;
        Some(format!(
            "{:.1} us per launch, about its launch overhead",
            ns / 1e3
        ))
    }
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map(|c| c.to_uppercase().chain(chars).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn launch(values: &[(Counter, f64)]) -> LaunchCounters {
        let named: Vec<(&str, f64)> = values.iter().map(|(c, v)| (c.name, *v)).collect();
        LaunchCounters::from_numbers("k", &named)
    }

    /// The ResNet-18 convolution of issue 15: 104 blocks of 384 threads on 132 SMs, one
    /// block per SM, 0.79 waves, 18.7 us.
    fn conv() -> LaunchCounters {
        launch(&[
            (c::GRID_SIZE, 104.0),
            (c::SM_COUNT, 132.0),
            (c::LIMIT_REGISTERS, 1.0),
            (c::LIMIT_WARPS, 5.0),
            (c::LIMIT_BLOCKS, 32.0),
            (c::WAVES_PER_SM, 0.79),
            (c::GPU_TIME_DURATION, 18_700.0),
        ])
    }

    #[test]
    fn too_few_blocks_leave_sms_idle() {
        let f = launch_fit(&[conv()]);
        assert_eq!(f.waves, Some(0.79));
        assert_eq!(f.waves_source, Some(WavesSource::Export));
        assert_eq!(f.limiters, [Limiter::Registers]);
        assert_eq!(f.idle_sms(), Some(28.0));
        assert!(!f.is_short());
        assert_eq!(
            f.summary().as_deref(),
            Some("0.79 waves: 28 of 132 SMs idle")
        );
        let computed = f.computed_waves.expect("computed");
        assert_eq!(format!("{computed:.2}"), "0.79");
        assert_eq!(
            f.notes(),
            [
                "104 blocks on 132 SMs; at most 1 block per SM, limited by registers.",
                "0.79 waves per SM: 28 of the 132 SMs had no block at all."
            ]
        );
    }

    #[test]
    fn waves_are_computed_where_the_export_has_none() {
        let cases = [
            // blocks, SMs, limits (registers, shared, warps, blocks), waves, summary
            (
                384.0,
                132.0,
                [2.0, 3.0, 16.0, 32.0],
                1.4545,
                "1.45 waves: the last wave is 45% full",
            ),
            (
                200.0,
                100.0,
                [4.0, 8.0, 8.0, 32.0],
                0.5,
                "0.50 waves: 200 of 400 block slots empty",
            ),
            (1056.0, 132.0, [16.0, 32.0, 8.0, 32.0], 1.0, "1.00 waves"),
            (4224.0, 132.0, [16.0, 32.0, 8.0, 32.0], 4.0, "4.00 waves"),
            (
                1100.0,
                132.0,
                [16.0, 32.0, 8.0, 32.0],
                1.0417,
                "1.04 waves: the last wave is 4% full",
            ),
        ];
        for (blocks, sms, [r, s, w, b], waves, summary) in cases {
            let l = launch(&[
                (c::GRID_SIZE, blocks),
                (c::SM_COUNT, sms),
                (c::LIMIT_REGISTERS, r),
                (c::LIMIT_SHARED_MEM, s),
                (c::LIMIT_WARPS, w),
                (c::LIMIT_BLOCKS, b),
            ]);
            let f = launch_fit(&[l]);
            assert_eq!(f.waves_source, Some(WavesSource::Computed));
            let got = f.waves.expect("waves");
            assert!((got - waves).abs() < 1e-4, "{blocks}: {got}");
            assert_eq!(f.summary().as_deref(), Some(summary), "{blocks}");
        }
    }

    #[test]
    fn tied_limits_are_all_named_and_short_launches_are_flagged() {
        let l = launch(&[
            (c::LIMIT_REGISTERS, 1.0),
            (c::LIMIT_SHARED_MEM, 1.0),
            (c::LIMIT_WARPS, 5.0),
            (c::LIMIT_BARRIERS, 21.0),
            (c::GPU_TIME_DURATION, 2_900.0),
        ]);
        let f = launch_fit(&[l]);
        assert_eq!(f.limiters, [Limiter::Registers, Limiter::SharedMem]);
        assert_eq!(f.blocks_per_sm, Some(1.0));
        assert_eq!(f.waves, None, "no grid, no SM count");
        assert_eq!(f.summary(), None);
        assert!(f.is_short());
        assert_eq!(
            f.short_note().as_deref(),
            Some("2.9 us per launch, about its launch overhead")
        );
        let notes = f.notes();
        assert_eq!(
            notes[0],
            "At most 1 block per SM, limited by registers and shared memory."
        );
        assert!(notes[1].contains("CUDA graph"), "{notes:?}");
        assert_eq!(notes.len(), 2);
        assert_eq!(launch_fit(&[]), LaunchFit::default());
    }
}
