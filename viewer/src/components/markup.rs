//! Puts plain markup ([`crate::state::markup`]) into the page with the DOM's own calls:
//! elements created by tag, attributes set with `setAttribute`, text added as text nodes,
//! so nothing is ever parsed as markup. Elements get no listener each: an element that
//! sends an action carries its index (`data-act-click`, `data-act-change`), and one listener
//! on the container looks it up ([`action_of`]). However many shapes a page has, this is all
//! the rendering code it compiles, which keeps a text-heavy page cheap in wasm.
//!
//! [`markup_host`] is the one component the markup pages (`state::page`) are shown by.

use std::rc::Rc;

use leptos::prelude::*;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::ctx::Ctx;
use crate::state::markup::Node;
use crate::state::page::Act;

const CLICK: &str = "data-act-click";
const CHANGE: &str = "data-act-change";

/// Replaces the children of `root` with `node`, and returns the actions its elements send,
/// in the order of their indices.
pub fn fill<A>(root: &web_sys::Element, node: Node<A>) -> Vec<A> {
    let mut actions = Vec::new();
    fill_with(root, vec![node], &mut actions);
    actions
}

/// Replaces the children of `root` with `nodes`, numbering their actions on from those
/// already in `actions`.
pub fn fill_with<A>(root: &web_sys::Element, nodes: Vec<Node<A>>, actions: &mut Vec<A>) {
    root.set_text_content(None);
    if let Some(document) = root.owner_document() {
        for node in nodes {
            build(&document, root, node, actions);
        }
    }
}

fn build<A>(
    document: &web_sys::Document,
    parent: &web_sys::Element,
    node: Node<A>,
    actions: &mut Vec<A>,
) {
    match node {
        Node::Text(t) => {
            let _ = parent.append_with_str_1(&t);
        }
        Node::El(e) => {
            let Ok(el) = document.create_element(e.tag) else {
                return;
            };
            for (k, v) in &e.attrs {
                let _ = el.set_attribute(k, v);
            }
            for (attr, action) in [(CLICK, e.on_click), (CHANGE, e.on_change)] {
                if let Some(a) = action {
                    let _ = el.set_attribute(attr, &actions.len().to_string());
                    actions.push(a);
                }
            }
            for c in e.children {
                build(document, &el, c, actions);
            }
            let _ = parent.append_with_node_1(&el);
        }
    }
}

/// The index of the action an event asks for (its element's, or the nearest ancestor's
/// that has one), and that element's value (a folding `details` element's is `open` or
/// empty). With `host`, only an element whose nearest markup host is `host` counts, so
/// hosts inside hosts each answer for their own elements.
pub fn action_of(ev: &web_sys::Event, host: Option<&web_sys::Element>) -> Option<(usize, String)> {
    let attr = match ev.type_().as_str() {
        "change" | "toggle" => CHANGE,
        _ => CLICK,
    };
    let target: web_sys::Element = ev.target()?.dyn_into().ok()?;
    let el = target.closest(&format!("[{attr}]")).ok()??;
    if let Some(host) = host {
        let nearest = el.closest(HOST_SELECTOR).ok()??;
        if !nearest.is_same_node(Some(host)) {
            return None;
        }
    }
    let index: usize = el.get_attribute(attr)?.parse().ok()?;
    let value = if let Some(input) = el.dyn_ref::<web_sys::HtmlInputElement>() {
        input.value()
    } else if let Some(select) = el.dyn_ref::<web_sys::HtmlSelectElement>() {
        select.value()
    } else if el.tag_name().eq_ignore_ascii_case("details") && el.has_attribute("open") {
        "open".to_string()
    } else {
        String::new()
    };
    Some((index, value))
}

/// The class of a markup host's element (laid out as if its children stood in its place).
const HOST_CLASS: &str = "markup";
/// What marks an element whose actions a markup listener answers for.
const HOST_ATTR: &str = "data-markup";
const HOST_SELECTOR: &str = "[data-markup]";

/// A page's own handler of [`Act::Local`]: the number and the element's value.
pub type Local = Rc<dyn Fn(usize, String)>;

/// The actions of a markup region, in the order of their indices.
pub type Actions = StoredValue<Vec<Act>, LocalStorage>;

/// What keeps a markup region's listener alive.
pub type Listener = StoredValue<Option<Closure<dyn FnMut(web_sys::Event)>>, LocalStorage>;

/// Listens on `root` (marked as a markup host) for the clicks, changes and toggles of its
/// elements, and does what they ask: select a kernel, open an explanation, or hand an
/// [`Act::Local`] to `local`. Once per region: `kept` holds the listener afterwards.
pub fn listen(root: &web_sys::Element, actions: Actions, local: Option<Local>, kept: Listener) {
    if kept.with_value(Option::is_some) {
        return;
    }
    let ctx = Ctx::get();
    let _ = root.set_attribute(HOST_ATTR, "");
    let element = root.clone();
    let on_event = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        let Some((index, value)) = action_of(&ev, Some(&element)) else {
            return;
        };
        let Some(action) = actions.with_value(|a| a.get(index).copied()) else {
            return;
        };
        match action {
            Act::Select(r) => ctx.select(r),
            Act::Explain(key) => ctx.explain.set(Some(key)),
            Act::Local(n) => {
                if let Some(l) = &local {
                    l(n, value);
                }
            }
        }
    });
    let f = on_event.as_ref().unchecked_ref();
    for kind in ["click", "change"] {
        let _ = root.add_event_listener_with_callback(kind, f);
    }
    // `toggle` does not bubble: heard on the way down.
    let _ = root.add_event_listener_with_callback_and_bool("toggle", f, true);
    kept.set_value(Some(on_event));
}

/// A region of the page filled with the markup `build` returns, rebuilt whenever what
/// `build` reads changes; its actions go through [`listen`]. Every markup page shares this
/// one function's code.
pub fn markup_host(build: Box<dyn Fn() -> Node<Act>>, local: Option<Local>) -> impl IntoView {
    let host = NodeRef::<leptos::html::Div>::new();
    let actions: Actions = StoredValue::new_local(Vec::new());
    let kept: Listener = StoredValue::new_local(None);
    Effect::new(move |_| {
        let Some(root) = host.get() else {
            return;
        };
        let root: &web_sys::Element = &root;
        listen(root, actions, local.clone(), kept);
        actions.set_value(fill(root, build()));
    });
    view! { <div class=HOST_CLASS node_ref=host></div> }
}
