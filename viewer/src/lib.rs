//! The roofline report viewer.
//!
//! `state` is plain Rust over `shared` types (loading files, view state in the URL, derived
//! figures, explanations) and is tested natively. The user interface (`app`, the shell;
//! `ctx`, the reactive context pages and components share; `pages`; `components`; and
//! `browser`, the thin layer over web APIs) is compiled only for `wasm32-unknown-unknown`;
//! `main.rs` only mounts `app::App`.

#![forbid(unsafe_code)]

pub mod state;

#[cfg(target_arch = "wasm32")]
pub mod app;
#[cfg(target_arch = "wasm32")]
pub mod browser;
#[cfg(target_arch = "wasm32")]
pub mod components;
#[cfg(target_arch = "wasm32")]
pub mod ctx;
#[cfg(target_arch = "wasm32")]
pub mod pages;
