//! The pages built as plain markup ([`super::markup`]): what each shows, as a value built
//! from the loaded runs, tested natively; `components::markup::MarkupHost` puts it into the
//! page and applies the [`Act`]s its elements send. Every page built here shares one
//! renderer, so a page costs the wasm the code of its plain builder functions, not the
//! tree of element types a `view!` of it would compile.
//!
//! - [`overview`]: device, peaks, ceilings, provenance, compute roofs, warnings, asks.
//! - [`charts`]: the roofline's badge, legend and points table; the compare table.
//! - [`kernel`]: the selected kernel's stalls, fit and memory figures beside its charts.
//! - [`multi`]: the devices of a host side by side, the ranks of a job compared.
//! - [`shell`]: the welcome text, load errors, tabs and the explanation panel.
//! - [`tables`]: the header and rows of the long tables, rendered a window at a time.

pub mod charts;
pub mod kernel;
pub mod multi;
pub mod overview;
pub mod shell;
pub mod tables;

use super::explain::explain;
use super::markup::{el, El, Node, Str};
use super::view::KernelRef;

/// What an element of a markup page asks for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Act {
    /// Select a kernel.
    Select(KernelRef),
    /// Open an explanation in the side panel.
    Explain(&'static str),
    /// Something only the page itself knows (a sort column, a folded table): the page's
    /// own handler reads the number, with the element's value.
    Local(usize),
}

/// A node of a markup page.
pub type PageNode = Node<Act>;

/// An element of a markup page.
pub type PageEl = El<Act>;

/// The hover text of explanation `key` (empty for none).
pub fn explain_title(key: &str) -> String {
    explain(key).map(|e| e.as_text()).unwrap_or_default()
}

/// A term that explains itself: hover for the text, click to open the side panel.
pub fn term(key: &'static str, text: impl Into<Str>) -> PageEl {
    el("span")
        .class("term")
        .attr("data-explain", key)
        .attr("title", explain_title(key))
        .attr("tabindex", "0")
        .on_click(Act::Explain(key))
        .text(text)
}

/// A numeric table cell: the formatted text, the raw number in `data-value` (so tests and
/// scripts read exact values), and the explanation `key` on hover (none for `""`); `col`
/// names the column in `data-col`.
pub fn num_cell(
    text: impl Into<Str>,
    value: Option<f64>,
    key: &'static str,
    col: &'static str,
) -> PageEl {
    el("td")
        .class("num")
        .attr("data-col", col)
        .attr(
            "data-value",
            value.map(|v| v.to_string()).unwrap_or_default(),
        )
        .attr("title", explain_title(key))
        .text(text)
}

/// An element with a class and text, the commonest shape of a page.
pub fn tagged(tag: &'static str, class: &'static str, text: impl Into<Str>) -> PageEl {
    el(tag).class(class).text(text)
}

/// A row of plain cells (`tag` each: `th` or `td`).
pub fn plain_row<S: Into<Str>>(tag: &'static str, cells: impl IntoIterator<Item = S>) -> PageEl {
    el("tr").children(cells.into_iter().map(|c| el(tag).text(c)))
}

/// A kernel's name as a button that selects it.
pub fn select_button(r: KernelRef, text: impl Into<Str>) -> PageEl {
    el("button")
        .class("link")
        .on_click(Act::Select(r))
        .text(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_explains_itself_on_hover_and_click() {
        let t: PageNode = term("ridge", "ridge point").into();
        let Node::El(e) = &t else {
            panic!("not an element")
        };
        assert_eq!(e.get("data-explain"), Some("ridge"));
        assert!(e.get("title").is_some_and(|t| !t.is_empty()));
        assert_eq!(e.on_click, Some(Act::Explain("ridge")));
        assert_eq!(t.text_content(), "ridge point");
    }

    #[test]
    fn a_number_cell_keeps_the_exact_value() {
        let c: PageNode = num_cell("1.5", Some(1.25), "", "x").into();
        let Node::El(e) = &c else {
            panic!("not an element")
        };
        assert_eq!(e.get("data-value"), Some("1.25"));
        assert_eq!(e.get("data-col"), Some("x"));
        assert_eq!(e.get("title"), Some(""));
    }
}
