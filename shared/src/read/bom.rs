//! The UTF-8 byte order mark, which some editors write at the start of a text file: `kind`
//! skips it before it looks at a text's first character, and the CSV reader (`ncu`) drops it
//! from the first line. It stands below both, so neither imports the other for it.

/// The UTF-8 byte order mark some editors write at the start of a text file.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";
