//! Two kernels or two runs side by side, with the charts kept: one roofline with the
//! before → after points joined, the memory chart with both values and their ratio on every
//! arrow, the stall chart with both kernels' shares of every reason, and the key figures in
//! two columns. When the two kernels come from two runs, the runs compared kernel by
//! kernel (`components::run_diff`). Below them, when the loaded runs are the ranks of one job or the devices of
//! one host, those side by side (`pages::multi`).

use leptos::prelude::*;
use shared::chart::MemoryChart;
use shared::model::work_kind::Work;

use super::multi::ranks_and_devices;
use super::roofline::PrecisionSelect;
use crate::components::canvas::{MemoryCanvas, RooflineCanvas, StallCanvas};
use crate::components::markup::markup_host;
use crate::components::run_diff::RunDiff;
use crate::ctx::Ctx;
use crate::state::kernel::KernelFigures;
use crate::state::latency::compare_stall_chart;
use crate::state::model::RunView;
use crate::state::page::charts::compare_table;
use crate::state::roofline::compare_roofline;
use crate::state::view::KernelRef;

fn encode(r: KernelRef) -> String {
    format!("{}.{}", r.run, r.kernel)
}

fn decode(s: &str) -> Option<KernelRef> {
    let (a, b) = s.split_once('.')?;
    Some(KernelRef {
        run: a.parse().ok()?,
        kernel: b.parse().ok()?,
    })
}

/// A select listing every kernel of every run.
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
            ws.runs
                .iter()
                .enumerate()
                .flat_map(|(ri, r)| {
                    r.kernels.iter().map(move |k| {
                        (
                            encode(KernelRef {
                                run: ri,
                                kernel: k.index,
                            }),
                            format!("{}: {}", r.run.name, k.short),
                        )
                    })
                })
                .collect::<Vec<_>>()
        })
    };
    view! {
        <select
            id=id
            prop:value=move || value.get().map(encode).unwrap_or_default()
            on:change=move |ev| {
                if let Some(r) = decode(&event_target_value(&ev)) {
                    on_pick.run(r);
                }
            }
        >
            {move || {
                options()
                    .into_iter()
                    .map(|(v, label)| view! { <option value=v>{label}</option> })
                    .collect_view()
            }}
        </select>
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
            all.sort();
            all.dedup();
            all
        })
    });
    let table = move || {
        ctx.ws.with(|ws| {
            let k = |r: Option<KernelRef>| r.and_then(|r| ws.kernel(r));
            let (ka, kb) = (k(a.get()), k(b.get()));
            let name = |x: Option<(&std::sync::Arc<RunView>, &KernelFigures)>| {
                x.map(|(run, k)| format!("{}: {}", run.run.name, k.name))
                    .unwrap_or_default()
            };
            compare_table(ka.map(|x| x.1), kb.map(|x| x.1), (name(ka), name(kb)))
        })
    };
    view! {
        <div class="page compare" id="page-compare">
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
                    {markup_host(Box::new(table), None)}
                </div>
            </div>
            <RunDiff runs=Signal::derive(move || a.get().zip(b.get()).map(|(a, b)| (a.run, b.run))) />
            {ranks_and_devices()}
        </div>
    }
}
