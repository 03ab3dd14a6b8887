//! Sorting through one compiled sort. The standard library's sort is generic over the
//! element and the comparison, so each `sort_by` call site compiles a whole sort of its own
//! (about 4 KB of WebAssembly each; 50 of them were a tenth of the viewer's wasm). These
//! functions sort a list of positions with a comparison behind a `dyn` reference, one
//! compiled sort for every caller, then move the elements into place. Every sort is stable.
//!
//! Architecture invariant: `shared` and the viewer sort only through this module, outside
//! tests (`tests/tests/catalog/invariants.rs` checks the sources), so the viewer's wasm
//! holds one sort.

use std::cmp::Ordering;

/// Sorts `items` stably by `cmp`, as `<[T]>::sort_by` does.
pub fn sort_by<T>(items: &mut [T], cmp: impl Fn(&T, &T) -> Ordering) {
    let order = {
        let items: &[T] = items;
        sorted_positions(items.len(), &|a, b| match (items.get(a), items.get(b)) {
            (Some(x), Some(y)) => cmp(x, y),
            _ => Ordering::Equal,
        })
    };
    permute(items, order);
}

/// Sorts `items` stably by the key `key` gives, as `<[T]>::sort_by_key` does.
pub fn sort_by_key<T, K: Ord>(items: &mut [T], key: impl Fn(&T) -> K) {
    sort_by(items, |a, b| key(a).cmp(&key(b)));
}

/// Sorts `items` stably in their natural order, as `<[T]>::sort` does.
pub fn sort<T: Ord>(items: &mut [T]) {
    sort_by(items, T::cmp);
}

/// Sorts numbers in IEEE 754 total order (`f64::total_cmp`: -NaN, -inf, ..., inf, NaN).
pub fn sort_floats(items: &mut [f64]) {
    sort_by(items, f64::total_cmp);
}

/// The positions `0..len` ordered by `cmp`, which compares the elements at two positions:
/// the one monomorphic sort every caller shares.
#[inline(never)]
fn sorted_positions(len: usize, cmp: &dyn Fn(usize, usize) -> Ordering) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    order.sort_by(|&a, &b| cmp(a, b));
    order
}

/// Moves `items` so that position `i` holds what was at `order[i]`, following each cycle
/// of the permutation with swaps (no element is cloned).
fn permute<T>(items: &mut [T], mut order: Vec<usize>) {
    const DONE: usize = usize::MAX;
    for start in 0..order.len() {
        let mut at = start;
        loop {
            let from = std::mem::replace(&mut order[at], DONE);
            if from == DONE || from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

/// A map of `pairs` (a later pair wins over an earlier one of an equal key), as
/// `collect::<BTreeMap<_, _>>()` makes it, but built by inserting each pair: `collect` into a
/// `BTreeMap` sorts the pairs with the standard library's sort, one compiled sort per call
/// site (five of them, 3 KB each in the viewer's wasm, issue 53).
pub fn map_of<K: Ord, V>(
    pairs: impl IntoIterator<Item = (K, V)>,
) -> std::collections::BTreeMap<K, V> {
    let mut map = std::collections::BTreeMap::new();
    for (k, v) in pairs {
        map.insert(k, v);
    }
    map
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_as_the_standard_stable_sort_does() {
        // Pairs with repeated keys, in an order that holds several cycles: the stable order
        // of equal keys must survive.
        let cases: Vec<Vec<(u8, usize)>> = vec![
            vec![],
            vec![(1, 0)],
            vec![(3, 0), (1, 1), (2, 2), (1, 3), (3, 4), (0, 5), (2, 6)],
            (0..40).map(|i| (((i * 7) % 5) as u8, i)).collect(),
            (0..40).rev().map(|i| ((i % 3) as u8, i)).collect(),
        ];
        for case in cases {
            let mut ours = case.clone();
            sort_by_key(&mut ours, |p| p.0);
            let mut theirs = case.clone();
            theirs.sort_by_key(|p| p.0);
            assert_eq!(ours, theirs, "from {case:?}");
        }
    }

    #[test]
    fn maps_as_collect_does() {
        let pairs = [("b", 1), ("a", 2), ("b", 3), ("c", 4)];
        let ours = map_of(pairs);
        let theirs: std::collections::BTreeMap<&str, i32> = pairs.into_iter().collect();
        assert_eq!(ours, theirs);
        assert_eq!(ours.get("b"), Some(&3), "the later pair wins");
    }

    #[test]
    fn sorts_floats_and_strings() {
        let mut xs = [2.5, f64::NAN, -1.0, 0.0, f64::NEG_INFINITY];
        sort_floats(&mut xs);
        assert_eq!(xs[..4], [f64::NEG_INFINITY, -1.0, 0.0, 2.5]);
        assert!(xs[4].is_nan());
        let mut names = vec!["b".to_string(), "a".into(), "c".into(), "a".into()];
        sort(&mut names);
        assert_eq!(names, ["a", "a", "b", "c"]);
        sort_by(&mut names, |a, b| b.cmp(a));
        assert_eq!(names, ["c", "b", "a", "a"]);
    }
}
