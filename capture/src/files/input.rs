//! What an input of a read-only command is, how it is read and how it is named: one type,
//! [`Input`], that `capture table`, `explain`, `diff`, `source` and every `capture mcp`
//! tool take, so that they accept the same files and name them the same way (issue 52).
//!
//! An input is one or more files of one run:
//! - an artifact (`capture import`'s JSON), plain or gzip-compressed, alone;
//! - an ncu export: CSV pages (`--page raw`, `--page details`, the GUI's raw page), a
//!   `.ncu-rep` report or a `.ncu-repz` one, plain or compressed, or several of them, the
//!   pages of one export paired by their launch IDs ([`shared::read::ncu::combine_named`]);
//!   it is read into the artifact `capture import` would write.
//!
//! A lone page says what it lacks ([`Run::notes`]): a raw page has no rules, a details page
//! no raw counters.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use shared::analysis::certificate::FileDigest;
use shared::analysis::merge;
use shared::model::artifact::{LaunchCounters, LoadWarning, Origin};
use shared::read::kind::FileKind;
use shared::read::ncu::{self, Page, Warning};
use shared::Artifact;

pub use super::name::display_name;

/// One or more files of one run, as a read-only command or tool takes them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    paths: Vec<PathBuf>,
}

/// An input read: the artifact, what the artifact reader did not take as written, and
/// what the input lacks (a lone page's missing half), for the caller to show.
pub struct Run {
    /// The artifact, or the artifact an import of the export makes.
    pub artifact: Artifact,
    /// What the artifact reader did not take as written (an artifact's only; an import's
    /// dropped durations show in its launches).
    pub load_warnings: Vec<LoadWarning>,
    /// What a lone page lacks, one sentence each, naming the file.
    pub notes: Vec<String>,
}

impl Input {
    /// The files `paths` (at least one) of one run.
    pub fn new(paths: Vec<PathBuf>) -> Result<Input> {
        if paths.is_empty() {
            bail!("no input file");
        }
        Ok(Input { paths })
    }

    /// The files, as given.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The input's name: each file's [`display_name`], joined by ` + `.
    pub fn name(&self) -> String {
        let names: Vec<String> = self.paths.iter().map(|p| display_name(p)).collect();
        names.join(" + ")
    }

    /// Reads the input: an artifact as it is, an export as `capture import` would make it,
    /// with notes of what a lone page lacks. A trace artifact, Nsight Systems' exports and a
    /// source page are told apart by their first bytes as every file is
    /// ([`super::kind_inside`]).
    pub fn read(&self) -> Result<Run> {
        let mut kinds = Vec::with_capacity(self.paths.len());
        for p in &self.paths {
            kinds.push(super::kind_inside(p)?);
        }
        let json_text = self.paths.len() == 1
            && kinds[0] == FileKind::CsvExport
            && starts_like_json(&self.paths[0])?;
        if let Some(at) = kinds
            .iter()
            .position(|k| *k == FileKind::Artifact)
            .or(json_text.then_some(0))
        {
            if self.paths.len() > 1 {
                bail!(
                    "{}: an artifact is read alone; several files are the pages (and report) \
                     of one export, paired by launch ID",
                    super::shown(&self.paths[at])
                );
            }
            let (artifact, load_warnings) = read_any_artifact(&self.paths[at])?;
            return Ok(Run {
                artifact,
                load_warnings,
                notes: Vec::new(),
            });
        }
        for (p, k) in self.paths.iter().zip(&kinds) {
            let name = super::shown(p);
            match k {
                FileKind::SourcePage => bail!(
                    "{name}: {}, not a run (an artifact, ncu CSV pages or a report); `capture \
                     source` reads it",
                    k.describe()
                ),
                FileKind::Sqlite | FileKind::NsysStats => bail!(
                    "{name}: {}, not a run (an artifact, ncu CSV pages or a report): import it \
                     first (`capture import {name} -o A.json`)",
                    k.describe()
                ),
                _ => {}
            }
        }
        let (launches, warnings, pages) = read_exports_paged(&self.paths)?;
        let notes = lacking(&self.paths, &kinds, &pages);
        Ok(Run {
            artifact: merge::import_launches(
                launches,
                warnings,
                crate::provenance::base(Origin::Import, &self.paths),
            ),
            load_warnings: Vec::new(),
            notes,
        })
    }

    /// [`Input::read`], each note and each export's warning printed as a warning on
    /// standard error (the command line's form).
    pub fn read_warned(&self) -> Result<Run> {
        let run = self.read()?;
        for n in &run.notes {
            crate::out::warn(n);
        }
        Ok(run)
    }
}

/// Whether the file at `path` starts (past a byte order mark and white space) with a JSON
/// value no CSV export starts with (`null`, `[`, a number, `true`, `false`): text that
/// meant to be an artifact, which the artifact reader's message explains better than the
/// export reader's.
fn starts_like_json(path: &Path) -> Result<bool> {
    use std::io::Read;
    let mut first = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(4 << 10).read_to_end(&mut first))
        .with_context(|| format!("{}: cannot read", super::shown(path)))?;
    let head = first.strip_prefix(shared::read::bom::BOM).unwrap_or(&first);
    let starts = head
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'[' | b'n' | b't' | b'f' | b'-' | b'0'..=b'9'));
    // A JSON value, or one cut by the 4 KiB read: not junk that starts with a digit.
    let value = serde_json::Deserializer::from_slice(head)
        .into_iter::<serde::de::IgnoredAny>()
        .next()
        .is_some_and(|v| v.is_ok() || v.is_err_and(|e| e.is_eof()));
    Ok(starts && value)
}

/// An artifact, plain or compressed (a `.json.gz`), with what its reader did not take as
/// written.
pub fn read_any_artifact(path: &Path) -> Result<(Artifact, Vec<LoadWarning>)> {
    let opened = super::open(path)?;
    if opened.packing == super::Packing::Plain {
        drop(opened);
        return super::read_artifact_checked(path);
    }
    let after = opened.packing.after();
    let bytes = super::read_all(path, opened)?;
    let text = String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "{}: byte {}{after}: not UTF-8 text, so not an artifact (JSON is UTF-8)",
            super::shown(path),
            e.utf8_error().valid_up_to()
        )
    })?;
    let (artifact, dropped) = Artifact::from_json_checked(&text)
        .map_err(|e| anyhow::anyhow!("{}{after}: {e}", super::shown(path)))?;
    for w in &dropped {
        crate::out::warn(&format!("{}: {w}", display_name(path)));
    }
    Ok((artifact, dropped))
}

/// The SHA-256 of each of `paths`, as stored, with its name.
pub fn digests(paths: &[PathBuf]) -> Result<Vec<FileDigest>> {
    use sha2::{Digest, Sha256};
    paths
        .iter()
        .map(|p| {
            let mut file = std::fs::File::open(p)
                .map_err(|e| anyhow::anyhow!("{}: cannot open: {e}", super::shown(p)))?;
            let mut hash = Sha256::new();
            std::io::copy(&mut file, &mut hash)
                .map_err(|e| anyhow::anyhow!("{}: cannot read: {e}", super::shown(p)))?;
            let hex: String = hash.finalize().iter().map(|b| format!("{b:02x}")).collect();
            Ok(FileDigest {
                name: display_name(p),
                sha256: hex,
            })
        })
        .collect()
}

/// Reads and joins several exports of one run; warnings are prefixed with their file.
pub fn read_exports(paths: &[PathBuf]) -> Result<(Vec<LaunchCounters>, Vec<Warning>)> {
    read_exports_paged(paths).map(|(l, w, _)| (l, w))
}

/// [`read_exports`], with the page each file was.
fn read_exports_paged(paths: &[PathBuf]) -> Result<(Vec<LaunchCounters>, Vec<Warning>, Vec<Page>)> {
    let mut exports = Vec::with_capacity(paths.len());
    let mut pages = Vec::with_capacity(paths.len());
    for path in paths {
        let mut export = super::read_export(path)?;
        let name = display_name(path);
        for w in &mut export.warnings {
            *w = w.in_file(&name);
        }
        pages.push(export.page);
        exports.push((name, export));
    }
    let (launches, warnings) = ncu::combine_named(exports);
    Ok((launches, warnings, pages))
}

/// What the exports `paths` (of `kinds`, read as `pages`) lack together: a raw page without
/// its details page has no rules; a details page without a raw page or report has no raw
/// counters (no bytes, roof or pipe). A report holds both.
fn lacking(paths: &[PathBuf], kinds: &[FileKind], pages: &[Page]) -> Vec<String> {
    let report = kinds.contains(&FileKind::Report);
    if report {
        return Vec::new();
    }
    let raw: Vec<&PathBuf> = paths
        .iter()
        .zip(pages)
        .filter(|(_, p)| matches!(p, Page::Raw | Page::GuiRaw))
        .map(|(path, _)| path)
        .collect();
    let details: Vec<&PathBuf> = paths
        .iter()
        .zip(pages)
        .filter(|(_, p)| **p == Page::Details)
        .map(|(path, _)| path)
        .collect();
    let names = |ps: &[&PathBuf]| {
        let n: Vec<String> = ps.iter().map(|p| display_name(p)).collect();
        n.join(" + ")
    };
    match (raw.is_empty(), details.is_empty()) {
        (false, true) => vec![format!(
            "{}: a raw page alone: ncu's rules (and its estimated speedups) are on the details \
             page, not here; give its details page too (ncu --import REPORT --page details \
             --csv), or the report",
            names(&raw)
        )],
        (true, false) => vec![format!(
            "{}: a details page alone: no raw counters, so no bytes, roof or pipe (a unit may \
             read `sm`); give its raw page too (ncu --import REPORT --page raw --csv), or the \
             report",
            names(&details)
        )],
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn several_files_are_named_by_their_names_joined() {
        let two = Input::new(vec!["x/raw.csv".into(), "y/details.csv".into()]);
        assert_eq!(
            two.map(|i| i.name()).ok().as_deref(),
            Some("raw.csv + details.csv")
        );
        assert!(Input::new(Vec::new()).is_err());
    }
}
