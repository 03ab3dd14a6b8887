//! Compact storage of a launch's raw-page metrics.
//!
//! A full-set raw row has about 2,200 metrics, and an application export can have tens of
//! thousands of rows. Storing a name, a unit and a map node per value costs about 165 bytes
//! each; here the names and units of an export are stored once ([`MetricColumns`], shared
//! through an `Arc` by every launch read from it) and each launch holds one `f64` per column
//! plus a short list of its text values. Where several launches share their columns, the
//! columns whose values differ between them ([`varying_columns`]) are what the writer lists
//! per launch, the others written once (`constant_values`, see
//! [`crate::model::artifact::CounterSet`]).

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::columns::MetricColumns;
use super::values::{Bases, Values};
use crate::model::artifact::schema::{Metric, MetricKey, MetricValue};

// Non-finite numbers never reach the map (the reader turns them into `Missing`), so two NaN
// payloads can mark the other kinds of value.
const MISSING_BITS: u64 = 0x7ff8_dead_0000_0001;
/// The stored value of a column that holds a text (the text is in [`Metrics`]'s list).
pub(in crate::model::artifact) const TEXT_BITS: u64 = 0x7ff8_dead_0000_0002;

/// The stored value of a column without a value.
pub(in crate::model::artifact) fn missing() -> f64 {
    f64::from_bits(MISSING_BITS)
}

/// One launch's raw-page metrics: shared columns, one value per column.
#[derive(Clone)]
pub struct Metrics {
    /// The columns, shared by the launches of an export.
    pub(in crate::model::artifact) columns: Arc<MetricColumns>,
    /// One value per column (text and missing marked by NaN payloads), and the texts.
    pub(in crate::model::artifact) values: Values,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics {
            columns: Arc::new(MetricColumns::default()),
            values: Values::default(),
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
type Checked = (Arc<[f64]>, Arc<MetricColumns>, Vec<usize>);

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
            values: Values::from_vec(self.values).with_texts(self.texts),
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
        let texts = self.values.texts_mut();
        let pos = texts.binary_search_by_key(&i32_key, |(k, _)| *k);
        match (value, pos) {
            (MetricValue::Text(t), Ok(p)) => {
                if let Some(entry) = texts.get_mut(p) {
                    entry.1 = t;
                }
            }
            (MetricValue::Text(t), Err(p)) => texts.insert(p, (i32_key, t)),
            (_, Ok(p)) if had_text => {
                texts.remove(p);
            }
            _ => {}
        }
        self.values.tidy();
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

    /// The value of column `i` (missing when out of range).
    pub(in crate::model::artifact) fn value_at(&self, i: usize) -> MetricValue {
        match self.values.get(i) {
            Some(v) if v.to_bits() == TEXT_BITS => self
                .text_at(i)
                .map_or(MetricValue::Missing, |t| MetricValue::Text(t.to_string())),
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

    /// The number of the metric named `name` followed by `suffix`
    /// ([`MetricColumns::position_suffixed`]: no allocation); `None` when absent or not a
    /// number.
    pub fn number_suffixed(&self, name: &str, suffix: &str) -> Option<f64> {
        let i = self.columns.position_suffixed(name, suffix)?;
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
    /// copied first if other rows share them). A row holds its values in one block, which
    /// a new column copies: to set many, use [`Metrics::insert_all`].
    pub fn insert(&mut self, name: String, metric: Metric) {
        self.insert_all(vec![(name, metric)]);
    }

    /// [`Metrics::insert`] of each of `metrics` in turn, the row copied once for all the
    /// columns they add.
    pub fn insert_all(&mut self, metrics: Vec<(String, Metric)>) {
        let mut at = Vec::with_capacity(metrics.len());
        for (name, metric) in metrics {
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
                None => Arc::make_mut(&mut self.columns).push(MetricKey {
                    name,
                    unit: metric.unit,
                }),
            };
            at.push((i, metric.value));
        }
        let added = self.columns.len().saturating_sub(self.values.len());
        self.values.extend_with(added, missing());
        for (i, value) in at {
            self.set(i, value);
        }
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
            Arc::as_ptr(base).cast::<f64>() as usize,
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
        crate::order::sort(&mut found);
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
        self.insert_all(
            other
                .iter()
                .map(|(name, metric)| (name.to_string(), metric))
                .collect(),
        );
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

    /// The text of column `i`, if it holds one.
    pub(in crate::model::artifact) fn text_at(&self, i: usize) -> Option<&str> {
        let texts = self.values.texts();
        let p = texts.binary_search_by_key(&(i as u32), |(k, _)| *k).ok()?;
        texts.get(p).map(|(_, t)| t.as_str())
    }

    /// The row's texts by column, sorted by column.
    pub(in crate::model::artifact) fn texts(&self) -> &[(u32, String)] {
        self.values.texts()
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
        for (k, text) in first.texts() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::artifact::MetricColumns;

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
        assert!(m.texts().is_empty(), "text dropped when overwritten");
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
    fn inserting_many_at_once_is_inserting_them_in_turn() {
        let metric = |unit: &str, value: MetricValue| Metric {
            unit: unit.into(),
            value,
        };
        let cols = MetricColumns::new(vec![key("a", "byte"), key("b", "")]);
        let mut base = Metrics::with_columns(cols);
        base.set(0, MetricValue::Number(1.0));
        base.set(1, MetricValue::Text("x".into()));
        let items = vec![
            ("c".to_string(), metric("ns", MetricValue::Number(3.0))),
            ("b".to_string(), metric("", MetricValue::Number(2.0))),
            ("d".to_string(), metric("", MetricValue::Text("t".into()))),
            ("a".to_string(), metric("%", MetricValue::Number(4.0))),
            ("c".to_string(), metric("ns", MetricValue::Number(5.0))),
        ];
        let mut one_by_one = base.clone();
        for (name, m) in items.clone() {
            one_by_one.insert(name, m);
        }
        let mut at_once = base;
        at_once.insert_all(items);
        assert_eq!(at_once, one_by_one);
        let names: Vec<&str> = at_once.iter().map(|(n, _)| n).collect();
        assert_eq!(names, ["a", "b", "c", "d"]);
        assert_eq!(at_once.number("a"), Some(4.0));
        assert_eq!(at_once.get("a").map(|m| m.unit), Some("%".to_string()));
        assert_eq!(at_once.number("b"), Some(2.0));
        assert_eq!(at_once.number("c"), Some(5.0));
        assert_eq!(
            at_once.get("d").map(|m| m.value),
            Some(MetricValue::Text("t".into()))
        );
        assert_eq!(at_once.texts().len(), 1, "b's text replaced by a number");
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
}
