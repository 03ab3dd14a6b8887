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

/// The [`Act::Local`] of run `i`'s name (which opens it); the one after it removes it.
pub fn run_action(i: usize) -> usize {
    2 * i
}

/// The loaded runs (name, kernel count) with `current` marked, each with a button that
/// opens it and one that removes it ([`run_action`]).
pub fn run_list(runs: &[(String, usize)], current: usize) -> PageNode {
    el("ul")
        .id("run-list")
        .children(runs.iter().enumerate().map(|(i, (name, n))| {
            el("li")
                .attr_if(i == current, "class", "current")
                .child(
                    el("button")
                        .class("link run-name")
                        .attr("title", name.clone())
                        .on_click(Act::Local(run_action(i)))
                        .text(name.clone()),
                )
                .child(tagged("span", "muted", format!(" {n} kernels ")))
                .child(
                    el("button")
                        .class("link remove")
                        .attr("title", "remove this run")
                        .on_click(Act::Local(run_action(i) + 1))
                        .text("×"),
                )
        }))
        .into()
}

/// A kernel of the side bar's list: its run, index, short and whole name, and verdict.
pub type ListedKernel = (usize, usize, String, String, Option<String>);

/// The listed kernels, the selected one marked, and how many matched in all.
pub fn kernel_items(
    shown: &[ListedKernel],
    total: usize,
    selected: Option<crate::state::view::KernelRef>,
) -> PageNode {
    let items = shown.iter().map(|(run, index, short, name, verdict)| {
        let r = crate::state::view::KernelRef {
            run: *run,
            kernel: *index,
        };
        let class = if selected == Some(r) {
            "kernel link selected"
        } else {
            "kernel link"
        };
        el("li")
            .child(
                el("button")
                    .class(class)
                    .attr("data-kernel", index.to_string())
                    .attr("title", name.clone())
                    .on_click(Act::Select(r))
                    .text(short.clone()),
            )
            .child(tagged(
                "span",
                "verdict muted",
                verdict.clone().unwrap_or_default(),
            ))
    });
    let more = (total > shown.len()).then(|| {
        tagged(
            "p",
            "muted",
            format!("{} of {total} shown; filter to find the rest", shown.len()),
        )
    });
    el("div")
        .child(el("ul").id("kernel-list").children(items))
        .children(more)
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::markup::Node;

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
    fn the_side_lists_mark_the_current_run_and_the_selected_kernel() {
        let runs = run_list(&[("a.json".into(), 3), ("b.json".into(), 1)], 1);
        let current = runs.find_by(&|e| e.get("class") == Some("current"));
        let current = current.map(|c| Node::El(c.clone()).text_content());
        assert_eq!(current.as_deref(), Some("b.json 1 kernels ×"));
        let remove = runs.find_by(&|e| e.get("title") == Some("remove this run"));
        assert_eq!(remove.and_then(|b| b.on_click), Some(Act::Local(1)));
        let r = crate::state::view::KernelRef { run: 0, kernel: 2 };
        let shown = vec![(0, 2, "k".to_string(), "kernel".to_string(), None)];
        let list = kernel_items(&shown, 5, Some(r));
        let button = list.find_by(&|e| e.get("data-kernel") == Some("2"));
        assert_eq!(
            button.and_then(|b| b.get("class")),
            Some("kernel link selected")
        );
        assert!(list.text_content().contains("1 of 5 shown"));
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
