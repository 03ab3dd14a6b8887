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

use shared::model::artifact::CacheControl;

use crate::cli::CacheArg;
use crate::exit::{Code, Fault};

/// A usage error (exit code [`Code::Usage`]) saying `msg`.
pub(crate) fn usage(msg: impl Into<String>) -> anyhow::Error {
    Fault::new(Code::Usage, msg).into()
}

/// The regular expression of a `--kernel` flag, or an error quoting it.
pub(crate) fn kernel_pattern(text: &str) -> anyhow::Result<regex::Regex> {
    regex::Regex::new(text).map_err(|e| {
        let why = e.to_string();
        let last = why.lines().last().unwrap_or_default().trim().to_owned();
        anyhow::anyhow!("--kernel {text:?} is not a regular expression: {last}")
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
