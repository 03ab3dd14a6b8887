//! The roofline report viewer.
//!
//! `state` is plain Rust over `shared` types (loading files, view state in the URL, derived
//! table rows, explanations) and is tested natively. The user interface (`app`, pages,
//! components, the canvas bridge) is compiled only for `wasm32-unknown-unknown`.

pub mod state;
