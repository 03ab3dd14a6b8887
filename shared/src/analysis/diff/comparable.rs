//! Whether two runs can be compared fairly: the same device, driver and ncu, the same clock
//! and cache control, the same metric set and the same sampling (which launches ncu
//! profiled; how many event-timed repetitions). Read from the artifacts' provenance and
//! the ncu command lines they record; a setting one side does not record is not held
//! against the comparison (it is listed as unknown).

use serde::{Deserialize, Serialize};

use crate::analysis::metrics::reference_launches;
use crate::model::artifact::{Artifact, CacheControl};

/// One setting that differs between the runs.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mismatch {
    /// What differs: `device`, `driver`, `ncu_version`, `clock_control`, `cache_control`,
    /// `metric_set` or `sampling`.
    pub what: String,
    /// The before run's setting.
    pub before: String,
    /// The after run's setting.
    pub after: String,
}

/// The outcome of the check.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Comparability {
    /// Settings that differ; empty when the runs compare fairly.
    pub mismatches: Vec<Mismatch>,
    /// Settings that one run or both do not record, so could not be checked.
    pub unknown: Vec<String>,
}

impl Comparability {
    /// Whether nothing differs.
    pub fn comparable(&self) -> bool {
        self.mismatches.is_empty()
    }

    /// One line per mismatch: `clock_control: before base, after none`.
    pub fn reasons(&self) -> Vec<String> {
        self.mismatches
            .iter()
            .map(|m| format!("{}: before {}, after {}", m.what, m.before, m.after))
            .collect()
    }
}

/// The settings of one run that the check compares, each `None` where the run does not
/// record it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Settings {
    /// Device name and compute capability.
    pub device: Option<String>,
    /// Driver version.
    pub driver: Option<String>,
    /// Nsight Compute version.
    pub ncu_version: Option<String>,
    /// ncu `--clock-control` (ncu's default, `base`, when a command line omits it).
    pub clock_control: Option<String>,
    /// ncu `--cache-control`, else the cache state of the counter sets.
    pub cache_control: Option<String>,
    /// The metrics asked for (`--set`, `--section`, `--metrics`), else the names of the
    /// metrics the counter launches hold.
    pub metric_set: Option<String>,
    /// Which launches were profiled (`-c`, `-s`, NVTX filters, replay mode) and the event
    /// timing's repetitions and warm-ups.
    pub sampling: Option<String>,
}

/// ncu options that take a value (the next token, or `=value`): enough to find where the
/// profiled program's own arguments start.
const VALUE_OPTIONS: &[&str] = &[
    "-o",
    "--export",
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
    "--section-folder",
    "--clock-control",
    "--cache-control",
    "--replay-mode",
    "--app-replay-mode",
    "--app-replay-match",
    "--range-replay-options",
    "--nvtx-include",
    "--nvtx-exclude",
    "--target-processes",
    "--target-processes-filter",
    "--log-file",
    "--devices",
    "--filter-mode",
    "--import-source",
    "--graph-profiling",
    "--pm-sampling-interval",
    "--warp-sampling-interval",
    "--warp-sampling-max-passes",
    "--warp-sampling-buffer-size",
    "--max-connections",
    "--port",
];

/// Options that decide which launches are profiled and how they are replayed.
const SAMPLING_OPTIONS: &[(&str, &str)] = &[
    ("-c", "--launch-count"),
    ("-s", "--launch-skip"),
    ("--launch-skip-before-match", ""),
    ("--nvtx-include", ""),
    ("--nvtx-exclude", ""),
    ("--replay-mode", ""),
    ("--app-replay-mode", ""),
    ("--pm-sampling-interval", ""),
    ("--warp-sampling-interval", ""),
];

/// `v` sorted, each value once (a sorted `Vec` rather than a set: less code in the wasm).
fn sorted_distinct<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    crate::order::sort(&mut v);
    v.dedup();
    v
}

/// Splits a shell command line into words (single and double quotes, backslash escapes).
pub fn words(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some('"'), '\\') => cur.extend(chars.next()),
            (Some(_), c) => cur.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, '\\') => {
                cur.extend(chars.next());
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    out.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            (None, c) => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// The ncu options of a collection command line (not an `--import` one), in order, up to
/// the profiled program: `(option, value)`, the value empty for a flag.
pub fn ncu_options(line: &str) -> Vec<(String, String)> {
    let w = words(line);
    let mut out = Vec::new();
    let mut i = 1; // w[0] is ncu itself
    while i < w.len() {
        let t = &w[i];
        if !t.starts_with('-') || t == "--" {
            break;
        }
        if let Some((opt, value)) = t.split_once('=') {
            out.push((opt.to_string(), value.to_string()));
        } else if VALUE_OPTIONS.contains(&t.as_str()) {
            out.push((t.clone(), w.get(i + 1).cloned().unwrap_or_default()));
            i += 1;
        } else {
            out.push((t.clone(), String::new()));
        }
        i += 1;
    }
    out
}

fn collection_commands(a: &Artifact) -> Vec<Vec<(String, String)>> {
    a.provenance
        .ncu_commands
        .iter()
        .filter(|c| !words(c).iter().any(|w| w == "--import"))
        .map(|c| ncu_options(c))
        .collect()
}

/// Distinct values of one joined figure over the commands, joined by ` | `.
fn over_commands(
    cmds: &[Vec<(String, String)>],
    f: impl Fn(&[(String, String)]) -> String,
) -> Option<String> {
    if cmds.is_empty() {
        return None;
    }
    Some(sorted_distinct(cmds.iter().map(|c| f(c)).collect()).join(" | "))
}

fn option<'a>(opts: &'a [(String, String)], names: &[&str]) -> Vec<&'a str> {
    opts.iter()
        .filter(|(o, _)| names.contains(&o.as_str()))
        .map(|(_, v)| v.as_str())
        .collect()
}

impl Settings {
    /// The settings `run` records.
    pub fn of(run: &Artifact) -> Settings {
        let p = &run.provenance;
        let cmds = collection_commands(run);
        let device = run.device.as_ref().map(|d| match &d.compute_capability {
            Some(cc) => format!("{} (sm_{}{})", d.name, cc.major, cc.minor),
            None => d.name.clone(),
        });
        let clock_control = p.clock_control.clone().or_else(|| {
            over_commands(&cmds, |c| {
                option(c, &["--clock-control"])
                    .last()
                    .map_or("base".to_string(), |v| v.to_string())
            })
        });
        let cache_from_sets = || {
            let set: Vec<&str> = run
                .kernels
                .iter()
                .flat_map(|k| [k.cold.as_ref(), k.warm.as_deref()])
                .flatten()
                .filter_map(|s| s.cache_control)
                .map(|c| match c {
                    CacheControl::Cold => "all",
                    CacheControl::Warm => "none",
                })
                .collect();
            let set = sorted_distinct(set);
            (!set.is_empty()).then(|| set.join(" | "))
        };
        let cache_control = over_commands(&cmds, |c| {
            option(c, &["--cache-control"])
                .last()
                .map_or("all".to_string(), |v| v.to_string())
        })
        .or_else(cache_from_sets);
        let metric_set = over_commands(&cmds, |c| {
            let mut parts: Vec<String> = Vec::new();
            for (o, v) in c {
                match o.as_str() {
                    "--set" => parts.push(format!("set {v}")),
                    "--section" => parts.push(format!("section {v}")),
                    "--metrics" => parts.push(format!("metrics {v}")),
                    _ => {}
                }
            }
            crate::order::sort(&mut parts);
            if parts.is_empty() {
                "ncu default set".into()
            } else {
                parts.join(", ")
            }
        })
        .or_else(|| metric_names(run).map(MetricNames::text));
        let profiled = over_commands(&cmds, |c| {
            let parts: Vec<String> = SAMPLING_OPTIONS
                .iter()
                .filter_map(|(short, long)| {
                    let v = option(c, &[short, long]);
                    (!v.is_empty()).then(|| format!("{short} {}", v.join(",")))
                })
                .collect();
            if parts.is_empty() {
                "every launch".into()
            } else {
                parts.join(" ")
            }
        });
        let reps: Vec<(usize, u32)> = run
            .kernels
            .iter()
            .filter_map(|k| k.timing.as_ref())
            .map(|t| (t.samples_ms.len(), t.warmups))
            .collect();
        let reps = sorted_distinct(reps);
        let timed = (!reps.is_empty()).then(|| {
            let r: Vec<String> = reps
                .iter()
                .map(|(n, w)| format!("{n} timed after {w} warm-ups"))
                .collect();
            format!("events {}", r.join(" | "))
        });
        let sampling = match (profiled, timed) {
            (Some(p), Some(t)) => Some(format!("ncu {p}; {t}")),
            (Some(p), None) => Some(format!("ncu {p}")),
            (None, Some(t)) => Some(t),
            (None, None) => None,
        };
        Settings {
            device,
            driver: p.driver_version.clone(),
            ncu_version: p.ncu_version.clone(),
            clock_control,
            cache_control,
            metric_set,
            sampling,
        }
    }

    fn fields(&self) -> [(&'static str, &Option<String>); 7] {
        [
            ("device", &self.device),
            ("driver", &self.driver),
            ("ncu_version", &self.ncu_version),
            ("clock_control", &self.clock_control),
            ("cache_control", &self.cache_control),
            ("metric_set", &self.metric_set),
            ("sampling", &self.sampling),
        ]
    }
}

/// The metric names of a run's counter launches, joined, for runs that record no command.
struct MetricNames(Vec<String>);

impl MetricNames {
    /// Every name, comma-joined: what [`Settings::metric_set`] holds for such a run.
    fn text(self) -> String {
        self.0.join(",")
    }
}

/// How two metric sets (comma-joined names) differ: `648 metrics, 12 not in the other
/// (a, b, c, ...)`.
fn set_difference(text: &str, other: &str) -> String {
    let mine = sorted_distinct(text.split(',').collect());
    let theirs = sorted_distinct(other.split(',').collect());
    let only: Vec<&str> = mine
        .iter()
        .copied()
        .filter(|m| theirs.binary_search(m).is_err())
        .collect();
    let shown: Vec<&str> = only.iter().take(3).copied().collect();
    let more = if only.len() > shown.len() {
        ", ..."
    } else {
        ""
    };
    if only.is_empty() {
        format!("{} metrics", mine.len())
    } else {
        format!(
            "{} metrics, {} not in the other ({}{more})",
            mine.len(),
            only.len(),
            shown.join(", ")
        )
    }
}

/// The metric names the counter launches of `run` hold (the set, for runs that record no
/// ncu command line); `None` without counters.
fn metric_names(run: &Artifact) -> Option<MetricNames> {
    let mut names: Vec<String> = Vec::new();
    let mut seen: Vec<*const crate::model::artifact::MetricColumns> = Vec::new();
    for k in &run.kernels {
        for l in reference_launches(k) {
            let cols = l.metrics.columns();
            let ptr = std::sync::Arc::as_ptr(cols);
            if seen.contains(&ptr) {
                continue;
            }
            seen.push(ptr);
            names.extend(cols.keys().iter().map(|k| k.name.clone()));
        }
    }
    let names = sorted_distinct(names);
    (!names.is_empty()).then_some(MetricNames(names))
}

/// Compares the settings of two runs.
pub fn check(before: &Artifact, after: &Artifact) -> Comparability {
    let (b, a) = (Settings::of(before), Settings::of(after));
    let mut out = Comparability::default();
    // A metric set read from the launches (no command line) is a list of names, not options.
    let listed = |s: &Settings| {
        s.metric_set
            .as_deref()
            .is_some_and(|m| !m.contains(' ') && m.contains(','))
    };
    let names_both = listed(&b) && listed(&a);
    for ((what, vb), (_, va)) in b.fields().into_iter().zip(a.fields()) {
        match (vb, va) {
            (Some(x), Some(y)) if x != y && what == "metric_set" && names_both => {
                out.mismatches.push(Mismatch {
                    what: what.into(),
                    before: set_difference(x, y),
                    after: set_difference(y, x),
                })
            }
            (Some(x), Some(y)) if x != y => out.mismatches.push(Mismatch {
                what: what.into(),
                before: shorten(x, y),
                after: shorten(y, x),
            }),
            (Some(_), Some(_)) => {}
            _ => out.unknown.push(what.into()),
        }
    }
    out
}

/// `text` cut around where it starts to differ from `other`, so a long metric list shows
/// the part that differs.
fn shorten(text: &str, other: &str) -> String {
    const KEEP: usize = 160;
    if text.chars().count() <= KEEP {
        return text.to_string();
    }
    let common = text
        .char_indices()
        .zip(other.chars())
        .find(|((_, a), b)| a != b)
        .map_or(text.len(), |((i, _), _)| i);
    let start = text[..common]
        .char_indices()
        .rev()
        .nth(40)
        .map_or(0, |(i, _)| i);
    let rest: String = text[start..].chars().take(KEEP).collect();
    let head = if start > 0 { "…" } else { "" };
    let tail = if text[start..].chars().count() > KEEP {
        "…"
    } else {
        ""
    };
    format!("{head}{rest}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_stop_at_the_program_and_read_quoted_values() {
        let line = "/usr/local/cuda/bin/ncu -f -o /tmp/x --clock-control none -k 'regex:^(a|b)$' \
                    -c 20 --metrics a.sum,b.sum prog -c 5 --cache-control none";
        let opts = ncu_options(line);
        assert_eq!(option(&opts, &["--clock-control"]), ["none"]);
        assert_eq!(option(&opts, &["-k"]), ["regex:^(a|b)$"]);
        assert_eq!(
            option(&opts, &["-c"]),
            ["20"],
            "the program's own -c is not ncu's"
        );
        assert!(option(&opts, &["--cache-control"]).is_empty());
        assert_eq!(words("a \"b c\" d\\ e"), ["a", "b c", "d e"]);
    }

    #[test]
    fn a_clock_control_that_differs_is_a_mismatch_and_a_missing_one_unknown() {
        let mut a = Artifact::new(Default::default());
        a.provenance.ncu_commands = vec!["ncu --cache-control all --set full prog".into()];
        let mut b = a.clone();
        b.provenance.ncu_commands = vec!["ncu --clock-control none --set full prog".into()];
        let c = check(&a, &b);
        assert_eq!(
            c.reasons(),
            ["clock_control: before base, after none"],
            "{c:?}"
        );
        assert!(c.unknown.contains(&"driver".to_string()));
        assert!(check(&a, &a).comparable());
    }
}
