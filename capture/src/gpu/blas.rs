//! The tensor-core ceilings measured with cuBLASLt, loaded at run time through cudarc (like
//! the driver and NVRTC), so `capture` builds anywhere and a host without the library gets
//! "not measured" with the reason. With [`super::runner`], the only module that talks to
//! CUDA; the GEMMs, their inputs, references and arithmetic are [`super::tensor`]'s.
//!
//! Each GEMM asks cuBLASLt's heuristic for up to [`ALGOS`] algorithms, times each briefly,
//! keeps the fastest, checks its output against the CPU reference, then times it with CUDA
//! events (warm-ups, then the run's repetitions; the median is the ceiling). That is what a
//! well-tuned program (PyTorch, through the same library) gets from these tensor cores.

use std::ffi::c_void;
use std::mem::size_of;

use anyhow::{Context, Result};
use cudarc::cublaslt::result as lt;
use cudarc::cublaslt::sys;
use cudarc::driver::DevicePtr;
use shared::model::artifact::{DeviceInfo, TensorCeiling, Timing};
use shared::model::work_kind::Work;

use super::runner::{DevBuf, Gpu, WARMUPS};
use super::tensor::{Format, GemmSpec, GEMMS};

/// Algorithms asked of the heuristic and timed, per GEMM.
pub const ALGOS: usize = 8;
/// Timed launches of each candidate algorithm (after two warm-ups).
const TRIAL_REPS: u32 = 5;
/// Workspace offered to cuBLASLt: 32 MiB, NVIDIA's recommendation for Hopper (PyTorch's too).
const WORKSPACE_BYTES: usize = 32 << 20;

/// Whether libcublasLt can be loaded (probed without loading it for good).
pub fn library_present() -> bool {
    // SAFETY: only probes whether the shared library can be opened.
    unsafe { sys::is_culib_present() }
}

/// cuBLASLt's version (`13.1.0`); call only when [`library_present`].
fn version() -> String {
    // SAFETY: a plain query; the library is present (checked by the caller).
    let v = unsafe { sys::cublasLtGetVersion() };
    format!("{}.{}.{}", v / 10_000, (v / 100) % 100, v % 100)
}

/// Every tensor ceiling of [`GEMMS`] on this device: measured, or not with the reason (no
/// library, no such tensor cores, no algorithm, a failed call). Never fails the run.
pub fn measure_all(gpu: &Gpu, device: &DeviceInfo, reps: u32) -> Vec<TensorCeiling> {
    let present = library_present();
    let handle = if present {
        Handle::new(gpu).map_err(|e| format!("cuBLASLt did not start: {e:#}"))
    } else {
        Err(
            "libcublasLt.so (cuBLASLt, CUDA 12 or 13) could not be loaded; put the CUDA \
             toolkit's lib64 folder on LD_LIBRARY_PATH"
                .to_string(),
        )
    };
    GEMMS
        .iter()
        .map(|spec| {
            if let Err(why) = spec.supported(device.compute_capability) {
                return spec.not_measured(device, why);
            }
            let handle = match &handle {
                Ok(h) => h,
                Err(why) => return spec.not_measured(device, why.clone()),
            };
            match measure(gpu, handle, spec, device, reps) {
                Ok(record) => record,
                Err(e) => spec.not_measured(device, format!("{e:#}")),
            }
        })
        .collect()
}

/// A cuBLASLt handle, destroyed on drop.
struct Handle(sys::cublasLtHandle_t);

impl Handle {
    fn new(gpu: &Gpu) -> Result<Handle> {
        gpu.context()
            .bind_to_thread()
            .context("binding the CUDA context")?;
        Ok(Handle(lt::create_handle().context("cublasLtCreate")?))
    }
}

impl Drop for Handle {
    fn drop(&mut self) {
        // SAFETY: created by cublasLtCreate and destroyed once, here.
        let _ = unsafe { lt::destroy_handle(self.0) };
    }
}

/// A matrix layout descriptor, destroyed on drop.
struct Layout(sys::cublasLtMatrixLayout_t);

impl Drop for Layout {
    fn drop(&mut self) {
        // SAFETY: created by cublasLtMatrixLayoutCreate and destroyed once, here.
        let _ = unsafe { lt::destroy_matrix_layout(self.0) };
    }
}

/// A matmul descriptor, destroyed on drop.
struct Desc(sys::cublasLtMatmulDesc_t);

impl Drop for Desc {
    fn drop(&mut self) {
        // SAFETY: created by cublasLtMatmulDescCreate and destroyed once, here.
        let _ = unsafe { lt::destroy_matmul_desc(self.0) };
    }
}

/// A preference descriptor, destroyed on drop.
struct Pref(sys::cublasLtMatmulPreference_t);

impl Drop for Pref {
    fn drop(&mut self) {
        // SAFETY: created by cublasLtMatmulPreferenceCreate and destroyed once, here.
        let _ = unsafe { lt::destroy_matmul_pref(self.0) };
    }
}

fn data_type(f: Format) -> sys::cudaDataType {
    use sys::cudaDataType_t as T;
    match f {
        Format::Bf16 => T::CUDA_R_16BF,
        Format::Fp16 => T::CUDA_R_16F,
        Format::E4m3 => T::CUDA_R_8F_E4M3,
        Format::Tf32 | Format::Fp32 => T::CUDA_R_32F,
        Format::Int8 => T::CUDA_R_8I,
        Format::Int32 => T::CUDA_R_32I,
        Format::Fp64 => T::CUDA_R_64F,
    }
}

/// Alpha = 1 and beta = 0 in the scale type.
enum Scale {
    F32([f32; 2]),
    F64([f64; 2]),
    I32([i32; 2]),
}

impl Scale {
    fn ptrs(&self) -> (*const c_void, *const c_void) {
        match self {
            Scale::F32(v) => (v.as_ptr().cast(), v[1..].as_ptr().cast()),
            Scale::F64(v) => (v.as_ptr().cast(), v[1..].as_ptr().cast()),
            Scale::I32(v) => (v.as_ptr().cast(), v[1..].as_ptr().cast()),
        }
    }
}

/// Compute type, scale type and scale of a kind of work.
fn compute_of(work: Work) -> Result<(sys::cublasComputeType_t, sys::cudaDataType, Scale)> {
    use sys::cublasComputeType_t as C;
    use sys::cudaDataType_t as T;
    Ok(match work {
        Work::TensorFp64 => (C::CUBLAS_COMPUTE_64F, T::CUDA_R_64F, Scale::F64([1.0, 0.0])),
        Work::TensorTf32 => (
            C::CUBLAS_COMPUTE_32F_FAST_TF32,
            T::CUDA_R_32F,
            Scale::F32([1.0, 0.0]),
        ),
        Work::TensorFp16 | Work::TensorBf16 | Work::TensorFp8 => {
            (C::CUBLAS_COMPUTE_32F, T::CUDA_R_32F, Scale::F32([1.0, 0.0]))
        }
        Work::TensorInt8 => (C::CUBLAS_COMPUTE_32I, T::CUDA_R_32I, Scale::I32([1, 0])),
        other => anyhow::bail!("no cuBLASLt GEMM for {}", other.label()),
    })
}

fn layout(f: Format, rows: u64, cols: u64, ld: u64) -> Result<Layout> {
    let l = lt::create_matrix_layout(data_type(f), rows, cols, ld as i64)
        .context("cublasLtMatrixLayoutCreate")?;
    Ok(Layout(l))
}

/// Sets one attribute of a matmul descriptor.
fn set_desc<T>(desc: &Desc, attr: sys::cublasLtMatmulDescAttributes_t, value: &T) -> Result<()> {
    // SAFETY: the descriptor is live; `value` points at a `T` of the attribute's type.
    unsafe {
        lt::set_matmul_desc_attribute(desc.0, attr, (value as *const T).cast(), size_of::<T>())
    }
    .with_context(|| format!("cublasLtMatmulDescSetAttribute {attr:?}"))
}

fn ptr(gpu: &Gpu, buf: &DevBuf) -> u64 {
    let s = gpu.stream();
    // The stream records nothing here: every call of this module is on the one stream.
    match buf {
        DevBuf::F32(b) => b.device_ptr(s).0,
        DevBuf::F64(b) => b.device_ptr(s).0,
        DevBuf::U8(b) => b.device_ptr(s).0,
        DevBuf::U16(b) => b.device_ptr(s).0,
        DevBuf::U32(b) => b.device_ptr(s).0,
    }
}

/// Everything one GEMM call needs, built once.
struct Gemm<'a> {
    gpu: &'a Gpu,
    handle: &'a Handle,
    desc: Desc,
    a_layout: Layout,
    b_layout: Layout,
    d_layout: Layout,
    scale: Scale,
    a: DevBuf,
    b: DevBuf,
    d: DevBuf,
    workspace: DevBuf,
}

impl Gemm<'_> {
    /// One GEMM with `algo`, queued on the run's stream.
    fn launch(&self, algo: &sys::cublasLtMatmulAlgo_t) -> Result<()> {
        let (alpha, beta) = self.scale.ptrs();
        let d = ptr(self.gpu, &self.d);
        // SAFETY: the descriptors are live and describe these buffers (A K x M, B K x N,
        // D M x N, column-major, leading dimensions K, K and M, allocated with those many
        // elements); C is D with beta = 0, so it is not read; the workspace holds
        // WORKSPACE_BYTES; alpha and beta point at the scale type.
        unsafe {
            lt::matmul(
                self.handle.0,
                self.desc.0,
                alpha,
                beta,
                ptr(self.gpu, &self.a) as *const c_void,
                self.a_layout.0,
                ptr(self.gpu, &self.b) as *const c_void,
                self.b_layout.0,
                d as *const c_void,
                self.d_layout.0,
                d as *mut c_void,
                self.d_layout.0,
                algo,
                ptr(self.gpu, &self.workspace) as *mut c_void,
                WORKSPACE_BYTES,
                self.gpu.stream().cu_stream() as sys::cudaStream_t,
            )
        }
        .context("cublasLtMatmul")
    }

    /// Up to [`ALGOS`] algorithms the heuristic offers for this GEMM, best first.
    fn algorithms(&self) -> Result<Vec<sys::cublasLtMatmulAlgo_t>> {
        let pref = Pref(lt::create_matmul_pref().context("cublasLtMatmulPreferenceCreate")?);
        let bytes = WORKSPACE_BYTES as u64;
        // SAFETY: live preference; the attribute is a uint64_t.
        unsafe {
            lt::set_matmul_pref_attribute(
                pref.0,
                sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                (&bytes as *const u64).cast(),
                size_of::<u64>(),
            )
        }
        .context("cublasLtMatmulPreferenceSetAttribute")?;
        // SAFETY: the results are plain data, written by the call below before any read.
        let mut results: Vec<sys::cublasLtMatmulHeuristicResult_t> =
            vec![unsafe { std::mem::zeroed() }; ALGOS];
        let mut found = 0i32;
        // SAFETY: live descriptors; `results` holds ALGOS entries.
        unsafe {
            sys::cublasLtMatmulAlgoGetHeuristic(
                self.handle.0,
                self.desc.0,
                self.a_layout.0,
                self.b_layout.0,
                self.d_layout.0,
                self.d_layout.0,
                pref.0,
                ALGOS as i32,
                results.as_mut_ptr(),
                &mut found,
            )
            .result()
        }
        .context("cublasLtMatmulAlgoGetHeuristic")?;
        let algos: Vec<_> = results
            .iter()
            .take(found.max(0) as usize)
            .filter(|r| r.state == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS)
            .map(|r| r.algo)
            .collect();
        anyhow::ensure!(
            !algos.is_empty(),
            "cuBLASLt has no algorithm for this GEMM on this device"
        );
        Ok(algos)
    }
}

/// The id cuBLASLt gives an algorithm, for the record.
fn algo_id(algo: &sys::cublasLtMatmulAlgo_t) -> Option<i32> {
    let mut id = 0i32;
    let mut written = 0usize;
    // SAFETY: reads one int attribute of a live algorithm into `id`.
    let r = unsafe {
        sys::cublasLtMatmulAlgoConfigGetAttribute(
            algo,
            sys::cublasLtMatmulAlgoConfigAttributes_t::CUBLASLT_ALGO_CONFIG_ID,
            (&mut id as *mut i32).cast(),
            size_of::<i32>(),
            &mut written,
        )
    };
    (r == sys::cublasStatus_t::CUBLAS_STATUS_SUCCESS).then_some(id)
}

/// One tensor ceiling: build the GEMM, pick the fastest algorithm, check it, time it.
fn measure(
    gpu: &Gpu,
    handle: &Handle,
    spec: &GemmSpec,
    device: &DeviceInfo,
    reps: u32,
) -> Result<TensorCeiling> {
    let n = spec.dim;
    let (compute, scale_type, scale) = compute_of(spec.work)?;
    let desc =
        Desc(lt::create_matmul_desc(compute, scale_type).context("cublasLtMatmulDescCreate")?);
    // D = A^T B: A is stored K x M ("T"), B K x N ("N"); 1 is CUBLAS_OP_T.
    set_desc(
        &desc,
        sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_TRANSA,
        &1i32,
    )?;
    if spec.work == Work::TensorFp8 {
        // Accumulate in the tensor cores only (no periodic promotion to CUDA-core fp32):
        // the fastest FP8 path, which the ceiling is about.
        set_desc(
            &desc,
            sys::cublasLtMatmulDescAttributes_t::CUBLASLT_MATMUL_DESC_FAST_ACCUM,
            &1i8,
        )?;
    }
    let elems = n * n;
    let alloc = |f: Format, what: &str| gpu.alloc_raw(f.width(), elems, what);
    let a = alloc(spec.input, "A")?;
    let b = alloc(spec.input, "B")?;
    let d = alloc(spec.output, "D")?;
    let workspace = gpu.alloc_raw(1, WORKSPACE_BYTES as u64, "cuBLASLt workspace")?;
    gpu.fill_gemm(&a, elems, spec.seeds.0, spec.input.fill_code())?;
    gpu.fill_gemm(&b, elems, spec.seeds.1, spec.input.fill_code())?;
    gpu.poison(&workspace, 0)?;
    let gemm = Gemm {
        gpu,
        handle,
        a_layout: layout(spec.input, n, n, n)?,
        b_layout: layout(spec.input, n, n, n)?,
        d_layout: layout(spec.output, n, n, n)?,
        desc,
        scale,
        a,
        b,
        d,
        workspace,
    };
    let algos = gemm.algorithms()?;
    // The fastest candidate by its median over a few launches; one that fails is skipped.
    let mut best: Option<(f64, usize)> = None;
    let mut errors = Vec::new();
    for (i, algo) in algos.iter().enumerate() {
        match gpu.time(2, TRIAL_REPS, || gemm.launch(algo)) {
            Ok(t) if best.is_none_or(|(ms, _)| t.median_ms < ms) => best = Some((t.median_ms, i)),
            Ok(_) => {}
            Err(e) => errors.push(format!("{e:#}")),
        }
    }
    let Some((_, chosen)) = best else {
        anyhow::bail!(
            "none of the {} algorithms ran: {}",
            algos.len(),
            errors.join("; ")
        );
    };
    let algo = algos.get(chosen).context("the chosen algorithm")?;
    // Checked launch on a poisoned D, then the timed repetitions.
    gpu.poison(&gemm.d, spec.output.poison_word())?;
    gemm.launch(algo)?;
    gpu.sync().context("checked GEMM")?;
    let check = spec.check(&gpu.download_bits(&gemm.d)?);
    let timing: Timing = gpu.time(WARMUPS, reps.max(10), || gemm.launch(algo))?;
    let means = format!(
        "cuBLASLt {} GEMM D = A^T B, {}, fastest of {} heuristic algorithms (id {})",
        version(),
        spec.types(),
        algos.len(),
        algo_id(algo).map_or("unknown".into(), |id| id.to_string())
    );
    Ok(spec.record(device, means, timing, check))
}
