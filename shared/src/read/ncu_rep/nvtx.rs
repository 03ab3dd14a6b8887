//! A launch's NVTX ranges, as a report stores them (profile result field 21, written when
//! ncu ran with `--nvtx`).
//!
//! Found by dumping the profile results of `tests/fixtures/ncu-h200-bert/bert_full.ncu-repz`
//! (BERT's forward pass under a push/pop range `forward`, ncu 2025.3.1) and matching them
//! with the push/pop column of the same report's raw CSV page (`bert_full_raw.csv`: thread
//! 3736, `<default domain>:forward`) and with `action.nvtx_state()` of NVIDIA's `ncu_report`
//! module (domain `<default domain>`, push/pop ranges `('forward',)`). Field numbers are
//! this reader's findings; the names are descriptive.
//!
//! NVTX state (field 21): 1 = a domain (repeated; 1 = its ID, 2 = its name), 2 = the
//! launching thread's push/pop stack (1 = the thread ID, 2 = a range, repeated, in file
//! order, taken as outermost first as the CSV page lists them; a range: 1 = its domain's
//! ID, 3 = its attributes, 1 = the message). Seen and skipped: 3 (`{1: 0}`), 4 and 5 (0),
//! and a range attribute 3 (a number). **Start/end ranges are not read**: no report here
//! has one, so where the format keeps them is not known; a report's launches carry their
//! push/pop stack only (a CSV page of the same report carries both).

use crate::error::ReportError;
use crate::model::artifact::{NvtxRange, NvtxRanges};

use super::walk::walk_message;
use super::wire::Field;

/// NVTX state fields.
mod state {
    pub const DOMAIN: u32 = 1;
    pub const THREAD: u32 = 2;
}

/// Domain: 1 = ID, 2 = name.
mod domain {
    pub const ID: u32 = 1;
    pub const NAME: u32 = 2;
}

/// Thread: 1 = thread ID, 2 = a push/pop range (repeated).
mod thread {
    pub const ID: u32 = 1;
    pub const RANGE: u32 = 2;
}

/// Range: 1 = domain ID, 3 = attributes (1 = message).
mod range {
    pub const DOMAIN: u32 = 1;
    pub const ATTRIBUTES: u32 = 3;
    pub const MESSAGE: u32 = 1;
}

/// ncu's name of the default domain, stored as no domain (as the CSV reader does).
const DEFAULT_DOMAIN: &str = "<default domain>";

/// The NVTX ranges of a profile result's field 21; `None` when it holds no push/pop range.
/// A range whose domain ID the state does not list is named by it (`domain 7`).
///
/// # Errors
///
/// [`ReportError::Malformed`] naming the byte offset where a nested message does not walk.
pub fn read_nvtx(field: &Field<'_>, version: u64) -> Result<Option<NvtxRanges>, ReportError> {
    let mut domains: Vec<(u64, String)> = Vec::new();
    // (domain ID, message) of each range, resolved once every domain is read.
    let mut stack: Vec<(Option<u64>, String)> = Vec::new();
    let mut thread_id = None;
    for f in walk_message(field, "NVTX state", version) {
        let f = f?;
        match f.number {
            state::DOMAIN => {
                let (mut id, mut name) = (None, String::new());
                for g in walk_message(&f, "NVTX domain", version) {
                    let g = g?;
                    match g.number {
                        domain::ID => id = g.varint(),
                        domain::NAME => name = g.text().unwrap_or_default(),
                        _ => {}
                    }
                }
                if let Some(id) = id {
                    domains.push((id, name));
                }
            }
            state::THREAD => {
                for g in walk_message(&f, "NVTX thread", version) {
                    let g = g?;
                    match g.number {
                        thread::ID => thread_id = g.varint(),
                        thread::RANGE => stack.push(read_range(&g, version)?),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    if stack.is_empty() {
        return Ok(None);
    }
    let push_pop = stack
        .into_iter()
        .map(|(id, name)| {
            let named = id.and_then(|id| domains.iter().find(|(d, _)| *d == id));
            let domain = match (named, id) {
                (Some((_, n)), _) if n == DEFAULT_DOMAIN => None,
                (Some((_, n)), _) => Some(n.clone()),
                (None, Some(id)) => Some(format!("domain {id}")),
                (None, None) => None,
            };
            NvtxRange {
                id: None,
                domain,
                name,
            }
        })
        .collect();
    Ok(Some(NvtxRanges {
        thread: thread_id,
        push_pop,
        start_end: Vec::new(),
    }))
}

/// One push/pop range: its domain ID and its message.
fn read_range(field: &Field<'_>, version: u64) -> Result<(Option<u64>, String), ReportError> {
    let (mut domain_id, mut name) = (None, String::new());
    for f in walk_message(field, "NVTX range", version) {
        let f = f?;
        match f.number {
            range::DOMAIN => domain_id = f.varint(),
            range::ATTRIBUTES => {
                for g in walk_message(&f, "NVTX range attributes", version) {
                    let g = g?;
                    if g.number == range::MESSAGE {
                        name = g.text().unwrap_or_default();
                    }
                }
            }
            _ => {}
        }
    }
    Ok((domain_id, name))
}
