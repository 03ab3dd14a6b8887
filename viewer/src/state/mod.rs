//! The viewer's state: plain structs holding `shared` types, with methods, tested natively.
//! Pages (`pages/`, leptos components) render what these build.
//!
//! - [`load`]: files (artifact JSON, ncu CSV) into runs, with errors that name the file.
//! - [`model`]: the loaded runs with their derived figures; sorting and searching.
//! - [`multi`]: the devices of a host side by side, the ranks of a job compared.
//! - [`kernel`]: per-kernel figures worked with `shared::analysis::metrics`.
//! - [`latency`]: the stall chart and the reasons explained beside it.
//! - [`roofline`]: the roofline chart's numbers and its CSV.
//! - [`rules`]: Nsight Compute's rule findings of a kernel, ranked, with their cited metrics.
//! - [`view`]: which view, kernel and precision; the URL query string.
//! - [`explain`]: the explanation behind every number.
//! - [`choices`]: the learner's predictions, answers and diagnoses in the exercise view, what
//!   it may show before an answer is committed, and their URL form.
//! - [`exercise`]: the actions that change those choices, the prediction rows and a
//!   mystery kernel's report.
//! - [`overview`]: what the overview of a run shows.
//! - [`table`]: the rows and headers of the long tables.
//! - [`compare`]: the compare page's key figures of two kernels.
//! - [`source`]: a kernel's SASS with per-instruction figures and hot spots.
//! - [`shell`]: the warning banner and the side bar's kernel list.
//! - [`window`]: which rows of a long table to render.
//! - [`profile`]: the range tree read as a profile (siblings by time, open rows, the
//!   largest path).

#[cfg(test)]
mod chart_golden;
pub mod choices;
pub mod compare;
pub mod exercise;
pub mod explain;
pub mod kernel;
pub mod latency;
pub mod load;
pub mod model;
pub mod multi;
pub mod overview;
pub mod profile;
pub mod roofline;
pub mod rules;
pub mod shell;
pub mod source;
pub mod table;
#[cfg(test)]
mod test_support;
pub mod view;
pub mod window;
