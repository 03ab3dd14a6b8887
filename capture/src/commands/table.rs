//! `capture table`: the asked-for vs measured bytes table of a run (an artifact or an export,
//! read as every read-only command reads its input: [`Input`](crate::files::input::Input)), formatted by the
//! shared table code (so the viewer shows the same numbers); with `--by range`, the
//! launches by NVTX range ([`shared::analysis::ranges`]).

use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::ranges::{range_table, RangeNode};
use shared::analysis::table::{annotate, bytes_table, SortOrder};
use shared::analysis::trace::TraceReport;
use shared::model::trace::Trace;
use shared::text::table::Format;
use shared::Artifact;

use crate::cli::{TableArgs, TableBy, TableFormat, TableSort};
use crate::files::stage_times::Stages;
use crate::out;

/// The table of `artifact` in `format`, rows in launch order, as text ending in a newline.
pub fn render(artifact: &Artifact, format: TableFormat) -> String {
    render_sorted(artifact, format, TableSort::Launch)
}

/// The table of `artifact` in `format` with its rows in `sort` order.
pub fn render_sorted(artifact: &Artifact, format: TableFormat, sort: TableSort) -> String {
    render_staged(artifact, format, sort, None, &mut Stages::off())
}

/// [`render_sorted`], only the first `top` rows.
pub fn render_top(
    artifact: &Artifact,
    format: TableFormat,
    sort: TableSort,
    top: Option<usize>,
) -> String {
    render_staged(artifact, format, sort, top, &mut Stages::off())
}

/// [`render_top`], each step timed by `stages`.
fn render_staged(
    artifact: &Artifact,
    format: TableFormat,
    sort: TableSort,
    top: Option<usize>,
    stages: &mut Stages,
) -> String {
    let mut table = bytes_table(artifact);
    stages.mark("rows");
    annotate(&mut table, artifact);
    stages.mark("annotate");
    table.sort(match sort {
        TableSort::Launch => SortOrder::Launch,
        TableSort::Time => SortOrder::Time,
        TableSort::Name => SortOrder::Name,
    });
    if let Some(n) = top {
        table.kernels.truncate(n);
    }
    let text = match format {
        TableFormat::Table => table.to_text(),
        TableFormat::Csv => table.to_csv(),
        TableFormat::Markdown => table.to_markdown(),
        TableFormat::Json => table.to_json(),
    };
    stages.mark("render");
    text
}

/// Prints the table of `artifact` to stdout.
pub fn print_table(artifact: &Artifact, format: TableFormat) -> Result<()> {
    out::print(&render(artifact, format))
}

/// The range table of `artifact` in `format`, paths cut to `depth`, nodes in tree order
/// (`launch`), largest time first (`time`) or by path (`name`).
pub fn render_ranges(
    artifact: &Artifact,
    format: TableFormat,
    sort: TableSort,
    depth: Option<usize>,
) -> String {
    let mut table = range_table(artifact, depth);
    if let Some(w) = table.cut.warning() {
        out::warn(&w);
    }
    match sort {
        TableSort::Launch => {}
        TableSort::Time => table
            .nodes
            .sort_by(|a: &RangeNode, b: &RangeNode| b.time_ms.total_cmp(&a.time_ms)),
        TableSort::Name => table.nodes.sort_by(|a, b| a.name.cmp(&b.name)),
    }
    match format {
        TableFormat::Table => table.to_text(),
        TableFormat::Csv => table.to_csv(),
        TableFormat::Markdown => table.to_markdown(),
        TableFormat::Json => table.to_json(),
    }
}

/// A trace's kernel summary, copies and timeline in `format` (JSON: the figures as they are).
pub fn render_trace(trace: &Trace, format: TableFormat, by_range: bool) -> String {
    let report = TraceReport::of(trace);
    let format = match format {
        TableFormat::Table => Format::Text,
        TableFormat::Csv => Format::Csv,
        TableFormat::Markdown => Format::Markdown,
        TableFormat::Json => {
            let mut text = serde_json::to_string_pretty(&report).unwrap_or_default();
            text.push('\n');
            return text;
        }
    };
    report.render(format, by_range)
}

/// `capture table`.
pub fn table(args: &TableArgs) -> Result<ExitCode> {
    let depth = args
        .by
        .checked_depth(args.depth)
        .map_err(anyhow::Error::msg)?;
    let mut stages = Stages::from_env();
    let (_, artifact) = super::read_in_range(&args.inputs, args.range.as_deref())?;
    if let Some(trace) = artifact.trace.as_deref() {
        // A trace has no counters: its table is the kernel summary, the copies and the
        // timeline (Nsight Systems' view), by range with `--by range`.
        out::print(&render_trace(trace, args.format, args.by == TableBy::Range))?;
        return Ok(ExitCode::SUCCESS);
    }
    stages.mark("read");
    let text = match args.by {
        TableBy::Kernel => render_staged(&artifact, args.format, args.sort, args.top, &mut stages),
        TableBy::Range => render_ranges(&artifact, args.format, args.sort, depth),
    };
    out::print(&text)?;
    stages.mark("print");
    stages.print();
    Ok(ExitCode::SUCCESS)
}
