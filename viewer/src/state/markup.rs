//! Markup as plain data: elements with text, attributes and the action a click or a change
//! sends, built by plain functions and rendered by one small function
//! (`components::markup`). A text-heavy page built this way costs a fraction of the code its
//! `view!` trees would (every distinct tree is compiled on its own), and its content can be
//! tested natively: what a page would show is a value.
//!
//! Text and attribute values are always set as text, never parsed as markup. Both are
//! `Cow<'static, str>`, so the many fixed strings of a page are neither copied nor
//! allocated.

use std::borrow::Cow;

/// A text or attribute value: fixed, or worked out.
pub type Str = Cow<'static, str>;

/// A node: text, or an element.
#[derive(Clone, Debug, PartialEq)]
pub enum Node<A> {
    /// Text, shown as written.
    Text(Str),
    /// An element.
    El(El<A>),
}

/// An element with its attributes, children and actions.
#[derive(Clone, Debug, PartialEq)]
pub struct El<A> {
    /// The tag name (`p`, `table`, `button`).
    pub tag: &'static str,
    /// Attributes, in order.
    pub attrs: Vec<(&'static str, Str)>,
    /// What a click sends.
    pub on_click: Option<A>,
    /// What a change sends (with the element's value).
    pub on_change: Option<A>,
    /// Children, in order.
    pub children: Vec<Node<A>>,
}

/// A new element (out of line, like the builder's steps below).
#[inline(never)]
pub fn el<A>(tag: &'static str) -> El<A> {
    El {
        tag,
        attrs: Vec::new(),
        on_click: None,
        on_change: None,
        children: Vec::new(),
    }
}

/// A text node.
pub fn text<A>(s: impl Into<Str>) -> Node<A> {
    Node::Text(s.into())
}

impl<A> From<El<A>> for Node<A> {
    fn from(e: El<A>) -> Self {
        Node::El(e)
    }
}

// The builder's steps are kept out of line: a page calls them hundreds of times, and in
// wasm each inlined copy of a push costs more than the call.
impl<A> El<A> {
    #[inline(never)]
    fn push_attr(mut self, name: &'static str, value: Str) -> Self {
        self.attrs.push((name, value));
        self
    }

    #[inline(never)]
    fn push_child(mut self, child: Node<A>) -> Self {
        self.children.push(child);
        self
    }

    /// Adds an attribute.
    pub fn attr(self, name: &'static str, value: impl Into<Str>) -> Self {
        self.push_attr(name, value.into())
    }

    /// Adds an attribute when `on` holds (a boolean attribute gets an empty value).
    pub fn attr_if(self, on: bool, name: &'static str, value: impl Into<Str>) -> Self {
        if on {
            self.attr(name, value)
        } else {
            self
        }
    }

    /// Sets the id.
    pub fn id(self, id: impl Into<Str>) -> Self {
        self.attr("id", id)
    }

    /// Sets the class.
    pub fn class(self, class: impl Into<Str>) -> Self {
        self.attr("class", class)
    }

    /// Appends text.
    pub fn text(self, s: impl Into<Str>) -> Self {
        self.push_child(Node::Text(s.into()))
    }

    /// Appends a child.
    pub fn child(self, c: impl Into<Node<A>>) -> Self {
        self.push_child(c.into())
    }

    /// Appends children.
    pub fn children<N: Into<Node<A>>>(mut self, cs: impl IntoIterator<Item = N>) -> Self {
        self.children.extend(cs.into_iter().map(Into::into));
        self
    }

    /// Sends `a` on a click.
    pub fn on_click(mut self, a: A) -> Self {
        self.on_click = Some(a);
        self
    }

    /// Sends `a` on a change.
    pub fn on_change(mut self, a: A) -> Self {
        self.on_change = Some(a);
        self
    }

    /// The value of attribute `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.as_ref())
    }
}

impl<A> Node<A> {
    /// Every text and attribute value under this node, one per line: what the page would
    /// hold as text or in attributes.
    pub fn all_text(&self) -> String {
        let mut out = String::new();
        self.walk(&mut |n| match n {
            Node::Text(t) => {
                out.push_str(t);
                out.push('\n');
            }
            Node::El(e) => {
                for (k, v) in &e.attrs {
                    out.push_str(k);
                    out.push('=');
                    out.push_str(v);
                    out.push('\n');
                }
            }
        });
        out
    }

    /// The text under this node, joined.
    pub fn text_content(&self) -> String {
        let mut out = String::new();
        self.walk(&mut |n| {
            if let Node::Text(t) = n {
                out.push_str(t);
            }
        });
        out
    }

    /// The first element with id `id`.
    pub fn find(&self, id: &str) -> Option<&El<A>> {
        self.find_by(&|e| e.get("id") == Some(id))
    }

    /// The first element `pred` holds for.
    pub fn find_by(&self, pred: &dyn Fn(&El<A>) -> bool) -> Option<&El<A>> {
        match self {
            Node::Text(_) => None,
            Node::El(e) if pred(e) => Some(e),
            Node::El(e) => e.children.iter().find_map(|c| c.find_by(pred)),
        }
    }

    /// How many elements `pred` holds for.
    pub fn count(&self, pred: &dyn Fn(&El<A>) -> bool) -> usize {
        let mut n = 0;
        self.walk(&mut |node| {
            if let Node::El(e) = node {
                n += usize::from(pred(e));
            }
        });
        n
    }

    fn walk(&self, f: &mut dyn FnMut(&Node<A>)) {
        f(self);
        if let Node::El(e) = self {
            for c in &e.children {
                c.walk(f);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_is_searched_as_the_page_would_be() {
        let page: Node<u8> = el("div")
            .id("a")
            .child(el("p").class("x").attr("title", "hover").text("one"))
            .child(el("button").id("b").on_click(7).text("two"))
            .into();
        assert_eq!(page.text_content(), "onetwo");
        assert!(page.all_text().contains("title=hover"));
        assert_eq!(page.find("b").and_then(|b| b.on_click), Some(7));
        assert_eq!(page.count(&|e| e.tag == "p"), 1);
        assert!(page.find("zz").is_none());
    }
}
