//! A [`RunDiff`] for people and scripts: aligned text for a terminal, GitHub Markdown for a
//! pull-request comment, and pretty JSON (the contract in docs/diff-json.md). The gate's
//! failures come first in every human form.

use super::launches::{LaunchChange, LaunchCounts};
use super::work::{KernelWorkDiff, WorkDiff, WorkSide};
use super::{Comparability, KernelDiff, KernelSide, MetricMove, RunDiff, TotalDiff};
use crate::text::escape;
use crate::text::format::{fmt_si, ms, opt, sig3};
use crate::text::table::{Column, Table};

/// The columns of the human forms: text left-aligned, numbers right.
pub const COLUMNS: [Column; 10] = [
    Column::text("kernel"),
    Column::text("match"),
    Column::value("before ms"),
    Column::value("after ms"),
    Column::value("change"),
    Column::value("noise"),
    Column::value("beyond"),
    Column::text("verdict"),
    Column::text("bound"),
    Column::text("moved most"),
];

/// The columns of the human forms where launch counts are attached
/// ([`super::launches::Launched`]): [`COLUMNS`] with `launches` after `match` and `per
/// launch` after `change`.
pub const LAUNCH_COLUMNS: [Column; 12] = [
    Column::text("kernel"),
    Column::text("match"),
    Column::value("launches"),
    Column::value("before ms"),
    Column::value("after ms"),
    Column::value("change"),
    Column::text("per launch"),
    Column::value("noise"),
    Column::value("beyond"),
    Column::text("verdict"),
    Column::text("bound"),
    Column::text("moved most"),
];

/// The columns of the work gate's table.
pub const WORK_COLUMNS: [Column; 5] = [
    Column::text("kernel"),
    Column::text("match"),
    Column::value("launches"),
    Column::text("work change"),
    Column::text("not compared"),
];

impl KernelWorkDiff {
    /// The row's cells.
    fn cells(&self) -> [String; 5] {
        let gate = if self.gate_failed { "GATE " } else { "" };
        let name = renamed(&self.before.short_name, &self.after.short_name);
        let launches = if self.before.launches == self.after.launches {
            self.after.launches.to_string()
        } else {
            format!("{} -> {}", self.before.launches, self.after.launches)
        };
        [
            format!("{gate}{name}"),
            self.matched_by.label().into(),
            launches,
            self.summary.clone(),
            self.not_compared.join(", "),
        ]
    }
}

impl WorkDiff {
    /// The work gate's verdict lines, failures first.
    fn preamble(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.cannot_judge.is_empty() {
            out.push(format!(
                "WORK GATE CANNOT JUDGE these runs, so it fails: {}",
                self.cannot_judge.join("; ")
            ));
        }
        if !self.failures.is_empty() {
            out.push(format!(
                "WORK GATE FAILED: work grew by more than {} % beyond its tolerance, or a \
                 kernel appeared or vanished: {}",
                self.pct,
                self.failures.join("; ")
            ));
        } else if !self.failed {
            out.push(format!(
                "work gate passed: no matched kernel's work grew by more than {} % beyond its \
                 tolerance, and no kernel appeared or vanished",
                self.pct
            ));
        }
        out.push(format!("work tolerance: {}", self.tolerance));
        out
    }

    /// The table of matched kernels, with the kernels of one run under it.
    fn table(&self) -> (Table<'static>, Vec<String>) {
        let mut t = Table::new(&WORK_COLUMNS);
        for k in &self.kernels {
            t.push(k.cells());
        }
        let mut notes = Vec::new();
        for (title, list) in [
            ("vanished (work gate)", &self.only_before),
            ("appeared (work gate)", &self.only_after),
        ] {
            if !list.is_empty() {
                let names: Vec<String> = list.iter().map(work_side_line).collect();
                notes.push(format!("{title}: {}", names.join("; ")));
            }
        }
        (t, notes)
    }
}

/// A matched kernel's name: the after run's, with the before run's when it differs.
fn renamed(before: &str, after: &str) -> String {
    if before == after {
        after.to_string()
    } else {
        format!("{after} (was {before})")
    }
}

fn work_side_line(s: &WorkSide) -> String {
    format!("{} ({} launches)", s.short_name, s.launches)
}

/// A comparison in the three forms `capture diff` prints, kernel by kernel ([`RunDiff`]) or
/// range by range ([`super::ranges::RangeDiff`], whose impl stands beside it).
pub trait DiffForms {
    /// Aligned text for a terminal.
    fn text(&self) -> String;
    /// GitHub-flavoured Markdown.
    fn markdown(&self) -> String;
    /// Pretty JSON, the contract of docs/diff-json.md.
    fn json(&self) -> String;
}

/// Each comparison's forms are its own `to_text`, `to_markdown` and `to_json`.
macro_rules! diff_forms {
    ($($t:ty),*) => {$(
        impl DiffForms for $t {
            fn text(&self) -> String {
                self.to_text()
            }
            fn markdown(&self) -> String {
                self.to_markdown()
            }
            fn json(&self) -> String {
                self.to_json()
            }
        }
    )*};
}

diff_forms!(RunDiff);

/// Aligned text: the lines above, a blank line, the table, a blank line, the lines under;
/// control characters in the lines escaped (names are the program's), as the table escapes
/// its cells.
pub(super) fn text_form(above: &[String], table: &Table<'_>, under: &[String]) -> String {
    let mut out = String::new();
    for p in above {
        out.push_str(&escape::controls(p));
        out.push('\n');
    }
    out.push('\n');
    out.push_str(&table.to_text());
    out.push('\n');
    for e in under {
        out.push_str(&escape::controls(e));
        out.push('\n');
    }
    out
}

/// GitHub-flavoured Markdown: each line above a paragraph (the first in bold when
/// `bold_first`: a gate's verdict), the table, each line under a paragraph; pipes and
/// control characters escaped.
pub(super) fn markdown_form(
    above: &[String],
    bold_first: bool,
    table: &Table<'_>,
    under: &[String],
) -> String {
    let esc = |s: &str| escape::markdown_cell(s).into_owned();
    let mut out = String::new();
    for (i, p) in above.iter().enumerate() {
        if i == 0 && bold_first {
            out.push_str(&format!("**{}**\n\n", esc(p)));
        } else {
            out.push_str(&format!("{}\n\n", esc(p)));
        }
    }
    out.push_str(&table.to_markdown());
    out.push('\n');
    for e in under {
        out.push_str(&format!("{}\n\n", esc(e)));
    }
    out
}

/// A change in percent with its sign, `-` when there is none.
pub(super) fn signed_pct(v: Option<f64>) -> String {
    opt(v, |x| format!("{x:+.2} %"))
}

/// The warnings the comparability check gives the human forms: each mismatch, then what
/// one run or both do not record.
pub(super) fn comparability_lines(c: &Comparability) -> Vec<String> {
    let mut out: Vec<String> = c
        .reasons()
        .iter()
        .map(|r| format!("warning: not comparable: {r}"))
        .collect();
    if !c.unknown.is_empty() {
        out.push(format!(
            "not recorded by both runs, not checked: {}",
            c.unknown.join(", ")
        ));
    }
    out
}

/// The total's line: `total 1.0000 ms -> 1.2000 ms: +20.00 % (noise ±0.50 %), beyond the
/// noise`, `GATE ` first when it failed the gate.
pub(super) fn total_line(t: &TotalDiff) -> String {
    let gate = if t.gate_failed { "GATE " } else { "" };
    format!(
        "{gate}total {:.4} ms -> {:.4} ms: {} (noise ±{:.2} %){}",
        t.before_ms,
        t.after_ms,
        signed_pct(t.change_pct),
        t.noise_pct,
        if t.beyond_noise {
            ", beyond the noise"
        } else {
            ", within the noise"
        }
    )
}

/// One value before and after: the value once when equal, else `before -> after`, `-` for
/// a side without one.
pub(super) fn before_after(b: &Option<String>, a: &Option<String>) -> String {
    match (b, a) {
        (Some(b), Some(a)) if b == a => b.clone(),
        (None, None) => "-".into(),
        (b, a) => format!(
            "{} -> {}",
            b.as_deref().unwrap_or("-"),
            a.as_deref().unwrap_or("-")
        ),
    }
}

/// One moved metric as text: `dram_bytes 1.60 GB -> 3.20 GB (+100 %)`,
/// `sol.dram_pct 80.1 -> 85.3 %`, `stall.long_scoreboard 0.84 -> 0.60`.
pub fn move_text(m: &MetricMove) -> String {
    move_named(m, &m.key, "->")
}

/// One moved metric in words, for the viewer's run against run: `DRAM bytes 1.60 GB → 3.20
/// GB (+100 %)`, `DRAM % of peak 80.1 → 85.3 %`, `stall: long scoreboard 0.84 → 0.60`.
pub fn move_words(m: &MetricMove) -> String {
    move_named(m, &key_words(&m.key), "→")
}

/// A [`MetricMove`]'s key in words (`sol.memory_pct`: `memory % of peak`); a key this
/// does not know is shown as it is.
pub fn key_words(key: &str) -> String {
    let plain = match key {
        "l1_bytes" => Some("L1 bytes"),
        "l2_bytes" => Some("L2 bytes"),
        "dram_bytes" => Some("DRAM bytes"),
        "dram_per_ask" => Some("DRAM bytes per asked byte"),
        "sol.sm_pct" => Some("SM % of peak"),
        "sol.memory_pct" => Some("memory % of peak"),
        "sol.dram_pct" => Some("DRAM % of peak"),
        "sol.l1_pct" => Some("L1 % of peak"),
        "sol.l2_pct" => Some("L2 % of peak"),
        "occupancy.achieved_pct" => Some("achieved occupancy"),
        "occupancy.theoretical_pct" => Some("theoretical occupancy"),
        _ => None,
    };
    if let Some(p) = plain {
        return p.to_owned();
    }
    if let Some(kind) = key.strip_prefix("flops.") {
        return crate::model::work_kind::Work::from_key(kind).map_or_else(
            || key.to_owned(),
            |w| format!("{} {}s", w.label(), w.unit()),
        );
    }
    if let Some(reason) = key.strip_prefix("stall.") {
        return crate::analysis::latency::stalls::reason(reason)
            .map_or_else(|| key.to_owned(), |r| format!("stall: {}", r.name));
    }
    key.to_owned()
}

fn move_named(m: &MetricMove, name: &str, arrow: &str) -> String {
    let v = |x: Option<f64>, f: &dyn Fn(f64) -> String| opt(x, f);
    match m.unit.as_str() {
        "%" => format!(
            "{name} {} {arrow} {} %",
            v(m.before, &|x| format!("{x:.1}")),
            v(m.after, &|x| format!("{x:.1}"))
        ),
        "share" | "ratio" => format!(
            "{name} {} {arrow} {}",
            v(m.before, &sig3),
            v(m.after, &sig3)
        ),
        unit => {
            let u = match unit {
                "byte" => "B",
                "flop" => "FLOP",
                _ => "OP",
            };
            let change = match (m.before, m.after) {
                (Some(b), Some(a)) if b != 0.0 => format!(" ({:+.1} %)", 100.0 * (a - b) / b),
                _ => String::new(),
            };
            format!(
                "{name} {} {arrow} {}{change}",
                v(m.before, &|x| fmt_si(x, u)),
                v(m.after, &|x| fmt_si(x, u))
            )
        }
    }
}

impl KernelDiff {
    /// The name shown: the after run's short name, with the before one's when it differs.
    pub fn label(&self) -> String {
        renamed(&self.before.short_name, &self.after.short_name)
    }

    /// `slower`, `faster` or `-` (within the noise).
    pub fn beyond_text(&self) -> &'static str {
        match self.change_pct {
            Some(c) if self.beyond_noise && c > 0.0 => "slower",
            Some(_) if self.beyond_noise => "faster",
            _ => "-",
        }
    }

    /// The row's cells, `moves` of the moved metrics in the last.
    fn cells(&self, moves: usize) -> [String; 10] {
        let gate = if self.gate_failed { "GATE " } else { "" };
        [
            format!("{gate}{}", self.label()),
            self.matched_by.label().into(),
            opt(self.before.time_ms, ms),
            opt(self.after.time_ms, ms),
            signed_pct(self.change_pct),
            format!("±{:.2} %", self.noise_pct),
            self.beyond_text().into(),
            before_after(&self.before.verdict, &self.after.verdict),
            before_after(&self.before.bound, &self.after.bound),
            self.moved
                .iter()
                .take(moves)
                .map(move_text)
                .collect::<Vec<_>>()
                .join("; "),
        ]
    }
}

impl KernelDiff {
    /// The row's cells with its launch counts `l` ([`LAUNCH_COLUMNS`]): where the counts
    /// differ, the change of the median and of the mean launch, and `beyond` judged on the
    /// mean launch's change (the summed time compares different numbers of launches).
    fn launch_cells(&self, moves: usize, l: &LaunchChange) -> [String; 12] {
        let [name, matched, before, after, change, noise, beyond, verdict, bound, moved] =
            self.cells(moves);
        let (launches, per_launch, beyond) = if l.differ() {
            let beyond = match l.mean_change_pct {
                Some(c) if super::noise::beyond_noise(Some(c), self.noise_pct) => {
                    if c > 0.0 {
                        "slower"
                    } else {
                        "faster"
                    }
                }
                _ => "-",
            };
            (
                format!("{} -> {}", l.before_launches, l.after_launches),
                format!(
                    "median {}, mean {}",
                    signed_pct(l.median_change_pct),
                    signed_pct(l.mean_change_pct)
                ),
                beyond.to_string(),
            )
        } else {
            (l.after_launches.to_string(), "-".into(), beyond)
        };
        [
            name, matched, launches, before, after, change, per_launch, noise, beyond, verdict,
            bound, moved,
        ]
    }
}

impl LaunchCounts {
    /// The line above the table where counts differ: what the summed times compare.
    fn warning(&self) -> Option<String> {
        self.differ.then(|| {
            format!(
                "launch counts differ ({} launches before, {} after): summed times compare \
                 different numbers of launches; read the change per launch (`per launch`) and \
                 the total per matched launch (under the table)",
                self.before_launches, self.after_launches
            )
        })
    }

    /// The lines under the total: the launches, and where counts differ the total per
    /// matched launch with the unmatched time apart.
    fn lines(&self) -> Vec<String> {
        let mut out = vec![format!(
            "launches {} -> {}",
            self.before_launches, self.after_launches
        )];
        if self.differ {
            let m = &self.matched;
            out.push(format!(
                "per matched launch ({} launches of matched kernels in each run): {:.4} ms -> \
                 {:.4} ms: {}; apart, unmatched: {:.4} ms before, {:.4} ms after (launches \
                 beyond the other run's count, kernels of one run)",
                m.launches,
                m.before_ms,
                m.after_ms,
                signed_pct(m.change_pct),
                m.unmatched_before_ms,
                m.unmatched_after_ms
            ));
        }
        out
    }
}

fn side_line(s: &KernelSide) -> String {
    let share = s
        .time_share
        .map(|x| format!(", {:.1} % of the time", 100.0 * x))
        .unwrap_or_default();
    format!("{}: {} ms{share}", s.short_name, opt(s.time_ms, ms))
}

impl RunDiff {
    /// Lines above the table: the gate's verdict (failures named first), the runs, and the
    /// comparability warnings.
    fn preamble(&self, launches: Option<&LaunchCounts>) -> Vec<String> {
        let mut out = self
            .work
            .as_ref()
            .map(WorkDiff::preamble)
            .unwrap_or_default();
        if let Some(g) = &self.gate {
            if !g.cannot_judge.is_empty() {
                out.push(format!(
                    "GATE CANNOT JUDGE these runs, so it fails: {}",
                    g.cannot_judge.join("; ")
                ));
            }
            if !g.failures.is_empty() {
                out.push(format!(
                    "GATE FAILED: slower by more than {} % beyond the noise: {}",
                    g.pct,
                    g.failures.join("; ")
                ));
            } else if !g.failed {
                out.push(format!(
                    "gate passed: nothing counted (total, kernels above {} % of the time) is \
                     slower by more than {} % beyond its noise band",
                    g.share_pct, g.pct
                ));
            }
        }
        out.push(format!("before {}, after {}", self.before, self.after));
        out.extend(launches.and_then(LaunchCounts::warning));
        out.extend(comparability_lines(&self.comparability));
        out
    }

    /// Lines under the table: kernels in one run only, the total, the noise sources.
    fn epilogue(&self, launches: Option<&LaunchCounts>) -> Vec<String> {
        let mut out = Vec::new();
        for (title, list) in [
            ("only in before", &self.only_before),
            ("only in after", &self.only_after),
        ] {
            if !list.is_empty() {
                let names: Vec<String> = list.iter().map(side_line).collect();
                out.push(format!("{title}: {}", names.join("; ")));
            }
        }
        out.push(total_line(&self.total));
        out.extend(launches.into_iter().flat_map(LaunchCounts::lines));
        let flagged = self.flagged_times();
        if !flagged.is_empty() {
            out.push(format!(
                "flagged times (no gate judges a run with one): {}",
                flagged.join("; ")
            ));
        }
        let mut sources: Vec<&str> = self
            .kernels
            .iter()
            .flat_map(|k| [k.before.noise_source, k.after.noise_source])
            .chain(self.only_before.iter().map(|s| s.noise_source))
            .chain(self.only_after.iter().map(|s| s.noise_source))
            .map(|s| match s {
                super::NoiseSource::EventSamples => {
                    "event samples (half the range of capture run's CUDA-event samples, \
                     outliers left out)"
                }
                super::NoiseSource::LaunchSpread => {
                    "launch spread (two standard errors of the mean ncu duration per launch, \
                     outliers left out)"
                }
                super::NoiseSource::None => {
                    "none (a single launch without event samples, or samples not usable)"
                }
            })
            .collect();
        crate::order::sort(&mut sources);
        sources.dedup();
        out.push(format!(
            "noise bands: {}; a change is beyond the noise when larger than both runs' bands added",
            sources.join(", ")
        ));
        out
    }

    /// The table of the human forms, `moves` moved metrics per kernel.
    fn table(&self, moves: usize, launches: Option<&LaunchCounts>) -> Table<'static> {
        if let Some(l) = launches {
            let mut t = Table::new(&LAUNCH_COLUMNS);
            for (k, c) in self.kernels.iter().zip(&l.kernels) {
                t.push(k.launch_cells(moves, c));
            }
            return t;
        }
        let mut t = Table::new(&COLUMNS);
        for k in &self.kernels {
            t.push(k.cells(moves));
        }
        t
    }

    /// Aligned text for a terminal (three moved metrics per kernel). Kernel names are the
    /// program's: control characters (a terminal escape, a newline) are shown escaped, never
    /// written raw.
    pub fn to_text(&self) -> String {
        self.text_with(None)
    }

    /// [`RunDiff::to_text`] with launch counts (the `launches` and `per launch` columns, the
    /// lines they add), where given.
    pub fn text_with(&self, launches: Option<&LaunchCounts>) -> String {
        let mut out = text_form(
            &self.preamble(launches),
            &self.table(3, launches),
            &self.epilogue(launches),
        );
        if let Some(w) = &self.work {
            let (table, notes) = w.table();
            out.push_str("\nwork (--gate-work):\n");
            out.push_str(&table.to_text());
            for n in notes {
                out.push_str(&escape::controls(&n));
                out.push('\n');
            }
        }
        out
    }

    /// GitHub-flavoured Markdown for a pull-request comment: the gate first, the table with
    /// every moved metric, then the kernels of one run and the total (pipes and control
    /// characters escaped).
    pub fn to_markdown(&self) -> String {
        self.markdown_with(None)
    }

    /// [`RunDiff::to_markdown`] with launch counts, where given.
    pub fn markdown_with(&self, launches: Option<&LaunchCounts>) -> String {
        let esc = |s: &str| escape::markdown_cell(s).into_owned();
        let mut out = markdown_form(
            &self.preamble(launches),
            self.gate.is_some() || self.work.is_some(),
            &self.table(usize::MAX, launches),
            &self.epilogue(launches),
        );
        if let Some(w) = &self.work {
            let (table, notes) = w.table();
            out.push_str("Work (`--gate-work`):\n\n");
            out.push_str(&table.to_markdown());
            out.push('\n');
            for n in notes {
                out.push_str(&format!("{}\n\n", esc(&n)));
            }
        }
        out
    }

    /// Pretty JSON: the contract of docs/diff-json.md.
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).unwrap_or_default();
        s.push('\n');
        s
    }
}
