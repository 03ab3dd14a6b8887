//! Chart canvases: the roofline (with tooltips, click to select, SVG/PNG/CSV export), the
//! memory chart and the stall chart. Both draw with the `shared::chart` code through `plotters-canvas`, sized to
//! the element and the device pixel ratio, and redraw when their data or the window size
//! changes.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use shared::chart::{self, HitGrid, HitPoint, LabelBox, LabelOf, MemoryChart, StallChart};

use crate::browser;
use crate::ctx::Ctx;
use crate::state::roofline::RooflineModel;
use crate::state::view::{precision_slug, KernelRef};

/// Most drawn points whose places the canvas lists in `data-hits`.
const HITS_SHOWN: usize = 2_000;

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

/// The chart's labels as JSON for the page's tests, in CSS pixels of the canvas:
/// `[{"text", "kind": "roof"|"kernel", "kernel", "x0", "y0", "x1", "y1"}]`.
fn labels_attr(labels: &[LabelBox], m: &RooflineModel, dpr: f64) -> String {
    let css = |v: i32| (f64::from(v) / dpr * 10.0).round() / 10.0;
    let items: Vec<serde_json::Value> = labels
        .iter()
        .map(|l| {
            let (kind, kernel) = match l.of {
                LabelOf::Roof(i) => ("roof", i.to_string()),
                LabelOf::Series(s) => ("kernel", kernel_attr(m.refs.get(s).copied())),
            };
            serde_json::json!({
                "text": l.text, "kind": kind, "kernel": kernel,
                "x0": css(l.rect.x0), "y0": css(l.rect.y0),
                "x1": css(l.rect.x1), "y1": css(l.rect.y1),
            })
        })
        .collect();
    serde_json::Value::Array(items).to_string()
}

fn kernel_attr(r: Option<KernelRef>) -> String {
    r.map(|r| format!("{}.{}", r.run, r.kernel))
        .unwrap_or_default()
}

/// The roofline canvas of `model`, with its tooltip, notes and export buttons.
///
/// Two canvases, one over the other: the chart, drawn when the model or the size changes,
/// and a transparent layer above it with the highlighted series and the point under the
/// pointer, redrawn on every selection or hover (a few shapes). The pointer finds its point
/// through a [`HitGrid`] of the drawn points, so hover and click cost the same at 10 points
/// or 30,000.
#[expect(
    clippy::too_many_lines,
    reason = "a leptos component: the two canvases' effects (draw, highlight, pointer) and their markup share the component's signals"
)]
#[component]
pub fn RooflineCanvas(
    /// What to draw.
    model: Memo<RooflineModel>,
    /// Series drawn emphasised on the layer above the chart (the selected kernel's).
    #[prop(optional)]
    highlight: Option<Signal<Vec<usize>>>,
    /// Element id of the canvas.
    #[prop(default = "roofline-canvas")]
    id: &'static str,
    /// Shown right under the chart, before the export buttons and the notes (the page's
    /// list of points).
    #[prop(optional)]
    children: Option<Children>,
) -> impl IntoView {
    let ctx = Ctx::get();
    let canvas_ref = NodeRef::<Canvas>::new();
    let overlay_ref = NodeRef::<Canvas>::new();
    let grid = StoredValue::new(HitGrid::default());
    let labels = StoredValue::new(Vec::<LabelBox>::new());
    let dpr_used = StoredValue::new(1.0f64);
    // The point under the pointer, and the pointer (CSS pixels) for the tooltip's place.
    let hover = RwSignal::new(None::<HitPoint>);
    let pointer = RwSignal::new((0.0f64, 0.0f64));
    let drawn = RwSignal::new(0u32);
    let layer_drawn = RwSignal::new(0u32);
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
            Some(Ok(d)) => {
                let n = d.hits.len();
                let boxes = model.with_untracked(|m| labels_attr(&d.labels, m, dpr));
                // The drawn points in CSS pixels, for the page's tests (small charts only).
                let spots = if n <= HITS_SHOWN {
                    let css = |v: i32| (f64::from(v) / dpr).round();
                    let all: Vec<String> = d
                        .hits
                        .iter()
                        .map(|h| format!("[{},{}]", css(h.x), css(h.y)))
                        .collect();
                    format!("[{}]", all.join(","))
                } else {
                    String::new()
                };
                grid.set_value(HitGrid::new(d.hits, PICK_RADIUS_CSS * dpr));
                labels.set_value(d.labels);
                hover.set(None);
                drawn.update(|d| *d += 1);
                let _ = canvas.set_attribute("data-points", &n.to_string());
                let _ = canvas.set_attribute("data-labels", &boxes);
                let _ = canvas.set_attribute("data-hits", &spots);
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

    // The layer above: redrawn after the chart, and on selection or hover.
    Effect::new(move |_| {
        drawn.track();
        let series = highlight.map(|h| h.get()).unwrap_or_default();
        let hovered = hover.get();
        let Some(layer) = overlay_ref.get() else {
            return;
        };
        fit(&layer);
        let dpr = dpr_used.get_value();
        let result = model.with_untracked(|m| {
            grid.with_value(|g| {
                labels.with_value(|l| {
                    CanvasBackend::with_canvas_object(layer.clone()).map(|b| {
                        chart::draw_highlight(
                            &b.into_drawing_area(),
                            &m.chart,
                            g,
                            l,
                            &series,
                            hovered,
                            dpr,
                        )
                    })
                })
            })
        });
        if let Some(Err(e)) = result {
            ctx.status.set(e.to_string());
        }
        let selected =
            model.with_untracked(|m| series.first().and_then(|s| m.refs.get(*s).copied()));
        let _ = layer.set_attribute("data-selected", &kernel_attr(selected));
        layer_drawn.update(|d| *d += 1);
    });

    let at_pointer = move |ev: &leptos::ev::MouseEvent| {
        let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        let dpr = dpr_used.get_value();
        let found = grid.with_value(|g| g.nearest(x * dpr, y * dpr, PICK_RADIUS_CSS * dpr));
        (x, y, found)
    };
    let on_move = move |ev: leptos::ev::MouseEvent| {
        let (x, y, found) = at_pointer(&ev);
        if found.is_some() {
            pointer.set((x, y));
        }
        if hover.get_untracked() != found {
            hover.set(found);
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let (_, _, found) = at_pointer(&ev);
        if let Some(h) = found {
            if let Some(r) = model.with_untracked(|m| m.refs.get(h.series).copied()) {
                ctx.select(r);
            }
        }
    };
    let tooltip = move || {
        let h = hover.get()?;
        model.with(|m| {
            let info = m.infos.get(h.series).and_then(|s| s.get(h.point))?;
            Some((kernel_attr(Some(info.kernel)), info.tooltip()))
        })
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
        let csv = model.with(|m| m.to_csv());
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
                on:mouseleave=move |_| hover.set(None)
                on:click=on_click
            ></canvas>
            <canvas
                id=format!("{id}-layer")
                class="chart roofline layer"
                aria-hidden="true"
                node_ref=overlay_ref
                data-drawn=move || layer_drawn.get().to_string()
            ></canvas>
            {move || {
                tooltip()
                    .map(|(kernel, text)| {
                        view! {
                            <div
                                class="tooltip"
                                data-kernel=kernel
                                style=move || {
                                    let (x, y) = pointer.get();
                                    format!("left:{}px;top:{}px", x + 14.0, y + 10.0)
                                }
                            >
                                {text}
                            </div>
                        }
                    })
            }}
        </div>
        {children.map(|c| c())}
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
                        <dt>{chart::memory::memory_label_name(&key)}</dt>
                        <dd data-flow=key>{text}</dd>
                    }
                }
            />
        </dl>
    }
}

/// The stall chart canvas of `chart`, with each drawn row repeated as text under it.
#[component]
pub fn StallCanvas(
    /// What to draw.
    chart: Memo<StallChart>,
    /// Element id of the canvas.
    #[prop(default = "stall-canvas")]
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
                .map(|b| chart::draw_stalls(&b.into_drawing_area(), c, dpr))
        });
        match result {
            Some(Ok(())) => drawn.update(|d| *d += 1),
            Some(Err(e)) => ctx.status.set(e.to_string()),
            None => ctx.status.set("this browser has no 2-D canvas".into()),
        }
    });
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
