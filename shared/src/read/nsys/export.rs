//! Nsight Systems' SQLite export (`nsys export --type sqlite`) into a trace: the rows of its
//! tables, read by capture (the database is a file, and `shared` does no I/O), joined here
//! as [`crate::read::trace::build`] joins CUPTI's records.
//!
//! The tables and columns read, as the Nsight Systems SQLite schema reference documents
//! them: `CUPTI_ACTIVITY_KIND_KERNEL` ([`KernelRow`]), `CUPTI_ACTIVITY_KIND_MEMCPY` and
//! `CUPTI_ACTIVITY_KIND_MEMSET` ([`CopyRow`]), `CUPTI_ACTIVITY_KIND_RUNTIME` ([`CallRow`]:
//! which thread made each launch, and when), `NVTX_EVENTS` ([`NvtxRow`]) and `StringIds`
//! (names by id). `globalPid` and `globalTid` are serialized ids: the process id is
//! `(id >> 24) & 0xFFFFFF`, the thread id `id & 0xFFFFFF` (the schema reference's
//! "Serialized process and thread identifiers": `globalTid / 0x1000000 % 0x1000000`,
//! `globalTid % 0x1000000`).

use std::collections::{BTreeMap, HashMap};

use crate::model::trace::{
    CopyKind, RangeScope, Trace, TraceCopy, TraceKernel, TraceProcess, TraceRange, TraceSource,
};
use crate::read::trace::{nest, Parts, Strings};

/// `NVTX_EVENTS.eventType` of a push/pop range (`NvtxPushPopRange`).
pub const NVTX_PUSH_POP: i64 = 59;
/// `NVTX_EVENTS.eventType` of a start/end range (`NvtxStartEndRange`).
pub const NVTX_START_END: i64 = 60;
/// `NVTX_EVENTS.eventType` of a domain's creation (`NvtxDomainCreate`): `text` names
/// `domainId` in its process.
pub const NVTX_DOMAIN_CREATE: i64 = 75;

/// A row of `CUPTI_ACTIVITY_KIND_KERNEL`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KernelRow {
    /// `start`, ns.
    pub start_ns: i64,
    /// `end`, ns.
    pub end_ns: i64,
    /// `deviceId`.
    pub device: i64,
    /// `contextId`.
    pub context: i64,
    /// `streamId`.
    pub stream: i64,
    /// `correlationId`.
    pub correlation: Option<i64>,
    /// `globalPid`.
    pub global_pid: Option<i64>,
    /// `demangledName`: a `StringIds` id.
    pub demangled_name: Option<i64>,
    /// `shortName`: a `StringIds` id.
    pub short_name: Option<i64>,
    /// `mangledName`: a `StringIds` id (recent nsys only).
    pub mangled_name: Option<i64>,
    /// `registersPerThread`.
    pub registers: i64,
    /// `gridX`, `gridY`, `gridZ`.
    pub grid: [i64; 3],
    /// `blockX`, `blockY`, `blockZ`.
    pub block: [i64; 3],
    /// `staticSharedMemory`, bytes.
    pub static_shared: i64,
    /// `dynamicSharedMemory`, bytes.
    pub dynamic_shared: i64,
}

/// A row of `CUPTI_ACTIVITY_KIND_MEMCPY` or `CUPTI_ACTIVITY_KIND_MEMSET`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CopyRow {
    /// `start`, ns.
    pub start_ns: i64,
    /// `end`, ns.
    pub end_ns: i64,
    /// `deviceId`.
    pub device: i64,
    /// `streamId`.
    pub stream: i64,
    /// `correlationId`.
    pub correlation: Option<i64>,
    /// `globalPid`.
    pub global_pid: Option<i64>,
    /// `bytes`.
    pub bytes: i64,
    /// `copyKind` (CUPTI's `CUpti_ActivityMemcpyKind`, `ENUM_CUDA_MEMCPY_OPER`); `None` for
    /// a memory set.
    pub copy_kind: Option<i64>,
}

/// A row of `CUPTI_ACTIVITY_KIND_RUNTIME`: the call that made a launch or a copy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CallRow {
    /// `correlationId`.
    pub correlation: i64,
    /// `globalTid`.
    pub global_tid: i64,
    /// `start`, ns.
    pub start_ns: i64,
}

/// A row of `NVTX_EVENTS` (ranges and domain names; marks and the rest are not read).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NvtxRow {
    /// `start`, ns.
    pub start_ns: i64,
    /// `end`, ns; `None` for a range never closed.
    pub end_ns: Option<i64>,
    /// `eventType`: [`NVTX_PUSH_POP`], [`NVTX_START_END`] or [`NVTX_DOMAIN_CREATE`].
    pub event_type: i64,
    /// `text`: the message where it was not registered.
    pub text: Option<String>,
    /// `textId`: a registered message, a `StringIds` id.
    pub text_id: Option<i64>,
    /// `globalTid`.
    pub global_tid: Option<i64>,
    /// `domainId`.
    pub domain_id: Option<i64>,
}

/// What capture read of an export: the rows, and the strings they point at.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExportRows {
    /// `StringIds`: the names the rows point at, by id.
    pub strings: HashMap<i64, String>,
    /// Kernel executions.
    pub kernels: Vec<KernelRow>,
    /// Copies and memory sets.
    pub copies: Vec<CopyRow>,
    /// The runtime calls.
    pub calls: Vec<CallRow>,
    /// NVTX events.
    pub nvtx: Vec<NvtxRow>,
}

/// A process id from a serialized `globalPid` or `globalTid`.
pub fn pid_of(global: i64) -> u32 {
    ((global >> 24) & 0xFF_FFFF) as u32
}

/// A thread id from a serialized `globalTid`.
pub fn tid_of(global: i64) -> u32 {
    (global & 0xFF_FFFF) as u32
}

/// Values out of range for the model's field, counted for one warning.
#[derive(Default)]
struct Clamp {
    out_of_range: usize,
}

impl Clamp {
    /// `v` as a u32, 0 (and counted) where it is negative or too large.
    fn u32(&mut self, v: i64) -> u32 {
        u32::try_from(v).unwrap_or_else(|_| {
            self.out_of_range += 1;
            0
        })
    }

    /// `v` as a u64, 0 (and counted) where it is negative.
    fn u64(&mut self, v: i64) -> u64 {
        u64::try_from(v).unwrap_or_else(|_| {
            self.out_of_range += 1;
            0
        })
    }
}

/// The launching call of a record, by (process, correlation id).
#[derive(Clone, Copy)]
struct Call {
    tid: u32,
    start_ns: u64,
}

/// One process's records before nesting: its parts, each copy's call time, and its first
/// record's time.
struct Process {
    parts: Parts,
    copy_calls: Vec<Option<u64>>,
    first_ns: u64,
}

/// What joining an export has gathered so far.
struct Builder<'a> {
    rows: &'a ExportRows,
    strings: Strings,
    clamp: Clamp,
    calls: HashMap<(u32, i64), Call>,
    processes: BTreeMap<u32, Process>,
    missing_names: usize,
    unclosed: usize,
}

/// Joins an export's rows into a trace ([`TraceSource::NsysSqlite`]): kernels by their
/// demangled name (the mangled one beside it where it differs), each launch and copy joined
/// to its runtime call (its thread and CPU time), NVTX ranges with their domains, parents
/// and the launches under them, per process as `capture trace`'s records are. Returns the
/// trace and warnings: ranges never closed, values out of range (stored as 0), names that
/// point at no string.
pub fn build(rows: &ExportRows) -> (Trace, Vec<String>) {
    let mut b = Builder {
        rows,
        strings: Strings::default(),
        clamp: Clamp::default(),
        calls: HashMap::new(),
        processes: BTreeMap::new(),
        missing_names: 0,
        unclosed: 0,
    };
    for c in &rows.calls {
        let call = Call {
            tid: tid_of(c.global_tid),
            start_ns: b.clamp.u64(c.start_ns),
        };
        b.calls.insert((pid_of(c.global_tid), c.correlation), call);
    }
    b.kernels();
    b.copies();
    b.ranges();
    b.finish()
}

impl Builder<'_> {
    fn call(&self, pid: u32, correlation: Option<i64>) -> Option<Call> {
        correlation.and_then(|c| self.calls.get(&(pid, c)).copied())
    }

    fn process(&mut self, pid: u32, start_ns: u64) -> &mut Process {
        let p = self.processes.entry(pid).or_insert_with(|| Process {
            parts: Parts::default(),
            copy_calls: Vec::new(),
            first_ns: u64::MAX,
        });
        p.first_ns = p.first_ns.min(start_ns);
        p
    }

    /// The interned string of a `StringIds` id.
    fn name(&mut self, id: Option<i64>) -> Option<u32> {
        let text = id.and_then(|i| self.rows.strings.get(&i))?;
        Some(self.strings.intern(text))
    }

    /// A message: its own text, or its registered string.
    fn text(&self, text: Option<&'_ str>, id: Option<i64>) -> Option<String> {
        text.map(str::to_owned).or_else(|| {
            id.and_then(|i| self.rows.strings.get(&i))
                .map(String::to_owned)
        })
    }

    fn kernels(&mut self) {
        for k in &self.rows.kernels {
            let pid = k.global_pid.map_or(0, pid_of);
            let start_ns = self.clamp.u64(k.start_ns);
            let call = self.call(pid, k.correlation);
            let name = match self
                .name(k.demangled_name)
                .or_else(|| self.name(k.short_name))
            {
                Some(n) => n,
                None => {
                    self.missing_names += 1;
                    self.strings.intern("")
                }
            };
            let mangled = self.name(k.mangled_name).filter(|&m| m != name);
            let c = &mut self.clamp;
            let kernel = TraceKernel {
                name,
                mangled,
                start_ns,
                end_ns: c.u64(k.end_ns).max(start_ns),
                pid,
                device: c.u32(k.device),
                context: c.u32(k.context),
                stream: c.u32(k.stream),
                correlation: k.correlation.map_or(0, |v| c.u32(v)),
                thread: call.map(|c| c.tid),
                launch_ns: call.map(|c| c.start_ns),
                grid: k.grid.map(|v| c.u32(v)),
                block: k.block.map(|v| c.u32(v)),
                registers: c.u32(k.registers),
                static_shared_bytes: c.u32(k.static_shared),
                dynamic_shared_bytes: c.u32(k.dynamic_shared),
                range: None,
            };
            self.process(pid, start_ns).parts.kernels.push(kernel);
        }
    }

    fn copies(&mut self) {
        for r in &self.rows.copies {
            let pid = r.global_pid.map_or(0, pid_of);
            let call = self.call(pid, r.correlation);
            let c = &mut self.clamp;
            let start_ns = c.u64(r.start_ns);
            let copy = TraceCopy {
                kind: r.copy_kind.map_or(CopyKind::Memset, |k| {
                    u8::try_from(k).map_or(CopyKind::Other, CopyKind::from_cupti)
                }),
                bytes: c.u64(r.bytes),
                start_ns,
                end_ns: c.u64(r.end_ns).max(start_ns),
                pid,
                device: c.u32(r.device),
                stream: c.u32(r.stream),
                correlation: r.correlation.map_or(0, |v| c.u32(v)),
                thread: call.map(|c| c.tid),
                range: None,
            };
            let p = self.process(pid, start_ns);
            p.parts.copies.push(copy);
            p.copy_calls.push(call.map(|c| c.start_ns));
        }
    }

    fn ranges(&mut self) {
        let mut domains: HashMap<(u32, i64), String> = HashMap::new();
        for n in &self.rows.nvtx {
            if n.event_type != NVTX_DOMAIN_CREATE {
                continue;
            }
            if let (Some(d), Some(name)) = (n.domain_id, self.text(n.text.as_deref(), n.text_id)) {
                domains.insert((n.global_tid.map_or(0, pid_of), d), name);
            }
        }
        for n in &self.rows.nvtx {
            let scope = match n.event_type {
                NVTX_PUSH_POP => RangeScope::Thread,
                NVTX_START_END => RangeScope::Process,
                _ => continue,
            };
            let pid = n.global_tid.map_or(0, pid_of);
            let text = self.text(n.text.as_deref(), n.text_id).unwrap_or_default();
            let start_ns = self.clamp.u64(n.start_ns);
            if n.end_ns.is_none() {
                self.unclosed += 1;
            }
            let domain = n
                .domain_id
                .and_then(|d| domains.get(&(pid, d)))
                .map(|d| self.strings.intern(d));
            let range = TraceRange {
                name: self.strings.intern(&text),
                domain,
                start_ns,
                end_ns: n.end_ns.map(|e| self.clamp.u64(e).max(start_ns)),
                pid,
                thread: n.global_tid.map(tid_of),
                scope,
                parent: None,
            };
            self.process(pid, start_ns).parts.ranges.push(range);
        }
    }

    /// Orders each process's records, nests its ranges, and appends the processes in the
    /// order they started (their first record).
    fn finish(self) -> (Trace, Vec<String>) {
        let mut trace = Trace {
            source: Some(TraceSource::NsysSqlite),
            ..Trace::default()
        };
        let mut processes: Vec<(u32, Process)> = self.processes.into_iter().collect();
        crate::order::sort_by_key(&mut processes, |(pid, p)| (p.first_ns, *pid));
        for (pid, p) in processes {
            let Process {
                mut parts,
                copy_calls,
                ..
            } = p;
            // Launch order: the order of the calls (correlation ids count up in call order).
            let mut copies: Vec<(TraceCopy, Option<u64>)> =
                parts.copies.drain(..).zip(copy_calls).collect();
            crate::order::sort_by_key(&mut copies, |(c, _)| (c.correlation, c.start_ns));
            let (copies, copy_calls): (Vec<TraceCopy>, Vec<Option<u64>>) =
                copies.into_iter().unzip();
            parts.copies = copies;
            crate::order::sort_by_key(&mut parts.kernels, |k| (k.correlation, k.start_ns));
            nest(&mut parts, &copy_calls, true);
            trace.processes.push(TraceProcess {
                pid,
                ppid: None,
                // nsys wrote the export from a finished report; it says nothing of records
                // lost, so none are claimed.
                complete: true,
                dropped_records: 0,
                cupti_version: None,
            });
            parts.append_to(&mut trace);
        }
        trace.strings = self.strings.list;
        let mut warnings = Vec::new();
        if self.unclosed > 0 {
            warnings.push(format!(
                "{} NVTX range(s) never closed; kept open to the end",
                self.unclosed
            ));
        }
        if self.missing_names > 0 {
            warnings.push(format!(
                "{} kernel(s) whose name points at no string in StringIds; named \"\"",
                self.missing_names
            ));
        }
        if self.clamp.out_of_range > 0 {
            warnings.push(format!(
                "{} value(s) out of range (negative, or too large for their field) stored as 0",
                self.clamp.out_of_range
            ));
        }
        (trace, warnings)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A serialized id as nsys writes one: a hardware id above the process and thread.
    fn global(pid: i64, tid: i64) -> i64 {
        (1 << 56) + (pid << 24) + tid
    }

    fn kernel(pid: i64, correlation: i64, start_ns: i64, name: i64) -> KernelRow {
        KernelRow {
            start_ns,
            end_ns: start_ns + 100,
            correlation: Some(correlation),
            global_pid: Some(global(pid, 0)),
            demangled_name: Some(name),
            grid: [1, 1, 1],
            block: [32, 1, 1],
            ..KernelRow::default()
        }
    }

    #[test]
    fn serialized_ids_give_the_process_and_thread_under_the_hardware_id() {
        let cases: [(i64, u32, u32); 3] = [
            (global(4242, 4243), 4242, 4243),
            (global(0xFF_FFFF, 0xFF_FFFF), 0xFF_FFFF, 0xFF_FFFF),
            ((4242 << 24) + 7, 4242, 7),
        ];
        for (id, pid, tid) in cases {
            assert_eq!((pid_of(id), tid_of(id)), (pid, tid), "{id:#x}");
        }
    }

    /// Correlation ids count from 1 in every process: a launch joins the call of its own
    /// process, and each process's ranges hold only its launches.
    #[test]
    fn launches_join_the_calls_and_ranges_of_their_own_process() {
        let rows = ExportRows {
            strings: HashMap::from([(1, "a".to_owned()), (2, "b".to_owned())]),
            kernels: vec![kernel(10, 1, 500, 1), kernel(20, 1, 600, 2)],
            calls: vec![
                CallRow {
                    correlation: 1,
                    global_tid: global(10, 11),
                    start_ns: 100,
                },
                CallRow {
                    correlation: 1,
                    global_tid: global(20, 21),
                    start_ns: 300,
                },
            ],
            nvtx: vec![
                NvtxRow {
                    start_ns: 50,
                    end_ns: Some(400),
                    event_type: NVTX_PUSH_POP,
                    text: Some("p10".into()),
                    global_tid: Some(global(10, 11)),
                    ..NvtxRow::default()
                },
                NvtxRow {
                    start_ns: 250,
                    end_ns: None,
                    event_type: NVTX_START_END,
                    text: Some("p20".into()),
                    global_tid: Some(global(20, 21)),
                    ..NvtxRow::default()
                },
            ],
            ..ExportRows::default()
        };
        let (trace, warnings) = build(&rows);
        assert_eq!(trace.source, Some(TraceSource::NsysSqlite));
        let pids: Vec<u32> = trace.processes.iter().map(|p| p.pid).collect();
        assert_eq!(pids, [10, 20]);
        // (name, pid, thread, launch time, range) of each kernel.
        type Seen<'a> = (&'a str, u32, Option<u32>, Option<u64>, Option<u32>);
        let seen: Vec<Seen<'_>> = trace
            .kernels
            .iter()
            .map(|k| (trace.kernel_name(k), k.pid, k.thread, k.launch_ns, k.range))
            .collect();
        assert_eq!(
            seen,
            [
                ("a", 10, Some(11), Some(100), Some(0)),
                ("b", 20, Some(21), Some(300), Some(1)),
            ]
        );
        assert_eq!(trace.ranges[1].scope, RangeScope::Process);
        assert_eq!(trace.ranges[1].end_ns, None);
        assert_eq!(
            warnings,
            ["1 NVTX range(s) never closed; kept open to the end"]
        );
    }
}
