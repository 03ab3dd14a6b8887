//! The shell's own markup: the welcome text, the load errors, the tabs (or, while an
//! exercise waits for answers, the lock in their place) and the explanation side panel.

use super::{tagged, Act, PageNode};
use crate::state::explain::{explain, ALL};
use crate::state::load::LoadError;
use crate::state::markup::el;
use crate::state::view::View;

/// The [`Act::Local`] of the button that leaves a locked exercise (a tab's is its place in
/// [`View::ALL`]).
pub const LEAVE_EXERCISE: usize = View::ALL.len();

/// The [`Act::Local`] of the panel's "all explanations" button.
pub const ALL_EXPLANATIONS: usize = 0;

/// What the page says before anything is loaded.
pub fn welcome() -> PageNode {
    let code = |s: &'static str| el("code").text(s);
    el("div")
        .class("welcome")
        .child(
            el("p")
                .text("Open an artifact written by ")
                .child(code("capture"))
                .text(", an Nsight Compute report (")
                .child(code(".ncu-rep"))
                .text(", no Nsight Compute needed), or one or more Nsight Compute CSV exports (")
                .child(code("--page raw"))
                .text(", ")
                .child(code("--page details"))
                .text(
                    ", or both of one run), with the button above or by dropping files anywhere \
                     on the page. Or pick a bundled sample from the menu.",
                ),
        )
        .child(el("p").text("Everything happens in this page: no file leaves your browser."))
        .child(el("h2").text("Learning without a GPU"))
        .child(
            el("p")
                .text(
                    "The Exercises tab turns a report into a lesson: commit to an answer, then \
                     see what the counters say. A course can hand out links such as ",
                )
                .child(code("?src=samples/h200.json&view=exercise"))
                .text(
                    ": the learner predicts whether each kernel's DRAM/ask lands above 1, near 1 \
                     (0.85 to 1.15) or below 1, with no measured figure in the page until they \
                     submit; then sees the measured values, a score, and each miss explained \
                     from that kernel's own counters. Reading the report (",
                )
                .child(code("&ex=quiz"))
                .text(") asks questions about the bundled samples and shows the rows that settle them; mystery kernels (")
                .child(code("&ex=mystery"))
                .text(
                    ") hide names and sources until a diagnosis is committed. Every choice is \
                     kept in the link, so a learner can hand in or come back to their answers.",
                ),
        )
        .into()
}

/// The files of the last batch that could not be loaded, each with what was wrong.
pub fn error_list(errors: &[LoadError]) -> PageNode {
    el("div")
        .id("errors")
        .class("errors")
        .attr("role", "alert")
        .children(errors.iter().map(|e| {
            el("p")
                .class("error")
                .child(tagged("strong", "error-file", e.file.clone()))
                .text(": ")
                .child(tagged("span", "error-message", e.message.clone()))
        }))
        .into()
}

/// The tabs with `current` active, or with `locked`, the lock of an exercise in their
/// place.
pub fn tabs(current: View, locked: bool) -> PageNode {
    if locked {
        return el("div")
            .id("exercise-lock")
            .class("lock")
            .child(el("span").text(
                "Exercise in progress: the other views and the kernel list come back once you \
                 commit your answers.",
            ))
            .child(
                el("button")
                    .class("link")
                    .id("leave-exercise")
                    .on_click(Act::Local(LEAVE_EXERCISE))
                    .text("leave the exercise (shows the answers)"),
            )
            .into();
    }
    el("nav")
        .class("tabs")
        .attr("role", "tablist")
        .children(View::ALL.into_iter().enumerate().map(|(i, v)| {
            let active = v == current;
            el("button")
                .id(format!("tab-{}", v.slug()))
                .attr("role", "tab")
                .attr_if(active, "class", "active")
                .attr("aria-selected", active.to_string())
                .on_click(Act::Local(i))
                .text(v.title())
        }))
        .into()
}

/// The side panel: explanation `open`, or the list of all of them.
pub fn explain_panel(open: Option<&str>) -> PageNode {
    let body = match open.and_then(explain) {
        Some(e) => el("div")
            .class("explanation")
            .attr("data-explain", e.key)
            .child(el("h3").text(e.title))
            .child(el("p").text(e.what()))
            .child(el("p").child(el("strong").text("How: ")).text(e.formula()))
            .child(
                el("p")
                    .child(el("strong").text("Careful: "))
                    .text(e.pitfall),
            )
            .child(
                el("button")
                    .class("link")
                    .on_click(Act::Local(ALL_EXPLANATIONS))
                    .text("all explanations"),
            ),
        None => el("div")
            .child(tagged(
                "p",
                "muted",
                "Hover a number or a column header for its meaning; click it to read it here.",
            ))
            .child(
                el("ul")
                    .class("explain-index")
                    .children(ALL.iter().map(|e| {
                        el("li").child(
                            el("button")
                                .class("link")
                                .on_click(Act::Explain(e.key))
                                .text(e.title),
                        )
                    })),
            ),
    };
    el("aside")
        .class("explain")
        .id("explain-panel")
        .child(el("h2").text("What the numbers mean"))
        .child(body)
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_mark_the_current_view_and_the_lock_replaces_them() {
        let t = tabs(View::Bytes, false);
        let active = t.find_by(&|e| e.get("class") == Some("active"));
        assert_eq!(active.and_then(|e| e.get("id")), Some("tab-bytes"));
        assert_eq!(t.count(&|e| e.get("role") == Some("tab")), View::ALL.len());
        let lock = tabs(View::Exercise, true);
        let leave = lock.find("leave-exercise");
        assert_eq!(
            leave.and_then(|b| b.on_click),
            Some(Act::Local(LEAVE_EXERCISE))
        );
    }

    #[test]
    fn the_panel_lists_every_explanation_until_one_is_open() {
        let all = explain_panel(None);
        assert_eq!(all.count(&|e| e.tag == "button"), ALL.len());
        let one = explain_panel(Some("ridge"));
        assert!(one
            .find_by(&|e| e.get("data-explain") == Some("ridge"))
            .is_some());
    }

    #[test]
    fn errors_name_the_file_and_the_message_as_text() {
        let e = error_list(&[LoadError {
            file: "<b>x.csv".into(),
            message: "bad".into(),
        }]);
        assert_eq!(e.text_content(), "<b>x.csv: bad");
        assert!(welcome().text_content().contains("Learning without a GPU"));
    }
}
