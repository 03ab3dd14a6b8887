//! Chart canvases: the roofline (with tooltips, click to select, SVG/PNG/CSV export) and the
//! memory chart. Both draw with the `shared::chart` code through `plotters-canvas`, sized to
//! the element and the device pixel ratio, and redraw when their data or the window size
//! changes.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use shared::chart::{self, HitPoint, MemoryChart};

use crate::app::Ctx;
use crate::browser;
use crate::state::roofline::RooflineModel;
use crate::state::view::precision_slug;

/// Pixels (CSS) within which a pointer picks a point.
const PICK_RADIUS_CSS: f64 = 9.0;

/// A redraw counter bumped on window resize, shared by the canvases of a component.
fn resize_tick() -> RwSignal<u32> {
    let tick = RwSignal::new(0u32);
    let handle = window_event_listener(leptos::ev::resize, move |_| tick.update(|n| *n += 1));
    on_cleanup(move || handle.remove());
    tick
}

/// Sizes the canvas backing store to its CSS box times the pixel ratio; returns the ratio.
fn fit(canvas: &web_sys::HtmlCanvasElement) -> f64 {
    let dpr = browser::device_pixel_ratio();
    let w = (f64::from(canvas.client_width().max(320)) * dpr).round() as u32;
    let h = (f64::from(canvas.client_height().max(200)) * dpr).round() as u32;
    canvas.set_width(w);
    canvas.set_height(h);
    dpr
}

/// The nearest hit within the pick radius of a pointer at CSS offset (x, y).
fn pick(hits: &[HitPoint], x: f64, y: f64, dpr: f64) -> Option<HitPoint> {
    chart::roofline::nearest_hit(hits, x * dpr, y * dpr, PICK_RADIUS_CSS * dpr)
}

/// The roofline canvas of `model`, with its tooltip, notes and export buttons.
#[component]
pub fn RooflineCanvas(
    /// What to draw.
    model: Memo<RooflineModel>,
    /// Element id of the canvas.
    #[prop(default = "roofline-canvas")]
    id: &'static str,
) -> impl IntoView {
    let ctx = Ctx::get();
    let canvas_ref = NodeRef::<Canvas>::new();
    let hits = StoredValue::new(Vec::<HitPoint>::new());
    let dpr_used = StoredValue::new(1.0f64);
    let tooltip = RwSignal::new(None::<(f64, f64, String)>);
    let drawn = RwSignal::new(0u32);
    let tick = resize_tick();

    Effect::new(move |_| {
        tick.track();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let dpr = fit(&canvas);
        dpr_used.set_value(dpr);
        let result = model.with(|m| {
            CanvasBackend::with_canvas_object(canvas.clone())
                .map(|b| chart::draw_roofline(&b.into_drawing_area(), &m.chart, dpr))
        });
        match result {
            Some(Ok(h)) => {
                let n = h.len();
                hits.set_value(h);
                drawn.update(|d| *d += 1);
                let _ = canvas.set_attribute("data-points", &n.to_string());
                if let Some(t0) = ctx.pending_since.get_untracked() {
                    let ms = browser::now_ms() - t0;
                    ctx.pending_since.set(None);
                    ctx.last_load_ms.set(Some(ms));
                    let _ = canvas.set_attribute("data-load-ms", &format!("{ms:.1}"));
                }
            }
            Some(Err(e)) => ctx.status.set(e.to_string()),
            None => ctx.status.set("this browser has no 2-D canvas".into()),
        }
    });

    let on_move = move |ev: leptos::ev::MouseEvent| {
        let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        let found = hits.with_value(|h| pick(h, x, y, dpr_used.get_value()));
        let text = found.and_then(|h| {
            model.with(|m| {
                m.infos
                    .get(h.series)
                    .and_then(|s| s.get(h.point))
                    .map(|i| i.tooltip())
            })
        });
        tooltip.set(text.map(|t| (x, y, t)));
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        if let Some(h) = hits.with_value(|hs| pick(hs, x, y, dpr_used.get_value())) {
            if let Some(r) = model.with(|m| m.refs.get(h.series).copied()) {
                ctx.select(r);
            }
        }
    };
    let report = move |r: Result<(), String>| {
        if let Err(e) = r {
            ctx.status.set(format!("export failed: {e}"));
        }
    };
    let export_svg = move |_| {
        let svg = model.with(|m| chart::roofline_svg(&m.chart, 1000, 640));
        match svg {
            Ok((text, _)) => report(browser::download_text(
                "roofline.svg",
                "image/svg+xml",
                &text,
            )),
            Err(e) => ctx.status.set(e.to_string()),
        }
    };
    let export_png = move |_| {
        if let Some(canvas) = canvas_ref.get_untracked() {
            match canvas.to_data_url_with_type("image/png") {
                Ok(url) => report(browser::download_url("roofline.png", &url)),
                Err(_) => ctx.status.set("the canvas could not be exported".into()),
            }
        }
    };
    let export_csv = move |_| {
        let precision = ctx.view.with_untracked(|v| v.precision);
        let csv = model.with(|m| m.to_csv(precision));
        report(browser::download_text(
            &format!("roofline-{}.csv", precision_slug(precision)),
            "text/csv",
            &csv,
        ));
    };

    view! {
        <div class="chart-wrap">
            <canvas
                id=id
                class="chart roofline"
                node_ref=canvas_ref
                data-drawn=move || drawn.get().to_string()
                on:mousemove=on_move
                on:mouseleave=move |_| tooltip.set(None)
                on:click=on_click
            ></canvas>
            {move || {
                tooltip
                    .get()
                    .map(|(x, y, text)| {
                        view! {
                            <div class="tooltip" style:left=format!("{}px", x + 14.0) style:top=format!("{}px", y + 10.0)>
                                {text}
                            </div>
                        }
                    })
            }}
        </div>
        <div class="exports">
            <button id="export-svg" on:click=export_svg>"Export SVG"</button>
            <button id="export-png" on:click=export_png>"Export PNG"</button>
            <button id="export-csv" on:click=export_csv>"Chart data CSV"</button>
        </div>
        <ul class="notes" id="roofline-notes">
            {move || {
                model
                    .with(|m| m.notes.clone())
                    .into_iter()
                    .map(|n| view! { <li>{n}</li> })
                    .collect_view()
            }}
        </ul>
    }
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
    let ctx = Ctx::get();
    let canvas_ref = NodeRef::<Canvas>::new();
    let tick = resize_tick();
    let drawn = RwSignal::new(0u32);
    Effect::new(move |_| {
        tick.track();
        let Some(canvas) = canvas_ref.get() else {
            return;
        };
        let dpr = fit(&canvas);
        let result = chart.with(|c| {
            CanvasBackend::with_canvas_object(canvas.clone())
                .map(|b| chart::draw_memory(&b.into_drawing_area(), c, dpr))
        });
        match result {
            Some(Ok(())) => drawn.update(|d| *d += 1),
            Some(Err(e)) => ctx.status.set(e.to_string()),
            None => ctx.status.set("this browser has no 2-D canvas".into()),
        }
    });
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
                        <dt>{key.replace('-', " → ")}</dt>
                        <dd data-flow=key>{text}</dd>
                    }
                }
            />
        </dl>
    }
}
