//! What a file is, told from its first bytes, never from its name: the one answer `capture`
//! and the viewer both use (an artifact, a report, a gzip or zstd stream, a source-page
//! export, a CSV export, binary data or nothing), so that a file one of them opens is never taken for
//! something else by the other. A UTF-8 byte order mark and leading white space are skipped
//! before a text's first character is looked at.

use super::bom::BOM;
use super::nsys::stats::starts_like_stats;
use super::{ncu_rep, zstd};

/// The two bytes a gzip stream starts with (RFC 1952).
const GZIP_MAGIC: &[u8] = b"\x1f\x8b";

/// The 16 bytes an SQLite database starts with (Nsight Systems' `nsys export --type
/// sqlite` writes one).
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// The first cells of a source-page export (`ncu --page source --csv`): a kernel's name
/// (`--print-source sass`) or a file's path (`cuda,sass`), quoted or not.
const SOURCE_PAGE_STARTS: [&[u8]; 4] = [
    b"\"Kernel Name\",",
    b"\"File Path\",",
    b"Kernel Name,",
    b"File Path,",
];

/// How many bytes of text, from its first character, must hold a line end unless the text
/// starts like a CSV header or row (a double quote): an export's lines before its header
/// (ncu's `==PROF==` messages, the profiled program's output) and the GUI export's lines are
/// far shorter. A file with none is [`FileKind::Unrecognized`], told from its first bytes
/// and refused before the rest is read (a 50 MB file of printable junk, a small gzip of a
/// gigabyte of one letter, were read up to a 4 GiB cap before being refused; issue 39).
pub const LINE_BYTES: usize = 64 << 10;

/// What a file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// Nothing, or only white space (and a byte order mark).
    Empty,
    /// JSON text whose first character is `{`: an artifact.
    Artifact,
    /// An Nsight Compute report (`.ncu-rep`): starts with `NVR\0`.
    Report,
    /// A gzip stream: un-gzip it, then ask again of what comes out.
    Gzip,
    /// A zstd stream (a `.ncu-repz` report is one; [`zstd::is_zstd`]): un-compress it
    /// ([`zstd::Decoder`]), then ask again of what comes out.
    Zstd,
    /// ncu's source-page CSV export (`--page source`): its first cell names a kernel or a
    /// file.
    SourcePage,
    /// Binary data that is none of the above.
    Binary {
        /// Offset of the first byte that no text holds: a NUL anywhere, or a first character
        /// that is a control byte.
        at: usize,
    },
    /// An SQLite database (Nsight Systems' export, read by `capture import`).
    Sqlite,
    /// The CSV of an `nsys stats` kernel or memory-time summary: its header
    /// ([`starts_like_stats`]) in its first lines.
    NsysStats,
    /// Anything else, text as far as these bytes tell: a CSV export of the raw or details
    /// page, or the GUI's two-column export, for the CSV reader to judge.
    CsvExport,
    /// Text that is none of the above: [`LINE_BYTES`] bytes from its first character without
    /// a line end, where it does not start like a CSV header.
    Unrecognized {
        /// Offset of the byte where the text, still without a line end, was given up on.
        at: usize,
    },
}

impl FileKind {
    /// What a file of this kind looks like, in words, for a message that refuses it
    /// (`gzip data`, `JSON text (an artifact)`, ...).
    pub fn describe(self) -> String {
        match self {
            FileKind::Empty => "empty".into(),
            FileKind::Artifact => "JSON text (an artifact)".into(),
            FileKind::Report => "an Nsight Compute report (.ncu-rep)".into(),
            FileKind::Gzip => "gzip data".into(),
            FileKind::Zstd => "zstd data".into(),
            FileKind::SourcePage => "ncu's source-page CSV export".into(),
            FileKind::Binary { at } => format!("binary data (byte {at} is no text)"),
            FileKind::Sqlite => "an SQLite database".into(),
            FileKind::NsysStats => "an nsys stats summary CSV".into(),
            FileKind::CsvExport => "CSV text".into(),
            FileKind::Unrecognized { at } => {
                format!("text that is no CSV, JSON or report (no line end by byte {at})")
            }
        }
    }
}

/// What a file starting with `first` is. `first` may be the whole file or its first bytes
/// (a few kilobytes decide every kind; a NUL past them is left to the reader).
pub fn kind_of(first: &[u8]) -> FileKind {
    if ncu_rep::is_report(first) {
        return FileKind::Report;
    }
    if first.starts_with(GZIP_MAGIC) {
        return FileKind::Gzip;
    }
    if first.starts_with(SQLITE_MAGIC) {
        return FileKind::Sqlite;
    }
    if zstd::is_zstd(first) {
        return FileKind::Zstd;
    }
    let text = first.strip_prefix(BOM).unwrap_or(first);
    let skipped = first.len() - text.len();
    let Some(at) = text.iter().position(|b| !b.is_ascii_whitespace()) else {
        return FileKind::Empty;
    };
    let rest = &text[at..];
    if rest.starts_with(b"{") {
        return FileKind::Artifact;
    }
    if SOURCE_PAGE_STARTS
        .iter()
        .any(|start| rest.starts_with(start))
    {
        return FileKind::SourcePage;
    }
    if rest[0] < 0x20 || rest[0] == 0x7f {
        return FileKind::Binary { at: skipped + at };
    }
    if let Some(nul) = first.iter().position(|&b| b == 0) {
        return FileKind::Binary { at: nul };
    }
    if starts_like_stats(rest) {
        return FileKind::NsysStats;
    }
    let line = rest.get(..LINE_BYTES).filter(|_| !rest.starts_with(b"\""));
    match line {
        Some(line) if !line.contains(&b'\n') && !line.contains(&b'\r') => FileKind::Unrecognized {
            at: skipped + at + LINE_BYTES,
        },
        _ => FileKind::CsvExport,
    }
}

/// Why the stream a compressed file holds (gzip or zstd, `packing` naming which: `gunzip`,
/// `un-zstd`) is refused from its first bytes `head`, before the rest is un-compressed: binary
/// data that is no report (a small file that decodes to gigabytes of zeros), text without
/// line ends, or a stream compressed again. `None` for what the readers take (a report, a
/// CSV export, a source page, an artifact, an empty file). The one rule `capture` and the
/// viewer apply to what a compressed input holds.
pub fn refused_inside(head: &[u8], packing: &str) -> Option<String> {
    match kind_of(head) {
        FileKind::Binary { at } => Some(format!(
            "byte {at} (after {packing}): binary data (0x{:02x}), neither an Nsight Compute \
             report nor a CSV export or artifact",
            head.get(at).copied().unwrap_or(0)
        )),
        FileKind::Unrecognized { at } => Some(format!(
            "byte {at} (after {packing}): neither a report, a CSV export nor an artifact (no \
             line ends in the first 64 KiB of text, and it does not start like a CSV header or \
             JSON); it starts {}",
            looks_like(head)
        )),
        kind @ (FileKind::Gzip | FileKind::Zstd) => Some(format!(
            "byte 0 (after {packing}): {} again, compressed twice; un-compress it first",
            kind.describe()
        )),
        FileKind::Sqlite => Some(format!(
            "byte 0 (after {packing}): an SQLite database (an nsys export), which is read from \
             a file of its own; un-compress it first"
        )),
        FileKind::Empty
        | FileKind::Artifact
        | FileKind::Report
        | FileKind::SourcePage
        | FileKind::NsysStats
        | FileKind::CsvExport => None,
    }
}

/// A few of `bytes` as a message quotes them: at most 40 characters, quoted, control
/// characters escaped, to say what a file that is not what was asked for looks like.
pub fn looks_like(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes.get(..160).unwrap_or(bytes));
    let start: String = text.chars().take(40).collect();
    let more = if text.chars().nth(40).is_some() {
        "..."
    } else {
        ""
    };
    format!("{start:?}{more}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_is_told_by_its_first_bytes_with_or_without_a_byte_order_mark() {
        let cases: [(&[u8], FileKind); 24] = [
            (b"", FileKind::Empty),
            (b" \r\n\t", FileKind::Empty),
            (b"\xEF\xBB\xBF", FileKind::Empty),
            (b"{\"schema\": 9}", FileKind::Artifact),
            (b"\n  {", FileKind::Artifact),
            // The byte order mark the viewer stripped and `capture diff` did not.
            (b"\xEF\xBB\xBF{\"schema\": 9}", FileKind::Artifact),
            (b"\xEF\xBB\xBF\r\n{", FileKind::Artifact),
            (b"NVR\0\x07\0\0\0", FileKind::Report),
            (b"\x1f\x8b\x08\0", FileKind::Gzip),
            (b"\x28\xb5\x2f\xfd\x24", FileKind::Zstd),
            // A skippable frame in front of the first.
            (b"\x50\x2a\x4d\x18\x04\0\0\0", FileKind::Zstd),
            (b"\"Kernel Name\",\"k\"\n", FileKind::SourcePage),
            (b"\xEF\xBB\xBFFile Path,a.cu\n", FileKind::SourcePage),
            (b"\"ID\",\"Process ID\"\n", FileKind::CsvExport),
            (b"\xEF\xBB\xBF\"ID\";\"Kernel Name\"\n", FileKind::CsvExport),
            (b"==PROF== Connected\n\"ID\"", FileKind::CsvExport),
            (b"\0\0\0\0", FileKind::Binary { at: 0 }),
            (b"  \x01abc", FileKind::Binary { at: 2 }),
            (b"\xEF\xBB\xBF\x7f", FileKind::Binary { at: 3 }),
            ("é,1\n".as_bytes(), FileKind::CsvExport),
            (b"\"ID\",\0", FileKind::Binary { at: 5 }),
            (b"SQLite format 3\0\x10\0", FileKind::Sqlite),
            (
                b"Time (%),Total Time (ns),Instances,Avg (ns),Min (ns),Max (ns),Name\n",
                FileKind::NsysStats,
            ),
            (
                b"Processing [r.sqlite] with [x.py]...\n\n\"Time(%)\",\"Total Time (ns)\",\"Operations\",\"Average\",\"Minimum\",\"Maximum\",\"Operation\"\n",
                FileKind::NsysStats,
            ),
        ];
        for (bytes, want) in cases {
            assert_eq!(kind_of(bytes), want, "{:?}", String::from_utf8_lossy(bytes));
        }
    }

    #[test]
    fn text_without_a_line_end_in_its_first_64_kib_is_unrecognized_unless_quoted() {
        let junk = |start: &str, n: usize| {
            let mut b = start.as_bytes().to_vec();
            b.extend(std::iter::repeat_n(b'x', n));
            b
        };
        let cases: [(Vec<u8>, FileKind); 8] = [
            (
                junk("", LINE_BYTES),
                FileKind::Unrecognized { at: LINE_BYTES },
            ),
            (
                junk("\u{feff}  ", LINE_BYTES),
                FileKind::Unrecognized { at: 5 + LINE_BYTES },
            ),
            // Fewer bytes than that: the CSV reader judges them.
            (junk("", LINE_BYTES - 1), FileKind::CsvExport),
            (junk("\"ID\",", LINE_BYTES), FileKind::CsvExport),
            (
                junk("==PROF== Connected\n", LINE_BYTES),
                FileKind::CsvExport,
            ),
            (junk("x\r", LINE_BYTES), FileKind::CsvExport),
            (junk("{", LINE_BYTES), FileKind::Artifact),
            (junk("Kernel Name,", LINE_BYTES), FileKind::SourcePage),
        ];
        for (bytes, want) in cases {
            let start = String::from_utf8_lossy(&bytes[..12]);
            assert_eq!(kind_of(&bytes), want, "{start:?}...");
        }
    }
}
