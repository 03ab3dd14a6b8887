//! A physical floor under every time (issue 37, item 4): the least time a kernel's counted
//! work allows on its GPU. Its DRAM bytes cannot cross the memory bus faster than the
//! device's theoretical DRAM bandwidth, and its operations of each kind cannot run faster
//! than that kind's theoretical dense peak; the floor is the largest of those times (the
//! kinds may overlap, so they are not added). Theoretical peaks, not the measured
//! ceilings: a kernel may beat a measured ceiling, never the hardware's peak, so a time
//! under the floor is a wrong time (a timer, an edit, a sample from another run), never a
//! fast kernel. Leaderboards have been fooled by times no hardware could reach.

use crate::analysis::table::{TableCeilings, TableRow};

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

#[cfg(test)]
mod tests {
    use super::*;

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
