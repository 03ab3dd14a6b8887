//! Report-reading questions: each a question about one of the bundled samples, its options,
//! the right one, an explanation for every option, and the report rows that settle it
//! ([`Figure`]s of named kernels), which the viewer shows from the sample on reveal.
//!
//! The questions live in `site/questions.json`, a file of the static site beside the
//! samples (the viewer fetches it from its own site, so it works offline, and it costs the
//! wasm nothing). Each also lists `checks`: the numbers its text relies on, with the range
//! they must fall in on the sample; a test holds every question to its sample's real
//! counters, so a question cannot drift from the data it is about.

use serde::Deserialize;
use serde_json::{Map, Value};

use crate::analysis::figures::KernelFigures;
use crate::model::artifact::Artifact;

use super::figure::{find_kernel, Figure, FigureValue};

/// The site path of the question file.
pub const PATH: &str = "questions.json";

/// The fewest questions the site's file must hold.
pub const MIN_QUESTIONS: usize = 8;

/// A report row a question points at: a figure of a kernel (by short or full name), or of
/// the run when `kernel` is absent.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// The kernel's short name (the bytes table's) or full name; absent for a run figure.
    #[serde(default)]
    pub kernel: Option<String>,
    /// The figure.
    pub figure: Figure,
}

/// A number a question's text relies on, and where it must fall on the sample.
#[derive(Clone, Debug, PartialEq, Deserialize)]
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
#[derive(Clone, Debug, PartialEq)]
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
    pub context: Vec<Row>,
}

/// The fields a question may have; `checks` is read by [`parse_checks`] only (the viewer
/// never needs them).
const FIELDS: [&str; 9] = [
    "id",
    "sample",
    "question",
    "options",
    "correct",
    "explanations",
    "settles",
    "context",
    "checks",
];

// Questions are read from a `serde_json::Value`, whose reader the viewer has anyway, rather
// than by a derived deserializer: the same checks, a tenth of the wasm.
fn text(o: &Map<String, Value>, key: &str) -> Result<String, String> {
    o.get(key)
        .and_then(Value::as_str)
        .map(String::from)
        .ok_or_else(|| format!("`{key}` is missing or not text"))
}

fn texts(o: &Map<String, Value>, key: &str) -> Result<Vec<String>, String> {
    let list = o
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| format!("`{key}` is missing or not a list"))?;
    list.iter()
        .map(|v| v.as_str().map(String::from))
        .collect::<Option<_>>()
        .ok_or_else(|| format!("`{key}` holds something that is not text"))
}

fn rows(o: &Map<String, Value>, key: &str) -> Result<Vec<Row>, String> {
    let Some(list) = o.get(key) else {
        return Ok(Vec::new());
    };
    let list = list
        .as_array()
        .ok_or_else(|| format!("`{key}` is not a list"))?;
    list.iter()
        .map(|v| {
            let r = v
                .as_object()
                .ok_or_else(|| format!("`{key}` holds something that is not a row"))?;
            if let Some(k) = r
                .keys()
                .find(|k| !matches!(k.as_str(), "kernel" | "figure"))
            {
                return Err(format!("`{key}`: unknown field `{k}`"));
            }
            let figure = text(r, "figure")?;
            Ok(Row {
                kernel: r.get("kernel").and_then(Value::as_str).map(String::from),
                figure: Figure::from_key(&figure)
                    .ok_or_else(|| format!("`{key}`: unknown figure `{figure}`"))?,
            })
        })
        .collect()
}

fn question(v: &Value) -> Result<Question, String> {
    let o = v.as_object().ok_or("a question is not an object")?;
    if let Some(k) = o.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(format!("unknown field `{k}`"));
    }
    Ok(Question {
        id: text(o, "id")?,
        sample: text(o, "sample")?,
        question: text(o, "question")?,
        options: texts(o, "options")?,
        correct: o
            .get("correct")
            .and_then(Value::as_u64)
            .and_then(|n| usize::try_from(n).ok())
            .ok_or("`correct` is missing or not an index")?,
        explanations: texts(o, "explanations")?,
        settles: rows(o, "settles")?,
        context: rows(o, "context")?,
    })
}

/// The checks of one question, read apart from the question ([`parse_checks`]).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct Checks {
    /// The question's id.
    pub id: String,
    /// Its checks.
    #[serde(default)]
    pub checks: Vec<Check>,
}

/// The checks of every question of a question file, by id.
pub fn parse_checks(json: &str) -> Result<Vec<Checks>, QuizError> {
    serde_json::from_str(json).map_err(|e| QuizError::Json(e.to_string()))
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
    let value: Value = serde_json::from_str(json).map_err(|e| QuizError::Json(e.to_string()))?;
    let list = value
        .as_array()
        .ok_or_else(|| QuizError::Json("the questions are not a list".into()))?;
    let questions = list
        .iter()
        .enumerate()
        .map(|(i, v)| {
            question(v).map_err(|problem| QuizError::Invalid {
                id: v
                    .get("id")
                    .and_then(Value::as_str)
                    .map_or_else(|| format!("#{}", i + 1), String::from),
                problem,
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
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

/// The site's question file, parsed and checked ([`parse`]), at least [`MIN_QUESTIONS`].
pub fn parse_site(json: &str) -> Result<Vec<Question>, QuizError> {
    let q = parse(json)?;
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

/// The checks of `q` (`checks`) that `artifact` fails, and its rows that `artifact` lacks,
/// each in one line; empty when all hold.
pub fn failed_checks(
    q: &Question,
    checks: &[Check],
    artifact: &Artifact,
    figures: &[KernelFigures],
) -> Vec<String> {
    let mut out = Vec::new();
    let all_rows = q
        .settles
        .iter()
        .chain(&q.context)
        .map(|r| (r.clone(), None))
        .chain(checks.iter().map(|c| (c.row(), Some(c))));
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
        let q = parse_site(include_str!("../../../site/questions.json")).expect("the questions");
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
            (r#", "extra": 1"#, "question q: unknown field `extra`"),
            (
                r#", "context": [{"figure": "sm_pct", "kernal": "k"}]"#,
                "unknown field `kernal`",
            ),
            (r#", "context": 3"#, "`context` is not a list"),
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
        let err = parse(&figure).expect_err("an unknown figure");
        assert!(
            err.to_string().contains("unknown figure `dram_percent`"),
            "{err}"
        );
        assert!(matches!(parse("{"), Err(QuizError::Json(_))));
        let no_id = one("").replace(r#""id": "q", "#, "");
        let err = parse(&no_id).expect_err("no id");
        assert!(err.to_string().starts_with("question #1: `id`"), "{err}");
    }
}
