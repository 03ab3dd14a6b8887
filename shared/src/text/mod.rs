//! Text for people: kernel names shortened for labels and tables ([`names`]), numbers with SI
//! prefixes and three significant digits ([`format`](mod@format)), strings from files made
//! safe for terminals, tables and spreadsheets ([`escape`]), and one table renderer for aligned
//! text, Markdown and CSV ([`table`]). Used by the table, the
//! charts, the import warnings and the viewer alike, so a name or a number reads the same
//! everywhere.

pub mod escape;
pub mod format;
pub mod names;
pub mod table;
