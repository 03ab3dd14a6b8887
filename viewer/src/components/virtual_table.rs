//! Long tables rendered a window at a time: the rows scrolled into view and a margin either
//! side are in the page, and two spacers stand in for the rest, so a table of 10,000
//! kernels scrolls as smoothly as one of ten. The arithmetic is `state::window`; the rows
//! are plain data (`state::table`), rendered here with leptos, keyed so that scrolling or
//! a new selection re-renders only the rows that change.
//!
//! Rows are one line high (long text ends in an ellipsis with the whole text on hover,
//! the reason column wraps) and the height of a rendered row is measured, so the spacers
//! match the rows they replace. The table keeps its place for assistive technology:
//! `aria-rowcount` on the table, `aria-rowindex` on every row, `aria-sort` on a sorted
//! header. Every table sorts: a header is focusable and sorts on a click, Enter or Space.

use std::sync::Arc;

use leptos::html::{Div, Tbody};
use leptos::prelude::*;

use crate::ctx::Ctx;
use crate::state::table::{sort_rows, Cell, Head, Row};
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
    Memo::new_with_compare(
        move |prev: Option<&Rows>| Rows {
            epoch: prev.map_or(0, |p| p.epoch.wrapping_add(1)),
            keys: Arc::new(keys()),
        },
        |_, _| true,
    )
}

/// The row a table renders for `(display position, key)`.
pub type RowFn = Box<dyn Fn(usize, usize) -> Option<Row>>;

/// A table whose body renders only the rows in and near the viewport.
#[component]
pub fn VirtualTable(
    /// The table's id.
    id: &'static str,
    /// The rows, in display order.
    rows: Memo<Rows>,
    /// The header cells.
    header: Vec<Head>,
    /// The row of a key; what it reads is tracked (the selection, the data).
    row: RowFn,
    /// A display position to scroll into view whenever it is set (a hot spot clicked): the
    /// table's box to the row, and the page to the box.
    #[prop(optional)]
    scroll_to: Option<Signal<Option<usize>>>,
) -> impl IntoView {
    let row = StoredValue::new_local(row);
    let (rows, by, on_sort) = sortable(rows, row);
    let scroller = NodeRef::<Div>::new();
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
    if let Some(target) = scroll_to {
        Effect::new(move |_| {
            let (Some(pos), Some(el)) = (target.get(), scroller.get_untracked()) else {
                return;
            };
            let top = pos as f64 * row_px.get_untracked() - viewport_px.get_untracked() / 3.0;
            el.set_scroll_top(top.max(0.0) as i32);
            // The page moves too, to the table's top, so that the row is in the window and
            // not only in a box below the fold (issue 38).
            el.scroll_into_view_with_bool(true);
            request_animation_frame(measure);
        });
    }
    let resize = window_event_listener(leptos::ev::resize, move |_| measure());
    on_cleanup(move || resize.remove());

    // The rows in view: (epoch, display position, row).
    let shown = Memo::new(move |_| {
        let w = window.get();
        rows.with(|r| {
            r.keys
                .get(w.start..w.end)
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter_map(|(i, k)| {
                    let pos = w.start + i;
                    row.with_value(|f| f(pos, *k))
                        .map(|row| (r.epoch, pos, row))
                })
                .collect::<Vec<_>>()
        })
    });
    let heads = header
        .into_iter()
        .enumerate()
        .map(|(i, h)| head_cell(i, h, by, on_sort))
        .collect_view();
    view! {
        <div class="vscroll" node_ref=scroller on:scroll=move |_| measure()>
            <div
                class="vpad"
                style=move || {
                    let w = window.get();
                    format!("padding-top:{}px;padding-bottom:{}px", w.before_px, w.after_px)
                }
            >
                <table class="grid virtual" id=id aria-rowcount=move || (len() + 1).to_string()>
                    <thead>
                        <tr aria-rowindex="1">{heads}</tr>
                    </thead>
                    <tbody node_ref=body>
                        <For
                            each=move || shown.get()
                            key=|(epoch, pos, row)| (*epoch, *pos, row.kernel, row.selected)
                            children=|(_, pos, row)| row_view(pos, row)
                        />
                    </tbody>
                </table>
            </div>
        </div>
    }
}

/// What a table is sorted by: the column's place in the header and whether ascending.
type SortBy = RwSignal<Option<(usize, bool)>>;

/// The rows of a table as sorted by its header, what they are sorted by (column, ascending)
/// and what a click on header `i` does. Every table sorts: a click (or Enter) on a header
/// sorts by its column, a second click the other way; until then the rows keep the order
/// the page gives (a kernel table's: time, most first). The order is worked out from the
/// rows' own cells (`state::table::sort_rows`).
fn sortable(
    rows: Memo<Rows>,
    row: StoredValue<RowFn, LocalStorage>,
) -> (Memo<Rows>, SortBy, impl Fn(usize) + Copy + 'static) {
    let sort = RwSignal::new(None::<(usize, bool)>);
    let sorted = Memo::new(move |_| match sort.get() {
        None => rows.get(),
        Some((col, asc)) => rows.with(|r| Rows {
            epoch: r.epoch,
            keys: Arc::new(untrack(|| {
                row.with_value(|f| sort_rows(&r.keys, col, Some(asc), &|k| f(0, k)).0)
            })),
        }),
    });
    let on_sort = move |i: usize| {
        let asc = match sort.get_untracked() {
            Some((c, asc)) if c == i => !asc,
            // A first click: numbers largest first, text from A.
            _ => rows.with_untracked(|r| {
                row.with_value(|f| sort_rows(&r.keys, i, None, &|k| f(0, k)).1)
            }),
        };
        sort.set(Some((i, asc)));
    };
    (sorted, sort, on_sort)
}

/// A header cell: a focusable control that sorts by its column on a click, Enter or Space,
/// with the order in `aria-sort` (the style sheet draws its arrow); a column with an explanation opens it too.
fn head_cell(i: usize, h: Head, by: SortBy, on_sort: impl Fn(usize) + Copy + 'static) -> AnyView {
    let Head {
        label,
        key,
        col,
        title,
    } = h;
    let ctx = Ctx::get();
    let order = move || by.get().filter(|(c, _)| *c == i).map(|(_, asc)| asc);
    let aria = move || match order() {
        Some(true) => "ascending",
        Some(false) => "descending",
        None => "none",
    };
    let title = if title.is_empty() && !key.is_empty() {
        crate::state::table::explain_title(key)
    } else {
        title
    };
    let run = move || {
        on_sort(i);
        if !key.is_empty() {
            ctx.explain.set(Some(key));
        }
    };
    view! {
        <th
            class="sortable"
            data-col=col
            title=(!title.is_empty()).then_some(title)
            tabindex="0"
            aria-sort=aria
            on:click=move |_| run()
            on:keydown=move |ev| {
                if ev.key() == "Enter" || ev.key() == " " {
                    ev.prevent_default();
                    run();
                }
            }
        >
            {label}
        </th>
    }
    .into_any()
}

/// `aria-rowindex` of the row at display position `pos` (the header row is 1).
fn aria_row(pos: usize) -> String {
    (pos + 2).to_string()
}

/// A row: `data-kernel`, `aria-rowindex`, `selected` when it is.
pub fn row_view(pos: usize, row: Row) -> impl IntoView {
    let Row {
        kernel,
        selected,
        cells,
    } = row;
    view! {
        <tr
            class=selected.then_some("selected")
            aria-current=selected.then_some("true")
            data-kernel=kernel.map(|k| k.to_string())
            aria-rowindex=aria_row(pos)
        >
            {cells.into_iter().map(cell_view).collect_view()}
        </tr>
    }
}

/// A cell; a kernel's name is a button that selects it.
pub fn cell_view(c: Cell) -> AnyView {
    let Cell {
        col,
        text,
        value,
        title,
        class,
        select,
    } = c;
    let class = (!class.is_empty()).then_some(class);
    let title = (!title.is_empty()).then_some(title);
    match select {
        Some(r) => {
            let ctx = Ctx::get();
            view! {
                <td class=class data-col=col data-value=value title=title>
                    <button class="link" on:click=move |_| ctx.select(r)>
                        {text}
                    </button>
                </td>
            }
            .into_any()
        }
        None => view! {
            <td class=class data-col=col data-value=value title=title>
                {text}
            </td>
        }
        .into_any(),
    }
}
