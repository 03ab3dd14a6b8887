//! Chart canvases: the roofline ([`roofline`]: tooltips, click to select, and its export
//! buttons in [`exports`]), the memory chart and the stall chart. Each draws with the
//! `shared::chart` code through `plotters-canvas`, sized to the element and the device
//! pixel ratio, through one draw hook, [`use_canvas_draw`], which redraws when the chart's
//! data or the window size changes.

pub mod exports;
pub mod roofline;

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use shared::chart::{self, ChartError, MemoryChart, StallChart, Surface};
use web_sys::HtmlCanvasElement;

use crate::browser;
use crate::ctx::Ctx;

pub use roofline::RooflineCanvas;

/// A redraw counter bumped on window resize.
fn resize_tick() -> RwSignal<u32> {
    let tick = RwSignal::new(0u32);
    let handle = window_event_listener(leptos::ev::resize, move |_| tick.update(|n| *n += 1));
    on_cleanup(move || handle.remove());
    tick
}

/// Sizes the canvas backing store to its CSS box times the pixel ratio; returns the ratio.
fn fit(canvas: &HtmlCanvasElement) -> f64 {
    let dpr = browser::device_pixel_ratio();
    let w = (f64::from(canvas.client_width().max(320)) * dpr).round() as u32;
    // Down to a stall chart of one reason (66 px).
    let h = (f64::from(canvas.client_height().max(60)) * dpr).round() as u32;
    canvas.set_width(w);
    canvas.set_height(h);
    dpr
}

/// The draw effect of a chart canvas: whenever what `draw` reads changes, or the window is
/// resized, sizes the canvas of `canvas_ref` to its element and the device pixel ratio and
/// draws on it with `draw` (given the canvas as a [`Surface`], so each painter is compiled
/// once, and the ratio); what a draw returns
/// goes to `on_drawn` with the canvas and the ratio. A drawing error, or a browser with no
/// 2-D canvas, is shown in the status line.
///
/// Returns the count of draws, which the canvas shows as `data-drawn` (the page's tests
/// wait on it).
pub fn use_canvas_draw<T: 'static>(
    canvas_ref: NodeRef<Canvas>,
    draw: impl Fn(Surface<'_>, f64) -> Result<T, ChartError> + 'static,
    on_drawn: impl Fn(&HtmlCanvasElement, f64, T) + 'static,
) -> RwSignal<u32> {
    let ctx = Ctx::get();
    let tick = resize_tick();
    let drawn = RwSignal::new(0u32);
    Effect::new(move |_| {
        tick.track();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let dpr = fit(&canvas);
        match CanvasBackend::with_canvas_object(canvas.clone())
            .map(|mut b| draw(Surface::new(&mut b), dpr))
        {
            Some(Ok(result)) => {
                on_drawn(&canvas, dpr, result);
                drawn.update(|d| *d += 1);
            }
            Some(Err(e)) => ctx.status.set(e.to_string()),
            None => ctx.status.set("this browser has no 2-D canvas".into()),
        }
    });
    drawn
}

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
