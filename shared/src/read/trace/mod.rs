//! Traces of a whole program's GPU activity, recorded in one plain run: the record stream of
//! capture's injection library ([`wire`]), read into the artifact's [`Trace`] by [`build`].
//!
//! What [`build`] joins: each kernel and copy to the runtime or driver call that made it (by
//! correlation id: the launching thread and the CPU time of the call), NVTX start and end
//! edges into ranges, and each launch to the innermost range open on its thread (push/pop) or
//! in its process (start/end) when it was called.

mod nest;
pub mod wire;

use std::collections::HashMap;

use crate::model::trace::{
    CopyKind, CounterSample, CounterSeries, RangeScope, Trace, TraceCopy, TraceKernel,
    TraceProcess, TraceRange, TraceSource,
};
pub(crate) use nest::{nest, Parts, Strings};
use wire::{Reader, Record};

/// CUPTI's marker flags.
const MARKER_START: u32 = 2;
const MARKER_END: u32 = 4;
/// CUPTI's `CUPTI_ACTIVITY_OBJECT_PROCESS`.
const OBJECT_PROCESS: u32 = 1;

/// One process's file: a name for messages (its path) and its bytes.
pub struct TraceFile<'a> {
    /// How messages name the file.
    pub name: &'a str,
    /// Its bytes.
    pub bytes: &'a [u8],
}

/// The call that made a GPU record.
#[derive(Clone, Copy)]
struct Call {
    tid: u32,
    start_ns: u64,
}

/// A range being paired, by its marker id.
struct OpenMarker {
    name: u32,
    domain: Option<u32>,
    start_ns: u64,
    tid: Option<u32>,
    scope: RangeScope,
}

/// Reads every process's file into one trace. `demangle` turns a mangled kernel name into a
/// readable one (`None` where it cannot). Returns the trace and warnings, each naming its
/// file: a file cut short (the program was killed mid-write), records CUPTI dropped, a
/// process that ended without flushing, a range never closed. Only a file that is not a trace
/// at all is an error.
pub fn build(
    files: &[TraceFile<'_>],
    demangle: &dyn Fn(&str) -> Option<String>,
) -> Result<(Trace, Vec<String>), String> {
    let mut strings = Strings::default();
    let mut trace = Trace {
        source: Some(TraceSource::Cupti),
        ..Trace::default()
    };
    let mut warnings = Vec::new();
    let mut demangled: HashMap<String, (u32, Option<u32>)> = HashMap::new();
    for file in files {
        let (process, parts) =
            read_file(file, &mut strings, &mut demangled, demangle, &mut warnings)?;
        trace.processes.push(process);
        parts.append_to(&mut trace);
    }
    trace.strings = strings.list;
    Ok((trace, warnings))
}

/// What reading one file has gathered so far.
struct FileState {
    /// The file's string ids to the trace's.
    local: HashMap<u32, u32>,
    process: TraceProcess,
    /// Launch and copy calls by correlation id.
    calls: HashMap<u32, Call>,
    parts: Parts,
    /// Ranges started and not yet ended, by marker id.
    open: HashMap<u32, OpenMarker>,
    /// The file's kernel name ids to the trace's (name, mangled name).
    kernel_names: HashMap<u32, (u32, Option<u32>)>,
}

/// The trace's strings and the demangler, shared by every file.
struct Names<'a> {
    strings: &'a mut Strings,
    demangled: &'a mut HashMap<String, (u32, Option<u32>)>,
    demangle: &'a dyn Fn(&str) -> Option<String>,
}

impl Names<'_> {
    /// A kernel's (name, mangled name) from its raw name.
    fn kernel(&mut self, raw: &str) -> (u32, Option<u32>) {
        if let Some(&n) = self.demangled.get(raw) {
            return n;
        }
        let mangled = self.strings.intern(raw);
        let n = match (self.demangle)(raw) {
            Some(d) if d != raw => (self.strings.intern(&d), Some(mangled)),
            _ => (mangled, None),
        };
        self.demangled.insert(raw.to_owned(), n);
        n
    }
}

/// One file's records into its process and parts.
fn read_file(
    file: &TraceFile<'_>,
    strings: &mut Strings,
    demangled: &mut HashMap<String, (u32, Option<u32>)>,
    demangle: &dyn Fn(&str) -> Option<String>,
    warnings: &mut Vec<String>,
) -> Result<(TraceProcess, Parts), String> {
    let mut reader = Reader::new(file.bytes).map_err(|e| format!("{}: {e}", file.name))?;
    let mut names = Names {
        strings,
        demangled,
        demangle,
    };
    let mut state = FileState {
        local: HashMap::new(),
        process: TraceProcess {
            pid: 0,
            ppid: None,
            complete: false,
            dropped_records: 0,
            cupti_version: None,
        },
        calls: HashMap::new(),
        parts: Parts::default(),
        open: HashMap::new(),
        kernel_names: HashMap::new(),
    };
    loop {
        match reader.next_record() {
            Ok(Some(record)) => {
                if let Some(w) = state.take(record, &mut names) {
                    warnings.push(format!("{}: {w}", file.name));
                }
            }
            Ok(None) => break,
            Err(e) => {
                warnings.push(format!(
                    "{}: {e}; the {} bytes from there on are not read (the program stopped \
                     while the trace was being written)",
                    file.name,
                    file.bytes.len() - e.offset
                ));
                state.process.complete = false;
                break;
            }
        }
    }
    Ok(state.finish(file.name, warnings))
}

impl FileState {
    /// Takes one record; returns the text of a warning record.
    fn take(&mut self, record: Record, names: &mut Names<'_>) -> Option<String> {
        let pid = self.process.pid;
        match record {
            Record::PmMetrics(_) | Record::PmSample(_) => return self.take_pm(record, names),
            Record::Process(p) => {
                self.process.pid = p.pid;
                self.process.ppid = Some(p.ppid);
                self.process.cupti_version = (p.cupti_version != 0).then_some(p.cupti_version);
            }
            Record::String { id, text } => {
                self.local.insert(id, names.strings.intern(&text));
            }
            Record::Kernel(k) => {
                let (name, mangled) = match self.kernel_names.get(&k.name) {
                    Some(&n) => n,
                    None => {
                        let raw = self
                            .local
                            .get(&k.name)
                            .map(|&i| names.strings.list[i as usize].to_string())
                            .unwrap_or_default();
                        let n = names.kernel(&raw);
                        self.kernel_names.insert(k.name, n);
                        n
                    }
                };
                self.parts.kernels.push(TraceKernel {
                    name,
                    mangled,
                    start_ns: k.start_ns,
                    end_ns: k.end_ns.max(k.start_ns),
                    pid,
                    device: k.device,
                    context: k.context,
                    stream: k.stream,
                    correlation: k.correlation,
                    thread: None,
                    launch_ns: None,
                    grid: k.grid,
                    block: k.block,
                    registers: u32::from(k.registers),
                    static_shared_bytes: k.static_shared,
                    dynamic_shared_bytes: k.dynamic_shared,
                    range: None,
                });
            }
            Record::Copy(c) => self.parts.copies.push(TraceCopy {
                kind: CopyKind::from_cupti(c.copy_kind),
                bytes: c.bytes,
                start_ns: c.start_ns,
                end_ns: c.end_ns.max(c.start_ns),
                pid,
                device: c.device,
                stream: c.stream,
                correlation: c.correlation,
                thread: None,
                range: None,
            }),
            Record::Set(s) => self.parts.copies.push(TraceCopy {
                kind: CopyKind::Memset,
                bytes: s.bytes,
                start_ns: s.start_ns,
                end_ns: s.end_ns.max(s.start_ns),
                pid,
                device: s.device,
                stream: s.stream,
                correlation: s.correlation,
                thread: None,
                range: None,
            }),
            Record::Api(a) => {
                self.calls.insert(
                    a.correlation,
                    Call {
                        tid: a.tid,
                        start_ns: a.start_ns,
                    },
                );
            }
            Record::Marker(m) => self.marker(&m, names),
            Record::Dropped(n) => self.process.dropped_records += n,
            Record::Warning(text) => return Some(text),
            Record::End(_) => self.process.complete = true,
        }
        None
    }

    /// A range's start or end edge.
    fn marker(&mut self, m: &wire::MarkerRec, names: &mut Names<'_>) {
        let process_wide = m.object_kind == OBJECT_PROCESS;
        if m.flags & MARKER_START != 0 {
            let name = match self.local.get(&m.name) {
                Some(&n) => n,
                None => names.strings.intern(""),
            };
            self.open.insert(
                m.id,
                OpenMarker {
                    name,
                    domain: self.local.get(&m.domain).copied(),
                    start_ns: m.timestamp_ns,
                    tid: (!process_wide).then_some(m.object_id[1]),
                    scope: if process_wide {
                        RangeScope::Process
                    } else {
                        RangeScope::Thread
                    },
                },
            );
        } else if m.flags & MARKER_END != 0 {
            if let Some(o) = self.open.remove(&m.id) {
                let r = range_of(o, Some(m.timestamp_ns), self.process.pid);
                self.parts.ranges.push(r);
            }
        }
    }

    /// Takes a PM sampling record: a series begins, or a sample joins the latest series of
    /// its device (an idle one, every value 0, is only counted).
    fn take_pm(&mut self, record: Record, names: &mut Names<'_>) -> Option<String> {
        let pid = self.process.pid;
        match record {
            Record::PmMetrics(m) => {
                let metrics = m
                    .names
                    .iter()
                    .map(|n| match self.local.get(n) {
                        Some(&i) => i,
                        None => names.strings.intern(""),
                    })
                    .collect();
                self.parts.counters.push(CounterSeries {
                    pid,
                    device: m.device,
                    interval_ns: m.interval_ns,
                    metrics,
                    samples: Vec::new(),
                    idle_samples: 0,
                });
            }
            Record::PmSample(m) => {
                let series = self
                    .parts
                    .counters
                    .iter_mut()
                    .rev()
                    .find(|c| c.device == m.device && c.metrics.len() == m.values.len());
                match series {
                    Some(c) if m.values.iter().all(|&v| v == 0.0) => c.idle_samples += 1,
                    Some(c) => c.samples.push(CounterSample {
                        start_ns: m.start_ns,
                        end_ns: m.end_ns.max(m.start_ns),
                        values: m.values,
                    }),
                    None => {
                        return Some(format!(
                            "a PM sample of device {} with {} values and no metrics record \
                             before it: left out",
                            m.device,
                            m.values.len()
                        ))
                    }
                }
            }
            _ => {}
        }
        None
    }

    /// Closes what is open, joins each launch to its call and its range, orders launches by
    /// call, and says what is missing.
    fn finish(mut self, name: &str, warnings: &mut Vec<String>) -> (TraceProcess, Parts) {
        let pid = self.process.pid;
        let unclosed = self.open.len();
        if unclosed > 0 {
            warnings.push(format!(
                "{name}: {unclosed} NVTX range(s) of process {pid} never closed; kept open to \
                 the end"
            ));
        }
        let open: Vec<OpenMarker> = self.open.into_values().collect();
        self.parts
            .ranges
            .extend(open.into_iter().map(|o| range_of(o, None, pid)));
        if !self.process.complete {
            warnings.push(format!(
                "{name}: process {pid} did not exit normally (crashed, killed or left through \
                 _exit): records after its last flush are missing"
            ));
        }
        if self.process.dropped_records > 0 {
            warnings.push(format!(
                "{name}: CUPTI dropped {} records of process {pid} (its buffers were full)",
                self.process.dropped_records
            ));
        }
        let parts = &mut self.parts;
        for k in &mut parts.kernels {
            k.pid = pid;
            if let Some(c) = self.calls.get(&k.correlation) {
                k.thread = Some(c.tid);
                k.launch_ns = Some(c.start_ns);
            }
        }
        // Launch order: the order of the calls (correlation ids count up in call order).
        crate::order::sort_by_key(&mut parts.kernels, |k| (k.correlation, k.start_ns));
        for c in &mut parts.copies {
            c.pid = pid;
            c.thread = self.calls.get(&c.correlation).map(|c| c.tid);
        }
        crate::order::sort_by_key(&mut parts.copies, |c| (c.correlation, c.start_ns));
        let copy_calls: Vec<Option<u64>> = parts
            .copies
            .iter()
            .map(|c| self.calls.get(&c.correlation).map(|c| c.start_ns))
            .collect();
        nest(parts, &copy_calls, false);
        (self.process, self.parts)
    }
}

fn range_of(o: OpenMarker, end_ns: Option<u64>, pid: u32) -> TraceRange {
    TraceRange {
        name: o.name,
        domain: o.domain,
        start_ns: o.start_ns,
        end_ns: end_ns.map(|e| e.max(o.start_ns)),
        pid,
        thread: o.tid,
        scope: o.scope,
        parent: None,
    }
}
