//! The source page: a launch's SASS instructions with their per-instruction figures
//! (ncu's SourceCounters section), and its hot spots.
//!
//! Two inputs give it. A report ([`crate::read::ncu_rep`], `ProfileResult::source`) holds the
//! figures per instruction address but not the SASS text (ncu disassembles the kernel
//! binary the report keeps, and this tool does not). An `ncu --import R --csv --page
//! source --print-source sass` export ([`read_source_csv`]) holds both: per launch a
//! `"Kernel Name","NAME"` line, a header (`Address`, `Source`, `Instructions Executed`,
//! ..., one `stall_*` column per stall reason) and a row per instruction. ncu 2025.3.1
//! prints the block of most launches twice, identically (seen on a BERT forward: 69 blocks
//! for 43 launches, each pair equal cell for cell and equal to the report's launch); a block
//! equal to the one before it is read as that same launch. CUDA source lines are not read
//! yet (neither input's line table is decoded).

use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

pub use crate::model::artifact::{Instruction, LaunchSource};
use serde::{Deserialize, Serialize};

use crate::error::NcuError;
use crate::model::artifact::KernelRecord;
use crate::model::counters::{self, Counter};
use crate::text::format::opt;
use crate::text::table::{Column as TableColumn, Table};

/// The stall reason of a [`counters::SOURCE_STALLS`] counter: its name after `stalled_`.
pub fn stall_reason(counter: &Counter) -> &'static str {
    counter
        .name
        .rsplit_once("stalled_")
        .map_or(counter.name, |(_, r)| r)
}

impl Instruction {
    /// An instruction at `address` with no figures yet.
    pub fn at(address: u64) -> Self {
        Instruction {
            address,
            ..Default::default()
        }
    }

    /// Sets the figure `counter` measures to `value` (a stall counter's only when non-zero).
    pub fn set(&mut self, counter: &Counter, value: f64) {
        if let Some(slot) = Slot::of(counter) {
            self.set_slot(slot, value);
        }
    }

    /// Sets the figure `slot` to `value` (a stall's only when non-zero).
    pub fn set_slot(&mut self, slot: Slot, value: f64) {
        let field = match slot {
            Slot::Stall(reason) => {
                if value != 0.0 {
                    self.stalls.insert(reason.to_owned(), value);
                }
                return;
            }
            Slot::InstExecuted => &mut self.inst_executed,
            Slot::ThreadInstExecuted => &mut self.thread_inst_executed,
            Slot::Samples => &mut self.samples,
            Slot::L1TagRequestsGlobal => &mut self.l1_tag_requests_global,
            Slot::L2SectorsGlobal => &mut self.l2_sectors_global,
            Slot::L2SectorsGlobalIdeal => &mut self.l2_sectors_global_ideal,
            Slot::L2SectorsGlobalExcessive => &mut self.l2_sectors_global_excessive,
            Slot::L1WavefrontsShared => &mut self.l1_wavefronts_shared,
            Slot::L1WavefrontsSharedIdeal => &mut self.l1_wavefronts_shared_ideal,
            Slot::L1WavefrontsSharedExcessive => &mut self.l1_wavefronts_shared_excessive,
            Slot::L1ConflictsSharedNway => &mut self.l1_conflicts_shared_nway,
            Slot::DivergentBranches => &mut self.divergent_branches,
        };
        *field = Some(value);
    }
}

/// Which figure of an [`Instruction`] a per-instruction counter fills, resolved once per
/// column or metric (matching a counter by name per value is slow on a large page).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Slot {
    /// `inst_executed`.
    InstExecuted,
    /// `thread_inst_executed`.
    ThreadInstExecuted,
    /// `samples`.
    Samples,
    /// `l1_tag_requests_global`.
    L1TagRequestsGlobal,
    /// `l2_sectors_global`.
    L2SectorsGlobal,
    /// `l2_sectors_global_ideal`.
    L2SectorsGlobalIdeal,
    /// `l2_sectors_global_excessive`.
    L2SectorsGlobalExcessive,
    /// `l1_wavefronts_shared`.
    L1WavefrontsShared,
    /// `l1_wavefronts_shared_ideal`.
    L1WavefrontsSharedIdeal,
    /// `l1_wavefronts_shared_excessive`.
    L1WavefrontsSharedExcessive,
    /// `l1_conflicts_shared_nway`.
    L1ConflictsSharedNway,
    /// `divergent_branches`.
    DivergentBranches,
    /// A stall reason's samples.
    Stall(&'static str),
}

impl Slot {
    /// The figure `counter` fills, if it is a per-instruction counter of the catalog.
    pub fn of(counter: &Counter) -> Option<Slot> {
        if counters::SOURCE_STALLS.contains(counter) {
            return Some(Slot::Stall(stall_reason(counter)));
        }
        Some(match *counter {
            counters::SASS_INST_EXECUTED => Slot::InstExecuted,
            counters::SASS_THREAD_INST_EXECUTED => Slot::ThreadInstExecuted,
            counters::SASS_SAMPLES => Slot::Samples,
            counters::SASS_L1_TAG_REQUESTS_GLOBAL => Slot::L1TagRequestsGlobal,
            counters::SASS_L2_SECTORS_GLOBAL => Slot::L2SectorsGlobal,
            counters::SASS_L2_SECTORS_GLOBAL_IDEAL => Slot::L2SectorsGlobalIdeal,
            counters::SASS_L2_SECTORS_GLOBAL_EXCESSIVE => Slot::L2SectorsGlobalExcessive,
            counters::SASS_L1_WAVEFRONTS_SHARED => Slot::L1WavefrontsShared,
            counters::SASS_L1_WAVEFRONTS_SHARED_IDEAL => Slot::L1WavefrontsSharedIdeal,
            counters::SASS_L1_WAVEFRONTS_SHARED_EXCESSIVE => Slot::L1WavefrontsSharedExcessive,
            counters::SASS_L1_CONFLICTS_SHARED_NWAY => Slot::L1ConflictsSharedNway,
            counters::SASS_BRANCH_DIVERGENT => Slot::DivergentBranches,
            _ => return None,
        })
    }
}

impl Instruction {
    /// L2 sectors per warp-level request: the global accesses' sectors over the times the
    /// instruction was executed by a warp (4 for a warp's coalesced 4-byte loads, 32 where
    /// every thread's access lands in a sector of its own); `None` for an instruction with
    /// no global sectors or never executed.
    pub fn sectors_per_request(&self) -> Option<f64> {
        let executed = self.inst_executed.filter(|r| *r > 0.0)?;
        Some(self.l2_sectors_global? / executed)
    }

    /// The stall reason with the most samples, and its samples.
    pub fn top_stall(&self) -> Option<(&str, f64)> {
        self.stalls
            .iter()
            .max_by(|a, b| a.1.total_cmp(b.1))
            .map(|(k, v)| (k.as_str(), *v))
    }
}

impl LaunchSource {
    /// Warp-level instructions executed, summed over the instructions.
    pub fn inst_executed(&self) -> f64 {
        self.instructions
            .iter()
            .filter_map(|i| i.inst_executed)
            .sum()
    }

    /// Warp-state samples, summed.
    pub fn samples(&self) -> f64 {
        self.instructions.iter().filter_map(|i| i.samples).sum()
    }

    /// The `n` hottest instructions: most warp-state samples first (where the warps wait),
    /// then most executed; instructions with neither are left out.
    pub fn hot_spots(&self, n: usize) -> Vec<&Instruction> {
        let mut hot: Vec<&Instruction> = self
            .instructions
            .iter()
            .filter(|i| i.samples.unwrap_or(0.0) > 0.0 || i.inst_executed.unwrap_or(0.0) > 0.0)
            .collect();
        crate::order::sort_by(&mut hot, |a, b| {
            let key = |i: &Instruction| (i.samples.unwrap_or(0.0), i.inst_executed.unwrap_or(0.0));
            let (ka, kb) = (key(a), key(b));
            kb.0.total_cmp(&ka.0).then(kb.1.total_cmp(&ka.1))
        });
        hot.truncate(n);
        hot
    }

    /// Takes what a source-page export of the same launch (`other`) adds to a report's
    /// figures, for the instructions at the same addresses: the SASS text, and from a
    /// `cuda,sass` page the CUDA line's text (and its file and line, where this launch has
    /// none); returns how many instructions got SASS text.
    pub fn add_page_text(&mut self, other: &LaunchSource) -> usize {
        let by_address: BTreeMap<u64, &Instruction> =
            crate::order::map_of(other.instructions.iter().map(|i| (i.address, i)));
        let mut n = 0;
        for i in &mut self.instructions {
            let Some(o) = by_address.get(&i.address) else {
                continue;
            };
            if let Some(s) = &o.sass {
                i.sass = Some(s.clone());
                n += 1;
            }
            if i.line.is_none() {
                i.file.clone_from(&o.file);
                i.line = o.line;
            }
            if i.cuda.is_none() && i.line == o.line {
                i.cuda.clone_from(&o.cuda);
            }
        }
        n
    }

    /// Gives the instructions compiled from file `name` (its path, or the file name without
    /// directories) the text of their line in `text`, the file's contents; returns how many
    /// got one.
    pub fn add_cuda_text(&mut self, name: &str, text: &str) -> usize {
        let lines: Vec<&str> = text.lines().collect();
        // One copy of each line the instructions name, shared by them.
        let mut shared: BTreeMap<usize, Arc<str>> = BTreeMap::new();
        let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
        let mut n = 0;
        for i in &mut self.instructions {
            let (Some(file), Some(line)) = (&i.file, i.line) else {
                continue;
            };
            let same = &**file == name || file.rsplit(['/', '\\']).next() == Some(base);
            let Some(at) = (line as usize).checked_sub(1) else {
                continue;
            };
            if let (true, Some(t)) = (same, lines.get(at)) {
                let t = shared.entry(at).or_insert_with(|| Arc::from(*t));
                i.cuda = Some(Arc::clone(t));
                n += 1;
            }
        }
        n
    }
}

/// How a source page's blocks were joined to a report's launches ([`join_page`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PageJoin {
    /// Indices into the launches of those left without SASS text: no block of the page is
    /// their kernel at their addresses.
    pub without_text: Vec<usize>,
    /// Indices into the page of the blocks no launch took.
    pub unmatched: Vec<usize>,
}

/// The lowest and highest instruction address of a launch, if it has instructions.
pub fn address_range(launch: &LaunchSource) -> Option<(u64, u64)> {
    let lo = launch.instructions.iter().map(|i| i.address).min()?;
    let hi = launch.instructions.iter().map(|i| i.address).max()?;
    Some((lo, hi))
}

/// Gives each of `launches` (a report's) the SASS text of the block of `page` (a source-page
/// export) that is its launch: the same kernel name, at addresses whose range holds the
/// launch's and shares at least one of them. Among such blocks the one at the launch's
/// own place in the page is taken, else the first: a page filtered (fewer blocks) or
/// reordered still attaches where it matches, and launches of one kernel at the same
/// addresses (the same code) may share a block. A block of another kernel, or of the same
/// kernel loaded at other addresses, is never attached: a join by place alone gave a
/// launch another kernel's SASS without a word (issue 39). Returns the launches left
/// without text and the blocks no launch took, for the caller's warnings.
pub fn join_page(launches: &mut [LaunchSource], page: &[LaunchSource]) -> PageJoin {
    let ranges: Vec<Option<(u64, u64)>> = page.iter().map(address_range).collect();
    let mut taken = vec![false; page.len()];
    let mut join = PageJoin::default();
    for (li, launch) in launches.iter_mut().enumerate() {
        let Some((lo, hi)) = address_range(launch) else {
            join.without_text.push(li);
            continue;
        };
        let fits = |b: usize| {
            page.get(b).is_some_and(|p| p.kernel == launch.kernel)
                && ranges
                    .get(b)
                    .copied()
                    .flatten()
                    .is_some_and(|(plo, phi)| plo <= lo && hi <= phi)
                && page.get(b).is_some_and(|p| {
                    // The page's instructions are in address order.
                    launch.instructions.iter().any(|i| {
                        p.instructions
                            .binary_search_by_key(&i.address, |x| x.address)
                            .is_ok()
                    })
                })
        };
        let own = usize::try_from(launch.launch).ok().filter(|&b| fits(b));
        let chosen = own.or_else(|| (0..page.len()).find(|&b| fits(b)));
        let text = chosen
            .and_then(|b| page.get(b).map(|p| (b, p)))
            .map_or(0, |(b, p)| {
                if let Some(t) = taken.get_mut(b) {
                    *t = true;
                }
                launch.add_page_text(p)
            });
        if text == 0 {
            join.without_text.push(li);
        }
    }
    join.unmatched = taken
        .iter()
        .enumerate()
        .filter(|(_, t)| !**t)
        .map(|(b, _)| b)
        .collect();
    join
}

/// The source pages among `sources` of the launches of `kernel`: the same launch ID and
/// kernel name (the function as ncu printed it, or its demangled form).
pub fn of_kernel<'a>(kernel: &KernelRecord, sources: &'a [LaunchSource]) -> Vec<&'a LaunchSource> {
    let sets = [kernel.cold.as_ref(), kernel.warm.as_deref()];
    let launches: Vec<_> = sets
        .into_iter()
        .flatten()
        .flat_map(|s| s.launches.iter())
        .collect();
    sources
        .iter()
        .filter(|s| {
            launches.iter().any(|l| {
                l.id == s.launch
                    && (*l.function == *s.kernel || l.site.demangled.as_deref() == Some(&s.kernel))
            })
        })
        .collect()
}

/// What an artifact keeps of `sources` (the source pages of its launches): for each kernel
/// of `kernels`, the launch that stands for it ([`longest`]), in launch order. The Source
/// page and `capture source` show that launch; the others would multiply the artifact's
/// size by the launches of a kernel (a BERT forward: 43 launches of 15 kernels).
pub fn kept_in_artifact(kernels: &[KernelRecord], sources: &[LaunchSource]) -> Vec<LaunchSource> {
    let mut kept: Vec<LaunchSource> = kernels
        .iter()
        .filter_map(|k| longest(&of_kernel(k, sources)).cloned())
        .collect();
    crate::order::sort_by_key(&mut kept, |s| s.launch);
    kept.dedup_by(|a, b| a.launch == b.launch && a.kernel == b.kernel);
    kept
}

/// What adds the SASS text to the source page of `report` (its file name), which keeps the
/// kernels' binaries and not their text: the one command that exports ncu's source page of
/// the report and imports the two together, for the Source page and `capture import`'s
/// warning alike.
pub fn how_to_add_sass(report: &str) -> String {
    let page = format!(
        "{}_source.csv",
        report
            .strip_suffix(".gz")
            .unwrap_or(report)
            .strip_suffix(".ncu-repz")
            .or_else(|| report.strip_suffix(".ncu-rep"))
            .unwrap_or(report)
    );
    format!(
        "a report keeps the kernels' binaries, not their SASS text; ncu disassembles them \
         into its source page: `ncu --import {report} --csv --page source --print-source \
         cuda,sass > {page} && capture import {report} --source {page} -o run.json`"
    )
}

/// The launch that stands for a kernel among `launches`: the longest by ncu's duration,
/// else (a source-page export has no durations) the one that executed the most
/// instructions.
pub fn longest<'a>(launches: &[&'a LaunchSource]) -> Option<&'a LaunchSource> {
    launches.iter().copied().max_by(|a, b| {
        let key = |l: &LaunchSource| {
            (
                l.duration_ns.unwrap_or(f64::NEG_INFINITY),
                l.inst_executed(),
            )
        };
        let (ka, kb) = (key(a), key(b));
        ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
    })
}

/// The source page's column labels (ncu 2025.3.1) and what each is, besides `Address`,
/// `Source` and the stall columns.
const COLUMNS: &[(&str, Counter)] = &[
    ("Instructions Executed", counters::SASS_INST_EXECUTED),
    (
        "Thread Instructions Executed",
        counters::SASS_THREAD_INST_EXECUTED,
    ),
    ("# Samples", counters::SASS_SAMPLES),
    (
        "L1 Tag Requests Global",
        counters::SASS_L1_TAG_REQUESTS_GLOBAL,
    ),
    (
        "L2 Theoretical Sectors Global",
        counters::SASS_L2_SECTORS_GLOBAL,
    ),
    (
        "L2 Theoretical Sectors Global Ideal",
        counters::SASS_L2_SECTORS_GLOBAL_IDEAL,
    ),
    (
        "L2 Theoretical Sectors Global Excessive",
        counters::SASS_L2_SECTORS_GLOBAL_EXCESSIVE,
    ),
    ("L1 Wavefronts Shared", counters::SASS_L1_WAVEFRONTS_SHARED),
    (
        "L1 Wavefronts Shared Ideal",
        counters::SASS_L1_WAVEFRONTS_SHARED_IDEAL,
    ),
    (
        "L1 Wavefronts Shared Excessive",
        counters::SASS_L1_WAVEFRONTS_SHARED_EXCESSIVE,
    ),
    (
        "L1 Conflicts Shared N-Way",
        counters::SASS_L1_CONFLICTS_SHARED_NWAY,
    ),
    ("Divergent Branches", counters::SASS_BRANCH_DIVERGENT),
];

/// The page's short stall column names (all samples) and their reasons.
const STALL_COLUMNS: &[(&str, Counter)] = &[
    ("stall_barrier", counters::SASS_STALL_BARRIER),
    (
        "stall_branch_resolving",
        counters::SASS_STALL_BRANCH_RESOLVING,
    ),
    ("stall_dispatch", counters::SASS_STALL_DISPATCH_STALL),
    ("stall_drain", counters::SASS_STALL_DRAIN),
    ("stall_imc", counters::SASS_STALL_IMC_MISS),
    ("stall_lg", counters::SASS_STALL_LG_THROTTLE),
    ("stall_long_sb", counters::SASS_STALL_LONG_SCOREBOARD),
    ("stall_math", counters::SASS_STALL_MATH_PIPE_THROTTLE),
    ("stall_membar", counters::SASS_STALL_MEMBAR),
    ("stall_mio", counters::SASS_STALL_MIO_THROTTLE),
    ("stall_misc", counters::SASS_STALL_MISC),
    ("stall_no_inst", counters::SASS_STALL_NO_INSTRUCTIONS),
    ("stall_not_selected", counters::SASS_STALL_NOT_SELECTED),
    ("stall_selected", counters::SASS_STALL_SELECTED),
    ("stall_short_sb", counters::SASS_STALL_SHORT_SCOREBOARD),
    ("stall_sleep", counters::SASS_STALL_SLEEPING),
    ("stall_tex", counters::SASS_STALL_TEX_THROTTLE),
    ("stall_wait", counters::SASS_STALL_WAIT),
    (
        "stall_warpgroup_arrive",
        counters::SASS_STALL_WARPGROUP_ARRIVE,
    ),
    ("stall_gmma", counters::SASS_STALL_GMMA),
];

/// A cell as a number: `None` for `-`, empty or text; thousands separators dropped.
fn number(cell: &str) -> Option<f64> {
    let t = cell.trim();
    if t.is_empty() || t == "-" {
        return None;
    }
    let parsed = if t.contains(',') {
        t.replace(',', "").parse::<f64>()
    } else {
        t.parse::<f64>()
    };
    parsed.ok().filter(|v| v.is_finite())
}

/// What each column of a block's header is.
enum Column {
    Address,
    Sass,
    /// `Line No` of a `cuda,sass` page.
    Line,
    /// Its first `Source` column: the CUDA line's text.
    Cuda,
    Figure(Slot),
    Other,
}

fn columns_of(header: &csv::StringRecord) -> Vec<Column> {
    // A `cuda,sass` page has `Line No`, then two `Source` columns: the CUDA line's, then the
    // instruction's.
    let mut cuda_first = header.iter().any(|l| l == "Line No");
    header
        .iter()
        .map(|label| match label {
            "Address" => Column::Address,
            "Line No" => Column::Line,
            "Source" if cuda_first => {
                cuda_first = false;
                Column::Cuda
            }
            "Source" => Column::Sass,
            _ => COLUMNS
                .iter()
                .chain(STALL_COLUMNS)
                .find(|(l, _)| *l == label)
                .and_then(|(_, c)| Slot::of(c))
                .map_or(Column::Other, Column::Figure),
        })
        .collect()
}

/// The CUDA line a `cuda,sass` page's rows are under: file, line, text.
#[derive(Clone, Default)]
struct Under {
    file: Option<Arc<str>>,
    line: Option<u32>,
    text: Option<Arc<str>>,
}

/// A block being read: its launch, header, and the line its rows are under.
struct Block {
    launch: LaunchSource,
    columns: Option<Vec<Column>>,
    under: Under,
}

impl Block {
    fn new(kernel: &str, file: Option<Arc<str>>) -> Block {
        Block {
            launch: LaunchSource {
                kernel: kernel.to_owned(),
                ..Default::default()
            },
            columns: None,
            under: Under {
                file,
                ..Under::default()
            },
        }
    }
}

impl Block {
    /// Reads a row of the block: a CUDA line's (the line its next rows are under) or an
    /// instruction's. Anything else is refused, with what it was: a row of another number
    /// of cells than the header's, or one whose `Address` is not an address (`0x...`; a
    /// page of one-field lines made each `a` an instruction at 0xa, issue 48).
    fn read_row(&mut self, record: &csv::StringRecord) -> Result<(), String> {
        let Some(columns) = self.columns.as_ref() else {
            return Ok(());
        };
        let mut ins = Instruction::default();
        let mut address = None;
        let mut under = None::<Under>;
        let mut bad = (record.len() != columns.len()).then(|| {
            format!(
                "a row of {} cell(s) under a header of {}: not an instruction of the page",
                record.len(),
                columns.len()
            )
        });
        for (cell, column) in record.iter().zip(columns) {
            match column {
                Column::Address => {
                    let text = cell.trim();
                    address = text
                        .strip_prefix("0x")
                        .and_then(|hex| u64::from_str_radix(hex, 16).ok());
                    // `-` on a CUDA line's row; `...` where ncu elides instructions.
                    if address.is_none() && !matches!(text, "-" | "..." | "") {
                        bad.get_or_insert_with(|| {
                            format!(
                                "an Address cell {:?} that is not an address (0x...)",
                                text.chars().take(40).collect::<String>()
                            )
                        });
                    }
                }
                Column::Sass => ins.sass = Some(cell.trim().to_owned()),
                Column::Line => {
                    if let Ok(l) = cell.trim().parse::<u32>() {
                        under = Some(Under {
                            file: self.under.file.clone(),
                            line: Some(l),
                            text: None,
                        });
                    }
                }
                Column::Cuda => {
                    // ncu writes `<Unable to open source file>` where it could not.
                    let text = cell.trim_end();
                    if let Some(u) = under.as_mut() {
                        if !(text.starts_with('<') && text.ends_with('>')) {
                            u.text = Some(Arc::from(text));
                        }
                    }
                }
                Column::Figure(slot) => {
                    if let Some(v) = number(cell) {
                        ins.set_slot(*slot, v);
                    }
                }
                Column::Other => {}
            }
        }
        if let Some(mut u) = under {
            // A CUDA line's row (its figures are its instructions' sums). ncu writes the
            // line's text with its quotes undoubled (`extern "C"`), so a line holding a quote
            // and a comma splits into other cells than the header's: its line number still
            // reads, its text is left out (where it ends cannot be told).
            if bad.is_some() {
                u.text = None;
            }
            self.under = u;
            return Ok(());
        }
        if let Some(why) = bad {
            return Err(why);
        }
        let Some(a) = address else {
            // An elision (`...`) or a row of no instruction: nothing to keep.
            return Ok(());
        };
        if self.launch.instructions.len() >= MAX_INSTRUCTIONS {
            return Err(too_many());
        }
        ins.address = a;
        if self.under.line.is_some() {
            ins.file.clone_from(&self.under.file);
            ins.line = self.under.line;
            ins.cuda.clone_from(&self.under.text);
        }
        self.launch.instructions.push(ins);
        Ok(())
    }
}

/// The last launch read while further files of it may come (a `cuda,sass` page prints a
/// kernel's instructions file by file): the addresses it holds, and whether files were
/// appended out of address order (sorted once, when the launch is done). Sorting and
/// searching the whole launch per file block took 49 s for a page of 80,000 file blocks
/// (issue 39).
#[derive(Default)]
struct Open {
    addresses: HashSet<u64>,
    unsorted: bool,
}

impl Open {
    /// Puts the launch's instructions in address order, if files were appended.
    fn sort(&mut self, launch: &mut LaunchSource) {
        if self.unsorted {
            crate::order::sort_by_key(&mut launch.instructions, |i| i.address);
            self.unsorted = false;
        }
    }
}

/// Ends a block: a repeat of the launch before it (ncu prints most twice) is dropped; the
/// next file of the launch before it (same kernel, other addresses) joins it; anything else
/// is a new launch.
fn finish_block(
    done: Option<Block>,
    out: &mut Launches<'_>,
    open: &mut Open,
) -> Result<(), String> {
    let Some(Block { mut launch, .. }) = done else {
        return Ok(());
    };
    crate::order::sort_by_key(&mut launch.instructions, |i| i.address);
    if let Some(prev) = out.last.as_mut() {
        if prev.kernel == launch.kernel {
            // Only a launch of as many instructions can be a repeat: the one sort it may
            // need is then of a launch no longer than this block.
            if prev.instructions.len() == launch.instructions.len() {
                open.sort(prev);
                if prev.instructions == launch.instructions {
                    return Ok(());
                }
            }
            let disjoint = launch
                .instructions
                .iter()
                .all(|i| !open.addresses.contains(&i.address));
            if disjoint
                && !launch.instructions.is_empty()
                && launch.instructions.iter().any(|i| i.file.is_some())
            {
                if prev.instructions.len() + launch.instructions.len() > MAX_INSTRUCTIONS {
                    return Err(too_many());
                }
                open.addresses
                    .extend(launch.instructions.iter().map(|i| i.address));
                prev.instructions.append(&mut launch.instructions);
                open.unsorted = true;
                return Ok(());
            }
        }
        open.sort(prev);
    }
    launch.launch = out.count;
    open.addresses = launch.instructions.iter().map(|i| i.address).collect();
    open.unsorted = false;
    out.push(launch);
    Ok(())
}

/// The most instructions one launch of a source page may have: 262,144, 4 MiB of SASS at
/// 16 bytes an instruction (the largest kernels of the fixtures have a few thousand, big
/// GEMMs tens of thousands). Each instruction read costs some 300 bytes, so a page of
/// minimal rows (14 bytes each) held 57 times its size (issue 48); the cap holds a launch
/// to some 80 MB.
pub const MAX_INSTRUCTIONS: usize = 1 << 18;

/// The error of a launch past [`MAX_INSTRUCTIONS`].
fn too_many() -> String {
    format!("more than {MAX_INSTRUCTIONS} instructions in one launch, more than any kernel has")
}

/// The launches read so far: the last, still open to a repeat or a further file block,
/// and those before it handed on one at a time.
struct Launches<'a> {
    last: Option<LaunchSource>,
    count: u64,
    emit: &'a mut dyn FnMut(LaunchSource),
}

impl Launches<'_> {
    /// Hands on the last launch and keeps `launch` open.
    fn push(&mut self, launch: LaunchSource) {
        if let Some(done) = self.last.replace(launch) {
            (self.emit)(done);
        }
        self.count += 1;
    }
}

/// The longest record of a source page read: 4 MiB (a line, or the lines one quoted cell
/// spans). ncu's longest are a kernel's name (C++ templates run to kilobytes; a test reads
/// one of a megabyte) and a CUDA line's text; the CSV reader holds a record whole, so an
/// endless quoted cell held gigabytes (issue 48).
pub const MAX_RECORD_BYTES: usize = 4 << 20;

/// `input`, failing once a record passes [`MAX_RECORD_BYTES`]: it follows quotes to know
/// where records end (a line end outside quotes; `""` inside a quoted cell toggles twice).
struct RecordCap<R> {
    input: R,
    in_quotes: bool,
    record_bytes: usize,
    /// The line being read (1-based) and the line the record started on.
    line: u64,
    record_line: u64,
    /// The line of the record that passed the cap, once one did.
    too_long: Option<u64>,
}

impl<R> RecordCap<R> {
    fn new(input: R) -> Self {
        RecordCap {
            input,
            in_quotes: false,
            record_bytes: 0,
            line: 1,
            record_line: 1,
            too_long: None,
        }
    }
}

impl<R: std::io::Read> std::io::Read for RecordCap<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        if self.too_long.is_some() {
            return Err(std::io::Error::other("a record over the cap"));
        }
        let n = self.input.read(buf)?;
        for &b in buf.get(..n).unwrap_or_default() {
            match b {
                b'"' => self.in_quotes = !self.in_quotes,
                b'\n' | b'\r' if !self.in_quotes => {
                    if b == b'\n' {
                        self.line += 1;
                    }
                    self.record_bytes = 0;
                    self.record_line = self.line;
                    continue;
                }
                b'\n' => self.line += 1,
                _ => {}
            }
            self.record_bytes += 1;
            if self.record_bytes > MAX_RECORD_BYTES {
                self.too_long = Some(self.record_line);
                return Err(std::io::Error::other(format!(
                    "line {}: a record over {MAX_RECORD_BYTES} bytes",
                    self.record_line
                )));
            }
        }
        Ok(n)
    }
}

/// Reads an `ncu --csv --page source` export printed with `--print-source sass` (a
/// `"Kernel Name"` line, a header and a row per instruction, per launch) or `cuda,sass`
/// (per launch and file a `"File Path"` and a `"Function Name"` line, a header starting
/// `Line No`, and under each CUDA line's row the rows of its instructions, which get the
/// file, line and, where ncu could open the file, the line's text): one [`LaunchSource`]
/// per launch, in file order, instructions in address order.
///
/// # Errors
///
/// [`NcuError::NotAnExport`] naming the line when the text does not start with a
/// `Kernel Name` or `File Path` line or a block has no `Address` column,
/// [`NcuError::NotASourceRow`] naming the line of a row that is not an instruction's nor a
/// CUDA line's (or longer than [`MAX_RECORD_BYTES`]), [`NcuError::Csv`] when a line is not
/// CSV, [`NcuError::Empty`] for no launch at all.
pub fn read_source_csv(text: &[u8]) -> Result<Vec<LaunchSource>, NcuError> {
    let mut launches = Vec::new();
    read_source_csv_from(text, &mut |l| launches.push(l))?;
    Ok(launches)
}

/// [`read_source_csv`] streaming from `input`, each launch handed to `each` once it is
/// whole (so a caller keeping one holds one): a record (a line, or the lines a quoted cell
/// spans) longer than [`MAX_RECORD_BYTES`] is refused where it starts, unheld, and a
/// launch of more than [`MAX_INSTRUCTIONS`] at the row that passes it.
///
/// # Errors
///
/// As [`read_source_csv`]; an input that fails to read is [`NcuError::Csv`] with the
/// reader's message. Launches handed on before an error stay handed on.
pub fn read_source_csv_from(
    input: impl std::io::Read,
    each: &mut dyn FnMut(LaunchSource),
) -> Result<(), NcuError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(RecordCap::new(input));
    let mut out = Launches {
        last: None,
        count: 0,
        emit: each,
    };
    let mut open = Open::default();
    let mut current: Option<Block> = None;
    for (i, record) in reader.records().enumerate() {
        // The line the record starts on, as the CSV reader counts them (a record may span
        // lines, and a lone carriage return ends one), else its number.
        let line = record
            .as_ref()
            .ok()
            .and_then(|r| r.position())
            .map_or(i as u64 + 1, |p| p.line());
        let record = match record {
            Ok(r) => r,
            Err(e) => {
                return Err(match reader.get_ref().too_long {
                    Some(at) => NcuError::NotASourceRow {
                        line: at,
                        found: format!(
                            "a line (or a quoted cell) longer than {} KiB, which no source \
                             page has; not read",
                            MAX_RECORD_BYTES >> 10
                        ),
                    },
                    None => NcuError::Csv {
                        line: e.position().map_or(line, |p| p.line()),
                        message: e.to_string(),
                    },
                })
            }
        };
        let first = record.get(0).unwrap_or_default();
        let second = record.get(1).unwrap_or_default();
        match first {
            "Kernel Name" => {
                finish_block(current.take(), &mut out, &mut open)
                    .map_err(|found| NcuError::NotASourceRow { line, found })?;
                current = Some(Block::new(second, None));
                continue;
            }
            "File Path" => {
                // A `cuda,sass` page: a block per launch and file, named on the next line.
                finish_block(current.take(), &mut out, &mut open)
                    .map_err(|found| NcuError::NotASourceRow { line, found })?;
                current = Some(Block::new("", Some(Arc::from(second))));
                continue;
            }
            "Function Name" => {
                if let Some(b) = current.as_mut().filter(|b| b.launch.kernel.is_empty()) {
                    b.launch.kernel = second.to_owned();
                }
                continue;
            }
            _ => {}
        }
        let Some(block) = current.as_mut() else {
            return Err(NcuError::NotAnExport {
                line,
                found: format!(
                    "{:?} where a source-page export starts with a \"Kernel Name\" or \
                     \"File Path\" line",
                    first.chars().take(60).collect::<String>()
                ),
            });
        };
        let header = block.columns.is_none() || first == "Address" || first == "Line No";
        if header {
            let cols = columns_of(&record);
            if !cols.iter().any(|c| matches!(c, Column::Address)) {
                return Err(NcuError::NotAnExport {
                    line,
                    found: "a source-page block header without an Address column".to_owned(),
                });
            }
            block.columns = Some(cols);
            continue;
        }
        block
            .read_row(&record)
            .map_err(|found| NcuError::NotASourceRow { line, found })?;
    }
    let lines = reader.get_ref().line;
    finish_block(current.take(), &mut out, &mut open)
        .map_err(|found| NcuError::NotASourceRow { line: lines, found })?;
    let Some(mut last) = out.last.take() else {
        return Err(NcuError::Empty);
    };
    open.sort(&mut last);
    (out.emit)(last);
    Ok(())
}

/// A count as text: whole numbers in full, others to three significant digits.
fn count(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        crate::text::format::sig3(v)
    }
}

fn cell(v: Option<f64>) -> String {
    opt(v, count)
}

/// The columns of an instruction listing (hot spots and every instruction).
const INSTRUCTION_COLUMNS: [TableColumn; 8] = [
    TableColumn::text("address").fixed(14),
    TableColumn::value("executed").fixed(12),
    TableColumn::value("samples").fixed(8),
    TableColumn::text("top stall (samples)").fixed(26),
    TableColumn::value("sect/req").fixed(8),
    TableColumn::value("L2 exc.").fixed(8),
    TableColumn::value("bank c.").fixed(8),
    TableColumn::text("SASS").fixed(0),
];

/// The columns of the listing by CUDA source line.
const LINE_COLUMNS: [TableColumn; 7] = [
    TableColumn::text("file:line").fixed(24),
    TableColumn::value("executed").fixed(12),
    TableColumn::value("samples").fixed(8),
    TableColumn::value("requests").fixed(10),
    TableColumn::value("L2 sectors").fixed(12),
    TableColumn::value("sect/req").fixed(8),
    TableColumn::text("source").fixed(0),
];

/// An instruction listing of `instructions`: its figures, its SASS, and where the input has
/// line information its place and CUDA text after the SASS.
fn instruction_listing<'a>(instructions: impl IntoIterator<Item = &'a Instruction>) -> String {
    let mut table = Table::listing(&INSTRUCTION_COLUMNS);
    for i in instructions {
        let stall = i
            .top_stall()
            .map_or_else(|| "-".to_owned(), |(r, v)| format!("{r} {}", count(v)));
        let mut sass = i
            .sass
            .clone()
            .unwrap_or_else(|| "(SASS not in a report; see --sass)".into());
        if let Some(place) = i.place() {
            sass.push_str(&format!("  <- {place}"));
            if let Some(text) = &i.cuda {
                sass.push_str(&format!("  {}", text.trim()));
            }
        }
        table.push([
            format!("{:#014x}", i.address),
            cell(i.inst_executed),
            cell(i.samples),
            stall,
            cell(i.sectors_per_request()),
            cell(i.l2_sectors_global_excessive),
            cell(i.l1_wavefronts_shared_excessive),
            sass,
        ]);
    }
    table.to_text()
}

/// The launch as text: a summary line, the `hot` hottest instructions, the CUDA source
/// lines (where the input has line information), then every instruction in address order.
/// The kernel name, the SASS, the CUDA file names and their text are shown with control
/// characters escaped (a terminal escape in a name is never written raw).
pub fn to_text(launch: &LaunchSource, hot: usize) -> String {
    use std::fmt::Write;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} (launch {}): {} instructions, {} executed, {} warp-state samples",
        crate::text::escape::controls(&launch.kernel),
        launch.launch,
        launch.instructions.len(),
        count(launch.inst_executed()),
        count(launch.samples()),
    );
    let _ = writeln!(
        out,
        "\nhot spots (most warp-state samples, then most executed):"
    );
    out.push_str(&instruction_listing(launch.hot_spots(hot)));
    let lines = launch.by_line();
    if !lines.is_empty() {
        let _ = writeln!(out, "\nby CUDA source line (its instructions summed):");
        let mut table = Table::listing(&LINE_COLUMNS);
        for l in &lines {
            table.push([
                l.place(),
                count(l.inst_executed),
                count(l.samples),
                cell(l.requests),
                cell(l.sectors),
                cell(l.sectors_per_request()),
                l.text.as_deref().map_or("", str::trim).to_owned(),
            ]);
        }
        out.push_str(&table.to_text());
    }
    let _ = writeln!(out, "\nevery instruction:");
    out.push_str(&instruction_listing(&launch.instructions));
    out
}

/// A CUDA source line's figures: its instructions' summed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LineFigures {
    /// The file.
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// Its text, where the input holds it.
    pub text: Option<String>,
    /// Its instructions.
    pub instructions: usize,
    /// Warp-level instructions executed.
    pub inst_executed: f64,
    /// Warp-state samples.
    pub samples: f64,
    /// Global requests at the L1 tags (`None`: no instruction of the line has the figure).
    pub requests: Option<f64>,
    /// Warp-level executions of the line's instructions with global sectors.
    pub global_executed: Option<f64>,
    /// L2 sectors of the global accesses.
    pub sectors: Option<f64>,
    /// L2 sectors beyond the ideal.
    pub excessive: Option<f64>,
}

impl LineFigures {
    /// `file:line`, the file's name without its directories.
    pub fn place(&self) -> String {
        format!("{}:{}", base_name(&self.file), self.line)
    }

    /// L2 sectors per warp-level request of the line's global accesses (as
    /// [`Instruction::sectors_per_request`]).
    pub fn sectors_per_request(&self) -> Option<f64> {
        let executed = self.global_executed.filter(|r| *r > 0.0)?;
        Some(self.sectors? / executed)
    }
}

/// A path's last part.
fn base_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

impl Instruction {
    /// `file:line` of the CUDA line it was compiled from (the file's name without its
    /// directories), where the input has line information.
    pub fn place(&self) -> Option<String> {
        let line = self.line?;
        Some(match &self.file {
            Some(f) => format!("{}:{line}", base_name(f)),
            None => format!("line {line}"),
        })
    }
}

impl LaunchSource {
    /// The CUDA source lines of the launch's instructions with their figures summed, by
    /// file and line; empty without line information.
    pub fn by_line(&self) -> Vec<LineFigures> {
        let mut lines: BTreeMap<(&str, u32), LineFigures> = BTreeMap::new();
        let add = |slot: &mut Option<f64>, v: Option<f64>| {
            if let Some(v) = v {
                *slot = Some(slot.unwrap_or(0.0) + v);
            }
        };
        for i in &self.instructions {
            let Some(line) = i.line else { continue };
            let file = i.file.as_deref().unwrap_or_default();
            let l = lines.entry((file, line)).or_insert_with(|| LineFigures {
                file: file.to_owned(),
                line,
                ..LineFigures::default()
            });
            if l.text.is_none() {
                l.text = i.cuda.as_deref().map(str::to_owned);
            }
            l.instructions += 1;
            l.inst_executed += i.inst_executed.unwrap_or(0.0);
            l.samples += i.samples.unwrap_or(0.0);
            add(&mut l.requests, i.l1_tag_requests_global);
            add(&mut l.sectors, i.l2_sectors_global);
            if i.l2_sectors_global.is_some() {
                add(&mut l.global_executed, i.inst_executed);
            }
            add(&mut l.excessive, i.l2_sectors_global_excessive);
        }
        lines.into_values().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = "\"Kernel Name\",\"k(int)\",\n\
        \"Address\",\"Source\",\"# Samples\",\"Instructions Executed\",\"L2 Theoretical Sectors Global Excessive\",\"stall_long_sb\",\"stall_wait\",\"stall_long_sb (Not Issued)\"\n\
        \"0x10\",\"      LDG.E R2, desc[UR4][R2.64]\",\"7\",\"1,024\",\"96\",\"6\",\"1\",\"2\"\n\
        \"0x20\",\"      EXIT\",\"0\",\"4\",\"-\",\"0\",\"0\",\"0\"\n\
        \"Kernel Name\",\"k(int)\",\n\
        \"Address\",\"Source\",\"# Samples\",\"Instructions Executed\",\"L2 Theoretical Sectors Global Excessive\",\"stall_long_sb\",\"stall_wait\",\"stall_long_sb (Not Issued)\"\n\
        \"0x10\",\"      LDG.E R2, desc[UR4][R2.64]\",\"7\",\"1,024\",\"96\",\"6\",\"1\",\"2\"\n\
        \"0x20\",\"      EXIT\",\"0\",\"4\",\"-\",\"0\",\"0\",\"0\"\n\
        \"Kernel Name\",\"k(int)\",\n\
        \"Address\",\"Source\",\"# Samples\",\"Instructions Executed\"\n\
        \"0x10\",\"      LDG.E R2, desc[UR4][R2.64]\",\"9\",\"2048\"\n";

    #[test]
    fn a_source_page_reads_per_launch_with_repeats_folded() {
        let launches = read_source_csv(PAGE.as_bytes()).expect("reads");
        assert_eq!(launches.len(), 2, "the repeated block is the same launch");
        let l = &launches[0];
        assert_eq!(l.instructions.len(), 2);
        let ld = &l.instructions[0];
        assert_eq!(ld.address, 0x10);
        assert_eq!(ld.sass.as_deref(), Some("LDG.E R2, desc[UR4][R2.64]"));
        assert_eq!(ld.inst_executed, Some(1024.0));
        assert_eq!(ld.l2_sectors_global_excessive, Some(96.0));
        assert_eq!(ld.stalls.get("long_scoreboard"), Some(&6.0));
        assert_eq!(ld.top_stall(), Some(("long_scoreboard", 6.0)));
        assert_eq!(l.instructions[1].l2_sectors_global_excessive, None);
        assert_eq!(launches[1].launch, 1);
        let pick = longest(&[&launches[0], &launches[1]]).expect("one");
        assert_eq!(pick.launch, 1, "more instructions executed");
        assert_eq!(l.hot_spots(1)[0].address, 0x10);
        let json = serde_json::to_string(ld).expect("json");
        assert!(
            json.starts_with("{\"address\":\"0x10\",\"sass\":"),
            "{json}"
        );
    }

    #[test]
    fn rows_that_are_no_instruction_and_endless_cells_are_refused_by_line() {
        let header = "\"Kernel Name\",\"k\"\n\"Address\",\"Source\",\"# Samples\"\n";
        let cases: &[(String, u64, &str)] = &[
            (
                format!("{header}\"a\"\n"),
                3,
                "a row of 1 cell(s) under a header of 3",
            ),
            (
                format!("{header}\"a\",\"NOP\",\"1\"\n"),
                3,
                "\"a\" that is not an address",
            ),
            (
                format!(
                    "{header}\"0x10\",\"NOP\",\"1\"\n\"0x20\",\"{}",
                    "x".repeat(5 << 20)
                ),
                4,
                "longer than 4096 KiB",
            ),
            (
                format!("{header}{}", "y".repeat(5 << 20)),
                3,
                "longer than 4096 KiB",
            ),
        ];
        for (page, line, words) in cases {
            match read_source_csv(page.as_bytes()) {
                Err(e @ NcuError::NotASourceRow { .. }) => {
                    let text = e.to_string();
                    assert!(text.starts_with(&format!("line {line}: ")), "{text}");
                    assert!(text.contains(words), "{text}");
                }
                other => panic!("{words}: {other:?}"),
            }
        }
    }

    #[test]
    fn launches_are_handed_on_whole_and_one_of_too_many_instructions_is_refused() {
        let mut seen = Vec::new();
        read_source_csv_from(PAGE.as_bytes(), &mut |l| seen.push(l.instructions.len()))
            .expect("reads");
        assert_eq!(seen, [2, 1], "the repeat folded, each launch whole");
        let mut page = String::from("\"Kernel Name\",\"k\"\n\"Address\",\"Source\"\n");
        for i in 0..=MAX_INSTRUCTIONS {
            page.push_str(&format!("\"0x{i:x}\",\"N\"\n"));
        }
        let err = read_source_csv(page.as_bytes()).expect_err("too many");
        assert!(
            err.to_string()
                .starts_with(&format!("line {}: ", MAX_INSTRUCTIONS + 3)),
            "{err}"
        );
    }

    #[test]
    fn bad_source_pages_are_errors_naming_the_line() {
        assert!(matches!(read_source_csv(b""), Err(NcuError::Empty)));
        assert!(matches!(
            read_source_csv(b"\"ID\",\"x\"\n"),
            Err(NcuError::NotAnExport { line: 1, .. })
        ));
        assert!(matches!(
            read_source_csv(b"\"Kernel Name\",\"k\"\n\"Source\"\n"),
            Err(NcuError::NotAnExport { line: 2, .. })
        ));
    }
}
