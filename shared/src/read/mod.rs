//! Reading Nsight Compute's files into launches of the model: the CSV exports (`ncu`), the
//! binary reports (`ncu_rep`), and `exports`, which tells the two apart by their first
//! bytes and is where `capture` and the viewer read a file.
//!
//! Architecture invariant: readers take bytes or a `std::io::Read`, never a path, and return
//! typed errors with the line (or byte) and reason, or partial results with warnings.

pub mod exports;
pub mod ncu;
pub mod ncu_rep;
pub mod source;
