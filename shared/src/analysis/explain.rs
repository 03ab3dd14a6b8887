//! `capture explain`: a short, stable answer per kernel for people and agents, with the
//! counters behind it. Each explanation is built from the kernel's bytes-table row
//! ([`crate::analysis::table`]), its verdict per launch group ([`crate::analysis::groups`]),
//! its roof ([`crate::analysis::figures::roof_under_at_run_clock`]) and ncu's ranked rules
//! ([`crate::analysis::findings`]); nothing here works a figure of its own.
//!
//! The contract ([`Explanation`], its JSON Schema from [`Explanation::json_schema`],
//! `docs/explain.md`): a `version`, at most [`MAX_KERNEL_JSON_BYTES`] of JSON per kernel,
//! and `evidence` that quotes only values the input holds: the raw metrics of one launch
//! (the longest of the group the verdict comes from), by the names and in the units the
//! input carries them, never a sum or a mean.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::analysis::bound::PIPES;
use crate::analysis::figures::{roof_under_at_run_clock, KernelFigures};
use crate::analysis::groups::{kernel_verdict, KernelVerdict};
use crate::analysis::metrics;
use crate::analysis::table::{BytesTable, TableRow, TimeSource};
use crate::analysis::work;
use crate::model::artifact::{Artifact, LaunchCounters, SampledCount};
use crate::model::counters::{self as c, Counter};
use crate::model::roofline::Bound;
use crate::model::work_kind::Work;
use crate::text::escape;

/// The version of the explain JSON; a change to its fields bumps it.
pub const VERSION: u32 = 1;

/// The most JSON one kernel's explanation may take, bytes (compact form).
pub const MAX_KERNEL_JSON_BYTES: usize = 2048;

/// Rules listed per kernel, by estimated speedup.
pub const TOP_RULES: usize = 3;

/// Launch groups listed per kernel, most time first.
pub const TOP_GROUPS: usize = 3;

/// Characters of a full name kept before it is cut (C++ template names run to kilobytes).
const NAME_CHARS: usize = 240;

/// Every kernel explained, most time first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Explanation {
    /// The version of this format (1; a change of its fields bumps it).
    pub version: u32,
    /// Device name, when the input has it.
    pub device: Option<String>,
    /// Kernels in the input, before `--kernel` and `--top` chose.
    pub kernels_in_input: usize,
    /// The kernels chosen, most time first.
    pub kernels: Vec<KernelExplanation>,
}

/// One kernel: what bounds it, how far from its roof, what ncu suggests, and the counters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct KernelExplanation {
    /// Short name, distinct within the input (the table's `short_name`).
    pub short_name: String,
    /// Full (demangled) name, cut to 240 characters when longer (`name_cut`).
    pub name: String,
    /// Whether `name` was cut.
    pub name_cut: bool,
    /// Launches summed.
    pub launches: usize,
    /// Time, ms: event median x launches, else ncu's summed duration (`time_source`).
    pub time_ms: Option<f64>,
    /// Where `time_ms` came from: `event_median` or `ncu_duration`.
    pub time_source: Option<TimeSource>,
    /// Share of the input's summed kernel time, 0 to 1.
    pub time_share: Option<f64>,
    /// Speed-of-Light verdict: `compute-bound`, `memory-bound`, `balanced`, `latency-bound`.
    pub verdict: Option<String>,
    /// Whether the kernel's launch groups disagree (`groups` lists them).
    pub verdict_mixed: bool,
    /// The unit that bounds it: a pipe (`tensor`, `fma`, ...), a level (`dram`, `l2`, `l1`),
    /// `sm`, `memory` or `latency`.
    pub bound_by: Option<String>,
    /// That unit's utilization, % of its peak (for `latency`, the larger SOL figure).
    pub pct_of_peak: Option<f64>,
    /// Why, in one sentence.
    pub reason: Option<String>,
    /// The roof at its DRAM intensity and how close it runs to it.
    pub roof: Option<Roof>,
    /// The kind of work it did most of (`fp32`, `tensor_bf16`, ...).
    pub work: Option<String>,
    /// ncu's rules of its longest launch, largest estimated speedup first, at most 3.
    pub rules: Vec<Rule>,
    /// In a sampled profile, how many of its launches were measured: `{measured, launches}`.
    pub sampled: Option<SampledCount>,
    /// What to distrust in the figures above.
    pub flags: Vec<Flag>,
    /// Advice the verdict does not give (the table's `advice`: an FP32 matrix multiply the
    /// tensor cores would run in TF32); absent where none applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub advice: Option<String>,
    /// ncu's own SOLBottleneck verdict, where the input has its rule results.
    pub ncu: Option<NcuOpinion>,
    /// Its launch groups when they disagree, most time first, at most 3.
    pub groups: Vec<Group>,
    /// Launch groups in all (0 for a kernel of one group).
    pub groups_total: usize,
    /// The launch whose counters `evidence` quotes (ncu's launch `ID`).
    pub evidence_launch: Option<u64>,
    /// The input's values the statements above were made from.
    pub evidence: Vec<Evidence>,
}

/// The roof a kernel sits under at its DRAM intensity.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Roof {
    /// The kind of work of the roof (`fp32`, `tensor_bf16`, ...).
    pub kind: String,
    /// Which side of the ridge: `memory` (the sloped roof) or `compute` (the flat one).
    pub side: String,
    /// Achieved over attainable at its intensity, %, the compute roof at `sm_clock_hz`
    /// where that is known.
    pub pct_of_roof: Option<f64>,
    /// Whether the ceilings are measured (`capture run`) rather than theoretical.
    pub measured: bool,
    /// The SM clock the roof is at, MHz, whole (2 KB a kernel is tight): the one ncu
    /// recorded for the kernel's launches (`sm__cycles_elapsed.avg.per_second`); absent
    /// where the roof stays at its peak's clock (an event-timed kernel).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sm_clock_mhz: Option<u32>,
    /// The SM clock of the compute peak (the boost clock attribute, or `capture run`'s held
    /// clock for a measured roof), MHz, whole, beside `sm_clock_mhz`; absent without it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub peak_sm_clock_mhz: Option<u32>,
    /// Achieved over the roof at `peak_sm_clock_hz`, %, where moving the roof to
    /// `sm_clock_hz` changed it; absent left of both ridges (the bandwidth roof).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct_of_peak_clock_roof: Option<f64>,
}

/// One ncu rule finding.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// ncu's rule identifier (`SOLBottleneck`).
    pub id: String,
    /// Its one-line title, else the message's first sentence cut to 80 characters.
    pub title: String,
    /// ncu's estimated speedup, % of the kernel's time.
    pub speedup_pct: Option<f64>,
}

/// Something to distrust, and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Flag {
    /// What: `above_roof`, `below_floor`, `missing_counters`, `derived_from_rates`,
    /// `check_failed`.
    pub id: FlagId,
    /// Why, in one line.
    pub detail: String,
}

/// The kinds of [`Flag`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FlagId {
    /// The point is above its roof: a counter or the time is wrong.
    AboveRoof,
    /// The time is below the physical floor of its work on this GPU.
    BelowFloor,
    /// The CUDA-event time and ncu's duration of the same launches disagree.
    TimersDisagree,
    /// The kernel's counts contradict each other (DRAM bytes against L2 lookups, L1
    /// sectors against requests).
    CountersContradict,
    /// Counters a figure needs are missing: no verdict, or FLOPs a lower bound.
    MissingCounters,
    /// Figures derived from rates or per-cycle values, not the export's totals.
    DerivedFromRates,
    /// The kernel failed its CPU reference check.
    CheckFailed,
}

/// ncu's verdict beside ours.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NcuOpinion {
    /// ncu's verdict in this tool's words.
    pub verdict: String,
    /// ncu's title of its SOLBottleneck finding (`Small Grid`, ...).
    pub title: String,
    /// Whether ours is the same.
    pub agrees: bool,
}

/// One launch group of a kernel whose groups disagree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Group {
    /// Grid, block and shared memory in words.
    pub shape: String,
    /// Launches in it.
    pub launches: usize,
    /// Share of the kernel's time, 0 to 1.
    pub time_share: Option<f64>,
    /// Its verdict.
    pub verdict: Option<String>,
    /// The unit that bounds it.
    pub bound_by: Option<String>,
    /// That unit's utilization, % of its peak.
    pub pct_of_peak: Option<f64>,
}

/// One value of the input a statement was made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Evidence {
    /// The metric's name as the input carries it.
    pub metric: String,
    /// Its value in the launch `evidence_launch`, as the input holds it.
    pub value: f64,
    /// Its unit as the input holds it (an artifact and a report: base units).
    pub unit: String,
    /// The statement it backs.
    pub backs: Statement,
}

/// The statements of an explanation that evidence backs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Statement {
    /// `time_ms`.
    Time,
    /// `verdict` (the two Speed-of-Light figures).
    Verdict,
    /// `bound_by` and `pct_of_peak`.
    Unit,
    /// `roof` (its bytes and work).
    Roof,
}

/// Which kernels to explain.
#[derive(Clone, Copy, Default)]
pub struct Choice<'a> {
    /// Keep only the rows this accepts (`--kernel REGEX`); all when `None`.
    pub keep: Option<&'a dyn Fn(&TableRow) -> bool>,
    /// At most this many, most time first (`--top N`).
    pub top: Option<usize>,
}

/// The explanations of `artifact`'s kernels, whose bytes table is `table`
/// ([`crate::analysis::table::bytes_table`], rows still in artifact order), chosen by
/// `choice`, most time first.
pub fn explain(artifact: &Artifact, table: &BytesTable, choice: Choice<'_>) -> Explanation {
    let mut chosen: Vec<(usize, &TableRow)> = table
        .kernels
        .iter()
        .enumerate()
        .filter(|(_, r)| choice.keep.is_none_or(|keep| keep(r)))
        .collect();
    crate::order::sort_by(&mut chosen, |(_, a), (_, b)| {
        let t = |r: &TableRow| r.time_ms.unwrap_or(f64::NEG_INFINITY);
        t(b).total_cmp(&t(a))
    });
    if let Some(n) = choice.top {
        chosen.truncate(n);
    }
    Explanation {
        version: VERSION,
        device: table.device.clone(),
        kernels_in_input: table.kernels.len(),
        kernels: chosen
            .into_iter()
            .map(|(i, row)| explain_kernel(artifact, i, row))
            .collect(),
    }
}

/// The explanation of kernel `index` of `artifact`, whose table row is `row`.
pub fn explain_kernel(artifact: &Artifact, index: usize, row: &TableRow) -> KernelExplanation {
    let launches = artifact
        .kernels
        .get(index)
        .map(metrics::reference_launches)
        .unwrap_or_default();
    let kv = kernel_verdict(launches);
    let roof = artifact.kernels.get(index).and_then(|k| {
        let fig = KernelFigures::of(index, k, row.clone());
        roof_under_at_run_clock(artifact, &fig)
    });
    let cited = cited_launch(launches, &kv, row.verdict.as_deref());
    let (name, name_cut) = cut(&row.name, NAME_CHARS);
    let mut out = KernelExplanation {
        short_name: row.short_name.clone(),
        name,
        name_cut,
        launches: row.launches,
        time_ms: row.time_ms,
        time_source: row.time_source,
        time_share: row.time_share,
        verdict: row.verdict.clone(),
        verdict_mixed: row.verdict_mixed,
        bound_by: row.bound_by.as_ref().map(|b| b.unit.clone()),
        pct_of_peak: row.bound_by.as_ref().and_then(|b| b.pct_of_peak),
        reason: reason(row, &kv),
        roof: roof.as_ref().map(|(r, clocks)| Roof {
            kind: r.kind.key().to_string(),
            side: match r.bound {
                Bound::Memory => "memory",
                Bound::Compute => "compute",
            }
            .to_string(),
            pct_of_roof: r.pct_of_roof,
            measured: r.measured,
            sm_clock_mhz: clocks.clock_hz.map(whole_mhz),
            // Only beside the clock it was moved to: 2 KB a kernel is tight.
            peak_sm_clock_mhz: clocks.clock_hz.and(clocks.peak_clock_hz).map(whole_mhz),
            pct_of_peak_clock_roof: clocks.pct_of_peak_clock,
        }),
        work: row.precision.clone(),
        rules: rules(row),
        sampled: row.sampled,
        flags: Vec::new(),
        advice: row.advice.clone(),
        ncu: row.ncu_verdict.as_ref().map(|n| NcuOpinion {
            verdict: n.verdict.clone(),
            title: n.title.clone(),
            agrees: n.agrees,
        }),
        groups: groups(row),
        groups_total: row.groups.len(),
        evidence_launch: cited.map(|l| l.id),
        evidence: timing_evidence(artifact, index, row)
            .into_iter()
            .chain(
                cited
                    .map(|l| evidence(l, row, roof.as_ref().map(|(r, _)| r.kind)))
                    .into_iter()
                    .flatten(),
            )
            .collect(),
    };
    out.flags = flags(row, &out);
    fit(&mut out);
    out
}

/// The verdict's reason: for `latency-bound`, what holds it back; otherwise the two
/// Speed-of-Light figures against ncu's thresholds and the unit.
fn reason(row: &TableRow, kv: &KernelVerdict) -> Option<String> {
    row.latency_reason
        .clone()
        .or_else(|| kv.verdict.as_ref().map(|v| v.reason.clone()))
}

fn rules(row: &TableRow) -> Vec<Rule> {
    row.rules
        .iter()
        .take(TOP_RULES)
        .map(|f| Rule {
            id: f.rule.clone(),
            title: f.title.clone().unwrap_or_else(|| {
                let first = f.message.split(". ").next().unwrap_or_default();
                cut(first.trim_end_matches('.'), 80).0
            }),
            speedup_pct: f.speedup_pct,
        })
        .collect()
}

fn groups(row: &TableRow) -> Vec<Group> {
    row.groups
        .iter()
        .take(TOP_GROUPS)
        .map(|g| Group {
            shape: g.shape.clone(),
            launches: g.launches,
            time_share: g.time_share,
            verdict: g.verdict.clone(),
            bound_by: g.bound_by.as_ref().map(|b| b.unit.clone()),
            pct_of_peak: g.bound_by.as_ref().and_then(|b| b.pct_of_peak),
        })
        .collect()
}

fn flags(row: &TableRow, k: &KernelExplanation) -> Vec<Flag> {
    let mut out = Vec::new();
    let mut flag = |id, detail: String| {
        out.push(Flag {
            id,
            detail: cut(&detail, 200).0,
        })
    };
    if let Some(p) = k
        .roof
        .as_ref()
        .and_then(|r| r.pct_of_roof)
        .filter(|p| *p > 100.0)
    {
        flag(
            FlagId::AboveRoof,
            format!("runs at {p:.0}% of the roof at its intensity: a counter or the time is wrong"),
        );
    }
    if let Some(why) = &row.below_floor {
        flag(FlagId::BelowFloor, why.clone());
    }
    if let Some(why) = &row.timers_disagree {
        flag(FlagId::TimersDisagree, why.clone());
    }
    for why in &row.counters_contradict {
        flag(FlagId::CountersContradict, why.clone());
    }
    if row.verdict.is_none() {
        flag(
            FlagId::MissingCounters,
            format!(
                "no verdict: the input lacks {} or {}",
                c::SM_THROUGHPUT_PCT.name,
                c::MEMORY_THROUGHPUT_PCT.name
            ),
        );
    }
    if !row.flops_missing.is_empty() {
        flag(
            FlagId::MissingCounters,
            format!(
                "FP32 FLOPs a lower bound: missing {}",
                row.flops_missing.join(", ")
            ),
        );
    }
    if !row.derived_from_rates.is_empty() {
        flag(
            FlagId::DerivedFromRates,
            format!("derived from rates: {}", row.derived_from_rates.join(", ")),
        );
    }
    if row.check.as_deref() == Some("fail") {
        flag(FlagId::CheckFailed, "the CPU reference check failed".into());
    }
    out
}

/// The launch whose counters stand for the kernel's verdict: the longest (by ncu's
/// duration) of the group the verdict comes from, measured rather than scaled where the
/// group has one; the longest launch when there is no verdict.
fn cited_launch<'a>(
    launches: &'a [LaunchCounters],
    kv: &KernelVerdict,
    verdict: Option<&str>,
) -> Option<&'a LaunchCounters> {
    let members: Vec<usize> = kv
        .groups
        .iter()
        .zip(&kv.members)
        .find(|(g, _)| verdict.is_some() && g.verdict.as_deref() == verdict)
        .map_or_else(|| (0..launches.len()).collect(), |(_, m)| m.clone());
    let longest = |measured_only: bool| {
        members
            .iter()
            .filter_map(|i| launches.get(*i))
            .filter(|l| !measured_only || l.sampled_from.is_none())
            .max_by(|a, b| {
                let d = |l: &LaunchCounters| metrics::duration_ns(l).unwrap_or(0.0);
                d(a).total_cmp(&d(b))
            })
    };
    longest(true).or_else(|| longest(false))
}

/// The counters behind each statement, as the launch holds them (raw metrics only).
fn evidence(launch: &LaunchCounters, row: &TableRow, roof_kind: Option<Work>) -> Vec<Evidence> {
    let mut out: Vec<Evidence> = Vec::new();
    cite(&mut out, launch, c::GPU_TIME_DURATION.name, Statement::Time);
    // The Speed of Light as `metrics::speed_of_light` reads it: the raw counter, else the
    // details page's row (a details export alone has no raw page).
    if !cite(
        &mut out,
        launch,
        c::SM_THROUGHPUT_PCT.name,
        Statement::Verdict,
    ) {
        cite_row(&mut out, launch, metrics::SOL_SM_ROWS, Statement::Verdict);
    }
    if !cite(
        &mut out,
        launch,
        c::MEMORY_THROUGHPUT_PCT.name,
        Statement::Verdict,
    ) {
        cite_row(
            &mut out,
            launch,
            metrics::SOL_MEMORY_ROWS,
            Statement::Verdict,
        );
    }
    // The level a memory-bound kernel waits on is the first of its figures the launch has;
    // a pipe's figure is the larger of its counters.
    let unit = row.bound_by.as_ref().map(|b| b.unit.as_str());
    let is_level = matches!(unit, Some("dram" | "l2" | "l1"));
    for name in unit_counters(unit) {
        if is_level && out.iter().any(|e| e.backs == Statement::Unit) {
            break;
        }
        cite(&mut out, launch, name, Statement::Unit);
    }
    let rows = match unit {
        Some("dram") => metrics::SOL_DRAM_ROWS,
        Some("l2") => metrics::SOL_L2_ROWS,
        Some("l1") => metrics::SOL_L1_ROWS,
        _ => &[],
    };
    if !out.iter().any(|e| e.backs == Statement::Unit) {
        cite_row(&mut out, launch, rows, Statement::Unit);
    }
    if let Some(kind) = roof_kind {
        // DRAM bytes as `metrics::dram_bytes` reads them: read plus written, else the total.
        let has = |counter: Counter| launch.metrics.number(counter.name).is_some();
        if has(c::DRAM_BYTES_READ) && has(c::DRAM_BYTES_WRITE) {
            cite(&mut out, launch, c::DRAM_BYTES_READ.name, Statement::Roof);
            cite(&mut out, launch, c::DRAM_BYTES_WRITE.name, Statement::Roof);
        } else {
            cite(&mut out, launch, c::DRAM_BYTES.name, Statement::Roof);
        }
        for name in work_counters(launch, kind) {
            cite(&mut out, launch, &name, Statement::Roof);
        }
    }
    out
}

/// The artifact's event median behind a time taken from CUDA events (the field's path,
/// `timing.median_ms`, as the metric name).
fn timing_evidence(artifact: &Artifact, index: usize, row: &TableRow) -> Option<Evidence> {
    if row.time_source != Some(TimeSource::EventMedian) {
        return None;
    }
    let timing = artifact.kernels.get(index)?.timing.as_ref()?;
    Some(Evidence {
        metric: "timing.median_ms".into(),
        value: timing.median_ms,
        unit: "ms".into(),
        backs: Statement::Time,
    })
}

/// Adds metric `name` of `launch` to `out` as evidence for `backs`, once, where the launch
/// holds it as a number; whether it is in `out`.
fn cite(out: &mut Vec<Evidence>, launch: &LaunchCounters, name: &str, backs: Statement) -> bool {
    if out.iter().any(|e| e.metric == name) {
        return true;
    }
    let (Some(m), Some(value)) = (launch.metrics.get(name), launch.metrics.number(name)) else {
        return false;
    };
    out.push(Evidence {
        metric: name.to_string(),
        value,
        unit: m.unit.to_string(),
        backs,
    });
    true
}

/// Adds the first of the Speed-of-Light rows `names` of `launch`'s details page, in %, to
/// `out` as evidence for `backs` (a percentage is as the page prints it; other units are
/// converted on reading, so they are never cited).
fn cite_row(out: &mut Vec<Evidence>, launch: &LaunchCounters, names: &[&str], backs: Statement) {
    let found = names.iter().find_map(|name| {
        let value = metrics::section_metric(launch, Some(metrics::SOL_SECTION), name, Some("%"))?;
        Some((*name, value))
    });
    if let Some((name, value)) = found.filter(|(n, _)| !out.iter().any(|e| e.metric == *n)) {
        out.push(Evidence {
            metric: name.to_string(),
            value,
            unit: "%".into(),
            backs,
        });
    }
}

/// The counters a unit's utilization is read from ([`crate::analysis::bound`]).
fn unit_counters(unit: Option<&str>) -> Vec<&'static str> {
    let level = |counters: &[Counter]| counters.iter().map(|c| c.name).collect::<Vec<_>>();
    match unit {
        Some("dram") => level(&[c::DRAM_THROUGHPUT_PCT, c::GPU_DRAM_THROUGHPUT_PCT]),
        Some("l2") => level(&[c::L2_THROUGHPUT_PCT]),
        Some("l1") => level(&[c::L1_THROUGHPUT_PCT]),
        Some("sm") => level(&[c::SM_THROUGHPUT_PCT]),
        Some("memory") => level(&[c::MEMORY_THROUGHPUT_PCT]),
        Some(pipe) => PIPES
            .iter()
            .find(|p| p.key == pipe)
            .map(|p| p.counters.to_vec())
            .unwrap_or_default(),
        None => Vec::new(),
    }
}

/// The work counters of `kind` a launch holds as totals: the CUDA-core instruction
/// counters of a CUDA-core kind, the tensor family totals of a tensor kind; those that
/// read 0 count nothing and are left out.
fn work_counters(launch: &LaunchCounters, kind: Work) -> Vec<String> {
    if let Some(counters) = work::cuda_core_counters(kind) {
        return counters
            .iter()
            .filter(|(c, _)| launch.metrics.number(c.name).is_some_and(|v| v > 0.0))
            .map(|(c, _)| c.name.to_string())
            .collect();
    }
    launch
        .metrics
        .numbers()
        .filter(|(name, v)| {
            *v > 0.0
                && name
                    .strip_suffix(".sum")
                    .and_then(work::parse_tensor_name)
                    .is_some_and(|t| t.work == kind && t.sparse.is_none())
        })
        .map(|(name, _)| name.to_string())
        .take(2)
        .collect()
}

/// `s` cut to `chars` characters, ending in `…` when cut, and whether it was.
fn cut(s: &str, chars: usize) -> (String, bool) {
    match s.char_indices().nth(chars) {
        Some((at, _)) => (format!("{}…", &s[..at]), true),
        None => (s.to_string(), false),
    }
}

/// Shortens the free text of `k` until its JSON fits [`MAX_KERNEL_JSON_BYTES`]: the name,
/// the reason, the groups, the flags' details, the rules' titles (to 60 characters, then
/// 30), then all of them
/// further; evidence (at most 14 short entries) is kept whole. Strings of the input that
/// no real export has at such lengths (a rule id or a unit of a megabyte: 3.0 MB per
/// kernel, issue 48) are then cut too, every string to [`CUT_CHARS`] (each cut ending in
/// `…`), and last whole entries are dropped, evidence first, so the bound holds for any
/// input.
fn fit(k: &mut KernelExplanation) {
    let size = |k: &KernelExplanation| serde_json::to_string(k).map_or(0, |s| s.len());
    // A string longer than the cap cannot stay whole: cut it to the cap at once, so that
    // the steps below measure kilobytes, not megabytes (every later cut keeps a prefix, so
    // the result is the same).
    cut_all(k, MAX_KERNEL_JSON_BYTES);
    let steps: [&dyn Fn(&mut KernelExplanation); 10] = [
        &|k| k.advice = k.advice.as_deref().map(|a| cut(a, 160).0),
        &|k| {
            let (n, was) = cut(&k.name, 80);
            k.name_cut |= was;
            k.name = n;
        },
        &|k| k.reason = k.reason.as_deref().map(|r| cut(r, 120).0),
        &|k| k.groups.truncate(1),
        &|k| {
            for f in &mut k.flags {
                f.detail = cut(&f.detail, 60).0;
            }
        },
        &|k| {
            for r in &mut k.rules {
                r.title = cut(&r.title, 60).0;
            }
        },
        &|k| {
            for r in &mut k.rules {
                r.title = cut(&r.title, 30).0;
            }
        },
        &|k| {
            let (n, was) = cut(&k.name, 30);
            k.name_cut |= was;
            k.name = n;
            k.reason = k.reason.as_deref().map(|r| cut(r, 40).0);
            k.groups.clear();
        },
        &|k| cut_all(k, CUT_CHARS),
        &|k| {
            k.flags.truncate(4);
            k.rules.truncate(1);
            cut_all(k, CUT_CHARS / 4);
        },
    ];
    for step in steps {
        if size(k) <= MAX_KERNEL_JSON_BYTES {
            return;
        }
        step(k);
    }
    while size(k) > MAX_KERNEL_JSON_BYTES {
        if k.evidence.pop().is_none() && k.flags.pop().is_none() && k.rules.pop().is_none() {
            break;
        }
    }
}

/// A clock in Hz as whole MHz.
fn whole_mhz(hz: f64) -> u32 {
    // A clock is some GHz: far inside u32's range of MHz.
    (hz / 1e6).round().clamp(0.0, f64::from(u32::MAX)) as u32
}

/// How long any string of an explanation may be once cutting reaches the input's own
/// strings: 48 characters.
const CUT_CHARS: usize = 48;

/// Cuts every string of `k` to `chars` characters (`…` marking each cut).
fn cut_all(k: &mut KernelExplanation, chars: usize) {
    let c = |s: &mut String| *s = cut(s, chars).0;
    let o = |s: &mut Option<String>| {
        if let Some(s) = s.as_mut() {
            *s = cut(s, chars).0;
        }
    };
    c(&mut k.short_name);
    let (n, was) = cut(&k.name, chars);
    k.name_cut |= was;
    k.name = n;
    o(&mut k.verdict);
    o(&mut k.bound_by);
    o(&mut k.reason);
    o(&mut k.work);
    o(&mut k.advice);
    if let Some(r) = k.roof.as_mut() {
        c(&mut r.kind);
        c(&mut r.side);
    }
    for r in &mut k.rules {
        c(&mut r.id);
        c(&mut r.title);
    }
    for f in &mut k.flags {
        c(&mut f.detail);
    }
    if let Some(n) = k.ncu.as_mut() {
        c(&mut n.verdict);
        c(&mut n.title);
    }
    for g in &mut k.groups {
        c(&mut g.shape);
        o(&mut g.verdict);
        o(&mut g.bound_by);
    }
    for e in &mut k.evidence {
        c(&mut e.metric);
        c(&mut e.unit);
    }
}

impl Explanation {
    /// The JSON Schema of this format, pretty-printed, ending in a newline
    /// (`capture schema explain`).
    pub fn json_schema() -> String {
        let schema = schemars::schema_for!(Explanation);
        let mut s = serde_json::to_string_pretty(&schema).unwrap_or_default();
        s.push('\n');
        s
    }

    /// Pretty-printed JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }

    /// One paragraph per kernel, for a review; names from files are escaped.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        for k in &self.kernels {
            out.push_str(&escape::controls(&k.paragraph()));
            out.push_str("\n\n");
        }
        if self.kernels.is_empty() {
            out.push_str("no kernel chosen\n");
        }
        out
    }
}

impl KernelExplanation {
    /// The explanation in one paragraph.
    pub fn paragraph(&self) -> String {
        let mut p = format!("{} ({} launch", self.short_name, self.launches);
        if self.launches != 1 {
            p.push_str("es");
        }
        if let Some(t) = self.time_ms {
            p.push_str(&format!(", {t:.4} ms"));
        }
        if let Some(s) = self.time_share {
            p.push_str(&format!(", {:.1}% of the time", 100.0 * s));
        }
        p.push_str("): ");
        p.push_str(self.verdict.as_deref().unwrap_or("no verdict"));
        if self.verdict_mixed {
            p.push_str(" (its launch groups disagree)");
        }
        match (&self.bound_by, self.pct_of_peak) {
            (Some(u), Some(pct)) if u != "latency" => {
                p.push_str(&format!(", bound by {u} at {pct:.1}% of its peak"))
            }
            _ => {}
        }
        if let Some(r) = &self.reason {
            p.push_str(&format!("; {r}"));
        }
        p.push('.');
        if !self.groups.is_empty() {
            let groups: Vec<String> = self
                .groups
                .iter()
                .map(|g| {
                    let share = g
                        .time_share
                        .map_or_else(String::new, |s| format!(", {:.0}% of its time", 100.0 * s));
                    format!(
                        "{} x {}{share}: {}",
                        g.launches,
                        g.shape,
                        g.verdict.as_deref().unwrap_or("no verdict")
                    )
                })
                .collect();
            p.push_str(&format!(
                " Its launch groups ({} in all): {}.",
                self.groups_total,
                groups.join("; ")
            ));
        }
        self.push_roof_and_ncu(&mut p);
        self.push_rules_and_flags(&mut p);
        if let Some(a) = &self.advice {
            p.push_str(&format!(" Advice: {a}."));
        }
        if !self.evidence.is_empty() {
            let cited: Vec<String> = self
                .evidence
                .iter()
                .map(|e| match e.unit.as_str() {
                    "" => format!("{} = {}", e.metric, e.value),
                    unit => format!("{} = {} {unit}", e.metric, e.value),
                })
                .collect();
            p.push_str(&format!(
                " Evidence (launch {}): {}.",
                self.evidence_launch
                    .map_or_else(|| "?".into(), |l| l.to_string()),
                cited.join(", ")
            ));
        }
        p
    }

    fn push_roof_and_ncu(&self, p: &mut String) {
        if let Some(r) = &self.roof {
            if let Some(pct) = r.pct_of_roof {
                p.push_str(&format!(
                    " It runs at {pct:.0}% of the {} {} roof{} at its DRAM intensity ({}).",
                    if r.measured {
                        "measured"
                    } else {
                        "theoretical"
                    },
                    r.kind,
                    crate::analysis::figures::clock_words(
                        r.sm_clock_mhz.map(|m| f64::from(m) * 1e6),
                        r.peak_sm_clock_mhz.map(|m| f64::from(m) * 1e6),
                        r.pct_of_peak_clock_roof
                    ),
                    if r.side == "memory" {
                        "left of the ridge"
                    } else {
                        "right of the ridge"
                    }
                ));
            }
        }
        if let Some(n) = &self.ncu {
            if n.agrees {
                p.push_str(&format!(" ncu agrees ({}).", n.title));
            } else {
                p.push_str(&format!(" ncu says {} ({}).", n.verdict, n.title));
            }
        }
        if let Some(s) = self.sampled {
            p.push_str(&format!(
                " Counters measured on {} of {} launches, the rest scaled.",
                s.measured, s.launches
            ));
        }
    }

    fn push_rules_and_flags(&self, p: &mut String) {
        if !self.rules.is_empty() {
            let rules: Vec<String> = self
                .rules
                .iter()
                .map(|r| match r.speedup_pct {
                    Some(s) => format!("{} ({}, est. {s:.1}%)", r.id, r.title),
                    None => format!("{} ({})", r.id, r.title),
                })
                .collect();
            p.push_str(&format!(" ncu's top rules: {}.", rules.join("; ")));
        }
        for f in &self.flags {
            p.push_str(&format!(" Caution: {}.", f.detail));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cut_keeps_short_text_and_cuts_at_a_character() {
        assert_eq!(cut("abc", 3), ("abc".to_string(), false));
        assert_eq!(cut("aéb", 2), ("aé…".to_string(), true));
    }

    #[test]
    fn fit_cuts_long_text_to_the_cap_and_keeps_evidence() {
        let long = "x".repeat(5000);
        let mut k = KernelExplanation {
            short_name: "k".into(),
            name: long.clone(),
            name_cut: false,
            launches: 1,
            time_ms: None,
            time_source: None,
            time_share: None,
            verdict: None,
            verdict_mixed: false,
            bound_by: None,
            pct_of_peak: None,
            reason: Some(long.clone()),
            roof: None,
            work: None,
            rules: vec![Rule {
                id: "R".into(),
                title: long,
                speedup_pct: None,
            }],
            sampled: None,
            flags: Vec::new(),
            advice: None,
            ncu: None,
            groups: Vec::new(),
            groups_total: 0,
            evidence_launch: Some(7),
            evidence: vec![Evidence {
                metric: c::GPU_TIME_DURATION.name.into(),
                value: 1.0,
                unit: "ns".into(),
                backs: Statement::Time,
            }],
        };
        fit(&mut k);
        let size = serde_json::to_string(&k)
            .map(|s| s.len())
            .unwrap_or(usize::MAX);
        assert!(size <= MAX_KERNEL_JSON_BYTES, "{size}");
        assert!(k.name_cut && k.name.ends_with('…'));
        assert_eq!(k.evidence.len(), 1);
    }

    #[test]
    fn fit_holds_the_cap_against_every_string_of_the_input() {
        // Megabyte strings of control characters (six bytes each in JSON) in every field,
        // and more entries than any kernel has.
        let long = "\u{1}".repeat(1 << 20);
        let mut k = KernelExplanation {
            short_name: long.clone(),
            name: long.clone(),
            name_cut: false,
            launches: 1,
            time_ms: None,
            time_source: None,
            time_share: None,
            verdict: Some(long.clone()),
            verdict_mixed: false,
            bound_by: Some(long.clone()),
            pct_of_peak: None,
            reason: Some(long.clone()),
            roof: Some(Roof {
                kind: long.clone(),
                side: long.clone(),
                pct_of_roof: None,
                measured: false,
                sm_clock_mhz: None,
                peak_sm_clock_mhz: None,
                pct_of_peak_clock_roof: None,
            }),
            work: Some(long.clone()),
            rules: vec![
                Rule {
                    id: long.clone(),
                    title: long.clone(),
                    speedup_pct: None,
                };
                3
            ],
            sampled: None,
            flags: vec![
                Flag {
                    id: FlagId::CountersContradict,
                    detail: long.clone(),
                };
                50
            ],
            advice: Some(long.clone()),
            ncu: Some(NcuOpinion {
                verdict: long.clone(),
                title: long.clone(),
                agrees: false,
            }),
            groups: Vec::new(),
            groups_total: 0,
            evidence_launch: Some(7),
            evidence: vec![
                Evidence {
                    metric: long.clone(),
                    value: 1.0,
                    unit: long,
                    backs: Statement::Time,
                };
                14
            ],
        };
        fit(&mut k);
        let size = serde_json::to_string(&k)
            .map(|s| s.len())
            .unwrap_or(usize::MAX);
        assert!(size <= MAX_KERNEL_JSON_BYTES, "{size}");
        assert!(k.short_name.ends_with('…') && k.name_cut);
    }

    #[test]
    fn schema_names_the_version_and_evidence() {
        let s = Explanation::json_schema();
        assert!(
            s.contains("\"version\"") && s.contains("\"evidence\""),
            "{s}"
        );
    }
}
