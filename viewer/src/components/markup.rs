//! Renders plain markup ([`crate::state::markup`]) into the page: one element at a time,
//! tag, attributes and children taken as data, so however many shapes a page has, this is
//! the only rendering code it compiles. Text and attribute values are set as text.

use leptos::attr::any_attribute::{AnyAttribute, IntoAnyAttribute};
use leptos::attr::custom::custom_attribute;
use leptos::prelude::*;
use leptos::tachys::view::add_attr::AddAnyAttr;

use crate::state::markup::Node;

/// Renders `node`; a click or a change sends the element's action to `send`, with the
/// element's value (`event_target_value`) for a change.
pub fn render<A>(node: Node<A>, send: Callback<(A, String)>) -> AnyView
where
    A: Clone + Send + Sync + 'static,
{
    match node {
        Node::Text(t) => t.into_any(),
        Node::El(e) => {
            let mut attrs: Vec<AnyAttribute> = e
                .attrs
                .into_iter()
                .map(|(k, v)| custom_attribute(k, v).into_any_attr())
                .collect();
            if let Some(a) = e.on_click {
                attrs.push(
                    leptos::ev::on(leptos::ev::click, move |_| {
                        send.run((a.clone(), String::new()))
                    })
                    .into_any_attr(),
                );
            }
            if let Some(a) = e.on_change {
                attrs.push(
                    leptos::ev::on(leptos::ev::change, move |ev| {
                        send.run((a.clone(), event_target_value(&ev)))
                    })
                    .into_any_attr(),
                );
            }
            let children: Vec<AnyView> = e.children.into_iter().map(|c| render(c, send)).collect();
            leptos::html::custom(e.tag)
                .child(children)
                .add_any_attr(attrs)
                .into_any()
        }
    }
}
