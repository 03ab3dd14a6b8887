//! Reusable leptos components: the loader, the run and kernel lists, chart canvases, the
//! shell's pieces (front page, errors, warning banner, explanation panel), terms that
//! explain themselves, and long tables rendered a window at a time.

pub mod canvas;
pub mod kernel_list;
pub mod loader;
pub mod shell;
pub mod term;
pub mod virtual_table;
