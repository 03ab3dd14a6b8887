//! Nsight Systems' exports into the artifact's trace ([`crate::model::trace`]), for users
//! who already have them: the CSV of `nsys stats` (kernel and memory-time summaries, no
//! timeline: [`stats`]) and the rows of its SQLite export (every kernel, copy and NVTX
//! range with its times: [`export`], nested as `capture trace`'s records are).

pub mod export;
pub mod stats;
