//! Report-reading questions: each a question about one of the bundled samples, its options,
//! the right one, an explanation for every option, and the report rows that settle it
//! ([`Figure`]s of named kernels), which the viewer shows from the sample on reveal.
//!
//! The questions live in `questions.json` beside this file, embedded at build time so the
//! site works offline. Each also lists `checks`: the numbers its text relies on, with the
//! range they must fall in on the sample; a test holds every question to its sample's real
//! counters, so a question cannot drift from the data it is about.

use serde::{Deserialize, Serialize};

use crate::artifact::Artifact;
use crate::figures::KernelFigures;

use super::figure::{find_kernel, Figure, FigureValue};

/// The bundled questions, as JSON.
pub const BUNDLED: &str = include_str!("questions.json");

/// The fewest questions the bundled file must hold.
pub const MIN_QUESTIONS: usize = 8;

/// A report row a question points at: a figure of a kernel (by short or full name), or of
/// the run when `kernel` is absent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// The kernel's short name (the bytes table's) or full name; absent for a run figure.
    #[serde(default)]
    pub kernel: Option<String>,
    /// The figure.
    pub figure: Figure,
}

/// A number a question's text relies on, and where it must fall on the sample.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Check {
    /// The kernel, as in [`Row`].
    #[serde(default)]
    pub kernel: Option<String>,
    /// The figure.
    pub figure: Figure,
    /// The least value it may have.
    #[serde(default)]
    pub min: Option<f64>,
    /// The greatest value it may have.
    #[serde(default)]
    pub max: Option<f64>,
    /// The text it must have (a verdict).
    #[serde(default)]
    pub equals: Option<String>,
}

impl Check {
    /// The row it checks.
    pub fn row(&self) -> Row {
        Row {
            kernel: self.kernel.clone(),
            figure: self.figure,
        }
    }
}

/// One question.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Question {
    /// A stable name, for element ids.
    pub id: String,
    /// The sample it is about: a file name under the site's `samples/`.
    pub sample: String,
    /// The question.
    pub question: String,
    /// The options.
    pub options: Vec<String>,
    /// Index of the right option.
    pub correct: usize,
    /// Why each option is right or wrong, one per option.
    pub explanations: Vec<String>,
    /// The report rows that settle it, highlighted on reveal.
    pub settles: Vec<Row>,
    /// Rows shown beside them for context.
    #[serde(default)]
    pub context: Vec<Row>,
    /// The numbers the text relies on.
    #[serde(default)]
    pub checks: Vec<Check>,
}

impl Question {
    /// The site path of its sample (`samples/h200.json`).
    pub fn sample_path(&self) -> String {
        format!("samples/{}", self.sample)
    }
}

/// Why a question file is refused.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum QuizError {
    /// Not JSON of the expected shape.
    #[error("questions: {0}")]
    Json(String),
    /// A question is incomplete or inconsistent.
    #[error("question {id}: {problem}")]
    Invalid {
        /// The question's id.
        id: String,
        /// What is wrong.
        problem: String,
    },
    /// Too few questions.
    #[error("questions: {found} questions, at least {MIN_QUESTIONS} needed")]
    TooFew {
        /// How many there are.
        found: usize,
    },
}

/// Parses and checks a question file: unique ids, at least two options, the right option
/// among them, one explanation per option, at least one settling row, a plain sample name.
pub fn parse(json: &str) -> Result<Vec<Question>, QuizError> {
    let questions: Vec<Question> =
        serde_json::from_str(json).map_err(|e| QuizError::Json(e.to_string()))?;
    for (i, q) in questions.iter().enumerate() {
        let bad = |problem: &str| {
            Err(QuizError::Invalid {
                id: q.id.clone(),
                problem: problem.to_string(),
            })
        };
        if q.id.is_empty() || !q.id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-') {
            return bad("the id must be letters, digits and dashes");
        }
        if questions[..i].iter().any(|p| p.id == q.id) {
            return bad("the id is used twice");
        }
        if q.options.len() < 2 {
            return bad("fewer than two options");
        }
        if q.correct >= q.options.len() {
            return bad("the right option is not one of the options");
        }
        if q.explanations.len() != q.options.len() {
            return bad("not one explanation per option");
        }
        if q.settles.is_empty() {
            return bad("no row settles it");
        }
        if q.sample.contains(['/', '\\']) || q.sample.contains("..") || q.sample.is_empty() {
            return bad("the sample must be a plain file name");
        }
    }
    Ok(questions)
}

/// The bundled questions, at least [`MIN_QUESTIONS`].
pub fn bundled() -> Result<Vec<Question>, QuizError> {
    let q = parse(BUNDLED)?;
    if q.len() < MIN_QUESTIONS {
        return Err(QuizError::TooFew { found: q.len() });
    }
    Ok(q)
}

/// A row's value on a run: the kernel looked up by name; `None` when the run lacks the
/// kernel or the figure.
pub fn value_of(row: &Row, artifact: &Artifact, figures: &[KernelFigures]) -> Option<FigureValue> {
    let fig = match &row.kernel {
        Some(name) => Some(figures.get(find_kernel(figures, name)?)?),
        None => None,
    };
    row.figure.value(artifact, fig)
}

/// The checks of `q` that `artifact` fails, each in one line; empty when all hold.
pub fn failed_checks(q: &Question, artifact: &Artifact, figures: &[KernelFigures]) -> Vec<String> {
    let mut out = Vec::new();
    let all_rows = q
        .settles
        .iter()
        .chain(&q.context)
        .map(|r| (r.clone(), None))
        .chain(q.checks.iter().map(|c| (c.row(), Some(c))));
    for (row, check) in all_rows {
        let name = format!(
            "{} of {}",
            row.figure.label(),
            row.kernel.as_deref().unwrap_or("the run")
        );
        let Some(v) = value_of(&row, artifact, figures) else {
            out.push(format!("{}: {name} is missing", q.id));
            continue;
        };
        let Some(check) = check else { continue };
        match (&v, &check.equals) {
            (FigureValue::Text(t), Some(want)) if t != want => {
                out.push(format!("{}: {name} is {t}, not {want}", q.id))
            }
            (FigureValue::Number(x), _) => {
                let below = check.min.is_some_and(|m| *x < m);
                let above = check.max.is_some_and(|m| *x > m);
                if below || above || check.equals.is_some() {
                    out.push(format!(
                        "{}: {name} is {x}, outside {:?}..{:?}",
                        q.id, check.min, check.max
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bundled_questions_parse() {
        let q = bundled().expect("the bundled questions");
        assert!(q.len() >= MIN_QUESTIONS);
        for question in &q {
            assert!(!question.question.is_empty(), "{}", question.id);
            assert!(question.explanations.iter().all(|e| !e.is_empty()));
        }
    }

    #[test]
    fn broken_questions_are_refused_with_their_id() {
        let one = |patch: &str| {
            format!(
                r#"[{{"id": "q", "sample": "h200.json", "question": "?", "options": ["a", "b"],
                    "correct": 1, "explanations": ["x", "y"],
                    "settles": [{{"kernel": "k", "figure": "dram_pct"}}] {patch}}}]"#
            )
        };
        assert!(parse(&one("")).is_ok());
        let cases = [
            (r#", "correct": 2"#, "duplicate field"),
            (r#", "extra": 1"#, "unknown field"),
        ];
        for (patch, want) in cases {
            let err = parse(&one(patch)).expect_err(patch);
            assert!(err.to_string().contains(want), "{err}");
        }
        let wrong = one("").replace(r#""correct": 1"#, r#""correct": 2"#);
        assert_eq!(
            parse(&wrong),
            Err(QuizError::Invalid {
                id: "q".into(),
                problem: "the right option is not one of the options".into()
            })
        );
        let short = one("").replace(r#"["x", "y"]"#, r#"["x"]"#);
        assert!(parse(&short).is_err());
        let path = one("").replace("h200.json", "../h200.json");
        assert!(parse(&path).is_err());
        let figure = one("").replace("dram_pct", "dram_percent");
        assert!(matches!(parse(&figure), Err(QuizError::Json(_))));
    }
}
