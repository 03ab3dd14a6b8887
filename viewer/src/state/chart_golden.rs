//! Golden files for the chart painters (`shared::chart::draw_roofline`, `draw_highlight`
//! and `draw_memory`): the full SVG each draws for real captures, byte for byte, so a
//! refactor of a painter cannot change a pixel unnoticed. The charts come from the
//! repository's real files through the page's own model ([`super::roofline`]), and between
//! them they take every path of the roofline painter: measured and theoretical (dashed) roofs, a
//! subtitle, roof and kernel labels, leader lines, the key, a comparison's arrows, a point
//! clipped to the axes, a point above its roof, and the canvas's device pixel ratio of 2.
//!
//! The files live in `tests/golden/charts/`. When a change to the drawing is meant, write
//! them again with `UPDATE_GOLDEN=1 cargo test -p viewer --lib chart_golden` and review the
//! difference (they are SVG: open them side by side).

use plotters::prelude::*;
use shared::chart::{draw_highlight, draw_roofline, HitGrid, RooflineChart};

use super::load::{load_batch, InputFile};
use super::model::Workspace;
use super::roofline::{compare_roofline, run_roofline};
use super::test_support::{fixture, sample, unpack};
use super::view::{KernelRef, Plotted};
use shared::model::work_kind::Work;

/// Compares `svg` with `tests/golden/charts/NAME.svg`, or writes it there when
/// `UPDATE_GOLDEN` is set.
fn check(name: &str, svg: &str) {
    let dir = format!("{}/../tests/golden/charts", env!("CARGO_MANIFEST_DIR"));
    let path = format!("{dir}/{name}.svg");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{dir}: {e}"));
        std::fs::write(&path, svg).unwrap_or_else(|e| panic!("{path}: {e}"));
        return;
    }
    let want = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    if want != svg {
        let at = want
            .bytes()
            .zip(svg.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(want.len().min(svg.len()));
        let from = at.saturating_sub(120);
        panic!(
            "{path}: the drawing differs from byte {at} (golden {} bytes, drawn {}):\n golden: {}\n drawn:  {}",
            want.len(),
            svg.len(),
            want.get(from..(at + 120).min(want.len())).unwrap_or(""),
            svg.get(from..(at + 120).min(svg.len())).unwrap_or(""),
        );
    }
}

/// The chart drawn as SVG at `w` x `h` with sizes times `scale`, as the canvas draws it.
fn paint(chart: &RooflineChart, w: u32, h: u32, scale: f64) -> (String, shared::chart::Drawn) {
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        draw_roofline(&root, chart, scale).unwrap_or_else(|e| panic!("{e}"))
    };
    (svg, drawn)
}

/// The two runs of `tests/fixtures/diff` (one program before and after a change) in one
/// workspace, as the compare page loads them.
fn diff_runs() -> Workspace {
    let files = ["run1.json", "run2.json"]
        .iter()
        .map(|name| InputFile {
            name: (*name).to_owned(),
            bytes: unpack(&format!("tests/fixtures/diff/{name}.gz")),
        })
        .collect();
    let (runs, errors) = load_batch(files);
    assert!(errors.is_empty(), "{errors:?}");
    let mut ws = Workspace::default();
    ws.add(runs);
    ws
}

#[test]
fn the_roofline_draws_as_its_golden_files() {
    let gpt2 = sample("h200-gpt2-bf16.json");
    let own = run_roofline(&gpt2, 0, Plotted::Own);
    let bert = fixture("ncu-h200-bert/bert_full_raw.csv");
    let bert_fp32 = run_roofline(&bert, 0, Plotted::Kind(Work::Fp32));
    let probe = fixture("ncu-h200/probe_metrics_raw_with_stdout.csv");
    let probe_fp32 = run_roofline(&probe, 0, Plotted::Kind(Work::Fp32));
    let diff = diff_runs();
    let pair = compare_roofline(
        &diff,
        KernelRef { run: 0, kernel: 0 },
        KernelRef { run: 1, kernel: 0 },
        Plotted::Own,
    );
    // The far outlier of `a_far_outlier_is_clipped_not_fitted`: drawn at the edge with an
    // arrow out.
    let mut clipped = own.chart.clone();
    if let Some(first) = clipped
        .series
        .first_mut()
        .and_then(|s| s.points.first_mut())
    {
        first.flop_per_byte = 1e7;
        first.gflop_per_s = 0.01;
    }

    let charts: [(&str, &RooflineChart, u32, u32, f64); 7] = [
        ("gpt2-own-1000", &own.chart, 1000, 640, 1.0),
        ("gpt2-own-700-dpr2", &own.chart, 1400, 960, 2.0),
        ("bert-fp32-1400", &bert_fp32.chart, 1400, 700, 1.0),
        ("probe-fp32-1000", &probe_fp32.chart, 1000, 640, 1.0),
        ("diff-compare-1000", &pair.chart, 1000, 640, 1.0),
        ("diff-compare-700-dpr1.5", &pair.chart, 1050, 720, 1.5),
        ("gpt2-clipped-1000", &clipped, 1000, 640, 1.0),
    ];
    let mut seen = Seen::default();
    for (name, chart, w, h, scale) in charts {
        let (svg, drawn) = paint(chart, w, h, scale);
        seen.note(chart);
        check(name, &svg);

        // The emphasis layer over it: the first two series selected, the first point
        // hovered.
        let grid = HitGrid::new(drawn.hits.clone(), 9.0 * scale);
        let selected: Vec<usize> = (0..chart.series.len().min(2)).collect();
        let mut overlay = String::new();
        {
            let root = SVGBackend::with_string(&mut overlay, (w, h)).into_drawing_area();
            draw_highlight(
                &root,
                chart,
                &grid,
                &drawn.labels,
                &selected,
                drawn.hits.first().copied(),
                scale,
            )
            .unwrap_or_else(|e| panic!("{e}"));
        }
        check(&format!("{name}-highlight"), &overlay);
    }
    // The golden files take every path of the painter, or they pin less than they seem to.
    assert!(seen.measured_roof && seen.dashed_roof, "{seen:?}");
    assert!(seen.subtitle && seen.link && seen.above_roof, "{seen:?}");
    assert!(seen.clipped && seen.second_run, "{seen:?}");
}

/// Which of the painter's paths the golden charts take.
#[derive(Debug, Default)]
struct Seen {
    measured_roof: bool,
    dashed_roof: bool,
    subtitle: bool,
    link: bool,
    above_roof: bool,
    clipped: bool,
    second_run: bool,
}

impl Seen {
    fn note(&mut self, chart: &RooflineChart) {
        self.measured_roof |= chart.roofs.iter().any(|r| r.measured);
        self.dashed_roof |= chart.roofs.iter().any(|r| !r.measured);
        self.subtitle |= !chart.subtitle.is_empty();
        self.link |= !chart.links.is_empty();
        self.above_roof |= chart
            .series
            .iter()
            .any(|s| s.points.iter().any(|p| p.above_roof));
        self.clipped |= !chart.fit().clipped.is_empty();
        self.second_run |= chart.series.iter().any(|s| s.run == 1);
    }
}

/// The memory chart of kernel `kernel` of run 0 of `ws`, against `compare` when given, as
/// the memory and compare pages build it.
fn memory_chart(
    ws: &Workspace,
    kernel: usize,
    compare: Option<KernelRef>,
) -> shared::chart::MemoryChart {
    let at = |r: KernelRef| ws.kernel(r).map(|(_, k)| k);
    let k = at(KernelRef { run: 0, kernel }).unwrap_or_else(|| panic!("no kernel {kernel}"));
    shared::chart::MemoryChart {
        title: k.short.clone(),
        flows: k.flows.clone(),
        compare: compare.and_then(at).map(|c| c.flows.clone()),
    }
}

#[test]
fn the_memory_chart_draws_as_its_golden_files() {
    let probe = fixture("ncu-h200/probe_full_raw.csv");
    let bert = fixture("ncu-h200-bert/bert_full_raw.csv");
    let diff = diff_runs();
    let charts = [
        ("probe-0", memory_chart(&probe, 0, None), 1.0),
        ("bert-0-dpr2", memory_chart(&bert, 0, None), 2.0),
        (
            "diff-compare",
            memory_chart(&diff, 0, Some(KernelRef { run: 1, kernel: 0 })),
            1.0,
        ),
        ("empty", shared::chart::MemoryChart::default(), 1.0),
    ];
    for (name, chart, scale) in &charts {
        let (w, h) = ((900.0 * scale) as u32, (420.0 * scale) as u32);
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
            shared::chart::draw_memory(&root, chart, *scale).unwrap_or_else(|e| panic!("{e}"));
        }
        check(&format!("memory-{name}"), &svg);
    }
    assert!(charts.iter().any(|(_, c, _)| c.flows.has_any()));
    assert!(charts.iter().any(|(_, c, _)| c.compare.is_some()));
}
