//! Splitting the export's lines into records (rows of fields), the first of the reader's two
//! stages; [`super::read_rows`] is the second, which turns records into launches.
//!
//! ncu's CLI writes every field quoted (`"ID","Process ID",...`), and nearly every line is
//! one whole record. Such a line is split where it stands: one pass for its quotes, no copy
//! of its bytes (the record takes over the line's buffer), and a record is exactly what the
//! `csv` crate would have made of it. Anything else (an unquoted field, a `""` escape, a
//! field across lines, a bare carriage return) goes through `csv_core`, the `csv` crate's own
//! parser, from the start of that record, so every input splits as the `csv` crate splits it.
//!
//! The two stages share nothing but the records, so a caller may run them on two threads
//! (`capture import` does): [`Rows`] reads and splits, and the rows go to
//! [`super::read_rows`] through a [`RowStream`]. So that the two threads share the work,
//! the splitter also reads the digits of every field of up to 15 bytes that is a plain
//! decimal (the part of parsing a number that needs no unit, see [`super::value`]); the
//! second stage scales them to base units and reads the longer fields itself.

use std::io::Read;

use csv_core::{ReadRecordResult, ReaderBuilder};

use crate::error::NcuError;

use super::export::Warning;
use super::lines::{Header, LineFilter};

/// How many bytes of a record's buffer at least follow each field's end.
pub const TAIL_BYTES: usize = 8;

/// One record: its fields' bytes (unescaped), each field a range of them (32-bit offsets:
/// a full-set row has some 2,200 fields, and the list crosses from one thread to another).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Record {
    data: Vec<u8>,
    bounds: Vec<(u32, u32)>,
    /// Per field, its digits when it is a plain decimal ([`Record::plain_decimal`]).
    digits: Vec<u64>,
}

/// A field that is no plain decimal (or that the splitter left), in `Record::digits`.
const NOT_PLAIN: u64 = u64::MAX;

/// Where a plain decimal's count of fraction digits (0 to 8) sits in its packed form,
/// above its digits (at most 2^53: beyond that the general parser reads it anyway).
const FRACTION_SHIFT: u32 = 56;

impl Record {
    /// Number of fields.
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Whether the record has no fields.
    pub fn is_empty(&self) -> bool {
        self.bounds.is_empty()
    }

    /// Field `i`, if there is one.
    pub fn get(&self, i: usize) -> Option<&[u8]> {
        let &(start, end) = self.bounds.get(i)?;
        self.data.get(start as usize..end as usize)
    }

    /// Field `i` as `(tail, len)`: the record's bytes from the field's start on, of which
    /// the field is the first `len`. At least `TAIL_BYTES` follow every field, so a reader
    /// may look at eight bytes at a time (see [`super::value::classify_in`]).
    pub fn get_with_tail(&self, i: usize) -> Option<(&[u8], usize)> {
        let &(start, end) = self.bounds.get(i)?;
        Some((self.data.get(start as usize..)?, (end - start) as usize))
    }

    /// Field `i` as a plain decimal read ahead: its digits as an integer and how many of
    /// them follow the point (see [`super::value::classify_in`]); `None` for any other field
    /// and for those longer than seven bytes, which the reader of the rows reads itself (so
    /// that the two threads share the work evenly).
    pub fn plain_decimal(&self, i: usize) -> Option<(u64, i32)> {
        let packed = *self.digits.get(i)?;
        (packed != NOT_PLAIN).then_some((
            packed & ((1 << FRACTION_SHIFT) - 1),
            (packed >> FRACTION_SHIFT) as i32,
        ))
    }

    /// Pads the data so that [`TAIL_BYTES`] follow the last field.
    fn pad(&mut self) {
        self.data.extend_from_slice(&[0; TAIL_BYTES]);
    }

    /// Reads the digits of the fields of up to seven bytes that are plain decimals, for a
    /// record split by `csv_core` (the fast split reads every field's as it goes; these
    /// records are rare, and the reader reads longer fields itself).
    fn read_digits(&mut self) {
        self.digits.clear();
        for &(start, end) in &self.bounds {
            let len = (end - start) as usize;
            let packed = match self
                .data
                .get(start as usize..)
                .and_then(<[u8]>::first_chunk)
            {
                Some(word) => pack(super::value::plain_in_word(u64::from_le_bytes(*word), len)),
                None => NOT_PLAIN,
            };
            self.digits.push(packed);
        }
    }

    /// The fields in order.
    pub fn iter(&self) -> impl Iterator<Item = &[u8]> + '_ {
        self.bounds.iter().map(|&(start, end)| {
            self.data
                .get(start as usize..end as usize)
                .unwrap_or_default()
        })
    }
}

/// One record with where it is and how it ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Row {
    /// The fields.
    pub record: Record,
    /// 1-based line of the record's start in the original input.
    pub line: u64,
    /// Whether this is the last record of the input.
    pub is_last: bool,
    /// Whether the input ended inside this record's quoted field (the file was cut).
    pub truncated: bool,
}

/// Splits `line` (one line, with or without its `\n`) if it is a complete record of quoted
/// fields without escapes, `"a","b",...,"z"`, into field ranges; false (and `bounds` left
/// in any state) for anything else. On true the fields are what `csv_core` makes of the
/// line: quoted fields keep every byte but the quotes, and the `\n` ends the record.
/// `digits` gets each field's digits (see [`Record::plain_decimal`]) when `read_digits`,
/// else none (`NOT_PLAIN`: the reader of the rows reads them all).
fn split_quoted(
    line: &[u8],
    delimiter: u8,
    bounds: &mut Vec<(u32, u32)>,
    digits: &mut Vec<u64>,
    read_digits: bool,
) -> bool {
    bounds.clear();
    digits.clear();
    let body = line.strip_suffix(b"\n").unwrap_or(line);
    if body.first() != Some(&b'"') || u32::try_from(line.len()).is_err() {
        return false;
    }
    // The lists are filled as locals, so that their lengths stay in registers.
    let mut fields = std::mem::take(bounds);
    let mut numbers = std::mem::take(digits);
    // Field by field: from just after an opening quote, the closing one is found eight
    // bytes at a time (fields are a few bytes long: a search call per field would not pay,
    // nor would a loop over single bytes, whose varying length mispredicts its end). Where
    // it is within those eight, the same word gives the digits of a plain decimal.
    let mut start = 1;
    let complete = loop {
        let word = line
            .get(start..)
            .and_then(<[u8]>::first_chunk::<8>)
            .map(|w| u64::from_le_bytes(*w));
        let mask = word.map_or(0, quote_mask);
        let tail = || line.get(start..).unwrap_or_default();
        let (close, packed) = if let (Some(word), true) = (word, mask != 0) {
            let len = (mask.trailing_zeros() / 8) as usize;
            if !read_digits {
                (start + len, NOT_PLAIN)
            } else {
                // A separator with a point (`1,024.5`) is read by the general form.
                let plain = super::value::plain_in_word(word, len)
                    .or_else(|| super::value::plain_decimal(tail(), len));
                (start + len, pack(plain))
            }
        } else {
            match next_quote(line, start) {
                // Cells of eight bytes and more are left to the reader of the rows, so that
                // the two threads share the work evenly.
                Some(close) if word.is_some() => (close, NOT_PLAIN),
                // The line's last bytes: a short cell too.
                Some(close) if !read_digits => (close, NOT_PLAIN),
                Some(close) => (
                    close,
                    pack(super::value::plain_decimal(tail(), close - start)),
                ),
                None => break false,
            }
        };
        // Both below the line's length, which fits in 32 bits.
        fields.push((start as u32, close as u32));
        numbers.push(packed);
        match body.get(close + 1) {
            None => break close + 1 == body.len(),
            Some(&d) if d == delimiter && body.get(close + 2) == Some(&b'"') => start = close + 3,
            _ => break false,
        }
    };
    *bounds = fields;
    *digits = numbers;
    complete
}

/// A plain decimal's digits in `Record::digits`' packed form.
#[inline]
fn pack(plain: Option<(u64, i32)>) -> u64 {
    match plain {
        Some((m, fraction)) if m <= 1 << 53 => m | ((fraction as u64) << FRACTION_SHIFT),
        _ => NOT_PLAIN,
    }
}

/// The position of the first quote in `line` at or after `from`.
#[inline]
fn next_quote(line: &[u8], mut from: usize) -> Option<usize> {
    loop {
        let rest = line.get(from..)?;
        match rest.first_chunk::<8>() {
            Some(word) => {
                let mask = quote_mask(u64::from_le_bytes(*word));
                if mask != 0 {
                    return Some(from + (mask.trailing_zeros() / 8) as usize);
                }
                from += 8;
            }
            None => return rest.iter().position(|&b| b == b'"').map(|i| from + i),
        }
    }
}

/// The high bit of each byte of `word` that is a double quote, exactly (no carries between
/// bytes).
fn quote_mask(word: u64) -> u64 {
    const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    let x = word ^ 0x2222_2222_2222_2222;
    // A byte of x is zero where the word has a quote; its high bit is set here just then.
    !(((x & LOW7).wrapping_add(LOW7)) | x | LOW7)
}

/// Where [`super::read_rows`] takes its rows from: [`Rows`] itself, or rows handed over
/// from another thread.
pub trait RowStream {
    /// The next row, or the error that ends the rows (nothing more is asked after it), or
    /// `None` at the end.
    fn next_row(&mut self) -> Option<Result<Row, NcuError>>;

    /// Takes back a row once it has been read, so that its buffers can hold a later one
    /// (a full-set row is tens of kilobytes; reusing them saves an allocation, and the
    /// memory's first touch, per row). Dropping it is fine too.
    fn recycle(&mut self, row: Row) {
        drop(row);
    }
}

/// How many read rows [`Rows`] keeps for reuse.
const SPARE_ROWS: usize = 64;

/// The export's records, read and split from a `LineFilter`, with one record of
/// lookahead so each row knows whether it is the last; an iterator of [`Row`]s.
pub struct Rows<R: Read> {
    filter: LineFilter<R>,
    header: Header,
    core: csv_core::Reader,
    /// How much of the filter's current line has been split.
    pos: usize,
    /// Field ends from `csv_core`, reused.
    ends: Vec<usize>,
    /// The next record and its line, read ahead.
    ahead: Option<(Record, u64)>,
    started: bool,
    /// Set after an error: nothing more is read.
    failed: bool,
    /// Records handed back ([`RowStream::recycle`]), for their buffers.
    spare: Vec<Record>,
    /// Whether plain quoted lines get their short fields' digits read here
    /// ([`Rows::read_digits`]).
    read_digits: bool,
}

impl<R: Read> Rows<R> {
    /// Recognizes the input (see [`super::read_export`]) and returns its records after the
    /// header; the header says which page it is.
    ///
    /// # Errors
    ///
    /// As [`super::read_export`], for the input's start (empty, binary, not an export).
    pub fn open(input: R) -> Result<Self, NcuError> {
        let (filter, header) = LineFilter::open(input)?;
        let core = ReaderBuilder::new().delimiter(header.delimiter).build();
        Ok(Rows {
            filter,
            header,
            core,
            pos: 0,
            ends: Vec::new(),
            ahead: None,
            started: false,
            failed: false,
            spare: Vec::new(),
            read_digits: true,
        })
    }

    /// Whether to read the digits of the short fields of plain quoted lines as they are
    /// split (the default), or to leave every field to the reader of the rows: the same
    /// rows either way, with the work on one side or the other (see
    /// `capture/src/files/parallel.rs`, which moves it to whichever thread waits for the other).
    pub fn read_digits(&mut self, read: bool) {
        self.read_digits = read;
    }

    /// What the header says: page, delimiter, line, column names.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The input, as far as it has not been read into the line buffer yet.
    pub fn input(&self) -> &R {
        self.filter.input()
    }

    /// The input, to add to it (see [`super::Reading::input_mut`]).
    pub fn input_mut(&mut self) -> &mut R {
        self.filter.input_mut()
    }

    /// One warning for the lines dropped as not part of the export (program output, ncu
    /// messages), if any. Complete once the rows are exhausted.
    pub fn skipped_warning(&self) -> Option<Warning> {
        self.filter.skipped_warning()
    }

    /// Reads the next record and its 1-based line; `None` at the end of the input.
    fn read_record(&mut self) -> Result<Option<(Record, u64)>, NcuError> {
        // A record starts where the last one ended; what is left of a line after a record
        // that a carriage return ended is skipped when it is only line ends, as csv_core
        // skips them between records.
        while self
            .filter
            .line()
            .get(self.pos..)
            .is_none_or(|rest| rest.iter().all(|&b| b == b'\n' || b == b'\r'))
        {
            if !self.next_line()? {
                return Ok(None);
            }
        }
        let line = self.filter.line_no();
        let mut record = self.spare.pop().unwrap_or_default();
        // Rows have the header's width, as a rule: one allocation for the field list.
        record.bounds.reserve(self.header.fields.len());
        record.digits.reserve(self.header.fields.len());
        if self.pos == 0
            && split_quoted(
                self.filter.line(),
                self.header.delimiter,
                &mut record.bounds,
                &mut record.digits,
                self.read_digits,
            )
        {
            // A plain quoted line has an even number of quotes: no need to count them.
            self.filter.quotes_are_even();
            self.filter.take_line(&mut record.data);
            record.pad();
            self.pos = self.filter.line().len();
            return Ok(Some((record, line)));
        }
        Ok(self.read_core_record(record)?.map(|record| (record, line)))
    }

    /// Moves to the next line of the export; false at the end of the input.
    fn next_line(&mut self) -> Result<bool, NcuError> {
        self.pos = 0;
        self.filter
            .next_export_line()
            .map_err(|e| NcuError::Io(e.to_string()))
    }

    /// Reads one record with `csv_core` from the current position, across lines as needed.
    fn read_core_record(&mut self, mut record: Record) -> Result<Option<Record>, NcuError> {
        record.data.clear();
        record.data.resize(1024, 0);
        if self.ends.is_empty() {
            self.ends.resize(64, 0);
        }
        let (mut out_len, mut n_ends) = (0, 0);
        let mut at_end = false;
        loop {
            // csv_core takes empty input for the end of the input.
            let input = if at_end {
                &[][..]
            } else {
                self.filter.line().get(self.pos..).unwrap_or_default()
            };
            let (result, n_in, n_out, n_end) = self.core.read_record(
                input,
                record.data.get_mut(out_len..).unwrap_or_default(),
                self.ends.get_mut(n_ends..).unwrap_or_default(),
            );
            self.pos += n_in;
            out_len += n_out;
            n_ends += n_end;
            match result {
                // Given the end, csv_core ends the record or the input; never asks for more.
                ReadRecordResult::InputEmpty if at_end => return Ok(None),
                ReadRecordResult::InputEmpty => at_end = !self.next_line()?,
                ReadRecordResult::OutputFull => {
                    let grown = record.data.len().max(1024) * 2;
                    record.data.resize(grown, 0);
                }
                ReadRecordResult::OutputEndsFull => {
                    let grown = self.ends.len().max(64) * 2;
                    self.ends.resize(grown, 0);
                }
                ReadRecordResult::Record => {
                    record.data.truncate(out_len);
                    record.bounds.clear();
                    let mut start = 0;
                    for &end in self.ends.get(..n_ends).unwrap_or_default() {
                        let end = u32::try_from(end).map_err(|_| NcuError::Csv {
                            line: self.filter.line_no(),
                            message: "a record of more than 4 GiB".into(),
                        })?;
                        record.bounds.push((start, end));
                        start = end;
                    }
                    record.pad();
                    record.read_digits();
                    return Ok(Some(record));
                }
                ReadRecordResult::End => return Ok(None),
            }
        }
    }

    /// The next row, or `None` at the end; after an error, `None`.
    fn next_row(&mut self) -> Result<Option<Row>, NcuError> {
        if !self.started {
            self.started = true;
            self.ahead = self.read_record()?;
        }
        let Some((record, line)) = self.ahead.take() else {
            return Ok(None);
        };
        self.ahead = self.read_record()?;
        let is_last = self.ahead.is_none();
        Ok(Some(Row {
            record,
            line,
            is_last,
            truncated: is_last && self.filter.eof_in_quote(),
        }))
    }
}

impl<R: Read> RowStream for Rows<R> {
    fn next_row(&mut self) -> Option<Result<Row, NcuError>> {
        self.next()
    }

    fn recycle(&mut self, row: Row) {
        if self.spare.len() < SPARE_ROWS {
            self.spare.push(row.record);
        }
    }
}

impl<R: Read> Iterator for Rows<R> {
    type Item = Result<Row, NcuError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        match self.next_row() {
            Ok(row) => row.map(Ok),
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every field of every record, as `csv` reads the same text with the reader's
    /// settings.
    fn csv_crate(text: &[u8], delimiter: u8) -> Vec<Vec<Vec<u8>>> {
        let mut rdr = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter)
            .from_reader(text);
        let mut out = Vec::new();
        let mut record = csv::ByteRecord::new();
        while rdr.read_byte_record(&mut record).expect("reads") {
            out.push(record.iter().map(<[u8]>::to_vec).collect());
        }
        out
    }

    fn rows(text: &[u8]) -> Vec<Row> {
        Rows::open(text)
            .expect("opens")
            .collect::<Result<Vec<_>, _>>()
            .expect("reads")
    }

    #[test]
    fn splits_as_the_csv_crate_does() {
        let header = "\"ID\",\"Kernel Name\",\"x\"\n";
        let bodies: &[&str] = &[
            "\"1\",\"k\",\"2\"\n\"2\",\"k\",\"\"\n",
            "\"1\",\"k\",\"a,b\"\n\"2\",\"k\",\"3\"",
            "\"1\",\"k\",\"say \"\"hi\"\"\"\n",
            "\"1\",\"k\",\"two\nlines\"\n\"2\",\"k\",\"x\"\n",
            "\"1\",\"k\",\"x\"y\n",
            "\"1\",\"k\",\"x\"\r\"2\",\"k\",\"y\"\n",
            "\"1\",\"k\",\"x\"\r",
            "\"1\",\"k\",\"x\",\n",
            "\"1\",k,\"x\"\n",
            "\"1\",\"k\"\n\"2\"\n",
            "\"1\",\"k\",\"\r\"\n",
            "\"\",\"\",\"\"\n",
            "\"1\",\"k\",\"cut",
        ];
        for body in bodies {
            let text = format!("{header}{body}");
            let ours: Vec<Vec<Vec<u8>>> = rows(text.as_bytes())
                .iter()
                .map(|r| r.record.iter().map(<[u8]>::to_vec).collect())
                .collect();
            let theirs = csv_crate(body.as_bytes(), b',');
            assert_eq!(ours, theirs, "{body:?}");
        }
    }

    #[test]
    fn random_inputs_split_as_the_csv_crate_splits_the_handed_lines() {
        // The reference: the csv crate over exactly the lines the filter hands on, which is
        // what the reader fed it before it split lines itself.
        let handed = |text: &[u8]| -> Vec<u8> {
            let (mut filter, _) = LineFilter::open(text).expect("opens");
            let mut out = filter.line().to_vec();
            while filter.next_export_line().expect("reads") {
                out.extend_from_slice(filter.line());
            }
            out
        };
        // Pieces of plain quoted rows and of everything else.
        let pieces: [&[u8]; 12] = [
            b"\"a\"", b"\"1,2\"", b",", b",\"", b"\"", b"\n", b"\n\"", b"\r", b"a", b"\"\"", b" ",
            b";",
        ];
        let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..1500 {
            let mut text = b"\"ID\",\"Kernel Name\",\"x\"\n".to_vec();
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            let len = (state % 40) as usize;
            for _ in 0..len {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.extend_from_slice(pieces[(state % pieces.len() as u64) as usize]);
            }
            let theirs = csv_crate(&handed(&text), b',');
            let ours: Vec<Vec<Vec<u8>>> = Rows::open(&text[..])
                .expect("opens")
                .map(|r| {
                    r.expect("reads")
                        .record
                        .iter()
                        .map(<[u8]>::to_vec)
                        .collect()
                })
                .collect();
            assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(&text));
        }
    }

    #[test]
    fn rows_know_their_lines_and_the_last_one() {
        let text =
            "==PROF== hi\n\"ID\";\"Kernel Name\"\n\"1\";\"two\nlines\"\nnoise\n\"2\";\"k\"\n";
        let got = rows(text.as_bytes());
        let summary: Vec<(u64, bool, bool)> = got
            .iter()
            .map(|r| (r.line, r.is_last, r.truncated))
            .collect();
        assert_eq!(summary, [(3, false, false), (6, true, false)]);
        assert_eq!(got[0].record.get(1), Some(&b"two\nlines"[..]));
        assert_eq!(got[1].record.get(1), Some(&b"k"[..]));
        assert_eq!(got[1].record.get(2), None);
        let plain = rows(
            b"\"ID\",\"Kernel Name\"\n\"1\",\"x\",\"2.50\",\"y\",\"1,024\",\"\",\"a\"\n\"1\",2\n",
        );
        let digits: Vec<Vec<Option<(u64, i32)>>> = plain
            .iter()
            .map(|r| {
                (0..r.record.len())
                    .map(|i| r.record.plain_decimal(i))
                    .collect()
            })
            .collect();
        assert_eq!(
            digits,
            [
                vec![
                    Some((1, 0)),
                    None,
                    Some((250, 2)),
                    None,
                    Some((1024, 0)),
                    None,
                    None
                ],
                vec![Some((1, 0)), Some((2, 0))],
            ]
        );
        let cut = rows(b"\"ID\",\"Kernel Name\"\n\"1\",\"k\"\n\"2\",\"cut of");
        assert_eq!(
            cut.last().map(|r| (r.is_last, r.truncated)),
            Some((true, true))
        );
    }

    #[test]
    fn the_fast_split_takes_only_plain_quoted_lines() {
        let mut bounds = Vec::new();
        let mut digits = Vec::new();
        assert!(split_quoted(
            b"\"a\",\"\",\"bc\"\n",
            b',',
            &mut bounds,
            &mut digits,
            true
        ));
        assert_eq!(bounds, [(1, 2), (5, 5), (8, 10)]);
        assert_eq!(digits, [NOT_PLAIN; 3]);
        assert!(split_quoted(
            b"\"12\",\"0.5\",\"12345678\"\n",
            b',',
            &mut bounds,
            &mut digits,
            true
        ));
        assert_eq!(digits, [pack(Some((12, 0))), pack(Some((5, 1))), NOT_PLAIN]);
        assert!(split_quoted(
            b"\"12345678\",\"1,024.5\"\n",
            b',',
            &mut bounds,
            &mut digits,
            true
        ));
        assert_eq!(digits, [NOT_PLAIN, pack(Some((10_245, 1)))]);
        // Cells of eight bytes and more are left to the reader of the rows.
        assert!(split_quoted(
            b"\"1,234,567,890.12\",\"12,345,678.90\",\"123456789012345\"\n",
            b',',
            &mut bounds,
            &mut digits,
            true
        ));
        assert_eq!(digits, [NOT_PLAIN, NOT_PLAIN, NOT_PLAIN]);
        assert!(split_quoted(
            b"\"a\";\"b\"",
            b';',
            &mut bounds,
            &mut digits,
            true
        ));
        let long = b"\"0123456789\",\"\",\"ab\",\"\",\"\",\"x\",\"0123456789abcdef\",\"\"\n";
        assert!(split_quoted(long, b',', &mut bounds, &mut digits, true));
        assert_eq!(bounds.len(), 8);
        assert!(!split_quoted(
            &long[..long.len() - 2],
            b',',
            &mut bounds,
            &mut digits,
            true
        ));
        for (b, quote) in (0u8..=255).map(|b| (b, b == b'"')) {
            let mask = quote_mask(u64::from_le_bytes([
                b,
                b'"',
                0,
                0x22 ^ 0x80,
                b,
                0xff,
                b'"',
                b,
            ]));
            let want = 0x0080_0000_0000_8000u64 | if quote { 0x8000_0080_0000_0080 } else { 0 };
            assert_eq!(mask, want, "{b}");
        }
        for line in [
            &b"a,\"b\"\n"[..],
            b"\"a\"\"b\"\n",
            b"\"a\",b\n",
            b"\"a\",\n",
            b"\"a\"\r\n",
            b"\"a\n",
            b"",
            b"\n",
        ] {
            assert!(
                !split_quoted(line, b',', &mut bounds, &mut digits, true),
                "{line:?}"
            );
        }
    }
}
