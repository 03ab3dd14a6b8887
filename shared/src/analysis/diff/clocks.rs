//! Clock control read from what a run holds (issue 51, item 2): an export records no ncu
//! command, so the comparability check ([`super::comparable`]) called its clock control
//! "not recorded" and compared a run at ncu's locked base clock with one at
//! `--clock-control none` without a word. Each launch of a details page (or a raw page of
//! the full set, or a report) holds the clock it ran at: the Speed-of-Light section's `SM
//! Frequency`, or `gpc__cycles_elapsed.avg.per_second` / `sm__cycles_elapsed.avg.per_second`.
//!
//! The rule ([`read_clock_control`]), over the run's launches that hold one (two or more):
//! - readings more than [`FLOATING_SPREAD`] apart (of the highest): the clock floated with
//!   the load, so it was not locked: `none`;
//! - readings within [`LOCKED_SPREAD`] of each other, and below [`BOOST_SHARE`] of the
//!   device's quoted boost clock where the run records it: one locked clock, as ncu's
//!   default `--clock-control base` sets: `base`;
//! - else not read (the check still says "not recorded").
//!
//! [`with_clocks_read`] fills the check's `clock_control` where a run records no command
//! and its launches tell; a mismatch is then refused as any other. `capture diff` and MCP's
//! `compare` apply it.

use crate::analysis::metrics;
use crate::model::artifact::{Artifact, LaunchCounters};
use crate::model::counters as c;

use super::comparable::{Comparability, Mismatch, Settings};

/// Readings further apart than this share of the highest: a clock that floated.
pub const FLOATING_SPREAD: f64 = 0.02;

/// Readings within this share of the highest: one locked clock.
pub const LOCKED_SPREAD: f64 = 0.005;

/// A locked clock reads below this share of the device's quoted boost clock.
pub const BOOST_SHARE: f64 = 0.97;

/// The SM clock one launch ran at, Hz: the details page's `SM Frequency`, else the raw
/// page's GPC or SM cycles per second.
pub fn launch_clock_hz(launch: &LaunchCounters) -> Option<f64> {
    metrics::section_metric(
        launch,
        Some(metrics::SOL_SECTION),
        "SM Frequency",
        Some("hz"),
    )
    .or_else(|| metrics::metric(launch, c::GPC_HZ))
    .or_else(|| metrics::metric(launch, c::SM_HZ))
    .filter(|hz| hz.is_finite() && *hz > 0.0)
}

/// A run's clock control as its launches tell it: `base` or `none`, and how it was read.
#[derive(Clone, Debug, PartialEq)]
pub struct ClockReading {
    /// `base` (locked) or `none` (floating), ncu's `--clock-control` words.
    pub control: &'static str,
    /// What was read, in words (`SM Frequency 1.70 to 1.97 GHz over 52 launches`).
    pub why: String,
}

/// `run`'s clock control from its launches' clocks (the module's rule); `None` where fewer
/// than two launches hold one or the readings tell neither.
pub fn read_clock_control(run: &Artifact) -> Option<ClockReading> {
    let hz: Vec<f64> = run
        .kernels
        .iter()
        .flat_map(|k| metrics::reference_launches(k).iter())
        .filter_map(launch_clock_hz)
        .collect();
    if hz.len() < 2 {
        return None;
    }
    let (lo, hi) = hz.iter().fold((f64::INFINITY, 0.0_f64), |(lo, hi), &f| {
        (lo.min(f), hi.max(f))
    });
    let spread = (hi - lo) / hi;
    let n = hz.len();
    if spread > FLOATING_SPREAD {
        return Some(ClockReading {
            control: "none",
            why: format!(
                "SM Frequency {:.2} to {:.2} GHz over {n} launches: not locked",
                lo / 1e9,
                hi / 1e9
            ),
        });
    }
    let boost = run
        .device
        .as_ref()
        .and_then(|d| d.sm_clock_khz)
        .map(|khz| khz as f64 * 1e3);
    if spread <= LOCKED_SPREAD && boost.is_none_or(|b| hi < BOOST_SHARE * b) {
        return Some(ClockReading {
            control: "base",
            why: format!(
                "SM Frequency {:.2} GHz on every one of {n} launches: one locked clock",
                hi / 1e9
            ),
        });
    }
    None
}

/// `check` with each run's clock control read from its launches ([`read_clock_control`])
/// where the run records none and the check left it unknown: a value both runs then have
/// is checked (a mismatch added, as the check adds one), and `clock_control` leaves
/// `unknown`.
pub fn with_clocks_read(
    mut check: Comparability,
    before: &Artifact,
    after: &Artifact,
) -> Comparability {
    let Some(at) = check.unknown.iter().position(|u| u == "clock_control") else {
        return check;
    };
    let side = |run: &Artifact| -> Option<(String, String)> {
        match Settings::of(run).clock_control {
            Some(v) => Some((v.clone(), v)),
            None => read_clock_control(run).map(|r| {
                (
                    r.control.to_string(),
                    format!("{} (read from its launches: {})", r.control, r.why),
                )
            }),
        }
    };
    let (Some((vb, sb)), Some((va, sa))) = (side(before), side(after)) else {
        return check;
    };
    check.unknown.remove(at);
    if vb != va {
        check.mismatches.push(Mismatch {
            what: "clock_control".into(),
            before: sb,
            after: sa,
        });
    }
    check
}
