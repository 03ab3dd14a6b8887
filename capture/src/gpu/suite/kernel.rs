//! What the suite is made of: a kernel ([`KernelDef`]: its function, role, plan and check),
//! the role it plays ([`Role`], [`CeilingKind`]) and a family of kernels in one source file
//! ([`Family`]). Every family module declares its kernels with these, and `mod.rs` lists the
//! families; they stand below both.

use shared::model::artifact::Check;

use super::plan::Plan;
use super::sizes::Sizes;
use crate::gpu::data::Outputs;

/// One source file under `kernels/` and the suite kernels defined in it.
#[derive(Clone, Copy, Debug)]
pub struct Family {
    /// File name under `kernels/`.
    pub file: &'static str,
    /// Its text, embedded at build time.
    pub source: &'static str,
    /// Its kernels, in run order.
    pub kernels: &'static [KernelDef],
}

/// The role a kernel plays in a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Measures a ceiling; its figure goes into the artifact's measured ceilings.
    Ceiling(CeilingKind),
    /// A teaching kernel placed on the roofline.
    Suite,
}

/// Which ceiling a ceiling kernel measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CeilingKind {
    /// DRAM copy (and, beside it, the driver's memcpy of the same buffers).
    Copy,
    /// DRAM read-only stream.
    Read,
    /// L2-resident copy.
    L2Copy,
    /// FP32 FMA (and, around it, the held SM clock).
    Fma,
}

impl CeilingKind {
    /// The name of its measurement in the artifact's `ceilings.measurements`.
    pub fn as_str(self) -> &'static str {
        match self {
            CeilingKind::Copy => "copy",
            CeilingKind::Read => "read",
            CeilingKind::L2Copy => "l2_copy",
            CeilingKind::Fma => "fma",
        }
    }
}

/// A CPU reference check: compares the downloaded outputs with the reference.
pub type CheckFn = fn(&Sizes, &Plan, &Outputs) -> Check;

/// One kernel of the suite.
#[derive(Clone, Copy, Debug)]
pub struct KernelDef {
    /// The CUDA function name (extern "C", so ncu reports it as is); also the id `--kernels`
    /// takes.
    pub function: &'static str,
    /// Display name in the artifact and tables.
    pub name: &'static str,
    /// Source file under `kernels/`.
    pub file: &'static str,
    /// Ceiling or suite kernel.
    pub role: Role,
    /// Launch plan for given sizes.
    pub plan: fn(&Sizes) -> Plan,
    /// CPU reference check.
    pub check: CheckFn,
}

impl KernelDef {
    /// The source path as recorded in the artifact (`kernels/vector_add.cu`).
    pub fn source_path(&self) -> String {
        format!("kernels/{}", self.file)
    }
}
