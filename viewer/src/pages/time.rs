//! "Where the time goes": the kernels of a run ranked by their share of the summed kernel
//! time, with the running total, the kind of work each did most of, its verdict and the
//! roof it sits under (from `shared::figures::ranking`). The first page an application's
//! artifact opens on: the answer to "what is my program waiting on".

use leptos::prelude::*;

use crate::components::explain::Term;
use crate::components::virtual_table::{aria_row, rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::view::KernelRef;

/// Header labels.
const HEADERS: [&str; 9] = [
    "#",
    "kernel",
    "launches",
    "time ms",
    "time %",
    "cumulative %",
    "work",
    "verdict",
    "roof (% of it)",
];

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |s| format!("{:.1}", 100.0 * s))
}

/// The ranked kernels of the current run.
#[component]
pub fn TimePage() -> impl IntoView {
    let ctx = Ctx::get();
    let ranking = Memo::new(move |_| {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| shared::figures::ranking(&r.run.artifact, &r.kernels))
                .unwrap_or_default()
        })
    });
    let rows = rows_memo(move || (0..ranking.with(Vec::len)).collect());
    let row = move |(pos, rank): (usize, usize)| {
        let run = ctx.run.get_untracked();
        let Some(r) = ranking.with_untracked(|rows| rows.get(rank).cloned()) else {
            return ().into_any();
        };
        let kr = KernelRef {
            run,
            kernel: r.index,
        };
        ctx.ws.with_untracked(|ws| {
            let Some(k) = ws.runs.get(run).and_then(|x| x.kernels.get(r.index)) else {
                return ().into_any();
            };
            let roof = r.roof.as_ref().map_or_else(
                || "-".to_string(),
                |u| {
                    let side = match u.bound {
                        shared::roofline::Bound::Memory => "memory (DRAM)".to_string(),
                        shared::roofline::Bound::Compute => format!("compute ({})", u.kind.label()),
                    };
                    let of = u.pct_of_roof.map_or_else(String::new, |p| format!(" {p:.0} %"));
                    let how = if u.measured { "" } else { ", theoretical" };
                    format!("{side}{of}{how}")
                },
            );
            let work = k.row.precision.clone().unwrap_or_else(|| "-".into());
            let verdict = k
                .verdict
                .as_ref()
                .map_or_else(|| "-".into(), |v| v.kind.as_str().to_string());
            let because = k.verdict.as_ref().map(|v| v.reason.clone()).unwrap_or_default();
            view! {
                <tr
                    class:selected=move || ctx.selected() == Some(kr)
                    data-kernel=r.index.to_string()
                    aria-rowindex=aria_row(pos)
                >
                    <td class="num">{(rank + 1).to_string()}</td>
                    <td class="name" title=k.name.clone()>
                        <button class="link" on:click=move |_| ctx.select(kr)>{k.short.clone()}</button>
                    </td>
                    <td class="num">{k.row.launches.to_string()}</td>
                    <td class="num">{crate::pages::opt(k.row.time_ms, crate::pages::ms)}</td>
                    <td class="num" data-col="time_share">{pct(r.share)}</td>
                    <td class="num" data-col="cumulative">{pct(r.cumulative)}</td>
                    <td data-col="precision">{work}</td>
                    <td title=because>{verdict}</td>
                    <td data-col="roof">{roof}</td>
                </tr>
            }
            .into_any()
        })
    };
    let header = HEADERS
        .into_iter()
        .map(|h| view! { <th>{h}</th> })
        .collect_view();
    view! {
        <div class="page time" id="page-time">
            <p class="muted">
                "Kernels by their share of the summed kernel "
                <Term key="time" text="time" />
                ", largest first, with the running total: the top rows are where the time goes. "
                "Work is the kind of arithmetic each did most of; the roof is the one its DRAM "
                "intensity sits under, with how close it runs to it."
            </p>
            <VirtualTable id="time-table" rows=rows row=Callback::new(row)>
                <tr aria-rowindex="1">{header}</tr>
            </VirtualTable>
        </div>
    }
}
