//! The subcommands, one module each; `main`'s `run` dispatches to them. Each resolves its
//! flags into a configuration before any work starts, then calls the work: [`crate::gpu`]
//! for what needs a GPU or ncu, [`crate::files`] for every file read or written, and
//! `shared` for every figure.

pub mod devices;
pub mod diff;
pub mod explain;
pub mod import;
pub mod mcp;
pub mod merge;
pub mod ncu_command;
pub mod profile;
pub mod reference;
pub mod run;
pub mod schema;
pub mod source;
pub mod table;
pub mod trace;
pub mod verify;

use shared::model::artifact::CacheControl;

use crate::cli::CacheArg;
use crate::exit::{Code, Fault};

/// The run `paths` name, read as every read-only command reads it (warnings printed), narrowed
/// to `range` ([`in_range`]); with its input, for naming it.
pub(crate) fn read_in_range(
    paths: &[std::path::PathBuf],
    range: Option<&str>,
) -> anyhow::Result<(crate::files::input::Input, shared::Artifact)> {
    let input = crate::files::input::Input::new(paths.to_vec())?;
    let artifact = in_range(input.read_warned()?.artifact, range, &input.name())?;
    Ok((input, artifact))
}

/// `artifact` narrowed to the launches under the NVTX range path `range` (`measure/step`:
/// ranges joined by `/`, outermost first; `(no range)` for launches in none), as the
/// viewer's range tree narrows it ([`shared::analysis::ranges::within`]); `None` keeps
/// every launch. A path no launch lies under is an error naming the run.
pub(crate) fn in_range(
    artifact: shared::Artifact,
    range: Option<&str>,
    name: &str,
) -> anyhow::Result<shared::Artifact> {
    let Some(range) = range.filter(|r| !r.is_empty()) else {
        return Ok(artifact);
    };
    // Labels may hold `/` themselves (`jit(mlp)/dot_general`): the path is the launches'
    // own whose ranges, joined, spell `range`.
    let prefix: Option<Vec<String>> = if range == shared::analysis::ranges::NO_RANGE {
        Some(vec![range.to_string()])
    } else {
        artifact
            .kernels
            .iter()
            .flat_map(|k| shared::analysis::metrics::reference_launches(k).iter())
            .find_map(|l| {
                let path = shared::analysis::ranges::path_of(l.site.nvtx.as_deref(), None);
                (1..=path.len())
                    .map(|n| &path[..n])
                    .find(|p| p.join("/") == range)
                    .map(<[String]>::to_vec)
            })
    };
    let narrowed = prefix.map(|p| shared::analysis::ranges::within(&artifact, &p));
    let Some(narrowed) = narrowed.filter(|a| !a.kernels.is_empty()) else {
        anyhow::bail!(
            "{name}: no launch lies under the NVTX range {:?} (a path of ranges joined by /, \
             outermost first, as `capture table --by range` lists them)",
            shared::text::escape::one_line(range, 200)
        );
    };
    Ok(narrowed)
}

/// A usage error (exit code [`Code::Usage`]) saying `msg`.
pub(crate) fn usage(msg: impl Into<String>) -> anyhow::Error {
    Fault::new(Code::Usage, msg).into()
}

/// The longest `--kernel` pattern: 64 KiB (a C++ template name pasted whole runs to a few
/// KiB). A longer one is refused before it is parsed: parsing a 15 MB pattern held 1.45 GB
/// (issue 48).
pub(crate) const MAX_PATTERN_BYTES: usize = 64 << 10;

/// The most memory a compiled `--kernel` pattern may take: 8 MiB (the regex crate's
/// `size_limit`), and its lazy DFA's cache 8 MiB (`dfa_size_limit`).
const PATTERN_SIZE_LIMIT: usize = 8 << 20;

/// The regular expression of a `--kernel` flag, or an error quoting it (its first 80
/// characters when it is long).
pub(crate) fn kernel_pattern(text: &str) -> anyhow::Result<regex::Regex> {
    let quoted = || {
        let head: String = text.chars().take(80).collect();
        match head.len() < text.len() {
            true => format!("{head:?}... ({} bytes)", text.len()),
            false => format!("{text:?}"),
        }
    };
    if text.len() > MAX_PATTERN_BYTES {
        anyhow::bail!(
            "--kernel {}: longer than {} KiB; not read",
            quoted(),
            MAX_PATTERN_BYTES >> 10
        );
    }
    regex::RegexBuilder::new(text)
        .size_limit(PATTERN_SIZE_LIMIT)
        .dfa_size_limit(PATTERN_SIZE_LIMIT)
        .build()
        .map_err(|e| {
            let why = e.to_string();
            let last = why.lines().last().unwrap_or_default().trim().to_owned();
            anyhow::anyhow!("--kernel {} is not a regular expression: {last}", quoted())
        })
}

/// The cache states a `--cache` flag asks for, cold first.
pub(crate) fn caches_of(arg: CacheArg) -> Vec<CacheControl> {
    match arg {
        CacheArg::Cold => vec![CacheControl::Cold],
        CacheArg::Warm => vec![CacheControl::Warm],
        CacheArg::Both => vec![CacheControl::Cold, CacheControl::Warm],
    }
}
