//! One table renderer for every tabular output: aligned text for a terminal, GitHub-flavoured
//! Markdown and CSV, after hyperfine's markup exporter (the table is data; each format is one
//! implementation of a small `Markup` trait that writes a header, a divider and rows).
//! `capture table`, `capture diff` and `capture source` all render through it; what goes above
//! and below a table (device lines, the gate's verdict, notes) stays with each caller.
//!
//! Escaping belongs to the format (see [`escape`]): aligned text has control characters
//! escaped in every cell; Markdown has `|` escaped too ([`escape::markdown_cell`]); CSV guards
//! [`Kind::Text`] cells against formula injection ([`escape::csv_cell`]) and writes
//! [`Kind::Value`] cells as they are, so a negative number stays a number.

use std::borrow::Cow;

use super::escape;

/// `s` padded with spaces to `width` characters, on the left when `right` (a number
/// column), else on the right. Not `format!("{s:<w$}")`: a width over 65,535 panics there
/// (a range name of 65,536 characters did; issue 48).
pub fn padded(s: &str, width: usize, right: bool) -> String {
    let fill = width.saturating_sub(s.chars().count());
    let mut out = String::with_capacity(s.len() + fill);
    if right {
        out.extend(std::iter::repeat_n(' ', fill));
        out.push_str(s);
    } else {
        out.push_str(s);
        out.extend(std::iter::repeat_n(' ', fill));
    }
    out
}

/// What a column holds: it decides the alignment and the CSV escaping of its cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Text, names from files among it: left-aligned, a Markdown `---` divider, and in CSV
    /// written through [`escape::csv_cell`].
    Text,
    /// A figure or a value the tool writes itself: right-aligned, a `---:` divider, and in CSV
    /// written as it is.
    Value,
}

/// How wide a column is in aligned text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Width {
    /// As wide as its header or widest cell.
    Fit,
    /// Padded to this many characters whatever the cells; a wider cell overflows its column.
    Fixed(usize),
}

/// One column: its header, what it holds and its width in aligned text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Column {
    /// The header cell.
    pub header: &'static str,
    /// Text or value.
    pub kind: Kind,
    /// Width in aligned text.
    pub width: Width,
}

impl Column {
    /// A text column as wide as its widest cell.
    pub const fn text(header: &'static str) -> Column {
        Column {
            header,
            kind: Kind::Text,
            width: Width::Fit,
        }
    }

    /// A value column as wide as its widest cell.
    pub const fn value(header: &'static str) -> Column {
        Column {
            header,
            kind: Kind::Value,
            width: Width::Fit,
        }
    }

    /// This column padded to `width` characters, its cells not measured.
    pub const fn fixed(self, width: usize) -> Column {
        Column {
            width: Width::Fixed(width),
            ..self
        }
    }
}

/// The formats a [`Table`] renders to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Aligned text for a terminal.
    Text,
    /// A GitHub-flavoured Markdown table.
    Markdown,
    /// Comma-separated values with a header row.
    Csv,
}

/// How aligned text lays a table out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TextStyle {
    /// A rule of dashes under the header, trailing spaces trimmed from every line: a summary
    /// table.
    Summary,
    /// No rule, lines written as padded: a listing whose last column is free text.
    Listing,
}

/// A table: columns and rows of cells, not yet escaped (the format escapes them).
#[derive(Clone, Debug, PartialEq)]
pub struct Table<'c> {
    columns: &'c [Column],
    rows: Vec<Vec<String>>,
    style: TextStyle,
}

impl<'c> Table<'c> {
    /// An empty summary table: in text, a rule under the header and no trailing spaces.
    pub fn new(columns: &'c [Column]) -> Self {
        Table {
            columns,
            rows: Vec::new(),
            style: TextStyle::Summary,
        }
    }

    /// An empty listing: in text, no rule under the header, and each line as padded (the
    /// last column, free text, is written as it is).
    pub fn listing(columns: &'c [Column]) -> Self {
        Table {
            style: TextStyle::Listing,
            ..Table::new(columns)
        }
    }

    /// Adds a row; missing cells are empty, cells beyond the columns are dropped.
    pub fn push(&mut self, cells: impl IntoIterator<Item = String>) {
        let mut row: Vec<String> = cells.into_iter().take(self.columns.len()).collect();
        row.resize(self.columns.len(), String::new());
        self.rows.push(row);
    }

    /// The table in `format`, every line ending in a newline.
    pub fn render(&self, format: Format) -> String {
        match format {
            Format::Text => Text::new(self).render(self),
            Format::Markdown => Markdown.render(self),
            Format::Csv => Csv.render(self),
        }
    }

    /// Aligned text: [`Format::Text`].
    pub fn to_text(&self) -> String {
        self.render(Format::Text)
    }

    /// Markdown: [`Format::Markdown`].
    pub fn to_markdown(&self) -> String {
        self.render(Format::Markdown)
    }

    /// CSV: [`Format::Csv`].
    pub fn to_csv(&self) -> String {
        self.render(Format::Csv)
    }
}

/// One output format: how a cell is escaped and how the header, the divider and a row are
/// written. The table is the header, the divider where there is one, then the rows.
trait Markup {
    /// `cell`, of a column holding `kind`, made safe for this format.
    fn escape<'a>(&self, kind: Kind, cell: &'a str) -> Cow<'a, str>;

    /// One line of cells (already escaped), with its newline.
    fn row(&self, columns: &[Column], cells: &[Cow<'_, str>]) -> String;

    /// The line under the header, if the format has one.
    fn divider(&self, columns: &[Column]) -> Option<String>;

    /// The header line.
    fn header(&self, columns: &[Column]) -> String {
        let cells: Vec<Cow<'_, str>> = columns.iter().map(|c| Cow::Borrowed(c.header)).collect();
        self.row(columns, &cells)
    }

    /// The whole table.
    fn render(&self, table: &Table<'_>) -> String {
        let mut out = self.header(table.columns);
        if let Some(d) = self.divider(table.columns) {
            out.push_str(&d);
        }
        for r in &table.rows {
            let cells: Vec<Cow<'_, str>> = table
                .columns
                .iter()
                .zip(r)
                .map(|(c, s)| self.escape(c.kind, s))
                .collect();
            out.push_str(&self.row(table.columns, &cells));
        }
        out
    }
}

/// Aligned text: columns two spaces apart, text left and values right.
struct Text {
    widths: Vec<usize>,
    style: TextStyle,
}

impl Text {
    /// The layout of `table`: each column's width from its header and escaped cells.
    fn new(table: &Table<'_>) -> Text {
        let widths = table
            .columns
            .iter()
            .enumerate()
            .map(|(i, c)| match c.width {
                Width::Fixed(w) => w,
                Width::Fit => table
                    .rows
                    .iter()
                    .filter_map(|r| r.get(i))
                    .map(|s| escape::controls(s).chars().count())
                    .fold(c.header.chars().count(), usize::max),
            })
            .collect();
        Text {
            widths,
            style: table.style,
        }
    }
}

impl Markup for Text {
    fn escape<'a>(&self, _: Kind, cell: &'a str) -> Cow<'a, str> {
        escape::controls(cell)
    }

    fn row(&self, columns: &[Column], cells: &[Cow<'_, str>]) -> String {
        // One string written in place: a string per cell, joined and copied again, was a
        // fifth of `capture table`'s text form on 200,000 rows.
        let mut line = String::with_capacity(self.widths.iter().sum::<usize>() + 2 * cells.len());
        for (i, (s, (c, &w))) in cells
            .iter()
            .zip(columns.iter().zip(&self.widths))
            .enumerate()
        {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(&padded(s, w, c.kind == Kind::Value));
        }
        if self.style == TextStyle::Summary {
            line.truncate(line.trim_end().len());
        }
        line.push('\n');
        line
    }

    fn divider(&self, columns: &[Column]) -> Option<String> {
        (self.style == TextStyle::Summary).then(|| {
            let rule: Vec<Cow<'_, str>> =
                self.widths.iter().map(|&w| "-".repeat(w).into()).collect();
            self.row(columns, &rule)
        })
    }
}

/// GitHub-flavoured Markdown: `| a | b |` rows under a `| --- | ---: |` divider.
struct Markdown;

impl Markup for Markdown {
    fn escape<'a>(&self, _: Kind, cell: &'a str) -> Cow<'a, str> {
        escape::markdown_cell(cell)
    }

    fn row(&self, _: &[Column], cells: &[Cow<'_, str>]) -> String {
        format!("| {} |\n", cells.join(" | "))
    }

    fn divider(&self, columns: &[Column]) -> Option<String> {
        let mut out = String::from("|");
        for c in columns {
            out.push_str(match c.kind {
                Kind::Text => " --- |",
                Kind::Value => " ---: |",
            });
        }
        out.push('\n');
        Some(out)
    }
}

/// Comma-separated values, quoted where a cell needs it (the `csv` crate's writer).
struct Csv;

impl Markup for Csv {
    fn escape<'a>(&self, kind: Kind, cell: &'a str) -> Cow<'a, str> {
        match kind {
            Kind::Text => escape::csv_cell(cell),
            Kind::Value => Cow::Borrowed(cell),
        }
    }

    fn row(&self, _: &[Column], cells: &[Cow<'_, str>]) -> String {
        let mut w = csv::WriterBuilder::new().from_writer(Vec::new());
        // Writing to a Vec cannot fail.
        let _ = w.write_record(cells.iter().map(|c| c.as_bytes()));
        String::from_utf8(w.into_inner().unwrap_or_default()).unwrap_or_default()
    }

    fn divider(&self, _: &[Column]) -> Option<String> {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const COLUMNS: [Column; 3] = [
        Column::text("kernel"),
        Column::value("ms"),
        Column::text("note"),
    ];

    fn table() -> Table<'static> {
        let mut t = Table::new(&COLUMNS);
        t.push(["a|b\u{1b}".to_string(), "-1.5".into(), String::new()]);
        t.push(["=cmd".to_string(), "12.25".into(), "x, y".into()]);
        t
    }

    #[test]
    fn text_aligns_text_left_and_values_right_and_trims() {
        assert_eq!(
            table().to_text(),
            "kernel        ms  note\n\
             ---------  -----  ----\n\
             a|b\\u{1b}   -1.5\n\
             =cmd       12.25  x, y\n"
        );
    }

    #[test]
    fn markdown_escapes_pipes_and_marks_value_columns() {
        assert_eq!(
            table().to_markdown(),
            "| kernel | ms | note |\n\
             | --- | ---: | --- |\n\
             | a\\|b\\u{1b} | -1.5 |  |\n\
             | =cmd | 12.25 | x, y |\n"
        );
    }

    #[test]
    fn csv_guards_text_cells_and_keeps_values() {
        assert_eq!(
            table().to_csv(),
            "kernel,ms,note\na|b\\u{1b},-1.5,\n'=cmd,12.25,\"x, y\"\n"
        );
    }

    #[test]
    fn a_listing_keeps_fixed_widths_and_its_padding() {
        let columns = [
            Column::text("address").fixed(8),
            Column::text("sass").fixed(0),
        ];
        let mut t = Table::listing(&columns);
        t.push(["0x10".to_string(), "EXIT ;".into()]);
        t.push(["0x123456789".to_string(), String::new()]);
        assert_eq!(
            t.to_text(),
            "address   sass\n0x10      EXIT ;\n0x123456789  \n"
        );
    }

    #[test]
    fn short_rows_are_padded_with_empty_cells() {
        let mut t = Table::new(&COLUMNS);
        t.push(["only".to_string()]);
        assert_eq!(t.to_csv(), "kernel,ms,note\nonly,,\n");
    }
}
