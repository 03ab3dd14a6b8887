//! `capture schema`: the artifact's JSON Schema, as committed in
//! `shared/schema/artifact.schema.json`.

use std::process::ExitCode;

/// `capture schema`.
pub fn schema() -> anyhow::Result<ExitCode> {
    crate::out::print(&shared::Artifact::json_schema())?;
    Ok(ExitCode::SUCCESS)
}
