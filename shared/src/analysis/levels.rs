//! Which memory level's roofline point a kernel gets, and from which bytes: a point at a
//! level comes only from byte counters that see that level's traffic, and a point at a
//! higher intensity than the level below it is flagged.
//!
//! **L1.** `l1tex__t_bytes` counts the requests of the LSU and texture paths. A Hopper GEMM
//! (cuBLAS's nvjet, cuDNN's flash attention) moves its operands by TMA from L2 straight into
//! shared memory, which that counter never sees: GPT-2's 4096^3 bf16 GEMM shows 12 kB of L1
//! traffic for 1 GB through L2, an L1 point near 1e7 FLOP/B. Two counters do see it:
//! `l1tex__m_xbar2l1tex_read_bytes.sum`, every byte L2 returned into L1TEX (any path), and
//! `l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld.sum`, the part TMA loads brought.
//! Checked on BERT's nvjet GEMM in a `--set full` export: 196,608 B on the LSU path plus
//! 62,914,560 B of TMA loads is exactly the 63,111,168 B L1TEX received from L2. So:
//!
//! - the L1 point's bytes are the L1/TEX bytes plus the TMA-loaded bytes where the export
//!   has them;
//! - where the export has the fill counter, those bytes must cover what L1TEX received from
//!   L2 (to [`COVER_TOLERANCE`]), else there is no L1 point (some traffic bypassed the counters), and a note says so;
//! - without the fill counter (exports made without it, such as `capture profile`'s before
//!   it was added), a tensor-core kernel whose L1 bytes are below its L2 bytes gets no L1
//!   point: its operands may come by TMA, and nothing in the export can show they did not.
//!
//! **Order.** A level's point to the right of the level below it (L1 bytes below L2's, L2
//! bytes below DRAM's) is drawn, flagged with a note: `lts__t_bytes` counts every client of
//! L2, and streaming kernels on the H200 show more L2 than L1 bytes.

use serde::{Deserialize, Serialize};

use crate::model::artifact::LaunchCounters;
use crate::model::counters as c;
use crate::text::format::fmt_si;

/// How much of what L1TEX received from L2 the L1 point's bytes may miss and still count as
/// covering it: cuDNN's flash attention in the BERT export is 6 kB (0.07 %) short of its
/// 9.45 MB fill, the nvjet GEMMs are exact.
pub const COVER_TOLERANCE: f64 = 0.01;

/// The bytes of each level's point (`None`: no point), with why a point is missing,
/// re-counted or flagged.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelBytes {
    /// DRAM bytes of the point.
    pub dram: Option<f64>,
    /// L2 bytes of the point.
    pub l2: Option<f64>,
    /// L1 bytes of the point: the L1/TEX bytes plus TMA loads where counted.
    pub l1: Option<f64>,
    /// Why a point is missing, how its bytes were counted, or why it is flagged.
    pub notes: Vec<String>,
    /// Which of `notes` flag a point (a level with fewer bytes than the one beyond it), by
    /// place: the viewer says them in one line with their count.
    #[serde(skip)]
    pub flagged: Vec<usize>,
    /// Which of `notes`, if any, says a tensor kernel has no L1 point because nothing in
    /// the export shows its TMA traffic ([`tma_unseen`]): the viewer names such kernels
    /// in one line (GPT-2 had five lines of it under its roofline).
    #[serde(skip)]
    pub unseen_tma: Option<usize>,
}

/// The level points of a kernel's `launches`, whose summed DRAM, L2 and L1/TEX bytes are
/// `dram`, `l2` and `l1` ([`crate::analysis::metrics::totals`]); `tensor` says whether it did
/// tensor-core work (module documentation).
pub fn level_bytes(
    launches: &[LaunchCounters],
    dram: Option<f64>,
    l2: Option<f64>,
    l1: Option<f64>,
    tensor: bool,
) -> LevelBytes {
    let mut notes: Vec<String> = Vec::new();
    let mut unseen_tma = None;
    // Notes are joined from pieces, not `format!`ed: the viewer's wasm is on a budget.
    let b = |v: Option<f64>| fmt_si(v.unwrap_or_default(), "B");
    let tma = sum_named(launches, c::L1_TMA_LOAD_BYTES.name).filter(|t| *t > 0.0);
    let fill = sum_named(launches, c::L1_FROM_L2_BYTES.name);
    let mut l1_point = l1;
    if let (Some(lsu), Some(t)) = (l1, tma) {
        l1_point = Some(lsu + t);
        notes.push(
            [
                "L1 point: ",
                &b(l1),
                " LSU + ",
                &b(tma),
                " TMA loads (",
                c::L1_TMA_LOAD_BYTES.name,
                "), unseen by ",
                c::L1_BYTES.name,
            ]
            .concat(),
        );
    }
    let no_fill = fill.is_none() && tensor && l1_point.zip(l2).is_some_and(|(s, l2)| s < l2);
    let short = fill
        .zip(l1_point)
        .is_some_and(|(f, s)| s < f * (1.0 - COVER_TOLERANCE));
    if short {
        notes.push(
            [
                "no L1 point: counters see ",
                &b(l1_point),
                " of the ",
                &b(fill),
                " from L2 (",
                c::L1_FROM_L2_BYTES.name,
                ")",
            ]
            .concat(),
        );
    } else if no_fill {
        unseen_tma = Some(notes.len());
        notes.push(
            [
                "no L1 point: tensor kernel, ",
                &b(l1_point),
                " at L1 < ",
                &b(l2),
                " at L2 (",
                &tma_unseen(),
                ")",
            ]
            .concat(),
        );
    }
    if short || no_fill {
        l1_point = None;
    }
    let below = |a: Option<f64>, b: Option<f64>| a.zip(b).is_some_and(|(a, b)| a > 0.0 && a < b);
    let mut flagged = Vec::new();
    if below(l1_point, l2) {
        flagged.push(notes.len());
        notes.push(["L1 point flagged: ", &b(l1_point), " < L2's ", &b(l2)].concat());
    }
    if below(l2, dram) {
        flagged.push(notes.len());
        notes.push(["L2 point flagged: ", &b(l2), " < DRAM's ", &b(dram)].concat());
    }
    LevelBytes {
        dram,
        l2,
        l1: l1_point,
        notes,
        flagged,
        unseen_tma,
    }
}

/// Why a tensor kernel without the fill counter gets no L1 point: `TMA unseen by
/// l1tex__t_bytes.sum, no l1tex__m_xbar2l1tex_read_bytes.sum`.
pub fn tma_unseen() -> String {
    [
        "TMA unseen by ",
        c::L1_BYTES.name,
        ", no ",
        c::L1_FROM_L2_BYTES.name,
    ]
    .concat()
}

/// The sum of metric `name` over the launches that have it; `None` when none has. By name,
/// so the viewer's wasm carries no catalog meaning text for it.
fn sum_named(launches: &[LaunchCounters], name: &str) -> Option<f64> {
    launches
        .iter()
        .filter_map(|l| l.metrics.number(name))
        .reduce(|a, b| a + b)
}

/// [`level_bytes`] of a kernel's `launches` and their [`crate::analysis::metrics::totals`]: the table
/// and the viewer's roofline both call this.
pub fn of_totals(
    launches: &[LaunchCounters],
    totals: &crate::analysis::metrics::LaunchTotals,
) -> LevelBytes {
    let tensor = totals
        .work
        .iter()
        .any(|(k, w)| k.is_tensor() && w.ops > 0.0);
    level_bytes(
        launches,
        totals.dram_bytes,
        totals.l2_bytes,
        totals.l1_bytes,
        tensor,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::metrics::totals;
    use crate::analysis::work;
    use crate::model::work_kind::Work;

    fn export(text: &str) -> Vec<LaunchCounters> {
        crate::read::ncu::read_export(text.as_bytes())
            .expect("reads")
            .launches
    }

    #[test]
    fn bert_gemm_l1_bytes_cover_what_l2_sent_once_tma_is_counted() {
        let launches = export(include_str!(
            "../../../tests/fixtures/ncu-h200-bert/bert_full_raw.csv"
        ));
        let gemms: Vec<LaunchCounters> = launches
            .into_iter()
            .filter(|l| l.function.starts_with("nvjet_sm90_tst_192x128"))
            .collect();
        assert_eq!(gemms.len(), 2);
        let t = totals(&gemms);
        let tensor = t.work.keys().any(|k| k.is_tensor());
        let lv = level_bytes(&gemms, t.dram_bytes, t.l2_bytes, t.l1_bytes, tensor);
        let fill = sum_named(&gemms, c::L1_FROM_L2_BYTES.name).expect("fill");
        assert_eq!(fill, 2.0 * 63_111_168.0);
        assert_eq!(
            lv.l1,
            Some(fill),
            "LSU bytes plus TMA loads are what L2 sent"
        );
        assert!(lv.l1 > t.l2_bytes, "L1 left of L2 once TMA is seen");
        assert!(lv.notes[0].starts_with("L1 point:"), "{:?}", lv.notes);
        // Its tensor FLOPs stay 2MNK-exact (the existing counters).
        let flops = t.work.get(&Work::TensorBf16).expect("bf16").ops;
        assert!(flops > 0.0 && work::flops_total(&t.work) >= flops);
    }

    #[test]
    fn without_the_fill_counter_a_tma_gemm_gets_no_l1_point() {
        // GPT-2's 4096^3 GEMM from capture profile (no L1TEX fill counter in that list).
        let launches = export(&crate::testing::gunzip_text(include_bytes!(
            "../../../site/samples/h200-gpt2-bf16-ncu-cold-raw.csv.gz"
        )));
        let gemm: Vec<LaunchCounters> = launches
            .into_iter()
            .filter(|l| l.function.starts_with("nvjet_sm90_tst_256x128"))
            .collect();
        let t = totals(&gemm);
        let lv = level_bytes(&gemm, t.dram_bytes, t.l2_bytes, t.l1_bytes, true);
        assert_eq!(lv.l1, None);
        assert!(lv.notes[0].starts_with("no L1 point"), "{:?}", lv.notes);
        // Not a tensor kernel: drawn, and flagged when right of L2.
        let lv = level_bytes(&[], Some(10.0), Some(8.0), Some(4.0), false);
        assert_eq!(lv.l1, Some(4.0));
        assert_eq!(lv.notes.len(), 2, "{:?}", lv.notes);
    }
}
