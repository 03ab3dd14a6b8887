//! The line-level front of the reader: recognizes what the input is, then feeds the CSV
//! parser only the lines that belong to the export.
//!
//! [`LineFilter::open`] looks at the first kilobyte for binary data, strips a UTF-8
//! byte-order mark, skips program output and `==PROF==` lines, and finds the header: an ncu
//! CLI header (`"ID",...,"Kernel Name",...`, comma or semicolon separated) or the first line
//! of the GUI's two-column export (`ID,<value>`). After that the filter hands
//! [`super::records`] the export's lines one at a time, each with its 1-based line in the
//! original input, and drops the rest, so the file streams through once and is never held
//! whole. It also tracks whether the input ended inside a quoted field, which is how a row
//! cut off by a truncated file is recognized.

use std::io::{self, BufRead, BufReader, Chain, Cursor, Read};

use crate::error::NcuError;
use crate::read::bom::BOM;

use super::export::{Page, Warning};

/// How many leading bytes are checked for binary data.
const SNIFF_BYTES: usize = 1024;
/// Read buffer of the underlying input.
const BUFFER_BYTES: usize = 256 * 1024;
/// How much of a line an error or warning quotes.
const QUOTE_CHARS: usize = 80;

/// Which lines belong to the export once the header is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// ncu CLI pages: every row starts with a double quote; anything else is program
    /// output or an ncu message.
    Cli,
    /// The GUI's two-column export: every non-blank line except ncu messages.
    Gui,
}

/// What the header says about the export.
#[derive(Clone, Debug)]
pub struct Header {
    /// Which page the export is.
    pub(crate) page: Page,
    /// Field delimiter, `,` or `;`.
    pub(crate) delimiter: u8,
    /// 1-based line of the header (for the GUI, of its first field line).
    pub(crate) line: u64,
    /// Column names of a CLI header; empty for the GUI export, whose first line is data.
    pub(crate) fields: Vec<String>,
}

impl Header {
    /// Which page the export is.
    pub fn page(&self) -> Page {
        self.page
    }
}

/// A reader of the export's own lines; see the module documentation.
pub(crate) struct LineFilter<R: Read> {
    inner: BufReader<Chain<Cursor<Vec<u8>>, R>>,
    /// The current line, as read (with its terminator).
    line: Vec<u8>,
    /// 1-based number of the last line read from the input.
    line_no: u64,
    /// Whether the handed lines so far end inside a quoted field (once the current line's
    /// quotes are counted).
    in_quote: bool,
    /// Whether the current line's quotes are in `in_quote` yet: counted when the next line
    /// is read, unless the record splitter already knows their number is even.
    counted: bool,
    /// Lines dropped as not part of the export.
    skipped: u64,
    /// The first dropped line: number and start of its text.
    first_skipped: Option<(u64, String)>,
    mode: Mode,
    /// Set at the end of input: whether it ended inside a quoted field.
    eof_in_quote: bool,
}

/// The start of a line as text, for messages.
fn quote(line: &[u8]) -> String {
    let text = String::from_utf8_lossy(line.trim_ascii());
    match text.char_indices().nth(QUOTE_CHARS) {
        Some((cut, _)) => format!("{}...", text.get(..cut).unwrap_or_default()),
        None => text.into_owned(),
    }
}

/// Finds binary data in the first bytes: a NUL byte or invalid UTF-8. Returns its line.
fn binary_line(prefix: &[u8]) -> Option<u64> {
    let nul = prefix.iter().position(|&b| b == 0);
    let invalid = match std::str::from_utf8(prefix) {
        Ok(_) => None,
        // A character cut by the end of the sniffed block is not an error.
        Err(e) if e.error_len().is_none() => None,
        Err(e) => Some(e.valid_up_to()),
    };
    let at = match (nul, invalid) {
        (Some(a), Some(b)) => a.min(b),
        (Some(a), None) | (None, Some(a)) => a,
        (None, None) => return None,
    };
    let before = prefix.get(..at).unwrap_or_default();
    Some(1 + before.iter().filter(|&&b| b == b'\n').count() as u64)
}

/// The first `,` or `;` outside quotes decides the delimiter; a comma by default.
fn detect_delimiter(line: &[u8]) -> u8 {
    let mut in_quote = false;
    for &b in line {
        match b {
            b'"' => in_quote = !in_quote,
            b',' | b';' if !in_quote => return b,
            _ => {}
        }
    }
    b','
}

/// Splits one line into trimmed fields with a throwaway CSV parser (used on a few lines).
fn split_fields(line: &[u8], delimiter: u8) -> Vec<String> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(line);
    let mut record = csv::ByteRecord::new();
    match rdr.read_byte_record(&mut record) {
        Ok(true) => record
            .iter()
            .map(|f| String::from_utf8_lossy(f.trim_ascii()).into_owned())
            .collect(),
        _ => Vec::new(),
    }
}

/// The page of an ncu CLI header, if `fields` is one.
fn cli_page(fields: &[String]) -> Option<Page> {
    let has = |name: &str| fields.iter().any(|f| f == name);
    if fields.first().map(String::as_str) != Some("ID") || !has("Kernel Name") {
        return None;
    }
    if has("Metric Name") {
        // The details page; a summary page (Minimum/Maximum/Average) is not read.
        return (has("Section Name") && has("Metric Value")).then_some(Page::Details);
    }
    Some(Page::Raw)
}

impl<R: Read> LineFilter<R> {
    /// The input, as far as it has not been buffered yet.
    pub(crate) fn input(&self) -> &R {
        self.inner.get_ref().get_ref().1
    }

    /// The input, to add to it.
    pub(crate) fn input_mut(&mut self) -> &mut R {
        self.inner.get_mut().get_mut().1
    }

    /// Checks the input, skips to the header and returns the filter positioned after it
    /// (for the GUI export, at its first line, which is data).
    pub(crate) fn open(mut input: R) -> Result<(Self, Header), NcuError> {
        let mut prefix = vec![0u8; SNIFF_BYTES];
        let mut filled = 0;
        while let Some(free) = prefix.get_mut(filled..).filter(|f| !f.is_empty()) {
            match input.read(free) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(NcuError::Io(e.to_string())),
            }
        }
        prefix.truncate(filled);
        if let Some(line) = binary_line(&prefix) {
            return Err(NcuError::Binary { line });
        }
        let mut filter = LineFilter {
            inner: BufReader::with_capacity(BUFFER_BYTES, Cursor::new(prefix).chain(input)),
            line: Vec::new(),
            line_no: 0,
            in_quote: false,
            counted: true,
            skipped: 0,
            first_skipped: None,
            mode: Mode::Cli,
            eof_in_quote: false,
        };
        let header = filter.find_header()?;
        Ok((filter, header))
    }

    /// Reads lines until the header; see [`LineFilter::open`].
    fn find_header(&mut self) -> Result<Header, NcuError> {
        let mut seen_content = false;
        let mut first_other: Option<(u64, String)> = None;
        let mut first_error: Option<(u64, String)> = None;
        while self.next_line().map_err(|e| NcuError::Io(e.to_string()))? {
            let text = self.line.trim_ascii();
            if text.is_empty() {
                continue;
            }
            let delimiter = detect_delimiter(text);
            let is_message = text.starts_with(b"==");
            if !is_message && (text.first() == Some(&b'"') || !seen_content) {
                let fields = split_fields(text, delimiter);
                if let Some(page) = cli_page(&fields) {
                    // The header itself is not handed on: the caller has its fields.
                    self.line.clear();
                    self.mode = Mode::Cli;
                    return Ok(Header {
                        page,
                        delimiter,
                        line: self.line_no,
                        fields,
                    });
                }
                if !seen_content
                    && fields.len() == 2
                    && fields.first().map(String::as_str) == Some("ID")
                {
                    self.mode = Mode::Gui;
                    self.hand_line();
                    return Ok(Header {
                        page: Page::GuiRaw,
                        delimiter,
                        line: self.line_no,
                        fields: Vec::new(),
                    });
                }
            }
            seen_content = true;
            if !is_message {
                first_other.get_or_insert_with(|| (self.line_no, quote(text)));
            } else if text.starts_with(b"==ERROR==") {
                first_error.get_or_insert_with(|| (self.line_no, quote(text)));
            }
            self.note_skipped();
        }
        if let Some((line, message)) = first_error {
            return Err(NcuError::Profiler { line, message });
        }
        match first_other.or_else(|| self.first_skipped.clone()) {
            Some((line, found)) => Err(NcuError::NotAnExport { line, found }),
            None => Err(NcuError::Empty),
        }
    }

    /// Reads the next line of the input into `line`; false at the end.
    fn next_line(&mut self) -> io::Result<bool> {
        self.line.clear();
        if self.inner.read_until(b'\n', &mut self.line)? == 0 {
            return Ok(false);
        }
        self.line_no += 1;
        if self.line_no == 1 && self.line.starts_with(BOM) {
            self.line.drain(..BOM.len());
        }
        // CRLF becomes LF: the csv crate numbers the lines of CRLF records one too low.
        if self.line.ends_with(b"\r\n") {
            self.line.truncate(self.line.len() - 2);
            self.line.push(b'\n');
        }
        Ok(true)
    }

    /// Counts the current line as dropped.
    fn note_skipped(&mut self) {
        self.skipped += 1;
        if self.first_skipped.is_none() {
            self.first_skipped = Some((self.line_no, quote(&self.line)));
        }
    }

    /// Makes the current line the next one handed on; its quotes are counted later (see
    /// `counted`).
    fn hand_line(&mut self) {
        self.counted = false;
    }

    /// Adds the current line's quotes to `in_quote`, once.
    fn count_quotes(&mut self) {
        if !self.counted {
            self.counted = true;
            if memchr::memchr_iter(b'"', &self.line).count() % 2 == 1 {
                self.in_quote = !self.in_quote;
            }
        }
    }

    /// Says that the current line has an even number of quotes (the record splitter found
    /// it a complete record of quoted fields), so they need no counting.
    pub(crate) fn quotes_are_even(&mut self) {
        self.counted = true;
    }

    /// The current line, with its `\n` (a CRLF ending is read as `\n`).
    pub(crate) fn line(&self) -> &[u8] {
        &self.line
    }

    /// Swaps the current line's buffer with `buffer` (whose contents become the current
    /// line's, to be overwritten by the next), so a record can keep the line's bytes
    /// without a copy. Call [`LineFilter::quotes_are_even`] first, if at all: the bytes
    /// left behind are not the line's.
    pub(crate) fn take_line(&mut self, buffer: &mut Vec<u8>) {
        self.count_quotes();
        std::mem::swap(&mut self.line, buffer);
    }

    /// 1-based line number of the current line in the original input.
    pub(crate) fn line_no(&self) -> u64 {
        self.line_no
    }

    /// Moves to the next line that belongs to the export; false at the end of input.
    pub(crate) fn next_export_line(&mut self) -> io::Result<bool> {
        self.count_quotes();
        loop {
            if !self.next_line()? {
                self.eof_in_quote = self.in_quote;
                return Ok(false);
            }
            if !self.in_quote {
                let text = self.line.trim_ascii_start();
                if text.is_empty() {
                    continue;
                }
                let belongs = match self.mode {
                    Mode::Cli => self.line.first() == Some(&b'"'),
                    Mode::Gui => !text.starts_with(b"=="),
                };
                if !belongs {
                    self.note_skipped();
                    continue;
                }
            }
            self.hand_line();
            return Ok(true);
        }
    }

    /// Whether the input ended inside a quoted field (its last row is cut off). Meaningful
    /// once the parser has reached the end.
    pub(crate) fn eof_in_quote(&self) -> bool {
        self.eof_in_quote
    }

    /// One warning for all dropped lines, if any were dropped.
    pub(crate) fn skipped_warning(&self) -> Option<Warning> {
        let (line, text) = self.first_skipped.as_ref()?;
        let lines = if self.skipped == 1 { "line" } else { "lines" };
        Some(Warning {
            line: Some(*line),
            message: format!(
                "skipped {} {lines} that are not part of the export (program output or ncu \
                 messages); the first: {text:?}",
                self.skipped
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The handed lines as one text, each line's number, the filter and the header.
    fn read_all(input: &str) -> (String, Vec<u64>, LineFilter<&[u8]>, Header) {
        let (mut filter, header) = LineFilter::open(input.as_bytes()).expect("opens");
        let mut out = Vec::new();
        let mut numbers = Vec::new();
        // The GUI's first line is data, and current when the filter opens.
        if !filter.line().is_empty() {
            out.extend_from_slice(filter.line());
            numbers.push(filter.line_no());
        }
        while filter.next_export_line().expect("reads") {
            out.extend_from_slice(filter.line());
            numbers.push(filter.line_no());
        }
        let text = String::from_utf8(out).expect("utf-8");
        (text, numbers, filter, header)
    }

    #[test]
    fn drops_program_output_and_maps_lines() {
        let input = "==PROF== hi\nprogram says\n\"ID\",\"Kernel Name\"\n\"1\",\"k\"\nnoise\n\
                     \n\"2\",\"k\"\n==PROF== bye\n";
        let (out, lines, filter, header) = read_all(input);
        assert_eq!(header.page, Page::Raw);
        assert_eq!(header.line, 3);
        assert_eq!(out, "\"1\",\"k\"\n\"2\",\"k\"\n");
        assert_eq!(lines, [4, 7]);
        let warning = filter.skipped_warning().expect("a warning");
        assert_eq!(warning.line, Some(1));
        assert!(warning.message.contains("skipped 4 lines"), "{warning}");
    }

    #[test]
    fn keeps_multi_line_quoted_fields() {
        let input = "\"ID\",\"Kernel Name\"\n\"1\",\"two\nlines\"\n\"2\",\"k\"\n";
        let (out, lines, filter, _) = read_all(input);
        assert_eq!(out, "\"1\",\"two\nlines\"\n\"2\",\"k\"\n");
        assert_eq!(lines, [2, 3, 4]);
        assert!(!filter.eof_in_quote());
        assert_eq!(filter.skipped_warning(), None);
    }

    #[test]
    fn notices_a_cut_quoted_field() {
        let (_, _, filter, _) = read_all("\"ID\",\"Kernel Name\"\n\"1\",\"cut of");
        assert!(filter.eof_in_quote());
    }

    #[test]
    fn detects_semicolons_bom_and_gui() {
        let (_, _, _, header) = read_all("\u{feff}\"ID\";\"Kernel Name\";\"x\"\n");
        assert_eq!((header.page, header.delimiter), (Page::Raw, b';'));
        let (out, _, _, header) = read_all("\u{feff}ID,0\nFunction Name,copy\n");
        assert_eq!((header.page, header.line), (Page::GuiRaw, 1));
        assert_eq!(out, "ID,0\nFunction Name,copy\n");
    }

    #[test]
    fn finds_binary_lines() {
        assert_eq!(binary_line(b"abc\ndef\0"), Some(2));
        assert_eq!(binary_line(b"ok\n\xff"), Some(2));
        assert_eq!(binary_line("caf\u{e9}".as_bytes()), None);
        assert_eq!(binary_line(&"caf\u{e9}".as_bytes()[..4]), None);
    }
}
