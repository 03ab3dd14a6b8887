//! The machine code a report keeps: each loaded function's code section (`.text.NAME` of
//! its module's cubin) at the address ncu recorded it loaded at, and the SM version the
//! cubin was built for, so that a disassembler run by the caller (`capture` runs NVIDIA's
//! `nvdisasm` on the bytes at that base address) gives the text of every instruction at the
//! same addresses as the report's per-instruction figures. A function's symbol (ELF symbol
//! table, System V ABI) names its section and its offset in it; the section starts at the
//! load address less that offset. No I/O.

use std::collections::HashSet;

use super::elf::Image;
use super::module::Module;

/// ELF section type of a symbol table.
const SHT_SYMTAB: u32 = 2;
/// Bytes of an ELF-64 symbol table entry.
const SYMBOL_BYTES: usize = 24;

/// One function's code as it was loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CodeSection {
    /// The function's symbol (mangled) name.
    pub function: String,
    /// The SM version the cubin was built for (90 for `sm_90`/`sm_90a`), from its ELF
    /// header flags; `None` where the flags are of an ABI version not seen.
    pub sm: Option<u32>,
    /// The load address of the section's first byte.
    pub address: u64,
    /// The section's bytes: instructions, 16 bytes each on the GPUs since Volta.
    pub bytes: Vec<u8>,
}

impl CodeSection {
    /// Whether the instruction at `address` lies in this section.
    pub fn holds(&self, address: u64) -> bool {
        address >= self.address && address - self.address < self.bytes.len() as u64
    }
}

/// The SM version of a cubin's ELF header flags: the low byte in ABI version 7 (CUDA 12
/// and before: `0x5a055a` is sm_90), the second byte from ABI version 8 (`0x6005a04`).
fn sm_of(abi_version: u8, flags: u32) -> Option<u32> {
    match abi_version {
        ..=7 => Some(flags & 0xff),
        8 => Some((flags >> 8) & 0xff),
        _ => None,
    }
}

/// The code sections of the loaded functions of the source message `bytes` (one module,
/// whose first byte is at absolute offset `base`); none where it holds no ELF image.
///
/// # Errors
///
/// A message naming the byte offset where the module, its ELF image, its symbol table or a
/// function's section does not decode.
pub fn module_code(bytes: &[u8], base: u64) -> Result<Vec<CodeSection>, String> {
    let module = Module::read(bytes, base)?;
    let Some((image, at)) = module.elf else {
        return Ok(Vec::new());
    };
    let Some(elf) = Image::parse(image, at)? else {
        return Ok(Vec::new());
    };
    let Some(symtab) = elf.sections.iter().find(|s| s.kind == SHT_SYMTAB) else {
        return Ok(Vec::new());
    };
    let strtab = elf.sections.get(symtab.link as usize);
    let b = &elf.bytes;
    let sm = sm_of(elf.abi_version, elf.flags);
    let mut seen = HashSet::new();
    let mut code = Vec::new();
    for &(symbol, load) in &module.functions {
        let entry = usize::try_from(symbol)
            .ok()
            .and_then(|s| s.checked_mul(SYMBOL_BYTES))
            .filter(|&e| e + SYMBOL_BYTES <= symtab.size)
            .ok_or_else(|| {
                format!(
                    "byte {}: a function names symbol {symbol}, past the symbol table's \
                     {} entries",
                    at + symtab.offset as u64,
                    symtab.size / SYMBOL_BYTES
                )
            })?
            + symtab.offset;
        let section_index = usize::from(b.u16(entry + 6)?);
        let value = b.u64(entry + 8)?;
        let Some(section) = elf.sections.get(section_index) else {
            return Err(format!(
                "byte {}: symbol {symbol} names section {section_index}, of {}",
                at + entry as u64 + 6,
                elf.sections.len()
            ));
        };
        let Some(address) = load.checked_sub(value) else {
            return Err(format!(
                "byte {}: symbol {symbol} at offset {value:#x} of its section, past its \
                 load address {load:#x}",
                at + entry as u64 + 8
            ));
        };
        if !seen.insert((section_index, address)) {
            continue;
        }
        let name = strtab
            .and_then(|t| {
                let start = t.offset.checked_add(b.u32(entry).ok()? as usize)?;
                let rest = image.get(start..t.offset.checked_add(t.size)?)?;
                rest.split(|c| *c == 0).next()
            })
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .unwrap_or_default();
        code.push(CodeSection {
            function: name,
            sm,
            address,
            bytes: elf.data(section)?.to_vec(),
        });
    }
    Ok(code)
}

#[cfg(test)]
mod tests {
    use super::sm_of;

    #[test]
    fn sm_from_the_flags_of_both_abi_versions() {
        // The two flag words seen in the H200 fixture reports (gemms_full.ncu-rep).
        assert_eq!(sm_of(7, 0x005a_055a), Some(90));
        assert_eq!(sm_of(8, 0x0600_5a04), Some(90));
        assert_eq!(sm_of(9, 0x0600_5a04), None);
    }
}
