//! The source view of a kernel: the SASS of its longest launch with source counters, one
//! row per instruction with its figures ([`shared::read::source`], the reader `capture
//! source` uses), only the columns the launch has values in, and its hot spots. Plain
//! data, tested natively; `pages::source` renders the rows a window at a time.

use std::sync::Arc;

use shared::analysis::latency::stalls::sampled_name;
use shared::model::artifact::Origin;
use shared::model::counters;
use shared::read::source::{
    how_to_add_sass, longest, of_kernel, stall_reason, Instruction, LaunchSource, LineFigures,
};

use super::load::SourceKind;
use super::model::RunView;
use super::table::{Cell, Head, Row};

/// Hot spots listed above the instructions.
pub const HOT_SPOTS: usize = 20;

/// A column of the instruction table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Col {
    /// Place in address order, from 1.
    Index,
    /// Address.
    Address,
    /// CUDA source file and line.
    Line,
    /// The CUDA source line's text.
    Cuda,
    /// SASS text.
    Sass,
    /// Warp-level instructions executed.
    Executed,
    /// Thread-level instructions executed.
    ThreadExecuted,
    /// Warp-state samples, all reasons.
    Samples,
    /// Samples of one stall reason.
    Stall(&'static str),
    /// Global requests at the L1 tags.
    Requests,
    /// L2 sectors of the global accesses.
    Sectors,
    /// Sectors per request.
    PerRequest,
    /// L2 sectors beyond the ideal.
    Excessive,
    /// Shared-memory wavefronts.
    Wavefronts,
    /// Shared-memory wavefronts beyond the ideal.
    SharedExcessive,
    /// Average N-way bank conflict.
    Nway,
    /// Divergent branch targets.
    Divergent,
}

impl Col {
    /// The header label.
    pub fn label(self) -> &'static str {
        match self {
            Col::Index => "#",
            Col::Address => "address",
            Col::Line => "file:line",
            Col::Cuda => "CUDA source",
            Col::Sass => "SASS",
            Col::Executed => "executed",
            Col::ThreadExecuted => "thread inst.",
            Col::Samples => "samples",
            Col::Stall(reason) => sampled_name(reason),
            Col::Requests => "L1 requests",
            Col::Sectors => "L2 sectors",
            Col::PerRequest => "sectors / request",
            Col::Excessive => "L2 excessive sectors",
            Col::Wavefronts => "shared wavefronts",
            Col::SharedExcessive => "shared excessive (bank conflicts)",
            Col::Nway => "bank conflict N-way",
            Col::Divergent => "divergent branches",
        }
    }

    /// The `data-col` name.
    pub fn slug(self) -> &'static str {
        match self {
            Col::Index => "index",
            Col::Address => "address",
            Col::Line => "line",
            Col::Cuda => "cuda",
            Col::Sass => "sass",
            Col::Executed => "executed",
            Col::ThreadExecuted => "thread_executed",
            Col::Samples => "samples",
            Col::Stall(_) => "stall",
            Col::Requests => "l1_requests",
            Col::Sectors => "l2_sectors",
            Col::PerRequest => "sectors_per_request",
            Col::Excessive => "l2_excessive",
            Col::Wavefronts => "shared_wavefronts",
            Col::SharedExcessive => "shared_excessive",
            Col::Nway => "bank_nway",
            Col::Divergent => "divergent",
        }
    }

    /// The hover text of the header.
    fn title(self) -> String {
        let of = |c: counters::Counter| format!("{} ({})", c.meaning, c.name);
        match self {
            Col::Index => "place in address order".into(),
            Col::Address => "the instruction's address (program counter)".into(),
            Col::Line => "the CUDA source line the instruction was compiled from (-lineinfo)".into(),
            Col::Cuda => "the text of that source line".into(),
            Col::Sass => "the SASS instruction (from a source-page export; a report keeps the binary, not its text)".into(),
            Col::Executed => of(counters::SASS_INST_EXECUTED),
            Col::ThreadExecuted => of(counters::SASS_THREAD_INST_EXECUTED),
            Col::Samples => of(counters::SASS_SAMPLES),
            Col::Stall(reason) => counters::SOURCE_STALLS
                .iter()
                .find(|c| stall_reason(c) == reason)
                .map(|c| of(*c))
                .unwrap_or_default(),
            Col::Requests => of(counters::SASS_L1_TAG_REQUESTS_GLOBAL),
            Col::Sectors => of(counters::SASS_L2_SECTORS_GLOBAL),
            Col::PerRequest => {
                "L2 sectors per warp-level request (the sectors over the times a warp executed the instruction): 4 for a warp's coalesced 4-byte accesses, 32 when every thread touches a sector of its own".into()
            }
            Col::Excessive => of(counters::SASS_L2_SECTORS_GLOBAL_EXCESSIVE),
            Col::Wavefronts => of(counters::SASS_L1_WAVEFRONTS_SHARED),
            Col::SharedExcessive => of(counters::SASS_L1_WAVEFRONTS_SHARED_EXCESSIVE),
            Col::Nway => of(counters::SASS_L1_CONFLICTS_SHARED_NWAY),
            Col::Divergent => of(counters::SASS_BRANCH_DIVERGENT),
        }
    }

    /// The number this column shows of `i`, where it is a number.
    fn number(self, i: &Instruction) -> Option<f64> {
        match self {
            Col::Executed => i.inst_executed,
            Col::ThreadExecuted => i.thread_inst_executed,
            Col::Samples => i.samples,
            Col::Stall(reason) => i.stalls.get(reason).copied(),
            Col::Requests => i.l1_tag_requests_global,
            Col::Sectors => i.l2_sectors_global,
            Col::PerRequest => i.sectors_per_request(),
            Col::Excessive => i.l2_sectors_global_excessive,
            Col::Wavefronts => i.l1_wavefronts_shared,
            Col::SharedExcessive => i.l1_wavefronts_shared_excessive,
            Col::Nway => i.l1_conflicts_shared_nway,
            Col::Divergent => i.divergent_branches,
            _ => None,
        }
    }
}

/// A count as text: whole numbers in full, others to three significant digits.
fn count(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        shared::text::format::sig3(v)
    }
}

/// What the source view shows of one launch.
#[derive(Clone, Debug, PartialEq)]
pub struct SourceView {
    /// The launch.
    pub source: Arc<LaunchSource>,
    /// The columns it has values in, in table order.
    pub columns: Vec<Col>,
    /// Places (in `source.instructions`) of the hot spots, hottest first.
    pub hot: Vec<usize>,
    /// A line about the launch: instructions, executed, samples.
    pub summary: String,
    /// Its CUDA source lines with their instructions' figures summed (empty without line
    /// information).
    pub lines: Vec<LineRow>,
    /// Where no instruction has SASS text: what adds it
    /// ([`shared::read::source::how_to_add_sass`]).
    pub sass_missing: Option<String>,
}

/// A CUDA source line as the view lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct LineRow {
    /// `file:line`.
    pub place: String,
    /// The line's text, or empty.
    pub text: String,
    /// Instructions executed (warp-level).
    pub executed: String,
    /// Warp-state samples.
    pub samples: String,
    /// L2 sectors of its global accesses.
    pub sectors: String,
    /// L2 sectors per warp-level request.
    pub per_request: String,
    /// L2 sectors beyond the ideal.
    pub excessive: String,
}

impl LineRow {
    fn of(l: &LineFigures) -> LineRow {
        let or_dash = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), count);
        LineRow {
            place: l.place(),
            text: l.text.clone().unwrap_or_default(),
            executed: count(l.inst_executed),
            samples: count(l.samples),
            sectors: or_dash(l.sectors),
            per_request: or_dash(l.sectors_per_request()),
            excessive: or_dash(l.excessive),
        }
    }
}

/// The source pages of kernel `kernel` of `run`: those of its launches
/// ([`shared::read::source::of_kernel`]).
pub fn kernel_sources(run: &RunView, kernel: usize) -> Vec<&LaunchSource> {
    run.run
        .artifact
        .kernels
        .get(kernel)
        .map(|record| of_kernel(record, &run.run.sources))
        .unwrap_or_default()
}

/// The report a run was read from, by its name among the run's inputs (for the command
/// that adds its SASS text), else the run's name.
fn report_name(run: &RunView) -> String {
    let inputs = &run.run.artifact.provenance.inputs;
    inputs
        .iter()
        .find(|i| is_report(i))
        .cloned()
        .unwrap_or_else(|| run.run.name.clone())
}

/// Why a kernel of a run has no source page, and the one command that adds one: worked
/// out from what the run was made from, so a report, a `capture profile` artifact and a
/// pair of CSV pages each get their own (a report of GPT-2 and a CSV export were told the
/// same sentence about reports).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoSource {
    /// What is missing and why, in a sentence.
    pub why: String,
    /// The command that adds it.
    pub command: String,
}

impl NoSource {
    /// What `run` lacks for a kernel without source counters.
    pub fn of(run: &RunView) -> NoSource {
        let provenance = &run.run.artifact.provenance;
        let profiled = provenance.origin == Some(Origin::Profile);
        if let Some(command) = provenance
            .command_line
            .as_deref()
            .filter(|_| profiled)
            .and_then(with_source_flag)
        {
            return NoSource {
                why: "This run was profiled by capture profile without --source, so ncu \
                      collected no per-instruction figures. The same command with --source \
                      collects them and keeps ncu's report beside the artifact; open that \
                      report here:"
                    .into(),
                command,
            };
        }
        let report = report_name(run);
        if is_report(&report) {
            let file = report.rsplit('/').next().unwrap_or(&report);
            let stem = file.strip_suffix(".gz").unwrap_or(file);
            let stem = stem
                .strip_suffix(".ncu-repz")
                .or_else(|| stem.strip_suffix(".ncu-rep"))
                .unwrap_or(stem);
            return NoSource {
                why: format!(
                    "{file} has no per-instruction figures for this kernel: it was profiled \
                     without ncu's SourceCounters section (part of --set full), and a report \
                     cannot gain them afterwards. Profile the program again with it and open \
                     the new report here:"
                ),
                command: format!("ncu --set full --import-source yes -o {stem}-full PROGRAM ARGS"),
            };
        }
        if run.run.kind == SourceKind::NcuExport || provenance.origin == Some(Origin::Import) {
            return NoSource {
                why: "Raw and details pages hold no per-instruction figures; the report's \
                      source page does, where the report was profiled with ncu's \
                      SourceCounters section (part of --set full). Export it and open it here \
                      together with these pages:"
                    .into(),
                command: "ncu --import REPORT.ncu-rep --csv --page source --print-source \
                          cuda,sass > source.csv"
                    .into(),
            };
        }
        NoSource {
            why: "No source counters for this kernel: they are in a report (.ncu-rep) \
                  profiled with ncu's SourceCounters section (--set full), or in its \
                  source-page export; open one here, or this program profiled with:"
                .into(),
            command: "capture profile --source -o run.json -- PROGRAM ARGS".into(),
        }
    }
}

/// `capture profile`'s command line `line` with `--source` added after `profile`, the
/// program named by its file name only (`capture profile --source -o a.json -- python3
/// t.py`); `None` where `line` has no `profile` word or has `--source` already.
fn with_source_flag(line: &str) -> Option<String> {
    let words: Vec<&str> = line.split(' ').collect();
    let at = words.iter().position(|w| *w == "profile")?;
    if words.contains(&"--source") {
        return None;
    }
    let (tool, rest) = words.split_at(at);
    let tool = tool.join(" ");
    let tool = tool.rsplit('/').next().unwrap_or(&tool);
    let rest = rest.get(1..).unwrap_or_default().join(" ");
    Some(format!("{tool} profile --source {rest}"))
}

/// Whether `name` is a report's (`.ncu-rep`, or gzipped; `.ncu-repz`).
fn is_report(name: &str) -> bool {
    let name = name.strip_suffix(".gz").unwrap_or(name);
    std::path::Path::new(name)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ncu-rep") || e.eq_ignore_ascii_case("ncu-repz"))
}

impl SourceView {
    /// The view of kernel `kernel` of `run`: its longest launch with source counters;
    /// `None` when none has them.
    pub fn of(run: &RunView, kernel: usize) -> Option<SourceView> {
        let pick = longest(&kernel_sources(run, kernel))?;
        Some(SourceView::new(Arc::new(pick.clone()), &report_name(run)))
    }

    /// Whether any hot spot has a CUDA line (the hot-spot table drops the column if not).
    pub fn hot_have_lines(&self) -> bool {
        self.hot
            .iter()
            .filter_map(|&at| self.source.instructions.get(at))
            .any(|i| i.line.is_some())
    }

    /// Whether any hot spot has SASS or CUDA text.
    pub fn hot_have_text(&self) -> bool {
        self.hot
            .iter()
            .filter_map(|&at| self.source.instructions.get(at))
            .any(|i| i.sass.is_some() || i.cuda.is_some())
    }

    /// The view of one launch's source page, read from the report named `report`.
    pub fn new(source: Arc<LaunchSource>, report: &str) -> SourceView {
        let ins = &source.instructions;
        let mut columns = vec![Col::Index, Col::Address];
        if ins.iter().any(|i| i.line.is_some()) {
            columns.push(Col::Line);
        }
        if ins.iter().any(|i| i.cuda.is_some()) {
            columns.push(Col::Cuda);
        }
        if ins.iter().any(|i| i.sass.is_some()) {
            columns.push(Col::Sass);
        }
        let numeric = [
            Col::Executed,
            Col::ThreadExecuted,
            Col::Samples,
            Col::Requests,
            Col::Sectors,
            Col::PerRequest,
            Col::Excessive,
            Col::Wavefronts,
            Col::SharedExcessive,
            Col::Nway,
            Col::Divergent,
        ];
        let present = |c: Col| ins.iter().any(|i| c.number(i).is_some_and(|v| v != 0.0));
        for c in numeric {
            if present(c) {
                columns.push(c);
            }
            if c == Col::Samples {
                for counter in counters::SOURCE_STALLS {
                    let reason = stall_reason(counter);
                    if ins.iter().any(|i| i.stalls.contains_key(reason)) {
                        columns.push(Col::Stall(reason));
                    }
                }
            }
        }
        let hot = source
            .hot_spots(HOT_SPOTS)
            .into_iter()
            .filter_map(|h| ins.binary_search_by_key(&h.address, |i| i.address).ok())
            .collect();
        let summary = format!(
            "launch {}: {} instructions, {} executed, {} warp-state samples",
            source.launch,
            ins.len(),
            count(source.inst_executed()),
            count(source.samples()),
        );
        let lines = source.by_line().iter().map(LineRow::of).collect();
        let sass_missing = (!columns.contains(&Col::Sass)).then(|| how_to_add_sass(report));
        SourceView {
            source,
            columns,
            hot,
            summary,
            lines,
            sass_missing,
        }
    }

    /// The table's header.
    pub fn header(&self) -> Vec<Head> {
        self.columns
            .iter()
            .map(|c| Head {
                label: c.label(),
                key: "",
                col: Some(c.slug()),
                title: c.title(),
            })
            .collect()
    }

    /// The row of the instruction at place `at`.
    pub fn row(&self, at: usize) -> Option<Row> {
        let i = self.source.instructions.get(at)?;
        let cells = self
            .columns
            .iter()
            .map(|c| {
                match c {
                    Col::Index => Cell::text("num", (at + 1).to_string()),
                    Col::Address => Cell::text("addr", format!("{:#x}", i.address)),
                    Col::Line => {
                        let line = self.line_of(i);
                        Cell::text("name", line.clone()).title(line)
                    }
                    Col::Cuda => {
                        let text = i.cuda.as_deref().unwrap_or_default().to_owned();
                        Cell::text("code", text.clone()).title(text)
                    }
                    Col::Sass => {
                        let text = i.sass.clone().unwrap_or_default();
                        Cell::text("code", text.clone()).title(text)
                    }
                    c => {
                        let v = c.number(i);
                        let mut cell = Cell::text("num", v.map_or_else(String::new, count));
                        cell.value = v.map(|v| v.to_string());
                        cell
                    }
                }
                .col(c.slug())
            })
            .collect();
        Some(Row {
            kernel: None,
            selected: false,
            cells,
        })
    }

    /// `file:line` of an instruction (the file's name without its directories), or empty.
    pub fn line_of(&self, i: &Instruction) -> String {
        match (&i.file, i.line) {
            (Some(f), Some(l)) => format!("{}:{l}", f.rsplit('/').next().unwrap_or(f)),
            (None, Some(l)) => format!("line {l}"),
            _ => String::new(),
        }
    }

    /// A hot spot in words: its place, address, top stall and SASS.
    pub fn hot_line(&self, at: usize) -> Option<HotSpot> {
        let i = self.source.instructions.get(at)?;
        Some(HotSpot {
            at,
            address: format!("{:#x}", i.address),
            samples: i.samples.map_or_else(|| "-".into(), count),
            executed: i.inst_executed.map_or_else(|| "-".into(), count),
            stall: i.top_stall().map_or_else(
                || "-".into(),
                |(r, v)| format!("{} {}", sampled_name(r), count(v)),
            ),
            line: self.line_of(i),
            text: i
                .sass
                .clone()
                .or_else(|| i.cuda.as_deref().map(str::to_owned))
                .unwrap_or_default(),
        })
    }
}

/// A hot spot as the view lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct HotSpot {
    /// Place in `instructions`.
    pub at: usize,
    /// Address, hex.
    pub address: String,
    /// Warp-state samples.
    pub samples: String,
    /// Instructions executed.
    pub executed: String,
    /// The top stall reason and its samples.
    pub stall: String,
    /// `file:line`, or empty.
    pub line: String,
    /// SASS text, else the CUDA line, else empty.
    pub text: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::load::{load_batch, InputFile};
    use crate::state::model::Workspace;
    use crate::state::test_support::unpack;

    /// The BERT forward's `--set full` report and its source-page export.
    fn bert_report_and_page() -> (InputFile, InputFile) {
        let report = InputFile {
            name: "bert_full.ncu-rep".into(),
            bytes: unpack("tests/fixtures/ncu-h200-bert/bert_full.ncu-repz"),
        };
        let page = InputFile {
            name: "bert_full_source.csv".into(),
            bytes: unpack("tests/fixtures/ncu-h200-bert/bert_full_source.csv.gz"),
        };
        (report, page)
    }

    #[test]
    fn a_run_without_source_counters_is_told_what_it_lacks_and_the_command_that_adds_it() {
        use crate::state::test_support::{sample, workspace};
        // GPT-2 under capture profile without --source: its own command line, with it.
        let ws = sample("h200-gpt2-bf16.json");
        assert!(SourceView::of(&ws.runs[0], 0).is_none());
        let gpt2 = NoSource::of(&ws.runs[0]);
        assert!(gpt2.why.contains("without --source"), "{}", gpt2.why);
        assert_eq!(
            gpt2.command,
            "capture profile --source --keep-exports -o /tmp/w3/samples/h200-gpt2-bf16.json \
             -- python3 /work/main/tests/fixtures/ncu-h200-torch/gpt2_bf16.py"
        );
        // A report profiled without the section: named, and profiled again with it.
        let ws = sample("h200-two-process.ncu-rep");
        assert!(SourceView::of(&ws.runs[0], 0).is_none());
        let report = NoSource::of(&ws.runs[0]);
        assert!(
            report
                .why
                .starts_with("h200-two-process.ncu-rep has no per-instruction"),
            "{}",
            report.why
        );
        assert_eq!(
            report.command,
            "ncu --set full --import-source yes -o h200-two-process-full PROGRAM ARGS"
        );
        // CSV pages: the report's source page, exported.
        let ws = workspace(&[
            "site/samples/h200-ncu-cold-raw.csv",
            "site/samples/h200-ncu-cold-details.csv",
        ]);
        let pages = NoSource::of(&ws.runs[0]);
        assert!(
            pages.why.starts_with("Raw and details pages"),
            "{}",
            pages.why
        );
        assert!(
            pages
                .command
                .starts_with("ncu --import REPORT.ncu-rep --csv --page source"),
            "{}",
            pages.command
        );
        assert_eq!(with_source_flag("capture profile --source -- a"), None);
        assert_eq!(with_source_flag("capture table a.json"), None);
    }

    #[test]
    fn a_report_with_its_source_page_gives_every_kernel_its_sass_and_figures() {
        let (report, page) = bert_report_and_page();
        let (runs, errors) = load_batch(vec![report.clone(), page.clone()]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws = Workspace::default();
        ws.add(runs);
        let run = &ws.runs[0];
        assert_eq!(
            run.run.sources.len(),
            43,
            "every launch has source counters"
        );
        let mut shown = 0;
        for (k, record) in run.run.artifact.kernels.iter().enumerate() {
            let view = SourceView::of(run, k).unwrap_or_else(|| panic!("{}", record.name));
            assert!(view.columns.contains(&Col::Sass), "{}", record.name);
            assert!(view.columns.contains(&Col::Executed));
            assert!(!view.hot.is_empty());
            let n = view.source.instructions.len();
            let last = view.row(n - 1).expect("a row");
            assert_eq!(last.cells.len(), view.columns.len());
            assert!(view.row(n).is_none());
            shown += n;
        }
        assert!(shown > 1000, "{shown} instructions");
        // The report alone: the same figures, no SASS text.
        let (alone, _) = load_batch(vec![report]);
        let mut ws2 = Workspace::default();
        ws2.add(alone);
        let v = SourceView::of(&ws2.runs[0], 0).expect("a view");
        assert!(!v.columns.contains(&Col::Sass));
        let with = SourceView::of(run, 0).expect("a view");
        let strip = |l: &LaunchSource| {
            l.instructions
                .iter()
                .map(|i| (i.address, i.inst_executed, i.samples))
                .collect::<Vec<_>>()
        };
        assert_eq!(strip(&v.source), strip(&with.source));
        // A source page alone is refused with what to do.
        let (none, errors) = load_batch(vec![page]);
        assert!(none.is_empty());
        assert!(errors[0].message.contains("pick it together"), "{errors:?}");
    }

    #[test]
    fn an_artifact_keeps_each_kernels_source_page_with_its_sass_and_stall_names() {
        let (report, page) = bert_report_and_page();
        let (runs, errors) = load_batch(vec![report.clone(), page]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws = Workspace::default();
        ws.add(runs);
        let run = &ws.runs[0];
        // What `capture import REPORT --source PAGE` writes, read back as an artifact.
        let mut artifact = run.run.artifact.clone();
        artifact.sources =
            shared::read::source::kept_in_artifact(&artifact.kernels, &run.run.sources);
        let file = InputFile {
            name: "bert.json".into(),
            bytes: artifact.to_json().into_bytes(),
        };
        let (opened, errors) = load_batch(vec![file]);
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws2 = Workspace::default();
        ws2.add(opened);
        let from_artifact = &ws2.runs[0];
        for k in 0..run.run.artifact.kernels.len() {
            let a = SourceView::of(from_artifact, k).expect("the artifact's source page");
            let b = SourceView::of(run, k).expect("the report's");
            assert_eq!(a.source, b.source);
            assert_eq!(a.columns, b.columns);
            assert!(a.columns.contains(&Col::Sass) && a.sass_missing.is_none());
        }
        // The stall columns and hot spots name the states as the Occupancy page does.
        let gemm = (0..run.run.artifact.kernels.len())
            .filter_map(|k| SourceView::of(from_artifact, k))
            .find(|v| v.columns.contains(&Col::Stall("warpgroup_arrive")))
            .expect("a Hopper GEMM waiting at warpgroup arrives");
        let labels: Vec<&str> = gemm.header().iter().map(|h| h.label).collect();
        assert!(labels.contains(&"warpgroup arrive (GMMA)"), "{labels:?}");
        assert!(labels.contains(&"long scoreboard"), "{labels:?}");
        assert!(!labels.iter().any(|l| l.contains('_')), "{labels:?}");
        // The report alone: no SASS, and the page says what adds it, naming the report.
        let (alone, _) = load_batch(vec![report]);
        let mut ws3 = Workspace::default();
        ws3.add(alone);
        let v = SourceView::of(&ws3.runs[0], 0).expect("a view");
        let how = v.sass_missing.clone().expect("what adds the SASS");
        assert!(
            how.contains("ncu --import bert_full.ncu-rep --csv --page source"),
            "{how}"
        );
        assert!(!v.hot_have_text() && !v.hot_have_lines());
    }

    #[test]
    fn the_suites_report_shows_the_cuda_line_of_the_stride32_loads() {
        let read = |rel: &str| {
            std::fs::read(format!("{}/../{rel}", env!("CARGO_MANIFEST_DIR"))).expect("file")
        };
        let batch = vec![
            InputFile {
                name: "suite_full.ncu-rep".into(),
                bytes: unpack("tests/fixtures/ncu-h200-suite-source/suite_full.ncu-repz"),
            },
            InputFile {
                name: "suite_source_cuda_sass.csv".into(),
                bytes: unpack("tests/fixtures/ncu-h200-suite-source/suite_source_cuda_sass.csv.gz"),
            },
            InputFile {
                name: "vector_add.cu".into(),
                bytes: read("kernels/vector_add.cu"),
            },
        ];
        let (runs, errors) = load_batch(batch);
        assert!(errors.is_empty(), "{errors:?}");
        let mut ws = Workspace::default();
        ws.add(runs);
        let run = &ws.runs[0];
        let k = run
            .run
            .artifact
            .kernels
            .iter()
            .position(|k| &*k.name == "vector_add_stride32")
            .expect("the kernel");
        let view = SourceView::of(run, k).expect("source counters");
        for c in [Col::Line, Col::Cuda, Col::Sass, Col::PerRequest] {
            assert!(view.columns.contains(&c), "{c:?}");
        }
        let load = view
            .lines
            .iter()
            .find(|l| l.per_request != "-")
            .expect("a line with global accesses");
        assert_eq!(
            (
                load.place.as_str(),
                load.text.trim(),
                load.per_request.as_str()
            ),
            ("vector_add.cu:23", "c[i] = a[i] + b[i];", "32")
        );
        // A picked CUDA file alone is refused with what to do.
        let (none, errors) = load_batch(vec![InputFile {
            name: "vector_add.cu".into(),
            bytes: read("kernels/vector_add.cu"),
        }]);
        assert!(none.is_empty() && errors[0].message.contains("together with the report"));
    }
}
