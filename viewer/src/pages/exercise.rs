//! Exercises (view `exercise`): predict DRAM/ask then reveal, report-reading questions,
//! mystery kernels. The content is built as plain markup by `state::exercise_view` from the
//! learner's choices and the loaded runs (and tested natively there); this page fills a
//! container of its own with it (`components::markup`), rebuilt when the state changes, and
//! applies the actions its buttons and inputs send. While an exercise waits for answers,
//! the shell hides the other views and the kernel list (`app.rs`).
//!
//! The container is made here and placed at the end of the shell's content section rather
//! than returned as a `view!`: a new element type costs the wasm about as much as this whole
//! renderer, and the release wasm is at its size budget.

use leptos::prelude::*;
use shared::exercise::quiz::{self, QuizError};
use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;

use crate::components::markup::{action_of, fill};
use crate::ctx::Ctx;
use crate::state::exercise_view::{apply, page, Action, Input};

/// Where the container goes: the shell's content section, after the tabs.
const HOST: &str = "section.content";

/// The exercise view.
#[component]
pub fn ExercisePage() -> impl IntoView {
    let ctx = Ctx::get();
    // Fetched from the site once, when the view opens (the site works offline).
    let questions = RwSignal::new(None);
    leptos::task::spawn_local(async move {
        let parsed = match crate::browser::fetch_text(quiz::PATH).await {
            Ok(text) => quiz::parse_site(&text),
            Err(e) => Err(QuizError::Json(format!("{}: {e}", quiz::PATH))),
        };
        questions.set(Some(parsed));
    });
    let actions = StoredValue::new(Vec::<Action>::new());
    let Some(root) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.create_element("div").ok())
    else {
        return;
    };
    root.set_id("exercise-root");
    let on_event = Closure::<dyn FnMut(web_sys::Event)>::new(move |ev: web_sys::Event| {
        let Some((index, value)) = action_of(&ev) else {
            return;
        };
        let Some(action) = actions.with_value(|a| a.get(index).cloned()) else {
            return;
        };
        let mut open = None;
        ctx.view.update(|v| open = apply(v, &action, &value));
        if matches!(action, Action::Show(_)) {
            ctx.view_pinned.set(true);
        }
        if let Some(path) = open {
            ctx.load_sources(vec![path], true);
        }
    });
    for kind in ["click", "change"] {
        let _ = root.add_event_listener_with_callback(kind, on_event.as_ref().unchecked_ref());
    }
    // The container and its listener live as long as the page; the container leaves with it.
    let kept = StoredValue::new_local((root, on_event));
    on_cleanup(move || kept.with_value(|(root, _)| root.remove()));
    Effect::new(move |_| {
        let run = ctx.current_run();
        let node = ctx.view.with(|v| {
            ctx.ws.with(|ws| {
                questions.with(|questions| {
                    page(&Input {
                        state: &v.exercise,
                        run: ws.runs.get(run).map(|r| &**r),
                        runs: &ws.runs,
                        questions: questions.as_ref(),
                    })
                })
            })
        });
        kept.with_value(|(root, _)| {
            if !root.is_connected() {
                let host = root
                    .owner_document()
                    .and_then(|d| d.query_selector(HOST).ok().flatten());
                if let Some(host) = host {
                    let _ = host.append_with_node_1(root);
                }
            }
            actions.set_value(fill(root, node));
        });
    });
}
