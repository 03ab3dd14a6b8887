//! Where the report's bytes come from: a slice already in memory (the browser's file, a
//! mapped file), borrowed without copying, or any `Read`, read one frame (header or
//! message) at a time into one reused buffer.
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
        let mut chunk = [0u8; 64 * 1024];
        while (self.buf.len() as u64) < n {
            let want = (n - self.buf.len() as u64).min(chunk.len() as u64) as usize;
            let Some(into) = chunk.get_mut(..want) else {
                break;
            };
            match self.inner.read(into) {
                Ok(0) => break,
                Ok(got) => {
                    if self.buf.capacity() - self.buf.len() < got {
                        let left = (n - self.buf.len() as u64).min(READ_CHUNK as u64) as usize;
                        self.buf.reserve(left.max(got));
                    }
                    self.buf
                        .extend_from_slice(into.get(..got).unwrap_or_default());
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(ReportError::Io(e.to_string())),
            }
        }
        self.offset += self.buf.len() as u64;
        if (self.buf.len() as u64) < n {
            Ok(Take::Short(self.buf.len() as u64))
        } else {
            Ok(Take::Bytes(&self.buf))
        }
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
}
