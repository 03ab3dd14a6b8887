//! CUDA source lines of a report's instructions, from the kernel binaries it keeps.
//!
//! A block's source messages (before its results) each hold one loaded module, found by
//! dumping real reports and matching with `ncu_report`'s `action.source_info(pc)` and the
//! `--print-source cuda,sass` page of the same report (`tests/oracle/`): 4 = the module's
//! ELF image (a cubin), 8 = its source files (1, repeated: 1 = path, 2 = the file's text
//! where ncu imported it, `--import-source yes`), 9 = its functions (1,
//! repeated: 1 = name, 2 = load address, 3 = the function's symbol in the ELF symbol
//! table). A module compiled with line information (`-lineinfo`, `-G`) carries a DWARF
//! `.debug_line` section whose sequences start at an address relocated against a
//! function's symbol (`.rela.debug_line`); a row of a sequence at offset `o` is the line of
//! the instructions from `load address + o` to the next row. The ELF and DWARF layouts
//! read here are the published standards (System V ABI ELF-64; DWARF 2 to 4 line number
//! programs); nothing of NVIDIA's is used.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::wire::{Fields, WireValue};

/// Source message fields.
mod module {
    pub const ELF: u32 = 4;
    pub const FILES: u32 = 8;
    pub const FUNCTIONS: u32 = 9;
}

/// A source file of a module (8.1): 1 = path, 2 = text.
mod file {
    pub const ITEM: u32 = 1;
    pub const PATH: u32 = 1;
    pub const TEXT: u32 = 2;
}

/// A function of a module (9.1): 1 = name, 2 = load address, 3 = symbol index.
mod function {
    pub const ITEM: u32 = 1;
    pub const ADDRESS: u32 = 2;
    pub const SYMBOL: u32 = 3;
}

/// A source location: file path and line (from 1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file's path as the line table gives it (directory joined with name).
    pub file: Arc<str>,
    /// Line, from 1.
    pub line: u32,
    /// The line's text, where the report holds the file.
    pub text: Option<Arc<str>>,
}

/// The lines of every instruction address the report's modules describe: a row starts at
/// an address and holds until the next (`None`: no line, past a sequence's end).
#[derive(Clone, Debug, Default)]
pub struct LineMap {
    rows: BTreeMap<u64, Option<Location>>,
}

impl LineMap {
    /// The line of the instruction at `pc`, if a module's line table covers it.
    pub fn at(&self, pc: u64) -> Option<&Location> {
        self.rows
            .range(..=pc)
            .next_back()
            .and_then(|(_, l)| l.as_ref())
    }

    /// Whether no module had line information.
    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Adds the line table of one source message (`bytes`, a module, whose first byte is at
    /// absolute offset `base`); how many rows it had. A module without line information
    /// adds nothing.
    ///
    /// # Errors
    ///
    /// A message naming the byte offset where the module, its ELF image or its line table
    /// does not decode; what was added before the problem stays.
    pub fn add_module(&mut self, bytes: &[u8], base: u64) -> Result<usize, String> {
        let mut elf = None;
        let mut functions: Vec<(u64, u64)> = Vec::new();
        let mut texts: Vec<(String, FileText)> = Vec::new();
        for f in Fields::new(bytes, base) {
            let f = f.map_err(|e| format!("byte {}: {}", e.offset, e.what))?;
            match (f.number, f.value) {
                (module::ELF, WireValue::Bytes(b)) => elf = Some((b, f.value_offset)),
                (module::FILES, WireValue::Bytes(_)) => {
                    for item in f.message() {
                        let item = item.map_err(|e| format!("byte {}: {}", e.offset, e.what))?;
                        if item.number != file::ITEM {
                            continue;
                        }
                        let (mut path, mut text) = (None, None);
                        for g in item.message() {
                            let g = g.map_err(|e| format!("byte {}: {}", e.offset, e.what))?;
                            match g.number {
                                file::PATH => path = g.text(),
                                file::TEXT => text = g.text(),
                                _ => {}
                            }
                        }
                        if let (Some(p), Some(t)) = (path, text) {
                            texts.push((p, FileText::new(t)));
                        }
                    }
                }
                (module::FUNCTIONS, WireValue::Bytes(_)) => {
                    for item in f.message() {
                        let item = item.map_err(|e| format!("byte {}: {}", e.offset, e.what))?;
                        if item.number != function::ITEM {
                            continue;
                        }
                        let (mut address, mut symbol) = (None, None);
                        for g in item.message() {
                            let g = g.map_err(|e| format!("byte {}: {}", e.offset, e.what))?;
                            match g.number {
                                function::ADDRESS => address = g.varint(),
                                function::SYMBOL => symbol = g.varint(),
                                _ => {}
                            }
                        }
                        if let (Some(a), Some(s)) = (address, symbol) {
                            functions.push((s, a));
                        }
                    }
                }
                _ => {}
            }
        }
        let Some((image, at)) = elf else {
            return Ok(0);
        };
        let rows = elf_lines(image, at, &functions)?;
        let n = rows.len();
        let base_name = |p: &str| p.rsplit(['/', '\\']).next().unwrap_or(p).to_owned();
        for (pc, location) in rows {
            match location {
                Some(mut l) => {
                    let text = texts
                        .iter()
                        .position(|(p, _)| **p == *l.file)
                        .or_else(|| {
                            let name = base_name(&l.file);
                            texts.iter().position(|(p, _)| base_name(p) == name)
                        })
                        .and_then(|i| texts.get_mut(i));
                    l.text = text.and_then(|(_, t)| t.line(l.line));
                    self.rows.insert(pc, Some(l));
                }
                // A sequence's end does not hide the start of the next one at its address.
                None => {
                    self.rows.entry(pc).or_insert(None);
                }
            }
        }
        Ok(n)
    }
}

/// A source file's text as a report holds it, and its lines as the line table names them:
/// each line's text is made once, when a row first names it, and shared by every row and
/// instruction of that line. Made per line up front, a text of newlines alone cost some 48
/// bytes a byte.
struct FileText {
    text: String,
    /// Where each line starts in `text`, from line 1.
    starts: Vec<u32>,
    made: BTreeMap<u32, Arc<str>>,
}

impl FileText {
    fn new(text: String) -> FileText {
        let starts = std::iter::once(0)
            .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
            .filter(|&i| i < text.len())
            .filter_map(|i| u32::try_from(i).ok())
            .collect();
        FileText {
            text,
            starts,
            made: BTreeMap::new(),
        }
    }

    /// The text of line `line` (from 1), without its line end, as [`str::lines`] gives it.
    fn line(&mut self, line: u32) -> Option<Arc<str>> {
        if let Some(t) = self.made.get(&line) {
            return Some(Arc::clone(t));
        }
        let at = (line as usize).checked_sub(1)?;
        let start = *self.starts.get(at)? as usize;
        let end = self
            .starts
            .get(at + 1)
            .map_or(self.text.len(), |&e| e as usize);
        let raw = self.text.get(start..end)?;
        let raw = raw
            .strip_suffix('\n')
            .map_or(raw, |r| r.strip_suffix('\r').unwrap_or(r));
        let t: Arc<str> = Arc::from(raw);
        self.made.insert(line, Arc::clone(&t));
        Some(t)
    }
}

/// Little-endian reads that fail with the absolute offset.
struct Bytes<'a> {
    data: &'a [u8],
    base: u64,
}

impl<'a> Bytes<'a> {
    fn slice(&self, at: usize, len: usize) -> Result<&'a [u8], String> {
        at.checked_add(len)
            .and_then(|end| self.data.get(at..end))
            .ok_or_else(|| {
                format!(
                    "byte {}: {len} bytes wanted, the ELF image ends at byte {}",
                    self.base + at as u64,
                    self.base + self.data.len() as u64
                )
            })
    }

    fn u16(&self, at: usize) -> Result<u16, String> {
        let b = self.slice(at, 2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&self, at: usize) -> Result<u32, String> {
        let b = self.slice(at, 4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&self, at: usize) -> Result<u64, String> {
        let b = self.slice(at, 8)?;
        let mut le = [0u8; 8];
        le.copy_from_slice(b);
        Ok(u64::from_le_bytes(le))
    }
}

/// An ELF section header's fields this reader uses.
struct Section {
    name: u32,
    kind: u32,
    offset: usize,
    size: usize,
    info: u32,
}

/// ELF section type of relocations with addends.
const SHT_RELA: u32 = 4;

/// The line rows of an ELF-64 little-endian image (at absolute offset `base`), at load
/// addresses: each function `(symbol, load address)` places the sequences relocated
/// against its symbol.
fn elf_lines(
    image: &[u8],
    base: u64,
    functions: &[(u64, u64)],
) -> Result<Vec<(u64, Option<Location>)>, String> {
    let b = Bytes { data: image, base };
    // An image shorter than an ELF-64 header has no sections, so no line table.
    if image.len() < 64 {
        return Ok(Vec::new());
    }
    if b.slice(0, 4)? != b"\x7fELF" {
        return Err(format!("byte {base}: a module's image is not ELF"));
    }
    if b.slice(4, 2)? != [2, 1] {
        return Err(format!(
            "byte {}: a module's ELF image is not 64-bit little-endian",
            base + 4
        ));
    }
    let shoff = usize::try_from(b.u64(0x28)?).map_err(|e| e.to_string())?;
    let shentsize = usize::from(b.u16(0x3a)?);
    let shnum = usize::from(b.u16(0x3c)?);
    let shstrndx = usize::from(b.u16(0x3e)?);
    if shentsize < 64 {
        return Err(format!(
            "byte {}: ELF section headers of {shentsize} bytes",
            base + 0x3a
        ));
    }
    let mut sections = Vec::with_capacity(shnum);
    for i in 0..shnum {
        let at = shoff + i * shentsize;
        sections.push(Section {
            name: b.u32(at)?,
            kind: b.u32(at + 4)?,
            offset: usize::try_from(b.u64(at + 0x18)?).map_err(|e| e.to_string())?,
            size: usize::try_from(b.u64(at + 0x20)?).map_err(|e| e.to_string())?,
            info: b.u32(at + 0x2c)?,
        });
    }
    let names = sections
        .get(shstrndx)
        .ok_or_else(|| format!("byte {}: no section-name table", base + 0x3e))?;
    let name_of = |s: &Section| -> Option<&[u8]> {
        let start = names.offset.checked_add(s.name as usize)?;
        let rest = image.get(start..names.offset.checked_add(names.size)?)?;
        rest.split(|c| *c == 0).next()
    };
    let Some(line_index) = sections
        .iter()
        .position(|s| name_of(s) == Some(b".debug_line".as_slice()))
    else {
        return Ok(Vec::new());
    };
    let line_section = &sections[line_index];
    // Relocations of `.debug_line`: the offset patched, and the function's symbol.
    let mut relocations: BTreeMap<usize, (u64, i64)> = BTreeMap::new();
    for s in sections
        .iter()
        .filter(|s| s.kind == SHT_RELA && s.info as usize == line_index)
    {
        let mut at = s.offset;
        while at + 24 <= s.offset + s.size {
            let offset = usize::try_from(b.u64(at)?).map_err(|e| e.to_string())?;
            let symbol = b.u64(at + 8)? >> 32;
            let addend = b.u64(at + 16)? as i64;
            relocations.insert(offset, (symbol, addend));
            at += 24;
        }
    }
    let program = b.slice(line_section.offset, line_section.size)?;
    let program_base = base + line_section.offset as u64;
    line_program(program, program_base, &relocations, functions)
}

/// Reads an unsigned LEB128 at `*at`.
fn uleb(data: &[u8], at: &mut usize, base: u64) -> Result<u64, String> {
    let start = *at;
    let mut value = 0u64;
    let mut shift = 0;
    loop {
        let byte = *data.get(*at).ok_or_else(|| {
            format!(
                "byte {}: a LEB128 number runs past the line table",
                base + start as u64
            )
        })?;
        *at += 1;
        if shift < 64 {
            value |= u64::from(byte & 0x7f) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
}

/// Reads a signed LEB128 at `*at`.
fn sleb(data: &[u8], at: &mut usize, base: u64) -> Result<i64, String> {
    let start = *at;
    let mut value = 0i64;
    let mut shift = 0;
    loop {
        let byte = *data.get(*at).ok_or_else(|| {
            format!(
                "byte {}: a LEB128 number runs past the line table",
                base + start as u64
            )
        })?;
        *at += 1;
        if shift < 64 {
            value |= i64::from(byte & 0x7f) << shift;
        }
        shift += 7;
        if byte & 0x80 == 0 {
            if shift < 64 && byte & 0x40 != 0 {
                value |= -1i64 << shift;
            }
            return Ok(value);
        }
    }
}

/// A NUL-terminated string at `*at`.
fn cstr<'a>(data: &'a [u8], at: &mut usize, base: u64) -> Result<&'a [u8], String> {
    let rest = data.get(*at..).unwrap_or_default();
    let len = rest.iter().position(|c| *c == 0).ok_or_else(|| {
        format!(
            "byte {}: a string runs past the line table",
            base + *at as u64
        )
    })?;
    *at += len + 1;
    Ok(&rest[..len])
}

/// A file entry of a line table header (its name read): the directory index, time and
/// length that follow it, and the path (the directory joined with the name).
fn file_entry(
    data: &[u8],
    at: &mut usize,
    base: u64,
    name: &[u8],
    dirs: &[String],
) -> Result<Arc<str>, String> {
    let dir = uleb(data, at, base)?;
    uleb(data, at, base)?; // modification time
    uleb(data, at, base)?; // length
    let name = String::from_utf8_lossy(name);
    let path = match dirs.get((dir as usize).wrapping_sub(1)) {
        Some(d) if dir > 0 && !name.starts_with('/') => format!("{d}/{name}"),
        _ => name.into_owned(),
    };
    Ok(Arc::from(path))
}

/// A line program unit's header, as far as the state machine needs it.
struct Unit {
    /// Where its program starts and ends in the section.
    program: std::ops::Range<usize>,
    min_inst: u64,
    line_base: i64,
    line_range: u64,
    opcode_base: u8,
    /// Operand counts of the standard opcodes (1 to `opcode_base - 1`).
    lengths: Vec<u8>,
    dirs: Vec<String>,
    files: Vec<Arc<str>>,
}

/// The header of the unit at `unit`, and where the next unit starts; `None` for a unit of
/// a DWARF version other than 2 to 4.
fn unit_header(data: &[u8], base: u64, unit: usize) -> Result<(Option<Unit>, usize), String> {
    let b = Bytes { data, base };
    let (length, offset_size, mut at) = match b.u32(unit)? {
        0xffff_ffff => (
            usize::try_from(b.u64(unit + 4)?).map_err(|e| e.to_string())?,
            8,
            unit + 12,
        ),
        n => (n as usize, 4, unit + 4),
    };
    let end = at
        .checked_add(length)
        .filter(|e| *e <= data.len())
        .ok_or_else(|| {
            format!(
                "byte {}: a line table unit of {length} bytes runs past its section",
                base + unit as u64
            )
        })?;
    let version = b.u16(at)?;
    at += 2;
    let header_length = if offset_size == 8 {
        usize::try_from(b.u64(at)?).map_err(|e| e.to_string())?
    } else {
        b.u32(at)? as usize
    };
    at += offset_size;
    let program_start = at + header_length;
    if !(2..=4).contains(&version) || program_start > end {
        return Ok((None, end));
    }
    let min_inst = u64::from(*b.slice(at, 1)?.first().unwrap_or(&1));
    at += 1;
    if version >= 4 {
        at += 1; // maximum operations per instruction: 1 outside VLIW
    }
    at += 1; // default is_stmt
    let line_base = i64::from(b.slice(at, 1)?[0] as i8);
    let line_range = u64::from(b.slice(at + 1, 1)?[0]).max(1);
    let opcode_base = b.slice(at + 2, 1)?[0];
    at += 3;
    let lengths = b
        .slice(at, usize::from(opcode_base.saturating_sub(1)))?
        .to_vec();
    at += lengths.len();
    let mut dirs: Vec<String> = Vec::new();
    loop {
        let d = cstr(data, &mut at, base)?;
        if d.is_empty() {
            break;
        }
        dirs.push(String::from_utf8_lossy(d).into_owned());
    }
    let mut files: Vec<Arc<str>> = Vec::new();
    loop {
        let name = cstr(data, &mut at, base)?;
        if name.is_empty() {
            break;
        }
        files.push(file_entry(data, &mut at, base, name, &dirs)?);
    }
    let unit = Unit {
        program: program_start..end,
        min_inst,
        line_base,
        line_range,
        opcode_base,
        lengths,
        dirs,
        files,
    };
    Ok((Some(unit), end))
}

/// The rows of every unit of a `.debug_line` section (DWARF versions 2 to 4; a unit of
/// another version is skipped), at load addresses.
fn line_program(
    data: &[u8],
    base: u64,
    relocations: &BTreeMap<usize, (u64, i64)>,
    functions: &[(u64, u64)],
) -> Result<Vec<(u64, Option<Location>)>, String> {
    let mut rows = Vec::new();
    let mut at = 0usize;
    while at + 4 <= data.len() {
        let (unit, next) = unit_header(data, base, at)?;
        if let Some(mut unit) = unit {
            let placed = Placed {
                relocations,
                functions,
            };
            run_unit(data, base, &mut unit, &placed, &mut rows)?;
        }
        at = next;
    }
    Ok(rows)
}

/// Where sequences load: the relocations of `.debug_line` and the functions' addresses.
struct Placed<'a> {
    relocations: &'a BTreeMap<usize, (u64, i64)>,
    functions: &'a [(u64, u64)],
}

impl Placed<'_> {
    /// The load address a sequence whose start address operand is at `operand` is
    /// relocated to: its function's, plus the addend.
    fn start(&self, operand: usize) -> Option<u64> {
        let (symbol, addend) = self.relocations.get(&operand)?;
        let load = self.functions.iter().find(|(s, _)| s == symbol)?.1;
        Some(load.wrapping_add(*addend as u64))
    }
}

/// The line-number state machine of one unit.
struct Machine {
    /// The sequence's load address (`None`: not placed, its rows are dropped).
    start: Option<u64>,
    address: u64,
    file: u64,
    line: i64,
}

impl Machine {
    fn new() -> Machine {
        Machine {
            start: None,
            address: 0,
            file: 1,
            line: 1,
        }
    }

    /// Appends the current row.
    fn emit(&self, rows: &mut Vec<(u64, Option<Location>)>, files: &[Arc<str>]) {
        let Some(load) = self.start else { return };
        let location = files
            .get((self.file as usize).wrapping_sub(1))
            .filter(|_| self.line > 0)
            .and_then(|f| {
                Some(Location {
                    file: Arc::clone(f),
                    line: u32::try_from(self.line).ok()?,
                    text: None,
                })
            });
        rows.push((load.wrapping_add(self.address), location));
    }
}

/// Runs one unit's program, appending its rows.
fn run_unit(
    data: &[u8],
    base: u64,
    unit: &mut Unit,
    placed: &Placed<'_>,
    rows: &mut Vec<(u64, Option<Location>)>,
) -> Result<(), String> {
    let b = Bytes { data, base };
    let mut m = Machine::new();
    let mut at = unit.program.start;
    let end = unit.program.end;
    while at < end {
        let op = data[at];
        at += 1;
        if op >= unit.opcode_base {
            let adj = u64::from(op - unit.opcode_base);
            m.address = m
                .address
                .wrapping_add(adj / unit.line_range * unit.min_inst);
            m.line += unit.line_base + (adj % unit.line_range) as i64;
            m.emit(rows, &unit.files);
            continue;
        }
        match op {
            0 => at = extended(data, base, at, unit, placed, &mut m, rows)?,
            1 => m.emit(rows, &unit.files),
            2 => {
                let by = uleb(data, &mut at, base)?.wrapping_mul(unit.min_inst);
                m.address = m.address.wrapping_add(by);
            }
            3 => m.line += sleb(data, &mut at, base)?,
            4 => m.file = uleb(data, &mut at, base)?,
            8 => {
                let adj = u64::from(255 - unit.opcode_base);
                m.address = m
                    .address
                    .wrapping_add(adj / unit.line_range * unit.min_inst);
            }
            9 => {
                m.address = m.address.wrapping_add(u64::from(b.u16(at)?));
                at += 2;
            }
            _ => {
                // Any other standard opcode: skip its LEB128 operands.
                let n = unit.lengths.get(usize::from(op) - 1).copied().unwrap_or(0);
                for _ in 0..n {
                    uleb(data, &mut at, base)?;
                }
            }
        }
    }
    Ok(())
}

/// Runs the extended opcode whose length is at `at`; where the program goes on.
fn extended(
    data: &[u8],
    base: u64,
    mut at: usize,
    unit: &mut Unit,
    placed: &Placed<'_>,
    m: &mut Machine,
    rows: &mut Vec<(u64, Option<Location>)>,
) -> Result<usize, String> {
    let b = Bytes { data, base };
    let len = uleb(data, &mut at, base)? as usize;
    let body = at;
    let sub = *data.get(at).ok_or_else(|| {
        format!(
            "byte {}: an extended opcode runs past the line table",
            base + at as u64
        )
    })?;
    match sub {
        // End of a sequence: a row past its end, then a fresh machine.
        1 => {
            if let Some(load) = m.start {
                rows.push((load.wrapping_add(m.address), None));
            }
            *m = Machine::new();
        }
        // The sequence's start address, relocated against its function's symbol.
        2 => {
            let operand = body + 1;
            let value = match len.saturating_sub(1) {
                8 => b.u64(operand)?,
                4 => u64::from(b.u32(operand)?),
                _ => 0,
            };
            m.start = placed.start(operand);
            m.address = value;
        }
        // A file defined in the program.
        3 => {
            let mut p = at + 1;
            let name = cstr(data, &mut p, base)?;
            let entry = file_entry(data, &mut p, base, name, &unit.dirs)?;
            unit.files.push(entry);
        }
        _ => {}
    }
    Ok(body + len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_text_gives_the_lines_str_lines_gives_each_made_once() {
        for text in [
            "",
            "\n",
            "a",
            "a\n",
            "a\r\nb",
            "a\n\nb\n",
            "\n\n\n",
            "é\nü\r\n",
            "a\r",
            "\r\n\r",
        ] {
            let want: Vec<&str> = text.lines().collect();
            let mut t = FileText::new(text.to_owned());
            let got: Vec<Option<Arc<str>>> =
                (0..=want.len() as u32 + 1).map(|l| t.line(l)).collect();
            assert_eq!(got.first(), Some(&None), "{text:?}: line 0");
            for (i, w) in want.iter().enumerate() {
                assert_eq!(
                    got.get(i + 1).cloned().flatten().as_deref(),
                    Some(*w),
                    "{text:?}"
                );
            }
            assert_eq!(got.last(), Some(&None), "{text:?}: past the end");
            if let Some(first) = t.line(1) {
                assert!(
                    Arc::ptr_eq(&first, &t.line(1).expect("line 1")),
                    "made twice"
                );
            }
        }
    }

    #[test]
    fn leb128_reads_both_signs() {
        let mut at = 0;
        assert_eq!(uleb(&[0xe5, 0x8e, 0x26], &mut at, 0), Ok(624_485));
        assert_eq!(at, 3);
        let mut at = 0;
        assert_eq!(sleb(&[0x7f], &mut at, 0), Ok(-1));
        let mut at = 0;
        assert_eq!(sleb(&[0xc0, 0xbb, 0x78], &mut at, 0), Ok(-123_456));
        let mut at = 0;
        assert!(uleb(&[0x80], &mut at, 10).is_err());
    }

    #[test]
    fn a_module_that_is_not_elf_is_an_error_naming_the_byte() {
        // { 4: 64 bytes of "oops" }
        let mut msg = vec![0x22, 64];
        msg.extend(b"oops".repeat(16));
        let mut map = LineMap::default();
        let e = map.add_module(&msg, 100).expect_err("not ELF");
        assert!(e.starts_with("byte 102:"), "{e}");
        // An image too short for an ELF header: no line table, no error.
        assert_eq!(
            map.add_module(&[0x22, 0x04, 0x7f, b'E', b'L', b'F'], 0),
            Ok(0)
        );
        assert!(map.is_empty());
        // No image at all: nothing to add.
        assert_eq!(map.add_module(&[0x28, 0x01], 0), Ok(0));
    }
}
