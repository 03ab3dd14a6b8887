//! The range tree read as a profile (issue 53): siblings by time, most first, each row's
//! children listed only while it is open, and the path that holds the most time. Plain
//! arithmetic over the rows of [`shared::analysis::ranges::RangeTable::tree`], whose
//! parents come before their children; the component (`components::range_tree`) draws it.

use shared::analysis::ranges::RangeNode;

/// The positions of `tree`'s rows in profile order: depth first, each row's children (the
/// rows one level deeper whose path starts with its own) after it, siblings by time, most
/// first; ties keep the tree's order.
pub fn profile_order(tree: &[RangeNode]) -> Vec<usize> {
    let mut out = Vec::with_capacity(tree.len());
    let roots: Vec<usize> = (0..tree.len()).filter(|&i| tree[i].depth <= 1).collect();
    push_sorted(tree, roots, &mut out);
    out
}

/// Appends `rows` (siblings) by time, each followed by its own subtree.
fn push_sorted(tree: &[RangeNode], mut rows: Vec<usize>, out: &mut Vec<usize>) {
    shared::order::sort_by(&mut rows, |&a, &b| {
        tree[b].time_ms.total_cmp(&tree[a].time_ms)
    });
    for i in rows {
        out.push(i);
        push_sorted(tree, children(tree, i), out);
    }
}

/// The rows one level below row `i`.
fn children(tree: &[RangeNode], i: usize) -> Vec<usize> {
    let parent = &tree[i];
    if parent.path.is_empty() {
        return Vec::new();
    }
    (0..tree.len())
        .filter(|&j| {
            let c = &tree[j];
            c.depth == parent.depth + 1 && c.path.starts_with(&parent.path)
        })
        .collect()
}

/// Whether row `i` has rows below it.
pub fn has_children(tree: &[RangeNode], i: usize) -> bool {
    let parent = &tree[i];
    !parent.path.is_empty()
        && tree
            .iter()
            .any(|c| c.depth == parent.depth + 1 && c.path.starts_with(&parent.path))
}

/// Whether row `row` is listed while the paths `open` are open: the top level always, a
/// deeper row while every range around it is open.
pub fn listed(row: &RangeNode, open: &[Vec<String>]) -> bool {
    row.depth <= 1
        || (1..row.depth).all(|d| {
            row.path
                .get(..d)
                .is_some_and(|p| open.iter().any(|o| o.as_slice() == p))
        })
}

/// The path that holds the most time: from the top level down, the child with the most
/// time at each level, as the paths to open to show it (each prefix, the deepest last).
pub fn largest_path(tree: &[RangeNode]) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut level: Vec<usize> = (0..tree.len())
        .filter(|&i| tree[i].depth == 1 && !tree[i].path.is_empty())
        .collect();
    while let Some(&top) = level
        .iter()
        .max_by(|&&a, &&b| tree[a].time_ms.total_cmp(&tree[b].time_ms).then(b.cmp(&a)))
    {
        out.push(tree[top].path.clone());
        level = children(tree, top);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{has_children, largest_path, listed, profile_order};
    use crate::state::load::{load_batch, InputFile};
    use crate::state::test_support::unpack;
    use shared::analysis::ranges::range_table;

    /// On the BERT training step (PyTorch module ranges, the site's sample): siblings come
    /// by time, children after their parent, and the largest path ends at a leaf.
    #[test]
    fn bert_step_reads_like_a_profile() {
        let bytes = unpack("site/samples/h200-bert-train-step.json.gz");
        let name = "h200-bert-train-step.json".to_owned();
        let (runs, errors) = load_batch(vec![InputFile { name, bytes }]);
        let Some(run) = runs.first().filter(|_| errors.is_empty()) else {
            panic!("{errors:?}")
        };
        let tree = range_table(&run.artifact, None).tree();
        assert!(tree.len() > 10, "{} rows", tree.len());
        let order = profile_order(&tree);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, (0..tree.len()).collect::<Vec<_>>(), "each row once");
        for (n, &i) in order.iter().enumerate() {
            let row = &tree[i];
            // The next row at the same depth under the same parent has no more time.
            let sibling = order[n + 1..]
                .iter()
                .map(|&j| &tree[j])
                .find(|r| r.depth <= row.depth);
            if let Some(s) = sibling.filter(|s| {
                s.depth == row.depth && s.path.get(..row.depth - 1) == row.path.get(..row.depth - 1)
            }) {
                assert!(s.time_ms <= row.time_ms, "{} before {}", row.name, s.name);
            }
            if row.depth > 1 {
                let parent = row.path.get(..row.depth - 1).unwrap_or_default();
                let at = order[..n]
                    .iter()
                    .rposition(|&j| tree[j].path.as_slice() == parent);
                assert!(at.is_some(), "{} listed before its parent", row.name);
            }
        }
        let path = largest_path(&tree);
        assert!(path.len() >= 3, "{path:?}");
        let leaf = tree
            .iter()
            .position(|r| Some(&r.path) == path.last())
            .unwrap_or_else(|| panic!("no row {path:?}"));
        assert!(!has_children(&tree, leaf));
        // Open along the path: every row on it is listed, and nothing deeper than it.
        for p in &path {
            let row = tree
                .iter()
                .find(|r| &r.path == p)
                .unwrap_or_else(|| panic!("{p:?}"));
            assert!(listed(row, &path), "{p:?}");
        }
        assert!(tree.iter().filter(|r| r.depth == 1).all(|r| listed(r, &[])));
        assert!(tree
            .iter()
            .filter(|r| r.depth == 2)
            .all(|r| !listed(r, &[])));
    }
}
