//! A physical floor under every time (issue 37, item 4): the least time a kernel's counted
//! work allows on its GPU. Its DRAM bytes cannot cross the memory bus faster than the
//! device's theoretical DRAM bandwidth, and its operations of each kind cannot run faster
//! than that kind's theoretical dense peak; the floor is the largest of those times (the
//! kinds may overlap, so they are not added). Theoretical peaks, not the measured
//! ceilings: a kernel may beat a measured ceiling, never the hardware's peak, so a time
//! under the floor is a wrong time (a timer, an edit, a sample from another run), never a
//! fast kernel. Leaderboards have been fooled by times no hardware could reach.

use crate::analysis::table_row::{TableCeilings, TableRow};

/// How far under the floor a time may be before it is flagged: the theoretical peaks are
/// printed to whole GB/s and GFLOP/s and ncu's durations to the nanosecond.
pub const SLACK: f64 = 0.01;

/// The least time a row's counted work allows, and what sets it.
#[derive(Clone, Debug, PartialEq)]
pub struct Floor {
    /// The floor, ms (summed over the row's launches, like its time).
    pub ms: f64,
    /// What sets it, in words: `4294.97 MB of DRAM traffic at 4814 GB/s`.
    pub limiter: String,
}

/// The floor of `row` under `ceilings` (its table's theoretical peaks); `None` without
/// counted work whose peak is known.
pub fn floor(row: &TableRow, ceilings: &TableCeilings) -> Option<Floor> {
    let mut best: Option<Floor> = None;
    let mut consider = |ms: f64, limiter: String| {
        if ms.is_finite() && ms > 0.0 && best.as_ref().is_none_or(|b| ms > b.ms) {
            best = Some(Floor { ms, limiter });
        }
    };
    if let (Some(bytes), Some(gbs)) = (row.dram_bytes, ceilings.theoretical_gbs) {
        if gbs > 0.0 {
            consider(
                bytes / (gbs * 1e9) * 1e3,
                format!("{:.2} MB of DRAM traffic at {gbs:.0} GB/s", bytes / 1e6),
            );
        }
    }
    for (kind, ops) in &row.flops_by_precision {
        if let Some(Some(g)) = ceilings.theoretical.get(kind) {
            if *g > 0.0 {
                consider(
                    ops / (g * 1e9) * 1e3,
                    format!("{ops:.4e} {kind} operations at their peak of {g:.0} G/s"),
                );
            }
        }
    }
    best
}

/// Why `row`'s time is below its physical floor, in one line; `None` when it is not (or
/// either is unknown).
pub fn below_floor(row: &TableRow, ceilings: &TableCeilings) -> Option<String> {
    let time = row.time_ms?;
    let f = floor(row, ceilings)?;
    (time < f.ms * (1.0 - SLACK)).then(|| {
        format!(
            "time {time:.4} ms is below the physical floor of {:.4} ms ({}): no GPU of this \
             kind can do this work that fast, so the time is wrong",
            f.ms, f.limiter
        )
    })
}

/// How far a kernel's CUDA-event time may stray from ncu's `gpu__time_duration` (as a
/// fraction, either way) before the two are said to disagree. Measured on the H200: over 20
/// `capture run`s of the suite (400 kernel timings) the event median over ncu's mean
/// duration ran from 0.917 (the bf16 tensor-core matmul, cold under ncu) to 1.047; the band
/// is about three times the widest of those.
pub const TIMERS_BAND: f64 = 0.25;

/// Why a row's CUDA-event time cannot stand beside ncu's own duration of the same launches,
/// in one line; `None` when they agree within [`TIMERS_BAND`] or either is missing. One of
/// them timed something else (another stream's work, a sample from another run, an edit).
pub fn timers_disagree(event_ms: Option<f64>, ncu_ms: Option<f64>) -> Option<String> {
    let (event, ncu) = (event_ms?, ncu_ms?);
    if !(event > 0.0 && ncu > 0.0 && event.is_finite() && ncu.is_finite()) {
        return None;
    }
    let r = event / ncu;
    (!(1.0 / (1.0 + TIMERS_BAND)..=1.0 + TIMERS_BAND).contains(&r)).then(|| {
        format!(
            "the CUDA-event time {event:.4} ms is {r:.2}x ncu's duration of the same launches \
             ({ncu:.4} ms), beyond the {:.0} % the two timers differ by on a sound run: one \
             of them timed something else",
            TIMERS_BAND * 100.0
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timers_that_disagree_are_named() {
        // The H200 suite's widest honest pair (bf16 matmul, 0.1328 ms by events and
        // 0.1449 ms by ncu) agrees; the same events halved do not.
        assert_eq!(timers_disagree(Some(0.1328), Some(0.1449)), None);
        let why = timers_disagree(Some(0.0664), Some(0.1449)).expect("flagged");
        assert!(why.contains("0.46x ncu's duration"), "{why}");
        assert!(timers_disagree(Some(0.5), Some(0.3)).is_some());
        assert_eq!(timers_disagree(None, Some(0.3)), None);
        assert_eq!(timers_disagree(Some(0.3), Some(0.0)), None);
    }

    #[test]
    fn a_copy_faster_than_the_bus_is_flagged() {
        let mut ceilings = TableCeilings {
            theoretical_gbs: Some(4814.0),
            ..Default::default()
        };
        ceilings
            .theoretical
            .insert("tensor_bf16".into(), Some(1_070_531.0));
        // The H200 sample's 4 GB copy: 8.59 GB read and written in 2.0 ms is under the
        // bus's 4814 GB/s; in 1.5 ms it would not be.
        let mut row = TableRow {
            dram_bytes: Some(8.59e9),
            time_ms: Some(2.0),
            ..Default::default()
        };
        assert_eq!(below_floor(&row, &ceilings), None);
        let f = floor(&row, &ceilings).expect("a floor");
        assert!((f.ms - 8.59e9 / 4814e9 * 1e3).abs() < 1e-9);
        row.time_ms = Some(1.5);
        let why = below_floor(&row, &ceilings).expect("flagged");
        assert!(why.contains("DRAM traffic at 4814 GB/s"), "{why}");
        // A bf16 GEMM of 2 x 4096^3 FLOPs cannot take under 0.128 ms.
        let gemm = TableRow {
            flops_by_precision: [("tensor_bf16".to_string(), 137_438_953_472.0)].into(),
            time_ms: Some(0.1),
            ..Default::default()
        };
        assert!(below_floor(&gemm, &ceilings).is_some_and(|w| w.contains("tensor_bf16")));
        assert_eq!(below_floor(&TableRow::default(), &ceilings), None);
    }
}
