//! The exercise view's actions and rows: what a button or an input asks for ([`Action`],
//! applied to the view state by [`apply`]), the prediction table's rows and a mystery
//! kernel's report. What the learner chose, and its URL form, is [`super::choices`]; the
//! figures, grades and explanations come from `shared::exercise`.

use shared::exercise::figure::Figure;
use shared::exercise::mystery::{self, Bound, Change, Diagnosis};
use shared::exercise::predict::{exercise_kernels, verdict_from_code, Direction};
use shared::text::format::fmt_si;

use super::choices::Mode;
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

/// A kernel of the prediction form: what the learner may see before submitting (its names,
/// its ask and the formula of the ask) and what they chose; no measured figure.
#[derive(Clone, Debug, PartialEq)]
pub struct PredictRow {
    /// The kernel's index in the run.
    pub index: usize,
    /// Short name.
    pub short: String,
    /// Whole name.
    pub name: String,
    /// The bytes it asks for, formatted.
    pub ask: String,
    /// How the ask was counted.
    pub formula: String,
}

/// The prediction form's rows of `run`: every kernel with an asked-for byte count.
pub fn predict_rows(run: &RunView) -> Vec<PredictRow> {
    exercise_kernels(&run.kernels)
        .into_iter()
        .filter_map(|k| {
            let fig = run.kernels.get(k)?;
            let formula = run
                .run
                .artifact
                .kernels
                .get(k)
                .and_then(|r| r.asked.as_ref())
                .map(|a| a.formula.clone())
                .unwrap_or_default();
            Some(PredictRow {
                index: k,
                short: fig.short.clone(),
                name: fig.name.clone(),
                ask: fig
                    .row
                    .ask_bytes
                    .map(|b| fmt_si(b, "B"))
                    .unwrap_or_default(),
                formula,
            })
        })
        .collect()
}

/// The report of mystery kernel `kernel`: each figure of [`mystery::REPORT`] with its
/// value, and the run's ridge point; no name, function or source.
pub fn mystery_report(run: &RunView, kernel: usize) -> (Vec<(&'static str, String)>, String) {
    let value = |f: Figure| {
        f.value(&run.run.artifact, run.kernels.get(kernel))
            .map(|v| f.format(&v))
            .unwrap_or_else(|| "-".into())
    };
    let rows = mystery::REPORT
        .into_iter()
        .map(|f| (f.label(), value(f)))
        .collect();
    // The measured ridge, else the theoretical one of the kernel's own kind of work (an
    // imported application has no measured ceilings).
    let ridge = Figure::Ridge
        .value(&run.run.artifact, None)
        .map(|v| Figure::Ridge.format(&v))
        .or_else(|| {
            let artifact = &run.run.artifact;
            let fig = run.kernels.get(kernel)?;
            let kind = fig.main_kind(artifact.kernels.get(kernel));
            let peak = shared::analysis::ceilings::compute_ceilings(artifact, kind).theoretical;
            let bw = artifact.device.as_ref()?.peaks.dram_gbyte_per_s;
            let r = shared::model::roofline::ridge(peak, bw)?;
            Some(format!(
                "{} (theoretical, {} peak over DRAM bandwidth)",
                Figure::Ridge.format(&shared::exercise::figure::FigureValue::Number(r)),
                kind.label()
            ))
        })
        .unwrap_or_else(|| "-".into());
    (rows, ridge)
}

#[cfg(test)]
mod tests {
    mod with_the_sample {
        use super::super::*;
        use crate::state::model::Workspace;
        use crate::state::test_support::sample;
        use shared::exercise::predict::grade;

        #[test]
        fn a_mystery_kernel_of_an_application_has_its_shape_and_a_ridge() {
            let ws = sample("h200-gpt2-bf16.json");
            let run = &ws.runs[0];
            let top = run.by_time[0];
            let (rows, ridge) = mystery_report(run, top);
            for label in ["Grid Size (blocks)", "Block Size (threads)"] {
                let v = rows
                    .iter()
                    .find(|(l, _)| *l == label)
                    .map(|(_, v)| v.as_str());
                assert!(v.is_some_and(|v| v != "-"), "{label}: {v:?}");
            }
            assert!(ridge.contains("theoretical, tensor BF16"), "{ridge}");
        }

        fn index(ws: &Workspace, short: &str) -> usize {
            let figures = &ws.runs[0].kernels;
            shared::exercise::figure::find_kernel(figures, short).expect(short)
        }

        #[test]
        fn the_prediction_form_holds_no_measured_figure() {
            let ws = sample("h200.json");
            let run = &ws.runs[0];
            let rows = predict_rows(run);
            assert_eq!(
                rows.len(),
                run.kernels.len(),
                "every suite kernel has an ask"
            );
            let all = format!("{rows:?}");
            for r in &rows {
                let m = run.kernels[r.index].row.dram_per_ask.expect("measured");
                assert!(!all.contains(&format!("{m:.4}")), "{}: {m}", r.short);
                let v = run.kernels[r.index].row.verdict.clone().unwrap_or_default();
                assert!(v.is_empty() || !all.contains(&v), "{}: {v}", r.short);
            }
        }

        #[test]
        fn actions_predict_submit_score_and_start_over() {
            let ws = sample("h200.json");
            let run = &ws.runs[0];
            let mut vs = ViewState::default();
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
            assert!(vs.exercise.submitted);
            let (graded, score) = grade(&run.run.artifact, &run.kernels, &vs.exercise.predictions);
            assert_eq!((score.right, score.predicted), (1, 3));
            assert_eq!(graded.iter().filter(|g| g.explanation.is_some()).count(), 2);
            assert_eq!((score.verdicts_right, score.verdicts_predicted), (1, 1));
            apply(&mut vs, &Action::StartOver, "");
            assert!(!vs.exercise.submitted && vs.exercise.predictions.is_empty());
            assert_eq!(
                apply(&mut vs, &Action::OpenSample("samples/x.json".into()), ""),
                Some("samples/x.json".to_string())
            );
        }

        #[test]
        fn a_mystery_report_names_nothing_until_diagnosed() {
            let ws = sample("h200.json");
            let run = &ws.runs[0];
            let mut vs = ViewState::default();
            apply(&mut vs, &Action::Mode(Mode::Mystery), "");
            let picks = vs.exercise.mystery_kernels(&run.kernels);
            assert_eq!(picks.len(), 3);
            for &k in &picks {
                let all = format!("{:?}", mystery_report(run, k));
                let rec = &run.run.artifact.kernels[k];
                assert!(!all.contains(&*rec.name), "{}", rec.name);
                assert!(!all.contains(&*rec.function), "{}", rec.function);
                assert!(!all.contains("kernels/"));
            }
            apply(&mut vs, &Action::Bound(1, Bound::Memory), "");
            apply(&mut vs, &Action::Commit(1), "");
            assert_eq!(vs.exercise.diagnosis(1), None, "no change picked yet");
            apply(&mut vs, &Action::Change(1), "s");
            apply(&mut vs, &Action::Commit(1), "");
            assert!(vs.exercise.diagnosis(1).is_some());
        }
    }
}
