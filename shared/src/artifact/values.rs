//! A launch's metric values, stored once for launches that have most of them in common.
//!
//! The launches of one kernel in an application export mostly repeat each other: a device's
//! attributes, the launch's shape and every counter that does not change from launch to
//! launch are the same bits in each, and those are most of a full set's 2,200 columns. A row
//! here is an `Arc`-shared base row plus the columns where this row differs from it, so an
//! export of tens of thousands of launches keeps each repeated value once (as its
//! artifact's `constant_values` writes it once) and every reader of a row sees the same
//! numbers as before. A row is changed in place only after it has been made its own
//! ([`Values::make_mut`], copy on write).

use std::collections::HashMap;
use std::sync::Arc;

use super::columns::MetricColumns;

/// One row's values, one `f64` per column: the base row's, except at the columns listed in
/// `changed_at` (ascending, each once), whose values are in `changed` in the same order.
#[derive(Clone, Debug, Default)]
pub(crate) struct Values {
    base: Arc<Vec<f64>>,
    changed_at: Box<[u32]>,
    changed: Box<[f64]>,
}

impl Values {
    /// A row holding `values` alone.
    pub fn from_vec(values: Vec<f64>) -> Self {
        Values {
            base: Arc::new(values),
            changed_at: Box::default(),
            changed: Box::default(),
        }
    }

    /// The row `base` (a row without changes of its own is shared, not copied) with the
    /// values `changed` at the columns `changed_at` (ascending, each below the row's
    /// length; pairs beyond the shorter list are ignored).
    pub fn over(base: &Values, mut changed_at: Vec<u32>, mut changed: Vec<f64>) -> Self {
        let n = changed_at.len().min(changed.len());
        changed_at.truncate(n);
        changed.truncate(n);
        if base.changed_at.is_empty() {
            return Values {
                base: Arc::clone(&base.base),
                changed_at: changed_at.into(),
                changed: changed.into(),
            };
        }
        // A base with changes of its own: a row of this one's own.
        let mut row = Values::from_vec(base.iter().collect());
        let own = row.make_mut();
        for (&i, &v) in changed_at.iter().zip(&changed) {
            if let Some(slot) = own.get_mut(i as usize) {
                *slot = v;
            }
        }
        row
    }

    /// Number of columns.
    pub fn len(&self) -> usize {
        self.base.len()
    }

    /// Whether the row has no columns.
    pub fn is_empty(&self) -> bool {
        self.base.is_empty()
    }

    /// The value of column `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<f64> {
        let v = *self.base.get(i)?;
        if self.changed_at.is_empty() {
            return Some(v);
        }
        match self.changed_at.binary_search(&(i as u32)) {
            Ok(p) => self.changed.get(p).copied(),
            Err(_) => Some(v),
        }
    }

    /// A reader of this row's values at ascending columns, cheaper than [`Values::get`]
    /// per column.
    pub fn ascending(&self) -> Ascending<'_> {
        Ascending {
            values: self,
            next: 0,
        }
    }

    /// The values in column order.
    pub fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        let mut next = self.ascending();
        (0..self.len()).map(move |i| next.at(i).unwrap_or_default())
    }

    /// The values as a row this one alone holds, to change in place (copied first when
    /// shared).
    pub fn make_mut(&mut self) -> &mut Vec<f64> {
        let own = Arc::make_mut(&mut self.base);
        for (&i, &v) in self.changed_at.iter().zip(self.changed.iter()) {
            if let Some(slot) = own.get_mut(i as usize) {
                *slot = v;
            }
        }
        self.changed_at = Box::default();
        self.changed = Box::default();
        own
    }

    /// ORs into `differ[i]` the bits in which column `i` of this row and of `other` (of the
    /// same length) differ.
    pub fn differ_into(&self, other: &Values, differ: &mut [u64]) {
        if Arc::ptr_eq(&self.base, &other.base)
            && (self.changed_at.is_empty() || other.changed_at.is_empty())
        {
            // One of the two is the base row itself (the usual case: the first launch of a
            // kind against a later one): only the other's changes can differ.
            let changed = if self.changed_at.is_empty() {
                other
            } else {
                self
            };
            for (&i, v) in changed.changed_at.iter().zip(changed.changed.iter()) {
                if let (Some(d), Some(b)) = (differ.get_mut(i as usize), self.base.get(i as usize))
                {
                    *d |= v.to_bits() ^ b.to_bits();
                }
            }
            return;
        }
        if Arc::ptr_eq(&self.base, &other.base) {
            // Same base row: only the columns either changed can differ.
            let mut mine = self.ascending();
            let mut theirs = other.ascending();
            let columns = merge_ascending(&self.changed_at, &other.changed_at);
            for i in columns {
                if let (Some(d), Some(a), Some(b)) = (differ.get_mut(i), mine.at(i), theirs.at(i)) {
                    *d |= a.to_bits() ^ b.to_bits();
                }
            }
            return;
        }
        if self.changed_at.is_empty() && other.changed_at.is_empty() {
            // Whole rows: an OR of XORs, which compiles to vector operations.
            for (d, (a, b)) in differ
                .iter_mut()
                .zip(self.base.iter().zip(other.base.iter()))
            {
                *d |= a.to_bits() ^ b.to_bits();
            }
            return;
        }
        for (d, (a, b)) in differ.iter_mut().zip(self.iter().zip(other.iter())) {
            *d |= a.to_bits() ^ b.to_bits();
        }
    }
}

/// The union of two ascending lists of columns, ascending, each once.
fn merge_ascending<'a>(a: &'a [u32], b: &'a [u32]) -> impl Iterator<Item = usize> + 'a {
    let (mut a, mut b) = (a.iter().peekable(), b.iter().peekable());
    std::iter::from_fn(move || {
        let next = match (a.peek(), b.peek()) {
            (Some(&&x), Some(&&y)) => x.min(y),
            (Some(&&x), None) => x,
            (None, Some(&&y)) => y,
            (None, None) => return None,
        };
        a.next_if_eq(&&next);
        b.next_if_eq(&&next);
        Some(next as usize)
    })
}

/// Reads a row's values at ascending columns ([`Values::ascending`]).
pub(crate) struct Ascending<'a> {
    values: &'a Values,
    /// The first changed column not yet passed.
    next: usize,
}

impl Ascending<'_> {
    /// The value of column `i`, at least every column asked before.
    #[inline]
    pub fn at(&mut self, i: usize) -> Option<f64> {
        let v = *self.values.base.get(i)?;
        let at = &self.values.changed_at;
        while at.get(self.next).is_some_and(|&c| (c as usize) < i) {
            self.next += 1;
        }
        match at.get(self.next) {
            Some(&c) if c as usize == i => self.values.changed.get(self.next).copied(),
            _ => Some(v),
        }
    }
}

/// Rows are stored over a base row when at most this fraction (1 / N) of their columns
/// differ from it: a changed value costs 12 bytes, an own one 8.
const SHARE_AT_MOST_ONE_IN: usize = 2;

/// The base rows of the launches read so far, one per kind of launch (a kernel and its
/// launch shape, say) and set of columns: each new row of a kind is stored over its base
/// when it differs from it in few columns ([`super::Metrics::share_values`]), and becomes
/// the kind's base otherwise. Which base a row is stored over never changes what it reads
/// back, only how much memory it takes.
#[derive(Default)]
pub struct Bases {
    by_kind: HashMap<u64, (Arc<MetricColumns>, Values)>,
    /// Indices of the columns in which the row being shared differs (kept for reuse).
    differ: Vec<u32>,
}

impl Bases {
    /// Stores `values`, a row of `columns` of a launch of the kind `kind` (a hash), over that
    /// kind's base row when they differ in few columns; otherwise it becomes the kind's
    /// base. The values read back are the same bits either way.
    pub(crate) fn share(&mut self, kind: u64, columns: &Arc<MetricColumns>, values: &mut Values) {
        if !values.changed_at.is_empty() || Arc::strong_count(&values.base) > 1 {
            // Already shared.
            return;
        }
        let base = match self.by_kind.get(&kind) {
            Some((cols, base)) if Arc::ptr_eq(cols, columns) && base.len() == values.len() => base,
            _ => {
                self.by_kind
                    .insert(kind, (Arc::clone(columns), values.clone()));
                return;
            }
        };
        let (mine, theirs) = (values.base.as_slice(), base.base.as_slice());
        let limit = mine.len() / SHARE_AT_MOST_ONE_IN;
        self.differ.clear();
        for (i, (a, b)) in mine.iter().zip(theirs).enumerate() {
            if a.to_bits() != b.to_bits() {
                self.differ.push(i as u32);
                if self.differ.len() > limit {
                    // The next rows of the kind are more likely to be like this one.
                    self.by_kind
                        .insert(kind, (Arc::clone(columns), values.clone()));
                    return;
                }
            }
        }
        let changed: Box<[f64]> = self.differ.iter().map(|&i| mine[i as usize]).collect();
        *values = Values {
            base: Arc::clone(&base.base),
            changed_at: self.differ.as_slice().into(),
            changed,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(n: usize) -> Arc<MetricColumns> {
        MetricColumns::new(
            (0..n)
                .map(|i| super::super::MetricKey {
                    name: format!("m{i}"),
                    unit: String::new(),
                })
                .collect(),
        )
    }

    fn read(v: &Values) -> Vec<u64> {
        v.iter().map(f64::to_bits).collect()
    }

    #[test]
    fn a_row_shared_over_its_kernels_base_reads_back_the_same_bits() {
        let cols = columns(8);
        let mut bases = Bases::default();
        let first: Vec<f64> = (0..8).map(f64::from).collect();
        let mut a = Values::from_vec(first.clone());
        bases.share(1, &cols, &mut a);
        let mut second = first.clone();
        second[3] = 30.0;
        second[6] = -0.0;
        let mut b = Values::from_vec(second.clone());
        bases.share(1, &cols, &mut b);
        assert!(
            Arc::ptr_eq(&a.base, &b.base),
            "the second row is stored over the first"
        );
        assert_eq!(&*b.changed_at, &[3, 6]);
        assert_eq!(
            read(&b),
            second.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(
            read(&a),
            first.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
        );
        assert_eq!(b.get(3), Some(30.0));
        assert_eq!(b.get(4), Some(4.0));
        assert_eq!(b.get(8), None);
        let mut ascending = b.ascending();
        assert_eq!(
            [1, 3, 6, 7].map(|i| ascending.at(i)),
            [Some(1.0), Some(30.0), Some(-0.0), Some(7.0)]
        );
    }

    #[test]
    fn a_row_unlike_its_kernels_base_becomes_the_next_base() {
        let cols = columns(4);
        let mut bases = Bases::default();
        let mut a = Values::from_vec(vec![1.0, 2.0, 3.0, 4.0]);
        bases.share(1, &cols, &mut a);
        let mut b = Values::from_vec(vec![5.0, 6.0, 7.0, 4.0]);
        bases.share(1, &cols, &mut b);
        assert!(!Arc::ptr_eq(&a.base, &b.base));
        let mut c = Values::from_vec(vec![5.0, 6.0, 8.0, 4.0]);
        bases.share(1, &cols, &mut c);
        assert!(Arc::ptr_eq(&b.base, &c.base));
        // Another kernel, or other columns, never share.
        let mut d = Values::from_vec(vec![5.0, 6.0, 7.0, 4.0]);
        bases.share(2, &cols, &mut d);
        assert!(!Arc::ptr_eq(&b.base, &d.base));
        let mut e = Values::from_vec(vec![5.0, 6.0, 7.0, 4.0]);
        bases.share(1, &columns(4), &mut e);
        assert!(!Arc::ptr_eq(&b.base, &e.base));
    }

    #[test]
    fn changing_a_shared_row_leaves_the_others_alone() {
        let cols = columns(3);
        let mut bases = Bases::default();
        let mut a = Values::from_vec(vec![1.0, 2.0, 3.0]);
        bases.share(1, &cols, &mut a);
        let mut b = Values::from_vec(vec![1.0, 9.0, 3.0]);
        bases.share(1, &cols, &mut b);
        b.make_mut()[0] = 7.0;
        assert_eq!(b.iter().collect::<Vec<_>>(), [7.0, 9.0, 3.0]);
        assert_eq!(a.iter().collect::<Vec<_>>(), [1.0, 2.0, 3.0]);
        a.make_mut()[2] = 5.0;
        assert_eq!(a.iter().collect::<Vec<_>>(), [1.0, 2.0, 5.0]);
    }

    #[test]
    fn differing_bits_are_the_same_shared_or_not() {
        let cols = columns(5);
        let rows = [
            vec![1.0, 2.0, 3.0, 4.0, 5.0],
            vec![1.0, 2.5, 3.0, 4.0, 5.0],
            vec![1.0, 2.0, 3.0, 4.0, 6.0],
            vec![1.0, 2.5, 3.0, 4.0, 6.0],
        ];
        let mut bases = Bases::default();
        let shared: Vec<Values> = rows
            .iter()
            .map(|r| {
                let mut v = Values::from_vec(r.clone());
                bases.share(1, &cols, &mut v);
                v
            })
            .collect();
        let own: Vec<Values> = rows.iter().map(|r| Values::from_vec(r.clone())).collect();
        for i in 0..rows.len() {
            for j in 0..rows.len() {
                let (mut x, mut y) = (vec![0; 5], vec![0; 5]);
                shared[i].differ_into(&shared[j], &mut x);
                own[i].differ_into(&own[j], &mut y);
                assert_eq!(x, y, "rows {i} and {j}");
            }
        }
        let over = Values::over(&shared[0], vec![1, 4], vec![2.5, 6.0]);
        assert_eq!(read(&over), read(&own[3]));
    }
}
