//! Reusable leptos components: the loader, the run and kernel lists, chart canvases, the
//! shell's pieces (front page, errors, warning banner, explanation panel), terms that
//! explain themselves, long tables rendered a window at a time, the run-against-run table
//! of the compare page, and the NVTX range tree that narrows a run to part of the program.

pub mod canvas;
pub mod kernel_list;
pub mod loader;
pub mod range_tree;
pub mod run_diff;
pub mod shell;
pub mod term;
pub mod virtual_table;
