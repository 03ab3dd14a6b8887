//! The CUDA side of `capture`, through cudarc: library guards, device attributes, NVRTC
//! compilation of the embedded sources for the device's own architecture, buffers filled on
//! the device, launches built from a [`Plan`], event timing and downloads.
//!
//! Everything that needs a driver lives here, so the rest of the GPU half (suite, checks,
//! ncu driver) is tested without one. A missing library is detected before the first cudarc
//! call, because cudarc panics on a library it cannot load.

use std::collections::HashMap;
use std::sync::Arc;

use anyhow::{Context, Result};
use cudarc::driver::{
    result as cu, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig,
    PushKernelArg,
};
use cudarc::nvrtc::{self, CompileError, CompileOptions, Ptx};
use shared::model::artifact::{ComputeCapability, DeviceInfo, Timing};

use super::data::{HostBits, HostData, Outputs, POISON_BITS};
use super::suite::{Arg, BufferSpec, DeviceFacts, Elem, Fill, Plan, SOURCES, SUITE};
use crate::exit::{Code, Fault};

/// Untimed launches before the timed repetitions ([`Gpu::time`]).
pub const WARMUPS: u32 = 3;

/// Where someone without a GPU can still look at real results.
pub const NO_GPU_HINT: &str = "Viewing artifacts needs no GPU: open the viewer (site/) or run \
     `capture table`; real captures from an H200 are bundled in site/samples/.";

/// Fails with [`Code::NoGpu`] unless the CUDA driver library can be loaded.
pub fn require_driver() -> Result<()> {
    // SAFETY: only probes whether the shared library can be opened.
    if unsafe { cudarc::driver::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Fault::new(
            Code::NoGpu,
            format!(
                "no NVIDIA driver: libcuda.so could not be loaded, so there is no GPU to run \
                 on. {NO_GPU_HINT}"
            ),
        )
        .into())
    }
}

/// Fails with [`Code::Nvrtc`] unless the NVRTC library can be loaded.
pub fn require_nvrtc() -> Result<()> {
    // SAFETY: only probes whether the shared library can be opened.
    if unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        Ok(())
    } else {
        Err(Fault::new(
            Code::Nvrtc,
            "NVRTC not found: libnvrtc.so (CUDA 13) could not be loaded; install the CUDA \
             toolkit's runtime compiler (or put its lib64 folder on LD_LIBRARY_PATH). The \
             kernels are compiled at run time for this GPU's architecture.",
        )
        .into())
    }
}

fn no_gpu(what: &str, e: impl std::fmt::Display) -> anyhow::Error {
    Fault::new(Code::NoGpu, format!("{what}: {e}. {NO_GPU_HINT}")).into()
}

/// Number of CUDA devices; none, or a driver that will not initialize, is [`Code::NoGpu`].
pub fn device_count() -> Result<u32> {
    require_driver()?;
    cu::init().map_err(|e| no_gpu("the CUDA driver did not initialize", e))?;
    let n = cu::device::get_count().map_err(|e| no_gpu("cannot count CUDA devices", e))?;
    if n <= 0 {
        return Err(no_gpu(
            "no CUDA device found",
            "the driver reports 0 devices",
        ));
    }
    Ok(n as u32)
}

/// A PCI address as `cuDeviceGetPCIBusId` writes it: `domain:bus:device.0`, in hex.
pub fn pci_address(domain: u32, bus: u32, device: u32) -> String {
    format!("{domain:04x}:{bus:02x}:{device:02x}.0")
}

/// Attributes of device `ordinal`, its theoretical peaks, and the facts that size the suite.
pub fn describe(ordinal: u32) -> Result<(DeviceInfo, DeviceFacts)> {
    let count = device_count()?;
    if ordinal >= count {
        return Err(no_gpu(
            &format!("no CUDA device {ordinal}"),
            format!("this host has {count} (ordinals 0 to {})", count - 1),
        ));
    }
    let dev = cu::device::get(ordinal as i32).context("cuDeviceGet")?;
    let attr = |a: sys::CUdevice_attribute| -> Result<i32> {
        // SAFETY: `dev` is a valid device handle from cuDeviceGet.
        unsafe { cu::device::get_attribute(dev, a) }.with_context(|| format!("attribute {a:?}"))
    };
    use sys::CUdevice_attribute as A;
    let positive = |v: i32| u64::try_from(v).ok().filter(|v| *v > 0);
    let major = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?;
    let minor = attr(A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?;
    let sms = attr(A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?;
    let sm_clock = attr(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?;
    let mem_clock = attr(A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?;
    let bus = attr(A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?;
    let l2 = attr(A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?;
    let threads_per_sm = attr(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?;
    // SAFETY: valid device handle.
    let total_mem = unsafe { cu::device::total_mem(dev) }.context("cuDeviceTotalMem")? as u64;
    let name = cu::device::get_name(dev).context("cuDeviceGetName")?;
    // The physical GPU, as `nvidia-smi` and `cuDeviceGetPCIBusId` name it (function 0):
    // ordinals change with CUDA_VISIBLE_DEVICES, this does not.
    let pci = |a| attr(a).ok().and_then(|v| u32::try_from(v).ok());
    let pci_bus_id = match (
        pci(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
        pci(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
        pci(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
    ) {
        (Some(domain), Some(bus), Some(device)) => Some(pci_address(domain, bus, device)),
        _ => None,
    };
    let cc = (major >= 0 && minor >= 0).then_some(ComputeCapability {
        major: major as u32,
        minor: minor as u32,
    });
    let lanes = cc.and_then(|c| shared::model::roofline::fp32_lanes_per_sm(c.major, c.minor));
    let sm_count = positive(sms).map(|v| v as u32);
    let peaks = shared::model::roofline::theoretical_peaks(
        sm_count,
        positive(sm_clock),
        positive(mem_clock),
        positive(bus).map(|v| v as u32),
        lanes,
    );
    let info = DeviceInfo {
        index: Some(ordinal),
        name,
        compute_capability: cc,
        sm_count,
        sm_clock_khz: positive(sm_clock),
        mem_clock_khz: positive(mem_clock),
        bus_width_bits: positive(bus).map(|v| v as u32),
        l2_bytes: positive(l2),
        total_mem_bytes: Some(total_mem),
        pci_bus_id,
        peaks,
    };
    let facts = DeviceFacts {
        l2_bytes: positive(l2).unwrap_or(0),
        sm_count: sm_count.unwrap_or(0),
        max_threads_per_sm: positive(threads_per_sm).unwrap_or(0) as u32,
        total_mem_bytes: total_mem,
    };
    Ok((info, facts))
}

/// CUDA driver API version (`13.0`), when the driver answers.
pub fn driver_api_version() -> Option<String> {
    let mut v = 0i32;
    // SAFETY: writes one int; the library was checked to be present by the caller.
    let r = unsafe { sys::cuDriverGetVersion(&mut v) };
    (r == sys::cudaError_enum::CUDA_SUCCESS).then(|| format!("{}.{}", v / 1000, (v % 1000) / 10))
}

/// NVRTC version (`13.0`), when the library answers.
pub fn nvrtc_version() -> Option<String> {
    let (mut major, mut minor) = (0i32, 0i32);
    // SAFETY: writes two ints; the library was checked to be present by the caller.
    let r = unsafe { nvrtc::sys::nvrtcVersion(&mut major, &mut minor) };
    (r == nvrtc::sys::nvrtcResult::NVRTC_SUCCESS).then(|| format!("{major}.{minor}"))
}

/// Functions of each source file that the runner loads (the suite's, plus helpers).
fn functions_of(file: &str) -> Vec<&'static str> {
    let mut names: Vec<&'static str> = SUITE
        .iter()
        .filter(|k| k.file == file)
        .map(|k| k.function)
        .collect();
    match file {
        "fill.cu" => names.extend([
            "fill_hash_f32",
            "fill_hash_f64",
            "fill_bits_u32",
            "fill_gemm",
        ]),
        "ceilings.cu" => names.push("clock_spin"),
        _ => {}
    }
    names
}

/// Compiles every embedded source with NVRTC for `sm_{major}{minor}`, in parallel. A compile
/// error is [`Code::Nvrtc`] with NVRTC's log.
pub fn compile_all(cc: ComputeCapability) -> Result<Vec<(&'static str, Ptx)>> {
    let arch = format!("--gpu-architecture=sm_{}{}", cc.major, cc.minor);
    let results: Vec<(&'static str, std::result::Result<Ptx, CompileError>)> =
        std::thread::scope(|s| {
            let handles: Vec<_> = SOURCES
                .iter()
                .map(|&(file, src)| {
                    let arch = arch.clone();
                    s.spawn(move || {
                        let opts = CompileOptions {
                            name: Some(file.to_string()),
                            options: vec![arch, "--std=c++17".into(), "-lineinfo".into()],
                            ..Default::default()
                        };
                        (file, nvrtc::compile_ptx_with_opts(src, opts))
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        });
    let mut out = Vec::with_capacity(results.len());
    for (file, r) in results {
        match r {
            Ok(ptx) => out.push((file, ptx)),
            Err(CompileError::CompileError { log, options, .. }) => {
                return Err(Fault::new(
                    Code::Nvrtc,
                    format!(
                        "kernels/{file} failed to compile with NVRTC ({}):\n{}",
                        options.join(" "),
                        log.to_string_lossy()
                    ),
                )
                .into())
            }
            Err(e) => {
                return Err(
                    Fault::new(Code::Nvrtc, format!("kernels/{file}: NVRTC failed: {e}")).into(),
                )
            }
        }
    }
    Ok(out)
}

/// A device buffer: `float`, `double`, or raw 8-, 16- or 32-bit words (bf16, fp16, fp8,
/// int8 and int32 elements, which the host handles as bit patterns).
pub enum DevBuf {
    /// `float` elements.
    F32(CudaSlice<f32>),
    /// `double` elements.
    F64(CudaSlice<f64>),
    /// Bytes (fp8, int8).
    U8(CudaSlice<u8>),
    /// 16-bit words (bf16, fp16).
    U16(CudaSlice<u16>),
    /// 32-bit words (int32, tf32 bits).
    U32(CudaSlice<u32>),
}

/// Pushes a [`DevBuf`] as a kernel's pointer argument.
fn push_buf<'a>(b: &mut cudarc::driver::LaunchArgs<'a>, buf: &'a DevBuf) {
    match buf {
        DevBuf::F32(s) => b.arg(s),
        DevBuf::F64(s) => b.arg(s),
        DevBuf::U8(s) => b.arg(s),
        DevBuf::U16(s) => b.arg(s),
        DevBuf::U32(s) => b.arg(s),
    };
}

impl DevBuf {
    /// Bytes per element.
    pub fn width(&self) -> u64 {
        match self {
            DevBuf::U8(_) => 1,
            DevBuf::U16(_) => 2,
            DevBuf::F32(_) | DevBuf::U32(_) => 4,
            DevBuf::F64(_) => 8,
        }
    }

    /// Elements.
    pub fn elems(&self) -> usize {
        match self {
            DevBuf::F32(s) => s.len(),
            DevBuf::F64(s) => s.len(),
            DevBuf::U8(s) => s.len(),
            DevBuf::U16(s) => s.len(),
            DevBuf::U32(s) => s.len(),
        }
    }
}

/// An open device with the suite loaded.
pub struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    functions: HashMap<&'static str, CudaFunction>,
    fill_blocks: u32,
}

fn config(shape: &shared::model::artifact::LaunchShape) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (shape.grid[0], shape.grid[1], shape.grid[2]),
        block_dim: (shape.block[0], shape.block[1], shape.block[2]),
        shared_mem_bytes: shape.shared_mem_bytes,
    }
}

impl Gpu {
    /// Opens device `ordinal` and loads the compiled modules.
    pub fn open(ordinal: u32, sm_count: u32, modules: Vec<(&'static str, Ptx)>) -> Result<Gpu> {
        let ctx = CudaContext::new(ordinal as usize)
            .map_err(|e| no_gpu(&format!("cannot open CUDA device {ordinal}"), e))?;
        let stream = ctx.default_stream();
        let mut functions = HashMap::new();
        for (file, ptx) in modules {
            let module = ctx
                .load_module(ptx)
                .with_context(|| format!("loading the module of kernels/{file}"))?;
            for name in functions_of(file) {
                let f = module
                    .load_function(name)
                    .with_context(|| format!("kernels/{file} has no function {name}"))?;
                functions.insert(name, f);
            }
        }
        Ok(Gpu {
            ctx,
            stream,
            functions,
            fill_blocks: sm_count.max(1) * 16,
        })
    }

    fn function(&self, name: &str) -> Result<&CudaFunction> {
        self.functions
            .get(name)
            .with_context(|| format!("function {name} is not loaded"))
    }

    /// Registers per thread of a loaded function (for the log).
    pub fn registers(&self, name: &str) -> Option<i32> {
        self.functions.get(name).and_then(|f| f.num_regs().ok())
    }

    /// Spilled (local-memory) bytes per thread of a loaded function.
    pub fn local_bytes(&self, name: &str) -> Option<i32> {
        self.functions
            .get(name)
            .and_then(|f| f.local_size_bytes().ok())
    }

    fn launch_fill(
        &self,
        name: &str,
        ptr_arg: &DevBuf,
        words: u64,
        value: FillValue,
    ) -> Result<()> {
        let f = self.function(name)?;
        let mut b = self.stream.launch_builder(f);
        push_buf(&mut b, ptr_arg);
        b.arg(&words);
        match &value {
            FillValue::Seed(s) => b.arg(s),
            FillValue::Bits(v) => b.arg(v),
            FillValue::Gemm(seed, format) => b.arg(seed).arg(format),
        };
        let blocks = words.div_ceil(256).clamp(1, u64::from(self.fill_blocks)) as u32;
        // SAFETY: the fill kernels take (pointer, element count, seed or bits) and write
        // `words` elements of the buffer, which holds at least that many.
        unsafe { b.launch(linear(blocks)) }.with_context(|| format!("launching {name}"))?;
        Ok(())
    }

    /// Allocates a buffer and fills it on the device (inputs by hash, outputs with poison).
    pub fn alloc(&self, spec: &BufferSpec) -> Result<DevBuf> {
        let len = usize::try_from(spec.len).context("buffer too large for this host")?;
        // SAFETY: the memory is uninitialized until the fill kernel below writes all of it.
        let buf = match spec.elem {
            Elem::F32 => {
                DevBuf::F32(unsafe { self.stream.alloc::<f32>(len) }.with_context(|| {
                    format!("allocating {} ({} MiB)", spec.name, (spec.len * 4) >> 20)
                })?)
            }
            Elem::F64 => {
                DevBuf::F64(unsafe { self.stream.alloc::<f64>(len) }.with_context(|| {
                    format!("allocating {} ({} MiB)", spec.name, (spec.len * 8) >> 20)
                })?)
            }
            // Rounded up to whole 32-bit words, which the poison fill writes.
            Elem::Bf16 => DevBuf::U16(
                unsafe { self.stream.alloc::<u16>(len.div_ceil(2) * 2) }.with_context(|| {
                    format!("allocating {} ({} MiB)", spec.name, (spec.len * 2) >> 20)
                })?,
            ),
        };
        self.fill(&buf, spec)?;
        Ok(buf)
    }

    /// Allocates `len` elements of `width` bytes (1, 2, 4 or 8), uninitialized: the caller
    /// fills all of it ([`Gpu::fill_gemm`], [`Gpu::poison`]) before any read.
    pub fn alloc_raw(&self, width: u64, len: u64, what: &str) -> Result<DevBuf> {
        let n = usize::try_from(len).context("buffer too large for this host")?;
        let ctx = || format!("allocating {what} ({} MiB)", (len * width) >> 20);
        // SAFETY: uninitialized until filled, as documented above; rounded up to whole
        // 32-bit words, which the poison fill writes.
        Ok(match width {
            1 => {
                DevBuf::U8(unsafe { self.stream.alloc::<u8>(n.div_ceil(4) * 4) }.with_context(ctx)?)
            }
            2 => DevBuf::U16(
                unsafe { self.stream.alloc::<u16>(n.div_ceil(2) * 2) }.with_context(ctx)?,
            ),
            4 => DevBuf::U32(unsafe { self.stream.alloc::<u32>(n) }.with_context(ctx)?),
            8 => DevBuf::F64(unsafe { self.stream.alloc::<f64>(n) }.with_context(ctx)?),
            w => anyhow::bail!("{what}: no buffer of {w}-byte elements"),
        })
    }

    /// Fills the first `len` elements of `buf` with the inputs of `fill_gemm` format `format`
    /// (`kernels/fill.cu`), element i a function of i and `seed`.
    pub fn fill_gemm(&self, buf: &DevBuf, len: u64, seed: u64, format: i32) -> Result<()> {
        self.launch_fill("fill_gemm", buf, len, FillValue::Gemm(seed, format))
    }

    /// Fills all of `buf` with the 32-bit pattern `bits`.
    pub fn poison(&self, buf: &DevBuf, bits: u32) -> Result<()> {
        let words = (buf.elems() as u64 * buf.width()) / 4;
        self.launch_fill("fill_bits_u32", buf, words, FillValue::Bits(bits))
    }

    /// Downloads all of `buf` as it lies in memory.
    pub fn download_bits(&self, buf: &DevBuf) -> Result<HostBits> {
        let s = &self.stream;
        Ok(match buf {
            DevBuf::U8(b) => HostBits::U8(s.clone_dtoh(b).context("download")?),
            DevBuf::U16(b) => HostBits::U16(s.clone_dtoh(b).context("download")?),
            DevBuf::U32(b) => HostBits::U32(s.clone_dtoh(b).context("download")?),
            DevBuf::F32(b) => HostBits::U32(
                s.clone_dtoh(b)
                    .context("download")?
                    .into_iter()
                    .map(f32::to_bits)
                    .collect(),
            ),
            DevBuf::F64(b) => HostBits::U64(
                s.clone_dtoh(b)
                    .context("download")?
                    .into_iter()
                    .map(f64::to_bits)
                    .collect(),
            ),
        })
    }

    /// The CUDA stream every launch and cuBLASLt call of this run goes to.
    pub fn stream(&self) -> &Arc<CudaStream> {
        &self.stream
    }

    /// The CUDA context of the device.
    pub fn context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }

    /// (Re)initializes `buf` as `spec` says.
    pub fn fill(&self, buf: &DevBuf, spec: &BufferSpec) -> Result<()> {
        let words = match spec.elem {
            Elem::F32 => spec.len,
            Elem::F64 => 2 * spec.len,
            Elem::Bf16 => spec.len.div_ceil(2),
        };
        match (spec.fill, spec.elem) {
            (Fill::Hash(seed), Elem::Bf16) => self.fill_gemm(buf, spec.len, seed, BF16_FORMAT),
            (Fill::Hash(seed), Elem::F32) => {
                self.launch_fill("fill_hash_f32", buf, spec.len, FillValue::Seed(seed))
            }
            (Fill::Hash(seed), Elem::F64) => {
                self.launch_fill("fill_hash_f64", buf, spec.len, FillValue::Seed(seed))
            }
            (Fill::Poison, _) => {
                self.launch_fill("fill_bits_u32", buf, words, FillValue::Bits(POISON_BITS))
            }
        }
    }

    /// Allocates and fills every buffer of a plan.
    pub fn buffers(&self, plan: &Plan) -> Result<Vec<DevBuf>> {
        plan.buffers.iter().map(|b| self.alloc(b)).collect()
    }

    /// Launches `function` once with the plan's shape and arguments (asynchronous).
    pub fn launch(&self, function: &str, plan: &Plan, bufs: &[DevBuf]) -> Result<()> {
        let f = self.function(function)?;
        let mut b = self.stream.launch_builder(f);
        for arg in &plan.args {
            match arg {
                Arg::Buf(i) => match bufs.get(*i) {
                    Some(buf) => {
                        push_buf(&mut b, buf);
                        &mut b
                    }
                    None => {
                        anyhow::bail!("{function}: plan names buffer {i}, which does not exist")
                    }
                },
                Arg::U64(v) => b.arg(v),
                Arg::U32(v) => b.arg(v),
                Arg::I32(v) => b.arg(v),
                Arg::F32(v) => b.arg(v),
                Arg::F64(v) => b.arg(v),
            };
        }
        // SAFETY: the plan's arguments follow the kernel's signature in kernels/*.cu, and
        // every buffer holds the elements the launch shape makes the kernel touch (see the
        // plan's buffer lengths); suite tests check shapes against lengths.
        unsafe { b.launch(config(&plan.launch)) }
            .with_context(|| format!("launching {function}"))?;
        Ok(())
    }

    /// Launches the clock kernel: `blocks` x 256 threads spin for `cycles` doing FMAs.
    pub fn launch_clock(
        &self,
        out: &DevBuf,
        blocks: u32,
        cycles: i64,
        m: f32,
        c: f32,
    ) -> Result<()> {
        let f = self.function("clock_spin")?;
        let mut b = self.stream.launch_builder(f);
        push_buf(&mut b, out);
        b.arg(&cycles).arg(&m).arg(&c);
        // SAFETY: clock_spin(float* out, long long, float, float) writes one float per
        // thread; `out` holds blocks x 256 floats (the caller allocates it so).
        unsafe { b.launch(linear(blocks)) }.context("launching clock_spin")?;
        Ok(())
    }

    /// Driver device-to-device copy of all of `src` into `dst` (same length).
    pub fn memcpy(&self, src: &DevBuf, dst: &mut DevBuf) -> Result<()> {
        match (src, dst) {
            (DevBuf::F32(s), DevBuf::F32(d)) => self.stream.memcpy_dtod(s, d),
            (DevBuf::F64(s), DevBuf::F64(d)) => self.stream.memcpy_dtod(s, d),
            _ => anyhow::bail!("memcpy between buffers of different types"),
        }
        .context("cuMemcpyDtoDAsync")
    }

    /// Waits for all queued work; a kernel fault surfaces here.
    pub fn sync(&self) -> Result<()> {
        self.stream
            .synchronize()
            .context("waiting for the GPU (a kernel may have faulted)")
    }

    /// Downloads every output (poisoned) buffer of a plan.
    pub fn outputs(&self, plan: &Plan, bufs: &[DevBuf]) -> Result<Outputs> {
        let mut out = Outputs::with_len(plan.buffers.len());
        for (i, (spec, buf)) in plan.buffers.iter().zip(bufs).enumerate() {
            if spec.fill != Fill::Poison {
                continue;
            }
            let data = match buf {
                DevBuf::F32(s) => HostData::F32(self.stream.clone_dtoh(s).context("download")?),
                DevBuf::F64(s) => HostData::F64(self.stream.clone_dtoh(s).context("download")?),
                _ => anyhow::bail!(
                    "output {} is not float or double; the suite's checks download only those",
                    spec.name
                ),
            };
            out.set(i, data);
        }
        Ok(out)
    }

    /// Runs `warmups` untimed calls of `launch`, then `reps` calls each between two CUDA
    /// events; returns the event times.
    pub fn time(
        &self,
        warmups: u32,
        reps: u32,
        mut launch: impl FnMut() -> Result<()>,
    ) -> Result<Timing> {
        for _ in 0..warmups {
            launch()?;
        }
        let timed = || {
            self.ctx
                .new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
        };
        let mut pairs = Vec::with_capacity(reps as usize);
        for _ in 0..reps {
            let (start, end) = (timed()?, timed()?);
            start.record(&self.stream)?;
            launch()?;
            end.record(&self.stream)?;
            pairs.push((start, end));
        }
        self.sync()?;
        let samples: Vec<f64> = pairs
            .iter()
            .map(|(s, e)| s.elapsed_ms(e).map(f64::from))
            .collect::<std::result::Result<_, _>>()
            .context("reading event times")?;
        super::stats::timing(warmups, samples).context("no timed repetitions")
    }
}

enum FillValue {
    Seed(u64),
    Bits(u32),
    /// Seed and `fill_gemm` format.
    Gemm(u64, i32),
}

/// The `fill_gemm` format of bf16 inputs (`kernels/fill.cu`).
const BF16_FORMAT: i32 = super::tensor::Format::Bf16.fill_code();

/// A one-dimensional launch of `blocks` blocks of 256 threads.
fn linear(blocks: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pci_addresses_are_written_as_cuda_writes_them() {
        assert_eq!(pci_address(0, 0x1b, 0), "0000:1b:00.0");
        assert_eq!(pci_address(1, 0xdb, 0x1f), "0001:db:1f.0");
    }

    /// Compiles every source for sm_90 where NVRTC is installed (CI usually has none, and
    /// then this test only says so): catches a kernel that does not build before a GPU run.
    #[test]
    fn every_source_compiles_with_nvrtc_where_present() {
        // SAFETY: only probes whether the library can be opened.
        if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
            crate::out::eprint_line("NVRTC not present; compile test skipped");
            return;
        }
        let modules = compile_all(ComputeCapability { major: 9, minor: 0 })
            .unwrap_or_else(|e| panic!("{e:#}"));
        assert_eq!(modules.len(), SOURCES.len());
        for (file, ptx) in &modules {
            let text = ptx.to_src();
            if *file == "tensor.cu" {
                // The suite's tensor kernel really issues tensor-core MMAs: 16 per slice.
                let mmas = text
                    .matches("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32")
                    .count();
                assert_eq!(mmas, 16, "{file}");
            }
            for f in functions_of(file) {
                assert!(
                    text.contains(&format!(".entry {f}(")),
                    "{file} lacks .entry {f}"
                );
            }
        }
    }
}
