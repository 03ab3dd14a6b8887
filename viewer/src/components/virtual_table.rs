//! Long tables rendered a window at a time: the rows scrolled into view and a margin either
//! side are in the page, and two spacers stand in for the rest, so a table of 10,000
//! kernels scrolls as smoothly as one of ten. The arithmetic is `state::window`.
//!
//! Rows are one line high (the table's cells do not wrap; long text ends in an ellipsis
//! with the whole text on hover) and the height of a rendered row is measured, so the
//! spacers match the rows they replace. The table keeps its place for assistive
//! technology: `aria-rowcount` on the table, `aria-rowindex` on every row
//! (`state::page::tables::aria_row`).

use std::sync::Arc;

use leptos::html::{Div, Table, Tbody, Thead};
use leptos::prelude::*;

use crate::components::markup::{fill_with, listen, Actions, Listener, Local};
use crate::state::markup::Node;
use crate::state::page::PageEl;
use crate::state::window::row_window;

/// Row height, CSS pixels, until a row has been measured (the style sheet's one-line row).
const DEFAULT_ROW_PX: f64 = 25.0;

/// Viewport height, CSS pixels, until the scroller has been measured.
const DEFAULT_VIEWPORT_PX: f64 = 800.0;

/// The rows of a table in display order, with a number that changes whenever they may show
/// something new.
#[derive(Clone, Debug, PartialEq)]
pub struct Rows {
    /// Bumped on every recomputation, so rows rendered from older data are never reused.
    pub epoch: u64,
    /// One index per row, in display order: what the row function renders it from (a
    /// kernel of the current run, a metric of a search result).
    pub keys: Arc<Vec<usize>>,
}

/// A memo of the rows of a table, recomputed (and its rows rebuilt) whenever what `keys`
/// reads changes, even when the keys come out equal: a kernel index can stay the same
/// while the run behind it is another.
pub fn rows_memo(keys: impl Fn() -> Vec<usize> + Send + Sync + 'static) -> Memo<Rows> {
    // Boxed, so every table shares one instance of the memo's code.
    let keys: Box<dyn Fn() -> Vec<usize> + Send + Sync> = Box::new(keys);
    Memo::new_with_compare(
        move |prev: Option<&Rows>| Rows {
            epoch: prev.map_or(0, |p| p.epoch.wrapping_add(1)),
            keys: Arc::new(keys()),
        },
        |_, _| true,
    )
}

/// A table whose body renders only the rows in and near the viewport. The header row and
/// the rows are markup (`state::page::tables`), rebuilt when the window moves or what
/// `header` and `row` read changes (the selection, a sort); their actions go through
/// `components::markup::listen`, with [`Act::Local`](crate::state::page::Act::Local) to
/// `local`.
///
/// Not generic on purpose: every table shares one copy of this code, which keeps the
/// WebAssembly small.
pub fn virtual_table(
    id: &'static str,
    rows: Memo<Rows>,
    header: Box<dyn Fn() -> PageEl>,
    row: Box<dyn Fn(usize, usize) -> Option<PageEl>>,
    local: Option<Local>,
) -> impl IntoView {
    let scroller = NodeRef::<Div>::new();
    let table = NodeRef::<Table>::new();
    let head = NodeRef::<Thead>::new();
    let body = NodeRef::<Tbody>::new();
    let scroll_px = RwSignal::new(0.0f64);
    let viewport_px = RwSignal::new(DEFAULT_VIEWPORT_PX);
    let row_px = RwSignal::new(DEFAULT_ROW_PX);
    let len = move || rows.with(|r| r.keys.len());
    let window =
        Memo::new(move |_| row_window(len(), scroll_px.get(), viewport_px.get(), row_px.get()));

    // Reads the scroll position, the viewport and a rendered row's height.
    let measure = move || {
        let Some(el) = scroller.get_untracked() else {
            return;
        };
        scroll_px.set(f64::from(el.scroll_top()));
        let viewport = f64::from(el.client_height());
        if viewport > 0.0 && (viewport - viewport_px.get_untracked()).abs() >= 1.0 {
            viewport_px.set(viewport);
        }
        let measured = body
            .get_untracked()
            .and_then(|b| b.first_element_child())
            .map(|tr| tr.get_bounding_client_rect().height())
            .filter(|h| *h >= 1.0);
        if let Some(h) = measured {
            if (h - row_px.get_untracked()).abs() >= 0.25 {
                row_px.set(h);
            }
        }
    };
    // Once mounted, and whenever the rows change, measure after the browser has laid out.
    Effect::new(move |_| {
        rows.track();
        if scroller.get().is_some() {
            request_animation_frame(measure);
        }
    });
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());

    // The header and the rows in view, as markup.
    let actions: Actions = StoredValue::new_local(Vec::new());
    let kept: Listener = StoredValue::new_local(None);
    Effect::new(move |_| {
        let (Some(t), Some(h), Some(b)) = (table.get(), head.get(), body.get()) else {
            return;
        };
        listen(&t, actions, local.clone(), kept);
        let w = window.get();
        let mut acts = Vec::new();
        fill_with(&h, vec![Node::El(header())], &mut acts);
        let trs = rows.with(|r| {
            r.keys
                .get(w.start..w.end)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter_map(|(i, k)| row(w.start + i, *k).map(Node::El))
                .collect()
        });
        fill_with(&b, trs, &mut acts);
        actions.set_value(acts);
    });
    view! {
        <div class="vscroll" node_ref=scroller on:scroll=move |_| measure()>
            <div
                class="vpad"
                style=move || {
                    let w = window.get();
                    format!("padding-top:{}px;padding-bottom:{}px", w.before_px, w.after_px)
                }
            >
                <table
                    class="grid virtual"
                    id=id
                    aria-rowcount=move || (len() + 1).to_string()
                    node_ref=table
                >
                    <thead node_ref=head></thead>
                    <tbody node_ref=body></tbody>
                </table>
            </div>
        </div>
    }
}
