//! Where the report's bytes come from: a slice already in memory (the browser's file, a
//! mapped file), borrowed without copying, or any `Read`, read one frame (header or
//! message) at a time straight into one reused buffer. Frames the decoder does not read
//! (the kernel binaries, most of a report's bytes) are skipped: a slice steps over them,
//! a reader reads them into that buffer a chunk at a time and drops them.
//!
//! Neither allocates more than the input holds: a slice checks a declared size against
//! what is left, and a reader grows its buffer only as bytes arrive, so a corrupt size
//! prefix of 4 GB costs nothing but the read that finds the end.

use std::io::Read;

use crate::error::ReportError;

/// Bytes read at most per `read` call of a reader, and reserved ahead at most.
const READ_CHUNK: usize = 1 << 20;

/// The next `n` bytes of the input, or how many there were when fewer.
pub enum Take<'b> {
    /// All `n` bytes.
    Bytes(&'b [u8]),
    /// The input ended first, after this many bytes (consumed).
    Short(u64),
}

/// A source of report bytes, read front to back.
pub trait Input {
    /// Absolute offset of the next byte.
    fn offset(&self) -> u64;
    /// The next `n` bytes, valid until the next call.
    fn take(&mut self, n: u64) -> Result<Take<'_>, ReportError>;
    /// Steps over the next `n` bytes: `None` when they were all there, else how many were
    /// (consumed).
    fn skip(&mut self, n: u64) -> Result<Option<u64>, ReportError>;
}

/// A report in memory.
pub struct SliceInput<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> SliceInput<'a> {
    /// Reads `data` from its start.
    pub fn new(data: &'a [u8]) -> Self {
        SliceInput { data, pos: 0 }
    }
}

impl Input for SliceInput<'_> {
    fn offset(&self) -> u64 {
        self.pos as u64
    }

    fn take(&mut self, n: u64) -> Result<Take<'_>, ReportError> {
        let rest = self.data.get(self.pos..).unwrap_or_default();
        match usize::try_from(n).ok().and_then(|n| rest.get(..n)) {
            Some(bytes) => {
                self.pos += bytes.len();
                Ok(Take::Bytes(bytes))
            }
            None => {
                self.pos = self.data.len();
                Ok(Take::Short(rest.len() as u64))
            }
        }
    }

    fn skip(&mut self, n: u64) -> Result<Option<u64>, ReportError> {
        Ok(match self.take(n)? {
            Take::Bytes(_) => None,
            Take::Short(k) => Some(k),
        })
    }
}

/// A report streamed from a reader.
pub struct ReadInput<R> {
    inner: R,
    buf: Vec<u8>,
    offset: u64,
}

impl<R: Read> ReadInput<R> {
    /// Reads `inner` from its current position, counted as offset 0.
    pub fn new(inner: R) -> Self {
        ReadInput {
            inner,
            buf: Vec::new(),
            offset: 0,
        }
    }
}

impl<R: Read> Input for ReadInput<R> {
    fn offset(&self) -> u64 {
        self.offset
    }

    fn take(&mut self, n: u64) -> Result<Take<'_>, ReportError> {
        self.buf.clear();
        let got = self.fill(n, false)?;
        self.offset += got;
        if got < n {
            Ok(Take::Short(got))
        } else {
            Ok(Take::Bytes(&self.buf))
        }
    }

    fn skip(&mut self, n: u64) -> Result<Option<u64>, ReportError> {
        let got = self.fill(n, true)?;
        self.offset += got;
        Ok((got < n).then_some(got))
    }
}

impl<R: Read> ReadInput<R> {
    /// Reads up to `n` bytes into the buffer, straight from the reader. The buffer grows
    /// to at most [`READ_CHUNK`] beyond what has arrived (a corrupt size costs nothing),
    /// and is zeroed once per frame, not per read, so a reader that returns a few bytes at
    /// a time costs no more. With `drop`, each chunk is dropped once read, so the buffer
    /// never outgrows one chunk. Returns how many bytes were read.
    fn fill(&mut self, n: u64, drop: bool) -> Result<u64, ReportError> {
        let mut total = 0u64;
        let mut filled = self.buf.len();
        while total < n {
            if drop {
                filled = 0;
            }
            let want = (n - total).min(READ_CHUNK as u64) as usize;
            if self.buf.len() < filled + want {
                self.buf.resize(filled + want, 0);
            }
            let into = self.buf.get_mut(filled..filled + want).unwrap_or_default();
            match self.inner.read(into) {
                Ok(0) => break,
                Ok(got) => {
                    filled += got;
                    total += got as u64;
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.buf.clear();
                    return Err(ReportError::Io(e.to_string()));
                }
            }
        }
        self.buf.truncate(if drop { 0 } else { filled });
        Ok(total)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn takes(input: &mut dyn Input, sizes: &[u64]) -> Vec<Result<Vec<u8>, u64>> {
        sizes
            .iter()
            .map(|&n| match input.take(n).expect("no I/O error") {
                Take::Bytes(b) => Ok(b.to_vec()),
                Take::Short(k) => Err(k),
            })
            .collect()
    }

    #[test]
    fn slices_and_readers_take_the_same_frames() {
        let data = b"abcdefgh";
        let sizes = [3, 0, 4, 5, 1];
        let want: Vec<Result<Vec<u8>, u64>> = vec![
            Ok(b"abc".to_vec()),
            Ok(Vec::new()),
            Ok(b"defg".to_vec()),
            Err(1),
            Err(0),
        ];
        assert_eq!(takes(&mut SliceInput::new(data), &sizes), want);
        assert_eq!(takes(&mut ReadInput::new(&data[..]), &sizes), want);
        let mut huge = ReadInput::new(&data[..]);
        assert!(matches!(huge.take(u64::MAX), Ok(Take::Short(8))));
        assert_eq!(huge.offset(), 8);
        let mut huge = SliceInput::new(data);
        assert!(matches!(huge.take(u64::MAX), Ok(Take::Short(8))));
    }

    #[test]
    fn slices_and_readers_skip_alike() {
        let data = b"abcdefgh";
        for input in [
            &mut SliceInput::new(data) as &mut dyn Input,
            &mut ReadInput::new(&data[..]),
        ] {
            assert_eq!(input.skip(3).ok(), Some(None));
            assert_eq!(input.offset(), 3);
            assert!(matches!(input.take(2), Ok(Take::Bytes(b"de"))));
            assert_eq!(input.skip(u64::MAX).ok(), Some(Some(3)));
            assert_eq!(input.offset(), 8);
            assert_eq!(input.skip(0).ok(), Some(None));
        }
    }
}
