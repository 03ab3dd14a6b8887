//! A term that explains itself: its explanation on hover, and a click (or Enter) opens it
//! in the side panel.

use leptos::prelude::*;

use crate::ctx::Ctx;
use crate::state::table::explain_title;

/// A term: the explanation `key`'s text on hover, its panel on a click or Enter.
#[component]
pub fn Term(
    /// The explanation's key (`state::explain`).
    key: &'static str,
    /// What the page says.
    #[prop(into)]
    text: String,
) -> impl IntoView {
    let ctx = Ctx::get();
    view! {
        <span
            class="term"
            data-explain=key
            title=explain_title(key)
            tabindex="0"
            on:click=move |_| ctx.explain.set(Some(key))
            on:keydown=move |ev| {
                if ev.key() == "Enter" {
                    ctx.explain.set(Some(key));
                }
            }
        >
            {text}
        </span>
    }
}
