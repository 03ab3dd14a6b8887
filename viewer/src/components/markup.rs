//! Puts plain markup ([`crate::state::markup`]) into the page with the DOM's own calls:
//! elements created by tag, attributes set with `setAttribute`, text added as text nodes,
//! so nothing is ever parsed as markup. Elements get no listener each: an element that
//! sends an action carries its index (`data-act-click`, `data-act-change`), and one listener
//! on the container looks it up ([`action_of`]). However many shapes a page has, this is all
//! the rendering code it compiles, which keeps a text-heavy page cheap in wasm.

use wasm_bindgen::JsCast;

use crate::state::markup::Node;

const CLICK: &str = "data-act-click";
const CHANGE: &str = "data-act-change";

/// Replaces the children of `root` with `node`, and returns the actions its elements send,
/// in the order of their indices.
pub fn fill<A>(root: &web_sys::Element, node: Node<A>) -> Vec<A> {
    root.set_text_content(None);
    let mut actions = Vec::new();
    if let Some(document) = root.owner_document() {
        build(&document, root, node, &mut actions);
    }
    actions
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
/// that has one), and that element's value.
pub fn action_of(ev: &web_sys::Event) -> Option<(usize, String)> {
    let attr = if ev.type_() == "change" {
        CHANGE
    } else {
        CLICK
    };
    let target: web_sys::Element = ev.target()?.dyn_into().ok()?;
    let el = target.closest(&format!("[{attr}]")).ok()??;
    let index: usize = el.get_attribute(attr)?.parse().ok()?;
    let value = match el.dyn_ref::<web_sys::HtmlInputElement>() {
        Some(input) => input.value(),
        None => el
            .dyn_ref::<web_sys::HtmlSelectElement>()
            .map(|s| s.value())
            .unwrap_or_default(),
    };
    Some((index, value))
}
