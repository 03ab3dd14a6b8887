//! Sections for several runs read as one, shown on the compare page: the devices of one
//! host side by side and the ranks of a job compared, built as markup by
//! `state::page::multi` (the overview builds its devices section itself).

use leptos::prelude::*;

use crate::components::markup::markup_host;
use crate::ctx::Ctx;
use crate::state::markup::{el, Node};

/// The ranks of each job with two or more ranks loaded, then the devices of each host.
pub fn ranks_and_devices() -> impl IntoView {
    let ctx = Ctx::get();
    markup_host(
        Box::new(move || {
            ctx.ws.with(|ws| {
                let sections = crate::state::page::multi::ranks_section(ws)
                    .into_iter()
                    .chain(crate::state::page::multi::devices_section(ws, None));
                Node::from(el("div").children(sections))
            })
        }),
        None,
    )
}
