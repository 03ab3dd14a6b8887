//! SASS in one file: what `capture import` keeps of its reports' source counters. Each
//! kernel's longest launch with source counters goes into the artifact (`sources`, schema
//! 6, chosen by [`source::kept_in_artifact`]) with the SASS text (and CUDA lines) of a
//! source-page export given with the report (`--source PAGE`, or the page among the
//! inputs), joined by kernel name and address range ([`source::join_page`]); so the
//! viewer's Source page and `capture source` show it from the artifact alone. A kept launch
//! left without text is a warning with the one command that adds it
//! ([`source::how_to_add_sass`]).

use std::path::{Path, PathBuf};

use anyhow::Result;
use shared::model::artifact::KernelRecord;
use shared::read::kind::FileKind;
use shared::read::ncu_rep::cubin::CodeSection;
use shared::read::source::{self, LaunchSource};

use crate::files;

/// The inputs of an import told apart: the exports (CSV pages and reports) and the
/// source-page exports, which carry SASS text and no launch counters of their own.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Inputs {
    /// CSV pages and reports.
    pub exports: Vec<PathBuf>,
    /// Source-page exports (`ncu --import R --csv --page source --print-source sass`).
    pub pages: Vec<PathBuf>,
}

impl Inputs {
    /// Splits `paths` by what each file is (its first bytes, as the viewer tells picked
    /// files apart) and adds `pages`, given with `--source`.
    ///
    /// # Errors
    ///
    /// A file that cannot be read, or a `--source` file that is not a source page.
    pub fn split(paths: &[PathBuf], pages: &[PathBuf]) -> Result<Inputs> {
        let mut inputs = Inputs::default();
        for p in paths {
            if files::kind_inside(p)? == FileKind::SourcePage {
                inputs.pages.push(p.clone());
            } else {
                inputs.exports.push(p.clone());
            }
        }
        for p in pages {
            let kind = files::kind_inside(p)?;
            if kind != FileKind::SourcePage {
                anyhow::bail!(
                    "--source {}: not a source-page export ({}): make one with `ncu --import \
                     REPORT --csv --page source --print-source cuda,sass > PAGE.csv`",
                    files::shown(p),
                    kind.describe()
                );
            }
            inputs.pages.push(p.clone());
        }
        Ok(inputs)
    }
}

/// Where the SASS text of a report's kept launches can come from besides a source page.
pub enum Disassembly<'a> {
    /// The reports kept no code.
    NoCode,
    /// They did, and no disassembler was found.
    Missing,
    /// A disassembler and the reports' code.
    Found(&'a crate::disasm::Nvdisasm, &'a [CodeSection]),
}

/// The source pages an artifact of `kernels` keeps of `sources` (its reports' launches with
/// source counters), with the text of `pages` joined, and a warning naming the kept
/// launches left without SASS text and what adds it (`report`: the report's name, for the
/// command). With a disassembler and the reports' code (`disassembly`), the instructions
/// the pages left without text get nvdisasm's ([`crate::disasm`]); without one, where a
/// report kept code, the warning says what is missing and the command that adds it.
///
/// # Errors
///
/// A page that cannot be read or is not a source page; nvdisasm failing.
pub fn kept_sources(
    kernels: &[KernelRecord],
    sources: &[LaunchSource],
    pages: &[PathBuf],
    report: &str,
    disassembly: Disassembly<'_>,
) -> Result<(Vec<LaunchSource>, Vec<String>)> {
    let mut kept = source::kept_in_artifact(kernels, sources);
    let mut warnings = Vec::new();
    for page_path in pages {
        let page = read_page(page_path)?;
        // A page holds every launch and the artifact one per kernel: the blocks of the
        // launches not kept are left, and a kept launch without text is warned of below.
        source::join_page(&mut kept, &page);
    }
    if let Disassembly::Found(nvdisasm, code) = disassembly {
        nvdisasm.give_text(code, &mut kept)?;
    }
    let without: Vec<&LaunchSource> = kept
        .iter()
        .filter(|l| !l.instructions.iter().any(|i| i.sass.is_some()))
        .collect();
    if !without.is_empty() {
        let names: Vec<String> = without
            .iter()
            .take(3)
            .map(|l| shared::text::names::shorten_kernel_name(&l.kernel, 40))
            .collect();
        let more = without.len().saturating_sub(names.len());
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        warnings.push(format!(
            "{} of {} kernel(s) with source counters have no SASS text ({}{more}): {}",
            without.len(),
            kept.len(),
            names.join(", "),
            if let Disassembly::Missing = disassembly {
                crate::disasm::missing()
            } else {
                source::how_to_add_sass(report)
            }
        ));
    }
    Ok((kept, warnings))
}

/// A source-page export's launches.
fn read_page(path: &Path) -> Result<Vec<LaunchSource>> {
    files::read_source_page(path, files::open(path)?)
}
