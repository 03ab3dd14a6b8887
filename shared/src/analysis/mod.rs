//! What the views and tables show, worked from the model: work by precision (`work`),
//! derived metrics (`metrics`), compute ceilings (`ceilings`), why a kernel is latency-bound
//! (`latency`), every figure of one kernel (`figures`), import and merge into artifacts
//! (`merge`), several artifacts read together (`multi`) and the bytes table (`table`).
//!
//! Architecture invariant: every formula the CLI and the viewer show lives here or in
//! [`crate::model::roofline`], so the two can never disagree.

pub mod ceilings;
pub mod figures;
pub mod latency;
pub mod merge;
pub mod metrics;
pub mod multi;
pub mod table;
pub mod work;
