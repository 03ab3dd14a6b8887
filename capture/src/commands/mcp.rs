//! `capture mcp`: the read-only commands served to an agent as Model Context Protocol tools
//! over stdio, on the official Rust SDK (`rmcp`, server and stdio transport only; a
//! current-thread tokio runtime). Each tool calls the command's own code and returns what
//! the command would print: `list_kernels` (`capture table`, most time first), `explain`,
//! `compare` (`capture diff`, also `--by range`), `source` (`capture source`) and, only when started with
//! `--allow-profile`, `profile_plan` (`capture profile --plan-only`, the one tool that
//! runs a program). Every path is a file under `--root` ([`root::Root`]); standard output
//! carries the protocol alone, so warnings go to standard error. docs/mcp.md.

mod root;

use std::path::Path;
use std::process::ExitCode;

use anyhow::{anyhow, bail, Context, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
    ToolAnnotations,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};
use shared::analysis::diff::ranges::range_diff;
use shared::analysis::diff::{diff_loaded, Comparability, GateOptions};

use crate::cli::{
    DiffFormat, ExplainFormat, McpArgs, SourceArgs, SourceFormat, TableBy, TableFormat, TableSort,
};
use root::Root;

/// `capture mcp`: serves until the client closes standard input.
pub fn mcp(args: &McpArgs) -> Result<ExitCode> {
    let server = Server {
        root: Root::new(&args.root)?,
        allow_profile: args.allow_profile,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the MCP server's runtime")?;
    runtime.block_on(async move {
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| anyhow!("MCP initialization failed: {e}"))?;
        running
            .waiting()
            .await
            .map_err(|e| anyhow!("MCP server stopped: {e}"))?;
        Ok::<_, anyhow::Error>(())
    })?;
    Ok(ExitCode::SUCCESS)
}

/// The server: the root its tools read under, and whether `profile_plan` is offered.
struct Server {
    root: Root,
    allow_profile: bool,
}

/// The tools, by what they run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `capture table`, most time first.
    ListKernels,
    /// `capture explain`.
    Explain,
    /// `capture diff`.
    Compare,
    /// `capture source`.
    Source,
    /// `capture profile --plan-only`: runs a program.
    ProfilePlan,
}

/// One tool: what it runs, its name, what it does, and its arguments (name, JSON type,
/// meaning, required).
struct ToolDef {
    kind: Kind,
    name: &'static str,
    description: &'static str,
    args: &'static [(&'static str, &'static str, &'static str, bool)],
}

const PATH_ARG: (&str, &str, &str, bool) = (
    "path",
    "string",
    "an artifact, ncu CSV export or .ncu-rep (.ncu-repz) report, relative to the server's root",
    true,
);

/// The tools, `profile_plan` last.
const TOOLS: &[ToolDef] = &[
    ToolDef {
        kind: Kind::ListKernels,
        name: "list_kernels",
        description: "The kernels of a run, most time first: launches, time, share, bytes, \
                      FLOP/s, verdict and unit (capture table, Markdown).",
        args: &[PATH_ARG],
    },
    ToolDef {
        kind: Kind::Explain,
        name: "explain",
        description: "Each kernel in a few lines: verdict, bounding unit and its % of peak, \
                      distance to its roof, ncu's top rules, flags, and the raw counters \
                      behind each statement (capture explain; JSON: docs/explain.md).",
        args: &[
            PATH_ARG,
            (
                "kernel",
                "string",
                "regular expression on the full kernel name",
                false,
            ),
            (
                "top",
                "integer",
                "only the N kernels with the most time",
                false,
            ),
            ("format", "string", "`json` (default) or `text`", false),
        ],
    },
    ToolDef {
        kind: Kind::Compare,
        name: "compare",
        description: "Run against run, kernel by kernel or NVTX range by range, with noise \
                      bands (capture diff). Runs that differ in device, driver, clocks or \
                      metric set are refused unless force is true.",
        args: &[
            (
                "before",
                "string",
                "the earlier run, relative to the root",
                true,
            ),
            (
                "after",
                "string",
                "the later run, relative to the root",
                true,
            ),
            (
                "format",
                "string",
                "`text` (default), `markdown` or `json`",
                false,
            ),
            (
                "force",
                "boolean",
                "compare runs the comparability check refuses",
                false,
            ),
            (
                "by",
                "string",
                "`kernel` (default) or `range`: NVTX range by range, which part of the \
                 program got slower",
                false,
            ),
            (
                "depth",
                "integer",
                "with by `range`: paths cut to their first N ranges",
                false,
            ),
        ],
    },
    ToolDef {
        kind: Kind::Source,
        name: "source",
        description: "A kernel's SASS hot spots with per-instruction figures and CUDA lines, \
                      from a .ncu-rep report or a source-page export (capture source).",
        args: &[
            (
                "path",
                "string",
                "a .ncu-rep (.ncu-repz) report with source counters or a source-page export",
                true,
            ),
            (
                "kernel",
                "string",
                "regular expression on the kernel name",
                true,
            ),
            ("top", "integer", "hot spots listed (default 20)", false),
        ],
    },
    ToolDef {
        kind: Kind::ProfilePlan,
        name: "profile_plan",
        description: "Runs the program once under ncu's timing pass and prints the sampling \
                      plan capture profile would collect, with its predicted cost (capture \
                      profile --plan-only). Runs a program: offered only with --allow-profile.",
        args: &[
            (
                "program",
                "string",
                "the program, a file under the root",
                true,
            ),
            ("args", "array", "its arguments (strings)", false),
        ],
    },
];

impl ToolDef {
    /// The tool as `tools/list` gives it: an object schema of its arguments.
    fn tool(&self) -> Tool {
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        for (name, kind, meaning, needed) in self.args {
            let mut p = json!({"type": kind, "description": meaning});
            if *kind == "array" {
                p["items"] = json!({"type": "string"});
            }
            properties.insert((*name).to_string(), p);
            if *needed {
                required.push(*name);
            }
        }
        let schema = json!({
            "type": "object",
            "properties": properties,
            "required": required,
            "additionalProperties": false,
        });
        let mut tool = Tool::new(
            self.name,
            self.description,
            schema.as_object().cloned().unwrap_or_default(),
        );
        if self.kind == Kind::Explain {
            let schema = shared::analysis::explain::Explanation::json_schema();
            if let Ok(Value::Object(schema)) = serde_json::from_str(&schema) {
                tool.output_schema = Some(std::sync::Arc::new(schema));
            }
        }
        let mut hints = ToolAnnotations::default();
        hints.read_only_hint = Some(self.kind != Kind::ProfilePlan);
        tool.annotations = Some(hints);
        tool
    }
}

/// A string argument.
fn text_arg<'a>(args: &'a JsonObject, name: &str) -> Result<Option<&'a str>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => bail!("argument {name}: a string expected, not {other}"),
    }
}

/// A required string argument.
fn needed<'a>(args: &'a JsonObject, name: &str) -> Result<&'a str> {
    text_arg(args, name)?.ok_or_else(|| anyhow!("argument {name} is required"))
}

/// A whole-number argument.
fn count_arg(args: &JsonObject, name: &str) -> Result<Option<usize>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| anyhow!("argument {name}: a whole number expected, not {v}")),
    }
}

impl Server {
    fn tools(&self) -> Vec<Tool> {
        TOOLS
            .iter()
            .filter(|t| self.allow_profile || t.kind != Kind::ProfilePlan)
            .map(ToolDef::tool)
            .collect()
    }

    /// Tool `name`'s result for `args`: its text (and for `explain`, the JSON as structured
    /// content), or the error the command would print.
    fn call(&self, name: &str, args: &JsonObject) -> Result<CallToolResult> {
        let Some(tool) = TOOLS.iter().find(|t| t.name == name) else {
            bail!("no tool {name:?}");
        };
        if let Some(unknown) = args
            .keys()
            .find(|k| !tool.args.iter().any(|a| a.0 == k.as_str()))
        {
            bail!("{name}: no argument {unknown}");
        }
        let text = match tool.kind {
            Kind::Explain => {
                let (text, value) = self.explain(args)?;
                let mut r = CallToolResult::success(vec![ContentBlock::text(text)]);
                r.structured_content = Some(value);
                return Ok(r);
            }
            Kind::ListKernels => {
                let (artifact, _) = super::diff::read_run(&self.root.file(needed(args, "path")?)?)?;
                super::table::render_sorted(&artifact, TableFormat::Markdown, TableSort::Time)
            }
            Kind::Compare => self.compare(args)?,
            Kind::Source => super::source::render(&SourceArgs {
                input: self.root.file(needed(args, "path")?)?,
                kernel: needed(args, "kernel")?.to_string(),
                format: SourceFormat::Text,
                sass: None,
                cuda_dir: None,
                all_launches: false,
                top: count_arg(args, "top")?.unwrap_or(20),
            })?,
            Kind::ProfilePlan if self.allow_profile => self.profile_plan(args)?,
            Kind::ProfilePlan => {
                bail!("{name} runs a program: this server was started without --allow-profile")
            }
        };
        Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
    }

    /// `explain`: the text asked for, and the JSON (the tool's structured content, which
    /// its output schema, `capture schema explain`, describes).
    fn explain(&self, args: &JsonObject) -> Result<(String, Value)> {
        let text = match text_arg(args, "format")? {
            None | Some("json") => false,
            Some("text") => true,
            Some(f) => bail!("format {f:?}: `json` or `text`"),
        };
        let path = self.root.file(needed(args, "path")?)?;
        let (kernel, top) = (text_arg(args, "kernel")?, count_arg(args, "top")?);
        let json = super::explain::render(&path, kernel, top, ExplainFormat::Json)?;
        let value: Value = serde_json::from_str(&json).context("explain's own JSON")?;
        Ok(match text {
            true => (
                super::explain::render(&path, kernel, top, ExplainFormat::Text)?,
                value,
            ),
            false => (json, value),
        })
    }

    /// `compare`: `capture diff` without a gate, kernel by kernel or (`by: range`) range
    /// by range.
    fn compare(&self, args: &JsonObject) -> Result<String> {
        let by = match text_arg(args, "by")? {
            None | Some("kernel") => TableBy::Kernel,
            Some("range") => TableBy::Range,
            Some(b) => bail!("by {b:?}: `kernel` or `range`"),
        };
        let depth = by
            .checked_depth(count_arg(args, "depth")?)
            .map_err(|e| anyhow!(e.replace("--", "")))?;
        let format = match text_arg(args, "format")? {
            None | Some("text") => DiffFormat::Table,
            Some("markdown") => DiffFormat::Markdown,
            Some("json") => DiffFormat::Json,
            Some(f) => bail!("format {f:?}: `text`, `markdown` or `json`"),
        };
        let before_path = self.root.file(needed(args, "before")?)?;
        let after_path = self.root.file(needed(args, "after")?)?;
        let (before, before_warnings) = super::diff::read_run(&before_path)?;
        let (after, after_warnings) = super::diff::read_run(&after_path)?;
        let shown = |p: &Path| {
            p.strip_prefix(self.root.dir())
                .unwrap_or(p)
                .display()
                .to_string()
        };
        let (before_name, after_name) = (shown(&before_path), shown(&after_path));
        let force = matches!(args.get("force"), Some(Value::Bool(true)));
        let refuse = |comparability: &Comparability| -> Result<()> {
            if !comparability.comparable() && !force {
                bail!(
                    "{before_name} and {after_name} cannot be compared fairly: {} (force: true \
                     compares them anyway)",
                    comparability.reasons().join("; ")
                );
            }
            Ok(())
        };
        if by == TableBy::Range {
            let d = range_diff(&before, &after, depth).named(&before_name, &after_name);
            refuse(&d.comparability)?;
            return Ok(super::diff::in_format(&d, format));
        }
        let d = diff_loaded(
            (&before, &before_warnings),
            (&after, &after_warnings),
            GateOptions::default(),
        )
        .named(&before_name, &after_name);
        refuse(&d.comparability)?;
        Ok(super::diff::in_format(&d, format))
    }

    /// `profile_plan`: `capture profile --plan-only -- PROGRAM ARGS` in the root, its
    /// output and, when it fails, its exit status.
    fn profile_plan(&self, args: &JsonObject) -> Result<String> {
        let program = self.root.file(needed(args, "program")?)?;
        let rest: Vec<&str> = match args.get("args") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| {
                    v.as_str()
                        .ok_or_else(|| anyhow!("args: strings expected, not {v}"))
                })
                .collect::<Result<_>>()?,
            Some(other) => bail!("args: an array of strings expected, not {other}"),
        };
        let exe = std::env::current_exe().context("locating capture itself")?;
        let out = std::process::Command::new(exe)
            .args(["profile", "--plan-only", "--"])
            .arg(&program)
            .args(&rest)
            .current_dir(self.root.dir())
            .stdin(std::process::Stdio::null())
            .output()
            .context("starting capture profile")?;
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        if !out.status.success() {
            bail!(
                "capture profile --plan-only exited with {}: {}",
                out.status
                    .code()
                    .map_or_else(|| "a signal".into(), |c| c.to_string()),
                text.trim_end()
            );
        }
        Ok(text)
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("capture", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Roofline and Nsight Compute reports. Paths are files under {}. Start with \
                 list_kernels or explain; every explain evidence value is a raw counter of \
                 the input.",
                self.root.dir().display()
            ))
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_
    {
        std::future::ready(Ok(ListToolsResult::with_all_items(self.tools())))
    }

    fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> impl std::future::Future<Output = Result<CallToolResponse, ErrorData>> + MaybeSendFuture + '_
    {
        let args = request.arguments.clone().unwrap_or_default();
        let outcome = self.call(&request.name, &args);
        let result = match outcome {
            Ok(r) => r,
            Err(e) => {
                let message = format!("error: {e:#}");
                crate::out::eprint_line(&format!("mcp {}: {message}", request.name));
                CallToolResult::error(vec![ContentBlock::text(message)])
            }
        };
        std::future::ready(Ok(result.into()))
    }
}
