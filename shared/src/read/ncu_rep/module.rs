//! One loaded module of a report (a source message: the block's messages before its
//! results), as far as `cubin.rs` uses it: its ELF image (a cubin) and its functions'
//! symbols and load addresses. The field numbers (`lines.rs` walks the same ones itself, as
//! it did before this file: the viewer reads line tables, and its wasm is at its budget)
//! were found by dumping real reports and matching with `ncu_report`'s
//! `action.source_info(pc)` and `sass_by_pc(pc)` (`tests/oracle/`): 4 = the ELF image,
//! 9 = functions (1, repeated: 1 = name, 2 = load address, 3 = the function's symbol in the
//! ELF symbol table).

use super::wire::{Fields, WireValue};

/// Source message fields.
mod field {
    pub const ELF: u32 = 4;
    pub const FUNCTIONS: u32 = 9;
}

/// A function of a module (9.1): 1 = name, 2 = load address, 3 = symbol index.
pub(super) mod function {
    pub const ITEM: u32 = 1;
    pub const ADDRESS: u32 = 2;
    pub const SYMBOL: u32 = 3;
}

/// What a source message (one loaded module) holds that `cubin.rs` uses.
pub(super) struct Module<'a> {
    /// The ELF image (a cubin) and the absolute offset of its first byte.
    pub elf: Option<(&'a [u8], u64)>,
    /// Each function's symbol index in the ELF symbol table and its load address.
    pub functions: Vec<(u64, u64)>,
}

impl<'a> Module<'a> {
    /// Reads the source message `bytes`, whose first byte is at absolute offset `base`.
    ///
    /// # Errors
    ///
    /// A message naming the byte offset where a field does not decode.
    pub fn read(bytes: &'a [u8], base: u64) -> Result<Module<'a>, String> {
        let mut elf = None;
        let mut functions: Vec<(u64, u64)> = Vec::new();
        for f in Fields::new(bytes, base) {
            let f = f.map_err(|e| format!("byte {}: {}", e.offset, e.what))?;
            match (f.number, f.value) {
                (field::ELF, WireValue::Bytes(b)) => elf = Some((b, f.value_offset)),
                (field::FUNCTIONS, WireValue::Bytes(_)) => {
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
        Ok(Module { elf, functions })
    }
}
