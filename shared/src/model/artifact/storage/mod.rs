//! How the artifact's launches hold their raw-page metrics in memory: the columns (names
//! and units) once per export ([`MetricColumns`]), one `f64` per column per launch
//! ([`Metrics`]), the values launches have in common stored once ([`Bases`]), and a list
//! of 8 bytes where empty for the fields most launches leave empty ([`List`]), one copy of
//! the texts launches repeat ([`SharedText`]) and of the sites they share ([`SiteInterner`]). Nothing
//! here reads or writes JSON: [`super::read`] builds rows from a document and
//! [`super::write`] writes them.

mod columns;
mod list;
mod metrics;
mod shared_text;
mod sites;
mod values;

pub use self::columns::MetricColumns;
pub use self::list::List;
pub(in crate::model::artifact) use self::metrics::{missing, TEXT_BITS};
pub use self::metrics::{varying_columns, CheckedRows, Metrics, RowBuilder};
pub use self::shared_text::SharedText;
pub use self::sites::SiteInterner;
pub use self::values::Bases;
pub(in crate::model::artifact) use self::values::Values;
