//! The names and units of a metric table's columns, stored once and shared by every
//! launch read from one export (see `metrics.rs` for the values).

use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::model::artifact::schema::MetricKey;

/// Lists of at most this many columns are searched name by name, without an index: an
/// artifact read back has a list per counter set, and for 200,000 one-column kernels the
/// indexes (a map and a copy of each name) held 36 MB of `capture table`'s 753 MB.
const UNINDEXED: usize = 8;

/// The columns of a metric table: names and units in export order, with an index by name
/// for a list longer than 8 columns (the first of duplicated names wins a lookup; every
/// column is kept).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MetricColumns {
    pub(in crate::model::artifact) keys: Vec<MetricKey>,
    index: FxHashMap<String, u32>,
    /// The length of the longest name, bytes: a longer name is in no column, found so
    /// without hashing it.
    longest: usize,
}

impl MetricColumns {
    /// Columns from keys in order, shared behind an `Arc`.
    pub fn new(keys: Vec<MetricKey>) -> Arc<Self> {
        let mut index = FxHashMap::default();
        if keys.len() > UNINDEXED {
            index.reserve(keys.len());
            for (i, k) in keys.iter().enumerate() {
                index.entry(k.name.clone()).or_insert(i as u32);
            }
        }
        let longest = keys.iter().map(|k| k.name.len()).max().unwrap_or(0);
        Arc::new(MetricColumns {
            keys,
            index,
            longest,
        })
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
        if name.len() > self.longest {
            return None;
        }
        if self.keys.len() <= UNINDEXED {
            return self.keys.iter().position(|k| k.name == name);
        }
        self.index.get(name).map(|&i| i as usize)
    }

    /// Column of the metric named `name` followed by `suffix` (`X.sum` and
    /// `.per_second`), found without allocating: the rate forms of a counter are looked up
    /// for every counter a view reads, and most columns lists have none of them (a
    /// `format!` per lookup was a fifth of `capture table`'s time on 200,000 kernels).
    pub fn position_suffixed(&self, name: &str, suffix: &str) -> Option<usize> {
        const ON_STACK: usize = 192;
        let len = name.len() + suffix.len();
        if len > self.longest {
            return None;
        }
        if len > ON_STACK {
            return self.position(&format!("{name}{suffix}"));
        }
        let mut buf = [0u8; ON_STACK];
        buf.get_mut(..name.len())?.copy_from_slice(name.as_bytes());
        buf.get_mut(name.len()..len)?
            .copy_from_slice(suffix.as_bytes());
        let joined = std::str::from_utf8(buf.get(..len)?).ok()?;
        self.position(joined)
    }

    /// Adds a column at the end; its index.
    pub(in crate::model::artifact) fn push(&mut self, key: MetricKey) -> usize {
        let i = self.keys.len();
        self.longest = self.longest.max(key.name.len());
        self.keys.push(key);
        if self.keys.len() == UNINDEXED + 1 {
            for (j, k) in self.keys.iter().enumerate() {
                self.index.entry(k.name.clone()).or_insert(j as u32);
            }
        } else if self.keys.len() > UNINDEXED + 1 {
            if let Some(k) = self.keys.last() {
                self.index.entry(k.name.clone()).or_insert(i as u32);
            }
        }
        i
    }
}
