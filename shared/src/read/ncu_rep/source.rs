//! A launch's per-instruction figures (ncu's SourceCounters section) from a report: the
//! metrics of [`crate::model::counters::SOURCE`] and [`crate::model::counters::SOURCE_STALLS`] carry
//! one instance value per program counter (found by dumping real reports and matching the
//! values with `ncu --page source --csv` of the same report and with NVIDIA's `ncu_report`,
//! `tests/oracle/`). The SASS text is not stored in a report (ncu disassembles the kernel
//! binary the report keeps); it comes from a source-page export ([`crate::read::source`]).
//! The CUDA source line of each address comes from the kernel binary's line table
//! (`lines.rs`), where it was compiled with `-lineinfo`.

use std::collections::BTreeMap;

use crate::model::counters::{self, Counter};
use crate::read::source::{Instruction, LaunchSource, Slot};

use super::report::{ProfileResult, ResultValue};

/// The catalog entry of a per-instruction metric named `name`, if it is one this reader
/// keeps.
pub fn per_pc_counter(name: &str) -> Option<&'static Counter> {
    counters::SOURCE
        .iter()
        .chain(counters::SOURCE_STALLS)
        .find(|c| c.name == name)
}

impl ProfileResult {
    /// Fills [`ProfileResult::lines`] from `map` for every address of `per_pc`.
    pub fn attach_lines(&mut self, map: &super::lines::LineMap) {
        let mut pcs: Vec<u64> = self
            .per_pc
            .iter()
            .flat_map(|(_, v)| v.iter().map(|(pc, _)| *pc))
            .collect();
        crate::order::sort(&mut pcs);
        pcs.dedup();
        self.lines = pcs
            .into_iter()
            .filter_map(|pc| map.at(pc).map(|l| (pc, l.clone())))
            .collect();
    }

    /// This launch's instructions with their figures, by address; `None` when the report
    /// has no source counters for it.
    pub fn source(&self) -> Option<LaunchSource> {
        if self.per_pc.is_empty() {
            return None;
        }
        let mut by_pc: BTreeMap<u64, Instruction> = BTreeMap::new();
        for (counter, values) in &self.per_pc {
            let Some(slot) = Slot::of(counter) else {
                continue;
            };
            for &(pc, v) in values {
                let i = by_pc.entry(pc).or_insert_with(|| Instruction::at(pc));
                i.set_slot(slot, v);
            }
        }
        for (pc, l) in &self.lines {
            if let Some(i) = by_pc.get_mut(pc) {
                i.file = Some(std::sync::Arc::clone(&l.file));
                i.line = Some(l.line);
                i.cuda.clone_from(&l.text);
            }
        }
        let duration = self
            .metric(counters::GPU_TIME_DURATION.name)
            .and_then(|v| match v {
                ResultValue::Double(d) => Some(*d),
                ResultValue::Uint(u) => Some(*u as f64),
                _ => None,
            });
        Some(LaunchSource {
            launch: self.index,
            kernel: self.names.display().to_owned(),
            duration_ns: duration,
            instructions: by_pc.into_values().collect(),
        })
    }
}
