//! What the views and tables show, worked from the model: work by precision (`work`), the
//! unit that bounds a kernel (`bound`), which roofline level points the counters can draw
//! (`levels`), derived metrics (`metrics`), compute ceilings (`ceilings`), why a kernel is
//! latency-bound (`latency`), every figure of one kernel (`figures`), ncu's rule findings of
//! a kernel ranked (`findings`), import and merge into artifacts (`merge`), sampled profiles
//! planned and scaled (`sampling`), several artifacts read together (`multi`), the bytes
//! table (`table`, its types in `table_row`), launches by NVTX range (`ranges`), the work vector (`work_vector`), run
//! against run (`diff`), each kernel explained for people and agents (`explain`), and the
//! advice a verdict does not give (`advice`).
//!
//! Architecture invariant: every formula the CLI and the viewer show lives here or in
//! [`crate::model::roofline`], so the two can never disagree.

pub mod advice;
pub mod bound;
pub mod ceilings;
// The certificate and the next step are capture's: left out of the viewer's wasm, which
// their mere presence grew by 289 bytes gzip though it calls neither (measured 2026-12-07:
// 800,086 with them, 799,797 without; the guard is 800,000).
#[cfg(not(target_arch = "wasm32"))]
pub mod certificate;
pub mod diff;
pub mod explain;
pub mod figures;
pub mod findings;
pub mod floor;
pub mod groups;
pub mod latency;
pub mod levels;
pub mod merge;
pub mod metrics;
pub mod multi;
pub mod ncu_verdict;
#[cfg(not(target_arch = "wasm32"))]
pub mod next;
pub mod one_pass;
pub mod ranges;
pub mod sampling;
pub mod table;
pub mod table_row;
pub mod trace;
pub mod trace_diff;
pub mod work;
pub mod work_vector;
