//! What Nsight Compute's own rules say a launch waits on, read from the rule results an
//! export or a report carries, in this project's vocabulary so it can stand beside our
//! verdict ([`crate::analysis::groups`]).
//!
//! - **SOLBottleneck** (Speed of Light section) says one of: "grid is too small to fill the
//!   available resources" (ncu's "Small Grid") or "low compute throughput and memory
//!   bandwidth utilization" (latency): `latency-bound`; "Compute and Memory are
//!   well-balanced": `balanced`; "Compute is more heavily utilized than Memory" or "Memory is
//!   more heavily utilized than Compute": `compute-bound` or `memory-bound`; "utilizing greater
//!   than 80.0%" (High Throughput), bound by the section it says to start at (Compute or
//!   Memory Workload Analysis). The details page gives the message without its title, a
//!   report gives both; the message decides in both cases.
//! - **HighPipeUtilization** (Compute Workload Analysis) names the busiest pipe; its name is
//!   mapped to a key of [`crate::analysis::bound::PIPES`].

use serde::{Deserialize, Serialize};

use crate::analysis::metrics::VerdictKind;
use crate::model::artifact::{LaunchCounters, RuleResult};

/// The identifier of ncu's Speed-of-Light bottleneck rule.
pub const SOL_BOTTLENECK: &str = "SOLBottleneck";

/// The identifier of ncu's pipe-utilization rule.
pub const HIGH_PIPE_UTILIZATION: &str = "HighPipeUtilization";

/// One launch's SOLBottleneck finding, classified.
#[derive(Clone, Debug, PartialEq)]
pub struct NcuSol {
    /// The verdict it amounts to.
    pub kind: VerdictKind,
    /// ncu's title where the file gives one, else the title of the message's kind as ncu's
    /// rule names it (`Small Grid`, `Latency Issue`, `Balanced Throughput`, `High Compute
    /// Throughput`, `High Memory Throughput`, `High Throughput`).
    pub title: String,
    /// The message, plain text.
    pub message: String,
}

/// The message fragments of SOLBottleneck, the title ncu gives each, and the verdict.
const SOL_MESSAGES: [(&str, &str, Option<VerdictKind>); 6] = [
    (
        "grid is too small",
        "Small Grid",
        Some(VerdictKind::LatencyBound),
    ),
    (
        "low compute throughput and memory",
        "Latency Issue",
        Some(VerdictKind::LatencyBound),
    ),
    (
        "well-balanced",
        "Balanced Throughput",
        Some(VerdictKind::Balanced),
    ),
    (
        "Compute is more heavily utilized",
        "High Compute Throughput",
        Some(VerdictKind::ComputeBound),
    ),
    (
        "Memory is more heavily utilized",
        "High Memory Throughput",
        Some(VerdictKind::MemoryBound),
    ),
    // High Throughput: bound by the section the message says to start at.
    ("greater than 80", "High Throughput", None),
];

/// The SOLBottleneck finding of one rule result; `None` for another rule or a message of
/// no known kind.
pub fn classify_sol(rule: &RuleResult) -> Option<NcuSol> {
    if rule.name != SOL_BOTTLENECK {
        return None;
    }
    let msg = rule.description.as_str();
    let (_, title, kind) = SOL_MESSAGES.iter().find(|(m, _, _)| msg.contains(m))?;
    let kind = match kind {
        Some(k) => *k,
        None if msg.contains("Compute Workload Analysis") => VerdictKind::ComputeBound,
        None if msg.contains("Memory Workload Analysis") => VerdictKind::MemoryBound,
        None => return None,
    };
    Some(NcuSol {
        kind,
        title: rule.title.clone().unwrap_or_else(|| (*title).to_string()),
        message: rule.description.clone(),
    })
}

/// A launch's SOLBottleneck finding, when its file carries one of a known kind.
pub fn sol_of(launch: &LaunchCounters) -> Option<NcuSol> {
    launch.rules.iter().find_map(classify_sol)
}

/// ncu's pipe names (as HighPipeUtilization's messages spell them, lower case) and the
/// keys of [`crate::analysis::bound::PIPES`] they are; longer names first so that `fp64`
/// is not read as `fp` and `fmaheavy` as `fma`.
const PIPE_NAMES: [(&str, &str); 14] = [
    ("tensor", "tensor"),
    ("fp64", "fp64"),
    ("dmma", "fp64"),
    ("fmaheavy", "fma"),
    ("fmalite", "fma"),
    ("fma", "fma"),
    ("alu", "alu"),
    ("xu", "xu"),
    ("lsu", "lsu"),
    ("uniform", "uniform"),
    ("adu", "adu"),
    ("cbu", "cbu"),
    ("tma", "tma"),
    ("tex", "tex"),
];

/// The pipe a launch's HighPipeUtilization finding names (a key of
/// [`crate::analysis::bound::PIPES`]): the first pipe name its message spells; `None`
/// without the rule or a pipe it names.
pub fn pipe_of(launch: &LaunchCounters) -> Option<&'static str> {
    let rule = launch
        .rules
        .iter()
        .find(|r| r.name == HIGH_PIPE_UTILIZATION)?;
    pipe_in(&rule.description)
}

/// The pipe a HighPipeUtilization message names: the one before "is the highest-utilized
/// pipeline" (`ALU`, `FMA`, `Tensor`, `FP64 (DMMA)`, ...); ncu's "Shared" pipe (FP64 and
/// tensor together) by the sub-pipe the message says dominates it. `None` for "All compute
/// pipelines are under-utilized" and for a pipe of no known name.
pub fn pipe_in(message: &str) -> Option<&'static str> {
    let (name, rest) = message.split_once(" is the highest-utilized pipeline")?;
    let name = match rest.split_once("dominated by its ") {
        Some((_, sub)) if name == "Shared" => sub,
        _ => name,
    };
    let first = name
        .split(|c: char| !c.is_ascii_alphanumeric())
        .find(|w| !w.is_empty())?;
    PIPE_NAMES
        .iter()
        .find(|(n, _)| first.eq_ignore_ascii_case(n))
        .map(|(_, key)| *key)
}

/// ncu's verdict of a kernel or a group of its launches, beside ours.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NcuVerdict {
    /// The verdict, in this project's words, that ncu's SOLBottleneck gives the most of the
    /// launches' time (`latency-bound`, ...).
    pub verdict: String,
    /// ncu's title of that finding (`Small Grid`, `Balanced Throughput`, ...).
    pub title: String,
    /// Its message, from the longest launch that has it.
    pub message: String,
    /// Share of the launches' time (of those with a SOLBottleneck finding) that has this
    /// finding, 0 to 1.
    pub share: f64,
    /// Launches with a SOLBottleneck finding, of all the launches.
    pub launches: usize,
    /// Whether our verdict is the same.
    pub agrees: bool,
    /// Where we differ, why, in one sentence; `null` where we agree.
    pub why: Option<String>,
    /// The pipe ncu's HighPipeUtilization names on the longest launch that has it (a key
    /// of [`crate::analysis::bound::PIPES`]); `null` without it.
    pub pipe: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(name: &str, msg: &str) -> RuleResult {
        RuleResult {
            section: String::new(),
            name: name.into(),
            kind: "OPT".into(),
            title: None,
            description: msg.into(),
            speedup_type: None,
            speedup_pct: None,
            focus_metrics: Vec::new(),
        }
    }

    #[test]
    fn every_sol_message_of_the_gpt2_fixture_is_classified() {
        // The five messages of tests/fixtures/ncu-h200-torch/gpt2_bf16_profile_details.csv.gz.
        let cases = [
            ("This kernel grid is too small to fill the available resources on this device, resulting in only 1.0 full waves across all SMs.", VerdictKind::LatencyBound, "Small Grid"),
            ("This workload exhibits low compute throughput and memory bandwidth utilization relative to the peak performance of this device.", VerdictKind::LatencyBound, "Latency Issue"),
            ("Compute and Memory are well-balanced: To reduce runtime, both computation and memory traffic must be reduced.", VerdictKind::Balanced, "Balanced Throughput"),
            ("Compute is more heavily utilized than Memory: Look at the Compute Workload Analysis section", VerdictKind::ComputeBound, "High Compute Throughput"),
            ("This workload is utilizing greater than 80.0% of the available compute or memory performance of the device. To further improve performance, work will likely need to be shifted from the most utilized to another unit. Start by analyzing workloads in the Compute Workload Analysis section.", VerdictKind::ComputeBound, "High Throughput"),
            ("This workload is utilizing greater than 80.0% of the available compute or memory performance of the device. Start by analyzing DRAM in the Memory Workload Analysis section.", VerdictKind::MemoryBound, "High Throughput"),
        ];
        for (msg, kind, title) in cases {
            let s = classify_sol(&rule(SOL_BOTTLENECK, msg)).expect(msg);
            assert_eq!((s.kind, s.title.as_str()), (kind, title), "{msg}");
        }
        assert_eq!(classify_sol(&rule("CPIStall", "well-balanced")), None);
        assert_eq!(classify_sol(&rule(SOL_BOTTLENECK, "something new")), None);
    }

    #[test]
    fn pipe_names_map_to_keys() {
        // Messages of the corpus's --set full exports (tests/fixtures/corpus-h200).
        let tail = " based on elapsed cycles in the workload, taking into account the rates of its different instructions.";
        assert_eq!(pipe_in(&format!("ALU is the highest-utilized pipeline (37.8%){tail} It executes integer and logic operations.")), Some("alu"));
        assert_eq!(pipe_in(&format!("Tensor is the highest-utilized pipeline (44.1%){tail} It is the logical aggregation of individual tensor pipelines. It's dominated by its Tensor (FP) sub-pipeline.")), Some("tensor"));
        assert_eq!(pipe_in(&format!("Shared is the highest-utilized pipeline (32.4%){tail} It is the logical sum of several other pipelines which can't achieve full utilization on their own. It executes 64-bit floating point and tensor operations. It's dominated by its Tensor (FP) sub-pipeline.")), Some("tensor"));
        assert_eq!(pipe_in(&format!("Shared is the highest-utilized pipeline (80.0%){tail} It executes 64-bit floating point and tensor operations. It's dominated by its FP64 sub-pipeline.")), Some("fp64"));
        assert_eq!(pipe_in("All compute pipelines are under-utilized. Either this workload is very small or it doesn't issue enough warps per scheduler."), None);
    }
}
