//! Compact storage of a launch's raw-page metrics, and its columnar JSON form.
//!
//! A full-set raw row has about 2,200 metrics, and an application export can have tens of
//! thousands of rows. Storing a name, a unit and a map node per value costs about 165 bytes
//! each; here the names and units of an export are stored once ([`MetricColumns`], shared
//! through an `Arc` by every launch read from it) and each launch holds one `f64` per column
//! plus a short list of its text values. In JSON a [`super::CounterSet`] lists the columns
//! once (`metric_columns`) and each launch's `metrics` is an array of values in column order;
//! where several launches share the columns, the values that are the same in all of them
//! (a device's attributes, a launch's shape, counters that do not change from launch to
//! launch) are written once (`constant_values`) and each launch lists only the others, the
//! `varying_columns` ([`varying_columns`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::columns::{MetricColumns, MetricKey};
use super::values::{Bases, Values};
use super::{Metric, MetricValue};

// Non-finite numbers never reach the map (the reader turns them into `Missing`), so two NaN
// payloads can mark the other kinds of value.
const MISSING_BITS: u64 = 0x7ff8_dead_0000_0001;
const TEXT_BITS: u64 = 0x7ff8_dead_0000_0002;

fn missing() -> f64 {
    f64::from_bits(MISSING_BITS)
}

/// One launch's raw-page metrics: shared columns, one value per column.
#[derive(Clone)]
pub struct Metrics {
    columns: Arc<MetricColumns>,
    values: Values,
    /// Text values by column, sorted by column.
    texts: Vec<(u32, String)>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            columns: Arc::new(MetricColumns::default()),
            values: Values::default(),
            texts: Vec::new(),
        }
    }
}

/// Rows already gone through by [`Metrics::columns_where`], by address, with what was
/// found in each.
#[derive(Default)]
pub struct CheckedRows {
    rows: HashMap<(usize, usize), Checked>,
}

/// A row gone through, held (so that it is not freed and its address taken by another),
/// with its columns and the columns found in it.
type Checked = (Arc<Vec<f64>>, Arc<MetricColumns>, Vec<usize>);

/// Fills a row of shared columns value by value, in column order: for a reader that has
/// every value of a row in turn, cheaper than [`Metrics::set`] per column.
pub struct RowBuilder {
    columns: Arc<MetricColumns>,
    values: Vec<f64>,
    texts: Vec<(u32, String)>,
}

impl RowBuilder {
    /// An empty row of `columns`.
    pub fn new(columns: Arc<MetricColumns>) -> Self {
        RowBuilder {
            values: Vec::with_capacity(columns.len()),
            columns,
            texts: Vec::new(),
        }
    }

    /// The next column's value, a number (missing when not finite).
    #[inline]
    pub fn push_number(&mut self, v: f64) {
        self.values.push(if v.is_finite() { v } else { missing() });
    }

    /// The next column's value.
    pub fn push(&mut self, value: MetricValue) {
        match value {
            MetricValue::Number(v) => self.push_number(v),
            MetricValue::Text(t) => {
                self.texts.push((self.values.len() as u32, t));
                self.values.push(f64::from_bits(TEXT_BITS));
            }
            MetricValue::Missing => self.values.push(missing()),
        }
    }

    /// The values pushed so far, in column order: numbers as they are stored, anything
    /// else (missing, text) a NaN.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The row: columns not pushed are missing, values beyond the columns dropped.
    pub fn finish(mut self) -> Metrics {
        let n = self.columns.len();
        self.values.resize(n, missing());
        self.texts.retain(|(k, _)| (*k as usize) < n);
        Metrics {
            columns: self.columns,
            values: Values::from_vec(self.values),
            texts: self.texts,
        }
    }
}

impl Metrics {
    /// An empty map.
    pub fn new() -> Self {
        Self::default()
    }

    /// A row of `columns` with every value missing; fill it with [`Metrics::set`].
    pub fn with_columns(columns: Arc<MetricColumns>) -> Self {
        Metrics {
            values: Values::from_vec(vec![missing(); columns.len()]),
            columns,
            texts: Vec::new(),
        }
    }

    /// The columns this row refers to.
    pub fn columns(&self) -> &Arc<MetricColumns> {
        &self.columns
    }

    /// Stores this row of a launch of the kind `kind` (a hash of what makes launches
    /// alike: the kernel and its shape) over an earlier row of that kind in `bases` where
    /// they hold the same values (see [`Bases`]): the same values read back, in a fraction
    /// of the memory when launches repeat each other.
    pub fn share_values(&mut self, kind: u64, bases: &mut Bases) {
        bases.share(kind, &self.columns, &mut self.values);
    }

    /// Sets the value of column `i` (ignored when out of range). Non-finite numbers are
    /// stored as missing.
    pub fn set(&mut self, i: usize, value: MetricValue) {
        if i >= self.values.len() {
            return;
        }
        let Some(slot) = self.values.make_mut().get_mut(i) else {
            return;
        };
        let i32_key = i as u32;
        let had_text = f64::to_bits(*slot) == TEXT_BITS;
        *slot = match &value {
            MetricValue::Number(v) if v.is_finite() => *v,
            MetricValue::Text(_) => f64::from_bits(TEXT_BITS),
            _ => missing(),
        };
        // The usual case, a number where there was none: no text list to touch.
        if !had_text && !matches!(value, MetricValue::Text(_)) {
            return;
        }
        let pos = self.texts.binary_search_by_key(&i32_key, |(k, _)| *k);
        match (value, pos) {
            (MetricValue::Text(t), Ok(p)) => {
                if let Some(entry) = self.texts.get_mut(p) {
                    entry.1 = t;
                }
            }
            (MetricValue::Text(t), Err(p)) => self.texts.insert(p, (i32_key, t)),
            (_, Ok(p)) if had_text => {
                self.texts.remove(p);
            }
            _ => {}
        }
    }

    /// Sets column `i` to the number `v` (missing when not finite; ignored when out of
    /// range): [`Metrics::set`] for a number, without building a [`MetricValue`].
    pub fn set_number(&mut self, i: usize, v: f64) {
        match self.values.get(i) {
            Some(old) if old.to_bits() == TEXT_BITS => self.set(i, MetricValue::Number(v)),
            Some(_) => {
                if let Some(slot) = self.values.make_mut().get_mut(i) {
                    *slot = if v.is_finite() { v } else { missing() };
                }
            }
            None => {}
        }
    }

    fn value_at(&self, i: usize) -> MetricValue {
        match self.values.get(i) {
            Some(v) if v.to_bits() == TEXT_BITS => self
                .texts
                .binary_search_by_key(&(i as u32), |(k, _)| *k)
                .ok()
                .and_then(|p| self.texts.get(p))
                .map_or(MetricValue::Missing, |(_, t)| MetricValue::Text(t.clone())),
            Some(v) if v.is_finite() => MetricValue::Number(v),
            _ => MetricValue::Missing,
        }
    }

    /// The metric called `name`, if the row has that column.
    pub fn get(&self, name: &str) -> Option<Metric> {
        let i = self.columns.position(name)?;
        let key = self.columns.keys.get(i)?;
        Some(Metric {
            unit: key.unit.clone(),
            value: self.value_at(i),
        })
    }

    /// The number of metric `name`, without allocating; `None` when absent or not a number.
    pub fn number(&self, name: &str) -> Option<f64> {
        let i = self.columns.position(name)?;
        self.values.get(i).filter(|v| v.is_finite())
    }

    /// The number in column `i`; `None` when out of range or not a number.
    pub fn number_at(&self, i: usize) -> Option<f64> {
        self.values.get(i).filter(|v| v.is_finite())
    }

    /// Whether the row has a column called `name`.
    pub fn contains_key(&self, name: &str) -> bool {
        self.columns.position(name).is_some()
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether the row has no columns.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Sets `name` to `metric`, adding a column when the row lacks it (the columns are
    /// copied first if other rows share them).
    pub fn insert(&mut self, name: String, metric: Metric) {
        let i = match self.columns.position(&name) {
            Some(i) => {
                if self
                    .columns
                    .keys
                    .get(i)
                    .is_some_and(|k| k.unit != metric.unit)
                {
                    if let Some(k) = Arc::make_mut(&mut self.columns).keys.get_mut(i) {
                        k.unit = metric.unit;
                    }
                }
                i
            }
            None => {
                let i = Arc::make_mut(&mut self.columns).push(MetricKey {
                    name,
                    unit: metric.unit,
                });
                self.values.make_mut().push(missing());
                i
            }
        };
        self.set(i, metric.value);
    }

    /// The columns (ascending) whose numbers `bad(key, value)` picks out. A base row that
    /// rows share ([`Bases`]) is gone through once, its findings kept in `checked`; after
    /// that only each row's own values are looked at (a whole application's artifact is
    /// tens of thousands of launches of some 2,200 metrics).
    pub fn columns_where(
        &self,
        checked: &mut CheckedRows,
        bad: impl Fn(&MetricKey, f64) -> bool,
    ) -> Vec<usize> {
        let keys = self.columns.keys();
        let base = self.values.base();
        let key = (
            Arc::as_ptr(base) as usize,
            Arc::as_ptr(&self.columns) as usize,
        );
        let in_base = checked.rows.entry(key).or_insert_with(|| {
            let found = base
                .iter()
                .zip(keys)
                .enumerate()
                .filter(|(_, (v, k))| v.is_finite() && bad(k, **v))
                .map(|(i, _)| i)
                .collect();
            (Arc::clone(base), Arc::clone(&self.columns), found)
        });
        let mut found: Vec<usize> = in_base
            .2
            .iter()
            .copied()
            .filter(|&i| !self.values.changes_at(i))
            .collect();
        for (i, v) in self.values.changes() {
            if v.is_finite() && keys.get(i).is_some_and(|k| bad(k, v)) {
                found.push(i);
            }
        }
        found.sort_unstable();
        found
    }

    /// Sets the values of columns `at` to missing (the row is copied first if others share
    /// it, and only then).
    pub fn drop_columns(&mut self, at: &[usize]) {
        if at.is_empty() {
            return;
        }
        let values = self.values.make_mut();
        for &i in at {
            if let Some(slot) = values.get_mut(i) {
                *slot = missing();
            }
        }
    }

    /// Inserts every metric of `other`.
    pub fn extend(&mut self, other: Metrics) {
        if self.is_empty() {
            *self = other;
            return;
        }
        for (name, metric) in &other {
            self.insert(name.to_string(), metric);
        }
    }

    /// The numeric metrics in column order, as (name, value), without cloning units.
    pub fn numbers(&self) -> impl Iterator<Item = (&str, f64)> + '_ {
        self.columns
            .keys
            .iter()
            .zip(self.values.iter())
            .filter(|(_, v)| v.is_finite())
            .map(|(k, v)| (k.name.as_str(), v))
    }

    /// Metrics in column order, as (name, metric).
    pub fn iter(&self) -> impl Iterator<Item = (&str, Metric)> + '_ {
        self.columns
            .keys
            .iter()
            .enumerate()
            .take(self.values.len())
            .map(|(i, k)| {
                (
                    k.name.as_str(),
                    Metric {
                        unit: k.unit.clone(),
                        value: self.value_at(i),
                    },
                )
            })
    }

    /// The row's values as a JSON array, exactly as [`super::Artifact::write_json`] writes
    /// them: `[1056.0,"all",null]`; only the columns `only` (ascending) when given. A pure
    /// function of the row, so a caller may render the rows of an artifact on another
    /// thread ([`super::Artifact::write_json_with`]).
    pub fn json_array(&self, only: Option<&[u32]>) -> Vec<u8> {
        let count = only.map_or(self.values.len(), <[u32]>::len);
        let mut out = Vec::with_capacity(16 * count + 2);
        match only {
            Some(columns) => self.render_values(&mut out, columns.iter().map(|&i| i as usize)),
            None => self.render_values(&mut out, 0..self.values.len()),
        }
        out
    }

    /// The text of column `i`, if it holds one.
    fn text_at(&self, i: usize) -> Option<&str> {
        let p = self
            .texts
            .binary_search_by_key(&(i as u32), |(k, _)| *k)
            .ok()?;
        self.texts.get(p).map(|(_, t)| t.as_str())
    }

    /// Appends the values of `columns` (ascending) as a JSON array (see
    /// [`Metrics::json_array`]).
    fn render_values(&self, out: &mut Vec<u8>, columns: impl Iterator<Item = usize>) {
        out.push(b'[');
        let mut texts = self.texts.iter().peekable();
        for (n, i) in columns.enumerate() {
            if n > 0 {
                out.push(b',');
            }
            let Some(v) = self.values.get(i) else {
                out.extend_from_slice(b"null");
                continue;
            };
            if v.is_finite() {
                super::json::push_f64(out, v);
                continue;
            }
            if v.to_bits() == TEXT_BITS {
                while texts.next_if(|(k, _)| (*k as usize) < i).is_some() {}
                if let Some((_, t)) = texts.next_if(|(k, _)| *k as usize == i) {
                    // Writing a string to a Vec cannot fail.
                    let _ = serde_json::to_writer(&mut *out, t.as_str());
                    continue;
                }
            }
            out.extend_from_slice(b"null");
        }
        out.push(b']');
    }

    /// The value for each of `columns`, by name (missing where this row lacks the column).
    fn values_for<'a>(
        &'a self,
        columns: &'a MetricColumns,
    ) -> impl Iterator<Item = MetricValue> + 'a {
        let same =
            std::ptr::eq(Arc::as_ptr(&self.columns), columns) || self.columns.keys == columns.keys;
        columns.keys.iter().enumerate().map(move |(i, k)| {
            if same {
                self.value_at(i)
            } else {
                self.columns
                    .position(&k.name)
                    .map_or(MetricValue::Missing, |j| self.value_at(j))
            }
        })
    }
}

impl<'a> IntoIterator for &'a Metrics {
    type Item = (&'a str, Metric);
    type IntoIter = Box<dyn Iterator<Item = (&'a str, Metric)> + 'a>;

    fn into_iter(self) -> Self::IntoIter {
        Box::new(self.iter())
    }
}

impl Metrics {
    /// The metrics that hold a value, each name once (a duplicated name counts with its
    /// first column, as lookups do).
    fn present(&self) -> impl Iterator<Item = (&str, Metric)> + '_ {
        self.iter()
            .enumerate()
            .filter(|(i, (name, m))| {
                m.value != MetricValue::Missing && self.columns.position(name) == Some(*i)
            })
            .map(|(_, entry)| entry)
    }
}

impl PartialEq for Metrics {
    /// Equal when both hold the same values, with the same units, under the same names
    /// (order aside). A metric without a value equals an absent one: both say "no value",
    /// and a counter set's JSON writes every launch against the union of their columns.
    fn eq(&self, other: &Self) -> bool {
        self.present().count() == other.present().count()
            && self.present().all(|(name, m)| other.get(name) == Some(m))
    }
}

impl fmt::Debug for Metrics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

/// The columns (ascending) whose values differ between `rows`, which share their columns;
/// `None` when writing the others once would not pay: fewer than two rows, or no column
/// the same in all of them. Values are compared bit for bit, texts by their characters.
pub fn varying_columns(rows: &[&Metrics]) -> Option<Vec<u32>> {
    let (first, rest) = rows.split_first()?;
    if rest.is_empty() {
        return None;
    }
    let n = first.values.len();
    // Per column, the bits in which some row's value differs from the first's (zero: the
    // same in all).
    let mut differ = vec![0u64; n];
    for row in rest {
        if row.values.len() != n {
            return None;
        }
        // Bits first (over whole rows, or only the columns changed where the rows share
        // their values); then the texts, of which a row has few.
        row.values.differ_into(&first.values, &mut differ);
        for (k, text) in &first.texts {
            if let Some(d) = differ.get_mut(*k as usize) {
                *d |= u64::from(row.text_at(*k as usize) != Some(text.as_str()));
            }
        }
    }
    if differ.iter().all(|d| *d != 0) {
        return None;
    }
    Some(
        differ
            .iter()
            .enumerate()
            .filter(|(_, d)| **d != 0)
            .map(|(i, _)| i as u32)
            .collect(),
    )
}

/// The values of a row's columns that are not in `varying` (ascending): the
/// `constant_values` of a counter set, written like a row's values.
pub struct ConstantsSer<'a> {
    /// A row of the counter set (any: the constants are the same in all).
    pub metrics: &'a Metrics,
    /// The columns left out.
    pub varying: &'a [u32],
}

impl Serialize for ConstantsSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.metrics;
        let mut varying = self.varying.iter().peekable();
        let mut seq = s.serialize_seq(Some(m.values.len().saturating_sub(self.varying.len())))?;
        for i in 0..m.values.len() {
            if varying.next_if(|&&v| v as usize == i).is_some() {
                continue;
            }
            seq.serialize_element(&m.value_at(i))?;
        }
        seq.end()
    }
}

/// Where the value arrays of an artifact being written come from: called with each array's
/// index (in the order of [`super::Artifact::value_arrays`]), its row, the columns it lists
/// (`None`: all) and an empty buffer to fill with exactly [`Metrics::json_array`]'s bytes.
pub type ArraySource = Box<dyn FnMut(usize, &Metrics, Option<&[u32]>, &mut Vec<u8>)>;

thread_local! {
    /// The array source of the artifact being written on this thread, and the index of
    /// the next array; none: each row renders its own.
    static ARRAYS: RefCell<Option<(ArraySource, usize)>> = const { RefCell::new(None) };
}

/// Runs `f` (writing an artifact) with `source` giving the value arrays, restoring the
/// previous source afterwards, even if `f` panics.
pub(crate) fn with_array_source<T>(source: Option<ArraySource>, f: impl FnOnce() -> T) -> T {
    struct Restore(Option<(ArraySource, usize)>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            ARRAYS.with(|arrays| *arrays.borrow_mut() = previous);
        }
    }
    let previous = ARRAYS.with(|arrays| arrays.replace(source.map(|s| (s, 0))));
    let _restore = Restore(previous);
    f()
}

/// Serializes a row's values in the order of `columns`: numbers, strings or null.
pub struct ValuesSer<'a> {
    /// The row.
    pub metrics: &'a Metrics,
    /// The column order to write in.
    pub columns: &'a MetricColumns,
    /// Only these columns (ascending) of the row's own, when its counter set writes the
    /// others once ([`varying_columns`]).
    pub only: Option<&'a [u32]>,
}

impl Serialize for ValuesSer<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m = self.metrics;
        let own_columns = std::ptr::eq(Arc::as_ptr(&m.columns), self.columns);
        let in_order = own_columns || m.columns.keys == self.columns.keys;
        if super::json::raw_arrays() && in_order {
            let out = ARRAYS.with(|arrays| match arrays.borrow_mut().as_mut() {
                Some((source, index)) => {
                    let mut out = Vec::new();
                    source(*index, m, self.only, &mut out);
                    *index += 1;
                    out
                }
                None => m.json_array(self.only),
            });
            return s.serialize_bytes(&out);
        }
        if let (Some(only), true) = (self.only, in_order) {
            let mut seq = s.serialize_seq(Some(only.len()))?;
            for &i in only {
                seq.serialize_element(&m.value_at(i as usize))?;
            }
            return seq.end();
        }
        let mut seq = s.serialize_seq(Some(self.columns.len()))?;
        if own_columns {
            // The usual case, the row's own columns: its values as they are stored, texts
            // taken in column order, no value built per cell.
            let mut texts = m.texts.iter().peekable();
            for i in 0..self.columns.len() {
                match m.values.get(i) {
                    Some(v) if v.is_finite() => seq.serialize_element(&v)?,
                    Some(v) if v.to_bits() == TEXT_BITS => {
                        while texts.next_if(|(k, _)| (*k as usize) < i).is_some() {}
                        match texts.next_if(|(k, _)| *k as usize == i) {
                            Some((_, t)) => seq.serialize_element(t.as_str())?,
                            None => seq.serialize_element(&None::<f64>)?,
                        }
                    }
                    _ => seq.serialize_element(&None::<f64>)?,
                }
            }
        } else {
            for v in m.values_for(self.columns) {
                seq.serialize_element(&v)?;
            }
        }
        seq.end()
    }
}

/// A row's values read from JSON, before they are joined to their columns: an array in
/// column order (schema 2), or, from schema-1 artifacts, an object of
/// `name: {unit, value}` that brings its own columns.
#[derive(Debug, Default)]
pub struct ValuesWire {
    values: Vec<f64>,
    texts: Vec<(u32, String)>,
    /// Columns of a schema-1 object, in its order.
    own_columns: Option<Vec<MetricKey>>,
}

impl ValuesWire {
    /// Number of values read.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no values were read.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Joins the values of the columns `varying` (ascending, checked by the caller) to
    /// `columns`, the others from `constants`, a row of those columns; values beyond
    /// `varying` are an error, missing trailing values are missing.
    pub fn into_metrics_with(
        self,
        columns: Arc<MetricColumns>,
        varying: &[u32],
        constants: &Metrics,
    ) -> Result<Metrics, String> {
        if self.own_columns.is_some() {
            return Err(
                "a launch of a counter set with constant_values lists its metrics \
                        by name"
                    .into(),
            );
        }
        if self.values.len() != varying.len() {
            return Err(format!(
                "{} metric values for {} varying_columns{}",
                self.values.len(),
                varying.len(),
                if self.values.len() < varying.len() {
                    " (an array cut short: a damaged artifact?)"
                } else {
                    ""
                }
            ));
        }
        let mut changed_at = Vec::with_capacity(varying.len());
        let mut changed = Vec::with_capacity(varying.len());
        let mut texts: Vec<(u32, String)> = constants
            .texts
            .iter()
            .filter(|(k, _)| varying.binary_search(k).is_err())
            .cloned()
            .collect();
        let mut own_texts = self.texts.into_iter().peekable();
        let n_columns = constants.values.len();
        for (n, (&column, v)) in varying.iter().zip(self.values.iter()).enumerate() {
            if (column as usize) < n_columns {
                changed_at.push(column);
                changed.push(*v);
            }
            if v.to_bits() == TEXT_BITS {
                while own_texts.next_if(|(k, _)| (*k as usize) < n).is_some() {}
                if let Some((_, t)) = own_texts.next_if(|(k, _)| *k as usize == n) {
                    texts.push((column, t));
                }
            }
        }
        // Varying columns this launch did not list are missing.
        for &column in varying.get(self.values.len()..).unwrap_or_default() {
            if (column as usize) < n_columns {
                changed_at.push(column);
                changed.push(missing());
            }
        }
        texts.sort_by_key(|(k, _)| *k);
        // Stored over the constants' row, which every launch of the set shares.
        Ok(Metrics {
            columns,
            values: Values::over(&constants.values, changed_at, changed),
            texts,
        })
    }

    /// Joins the values to `columns`; values beyond the columns are an error, missing
    /// trailing values are missing.
    pub fn into_metrics(mut self, columns: Arc<MetricColumns>) -> Result<Metrics, String> {
        if let Some(keys) = self.own_columns.take() {
            // Schema 1: reuse the previous row's columns when they are the same names.
            let columns = if keys.as_slice() == columns.keys() {
                columns
            } else {
                MetricColumns::new(keys)
            };
            self.values.shrink_to_fit();
            return Ok(Metrics {
                columns,
                values: Values::from_vec(self.values),
                texts: self.texts,
            });
        }
        if self.values.len() > columns.len() {
            return Err(format!(
                "{} metric values for {} metric_columns",
                self.values.len(),
                columns.len()
            ));
        }
        if self.values.len() < columns.len() {
            // The writer writes every column: a shorter array lost values on the way.
            return Err(format!(
                "{} metric values for {} metric_columns (an array cut short: a damaged \
                 artifact?)",
                self.values.len(),
                columns.len()
            ));
        }
        // The array was read without a length hint, so its buffer may be up to twice the
        // row; a large artifact keeps tens of thousands of rows.
        self.values.shrink_to_fit();
        Ok(Metrics {
            columns,
            values: Values::from_vec(self.values),
            texts: self.texts,
        })
    }
}

impl ValuesWire {
    /// A row of `columns` holding these values at the columns not in `varying`
    /// (ascending, checked by the caller), the `constant_values` of a counter set; the
    /// varying columns are missing. More values than such columns are an error, fewer are
    /// missing.
    pub fn into_constants(
        self,
        columns: Arc<MetricColumns>,
        varying: &[u32],
    ) -> Result<Metrics, String> {
        let fixed = columns.len().saturating_sub(varying.len());
        if self.own_columns.is_some() || self.values.len() > fixed {
            return Err(format!(
                "{} constant_values for {fixed} columns not varying",
                self.values.len()
            ));
        }
        let mut values = vec![missing(); columns.len()];
        let mut texts = Vec::new();
        let mut wire_texts = self.texts.into_iter().peekable();
        let mut varying = varying.iter().peekable();
        let mut next = self.values.iter().enumerate();
        for (i, slot) in values.iter_mut().enumerate() {
            if varying.next_if(|&&v| v as usize == i).is_some() {
                continue;
            }
            let Some((n, v)) = next.next() else { break };
            *slot = *v;
            if v.to_bits() == TEXT_BITS {
                while wire_texts.next_if(|(k, _)| (*k as usize) < n).is_some() {}
                if let Some((_, t)) = wire_texts.next_if(|(k, _)| *k as usize == n) {
                    texts.push((i as u32, t));
                }
            }
        }
        Ok(Metrics {
            columns,
            values: Values::from_vec(values),
            texts,
        })
    }
}

/// Read straight from its JSON token: a number, a string or null (without the buffering
/// of each value that an untagged enum's derived reader does; an artifact holds millions).
impl<'de> Deserialize<'de> for MetricValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl<'v> Visitor<'v> for ValueVisitor {
            type Value = MetricValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a metric value (a number, a string or null)")
            }
            fn visit_f64<E>(self, v: f64) -> Result<MetricValue, E> {
                Ok(MetricValue::Number(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<MetricValue, E> {
                Ok(MetricValue::Number(v as f64))
            }
            fn visit_i64<E>(self, v: i64) -> Result<MetricValue, E> {
                Ok(MetricValue::Number(v as f64))
            }
            fn visit_str<E>(self, v: &str) -> Result<MetricValue, E> {
                Ok(MetricValue::Text(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<MetricValue, E> {
                Ok(MetricValue::Text(v))
            }
            fn visit_unit<E>(self) -> Result<MetricValue, E> {
                Ok(MetricValue::Missing)
            }
            fn visit_none<E>(self) -> Result<MetricValue, E> {
                Ok(MetricValue::Missing)
            }
        }
        d.deserialize_any(ValueVisitor)
    }
}

impl ValuesWire {
    /// Appends a value read: a finite number as it is, a text marked and kept, anything
    /// else missing.
    fn push(&mut self, value: MetricValue) {
        let i = self.values.len() as u32;
        self.values.push(match value {
            MetricValue::Number(x) if x.is_finite() => x,
            MetricValue::Text(t) => {
                self.texts.push((i, t));
                f64::from_bits(TEXT_BITS)
            }
            _ => missing(),
        });
    }
}

impl<'de> Deserialize<'de> for ValuesWire {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SeqVisitor;
        impl<'de> Visitor<'de> for SeqVisitor {
            type Value = ValuesWire;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of metric values (numbers, strings or null)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ValuesWire, A::Error> {
                let mut out = ValuesWire {
                    values: Vec::with_capacity(seq.size_hint().unwrap_or(0)),
                    texts: Vec::new(),
                    own_columns: None,
                };
                while let Some(v) = seq.next_element::<MetricValue>()? {
                    out.push(v);
                }
                Ok(out)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ValuesWire, A::Error> {
                let mut out = ValuesWire::default();
                let mut keys = Vec::new();
                while let Some((name, metric)) = map.next_entry::<String, Metric>()? {
                    out.push(metric.value);
                    keys.push(MetricKey {
                        name,
                        unit: metric.unit,
                    });
                }
                out.own_columns = Some(keys);
                Ok(out)
            }
        }
        d.deserialize_any(SeqVisitor)
    }
}

impl JsonSchema for ValuesWire {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MetricValues".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let mut schema = <Vec<MetricValue>>::json_schema(generator);
        schema.insert(
            "description".into(),
            "Metric values in the order of the counter set's `metric_columns` (or of its \
             `varying_columns`, where it has them): a number in the column's unit, a string, \
             or null for no value."
                .into(),
        );
        schema
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(name: &str, unit: &str) -> MetricKey {
        MetricKey {
            name: name.into(),
            unit: unit.into(),
        }
    }

    /// Rows of one kernel built from `values`, each stored over the kernel's base (shared)
    /// or alone (own).
    fn rows(cols: &Arc<MetricColumns>, values: &[[f64; 4]], shared: bool) -> Vec<Metrics> {
        let mut bases = Bases::default();
        values
            .iter()
            .map(|row| {
                let mut b = RowBuilder::new(Arc::clone(cols));
                for &v in row {
                    b.push_number(v);
                }
                b.push(MetricValue::Text("all".into()));
                let mut m = b.finish();
                if shared {
                    m.share_values(1, &mut bases);
                }
                m
            })
            .collect()
    }

    #[test]
    fn shared_rows_read_write_and_change_like_rows_of_their_own() {
        let cols = MetricColumns::new(
            ["a", "b", "c", "d", "e"]
                .iter()
                .map(|n| key(n, "byte"))
                .collect(),
        );
        let values = [
            [1.0, 2.0, 3.0, 4.0],
            [1.0, 2.5, 3.0, 4.0],
            [1.0, 2.0, 3.0, -7.0],
            [1.0, 2.0, 3.0, 4.0],
        ];
        let shared = rows(&cols, &values, true);
        let own = rows(&cols, &values, false);
        for (s, o) in shared.iter().zip(&own) {
            assert_eq!(s, o);
            assert_eq!(s.json_array(None), o.json_array(None));
            assert_eq!(
                s.json_array(Some(&[1, 3, 4])),
                o.json_array(Some(&[1, 3, 4]))
            );
            assert_eq!(
                s.numbers().collect::<Vec<_>>(),
                o.numbers().collect::<Vec<_>>()
            );
        }
        let refs = |r: &[Metrics]| varying_columns(&r.iter().collect::<Vec<_>>());
        assert_eq!(refs(&shared), Some(vec![1, 3]));
        assert_eq!(refs(&shared), refs(&own));
        // Dropping a value, or setting one, changes that row only.
        let mut shared = shared;
        let mut checked = CheckedRows::default();
        let negative = |_: &MetricKey, v: f64| v < 0.0;
        let dropped: Vec<Vec<usize>> = shared
            .iter()
            .map(|row| row.columns_where(&mut checked, negative))
            .collect();
        assert_eq!(dropped, [vec![], vec![], vec![3], vec![]]);
        shared[2].drop_columns(&dropped[2]);
        assert_eq!(shared[2].number("d"), None);
        shared[0].set_number(0, 9.0);
        assert_eq!(shared[0].number("a"), Some(9.0));
        for row in &shared[1..] {
            assert_eq!(row.number("a"), Some(1.0));
        }
        assert_eq!(shared[3].number("d"), Some(4.0));
        assert_eq!(shared[1].number("b"), Some(2.5));
    }

    #[test]
    fn rows_share_columns_and_keep_values_texts_and_gaps() {
        let cols = MetricColumns::new(vec![key("a", "byte"), key("b", ""), key("c", "ns")]);
        let mut m = Metrics::with_columns(cols.clone());
        m.set(0, MetricValue::Number(4_294_976_256.0));
        m.set(1, MetricValue::Text("PolicySpread".into()));
        assert_eq!(m.number("a"), Some(4_294_976_256.0));
        assert_eq!(m.number("b"), None);
        assert_eq!(
            m.get("b").map(|x| x.value),
            Some(MetricValue::Text("PolicySpread".into()))
        );
        assert_eq!(m.get("c").map(|x| x.value), Some(MetricValue::Missing));
        assert_eq!(m.get("c").map(|x| x.unit), Some("ns".to_string()));
        assert_eq!(m.get("zz"), None);
        m.set(1, MetricValue::Number(2.0));
        assert_eq!(m.number("b"), Some(2.0));
        assert!(m.texts.is_empty(), "text dropped when overwritten");
        m.set(2, MetricValue::Number(f64::NAN));
        assert_eq!(m.number("c"), None);
        assert!(Arc::ptr_eq(m.columns(), &cols));
    }

    #[test]
    fn insert_adds_columns_without_touching_shared_ones() {
        let cols = MetricColumns::new(vec![key("a", "byte")]);
        let other = Metrics::with_columns(cols.clone());
        let mut m = Metrics::with_columns(cols.clone());
        m.insert(
            "x".into(),
            Metric {
                unit: "%".into(),
                value: MetricValue::Number(1.5),
            },
        );
        assert_eq!(m.len(), 2);
        assert_eq!(other.len(), 1);
        assert_eq!(cols.len(), 1);
        let names: Vec<&str> = m.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "x"]);
    }

    #[test]
    fn equality_ignores_column_order() {
        let mut a = Metrics::new();
        let mut b = Metrics::new();
        for (n, v) in [("p", 1.0), ("q", 2.0)] {
            a.insert(
                n.into(),
                Metric {
                    unit: String::new(),
                    value: MetricValue::Number(v),
                },
            );
        }
        for (n, v) in [("q", 2.0), ("p", 1.0)] {
            b.insert(
                n.into(),
                Metric {
                    unit: String::new(),
                    value: MetricValue::Number(v),
                },
            );
        }
        assert_eq!(a, b);
        b.insert(
            "q".into(),
            Metric {
                unit: String::new(),
                value: MetricValue::Number(3.0),
            },
        );
        assert_ne!(a, b);
        // A metric without a value equals an absent one.
        let mut c = a.clone();
        c.insert(
            "r".into(),
            Metric {
                unit: "byte".into(),
                value: MetricValue::Missing,
            },
        );
        assert_eq!(a, c);
    }

    #[test]
    fn duplicate_names_keep_every_column_and_look_up_the_first() {
        let cols = MetricColumns::new(vec![key("a", ""), key("a", "")]);
        let mut m = Metrics::with_columns(cols);
        m.set(0, MetricValue::Number(1.0));
        m.set(1, MetricValue::Number(2.0));
        assert_eq!(m.number("a"), Some(1.0));
        assert_eq!(m.iter().count(), 2);
    }

    #[test]
    fn values_round_trip_through_json() {
        let cols = MetricColumns::new(vec![key("a", ""), key("b", ""), key("c", "")]);
        let mut m = Metrics::with_columns(cols.clone());
        m.set(0, MetricValue::Number(1.25));
        m.set(1, MetricValue::Text("all".into()));
        let text = serde_json::to_string(&ValuesSer {
            metrics: &m,
            columns: &cols,
            only: None,
        })
        .expect("serializes");
        assert_eq!(text, r#"[1.25,"all",null]"#);
        let wire: ValuesWire = serde_json::from_str(&text).expect("parses");
        let back = wire.into_metrics(cols.clone()).expect("fits");
        assert_eq!(back, m);
        let too_many: ValuesWire = serde_json::from_str("[1,2,3,4]").expect("parses");
        assert!(too_many.into_metrics(cols.clone()).is_err());
        // Schema 1 wrote an object per launch; it still loads.
        let v1: ValuesWire = serde_json::from_str(
            r#"{"a": {"unit": "", "value": 1.25}, "b": {"unit": "", "value": "all"},
                "c": {"unit": "", "value": null}}"#,
        )
        .expect("parses");
        let back = v1.into_metrics(cols.clone()).expect("own columns");
        assert_eq!(back, m);
        assert!(
            Arc::ptr_eq(back.columns(), &cols),
            "same names reuse the columns"
        );
    }
}
