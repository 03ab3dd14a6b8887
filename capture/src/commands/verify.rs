//! `capture verify CERT BEFORE AFTER`: a speedup certificate (`capture diff --certificate`)
//! checked against its two runs, offline: the runs read as `capture diff` reads them, the
//! certificate worked again ([`Certificate::of`]) and compared with the one given
//! ([`shared::analysis::certificate::problems`]); exit 14 naming each problem.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Result;
use shared::analysis::certificate::{problems, Certificate};
use shared::analysis::diff::GateOptions;

use crate::cli::VerifyArgs;
use crate::exit::{Code, Fault};
use crate::files;

/// The files of one side: the run and its pages.
fn side(first: &Path, more: &[PathBuf]) -> Vec<PathBuf> {
    std::iter::once(first.to_path_buf())
        .chain(more.iter().cloned())
        .collect()
}

/// Reads a certificate; errors name the file, line and column.
fn read_certificate(path: &Path) -> Result<Certificate> {
    let bytes = files::read_bytes(path)?;
    serde_json::from_slice(&bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: line {}, column {}: not a certificate (capture diff --certificate): {e}",
            files::shown(path),
            e.line(),
            e.column()
        )
    })
}

/// `capture verify`.
pub fn verify(args: &VerifyArgs) -> Result<ExitCode> {
    let claimed = read_certificate(&args.certificate)?;
    let (bf, af) = (
        side(&args.before, &args.before_page),
        side(&args.after, &args.after_page),
    );
    let (before_run, before_name) = super::diff::read_side(&args.before, &args.before_page)?;
    let (after_run, after_name) = super::diff::read_side(&args.after, &args.after_page)?;
    let (before, after) = (&before_run.artifact, &after_run.artifact);
    let (d, _) = super::diff::kernel_diff(
        (before, &before_run.load_warnings),
        (after, &after_run.load_warnings),
        GateOptions::default(),
    );
    let d = d.named(before_name, after_name);
    let recomputed = Certificate::of(
        &d,
        (before, after),
        [files::input::digests(&bf)?, files::input::digests(&af)?],
    );
    let found = problems(&claimed, &recomputed);
    if found.is_empty() {
        crate::out::println(&format!(
            "{}: holds for {} -> {}: {}",
            files::input::display_name(&args.certificate),
            recomputed.before.name,
            recomputed.after.name,
            claimed.claim
        ))?;
        return Ok(ExitCode::SUCCESS);
    }
    Err(Fault::new(
        Code::VerifyFailed,
        format!(
            "{}: does not hold ({} problem(s)):\n  {}",
            files::shown(&args.certificate),
            found.len(),
            found.join("\n  ")
        ),
    )
    .into())
}
