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
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StringTable {
    strings: Vec<String>,
}

impl StringTable {
    /// The string at `index`.
    pub fn get(&self, index: u64) -> Option<&str> {
        usize::try_from(index)
            .ok()
            .and_then(|i| self.strings.get(i))
            .map(String::as_str)
    }

    /// Number of strings.
    pub fn len(&self) -> usize {
        self.strings.len()
    }

    /// Whether the table is empty.
    pub fn is_empty(&self) -> bool {
        self.strings.is_empty()
    }

    /// The strings in index order.
    pub fn strings(&self) -> &[String] {
        &self.strings
    }
}

/// The tables of every process seen so far.
///
/// Found by process in constant time, and extended in place when nothing else holds the
/// table (a result decoded against it and still alive): a report of many small tables
/// costs time linear in its strings, not in their square.
#[derive(Debug, Default)]
pub struct StringTables {
    by_process: HashMap<Option<u64>, Arc<StringTable>>,
    /// The process whose table was read last.
    last: Option<Option<u64>>,
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
        match self.by_process.get_mut(&process) {
            Some(current) if current.strings.first() != strings.first() => {
                // Copied only when a live result still reads the table as it was.
                Arc::make_mut(current).strings.extend(strings);
            }
            Some(current) => *current = Arc::new(StringTable { strings }),
            None => {
                self.by_process
                    .insert(process, Arc::new(StringTable { strings }));
            }
        }
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
        table.map(|t| t.strings().to_vec()).unwrap_or_default()
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
