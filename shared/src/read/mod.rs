//! Reading Nsight Compute's files into launches of the model: the CSV exports (`ncu`), the
//! binary reports (`ncu_rep`), and `exports`, which reads either and is where `capture` and
//! the viewer read a file; `kind` tells every kind of file apart by its first bytes (past a
//! UTF-8 byte order mark, `bom`), and `zstd` un-compresses a zstd stream (a `.ncu-repz`
//! report) as it is read; `nvdisasm` reads NVIDIA's disassembler's text of a report's code.
//!
//! Architecture invariant: readers take bytes or a `std::io::Read`, never a path, and return
//! typed errors with the line (or byte) and reason, or partial results with warnings.

pub mod bom;
pub mod exports;
pub mod kind;
pub mod ncu;
pub mod ncu_rep;
pub mod nsys;
pub mod nvdisasm;
pub mod source;
pub mod trace;
pub mod zstd;
