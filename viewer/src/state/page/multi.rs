//! Sections for several runs read as one, shown on the overview and the compare page, as
//! markup: the devices of one host side by side with the slow ones flagged, and the ranks
//! of a job compared (each rank's kernel ranking, the slowest rank of each kernel). The
//! figures come from `state::multi`, which calls `shared::analysis::multi`.

use shared::analysis::multi::devices::{HostDevices, SLOW_PCT};
use shared::text::format::fmt_si;

use super::{tagged, PageNode};
use crate::state::markup::el;
use crate::state::model::Workspace;
use crate::state::multi::{host_devices, rank_jobs, JobView};

/// Kernel rows shown per job: the ones with the most time; the rest are counted.
const KERNEL_ROWS: usize = 100;

fn opt(value: Option<f64>, f: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "-".to_string(), f)
}

fn ms(v: f64) -> String {
    format!("{v:.4}")
}

/// One host's devices: a row per ceiling, a column per device, slow cells flagged.
fn host_table(h: HostDevices, names: &[String]) -> PageNode {
    let host = h.host.clone().unwrap_or_else(|| "an unnamed host".into());
    let flagged = h.flagged();
    let summary = if flagged.is_empty() {
        format!("No device is more than {SLOW_PCT} % below the median of its siblings.")
    } else {
        let lines: Vec<String> = flagged
            .iter()
            .map(|(col, ceiling, slow)| {
                let device = h.columns.get(*col).map(|c| c.label()).unwrap_or_default();
                format!(
                    "{device}: {} {:.1} % below",
                    ceiling.label(),
                    slow.pct_below
                )
            })
            .collect();
        format!(
            "More than {SLOW_PCT} % below the median of its siblings: {}.",
            lines.join("; ")
        )
    };
    let header = h.columns.iter().map(|c| {
        let file = names.get(c.input).cloned().unwrap_or_default();
        el("th")
            .attr("title", file)
            .text(c.label())
            .child(el("br"))
            .child(tagged("span", "muted", c.name.clone()))
    });
    let rows = h.rows.iter().map(|r| {
        let ceiling = r.ceiling;
        let cells = r.values.iter().zip(&r.slow).map(|(v, slow)| {
            let text = opt(*v, |v| {
                let (base, unit) = ceiling.in_base_units(v);
                fmt_si(base, &unit)
            });
            match slow {
                Some(s) => {
                    let (base, unit) = ceiling.in_base_units(s.sibling_median);
                    let why = format!(
                        "{:.1} % below the median of its siblings, {}",
                        s.pct_below,
                        fmt_si(base, &unit)
                    );
                    el("td")
                        .class("num slow")
                        .attr("title", why)
                        .text(text)
                        .text(" ▼ ")
                        .text(format!("{:.1} %", s.pct_below))
                }
                None => tagged("td", "num", text),
            }
        });
        el("tr")
            .child(el("th").attr("scope", "row").text(ceiling.label()))
            .children(cells)
    });
    let summary_class = if flagged.is_empty() {
        "devices-summary"
    } else {
        "devices-summary warning"
    };
    el("div")
        .class("host-devices")
        .child(el("h4").text(format!("{host}: {} devices", h.columns.len())))
        .child(tagged("p", summary_class, summary))
        .child(
            el("table")
                .class("grid devices-table")
                .child(el("thead").child(el("tr").child(el("th").text("ceiling")).children(header)))
                .child(el("tbody").children(rows)),
        )
        .into()
}

/// The devices of each host side by side, when runs of two devices or more of one host are
/// loaded; with `only`, only the host of that run. `None` when there is nothing to show.
pub fn devices_section(ws: &Workspace, only: Option<usize>) -> Option<PageNode> {
    let names: Vec<String> = ws.runs.iter().map(|r| r.run.name.clone()).collect();
    let hosts: Vec<HostDevices> = host_devices(ws)
        .into_iter()
        .filter(|h| only.is_none_or(|r| h.columns.iter().any(|c| c.input == r)))
        .collect();
    if hosts.is_empty() {
        return None;
    }
    Some(
        el("section")
            .class("multi devices")
            .id("devices-side-by-side")
            .child(el("h3").text("Devices side by side"))
            .child(tagged(
                "p",
                "muted",
                format!(
                    "Each device's ceilings from its own capture run, measured one device after \
                     the other. A value more than {SLOW_PCT} % below the median of the same \
                     ceiling on the host's other devices is flagged ▼."
                ),
            ))
            .children(hosts.into_iter().map(|h| host_table(h, &names)))
            .into(),
    )
}

/// A job's ranks compared: summed time per rank, then each kernel's time and place per rank
/// with the slowest rank.
fn job_table(j: JobView) -> PageNode {
    let key = &j.job.key;
    let ranks: Vec<String> = j.comparison.ranks.iter().map(u32::to_string).collect();
    let of = key
        .world_size
        .map_or_else(String::new, |n| format!(" of {n}"));
    let mut about = format!(
        "{} job{}: ranks {}{of} loaded",
        key.launcher.label(),
        key.job_id
            .as_ref()
            .map_or_else(String::new, |id| format!(" {id}")),
        ranks.join(", ")
    );
    let hosts = j.job.hosts();
    if !hosts.is_empty() {
        about.push_str(&format!(", on {}", hosts.join(", ")));
    }
    if !j.job.missing.is_empty() {
        let missing: Vec<String> = j.job.missing.iter().map(u32::to_string).collect();
        about.push_str(&format!("; not loaded: {}", missing.join(", ")));
    }
    if !j.job.duplicated.is_empty() {
        let dup: Vec<String> = j.job.duplicated.iter().map(u32::to_string).collect();
        about.push_str(&format!("; loaded twice: {}", dup.join(", ")));
    }
    let c = j.comparison;
    let rank_of = |col: Option<usize>| {
        col.and_then(|i| c.ranks.get(i))
            .map_or_else(|| "-".to_string(), u32::to_string)
    };
    let slowest = |yes: bool| if yes { "num slowest" } else { "num" };
    let header = ranks.iter().map(|r| el("th").text(format!("rank {r}")));
    let totals = c
        .total_ms
        .iter()
        .enumerate()
        .map(|(i, t)| tagged("td", slowest(c.slowest_total == Some(i)), opt(*t, ms)));
    let more = c.kernels.len().saturating_sub(KERNEL_ROWS);
    let rows = c.kernels.iter().take(KERNEL_ROWS).map(|k| {
        let cells = k
            .time_ms
            .iter()
            .zip(&k.place)
            .enumerate()
            .map(|(i, (t, place))| {
                let place = place.map_or_else(String::new, |p| format!(" #{p}"));
                tagged("td", slowest(k.slowest == Some(i)), opt(*t, ms))
                    .child(tagged("span", "muted", place))
            });
        el("tr")
            .child(
                el("td")
                    .class("name")
                    .attr("title", k.name.clone())
                    .text(k.short_name.clone()),
            )
            .children(cells)
            .child(tagged("td", "num", rank_of(k.slowest)))
            .child(tagged(
                "td",
                "num",
                opt(k.slowest_over_median, |v| format!("{v:.2}")),
            ))
    });
    el("div")
        .class("job")
        .child(tagged("p", "job-about", about))
        .child(
            el("table")
                .class("grid ranks-table")
                .child(
                    el("thead").child(
                        el("tr")
                            .child(el("th").text("kernel"))
                            .children(header)
                            .child(el("th").text("slowest rank"))
                            .child(el("th").text("slowest / median")),
                    ),
                )
                .child(
                    el("tbody")
                        .child(
                            el("tr")
                                .class("total")
                                .child(el("th").attr("scope", "row").text("all kernels, ms"))
                                .children(totals)
                                .child(tagged("td", "num", rank_of(c.slowest_total)))
                                .child(el("td")),
                        )
                        .children(rows),
                ),
        )
        .children((more > 0).then(|| {
            tagged(
                "p",
                "muted",
                format!("{more} more kernels with less time are not shown."),
            )
        }))
        .into()
}

/// The ranks of each job with two or more ranks loaded (files opened together); `None`
/// when there is none.
pub fn ranks_section(ws: &Workspace) -> Option<PageNode> {
    let jobs = rank_jobs(ws);
    if jobs.is_empty() {
        return None;
    }
    Some(
        el("section")
            .class("multi ranks")
            .id("ranks-compared")
            .child(el("h3").text("Ranks of one job"))
            .child(tagged(
                "p",
                "muted",
                "Each kernel's time (ms, summed over its launches) on every rank, with its \
                 place in that rank's ranking (#1: the most time), the rank that spent the \
                 most time in it, and how far that rank lags the median rank: at the next \
                 collective, the other ranks wait for the slowest.",
            ))
            .children(jobs.into_iter().map(job_table))
            .into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_run_has_no_sections() {
        let ws = Workspace::default();
        assert!(devices_section(&ws, None).is_none());
        assert!(ranks_section(&ws).is_none());
    }
}
