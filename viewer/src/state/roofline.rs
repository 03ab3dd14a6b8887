//! Building the roofline chart's numbers from loaded runs: roofs from the artifact's
//! theoretical peaks and measured ceilings, and per kernel the asked-for point (hand-counted
//! bytes) and the DRAM, L2 and L1 points (counted bytes), all at the bytes table's time.
//!
//! Every count comes from [`shared::analysis::metrics`] via [`super::kernel::KernelFigures`], and the
//! time is the bytes table's, so the chart and the tables agree.

use shared::analysis::ceilings::compute_ceilings;
use shared::analysis::table::TimeSource;
use shared::chart::roofline::SeriesLink;
use shared::chart::{ChartPoint, KernelSeries, Level, Roof, RooflineChart};
use shared::model::artifact::Artifact;
use shared::model::work_kind::Work;
use shared::text::format::{fmt_si, sig3};

use super::kernel::KernelFigures;
use super::model::{RunView, Workspace};
use super::view::{KernelRef, Plotted};

/// Where a point came from, for its tooltip and the CSV export.
#[derive(Clone, Debug, PartialEq)]
pub struct PointInfo {
    /// The kernel.
    pub kernel: KernelRef,
    /// Run name.
    pub run_name: String,
    /// Full kernel name.
    pub name: String,
    /// Short name, distinct in its run (the tables' and the chart's label).
    pub short: String,
    /// Which bytes.
    pub level: Level,
    /// The kind of work the point plots.
    pub kind: Work,
    /// FLOPs (OPs for integer kinds) over the row's launches.
    pub flops: f64,
    /// Bytes of that level over the row's launches.
    pub bytes: f64,
    /// Time over the row's launches, ms.
    pub time_ms: f64,
    /// Where the time came from.
    pub time_source: Option<TimeSource>,
    /// FLOPs are a lower bound (some counters missing) or hand-counted.
    pub flops_note: Option<String>,
}

/// The chart, with the provenance of each point and notes for the page.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RooflineModel {
    /// The numbers to draw.
    pub chart: RooflineChart,
    /// For series `i`, point `j`: `infos[i][j]`.
    pub infos: Vec<Vec<PointInfo>>,
    /// For series `i`, the kernel it draws.
    pub refs: Vec<KernelRef>,
    /// No kernel had counters: points are from event time and hand counts only.
    pub analytic: bool,
    /// Things the reader should know (points above a roof, kernels left out and why).
    pub notes: Vec<String>,
    /// Short names of kernels with no FLOPs at the chosen precision (memory-only kernels
    /// such as copies have intensity zero, which a log axis cannot show), with their shares
    /// of the kernel time, the largest first once the chart is built.
    pub no_flops: Vec<(String, f64)>,
    /// Kernels considered and kernels plotted, with their summed shares of the kernel time
    /// (over runs, so a share of the sum).
    pub coverage: Coverage,
    /// Each point flagged because its level moved fewer bytes than the one beyond it
    /// (`copy: L1 point flagged: ...`), said in one note with their count.
    pub flagged_levels: Vec<String>,
    /// Short names of the tensor kernels with no L1 point because the export cannot show
    /// their TMA traffic (`shared::analysis::levels::tma_unseen`), said in one note.
    pub unseen_tma: Vec<String>,
}

/// How much of the kernels a roofline shows: the line under the chart.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Coverage {
    /// Kernels the chart considered.
    pub kernels: usize,
    /// Kernels with a point.
    pub plotted: usize,
    /// Their summed time shares, and those of the plotted ones.
    pub share: f64,
    /// The plotted kernels' summed shares.
    pub plotted_share: f64,
}

impl PointInfo {
    /// Operational intensity, FLOP per byte.
    pub fn flop_per_byte(&self) -> f64 {
        shared::model::roofline::intensity(self.flops, self.bytes).unwrap_or(f64::NAN)
    }

    /// GFLOP/s.
    pub fn gflop_per_s(&self) -> f64 {
        shared::model::roofline::giga_per_s(self.flops, self.time_ms).unwrap_or(f64::NAN)
    }

    /// The tooltip text: short name, level, intensity, rate, and the numbers behind them
    /// (the full name is in the page's list of points).
    pub fn tooltip(&self) -> String {
        let source = match self.time_source {
            Some(TimeSource::EventMedian) => "event median",
            Some(TimeSource::NcuDuration) => "ncu duration",
            None => "unknown",
        };
        let unit = self.kind.unit();
        let mut text = format!(
            "{}\n{} point, {} ({})\nintensity {} {unit}/B\n{}\n{} over {} in {} ms, sum of launches ({})",
            self.short,
            self.level.label(),
            self.kind.label(),
            self.run_name,
            sig3(self.flop_per_byte()),
            fmt_si(self.gflop_per_s() * 1e9, &format!("{unit}/s")),
            fmt_si(self.flops, unit),
            fmt_si(self.bytes, "B"),
            sig3(self.time_ms),
            source,
        );
        if let Some(note) = &self.flops_note {
            text.push('\n');
            text.push_str(note);
        }
        text
    }
}

/// The roofs of an artifact when the chart plots `plotted`: the bandwidth roofs (theoretical
/// DRAM, measured copy, measured L2) and a compute ceiling for each kind of work plotted
/// (`kinds`: the kinds present, for [`Plotted::Own`]), theoretical dashed and measured
/// solid, from [`shared::analysis::ceilings::compute_ceilings`]. A kind with no known peak gets no
/// ceiling (none is guessed).
pub fn roofs(artifact: &Artifact, plotted: Plotted, kinds: &[Work]) -> Vec<Roof> {
    let plotted_kinds: Vec<Work> = match plotted {
        Plotted::Kind(w) => vec![w],
        Plotted::Own => kinds.to_vec(),
    };
    let single = plotted_kinds.len() == 1;
    let ceilings: Vec<(Work, shared::analysis::ceilings::ComputeCeilings)> = plotted_kinds
        .iter()
        .map(|&w| (w, compute_ceilings(artifact, w)))
        .collect();
    // With one kind, its ceilings join the bandwidth roofs (one line with a knee); with
    // several, each kind gets flat ceilings of its own.
    let joined = |pick: fn(&shared::analysis::ceilings::ComputeCeilings) -> Option<f64>| {
        ceilings
            .first()
            .filter(|_| single)
            .and_then(|(_, c)| pick(c))
    };
    let unit = |w: Work| format!("{}/s", w.unit());
    let mut out = Vec::new();
    let device = artifact.device.as_ref();
    let theo_bw = device.and_then(|d| d.peaks.dram_gbyte_per_s);
    let theo_fl = joined(|c| c.theoretical);
    if theo_bw.is_some() || theo_fl.is_some() {
        let mut label = "theoretical".to_string();
        if let Some(bw) = theo_bw {
            label.push_str(&format!(" {}", fmt_si(bw * 1e9, "B/s")));
        }
        if let (Some(fl), Some((w, _))) = (theo_fl, ceilings.first()) {
            label.push_str(&format!(", {}", fmt_si(fl * 1e9, &unit(*w))));
        }
        out.push(Roof {
            label,
            measured: false,
            level: Level::Dram,
            gbyte_per_s: theo_bw,
            gflop_per_s: theo_fl,
        });
    }
    let measured_fl = joined(|c| c.measured);
    if let Some(c) = &artifact.ceilings {
        if c.copy_gbyte_per_s.is_some() || measured_fl.is_some() {
            let mut parts = Vec::new();
            if let Some(bw) = c.copy_gbyte_per_s {
                parts.push(format!("copy {}", fmt_si(bw * 1e9, "B/s")));
            }
            if let (Some(fl), Some((w, _))) = (measured_fl, ceilings.first()) {
                let what = if *w == Work::Fp32 { "FMA" } else { w.label() };
                parts.push(format!("{what} {}", fmt_si(fl * 1e9, &unit(*w))));
            }
            out.push(Roof {
                label: format!("measured {}", parts.join(", ")),
                measured: true,
                level: Level::Dram,
                gbyte_per_s: c.copy_gbyte_per_s,
                gflop_per_s: measured_fl,
            });
        }
        if let Some(l2) = c.l2_copy_gbyte_per_s {
            out.push(Roof {
                label: format!("measured L2 {}", fmt_si(l2 * 1e9, "B/s")),
                measured: true,
                level: Level::L2,
                gbyte_per_s: Some(l2),
                gflop_per_s: measured_fl,
            });
        }
    }
    if !single {
        for (w, c) in &ceilings {
            for (value, measured, what) in [
                (c.theoretical, false, "theoretical"),
                (c.measured, true, "measured"),
            ] {
                if let Some(v) = value {
                    out.push(Roof {
                        label: format!("{what} {} {}", w.label(), fmt_si(v * 1e9, &unit(*w))),
                        measured,
                        level: Level::Dram,
                        gbyte_per_s: None,
                        gflop_per_s: Some(v),
                    });
                }
            }
        }
    }
    out
}

/// The points of one kernel, with their provenance, or why it has none.
fn kernel_points(
    run: &RunView,
    run_index: usize,
    fig: &KernelFigures,
    plotted: Plotted,
) -> Result<(Vec<ChartPoint>, Vec<PointInfo>), String> {
    let record = run.run.artifact.kernels.get(fig.index);
    let kind = match plotted {
        Plotted::Kind(w) => w,
        Plotted::Own => fig.main_kind(record),
    };
    if let Some(check) = record.and_then(|k| k.check.as_ref()) {
        if !check.passed {
            return Err(format!(
                "{}: failed its CPU reference check ({}); no roofline point",
                fig.name, check.detail
            ));
        }
    }
    let row = &fig.row;
    let Some(time_ms) = row.time_ms.filter(|t| *t > 0.0) else {
        return Err(format!(
            "{}: no time (no event timing, no ncu duration)",
            fig.name
        ));
    };
    let counted = fig.work_of(kind);
    let asked_here = record
        .and_then(|k| k.asked.as_ref())
        .is_some_and(|a| a.precision == kind);
    let ask_flops = row.ask_flops.filter(|f| *f > 0.0 && asked_here);
    let (flops, note) = match (counted, ask_flops) {
        (Some((c, note)), _) => (Some(c), note),
        (None, Some(a)) => (
            Some(a),
            Some("FLOPs hand-counted (no FLOP counters)".to_string()),
        ),
        (None, None) => (None, None),
    };
    let mut points = Vec::new();
    let mut infos = Vec::new();
    let kernel = KernelRef {
        run: run_index,
        kernel: fig.index,
    };
    let mut push = |level: Level, flops: f64, bytes: f64, note: Option<String>| {
        let info = PointInfo {
            kernel,
            run_name: run.run.name.clone(),
            name: fig.name.clone(),
            short: fig.short.clone(),
            level,
            kind,
            flops,
            bytes,
            time_ms,
            time_source: row.time_source,
            flops_note: note,
        };
        points.push(ChartPoint {
            level,
            flop_per_byte: info.flop_per_byte(),
            gflop_per_s: info.gflop_per_s(),
            above_roof: false,
        });
        infos.push(info);
    };
    if let (Some(af), Some(ab)) = (ask_flops, row.ask_bytes.filter(|b| *b > 0.0)) {
        push(
            Level::Asked,
            af,
            ab,
            Some("bytes and FLOPs hand-counted".into()),
        );
    }
    if let Some(flops) = flops {
        // The level points the counters can draw (shared::levels: TMA loads counted, an L1
        // point its counters cannot see left out).
        for (level, bytes) in [
            (Level::Dram, fig.levels.dram),
            (Level::L2, fig.levels.l2),
            (Level::L1, fig.levels.l1),
        ] {
            if let Some(b) = bytes.filter(|b| *b > 0.0) {
                push(level, flops, b, note.clone());
            }
        }
    }
    if points.is_empty() {
        return Err(format!("{}: {NO_FLOPS}", fig.name));
    }
    Ok((points, infos))
}

/// How many kernels, by time, [`run_roofline`] labels on the chart.
pub const LABELLED: usize = 5;

/// Kernels left out because they have no FLOPs of the plotted kind, gathered into one note.
const NO_FLOPS: &str = "no FLOPs of the plotted kind";

fn add_run(
    model: &mut RooflineModel,
    run: &RunView,
    run_index: usize,
    kernels: &[usize],
    selected: &[KernelRef],
    precision: Plotted,
    marker_run: usize,
) {
    for &k in kernels {
        let Some(fig) = run.kernels.get(k) else {
            continue;
        };
        let share = fig.row.time_share.unwrap_or(0.0);
        model.coverage.kernels += 1;
        model.coverage.share += share;
        match kernel_points(run, run_index, fig, precision) {
            Ok((points, infos)) => {
                model.coverage.plotted += 1;
                model.coverage.plotted_share += share;
                for (i, n) in fig.levels.notes.iter().enumerate() {
                    let note = [fig.short.as_str(), ": ", n].concat();
                    if fig.levels.flagged.contains(&i) {
                        model.flagged_levels.push(note);
                    } else if fig.levels.unseen_tma == Some(i) {
                        model.unseen_tma.push(fig.short.clone());
                    } else {
                        model.notes.push(note);
                    }
                }
                let r = KernelRef {
                    run: run_index,
                    kernel: k,
                };
                model.chart.series.push(KernelSeries {
                    label: fig.short.clone(),
                    color: run.colors.get(k).copied().unwrap_or(0),
                    run: marker_run,
                    selected: selected.contains(&r),
                    labelled: false,
                    rank: run.rank.get(k).copied(),
                    points,
                });
                model.infos.push(infos);
                model.refs.push(r);
            }
            Err(note) if note.ends_with(NO_FLOPS) => {
                model.no_flops.push((fig.short.clone(), share))
            }
            Err(note) => model.notes.push(note),
        }
    }
}

/// The line under the chart when it leaves kernels out: how many are plotted and their
/// share of the kernel time, then those without FLOPs at the precision, largest first.
fn coverage_line(model: &mut RooflineModel, precision: Plotted) -> Option<String> {
    let c = model.coverage;
    let pct = |part: f64| {
        if c.share > 0.0 {
            format!(", {:.0} % of kernel time", 100.0 * part / c.share)
        } else {
            String::new()
        }
    };
    if c.kernels == 0 || c.plotted == c.kernels {
        return None;
    }
    let mut line = format!(
        "{} of {} kernels plotted{}",
        c.plotted,
        c.kernels,
        pct(c.plotted_share)
    );
    if !model.no_flops.is_empty() {
        const SHOWN: usize = 12;
        shared::order::sort_by(&mut model.no_flops, |a, b| b.1.total_cmp(&a.1));
        let n = model.no_flops.len();
        let left: f64 = model.no_flops.iter().map(|(_, s)| s).sum();
        let mut names = model.no_flops[..n.min(SHOWN)]
            .iter()
            .map(|(name, _)| name.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        if n > SHOWN {
            names.push_str(&format!(" and {} more", n - SHOWN));
        }
        let without = match precision {
            Plotted::Kind(w) => format!("{} {}s", w.label(), w.unit()),
            Plotted::Own => "FLOPs or OPs".to_string(),
        };
        let share = if c.share > 0.0 {
            format!(" ({:.0} %)", 100.0 * left / c.share)
        } else {
            String::new()
        };
        line.push_str(&format!(
            "; {n} without {without} (counted or hand-counted){share}, largest first: {names}"
        ));
    }
    Some(line)
}

/// The points flagged for a level with fewer bytes than the one beyond it, in one line
/// with their count (the suite had 15 lines of them).
fn flagged_levels_line(flagged: &[String]) -> Option<String> {
    if flagged.is_empty() {
        return None;
    }
    const SHOWN: usize = 4;
    let n = flagged.len();
    let more = n.saturating_sub(SHOWN);
    Some(format!(
        "{n} point(s) flagged, a level with fewer bytes than the one beyond it (the \
         counters disagree; the point is drawn all the same): {}{}",
        flagged[..n.min(SHOWN)].join("; "),
        if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        }
    ))
}

/// Why the chart is an empty frame, when counters were read and none of them counts
/// arithmetic (a `--set basic` report): the line above the others.
fn empty_line(model: &RooflineModel, precision: Plotted) -> Option<String> {
    let c = model.coverage;
    (precision == Plotted::Own
        && !model.analytic
        && c.plotted == 0
        && c.kernels > 0
        && model.no_flops.len() == c.kernels)
        .then(|| {
            "Nothing to plot: no kernel has FLOP or OP counts, as when Nsight Compute ran with \
             --set basic, which collects no instruction counters; profile with --set full (or \
             add --section SpeedOfLight_RooflineChart) for a roofline."
                .to_string()
        })
}

/// The chart's subtitle: what is plotted, where bytes and FLOPs came from, and the time;
/// for an `empty` chart, that there is nothing to plot (a `--set basic` report's frame was
/// roofs only, the why under it and the export buttons).
fn subtitle(analytic: bool, precision: Plotted, runs: &[&RunView], empty: bool) -> String {
    if empty {
        return "Nothing to plot: no kernel has FLOP or OP counts (profile with --set full; see \
                below)"
            .into();
    }
    let time = if runs
        .iter()
        .flat_map(|r| r.kernels.iter())
        .any(|k| k.row.time_source == Some(TimeSource::NcuDuration))
    {
        "time: event median where timed, else ncu duration"
    } else {
        "time: CUDA event median"
    };
    let kind = if analytic {
        "analytic: event time and hand-counted bytes and FLOPs (no counters)"
    } else {
        "bytes and FLOPs from ncu counters"
    };
    format!("{}, {kind}, {time}", precision.label())
}

fn finish(model: &mut RooflineModel, title: String, precision: Plotted, runs: &[&RunView]) {
    model.analytic = runs.iter().all(|r| !r.has_counters());
    if let Some(line) = coverage_line(model, precision) {
        model.notes.insert(0, line);
    }
    let empty = empty_line(model, precision);
    model.chart.title = title;
    model.chart.subtitle = subtitle(model.analytic, precision, runs, empty.is_some());
    if let Some(line) = empty {
        model.notes.insert(0, line);
    }
    let flagged = model.chart.flag_points_above_roofs();
    if flagged > 0 {
        // One line with the count, however many points (15 on the suite's L1 points).
        const SHOWN: usize = 6;
        let named: Vec<String> = model
            .chart
            .series
            .iter()
            .zip(&model.infos)
            .flat_map(|(series, infos)| series.points.iter().zip(infos))
            .filter(|(p, _)| p.above_roof)
            .map(|(_, info)| format!("{} ({})", info.short, info.level.label()))
            .collect();
        let more = named.len().saturating_sub(SHOWN);
        model.notes.push(format!(
            "{flagged} point(s) above the roof at their intensity, flagged on the chart: a count \
             or the time is wrong (often hand-counted bytes that caches served): {}{}",
            named
                .iter()
                .take(SHOWN)
                .cloned()
                .collect::<Vec<_>>()
                .join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if let Some(line) = flagged_levels_line(&model.flagged_levels) {
        model.notes.push(line);
    }
    if !model.unseen_tma.is_empty() {
        // One line for them all: GPT-2 had five of 150 characters each.
        model.notes.push(format!(
            "{} tensor kernel(s) without an L1 point ({}): {}",
            model.unseen_tma.len(),
            shared::analysis::levels::tma_unseen(),
            model.unseen_tma.join(", ")
        ));
    }
    let clipped = model.chart.fit().clipped;
    if !clipped.is_empty() {
        let named: Vec<String> = clipped
            .iter()
            .take(6)
            .filter_map(|&(s, p)| {
                let info = model.infos.get(s)?.get(p)?;
                Some(format!(
                    "{} ({}, {} FLOP/B, {})",
                    info.short,
                    info.level.label(),
                    sig3(info.flop_per_byte()),
                    fmt_si(info.gflop_per_s() * 1e9, "FLOP/s")
                ))
            })
            .collect();
        let more = clipped.len().saturating_sub(named.len());
        model.notes.push(format!(
            "{} point(s) far from the others are drawn at the edge of the axes, with an arrow \
             pointing out: {}{}",
            clipped.len(),
            named.join("; "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if let Plotted::Kind(w) = precision {
        if model.chart.roofs.iter().all(|r| r.gflop_per_s.is_none()) {
            model.notes.push(format!(
                "The data has no {} compute peak: only bandwidth roofs are drawn.",
                w.label()
            ));
        }
    }
    if model.infos.iter().flatten().any(|i| {
        i.flops_note
            .as_deref()
            .is_some_and(|n| n.contains("derived"))
    }) {
        model.notes.push(
            "Some points' bytes or FLOPs are derived from rates (rate x duration or per-cycle \
             value x cycles): the export has no totals for them."
                .to_string(),
        );
    }
}

/// Marks the `n` series of the highest rank (most time) as labelled.
fn label_top(chart: &mut RooflineChart, n: usize) {
    let mut order: Vec<usize> = (0..chart.series.len()).collect();
    shared::order::sort_by_key(&mut order, |&i| {
        (chart.series[i].rank.unwrap_or(usize::MAX), i)
    });
    for i in order.into_iter().take(n) {
        chart.series[i].labelled = true;
    }
}

/// The roofline of one run, every kernel. Nothing is emphasised: the page draws the
/// selected kernel on a layer of its own (see [`RooflineModel::series_of`]), so selecting a
/// kernel never rebuilds or redraws the chart.
pub fn run_roofline(ws: &Workspace, run_index: usize, precision: Plotted) -> RooflineModel {
    let mut model = RooflineModel::default();
    let Some(run) = ws.runs.get(run_index) else {
        return model;
    };
    model.chart.roofs = roofs(&run.run.artifact, precision, &run.plotted_kinds());
    let all: Vec<usize> = (0..run.kernels.len()).collect();
    add_run(&mut model, run, run_index, &all, &[], precision, 0);
    label_top(&mut model.chart, LABELLED);
    let device = run.run.artifact.device.as_ref().map(|d| d.name.clone());
    let title = match device {
        Some(d) => format!("{} on {d}", run.run.name),
        None => run.run.name.clone(),
    };
    finish(&mut model, title, precision, &[run]);
    model
}

/// A comparison roofline. Two runs: every kernel of both, same-named kernels joined
/// before → after. One run: the two kernels, joined.
pub fn compare_roofline(
    ws: &Workspace,
    a: KernelRef,
    b: KernelRef,
    precision: Plotted,
) -> RooflineModel {
    let mut model = RooflineModel::default();
    let (Some(ra), Some(rb)) = (ws.runs.get(a.run), ws.runs.get(b.run)) else {
        return model;
    };
    model.chart.roofs = roofs(&ra.run.artifact, precision, &ra.plotted_kinds());
    let sel = [a, b];
    if a.run == b.run {
        add_run(
            &mut model,
            ra,
            a.run,
            &[a.kernel, b.kernel],
            &sel,
            precision,
            0,
        );
    } else {
        if ra.run.artifact.device != rb.run.artifact.device {
            for mut roof in roofs(&rb.run.artifact, precision, &rb.plotted_kinds()) {
                roof.label = format!("{} (second run)", roof.label);
                model.chart.roofs.push(roof);
            }
        }
        let ka: Vec<usize> = (0..ra.kernels.len()).collect();
        let kb: Vec<usize> = (0..rb.kernels.len()).collect();
        add_run(&mut model, ra, a.run, &ka, &sel, precision, 0);
        add_run(&mut model, rb, b.run, &kb, &sel, precision, 1);
    }
    // Join the pair, or each kernel of the first run to its match in the second
    // (`shared::analysis::diff`'s matching, as `capture diff` pairs them), with an arrow.
    let pairs: Vec<(KernelRef, KernelRef)> = if a.run == b.run {
        vec![(a, b)]
    } else {
        shared::analysis::diff::match_kernels(&ra.run.artifact, &rb.run.artifact)
            .pairs
            .iter()
            .map(|p| {
                let r = |run, kernel| KernelRef { run, kernel };
                (r(a.run, p.before), r(b.run, p.after))
            })
            .collect()
    };
    for (from, to) in pairs {
        let at = |r: KernelRef| model.refs.iter().position(|x| *x == r);
        if let (Some(i), Some(j)) = (at(from), at(to)) {
            model.chart.links.push(SeriesLink { from: i, to: j });
        }
    }
    let title = if a.run == b.run {
        format!("{}: two kernels", ra.run.name)
    } else {
        format!("{} (circles) vs {} (triangles)", ra.run.name, rb.run.name)
    };
    let runs: Vec<&RunView> = if a.run == b.run {
        vec![ra]
    } else {
        vec![ra, rb]
    };
    finish(&mut model, title, precision, &runs);
    model
}

/// A kernel of the page's list of the chart's points ([`point_list`]).
#[derive(Clone, Debug, PartialEq)]
pub struct ListedKernel {
    /// The kernel.
    pub kernel: KernelRef,
    /// Its rank by time in its run (1 = most time), as on the chart.
    pub rank: usize,
    /// Its colour on the chart, as CSS (`rgb(0, 114, 178)`).
    pub color: String,
    /// Short name.
    pub short: String,
    /// Whole name.
    pub name: String,
    /// Share of the run's time (`20.6 %`, empty when unknown).
    pub share: String,
    /// Verdict (empty for none).
    pub verdict: String,
    /// The verdict's reason (on hover).
    pub why: String,
    /// The table's advice on it (`shared::analysis::advice`: an FP32 matrix multiply off
    /// the tensor cores), when it has some.
    pub advice: Option<String>,
    /// Its points, in the chart's order.
    pub points: Vec<ListedPoint>,
}

/// A point of a [`ListedKernel`].
#[derive(Clone, Debug, PartialEq)]
pub struct ListedPoint {
    /// Which bytes (`DRAM`).
    pub level: &'static str,
    /// Intensity, FLOP (or OP) per byte.
    pub flop_per_byte: f64,
    /// Rate, GFLOP/s (or GOP/s).
    pub gflop_per_s: f64,
    /// Drawn at the edge of the axes (beyond them).
    pub clipped: bool,
    /// For people: `DRAM: 12.3 FLOP/B at 790 TFLOP/s (tensor BF16)`.
    pub text: String,
}

/// The series of `model` drawn from run `run`, by rank (most time first), with every
/// point, until `max_points` points are listed.
pub fn point_list(
    ws: &Workspace,
    run: usize,
    model: &RooflineModel,
    max_points: usize,
) -> Vec<ListedKernel> {
    let clipped = model.chart.fit().clipped;
    let mut order: Vec<usize> = (0..model.chart.series.len()).collect();
    shared::order::sort_by_key(&mut order, |&i| {
        (model.chart.series[i].rank.unwrap_or(usize::MAX), i)
    });
    let mut out = Vec::new();
    let mut listed = 0;
    for si in order {
        let (Some(series), Some(infos), Some(&r)) = (
            model.chart.series.get(si),
            model.infos.get(si),
            model.refs.get(si),
        ) else {
            continue;
        };
        if r.run != run && model.refs.iter().all(|x| x.run == r.run) {
            continue;
        }
        if listed + infos.len() > max_points && listed > 0 {
            break;
        }
        let Some((_, fig)) = ws.kernel(r) else {
            continue;
        };
        let points: Vec<ListedPoint> = series
            .points
            .iter()
            .zip(infos)
            .enumerate()
            .map(|(pi, (p, info))| {
                let unit = info.kind.unit();
                ListedPoint {
                    level: p.level.label(),
                    flop_per_byte: p.flop_per_byte,
                    gflop_per_s: p.gflop_per_s,
                    clipped: clipped.contains(&(si, pi)),
                    text: format!(
                        "{}: {} {unit}/B at {} ({}){}",
                        p.level.label(),
                        sig3(p.flop_per_byte),
                        fmt_si(p.gflop_per_s * 1e9, &format!("{unit}/s")),
                        info.kind.label(),
                        if clipped.contains(&(si, pi)) {
                            ", outside the axes"
                        } else {
                            ""
                        }
                    ),
                }
            })
            .collect();
        listed += points.len();
        out.push(ListedKernel {
            kernel: r,
            rank: series.rank.unwrap_or(0),
            color: shared::chart::palette_css(series.color),
            short: fig.short.clone(),
            name: fig.name.clone(),
            share: fig
                .row
                .time_share
                .map(|s| format!("{:.1} %", s * 100.0))
                .unwrap_or_default(),
            verdict: fig
                .verdict
                .as_ref()
                .map(|v| v.kind.as_str().to_string())
                .unwrap_or_default(),
            why: fig
                .verdict
                .as_ref()
                .map(|v| v.reason.clone())
                .unwrap_or_default(),
            advice: fig.row.advice.clone(),
            points,
        });
    }
    out
}

/// Quotes a CSV field when it needs it.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

impl RooflineModel {
    /// The series that draws kernel `r`, if it has a point.
    pub fn series_of(&self, r: KernelRef) -> Option<usize> {
        self.refs.iter().position(|x| *x == r)
    }

    /// The chart's data as CSV: one line per point, raw numbers.
    pub fn to_csv(&self) -> String {
        let mut out = String::from(
            "run,kernel,level,precision,flops,bytes,time_ms,flop_per_byte,gflop_per_s,above_roof\n",
        );
        for (series, infos) in self.chart.series.iter().zip(&self.infos) {
            for (p, info) in series.points.iter().zip(infos) {
                out.push_str(&format!(
                    "{},{},{},{},{},{},{},{},{},{}\n",
                    csv_field(&info.run_name),
                    csv_field(&info.name),
                    info.level.label(),
                    info.kind.key(),
                    info.flops,
                    info.bytes,
                    info.time_ms,
                    p.flop_per_byte,
                    p.gflop_per_s,
                    p.above_roof
                ));
            }
        }
        out
    }
}

/// What the roofline canvas says to assistive technology (its `aria-label`): the title and
/// subtitle, how many kernels, and the top three by time with where each sits (its DRAM
/// point, else its first): "1 gemm_kernel at 12.3 FLOP/byte, 4.56 TFLOP/s (DRAM)". The
/// label was the subtitle alone (issue 53).
pub fn aria_summary(chart: &RooflineChart) -> String {
    let top: Vec<String> = (1..=3)
        .filter_map(|rank| chart.series.iter().find(|s| s.rank == Some(rank)))
        .filter_map(|s| {
            let p = s
                .points
                .iter()
                .find(|p| p.level == Level::Dram)
                .or(s.points.first())?;
            Some(format!(
                "{} {} at {} FLOP/byte, {} ({})",
                s.rank.unwrap_or_default(),
                s.label,
                sig3(p.flop_per_byte),
                fmt_si(p.gflop_per_s * 1e9, "FLOP/s"),
                p.level.label()
            ))
        })
        .collect();
    let mut out = format!(
        "{}: {}. {} kernels",
        chart.title,
        chart.subtitle,
        chart.series.len()
    );
    if !top.is_empty() {
        out.push_str("; most time: ");
        out.push_str(&top.join("; "));
    }
    out.push('.');
    out
}

#[cfg(test)]
mod tests {

    /// The canvas's summary names the three kernels with the most time, in rank order, with
    /// where each sits, on GPT-2 (the site's sample).
    #[test]
    fn aria_summary_names_the_top_points() {
        let ws = super::super::test_support::sample("h200-gpt2-bf16.json");
        let m = super::run_roofline(&ws, 0, super::Plotted::Own);
        let text = super::aria_summary(&m.chart);
        assert!(text.starts_with(&m.chart.title), "{text}");
        let run = &ws.runs[0];
        let mut at = 0;
        for (n, &k) in run.by_time.iter().take(3).enumerate() {
            let Some(s) = m.chart.series.iter().find(|s| s.rank == Some(n + 1)) else {
                continue;
            };
            let needle = format!("{} {} at ", n + 1, s.label);
            let found = text[at..]
                .find(&needle)
                .unwrap_or_else(|| panic!("{needle} in {text}"));
            at += found + needle.len();
            assert!(!run.kernels[k].label.is_empty());
        }
        assert!(text.contains("FLOP/byte"), "{text}");
    }
    use super::*;
    use crate::state::test_support::{fixture, packed_fixture, sample};
    use crate::state::view::precision_slug;
    use shared::model::artifact::{AskedWork, Check, Timing};

    fn fixture_ws() -> Workspace {
        fixture_named("probe_full_raw.csv")
    }

    /// A page of the H200 probe suite, `tests/fixtures/ncu-h200/NAME`.
    fn fixture_named(name: &str) -> Workspace {
        fixture(&format!("ncu-h200/{name}"))
    }

    #[test]
    fn measured_points_use_the_table_numbers() {
        let ws = fixture_ws();
        let model = run_roofline(&ws, 0, Plotted::Kind(Work::Fp32));
        assert!(!model.analytic);
        let run = &ws.runs[0];
        for (series, (infos, r)) in model
            .chart
            .series
            .iter()
            .zip(model.infos.iter().zip(&model.refs))
        {
            let row = &run.kernels[r.kernel].row;
            for (p, info) in series.points.iter().zip(infos) {
                assert_eq!(Some(info.time_ms), row.time_ms);
                if info.level == Level::Dram {
                    assert_eq!(Some(info.bytes), row.dram_bytes);
                    let want = row.gflops.unwrap_or_default();
                    assert!(
                        (p.gflop_per_s - want).abs() <= 1e-9 * want.max(1.0),
                        "{p:?} vs {want}"
                    );
                }
            }
        }
        let csv = model.to_csv();
        assert!(csv.starts_with("run,kernel,level"));
    }

    #[test]
    fn without_counters_the_roofline_is_analytic() {
        let mut ws = fixture_ws();
        let mut run = ws.runs[0].run.clone();
        for k in &mut run.artifact.kernels {
            k.cold = None;
            k.asked = Some(Box::new(AskedWork {
                bytes: 12.0 * 1024.0,
                flops: 1024.0,
                precision: shared::model::artifact::Precision::Fp32,
                formula: "3 x n x 4".into(),
            }));
            k.timing = Some(Box::new(Timing {
                warmups: 3,
                min_ms: 0.001,
                median_ms: 0.002,
                max_ms: 0.003,
                samples_ms: vec![0.002],
            }));
        }
        ws.runs.clear();
        ws.add(vec![run]);
        let model = run_roofline(&ws, 0, Plotted::Kind(Work::Fp32));
        assert!(model.analytic);
        assert!(model.chart.subtitle.contains("analytic"));
        assert!(model
            .chart
            .series
            .iter()
            .all(|s| s.points.iter().all(|p| p.level == Level::Asked)));
        assert!(!model.chart.series.is_empty());
    }

    #[test]
    fn a_failed_check_gets_no_point() {
        let mut ws = fixture_ws();
        let mut run = ws.runs[0].run.clone();
        run.artifact.kernels[0].check = Some(Box::new(Check {
            passed: false,
            detail: "max error 3.0".into(),
            max_abs_error: Some(3.0),
        }));
        ws.runs.clear();
        ws.add(vec![run]);
        let model = run_roofline(&ws, 0, Plotted::Kind(Work::Fp32));
        assert!(model.refs.iter().all(|r| r.kernel != 0));
        assert!(model
            .notes
            .iter()
            .any(|n| n.contains("failed its CPU reference check")));
    }

    #[test]
    fn two_runs_join_same_named_kernels() {
        let mut ws = fixture_named("probe_metrics_raw_with_stdout.csv");
        let again = ws.runs[0].run.clone();
        ws.add(vec![again]);
        let a = KernelRef { run: 0, kernel: 1 };
        let b = KernelRef { run: 1, kernel: 1 };
        let model = compare_roofline(&ws, a, b, Plotted::Kind(Work::Fp32));
        assert!(!model.chart.links.is_empty(), "{:?}", model.notes);
        for link in &model.chart.links {
            let (from, to) = (model.refs[link.from], model.refs[link.to]);
            assert_eq!((from.run, to.run), (0, 1));
            assert_eq!(from.kernel, to.kernel);
        }
        assert!(model.chart.series.iter().any(|s| s.run == 1));
    }

    #[test]
    fn the_selected_kernel_is_found_by_reference() {
        let ws = fixture_named("probe_metrics_raw_with_stdout.csv");
        let model = run_roofline(&ws, 0, Plotted::Kind(Work::Fp32));
        assert!(model.chart.series.iter().all(|s| !s.selected));
        for (i, r) in model.refs.iter().enumerate() {
            assert_eq!(model.series_of(*r), Some(i));
        }
        // copy has no FP32 FLOPs, so no series.
        let copy = ws.runs[0]
            .kernels
            .iter()
            .position(|k| k.short == "copy")
            .map(|kernel| KernelRef { run: 0, kernel });
        assert!(copy.is_some());
        assert_eq!(copy.and_then(|r| model.series_of(r)), None);
    }

    #[test]
    fn kernels_without_flops_share_one_note() {
        let ws = fixture_named("probe_metrics_raw_with_stdout.csv");
        let model = run_roofline(&ws, 0, Plotted::Kind(Work::Fp32));
        assert_eq!(
            model
                .no_flops
                .iter()
                .map(|(n, _)| n.as_str())
                .collect::<Vec<_>>(),
            vec!["copy"]
        );
        assert!(
            model.notes[0].starts_with("1 of 2 kernels plotted, ")
                && model.notes[0].contains("; 1 without FP32 FLOPs (counted or hand-counted) ("),
            "{:?}",
            model.notes
        );
        // fma_loop has FFMA counters: DRAM, L2 and L1 points.
        let levels: Vec<Level> = model.chart.series[0]
            .points
            .iter()
            .map(|p| p.level)
            .collect();
        assert_eq!(levels, vec![Level::Dram, Level::L2, Level::L1]);
    }

    #[test]
    fn samples_draw_no_register_moves_as_fp16_and_no_unseen_l1_point() {
        // Issue 23: the suite's FP32 kernels and GPT-2's copy and elementwise kernels count
        // HFMA2.MMA register moves; none is plotted as FP16 work. GPT-2's TMA GEMMs get no
        // L1 point (their L1 counters do not see TMA), and the notes say why.
        for name in ["h200.json", "h200-gpt2-bf16.json"] {
            let ws = sample(name);
            let model = run_roofline(&ws, 0, Plotted::Own);
            assert!(!model.chart.series.is_empty());
            for info in model.infos.iter().flatten() {
                assert_ne!(info.kind, Work::Fp16, "{}", info.name);
            }
            for (series, infos) in model.chart.series.iter().zip(&model.infos) {
                let at = |level: Level| {
                    series
                        .points
                        .iter()
                        .find(|p| p.level == level)
                        .map(|p| p.flop_per_byte)
                };
                if let (Some(l1), Some(l2)) = (at(Level::L1), at(Level::L2)) {
                    let short = &series.label;
                    let flagged = model
                        .flagged_levels
                        .iter()
                        .any(|n| n.starts_with(&format!("{short}: L1 point flagged")));
                    assert!(l1 <= l2 || flagged, "{} {l1} {l2}", infos[0].name);
                }
            }
        }
        let ws = sample("h200-gpt2-bf16.json");
        let model = run_roofline(&ws, 0, Plotted::Own);
        let gemm = model
            .chart
            .series
            .iter()
            .find(|s| s.label.starts_with("nvjet_sm90_tst_256x128"))
            .expect("the 4096^3 GEMM");
        assert!(gemm.points.iter().all(|p| p.level != Level::L1));
        // The GEMMs without an L1 point are named in one line.
        let unseen: Vec<_> = model
            .notes
            .iter()
            .filter(|n| n.contains("without an L1 point"))
            .collect();
        assert_eq!(unseen.len(), 1, "{:?}", model.notes);
        assert!(unseen[0].starts_with("5 tensor kernel(s) without an L1 point (TMA unseen by "));
        assert!(unseen[0].contains(&gemm.label), "{}", unseen[0]);
        assert!(!model.notes.iter().any(|n| n.contains(": no L1 point")));
    }

    /// The labels `shared::chart` drew for `model` at `w` x `h`, with the drawn points.
    fn drawn(model: &RooflineModel, w: u32, h: u32) -> shared::chart::Drawn {
        use plotters::prelude::*;
        let mut svg = String::new();
        let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
        shared::chart::draw_roofline(&root, &model.chart, 1.0).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn applications_label_their_top_five_apart_and_list_every_point() {
        let bert = fixture("ncu-h200-bert/bert_full_raw.csv");
        for (name, ws) in [("gpt2", sample("h200-gpt2-bf16.json")), ("bert", bert)] {
            for precision in [Plotted::Own, Plotted::Kind(Work::Fp32)] {
                let model = run_roofline(&ws, 0, precision);
                let run = &ws.runs[0];
                // One colour per kernel, the same in every mode.
                for (s, r) in model.chart.series.iter().zip(&model.refs) {
                    assert_eq!(s.color, run.colors[r.kernel]);
                }
                for (w, h) in [(700, 480), (1000, 640), (1400, 700)] {
                    if let Ok(dir) = std::env::var("ROOFLINE_SVG_DIR") {
                        let (svg, _) =
                            shared::chart::roofline_svg(&model.chart, w, h).unwrap_or_default();
                        let file = format!("{dir}/{name}-{}-{w}.svg", precision_slug(precision));
                        std::fs::write(file, svg).unwrap_or_default();
                    }
                    let d = drawn(&model, w, h);
                    let kernels: Vec<_> = d
                        .labels
                        .iter()
                        .filter(|l| matches!(l.of, shared::chart::LabelOf::Series(_)))
                        .collect();
                    let want = model.chart.series.len().min(LABELLED);
                    assert_eq!(kernels.len(), want, "{name} {w}x{h}: {:?}", d.labels);
                    for (i, a) in d.labels.iter().enumerate() {
                        for b in &d.labels[i + 1..] {
                            assert!(!a.rect.hits(&b.rect), "{name} {w}: {a:?} and {b:?}");
                        }
                        for p in &d.hits {
                            let dot = shared::chart::Box2::at(p.x - 4, p.y - 4, 8, 8);
                            assert!(!a.rect.hits(&dot), "{name} {w}: {a:?} covers {p:?}");
                        }
                    }
                }
                let listed = point_list(&ws, 0, &model, 10_000);
                let n: usize = listed.iter().map(|k| k.points.len()).sum();
                let drawn_points: usize = model.chart.series.iter().map(|s| s.points.len()).sum();
                assert_eq!(n, drawn_points, "{name}");
                assert!(listed.windows(2).all(|w| w[0].rank < w[1].rank));
                let fit = model.chart.fit();
                eprintln!(
                    "{name} {}: x {:?} y {:?} clipped {}",
                    precision.label(),
                    fit.x,
                    fit.y,
                    fit.clipped.len()
                );
            }
        }
    }

    #[test]
    fn a_basic_set_report_says_why_its_roofline_is_empty() {
        // `--set basic` collects no instruction counters: no kernel has FLOPs, so no point.
        let ws = packed_fixture("ncu-h200-reports/gemms_basic.ncu-rep");
        let model = run_roofline(&ws, 0, Plotted::Own);
        assert!(model.chart.series.is_empty(), "{:?}", model.chart.series);
        let first = model.notes.first().cloned().unwrap_or_default();
        assert!(
            first.starts_with("Nothing to plot") && first.contains("--set full"),
            "{:?}",
            model.notes
        );
        // The frame says it too.
        assert!(
            model.chart.subtitle.starts_with("Nothing to plot"),
            "{}",
            model.chart.subtitle
        );
        // A run with points gets no such line.
        let gpt2 = run_roofline(&sample("h200-gpt2-bf16.json"), 0, Plotted::Own);
        assert!(gpt2.notes.iter().all(|n| !n.starts_with("Nothing to plot")));
        assert!(!gpt2.chart.subtitle.starts_with("Nothing to plot"));
    }

    #[test]
    fn an_fp32_matmul_is_advised_in_the_list() {
        // T5's encoder in FP32 (a corpus program): its FP32 GEMMs (cutlass SIMT SGEMM at 32.4
        // TFLOP/s) are told to use TF32, the advice the table holds, in the list under the chart.
        let ws = packed_fixture("corpus-h200/t5_encoder_profile.json");
        let model = run_roofline(&ws, 0, Plotted::Own);
        let listed = point_list(&ws, 0, &model, 10_000);
        let advised: Vec<&ListedKernel> = listed.iter().filter(|k| k.advice.is_some()).collect();
        assert!(!advised.is_empty(), "no advice in {listed:?}");
        for k in &advised {
            let advice = k.advice.as_deref().unwrap_or_default();
            assert!(
                shared::analysis::advice::is_matmul_name(&k.name),
                "{} advised: {advice}",
                k.name
            );
            assert!(advice.contains("TF32"), "{advice}");
        }
        // Only where the table has it.
        let run = &ws.runs[0];
        for k in &listed {
            let row = run.kernels.iter().find(|f| f.index == k.kernel.kernel);
            assert_eq!(
                k.advice,
                row.and_then(|f| f.row.advice.clone()),
                "{}",
                k.name
            );
        }
    }

    #[test]
    fn a_far_outlier_is_clipped_not_fitted() {
        let ws = sample("h200-gpt2-bf16.json");
        let mut model = run_roofline(&ws, 0, Plotted::Own);
        let before = model.chart.fit();
        let first = &mut model.chart.series[0].points[0];
        first.flop_per_byte = 1e7;
        first.gflop_per_s = 0.01;
        let after = model.chart.fit();
        assert_eq!(after.clipped, vec![(0, 0)]);
        assert!(after.x.1 < 1e5, "{:?}", after.x);
        assert!(after.y.0 > 0.1, "{:?} (was {:?})", after.y, before.y);
    }

    #[test]
    fn csv_fields_are_quoted() {
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(csv_field("plain"), "plain");
    }
}
