//! The exercises against the bundled samples' real numbers: every question's checks hold on
//! its sample, the course's own solution directions grade as the measured H200 values say,
//! each miss is explained from its counters, and the mystery kernels of the H200 sample are
//! one of each bound.

use shared::analysis::figures::KernelFigures;
use shared::analysis::metrics::VerdictKind;
use shared::exercise::evidence::{Evidence, Finding};
use shared::exercise::figure::find_kernel;
use shared::exercise::mystery::{self, Bound, Change};
use shared::exercise::predict::{grade, Direction, Prediction};
use shared::exercise::quiz;
use shared::Artifact;

/// The bundled samples the questions name (shared does no I/O, even in its tests), kept
/// gzipped in the tree and published un-gzipped by `site/build.sh`.
const SAMPLES: [(&str, &[u8]); 2] = [
    (
        "h200.json",
        include_bytes!("../../../site/samples/h200.json.gz"),
    ),
    (
        "h200-gpt2-bf16.json",
        include_bytes!("../../../site/samples/h200-gpt2-bf16.json.gz"),
    ),
];

fn sample(name: &str) -> (Artifact, Vec<KernelFigures>) {
    let text = SAMPLES
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, gz)| String::from_utf8(crate::support::unpack(gz)).expect("UTF-8"))
        .unwrap_or_else(|| panic!("no bundled sample {name}"));
    let artifact = Artifact::from_json(&text).expect("the sample parses");
    let table = shared::analysis::table::bytes_table(&artifact);
    let figures = KernelFigures::all(&artifact, &table);
    (artifact, figures)
}

/// The course's solution for its ten rows, as the H200 sample names them; the naive
/// transpose, which it says may land on either side, and the tiled one, which it does not
/// name, are left out.
const SOLUTION: [(&str, Direction); 8] = [
    ("vector add", Direction::Near),
    ("block reduction", Direction::Near),
    ("polynomial, 256", Direction::Near),
    ("matmul, naive", Direction::Below),
    ("matmul, tiled 16", Direction::Below),
    ("stencil, global", Direction::Below),
    ("stencil, tiled", Direction::Below),
    ("vector add, stride 32", Direction::Above),
];

#[test]
fn every_question_holds_on_its_sample() {
    let json = include_str!("../../../site/questions.json");
    let questions = quiz::parse_site(json).expect("the questions");
    let checks = quiz::parse_checks(json).expect("the checks");
    assert!(questions.len() >= quiz::MIN_QUESTIONS);
    let mut failures = Vec::new();
    for q in &questions {
        let (artifact, figures) = sample(&q.sample);
        let mine = checks
            .iter()
            .find(|c| c.id == q.id)
            .map(|c| c.checks.as_slice())
            .unwrap_or_default();
        assert!(!mine.is_empty(), "{}: no checks", q.id);
        failures.extend(quiz::failed_checks(q, mine, &artifact, &figures));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_course_solution_scores_what_the_h200_measured() {
    let (artifact, figures) = sample("h200.json");
    let mut predictions = vec![Prediction::default(); figures.len()];
    for (name, d) in SOLUTION {
        let i = find_kernel(&figures, name).unwrap_or_else(|| panic!("{name}"));
        predictions[i].direction = Some(d);
    }
    let verdict_of = find_kernel(&figures, "polynomial, 256").expect("polynomial");
    predictions[verdict_of].verdict = Some(VerdictKind::ComputeBound);
    let (rows, score) = grade(&artifact, &figures, &predictions);
    assert_eq!(rows.len(), 20, "every suite kernel has an ask");
    assert_eq!((score.right, score.predicted), (7, 8), "{score:?}");
    assert_eq!((score.verdicts_right, score.verdicts_predicted), (1, 1));
    let misses: Vec<_> = rows
        .iter()
        .filter(|r| r.direction_right() == Some(false))
        .collect();
    assert_eq!(misses.len(), 1);
    let miss = misses[0];
    assert_eq!(figures[miss.index].short, "stencil, tiled");
    assert_eq!(miss.measured, Some(Direction::Near));
    let x = miss.explanation.as_ref().expect("the miss is explained");
    let shown = format!("{:.4}", x.dram_per_ask);
    assert_eq!(Some(x.dram_per_ask), figures[miss.index].row.dram_per_ask);
    assert!(x.summary.contains(&shown), "{}", x.summary);
    let titles: Vec<&str> = x.findings.iter().map(Finding::title).collect();
    assert!(titles.contains(&"sector waste"), "{titles:?}");
    assert!(titles.contains(&"L2 reuse"), "{titles:?}");
    assert!(titles.contains(&"working set past L2"), "{titles:?}");
    // A right row carries no explanation.
    assert!(rows
        .iter()
        .filter(|r| r.direction_right() == Some(true))
        .all(|r| r.explanation.is_none()));
}

#[test]
fn strided_reads_exceed_what_the_loads_touched() {
    let (artifact, figures) = sample("h200.json");
    let i = find_kernel(&figures, "vector add, stride 32").expect("strided add");
    let e = Evidence::of(
        artifact.kernels.get(i),
        &figures[i],
        artifact.device.as_ref(),
    );
    let load = e.load_bytes.expect("load sectors");
    assert!((load / 8.59e9 - 1.0).abs() < 0.01, "{load}");
    assert_eq!(e.load_sectors_per_request, Some(32.0));
    assert_eq!(e.ideal_sectors_per_request, Some(4.0));
    let f = shared::exercise::evidence::findings(&e);
    assert!(
        f.iter().any(|f| matches!(f, Finding::ExtraReads { .. })),
        "{f:?}"
    );
}

#[test]
fn the_h200_mysteries_are_one_of_each_bound() {
    let (artifact, figures) = sample("h200.json");
    let picked = mystery::pick(&figures);
    let names: Vec<&str> = picked.iter().map(|&i| figures[i].short.as_str()).collect();
    assert_eq!(
        names,
        ["FMA ceiling", "vector add, stride 32", "stencil, global"]
    );
    let answers: Vec<_> = picked
        .iter()
        .map(|&i| mystery::answer(&artifact, &figures[i]).expect("an answer"))
        .collect();
    let got: Vec<(&[Bound], Change)> = answers.iter().map(|a| (a.accepted, a.change)).collect();
    assert_eq!(
        got,
        [
            (&[Bound::Compute][..], Change::CheaperMath),
            (&[Bound::Memory][..], Change::Coalesce),
            (&[Bound::Latency][..], Change::MoreParallelism),
        ]
    );
    assert_eq!(
        answers[1].source_file.as_deref(),
        Some("kernels/vector_add.cu")
    );
}
