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

/// One row's values, one `f64` per column: the base row's, except at the columns its
/// [`Changes`] mark (none without them), and the row's texts. 24 bytes and one allocation
/// for a row of its own without texts: on exports of tiny rows (a million launches of one
/// metric) the row's bookkeeping, not its values, was most of its memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct Values {
    base: Arc<[f64]>,
    /// What few rows have, in one box: changes from the base row, and text values.
    rare: Option<Box<Rare>>,
}

/// A row's changes from its base row and its texts: never both empty.
#[derive(Clone, Debug, Default)]
struct Rare {
    changes: Option<Changes>,
    /// Text values by column, sorted by column (their columns hold a marked NaN).
    texts: Vec<(u32, String)>,
}

/// The columns where a row differs from its base: marked in `words`, their values in
/// `changed` in column order.
#[derive(Clone, Debug)]
struct Changes {
    words: Box<[Word]>,
    changed: Box<[f64]>,
}

/// Which of 64 columns a row changes, with how many columns it changes before them: a
/// value is found with one look at its word and a count of bits, whatever the number of
/// changes (a sorted list of them took a binary search, several cache misses, per value).
#[derive(Clone, Copy, Debug, Default)]
struct Word {
    bits: u64,
    before: u32,
}

/// The changes at the columns `at` (ascending, each once, below `len`) of a row of `len`
/// columns, with their values `changed`; none when `at` is empty.
fn changes_of(at: &[u32], len: usize, changed: Box<[f64]>) -> Option<Changes> {
    if at.is_empty() {
        return None;
    }
    let mut words = vec![Word::default(); len.div_ceil(64)];
    for &i in at {
        if let Some(word) = words.get_mut(i as usize / 64) {
            word.bits |= 1 << (i % 64);
        }
    }
    let mut before = 0;
    for word in &mut words {
        word.before = before;
        before += word.bits.count_ones();
    }
    Some(Changes {
        words: words.into(),
        changed,
    })
}

impl Values {
    /// A row holding `values` alone.
    pub fn from_vec(values: Vec<f64>) -> Self {
        Values {
            base: Arc::from(values),
            rare: None,
        }
    }

    /// A row over `base` with `changes` and `texts`.
    fn of(base: Arc<[f64]>, changes: Option<Changes>, texts: Vec<(u32, String)>) -> Self {
        let rare =
            (changes.is_some() || !texts.is_empty()).then(|| Box::new(Rare { changes, texts }));
        Values { base, rare }
    }

    /// The row's changes from its base row, if any.
    fn changed(&self) -> Option<&Changes> {
        self.rare.as_ref()?.changes.as_ref()
    }

    /// The row's texts by column (sorted by column).
    pub fn texts(&self) -> &[(u32, String)] {
        self.rare.as_ref().map_or(&[], |r| r.texts.as_slice())
    }

    /// The row's texts, to change (kept sorted by column).
    pub fn texts_mut(&mut self) -> &mut Vec<(u32, String)> {
        &mut self.rare.get_or_insert_with(Box::default).texts
    }

    /// This row with `texts` (sorted by column) as its texts.
    pub fn with_texts(self, texts: Vec<(u32, String)>) -> Self {
        let changes = self.rare.and_then(|r| r.changes);
        Values::of(self.base, changes, texts)
    }

    /// Drops the box of rare parts when it holds nothing.
    pub fn tidy(&mut self) {
        if self
            .rare
            .as_ref()
            .is_some_and(|r| r.changes.is_none() && r.texts.is_empty())
        {
            self.rare = None;
        }
    }

    /// Takes the row's texts out.
    fn take_texts(&mut self) -> Vec<(u32, String)> {
        let texts = self.rare.as_mut().map(|r| std::mem::take(&mut r.texts));
        self.tidy();
        texts.unwrap_or_default()
    }

    /// The row `base` (a row without changes of its own is shared, not copied) with the
    /// values `changed` at the columns `changed_at` (ascending; pairs beyond the shorter
    /// list, past the row's end or out of order are ignored).
    pub fn over(base: &Values, changed_at: Vec<u32>, changed: Vec<f64>) -> Self {
        // Kept: pairs whose column is in the row and past the last one kept.
        let mut last = None;
        let (changed_at, changed): (Vec<u32>, Vec<f64>) = changed_at
            .into_iter()
            .zip(changed)
            .filter(|&(i, _)| {
                let keep = (i as usize) < base.len() && last.is_none_or(|l| i > l);
                if keep {
                    last = Some(i);
                }
                keep
            })
            .unzip();
        if base.changed().is_none() {
            let changes = changes_of(&changed_at, base.len(), changed.into());
            return Values::of(Arc::clone(&base.base), changes, Vec::new());
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
        let Some(changes) = self.changed() else {
            return Some(v);
        };
        let Some(word) = changes.words.get(i / 64) else {
            return Some(v);
        };
        let bit = 1u64 << (i % 64);
        if word.bits & bit == 0 {
            return Some(v);
        }
        let rank = word.before as usize + (word.bits & (bit - 1)).count_ones() as usize;
        changes.changed.get(rank).copied()
    }

    /// The base row this one is stored over (its own values, when it changes none).
    pub fn base(&self) -> &Arc<[f64]> {
        &self.base
    }

    /// Whether column `i` is one this row changes from its base.
    pub fn changes_at(&self, i: usize) -> bool {
        self.changed().is_some_and(|c| {
            c.words
                .get(i / 64)
                .is_some_and(|word| word.bits & (1 << (i % 64)) != 0)
        })
    }

    /// The columns this row changes from its base, ascending, with their values.
    pub fn changes(&self) -> impl Iterator<Item = (usize, f64)> + '_ {
        let (words, changed): (&[Word], &[f64]) = match self.changed() {
            Some(c) => (&c.words, &c.changed),
            None => (&[], &[]),
        };
        let columns = words.iter().enumerate().flat_map(|(w, word)| {
            let mut bits = word.bits;
            std::iter::from_fn(move || {
                (bits != 0).then(|| {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    64 * w + i
                })
            })
        });
        columns.zip(changed.iter().copied())
    }

    /// The values in column order.
    pub fn iter(&self) -> impl Iterator<Item = f64> + '_ {
        (0..self.len()).map(|i| self.get(i).unwrap_or_default())
    }

    /// The values as a row this one alone holds, to change in place (copied first when
    /// shared).
    pub fn make_mut(&mut self) -> &mut [f64] {
        if let Some(changes) = self.rare.as_mut().and_then(|r| r.changes.take()) {
            let row = Values::of(Arc::clone(&self.base), Some(changes), Vec::new());
            let own: Arc<[f64]> = row.iter().collect();
            self.base = own;
            self.tidy();
        }
        Arc::make_mut(&mut self.base)
    }

    /// Adds `n` columns at the end with the value `v`: one copy of the row, however many
    /// (add columns in one call, not one by one).
    pub fn extend_with(&mut self, n: usize, v: f64) {
        if n == 0 {
            return;
        }
        let own: Arc<[f64]> = self.iter().chain(std::iter::repeat_n(v, n)).collect();
        let texts = self.take_texts();
        *self = Values::of(own, None, texts);
    }

    /// ORs into `differ[i]` the bits in which column `i` of this row and of `other` (of the
    /// same length) differ.
    pub fn differ_into(&self, other: &Values, differ: &mut [u64]) {
        if Arc::ptr_eq(&self.base, &other.base) {
            // Same base row: only the columns either changed can differ.
            for (i, _) in self.changes().chain(other.changes()) {
                if let (Some(d), Some(a), Some(b)) = (differ.get_mut(i), self.get(i), other.get(i))
                {
                    *d |= a.to_bits() ^ b.to_bits();
                }
            }
            return;
        }
        if self.changed().is_none() && other.changed().is_none() {
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
        if values.changed().is_some() || Arc::strong_count(&values.base) > 1 {
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
        let (mine, theirs) = (&*values.base, &*base.base);
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
        let changes = changes_of(&self.differ, mine.len(), changed);
        let base = Arc::clone(&base.base);
        let texts = values.take_texts();
        *values = Values::of(base, changes, texts);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns(n: usize) -> Arc<MetricColumns> {
        MetricColumns::new(
            (0..n)
                .map(|i| crate::model::artifact::MetricKey {
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
        assert_eq!(b.changes().collect::<Vec<_>>(), [(3, 30.0), (6, -0.0)]);
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
        assert_eq!(
            [1, 3, 6, 7].map(|i| b.get(i).map(f64::to_bits)),
            [1.0, 30.0, -0.0, 7.0].map(|v: f64| Some(v.to_bits()))
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
        // A column twice, out of order or past the row's end is ignored.
        let over = Values::over(
            &shared[0],
            vec![1, 1, 4, 2, 9],
            vec![2.5, 7.0, 6.0, 8.0, 1.0],
        );
        assert_eq!(read(&over), read(&own[3]));
    }

    #[test]
    fn changes_across_words_of_columns_read_back_at_their_columns() {
        let cols = columns(200);
        let first: Vec<f64> = (0..200).map(f64::from).collect();
        let at = [0usize, 1, 63, 64, 65, 127, 128, 130, 199];
        let mut second = first.clone();
        for &i in &at {
            second[i] = -(i as f64) - 0.5;
        }
        let mut bases = Bases::default();
        let mut a = Values::from_vec(first.clone());
        bases.share(1, &cols, &mut a);
        let mut b = Values::from_vec(second.clone());
        bases.share(1, &cols, &mut b);
        assert!(Arc::ptr_eq(&a.base, &b.base));
        for (i, want) in second.iter().enumerate() {
            assert_eq!(
                b.get(i).map(f64::to_bits),
                Some(want.to_bits()),
                "column {i}"
            );
        }
        assert_eq!(b.get(200), None);
        let changes: Vec<usize> = b.changes().map(|(i, _)| i).collect();
        assert_eq!(changes, at);
        let own = b.clone().make_mut().to_vec();
        assert_eq!(own, second);
        let mut differ = vec![0; 200];
        a.differ_into(&b, &mut differ);
        let differing: Vec<usize> = (0..200).filter(|&i| differ[i] != 0).collect();
        assert_eq!(differing, at);
    }
}
