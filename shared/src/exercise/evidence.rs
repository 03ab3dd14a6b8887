//! Why a kernel's DRAM bytes differ from the bytes it asks for, told from its own counters.
//!
//! Two mechanisms separate the columns: traffic the hand count never sees raises DRAM/ask
//! (32-byte sectors fetched for a few useful bytes, reads no load asked for), and reuse the
//! caches capture lowers it (L1 and L2 hits, a working set that fits in L2). Each
//! [`Finding`] is one of these, with the kernel's numbers, and says which way it pushes.

use crate::analysis::figures::KernelFigures;
use crate::analysis::metrics::{self, SECTOR_BYTES};
use crate::model::artifact::{DeviceInfo, KernelRecord, LaunchCounters};
use crate::model::counters as c;
use crate::model::roofline::ratio;
use crate::text::format::{fmt_si, sig3};

use super::direction::{Direction, NEAR_HIGH, NEAR_LOW};
use super::figure::{element_bytes, ideal_sectors_per_request, mib};

/// L1 bytes per asked byte above which the warps touched sectors they did not use.
pub const WASTE_RATIO: f64 = 1.25;
/// L1 bytes per asked byte below which repeated addresses were merged into fewer requests.
pub const MERGED_RATIO: f64 = 0.8;
/// An L1 hit rate at or above this (%) counts as reuse.
pub const REUSE_HIT_PCT: f64 = 50.0;
/// L2 bytes per DRAM byte at or above which L2 counts as having saved DRAM accesses (a
/// stream passes about 1.5: its sectors on the way in and the fills from DRAM).
pub const REUSE_L2_PER_DRAM: f64 = 2.0;
/// DRAM reads above what the global loads touched, as a share of the asked bytes, that count
/// as reads no load asked for.
pub const EXTRA_READ_SHARE: f64 = 0.05;
/// DRAM writes below this share of the bytes the stores touched count as left in L2.
pub const WRITES_KEPT_SHARE: f64 = 0.1;
/// DRAM bytes above this many L2 sizes count as streaming through L2.
pub const STREAM_L2_TIMES: f64 = 4.0;

/// The counters one explanation is built from, for one kernel, summed over the launches its
/// figures come from ([`metrics::reference_launches`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    /// Asked bytes.
    pub ask_bytes: Option<f64>,
    /// DRAM bytes, read plus written.
    pub dram_bytes: Option<f64>,
    /// DRAM bytes read.
    pub dram_read_bytes: Option<f64>,
    /// DRAM bytes written.
    pub dram_write_bytes: Option<f64>,
    /// Global-load sectors at L1/TEX x 32.
    pub load_bytes: Option<f64>,
    /// Global-store sectors at L1/TEX x 32.
    pub store_bytes: Option<f64>,
    /// Global-load sectors per request.
    pub load_sectors_per_request: Option<f64>,
    /// Global-store sectors per request.
    pub store_sectors_per_request: Option<f64>,
    /// The fewest sectors per request for the hand count's element width.
    pub ideal_sectors_per_request: Option<f64>,
    /// L1/TEX hit rate, %.
    pub l1_hit_pct: Option<f64>,
    /// L2 hit rate, %.
    pub l2_hit_pct: Option<f64>,
    /// Bytes through L2.
    pub l2_bytes: Option<f64>,
    /// The device's L2 size, bytes.
    pub l2_cache_bytes: Option<f64>,
}

fn sum(launches: &[LaunchCounters], counter: c::Counter) -> Option<f64> {
    metrics::sum_present(launches, &[counter])
}

impl Evidence {
    /// The evidence of kernel `fig` (`kernel` is its record) on `device`.
    pub fn of(
        kernel: Option<&KernelRecord>,
        fig: &KernelFigures,
        device: Option<&DeviceInfo>,
    ) -> Evidence {
        let launches = kernel.map(metrics::reference_launches).unwrap_or_default();
        let ld_sectors = sum(launches, c::L1_SECTORS_GLOBAL_LD);
        let st_sectors = sum(launches, c::L1_SECTORS_GLOBAL_ST);
        let per_request = |sectors: Option<f64>, requests: c::Counter| {
            sectors
                .zip(sum(launches, requests))
                .and_then(|(s, r)| ratio(s, r))
        };
        Evidence {
            ask_bytes: fig.row.ask_bytes,
            dram_bytes: fig.row.dram_bytes,
            dram_read_bytes: fig.flows.dram_read_bytes,
            dram_write_bytes: fig.flows.dram_write_bytes,
            load_bytes: ld_sectors.map(|s| s * SECTOR_BYTES),
            store_bytes: st_sectors.map(|s| s * SECTOR_BYTES),
            load_sectors_per_request: per_request(ld_sectors, c::L1_REQUESTS_GLOBAL_LD),
            store_sectors_per_request: per_request(st_sectors, c::L1_REQUESTS_GLOBAL_ST),
            ideal_sectors_per_request: element_bytes(kernel).map(ideal_sectors_per_request),
            l1_hit_pct: fig.hit_rates.l1_pct,
            l2_hit_pct: fig.hit_rates.l2_pct,
            l2_bytes: fig.row.l2_bytes,
            l2_cache_bytes: device.and_then(|d| d.l2_bytes).map(|b| b as f64),
        }
    }

    /// Global bytes the warps touched at L1 (load plus store sectors x 32).
    pub fn l1_global_bytes(&self) -> Option<f64> {
        match (self.load_bytes, self.store_bytes) {
            (None, None) => None,
            (l, s) => Some(l.unwrap_or(0.0) + s.unwrap_or(0.0)),
        }
    }

    /// DRAM over asked bytes.
    pub fn dram_per_ask(&self) -> Option<f64> {
        ratio(self.dram_bytes?, self.ask_bytes?)
    }
}

/// Which way a finding moves DRAM/ask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Push {
    /// It adds DRAM traffic the hand count does not have.
    Up,
    /// It removes DRAM traffic the hand count has.
    Down,
    /// It moves neither way: the kernel streams, or uses whole sectors.
    Neither,
}

/// One mechanism found in a kernel's counters, with its numbers.
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    /// The warps touched more bytes at L1 than the kernel asks for: sectors fetched for a
    /// few useful bytes each.
    SectorWaste {
        /// L1 global bytes over asked bytes.
        l1_per_ask: f64,
        /// Load sectors per request.
        load: Option<f64>,
        /// Store sectors per request.
        store: Option<f64>,
        /// The fewest per request for the element width.
        ideal: Option<f64>,
    },
    /// The warps touched fewer bytes at L1 than asked: lanes reading one address share
    /// one request.
    Merged {
        /// L1 global bytes over asked bytes.
        l1_per_ask: f64,
    },
    /// Every fetched sector was used: L1 saw about the asked bytes.
    WholeSectors {
        /// L1 global bytes over asked bytes.
        l1_per_ask: f64,
    },
    /// L1 served much of the traffic.
    L1Reuse {
        /// L1 hit rate, %.
        hit_pct: f64,
    },
    /// L2 served much of the traffic.
    L2Reuse {
        /// L2 hit rate, %.
        hit_pct: f64,
        /// L2 bytes over DRAM bytes.
        l2_per_dram: Option<f64>,
    },
    /// L2 saved few DRAM accesses: little more than the DRAM traffic went through it.
    LittleL2Reuse {
        /// L2 hit rate, %.
        hit_pct: f64,
        /// L2 bytes over DRAM bytes.
        l2_per_dram: Option<f64>,
    },
    /// Everything that came from DRAM fits in L2 at once.
    FitsInL2 {
        /// DRAM bytes.
        dram_bytes: f64,
        /// L2 size.
        l2_cache_bytes: f64,
    },
    /// DRAM moved many L2 sizes: data streams through L2 and is gone before a late reuse.
    StreamsThroughL2 {
        /// DRAM bytes.
        dram_bytes: f64,
        /// L2 size.
        l2_cache_bytes: f64,
    },
    /// DRAM read more than every global load touched at L1.
    ExtraReads {
        /// DRAM bytes read.
        dram_read_bytes: f64,
        /// Global-load sectors x 32.
        load_bytes: f64,
        /// Global-store sectors x 32, when known.
        store_bytes: Option<f64>,
    },
    /// DRAM wrote far less than the stores touched: the results were still in L2 when the
    /// kernel ended.
    WritesKeptInL2 {
        /// DRAM bytes written.
        dram_write_bytes: f64,
        /// Global-store sectors x 32.
        store_bytes: f64,
    },
}

fn pct(v: f64) -> String {
    format!("{v:.1} %")
}

fn times(v: f64) -> String {
    format!("{} x", sig3(v))
}

impl Finding {
    /// Which way it moves DRAM/ask.
    pub fn push(&self) -> Push {
        match self {
            Finding::SectorWaste { .. } | Finding::ExtraReads { .. } => Push::Up,
            Finding::Merged { .. }
            | Finding::L1Reuse { .. }
            | Finding::L2Reuse { .. }
            | Finding::FitsInL2 { .. }
            | Finding::WritesKeptInL2 { .. } => Push::Down,
            Finding::WholeSectors { .. }
            | Finding::LittleL2Reuse { .. }
            | Finding::StreamsThroughL2 { .. } => Push::Neither,
        }
    }

    /// A short name of the mechanism.
    pub fn title(&self) -> &'static str {
        match self {
            Finding::SectorWaste { .. } => "sector waste",
            Finding::Merged { .. } => "merged requests",
            Finding::WholeSectors { .. } => "whole sectors",
            Finding::L1Reuse { .. } => "L1 reuse",
            Finding::L2Reuse { .. } => "L2 reuse",
            Finding::LittleL2Reuse { .. } => "little L2 reuse",
            Finding::FitsInL2 { .. } => "working set in L2",
            Finding::StreamsThroughL2 { .. } => "working set past L2",
            Finding::ExtraReads { .. } => "reads no load asked for",
            Finding::WritesKeptInL2 { .. } => "writes kept in L2",
        }
    }

    /// The finding in one sentence, with the kernel's numbers.
    pub fn text(&self) -> String {
        match self {
            Finding::SectorWaste {
                l1_per_ask,
                load,
                store,
                ideal,
            } => sector_waste_text(*l1_per_ask, *load, *store, *ideal),
            Finding::Merged { l1_per_ask } => format!(
                "L1 saw only {} the asked bytes: lanes of a warp reading the same address share one request, which the hand count charges once per thread.",
                times(*l1_per_ask)
            ),
            Finding::WholeSectors { l1_per_ask } => format!(
                "L1 saw {} the asked bytes: the warps used every sector they fetched, so no waste raises the count.",
                times(*l1_per_ask)
            ),
            Finding::L1Reuse { hit_pct } => format!(
                "L1 served {} of the sectors (L1/TEX Hit Rate): re-reads that never left the SM.",
                pct(*hit_pct)
            ),
            Finding::L2Reuse {
                hit_pct,
                l2_per_dram,
            } => l2_reuse_text(*hit_pct, *l2_per_dram),
            Finding::LittleL2Reuse {
                hit_pct,
                l2_per_dram,
            } => match l2_per_dram {
                Some(r) => format!(
                    "Only {} the DRAM traffic went through L2 (L2 Hit Rate {}): it saved few DRAM accesses.",
                    times(*r),
                    pct(*hit_pct)
                ),
                None => format!(
                    "L2 hit only {} of its sectors: it saved few DRAM accesses.",
                    pct(*hit_pct)
                ),
            },
            Finding::FitsInL2 {
                dram_bytes,
                l2_cache_bytes,
            } => format!(
                "Everything it fetched from DRAM, {}, fits in the {} L2 at once, so each re-read after the first fetch can hit.",
                fmt_si(*dram_bytes, "B"),
                mib(*l2_cache_bytes)
            ),
            Finding::StreamsThroughL2 {
                dram_bytes,
                l2_cache_bytes,
            } => format!(
                "It moved {} through DRAM, {} the {} L2: data streams through L2 and is evicted before a late reuse.",
                fmt_si(*dram_bytes, "B"),
                times(dram_bytes / l2_cache_bytes),
                mib(*l2_cache_bytes)
            ),
            Finding::ExtraReads {
                dram_read_bytes,
                load_bytes,
                store_bytes,
            } => extra_reads_text(*dram_read_bytes, *load_bytes, *store_bytes),
            Finding::WritesKeptInL2 {
                dram_write_bytes,
                store_bytes,
            } => format!(
                "DRAM wrote {} of the {} the stores touched: the results were still in L2 when the kernel ended.",
                fmt_si(*dram_write_bytes, "B"),
                fmt_si(*store_bytes, "B")
            ),
        }
    }
}

/// [`Finding::SectorWaste`]'s sentence: L1 traffic per asked byte, the sectors per load and
/// store request, and the ideal for consecutive values when the worst is above it.
fn sector_waste_text(
    l1_per_ask: f64,
    load: Option<f64>,
    store: Option<f64>,
    ideal: Option<f64>,
) -> String {
    let mut s = format!(
        "The warps touched {} the asked bytes at L1",
        times(l1_per_ask)
    );
    let per: Vec<String> = [(load, "load"), (store, "store")]
        .into_iter()
        .filter_map(|(v, what)| v.map(|v| format!("{} sectors per {what} request", sig3(v))))
        .collect();
    if !per.is_empty() {
        s.push_str(&format!(": {}", per.join(", ")));
        let worst = load.unwrap_or(0.0).max(store.unwrap_or(0.0));
        if let Some(i) = ideal.filter(|i| worst > *i) {
            s.push_str(&format!(
                ", against {} for a warp of consecutive values of this width",
                sig3(i)
            ));
        }
    }
    s.push_str(if l1_per_ask >= 2.0 {
        ". Each 32-byte sector was fetched for a few useful bytes."
    } else {
        ". Some sectors were fetched for only part of their bytes."
    });
    s
}

/// [`Finding::L2Reuse`]'s sentence: the L2 hit rate, and the L2 traffic per DRAM byte.
fn l2_reuse_text(hit_pct: f64, l2_per_dram: Option<f64>) -> String {
    let mut s = format!("L2 served {} of its sectors (L2 Hit Rate)", pct(hit_pct));
    if let Some(r) = l2_per_dram {
        s.push_str(&format!(": {} the DRAM traffic went through L2", times(r)));
    }
    s.push('.');
    s
}

/// [`Finding::ExtraReads`]'s sentence: DRAM reads beyond the loads, and the stores that
/// explain them when there are any.
fn extra_reads_text(dram_read_bytes: f64, load_bytes: f64, store_bytes: Option<f64>) -> String {
    let mut s = format!(
        "DRAM read {}, {} more than every global load touched at L1 ({}): reads no load asked for",
        fmt_si(dram_read_bytes, "B"),
        fmt_si(dram_read_bytes - load_bytes, "B"),
        fmt_si(load_bytes, "B")
    );
    if let Some(st) = store_bytes {
        s.push_str(&format!(
            ". Stores touched {}: partly written sectors are filled from DRAM before they are written back (write-allocate), and DRAM fetches more than one 32-byte sector per miss",
            fmt_si(st, "B")
        ));
    }
    s.push('.');
    s
}

/// Every finding the evidence supports, in a fixed order: sectors, reuse, working set,
/// reads and writes.
pub fn findings(e: &Evidence) -> Vec<Finding> {
    let mut out = Vec::new();
    let l1_per_ask = e
        .l1_global_bytes()
        .zip(e.ask_bytes)
        .and_then(|(l, a)| ratio(l, a));
    if let Some(r) = l1_per_ask {
        out.push(if r > WASTE_RATIO {
            Finding::SectorWaste {
                l1_per_ask: r,
                load: e.load_sectors_per_request,
                store: e.store_sectors_per_request,
                ideal: e.ideal_sectors_per_request,
            }
        } else if r < MERGED_RATIO {
            Finding::Merged { l1_per_ask: r }
        } else {
            Finding::WholeSectors { l1_per_ask: r }
        });
    }
    if let Some(h) = e.l1_hit_pct.filter(|h| *h >= REUSE_HIT_PCT) {
        out.push(Finding::L1Reuse { hit_pct: h });
    }
    if let Some(h) = e.l2_hit_pct {
        let l2_per_dram = e.l2_bytes.zip(e.dram_bytes).and_then(|(l, d)| ratio(l, d));
        let reuse = match l2_per_dram {
            Some(r) => r >= REUSE_L2_PER_DRAM,
            None => h >= REUSE_HIT_PCT,
        };
        out.push(if reuse {
            Finding::L2Reuse {
                hit_pct: h,
                l2_per_dram,
            }
        } else {
            Finding::LittleL2Reuse {
                hit_pct: h,
                l2_per_dram,
            }
        });
    }
    if let (Some(d), Some(l2)) = (e.dram_bytes, e.l2_cache_bytes.filter(|b| *b > 0.0)) {
        if d <= l2 {
            out.push(Finding::FitsInL2 {
                dram_bytes: d,
                l2_cache_bytes: l2,
            });
        } else if d > STREAM_L2_TIMES * l2 {
            out.push(Finding::StreamsThroughL2 {
                dram_bytes: d,
                l2_cache_bytes: l2,
            });
        }
    }
    if let (Some(read), Some(load), Some(ask)) = (
        e.dram_read_bytes,
        e.load_bytes.filter(|b| *b > 0.0),
        e.ask_bytes,
    ) {
        if read - load > EXTRA_READ_SHARE * ask {
            out.push(Finding::ExtraReads {
                dram_read_bytes: read,
                load_bytes: load,
                store_bytes: e.store_bytes.filter(|b| *b > 0.0),
            });
        }
    }
    if let (Some(written), Some(stored)) = (e.dram_write_bytes, e.store_bytes.filter(|b| *b > 0.0))
    {
        if written < WRITES_KEPT_SHARE * stored {
            out.push(Finding::WritesKeptInL2 {
                dram_write_bytes: written,
                store_bytes: stored,
            });
        }
    }
    out
}

/// Why a kernel's DRAM/ask is where it is: a summary line and the findings behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// DRAM over asked bytes.
    pub dram_per_ask: f64,
    /// The direction it falls in.
    pub direction: Direction,
    /// One line: what the measured ratio says, and which findings account for it.
    pub summary: String,
    /// The findings, those that push the measured way first.
    pub findings: Vec<Finding>,
}

/// The explanation of a kernel's DRAM/ask from its evidence; `None` without both byte counts.
pub fn explain(e: &Evidence) -> Option<Explanation> {
    let r = e.dram_per_ask()?;
    let direction = Direction::of(r);
    let found = findings(e);
    let ups = found.iter().filter(|f| f.push() == Push::Up).count();
    let downs = found.iter().filter(|f| f.push() == Push::Down).count();
    let names = |push: Push, found: &[Finding]| {
        found
            .iter()
            .filter(|f| f.push() == push)
            .map(Finding::title)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let summary = match direction {
        Direction::Above if ups > 0 => format!(
            "DRAM moved {} what the kernel asks for. Raising it: {}.",
            times(r),
            names(Push::Up, &found)
        ),
        Direction::Above => format!(
            "DRAM moved {} what the kernel asks for; none of these counters shows where the extra bytes came from.",
            times(r)
        ),
        Direction::Below if downs > 0 => format!(
            "DRAM moved {:.4} of what the kernel asks for: the rest was served on chip. Lowering it: {}.",
            r,
            names(Push::Down, &found)
        ),
        Direction::Below => format!(
            "DRAM moved {r:.4} of what the kernel asks for; none of these counters shows the reuse."
        ),
        Direction::Near if ups > 0 && downs > 0 => format!(
            "DRAM moved about what the kernel asks for ({r:.4}, inside {NEAR_LOW} to {NEAR_HIGH}). Raising it: {}; lowering it: {}; the two nearly cancel.",
            names(Push::Up, &found),
            names(Push::Down, &found)
        ),
        Direction::Near if ups + downs > 0 => format!(
            "DRAM moved about what the kernel asks for ({r:.4}, inside {NEAR_LOW} to {NEAR_HIGH}). Moving it: {}, but not out of the band.",
            if ups > 0 { names(Push::Up, &found) } else { names(Push::Down, &found) }
        ),
        Direction::Near => format!(
            "DRAM moved about what the kernel asks for ({r:.4}, inside {NEAR_LOW} to {NEAR_HIGH}): each asked byte crossed DRAM about once, with no waste and no reuse large enough to move it."
        ),
    };
    // The findings that push the measured way first (for a ratio near 1, those that push
    // at all), the others after, each group in its order.
    let (first, rest): (Vec<Finding>, Vec<Finding>) =
        found.into_iter().partition(|f| match direction {
            Direction::Above => f.push() == Push::Up,
            Direction::Below => f.push() == Push::Down,
            Direction::Near => f.push() != Push::Neither,
        });
    let found: Vec<Finding> = first.into_iter().chain(rest).collect();
    Some(Explanation {
        dram_per_ask: r,
        direction,
        summary,
        findings: found,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn streaming() -> Evidence {
        // The coalesced vector add of the H200 sample: 3 x 4 x 2^27 bytes asked.
        Evidence {
            ask_bytes: Some(1_610_612_736.0),
            dram_bytes: Some(1_598_619_904.0),
            dram_read_bytes: Some(1.07e9),
            dram_write_bytes: Some(5.25e8),
            load_bytes: Some(1_073_741_824.0),
            store_bytes: Some(536_870_912.0),
            load_sectors_per_request: Some(4.0),
            store_sectors_per_request: Some(4.0),
            ideal_sectors_per_request: Some(4.0),
            l1_hit_pct: Some(0.0),
            l2_hit_pct: Some(33.6),
            l2_bytes: Some(2.43e9),
            l2_cache_bytes: Some(62_914_560.0),
        }
    }

    #[test]
    fn a_stream_uses_whole_sectors_and_streams_through_l2() {
        let e = streaming();
        let f = findings(&e);
        let titles: Vec<&str> = f.iter().map(Finding::title).collect();
        assert_eq!(
            titles,
            ["whole sectors", "little L2 reuse", "working set past L2"]
        );
        assert!(
            f[1].text().starts_with("Only 1.52 x the DRAM traffic"),
            "{}",
            f[1].text()
        );
        let x = explain(&e).expect("explained");
        assert_eq!(x.direction, Direction::Near);
        assert!(x.summary.contains("0.9926"), "{}", x.summary);
    }

    #[test]
    fn strided_traffic_is_waste_and_extra_reads() {
        let e = Evidence {
            dram_bytes: Some(25_767_497_728.0),
            dram_read_bytes: Some(21.5e9),
            dram_write_bytes: Some(4.29e9),
            load_bytes: Some(8.59e9),
            store_bytes: Some(4.29e9),
            load_sectors_per_request: Some(32.0),
            store_sectors_per_request: Some(32.0),
            l2_hit_pct: Some(22.85),
            ..streaming()
        };
        let x = explain(&e).expect("explained");
        assert_eq!(x.direction, Direction::Above);
        assert_eq!(x.findings[0].title(), "sector waste");
        assert_eq!(x.findings[0].push(), Push::Up);
        assert!(x
            .findings
            .iter()
            .any(|f| f.title() == "reads no load asked for"));
        assert!(x.findings[0]
            .text()
            .contains("32.0 sectors per load request"));
        assert!(x.summary.starts_with("DRAM moved 16.0 x"), "{}", x.summary);
    }

    #[test]
    fn a_cache_resident_kernel_is_reuse_and_kept_writes() {
        // The naive 512^3 matmul of the H200 sample.
        let e = Evidence {
            ask_bytes: Some(1_074_790_400.0),
            dram_bytes: Some(2_102_784.0),
            dram_read_bytes: Some(2_102_784.0),
            dram_write_bytes: Some(0.0),
            load_bytes: Some(536_870_912.0),
            store_bytes: Some(1_048_576.0),
            l1_hit_pct: Some(88.3),
            l2_hit_pct: Some(100.0),
            l2_bytes: Some(54_938_848.0),
            ..streaming()
        };
        let x = explain(&e).expect("explained");
        assert_eq!(x.direction, Direction::Below);
        let titles: Vec<&str> = x.findings.iter().map(Finding::title).collect();
        for t in [
            "merged requests",
            "L1 reuse",
            "L2 reuse",
            "working set in L2",
            "writes kept in L2",
        ] {
            assert!(titles.contains(&t), "{t}: {titles:?}");
        }
        assert!(x.findings.iter().all(|f| f.push() == Push::Down));
        assert!(x.summary.contains("0.0020"), "{}", x.summary);
    }

    #[test]
    fn no_counters_no_findings() {
        let e = Evidence {
            ask_bytes: Some(10.0),
            dram_bytes: Some(30.0),
            ..Evidence::default()
        };
        assert!(findings(&e).is_empty());
        let x = explain(&e).expect("explained");
        assert!(
            x.summary.contains("none of these counters"),
            "{}",
            x.summary
        );
        assert_eq!(explain(&Evidence::default()), None);
    }
}
