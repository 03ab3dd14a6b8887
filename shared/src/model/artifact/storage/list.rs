//! A list that takes 8 bytes where it is empty, for the fields of a launch that most
//! launches leave empty (details-page rows, rule results), and that a copy of the launch
//! shares: in JSON, and to every reader (through `Deref` to a slice), it is a `Vec`.

use std::borrow::Cow;
use std::sync::Arc;

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A `Vec<T>` behind one shared pointer, none when empty: a launch of a raw page, which has
/// neither section rows nor rules, spent 48 bytes on two empty `Vec`s, a tenth of its
/// memory on exports of a million one-metric launches. Shared, because launches are copied
/// whole where their rows are only read (a sampled profile's copies of a measured launch,
/// a range's launches, a run narrowed to a range): a `--set full` launch has some 150
/// details-page rows of three strings each, and a deep copy of them was most of the range
/// tree's time on the BERT training step sample (docs/performance.md). A change goes to a
/// copy of its own ([`Arc::make_mut`]).
#[derive(Clone, Debug)]
pub struct List<T>(Option<Arc<Vec<T>>>);

impl<T: PartialEq> PartialEq for List<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T> Default for List<T> {
    fn default() -> Self {
        List(None)
    }
}

impl<T> List<T> {
    /// An empty list.
    pub const fn new() -> Self {
        List(None)
    }
}

impl<T: Clone> List<T> {
    /// Adds `item` at the end.
    pub fn push(&mut self, item: T) {
        Arc::make_mut(self.0.get_or_insert_with(Arc::default)).push(item);
    }

    /// The items as a `Vec`, taken out (the list is left empty; a copy when another launch
    /// shares them).
    pub fn take(&mut self) -> Vec<T> {
        self.0.take().map(Arc::unwrap_or_clone).unwrap_or_default()
    }
}

impl<T> From<Vec<T>> for List<T> {
    fn from(items: Vec<T>) -> Self {
        List((!items.is_empty()).then(|| Arc::new(items)))
    }
}

impl<T: Clone> From<List<T>> for Vec<T> {
    fn from(mut list: List<T>) -> Self {
        list.take()
    }
}

impl<T> FromIterator<T> for List<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        Vec::from_iter(iter).into()
    }
}

impl<T: Clone> Extend<T> for List<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        let mut iter = iter.into_iter().peekable();
        if iter.peek().is_some() {
            Arc::make_mut(self.0.get_or_insert_with(Arc::default)).extend(iter);
        }
    }
}

impl<T> std::ops::Deref for List<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl<T: Clone> std::ops::DerefMut for List<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        match &mut self.0 {
            Some(items) => Arc::make_mut(items).as_mut_slice(),
            None => &mut [],
        }
    }
}

impl<T: Clone> IntoIterator for List<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(mut self) -> Self::IntoIter {
        self.take().into_iter()
    }
}

impl<'a, T> IntoIterator for &'a List<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a, T: Clone> IntoIterator for &'a mut List<T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl<T: Serialize> Serialize for List<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        <[T]>::serialize(self, s)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Vec::<T>::deserialize(d).map(List::from)
    }
}

/// The schema of a `Vec<T>`: the JSON is the same.
impl<T: JsonSchema> JsonSchema for List<T> {
    fn inline_schema() -> bool {
        <Vec<T>>::inline_schema()
    }

    fn schema_name() -> Cow<'static, str> {
        <Vec<T>>::schema_name()
    }

    fn schema_id() -> Cow<'static, str> {
        <Vec<T>>::schema_id()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        <Vec<T>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_list_is_one_pointer_and_reads_and_writes_as_a_vec() {
        assert_eq!(std::mem::size_of::<List<String>>(), 8);
        let mut list: List<u32> = List::new();
        assert!(list.is_empty());
        assert_eq!(serde_json::to_string(&list).ok().as_deref(), Some("[]"));
        list.extend([1, 2]);
        list.push(3);
        list.extend(std::iter::empty());
        assert_eq!(&*list, &[1, 2, 3]);
        assert_eq!(
            serde_json::to_string(&list).ok().as_deref(),
            Some("[1,2,3]")
        );
        let back: List<u32> = serde_json::from_str("[1,2,3]").unwrap_or_default();
        assert_eq!(back, list);
        let empty: List<u32> = serde_json::from_str("[]").unwrap_or_default();
        assert_eq!(empty, List::new(), "an empty array is no allocation");
        for x in &mut list {
            *x *= 2;
        }
        assert_eq!(list.into_iter().collect::<Vec<_>>(), [2, 4, 6]);
    }

    #[test]
    fn a_copy_shares_the_items_until_one_of_the_two_changes() {
        let original: List<String> =
            vec!["Duration".to_owned(), "DRAM Throughput".to_owned()].into();
        let mut copy = original.clone();
        assert!(
            std::ptr::eq(original.as_ptr(), copy.as_ptr()),
            "a copy points at the same rows"
        );
        copy.push("Grid Size".to_owned());
        if let Some(first) = copy.first_mut() {
            first.push_str(" (copy)");
        }
        assert_eq!(&*original, ["Duration", "DRAM Throughput"]);
        assert_eq!(&*copy, ["Duration (copy)", "DRAM Throughput", "Grid Size"]);
        let mut shared = original.clone();
        assert_eq!(shared.take(), ["Duration", "DRAM Throughput"]);
        assert!(shared.is_empty());
        assert_eq!(original.len(), 2, "taking from a copy leaves the original");
    }
}
