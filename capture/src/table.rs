//! `capture table`: the asked-for vs measured bytes table of an artifact, formatted by the
//! shared table code (so the viewer shows the same numbers).

use std::process::ExitCode;

use anyhow::Result;
use shared::table::bytes_table;
use shared::Artifact;

use crate::cli::{TableArgs, TableFormat};
use crate::files;

/// The table of `artifact` in `format`, as text ending in a newline.
pub fn render(artifact: &Artifact, format: TableFormat) -> String {
    let table = bytes_table(artifact);
    match format {
        TableFormat::Table => table.to_text(),
        TableFormat::Csv => table.to_csv(),
        TableFormat::Markdown => table.to_markdown(),
        TableFormat::Json => table.to_json(),
    }
}

/// Prints the table of `artifact` to stdout.
pub fn print_table(artifact: &Artifact, format: TableFormat) {
    print!("{}", render(artifact, format));
}

/// `capture table`.
pub fn table(args: &TableArgs) -> Result<ExitCode> {
    let artifact = files::read_artifact(&args.artifact)?;
    print_table(&artifact, args.format);
    Ok(ExitCode::SUCCESS)
}
