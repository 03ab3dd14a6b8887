//! Where in the program: the NVTX range tree of the current run
//! ([`shared::analysis::ranges::RangeTable::tree`]), each range with its launches, time,
//! share and verdicts by time. A click narrows the run to that range and the ranges below
//! it ([`Ctx::set_range`]): the kernel list, the roofline, SOL and every page then show
//! only its launches, and the URL keeps it. The first two levels show, and the children of
//! the range shown.

use leptos::prelude::*;
use shared::analysis::ranges::{range_table, RangeNode, NO_RANGE};
use shared::text::format::ms;

use crate::ctx::Ctx;

/// Levels always listed; deeper ranges list under the range shown.
const OPEN_DEPTH: usize = 2;

/// Whether `row` is listed while `shown` (a path) is the range shown: the first levels,
/// and every range whose parent is on the way to `shown` or is `shown`.
fn listed(row: &RangeNode, shown: &[String]) -> bool {
    row.depth <= OPEN_DEPTH
        || row
            .path
            .get(..row.depth - 1)
            .is_some_and(|parent| shown.starts_with(parent))
}

/// The range tree of the current run, when its launches carry NVTX ranges.
#[component]
pub fn RangeTree() -> impl IntoView {
    let ctx = Ctx::get();
    let tree = Memo::new(move |_| {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| range_table(&r.whole_run().run.artifact, None).tree())
                .unwrap_or_default()
        })
    });
    let shown = move || {
        let run = ctx.run.get();
        ctx.ws
            .with(|ws| ws.runs.get(run).and_then(|r| r.range.clone()))
            .unwrap_or_default()
    };
    let rows = move || {
        let shown = shown();
        tree.with(|tree| {
            tree.iter()
                .filter(|row| listed(row, &shown))
                .map(|row| range_row(ctx, row, &shown))
                .collect_view()
        })
    };
    let has_ranges = move || tree.with(|t| t.iter().any(|n| !n.path.is_empty()));
    let whole = move || shown().is_empty();
    view! {
        <Show when=has_ranges>
            <details class="range-tree" id="range-tree" open>
                <summary>"Where in the program: NVTX ranges"</summary>
                <p class="muted">
                    "GPU time by the NVTX ranges the launches ran in (start/end ranges, then each \
                     thread's push/pop stack; launches counted once, in their innermost range and \
                     every range around it). Click a range to show only its launches on every page."
                </p>
                <table class="data range-table">
                    <thead>
                        <tr>
                            <th>"range"</th>
                            <th class="num">"launches"</th>
                            <th class="num">"time ms"</th>
                            <th class="num">"share"</th>
                            <th>"verdicts by time"</th>
                        </tr>
                    </thead>
                    <tbody>
                        <tr class=move || whole().then_some("selected") data-range="">
                            <td>
                                <button
                                    class="link range"
                                    id="range-all"
                                    on:click=move |_| ctx.set_range(None)
                                >
                                    "every launch"
                                </button>
                            </td>
                            <td></td>
                            <td></td>
                            <td></td>
                            <td></td>
                        </tr>
                        {rows}
                    </tbody>
                </table>
            </details>
        </Show>
    }
}

/// One row of the tree: the range's name (indented by depth; full path and threads on
/// hover), launches, time, share and verdicts; a click narrows the run to it.
fn range_row(ctx: Ctx, row: &RangeNode, shown: &[String]) -> impl IntoView {
    let path = if row.path.is_empty() {
        vec![NO_RANGE.to_owned()]
    } else {
        row.path.clone()
    };
    let selected = path == shown;
    let label = row.path.last().map_or(NO_RANGE, String::as_str).to_owned();
    let indent = format!("padding-left: {}em", row.depth.saturating_sub(1));
    let share = row
        .time_share
        .map_or("-".to_owned(), |s| format!("{:.1}%", s * 100.0));
    let threads = if row.threads.is_empty() {
        String::new()
    } else {
        let ids: Vec<String> = row.threads.iter().map(u64::to_string).collect();
        format!(" (thread {})", ids.join(", "))
    };
    view! {
        <tr
            class=selected.then_some("selected")
            data-range=row.name.clone()
            data-depth=row.depth.to_string()
        >
            <td style=indent>
                <button
                    class="link range"
                    title=format!("{}{threads}", row.name)
                    on:click=move |_| ctx.set_range(Some(path.clone()))
                >
                    {label}
                </button>
            </td>
            <td class="num">{row.launches}</td>
            <td class="num">{ms(row.time_ms)}</td>
            <td class="num">{share}</td>
            <td>{row.verdict_mix()}</td>
        </tr>
    }
}

/// One line above a page's content while the run is narrowed to a range: which, how many
/// launches of how many, and a button to show every launch again.
#[component]
pub fn RangeBanner() -> impl IntoView {
    let ctx = Ctx::get();
    let line = move || {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            let r = ws.runs.get(run)?;
            let path = r.range.as_ref()?;
            let count = |a: &shared::Artifact| -> usize {
                a.kernels
                    .iter()
                    .map(|k| shared::analysis::metrics::reference_launches(k).len())
                    .sum()
            };
            Some(format!(
                "showing the range {}: {} of {} launches",
                path.join("/"),
                count(&r.run.artifact),
                count(&r.whole_run().run.artifact)
            ))
        })
    };
    move || {
        line().map(|text| {
            view! {
                <p class="range-banner" id="range-banner">
                    {text}
                    " "
                    <button class="link" on:click=move |_| ctx.set_range(None)>
                        "show every launch"
                    </button>
                </p>
            }
        })
    }
}
