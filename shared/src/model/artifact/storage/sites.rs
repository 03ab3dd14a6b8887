//! One copy of each [`LaunchSite`]: the launches of a process, device and stream in one
//! grid and block share it.

use std::collections::HashSet;
use std::sync::Arc;

use crate::model::artifact::LaunchSite;

/// The sites a reader has made so far: a launch whose site equals an earlier one's gets
/// that one's copy. The last site is checked first (launches come in runs of one site).
#[derive(Clone, Debug, Default)]
pub struct SiteInterner {
    /// The site given last.
    last: Option<Arc<LaunchSite>>,
    /// Every site given.
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
            None => {
                let new = Arc::new(site);
                self.seen.insert(Arc::clone(&new));
                new
            }
        };
        self.last = Some(Arc::clone(&shared));
        shared
    }

    /// `site` itself when an equal one is not known yet, else the known copy.
    pub fn share(&mut self, site: &Arc<LaunchSite>) -> Arc<LaunchSite> {
        if let Some(last) = &self.last {
            if Arc::ptr_eq(last, site) || **last == **site {
                return Arc::clone(last);
            }
        }
        let shared = match self.seen.get(site) {
            Some(found) => Arc::clone(found),
            None => {
                self.seen.insert(Arc::clone(site));
                Arc::clone(site)
            }
        };
        self.last = Some(Arc::clone(&shared));
        shared
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
        let own = Arc::new(site(2));
        assert!(Arc::ptr_eq(&sites.share(&own), &b));
        let new = Arc::new(site(3));
        assert!(Arc::ptr_eq(&sites.share(&new), &new));
    }
}
