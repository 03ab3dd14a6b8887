//! One module per view. Pages read the shared context and render tables and charts; all
//! numbers come from the state layer.

pub mod bytes;
pub mod compare;
pub mod exercise;
pub mod memory;
pub mod metrics;
pub mod multi;
pub mod occupancy;
pub mod overview;
pub mod roofline;
pub mod sol;
pub mod time;
pub mod timing;

use shared::text::format::{fmt_si, sig3};

/// `-` for an absent value, else `f(value)`.
pub fn opt(value: Option<f64>, f: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "-".to_string(), f)
}

/// A percentage to one decimal, without the unit (the header has it).
pub fn pct(v: f64) -> String {
    format!("{v:.1}")
}

/// Three significant digits.
pub fn num(v: f64) -> String {
    sig3(v)
}

/// Bytes with an SI prefix.
pub fn bytes(v: f64) -> String {
    fmt_si(v, "B")
}

/// Milliseconds to four decimals, as the bytes table prints them.
pub fn ms(v: f64) -> String {
    format!("{v:.4}")
}
