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
//! The decoded report's types are in `report.rs`, below every reader of the folder.
//!
//! Entry points: [`read_report`] (a report in memory, borrowed without copying) and
//! [`read_report_from`] (any `Read`, one message in memory at a time) give the decoded
//! [`Report`]; [`read_export`] and [`read_export_from`] give the same [`Export`] the CSV
//! reader makes of the report's raw page, for [`crate::analysis::merge::import_launches`];
//! [`read_export_with_source`] gives it with each launch's source page, and
//! [`read_sources_from`] only the source pages, streamed; their `_and_code` forms also give
//! the code of every loaded function (`cubin.rs`), for a disassembler the caller runs. No
//! I/O.
//! A report cut short loads its complete results with a warning; anything else that does
//! not fit is a [`ReportError`] naming the byte offset.

use std::io::Read;

use crate::error::ReportError;
use crate::read::ncu::{Export, Page, Warning};

mod container;
pub mod cubin;
mod elf;
mod export;
mod input;
mod layout;
pub mod lines;
mod module;
mod nvtx;
mod report;
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
pub use report::{
    is_report, Device, KernelNames, Process, ProfileResult, Report, ResultMetric, ResultValue,
    Session, MAGIC,
};
pub use strings::StringTable;

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
    export_with_source_and::<false>(input, None)
}

/// [`read_export_with_source_from`], and the code of every function the report loaded
/// ([`cubin::module_code`]), for a disassembler to give the instructions their SASS text
/// (what `capture import` does where it finds `nvdisasm`).
///
/// # Errors
///
/// As [`read_report_from`].
pub fn read_export_with_source_and_code_from<R: Read>(
    input: R,
) -> Result<
    (
        Export,
        Vec<crate::read::source::LaunchSource>,
        Vec<cubin::CodeSection>,
    ),
    ReportError,
> {
    let mut code = Vec::new();
    let (export, sources) =
        export_with_source_and::<true>(&mut input::ReadInput::new(input), Some(&mut code))?;
    Ok((export, sources, code))
}

/// The export and source pages of a report, and with `CODE` its code into `code` (the
/// viewer's path passes `None`: no list of code is made there).
fn export_with_source_and<const CODE: bool>(
    input: &mut dyn input::Input,
    code: Option<&mut Vec<cubin::CodeSection>>,
) -> Result<(Export, Vec<crate::read::source::LaunchSource>), ReportError> {
    let mut converter = export::Converter::default();
    let mut launches = Vec::new();
    let mut sources = Vec::new();
    let summary = container::decode::<true, CODE>(
        input,
        &mut |r| {
            sources.extend(r.source());
            launches.push(converter.launch(&r));
        },
        code,
    )?;
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
    sources_and::<false>(&mut input::ReadInput::new(input), on_launch, None)
}

/// [`read_sources_from`], and the code of every function the report loaded
/// ([`cubin::module_code`]: the report's kernel binaries, held), for a disassembler to give
/// the instructions their SASS text (what `capture source` does where it finds
/// `nvdisasm`).
///
/// # Errors
///
/// As [`read_report_from`].
pub fn read_sources_and_code_from<R: Read>(
    input: R,
    on_launch: &mut dyn FnMut(crate::read::source::LaunchSource),
) -> Result<(Vec<Warning>, Vec<cubin::CodeSection>), ReportError> {
    let mut code = Vec::new();
    let warnings = sources_and::<true>(
        &mut input::ReadInput::new(input),
        on_launch,
        Some(&mut code),
    )?;
    Ok((warnings, code))
}

fn sources_and<const CODE: bool>(
    input: &mut dyn input::Input,
    on_launch: &mut dyn FnMut(crate::read::source::LaunchSource),
    code: Option<&mut Vec<cubin::CodeSection>>,
) -> Result<Vec<Warning>, ReportError> {
    let summary = container::decode::<true, CODE>(
        input,
        &mut |r| {
            if let Some(source) = r.source() {
                on_launch(source);
            }
        },
        code,
    )?;
    let mut warnings = summary.warnings;
    warnings.extend(summary.source_warnings);
    Ok(warnings)
}

fn collect(input: &mut dyn input::Input) -> Result<Report, ReportError> {
    let mut results = Vec::new();
    let summary = container::decode::<true, false>(input, &mut |r| results.push(r), None)?;
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
    let summary = container::decode::<false, false>(
        input,
        &mut |r| launches.push(converter.launch(&r)),
        None,
    )?;
    let mut warnings = summary.warnings;
    warnings.extend(converter.warnings());
    Ok(Export {
        page: Page::Raw,
        launches,
        warnings,
    })
}
