//! A message of the report walked field by field, its wire errors turned into
//! [`ReportError::Malformed`] naming what was read and the file version: the one walk that
//! `layout.rs`, `nvtx.rs` and `rules.rs` read their messages with.

use crate::error::ReportError;

use super::wire::{Field, Fields};

/// Walks a message, turning wire errors into [`ReportError::Malformed`].
pub(super) fn walk<'a>(
    data: &'a [u8],
    offset: u64,
    what: &'static str,
    version: u64,
) -> impl Iterator<Item = Result<Field<'a>, ReportError>> + 'a {
    Fields::new(data, offset).map(move |f| {
        f.map_err(|e| ReportError::Malformed {
            offset: e.offset,
            what,
            problem: e.what.to_owned(),
            version,
        })
    })
}

/// The fields of a nested message field (none if it is not length-prefixed).
pub(super) fn walk_message<'a>(
    field: &Field<'a>,
    what: &'static str,
    version: u64,
) -> impl Iterator<Item = Result<Field<'a>, ReportError>> + 'a {
    walk(
        field.bytes().unwrap_or_default(),
        field.value_offset,
        what,
        version,
    )
}
