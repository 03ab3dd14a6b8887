//! `capture mcp`: the read-only commands served to an agent as Model Context Protocol tools
//! over stdio, on the official Rust SDK (`rmcp`, server and stdio transport only; a
//! current-thread tokio runtime). Each tool calls the command's own code and returns what
//! the command would print: `import` (`capture import`, writing a new artifact under the
//! root), `list_kernels` (`capture table`, most time first), `explain`,
//! `compare` (`capture diff`, also `--by range`), `source` (`capture source`) and, only when started with
//! `--allow-profile PROGRAM`, `profile_plan` (`capture profile --plan-only -- PROGRAM` of a
//! program named at start, the one tool that runs one). Every path is a file under `--root`
//! ([`root::Root`]), each run named by `path` or `paths` (the pages of one export) and read
//! as every read-only command reads it ([`Input`]); standard output carries the protocol alone ([`wire`]: every malformed
//! line answered, every message one line), so warnings go to standard error. Tools run off
//! the protocol's thread, a few at a time ([`take_slot`]), so that a long call never keeps the
//! server from answering; their text is paged ([`page()`]). docs/mcp.md.

mod page;
mod root;
mod wire;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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
use shared::analysis::diff::{clocks, Comparability, GateOptions};

use crate::cli::{
    DiffFormat, ImportArgs, McpArgs, SourceArgs, SourceFormat, TableBy, TableFormat, TableSort,
};
use crate::files::input::{Input, Run};
use page::{page, Paging};
use root::Root;

/// `capture mcp`: serves until the client closes standard input.
pub fn mcp(args: &McpArgs) -> Result<ExitCode> {
    let root = Root::new(&args.root)?;
    let programs = args
        .allow_profile
        .iter()
        .map(|p| Program::new(p, &root))
        .collect::<Result<Vec<_>>>()?;
    let server = Server {
        inner: Arc::new(Inner {
            root,
            programs,
            reading: AtomicUsize::new(0),
            profiling: AtomicUsize::new(0),
        }),
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the MCP server's runtime")?;
    runtime.block_on(async move {
        let running = server
            .serve(wire::Wire::stdio())
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

/// A program `profile_plan` may run: as named on the command line, and its file.
struct Program {
    name: String,
    path: PathBuf,
}

impl Program {
    /// `--allow-profile PATH`, relative to the root when not absolute; it must be a file.
    fn new(path: &Path, root: &Root) -> Result<Program> {
        let joined = root.dir().join(path);
        let real = joined
            .canonicalize()
            .with_context(|| format!("--allow-profile {}", path.display()))?;
        if !real.is_file() {
            bail!("--allow-profile {}: not a file", path.display());
        }
        Ok(Program {
            name: path.display().to_string(),
            path: real,
        })
    }
}

/// The largest input file a tool reads: 256 MiB on disk (the largest real report measured,
/// a BERT forward, is 79 MB). Larger files are refused before they are opened; a `.gz` is
/// held to the readers' own cap after gunzip.
pub const MAX_INPUT_BYTES: u64 = 256 << 20;

/// Reading tools (all but `profile_plan`) that may run at once: 2. Each holds its inputs
/// in memory; a third call while two run is refused as busy, so memory stays that of two.
const READ_SLOTS: usize = 2;

/// The server: its state behind one `Arc`, shared with the threads tools run on.
#[derive(Clone)]
struct Server {
    inner: Arc<Inner>,
}

/// The root its tools read under, the programs `profile_plan` may run, and the calls
/// running.
struct Inner {
    root: Root,
    programs: Vec<Program>,
    /// Reading tools running.
    reading: AtomicUsize,
    /// `profile_plan` calls running (0 or 1).
    profiling: AtomicUsize,
}

/// A slot of a running tool, given back when dropped.
struct Slot<'a>(&'a AtomicUsize);

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Takes a slot of `counter` if fewer than `limit` are taken.
fn take_slot(counter: &AtomicUsize, limit: usize) -> Option<Slot<'_>> {
    counter
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |n| {
            (n < limit).then_some(n + 1)
        })
        .ok()
        .map(|_| Slot(counter))
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
    /// `capture profile --plan-only` of a program named at start: runs it.
    ProfilePlan,
    /// `capture import`: writes an artifact under the root.
    Import,
}

/// One tool argument: name, JSON type, meaning, required.
type Arg = (&'static str, &'static str, &'static str, bool);

/// One tool: what it runs, its name, what it does, and its arguments.
struct ToolDef {
    kind: Kind,
    name: &'static str,
    description: &'static str,
    args: &'static [Arg],
}

const PATH_ARG: Arg = (
    "path",
    "string",
    "the run: an artifact, a .ncu-rep (.ncu-repz) report or an ncu CSV page (.gz read \
     too), relative to the server's root; `path` or `paths`",
    false,
);

const PATHS_ARG: Arg = (
    "paths",
    "array",
    "the files of one run: the raw and details pages of one export (paired by launch ID), \
     or one file as `path` takes it; a lone page says what it lacks",
    false,
);

/// `range`: an NVTX range path narrowing the run ([`super::in_range`]).
const RANGE_ARG: Arg = (
    "range",
    "string",
    "only the launches under this NVTX range path: ranges joined by /, outermost first \
     (measure/step), as list_kernels' by-range rows name them; (no range) for launches in none",
    false,
);

/// The paging arguments every tool takes ([`page()`]).
const PAGE_ARGS: [Arg; 2] = [
    (
        "max_bytes",
        "integer",
        "the most text returned, bytes as JSON-escaped (default 1 MiB, at most 6 MiB); \
         longer output ends with a note giving the offset of the rest",
        false,
    ),
    (
        "offset",
        "integer",
        "where the returned text starts, a byte offset into the whole output (default 0: \
         the offset a cut page's note gives)",
        false,
    ),
];

/// The tools, `profile_plan` last.
const TOOLS: &[ToolDef] = &[
    ToolDef {
        kind: Kind::ListKernels,
        name: "list_kernels",
        description: "The kernels of a run, most time first: launches, time, share, bytes, \
                      FLOP/s, verdict and unit (capture table, Markdown).",
        args: &[
            PATH_ARG,
            PATHS_ARG,
            (
                "top",
                "integer",
                "only the N kernels with the most time",
                false,
            ),
            RANGE_ARG,
            PAGE_ARGS[0],
            PAGE_ARGS[1],
        ],
    },
    ToolDef {
        kind: Kind::Explain,
        name: "explain",
        description: "Each kernel in a few lines: verdict, bounding unit and its % of peak, \
                      distance to its roof, ncu's top rules, flags, and the raw counters \
                      behind each statement (capture explain; JSON: docs/explain.md).",
        args: &[
            PATH_ARG,
            PATHS_ARG,
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
            RANGE_ARG,
            (
                "next",
                "boolean",
                "the next step instead: kernels ranked by recoverable time, each with one \
                 action and the exact ncu command collecting its source counters (capture \
                 explain --next); no structured content",
                false,
            ),
            (
                "format",
                "string",
                "`json` (default: compact, also as structured content) or `text` (the text \
                 alone)",
                false,
            ),
            PAGE_ARGS[0],
            PAGE_ARGS[1],
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
                "string|array",
                "the earlier run, relative to the root: a file as `path` takes it, or the \
                 files of one run as `paths` takes them",
                true,
            ),
            ("after", "string|array", "the later run, as `before`", true),
            (
                "format",
                "string",
                "`text` (default), `markdown` or `json` (compact)",
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
            (
                "top",
                "integer",
                "kernel by kernel: only the N matched kernels with the largest change",
                false,
            ),
            RANGE_ARG,
            PAGE_ARGS[0],
            PAGE_ARGS[1],
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
                "a .ncu-rep (.ncu-repz) report with source counters, a source-page export or \
                 an artifact that keeps them (.gz read too); `path` or `paths`",
                false,
            ),
            PATHS_ARG,
            (
                "kernel",
                "string",
                "regular expression on the kernel name",
                true,
            ),
            ("top", "integer", "hot spots listed (default 20)", false),
            PAGE_ARGS[0],
            PAGE_ARGS[1],
        ],
    },
    ToolDef {
        kind: Kind::Import,
        name: "import",
        description: "Reads the files of one run (ncu CSV pages paired by launch ID, a report, \
                      Nsight Systems' exports; .gz read too) into an artifact written under \
                      the root (capture import), so that later calls read one file. Writes a \
                      new .json file only; never replaces one.",
        args: &[
            PATH_ARG,
            PATHS_ARG,
            (
                "output",
                "string",
                "the artifact to write, a new .json file under the root, relative to it",
                true,
            ),
        ],
    },
    ToolDef {
        kind: Kind::ProfilePlan,
        name: "profile_plan",
        description: "Runs one of the programs the server was started with (capture mcp \
                      --allow-profile PROGRAM) once under ncu's timing pass, without \
                      arguments, in the root, and prints the sampling plan capture profile \
                      would collect, with its predicted cost (capture profile --plan-only -- \
                      PROGRAM). No other program can be named. One call at a time.",
        args: &[
            (
                "program",
                "string",
                "one of the programs the server was started with, as named there",
                true,
            ),
            PAGE_ARGS[0],
            PAGE_ARGS[1],
        ],
    },
];

impl ToolDef {
    /// The tool as `tools/list` gives it: an object schema of its arguments (for
    /// `profile_plan`, `program` one of `programs`).
    fn tool(&self, programs: &[Program]) -> Tool {
        let mut properties = serde_json::Map::new();
        let mut required = Vec::new();
        for (name, kind, meaning, needed) in self.args {
            let mut p = match *kind {
                "array" => json!({"type": "array", "items": {"type": "string"},
                                  "description": meaning}),
                "string|array" => json!({"type": ["string", "array"],
                                         "items": {"type": "string"}, "description": meaning}),
                _ => json!({"type": kind, "description": meaning}),
            };
            if self.kind == Kind::ProfilePlan && *name == "program" {
                p["enum"] = programs.iter().map(|p| p.name.clone()).collect();
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
        hints.read_only_hint = Some(!matches!(self.kind, Kind::ProfilePlan | Kind::Import));
        tool.annotations = Some(hints);
        tool
    }
}

/// A string argument.
fn text_arg<'a>(args: &'a JsonObject, name: &str) -> Result<Option<&'a str>> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => bail!("argument {name}: a string expected, not {}", brief(other)),
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
            .ok_or_else(|| anyhow!("argument {name}: a whole number expected, not {}", brief(v))),
    }
}

/// A value quoted in an error: its first 80 characters of JSON.
fn brief(v: &Value) -> String {
    let text = v.to_string();
    match text.char_indices().nth(80) {
        Some((at, _)) => format!("{}... ({} bytes)", &text[..at], text.len()),
        None => text,
    }
}

/// What a tool gives back before paging: its text, and for `explain` the JSON as
/// structured content.
struct Output {
    text: String,
    structured: Option<Value>,
    /// What the input lacks (a lone page), each sent as a text block after the output.
    notes: Vec<String>,
}

impl Output {
    /// Text alone.
    fn text(text: String) -> Output {
        Output {
            text,
            structured: None,
            notes: Vec::new(),
        }
    }
}

impl Server {
    fn tools(&self) -> Vec<Tool> {
        TOOLS
            .iter()
            .filter(|t| !self.inner.programs.is_empty() || t.kind != Kind::ProfilePlan)
            .map(|t| t.tool(&self.inner.programs))
            .collect()
    }

    /// Tool `name`'s result for `args`, paged, or the error the command would print; a
    /// call refused as busy when the slots of its kind are taken.
    fn call(&self, name: &str, args: &JsonObject) -> Result<CallToolResult> {
        let Some(tool) = TOOLS.iter().find(|t| t.name == name) else {
            bail!("no tool {:?}", name.chars().take(80).collect::<String>());
        };
        if let Some(unknown) = args
            .keys()
            .find(|k| !tool.args.iter().any(|a| a.0 == k.as_str()))
        {
            bail!(
                "{name}: no argument {:?}",
                unknown.chars().take(80).collect::<String>()
            );
        }
        let paging = Paging {
            offset: count_arg(args, "offset")?.unwrap_or(0),
            max_bytes: count_arg(args, "max_bytes")?,
        };
        let inner = &self.inner;
        let _slot = match tool.kind {
            Kind::ProfilePlan if inner.programs.is_empty() => {
                bail!("{name} runs a program: this server was started without --allow-profile")
            }
            Kind::ProfilePlan => take_slot(&inner.profiling, 1).ok_or_else(|| {
                anyhow!(
                    "busy: a profile_plan call is running (its program under ncu); call again \
                     when it has answered"
                )
            })?,
            _ => take_slot(&inner.reading, READ_SLOTS).ok_or_else(|| {
                anyhow!(
                    "busy: {READ_SLOTS} tool calls are running; call again when one has \
                     answered"
                )
            })?,
        };
        let out = match tool.kind {
            Kind::Explain => self.explain(args)?,
            Kind::ListKernels => {
                let input = self.run_input(args)?;
                let run = input.read()?;
                let artifact =
                    super::in_range(run.artifact, text_arg(args, "range")?, &input.name())?;
                let text = super::table::render_top(
                    &artifact,
                    TableFormat::Markdown,
                    TableSort::Time,
                    count_arg(args, "top")?,
                );
                Output {
                    notes: run.notes,
                    ..Output::text(text)
                }
            }
            Kind::Compare => self.compare(args)?,
            Kind::Source => Output::text(super::source::render(&SourceArgs {
                inputs: self.run_input(args)?.paths().to_vec(),
                kernel: needed(args, "kernel")?.to_string(),
                format: SourceFormat::Text,
                sass: None,
                cuda_dir: None,
                nvdisasm: None,
                all_launches: false,
                top: count_arg(args, "top")?.unwrap_or(20),
            })?),
            Kind::ProfilePlan => Output::text(self.profile_plan(args)?),
            Kind::Import => Output::text(self.import(args)?),
        };
        let paged = page(&out.text, paging)?;
        let mut blocks = vec![ContentBlock::text(paged.text)];
        blocks.extend(paged.note.map(ContentBlock::text));
        blocks.extend(
            out.notes
                .into_iter()
                .map(|n| ContentBlock::text(format!("note: {n}"))),
        );
        let mut r = CallToolResult::success(blocks);
        if paged.whole {
            r.structured_content = out.structured;
        }
        Ok(r)
    }

    /// The file a client names, under the root and at most [`MAX_INPUT_BYTES`].
    fn input(&self, name: &str) -> Result<PathBuf> {
        let path = self.inner.root.file(name)?;
        let bytes = std::fs::metadata(&path).map_or(0, |m| m.len());
        if bytes > MAX_INPUT_BYTES {
            bail!(
                "{name}: {bytes} bytes, over the {} MiB a tool reads",
                MAX_INPUT_BYTES >> 20
            );
        }
        Ok(path)
    }

    /// The run a call names: `path` (one file) or `paths` (the files of one run), each
    /// under the root ([`Server::input`]).
    fn run_input(&self, args: &JsonObject) -> Result<Input> {
        match (args.get("path"), args.get("paths")) {
            (Some(p), None) | (None, Some(p)) => self.named_input(p, "path"),
            (Some(_), Some(_)) => bail!("path or paths, not both"),
            (None, None) => bail!("argument path (or paths) is required"),
        }
    }

    /// The run a value names: a file (a string) or the files of one run (a list of them).
    fn named_input(&self, value: &Value, name: &str) -> Result<Input> {
        let names: Vec<&str> = match value {
            Value::String(s) => vec![s],
            Value::Array(items) if !items.is_empty() => items
                .iter()
                .map(|v| {
                    v.as_str().ok_or_else(|| {
                        anyhow!(
                            "argument {name}: a list of paths expected, not {}",
                            brief(v)
                        )
                    })
                })
                .collect::<Result<_>>()?,
            other => bail!(
                "argument {name}: a path or a list of paths expected, not {}",
                brief(other)
            ),
        };
        let paths = names
            .into_iter()
            .map(|n| self.input(n))
            .collect::<Result<Vec<_>>>()?;
        Input::new(paths)
    }

    /// `import`: `capture import` of the run named into a new artifact under the root; the
    /// line the command prints.
    fn import(&self, args: &JsonObject) -> Result<String> {
        let exports = self.run_input(args)?.paths().to_vec();
        let output = self.inner.root.new_file(needed(args, "output")?)?;
        super::import::imported(&ImportArgs {
            exports,
            output,
            source: Vec::new(),
            nvdisasm: None,
        })
    }

    /// `explain`: the text asked for, and the JSON (the tool's structured content, which
    /// its output schema, `capture schema explain`, describes).
    fn explain(&self, args: &JsonObject) -> Result<Output> {
        let text = match text_arg(args, "format")? {
            None | Some("json") => false,
            Some("text") => true,
            Some(f) => bail!("format {:?}: `json` or `text`", brief(&json!(f))),
        };
        let input = self.run_input(args)?;
        let (kernel, top) = (text_arg(args, "kernel")?, count_arg(args, "top")?);
        let run = input.read()?;
        let artifact = super::in_range(run.artifact, text_arg(args, "range")?, &input.name())?;
        if matches!(args.get("next"), Some(Value::Bool(true))) {
            let steps = super::explain::next(&input, &artifact, kernel, top)?;
            return Ok(Output {
                notes: run.notes,
                ..Output::text(if text {
                    shared::analysis::next::to_text(&steps)
                } else {
                    serde_json::to_string(&steps).context("the next steps' JSON")?
                })
            });
        }
        let explained = super::explain::explained(&input, artifact, kernel, top)?;
        // Text: the text alone. JSON: compact, with the same value as structured content.
        if text {
            return Ok(Output {
                notes: run.notes,
                ..Output::text(explained.to_text())
            });
        }
        let value = serde_json::to_value(&explained).context("explain's own JSON")?;
        Ok(Output {
            text: serde_json::to_string(&explained).context("explain's own JSON")?,
            structured: Some(value),
            notes: run.notes,
        })
    }

    /// `compare`: `capture diff` without a gate, kernel by kernel or (`by: range`) range
    /// by range.
    fn compare(&self, args: &JsonObject) -> Result<Output> {
        let by = match text_arg(args, "by")? {
            None | Some("kernel") => TableBy::Kernel,
            Some("range") => TableBy::Range,
            Some(b) => bail!("by {}: `kernel` or `range`", brief(&json!(b))),
        };
        let depth = by
            .checked_depth(count_arg(args, "depth")?)
            .map_err(|e| anyhow!(e.replace("--", "")))?;
        let format = match text_arg(args, "format")? {
            None | Some("text") => DiffFormat::Table,
            Some("markdown") => DiffFormat::Markdown,
            Some("json") => DiffFormat::Json,
            Some(f) => bail!("format {}: `text`, `markdown` or `json`", brief(&json!(f))),
        };
        let side = |name: &str| -> Result<(Input, Run)> {
            let value = args
                .get(name)
                .ok_or_else(|| anyhow!("argument {name} is required"))?;
            let input = self.named_input(value, name)?;
            let run = input.read()?;
            Ok((input, run))
        };
        let (before_input, before_run) = side("before")?;
        let (after_input, after_run) = side("after")?;
        let (before_name, after_name) = (before_input.name(), after_input.name());
        let notes: Vec<String> = before_run
            .notes
            .iter()
            .chain(&after_run.notes)
            .cloned()
            .collect();
        let range = text_arg(args, "range")?;
        let before = super::in_range(before_run.artifact, range, &before_name)?;
        let after = super::in_range(after_run.artifact, range, &after_name)?;
        let (before_warnings, after_warnings) = (before_run.load_warnings, after_run.load_warnings);
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
        if by == TableBy::Range && args.get("top").is_some() {
            bail!("top applies to by kernel only");
        }
        if by == TableBy::Range {
            let mut d = range_diff(&before, &after, depth).named(&before_name, &after_name);
            d.comparability = clocks::with_clocks_read(d.comparability, &before, &after);
            refuse(&d.comparability)?;
            let text = match format {
                DiffFormat::Json => {
                    serde_json::to_string(&d).context("the range diff's own JSON")? + "\n"
                }
                _ => super::diff::in_format(&d, format),
            };
            return Ok(Output {
                notes,
                ..Output::text(text)
            });
        }
        let (d, mut counts) = super::diff::kernel_diff(
            (&before, &before_warnings),
            (&after, &after_warnings),
            GateOptions::default(),
        );
        let d = d.named(&before_name, &after_name);
        refuse(&d.comparability)?;
        // The bands as `capture diff` gives them with one run per side (within-run, floored
        // at the measured run-to-run drift).
        let mut d = shared::analysis::diff::drift::widen(
            d,
            shared::analysis::diff::drift::Drift::within_run_only(),
        );
        let mut notes = notes;
        if let Some(n) = count_arg(args, "top")?.filter(|n| *n < d.diff.kernels.len()) {
            notes.push(format!(
                "the {n} of {} matched kernels with the largest change shown (top)",
                d.diff.kernels.len()
            ));
            d.diff.kernels.truncate(n);
            counts.kernels.truncate(n);
        }
        let text = match format {
            DiffFormat::Json => {
                serde_json::to_string(&super::diff::drifted_launched_value(&d, &counts))
                    .context("the diff's own JSON")?
                    + "\n"
            }
            _ => super::diff::drifted_launched_in_format(&d, &counts, format),
        };
        Ok(Output {
            notes,
            ..Output::text(text)
        })
    }

    /// `profile_plan`: `capture profile --plan-only -- PROGRAM` in the root, for a program
    /// named at start; its output (the first [`profile::MAX_OUTPUT_BYTES`] of each stream)
    /// and, when it fails, its exit status.
    fn profile_plan(&self, args: &JsonObject) -> Result<String> {
        let asked = needed(args, "program")?;
        let programs = &self.inner.programs;
        let Some(program) = programs.iter().find(|p| p.name == asked) else {
            let names: Vec<&str> = programs.iter().map(|p| p.name.as_str()).collect();
            bail!(
                "program {}: not one this server was started with (--allow-profile): {}",
                brief(&json!(asked)),
                names.join(", ")
            );
        };
        let exe = std::env::current_exe().context("locating capture itself")?;
        let mut command = std::process::Command::new(exe);
        command
            .args(["profile", "--plan-only", "--"])
            .arg(&program.path)
            .current_dir(self.inner.root.dir());
        let (status, mut text, err) = profile::run_capped(command)?;
        text.push_str(&err);
        if !status.success() {
            bail!(
                "capture profile --plan-only exited with {}: {}",
                status
                    .code()
                    .map_or_else(|| "a signal".into(), |c| c.to_string()),
                text.trim_end()
            );
        }
        Ok(text)
    }
}

mod profile {
    //! A child process's output, read with a cap.

    use std::io::Read;
    use std::process::{Command, ExitStatus, Stdio};

    use anyhow::{Context, Result};

    /// The most of each of the child's streams kept: 1 MiB; the rest is read and dropped,
    /// with a note of how much.
    pub const MAX_OUTPUT_BYTES: u64 = 1 << 20;

    /// Reads `from` to its end, keeping the first [`MAX_OUTPUT_BYTES`].
    fn capped(from: Option<impl Read>) -> String {
        let Some(mut from) = from else {
            return String::new();
        };
        let mut kept = Vec::new();
        let _ = (&mut from).take(MAX_OUTPUT_BYTES).read_to_end(&mut kept);
        let dropped = std::io::copy(&mut from, &mut std::io::sink()).unwrap_or(0);
        let mut text = String::from_utf8_lossy(&kept).into_owned();
        if dropped > 0 {
            text.push_str(&format!("\n[{dropped} more bytes of output not kept]\n"));
        }
        text
    }

    /// Runs `command` with no input: its status, and its output and errors, capped.
    pub fn run_capped(mut command: Command) -> Result<(ExitStatus, String, String)> {
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .context("starting capture profile")?;
        let (out, err) = (child.stdout.take(), child.stderr.take());
        let errors = std::thread::spawn(move || capped(err));
        let text = capped(out);
        let errors = errors.join().unwrap_or_default();
        let status = child.wait().context("waiting for capture profile")?;
        Ok((status, text, errors))
    }
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("capture", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Roofline and Nsight Compute reports. Paths are files under the server's \
                 root, relative to it. Start with list_kernels or explain; every explain \
                 evidence value is a raw counter of the input. Long output is paged: a cut \
                 page ends with a note giving the offset of the rest.",
            )
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
        let server = self.clone();
        async move {
            let name = request.name.to_string();
            let args = request.arguments.unwrap_or_default();
            // Off the protocol's thread: a long call leaves the server answering.
            let shown = name.chars().take(80).collect::<String>();
            let outcome = tokio::task::spawn_blocking(move || server.call(&name, &args))
                .await
                .unwrap_or_else(|e| Err(anyhow!("the tool's thread failed: {e}")));
            let result = match outcome {
                Ok(r) => r,
                Err(e) => {
                    let message = format!("error: {e:#}");
                    crate::out::eprint_line(&format!("mcp {shown}: {message}"));
                    CallToolResult::error(vec![ContentBlock::text(message)])
                }
            };
            Ok(result.into())
        }
    }
}
