//! The record stream the injection library (`inject/`) writes while a program runs, one file
//! per process, and `capture trace` reads back: the one definition of its layout, encoder and
//! decoder together, so the writer and the reader cannot disagree.
//!
//! A file is [`MAGIC`] followed by records, each a tag byte and fixed-width little-endian
//! fields ([`Record`]); a string is written once, before the first record that names it, and
//! records point at it by id. The writer appends whole buffers of records as CUPTI hands them
//! over, so a program that crashes or is killed leaves a file that ends at a record boundary
//! or inside the last record; [`Reader`] returns what came before it with the byte offset
//! where reading stopped. An [`Record::End`] record is written only when the program exits
//! through `exit` (its last buffers flushed): its absence says the record is incomplete.

use std::fmt;

/// The first eight bytes of a trace file; the digit is the layout's version.
pub const MAGIC: &[u8; 8] = b"RLTRACE1";

/// The process that wrote the file (its first record).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProcessRec {
    /// Its process id.
    pub pid: u32,
    /// Its parent's.
    pub ppid: u32,
    /// CUPTI's API version (`cuptiGetVersion`), 0 when unknown.
    pub cupti_version: u32,
    /// CUPTI's clock when recording began, in ns.
    pub start_ns: u64,
}

/// A kernel's execution (CUPTI's `CUpti_ActivityKernel*`, the fields common to every version).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelRec {
    /// Start on the GPU, in ns of CUPTI's clock (the CPU clock the API records use).
    pub start_ns: u64,
    /// End, same clock.
    pub end_ns: u64,
    /// CUDA device ordinal.
    pub device: u32,
    /// CUDA context id.
    pub context: u32,
    /// CUDA stream id.
    pub stream: u32,
    /// The launching API call's correlation id.
    pub correlation: u32,
    /// Grid size.
    pub grid: [u32; 3],
    /// Block size.
    pub block: [u32; 3],
    /// Registers per thread.
    pub registers: u16,
    /// Static shared memory per block, bytes.
    pub static_shared: u32,
    /// Dynamic shared memory per block, bytes.
    pub dynamic_shared: u32,
    /// The name's string id (the mangled name, as the driver knows it).
    pub name: u32,
}

/// A copy (`CUpti_ActivityMemcpy*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CopyRec {
    /// CUPTI's `CUpti_ActivityMemcpyKind` (1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ...).
    pub copy_kind: u8,
    /// Source memory kind (`CUpti_ActivityMemoryKind`).
    pub src_kind: u8,
    /// Destination memory kind.
    pub dst_kind: u8,
    /// CUPTI's flags (1: asynchronous).
    pub flags: u8,
    /// Bytes copied.
    pub bytes: u64,
    /// Start, ns.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// Device ordinal.
    pub device: u32,
    /// Context id.
    pub context: u32,
    /// Stream id.
    pub stream: u32,
    /// The calling API's correlation id.
    pub correlation: u32,
}

/// A memory set (`CUpti_ActivityMemset*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetRec {
    /// Bytes set.
    pub bytes: u64,
    /// Start, ns.
    pub start_ns: u64,
    /// End, ns.
    pub end_ns: u64,
    /// Device ordinal.
    pub device: u32,
    /// Context id.
    pub context: u32,
    /// Stream id.
    pub stream: u32,
    /// The calling API's correlation id.
    pub correlation: u32,
    /// Memory kind (`CUpti_ActivityMemoryKind`).
    pub memory_kind: u16,
}

/// A launch, copy or set call of the CUDA runtime or driver API (`CUpti_ActivityAPI`): where
/// on the CPU, on which thread, a GPU record began.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApiRec {
    /// True for the driver API, false for the runtime.
    pub driver: bool,
    /// CUPTI's callback id of the call.
    pub cbid: u32,
    /// Call start on the CPU, ns.
    pub start_ns: u64,
    /// Call end, ns.
    pub end_ns: u64,
    /// Process id.
    pub pid: u32,
    /// Thread id, as CUPTI numbers threads.
    pub tid: u32,
    /// Correlation id, shared with the GPU record it made.
    pub correlation: u32,
}

/// An NVTX marker edge (`CUpti_ActivityMarker2`): a range's start or end, or an instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MarkerRec {
    /// CUPTI's flags: 1 instantaneous, 2 start, 4 end.
    pub flags: u32,
    /// When, ns.
    pub timestamp_ns: u64,
    /// The id that pairs a start with its end.
    pub id: u32,
    /// The object it belongs to (`CUpti_ActivityObjectKind`: 1 process, 2 thread).
    pub object_kind: u32,
    /// Process id, thread id (for a process or thread object), then 0.
    pub object_id: [u32; 3],
    /// The message's string id (0 on an end record, which carries none).
    pub name: u32,
    /// The domain's string id, 0 for the default domain.
    pub domain: u32,
}

/// One record of a trace file.
#[derive(Clone, Debug, PartialEq)]
pub enum Record {
    /// The writing process (first record).
    Process(ProcessRec),
    /// A string, by id (ids start at 1; 0 means none).
    String {
        /// Its id.
        id: u32,
        /// Its text (lossily UTF-8 when read).
        text: String,
    },
    /// A kernel.
    Kernel(KernelRec),
    /// A copy.
    Copy(CopyRec),
    /// A memory set.
    Set(SetRec),
    /// A launch, copy or set call.
    Api(ApiRec),
    /// An NVTX marker edge.
    Marker(MarkerRec),
    /// CUPTI dropped this many records (its buffers were full).
    Dropped(u64),
    /// Something the injection could not do (a kind CUPTI refused to enable, say).
    Warning(String),
    /// The program exited through `exit` and every buffer was flushed; CUPTI's clock then.
    End(u64),
    /// PM sampling began on a device with these metrics, in the order of every
    /// [`Record::PmSample`]'s values after it.
    PmMetrics(PmMetricsRec),
    /// One PM sampling interval's metric values.
    PmSample(PmSampleRec),
}

/// PM sampling's set-up on one device (`capture trace --counters`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PmMetricsRec {
    /// CUDA device ordinal.
    pub device: u32,
    /// The sampling interval asked for, ns of GPU time.
    pub interval_ns: u64,
    /// The metrics' string ids, in value order.
    pub names: Vec<u32>,
}

/// One PM sampling interval (`CUpti_PmSampling_CounterData_GetSampleInfo` and
/// `cuptiProfilerHostEvaluateToGpuValues`).
#[derive(Clone, Debug, PartialEq)]
pub struct PmSampleRec {
    /// CUDA device ordinal.
    pub device: u32,
    /// The interval's start, as CUPTI gives it (GPU timestamp, ns).
    pub start_ns: u64,
    /// Its end.
    pub end_ns: u64,
    /// The metrics' values over the interval, in the order of the device's
    /// [`Record::PmMetrics`].
    pub values: Vec<f64>,
}

const TAG_PROCESS: u8 = b'P';
const TAG_STRING: u8 = b'S';
const TAG_KERNEL: u8 = b'K';
const TAG_COPY: u8 = b'C';
const TAG_SET: u8 = b'M';
const TAG_API: u8 = b'A';
const TAG_MARKER: u8 = b'R';
const TAG_DROPPED: u8 = b'D';
const TAG_WARNING: u8 = b'W';
const TAG_END: u8 = b'E';
const TAG_PM_METRICS: u8 = b'N';
const TAG_PM_SAMPLE: u8 = b'Q';

/// The most metrics a PM sampling record may name (the reader's bound on a record's size).
pub const MAX_PM_METRICS: usize = 256;

/// The longest string a record may hold; longer ones are cut by the writer.
pub const MAX_STRING: usize = 1 << 20;

fn put32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_text(out: &mut Vec<u8>, text: &[u8]) {
    let text = &text[..text.len().min(MAX_STRING)];
    put32(out, text.len() as u32);
    out.extend_from_slice(text);
}

impl Record {
    /// Appends this record's bytes to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        match self {
            Record::Process(p) => {
                out.push(TAG_PROCESS);
                put32(out, p.pid);
                put32(out, p.ppid);
                put32(out, p.cupti_version);
                put64(out, p.start_ns);
            }
            Record::String { id, text } => encode_string(out, *id, text.as_bytes()),
            Record::Kernel(k) => {
                out.push(TAG_KERNEL);
                put64(out, k.start_ns);
                put64(out, k.end_ns);
                for v in [k.device, k.context, k.stream, k.correlation] {
                    put32(out, v);
                }
                for v in k.grid.iter().chain(&k.block) {
                    put32(out, *v);
                }
                out.extend_from_slice(&k.registers.to_le_bytes());
                put32(out, k.static_shared);
                put32(out, k.dynamic_shared);
                put32(out, k.name);
            }
            Record::Copy(c) => {
                out.push(TAG_COPY);
                out.extend_from_slice(&[c.copy_kind, c.src_kind, c.dst_kind, c.flags]);
                for v in [c.bytes, c.start_ns, c.end_ns] {
                    put64(out, v);
                }
                for v in [c.device, c.context, c.stream, c.correlation] {
                    put32(out, v);
                }
            }
            Record::Set(s) => {
                out.push(TAG_SET);
                for v in [s.bytes, s.start_ns, s.end_ns] {
                    put64(out, v);
                }
                for v in [s.device, s.context, s.stream, s.correlation] {
                    put32(out, v);
                }
                out.extend_from_slice(&s.memory_kind.to_le_bytes());
            }
            Record::Api(a) => {
                out.push(TAG_API);
                out.push(u8::from(a.driver));
                put32(out, a.cbid);
                put64(out, a.start_ns);
                put64(out, a.end_ns);
                for v in [a.pid, a.tid, a.correlation] {
                    put32(out, v);
                }
            }
            Record::Marker(m) => {
                out.push(TAG_MARKER);
                put32(out, m.flags);
                put64(out, m.timestamp_ns);
                put32(out, m.id);
                put32(out, m.object_kind);
                for v in m.object_id {
                    put32(out, v);
                }
                put32(out, m.name);
                put32(out, m.domain);
            }
            Record::Dropped(n) => {
                out.push(TAG_DROPPED);
                put64(out, *n);
            }
            Record::Warning(text) => {
                out.push(TAG_WARNING);
                put_text(out, text.as_bytes());
            }
            Record::End(t) => {
                out.push(TAG_END);
                put64(out, *t);
            }
            Record::PmMetrics(m) => {
                out.push(TAG_PM_METRICS);
                put32(out, m.device);
                put64(out, m.interval_ns);
                put32(out, m.names.len() as u32);
                for &n in &m.names {
                    put32(out, n);
                }
            }
            Record::PmSample(m) => {
                out.push(TAG_PM_SAMPLE);
                put32(out, m.device);
                put64(out, m.start_ns);
                put64(out, m.end_ns);
                put32(out, m.values.len() as u32);
                for &v in &m.values {
                    put64(out, v.to_bits());
                }
            }
        }
    }
}

/// Appends a string record from raw bytes (a C string as CUPTI hands it), without making a
/// `String` first.
pub fn encode_string(out: &mut Vec<u8>, id: u32, text: &[u8]) {
    out.push(TAG_STRING);
    put32(out, id);
    put_text(out, text);
}

/// Why a trace file could not be read further.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    /// Byte offset of the record (or header) that could not be read.
    pub offset: usize,
    /// What was wrong.
    pub reason: String,
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "byte {}: {}", self.offset, self.reason)
    }
}

/// Reads the records of one trace file's bytes in order.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

/// A cursor over one record's fields.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Fields<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let end = self.at.checked_add(N)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        slice.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|b| b[0])
    }
    fn u16(&mut self) -> Option<u16> {
        self.take().map(u16::from_le_bytes)
    }
    fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    fn u32x3(&mut self) -> Option<[u32; 3]> {
        Some([self.u32()?, self.u32()?, self.u32()?])
    }
    fn text(&mut self) -> Option<Result<String, String>> {
        let len = self.u32()? as usize;
        if len > MAX_STRING {
            return Some(Err(format!(
                "a string of {len} bytes, longer than the {MAX_STRING} a writer writes"
            )));
        }
        let end = self.at.checked_add(len)?;
        let slice = self.bytes.get(self.at..end)?;
        self.at = end;
        Some(Ok(String::from_utf8_lossy(slice).into_owned()))
    }
}

impl<'a> Reader<'a> {
    /// A reader over a whole file's bytes; refuses bytes that do not begin with [`MAGIC`].
    pub fn new(bytes: &'a [u8]) -> Result<Self, WireError> {
        if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
            let reason = if bytes.starts_with(b"RLTRACE") {
                "a trace file of another layout version than this capture reads (RLTRACE1)"
            } else {
                "not a trace file written by capture's injection library (no RLTRACE1 header)"
            };
            return Err(WireError {
                offset: 0,
                reason: reason.to_owned(),
            });
        }
        Ok(Reader {
            bytes,
            at: MAGIC.len(),
        })
    }

    /// The byte offset of the next record.
    pub fn offset(&self) -> usize {
        self.at
    }

    /// The next record; `Ok(None)` at the end of the bytes; an error names the offset of a
    /// record that is cut short (the program stopped mid-write) or unknown.
    pub fn next_record(&mut self) -> Result<Option<Record>, WireError> {
        let start = self.at;
        let Some(&tag) = self.bytes.get(start) else {
            return Ok(None);
        };
        let mut f = Fields {
            bytes: self.bytes,
            at: start + 1,
        };
        let cut = || WireError {
            offset: start,
            reason: format!(
                "the record ({}) is cut short: the file ends {} bytes later",
                tag_name(tag),
                self.bytes.len() - start
            ),
        };
        let record = decode(tag, &mut f)
            .ok_or_else(cut)?
            .map_err(|reason| WireError {
                offset: start,
                reason,
            })?;
        self.at = f.at;
        Ok(Some(record))
    }
}

fn tag_name(tag: u8) -> String {
    match tag {
        TAG_PROCESS => "process".into(),
        TAG_STRING => "string".into(),
        TAG_KERNEL => "kernel".into(),
        TAG_COPY => "copy".into(),
        TAG_SET => "memory set".into(),
        TAG_API => "API call".into(),
        TAG_MARKER => "NVTX marker".into(),
        TAG_DROPPED => "dropped count".into(),
        TAG_WARNING => "warning".into(),
        TAG_END => "end".into(),
        TAG_PM_METRICS => "PM sampling metrics".into(),
        TAG_PM_SAMPLE => "PM sample".into(),
        other => format!("unknown tag 0x{other:02x}"),
    }
}

/// One record's fields after its tag: `None` when the bytes end first, `Some(Err)` when they
/// are not a record.
fn decode(tag: u8, f: &mut Fields<'_>) -> Option<Result<Record, String>> {
    let record = match tag {
        TAG_PROCESS => Record::Process(ProcessRec {
            pid: f.u32()?,
            ppid: f.u32()?,
            cupti_version: f.u32()?,
            start_ns: f.u64()?,
        }),
        TAG_STRING => {
            let id = f.u32()?;
            match f.text()? {
                Ok(text) => Record::String { id, text },
                Err(e) => return Some(Err(e)),
            }
        }
        TAG_KERNEL => Record::Kernel(KernelRec {
            start_ns: f.u64()?,
            end_ns: f.u64()?,
            device: f.u32()?,
            context: f.u32()?,
            stream: f.u32()?,
            correlation: f.u32()?,
            grid: f.u32x3()?,
            block: f.u32x3()?,
            registers: f.u16()?,
            static_shared: f.u32()?,
            dynamic_shared: f.u32()?,
            name: f.u32()?,
        }),
        TAG_COPY => Record::Copy(CopyRec {
            copy_kind: f.u8()?,
            src_kind: f.u8()?,
            dst_kind: f.u8()?,
            flags: f.u8()?,
            bytes: f.u64()?,
            start_ns: f.u64()?,
            end_ns: f.u64()?,
            device: f.u32()?,
            context: f.u32()?,
            stream: f.u32()?,
            correlation: f.u32()?,
        }),
        TAG_SET => Record::Set(SetRec {
            bytes: f.u64()?,
            start_ns: f.u64()?,
            end_ns: f.u64()?,
            device: f.u32()?,
            context: f.u32()?,
            stream: f.u32()?,
            correlation: f.u32()?,
            memory_kind: f.u16()?,
        }),
        TAG_API => Record::Api(ApiRec {
            driver: f.u8()? != 0,
            cbid: f.u32()?,
            start_ns: f.u64()?,
            end_ns: f.u64()?,
            pid: f.u32()?,
            tid: f.u32()?,
            correlation: f.u32()?,
        }),
        TAG_MARKER => Record::Marker(MarkerRec {
            flags: f.u32()?,
            timestamp_ns: f.u64()?,
            id: f.u32()?,
            object_kind: f.u32()?,
            object_id: f.u32x3()?,
            name: f.u32()?,
            domain: f.u32()?,
        }),
        TAG_DROPPED => Record::Dropped(f.u64()?),
        TAG_WARNING => match f.text()? {
            Ok(text) => Record::Warning(text),
            Err(e) => return Some(Err(e)),
        },
        TAG_END => Record::End(f.u64()?),
        TAG_PM_METRICS | TAG_PM_SAMPLE => return decode_pm(tag, f),
        other => {
            return Some(Err(format!(
                "unknown record tag 0x{other:02x}: not a record this capture writes"
            )))
        }
    };
    Some(Ok(record))
}

/// A PM sampling record's fields after its tag, as [`decode`] returns them.
fn decode_pm(tag: u8, f: &mut Fields<'_>) -> Option<Result<Record, String>> {
    let record = match tag {
        TAG_PM_METRICS => {
            let device = f.u32()?;
            let interval_ns = f.u64()?;
            let n = f.u32()? as usize;
            if n > MAX_PM_METRICS {
                return Some(Err(format!(
                    "{n} PM sampling metrics, more than the {MAX_PM_METRICS} a writer writes"
                )));
            }
            let names = (0..n).map(|_| f.u32()).collect::<Option<Vec<u32>>>()?;
            Record::PmMetrics(PmMetricsRec {
                device,
                interval_ns,
                names,
            })
        }
        TAG_PM_SAMPLE => {
            let device = f.u32()?;
            let start_ns = f.u64()?;
            let end_ns = f.u64()?;
            let n = f.u32()? as usize;
            if n > MAX_PM_METRICS {
                return Some(Err(format!(
                    "a PM sample of {n} values, more than the {MAX_PM_METRICS} a writer writes"
                )));
            }
            let values = (0..n)
                .map(|_| f.u64().map(f64::from_bits))
                .collect::<Option<Vec<f64>>>()?;
            Record::PmSample(PmSampleRec {
                device,
                start_ns,
                end_ns,
                values,
            })
        }
        _ => return Some(Err(format!("tag 0x{tag:02x} is not a PM sampling record"))),
    };
    Some(Ok(record))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<Record> {
        vec![
            Record::Process(ProcessRec {
                pid: 7,
                ppid: 1,
                cupti_version: 130001,
                start_ns: 5,
            }),
            Record::String {
                id: 1,
                text: "_Z5scalePfi".into(),
            },
            Record::Kernel(KernelRec {
                start_ns: 10,
                end_ns: 20,
                device: 0,
                context: 1,
                stream: 7,
                correlation: 3,
                grid: [4, 1, 1],
                block: [256, 1, 1],
                registers: 32,
                static_shared: 0,
                dynamic_shared: 1024,
                name: 1,
            }),
            Record::Copy(CopyRec {
                copy_kind: 1,
                src_kind: 1,
                dst_kind: 3,
                flags: 1,
                bytes: 4096,
                start_ns: 30,
                end_ns: 40,
                device: 0,
                context: 1,
                stream: 7,
                correlation: 4,
            }),
            Record::Set(SetRec {
                bytes: 64,
                start_ns: 41,
                end_ns: 42,
                device: 0,
                context: 1,
                stream: 7,
                correlation: 5,
                memory_kind: 3,
            }),
            Record::Api(ApiRec {
                driver: false,
                cbid: 211,
                start_ns: 8,
                end_ns: 9,
                pid: 7,
                tid: 99,
                correlation: 3,
            }),
            Record::Marker(MarkerRec {
                flags: 2,
                timestamp_ns: 1,
                id: 1,
                object_kind: 2,
                object_id: [7, 99, 0],
                name: 1,
                domain: 0,
            }),
            Record::Dropped(3),
            Record::Warning("no memset records".into()),
            Record::PmMetrics(PmMetricsRec {
                device: 0,
                interval_ns: 20_000,
                names: vec![1, 2],
            }),
            Record::PmSample(PmSampleRec {
                device: 0,
                start_ns: 100,
                end_ns: 120,
                values: vec![4096.0, 0.5],
            }),
            Record::End(50),
        ]
    }

    #[test]
    fn every_record_reads_back_as_written() {
        let mut bytes = MAGIC.to_vec();
        let records = every_kind();
        for r in &records {
            r.encode(&mut bytes);
        }
        let mut reader = Reader::new(&bytes).expect("as built");
        let mut back = Vec::new();
        while let Some(r) = reader.next_record().expect("as built") {
            back.push(r);
        }
        assert_eq!(back, records);
    }

    #[test]
    fn a_file_cut_anywhere_reads_up_to_the_cut_with_its_offset() {
        let mut bytes = MAGIC.to_vec();
        for r in every_kind() {
            r.encode(&mut bytes);
        }
        for cut in MAGIC.len()..bytes.len() {
            let mut reader = Reader::new(&bytes[..cut]).expect("as built");
            loop {
                match reader.next_record() {
                    Ok(Some(_)) => continue,
                    Ok(None) => break,
                    Err(e) => {
                        assert!(e.offset < cut, "{e}");
                        assert!(e.reason.contains("cut short"), "{e}");
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn junk_is_refused_by_name() {
        assert!(Reader::new(b"hello").is_err());
        let mut bytes = MAGIC.to_vec();
        bytes.push(b'Z');
        let e = Reader::new(&bytes)
            .expect("as built")
            .next_record()
            .expect_err("an error");
        assert_eq!(e.offset, 8);
        assert!(e.reason.contains("unknown record tag 0x5a"), "{e}");
        let mut long = MAGIC.to_vec();
        long.push(b'W');
        long.extend_from_slice(&u32::MAX.to_le_bytes());
        let e = Reader::new(&long)
            .expect("as built")
            .next_record()
            .expect_err("an error");
        assert!(e.reason.contains("longer than"), "{e}");
    }
}
