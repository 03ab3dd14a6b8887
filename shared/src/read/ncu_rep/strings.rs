//! The string tables that metric results name their metrics by: a metric result holds an
//! index, and its block header's string table (field 4, repeated strings) says which name.
//!
//! Observed (ncu 2025.3.1, one process): the first block that holds a result carries a
//! table of every metric name; later result blocks of the same process carry an empty one
//! and index into it. So tables are cumulative, kept per process (the block header's
//! process ID): a process's first table is its own, from index 0. A non-empty table on a
//! later block of the process either restates the table from its start (it begins with the
//! same string), and then replaces it, or extends it, and then its strings are appended. A
//! process without a table of its own uses the last table read (as if the report had one
//! table for all). Reports of several processes have not been checked against this yet;
//! the one place to change is [`StringTables::add`].

use std::collections::HashMap;
use std::sync::Arc;

/// One table: the names a result's metric indexes refer to.
///
/// A version of a table that only grows: results decoded against it keep it, and the
/// next block may extend it while they do. Its strings are held in runs (`levels`), each
/// shared by every version that holds it, each run shorter than half the one before: an
/// extension adds a run and merges the last two while the newest is at least half the one
/// before, so a merged run is at least half as long again as the longer of the two (each
/// string is copied about log n times) and a lookup searches at most about log2 n runs. Copying the whole table on each extension
/// made a report whose blocks each extend the table and carry a result quadratic (issue
/// 39: 10,000 blocks 6.7 s, 40,000 over 120 s).
#[derive(Clone, Debug, Default)]
pub struct StringTable {
    levels: Vec<Arc<[String]>>,
    /// The index of each run's first string.
    starts: Vec<usize>,
    len: usize,
    /// The same for a table and its extensions, and for no other table: what the
    /// converter worked out for a table holds for the start of its extensions.
    lineage: u64,
}

impl PartialEq for StringTable {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len && self.iter().eq(other.iter())
    }
}

impl Eq for StringTable {}

impl StringTable {
    /// A table of `strings`, the first of its lineage.
    fn new(strings: Vec<String>, lineage: u64) -> Self {
        StringTable {
            len: strings.len(),
            levels: vec![Arc::from(strings)],
            starts: vec![0],
            lineage,
        }
    }

    /// This table with `strings` appended, sharing this one's runs (see the type's doc).
    fn extended(&self, strings: Vec<String>) -> Self {
        let mut levels = self.levels.clone();
        levels.push(Arc::from(strings));
        while let [.., before, last] = levels.as_slice() {
            if 2 * last.len() < before.len() {
                break;
            }
            let merged: Vec<String> = before.iter().chain(last.iter()).cloned().collect();
            levels.truncate(levels.len() - 2);
            levels.push(Arc::from(merged));
        }
        let mut starts = Vec::with_capacity(levels.len());
        let mut len = 0;
        for level in &levels {
            starts.push(len);
            len += level.len();
        }
        StringTable {
            levels,
            starts,
            len,
            lineage: self.lineage,
        }
    }

    /// The string at `index`.
    pub fn get(&self, index: u64) -> Option<&str> {
        let i = usize::try_from(index).ok().filter(|&i| i < self.len)?;
        let level = self.starts.partition_point(|&s| s <= i).checked_sub(1)?;
        let start = self.starts.get(level)?;
        self.levels.get(level)?.get(i - start).map(String::as_str)
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The strings in index order.
    pub fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.levels
            .iter()
            .flat_map(|l| l.iter().map(String::as_str))
    }

    /// The strings from `start` on, in index order (found through the runs, not by
    /// stepping over the strings before it).
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = &str> + '_ {
        let level = self
            .starts
            .partition_point(|&s| s <= start)
            .saturating_sub(1);
        let skip = start.saturating_sub(self.starts.get(level).copied().unwrap_or(0));
        self.levels
            .iter()
            .skip(level)
            .flat_map(|l| l.iter().map(String::as_str))
            .skip(skip)
    }

    /// Which table this is a version of (see the field's doc).
    pub fn lineage(&self) -> u64 {
        self.lineage
    }
}

/// The tables of every process seen so far.
///
/// Found by process in constant time, and extended as a new version sharing the old one's
/// strings ([`StringTable`]): a report of many small tables costs time near-linear in its
/// strings, not in their square, whether or not results still hold the older versions.
#[derive(Debug, Default)]
pub struct StringTables {
    by_process: HashMap<Option<u64>, Arc<StringTable>>,
    /// The process whose table was read last.
    last: Option<Option<u64>>,
    /// Lineages given so far.
    lineages: u64,
}

impl StringTables {
    /// The table results of `process` index into: its own, else the last one read.
    pub fn table(&self, process: Option<u64>) -> Option<Arc<StringTable>> {
        self.by_process
            .get(&process)
            .or_else(|| self.last.and_then(|p| self.by_process.get(&p)))
            .map(Arc::clone)
    }

    /// Takes in the table of a block of `process` (see the module documentation).
    pub fn add(&mut self, process: Option<u64>, strings: Vec<String>) {
        if strings.is_empty() {
            return;
        }
        let table = match self.by_process.get(&process) {
            Some(current) if current.get(0) != strings.first().map(String::as_str) => {
                current.extended(strings)
            }
            _ => {
                self.lineages += 1;
                StringTable::new(strings, self.lineages)
            }
        };
        self.by_process.insert(process, Arc::new(table));
        self.last = Some(process);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    fn names(table: Option<Arc<StringTable>>) -> Vec<String> {
        table
            .map(|t| t.iter().map(str::to_owned).collect())
            .unwrap_or_default()
    }

    #[test]
    fn a_table_extended_many_times_keeps_every_string_in_few_runs() {
        let mut tables = StringTables::default();
        let mut kept = Vec::new();
        for i in 0..1000 {
            tables.add(Some(1), vec![format!("s{i}"), format!("t{i}")]);
            // Results hold the versions as they were.
            kept.push(tables.table(Some(1)).expect("table"));
        }
        let last = kept.last().expect("versions");
        assert_eq!(last.len(), 2000);
        assert!(last.levels.len() <= 11, "{} runs", last.levels.len());
        for i in 0..1000u64 {
            assert_eq!(last.get(2 * i), Some(format!("s{i}").as_str()));
            assert_eq!(last.get(2 * i + 1), Some(format!("t{i}").as_str()));
        }
        assert_eq!(last.get(2000), None);
        // An earlier version is as it was, of the same lineage.
        assert_eq!(kept[9].len(), 20);
        assert_eq!(kept[9].get(19), Some("t9"));
        assert_eq!(kept[9].get(20), None);
        assert_eq!(kept[9].lineage(), last.lineage());
        assert_eq!(last.iter_from(1998).collect::<Vec<_>>(), ["s999", "t999"]);
    }

    #[test]
    fn tables_are_kept_extended_restated_and_shared() {
        let mut tables = StringTables::default();
        assert!(tables.table(Some(1)).is_none());
        tables.add(Some(1), strings(&["a", "b"]));
        // An empty table keeps the process's table.
        tables.add(Some(1), Vec::new());
        assert_eq!(names(tables.table(Some(1))), ["a", "b"]);
        // New strings extend it.
        tables.add(Some(1), strings(&["c"]));
        assert_eq!(names(tables.table(Some(1))), ["a", "b", "c"]);
        // A process without a table of its own uses the last one read.
        assert_eq!(names(tables.table(Some(2))), ["a", "b", "c"]);
        // A process's first table is its own.
        tables.add(Some(2), strings(&["x", "a"]));
        assert_eq!(names(tables.table(Some(2))), ["x", "a"]);
        // A table that restates from the start replaces, for its process only.
        tables.add(Some(2), strings(&["x", "y"]));
        assert_eq!(names(tables.table(Some(2))), ["x", "y"]);
        assert_eq!(names(tables.table(Some(1))), ["a", "b", "c"]);
        assert_eq!(
            tables
                .table(Some(1))
                .and_then(|t| t.get(2).map(str::to_owned)),
            Some("c".into())
        );
        assert_eq!(
            tables
                .table(Some(1))
                .and_then(|t| t.get(3).map(str::to_owned)),
            None
        );
    }
}
