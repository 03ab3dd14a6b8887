//! The Nsight Compute driver, by job: [`args`] builds the command lines (the metric set,
//! the collection, the import of its pages), [`run`] runs ncu ([`run::Ncu`], the real
//! [`Profiler`]), [`judge`] judges its outcome into warnings or documented exit codes, and
//! [`log`] reads its log. Tests drive the same paths with a fake profiler that replays real
//! exports, or with a fake `ncu` program.
//!
//! Following the verified recipe: ncu writes a report with `-o` while the program's own
//! output goes to a log file; `ncu --import REPORT --csv --page raw|details --print-units base`
//! then prints CSV with no program output mixed in (the timing pass needs its raw page only).

pub mod args;
pub mod judge;
pub mod log;
pub mod run;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use anyhow::Result;

use self::args::Collection;

#[derive(Clone, Debug)]
pub struct ProfileRequest<'a> {
    /// What to collect.
    pub collection: Collection,
    /// The program and its arguments.
    pub program: &'a [OsString],
    /// Folder for the report, the log and the CSV pages.
    pub work_dir: &'a Path,
    /// File-name stem of this collection (`ncu-cold`).
    pub name: &'a str,
    /// More environment for the program, set on ncu's process.
    pub env: &'a [(OsString, OsString)],
}

/// What a profiler produced.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProfileOutput {
    /// The raw page (`--page raw`) as CSV.
    pub raw: PathBuf,
    /// The details page (`--page details`) as CSV; none for the timing pass, whose one
    /// metric is on the raw page.
    pub details: Option<PathBuf>,
    /// The exact command lines run, collection first.
    pub commands: Vec<String>,
    /// Things worth recording in the artifact (a non-zero program exit, say).
    pub warnings: Vec<String>,
    /// The program's non-zero exit status, when it failed after ncu had profiled launches
    /// (the pages hold those).
    pub program_status: Option<i32>,
}

/// Something that turns a program run into ncu CSV pages: real ncu, or a fake in tests.
pub trait Profiler {
    /// The profiler's version, for provenance.
    fn version(&self) -> Option<String>;
    /// Collects one report and imports its pages.
    fn profile(&self, req: &ProfileRequest<'_>) -> Result<ProfileOutput>;
}
