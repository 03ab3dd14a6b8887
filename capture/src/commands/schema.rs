//! `capture schema`: the artifact's JSON Schema, as committed in
//! `shared/schema/artifact.schema.json`, or that of `capture explain --format json`.

use std::process::ExitCode;

use crate::cli::{SchemaArgs, SchemaKind};

/// `capture schema`.
pub fn schema(args: &SchemaArgs) -> anyhow::Result<ExitCode> {
    crate::out::print(&match args.which {
        SchemaKind::Artifact => shared::Artifact::json_schema(),
        SchemaKind::Explain => shared::analysis::explain::Explanation::json_schema(),
    })?;
    Ok(ExitCode::SUCCESS)
}
