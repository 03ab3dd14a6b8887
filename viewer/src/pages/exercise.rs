//! Exercises (view `exercise`): predict DRAM/ask then reveal, report-reading questions,
//! mystery kernels. The content is built as plain markup by `state::exercise_view` from the
//! learner's choices and the loaded runs (and tested natively there); this page renders it
//! and applies the actions its buttons and inputs send. While an exercise waits for answers,
//! the shell hides the other views and the kernel list (`app.rs`).

use leptos::prelude::*;

use crate::components::markup::render;
use crate::ctx::Ctx;
use crate::state::exercise_view::{apply, page, Action, Input};

/// The exercise view.
#[component]
pub fn ExercisePage() -> impl IntoView {
    let ctx = Ctx::get();
    // Parsed once: the questions are embedded in the binary.
    let questions = StoredValue::new(shared::exercise::quiz::bundled());
    let send = Callback::new(move |(action, value): (Action, String)| {
        let mut open = None;
        ctx.view.update(|v| open = apply(v, &action, &value));
        if matches!(action, Action::Show(_)) {
            ctx.view_pinned.set(true);
        }
        if let Some(path) = open {
            ctx.load_sources(vec![path], true);
        }
    });
    move || {
        let run = ctx.current_run();
        let node = ctx.view.with(|v| {
            ctx.ws.with(|ws| {
                questions.with_value(|questions| {
                    page(&Input {
                        state: &v.exercise,
                        run: ws.runs.get(run).map(|r| &**r),
                        runs: &ws.runs,
                        questions,
                    })
                })
            })
        });
        render(node, send)
    }
}
