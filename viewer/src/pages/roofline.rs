//! The roofline view: precision selector, the chart, and how to read it.

use std::rc::Rc;

use leptos::prelude::*;
use shared::model::work_kind::Work;

use crate::components::canvas::RooflineCanvas;
use crate::components::markup::markup_host;
use crate::ctx::Ctx;
use crate::state::page::charts;
use crate::state::roofline::run_roofline;
use crate::state::view::{parse_precision, precision_slug, Plotted};

/// The precision selector: every kernel against its own kind's roof, then each kind of
/// work the data has FLOPs (or OPs) of.
#[component]
pub fn PrecisionSelect(
    /// Kinds of work to offer beside "each kernel's own".
    options: Signal<Vec<Work>>,
) -> impl IntoView {
    let ctx = Ctx::get();
    let on_change = move |ev: leptos::ev::Event| {
        let p = parse_precision(&event_target_value(&ev)).unwrap_or_default();
        ctx.view.update(|v| v.precision = p);
    };
    view! {
        <label class="precision">
            "precision "
            <select
                id="precision"
                on:change=on_change
                prop:value=move || precision_slug(ctx.view.with(|v| v.precision))
            >
                {move || {
                    std::iter::once(Plotted::Own)
                        .chain(options.get().into_iter().map(Plotted::Kind))
                        .map(|p| {
                            view! { <option value=precision_slug(p)>{p.label()}</option> }
                        })
                        .collect_view()
                }}
            </select>
        </label>
    }
}

/// The roofline of the current run.
#[component]
pub fn RooflinePage() -> impl IntoView {
    let ctx = Ctx::get();
    let precision = Memo::new(move |_| ctx.view.with(|v| v.precision));
    // The chart depends on the run and the precision only: selecting a kernel redraws the
    // layer above it, not the chart.
    let model = Memo::new(move |_| {
        let (run, precision) = (ctx.run.get(), precision.get());
        ctx.ws.with(|ws| run_roofline(ws, run, precision))
    });
    let highlight = Signal::derive(move || {
        let sel = ctx.selected();
        model.with(|m| {
            sel.and_then(|r| m.series_of(r))
                .into_iter()
                .collect::<Vec<_>>()
        })
    });
    let options = Signal::derive(move || {
        let run = ctx.current_run();
        ctx.ws
            .with(|ws| ws.runs.get(run).map(|r| r.precisions()))
            .unwrap_or_else(|| vec![Work::Fp32])
    });
    view! {
        <div class="page roofline" id="page-roofline">
            <div class="toolbar">
                <PrecisionSelect options=options />
                {markup_host(
                    Box::new(move || charts::analytic_badge(model.with(|m| m.analytic))),
                    None,
                )}
            </div>
            <RooflineCanvas model=model highlight=highlight />
            {points_table(model)}
            {markup_host(Box::new(charts::legend), None)}
        </div>
    }
}

/// The chart's points as a table, folded away until opened, and rendered only then
/// (markup from `state::page::charts`).
fn points_table(model: Memo<crate::state::roofline::RooflineModel>) -> impl IntoView {
    let open = RwSignal::new(false);
    let on_toggle = move |_: usize, value: String| {
        let now = value == "open";
        if open.get_untracked() != now {
            open.set(now);
        }
    };
    markup_host(
        Box::new(move || {
            let open = open.get();
            model.with(|m| charts::points_table(m, open))
        }),
        Some(Rc::new(on_toggle)),
    )
}
