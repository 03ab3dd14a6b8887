//! Chart canvases: the roofline ([`roofline`]: tooltips, click to select, and its export
//! buttons in [`exports`]), the memory chart and the stall chart. Each draws with the
//! `shared::chart` code through `plotters-canvas`, sized to the element and the device
//! pixel ratio, through one draw hook, [`draw::use_canvas_draw`], which redraws when the
//! chart's data or the window size changes.

pub mod draw;
pub mod exports;
pub mod roofline;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use shared::chart::{self, MemoryChart, StallChart};

use self::draw::use_canvas_draw;
pub use roofline::RooflineCanvas;

/// The memory chart canvas of `chart`, with its labels repeated as text under it.
#[component]
pub fn MemoryCanvas(
    /// What to draw.
    chart: Memo<MemoryChart>,
    /// Element id of the canvas.
    #[prop(default = "memory-canvas")]
    id: &'static str,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let drawn = use_canvas_draw(
        canvas_ref,
        move |b, dpr| chart.with(|c| chart::draw_memory(&b.into_drawing_area(), c, dpr)),
        |_, _, ()| {},
    );
    let labels = move || {
        chart.with(|c| {
            chart::memory::memory_labels(c)
                .into_iter()
                .filter(|(_, lines)| !lines.is_empty())
                .map(|(key, lines)| (key.to_string(), lines.join("; ")))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <canvas
            id=id
            class="chart memory"
            node_ref=canvas_ref
            data-drawn=move || drawn.get().to_string()
        ></canvas>
        <dl class="flow-labels" data-for=id>
            <For
                each=labels
                key=|l| l.clone()
                children=|(key, text)| {
                    view! {
                        <dt>{chart::memory::memory_label_name(&key)}</dt>
                        <dd data-flow=key>{text}</dd>
                    }
                }
            />
        </dl>
    }
}

/// The stall chart canvas of `chart`, as tall as its rows (and its 1 px border) need, with
/// each drawn row repeated as text under it.
#[component]
pub fn StallCanvas(
    /// What to draw.
    chart: Memo<StallChart>,
    /// Element id of the canvas.
    #[prop(default = "stall-canvas")]
    id: &'static str,
) -> impl IntoView {
    let canvas_ref = NodeRef::<Canvas>::new();
    let drawn = use_canvas_draw(
        canvas_ref,
        move |b, dpr| chart.with(|c| chart::draw_stalls(&b.into_drawing_area(), c, dpr)),
        |_, _, ()| {},
    );
    let rows = move || {
        chart.with(|c| {
            chart::stalls::stall_rows(c)
                .into_iter()
                .map(|r| (r.key, r.name, r.text))
                .collect::<Vec<_>>()
        })
    };
    view! {
        <canvas
            id=id
            class="chart stalls"
            node_ref=canvas_ref
            style:height=move || {
                chart.with(|c| format!("{}px", chart::stalls::stall_chart_height(c) + 2.0))
            }
            data-drawn=move || drawn.get().to_string()
            data-rows=move || chart.with(|c| chart::stalls::stall_rows(c).len().to_string())
        ></canvas>
        <dl class="stall-labels" data-for=id>
            <For
                each=rows
                key=|r| r.clone()
                children=|(key, name, text)| {
                    view! {
                        <dt>{name}</dt>
                        <dd data-stall=key>{text}</dd>
                    }
                }
            />
        </dl>
    }
}
