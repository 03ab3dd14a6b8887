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

use leptos::prelude::*;
use shared::text::format::{fmt_si, sig3};

use crate::components::markup::markup_host;
use crate::components::virtual_table::{rows_memo, Rows};
use crate::ctx::Ctx;
use crate::state::page::PageNode;

/// A page of a table: its text above (markup, rebuilt when what `intro` reads changes),
/// then `rest`. One function for every such page, so they share its code.
pub fn table_page(
    class: &'static str,
    id: &'static str,
    intro: Box<dyn Fn() -> PageNode>,
    rest: AnyView,
) -> impl IntoView {
    view! {
        <div class=class id=id>
            {markup_host(intro, None)}
            {rest}
        </div>
    }
}

/// The rows of a table of every kernel of the current run, in artifact order.
pub fn kernel_rows() -> Memo<Rows> {
    let ctx = Ctx::get();
    rows_memo(move || {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| (0..r.kernels.len()).collect())
                .unwrap_or_default()
        })
    })
}

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
