//! What the learner chose in the exercise view: which exercise ([`Mode`]), the predictions,
//! answers and diagnoses, and whether they were committed ([`ExerciseState`]); all of it kept
//! in the URL so a learner can share a link or come back to it. The view state
//! ([`super::view::ViewState`]) holds it; [`super::exercise`] applies the view's actions to it.
//!
//! Query keys (each left out when empty): `ex` (the exercise: `quiz`, `mystery`; predicting
//! is the default), `pred` (one letter per kernel in artifact order: `a`bove, `n`ear,
//! `b`elow, `-` none), `vpred` (verdicts: `m`, `c`, `x` balanced, `l`, `-`), `done=1`
//! (predictions submitted), `qa` (committed answers, one letter per question: `a` is the
//! first option), `mys` (the mystery kernels' indices, `3.5.11`), `diag` (two letters per
//! mystery: bound and change, `--` for none).

use shared::analysis::figures::KernelFigures;
use shared::analysis::metrics::VerdictKind;
use shared::exercise::mystery::{self, Bound, Change, Diagnosis};
use shared::exercise::predict::{verdict_code, verdict_from_code, Direction, Prediction};

/// Which exercise the view shows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// Predict DRAM/ask, then reveal.
    #[default]
    Predict,
    /// Report-reading questions.
    Quiz,
    /// Mystery kernels.
    Mystery,
}

impl Mode {
    /// Every mode, in the order the view offers them.
    pub const ALL: [Mode; 3] = [Mode::Predict, Mode::Quiz, Mode::Mystery];

    /// The name in the URL and in element ids.
    pub fn slug(self) -> &'static str {
        match self {
            Mode::Predict => "predict",
            Mode::Quiz => "quiz",
            Mode::Mystery => "mystery",
        }
    }

    /// The label of its button.
    pub fn title(self) -> &'static str {
        match self {
            Mode::Predict => "Predict DRAM/ask",
            Mode::Quiz => "Reading the report",
            Mode::Mystery => "Mystery kernels",
        }
    }

    /// The mode named `slug`.
    pub fn from_slug(slug: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.slug() == slug)
    }
}

/// What the learner chose, in every exercise.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExerciseState {
    /// The exercise shown.
    pub mode: Mode,
    /// Predictions by kernel index.
    pub predictions: Vec<Prediction>,
    /// Whether the predictions were submitted (the reveal is shown).
    pub submitted: bool,
    /// Committed answers by question index (the option's index).
    pub answers: Vec<Option<usize>>,
    /// The mystery kernels chosen by link; empty for the run's default ones.
    pub mystery: Vec<usize>,
    /// Committed diagnoses by mystery label.
    pub diagnoses: Vec<Option<Diagnosis>>,
    /// Options picked but not yet checked, by question (not kept in the URL).
    pub pending_answers: Vec<Option<usize>>,
    /// Bounds picked but not yet committed, by mystery label (not kept in the URL).
    pub pending_bounds: Vec<Option<Bound>>,
    /// Changes picked but not yet committed, by mystery label (not kept in the URL).
    pub pending_changes: Vec<Option<Change>>,
}

/// `items` as one letter each, up to the last one that is not `-`.
fn letters<T>(items: &[T], code: impl Fn(&T) -> Option<char>) -> String {
    let mut s: String = items.iter().map(|i| code(i).unwrap_or('-')).collect();
    let kept = s.trim_end_matches('-').len();
    s.truncate(kept);
    s
}

fn set_at<T: Clone + Default>(items: &mut Vec<T>, index: usize, value: T) {
    if items.len() <= index {
        items.resize(index + 1, T::default());
    }
    if let Some(slot) = items.get_mut(index) {
        *slot = value;
    }
}

impl ExerciseState {
    /// Reads one query pair; `false` when the key is not the exercise's.
    pub fn read(&mut self, key: &str, value: &str) -> bool {
        match key {
            "ex" => self.mode = Mode::from_slug(value).unwrap_or(self.mode),
            "pred" => {
                for (i, c) in value.chars().enumerate() {
                    set_at(&mut self.predictions, i, Prediction::default());
                    if let Some(p) = self.predictions.get_mut(i) {
                        p.direction = Direction::from_code(c);
                    }
                }
            }
            "vpred" => {
                for (i, c) in value.chars().enumerate() {
                    if self.predictions.len() <= i {
                        set_at(&mut self.predictions, i, Prediction::default());
                    }
                    if let Some(p) = self.predictions.get_mut(i) {
                        p.verdict = verdict_from_code(c);
                    }
                }
            }
            "done" => self.submitted = value == "1",
            "qa" => {
                self.answers = value
                    .bytes()
                    .map(|b| b.is_ascii_lowercase().then(|| usize::from(b - b'a')))
                    .collect()
            }
            "mys" => {
                self.mystery = value
                    .split('.')
                    .filter_map(|s| s.parse().ok())
                    .take(26)
                    .collect()
            }
            "diag" => {
                let chars: Vec<char> = value.chars().collect();
                self.diagnoses = chars
                    .chunks(2)
                    .map(|pair| match pair {
                        [b, c] => Some(Diagnosis {
                            bound: Bound::from_code(*b)?,
                            change: Change::from_code(*c)?,
                        }),
                        _ => None,
                    })
                    .collect()
            }
            _ => return false,
        }
        true
    }

    /// The query pairs that reopen this state (`key=value`, nothing when all is default).
    pub fn query_parts(&self) -> Vec<String> {
        let mut parts = Vec::new();
        if self.mode != Mode::Predict {
            parts.push(format!("ex={}", self.mode.slug()));
        }
        let pred = letters(&self.predictions, |p| p.direction.map(Direction::code));
        if !pred.is_empty() {
            parts.push(format!("pred={pred}"));
        }
        let vpred = letters(&self.predictions, |p| p.verdict.map(verdict_code));
        if !vpred.is_empty() {
            parts.push(format!("vpred={vpred}"));
        }
        if self.submitted {
            parts.push("done=1".into());
        }
        let qa = letters(&self.answers, |a| {
            a.and_then(|i| u8::try_from(i).ok())
                .filter(|&i| i < 26)
                .map(|i| char::from(b'a' + i))
        });
        if !qa.is_empty() {
            parts.push(format!("qa={qa}"));
        }
        if !self.mystery.is_empty() {
            let list: Vec<String> = self.mystery.iter().map(usize::to_string).collect();
            parts.push(format!("mys={}", list.join(".")));
        }
        if self.diagnoses.iter().any(Option::is_some) {
            let mut diag: String = self
                .diagnoses
                .iter()
                .map(|d| match d {
                    Some(d) => format!("{}{}", d.bound.code(), d.change.code()),
                    None => "--".to_string(),
                })
                .collect();
            while diag.ends_with("--") {
                diag.truncate(diag.len() - 2);
            }
            parts.push(format!("diag={diag}"));
        }
        parts
    }

    /// The prediction for kernel `index`.
    pub fn prediction(&self, index: usize) -> Prediction {
        self.predictions.get(index).copied().unwrap_or_default()
    }

    /// Sets the predicted direction of kernel `index`.
    pub fn set_direction(&mut self, index: usize, direction: Option<Direction>) {
        let mut p = self.prediction(index);
        p.direction = direction;
        set_at(&mut self.predictions, index, p);
    }

    /// Sets the predicted verdict of kernel `index`.
    pub fn set_verdict(&mut self, index: usize, verdict: Option<VerdictKind>) {
        let mut p = self.prediction(index);
        p.verdict = verdict;
        set_at(&mut self.predictions, index, p);
    }

    /// Clears the predictions and the reveal.
    pub fn start_over(&mut self) {
        self.predictions.clear();
        self.submitted = false;
    }

    /// The option picked for question `index`, not yet checked.
    pub fn pending_answer(&self, index: usize) -> Option<usize> {
        self.pending_answers.get(index).copied().flatten()
    }

    /// Picks `option` for question `index`, without checking it.
    pub fn pick_answer(&mut self, index: usize, option: usize) {
        set_at(&mut self.pending_answers, index, Some(option));
    }

    /// The bound and change picked for mystery `label`, not yet committed.
    pub fn pending_diagnosis(&self, label: usize) -> (Option<Bound>, Option<Change>) {
        (
            self.pending_bounds.get(label).copied().flatten(),
            self.pending_changes.get(label).copied().flatten(),
        )
    }

    /// Picks a bound for mystery `label`.
    pub fn pick_bound(&mut self, label: usize, bound: Bound) {
        set_at(&mut self.pending_bounds, label, Some(bound));
    }

    /// Picks a change for mystery `label` (`None` to clear it).
    pub fn pick_change(&mut self, label: usize, change: Option<Change>) {
        set_at(&mut self.pending_changes, label, change);
    }

    /// The committed answer to question `index`.
    pub fn answer(&self, index: usize) -> Option<usize> {
        self.answers.get(index).copied().flatten()
    }

    /// Commits `option` as the answer to question `index`.
    pub fn commit_answer(&mut self, index: usize, option: usize) {
        set_at(&mut self.answers, index, Some(option));
    }

    /// The committed diagnosis of mystery `label` (0 for A).
    pub fn diagnosis(&self, label: usize) -> Option<Diagnosis> {
        self.diagnoses.get(label).copied().flatten()
    }

    /// Commits a diagnosis of mystery `label`.
    pub fn commit_diagnosis(&mut self, label: usize, d: Diagnosis) {
        set_at(&mut self.diagnoses, label, Some(d));
    }

    /// The mystery kernels of a run: those the link chose (when all exist), else the run's
    /// default ones ([`mystery::pick`]).
    pub fn mystery_kernels(&self, figures: &[KernelFigures]) -> Vec<usize> {
        if !self.mystery.is_empty() && self.mystery.iter().all(|&i| i < figures.len()) {
            self.mystery.clone()
        } else {
            mystery::pick(figures)
        }
    }

    /// Whether the rest of the page (the other views, the kernel list) must stay hidden, so
    /// no measured figure gives an answer away: while predictions are not submitted, or a
    /// mystery of `mysteries` is not diagnosed. The questions hide nothing.
    pub fn hides_page(&self, mysteries: usize) -> bool {
        match self.mode {
            Mode::Predict => !self.submitted,
            Mode::Mystery => (0..mysteries).any(|i| self.diagnosis(i).is_none()),
            Mode::Quiz => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> ExerciseState {
        let mut s = ExerciseState {
            mode: Mode::Mystery,
            submitted: true,
            mystery: vec![3, 5, 11],
            ..ExerciseState::default()
        };
        s.set_direction(0, Some(Direction::Near));
        s.set_direction(3, Some(Direction::Below));
        s.set_verdict(1, Some(VerdictKind::Balanced));
        s.commit_answer(0, 1);
        s.commit_answer(2, 0);
        s.commit_diagnosis(
            1,
            Diagnosis {
                bound: Bound::Memory,
                change: Change::Coalesce,
            },
        );
        s
    }

    #[test]
    fn the_state_round_trips_through_its_query_pairs() {
        let s = state();
        let parts = s.query_parts();
        assert_eq!(
            parts,
            [
                "ex=mystery",
                "pred=n--b",
                "vpred=-x",
                "done=1",
                "qa=b-a",
                "mys=3.5.11",
                "diag=--ms"
            ]
        );
        let mut back = ExerciseState::default();
        for p in &parts {
            let (k, v) = p.split_once('=').unwrap_or_default();
            assert!(back.read(k, v), "{p}");
        }
        assert_eq!(back.query_parts(), parts);
        assert_eq!(back.prediction(3).direction, Some(Direction::Below));
        assert_eq!(back.prediction(1).verdict, Some(VerdictKind::Balanced));
        assert_eq!(back.answer(2), Some(0));
        assert_eq!(back.diagnosis(1).map(|d| d.change), Some(Change::Coalesce));
        assert_eq!(ExerciseState::default().query_parts(), Vec::<String>::new());
    }

    #[test]
    fn bad_letters_are_no_choice() {
        let mut s = ExerciseState::default();
        for (k, v) in [
            ("pred", "nzA"),
            ("qa", "-Q3c"),
            ("diag", "mszzc"),
            ("ex", "nope"),
        ] {
            assert!(s.read(k, v));
        }
        assert!(!s.read("view", "exercise"));
        assert_eq!(s.mode, Mode::Predict);
        assert_eq!(s.prediction(0).direction, Some(Direction::Near));
        assert_eq!(s.prediction(1).direction, None);
        assert_eq!(s.answers, [None, None, None, Some(2)]);
        assert!(s.diagnosis(0).is_some());
        assert_eq!(s.diagnosis(1), None);
        assert_eq!(s.diagnosis(2), None);
    }

    #[test]
    fn the_page_stays_hidden_until_the_answers_are_in() {
        let mut s = ExerciseState::default();
        assert!(s.hides_page(3));
        s.submitted = true;
        assert!(!s.hides_page(3));
        s.mode = Mode::Mystery;
        assert!(s.hides_page(3));
        for i in 0..3 {
            s.commit_diagnosis(
                i,
                Diagnosis {
                    bound: Bound::Latency,
                    change: Change::MoreParallelism,
                },
            );
        }
        assert!(!s.hides_page(3));
        s.mode = Mode::Quiz;
        assert!(!s.hides_page(3));
        s.start_over();
        assert!(s.predictions.is_empty() && !s.submitted);
    }
}
