//! `capture table`: the asked-for vs measured bytes table of an artifact, formatted by the
//! shared table code (so the viewer shows the same numbers).

use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::table::{annotate, bytes_table, SortOrder};
use shared::Artifact;

use crate::cli::{TableArgs, TableFormat, TableSort};
use crate::files;
use crate::out;

/// The table of `artifact` in `format`, rows in launch order, as text ending in a newline.
pub fn render(artifact: &Artifact, format: TableFormat) -> String {
    render_sorted(artifact, format, TableSort::Launch)
}

/// The table of `artifact` in `format` with its rows in `sort` order.
pub fn render_sorted(artifact: &Artifact, format: TableFormat, sort: TableSort) -> String {
    let mut table = bytes_table(artifact);
    annotate(&mut table, artifact);
    table.sort(match sort {
        TableSort::Launch => SortOrder::Launch,
        TableSort::Time => SortOrder::Time,
        TableSort::Name => SortOrder::Name,
    });
    match format {
        TableFormat::Table => table.to_text(),
        TableFormat::Csv => table.to_csv(),
        TableFormat::Markdown => table.to_markdown(),
        TableFormat::Json => table.to_json(),
    }
}

/// Prints the table of `artifact` to stdout.
pub fn print_table(artifact: &Artifact, format: TableFormat) -> Result<()> {
    out::print(&render(artifact, format))
}

/// `capture table`.
pub fn table(args: &TableArgs) -> Result<ExitCode> {
    let artifact = files::read_artifact(&args.artifact)?;
    out::print(&render_sorted(&artifact, args.format, args.sort))?;
    Ok(ExitCode::SUCCESS)
}
