//! The container around the messages: the magic `NVR\0`, a size-prefixed file header, then
//! blocks to the end of the file, each a size-prefixed block header followed by its payload
//! (the header says how many bytes): size-prefixed messages, first the block's sources
//! (kernel binaries; skipped), then its profile results. Every size prefix is a u32,
//! little-endian.
//!
//! A file that ends inside a block is cut: the complete results before the cut are handed
//! on and a warning says where it ends and how many there were. A size that does not fit
//! (zero, or a message running past its block's payload) is an error.
//!
//! A file cut exactly at a block boundary cannot always be told from a complete one (the
//! format declares no count of blocks or results). Two shapes give it away, and each is a
//! warning: a report that ends with a source block (ncu writes a module's source block
//! just before the results that launch its kernels), and a report without the session's
//! command-line block (ncu writes the devices, tool versions, host and command line after
//! the first result, the command line last). A cut just after a later result block still
//! reads as a complete report of fewer results. A block whose payload holds fewer messages than its header declares (a count
//! such as 2^64-1) is a warning naming the block's byte offset, with what was not read.

use std::collections::HashSet;

use crate::error::ReportError;
use crate::read::ncu::Warning;

use super::input::{Input, Take};
use super::layout::{self, KNOWN_VERSION};
use super::report::{Process, ProfileResult, Session, MAGIC};
use super::strings::StringTables;

/// What a decode found besides the results it handed on.
#[derive(Debug, Default)]
pub struct Summary {
    /// File version from the file header.
    pub version: u64,
    /// Devices, tool versions, command line and processes.
    pub session: Session,
    /// Complete results handed on.
    pub results: u64,
    /// What was skipped or doubted.
    pub warnings: Vec<Warning>,
    /// What was doubted about the per-instruction data alone (a line table that did not
    /// decode): only with `PER_PC`, and not part of what the raw page would say.
    pub source_warnings: Vec<Warning>,
}

/// Decodes the report in `input`, handing each profile result to `on_result` in file order;
/// with `PER_PC`, each with its per-instruction values (`ProfileResult::per_pc`), which an
/// import does not need (a constant, so the code that reads them is not built into a
/// reader that never asks: the viewer's wasm). With `CODE` (and `PER_PC`), also the code
/// of every loaded function into `code` ([`super::cubin::module_code`]), for a disassembler
/// the caller runs; the viewer passes `None`, and no list of code is ever made there.
pub fn decode<const PER_PC: bool, const CODE: bool>(
    input: &mut dyn Input,
    on_result: &mut dyn FnMut(ProfileResult),
    code: Option<&mut Vec<super::cubin::CodeSection>>,
) -> Result<Summary, ReportError> {
    let mut d = Decoder {
        summary: Summary::default(),
        tables: StringTables::default(),
        odd_values: 0,
        other_messages: 0,
        seen_processes: HashSet::new(),
        ends_with_sources: None,
        short_blocks: Vec::new(),
        lines: super::lines::LineMap::default(),
        line_problems: Vec::new(),
        code_problems: Vec::new(),
        code,
        pc_problems: Vec::new(),
    };
    d.header(input)?;
    d.blocks::<PER_PC, CODE>(input, on_result)?;
    if d.odd_values > 0 {
        d.warn(format!(
            "{} metric values were of a kind not seen in reports of file version {}; read by \
             their wire type (integer, double or text)",
            d.odd_values, KNOWN_VERSION
        ));
    }
    d.end_warnings(input.offset());
    if let Some(first) = d.line_problems.first().cloned() {
        let n = d.line_problems.len();
        d.summary.source_warnings.push(Warning {
            line: None,
            message: format!(
                "{n} kernel module(s) whose line table did not decode, so their instructions \
                 have no CUDA source lines (the first: {first})"
            ),
        });
    }
    if let Some(first) = d.code_problems.first().cloned() {
        let n = d.code_problems.len();
        d.summary.source_warnings.push(Warning {
            line: None,
            message: format!(
                "{n} kernel module(s) whose code did not decode, so their instructions have \
                 no SASS text (the first: {first})"
            ),
        });
    }
    if let Some(first) = d.pc_problems.first().cloned() {
        let n = d.pc_problems.len();
        d.summary.source_warnings.push(Warning {
            line: None,
            message: format!(
                "{n} per-instruction counter(s) whose values did not decode, left out of their \
                 launch's source page (the first: {first})"
            ),
        });
    }
    if d.other_messages > 0 {
        d.warn(format!(
            "{} payload messages after the declared sources and results (range results?) \
             were skipped",
            d.other_messages
        ));
    }
    if d.summary.results == 0 {
        return Err(ReportError::NoResults);
    }
    Ok(d.summary)
}

struct Decoder<'c> {
    summary: Summary,
    /// Where the loaded functions' code goes (with `CODE` only).
    code: Option<&'c mut Vec<super::cubin::CodeSection>>,
    tables: StringTables,
    odd_values: u64,
    other_messages: u64,
    /// The processes already in `summary.session.processes` (a set: a report of many
    /// processes must not cost a scan of the list per block).
    seen_processes: HashSet<Process>,
    /// The byte offset of the last block when it holds sources and no result.
    ends_with_sources: Option<u64>,
    /// Blocks whose payload held fewer messages than declared: offset, declared sources,
    /// declared results, messages present.
    short_blocks: Vec<(u64, u64, u64, u64)>,
    /// The CUDA source lines of the modules read so far (with `PER_PC` only).
    lines: super::lines::LineMap,
    /// Why a module's line table did not decode, one per module.
    line_problems: Vec<String>,
    /// Why a module's code sections did not decode, one per module (with `CODE` only).
    code_problems: Vec<String>,
    /// Why a launch's per-instruction counter did not decode, one per counter.
    pc_problems: Vec<String>,
}

/// What a payload message is, by its place in the payload.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Source,
    Result,
    Other,
}

impl Kind {
    fn what(self) -> &'static str {
        match self {
            Kind::Source => "a source message",
            Kind::Result => "a profile result",
            Kind::Other => "a payload message",
        }
    }
}

/// A u32 size prefix.
fn size_of(bytes: &[u8]) -> u64 {
    let mut le = [0u8; 4];
    for (slot, b) in le.iter_mut().zip(bytes) {
        *slot = *b;
    }
    u64::from(u32::from_le_bytes(le))
}

impl Decoder<'_> {
    fn warn(&mut self, message: String) {
        self.summary.warnings.push(Warning {
            line: None,
            message,
        });
    }

    /// The warnings about the report as a whole, once its last block is read at `end`
    /// (see the module's doc).
    fn end_warnings(&mut self, end: u64) {
        for (at, sources, results, present) in std::mem::take(&mut self.short_blocks) {
            let missing = (sources.saturating_add(results)).saturating_sub(present);
            self.warn(format!(
                "byte {at}: the block header declares {sources} source message(s) and {results} \
                 result(s), but its payload holds {present} message(s) ({missing} missing); \
                 any result among them was not read (a damaged report?)"
            ));
        }
        let n = self.summary.results;
        if n == 0 {
            return;
        }
        let s = if n == 1 { "" } else { "s" };
        if let Some(at) = self.ends_with_sources {
            self.warn(format!(
                "byte {end}: the report ends after a block of kernel sources (byte {at}) and \
                 before the results that would launch them: it looks cut after a block; the \
                 {n} result{s} before it are loaded"
            ));
        } else if self.summary.session.command_line.is_none() {
            self.warn(format!(
                "byte {end}: the report has no command-line block, which ncu writes after the \
                 first result with the devices and tool versions: it looks cut after a block; \
                 the {n} result{s} before it are loaded"
            ));
        }
    }

    /// The input ends inside `what` at `offset`: the end of decoding, with a warning when
    /// complete results came before it, else an error.
    fn cut(
        &mut self,
        offset: u64,
        what: &'static str,
        size: u64,
        available: u64,
    ) -> Result<(), ReportError> {
        let complete = self.summary.results;
        if complete == 0 {
            return Err(ReportError::Truncated {
                offset,
                what,
                size,
                available,
            });
        }
        let s = if complete == 1 { "" } else { "s" };
        self.warn(format!(
            "byte {offset}: the report is cut: it ends inside {what} ({size} bytes declared, \
             {available} present); the {complete} complete result{s} before it are loaded"
        ));
        Ok(())
    }

    /// Reads the magic and the file header.
    fn header(&mut self, input: &mut dyn Input) -> Result<(), ReportError> {
        match input.take(4)? {
            Take::Bytes(b) if b == MAGIC => {}
            Take::Bytes(b) => return Err(not_a_report(b)),
            Take::Short(_) => return Err(not_a_report(&[])),
        }
        let size = match input.take(4)? {
            Take::Bytes(b) => size_of(b),
            Take::Short(k) => return self.cut(4, "the file header's size prefix", 4, k),
        };
        if size == 0 {
            return Err(ReportError::ZeroSize {
                offset: 4,
                what: "the file header",
            });
        }
        let version = match input.take(size)? {
            Take::Bytes(b) => layout::file_version(b, 8)?,
            Take::Short(k) => return self.cut(8, "the file header", size, k),
        };
        self.summary.version = version;
        if version != KNOWN_VERSION {
            self.warn(format!(
                "report file version {version}; this reader was written against version \
                 {KNOWN_VERSION} (Nsight Compute 2025.3.1): check the numbers against ncu's \
                 own export"
            ));
        }
        Ok(())
    }

    /// Reads blocks to the end of the input.
    #[expect(
        clippy::too_many_lines,
        reason = "one loop over the report's blocks with an arm per block kind; the arms share the reader's offsets and limits"
    )]
    fn blocks<const PER_PC: bool, const CODE: bool>(
        &mut self,
        input: &mut dyn Input,
        on_result: &mut dyn FnMut(ProfileResult),
    ) -> Result<(), ReportError> {
        let version = self.summary.version;
        loop {
            let at = input.offset();
            let size = match input.take(4)? {
                Take::Bytes(b) => size_of(b),
                Take::Short(0) => return Ok(()),
                Take::Short(k) => return self.cut(at, "a block header's size prefix", 4, k),
            };
            if size == 0 {
                return Err(ReportError::ZeroSize {
                    offset: at,
                    what: "a block header",
                });
            }
            let mut header = match input.take(size)? {
                Take::Bytes(b) => {
                    layout::block_header(b, at + 4, version, &mut self.summary.session)?
                }
                Take::Short(k) => return self.cut(at + 4, "a block header", size, k),
            };
            if !self.seen_processes.contains(&header.process) {
                self.seen_processes.insert(header.process.clone());
                self.summary.session.processes.push(header.process.clone());
            }
            self.ends_with_sources = (header.sources > 0 && header.results == 0).then_some(at);
            self.tables
                .add(header.process.id, std::mem::take(&mut header.strings));
            let end = input.offset().saturating_add(header.payload_size);
            let mut index = 0u64;
            while input.offset() < end {
                let at = input.offset();
                let left = end - at;
                if left < 4 {
                    return Err(ReportError::Malformed {
                        offset: at,
                        what: "block payload",
                        problem: format!(
                            "{left} bytes left in the payload, too few for a size prefix"
                        ),
                        version,
                    });
                }
                let size = match input.take(4)? {
                    Take::Bytes(b) => size_of(b),
                    Take::Short(k) => return self.cut(at, "a payload message's size prefix", 4, k),
                };
                let kind = if index < header.sources {
                    Kind::Source
                } else if index - header.sources < header.results {
                    Kind::Result
                } else {
                    Kind::Other
                };
                if size == 0 {
                    return Err(ReportError::ZeroSize {
                        offset: at,
                        what: kind.what(),
                    });
                }
                if size > left - 4 {
                    return Err(ReportError::Malformed {
                        offset: at,
                        what: "block payload",
                        problem: format!(
                            "{} declares {size} bytes, past the payload's end at byte {end}",
                            kind.what()
                        ),
                        version,
                    });
                }
                if kind == Kind::Source && PER_PC {
                    // A kernel binary: its line table, for the source pages of the results
                    // after it.
                    let bytes = match input.take(size)? {
                        Take::Bytes(b) => b,
                        Take::Short(k) => return self.cut(at + 4, kind.what(), size, k),
                    };
                    if let Err(why) = self.lines.add_module(bytes, at + 4) {
                        self.line_problems.push(why);
                    }
                    if CODE {
                        match super::cubin::module_code(bytes, at + 4) {
                            Ok(code) => {
                                if let Some(out) = self.code.as_deref_mut() {
                                    out.extend(code);
                                }
                            }
                            Err(why) => self.code_problems.push(why),
                        }
                    }
                    index += 1;
                    continue;
                }
                if kind == Kind::Source {
                    // Kernel binaries, most of the file: stepped over, never held.
                    if let Some(k) = input.skip(size)? {
                        return self.cut(at + 4, kind.what(), size, k);
                    }
                    index += 1;
                    continue;
                }
                let bytes = match input.take(size)? {
                    Take::Bytes(b) => b,
                    Take::Short(k) => return self.cut(at + 4, kind.what(), size, k),
                };
                match kind {
                    Kind::Source => {}
                    Kind::Other => self.other_messages += 1,
                    Kind::Result => {
                        let table = self.tables.table(header.process.id).unwrap_or_default();
                        let decoded = layout::profile_result::<PER_PC>(
                            bytes,
                            at + 4,
                            version,
                            self.summary.results,
                            &table,
                            &header.process,
                        )?;
                        self.odd_values += decoded.odd_values;
                        self.pc_problems.extend(decoded.pc_problems);
                        self.summary.results += 1;
                        let mut result = decoded.result;
                        if PER_PC && !self.lines.is_empty() {
                            result.attach_lines(&self.lines);
                        }
                        on_result(result);
                    }
                }
                index += 1;
            }
            if index < header.sources.saturating_add(header.results) {
                self.short_blocks
                    .push((at, header.sources, header.results, index));
            }
        }
    }
}

/// [`ReportError::NotAReport`] for a file starting with `start`.
fn not_a_report(start: &[u8]) -> ReportError {
    ReportError::NotAReport {
        found: escaped_start(start),
    }
}

/// The first four bytes of a file, escaped, for a message saying what was found instead
/// of the magic.
pub(crate) fn escaped_start(start: &[u8]) -> String {
    start
        .iter()
        .take(4)
        .flat_map(|b| std::ascii::escape_default(*b))
        .map(char::from)
        .collect()
}

/// One size-prefixed frame of `input` for [`outline`]: its offset and bytes, or why not.
fn next_frame(input: &mut dyn Input) -> Result<(u64, Vec<u8>), String> {
    let at = input.offset();
    let size = match input.take(4) {
        Ok(Take::Bytes(b)) => size_of(b),
        _ => return Err(format!("byte {at}: the file ends inside a size prefix")),
    };
    match input.take(size) {
        Ok(Take::Bytes(b)) => Ok((at, b.to_vec())),
        _ => Err(format!(
            "byte {at}: {size} bytes declared, the file ends first"
        )),
    }
}

/// The frames of a report with the field tree of each (see [`super::wire::dump`]): the
/// development aid for finding what changed in a report of a new ncu version. Headers are
/// printed `max_depth` levels deep; of each payload message, one level. At most
/// `max_fields` fields per message. Stops at the first frame that does not fit, saying so.
pub fn outline(bytes: &[u8], max_depth: usize, max_fields: usize) -> String {
    use super::wire::{dump, Fields};
    use std::fmt::Write;
    let mut input = super::input::SliceInput::new(bytes);
    if !matches!(input.take(4), Ok(Take::Bytes(b)) if b == MAGIC) {
        return "not a report: no NVR\\0 magic\n".to_owned();
    }
    let mut out = String::new();
    let mut frame = |input: &mut dyn Input, what: &str, depth: usize| match next_frame(input) {
        Ok((at, b)) => {
            let _ = writeln!(out, "== {what} at byte {at}, {} bytes", b.len());
            out.push_str(&dump(&b, depth, max_fields));
            Some(b)
        }
        Err(why) => {
            let _ = writeln!(out, "== {what}: {why}");
            None
        }
    };
    if frame(&mut input, "file header", max_depth).is_some() {
        while input.offset() < bytes.len() as u64 {
            let Some(header) = frame(&mut input, "block header", max_depth) else {
                break;
            };
            let payload_size = Fields::new(&header, 0)
                .filter_map(Result::ok)
                .find(|f| f.number == 5)
                .and_then(|f| f.varint())
                .unwrap_or(0);
            let end = input.offset().saturating_add(payload_size);
            while input.offset() < end && frame(&mut input, "payload message", 1).is_some() {}
        }
    }
    out
}
