//! The artifact: the one JSON document that `capture` writes and the viewer reads.
//!
//! - `schema.rs`: the public format, every type of the document
//!   and [`SCHEMA_VERSION`] with its history. Read this file to know the format.
//! - `storage/`: how launches hold their metrics in memory ([`Metrics`], [`MetricColumns`],
//!   [`Bases`]); no JSON.
//! - `read.rs`: JSON text to an [`Artifact`] ([`Artifact::from_json`]), with plain errors
//!   and out-of-range numbers dropped with warnings.
//! - `write/`: an [`Artifact`] to JSON text ([`Artifact::write_json`]): the formatter, and
//!   the writer whose state one write hands down to the serializers of the artifact's parts.
//!
//! The public items of these files are re-exported here: callers name
//! `shared::model::artifact::X`.

mod read;
mod schema;
mod storage;
#[cfg(test)]
mod tests;
mod write;

pub use self::read::{LoadField, LoadWarning};
pub use self::schema::*;
pub use self::storage::{
    varying_columns, Bases, CheckedRows, List, MetricColumns, Metrics, RowBuilder, SharedText,
    SiteInterner,
};
pub use self::write::{ArraySource, VaryingColumns, WorkOf};
