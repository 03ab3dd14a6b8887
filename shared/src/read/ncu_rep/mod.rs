//! Reader of Nsight Compute's binary report files (`.ncu-rep`), so a report opens without
//! Nsight Compute installed: in the browser and in `capture import`.
//!
//! This decoder was written from scratch, from the protobuf wire format and from observing
//! real reports: their fields were dumped with [`wire::dump`] and matched against the CSV
//! export (`ncu --import R --csv --page raw --print-units base`) of the same report. No
//! NVIDIA definition file or code generated from one is used. The field numbers it relies on
//! are listed in `layout.rs`; they were found in file version 7 (Nsight Compute 2025.3.1)
//! and the layout is version-dependent: a report of another version is read on trust with a
//! warning, and refused with [`ReportError::Layout`] naming its version where it does not fit.
//!
//! The file: the magic `NVR\0`, a size-prefixed file header, then blocks to the end, each a
//! size-prefixed block header (source and result counts, string table, payload size,
//! process; `container.rs`, `layout.rs`) and a payload of size-prefixed messages: sources,
//! then one profile result per kernel launch (names, grid, block, context, stream, and
//! metric results whose names index the block's string table, `strings.rs`; and rule
//! results, `rules.rs`). Values are
//! stored in base units; units are not stored and are looked up by name (`units.rs`).
//!
//! Entry points: [`read_report`] (a report in memory, borrowed without copying) and
//! [`read_report_from`] (any `Read`, one message in memory at a time) give the decoded
//! [`Report`]; [`read_export`] and [`read_export_from`] give the same [`Export`] the CSV
//! reader makes of the report's raw page, for [`crate::analysis::merge::import_launches`];
//! [`read_export_with_source`] gives it with each launch's source page, and
//! [`read_sources_from`] only the source pages, streamed. No I/O.
//! A report cut short loads its complete results with a warning; anything else that does
//! not fit is a [`ReportError`] naming the byte offset.

use std::io::Read;
use std::sync::Arc;

use crate::error::ReportError;
use crate::read::ncu::{Export, Page, Warning};

mod container;
mod export;
mod input;
mod layout;
pub mod lines;
mod nvtx;
pub mod rules;
pub mod source;
mod strings;
pub mod units;
mod walk;
pub mod wire;

#[cfg(test)]
mod tests;

pub(crate) use container::escaped_start;
pub use container::outline;
pub use layout::KNOWN_VERSION;
pub use strings::StringTable;

/// The first four bytes of every report.
pub const MAGIC: &[u8; 4] = b"NVR\0";

/// Whether `start` (the first bytes of a file) is the start of a report, to tell a report
/// from a CSV export before reading it.
pub fn is_report(start: &[u8]) -> bool {
    start.starts_with(MAGIC)
}

/// A decoded report.
#[derive(Clone, Debug)]
pub struct Report {
    /// File version from the file header (7 for Nsight Compute 2025.3.1).
    pub version: u64,
    /// Devices, tool versions, command line and processes.
    pub session: Session,
    /// One result per profiled kernel launch, in file order.
    pub results: Vec<ProfileResult>,
    /// What was skipped or doubted (a cut file, an unknown version).
    pub warnings: Vec<Warning>,
    /// What was doubted about the per-instruction data alone (a kernel module whose line
    /// table did not decode); [`Report::to_export`] leaves these out, as the raw page would.
    pub source_warnings: Vec<Warning>,
}

/// What the report says about the profiling session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Session {
    /// The processes blocks belong to, in order of first appearance.
    pub processes: Vec<Process>,
    /// The devices, with their attributes (`device__attribute_*`).
    pub devices: Vec<Device>,
    /// Tool names and versions (`Nsight Compute Target`, `CUDA Version`, ...).
    pub tools: Vec<(String, String)>,
    /// The ncu command line that made the report.
    pub command_line: Option<String>,
}

/// A profiled process.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Process {
    /// Process ID.
    pub id: Option<u64>,
    /// Host name.
    pub host: Option<String>,
    /// Path of the executable.
    pub executable: Option<String>,
}

impl Process {
    /// The process name as ncu's exports print it: the executable's file name.
    pub fn name(&self) -> Option<&str> {
        let path = self.executable.as_deref()?;
        path.rsplit('/').next().filter(|n| !n.is_empty())
    }
}

/// A device of the session.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Device {
    /// Device ordinal.
    pub id: u64,
    /// Display name (`NVIDIA H200`).
    pub name: String,
    /// Attributes by name, in file order, values as stored.
    pub attributes: Vec<(String, ResultValue)>,
}

/// A kernel's names.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct KernelNames {
    /// Mangled (linkage) name; the plain name for `extern "C"` kernels.
    pub mangled: String,
    /// Function name without scope, template arguments or parameters (`Kernel2`).
    pub function: String,
    /// Demangled signature, when the name is mangled.
    pub demangled: Option<String>,
}

impl KernelNames {
    /// The name ncu's exports print by default: demangled where there is one.
    pub fn display(&self) -> &str {
        match &self.demangled {
            Some(d) => d,
            None if !self.function.is_empty() => &self.function,
            None => &self.mangled,
        }
    }
}

/// A metric value as the report stores it, in the metric's base unit.
#[derive(Clone, Debug, PartialEq)]
pub enum ResultValue {
    /// A floating-point value.
    Double(f64),
    /// An unsigned integer (counts, sizes, IDs), exact.
    Uint(u64),
    /// Text (`PolicySpread`, `NVIDIA H200`).
    Text(String),
    /// No value (ncu prints an empty cell or `n/a`).
    Absent,
}

/// One metric result of a [`ProfileResult`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResultMetric<'a> {
    /// Full metric name (`dram__bytes_read.sum`).
    pub name: &'a str,
    /// The value.
    pub value: &'a ResultValue,
    /// How many instance values it has besides (per-unit or per-PC values; not decoded).
    pub instances: u32,
}

/// A metric result: a string table index and a value.
#[derive(Clone, Debug, PartialEq)]
struct Entry {
    name: u32,
    value: ResultValue,
    instances: u32,
}

/// One profiled kernel launch.
#[derive(Clone, Debug)]
pub struct ProfileResult {
    /// Place in the report, from 0: the `ID` ncu's exports print.
    pub index: u64,
    /// Byte offset of the result message in the file.
    pub offset: u64,
    /// The process that launched it.
    pub process: Process,
    /// Kernel names.
    pub names: KernelNames,
    /// Grid size, blocks.
    pub grid: Option<[u32; 3]>,
    /// Block size, threads.
    pub block: Option<[u32; 3]>,
    /// CUDA context ID.
    pub context: Option<u64>,
    /// CUDA stream ID.
    pub stream: Option<u64>,
    /// The NVTX push/pop stack it was launched in, when ncu recorded one (`nvtx.rs`).
    pub nvtx: Option<crate::model::artifact::NvtxRanges>,
    /// The rule engine's findings, one per message, in file order (`rules.rs`).
    pub rules: Vec<crate::model::artifact::RuleResult>,
    /// Per-instruction values of the SourceCounters metrics ([`crate::model::counters::SOURCE`],
    /// [`crate::model::counters::SOURCE_STALLS`]): `(address, value)` pairs per metric;
    /// filled by [`read_report`] and [`read_report_from`], empty where only the launches of
    /// the raw page are read ([`read_export`]).
    pub per_pc: Vec<(&'static crate::model::counters::Counter, Vec<(u64, f64)>)>,
    /// The CUDA source line of each address of `per_pc` that a module's line table covers
    /// (`lines.rs`), by address; empty without line information.
    pub lines: Vec<(u64, lines::Location)>,
    metrics: Vec<Entry>,
    strings: Arc<StringTable>,
}

impl ProfileResult {
    /// Every metric result, in file order.
    pub fn metrics(&self) -> impl Iterator<Item = ResultMetric<'_>> + '_ {
        self.metrics.iter().map(|e| ResultMetric {
            name: self.strings.get(u64::from(e.name)).unwrap_or_default(),
            value: &e.value,
            instances: e.instances,
        })
    }

    /// The value of metric `name` (the last, should it appear twice).
    pub fn metric(&self, name: &str) -> Option<&ResultValue> {
        self.metrics()
            .filter(|m| m.name == name)
            .last()
            .map(|m| m.value)
    }

    /// Number of metric results.
    pub fn metric_count(&self) -> usize {
        self.metrics.len()
    }
}

impl Report {
    /// The launches the CSV reader makes of this report's raw page, with the report's
    /// warnings and those of the conversion.
    pub fn to_export(&self) -> Export {
        let mut converter = export::Converter::default();
        let launches = self.results.iter().map(|r| converter.launch(r)).collect();
        let mut warnings = self.warnings.clone();
        warnings.extend(converter.warnings());
        Export {
            page: Page::Raw,
            launches,
            warnings,
        }
    }
}

/// Decodes a report held in memory, borrowing it (no copy of the file is made).
///
/// # Errors
///
/// [`ReportError`] naming the byte offset: not a report, cut before its first complete
/// result, a zero or impossible size, malformed protobuf, a layout this reader does not
/// know, or no results at all.
pub fn read_report(bytes: &[u8]) -> Result<Report, ReportError> {
    collect(&mut input::SliceInput::new(bytes))
}

/// Decodes a report from a reader, holding one header or message in memory at a time.
///
/// # Errors
///
/// As [`read_report`], and [`ReportError::Io`] when reading fails.
pub fn read_report_from<R: Read>(input: R) -> Result<Report, ReportError> {
    collect(&mut input::ReadInput::new(input))
}

/// Reads a report in memory into the [`Export`] its raw CSV page would read into, without
/// keeping the decoded results.
///
/// # Errors
///
/// As [`read_report`].
pub fn read_export(bytes: &[u8]) -> Result<Export, ReportError> {
    export_of(&mut input::SliceInput::new(bytes))
}

/// Reads a report from a reader into the [`Export`] its raw CSV page would read into,
/// holding one message and the launches made so far.
///
/// # Errors
///
/// As [`read_report_from`].
pub fn read_export_from<R: Read>(input: R) -> Result<Export, ReportError> {
    export_of(&mut input::ReadInput::new(input))
}

/// Reads a report in memory, in one pass, into the [`Export`] its raw CSV page would read
/// into and the source page of every launch that has source counters
/// ([`ProfileResult::source`]), without keeping the decoded results: what the viewer
/// needs of a report.
///
/// # Errors
///
/// As [`read_report`].
pub fn read_export_with_source(
    bytes: &[u8],
) -> Result<(Export, Vec<crate::read::source::LaunchSource>), ReportError> {
    export_with_source(&mut input::SliceInput::new(bytes))
}

/// [`read_export_with_source`] from a reader, holding one message, the launches made so
/// far and their source pages: what `capture import` keeps of a report.
///
/// # Errors
///
/// As [`read_report_from`].
pub fn read_export_with_source_from<R: Read>(
    input: R,
) -> Result<(Export, Vec<crate::read::source::LaunchSource>), ReportError> {
    export_with_source(&mut input::ReadInput::new(input))
}

fn export_with_source(
    input: &mut dyn input::Input,
) -> Result<(Export, Vec<crate::read::source::LaunchSource>), ReportError> {
    let mut converter = export::Converter::default();
    let mut launches = Vec::new();
    let mut sources = Vec::new();
    let summary = container::decode::<true>(input, &mut |r| {
        sources.extend(r.source());
        launches.push(converter.launch(&r));
    })?;
    let mut warnings = summary.warnings;
    warnings.extend(converter.warnings());
    warnings.extend(summary.source_warnings);
    Ok((
        Export {
            page: Page::Raw,
            launches,
            warnings,
        },
        sources,
    ))
}

/// Reads a report from a reader, one message at a time, handing `on_launch` the source
/// page of each launch with source counters ([`ProfileResult::source`]) as it is decoded,
/// and keeping none of them: what `capture source` needs of a report, in memory bounded
/// by one message, the launch being handed on and the report's line tables, whatever the
/// report's size. Returns the report's warnings, then those about its per-instruction
/// data.
///
/// # Errors
///
/// As [`read_report_from`].
pub fn read_sources_from<R: Read>(
    input: R,
    on_launch: &mut dyn FnMut(crate::read::source::LaunchSource),
) -> Result<Vec<Warning>, ReportError> {
    let summary = container::decode::<true>(&mut input::ReadInput::new(input), &mut |r| {
        if let Some(source) = r.source() {
            on_launch(source);
        }
    })?;
    let mut warnings = summary.warnings;
    warnings.extend(summary.source_warnings);
    Ok(warnings)
}

fn collect(input: &mut dyn input::Input) -> Result<Report, ReportError> {
    let mut results = Vec::new();
    let summary = container::decode::<true>(input, &mut |r| results.push(r))?;
    Ok(Report {
        version: summary.version,
        session: summary.session,
        results,
        warnings: summary.warnings,
        source_warnings: summary.source_warnings,
    })
}

fn export_of(input: &mut dyn input::Input) -> Result<Export, ReportError> {
    let mut converter = export::Converter::default();
    let mut launches = Vec::new();
    let summary = container::decode::<false>(input, &mut |r| launches.push(converter.launch(&r)))?;
    let mut warnings = summary.warnings;
    warnings.extend(converter.warnings());
    Ok(Export {
        page: Page::Raw,
        launches,
        warnings,
    })
}
