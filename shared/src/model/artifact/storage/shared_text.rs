//! One copy of a text that launch after launch repeats (a process's name, its host, the
//! compute capability), shared by every launch that has it.

use std::sync::Arc;

/// The last text of one field a reader stored: the next launch with the same text gets the
/// same copy. A report of a million launches of one process held two million copies of its
/// name and host, 64 MB.
#[derive(Clone, Debug, Default)]
pub struct SharedText(Option<Arc<str>>);

impl SharedText {
    /// `text`, shared with the last launch's when they are the same.
    pub fn of(&mut self, text: &str) -> Arc<str> {
        match &self.0 {
            Some(last) if **last == *text => Arc::clone(last),
            _ => {
                let new: Arc<str> = Arc::from(text);
                self.0 = Some(Arc::clone(&new));
                new
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repeated_text_is_one_copy() {
        let mut shared = SharedText::default();
        let a = shared.of("/usr/bin/prog");
        let b = shared.of("/usr/bin/prog");
        assert!(Arc::ptr_eq(&a, &b));
        let c = shared.of("other");
        assert_eq!(&*c, "other");
        assert!(!Arc::ptr_eq(&a, &c));
    }
}
