//! The CUPTI injection library of `capture trace`: CUDA loads it into a program named by
//! `CUDA_INJECTION64_PATH` and calls [`InitializeInjection`] when the program first
//! initializes CUDA, before any kernel runs. It turns on CUPTI's activity records (every
//! kernel, copy and memory set with its GPU start and end, the runtime and driver calls that
//! launched them, and NVTX ranges when `NVTX_INJECTION64_PATH` names CUPTI) and appends each
//! buffer CUPTI completes to one file per process in the record layout of
//! [`shared::read::trace::wire`]. Nothing is replayed or serialized: the program runs as it
//! would, and CUPTI's buffers are written out as they fill and every
//! `ROOFLINE_TRACE_FLUSH_MS` (250 ms by default), so a program that crashes or is killed
//! keeps what was recorded until then.
//!
//! Why an injection library rather than a wrapper linked into the program: it needs no change
//! to the program and no rebuild, works for any language that reaches CUDA through the driver
//! (PyTorch, Triton, CuPy, plain CUDA C++), follows child processes through the environment,
//! and CUPTI is loaded at run time from the path `capture trace` found (`ROOFLINE_CUPTI`),
//! so one build serves CUDA 12.x and 13.x: the records are read through the fields every
//! version of CUPTI's structs shares, by offset.
//!
//! Environment: `ROOFLINE_TRACE_DIR` (required: where `PID.rltrace` goes; without it the
//! library does nothing), `ROOFLINE_CUPTI` (the CUPTI library; `libcupti.so` through the
//! loader's search otherwise), `ROOFLINE_TRACE_FLUSH_MS`.
//!
//! No function here unwinds into C: every entry point catches panics, and a failure becomes a
//! warning record in the file (or, before the file exists, a line on standard error).

#![allow(unsafe_code)]

mod cbids;
mod cupti;
mod pm;

use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_int, c_void, CStr};
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use shared::read::trace::wire::{
    self, ApiRec, CopyRec, KernelRec, MarkerRec, ProcessRec, Record, SetRec,
};

use cupti::Cupti;

/// The size of each activity buffer handed to CUPTI.
const BUFFER_BYTES: usize = 8 << 20;

/// What the injection holds while the program runs.
struct State {
    cupti: Cupti,
    out: Mutex<Out>,
    /// PM sampling, when asked for (`ROOFLINE_PM_METRICS`).
    counters: Option<Counters>,
}

/// PM sampling's state: the functions, the request, a sampler per device that has a
/// context, and the decode thread's stop flag.
struct Counters {
    pm: Arc<pm::Pm>,
    request: pm::Request,
    samplers: Arc<Mutex<Vec<pm::Sampler>>>,
    devices: Mutex<HashSet<u32>>,
    stop: Arc<AtomicBool>,
    decoding: AtomicBool,
    /// The decode thread, joined at exit before anything else touches CUPTI.
    decoder: Mutex<Option<std::thread::JoinHandle<()>>>,
}

/// The trace file as PM sampling's sink.
struct FileSink;

impl pm::Sink for FileSink {
    fn record(&self, record: Record) {
        if let Some(state) = state() {
            if let Ok(mut out) = state.out.lock() {
                out.push(&record);
                out.write_out();
            }
        }
    }

    fn string(&self, text: &str) -> u32 {
        let Some(state) = state() else { return 0 };
        let Ok(mut out) = state.out.lock() else {
            return 0;
        };
        if let Some(&id) = out.by_text.get(text.as_bytes()) {
            return id;
        }
        let id = out.new_string(text.as_bytes());
        out.by_text.insert(text.as_bytes().to_vec(), id);
        out.write_out();
        id
    }
}

/// The open trace file and the strings already written to it.
struct Out {
    file: File,
    /// Kernel names by CUPTI's pointer (one pointer per kernel for CUPTI's lifetime).
    by_pointer: HashMap<usize, u32>,
    /// Other strings (NVTX messages and domains) by their bytes.
    by_text: HashMap<Vec<u8>, u32>,
    next_id: u32,
    /// Bytes of records not yet written.
    pending: Vec<u8>,
    /// Set once the file could not be written: no more writes are tried.
    failed: bool,
}

static STATE: OnceLock<State> = OnceLock::new();

impl Out {
    /// The id of a C string, writing its string record first when it is new; 0 for null.
    fn pointer_string(&mut self, ptr: *const c_char) -> u32 {
        if ptr.is_null() {
            return 0;
        }
        if let Some(&id) = self.by_pointer.get(&(ptr as usize)) {
            return id;
        }
        // SAFETY: CUPTI hands a NUL-terminated name that lives as long as CUPTI.
        let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
        let id = self.new_string(bytes);
        self.by_pointer.insert(ptr as usize, id);
        id
    }

    /// The id of a C string interned by its text (strings whose pointers CUPTI may reuse).
    fn text_string(&mut self, ptr: *const c_char) -> u32 {
        if ptr.is_null() {
            return 0;
        }
        // SAFETY: a NUL-terminated string CUPTI hands with the record being read.
        let bytes = unsafe { CStr::from_ptr(ptr) }.to_bytes();
        if let Some(&id) = self.by_text.get(bytes) {
            return id;
        }
        let id = self.new_string(bytes);
        self.by_text.insert(bytes.to_vec(), id);
        id
    }

    fn new_string(&mut self, bytes: &[u8]) -> u32 {
        self.next_id += 1;
        wire::encode_string(&mut self.pending, self.next_id, bytes);
        self.next_id
    }

    fn push(&mut self, record: &Record) {
        record.encode(&mut self.pending);
    }

    /// Writes what is pending; on failure says so once on standard error and stops writing.
    fn write_out(&mut self) {
        if self.failed || self.pending.is_empty() {
            self.pending.clear();
            return;
        }
        if let Err(e) = self.file.write_all(&self.pending) {
            self.failed = true;
            eprintln!("roofline-inject: cannot write the trace file: {e}; recording stops");
        }
        self.pending.clear();
    }
}

fn state() -> Option<&'static State> {
    STATE.get()
}

/// CUDA calls this once, from the thread that first initializes CUDA in the process; returns
/// 1 (CUDA ignores the value).
///
/// # Safety
/// Called by the CUDA driver with no arguments, as its injection contract says.
#[no_mangle]
pub unsafe extern "C" fn InitializeInjection() -> c_int {
    match std::panic::catch_unwind(start) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("roofline-inject: not recording: {e}"),
        Err(_) => eprintln!("roofline-inject: not recording: the injection failed"),
    }
    1
}

fn start() -> Result<(), String> {
    let Some(dir) = std::env::var_os("ROOFLINE_TRACE_DIR") else {
        return Ok(());
    };
    if STATE.get().is_some() {
        return Ok(());
    }
    let library = std::env::var_os("ROOFLINE_CUPTI");
    let cupti = Cupti::load(library.as_deref())?;
    // SAFETY: plain libc calls with no arguments.
    let (pid, ppid) = unsafe { (libc::getpid() as u32, libc::getppid() as u32) };
    let path = std::path::Path::new(&dir).join(format!("{pid}.rltrace"));
    let file = File::create(&path).map_err(|e| format!("cannot create {}: {e}", path.display()))?;
    let mut out = Out {
        file,
        by_pointer: HashMap::new(),
        by_text: HashMap::new(),
        next_id: 0,
        pending: wire::MAGIC.to_vec(),
        failed: false,
    };
    out.push(&Record::Process(ProcessRec {
        pid,
        ppid,
        cupti_version: cupti.version(),
        start_ns: cupti.timestamp(),
    }));
    out.write_out();
    let mut refused = Vec::new();
    let counters = match pm::Request::from_env() {
        None => None,
        Some(request) => match pm::Pm::load(library.as_deref()) {
            Ok(pm) => Some(Counters {
                pm: Arc::new(pm),
                request,
                samplers: Arc::new(Mutex::new(Vec::new())),
                devices: Mutex::new(HashSet::new()),
                stop: Arc::new(AtomicBool::new(false)),
                decoding: AtomicBool::new(false),
                decoder: Mutex::new(None),
            }),
            Err(e) => {
                refused.push(format!("no PM sampling: {e}"));
                None
            }
        },
    };
    let state = State {
        cupti,
        out: Mutex::new(out),
        counters,
    };
    let state = STATE.get_or_init(|| state);
    if let Some(c) = &state.counters {
        if let Err(e) = c.pm.subscribe_contexts(on_context) {
            refused.push(format!("no PM sampling: {e}"));
        }
    }
    state
        .cupti
        .register_buffers(buffer_requested, buffer_completed)?;
    for (kind, what) in cupti::KINDS {
        if let Err(e) = state.cupti.enable(*kind) {
            refused.push(format!("CUPTI did not record {what}: {e}"));
        }
    }
    let flush_ms = std::env::var("ROOFLINE_TRACE_FLUSH_MS")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(250);
    if let Err(e) = state.cupti.flush_period(flush_ms) {
        refused.push(format!(
            "CUPTI would not flush every {flush_ms} ms ({e}): a killed program loses its last buffer"
        ));
    }
    if let Ok(mut out) = state.out.lock() {
        for text in refused {
            out.push(&Record::Warning(text));
        }
        out.write_out();
    }
    // SAFETY: registers a plain extern "C" function with no arguments.
    if unsafe { libc::atexit(at_exit) } != 0 {
        return Err("atexit refused the final flush".into());
    }
    Ok(())
}

/// A CUDA context was created: PM sampling starts on its device (once per device), and the
/// decode thread with the first.
///
/// # Safety
/// Called by CUPTI with a resource callback's data (`CUpti_ResourceData`, whose first field
/// is the context).
unsafe extern "C" fn on_context(_: *mut c_void, domain: u32, cbid: u32, data: *const c_void) {
    let _ = std::panic::catch_unwind(|| {
        if domain != pm::DOMAIN_RESOURCE || cbid != pm::CONTEXT_CREATED || data.is_null() {
            return;
        }
        let Some(c) = state().and_then(|s| s.counters.as_ref()) else {
            return;
        };
        // SAFETY: CUPTI's resource data begins with the context.
        let context = unsafe { *data.cast::<*mut c_void>() };
        let sink = FileSink;
        let device = match c.pm.device_of(context) {
            Ok(d) => d,
            Err(e) => {
                pm::Sink::record(&sink, Record::Warning(format!("no PM sampling: {e}")));
                return;
            }
        };
        if !c.devices.lock().is_ok_and(|mut d| d.insert(device)) {
            return;
        }
        match pm::start(&c.pm, device, &c.request, &sink) {
            Ok((sampler, warnings)) => {
                for w in warnings {
                    pm::Sink::record(&sink, Record::Warning(w));
                }
                if let Ok(mut all) = c.samplers.lock() {
                    all.push(sampler);
                }
                if !c.decoding.swap(true, Ordering::SeqCst) {
                    let (samplers, stop) = (Arc::clone(&c.samplers), Arc::clone(&c.stop));
                    let every = c.request.decode_every;
                    let sink: Arc<dyn pm::Sink> = Arc::new(FileSink);
                    let handle =
                        std::thread::spawn(move || pm::decode_loop(samplers, sink, every, stop));
                    if let Ok(mut d) = c.decoder.lock() {
                        *d = Some(handle);
                    }
                }
            }
            Err(e) => pm::Sink::record(
                &sink,
                Record::Warning(format!("no PM sampling on device {device}: {e}")),
            ),
        }
    });
}

/// At `exit`: every buffer CUPTI holds completed (and written), then PM sampling stopped and
/// its last samples written, then the end record.
extern "C" fn at_exit() {
    let _ = std::panic::catch_unwind(|| {
        let Some(state) = state() else { return };
        // The decode thread stops first: nothing calls PM sampling while the activity
        // buffers are flushed.
        if let Some(c) = &state.counters {
            c.stop.store(true, Ordering::SeqCst);
            if let Some(h) = c.decoder.lock().ok().and_then(|mut d| d.take()) {
                let _ = h.join();
            }
        }
        // The activity records next: whatever PM sampling does at exit cannot lose them.
        state.cupti.flush_all();
        if let Ok(mut out) = state.out.lock() {
            out.write_out();
        }
        if let Some(c) = &state.counters {
            c.stop.store(true, Ordering::SeqCst);
            if let Ok(mut all) = c.samplers.lock() {
                for s in all.iter_mut() {
                    if let Err(e) = s.finish(&FileSink) {
                        pm::Sink::record(
                            &FileSink,
                            Record::Warning(format!("PM sampling at exit: {e}")),
                        );
                    }
                }
            }
        }
        if let Ok(mut out) = state.out.lock() {
            let now = state.cupti.timestamp();
            out.push(&Record::End(now));
            out.write_out();
            let _ = out.file.sync_data();
        }
    });
}

/// CUPTI asks for an empty buffer.
unsafe extern "C" fn buffer_requested(
    buffer: *mut *mut u8,
    size: *mut usize,
    max_records: *mut usize,
) {
    let _ = std::panic::catch_unwind(|| {
        let layout = std::alloc::Layout::from_size_align(BUFFER_BYTES, 8);
        let ptr = match layout {
            // SAFETY: a non-zero size.
            Ok(layout) => unsafe { std::alloc::alloc(layout) },
            Err(_) => std::ptr::null_mut(),
        };
        // SAFETY: CUPTI passes valid out-pointers.
        unsafe {
            *buffer = ptr;
            *size = if ptr.is_null() { 0 } else { BUFFER_BYTES };
            *max_records = 0;
        }
    });
}

/// CUPTI hands back a buffer of records: each is written as a record of the trace file,
/// then the buffer is freed.
unsafe extern "C" fn buffer_completed(
    context: *mut std::ffi::c_void,
    stream: u32,
    buffer: *mut u8,
    _size: usize,
    valid: usize,
) {
    let _ = std::panic::catch_unwind(|| {
        if let Some(state) = state() {
            if let Ok(mut out) = state.out.lock() {
                let mut record: *mut u8 = std::ptr::null_mut();
                while !buffer.is_null() && state.cupti.next_record(buffer, valid, &mut record) {
                    // SAFETY: CUPTI returned a record inside the buffer.
                    unsafe { translate(&mut out, record) };
                }
                let dropped = state.cupti.dropped(context, stream);
                if dropped > 0 {
                    out.push(&Record::Dropped(dropped as u64));
                }
                out.write_out();
            }
        }
        if !buffer.is_null() {
            if let Ok(layout) = std::alloc::Layout::from_size_align(BUFFER_BYTES, 8) {
                // SAFETY: allocated by `buffer_requested` with this layout.
                unsafe { std::alloc::dealloc(buffer, layout) };
            }
        }
    });
}

/// Reads a field of a CUPTI record at a byte offset.
///
/// # Safety
/// `record + offset + size_of::<T>()` lies inside the record.
unsafe fn at<T: Copy>(record: *const u8, offset: usize) -> T {
    // SAFETY: the caller's promise; records are packed, so unaligned.
    unsafe { std::ptr::read_unaligned(record.add(offset).cast::<T>()) }
}

/// One CUPTI activity record into the trace file. The offsets are those of the fields every
/// version of each struct shares (`CUpti_ActivityKernel4` to `11`, `Memcpy5`/`6`,
/// `Memset4`/`5`, `API`, `Marker2`).
///
/// # Safety
/// `record` is a record CUPTI returned.
unsafe fn translate(out: &mut Out, record: *const u8) {
    // SAFETY (every read below): inside the record of the kind read.
    let kind: u32 = unsafe { at(record, 0) };
    let rec = unsafe {
        match kind {
            cupti::KIND_KERNEL | cupti::KIND_CONCURRENT_KERNEL => {
                let name = out.pointer_string(at::<*const c_char>(record, 104));
                let i32u = |o| at::<i32>(record, o).max(0) as u32;
                Record::Kernel(KernelRec {
                    registers: at(record, 6),
                    start_ns: at(record, 16),
                    end_ns: at(record, 24),
                    device: at(record, 40),
                    context: at(record, 44),
                    stream: at(record, 48),
                    grid: [i32u(52), i32u(56), i32u(60)],
                    block: [i32u(64), i32u(68), i32u(72)],
                    static_shared: i32u(76),
                    dynamic_shared: i32u(80),
                    correlation: at(record, 92),
                    name,
                })
            }
            cupti::KIND_MEMCPY => Record::Copy(CopyRec {
                copy_kind: at(record, 4),
                src_kind: at(record, 5),
                dst_kind: at(record, 6),
                flags: at(record, 7),
                bytes: at(record, 8),
                start_ns: at(record, 16),
                end_ns: at(record, 24),
                device: at(record, 32),
                context: at(record, 36),
                stream: at(record, 40),
                correlation: at(record, 44),
            }),
            cupti::KIND_MEMSET => Record::Set(SetRec {
                bytes: at(record, 8),
                start_ns: at(record, 16),
                end_ns: at(record, 24),
                device: at(record, 32),
                context: at(record, 36),
                stream: at(record, 40),
                correlation: at(record, 44),
                memory_kind: at(record, 50),
            }),
            cupti::KIND_DRIVER | cupti::KIND_RUNTIME => {
                let driver = kind == cupti::KIND_DRIVER;
                let cbid: u32 = at(record, 4);
                let list = if driver {
                    cbids::DRIVER
                } else {
                    cbids::RUNTIME
                };
                if list.binary_search_by_key(&cbid, |(id, _)| *id).is_err() {
                    return;
                }
                Record::Api(ApiRec {
                    driver,
                    cbid,
                    start_ns: at(record, 8),
                    end_ns: at(record, 16),
                    pid: at(record, 24),
                    tid: at(record, 28),
                    correlation: at(record, 32),
                })
            }
            cupti::KIND_MARKER => {
                let name = out.text_string(at::<*const c_char>(record, 40));
                let domain = out.text_string(at::<*const c_char>(record, 48));
                Record::Marker(MarkerRec {
                    flags: at(record, 4),
                    timestamp_ns: at(record, 8),
                    id: at(record, 16),
                    object_kind: at(record, 20),
                    object_id: [at(record, 24), at(record, 28), at(record, 32)],
                    name,
                    domain,
                })
            }
            _ => return,
        }
    };
    out.push(&rec);
}

#[cfg(test)]
mod tests {
    use super::cbids;

    #[test]
    fn the_call_lists_are_sorted_for_binary_search() {
        for list in [cbids::RUNTIME, cbids::DRIVER] {
            assert!(list.windows(2).all(|w| w[0].0 < w[1].0));
        }
        // The launches every program makes are kept.
        for name in ["cudaLaunchKernel_v7000", "cudaMemcpyAsync_v3020"] {
            assert!(cbids::RUNTIME.iter().any(|(_, n)| *n == name), "{name}");
        }
        for name in ["cuLaunchKernel", "cuLaunchKernelEx", "cuMemsetD8Async"] {
            assert!(cbids::DRIVER.iter().any(|(_, n)| *n == name), "{name}");
        }
    }
}
