//! Exercises (view `exercise`): predict DRAM/ask then reveal, report-reading questions,
//! mystery kernels. What the learner chose is `state::exercise` (in the URL); a button or
//! an input sends an [`Action`], applied there. While an exercise waits for answers, the
//! shell hides the other views and the kernel list (`app.rs`).

use std::sync::Arc;

use leptos::prelude::*;
use shared::exercise::evidence::Push;
use shared::exercise::mystery::{self, Bound, Change, Diagnosis};
use shared::exercise::predict::{
    exercise_kernels, grade, verdict_code, Direction, Graded, NEAR_HIGH, NEAR_LOW, VERDICTS,
};
use shared::exercise::quiz::{self, Question, QuizError, Row};

use crate::ctx::Ctx;
use crate::state::choices::Mode;
use crate::state::exercise::{apply, mystery_report, predict_rows, Action};
use crate::state::model::RunView;
use crate::state::view::View;

/// Applies `action` (with an input's `value`) to the view state.
fn act(action: Action, value: String) {
    let ctx = Ctx::get();
    let mut open = None;
    ctx.view.update(|v| open = apply(v, &action, &value));
    if matches!(action, Action::Show(_)) {
        ctx.view_pinned.set(true);
    }
    if let Some(path) = open {
        ctx.load_sources(vec![path], true);
    }
}

/// A handler that sends `action`.
fn send(action: Action) -> impl Fn(leptos::ev::MouseEvent) + Clone + 'static {
    move |_| act(action.clone(), String::new())
}

/// A handler that sends `action` with the input's value.
fn send_value(action: Action) -> impl Fn(leptos::ev::Event) + Clone + 'static {
    move |ev| act(action.clone(), event_target_value(&ev))
}

fn band() -> String {
    format!(
        "DRAM/ask is the DRAM bytes ncu counted over the bytes the kernel asks for, counted by \
         hand. Near 1 means {NEAR_LOW} to {NEAR_HIGH}, within 15 percent."
    )
}

/// The current run, if any.
fn current_run() -> Option<Arc<RunView>> {
    let ctx = Ctx::get();
    let run = ctx.current_run();
    ctx.ws.with(|ws| ws.runs.get(run).cloned())
}

/// The exercise view.
#[component]
pub fn ExercisePage() -> impl IntoView {
    let ctx = Ctx::get();
    // Fetched from the site once, when the view opens (the site works offline).
    let questions = RwSignal::new(None::<Result<Arc<Vec<Question>>, String>>);
    leptos::task::spawn_local(async move {
        let parsed = match crate::browser::fetch_text(quiz::PATH).await {
            Ok(text) => quiz::parse_site(&text),
            Err(e) => Err(QuizError::Json(format!("{}: {e}", quiz::PATH))),
        };
        questions.set(Some(parsed.map(Arc::new).map_err(|e| e.to_string())));
    });
    let mode = Memo::new(move |_| ctx.view.with(|v| v.exercise.mode));
    let buttons = Mode::ALL
        .into_iter()
        .map(|m| {
            view! {
                <button
                    id=format!("ex-mode-{}", m.slug())
                    class=move || (mode.get() == m).then_some("active")
                    on:click=send(Action::Mode(m))
                >
                    {m.title()}
                </button>
            }
        })
        .collect_view();
    view! {
        <div class="page exercise" id="page-exercise">
            <nav class="ex-modes">{buttons}</nav>
            {move || match mode.get() {
                Mode::Predict => view! { <Predict /> }.into_any(),
                Mode::Quiz => view! { <Quiz questions=questions /> }.into_any(),
                Mode::Mystery => view! { <Mysteries /> }.into_any(),
            }}
        </div>
    }
}

/// Predict DRAM/ask: the form until submitted, then the reveal.
#[component]
fn Predict() -> impl IntoView {
    let ctx = Ctx::get();
    let submitted = Memo::new(move |_| ctx.view.with(|v| v.exercise.submitted));
    move || {
        let Some(run) = current_run() else {
            return view! { <p>"Nothing loaded."</p> }.into_any();
        };
        if exercise_kernels(&run.kernels).is_empty() {
            return view! {
                <p id="predict-none">
                    "No kernel of this run has an asked-for byte count (an application's export has none): open the teaching suite, "
                    <code>"?src=samples/h200.json&view=exercise"</code>
                    ", or read the report instead."
                </p>
            }
            .into_any();
        }
        if submitted.get() {
            view! { <Reveal run=run /> }.into_any()
        } else {
            view! { <PredictForm run=run /> }.into_any()
        }
    }
}

/// The prediction form: names, asks and their formulas, and no measured figure.
#[component]
fn PredictForm(run: Arc<RunView>) -> impl IntoView {
    let ctx = Ctx::get();
    let rows = predict_rows(&run);
    let total = rows.len();
    let l2 = run
        .run
        .artifact
        .device
        .as_ref()
        .and_then(|d| d.l2_bytes)
        .map(|b| {
            format!(
                " This device's L2 holds {}.",
                shared::exercise::figure::mib(b as f64)
            )
        })
        .unwrap_or_default();
    let count = move || {
        let predicted = ctx.view.with(|v| {
            exercise_kernels(&run.kernels)
                .iter()
                .filter(|&&k| v.exercise.prediction(k).direction.is_some())
                .count()
        });
        format!("{predicted} of {total} predicted; rows left empty are not scored")
    };
    let body = rows
        .into_iter()
        .map(|r| {
            let k = r.index;
            let radios = Direction::ALL
                .into_iter()
                .map(|d| {
                    let checked = move || {
                        ctx.view
                            .with(|v| v.exercise.prediction(k).direction == Some(d))
                    };
                    view! {
                        <label class="choice">
                            <input
                                type="radio"
                                id=format!("dir-{k}-{}", d.code())
                                name=format!("dir-{k}")
                                value=d.code().to_string()
                                prop:checked=checked
                                on:change=send_value(Action::Direction(k, d))
                            />
                            {d.label()}
                        </label>
                    }
                })
                .collect_view();
            let chosen = ctx
                .view
                .with_untracked(|v| v.exercise.prediction(k).verdict);
            let options = VERDICTS
                .into_iter()
                .map(|v| {
                    view! {
                        <option value=verdict_code(v).to_string() selected=chosen == Some(v)>
                            {v.as_str()}
                        </option>
                    }
                })
                .collect_view();
            view! {
                <tr data-kernel=k.to_string()>
                    <td class="name" title=r.name>{r.short}</td>
                    <td class="num">{r.ask}</td>
                    <td class="formula">{r.formula}</td>
                    <td class="choices">{radios}</td>
                    <td>
                        <select
                            id=format!("verdict-{k}")
                            aria-label="your verdict"
                            on:change=send_value(Action::Verdict(k))
                        >
                            <option value="">"(skip)"</option>
                            {options}
                        </select>
                    </td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div id="predict">
            <p>
                {format!(
                    "Predict, before any measured figure, whether each kernel's DRAM/ask comes out above 1, near 1 or below 1. {} Sector waste raises it, cache reuse lowers it: does the working set fit in L2?{l2} The verdict is optional. The other views stay hidden until you submit.",
                    band()
                )}
            </p>
            <table class="grid" id="predict-table">
                <thead>
                    <tr>
                        <th>"kernel"</th>
                        <th>"asks for"</th>
                        <th>"hand count"</th>
                        <th>"DRAM/ask will be"</th>
                        <th>"verdict (optional)"</th>
                    </tr>
                </thead>
                <tbody>{body}</tbody>
            </table>
            <p class="toolbar">
                <button id="predict-submit" on:click=send(Action::Submit)>
                    "Submit and reveal"
                </button>
                <span id="predict-count" class="muted">{count}</span>
            </p>
        </div>
    }
}

fn result_word(right: Option<bool>) -> &'static str {
    match right {
        Some(true) => "right",
        Some(false) => "wrong",
        None => "-",
    }
}

/// The reveal: the measured values, right or wrong, the score, each miss explained.
#[component]
fn Reveal(run: Arc<RunView>) -> impl IntoView {
    let ctx = Ctx::get();
    let predictions = ctx.view.with_untracked(|v| v.exercise.predictions.clone());
    let (graded, score) = grade(&run.run.artifact, &run.kernels, &predictions);
    let mut score_line = format!("Score: {}.", score.text());
    if score.verdicts_predicted > 0 {
        score_line.push_str(&format!(
            " Verdicts: {} of {} right.",
            score.verdicts_right, score.verdicts_predicted
        ));
    }
    let rows = graded
        .into_iter()
        .map(|g| reveal_rows(&run, g))
        .collect_view();
    view! {
        <div id="reveal">
            <p
                id="predict-score"
                class="score"
                data-right=score.right.to_string()
                data-predicted=score.predicted.to_string()
            >
                {score_line}
            </p>
            <p class="muted">
                {format!("{} Each miss below is explained from that kernel's own counters.", band())}
            </p>
            <table class="grid" id="reveal-table">
                <thead>
                    <tr>
                        <th>"kernel"</th>
                        <th>"DRAM/ask"</th>
                        <th>"measured"</th>
                        <th>"you said"</th>
                        <th>"result"</th>
                        <th>"verdict"</th>
                        <th>"you said"</th>
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
            <p class="toolbar">
                <button id="predict-reset" on:click=send(Action::StartOver)>
                    "Start over"
                </button>
                <button class="link" on:click=send(Action::Show(View::Bytes))>
                    "open the bytes table"
                </button>
            </p>
        </div>
    }
}

fn reveal_rows(run: &RunView, g: Graded) -> impl IntoView {
    let (name, short) = run
        .kernels
        .get(g.index)
        .map(|f| (f.name.clone(), f.short.clone()))
        .unwrap_or_default();
    let right = g.direction_right();
    let verdict_mark = match g.verdict_right() {
        Some(true) => " (right)",
        Some(false) => " (wrong)",
        None => "",
    };
    let class = match right {
        Some(true) => Some("right"),
        Some(false) => Some("wrong"),
        None => None,
    };
    let index = g.index.to_string();
    let miss = g.explanation.map(|x| {
        let items = x
            .findings
            .iter()
            .map(|f| {
                let push = match f.push() {
                    Push::Up => "up",
                    Push::Down => "down",
                    Push::Neither => "neither",
                };
                view! {
                    <li data-push=push>
                        <strong>{f.title()}</strong>
                        {format!(": {}", f.text())}
                    </li>
                }
            })
            .collect_view();
        view! {
            <tr class="miss" data-kernel=index.clone()>
                <td colspan="7">
                    <div class="miss-explanation">
                        <p class="summary">{x.summary}</p>
                        <ul>{items}</ul>
                    </div>
                </td>
            </tr>
        }
    });
    view! {
        <tr data-kernel=index.clone() data-result=result_word(right) class=class>
            <td class="name" title=name>{short}</td>
            <td class="num" data-col="dram_per_ask">
                {g.dram_per_ask.map(|r| format!("{r:.4}")).unwrap_or_else(|| "-".into())}
            </td>
            <td data-col="measured">{g.measured.map_or("-", Direction::label)}</td>
            <td data-col="predicted">{g.predicted.map_or("-", Direction::label)}</td>
            <td data-col="result">{result_word(right)}</td>
            <td data-col="verdict">{g.verdict.map_or("-", |v| v.as_str())}</td>
            <td data-col="predicted_verdict">
                {format!("{}{verdict_mark}", g.predicted_verdict.map_or("-", |v| v.as_str()))}
            </td>
        </tr>
        {miss}
    }
}

/// The report-reading questions.
#[component]
fn Quiz(questions: RwSignal<Option<Result<Arc<Vec<Question>>, String>>>) -> impl IntoView {
    let ctx = Ctx::get();
    move || {
        let qs = match questions.get() {
            Some(Ok(q)) => q,
            Some(Err(e)) => return view! { <p class="error" id="quiz-error">{e}</p> }.into_any(),
            None => return view! { <p id="quiz-loading">"Loading the questions…"</p> }.into_any(),
        };
        let total = qs.len();
        let score_qs = qs.clone();
        let score = move || {
            ctx.view.with(|v| {
                let state = &v.exercise;
                let answered = (0..total).filter(|&i| state.answer(i).is_some()).count();
                let right = score_qs
                    .iter()
                    .enumerate()
                    .filter(|(i, q)| state.answer(*i) == Some(q.correct))
                    .count();
                format!("{right} of {answered} answered right, {total} questions")
            })
        };
        let cards = (0..total)
            .map(|i| view! { <QuestionCard questions=qs.clone() index=i /> })
            .collect_view();
        view! {
            <div id="quiz">
                <p>
                    "Questions on the bundled samples: check an answer to see every option explained and \
                     the report rows that settle it, highlighted. They quote measured figures: predict first."
                </p>
                <p id="quiz-score" class="score">{score}</p>
                {cards}
            </div>
        }
        .into_any()
    }
}

/// The rows that settle a question (highlighted) and their context, valued from `run`.
fn settle_table(run: Option<&RunView>, settles: &[Row], context: &[Row]) -> impl IntoView {
    let rows = settles
        .iter()
        .map(|r| (r, true))
        .chain(context.iter().map(|r| (r, false)))
        .map(|(row, settles)| {
            let value = run
                .and_then(|run| quiz::value_of(row, &run.run.artifact, &run.kernels))
                .map(|v| row.figure.format(&v))
                .unwrap_or_else(|| "-".into());
            let counters: Vec<&str> = row.figure.counters().iter().map(|c| c.name).collect();
            view! {
                <tr class=settles.then_some("settles")>
                    <td>{row.kernel.clone().unwrap_or_else(|| "(the run)".into())}</td>
                    <th scope="row">{row.figure.label()}</th>
                    <td class="num">{value}</td>
                    <td class="counters">{counters.join(", ")}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <table class="grid settles-table">
            <thead>
                <tr>
                    <th>"kernel"</th>
                    <th>"report row"</th>
                    <th>"value"</th>
                    <th>"counters"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
}

/// One question: its options to pick and check, then every option explained.
#[component]
fn QuestionCard(questions: Arc<Vec<Question>>, index: usize) -> impl IntoView {
    let ctx = Ctx::get();
    let Some(q) = questions.get(index).cloned() else {
        return ().into_any();
    };
    let answer = Memo::new(move |_| ctx.view.with(|v| v.exercise.answer(index)));
    let id = q.id.clone();
    let text = q.question.clone();
    let body = move || {
        let q = q.clone();
        let Some(chosen) = answer.get() else {
            let pending = Memo::new(move |_| ctx.view.with(|v| v.exercise.pending_answer(index)));
            let options = q
                .options
                .iter()
                .enumerate()
                .map(|(o, option)| {
                    view! {
                        <li>
                            <label>
                                <input
                                    type="radio"
                                    id=format!("q-{}-{o}", q.id)
                                    name=format!("qopt-{}", q.id)
                                    prop:checked=move || pending.get() == Some(o)
                                    on:change=send_value(Action::Pick(index, o))
                                />
                                {option.clone()}
                            </label>
                        </li>
                    }
                })
                .collect_view();
            return view! {
                <ol class="options">{options}</ol>
                <button
                    id=format!("q-{}-check", q.id)
                    disabled=move || pending.get().is_none()
                    on:click=send(Action::Check(index))
                >
                    "Check"
                </button>
            }
            .into_any();
        };
        let right = chosen == q.correct;
        let options = q
            .options
            .iter()
            .zip(&q.explanations)
            .enumerate()
            .map(|(o, (option, why))| {
                let class = match (o == q.correct, o == chosen) {
                    (true, true) => Some("correct chosen"),
                    (true, false) => Some("correct"),
                    (false, true) => Some("chosen"),
                    (false, false) => None,
                };
                view! {
                    <li data-option=o.to_string() class=class>
                        <span class="option-text">{option.clone()}</span>
                        {(o == q.correct).then_some(" (right answer)")}
                        {(o == chosen).then_some(" (your answer)")}
                        <p class="option-explanation">{why.clone()}</p>
                    </li>
                }
            })
            .collect_view();
        let path = q.sample_path();
        let run = ctx
            .ws
            .with(|ws| ws.runs.iter().find(|r| r.run.srcs.contains(&path)).cloned());
        let open = run.is_none().then(|| {
            view! {
                <button
                    class="link"
                    id=format!("q-{}-open", q.id)
                    on:click=send(Action::OpenSample(path.clone()))
                >
                    {format!("open {path} to read these rows")}
                </button>
            }
        });
        view! {
            <p class="q-result" data-result=if right { "right" } else { "wrong" }>
                {if right { "Right." } else { "Not this one." }}
            </p>
            <ol class="options revealed">{options}</ol>
            <p class="muted">{format!("Settled by the highlighted rows of {path}. ")} {open}</p>
            {settle_table(run.as_deref(), &q.settles, &q.context)}
        }
        .into_any()
    };
    view! {
        <section class="question card" id=format!("q-{id}") data-index=index.to_string()>
            <h3>{format!("Question {}", index + 1)}</h3>
            <p class="question-text">{text}</p>
            {body}
        </section>
    }
    .into_any()
}

/// The mystery kernels of the current run.
#[component]
fn Mysteries() -> impl IntoView {
    let ctx = Ctx::get();
    let picks = Memo::new(move |_| {
        let run = ctx.current_run();
        ctx.view.with(|v| {
            ctx.ws.with(|ws| {
                ws.runs
                    .get(run)
                    .map(|r| v.exercise.mystery_kernels(&r.kernels))
                    .unwrap_or_default()
            })
        })
    });
    move || {
        let Some(run) = current_run() else {
            return view! { <p>"Nothing loaded."</p> }.into_any();
        };
        let picks = picks.get();
        if picks.is_empty() {
            return view! {
                <p id="mystery-none">"No kernel of this run has counters and a verdict."</p>
            }
            .into_any();
        }
        let cards = picks
            .into_iter()
            .enumerate()
            .map(|(label, kernel)| view! { <MysteryCard run=run.clone() label=label kernel=kernel /> })
            .collect_view();
        view! {
            <div id="mystery">
                <p>
                    "Kernels behind labels: read each report, place it on the roofline, and commit what \
                     bounds it and the one change that would help most; then its name, source file and \
                     verdict appear. Choose the kernels by index with "
                    <code>"mys=3.5.11"</code>
                </p>
                <div class="cards">{cards}</div>
            </div>
        }
        .into_any()
    }
}

/// One mystery: its report without name or source, then the form or the reveal.
#[component]
fn MysteryCard(run: Arc<RunView>, label: usize, kernel: usize) -> impl IntoView {
    let ctx = Ctx::get();
    let letter = mystery::label(label);
    let (report, ridge) = mystery_report(&run, kernel);
    let report = report
        .into_iter()
        .map(|(l, v)| {
            view! {
                <tr>
                    <th scope="row">{l}</th>
                    <td class="num">{v}</td>
                </tr>
            }
        })
        .collect_view();
    let diagnosis = Memo::new(move |_| ctx.view.with(|v| v.exercise.diagnosis(label)));
    let pending = Memo::new(move |_| ctx.view.with(|v| v.exercise.pending_diagnosis(label)));
    let body = move || match diagnosis.get() {
        Some(d) => mystery_reveal(&run, kernel, d).into_any(),
        None => {
            let radios = Bound::ALL
                .into_iter()
                .map(|b| {
                    view! {
                        <label class="choice">
                            <input
                                type="radio"
                                id=format!("myst-{letter}-bound-{}", b.code())
                                name=format!("myst-{letter}-bound")
                                prop:checked=move || pending.get().0 == Some(b)
                                on:change=send_value(Action::Bound(label, b))
                            />
                            {b.label()}
                        </label>
                    }
                })
                .collect_view();
            let change = pending.get_untracked().1;
            let options = Change::ALL
                .into_iter()
                .map(|c| {
                    view! {
                        <option value=c.code().to_string() selected=change == Some(c)>
                            {c.label()}
                        </option>
                    }
                })
                .collect_view();
            view! {
                <div class="diagnose">
                    <p>{radios}</p>
                    <select
                        id=format!("myst-{letter}-change")
                        aria-label="the one change that would help most"
                        on:change=send_value(Action::Change(label))
                    >
                        <option value="">"the one change that would help most…"</option>
                        {options}
                    </select>
                    <button
                        id=format!("myst-{letter}-commit")
                        disabled=move || {
                            let (b, c) = pending.get();
                            b.is_none() || c.is_none()
                        }
                        on:click=send(Action::Commit(label))
                    >
                        "Commit"
                    </button>
                </div>
            }
            .into_any()
        }
    };
    view! {
        <section class="mystery card" id=format!("mystery-{letter}")>
            <h3>{format!("Kernel {letter}")}</h3>
            <table class="kv">{report}</table>
            <p class="muted">{format!("Ridge point of this run: {ridge}.")}</p>
            {body}
        </section>
    }
}

fn mystery_reveal(run: &RunView, kernel: usize, d: Diagnosis) -> impl IntoView {
    let Some(fig) = run.kernels.get(kernel) else {
        return ().into_any();
    };
    let Some(answer) = mystery::answer(&run.run.artifact, fig) else {
        return view! { <p>"No verdict for this kernel."</p> }.into_any();
    };
    let bound_right = answer.accepted.contains(&d.bound);
    let change_right = answer.change == d.change;
    let function = run
        .run
        .artifact
        .kernels
        .get(kernel)
        .map(|k| k.function.clone())
        .unwrap_or_default();
    let word = |right: bool| if right { "right" } else { "wrong" };
    view! {
        <div class="mystery-reveal">
            <p class="kernel-name" title=fig.name.clone()>
                <strong>{fig.short.clone()}</strong>
            </p>
            <table class="kv">
                <tr>
                    <th scope="row">"function"</th>
                    <td>{function}</td>
                </tr>
                <tr>
                    <th scope="row">"source file"</th>
                    <td class="source-file">{answer.source_file.clone().unwrap_or_else(|| "-".into())}</td>
                </tr>
                <tr>
                    <th scope="row">"verdict"</th>
                    <td class="verdict">{format!("{} ({})", answer.verdict.as_str(), answer.reason)}</td>
                </tr>
            </table>
            <p class="diag-bound" data-result=word(bound_right)>
                {format!(
                    "You said {}: {}.",
                    d.bound.label(),
                    if bound_right { "right" } else { "not what the counters say" },
                )}
            </p>
            <p class="diag-change" data-result=word(change_right)>
                {format!(
                    "The counters point to: {}. {} You chose: {}.",
                    answer.change.label(),
                    answer.change_reason,
                    d.change.label(),
                )}
            </p>
        </div>
    }
    .into_any()
}
