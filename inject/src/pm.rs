//! PM sampling (`capture trace --counters`): the GPU samples a set of performance-monitor
//! counters at a fixed interval of GPU time while the program runs, with no replay and no
//! serialization (CUPTI's `cupti_pmsampling.h`, CUDA 12.6 and later; the metrics are
//! scheduled and evaluated by the profiler host API, `cupti_profiler_host.h`).
//!
//! When the first CUDA context of a device is created, [`on_context`] finds which of the
//! metrics asked for (`ROOFLINE_PM_METRICS`, comma-separated) the chip samples in one pass
//! (each alone, then greedily together: PM sampling takes only a one-pass configuration), and
//! starts sampling at `ROOFLINE_PM_INTERVAL_NS`. A thread decodes the hardware buffer every
//! `ROOFLINE_PM_DECODE_MS` and writes each completed interval as a
//! [`Record::PmSample`]; at exit the rest is decoded and sampling stopped. Everything refused
//! (a metric, the chip, the privileges) becomes a warning record naming CUPTI's message; the
//! trace goes on without counters.
//!
//! The structs below are the parameter structs of CUDA 12.6's headers, passed with their
//! own sizes (CUPTI reads only the fields a struct of that size holds), so one build serves
//! later CUPTI versions too.

use std::ffi::{c_char, c_void, CStr, CString, OsStr};
use std::mem::{offset_of, size_of};
use std::os::unix::ffi::OsStrExt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use shared::read::trace::wire::{PmMetricsRec, PmSampleRec, Record};

/// A CUPTI call taking one parameter struct.
type Call = unsafe extern "C" fn(*mut c_void) -> u32;
/// `CUpti_CallbackFunc`.
pub type Callback = unsafe extern "C" fn(*mut c_void, u32, u32, *const c_void);

const SUCCESS: u32 = 0;
/// `CUPTI_CB_DOMAIN_RESOURCE`.
pub const DOMAIN_RESOURCE: u32 = 3;
/// `CUPTI_CBID_RESOURCE_CONTEXT_CREATED`.
pub const CONTEXT_CREATED: u32 = 1;
/// `CUPTI_PROFILER_TYPE_PM_SAMPLING`.
const PROFILER_PM_SAMPLING: u32 = 1;
/// `CUPTI_PM_SAMPLING_TRIGGER_MODE_GPU_TIME_INTERVAL`.
const TRIGGER_GPU_TIME: u32 = 1;
/// `CUPTI_PM_SAMPLING_DECODE_STOP_REASON_COUNTER_DATA_FULL`.
const STOP_COUNTER_DATA_FULL: u32 = 1;

#[repr(C)]
struct Plain {
    size: usize,
    private: *mut c_void,
}

#[repr(C)]
struct ChipName {
    size: usize,
    private: *mut c_void,
    device: usize,
    chip: *const c_char,
}

#[repr(C)]
struct Availability {
    size: usize,
    private: *mut c_void,
    device: usize,
    image_size: usize,
    image: *mut u8,
}

#[repr(C)]
struct HostInit {
    size: usize,
    private: *mut c_void,
    profiler_type: u32,
    chip: *const c_char,
    availability: *const u8,
    host: *mut c_void,
}

#[repr(C)]
struct HostObject {
    size: usize,
    private: *mut c_void,
    host: *mut c_void,
}

#[repr(C)]
struct AddMetrics {
    size: usize,
    private: *mut c_void,
    host: *mut c_void,
    names: *const *const c_char,
    count: usize,
}

#[repr(C)]
struct ConfigSize {
    size: usize,
    private: *mut c_void,
    host: *mut c_void,
    image_size: usize,
}

#[repr(C)]
struct ConfigImage {
    size: usize,
    private: *mut c_void,
    host: *mut c_void,
    image_size: usize,
    image: *mut u8,
}

#[repr(C)]
struct Passes {
    size: usize,
    private: *mut c_void,
    image_size: usize,
    image: *mut u8,
    passes: usize,
}

#[repr(C)]
struct Evaluate {
    size: usize,
    private: *mut c_void,
    host: *mut c_void,
    image: *const u8,
    image_size: usize,
    range: usize,
    names: *const *const c_char,
    count: usize,
    values: *mut f64,
}

#[repr(C)]
struct Enable {
    size: usize,
    private: *mut c_void,
    device: usize,
    object: *mut c_void,
}

#[repr(C)]
struct Object {
    size: usize,
    private: *mut c_void,
    object: *mut c_void,
}

#[repr(C)]
struct SetConfig {
    size: usize,
    private: *mut c_void,
    object: *mut c_void,
    config_size: usize,
    config: *const u8,
    hardware_buffer: usize,
    interval: u64,
    trigger: u32,
}

#[repr(C)]
struct Decode {
    size: usize,
    private: *mut c_void,
    object: *mut c_void,
    image: *mut u8,
    image_size: usize,
    stop_reason: u32,
    overflow: u8,
}

#[repr(C)]
struct DataSize {
    size: usize,
    private: *mut c_void,
    object: *mut c_void,
    names: *const *const c_char,
    count: usize,
    max_samples: u32,
    data_size: usize,
}

#[repr(C)]
struct DataInit {
    size: usize,
    private: *mut c_void,
    object: *mut c_void,
    data_size: usize,
    data: *mut u8,
}

#[repr(C)]
struct DataInfo {
    size: usize,
    private: *mut c_void,
    image: *const u8,
    image_size: usize,
    total: usize,
    populated: usize,
    completed: usize,
}

#[repr(C)]
struct SampleInfo {
    size: usize,
    private: *mut c_void,
    object: *mut c_void,
    image: *const u8,
    image_size: usize,
    index: usize,
    start: u64,
    end: u64,
}

/// A zeroed parameter struct with its size set to `size` (CUPTI's `STRUCT_SIZE`: up to the
/// end of its last field).
fn params<T>(size: usize) -> T {
    // SAFETY: every struct above is plain data for which all-zero bytes are valid (null
    // pointers, zero sizes).
    let mut p: T = unsafe { std::mem::zeroed() };
    // SAFETY: every struct above begins with its `size: usize` field.
    unsafe { *(std::ptr::addr_of_mut!(p).cast::<usize>()) = size };
    p
}

/// The size of `T` up to the end of its last field, `end` (offset plus the field's size).
macro_rules! size_to {
    ($t:ty, $field:ident, $ft:ty) => {
        offset_of!($t, $field) + size_of::<$ft>()
    };
}

/// Whether `ROOFLINE_PM_DEBUG` is set.
fn debug() -> bool {
    static DEBUG: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *DEBUG.get_or_init(|| std::env::var_os("ROOFLINE_PM_DEBUG").is_some())
}

/// The PM sampling and profiler host functions, loaded from CUPTI.
pub struct Pm {
    profiler_initialize: Call,
    disable: Call,
    chip_name: Call,
    availability: Call,
    host_initialize: Call,
    host_deinitialize: Call,
    add_metrics: Call,
    config_size: Call,
    config_image: Call,
    passes: Call,
    evaluate: Call,
    enable: Call,
    set_config: Call,
    start: Call,
    stop: Call,
    decode: Call,
    data_size: Call,
    data_init: Call,
    data_info: Call,
    sample_info: Call,
    subscribe: Subscribe,
    enable_callback: EnableCallback,
    device_id: DeviceId,
    result_string: ResultString,
}

type Subscribe = unsafe extern "C" fn(*mut *mut c_void, Callback, *mut c_void) -> u32;
type EnableCallback = unsafe extern "C" fn(u32, *mut c_void, u32, u32) -> u32;
type DeviceId = unsafe extern "C" fn(*mut c_void, *mut u32) -> u32;
type ResultString = unsafe extern "C" fn(u32, *mut *const c_char) -> u32;

impl Pm {
    /// Loads the functions from CUPTI at `path` (already opened by the trace: this takes
    /// another reference); an error names the first one missing (a CUPTI before 12.6).
    pub fn load(path: Option<&OsStr>) -> Result<Pm, String> {
        let name = path.unwrap_or(OsStr::new("libcupti.so"));
        let cname = CString::new(name.as_bytes()).map_err(|_| "a CUPTI path with a NUL byte")?;
        // SAFETY: a NUL-terminated path.
        let handle = unsafe { libc::dlopen(cname.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        if handle.is_null() {
            return Err(format!("cannot load CUPTI ({})", name.to_string_lossy()));
        }
        let get = |f: &str| -> Result<*mut c_void, String> {
            let c = CString::new(f).map_err(|_| "a NUL byte")?;
            // SAFETY: a valid handle and NUL-terminated name.
            let p = unsafe { libc::dlsym(handle, c.as_ptr()) };
            if p.is_null() {
                Err(format!(
                    "this CUPTI ({}) has no {f}: PM sampling needs CUDA 12.6 or later",
                    name.to_string_lossy()
                ))
            } else {
                Ok(p)
            }
        };
        // SAFETY: each pointer is the named CUPTI function, whose C signature is the type
        // it is turned into (function pointers are pointer-sized).
        unsafe {
            let call = |f: &str| get(f).map(|p| std::mem::transmute::<*mut c_void, Call>(p));
            Ok(Pm {
                profiler_initialize: call("cuptiProfilerInitialize")?,
                disable: call("cuptiPmSamplingDisable")?,
                chip_name: call("cuptiDeviceGetChipName")?,
                availability: call("cuptiPmSamplingGetCounterAvailability")?,
                host_initialize: call("cuptiProfilerHostInitialize")?,
                host_deinitialize: call("cuptiProfilerHostDeinitialize")?,
                add_metrics: call("cuptiProfilerHostConfigAddMetrics")?,
                config_size: call("cuptiProfilerHostGetConfigImageSize")?,
                config_image: call("cuptiProfilerHostGetConfigImage")?,
                passes: call("cuptiProfilerHostGetNumOfPasses")?,
                evaluate: call("cuptiProfilerHostEvaluateToGpuValues")?,
                enable: call("cuptiPmSamplingEnable")?,
                set_config: call("cuptiPmSamplingSetConfig")?,
                start: call("cuptiPmSamplingStart")?,
                stop: call("cuptiPmSamplingStop")?,
                decode: call("cuptiPmSamplingDecodeData")?,
                data_size: call("cuptiPmSamplingGetCounterDataSize")?,
                data_init: call("cuptiPmSamplingCounterDataImageInitialize")?,
                data_info: call("cuptiPmSamplingGetCounterDataInfo")?,
                sample_info: call("cuptiPmSamplingCounterDataGetSampleInfo")?,
                subscribe: std::mem::transmute::<*mut c_void, Subscribe>(get("cuptiSubscribe")?),
                enable_callback: std::mem::transmute::<*mut c_void, EnableCallback>(get(
                    "cuptiEnableCallback",
                )?),
                device_id: std::mem::transmute::<*mut c_void, DeviceId>(get("cuptiGetDeviceId")?),
                result_string: std::mem::transmute::<*mut c_void, ResultString>(get(
                    "cuptiGetResultString",
                )?),
            })
        }
    }

    fn message(&self, result: u32) -> String {
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: an out-pointer CUPTI fills with a static string.
        let ok = unsafe { (self.result_string)(result, &mut text) } == SUCCESS;
        if ok && !text.is_null() {
            // SAFETY: CUPTI's static NUL-terminated string.
            unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned()
        } else {
            format!("CUPTI error {result}")
        }
    }

    /// Calls `f` with `p`; an error names the call and CUPTI's message. With
    /// `ROOFLINE_PM_DEBUG` set, each call is named on standard error before it is made.
    fn call<T>(&self, f: Call, what: &str, p: &mut T) -> Result<(), String> {
        if debug() {
            eprintln!("roofline-inject: {what}");
        }
        // SAFETY: `f` takes a pointer to a parameter struct of type T, set up by `params`.
        let r = unsafe { f(std::ptr::addr_of_mut!(*p).cast()) };
        if r == SUCCESS {
            Ok(())
        } else {
            Err(format!("{what}: {}", self.message(r)))
        }
    }

    /// Subscribes `callback` to context creation.
    pub fn subscribe_contexts(&self, callback: Callback) -> Result<(), String> {
        let mut subscriber: *mut c_void = std::ptr::null_mut();
        // SAFETY: an out-pointer and an extern "C" callback of CUPTI's type.
        let r = unsafe { (self.subscribe)(&mut subscriber, callback, std::ptr::null_mut()) };
        if r != SUCCESS {
            return Err(format!("cuptiSubscribe: {}", self.message(r)));
        }
        // SAFETY: the subscriber just made.
        let r = unsafe { (self.enable_callback)(1, subscriber, DOMAIN_RESOURCE, CONTEXT_CREATED) };
        if r != SUCCESS {
            return Err(format!("cuptiEnableCallback: {}", self.message(r)));
        }
        Ok(())
    }

    /// The device ordinal of a context.
    pub fn device_of(&self, context: *mut c_void) -> Result<u32, String> {
        let mut d = 0u32;
        // SAFETY: a context CUPTI handed to the callback, and an out-pointer.
        let r = unsafe { (self.device_id)(context, &mut d) };
        if r == SUCCESS {
            Ok(d)
        } else {
            Err(format!("cuptiGetDeviceId: {}", self.message(r)))
        }
    }

    fn host(&self, chip: &CStr, availability: &[u8]) -> Result<Host<'_>, String> {
        let mut p: HostInit = params(size_to!(HostInit, host, *mut c_void));
        p.profiler_type = PROFILER_PM_SAMPLING;
        p.chip = chip.as_ptr();
        p.availability = availability.as_ptr();
        self.call(self.host_initialize, "cuptiProfilerHostInitialize", &mut p)?;
        Ok(Host {
            pm: self,
            object: p.host,
        })
    }
}

/// A profiler host object, deinitialized when dropped.
struct Host<'a> {
    pm: &'a Pm,
    object: *mut c_void,
}

impl Drop for Host<'_> {
    fn drop(&mut self) {
        let mut p: HostObject = params(size_to!(HostObject, host, *mut c_void));
        p.host = self.object;
        let _ = self.pm.call(
            self.pm.host_deinitialize,
            "cuptiProfilerHostDeinitialize",
            &mut p,
        );
    }
}

impl Host<'_> {
    fn add(&self, names: &[*const c_char]) -> Result<(), String> {
        let mut p: AddMetrics = params(size_to!(AddMetrics, count, usize));
        p.host = self.object;
        p.names = names.as_ptr();
        p.count = names.len();
        self.pm.call(
            self.pm.add_metrics,
            "cuptiProfilerHostConfigAddMetrics",
            &mut p,
        )
    }

    /// The config image of the metrics added, and its pass count.
    fn config(&self) -> Result<(Vec<u8>, usize), String> {
        let mut s: ConfigSize = params(size_to!(ConfigSize, image_size, usize));
        s.host = self.object;
        self.pm.call(
            self.pm.config_size,
            "cuptiProfilerHostGetConfigImageSize",
            &mut s,
        )?;
        let mut image = vec![0u8; s.image_size];
        let mut c: ConfigImage = params(size_to!(ConfigImage, image, *mut u8));
        c.host = self.object;
        c.image_size = image.len();
        c.image = image.as_mut_ptr();
        self.pm.call(
            self.pm.config_image,
            "cuptiProfilerHostGetConfigImage",
            &mut c,
        )?;
        let mut n: Passes = params(size_to!(Passes, passes, usize));
        n.image_size = image.len();
        n.image = image.as_mut_ptr();
        self.pm
            .call(self.pm.passes, "cuptiProfilerHostGetNumOfPasses", &mut n)?;
        Ok((image, n.passes))
    }
}

/// How sampling is asked for, from the environment.
pub struct Request {
    /// Metric names, in the order asked.
    pub metrics: Vec<String>,
    /// Interval, ns.
    pub interval_ns: u64,
    /// The hardware buffer, bytes.
    pub buffer_bytes: usize,
    /// How often the buffer is decoded.
    pub decode_every: Duration,
    /// The most samples one decode holds.
    pub max_samples: u32,
}

impl Request {
    /// `ROOFLINE_PM_METRICS` (required), `ROOFLINE_PM_INTERVAL_NS` (1,000,000),
    /// `ROOFLINE_PM_BUFFER_MB` (512), `ROOFLINE_PM_DECODE_MS` (10), `ROOFLINE_PM_MAX_SAMPLES` (512,
    /// the intervals one counter data image holds: evaluating an interval costs in proportion
    /// to the image's size).
    pub fn from_env() -> Option<Request> {
        let metrics: Vec<String> = std::env::var("ROOFLINE_PM_METRICS")
            .ok()?
            .split(',')
            .map(|m| m.trim().to_owned())
            .filter(|m| !m.is_empty())
            .collect();
        if metrics.is_empty() {
            return None;
        }
        let num = |k: &str, d: u64| {
            std::env::var(k)
                .ok()
                .and_then(|v| v.parse::<u64>().ok())
                .unwrap_or(d)
        };
        Some(Request {
            metrics,
            interval_ns: num("ROOFLINE_PM_INTERVAL_NS", 1_000_000).max(1),
            buffer_bytes: usize::try_from(num("ROOFLINE_PM_BUFFER_MB", 512) << 20)
                .unwrap_or(512 << 20),
            decode_every: Duration::from_millis(num("ROOFLINE_PM_DECODE_MS", 10).max(1)),
            max_samples: u32::try_from(num("ROOFLINE_PM_MAX_SAMPLES", 512)).unwrap_or(512),
        })
    }
}

/// What a sampling device holds: the CUPTI objects and the images.
pub struct Sampler {
    pm: Arc<Pm>,
    device: u32,
    object: *mut c_void,
    host_object: *mut c_void,
    names: Vec<CString>,
    image: Vec<u8>,
    stopped: bool,
    /// Intervals decoded so far, and seconds spent decoding them.
    decoded: u64,
    decode_s: f64,
    /// Decode errors so far (sampling stops after [`MAX_DECODE_ERRORS`]).
    errors: u32,
    /// Whether a drain stopped with intervals still to decode.
    behind: bool,
    /// What CUPTI was handed by pointer and may read for as long as sampling lasts: the
    /// config image (`cuptiPmSamplingSetConfig`), the counter availability image and the chip
    /// name (`cuptiProfilerHostInitialize`).
    _kept: (Vec<u8>, Vec<u8>, CString),
}

// SAFETY: the CUPTI objects are used under the sampler's mutex only.
unsafe impl Send for Sampler {}

/// Where decoded samples and messages go (the trace file).
pub trait Sink: Send + Sync {
    /// Writes a record (and the strings it names, by `string`).
    fn record(&self, record: Record);
    /// The id of a string, written first when new.
    fn string(&self, text: &str) -> u32;
}

/// The metrics of `request` the chip samples together in one pass (each alone, then added in
/// the order asked while the configuration stays one pass), and their config image; each
/// refused metric is a warning.
fn choose(
    pm: &Pm,
    chip_name: &CStr,
    availability: &[u8],
    request: &Request,
    warnings: &mut Vec<String>,
) -> Result<(Vec<CString>, Vec<u8>), String> {
    // Each metric alone, then together while the configuration stays one pass.
    let mut chosen: Vec<CString> = Vec::new();
    let mut config = Vec::new();
    for m in &request.metrics {
        let Ok(c) = CString::new(m.as_str()) else {
            continue;
        };
        let host = pm.host(chip_name, availability)?;
        if let Err(e) = host.add(&[c.as_ptr()]) {
            warnings.push(format!(
                "PM sampling on {}: {m} refused: {e}",
                chip_name.to_string_lossy()
            ));
            continue;
        }
        drop(host);
        let host = pm.host(chip_name, availability)?;
        let mut trial: Vec<*const c_char> = chosen.iter().map(|c| c.as_ptr()).collect();
        trial.push(c.as_ptr());
        let outcome = host.add(&trial).and_then(|()| host.config());
        match outcome {
            Ok((image, 1)) => {
                chosen.push(c);
                config = image;
            }
            Ok((_, n)) => warnings.push(format!(
                "PM sampling on {}: {m} left out: with the metrics before it the \
                 configuration needs {n} passes, and PM sampling takes one",
                chip_name.to_string_lossy()
            )),
            Err(e) => warnings.push(format!(
                "PM sampling on {}: {m} left out: {e}",
                chip_name.to_string_lossy()
            )),
        }
    }
    if chosen.is_empty() {
        return Err(format!(
            "PM sampling on {}: none of the {} metrics asked for can be sampled",
            chip_name.to_string_lossy(),
            request.metrics.len()
        ));
    }
    Ok((chosen, config))
}

/// Sets sampling up on `device`: metrics chosen for one pass, the config set, sampling
/// started. Returns the sampler and the warnings to record (metrics refused, with CUPTI's
/// reason). An error: nothing is sampled on this device.
pub fn start(
    pm: &Arc<Pm>,
    device: u32,
    request: &Request,
    sink: &dyn Sink,
) -> Result<(Sampler, Vec<String>), String> {
    let mut warnings = Vec::new();
    let mut init: Plain = params(size_to!(Plain, private, *mut c_void));
    pm.call(pm.profiler_initialize, "cuptiProfilerInitialize", &mut init)?;
    let mut chip: ChipName = params(size_to!(ChipName, chip, *const c_char));
    chip.device = device as usize;
    pm.call(pm.chip_name, "cuptiDeviceGetChipName", &mut chip)?;
    if chip.chip.is_null() {
        return Err("cuptiDeviceGetChipName gave no name".into());
    }
    // SAFETY: CUPTI's NUL-terminated chip name, valid for the process.
    let chip_name = unsafe { CStr::from_ptr(chip.chip) }.to_owned();
    let mut a: Availability = params(size_to!(Availability, image, *mut u8));
    a.device = device as usize;
    pm.call(
        pm.availability,
        "cuptiPmSamplingGetCounterAvailability",
        &mut a,
    )?;
    let mut availability = vec![0u8; a.image_size];
    a.image = availability.as_mut_ptr();
    pm.call(
        pm.availability,
        "cuptiPmSamplingGetCounterAvailability",
        &mut a,
    )?;
    let (chosen, config) = choose(pm, &chip_name, &availability, request, &mut warnings)?;
    // The host object that evaluates samples: the chosen metrics.
    let host = pm.host(&chip_name, &availability)?;
    let pointers: Vec<*const c_char> = chosen.iter().map(|c| c.as_ptr()).collect();
    host.add(&pointers)?;
    let host_object = host.object;
    std::mem::forget(host);
    let mut e: Enable = params(size_to!(Enable, object, *mut c_void));
    e.device = device as usize;
    pm.call(pm.enable, "cuptiPmSamplingEnable", &mut e)?;
    let object = e.object;
    let mut s: SetConfig = params(size_to!(SetConfig, trigger, u32));
    s.object = object;
    s.config_size = config.len();
    s.config = config.as_ptr();
    s.hardware_buffer = request.buffer_bytes;
    s.interval = request.interval_ns;
    s.trigger = TRIGGER_GPU_TIME;
    pm.call(pm.set_config, "cuptiPmSamplingSetConfig", &mut s)?;
    let mut d: DataSize = params(size_to!(DataSize, data_size, usize));
    d.object = object;
    d.names = pointers.as_ptr();
    d.count = pointers.len();
    d.max_samples = request.max_samples;
    pm.call(pm.data_size, "cuptiPmSamplingGetCounterDataSize", &mut d)?;
    let image = vec![0u8; d.data_size];
    let mut sampler = Sampler {
        pm: Arc::clone(pm),
        device,
        object,
        host_object,
        names: chosen,
        image,
        stopped: false,
        decoded: 0,
        decode_s: 0.0,
        errors: 0,
        behind: false,
        _kept: (config, availability, chip_name),
    };
    sampler.reset()?;
    let mut st: Object = params(size_to!(Object, object, *mut c_void));
    st.object = object;
    pm.call(pm.start, "cuptiPmSamplingStart", &mut st)?;
    let names = sampler
        .names
        .iter()
        .map(|n| sink.string(&n.to_string_lossy()))
        .collect();
    sink.record(Record::PmMetrics(PmMetricsRec {
        device,
        interval_ns: request.interval_ns,
        names,
    }));
    Ok((sampler, warnings))
}

impl Sampler {
    fn reset(&mut self) -> Result<(), String> {
        let mut i: DataInit = params(size_to!(DataInit, data, *mut u8));
        i.object = self.object;
        i.data_size = self.image.len();
        i.data = self.image.as_mut_ptr();
        self.pm.call(
            self.pm.data_init,
            "cuptiPmSamplingCounterDataImageInitialize",
            &mut i,
        )
    }

    /// Decodes what the hardware buffer holds, writes every completed interval, and empties
    /// the image for the next; repeats while the image filled up, at most `max_images` times
    /// (evaluating an interval costs about 0.4 ms on an H100 host: a decode that cannot keep up
    /// returns, and the hardware buffer's overflow says what was lost). Returns the samples
    /// written.
    pub fn drain(&mut self, sink: &dyn Sink, max_images: usize) -> Result<usize, String> {
        let started = std::time::Instant::now();
        let out = self.drain_all(sink, max_images);
        self.decode_s += started.elapsed().as_secs_f64();
        if let Ok(n) = out {
            self.decoded += n as u64;
        }
        out
    }

    fn drain_all(&mut self, sink: &dyn Sink, max_images: usize) -> Result<usize, String> {
        let mut written = 0;
        for _ in 0..max_images.max(1) {
            let mut d: Decode = params(size_to!(Decode, overflow, u8));
            d.object = self.object;
            d.image = self.image.as_mut_ptr();
            d.image_size = self.image.len();
            self.pm
                .call(self.pm.decode, "cuptiPmSamplingDecodeData", &mut d)?;
            if d.overflow != 0 {
                sink.record(Record::Warning(format!(
                    "PM sampling on device {}: the hardware buffer overflowed: samples were \
                     lost (a longer interval or a larger ROOFLINE_PM_BUFFER_MB keeps them)",
                    self.device
                )));
            }
            let mut info: DataInfo = params(size_to!(DataInfo, completed, usize));
            info.image = self.image.as_ptr();
            info.image_size = self.image.len();
            self.pm.call(
                self.pm.data_info,
                "cuptiPmSamplingGetCounterDataInfo",
                &mut info,
            )?;
            let pointers: Vec<*const c_char> = self.names.iter().map(|c| c.as_ptr()).collect();
            for index in 0..info.completed {
                let mut s: SampleInfo = params(size_to!(SampleInfo, end, u64));
                s.object = self.object;
                s.image = self.image.as_ptr();
                s.image_size = self.image.len();
                s.index = index;
                self.pm.call(
                    self.pm.sample_info,
                    "cuptiPmSamplingCounterDataGetSampleInfo",
                    &mut s,
                )?;
                let mut values = vec![0f64; pointers.len()];
                let mut e: Evaluate = params(size_to!(Evaluate, values, *mut f64));
                e.host = self.host_object;
                e.image = self.image.as_ptr();
                e.image_size = self.image.len();
                e.range = index;
                e.names = pointers.as_ptr();
                e.count = pointers.len();
                e.values = values.as_mut_ptr();
                self.pm.call(
                    self.pm.evaluate,
                    "cuptiProfilerHostEvaluateToGpuValues",
                    &mut e,
                )?;
                sink.record(Record::PmSample(PmSampleRec {
                    device: self.device,
                    start_ns: s.start,
                    end_ns: s.end,
                    values,
                }));
                written += 1;
            }
            self.reset()?;
            if d.stop_reason != STOP_COUNTER_DATA_FULL {
                return Ok(written);
            }
        }
        self.behind = true;
        Ok(written)
    }

    /// Stops sampling and writes what is left with a line of what decoding cost (disabling
    /// it only with `ROOFLINE_PM_DISABLE`).
    pub fn finish(&mut self, sink: &dyn Sink) -> Result<(), String> {
        if self.stopped {
            return Ok(());
        }
        self.stopped = true;
        let mut st: Object = params(size_to!(Object, object, *mut c_void));
        st.object = self.object;
        let stopped = self.pm.call(self.pm.stop, "cuptiPmSamplingStop", &mut st);
        let drained = self.drain(sink, FINAL_IMAGES);
        let behind = if self.behind {
            "; decoding fell behind the sampling (a longer --counter-interval-ns keeps up)"
        } else {
            ""
        };
        sink.record(Record::Warning(format!(
            "PM sampling on device {}: {} intervals decoded in {:.3} s of decoding, {} decode \
             error(s){behind}",
            self.device, self.decoded, self.decode_s, self.errors
        )));
        // Disabling at exit hung the process in cuptiPmSamplingDisable (an H100, CUDA 13.0,
        // a cuBLAS program): CUPTI tears sampling down itself; `ROOFLINE_PM_DISABLE` asks.
        if std::env::var_os("ROOFLINE_PM_DISABLE").is_none() {
            return stopped.and(drained.map(|_| ()));
        }
        let mut dis: Object = params(size_to!(Object, object, *mut c_void));
        dis.object = self.object;
        let disabled = self
            .pm
            .call(self.pm.disable, "cuptiPmSamplingDisable", &mut dis);
        stopped.and(drained.map(|_| ())).and(disabled)
    }
}

/// Counter data images one tick of the decode thread fills at most.
const TICK_IMAGES: usize = 4;
/// Counter data images the last drain at exit fills at most.
const FINAL_IMAGES: usize = 40;

/// Decode errors after which a device's sampling stops.
const MAX_DECODE_ERRORS: u32 = 3;

/// The decode thread: drains every sampler each `every` until `stop` is set. A decode error
/// (a hardware buffer that overflowed: CUPTI says out of memory) is a warning; after
/// [`MAX_DECODE_ERRORS`] the device's sampling stops.
pub fn decode_loop(
    samplers: Arc<Mutex<Vec<Sampler>>>,
    sink: Arc<dyn Sink>,
    every: Duration,
    stop: Arc<AtomicBool>,
) {
    while !stop.load(Ordering::Relaxed) {
        std::thread::sleep(every);
        if stop.load(Ordering::Relaxed) {
            break;
        }
        if let Ok(mut all) = samplers.lock() {
            for s in all.iter_mut().filter(|s| !s.stopped) {
                if let Err(e) = s.drain(&*sink, TICK_IMAGES) {
                    s.errors += 1;
                    let _ = s.reset();
                    let last = s.errors >= MAX_DECODE_ERRORS;
                    sink.record(Record::Warning(format!(
                        "PM sampling on device {}: {e}: intervals were lost{}",
                        s.device,
                        if last { "; sampling stops" } else { "" }
                    )));
                    if last {
                        let _ = s.finish(&*sink);
                    }
                }
            }
        }
    }
}
