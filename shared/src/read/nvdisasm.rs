//! The text of NVIDIA's disassembler, `nvdisasm`, run on a function's code at its load
//! address (`nvdisasm -b SM90a -base ADDRESS code.bin`, [`crate::read::ncu_rep::cubin`]
//! gives the bytes and the address): one SASS instruction a line, `/*ADDRESS*/ TEXT ;`,
//! with branch targets at the same addresses. Read into the spelling of Nsight Compute's
//! source page and `ncu_report`'s `sass_by_pc`, which show the same disassembly with the
//! register reuse flags (`.reuse`) left out and the predicate in a column of its own
//! (`@P0   EXIT`, `@!P0  BRA`; found by comparing the two on the fixture reports,
//! `tests/oracle/`). [`give_text`] joins it to a launch's per-instruction figures by
//! address. No I/O: `capture` finds and runs the disassembler.

use std::collections::BTreeMap;

use crate::error::DisassemblyError;
use crate::read::source::LaunchSource;

/// The width of the predicate column of ncu's SASS text (`@!UP0` and a space after).
const PREDICATE_COLUMN: usize = 5;

/// Every instruction of `text` (nvdisasm's output) by address, in ncu's spelling; lines
/// that are not instructions (headers, labels, section directives) are passed over.
///
/// # Errors
///
/// [`DisassemblyError::Line`] for an instruction line whose address is not hexadecimal.
pub fn instructions(text: &str) -> Result<BTreeMap<u64, String>, DisassemblyError> {
    let mut out = BTreeMap::new();
    for (n, line) in text.lines().enumerate() {
        let Some(rest) = line.trim_start().strip_prefix("/*") else {
            continue;
        };
        let Some((address, sass)) = rest.split_once("*/") else {
            continue;
        };
        let address =
            u64::from_str_radix(address.trim(), 16).map_err(|e| DisassemblyError::Line {
                line: n + 1,
                reason: format!("address {address:?} is not hexadecimal ({e})"),
            })?;
        let sass = sass.trim();
        let sass = sass.strip_suffix(';').unwrap_or(sass).trim_end();
        if sass.is_empty() {
            continue;
        }
        out.insert(address, ncu_spelling(sass));
    }
    Ok(out)
}

/// `sass` as ncu shows it: without `.reuse` flags, the predicate in its column.
fn ncu_spelling(sass: &str) -> String {
    let sass = sass.replace(".reuse", "");
    match sass.split_once(' ') {
        Some((predicate, rest)) if predicate.starts_with('@') => {
            format!("{predicate:<PREDICATE_COLUMN$} {}", rest.trim_start())
        }
        _ => sass,
    }
}

/// Gives the instructions of `launches` that have no SASS text the text `text` holds at
/// their address; how many it gave.
pub fn give_text(launches: &mut [LaunchSource], text: &BTreeMap<u64, String>) -> usize {
    let mut given = 0;
    for i in launches.iter_mut().flat_map(|l| l.instructions.iter_mut()) {
        if i.sass.is_none() {
            if let Some(t) = text.get(&i.address) {
                i.sass = Some(t.clone());
                given += 1;
            }
        }
    }
    given
}

#[cfg(test)]
mod tests {
    use super::*;

    // Lines of `nvdisasm -b SM90a -base 0x7f0deb7b7d00` (13.5) on the first kernel of the
    // fixture gemms_full.ncu-rep, and ncu_report 2026.3.1's `sass_by_pc` at those
    // addresses.
    #[test]
    fn nvdisasm_lines_read_in_ncus_spelling() {
        let text = "\n\t.headerflags\t@\"EF_CUDA_64BIT_ADDRESS EF_CUDA_SM90\"\n\
            \x20       /*7f0deb7b7d00*/                   LDC R1, c[0x0][0x28] ;\n\
            \x20       /*7f0deb7b7da0*/               @UP0 UMOV UR10, 0x1ffffe ;\n\
            \x20       /*7f3a5f7a0130*/                   IMAD.SHL.U32 R6, R9.reuse, 0x4, RZ ;\n\
            \x20       /*7f3a5f7a01f0*/              @!P0 BRA 0x7f3a5f7a0130 ;\n\
            .L_x_1:\n";
        let read = instructions(text).unwrap();
        let want = [
            (0x7f0d_eb7b_7d00, "LDC R1, c[0x0][0x28]"),
            (0x7f0d_eb7b_7da0, "@UP0  UMOV UR10, 0x1ffffe"),
            (0x7f3a_5f7a_0130, "IMAD.SHL.U32 R6, R9, 0x4, RZ"),
            (0x7f3a_5f7a_01f0, "@!P0  BRA 0x7f3a5f7a0130"),
        ];
        assert_eq!(read.len(), want.len());
        for (address, sass) in want {
            assert_eq!(read.get(&address).map(String::as_str), Some(sass));
        }
    }

    #[test]
    fn an_address_that_is_not_hex_names_its_line() {
        let err = instructions("\n  /*7f0g*/ NOP ;\n").unwrap_err();
        assert_eq!(
            err.to_string(),
            "line 2 of nvdisasm's output: address \"7f0g\" is not hexadecimal (invalid digit \
             found in string)"
        );
    }
}
