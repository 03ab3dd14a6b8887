//! placeholder
pub fn mcp(_a: &crate::cli::McpArgs) -> anyhow::Result<std::process::ExitCode> {
    anyhow::bail!("todo")
}
