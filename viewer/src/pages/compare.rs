//! Two kernels or two runs side by side, with the charts kept: one roofline with the
//! before → after points joined, the memory chart with both values and their ratio on every
//! arrow, the stall chart with both kernels' shares of every reason, and the key figures in
//! two columns. Whenever two runs are open, first on the page, the runs compared kernel by
//! kernel (`components::run_diff`). Below them, when the loaded runs are the ranks of one job or the devices of
//! one host, those side by side (`pages::multi`).

use leptos::prelude::*;
use shared::chart::MemoryChart;
use shared::model::work_kind::Work;

use super::multi::RanksAndDevices;
use super::roofline::PrecisionSelect;
use crate::components::canvas::{MemoryCanvas, RooflineCanvas, StallCanvas};
use crate::components::run_diff::RunDiff;
use crate::components::term::Term;
use crate::ctx::Ctx;
use crate::state::compare::compare_rows;
use crate::state::latency::compare_stall_chart;
use crate::state::load::Run;
use crate::state::roofline::compare_roofline;
use crate::state::view::KernelRef;

/// What a picker lists for kernel `r`: its short name first (the part that tells kernels
/// apart, where the run's path cut it at 800-1500 px), then its run's file names when
/// several runs are open.
fn label(run: Option<&Run>, short: &str, r: KernelRef) -> String {
    match run {
        Some(run) => format!("{short} ({}) #{}.{}", run.file_names(), r.run, r.kernel),
        None => format!("{short} #{}.{}", r.run, r.kernel),
    }
}

/// The picker's width for `text`: room for every character and the search field's clear
/// button, so the whole name shows (the page's width caps it).
fn width_for(text: &str) -> String {
    format!("calc({}ch + 3rem)", text.chars().count())
}

/// The kernel a typed label names: its `#run.kernel` ending.
fn decode(s: &str) -> Option<KernelRef> {
    let (_, tail) = s.rsplit_once('#')?;
    let (a, b) = tail.trim().split_once('.')?;
    Some(KernelRef {
        run: a.parse().ok()?,
        kernel: b.parse().ok()?,
    })
}

/// A text field that picks a kernel of any run by typing: the browser offers the listed
/// kernels that match what is typed (a datalist), and a whole label picks.
#[component]
fn KernelPicker(
    /// Element id.
    id: &'static str,
    /// Current value.
    value: Signal<Option<KernelRef>>,
    /// Called with the new choice.
    on_pick: Callback<KernelRef>,
) -> impl IntoView {
    let ctx = Ctx::get();
    let options = move || {
        ctx.ws.with(|ws| {
            let several = ws.runs.len() > 1;
            ws.runs
                .iter()
                .enumerate()
                .flat_map(|(ri, r)| {
                    r.kernels.iter().map(move |k| {
                        let kr = KernelRef {
                            run: ri,
                            kernel: k.index,
                        };
                        label(several.then_some(&r.run), &k.short, kr)
                    })
                })
                .collect::<Vec<_>>()
        })
    };
    let current = move || {
        value.get().and_then(|r| {
            ctx.ws.with(|ws| {
                let several = ws.runs.len() > 1;
                ws.kernel(r)
                    .map(|(run, k)| label(several.then_some(&run.run), &k.short, r))
            })
        })
    };
    let list = format!("{id}-kernels");
    view! {
        <input
            id=id
            class="kernel-picker"
            type="search"
            list=list.clone()
            placeholder="type a kernel's name"
            style:width=move || current().map(|c| width_for(&c))
            prop:value=move || current().unwrap_or_default()
            on:change=move |ev| {
                if let Some(r) = decode(&event_target_value(&ev)) {
                    on_pick.run(r);
                }
            }
        />
        <datalist id=list>
            {move || {
                options().into_iter().map(|v| view! { <option value=v></option> }).collect_view()
            }}
        </datalist>
    }
}

/// The comparison view.
#[component]
pub fn ComparePage() -> impl IntoView {
    let ctx = Ctx::get();
    let a = Signal::derive(move || ctx.selected());
    let b = Signal::derive(move || {
        let wanted = ctx.view.with(|v| v.compare);
        ctx.ws.with(|ws| {
            wanted
                .filter(|r| ws.kernel(*r).is_some())
                .or_else(|| a.get().and_then(|a| ws.default_compare(a)))
        })
    });
    let model = Memo::new(move |_| {
        let precision = ctx.view.with(|v| v.precision);
        match (a.get(), b.get()) {
            (Some(a), Some(b)) => ctx.ws.with(|ws| compare_roofline(ws, a, b, precision)),
            _ => Default::default(),
        }
    });
    let memory = Memo::new(move |_| {
        ctx.ws.with(|ws| {
            let fa = a
                .get()
                .and_then(|r| ws.kernel(r))
                .map(|(_, k)| k.flows.clone());
            let fb = b
                .get()
                .and_then(|r| ws.kernel(r))
                .map(|(_, k)| k.flows.clone());
            MemoryChart {
                title: "before → after".into(),
                flows: fa.unwrap_or_default(),
                compare: fb,
            }
        })
    });
    let stalls = Memo::new(move |_| {
        ctx.ws.with(|ws| {
            let ka = a.get().and_then(|r| ws.kernel(r)).map(|(_, k)| k);
            let kb = b.get().and_then(|r| ws.kernel(r)).map(|(_, k)| k);
            compare_stall_chart(ka, kb)
        })
    });
    let options = Signal::derive(move || {
        ctx.ws.with(|ws| {
            let mut all: Vec<Work> = ws.runs.iter().flat_map(|r| r.precisions()).collect();
            shared::order::sort(&mut all);
            all.dedup();
            all
        })
    });
    // Run against run, first on the page whenever two runs are open: the runs of the two
    // kernels compared, else the first two runs.
    let runs = Signal::derive(move || {
        let n = ctx.ws.with(|ws| ws.runs.len());
        match (a.get(), b.get()) {
            (Some(a), Some(b)) if a.run != b.run => Some((a.run, b.run)),
            _ if n >= 2 => Some((0, 1)),
            _ => None,
        }
    });
    view! {
        <div class="page compare" id="page-compare">
            <RunDiff runs=runs />
            <div class="toolbar">
                <label>
                    "before "
                    <KernelPicker id="compare-a" value=a on_pick=Callback::new(move |r| ctx.select(r)) />
                </label>
                <label>
                    " after "
                    <KernelPicker
                        id="compare-b"
                        value=b
                        on_pick=Callback::new(move |r| ctx.view.update(|v| v.compare = Some(r)))
                    />
                </label>
                <PrecisionSelect options=options />
            </div>
            <RooflineCanvas model=model id="compare-roofline" />
            <div class="side-by-side">
                <div>
                    <MemoryCanvas chart=memory id="compare-memory" />
                    <StallCanvas chart=stalls id="compare-stalls" />
                </div>
                <div>
                    <CompareTable a=a b=b />
                </div>
            </div>
            <RanksAndDevices />
        </div>
    }
}

/// The key figures of kernels `a` (before) and `b` (after) side by side, with their ratio.
#[component]
fn CompareTable(
    /// The kernel before.
    a: Signal<Option<KernelRef>>,
    /// The kernel after.
    b: Signal<Option<KernelRef>>,
) -> impl IntoView {
    let ctx = Ctx::get();
    let names = move || {
        ctx.ws.with(|ws| {
            let name = |r: Option<KernelRef>| {
                r.and_then(|r| ws.kernel(r))
                    .map(|(run, k)| format!("{}: {}", run.run.name, k.name))
                    .unwrap_or_default()
            };
            (name(a.get()), name(b.get()))
        })
    };
    let rows = move || {
        ctx.ws.with(|ws| {
            let k = |r: Option<KernelRef>| r.and_then(|r| ws.kernel(r)).map(|(_, k)| k);
            compare_rows(k(a.get()), k(b.get()))
        })
    };
    move || {
        let (before, after) = names();
        view! {
            <table class="grid" id="compare-table">
                <thead>
                    <tr>
                        <th></th>
                        <th title=before.clone()>"before"</th>
                        <th title=after.clone()>"after"</th>
                        <th>"after / before"</th>
                    </tr>
                </thead>
                <tbody>
                    {rows()
                        .into_iter()
                        .map(|r| {
                            view! {
                                <tr>
                                    <th scope="row">
                                        <Term key=r.key text=r.label />
                                    </th>
                                    <td class="num">{r.before}</td>
                                    <td class="num">{r.after}</td>
                                    <td class="num">{r.ratio}</td>
                                </tr>
                            }
                        })
                        .collect_view()}
                </tbody>
            </table>
            <p class="muted">{format!("before: {before}")}</p>
            <p class="muted">{format!("after: {after}")}</p>
        }
    }
}
