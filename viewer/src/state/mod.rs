//! The viewer's state: plain structs holding `shared` types, with methods, tested natively.
//!
//! - [`load`]: files (artifact JSON, ncu CSV) into runs, with errors that name the file.
//! - [`model`]: the loaded runs with their derived figures; sorting and searching.
//! - [`multi`]: the devices of a host side by side, the ranks of a job compared.
//! - [`kernel`]: per-kernel figures worked with `shared::analysis::metrics`.
//! - [`latency`]: the stall chart and the reasons explained beside it.
//! - [`roofline`]: the roofline chart's numbers and its CSV.
//! - [`view`]: which view, kernel and precision; the URL query string.
//! - [`explain`]: the explanation behind every number.
//! - [`exercise`]: the learner's predictions, answers and diagnoses in the exercise view.
//! - [`exercise_view`]: the exercise view's content as plain markup, and its actions.
//! - [`markup`]: markup as plain data, rendered by `components::markup`.
//! - [`page`]: the pages and sections built as markup, and the actions they send.
//! - [`window`]: which rows of a long table to render.

pub mod exercise;
pub mod exercise_view;
pub mod explain;
pub mod kernel;
pub mod latency;
pub mod load;
pub mod markup;
pub mod model;
pub mod multi;
pub mod page;
pub mod roofline;
pub mod view;
pub mod window;
