//! The next step, ranked (issue 51, item 3): each kernel's recoverable time, the larger of
//! what ncu's rules estimate and the gap to its own roof, with one action tied to what set
//! it and the exact ncu command that collects what the next question needs (its source
//! counters, and ncu's rules where the run lacks them), built from the run's own recorded
//! command.
//!
//! - Recoverable time = time x the larger of (a) the largest estimated speedup of its
//!   rules (ncu's `Estimated Speedup`, % of the kernel's time) and (b) the gap to its roof
//!   at its DRAM intensity (100 % less `pct_of_roof`). Both are the explanation's own
//!   ([`crate::analysis::explain`]): nothing here measures.
//! - The action follows what set the figure: the rule's (ncu's rule id, its title quoted),
//!   or the roof's side (memory: bytes; compute: the work's path).
//! - The command: the run's last recorded collection command (`provenance.ncu_commands`,
//!   not an `--import`), its launch filters, metric choices and output dropped, then
//!   `--kernel-name-base demangled -k regex:'^NAME$' --launch-skip N -c 1` (`mangled` for a
//!   mangled name) for the kernel's
//!   longest launch (N: its launches before it in the run) and `--section SourceCounters
//!   --import-source yes` (`--set full` where the run holds none of ncu's rules), `-f -o
//!   SHORT-next`. A run that records no command (an export) gets `ncu ... PROGRAM`.

use serde::{Deserialize, Serialize};

use crate::analysis::diff::comparable::{ncu_options, words};
use crate::analysis::explain::{Explanation, KernelExplanation};
use crate::analysis::metrics;
use crate::analysis::table::BytesTable;
use crate::model::artifact::Artifact;

/// One kernel's next step.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NextStep {
    /// Short name (the table's).
    pub short_name: String,
    /// Its time, ms.
    pub time_ms: f64,
    /// The time that could be recovered, ms: `time_ms` x `recoverable_pct` / 100.
    pub recoverable_ms: f64,
    /// The larger of the two estimates, % of its time.
    pub recoverable_pct: f64,
    /// What set it: `rule IssueSlotUtilization: est. 37.6 %` or `roof: 62.4 % of the
    /// memory fp32 roof`.
    pub basis: String,
    /// One action tied to it.
    pub action: String,
    /// The ncu command that collects what the next question needs, for one launch.
    pub command: String,
    /// Where the command came from: `the run's recorded ncu command`, or `no command
    /// recorded: put the program where PROGRAM is`.
    pub command_from: String,
}

/// What ncu's rules ask for, by rule id: the action said when that rule's estimate sets a
/// kernel's recoverable time. Rule ids of ncu 2025.3 (the corpus's details pages).
const RULE_ACTIONS: &[(&str, &str)] = &[
    (
        "AchievedOccupancy",
        "raise achieved occupancy: spread the work evenly over blocks and warps",
    ),
    (
        "TheoreticalOccupancy",
        "raise theoretical occupancy: fewer registers or less shared memory per block",
    ),
    (
        "CPIStall",
        "hide the stalls: more independent work per warp (the source page shows where warps wait)",
    ),
    (
        "IssueSlotUtilization",
        "issue more: more eligible warps or more independent instructions per warp",
    ),
    (
        "LaunchConfiguration",
        "change the launch configuration (grid and block) as ncu says",
    ),
    (
        "WorkloadImbalance",
        "balance the work across SMs and sub-partitions",
    ),
    (
        "UncoalescedGlobalAccess",
        "coalesce global accesses (the source page names the instructions)",
    ),
    (
        "UncoalescedSharedAccess",
        "avoid excess shared-memory wavefronts (the source page names the instructions)",
    ),
    (
        "SharedMemoryConflicts",
        "remove shared-memory bank conflicts (pad or swizzle the layout)",
    ),
    ("ThreadDivergence", "reduce divergence within warps"),
    (
        "MemoryCacheAccessPattern",
        "improve the access pattern's cache use (locality, fewer sectors per request)",
    ),
    (
        "MemoryL2Compression",
        "use L2 compression where ncu says it applies",
    ),
    (
        "FPInstructions",
        "fuse floating-point operations into FMA, or use a faster precision",
    ),
    (
        "HighPipeUtilization",
        "use the pipes better: ncu finds them under-utilized",
    ),
    (
        "SOLBottleneck",
        "work on the unit ncu names as the bottleneck",
    ),
];

/// The action for a rule's estimate.
fn rule_action(id: &str, title: &str) -> String {
    let known = RULE_ACTIONS.iter().find(|(r, _)| *r == id).map(|(_, a)| *a);
    match known {
        Some(a) => format!("{a} (ncu: {title})"),
        None => format!("ncu's {id}: {title}"),
    }
}

/// The action for the gap to a roof on `side`.
fn roof_action(k: &KernelExplanation, side: &str) -> String {
    if k.verdict.as_deref() == Some("latency-bound") {
        return "expose more parallelism (more blocks, more independent work per thread): it \
                is bound by latency, not by a unit"
            .into();
    }
    match side {
        "memory" => "move fewer bytes: reuse data through shared memory or L2, fuse it with \
                     its neighbours, use a narrower type"
            .into(),
        _ => {
            "do the work on a faster path (tensor cores, a lower precision) or do less of it".into()
        }
    }
}

/// Options dropped from the recorded command: which launches, which metrics, where to.
const DROPPED: &[&str] = &[
    "-o",
    "--export",
    "-f",
    "--force-overwrite",
    "-k",
    "--kernel-name",
    "--kernel-name-base",
    "--kernel-id",
    "-c",
    "--launch-count",
    "-s",
    "--launch-skip",
    "--launch-skip-before-match",
    "--metrics",
    "--section",
    "--set",
    "--import-source",
    "--log-file",
];

/// A word quoted for a POSIX shell where it needs it.
fn quoted(w: &str) -> String {
    let plain = !w.is_empty()
        && w.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,@%+".contains(c));
    if plain {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', r"'\''"))
    }
}

/// A regular expression matching `name` whole, its metacharacters escaped.
fn exact(name: &str) -> String {
    let mut out = String::from("^");
    for c in name.chars() {
        if "\\.+*?()|[]{}^$".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('$');
    out
}

/// A recorded ncu command split: ncu itself, its options kept (`(option, value)`), the
/// program and its arguments.
type Split = (String, Vec<(String, String)>, Vec<String>);

/// The run's recorded command split; `None` without one.
fn recorded(run: &Artifact) -> Option<Split> {
    let line = run
        .provenance
        .ncu_commands
        .iter()
        .rev()
        .find(|c| !words(c).iter().any(|w| w == "--import"))?;
    let w = words(line);
    let opts = ncu_options(line);
    // The program starts after ncu, its options and their values.
    let mut at = 1;
    while at < w.len() && w[at].starts_with('-') && w[at] != "--" {
        let takes = opts.iter().any(|(o, v)| *o == w[at] && !v.is_empty());
        at += if takes && !w[at].contains('=') { 2 } else { 1 };
    }
    if w.get(at).is_some_and(|x| x == "--") {
        at += 1;
    }
    // The recorded line may redirect the output: the program ends there.
    let program: Vec<String> = w
        .get(at..)
        .unwrap_or_default()
        .iter()
        .take_while(|x| !x.starts_with('>') && *x != "2>&1")
        .cloned()
        .collect();
    let kept = opts
        .into_iter()
        .filter(|(o, _)| !DROPPED.contains(&o.as_str()))
        .collect();
    Some((
        w.first().cloned().unwrap_or_else(|| "ncu".into()),
        kept,
        program,
    ))
}

/// The ncu command for kernel `k` of `run` (index `i` in it): its longest launch, with the
/// source counters (and the full set where `rules` is false).
fn command_for(run: &Artifact, i: usize, k: &KernelExplanation, rules: bool) -> (String, String) {
    let kernel = run.kernels.get(i);
    let function = kernel.map_or_else(|| k.name.clone(), |r| r.function.to_string());
    let base = if function.starts_with("_Z") {
        "mangled"
    } else {
        "demangled"
    };
    let skip = kernel.map_or(0, |r| {
        let mut ids: Vec<u64> = metrics::reference_launches(r)
            .iter()
            .map(|l| l.id)
            .collect();
        crate::order::sort(&mut ids);
        k.evidence_launch
            .and_then(|e| ids.iter().position(|x| *x == e))
            .unwrap_or(0)
    });
    let (ncu, kept, program, from) = match recorded(run) {
        Some((ncu, kept, program)) if !program.is_empty() => (
            ncu,
            kept,
            program,
            "the run's recorded ncu command".to_string(),
        ),
        _ => (
            "ncu".to_string(),
            Vec::new(),
            vec!["PROGRAM".to_string()],
            "no command recorded: put the program and its arguments where PROGRAM is".into(),
        ),
    };
    let mut parts: Vec<String> = vec![quoted(&ncu)];
    for (o, v) in kept {
        parts.push(quoted(&o));
        if !v.is_empty() {
            parts.push(quoted(&v));
        }
    }
    let what = if rules {
        "--section SourceCounters --import-source yes"
    } else {
        "--set full --import-source yes"
    };
    let out: String = k
        .short_name
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .take(40)
        .collect();
    parts.push(format!(
        "--kernel-name-base {base} -k {} --launch-skip {skip} -c 1 {what} -f -o {}",
        quoted(&format!("regex:{}", exact(&function))),
        quoted(&format!("{out}-next"))
    ));
    parts.extend(program.iter().map(|w| quoted(w)));
    (parts.join(" "), from)
}

/// The next steps of `run` (explained as `explained`, from `table`), most recoverable time
/// first; kernels with no time, or neither a rule estimate nor a roof, are left out.
pub fn next_steps(run: &Artifact, table: &BytesTable, explained: &Explanation) -> Vec<NextStep> {
    let rules_held = explained.kernels.iter().any(|k| !k.rules.is_empty());
    let mut out: Vec<NextStep> = explained
        .kernels
        .iter()
        .filter_map(|k| {
            let time = k.time_ms?;
            let rule = k
                .rules
                .iter()
                .filter_map(|r| r.speedup_pct.map(|s| (s, r)))
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let roof = k
                .roof
                .as_ref()
                .and_then(|r| r.pct_of_roof.map(|p| ((100.0 - p).clamp(0.0, 100.0), p, r)));
            let (pct, basis, action) = match (rule, roof) {
                (Some((s, r)), Some((g, _, _))) if s >= g => (
                    s,
                    format!("rule {}: est. {s:.1} %", r.id),
                    rule_action(&r.id, &r.title),
                ),
                (_, Some((g, p, r))) => (
                    g,
                    format!("roof: {p:.1} % of the {} {} roof", r.side, r.kind),
                    roof_action(k, &r.side),
                ),
                (Some((s, r)), None) => (
                    s,
                    format!("rule {}: est. {s:.1} %", r.id),
                    rule_action(&r.id, &r.title),
                ),
                (None, None) => return None,
            };
            let i = table
                .kernels
                .iter()
                .position(|r| r.short_name == k.short_name)?;
            let (command, command_from) = command_for(run, i, k, rules_held);
            Some(NextStep {
                short_name: k.short_name.clone(),
                time_ms: time,
                recoverable_ms: time * pct / 100.0,
                recoverable_pct: pct,
                basis,
                action,
                command,
                command_from,
            })
        })
        .collect();
    crate::order::sort_by(&mut out, |a, b| {
        b.recoverable_ms.total_cmp(&a.recoverable_ms)
    });
    out
}

/// The steps as text: one paragraph each.
pub fn to_text(steps: &[NextStep]) -> String {
    let mut out = String::new();
    for (n, s) in steps.iter().enumerate() {
        out.push_str(&format!(
            "{}. {}: {:.4} ms recoverable of {:.4} ms ({:.1} %, {}). {}.\n   {}\n   ({})\n",
            n + 1,
            crate::text::escape::controls(&s.short_name),
            s.recoverable_ms,
            s.time_ms,
            s.recoverable_pct,
            s.basis,
            s.action,
            crate::text::escape::controls(&s.command),
            s.command_from
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_matched_whole_and_quoted_for_a_shell() {
        assert_eq!(exact("f<int>(a*, b)"), r"^f<int>\(a\*, b\)$");
        assert_eq!(quoted("python3"), "python3");
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }
}
