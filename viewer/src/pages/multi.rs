//! Sections for several runs read as one, shown on the overview and the compare page: the
//! devices of one host side by side with the slow ones flagged, and the ranks of a job
//! compared (each rank's kernel ranking, the slowest rank of each kernel). The figures come
//! from `state::multi`, which calls `shared::analysis::multi`.

use leptos::prelude::*;
use shared::analysis::multi::devices::{HostDevices, SLOW_PCT};
use shared::text::format::fmt_si;

use crate::ctx::Ctx;
use crate::state::multi::{host_devices, rank_jobs, JobView};
use shared::text::format::{ms, opt};

/// Kernel rows shown per job: the ones with the most time; the rest are counted.
const KERNEL_ROWS: usize = 100;

/// The ranks of each job with two or more ranks loaded, then the devices of each host.
#[component]
pub fn RanksAndDevices() -> impl IntoView {
    view! {
        <RanksSection />
        <DevicesSection only=None />
    }
}

/// The devices of each host side by side, when runs of two devices or more of one host are
/// loaded; with `only`, only the host of that run.
#[component]
pub fn DevicesSection(
    /// Only the host of this run, if given.
    only: Option<usize>,
) -> impl IntoView {
    let ctx = Ctx::get();
    move || {
        let (hosts, names) = ctx.ws.with(|ws| {
            let names: Vec<String> = ws.runs.iter().map(|r| r.run.name.clone()).collect();
            let hosts: Vec<HostDevices> = host_devices(ws)
                .into_iter()
                .filter(|h| only.is_none_or(|r| h.columns.iter().any(|c| c.input == r)))
                .collect();
            (hosts, names)
        });
        (!hosts.is_empty()).then(|| {
            view! {
                <section class="multi devices" id="devices-side-by-side">
                    <h3>"Devices side by side"</h3>
                    <p class="muted">
                        {format!(
                            "Each device's ceilings from its own capture run, measured one device \
                             after the other. A value more than {SLOW_PCT} % below the median of the \
                             same ceiling on the host's other devices is flagged ▼."
                        )}
                    </p>
                    {hosts.into_iter().map(|h| host_table(h, &names)).collect_view()}
                </section>
            }
        })
    }
}

/// One host's devices: a row per ceiling, a column per device, slow cells flagged.
fn host_table(h: HostDevices, names: &[String]) -> impl IntoView {
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
    let summary_class = if flagged.is_empty() {
        "devices-summary"
    } else {
        "devices-summary warning"
    };
    let header = h
        .columns
        .iter()
        .map(|c| {
            let file = names.get(c.input).cloned().unwrap_or_default();
            view! {
                <th title=file>
                    {c.label()}
                    <br />
                    <span class="muted">{c.name.clone()}</span>
                </th>
            }
        })
        .collect_view();
    let rows = h
        .rows
        .iter()
        .map(|r| {
            let ceiling = r.ceiling;
            let cells = r
                .values
                .iter()
                .zip(&r.slow)
                .map(|(v, slow)| {
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
                            let flag = format!("{text} ▼ {:.1} %", s.pct_below);
                            view! { <td class="num slow" title=why>{flag}</td> }.into_any()
                        }
                        None => view! { <td class="num">{text}</td> }.into_any(),
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <th scope="row">{ceiling.label()}</th>
                    {cells}
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="host-devices">
            <h4>{format!("{host}: {} devices", h.columns.len())}</h4>
            <p class=summary_class>{summary}</p>
            <table class="grid devices-table">
                <thead>
                    <tr>
                        <th>"ceiling"</th>
                        {header}
                    </tr>
                </thead>
                <tbody>{rows}</tbody>
            </table>
        </div>
    }
}

/// The ranks of each job with two or more ranks loaded (files opened together).
#[component]
fn RanksSection() -> impl IntoView {
    let ctx = Ctx::get();
    move || {
        let jobs = ctx.ws.with(rank_jobs);
        (!jobs.is_empty()).then(|| {
            view! {
                <section class="multi ranks" id="ranks-compared">
                    <h3>"Ranks of one job"</h3>
                    <p class="muted">
                        "Each kernel's time (ms, summed over its launches) on every rank, with its \
                         place in that rank's ranking (#1: the most time), the rank that spent the \
                         most time in it, and how far that rank lags the median rank: at the next \
                         collective, the other ranks wait for the slowest."
                    </p>
                    {jobs.into_iter().map(job_table).collect_view()}
                </section>
            }
        })
    }
}

/// What a job is: its launcher, id, ranks and hosts, and the ranks not loaded or loaded
/// twice.
fn job_about(j: &JobView, ranks: &[String]) -> String {
    let key = &j.job.key;
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
    about
}

/// A job's ranks compared: summed time per rank, then each kernel's time and place per rank
/// with the slowest rank.
fn job_table(j: JobView) -> impl IntoView {
    let ranks: Vec<String> = j.comparison.ranks.iter().map(u32::to_string).collect();
    let about = job_about(&j, &ranks);
    let c = j.comparison;
    let rank_of = |col: Option<usize>| {
        col.and_then(|i| c.ranks.get(i))
            .map_or_else(|| "-".to_string(), u32::to_string)
    };
    let slowest = |yes: bool| if yes { "num slowest" } else { "num" };
    let header = ranks
        .iter()
        .map(|r| view! { <th>{format!("rank {r}")}</th> })
        .collect_view();
    let totals = c
        .total_ms
        .iter()
        .enumerate()
        .map(|(i, t)| view! { <td class=slowest(c.slowest_total == Some(i))>{opt(*t, ms)}</td> })
        .collect_view();
    let slowest_total = rank_of(c.slowest_total);
    let more = c.kernels.len().saturating_sub(KERNEL_ROWS);
    let rows = c
        .kernels
        .iter()
        .take(KERNEL_ROWS)
        .map(|k| {
            let cells = k
                .time_ms
                .iter()
                .zip(&k.place)
                .enumerate()
                .map(|(i, (t, place))| {
                    let place = place.map_or_else(String::new, |p| format!(" #{p}"));
                    view! {
                        <td class=slowest(k.slowest == Some(i))>
                            {opt(*t, ms)}
                            <span class="muted">{place}</span>
                        </td>
                    }
                })
                .collect_view();
            view! {
                <tr>
                    <td class="name" title=k.name.clone()>{k.short_name.clone()}</td>
                    {cells}
                    <td class="num">{rank_of(k.slowest)}</td>
                    <td class="num">{opt(k.slowest_over_median, |v| format!("{v:.2}"))}</td>
                </tr>
            }
        })
        .collect_view();
    view! {
        <div class="job">
            <p class="job-about">{about}</p>
            <table class="grid ranks-table">
                <thead>
                    <tr>
                        <th>"kernel"</th>
                        {header}
                        <th>"slowest rank"</th>
                        <th>"slowest / median"</th>
                    </tr>
                </thead>
                <tbody>
                    <tr class="total">
                        <th scope="row">"all kernels, ms"</th>
                        {totals}
                        <td class="num">{slowest_total}</td>
                        <td></td>
                    </tr>
                    {rows}
                </tbody>
            </table>
            {(more > 0)
                .then(|| {
                    view! {
                        <p class="muted">
                            {format!("{more} more kernels with less time are not shown.")}
                        </p>
                    }
                })}
        </div>
    }
}
