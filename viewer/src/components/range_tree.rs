//! Where in the program: the NVTX range tree of the current run
//! ([`shared::analysis::ranges::RangeTable::tree`]) read as a profile
//! ([`crate::state::profile`]): each range with a bar of its share of the time, its
//! launches, time and verdicts by time, siblings by time (most first). A row opens and
//! closes (its arrow, or its name) without changing what the pages show; "show only"
//! narrows the run to that range and the ranges below it ([`Ctx::set_range`]): the kernel
//! list, the roofline, SOL and every page then show only its launches, and the URL keeps
//! it. "Open the largest path" opens the ranges along the most time down to a leaf. A run
//! without ranges says so, and how to record them.

use leptos::prelude::*;
use shared::analysis::ranges::{range_table, RangeNode, NO_RANGE};
use shared::text::format::ms;

use crate::ctx::Ctx;
use crate::state::profile::{has_children, largest_path, listed, profile_order};

/// The range tree of the current run; for a run whose launches carry no NVTX range, the
/// line that says so.
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
    let order = Memo::new(move |_| tree.with(|t| profile_order(t)));
    // The ranges open (their paths): at first every top-level one; the range shown and
    // those around it are open too.
    let chosen = RwSignal::new(None::<Vec<Vec<String>>>);
    let open = Memo::new(move |_| {
        chosen.get().unwrap_or_else(|| {
            tree.with(|t| {
                t.iter()
                    .filter(|r| r.depth == 1 && !r.path.is_empty())
                    .map(|r| r.path.clone())
                    .collect()
            })
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
        let mut opened = open.get();
        opened.extend((1..=shown.len()).filter_map(|d| shown.get(..d).map(<[String]>::to_vec)));
        tree.with(|tree| {
            order.with(|order| {
                order
                    .iter()
                    .filter_map(|&i| Some((i, tree.get(i)?)))
                    .filter(|(_, row)| listed(row, &opened))
                    .map(|(i, row)| {
                        let parent = has_children(tree, i);
                        let is_open = opened.contains(&row.path);
                        range_row(ctx, row, &shown, parent.then_some(is_open), chosen, open)
                    })
                    .collect_view()
            })
        })
    };
    let has_ranges = move || tree.with(|t| t.iter().any(|n| !n.path.is_empty()));
    let whole = move || shown().is_empty();
    let open_largest = move |_| chosen.set(Some(tree.with(|t| largest_path(t))));
    view! {
        <Show
            when=has_ranges
            fallback=no_ranges
        >
            <details class="range-tree" id="range-tree" open>
                <summary>"Where in the program: NVTX ranges"</summary>
                <p class="muted">
                    "GPU time by the NVTX ranges the launches ran in (start/end ranges, then each                      thread's push/pop stack; launches counted once, in their innermost range and                      every range around it), most first. Open a range with its arrow or name;                      \"show only\" shows only its launches on every page."
                </p>
                <button id="range-largest" on:click=open_largest>
                    "Open the largest path"
                </button>
                <table class="data range-table">
                    {range_head()}
                    <tbody>
                        <tr class=move || whole().then_some("selected") data-range="">
                            <td>"every launch"</td>
                            <td></td>
                            <td></td>
                            <td></td>
                            <td></td>
                            <td>
                                <button
                                    class="link range"
                                    id="range-all"
                                    aria-current=move || whole().then_some("true")
                                    on:click=move |_| ctx.set_range(None)
                                >
                                    "show all"
                                </button>
                            </td>
                        </tr>
                        {rows}
                    </tbody>
                </table>
            </details>
        </Show>
    }
}

/// The range table's header.
fn range_head() -> impl IntoView {
    view! {
        <thead>
            <tr>
                <th>"range"</th>
                <th>"share"</th>
                <th class="num">"launches"</th>
                <th class="num">"time ms"</th>
                <th>"verdicts by time"</th>
                <th></th>
            </tr>
        </thead>
    }
}

/// The line in place of the tree for a run whose launches carry no NVTX range: why, and how
/// to record them (a run without ranges lost the section with no word, issue 53).
fn no_ranges() -> impl IntoView {
    view! {
        <p class="muted" id="range-none">
            "This run has no NVTX ranges, so there is no range tree: "
            <code>"capture profile --torch-modules"</code>
            " records one around every PyTorch module and optimizer step, and any ranges the \
             program pushes itself come through ncu's --nvtx."
        </p>
    }
}

/// One row of the tree: an arrow that opens or closes it (`is_open`: `None` for a leaf),
/// the range's name (indented by depth; full path and threads on hover; a click opens or
/// closes it too), a bar of its share, launches, time, verdicts, and "show only", which
/// narrows the run to it.
fn range_row(
    ctx: Ctx,
    row: &RangeNode,
    shown: &[String],
    is_open: Option<bool>,
    chosen: RwSignal<Option<Vec<Vec<String>>>>,
    open: Memo<Vec<Vec<String>>>,
) -> impl IntoView {
    let path = if row.path.is_empty() {
        vec![NO_RANGE.to_owned()]
    } else {
        row.path.clone()
    };
    let selected = path == shown;
    let label = row.path.last().map_or(NO_RANGE, String::as_str).to_owned();
    let indent = format!("padding-left: {}em", row.depth.saturating_sub(1));
    let share_pct = row.time_share.map(|s| s * 100.0);
    let share = share_pct.map_or("-".to_owned(), |s| format!("{s:.1}%"));
    let bar = format!("width: {:.1}%", share_pct.unwrap_or(0.0).clamp(0.0, 100.0));
    let threads = if row.threads.is_empty() {
        String::new()
    } else {
        let ids: Vec<String> = row.threads.iter().map(u64::to_string).collect();
        format!(" (thread {})", ids.join(", "))
    };
    let me = row.path.clone();
    let toggle = move |_| {
        let mut o = open.get_untracked();
        if o.contains(&me) {
            // Closing a range closes those below it too.
            o.retain(|p| !p.starts_with(&me));
        } else {
            o.push(me.clone());
        }
        chosen.set(Some(o));
    };
    let arrow = match is_open {
        Some(true) => "▾ ",
        Some(false) => "▸ ",
        None => "",
    };
    view! {
        <tr
            class=selected.then_some("selected")
            data-range=row.name.clone()
            data-depth=row.depth.to_string()
        >
            <td style=indent>
                <button
                    class="link range-name"
                    title=format!("{}{threads}", row.name)
                    aria-expanded=is_open.map(|o| o.to_string())
                    on:click=toggle
                >
                    {arrow}
                    {label}
                </button>
            </td>
            <td class="share">
                <span class="share-bar" aria-hidden="true">
                    <span style=bar></span>
                </span>
                {share}
            </td>
            <td class="num">{row.launches}</td>
            <td class="num">{ms(row.time_ms)}</td>
            <td>{row.verdict_mix()}</td>
            <td>
                <button
                    class="link range"
                    aria-current=selected.then_some("true")
                    on:click=move |_| ctx.set_range(Some(path.clone()))
                >
                    "show only"
                </button>
            </td>
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
