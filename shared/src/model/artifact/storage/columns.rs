//! The names and units of a metric table's columns, stored once and shared by every
//! launch read from one export (see `metrics.rs` for the values).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::model::artifact::schema::MetricKey;

/// The columns of a metric table: names and units in export order, with an index by name
/// (the first of duplicated names wins a lookup; every column is kept).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricColumns {
    pub(in crate::model::artifact) keys: Vec<MetricKey>,
    index: FxHashMap<String, u32>,
}

impl MetricColumns {
    /// Columns from keys in order, shared behind an `Arc`.
    pub fn new(keys: Vec<MetricKey>) -> Arc<Self> {
        let mut index = FxHashMap::with_capacity_and_hasher(keys.len(), Default::default());
        for (i, k) in keys.iter().enumerate() {
            index.entry(k.name.clone()).or_insert(i as u32);
        }
        Arc::new(MetricColumns { keys, index })
    }

    /// The keys in column order.
    pub fn keys(&self) -> &[MetricKey] {
        &self.keys
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there are no columns.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Column of a metric name.
    pub fn position(&self, name: &str) -> Option<usize> {
        self.index.get(name).map(|&i| i as usize)
    }

    /// Adds a column at the end; its index.
    pub(in crate::model::artifact) fn push(&mut self, key: MetricKey) -> usize {
        let i = self.keys.len();
        self.index.entry(key.name.clone()).or_insert(i as u32);
        self.keys.push(key);
        i
    }
}
