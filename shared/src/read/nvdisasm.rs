//! The text of NVIDIA's disassembler, `nvdisasm`, run on a function's code at its load
//! address (`nvdisasm -b SM90a -base ADDRESS code.bin`, [`crate::read::ncu_rep::cubin`]
//! gives the bytes and the address): one SASS instruction a line, `/*ADDRESS*/ TEXT ;`,
//! with branch targets at the same addresses. Read into the spelling of `ncu_report`'s
//! `sass_by_pc` (Nsight Compute 2026.3.1), found by comparing the two at every address of
//! the fixture reports (`tests/oracle/`; nvdisasm 13.2, 13.4 and 13.5 print the same):
//! - register reuse flags (`.reuse`) left out;
//! - the predicate in a column of its own (`@P0   EXIT`, `@!P0  BRA`);
//! - operands nvdisasm separates by a space alone separated by a comma
//!   (`RET.REL.NODEC R4, 0x...`, `BRX R2, -0x...`);
//! - the `gsb0` and `UPR` operands joined to the one before (`R88.gsb0`, `UR4.UPR`), where
//!   Nsight Compute 2025.3.1's source page spells them as nvdisasm does (`R88, gsb0`);
//! - a branch to itself (the loop after a kernel's last `EXIT`) named by ncu's first
//!   label: ``BRA `(.L_x_0) 0x...``.
//!
//! [`give_text`] joins it to a launch's per-instruction figures by address. No I/O:
//! `capture` finds and runs the disassembler.

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
        out.insert(address, ncu_spelling(address, sass));
    }
    Ok(out)
}

/// Operands `ncu_report` joins to the operand before them with a dot.
const JOINED: [&str; 2] = ["gsb0", "UPR"];

/// `sass`, the instruction at `address`, as `ncu_report` shows it (the module's list).
fn ncu_spelling(address: u64, sass: &str) -> String {
    let sass = sass.replace(".reuse", "");
    let (predicate, rest) = match sass.split_once(' ') {
        Some((p, rest)) if p.starts_with('@') => (Some(p), rest.trim_start()),
        _ => (None, sass.as_str()),
    };
    let (opcode, operands) = rest.split_once(' ').unwrap_or((rest, ""));
    let mut list: Vec<String> = Vec::new();
    for part in operands.split(", ") {
        // A space between two operands (not one nvdisasm leaves before a comma: `+INF , PT`).
        for operand in split_interior_spaces(part) {
            match list.last_mut() {
                Some(last) if JOINED.contains(&operand.trim()) => {
                    last.push('.');
                    last.push_str(operand.trim());
                }
                _ if operand.is_empty() => {}
                _ => list.push(operand.to_owned()),
            }
        }
    }
    let to_itself = format!("{address:#x}");
    if opcode == "BRA" && predicate.is_none() && list == [to_itself.as_str()] {
        list.insert(0, "`(.L_x_0)".to_owned());
        return format!("{opcode} {}", list.join(" "));
    }
    let text = if list.is_empty() {
        opcode.to_owned()
    } else {
        format!("{opcode} {}", list.join(", "))
    };
    match predicate {
        Some(p) => format!("{p:<PREDICATE_COLUMN$} {text}"),
        None => text,
    }
}

/// `part` cut at each space that has a character other than a space on both sides.
fn split_interior_spaces(part: &str) -> Vec<&str> {
    let bytes = part.as_bytes();
    let mut out = Vec::new();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let interior = b == b' '
            && i > start
            && bytes.get(i - 1).is_some_and(|&c| c != b' ')
            && bytes.get(i + 1).is_some_and(|&c| c != b' ');
        if interior {
            out.push(&part[start..i]);
            start = i + 1;
        }
    }
    out.push(&part[start..]);
    out
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
            \x20       /*7f0deb7b8970*/                   HGMMA.64x64x16.F32.BF16 R88, gdesc[UR16].tnspA, R88, gsb0 ;\n\
            \x20       /*7f1bf37abc90*/                   RET.REL.NODEC R4 0x7f1bf37ab400 ;\n\
            \x20       /*7f3a5f7a0210*/                   BRA 0x7f3a5f7a0210;\n\
            \x20       /*7fb1317bdb90*/                   FSETP.GTU.FTZ.AND P0, PT, |R9|, +INF , PT ;\n\
            .L_x_1:\n";
        let read = instructions(text).expect("reads");
        let want = [
            (0x7f0d_eb7b_7d00, "LDC R1, c[0x0][0x28]"),
            (0x7f0d_eb7b_7da0, "@UP0  UMOV UR10, 0x1ffffe"),
            (0x7f3a_5f7a_0130, "IMAD.SHL.U32 R6, R9, 0x4, RZ"),
            (0x7f3a_5f7a_01f0, "@!P0  BRA 0x7f3a5f7a0130"),
            (
                0x7f0d_eb7b_8970,
                "HGMMA.64x64x16.F32.BF16 R88, gdesc[UR16].tnspA, R88.gsb0",
            ),
            (0x7f1b_f37a_bc90, "RET.REL.NODEC R4, 0x7f1bf37ab400"),
            (0x7f3a_5f7a_0210, "BRA `(.L_x_0) 0x7f3a5f7a0210"),
            (
                0x7fb1_317b_db90,
                "FSETP.GTU.FTZ.AND P0, PT, |R9|, +INF , PT",
            ),
        ];
        assert_eq!(read.len(), want.len());
        for (address, sass) in want {
            assert_eq!(read.get(&address).map(String::as_str), Some(sass));
        }
    }

    #[test]
    fn an_address_that_is_not_hex_names_its_line() {
        let err = instructions("\n  /*7f0g*/ NOP ;\n").expect_err("refused");
        assert_eq!(
            err.to_string(),
            "line 2 of nvdisasm's output: address \"7f0g\" is not hexadecimal (invalid digit \
             found in string)"
        );
    }
}
