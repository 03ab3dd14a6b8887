//! The messages of the report format, field by field, as identified by decoding real
//! reports of Nsight Compute 2025.3.1 (file version 7) with [`super::wire::dump`] and
//! matching the values against `ncu --import --csv --page raw --print-units base` of the
//! same reports. Fields not listed are skipped. Field numbers are this reader's own
//! findings; the names are descriptive, not NVIDIA's.

use std::sync::Arc;

use crate::error::ReportError;

use super::report::{Device, Entry, KernelNames, Process, ProfileResult, ResultValue, Session};
use super::strings::StringTable;
use super::walk::{walk, walk_message};
use super::wire::{Field, WireValue};

/// The file versions this reader was written against, for error messages.
pub const KNOWN_VERSIONS: &str = "7, written by Nsight Compute 2025.3.1";

/// The file version this reader was written against.
pub const KNOWN_VERSION: u64 = 7;

/// File header: 1 = file version (varint; 7).
const FILE_VERSION: u32 = 1;

/// Block header: 1 = source count, 2 = result count (varints), 3 = session details
/// (message), 4 = string table (message), 5 = payload size in bytes (varint), 6 = process
/// (message).
mod block {
    pub const SOURCES: u32 = 1;
    pub const RESULTS: u32 = 2;
    pub const SESSION: u32 = 3;
    pub const STRINGS: u32 = 4;
    pub const PAYLOAD_SIZE: u32 = 5;
    pub const PROCESS: u32 = 6;
}

/// String table: 1 = one string (repeated), in index order.
const STRING: u32 = 1;

/// Process: 1 = process ID, 2 = host name, 3 = executable path.
mod process {
    pub const ID: u32 = 1;
    pub const HOST: u32 = 2;
    pub const EXECUTABLE: u32 = 3;
}

/// Session details (one kind per block header): 6 = a device, 8 = a tool and its version,
/// 11 = the ncu command line. Others (2, 3, 4: host system; 5) are skipped.
mod session {
    pub const DEVICE: u32 = 6;
    pub const TOOL: u32 = 8;
    pub const COMMAND_LINE: u32 = 11;
}

/// Device: 1 = ordinal, 2 = display name, 3 = an attribute (repeated: 1 = name,
/// 2 = value message as in a metric result).
mod device {
    pub const ID: u32 = 1;
    pub const NAME: u32 = 2;
    pub const ATTRIBUTE: u32 = 3;
}

/// Tool version: 1 = name (`Nsight Compute Target`), 2 = version text.
mod tool {
    pub const NAME: u32 = 1;
    pub const VERSION: u32 = 2;
}

/// Profile result (one kernel launch): 1 = process ID, 5 = mangled name, 6 = function
/// name, 7 = demangled name (empty for `extern "C"`), 10 = grid, 11 = block (dim3
/// messages), 13 = a metric result (repeated), 22 = context ID, 23 = stream ID. Seen and
/// skipped: 2 (a rising ID), 3 and 4 (64-bit handles), 8, 9 (a dim3 of zeros), 14 (Unix
/// time, s), 15, 16, 17 (sections), 25, 31, 35. 19 = a rule result (repeated; `rules.rs`),
/// 21 = the NVTX state (`nvtx.rs`).
mod result {
    pub const PROCESS_ID: u32 = 1;
    pub const MANGLED: u32 = 5;
    pub const FUNCTION: u32 = 6;
    pub const DEMANGLED: u32 = 7;
    pub const GRID: u32 = 10;
    pub const BLOCK: u32 = 11;
    pub const METRIC: u32 = 13;
    pub const CONTEXT: u32 = 22;
    pub const STREAM: u32 = 23;
    pub const RULE: u32 = 19;
    pub const NVTX: u32 = 21;
}

/// Dim3: 1 = x, 2 = y, 3 = z.
const DIM_X: u32 = 1;

/// Metric result: 1 = name (string table index), 2 = value (absent: no value), 3 = an
/// instance value (repeated; 1 = its key, 2 = its value); 4 = a flag (skipped).
mod metric {
    pub const NAME: u32 = 1;
    pub const VALUE: u32 = 2;
    pub const INSTANCE: u32 = 3;
}

/// Metric value, one field: 1 = text, 3 = double, 5 = unsigned 64-bit integer.
mod value {
    pub const TEXT: u32 = 1;
    pub const DOUBLE: u32 = 3;
    pub const UINT64: u32 = 5;
}

/// A [`ReportError::Layout`] at `offset`.
pub fn layout_error(offset: u64, problem: impl Into<String>, version: u64) -> ReportError {
    ReportError::Layout {
        offset,
        problem: problem.into(),
        version,
        known: KNOWN_VERSIONS,
    }
}

/// The file version from the file header at `offset`.
pub fn file_version(data: &[u8], offset: u64) -> Result<u64, ReportError> {
    let mut version = None;
    for field in walk(data, offset, "file header", 0) {
        let field = field?;
        if field.number == FILE_VERSION {
            version = field.varint();
        }
    }
    version.ok_or_else(|| layout_error(offset, "the file header has no version (field 1)", 0))
}

/// A block header, read into owned parts.
#[derive(Debug, Default)]
pub struct BlockHeader {
    /// Number of source messages at the start of the payload.
    pub sources: u64,
    /// Number of profile results after them.
    pub results: u64,
    /// Payload size in bytes.
    pub payload_size: u64,
    /// The block's string table (often empty: see [`super::strings`]).
    pub strings: Vec<String>,
    /// The process the block belongs to.
    pub process: Process,
}

/// Reads a block header at `offset`, adding its session details to `session`.
pub fn block_header(
    data: &[u8],
    offset: u64,
    version: u64,
    session_out: &mut Session,
) -> Result<BlockHeader, ReportError> {
    let what = "block header";
    let mut header = BlockHeader::default();
    let mut payload_size = None;
    for field in walk(data, offset, what, version) {
        let field = field?;
        match field.number {
            block::SOURCES => header.sources = field.varint().unwrap_or(0),
            block::RESULTS => header.results = field.varint().unwrap_or(0),
            block::PAYLOAD_SIZE => payload_size = field.varint(),
            block::STRINGS => {
                for s in walk_message(&field, "string table", version) {
                    let s = s?;
                    if s.number == STRING {
                        header.strings.push(s.text().unwrap_or_default());
                    }
                }
            }
            block::PROCESS => header.process = read_process(&field, version)?,
            block::SESSION => read_session(&field, version, session_out)?,
            _ => {}
        }
    }
    header.payload_size = payload_size.ok_or_else(|| {
        layout_error(
            offset,
            "a block header has no payload size (field 5)",
            version,
        )
    })?;
    Ok(header)
}

fn read_process(field: &Field<'_>, version: u64) -> Result<Process, ReportError> {
    let mut p = Process::default();
    for f in walk_message(field, "process", version) {
        let f = f?;
        match f.number {
            process::ID => p.id = f.varint(),
            process::HOST => p.host = f.text(),
            process::EXECUTABLE => p.executable = f.text(),
            _ => {}
        }
    }
    Ok(p)
}

fn read_session(field: &Field<'_>, version: u64, out: &mut Session) -> Result<(), ReportError> {
    for f in walk_message(field, "session details", version) {
        let f = f?;
        match f.number {
            session::DEVICE => {
                let mut d = Device::default();
                for g in walk_message(&f, "device", version) {
                    let g = g?;
                    match g.number {
                        device::ID => d.id = g.varint().unwrap_or(0),
                        device::NAME => d.name = g.text().unwrap_or_default(),
                        device::ATTRIBUTE => {
                            let mut name = String::new();
                            let mut value = ResultValue::Absent;
                            for a in walk_message(&g, "device attribute", version) {
                                let a = a?;
                                match a.number {
                                    1 => name = a.text().unwrap_or_default(),
                                    2 => value = read_value(&a, version)?.0,
                                    _ => {}
                                }
                            }
                            d.attributes.push((name, value));
                        }
                        _ => {}
                    }
                }
                out.devices.push(d);
            }
            session::TOOL => {
                let (mut name, mut text) = (String::new(), String::new());
                for g in walk_message(&f, "tool version", version) {
                    let g = g?;
                    match g.number {
                        tool::NAME => name = g.text().unwrap_or_default(),
                        tool::VERSION => text = g.text().unwrap_or_default(),
                        _ => {}
                    }
                }
                out.tools.push((name, text));
            }
            session::COMMAND_LINE => out.command_line = f.text(),
            _ => {}
        }
    }
    Ok(())
}

/// A metric value message; the flag says its kind was not one of those seen in real reports
/// (text, double, unsigned integer) and was read by its wire type.
fn read_value(field: &Field<'_>, version: u64) -> Result<(ResultValue, bool), ReportError> {
    let mut out = (ResultValue::Absent, false);
    for f in walk_message(field, "metric value", version) {
        let f = f?;
        out = match (f.number, f.value) {
            (value::TEXT, WireValue::Bytes(b)) => (
                ResultValue::Text(String::from_utf8_lossy(b).into_owned()),
                false,
            ),
            (value::DOUBLE, WireValue::Fixed64(bits)) => {
                (ResultValue::Double(f64::from_bits(bits)), false)
            }
            (value::UINT64, WireValue::Varint(v)) => (ResultValue::Uint(v), false),
            (_, WireValue::Varint(v)) => (ResultValue::Uint(v), true),
            (_, WireValue::Fixed64(bits)) => (ResultValue::Double(f64::from_bits(bits)), true),
            (_, WireValue::Fixed32(bits)) => {
                (ResultValue::Double(f64::from(f32::from_bits(bits))), true)
            }
            (_, WireValue::Bytes(b)) => (
                ResultValue::Text(String::from_utf8_lossy(b).into_owned()),
                true,
            ),
        };
    }
    Ok(out)
}

fn read_dim3(field: &Field<'_>, version: u64) -> Result<[u32; 3], ReportError> {
    let mut dims = [0u32; 3];
    for f in walk_message(field, "launch dimensions", version) {
        let f = f?;
        let slot = f
            .number
            .checked_sub(DIM_X)
            .and_then(|i| dims.get_mut(i as usize));
        if let (Some(slot), Some(v)) = (slot, f.varint()) {
            *slot = u32::try_from(v).unwrap_or(u32::MAX);
        }
    }
    Ok(dims)
}

/// The instance values of a metric result whose instances are keyed by program counter:
/// instance (field 3) = 1: key (5 = the address, varint), 2: a value message. Pairs whose
/// key is no address or whose value is no number are skipped.
fn per_pc_values(field: &Field<'_>, version: u64) -> Result<Vec<(u64, f64)>, ReportError> {
    let mut out = Vec::new();
    for f in walk_message(field, "metric result", version) {
        let f = f?;
        if f.number != metric::INSTANCE {
            continue;
        }
        let (mut pc, mut value) = (None, None);
        for g in walk_message(&f, "instance value", version) {
            let g = g?;
            match g.number {
                1 => {
                    for k in walk_message(&g, "instance key", version) {
                        let k = k?;
                        if k.number == value::UINT64 {
                            pc = k.varint();
                        }
                    }
                }
                2 => {
                    value = match read_value(&g, version)?.0 {
                        ResultValue::Uint(v) => Some(v as f64),
                        ResultValue::Double(v) if v.is_finite() => Some(v),
                        _ => None,
                    }
                }
                _ => {}
            }
        }
        if let (Some(pc), Some(value)) = (pc, value) {
            out.push((pc, value));
        }
    }
    Ok(out)
}

/// A decoded profile result, and how many of its values were of a kind read by wire type.
pub struct Decoded {
    /// The result.
    pub result: ProfileResult,
    /// Values of a kind not seen in real reports.
    pub odd_values: u64,
    /// Why per-instruction values that did not decode were left out (with `PER_PC` only:
    /// the export reader never reads them, so they are a source page's loss, not the
    /// report's).
    pub pc_problems: Vec<String>,
}

/// Reads the profile result at `offset`, the `index`-th of the report, whose metric names
/// index into `strings`; with `PER_PC`, its per-instruction values too.
pub fn profile_result<const PER_PC: bool>(
    data: &[u8],
    offset: u64,
    version: u64,
    index: u64,
    strings: &Arc<StringTable>,
    process: &Process,
) -> Result<Decoded, ReportError> {
    let mut names = KernelNames::default();
    let mut r = ProfileResult {
        index,
        offset,
        process: process.clone(),
        names: KernelNames::default(),
        grid: None,
        block: None,
        context: None,
        stream: None,
        nvtx: None,
        metrics: Vec::new(),
        rules: Vec::new(),
        per_pc: Vec::new(),
        lines: Vec::new(),
        strings: Arc::clone(strings),
    };
    let mut odd_values = 0;
    let mut pc_problems = Vec::new();
    for field in walk(data, offset, "profile result", version) {
        let field = field?;
        match field.number {
            result::PROCESS_ID => {
                if let Some(pid) = field.varint() {
                    r.process.id = Some(pid);
                }
            }
            result::MANGLED => names.mangled = field.text().unwrap_or_default(),
            result::FUNCTION => names.function = field.text().unwrap_or_default(),
            result::DEMANGLED => names.demangled = field.text().filter(|t| !t.is_empty()),
            result::GRID => r.grid = Some(read_dim3(&field, version)?),
            result::BLOCK => r.block = Some(read_dim3(&field, version)?),
            result::CONTEXT => r.context = field.varint(),
            result::STREAM => r.stream = field.varint(),
            result::RULE => super::rules::read_rule(&field, version, &mut r.rules)?,
            result::NVTX => r.nvtx = super::nvtx::read_nvtx(&field, version)?,
            result::METRIC => {
                let mut name = None;
                let mut value = ResultValue::Absent;
                let mut instances = 0u32;
                for f in walk_message(&field, "metric result", version) {
                    let f = f?;
                    match f.number {
                        metric::NAME => name = f.varint(),
                        metric::VALUE => {
                            let (v, odd) = read_value(&f, version)?;
                            value = v;
                            odd_values += u64::from(odd);
                        }
                        metric::INSTANCE => instances = instances.saturating_add(1),
                        _ => {}
                    }
                }
                let name = name.ok_or_else(|| {
                    layout_error(
                        field.offset,
                        "a metric result has no name (field 1)",
                        version,
                    )
                })?;
                let name = u32::try_from(name)
                    .ok()
                    .filter(|&i| (i as usize) < strings.len())
                    .ok_or_else(|| {
                        layout_error(
                            field.offset,
                            format!(
                                "a metric result names string {name}, beyond its string table \
                                 of {} strings",
                                strings.len()
                            ),
                            version,
                        )
                    })?;
                if PER_PC && instances > 0 {
                    let counter = strings
                        .get(u64::from(name))
                        .and_then(super::source::per_pc_counter);
                    if let Some(counter) = counter {
                        match per_pc_values(&field, version) {
                            Ok(values) => r.per_pc.push((counter, values)),
                            Err(e) => pc_problems.push(e.to_string()),
                        }
                    }
                }
                r.metrics.push(Entry {
                    name,
                    value,
                    instances,
                });
            }
            _ => {}
        }
    }
    r.names = names;
    Ok(Decoded {
        result: r,
        odd_values,
        pc_problems,
    })
}
