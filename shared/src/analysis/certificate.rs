//! A speedup claim anyone can check (issue 51, item 6): `capture diff BEFORE AFTER
//! --certificate FILE` writes what the comparison found with what it rests on, and `capture
//! verify FILE BEFORE AFTER` recomputes it from the two runs and lists every way the claim
//! fails ([`problems`]).
//!
//! A certificate holds the SHA-256 of each input file (digested by the caller, which reads
//! the files), the comparability check, the total with its noise band (and the launches,
//! with the total per matched launch where counts differ), and per matched kernel: each
//! side's launches, time, noise band, the physical floor under the time
//! ([`crate::analysis::floor`]) and any flag (a time below its floor, CUDA-event and ncu
//! timers that disagree), the change and whether it is beyond the noise, and its work
//! ([`crate::analysis::diff::work`], held to no tolerance): `equal`, or the parts that
//! changed. Every figure is the diff's or the table's own: nothing here computes a time.

use serde::{Deserialize, Serialize};

use crate::analysis::diff::launches::{self, LaunchCounts, MatchedTotal};
use crate::analysis::diff::work::{work_diff, KernelWorkDiff};
use crate::analysis::diff::{Comparability, KernelSide, RunDiff};
use crate::analysis::floor;
use crate::analysis::table::bytes_table;
use crate::model::artifact::Artifact;

/// The version of the certificate's format.
pub const CERTIFICATE_VERSION: u32 = 1;

/// Relative difference under which two figures of a certificate are the same (the JSON
/// round trip of an `f64` is exact; this only forgives the last bit of a sum).
pub const SAME: f64 = 1e-12;

/// Figures that differ listed by [`problems`]; the rest are counted.
pub const LISTED: usize = 20;

/// One input file and its digest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileDigest {
    /// The file's name (its final component).
    pub name: String,
    /// SHA-256 of its bytes as stored (a `.gz` digested compressed), lowercase hex.
    pub sha256: String,
}

/// One run of the claim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    /// Its name (the files' names joined by ` + `).
    pub name: String,
    /// Its files, in the order given.
    pub files: Vec<FileDigest>,
    /// Its launches (every kernel).
    pub launches: usize,
    /// Its summed kernel time, ms.
    pub time_ms: f64,
}

/// One side of a matched kernel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelRecord {
    /// Launches.
    pub launches: usize,
    /// Time, ms (the bytes table's).
    pub time_ms: Option<f64>,
    /// Noise band, % of the time.
    pub noise_pct: f64,
    /// The physical floor under the time, ms, where its work and the device's peaks are
    /// known.
    pub floor_ms: Option<f64>,
    /// What sets the floor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor_limiter: Option<String>,
    /// Why the time is below its floor, when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub below_floor: Option<String>,
    /// Why its timers disagree, when they do.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timers_disagree: Option<String>,
}

/// One matched kernel of the claim.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct KernelClaim {
    /// The kernel as the diff's row names it.
    pub kernel: String,
    /// The before run's side.
    pub before: KernelRecord,
    /// The after run's side.
    pub after: KernelRecord,
    /// The change, % of the before time.
    pub change_pct: Option<f64>,
    /// The two bands added, %.
    pub noise_pct: f64,
    /// Whether the change is beyond it.
    pub beyond_noise: bool,
    /// Its work: `equal`, or the parts that changed (`dram_bytes 1.0e9 -> 2.0e9`).
    pub work: String,
}

/// The run's total.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TotalClaim {
    /// The change of the summed time, % of the before one.
    pub change_pct: Option<f64>,
    /// Its noise band, %.
    pub noise_pct: f64,
    /// Whether the change is beyond it.
    pub beyond_noise: bool,
    /// The total per matched launch where launch counts differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub per_matched_launch: Option<MatchedTotal>,
}

/// A certificate of a claimed speedup.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Certificate {
    /// [`CERTIFICATE_VERSION`].
    pub version: u32,
    /// The claim in one line (`after is 12.30 % faster in summed kernel time, beyond the
    /// noise`).
    pub claim: String,
    /// The run before.
    pub before: RunRecord,
    /// The run after.
    pub after: RunRecord,
    /// The comparability check.
    pub comparability: Comparability,
    /// The total.
    pub total: TotalClaim,
    /// The matched kernels, in the diff's row order.
    pub kernels: Vec<KernelClaim>,
    /// Kernels of one run only (`appeared: NAME`, `vanished: NAME`).
    pub unmatched: Vec<String>,
    /// Whether every matched kernel's work is equal and no kernel appeared or vanished.
    pub work_equal: bool,
}

impl Certificate {
    /// The certificate of the diff `d` of `before` and `after` (its launch counts worked
    /// out here, [`launches::of_diff`]), whose files digest to `files`.
    pub fn of(
        d: &RunDiff,
        (before, after): (&Artifact, &Artifact),
        files: [Vec<FileDigest>; 2],
    ) -> Certificate {
        let counts = launches::of_diff(d, before, after);
        let tables = [bytes_table(before), bytes_table(after)];
        let record = |side: usize, s: &KernelSide| {
            let table = &tables[side];
            let f = table
                .kernels
                .get(s.index)
                .and_then(|row| floor::floor(row, &table.ceilings));
            KernelRecord {
                launches: s.launches,
                time_ms: s.time_ms,
                noise_pct: s.noise_pct,
                floor_ms: f.as_ref().map(|f| f.ms),
                floor_limiter: f.map(|f| f.limiter),
                below_floor: s.below_floor.clone(),
                timers_disagree: s.timers_disagree.clone(),
            }
        };
        let w = work_diff(before, after, 0.0, None);
        let work_of = |k: &crate::analysis::diff::KernelDiff| {
            w.kernels
                .iter()
                .find(|x| x.before.index == k.before.index && x.after.index == k.after.index)
                .map_or_else(|| "not compared: no work vector".to_string(), work_words)
        };
        let kernels: Vec<KernelClaim> = d
            .kernels
            .iter()
            .map(|k| KernelClaim {
                kernel: k.label(),
                before: record(0, &k.before),
                after: record(1, &k.after),
                change_pct: k.change_pct,
                noise_pct: k.noise_pct,
                beyond_noise: k.beyond_noise,
                work: work_of(k),
            })
            .collect();
        let unmatched: Vec<String> = d
            .only_before
            .iter()
            .map(|s| format!("vanished: {}", s.short_name))
            .chain(
                d.only_after
                    .iter()
                    .map(|s| format!("appeared: {}", s.short_name)),
            )
            .collect();
        let work_equal = unmatched.is_empty() && kernels.iter().all(|k| k.work == "equal");
        let launches = Some(&counts);
        let [bf, af] = files;
        Certificate {
            version: CERTIFICATE_VERSION,
            claim: claim_words(d, &counts),
            before: RunRecord {
                name: d.before.clone(),
                files: bf,
                launches: launches.map_or(0, |l| l.before_launches),
                time_ms: d.total.before_ms,
            },
            after: RunRecord {
                name: d.after.clone(),
                files: af,
                launches: launches.map_or(0, |l| l.after_launches),
                time_ms: d.total.after_ms,
            },
            comparability: d.comparability.clone(),
            total: TotalClaim {
                change_pct: d.total.change_pct,
                noise_pct: d.total.noise_pct,
                beyond_noise: d.total.beyond_noise,
                per_matched_launch: launches.filter(|l| l.differ).map(|l| l.matched.clone()),
            },
            kernels,
            unmatched,
            work_equal,
        }
    }

    /// Pretty JSON, ending in a newline.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}

/// A matched kernel's work in words: `equal` when every part both runs have is the same
/// and none is left out, else the parts that changed.
fn work_words(k: &KernelWorkDiff) -> String {
    let changed: Vec<String> = k
        .parts
        .iter()
        .filter(|p| p.before != p.after)
        .map(|p| format!("{} {:e} -> {:e}", p.key, p.before, p.after))
        .collect();
    let mut words = changed;
    if !k.not_compared.is_empty() {
        words.push(format!("not compared: {}", k.not_compared.join(", ")));
    }
    if k.parts.is_empty() && words.is_empty() {
        return "not compared: no part in both runs".into();
    }
    if words.is_empty() {
        "equal".into()
    } else {
        words.join("; ")
    }
}

/// The claim in one line.
fn claim_words(d: &RunDiff, counts: &LaunchCounts) -> String {
    let noise = if d.total.beyond_noise {
        "beyond the noise"
    } else {
        "within the noise"
    };
    let per_launch = Some(counts)
        .filter(|l| l.differ)
        .and_then(|l| l.matched.change_pct)
        .map(|c| format!("; per matched launch {c:+.2} %"))
        .unwrap_or_default();
    match d.total.change_pct {
        Some(c) if c < 0.0 => format!(
            "after is {:.2} % faster in summed kernel time, {noise}{per_launch}",
            -c
        ),
        Some(c) => format!("after is {c:.2} % slower in summed kernel time, {noise}{per_launch}"),
        None => "no claim: the before run sums to 0 ms".into(),
    }
}

/// Every way `claimed` fails against `recomputed`, the certificate of the same runs worked
/// again from the files given: a digest that differs (another file), a figure that differs
/// (an edited certificate), a time below its floor or timers that disagree (in either
/// certificate: a claim resting on an impossible time), work that changed where the claim
/// says it did not. Empty: the claim holds.
pub fn problems(claimed: &Certificate, recomputed: &Certificate) -> Vec<String> {
    let mut out = Vec::new();
    if claimed.version != CERTIFICATE_VERSION {
        out.push(format!(
            "version {}: this capture checks version {CERTIFICATE_VERSION}",
            claimed.version
        ));
        return out;
    }
    for (side, c, r) in [
        ("before", &claimed.before, &recomputed.before),
        ("after", &claimed.after, &recomputed.after),
    ] {
        if c.files.len() != r.files.len() {
            out.push(format!(
                "{side}: {} file(s) certified, {} given",
                c.files.len(),
                r.files.len()
            ));
        }
        for (cf, rf) in c.files.iter().zip(&r.files) {
            if cf.sha256 != rf.sha256 {
                out.push(format!(
                    "{side}: {} has SHA-256 {}, the certificate's {} has {}: not the file \
                     certified",
                    rf.name, rf.sha256, cf.name, cf.sha256
                ));
            }
        }
    }
    // A claimed time under its own floor is impossible whatever the inputs say.
    for k in &claimed.kernels {
        for (side, s) in [("before", &k.before), ("after", &k.after)] {
            if let (Some(t), Some(f)) = (s.time_ms, s.floor_ms) {
                if t < f * (1.0 - floor::SLACK) {
                    out.push(format!(
                        "{side}: {}: {t:.4} ms claimed, below its physical floor of {f:.4} ms \
                         ({}): an impossible time",
                        k.kernel,
                        s.floor_limiter
                            .as_deref()
                            .unwrap_or("its work at the device's peaks")
                    ));
                }
            }
        }
    }
    for k in &recomputed.kernels {
        for (side, s) in [("before", &k.before), ("after", &k.after)] {
            for why in [&s.below_floor, &s.timers_disagree].into_iter().flatten() {
                out.push(format!("{side}: {}: {why}", k.kernel));
            }
        }
    }
    if claimed.work_equal && !recomputed.work_equal {
        let changed: Vec<String> = recomputed
            .kernels
            .iter()
            .filter(|k| k.work != "equal")
            .map(|k| format!("{}: {}", k.kernel, k.work))
            .chain(recomputed.unmatched.iter().cloned())
            .collect();
        out.push(format!(
            "work changed, and the certificate says it did not: {}",
            changed.join("; ")
        ));
    }
    // Every other figure: the claim as the inputs give it, field by field.
    let (c, r) = (
        serde_json::to_value(without_files(claimed)).unwrap_or_default(),
        serde_json::to_value(without_files(recomputed)).unwrap_or_default(),
    );
    let mut differ = Vec::new();
    compare("", &c, &r, &mut differ);
    let more = differ.len().saturating_sub(LISTED);
    for (path, cv, rv) in differ.into_iter().take(LISTED) {
        out.push(format!(
            "{path}: the certificate says {cv}, the inputs give {rv}"
        ));
    }
    if more > 0 {
        out.push(format!("and {more} more figures differ"));
    }
    out
}

/// `c` without its files' digests (checked on their own, with their names) and its runs'
/// names (a file renamed is the same file: its digest says so).
fn without_files(c: &Certificate) -> Certificate {
    let mut c = c.clone();
    for run in [&mut c.before, &mut c.after] {
        run.files.clear();
        run.name.clear();
    }
    c
}

/// The paths where `a` and `b` differ, numbers within [`SAME`] of each other counted equal.
fn compare(
    path: &str,
    a: &serde_json::Value,
    b: &serde_json::Value,
    out: &mut Vec<(String, String, String)>,
) {
    use serde_json::Value;
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            crate::order::sort(&mut keys);
            keys.dedup();
            for k in keys {
                let null = Value::Null;
                let sub = format!("{path}.{k}");
                compare(
                    &sub,
                    x.get(k).unwrap_or(&null),
                    y.get(k).unwrap_or(&null),
                    out,
                );
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                compare(&format!("{path}[{i}]"), p, q, out);
            }
        }
        (Value::Number(p), Value::Number(q)) => {
            let (p, q) = (
                p.as_f64().unwrap_or(f64::NAN),
                q.as_f64().unwrap_or(f64::NAN),
            );
            if (p - q).abs() > SAME * p.abs().max(q.abs()) {
                out.push((path.to_string(), p.to_string(), q.to_string()));
            }
        }
        _ if a != b => out.push((path.to_string(), short(a), short(b))),
        _ => {}
    }
}

/// A JSON value in at most 120 characters.
fn short(v: &serde_json::Value) -> String {
    let s = v.to_string();
    match s.char_indices().nth(120) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s,
    }
}
