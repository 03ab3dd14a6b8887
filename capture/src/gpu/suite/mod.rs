//! The kernel suite: every kernel declared once, with its CUDA source file, its launch shape,
//! the bytes and FLOPs it asks for (counted from its source), its buffers and arguments, and
//! its CPU reference check. The timed path (`capture run`) and the profiled path
//! (`capture run --profile-mode` under ncu) both build launches from [`KernelDef::plan`], so
//! the two can never drift apart. Nothing here touches CUDA: the runner executes plans.
//!
//! Problem sizes come from the device ([`Sizes::derive`]): streaming arrays are at least
//! eight times the L2 (rounded up to a power of two), the matmul pair is cache-resident
//! (512^3), the tensor-core matmul is 2048^3 (large enough to keep the tensor
//! cores busy, with no partial tile), the L2 copy works on buffers a quarter of the L2.
//!
//! One module per kernel family, mirroring `kernels/*.cu`: each declares its [`Family`] (source
//! file, embedded text, kernels with their plans and checks). Adding a kernel is one entry in its
//! family plus its CUDA function; adding a family is a module plus one line in [`FAMILIES`].
//! [`SUITE`] and [`SOURCES`] are built from the families at compile time.

pub mod ceilings;
pub mod fusion;
pub mod kernel;
pub mod matmul;
pub mod plan;
pub mod polynomial;
pub mod precision;
pub mod reduction;
pub mod sizes;
pub mod stencil;
pub mod tensor;
#[cfg(test)]
mod testing;
pub mod transpose;
pub mod vector_add;

pub use ceilings::{CLOCK_CYCLES, FMA_C, FMA_M};
pub use kernel::{CeilingKind, Family, KernelDef, Role};
pub use plan::{Arg, BufferSpec, Elem, Fill, Plan};
pub use sizes::{DeviceFacts, Sizes};

/// The kernel families in run order: ceilings first, then the teaching kernels.
pub const FAMILIES: &[Family] = &[
    ceilings::FAMILY,
    vector_add::FAMILY,
    transpose::FAMILY,
    matmul::FAMILY,
    tensor::FAMILY,
    reduction::FAMILY,
    stencil::FAMILY,
    polynomial::FAMILY,
    fusion::FAMILY,
    precision::FAMILY,
];

/// The runner's fill kernels (`kernels/fill.cu`): no suite kernel, compiled first.
const FILL_SOURCE: (&str, &str) = ("fill.cu", include_str!("../../../../kernels/fill.cu"));

/// Kernels in all families.
const KERNEL_COUNT: usize = {
    let (mut n, mut f) = (0, 0);
    while f < FAMILIES.len() {
        n += FAMILIES[f].kernels.len();
        f += 1;
    }
    n
};

/// The families' kernels, one after another.
const KERNELS: [KernelDef; KERNEL_COUNT] = {
    let mut out = [FAMILIES[0].kernels[0]; KERNEL_COUNT];
    let (mut f, mut at) = (0, 0);
    while f < FAMILIES.len() {
        let mut k = 0;
        while k < FAMILIES[f].kernels.len() {
            out[at] = FAMILIES[f].kernels[k];
            at += 1;
            k += 1;
        }
        f += 1;
    }
    out
};

/// The fill source, then each family's.
const SOURCE_LIST: [(&str, &str); FAMILIES.len() + 1] = {
    let mut out = [FILL_SOURCE; FAMILIES.len() + 1];
    let mut f = 0;
    while f < FAMILIES.len() {
        out[f + 1] = (FAMILIES[f].file, FAMILIES[f].source);
        f += 1;
    }
    out
};

/// The CUDA sources, embedded at build time: (file name under `kernels/`, text).
pub const SOURCES: &[(&str, &str)] = &SOURCE_LIST;

/// The whole suite in run order: the families' kernels, ceilings first.
pub const SUITE: &[KernelDef] = &KERNELS;

/// The kernels named in `--kernels` (function names), in suite order; all when empty.
/// Unknown names are an error listing the valid ones.
pub fn select(names: &[String]) -> Result<Vec<&'static KernelDef>, String> {
    if names.is_empty() {
        return Ok(SUITE.iter().collect());
    }
    if let Some(bad) = names
        .iter()
        .find(|n| !SUITE.iter().any(|k| k.function == n.as_str()))
    {
        let valid: Vec<&str> = SUITE.iter().map(|k| k.function).collect();
        return Err(format!(
            "unknown kernel '{bad}'; the suite has: {}",
            valid.join(", ")
        ));
    }
    Ok(SUITE
        .iter()
        .filter(|k| names.iter().any(|n| n == k.function))
        .collect())
}

/// The kernel-name filter for ncu that matches exactly the given kernels.
pub fn ncu_kernel_regex(kernels: &[&KernelDef]) -> String {
    let names: Vec<&str> = kernels.iter().map(|k| k.function).collect();
    format!("regex:^({})$", names.join("|"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gpu::data::HostData;
    use crate::gpu::data::Outputs;
    use testing::{def, sizes, small, H200, T4};

    /// The asked-for megabytes at fixed sizes (n = 2^24, 4096^2
    /// transpose, 2048^2 stencil, 512^3 matmul).
    #[test]
    fn asked_bytes_match_the_hand_counts() {
        let s = sizes(&T4, Some(1 << 24));
        let mb = |f: &str, s: &Sizes| (def(f).plan)(s).asked.bytes / 1e6;
        let close = |a: f64, b: f64| (a - b).abs() < 0.05;
        assert!(close(mb("vector_add", &s), 201.3));
        assert!(close(mb("vector_add_stride32", &s), 201.3));
        assert!(close(mb("matmul_naive", &s), 1074.8));
        assert!(close(mb("matmul_tiled16", &s), 68.2));
        assert!(close(mb("block_reduce", &s), 67.4));
        assert!(close(mb("polynomial_horner", &s), 134.2));
        let square = |d: u32| Sizes { square_dim: d, ..s };
        assert!(close(mb("transpose_naive", &square(4096)), 134.2));
        assert!(close(mb("heat_step_global", &square(2048)), 100.5));
        // The tiled stencil's count is this source's own (16 x 16 tiles, 1-cell apron).
        let tiled = (def("heat_step_tiled").plan)(&square(2048)).asked.bytes;
        assert_eq!(
            tiled,
            4.0 * (2048.0 * 2048.0 + 4.0 * 2048.0 * 127.0 + 2046.0 * 2046.0)
        );
        // FLOPs: 513 per polynomial element, 2 d^3 per matmul.
        assert_eq!(
            (def("polynomial_horner").plan)(&s).asked.flops,
            513.0 * f64::from(1 << 24)
        );
        assert_eq!(
            (def("matmul_naive").plan)(&s).asked.flops,
            2.0 * 512f64.powi(3)
        );
    }

    #[test]
    fn launch_shapes_cover_the_buffers_exactly() {
        for dev in [H200, T4] {
            let s = sizes(&dev, None);
            for k in SUITE {
                let p = (k.plan)(&s);
                let threads: u64 = p.launch.grid.iter().map(|&g| u64::from(g)).product::<u64>()
                    * p.launch
                        .block
                        .iter()
                        .map(|&b| u64::from(b))
                        .product::<u64>();
                let out = p
                    .buffers
                    .iter()
                    .find(|b| b.fill == Fill::Poison)
                    .unwrap_or_else(|| panic!("{} has no output", k.function));
                let per_thread = match k.function {
                    "copy_f4" => 4,
                    "read_f4" => 16,
                    "copy_l2_f4" => 16,
                    "transpose_naive" | "transpose_tiled" => 4,
                    "matmul_bf16_mma" => 32,
                    _ => 1,
                };
                let covered = threads * per_thread;
                let expected = match k.function {
                    "read_f4" => p.buffers[0].len,
                    "block_reduce" => p.buffers[0].len,
                    _ => out.len,
                };
                assert_eq!(covered, expected, "{}: {threads} threads", k.function);
                assert!(
                    p.launch.block.iter().product::<u32>() <= 1024,
                    "{}",
                    k.function
                );
                for a in &p.args {
                    if let Arg::Buf(i) = a {
                        assert!(*i < p.buffers.len(), "{}", k.function);
                    }
                }
            }
        }
    }

    #[test]
    fn every_function_is_in_its_source_and_unique() {
        for k in SUITE {
            let src = SOURCES
                .iter()
                .find(|(f, _)| *f == k.file)
                .map(|(_, s)| *s)
                .unwrap_or_else(|| panic!("{} not embedded", k.file));
            assert!(
                src.contains(&format!("\n{}(", k.function))
                    || src.contains(&format!(" {}(", k.function)),
                "{} not defined in {}",
                k.function,
                k.file
            );
            assert_eq!(SUITE.iter().filter(|o| o.function == k.function).count(), 1);
        }
        assert!(
            SUITE.len() >= 15,
            "the issue asks for at least fifteen checks"
        );
    }

    #[test]
    fn selection_and_regex() {
        let all = select(&[]).unwrap_or_default();
        assert_eq!(all.len(), SUITE.len());
        let two = select(&["matmul_naive".into(), "copy_f4".into()]).unwrap_or_default();
        assert_eq!(
            two.iter().map(|k| k.function).collect::<Vec<_>>(),
            ["copy_f4", "matmul_naive"],
            "suite order"
        );
        let err = select(&["nope".into()]).err().unwrap_or_default();
        assert!(
            err.contains("unknown kernel 'nope'") && err.contains("vector_add"),
            "{err}"
        );
        assert_eq!(ncu_kernel_regex(&two), "regex:^(copy_f4|matmul_naive)$");
    }

    /// Everything the suite declares, rendered: each kernel's identity and role, its plan
    /// (launch, buffers, arguments, asked bytes, FLOPs and formula) on an H200 and a T4, and
    /// what its CPU reference says of an all-zero output at small sizes (the first expected
    /// value and the largest difference, which pin the reference). Compared with
    /// `tests/golden/suite_plans.txt`; `BLESS=1` rewrites that file.
    #[test]
    fn the_suite_matches_its_golden_rendering() {
        use std::fmt::Write as _;
        let mut out = String::new();
        let files: Vec<&str> = SOURCES.iter().map(|(f, _)| *f).collect();
        let _ = writeln!(out, "sources: {}", files.join(", "));
        for (label, s) in [("H200", sizes(&H200, None)), ("T4", sizes(&T4, None))] {
            let _ = writeln!(out, "\n# {label}: {s:?}");
            for k in SUITE {
                let _ = writeln!(
                    out,
                    "{} | {} | {} | {:?}\n  {:?}",
                    k.function,
                    k.name,
                    k.source_path(),
                    k.role,
                    (k.plan)(&s)
                );
            }
        }
        let s = small();
        let _ = writeln!(out, "\n# checks of an all-zero output, {s:?}");
        for k in SUITE {
            let p = (k.plan)(&s);
            let mut o = Outputs::with_len(p.buffers.len());
            for (i, b) in p.buffers.iter().enumerate() {
                if b.fill == Fill::Poison {
                    let len = b.len as usize;
                    o.set(
                        i,
                        match b.elem {
                            Elem::F64 => HostData::F64(vec![0.0; len]),
                            _ => HostData::F32(vec![0.0; len]),
                        },
                    );
                }
            }
            let _ = writeln!(out, "{}: {:?}", k.function, (k.check)(&s, &p, &o));
        }
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../tests/golden/suite_plans.txt");
        if std::env::var_os("BLESS").is_some() {
            std::fs::write(&path, &out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        }
        let golden = std::fs::read_to_string(&path).unwrap_or_default();
        assert!(
            golden == out,
            "{} differs from the suite (BLESS=1 rewrites it):\n{out}",
            path.display()
        );
    }

    #[test]
    fn every_kernel_names_its_familys_file() {
        for family in FAMILIES {
            assert!(!family.kernels.is_empty(), "{} has no kernel", family.file);
            for k in family.kernels {
                assert_eq!(k.file, family.file, "{}", k.function);
            }
        }
        assert_eq!(
            SUITE.len(),
            FAMILIES.iter().map(|f| f.kernels.len()).sum::<usize>()
        );
    }
}
