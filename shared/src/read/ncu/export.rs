//! What one read of an export gives: which page it was ([`Page`]), its launches and what the
//! reader skipped or doubted ([`Warning`]), together an [`Export`]. Every reader of the folder
//! (`lines`, `records`, `rows`, `combine`) speaks of them, and `mod.rs` hands them on.

use crate::model::artifact::LaunchCounters;

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

impl Warning {
    /// The warning as one line that names `file` first (`FILE: line N: what`), the way
    /// `capture import` prints it and the viewer lists it.
    pub fn in_file(&self, file: &str) -> Warning {
        Warning {
            line: None,
            message: format!("{file}: {self}"),
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
