//! The second core for `capture import`: reading and splitting an export on one thread
//! while the other turns its records into launches; rendering an artifact's value arrays on
//! two threads ([`write_artifact_json`]), and writing its bytes to disk on a third while
//! they are rendered. Both hand work over through a bounded
//! channel, so memory stays bounded and the result is the one the single-threaded path
//! gives: the shared reader's two stages ([`shared::read::ncu::Rows`], [`shared::read::ncu::read_rows`])
//! run in the same order on the same records, and the bytes are written in order.
//!
//! `shared` stays free of threads (it builds for wasm32, where the viewer runs the same
//! stages in turn); this module only wires them up. Used by [`crate::files`].

use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;
use std::thread;

use shared::analysis::work_vector;
use shared::error::NcuError;
use shared::model::artifact::Metrics;
use shared::read::ncu::{self, Export, Row, RowStream, Rows};
use shared::Artifact;

/// Rows handed from the splitting to the converting thread at a time: one hand-over per
/// row would wake one thread or the other per row, tens of thousands of times.
const ROWS_PER_BATCH: usize = 16;

/// Batches in flight between the two threads (a full-set row is some 35 KB with its field
/// list).
const BATCHES_IN_FLIGHT: usize = 4;

/// Value arrays a helper may have rendered ahead of the writer (a full-set launch's is
/// some 15 KB).
const ARRAYS_IN_FLIGHT: usize = 64;

/// Size of each block of artifact bytes handed to the writing thread.
const WRITE_BLOCK_BYTES: usize = 128 << 10;

/// Blocks in flight to the writing thread: room for it to sync to disk (see
/// [`SYNC_EVERY_BYTES`]) while the renderer keeps going. Each is memory held at the
/// import's peak, when every launch is too (64 blocks of 1 MB held up to 64 MB; eight of
/// 128 KB, 1 MB in all, write a 433 MB artifact as fast on the developer VM).
const WRITE_BLOCKS_IN_FLIGHT: usize = 8;

/// The writing thread syncs the file to disk after every this many bytes, so that the
/// final sync before the rename (see `files::write_atomic_with`) has little left to wait
/// for: the disk works while the artifact is still being rendered. As many bytes as the
/// blocks in flight hold, so the renderer goes on during a sync.
const SYNC_EVERY_BYTES: u64 = 1 << 20;

/// Reads one export: [`Rows`] reads and splits `input` on a second thread, and this thread
/// converts the rows into launches ([`ncu::read_rows`]), gathering them as
/// [`ncu::read_export`] does. Same result, same errors.
pub fn read_export<R: Read + Send>(input: R) -> Result<Export, NcuError> {
    let rows = Rows::open(input)?;
    let header = rows.header().clone();
    thread::scope(|scope| {
        let (sender, receiver) = sync_channel(BATCHES_IN_FLIGHT);
        // Read rows go back to the splitter, whose next rows reuse their buffers.
        let (give_back, taken_back) = sync_channel(BATCHES_IN_FLIGHT + 1);
        let queued = Arc::new(AtomicUsize::new(0));
        let waiting = Arc::clone(&queued);
        let splitter = scope.spawn(move || split(rows, &sender, &taken_back, &waiting));
        let mut stream = Handed {
            batches: receiver,
            batch: Vec::new().into_iter(),
            give_back,
            read: Vec::new(),
            queued,
        };
        let mut launches = ncu::Launches::default();
        let read = ncu::read_rows(&header, &mut stream, &mut |page, launch| {
            launches.push(page, launch);
        });
        // An error here stops the splitter at its next batch.
        drop(stream);
        let skipped = splitter
            .join()
            .map_err(|_| NcuError::Io("the reading thread failed".into()))?;
        let summary = read?.finish(skipped)?;
        Ok(launches.into_export(summary))
    })
}

/// A batch of rows (or the error that ends them, last).
type Batch = Vec<Result<Row, NcuError>>;

/// The splitting thread: batches of rows into `sender` until the end or an error; the
/// warning about dropped lines at the end. `queued` counts the batches sent and not yet
/// taken: the splitter reads the digits of short fields itself (see [`Rows::read_digits`])
/// while the converter has batches waiting (it is the slower, so this thread takes work
/// off it), and leaves them to the converter once it waits for batches. Either way the
/// rows convert to the same launches.
fn split<R: Read>(
    mut rows: Rows<R>,
    sender: &SyncSender<Batch>,
    taken_back: &Receiver<Vec<Row>>,
    queued: &AtomicUsize,
) -> Option<ncu::Warning> {
    let mut ended = false;
    while !ended {
        match queued.load(Ordering::Relaxed) {
            0 => rows.read_digits(false),
            n if n + 1 >= BATCHES_IN_FLIGHT => rows.read_digits(true),
            _ => {}
        }
        while let Ok(read) = taken_back.try_recv() {
            for row in read {
                rows.recycle(row);
            }
        }
        let mut batch = Vec::with_capacity(ROWS_PER_BATCH);
        while batch.len() < ROWS_PER_BATCH {
            match rows.next() {
                Some(row) => {
                    ended = row.is_err();
                    batch.push(row);
                    if ended {
                        break;
                    }
                }
                None => {
                    ended = true;
                    break;
                }
            }
        }
        if batch.is_empty() {
            continue;
        }
        queued.fetch_add(1, Ordering::Relaxed);
        if sender.send(batch).is_err() {
            // The converter stopped (an error of its own); nothing more is wanted.
            break;
        }
    }
    rows.skipped_warning()
}

/// The converting thread's side: rows from the batches, read rows given back in batches.
struct Handed {
    batches: Receiver<Batch>,
    batch: std::vec::IntoIter<Result<Row, NcuError>>,
    give_back: SyncSender<Vec<Row>>,
    read: Vec<Row>,
    /// Batches sent and not yet taken (see [`split`]).
    queued: Arc<AtomicUsize>,
}

impl RowStream for Handed {
    fn next_row(&mut self) -> Option<Result<Row, NcuError>> {
        loop {
            if let Some(row) = self.batch.next() {
                return Some(row);
            }
            self.batch = self.batches.recv().ok()?.into_iter();
            self.queued.fetch_sub(1, Ordering::Relaxed);
        }
    }

    fn recycle(&mut self, row: Row) {
        self.read.push(row);
        if self.read.len() >= ROWS_PER_BATCH {
            // When the splitter has enough back already, these are simply dropped.
            let _ = self.give_back.try_send(std::mem::take(&mut self.read));
        }
    }
}

/// Each kernel's work vector as the artifact is written, the counters' columns looked up
/// once for the kernels that share them.
fn work_of() -> shared::model::artifact::WorkOf {
    let mut vectors = work_vector::Vectors::default();
    Box::new(move |kernel| vectors.of_kernel(kernel))
}

/// Writes `artifact` as [`Artifact::write_json`] does, the launches' value arrays rendered
/// by this thread and a helper together: each array is claimed by whichever thread gets to
/// it first (an atomic counter in the order of [`Artifact::value_arrays`]), and this thread
/// writes them in order, waiting for the helper's when it claimed the next one. The bytes
/// are [`Metrics::json_array`]'s either way, so the file is the same.
pub fn write_artifact_json(artifact: &Artifact, out: &mut dyn Write) -> io::Result<()> {
    if artifact.kernels.iter().map(launches_of).sum::<usize>() < 2 {
        let varying = artifact.varying_columns();
        return artifact
            .write_json_computing(out, None, &varying, work_of())
            .map_err(io::Error::from);
    }
    // Each counter set's varying columns, a scan of every value: once, for both threads.
    let varying = artifact.varying_columns();
    // The first index nobody has claimed.
    let next = Arc::new(AtomicUsize::new(0));
    thread::scope(|scope| {
        let (sender, receiver) = sync_channel::<(usize, usize, Vec<u8>)>(ARRAYS_IN_FLIGHT);
        let claim = Arc::clone(&next);
        let ahead = &varying;
        scope.spawn(move || {
            // Walked forward to each claimed index (claims only grow).
            let mut arrays = artifact.value_arrays(ahead);
            let mut at = 0;
            loop {
                let i = claim.fetch_add(1, Ordering::AcqRel);
                let Some((m, only)) = arrays.nth(i.saturating_sub(at)) else {
                    break;
                };
                at = i + 1;
                let bytes = m.json_array(only.as_deref());
                if sender.send((i, address(m), bytes)).is_err() {
                    break;
                }
            }
        });
        let mut pending: Option<(usize, usize, Vec<u8>)> = None;
        let source = move |i: usize, m: &Metrics, only: Option<&[u32]>, buf: &mut Vec<u8>| {
            *buf = loop {
                if next.load(Ordering::Acquire) <= i {
                    // Nobody has claimed it: this thread renders it, unless the helper
                    // claims it first.
                    if next
                        .compare_exchange(i, i + 1, Ordering::AcqRel, Ordering::Acquire)
                        .is_ok()
                    {
                        break m.json_array(only);
                    }
                    continue;
                }
                // The helper claimed it; its arrays arrive in claim order.
                let item = pending.take().or_else(|| receiver.recv().ok());
                match item {
                    Some((j, at, bytes)) if j == i && at == address(m) => break bytes,
                    Some((j, _, _)) if j < i => continue,
                    // Not the array asked for (the order differs): render it here.
                    other => {
                        pending = other.filter(|(j, _, _)| *j > i);
                        break m.json_array(only);
                    }
                }
            };
        };
        artifact
            .write_json_computing(out, Some(Box::new(source)), &varying, work_of())
            .map_err(io::Error::from)
        // Leaving the scope drops the receiver (inside `source`, dropped with the
        // serializer's state), which ends the helper.
    })
}

/// Launches of a kernel, cold and warm.
fn launches_of(kernel: &shared::model::artifact::KernelRecord) -> usize {
    [kernel.cold.as_ref(), kernel.warm.as_deref()]
        .iter()
        .filter_map(|set| set.map(|s| s.launches.len()))
        .sum()
}

/// A row's address, to check that an array rendered ahead is the one asked for.
fn address(m: &Metrics) -> usize {
    m as *const Metrics as usize
}

/// A writer whose bytes a second thread writes to a file, in order, syncing it every
/// [`SYNC_EVERY_BYTES`]. [`BackgroundWriter::finish`] returns the file once everything is
/// written, or the first error.
pub struct BackgroundWriter {
    block: Vec<u8>,
    sender: Option<SyncSender<Vec<u8>>>,
    /// Blocks the writing thread has written, for the next ones: the same few blocks go
    /// round (a fresh one each time left the allocator's heap ragged beside the launches).
    written: Receiver<Vec<u8>>,
    thread: Option<thread::JoinHandle<io::Result<File>>>,
}

impl BackgroundWriter {
    /// Starts the writing thread over `file`.
    pub fn new(file: File) -> io::Result<Self> {
        let (sender, receiver) = sync_channel(WRITE_BLOCKS_IN_FLIGHT);
        let (give_back, written) = sync_channel(WRITE_BLOCKS_IN_FLIGHT + 1);
        let thread = thread::Builder::new()
            .name("artifact-writer".into())
            .spawn(move || write_blocks(file, receiver, give_back))?;
        Ok(BackgroundWriter {
            block: Vec::with_capacity(WRITE_BLOCK_BYTES),
            sender: Some(sender),
            written,
            thread: Some(thread),
        })
    }

    /// Hands the current block to the writing thread.
    fn send_block(&mut self) -> io::Result<()> {
        let next = match self.written.try_recv() {
            Ok(mut used) => {
                used.clear();
                used
            }
            Err(_) => Vec::with_capacity(WRITE_BLOCK_BYTES),
        };
        let block = std::mem::replace(&mut self.block, next);
        match &self.sender {
            Some(sender) if sender.send(block).is_ok() => Ok(()),
            // The writing thread stopped on an error, which `finish` returns.
            _ => Err(io::Error::other("the writing thread stopped")),
        }
    }

    /// Writes out what is left and waits for the writing thread: the file, with every
    /// byte written to it, or the first error.
    pub fn finish(mut self) -> io::Result<File> {
        let sent = if self.block.is_empty() {
            Ok(())
        } else {
            self.send_block()
        };
        self.sender = None;
        let written = match self.thread.take().map(thread::JoinHandle::join) {
            Some(Ok(result)) => result,
            _ => Err(io::Error::other("the writing thread failed")),
        };
        // The thread's own error says more than "stopped".
        let file = written?;
        sent.map(|()| file)
    }
}

impl Write for BackgroundWriter {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        self.write_all(data)?;
        Ok(data.len())
    }

    fn write_all(&mut self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let room = WRITE_BLOCK_BYTES - self.block.len().min(WRITE_BLOCK_BYTES);
            let (now, later) = data.split_at(room.min(data.len()));
            self.block.extend_from_slice(now);
            data = later;
            if self.block.len() >= WRITE_BLOCK_BYTES {
                self.send_block()?;
            }
        }
        Ok(())
    }

    /// Blocks go out when full and at [`BackgroundWriter::finish`]; a flush has nothing
    /// to add (the artifact writer flushes once, at its end).
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// The writing thread: every block into `file` in order, a sync every
/// [`SYNC_EVERY_BYTES`], each block handed back to be filled again.
fn write_blocks(
    mut file: File,
    blocks: Receiver<Vec<u8>>,
    give_back: SyncSender<Vec<u8>>,
) -> io::Result<File> {
    let mut unsynced = 0u64;
    for block in blocks {
        file.write_all(&block)?;
        unsynced += block.len() as u64;
        if unsynced >= SYNC_EVERY_BYTES {
            file.sync_data()?;
            unsynced = 0;
        }
        // Dropped when the renderer has enough in hand.
        let _ = give_back.try_send(block);
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const RAW: &str = include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
    const DETAILS: &str = include_str!("../../../tests/fixtures/ncu-h200/probe_full_details.csv");

    #[test]
    fn two_threads_read_what_one_reads() {
        for text in [RAW, DETAILS, "\"ID\",\"Kernel Name\"\n"] {
            let one = ncu::read_export(text.as_bytes());
            let two = read_export(text.as_bytes());
            assert_eq!(one, two);
        }
    }

    /// `RAW`'s header and units rows, then its data rows `copies` times over with fresh
    /// IDs: many batches, so rows are handed over and their buffers recycled.
    fn repeated(copies: usize) -> String {
        let mut lines = RAW.lines();
        let mut text = String::new();
        for _ in 0..2 {
            text.push_str(lines.next().unwrap_or_default());
            text.push('\n');
        }
        let data: Vec<&str> = lines.filter(|l| !l.is_empty()).collect();
        for i in 0..copies * data.len() {
            let row = data[i % data.len()];
            let rest = row.split_once(',').map_or("", |(_, rest)| rest);
            text.push_str(&format!("\"{i}\",{rest}\n"));
        }
        text
    }

    #[test]
    fn two_threads_read_what_one_reads_over_many_batches() {
        let text = repeated(40);
        let one = ncu::read_export(text.as_bytes());
        assert!(one.as_ref().is_ok_and(|e| e.launches.len() == 240));
        assert_eq!(one, read_export(text.as_bytes()));

        // A row cut short partway (the 150th launch): the same error or warning either way.
        let mut lines: Vec<&str> = text.lines().collect();
        let cut = &lines[152][..lines[152].len() / 2];
        lines[152] = cut;
        let broken = lines.join("\n");
        assert_eq!(
            ncu::read_export(broken.as_bytes()),
            read_export(broken.as_bytes())
        );
    }

    #[test]
    fn two_threads_render_the_artifact_one_renders() {
        let export = ncu::read_export(RAW.as_bytes()).unwrap_or_else(|e| panic!("{e}"));
        let mut launches = export.launches;
        // Enough launches for both threads to take some.
        let copies: Vec<_> = (0..50).flat_map(|_| launches.clone()).collect();
        launches.extend(copies);
        let artifact = shared::analysis::merge::import_launches(
            launches,
            export.warnings,
            shared::model::artifact::Provenance::default(),
        );
        let mut out = Vec::new();
        write_artifact_json(&artifact, &mut out).unwrap_or_else(|e| panic!("{e}"));
        let mut one = Vec::new();
        artifact
            .write_json_computing(&mut one, None, &artifact.varying_columns(), work_of())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(out == one);
        assert!(String::from_utf8_lossy(&out).contains("\"work\": {"));
    }

    #[test]
    fn the_background_writer_writes_every_byte_in_order() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("out.bin");
        let file = File::create(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut writer = BackgroundWriter::new(file).unwrap_or_else(|e| panic!("{e}"));
        let mut expected = Vec::new();
        for i in 0..5000u32 {
            let piece = vec![(i % 251) as u8; (i as usize * 7) % 3000];
            writer.write_all(&piece).unwrap_or_else(|e| panic!("{e}"));
            expected.extend_from_slice(&piece);
        }
        drop(writer.finish().unwrap_or_else(|e| panic!("{e}")));
        assert!(std::fs::read(&path).ok() == Some(expected));
    }
}
