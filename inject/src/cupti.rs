//! The few CUPTI functions the trace calls, loaded at run time with `dlopen` from the library
//! `capture trace` found, so that nothing links CUPTI at build time and one build serves
//! every CUDA 12.x and 13.x.

use std::ffi::{c_char, c_void, CStr, CString, OsStr};
use std::os::unix::ffi::OsStrExt;

/// `CUPTI_ACTIVITY_KIND_MEMCPY`.
pub const KIND_MEMCPY: u32 = 1;
/// `CUPTI_ACTIVITY_KIND_MEMSET`.
pub const KIND_MEMSET: u32 = 2;
/// `CUPTI_ACTIVITY_KIND_KERNEL` (serializes kernels: never enabled, read if it comes).
pub const KIND_KERNEL: u32 = 3;
/// `CUPTI_ACTIVITY_KIND_DRIVER`.
pub const KIND_DRIVER: u32 = 4;
/// `CUPTI_ACTIVITY_KIND_RUNTIME`.
pub const KIND_RUNTIME: u32 = 5;
/// `CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL`: kernels as they run, concurrency kept.
pub const KIND_CONCURRENT_KERNEL: u32 = 10;
/// `CUPTI_ACTIVITY_KIND_MARKER`: NVTX ranges and marks.
pub const KIND_MARKER: u32 = 12;

/// The kinds the trace turns on, with what each records.
pub const KINDS: &[(u32, &str)] = &[
    (KIND_CONCURRENT_KERNEL, "kernels"),
    (KIND_MEMCPY, "copies"),
    (KIND_MEMSET, "memory sets"),
    (KIND_RUNTIME, "runtime API calls"),
    (KIND_DRIVER, "driver API calls"),
    (KIND_MARKER, "NVTX ranges"),
];

/// `CUPTI_SUCCESS`.
const SUCCESS: u32 = 0;
/// `CUPTI_ACTIVITY_FLAG_FLUSH_FORCED`.
const FLUSH_FORCED: u32 = 1;

type Requested = unsafe extern "C" fn(*mut *mut u8, *mut usize, *mut usize);
type Completed = unsafe extern "C" fn(*mut c_void, u32, *mut u8, usize, usize);

/// The loaded functions.
pub struct Cupti {
    enable: unsafe extern "C" fn(u32) -> u32,
    register: unsafe extern "C" fn(Requested, Completed) -> u32,
    next: unsafe extern "C" fn(*mut u8, usize, *mut *mut u8) -> u32,
    flush_all: unsafe extern "C" fn(u32) -> u32,
    flush_period: Option<unsafe extern "C" fn(u32) -> u32>,
    dropped: unsafe extern "C" fn(*mut c_void, u32, *mut usize) -> u32,
    version: unsafe extern "C" fn(*mut u32) -> u32,
    timestamp: unsafe extern "C" fn(*mut u64) -> u32,
    result_string: unsafe extern "C" fn(u32, *mut *const c_char) -> u32,
}

/// One symbol of the open library, as a function pointer of type `T`.
///
/// # Safety
/// `T` is the function's true type.
unsafe fn symbol<T: Copy>(handle: *mut c_void, name: &str) -> Option<T> {
    let cname = CString::new(name).ok()?;
    // SAFETY: a valid handle and NUL-terminated name.
    let ptr = unsafe { libc::dlsym(handle, cname.as_ptr()) };
    if ptr.is_null() {
        return None;
    }
    // SAFETY: the caller's promise on T; function pointers are pointer-sized.
    Some(unsafe { std::mem::transmute_copy::<*mut c_void, T>(&ptr) })
}

fn dl_error() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated message.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        "unknown error".into()
    } else {
        // SAFETY: non-null, NUL-terminated.
        unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
    }
}

impl Cupti {
    /// Opens CUPTI from `path` (or `libcupti.so` through the loader's search).
    pub fn load(path: Option<&OsStr>) -> Result<Cupti, String> {
        let name = path.unwrap_or(OsStr::new("libcupti.so"));
        let cname = CString::new(name.as_bytes()).map_err(|_| "a CUPTI path with a NUL byte")?;
        // SAFETY: a NUL-terminated path.
        let handle = unsafe { libc::dlopen(cname.as_ptr(), libc::RTLD_NOW | libc::RTLD_GLOBAL) };
        if handle.is_null() {
            return Err(format!(
                "cannot load CUPTI ({}): {}",
                name.to_string_lossy(),
                dl_error()
            ));
        }
        let missing = |f: &str| format!("CUPTI ({}) has no {f}", name.to_string_lossy());
        // SAFETY: each type below is the function's C signature.
        unsafe {
            Ok(Cupti {
                enable: symbol(handle, "cuptiActivityEnable")
                    .ok_or_else(|| missing("cuptiActivityEnable"))?,
                register: symbol(handle, "cuptiActivityRegisterCallbacks")
                    .ok_or_else(|| missing("cuptiActivityRegisterCallbacks"))?,
                next: symbol(handle, "cuptiActivityGetNextRecord")
                    .ok_or_else(|| missing("cuptiActivityGetNextRecord"))?,
                flush_all: symbol(handle, "cuptiActivityFlushAll")
                    .ok_or_else(|| missing("cuptiActivityFlushAll"))?,
                flush_period: symbol(handle, "cuptiActivityFlushPeriod"),
                dropped: symbol(handle, "cuptiActivityGetNumDroppedRecords")
                    .ok_or_else(|| missing("cuptiActivityGetNumDroppedRecords"))?,
                version: symbol(handle, "cuptiGetVersion")
                    .ok_or_else(|| missing("cuptiGetVersion"))?,
                timestamp: symbol(handle, "cuptiGetTimestamp")
                    .ok_or_else(|| missing("cuptiGetTimestamp"))?,
                result_string: symbol(handle, "cuptiGetResultString")
                    .ok_or_else(|| missing("cuptiGetResultString"))?,
            })
        }
    }

    fn check(&self, result: u32) -> Result<(), String> {
        if result == SUCCESS {
            return Ok(());
        }
        let mut text: *const c_char = std::ptr::null();
        // SAFETY: an out-pointer CUPTI fills with a static string.
        let ok = unsafe { (self.result_string)(result, &mut text) } == SUCCESS;
        if ok && !text.is_null() {
            // SAFETY: CUPTI's static NUL-terminated string.
            Err(unsafe { CStr::from_ptr(text) }
                .to_string_lossy()
                .into_owned())
        } else {
            Err(format!("CUPTI error {result}"))
        }
    }

    /// Turns one activity kind on.
    pub fn enable(&self, kind: u32) -> Result<(), String> {
        // SAFETY: a plain value argument.
        self.check(unsafe { (self.enable)(kind) })
    }

    /// Hands CUPTI the buffer callbacks.
    pub fn register_buffers(
        &self,
        requested: Requested,
        completed: Completed,
    ) -> Result<(), String> {
        // SAFETY: two extern "C" functions of the types CUPTI calls.
        self.check(unsafe { (self.register)(requested, completed) })
    }

    /// Completes buffers every `ms` milliseconds; an error where this CUPTI lacks it.
    pub fn flush_period(&self, ms: u32) -> Result<(), String> {
        match self.flush_period {
            // SAFETY: a plain value argument.
            Some(f) => self.check(unsafe { f(ms) }),
            None => Err("this CUPTI has no cuptiActivityFlushPeriod".into()),
        }
    }

    /// Completes every buffer now, the partly filled ones too.
    pub fn flush_all(&self) {
        // SAFETY: a plain value argument.
        let _ = unsafe { (self.flush_all)(FLUSH_FORCED) };
    }

    /// The next record of a completed buffer into `record`; false at its end.
    pub fn next_record(&self, buffer: *mut u8, valid: usize, record: &mut *mut u8) -> bool {
        // SAFETY: a buffer CUPTI completed, its valid size, and an out-pointer.
        unsafe { (self.next)(buffer, valid, record) == SUCCESS }
    }

    /// Records CUPTI dropped for a context and stream.
    pub fn dropped(&self, context: *mut c_void, stream: u32) -> usize {
        let mut n = 0usize;
        // SAFETY: values CUPTI passed to the completion callback, and an out-pointer.
        match unsafe { (self.dropped)(context, stream, &mut n) } {
            SUCCESS => n,
            _ => 0,
        }
    }

    /// CUPTI's API version, 0 when unknown.
    pub fn version(&self) -> u32 {
        let mut v = 0u32;
        // SAFETY: an out-pointer.
        match unsafe { (self.version)(&mut v) } {
            SUCCESS => v,
            _ => 0,
        }
    }

    /// CUPTI's clock now, ns (the clock of every record).
    pub fn timestamp(&self) -> u64 {
        let mut t = 0u64;
        // SAFETY: an out-pointer.
        match unsafe { (self.timestamp)(&mut t) } {
            SUCCESS => t,
            _ => 0,
        }
    }
}
