//! Numbers with explanations: a cell or a term shows its explanation on hover (the title)
//! and, when clicked, in the side panel with the counters, the formula and the classic
//! misreading.

use leptos::prelude::*;

use crate::ctx::Ctx;
use crate::state::explain::{explain, ALL};

/// A term that explains itself: hover for the text, click to open the side panel.
#[component]
pub fn Term(
    /// Explanation key (see `state::explain`).
    key: &'static str,
    /// The visible text.
    #[prop(into)]
    text: String,
) -> impl IntoView {
    let ctx = Ctx::get();
    let title = explain(key).map(|e| e.as_text()).unwrap_or_default();
    view! {
        <span
            class="term"
            data-explain=key
            title=title
            tabindex="0"
            on:click=move |_| ctx.explain.set(Some(key))
        >
            {text}
        </span>
    }
}

/// A numeric table cell: the formatted text, the raw number in `data-value` (so tests and
/// scripts read exact values), and the explanation on hover.
#[component]
pub fn NumCell(
    /// Formatted text.
    #[prop(into)]
    text: String,
    /// The raw number, if any.
    value: Option<f64>,
    /// Explanation key, or empty.
    #[prop(default = "")]
    key: &'static str,
    /// Column name for `data-col`.
    #[prop(default = "")]
    col: &'static str,
) -> impl IntoView {
    let title = explain(key).map(|e| e.as_text()).unwrap_or_default();
    view! {
        <td
            class="num"
            data-col=col
            data-value=value.map(|v| v.to_string()).unwrap_or_default()
            title=title
        >
            {text}
        </td>
    }
}

/// The side panel: the open explanation, or the list of all of them.
#[component]
pub fn ExplainPanel() -> impl IntoView {
    let ctx = Ctx::get();
    view! {
        <aside class="explain" id="explain-panel">
            <h2>"What the numbers mean"</h2>
            {move || match ctx.explain.get().and_then(explain) {
                Some(e) => {
                    view! {
                        <div class="explanation" data-explain=e.key>
                            <h3>{e.title}</h3>
                            <p>{e.what()}</p>
                            <p>
                                <strong>"How: "</strong>
                                {e.formula()}
                            </p>
                            <p>
                                <strong>"Careful: "</strong>
                                {e.pitfall}
                            </p>
                            <button class="link" on:click=move |_| ctx.explain.set(None)>
                                "all explanations"
                            </button>
                        </div>
                    }
                        .into_any()
                }
                None => {
                    view! {
                        <div>
                            <p class="muted">
                                "Hover a number or a column header for its meaning; click it to read it here."
                            </p>
                            <ul class="explain-index">
                                {ALL
                                    .iter()
                                    .map(|e| {
                                        let key = e.key;
                                        view! {
                                            <li>
                                                <button
                                                    class="link"
                                                    on:click=move |_| ctx.explain.set(Some(key))
                                                >
                                                    {e.title}
                                                </button>
                                            </li>
                                        }
                                    })
                                    .collect_view()}
                            </ul>
                        </div>
                    }
                        .into_any()
                }
            }}
        </aside>
    }
}
