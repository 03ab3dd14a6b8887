//! One copy of each [`LaunchSite`]: the launches of a process, device and stream in one
//! grid and block share it.

use std::collections::HashSet;
use std::sync::Arc;

use crate::model::artifact::schema::LaunchSite;

/// The sites a reader has made so far: a launch whose site equals an earlier one's gets
/// that one's copy. The last site is checked first (launches come in runs of one site) and
/// is all there is until a second one comes (an artifact's counter set of one launch has
/// one interner, and a table for each held 14 MB of 200,000 such sets).
#[derive(Clone, Debug, Default)]
pub struct SiteInterner {
    /// The site given last.
    last: Option<Arc<LaunchSite>>,
    /// Every site given before the last.
    seen: HashSet<Arc<LaunchSite>>,
}

impl SiteInterner {
    /// `site`, shared with an earlier launch's when they are the same.
    pub fn of(&mut self, site: LaunchSite) -> Arc<LaunchSite> {
        if let Some(last) = &self.last {
            if **last == site {
                return Arc::clone(last);
            }
        }
        let shared = match self.seen.get(&site) {
            Some(found) => Arc::clone(found),
            None => Arc::new(site),
        };
        self.given(&shared);
        shared
    }

    /// Makes `site` the last one given, the one before it one of those seen.
    fn given(&mut self, site: &Arc<LaunchSite>) {
        if let Some(before) = self.last.replace(Arc::clone(site)) {
            self.seen.insert(before);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_sites_are_one_copy_whatever_comes_between() {
        let mut sites = SiteInterner::default();
        let site = |stream| LaunchSite {
            process_id: Some(7),
            stream: Some(stream),
            ..LaunchSite::default()
        };
        let a = sites.of(site(1));
        let b = sites.of(site(2));
        let c = sites.of(site(1));
        assert!(Arc::ptr_eq(&a, &c));
        assert!(!Arc::ptr_eq(&a, &b));
        assert!(Arc::ptr_eq(&sites.of(site(2)), &b));
        assert_eq!(sites.of(site(3)).stream, Some(3));
        assert!(Arc::ptr_eq(&sites.of(site(1)), &a));
    }
}
