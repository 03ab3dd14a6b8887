//! The kinds of arithmetic work the artifact names: a unit (CUDA cores or tensor cores) and a
//! type, with the keys the JSON uses (`fp32`, `tensor_bf16`, ...). Counting that work from a
//! launch's counters is [`crate::analysis::work`]'s job; this module only names the kinds.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One kind of arithmetic work: a unit (CUDA cores or tensor cores) and a type. In JSON its
/// [`Work::key`] (`fp32`, `tensor_bf16`, ...): the artifact's asked precision and tensor
/// ceilings, and the table's `flops_by_precision`, all use these keys.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Work {
    /// FP64 on CUDA cores.
    Fp64,
    /// FP32 on CUDA cores.
    Fp32,
    /// FP16 on CUDA cores (packed `half2` counted as ncu does).
    Fp16,
    /// FP64 on tensor cores (DMMA).
    TensorFp64,
    /// TF32 on tensor cores.
    TensorTf32,
    /// FP16 on tensor cores.
    TensorFp16,
    /// BF16 on tensor cores.
    TensorBf16,
    /// Turing's combined counter: fp16, bf16 or tf32 sources with fp32 accumulate.
    TensorFp16Bf16Tf32,
    /// FP8 on tensor cores.
    TensorFp8,
    /// FP6 on tensor cores.
    TensorFp6,
    /// FP4 on tensor cores.
    TensorFp4,
    /// INT8 on tensor cores (integer OPs).
    TensorInt8,
    /// INT4 on tensor cores (integer OPs).
    TensorInt4,
    /// INT1 on tensor cores (integer OPs).
    TensorInt1,
}

impl Work {
    /// Every kind, in the order tables list them.
    pub const ALL: [Work; 14] = [
        Work::Fp64,
        Work::Fp32,
        Work::Fp16,
        Work::TensorFp64,
        Work::TensorTf32,
        Work::TensorFp16,
        Work::TensorBf16,
        Work::TensorFp16Bf16Tf32,
        Work::TensorFp8,
        Work::TensorFp6,
        Work::TensorFp4,
        Work::TensorInt8,
        Work::TensorInt4,
        Work::TensorInt1,
    ];

    /// The key in JSON (`fp32`, `tensor_bf16`, ...), the table JSON contract's
    /// `flops_by_precision` keys.
    pub fn key(self) -> &'static str {
        match self {
            Work::Fp64 => "fp64",
            Work::Fp32 => "fp32",
            Work::Fp16 => "fp16",
            Work::TensorFp64 => "tensor_fp64",
            Work::TensorTf32 => "tensor_tf32",
            Work::TensorFp16 => "tensor_fp16",
            Work::TensorBf16 => "tensor_bf16",
            Work::TensorFp16Bf16Tf32 => "tensor_fp16_bf16_tf32",
            Work::TensorFp8 => "tensor_fp8",
            Work::TensorFp6 => "tensor_fp6",
            Work::TensorFp4 => "tensor_fp4",
            Work::TensorInt8 => "tensor_int8",
            Work::TensorInt4 => "tensor_int4",
            Work::TensorInt1 => "tensor_int1",
        }
    }

    /// The kind of a key, the inverse of [`Work::key`].
    pub fn from_key(key: &str) -> Option<Work> {
        Work::ALL.into_iter().find(|w| w.key() == key)
    }

    /// A label for people (`FP32`, `tensor BF16`).
    pub fn label(self) -> &'static str {
        match self {
            Work::Fp64 => "FP64",
            Work::Fp32 => "FP32",
            Work::Fp16 => "FP16",
            Work::TensorFp64 => "tensor FP64",
            Work::TensorTf32 => "tensor TF32",
            Work::TensorFp16 => "tensor FP16",
            Work::TensorBf16 => "tensor BF16",
            Work::TensorFp16Bf16Tf32 => "tensor FP16/BF16/TF32",
            Work::TensorFp8 => "tensor FP8",
            Work::TensorFp6 => "tensor FP6",
            Work::TensorFp4 => "tensor FP4",
            Work::TensorInt8 => "tensor INT8",
            Work::TensorInt4 => "tensor INT4",
            Work::TensorInt1 => "tensor INT1",
        }
    }

    /// Whether tensor cores do this work.
    pub fn is_tensor(self) -> bool {
        !matches!(self, Work::Fp64 | Work::Fp32 | Work::Fp16)
    }

    /// Whether the counts are integer OPs, kept apart from FLOPs.
    pub fn is_integer(self) -> bool {
        matches!(self, Work::TensorInt8 | Work::TensorInt4 | Work::TensorInt1)
    }

    /// `FLOP` or `OP`, for units (`GFLOP/s`, `GOP/s`).
    pub fn unit(self) -> &'static str {
        if self.is_integer() {
            "OP"
        } else {
            "FLOP"
        }
    }
}
