//! The exercise view's content, as plain markup ([`super::markup`]) built from the learner's
//! choices and the loaded runs, and the [`Action`]s its buttons and inputs send, applied to
//! the view state by [`apply`]. All plain data, so what the page shows, and what it must not
//! show before an answer is committed, is tested natively; `pages/exercise.rs` only renders
//! it.
//!
//! - Predict DRAM/ask: a direction (and, if wanted, a verdict) for every kernel with an asked
//!   byte count, with names, asks and their formulas but no measured figure; then the
//!   measured value, right or wrong, the score, and each miss explained from its counters.
//! - Reading the report: the bundled questions; once checked, every option explained and the
//!   rows that settle it shown from the sample, highlighted.
//! - Mystery kernels: reports behind labels until a diagnosis is committed.

use std::sync::Arc;

use shared::exercise::evidence::Push;
use shared::exercise::figure::{mib, Figure};
use shared::exercise::mystery::{self, Bound, Change, Diagnosis};
use shared::exercise::predict::{
    exercise_kernels, grade, verdict_code, verdict_from_code, Direction, Graded, NEAR_HIGH,
    NEAR_LOW, VERDICTS,
};
use shared::exercise::quiz::{self, Question, QuizError, Row};
use shared::text::format::fmt_si;

use super::exercise::{ExerciseState, Mode};
use super::markup::{el, El, Node, Str};
use super::model::RunView;
use super::view::{View, ViewState};

/// What a button or an input of the exercise view asks for.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Show another exercise.
    Mode(Mode),
    /// Predict a kernel's direction.
    Direction(usize, Direction),
    /// Predict a kernel's verdict (the select's value is the verdict's letter).
    Verdict(usize),
    /// Submit the predictions.
    Submit,
    /// Clear the predictions.
    StartOver,
    /// Pick an option of a question.
    Pick(usize, usize),
    /// Check the picked option of a question.
    Check(usize),
    /// Load a bundled sample by its site path.
    OpenSample(String),
    /// Pick a mystery's bound.
    Bound(usize, Bound),
    /// Pick a mystery's change (the select's value is the change's letter).
    Change(usize),
    /// Commit a mystery's diagnosis.
    Commit(usize),
    /// Leave for another view.
    Show(View),
}

/// Applies `action` to the view state; `value` is the input's value for a change. Returns the
/// sample to load, for [`Action::OpenSample`].
pub fn apply(state: &mut ViewState, action: &Action, value: &str) -> Option<String> {
    let ex = &mut state.exercise;
    match action {
        Action::Mode(m) => ex.mode = *m,
        Action::Direction(k, d) => ex.set_direction(*k, Some(*d)),
        Action::Verdict(k) => ex.set_verdict(*k, value.chars().next().and_then(verdict_from_code)),
        Action::Submit => ex.submitted = true,
        Action::StartOver => ex.start_over(),
        Action::Pick(q, o) => ex.pick_answer(*q, *o),
        Action::Check(q) => {
            if let Some(o) = ex.pending_answer(*q) {
                ex.commit_answer(*q, o);
            }
        }
        Action::OpenSample(path) => return Some(path.clone()),
        Action::Bound(l, b) => ex.pick_bound(*l, *b),
        Action::Change(l) => ex.pick_change(*l, value.chars().next().and_then(Change::from_code)),
        Action::Commit(l) => {
            if let (Some(bound), Some(change)) = ex.pending_diagnosis(*l) {
                ex.commit_diagnosis(*l, Diagnosis { bound, change });
            }
        }
        Action::Show(v) => state.view = *v,
    }
    None
}

/// What the view is built from.
pub struct Input<'a> {
    /// The learner's choices.
    pub state: &'a ExerciseState,
    /// The run the view shows.
    pub run: Option<&'a RunView>,
    /// Every loaded run (a question reads its sample's run).
    pub runs: &'a [Arc<RunView>],
    /// The site's questions, once fetched.
    pub questions: Option<&'a Result<Vec<Question>, QuizError>>,
}

type N = Node<Action>;
type E = El<Action>;

fn p(s: impl Into<Str>) -> E {
    tag_text("p", s.into())
}

fn td(s: impl Into<Str>) -> E {
    tag_text("td", s.into())
}

#[inline(never)]
fn tag_text(tag: &'static str, s: Str) -> E {
    el(tag).text(s)
}

fn head(labels: &[&'static str]) -> E {
    el("thead").child(el("tr").children(labels.iter().map(|l| el("th").text(*l))))
}

fn code(s: &'static str) -> E {
    el("code").text(s)
}

/// The whole view: the exercise buttons and the current exercise.
pub fn page(input: &Input<'_>) -> N {
    let mode = input.state.mode;
    let buttons = Mode::ALL.into_iter().map(|m| {
        el("button")
            .id(format!("ex-mode-{}", m.slug()))
            .attr_if(m == mode, "class", "active")
            .on_click(Action::Mode(m))
            .text(m.title())
    });
    let panel = match mode {
        Mode::Predict => predict(input),
        Mode::Quiz => quiz_panel(input),
        Mode::Mystery => mystery_panel(input),
    };
    el("div")
        .class("page exercise")
        .id("page-exercise")
        .child(el("nav").class("ex-modes").children(buttons))
        .child(panel)
        .into()
}

fn band() -> String {
    format!(
        "DRAM/ask is the DRAM bytes ncu counted over the bytes the kernel asks for, counted by \
         hand. Near 1 means {NEAR_LOW} to {NEAR_HIGH}, within 15 percent."
    )
}

fn predict(input: &Input<'_>) -> E {
    let Some(run) = input.run else {
        return p("Nothing loaded.");
    };
    if exercise_kernels(&run.kernels).is_empty() {
        return el("p")
            .id("predict-none")
            .text("No kernel of this run has an asked-for byte count (an application's export has none): open the teaching suite, ")
            .child(code("?src=samples/h200.json&view=exercise"))
            .text(", or read the report instead.");
    }
    if input.state.submitted {
        reveal(run, input.state)
    } else {
        predict_form(run, input.state)
    }
}

/// The prediction form: names, asks and their formulas, and no measured figure.
pub fn predict_form(run: &RunView, state: &ExerciseState) -> E {
    let kernels = exercise_kernels(&run.kernels);
    let total = kernels.len();
    let predicted = kernels
        .iter()
        .filter(|&&k| state.prediction(k).direction.is_some())
        .count();
    let l2 = run
        .run
        .artifact
        .device
        .as_ref()
        .and_then(|d| d.l2_bytes)
        .map(|b| format!(" This device's L2 holds {}.", mib(b as f64)))
        .unwrap_or_default();
    let rows = kernels.into_iter().filter_map(|k| {
        let fig = run.kernels.get(k)?;
        let chosen = state.prediction(k);
        let formula = run
            .run
            .artifact
            .kernels
            .get(k)
            .and_then(|r| r.asked.as_ref())
            .map(|a| a.formula.clone())
            .unwrap_or_default();
        let radios = Direction::ALL.into_iter().map(|d| {
            el("label")
                .class("choice")
                .child(
                    el("input")
                        .attr("type", "radio")
                        .id(format!("dir-{k}-{}", d.code()))
                        .attr("name", format!("dir-{k}"))
                        .attr("value", d.code().to_string())
                        .attr_if(chosen.direction == Some(d), "checked", "")
                        .on_change(Action::Direction(k, d)),
                )
                .text(d.label())
        });
        let options = std::iter::once(el("option").attr("value", "").text("(skip)")).chain(
            VERDICTS.into_iter().map(|v| {
                el("option")
                    .attr("value", verdict_code(v).to_string())
                    .attr_if(chosen.verdict == Some(v), "selected", "")
                    .text(v.as_str())
            }),
        );
        Some(
            el("tr")
                .attr("data-kernel", k.to_string())
                .child(
                    td(fig.short.clone())
                        .class("name")
                        .attr("title", fig.name.clone()),
                )
                .child(
                    td(fig
                        .row
                        .ask_bytes
                        .map(|b| fmt_si(b, "B"))
                        .unwrap_or_default())
                    .class("num"),
                )
                .child(td(formula).class("formula"))
                .child(el("td").class("choices").children(radios))
                .child(
                    el("td").child(
                        el("select")
                            .id(format!("verdict-{k}"))
                            .on_change(Action::Verdict(k))
                            .children(options),
                    ),
                ),
        )
    });
    el("div")
        .id("predict")
        .child(p(format!(
            "Predict, before any measured figure, whether each kernel's DRAM/ask comes out above \
             1, near 1 or below 1. {} Sector waste raises it, cache reuse lowers it: does the \
             working set fit in L2?{l2} The verdict is optional. The other views stay hidden \
             until you submit.",
            band()
        )))
        .child(
            el("table")
                .class("grid")
                .id("predict-table")
                .child(head(&[
                    "kernel",
                    "asks for",
                    "hand count",
                    "DRAM/ask will be",
                    "verdict (optional)",
                ]))
                .child(el("tbody").children(rows)),
        )
        .child(
            el("p")
                .class("toolbar")
                .child(
                    el("button")
                        .id("predict-submit")
                        .on_click(Action::Submit)
                        .text("Submit and reveal"),
                )
                .child(el("span").id("predict-count").class("muted").text(format!(
                    "{predicted} of {total} predicted; rows left empty are not scored"
                ))),
        )
}

fn result_word(right: Option<bool>) -> &'static str {
    match right {
        Some(true) => "right",
        Some(false) => "wrong",
        None => "-",
    }
}

/// The reveal: the measured values, right or wrong, the score, each miss explained.
pub fn reveal(run: &RunView, state: &ExerciseState) -> E {
    let (graded, score) = grade(&run.run.artifact, &run.kernels, &state.predictions);
    let mut score_line = format!("Score: {}.", score.text());
    if score.verdicts_predicted > 0 {
        score_line.push_str(&format!(
            " Verdicts: {} of {} right.",
            score.verdicts_right, score.verdicts_predicted
        ));
    }
    let rows = graded.into_iter().flat_map(|g| reveal_rows(run, g));
    el("div")
        .id("reveal")
        .child(
            p(score_line)
                .id("predict-score")
                .class("score")
                .attr("data-right", score.right.to_string())
                .attr("data-predicted", score.predicted.to_string()),
        )
        .child(
            p(format!(
                "{} Each miss below is explained from that kernel's own counters.",
                band()
            ))
            .class("muted"),
        )
        .child(
            el("table")
                .class("grid")
                .id("reveal-table")
                .child(head(&[
                    "kernel", "DRAM/ask", "measured", "you said", "result", "verdict", "you said",
                ]))
                .child(el("tbody").children(rows)),
        )
        .child(
            el("p")
                .class("toolbar")
                .child(
                    el("button")
                        .id("predict-reset")
                        .on_click(Action::StartOver)
                        .text("Start over"),
                )
                .child(
                    el("button")
                        .class("link")
                        .on_click(Action::Show(View::Bytes))
                        .text("open the bytes table"),
                ),
        )
}

fn reveal_rows(run: &RunView, g: Graded) -> Vec<E> {
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
        Some(true) => "right",
        Some(false) => "wrong",
        None => "",
    };
    let row = el("tr")
        .attr("data-kernel", g.index.to_string())
        .attr("data-result", result_word(right))
        .attr_if(!class.is_empty(), "class", class)
        .child(td(short).class("name").attr("title", name))
        .child(
            td(g.dram_per_ask
                .map(|r| format!("{r:.4}"))
                .unwrap_or_else(|| "-".into()))
            .class("num")
            .attr("data-col", "dram_per_ask"),
        )
        .child(td(g.measured.map_or("-", Direction::label)).attr("data-col", "measured"))
        .child(td(g.predicted.map_or("-", Direction::label)).attr("data-col", "predicted"))
        .child(td(result_word(right)).attr("data-col", "result"))
        .child(td(g.verdict.map_or("-", |v| v.as_str())).attr("data-col", "verdict"))
        .child(
            td(format!(
                "{}{verdict_mark}",
                g.predicted_verdict.map_or("-", |v| v.as_str())
            ))
            .attr("data-col", "predicted_verdict"),
        );
    let mut out = vec![row];
    if let Some(x) = g.explanation {
        let items = x.findings.iter().map(|f| {
            let push = match f.push() {
                Push::Up => "up",
                Push::Down => "down",
                Push::Neither => "neither",
            };
            el("li")
                .attr("data-push", push)
                .child(el("strong").text(f.title()))
                .text(format!(": {}", f.text()))
        });
        out.push(
            el("tr")
                .class("miss")
                .attr("data-kernel", g.index.to_string())
                .child(
                    el("td").attr("colspan", "7").child(
                        el("div")
                            .class("miss-explanation")
                            .child(p(x.summary).class("summary"))
                            .child(el("ul").children(items)),
                    ),
                ),
        );
    }
    out
}

/// The report-reading questions.
fn quiz_panel(input: &Input<'_>) -> E {
    let questions = match input.questions {
        Some(Ok(q)) => q,
        Some(Err(e)) => return p(e.to_string()).class("error").id("quiz-error"),
        None => return p("Loading the questions…").id("quiz-loading"),
    };
    let state = input.state;
    let total = questions.len();
    let answered = (0..total).filter(|&i| state.answer(i).is_some()).count();
    let right = questions
        .iter()
        .enumerate()
        .filter(|(i, q)| state.answer(*i) == Some(q.correct))
        .count();
    el("div")
        .id("quiz")
        .child(p(
            "Questions on the bundled samples: check an answer to see every option explained and \
             the report rows that settle it, highlighted. They quote measured figures: predict first.",
        ))
        .child(
            p(format!("{right} of {answered} answered right, {total} questions"))
                .id("quiz-score")
                .class("score"),
        )
        .children(
            questions
                .iter()
                .enumerate()
                .map(|(i, q)| question_card(input, i, q)),
        )
}

/// The rows that settle a question (highlighted) and their context, valued from `run`.
fn settle_table(run: Option<&RunView>, settles: &[Row], context: &[Row]) -> E {
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
            el("tr")
                .attr_if(settles, "class", "settles")
                .child(td(row.kernel.clone().unwrap_or_else(|| "(the run)".into())))
                .child(el("th").attr("scope", "row").text(row.figure.label()))
                .child(td(value).class("num"))
                .child(td(counters.join(", ")).class("counters"))
        });
    el("table")
        .class("grid settles-table")
        .child(head(&["kernel", "report row", "value", "counters"]))
        .child(el("tbody").children(rows))
}

fn question_card(input: &Input<'_>, index: usize, q: &Question) -> E {
    let state = input.state;
    let card = el("section")
        .class("question card")
        .id(format!("q-{}", q.id))
        .attr("data-index", index.to_string())
        .child(el("h3").text(format!("Question {}", index + 1)))
        .child(p(q.question.clone()).class("question-text"));
    let Some(chosen) = state.answer(index) else {
        let pending = state.pending_answer(index);
        let options = q.options.iter().enumerate().map(|(o, option)| {
            el("li").child(
                el("label")
                    .child(
                        el("input")
                            .attr("type", "radio")
                            .id(format!("q-{}-{o}", q.id))
                            .attr("name", format!("qopt-{}", q.id))
                            .attr_if(pending == Some(o), "checked", "")
                            .on_change(Action::Pick(index, o)),
                    )
                    .text(option.clone()),
            )
        });
        return card
            .child(el("ol").class("options").children(options))
            .child(
                el("button")
                    .id(format!("q-{}-check", q.id))
                    .attr_if(pending.is_none(), "disabled", "")
                    .on_click(Action::Check(index))
                    .text("Check"),
            );
    };
    let right = chosen == q.correct;
    let options = q
        .options
        .iter()
        .zip(&q.explanations)
        .enumerate()
        .map(|(o, (option, why))| {
            let class = match (o == q.correct, o == chosen) {
                (true, true) => "correct chosen",
                (true, false) => "correct",
                (false, true) => "chosen",
                (false, false) => "",
            };
            let mut li = el("li")
                .attr("data-option", o.to_string())
                .attr_if(!class.is_empty(), "class", class)
                .child(el("span").class("option-text").text(option.clone()));
            if o == q.correct {
                li = li.text(" (right answer)");
            }
            if o == chosen {
                li = li.text(" (your answer)");
            }
            li.child(p(why.clone()).class("option-explanation"))
        });
    let path = q.sample_path();
    let run = input
        .runs
        .iter()
        .find(|r| r.run.src.as_deref() == Some(path.as_str()));
    let mut note = el("p")
        .class("muted")
        .text(format!("Settled by the highlighted rows of {path}. "));
    if run.is_none() {
        note = note.child(
            el("button")
                .class("link")
                .id(format!("q-{}-open", q.id))
                .on_click(Action::OpenSample(path.clone()))
                .text(format!("open {path} to read these rows")),
        );
    }
    card.child(
        p(if right { "Right." } else { "Not this one." })
            .class("q-result")
            .attr("data-result", if right { "right" } else { "wrong" }),
    )
    .child(el("ol").class("options revealed").children(options))
    .child(note)
    .child(settle_table(run.map(|r| &**r), &q.settles, &q.context))
}

fn report_value(run: &RunView, kernel: usize, f: Figure) -> String {
    f.value(&run.run.artifact, run.kernels.get(kernel))
        .map(|v| f.format(&v))
        .unwrap_or_else(|| "-".into())
}

/// The mystery kernels of the current run.
fn mystery_panel(input: &Input<'_>) -> E {
    let Some(run) = input.run else {
        return p("Nothing loaded.");
    };
    let picks = input.state.mystery_kernels(&run.kernels);
    if picks.is_empty() {
        return p("No kernel of this run has counters and a verdict.").id("mystery-none");
    }
    let cards = picks
        .into_iter()
        .enumerate()
        .map(|(label, kernel)| mystery_card(run, input.state, label, kernel));
    el("div")
        .id("mystery")
        .child(
            p(
                "Kernels behind labels: read each report, place it on the roofline, and commit what \
                 bounds it and the one change that would help most; then its name, source file and \
                 verdict appear. Choose the kernels by index with ",
            )
            .child(code("mys=3.5.11")),
        )
        .child(el("div").class("cards").children(cards))
}

/// One mystery: its report without name or source, then the form or the reveal.
pub fn mystery_card(run: &RunView, state: &ExerciseState, label: usize, kernel: usize) -> E {
    let letter = mystery::label(label);
    let report = mystery::REPORT.into_iter().map(|f| {
        el("tr")
            .child(el("th").attr("scope", "row").text(f.label()))
            .child(td(report_value(run, kernel, f)).class("num"))
    });
    let card = el("section")
        .class("mystery card")
        .id(format!("mystery-{letter}"))
        .child(el("h3").text(format!("Kernel {letter}")))
        .child(el("table").class("kv").children(report))
        .child(
            p(format!(
                "Ridge point of this run: {}.",
                report_value(run, kernel, Figure::Ridge)
            ))
            .class("muted"),
        );
    match state.diagnosis(label) {
        Some(d) => card.child(mystery_reveal(run, kernel, d)),
        None => {
            let (bound, change) = state.pending_diagnosis(label);
            let radios = Bound::ALL.into_iter().map(|b| {
                el("label")
                    .class("choice")
                    .child(
                        el("input")
                            .attr("type", "radio")
                            .id(format!("myst-{letter}-bound-{}", b.code()))
                            .attr("name", format!("myst-{letter}-bound"))
                            .attr_if(bound == Some(b), "checked", "")
                            .on_change(Action::Bound(label, b)),
                    )
                    .text(b.label())
            });
            let options = std::iter::once(
                el("option")
                    .attr("value", "")
                    .text("the one change that would help most…"),
            )
            .chain(Change::ALL.into_iter().map(|c| {
                el("option")
                    .attr("value", c.code().to_string())
                    .attr_if(change == Some(c), "selected", "")
                    .text(c.label())
            }));
            card.child(
                el("div")
                    .class("diagnose")
                    .child(el("p").children(radios))
                    .child(
                        el("select")
                            .id(format!("myst-{letter}-change"))
                            .on_change(Action::Change(label))
                            .children(options),
                    )
                    .child(
                        el("button")
                            .id(format!("myst-{letter}-commit"))
                            .attr_if(bound.is_none() || change.is_none(), "disabled", "")
                            .on_click(Action::Commit(label))
                            .text("Commit"),
                    ),
            )
        }
    }
}

fn mystery_reveal(run: &RunView, kernel: usize, d: Diagnosis) -> E {
    let Some(fig) = run.kernels.get(kernel) else {
        return el("div");
    };
    let Some(answer) = mystery::answer(&run.run.artifact, fig) else {
        return p("No verdict for this kernel.");
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
    let kv = |label: &'static str, value: String, class: &'static str| {
        el("tr")
            .child(el("th").attr("scope", "row").text(label))
            .child(td(value).attr_if(!class.is_empty(), "class", class))
    };
    let word = |right: bool| if right { "right" } else { "wrong" };
    el("div")
        .class("mystery-reveal")
        .child(
            el("p")
                .class("kernel-name")
                .attr("title", fig.name.clone())
                .child(el("strong").text(fig.short.clone())),
        )
        .child(
            el("table")
                .class("kv")
                .child(kv("function", function, ""))
                .child(kv(
                    "source file",
                    answer.source_file.clone().unwrap_or_else(|| "-".into()),
                    "source-file",
                ))
                .child(kv(
                    "verdict",
                    format!("{} ({})", answer.verdict.as_str(), answer.reason),
                    "verdict",
                )),
        )
        .child(
            p(format!(
                "You said {}: {}.",
                d.bound.label(),
                if bound_right {
                    "right"
                } else {
                    "not what the counters say"
                }
            ))
            .class("diag-bound")
            .attr("data-result", word(bound_right)),
        )
        .child(
            p(format!(
                "The counters point to: {}. {} You chose: {}.",
                answer.change.label(),
                answer.change_reason,
                d.change.label()
            ))
            .class("diag-change")
            .attr("data-result", word(change_right)),
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::load::{load_batch, InputFile};
    use crate::state::markup::text;
    use crate::state::model::Workspace;

    fn h200() -> Workspace {
        let path = format!("{}/../site/samples/h200.json", env!("CARGO_MANIFEST_DIR"));
        let bytes = std::fs::read(path).unwrap_or_default();
        let (mut runs, errors) = load_batch(vec![InputFile {
            name: "h200.json".into(),
            bytes,
        }]);
        assert!(errors.is_empty(), "{errors:?}");
        for r in &mut runs {
            r.src = Some("samples/h200.json".into());
        }
        let mut ws = Workspace::default();
        ws.add(runs);
        ws
    }

    fn site_questions() -> Result<Vec<Question>, QuizError> {
        quiz::parse_site(include_str!("../../../site/questions.json"))
    }

    /// The index of the kernel called `short` in the sample.
    fn index(ws: &Workspace, short: &str) -> usize {
        let figures = &ws.runs[0].kernels;
        shared::exercise::figure::find_kernel(figures, short).expect(short)
    }

    fn build(ws: &Workspace, state: &ExerciseState) -> N {
        let questions = site_questions();
        page(&Input {
            state,
            run: ws.runs.first().map(|r| &**r),
            runs: &ws.runs,
            questions: Some(&questions),
        })
    }

    #[test]
    fn before_submit_no_dram_per_ask_is_in_the_page() {
        let ws = h200();
        let run = &ws.runs[0];
        let mut state = ExerciseState::default();
        let add = index(&ws, "vector add");
        state.set_direction(add, Some(Direction::Near));
        let page = build(&ws, &state);
        let all = page.all_text();
        let asked = exercise_kernels(&run.kernels);
        assert_eq!(
            asked.len(),
            run.kernels.len(),
            "every suite kernel has an ask"
        );
        for &k in &asked {
            let r = run.kernels[k].row.dram_per_ask.expect("measured");
            let shown = format!("{r:.4}");
            assert!(!all.contains(&shown), "kernel {k}: {shown} before submit");
            for d in Direction::ALL {
                assert!(page.find(&format!("dir-{k}-{}", d.code())).is_some());
            }
            // No verdict is given away either: each appears only as an option to pick.
        }
        for word in ["memory-bound", "compute-bound", "latency-bound", "balanced"] {
            let options = page.count(&|e| e.tag == "option" && e.children == [text(word)]);
            assert_eq!(all.matches(word).count(), options, "{word}");
        }
        let checked = page
            .find(&format!("dir-{add}-n"))
            .and_then(|e| e.get("checked"));
        assert_eq!(checked, Some(""));
        let count = format!("1 of {} predicted", asked.len());
        assert!(page.text_content().contains(&count));
    }

    #[test]
    fn the_reveal_scores_and_explains_each_miss() {
        let ws = h200();
        let mut vs = ViewState::default();
        // Right, wrong (near 1), wrong (far below 1).
        let add = index(&ws, "vector add");
        let stencil = index(&ws, "stencil, tiled");
        for (k, d) in [
            (add, Direction::Near),
            (stencil, Direction::Below),
            (index(&ws, "matmul, naive"), Direction::Above),
        ] {
            apply(&mut vs, &Action::Direction(k, d), "");
        }
        apply(&mut vs, &Action::Verdict(add), "m");
        apply(&mut vs, &Action::Submit, "");
        let page = build(&ws, &vs.exercise);
        let score = page.find("predict-score").expect("a score");
        assert_eq!(score.get("data-right"), Some("1"));
        assert_eq!(score.get("data-predicted"), Some("3"));
        let misses = page.count(&|e| e.get("class") == Some("miss"));
        assert_eq!(misses, 2);
        let r = ws.runs[0].kernels[stencil]
            .row
            .dram_per_ask
            .expect("measured");
        assert!(page.all_text().contains(&format!("{r:.4}")));
        assert!(page.text_content().contains("Verdicts: 1 of 1 right."));
        apply(&mut vs, &Action::StartOver, "");
        assert!(!vs.exercise.submitted && vs.exercise.predictions.is_empty());
    }

    #[test]
    fn a_question_is_checked_then_explained_with_its_rows() {
        let ws = h200();
        let mut vs = ViewState::default();
        apply(&mut vs, &Action::Mode(Mode::Quiz), "");
        apply(&mut vs, &Action::Check(0), "");
        assert_eq!(
            vs.exercise.answer(0),
            None,
            "nothing picked, nothing checked"
        );
        apply(&mut vs, &Action::Pick(0, 1), "");
        let page = build(&ws, &vs.exercise);
        let questions = site_questions().expect("questions");
        assert_eq!(
            page.count(&|e| e.get("class") == Some("question card")),
            questions.len()
        );
        assert!(page
            .find("q-memory-is-not-dram-check")
            .is_some_and(|b| b.get("disabled").is_none()));
        apply(&mut vs, &Action::Check(0), "");
        let page = build(&ws, &vs.exercise);
        let card = Node::El(page.find("q-memory-is-not-dram").expect("card").clone());
        for why in &questions[0].explanations {
            assert!(card.all_text().contains(why.as_str()));
        }
        let settled = card.count(&|e| e.get("class") == Some("settles"));
        assert_eq!(settled, questions[0].settles.len());
        // The settling row's value, read from the loaded sample as the figure writes it.
        let row = &questions[0].settles[0];
        let run = &ws.runs[0];
        let value = quiz::value_of(row, &run.run.artifact, &run.kernels).expect("a value");
        let shown = row.figure.format(&value);
        assert!(
            card.all_text().contains(&shown),
            "{shown}: {}",
            card.all_text()
        );
        // A question about a sample that is not loaded offers to open it.
        let tensor = questions
            .iter()
            .position(|q| q.sample != "h200.json")
            .expect("gpt2");
        apply(&mut vs, &Action::Pick(tensor, 0), "");
        apply(&mut vs, &Action::Check(tensor), "");
        let page = build(&ws, &vs.exercise);
        let open = page
            .find(&format!("q-{}-open", questions[tensor].id))
            .and_then(|b| b.on_click.clone());
        assert_eq!(
            open.and_then(|a| apply(&mut vs, &a, "")),
            Some("samples/h200-gpt2-bf16.json".to_string())
        );
    }

    #[test]
    fn mysteries_hide_their_names_until_diagnosed() {
        let ws = h200();
        let run = &ws.runs[0];
        let mut vs = ViewState::default();
        apply(&mut vs, &Action::Mode(Mode::Mystery), "");
        let page = build(&ws, &vs.exercise);
        let picks = vs.exercise.mystery_kernels(&run.kernels);
        assert_eq!(picks.len(), 3);
        let all = page.all_text();
        for &k in &picks {
            let rec = &run.run.artifact.kernels[k];
            assert!(!all.contains(&rec.name), "{}", rec.name);
            assert!(!all.contains(&rec.function), "{}", rec.function);
        }
        assert!(!all.contains("kernels/"));
        apply(&mut vs, &Action::Bound(1, Bound::Memory), "");
        apply(&mut vs, &Action::Commit(1), "");
        assert_eq!(vs.exercise.diagnosis(1), None, "no change picked yet");
        apply(&mut vs, &Action::Change(1), "s");
        apply(&mut vs, &Action::Commit(1), "");
        let page = build(&ws, &vs.exercise);
        let card = Node::El(page.find("mystery-B").expect("B").clone());
        let name = &run.run.artifact.kernels[picks[1]].name;
        assert!(card.all_text().contains(name.as_str()));
        assert!(card.all_text().contains("kernels/vector_add.cu"));
        assert_eq!(
            card.count(&|e| e.get("data-result") == Some("right")),
            2,
            "memory-bound and coalesce"
        );
    }
}
