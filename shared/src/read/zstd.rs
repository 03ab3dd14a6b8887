//! zstd streams (RFC 8878) un-compressed as they are read: a `.ncu-repz` report (Nsight
//! Compute 2025.4 on), or any input compressed with the `zstd` command. [`Decoder`] turns a
//! buffered reader of the compressed bytes into a reader of what they hold, frame after
//! frame, skippable frames passed over wherever they stand, each frame's checksum checked,
//! and at most a given number of bytes out, so that neither a report of hundreds of MB nor
//! a small file that decodes to gigabytes is ever held whole. [`super::kind`] tells a zstd
//! stream from its first bytes ([`is_zstd`]); `capture` (`capture/src/files/`) and the
//! viewer (`viewer/src/ctx.rs`) wrap their input in a [`Decoder`] and ask again what the
//! bytes that come out are.
//!
//! The decoding itself is `ruzstd`'s, pure Rust, so the same code runs in `capture` and in
//! the browser.

use std::io::{BufRead, Read};

use ruzstd::decoding::errors::{FrameDecoderError, ReadFrameHeaderError};
use ruzstd::decoding::{BlockDecodingStrategy, FrameDecoder};

use crate::error::ZstdError;

/// The four bytes a zstd frame starts with (`0xFD2FB528`, little-endian).
pub const MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Whether `first` starts a zstd stream: a frame's [`MAGIC`], or a skippable frame's
/// (`0x184D2A50` to `0x184D2A5F`, little-endian), which may stand before the first frame.
pub fn is_zstd(first: &[u8]) -> bool {
    match first {
        [0x28, 0xB5, 0x2F, 0xFD, ..] => true,
        [low, 0x2A, 0x4D, 0x18, ..] => low & 0xF0 == 0x50,
        _ => false,
    }
}

/// The largest window a frame may ask for: 128 MiB, libzstd's own default limit
/// (`ZSTD_WINDOWLOG_LIMIT_DEFAULT`) and ruzstd's; the `zstd` command needs `--long` to go
/// past it. A frame that asks for more is refused before anything is allocated for it.
pub const MAX_WINDOW_BYTES: u64 = 128 << 20;

/// A reader of what the zstd stream `source` holds. Errors are [`std::io::Error`]s (so the
/// readers above it take it as any reader) holding a [`ZstdError`] that names the byte of the
/// compressed stream where the problem was.
pub struct Decoder<R> {
    source: Counted<R>,
    /// The frame being decoded; `None` between frames.
    frame: Option<FrameDecoder>,
    /// A decoder kept for the next frame (its buffers are reused).
    spare: Option<FrameDecoder>,
    /// How many frames have begun (skippable ones not counted).
    frames: u32,
    /// Bytes handed out so far.
    out_bytes: u64,
    /// The most bytes handed out before the read that passes it fails.
    max_bytes: u64,
    /// The error that ended the stream, given again to every later read.
    failed: Option<ZstdError>,
}

impl<R: BufRead> Decoder<R> {
    /// A decoder of `source`, which must start a zstd stream ([`is_zstd`]), that fails once
    /// more than `max_bytes` would come out of it ([`ZstdError::TooLarge`]).
    pub fn new(source: R, max_bytes: u64) -> Self {
        Decoder {
            source: Counted {
                inner: source,
                read: 0,
            },
            frame: None,
            spare: None,
            frames: 0,
            out_bytes: 0,
            max_bytes,
            failed: None,
        }
    }

    /// How many bytes of the compressed stream have been read.
    pub fn compressed_bytes(&self) -> u64 {
        self.source.read
    }

    /// Fills `buf` with the next bytes of the stream: 0 at its end, after the last frame.
    fn next(&mut self, buf: &mut [u8]) -> Result<usize, ZstdError> {
        loop {
            let Some(frame) = self.frame.as_mut() else {
                if !self.start_frame()? {
                    return Ok(0);
                }
                continue;
            };
            if frame.can_collect() > 0 {
                let room = self.max_bytes.saturating_sub(self.out_bytes);
                if room == 0 {
                    return Err(ZstdError::TooLarge {
                        offset: self.source.read,
                        max_bytes: self.max_bytes,
                    });
                }
                let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
                let n = frame
                    .read(buf.get_mut(..want).unwrap_or_default())
                    .map_err(|e| self.corrupt(&e.to_string()))?;
                self.out_bytes += n as u64;
                return Ok(n);
            }
            if frame.is_finished() {
                self.end_frame()?;
                continue;
            }
            if let Err(e) =
                frame.decode_blocks(&mut self.source, BlockDecodingStrategy::UptoBlocks(1))
            {
                return Err(self.broken(&e));
            }
        }
    }

    /// Begins the next frame, passing over skippable ones; whether there is one (the
    /// source ending between frames ends the stream).
    fn start_frame(&mut self) -> Result<bool, ZstdError> {
        loop {
            let at_end = self
                .source
                .fill_buf()
                .map_err(|e| ZstdError::Io(e.to_string()))?
                .is_empty();
            if at_end {
                if self.frames == 0 && self.source.read == 0 {
                    return Err(ZstdError::NoFrame);
                }
                return Ok(false);
            }
            let offset = self.source.read;
            let mut frame = self.spare.take().unwrap_or_default();
            frame.set_max_window_size(MAX_WINDOW_BYTES);
            match frame.reset(&mut self.source) {
                Ok(()) => {
                    self.frames += 1;
                    self.frame = Some(frame);
                    return Ok(true);
                }
                Err(FrameDecoderError::ReadFrameHeaderError(ReadFrameHeaderError::SkipFrame {
                    length,
                    ..
                })) => {
                    self.spare = Some(frame);
                    let skipped = std::io::copy(
                        &mut (&mut self.source).take(u64::from(length)),
                        &mut std::io::sink(),
                    )
                    .map_err(|e| ZstdError::Io(e.to_string()))?;
                    if skipped < u64::from(length) {
                        return Err(ZstdError::Truncated {
                            offset: self.source.read,
                            what: format!(
                                "a skippable frame (at byte {offset}, {length} bytes declared)"
                            ),
                        });
                    }
                }
                Err(e) => {
                    self.frames += 1;
                    return Err(self.broken(&e));
                }
            }
        }
    }

    /// Ends a frame whose bytes are all handed out: its checksum, where it has one, must be
    /// that of what it decoded to.
    fn end_frame(&mut self) -> Result<(), ZstdError> {
        let Some(frame) = self.frame.take() else {
            return Ok(());
        };
        if let (Some(stored), Some(computed)) = (
            frame.get_checksum_from_data(),
            frame.get_calculated_checksum(),
        ) {
            if stored != computed {
                return Err(ZstdError::Checksum {
                    offset: self.source.read.saturating_sub(4),
                    frame: self.frames,
                    stored,
                    computed,
                });
            }
        }
        self.spare = Some(frame);
        Ok(())
    }

    /// The error for a frame that does not decode: cut short where the source has ended,
    /// else corrupt.
    fn broken(&mut self, e: &FrameDecoderError) -> ZstdError {
        let at_end = self
            .source
            .fill_buf()
            .map(<[u8]>::is_empty)
            .unwrap_or(false);
        if at_end {
            ZstdError::Truncated {
                offset: self.source.read,
                what: format!("frame {}", self.frames),
            }
        } else {
            self.corrupt(&e.to_string())
        }
    }

    fn corrupt(&self, reason: &str) -> ZstdError {
        ZstdError::Corrupt {
            offset: self.source.read,
            frame: self.frames,
            reason: reason.to_owned(),
        }
    }
}

impl<R: BufRead> Read for Decoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if let Some(e) = &self.failed {
            return Err(std::io::Error::other(e.clone()));
        }
        if buf.is_empty() {
            return Ok(0);
        }
        self.next(buf).map_err(|e| {
            self.failed = Some(e.clone());
            std::io::Error::other(e)
        })
    }
}

/// The whole of the zstd stream `bytes`, at most `max_bytes` of it: for the viewer, which
/// holds a picked file whole.
///
/// # Errors
///
/// As [`Decoder`]'s reads.
pub fn decode_all(bytes: &[u8], max_bytes: u64) -> Result<Vec<u8>, ZstdError> {
    let mut decoder = Decoder::new(bytes, max_bytes);
    let mut out = Vec::new();
    match decoder.read_to_end(&mut out) {
        Ok(_) => Ok(out),
        Err(_) => Err(decoder
            .failed
            .take()
            .unwrap_or_else(|| ZstdError::Io("the read failed".into()))),
    }
}

/// A buffered reader that counts the bytes taken from it.
struct Counted<R> {
    inner: R,
    read: u64,
}

impl<R: BufRead> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Counted<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.read += amt as u64;
        self.inner.consume(amt);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::zstd_rle_frame;

    #[test]
    fn frames_and_skippable_frames_are_told_by_their_magic() {
        let cases: [(&[u8], bool); 7] = [
            (&MAGIC, true),
            (b"\x50\x2a\x4d\x18", true),
            (b"\x5f\x2a\x4d\x18\0\0\0\0", true),
            (b"\x60\x2a\x4d\x18", false),
            (b"\x28\xb5\x2f", false),
            (b"NVR\0", false),
            (b"", false),
        ];
        for (bytes, want) in cases {
            assert_eq!(is_zstd(bytes), want, "{bytes:02x?}");
        }
    }

    #[test]
    fn an_empty_source_is_no_stream() {
        assert_eq!(decode_all(b"", 10), Err(ZstdError::NoFrame));
    }

    #[test]
    fn four_gib_of_zeros_in_128_kib_are_judged_from_their_first_64_kib() {
        use crate::read::kind::refused_inside;
        let bomb = zstd_rle_frame(4 << 30, 0);
        assert!(bomb.len() < 200 << 10, "{}", bomb.len());
        let mut decoder = Decoder::new(&bomb[..], 4 << 30);
        let mut head = Vec::new();
        (&mut decoder)
            .take(64 << 10)
            .read_to_end(&mut head)
            .expect("decodes");
        assert_eq!(head.len(), 64 << 10);
        // What capture and the viewer both do with those bytes.
        assert_eq!(
            refused_inside(&head, "un-zstd").as_deref(),
            Some(
                "byte 0 (after un-zstd): binary data (0x00), neither an Nsight Compute report \
                 nor a CSV export or artifact"
            )
        );
        // Text without line ends, and a stream compressed twice, are refused from their
        // start too.
        let lines = decode_all(&zstd_rle_frame(1 << 20, b'a'), 4 << 30).expect("decodes");
        let why = refused_inside(&lines, "un-zstd").expect("refused");
        assert!(
            why.starts_with("byte 65536 (after un-zstd): neither"),
            "{why}"
        );
        assert_eq!(
            refused_inside(&bomb, "un-zstd").as_deref(),
            Some("byte 0 (after un-zstd): zstd data again, compressed twice; un-compress it first")
        );
    }

    #[test]
    fn a_window_over_128_mib_is_refused_before_it_is_allocated() {
        // Window descriptor 18 << 3: 2^(10 + 18) bytes, 256 MiB; then one empty raw block.
        let frame = [&MAGIC[..], &[0x00, 18 << 3, 0x01, 0x00, 0x00]].concat();
        let e = decode_all(&frame, 4 << 30).expect_err("refused");
        assert!(
            matches!(e, ZstdError::Corrupt { frame: 1, ref reason, .. } if reason.contains("268435456")),
            "{e}"
        );
        // 128 MiB is taken.
        let frame = [&MAGIC[..], &[0x00, 17 << 3, 0x01, 0x00, 0x00]].concat();
        assert_eq!(decode_all(&frame, 4 << 30), Ok(Vec::new()));
    }

    #[test]
    fn past_its_cap_the_read_that_passes_it_fails() {
        let e = decode_all(&zstd_rle_frame(1 << 20, b'a'), 1000).expect_err("capped");
        assert!(
            matches!(
                e,
                ZstdError::TooLarge {
                    max_bytes: 1000,
                    ..
                }
            ),
            "{e}"
        );
        // At the cap exactly, the stream reads.
        let all = decode_all(&zstd_rle_frame(1000, b'a'), 1000).expect("at the cap");
        assert_eq!(all, vec![b'a'; 1000]);
    }
}
