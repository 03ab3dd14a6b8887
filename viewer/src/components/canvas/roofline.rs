//! The roofline canvas: the chart, a layer above it for the selection and the pointer, the
//! tooltip, the export buttons ([`super::exports`]) and the chart's notes.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters::prelude::IntoDrawingArea;
use plotters_canvas::CanvasBackend;
use shared::chart::{self, Box2, Drawn, HitGrid, HitPoint, LabelBox, LabelOf, Surface};
use web_sys::HtmlCanvasElement;

use super::draw::{fit, use_canvas_draw};
use super::exports::RooflineExports;
use crate::browser;
use crate::ctx::Ctx;
use crate::state::roofline::RooflineModel;
use crate::state::view::KernelRef;

/// Most drawn points whose places the canvas lists in `data-hits`.
const HITS_SHOWN: usize = 2_000;

/// Pixels (CSS) within which a pointer picks a point.
const PICK_RADIUS_CSS: f64 = 9.0;

/// The chart's labels as JSON for the page's tests, in CSS pixels of the canvas:
/// `[{"text", "kind": "roof"|"kernel", "kernel", "x0", "y0", "x1", "y1"}]`.
fn labels_attr(labels: &[LabelBox], m: &RooflineModel, dpr: f64) -> String {
    let css = |v: i32| css_px(v, dpr);
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

/// The plot area inside the axes in CSS pixels, `[x0,y0,x1,y1]`, for the page's tests.
fn area_attr(area: Box2, dpr: f64) -> String {
    let css = |v: i32| css_px(v, dpr);
    format!(
        "[{},{},{},{}]",
        css(area.x0),
        css(area.y0),
        css(area.x1),
        css(area.y1)
    )
}

/// Backend pixels `v` in CSS pixels at `dpr`, to a tenth.
fn css_px(v: i32, dpr: f64) -> f64 {
    (f64::from(v) / dpr * 10.0).round() / 10.0
}

/// The drawn points in CSS pixels with their kernel, `[[x,y,"run.kernel"],...]`, for the
/// page's tests; empty above [`HITS_SHOWN`] points.
fn hits_attr(hits: &[HitPoint], m: &RooflineModel, dpr: f64) -> String {
    if hits.len() > HITS_SHOWN {
        return String::new();
    }
    let css = |v: i32| (f64::from(v) / dpr).round();
    let all: Vec<String> = hits
        .iter()
        .map(|h| {
            let kernel = kernel_attr(m.refs.get(h.series).copied());
            format!("[{},{},\"{kernel}\"]", css(h.x), css(h.y))
        })
        .collect();
    format!("[{}]", all.join(","))
}

fn kernel_attr(r: Option<KernelRef>) -> String {
    r.map(|r| format!("{}.{}", r.run, r.kernel))
        .unwrap_or_default()
}

/// What the chart drew, kept for the layer above it and the pointer.
#[derive(Clone, Copy)]
struct Plot {
    /// The drawn points, for finding the one under the pointer.
    grid: StoredValue<HitGrid>,
    /// Where the chart put its labels, for the layer's labels.
    labels: StoredValue<Vec<LabelBox>>,
    /// The device pixel ratio the chart was last drawn at.
    dpr: StoredValue<f64>,
    /// The point under the pointer.
    hover: RwSignal<Option<HitPoint>>,
}

impl Plot {
    fn new() -> Self {
        Plot {
            grid: StoredValue::new(HitGrid::default()),
            labels: StoredValue::new(Vec::new()),
            dpr: StoredValue::new(1.0),
            hover: RwSignal::new(None),
        }
    }

    /// Keeps what the chart of `model` drew on `canvas` at `dpr`, shows it in the canvas's
    /// attributes for the page's tests, and records the time from a load to this chart.
    fn drawn(self, canvas: &HtmlCanvasElement, dpr: f64, d: Drawn, model: Memo<RooflineModel>) {
        let ctx = Ctx::get();
        let n = d.hits.len();
        let boxes = model.with_untracked(|m| labels_attr(&d.labels, m, dpr));
        let spots = model.with_untracked(|m| hits_attr(&d.hits, m, dpr));
        let area = area_attr(d.area, dpr);
        self.grid
            .set_value(HitGrid::new(d.hits, PICK_RADIUS_CSS * dpr));
        self.labels.set_value(d.labels);
        self.hover.set(None);
        let _ = canvas.set_attribute("data-points", &n.to_string());
        let _ = canvas.set_attribute("data-labels", &boxes);
        let _ = canvas.set_attribute("data-hits", &spots);
        let _ = canvas.set_attribute("data-area", &area);
        if let Some(t0) = ctx.pending_since.get_untracked() {
            let ms = browser::now_ms() - t0;
            ctx.pending_since.set(None);
            ctx.last_load_ms.set(Some(ms));
            let _ = canvas.set_attribute("data-load-ms", &format!("{ms:.1}"));
        }
    }

    /// The pointer's place in CSS pixels and the drawn point within reach of it.
    fn at_pointer(self, ev: &leptos::ev::MouseEvent) -> (f64, f64, Option<HitPoint>) {
        let (x, y) = (f64::from(ev.offset_x()), f64::from(ev.offset_y()));
        let dpr = self.dpr.get_value();
        let found = self
            .grid
            .with_value(|g| g.nearest(x * dpr, y * dpr, PICK_RADIUS_CSS * dpr));
        (x, y, found)
    }
}

/// The layer above the chart: redrawn after the chart (`drawn` counts its draws), and on
/// a change of the `highlight`ed series or of the point under the pointer. Returns the
/// count of the layer's draws.
fn use_highlight_layer(
    layer_ref: NodeRef<Canvas>,
    plot: Plot,
    model: Memo<RooflineModel>,
    highlight: Option<Signal<Vec<usize>>>,
    drawn: RwSignal<u32>,
) -> RwSignal<u32> {
    let ctx = Ctx::get();
    let layer_drawn = RwSignal::new(0u32);
    Effect::new(move |_| {
        drawn.track();
        let series = highlight.map(|h| h.get()).unwrap_or_default();
        let hovered = plot.hover.get();
        let Some(layer) = layer_ref.get() else {
            return;
        };
        fit(&layer);
        let dpr = plot.dpr.get_value();
        let result = model.with_untracked(|m| {
            plot.grid.with_value(|g| {
                plot.labels.with_value(|l| {
                    CanvasBackend::with_canvas_object(layer.clone()).map(|mut b| {
                        let area = Surface::new(&mut b).into_drawing_area();
                        chart::draw_highlight(&area, &m.chart, g, l, &series, hovered, dpr)
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
    layer_drawn
}

/// The roofline canvas of `model`, with its tooltip, notes and export buttons.
///
/// Two canvases, one over the other: the chart, drawn when the model or the size changes,
/// and a transparent layer above it with the highlighted series and the point under the
/// pointer, redrawn on every selection or hover (a few shapes). The pointer finds its point
/// through a [`HitGrid`] of the drawn points, so hover and click cost the same at 10 points
/// or 30,000.
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
    let layer_ref = NodeRef::<Canvas>::new();
    let plot = Plot::new();
    // The pointer (CSS pixels), for the tooltip's place.
    let pointer = RwSignal::new((0.0f64, 0.0f64));
    let drawn = use_canvas_draw(
        canvas_ref,
        move |b, dpr| {
            plot.dpr.set_value(dpr);
            model.with(|m| chart::draw_roofline(&b.into_drawing_area(), &m.chart, dpr))
        },
        move |canvas, dpr, d| plot.drawn(canvas, dpr, d, model),
    );
    let layer_drawn = use_highlight_layer(layer_ref, plot, model, highlight, drawn);

    let on_move = move |ev: leptos::ev::MouseEvent| {
        let (x, y, found) = plot.at_pointer(&ev);
        if found.is_some() {
            pointer.set((x, y));
        }
        if plot.hover.get_untracked() != found {
            plot.hover.set(found);
        }
    };
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let (_, _, found) = plot.at_pointer(&ev);
        if let Some(h) = found {
            if let Some(r) = model.with_untracked(|m| m.refs.get(h.series).copied()) {
                ctx.select(r);
            }
        }
    };
    view! {
        <div class="chart-wrap">
            <canvas
                id=id
                class="chart roofline"
                role="img"
                aria-label=move || {
                    model.with(|m| crate::state::roofline::aria_summary(&m.chart))
                }
                node_ref=canvas_ref
                data-drawn=move || drawn.get().to_string()
                on:mousemove=on_move
                on:mouseleave=move |_| plot.hover.set(None)
                on:click=on_click
            ></canvas>
            <canvas
                id=format!("{id}-layer")
                class="chart roofline layer"
                aria-hidden="true"
                node_ref=layer_ref
                data-drawn=move || layer_drawn.get().to_string()
            ></canvas>
            <Tooltip model=model hover=plot.hover pointer=pointer />
        </div>
        {children.map(|c| c())}
        <RooflineExports model=model canvas_ref=canvas_ref />
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

/// The tooltip of the point under the pointer, beside the pointer.
#[component]
fn Tooltip(
    /// The roofline the point is on.
    model: Memo<RooflineModel>,
    /// The point under the pointer.
    hover: RwSignal<Option<HitPoint>>,
    /// The pointer, in CSS pixels of the canvas.
    pointer: RwSignal<(f64, f64)>,
) -> impl IntoView {
    let tooltip = move || {
        let h = hover.get()?;
        model.with(|m| {
            let info = m.infos.get(h.series).and_then(|s| s.get(h.point))?;
            Some((kernel_attr(Some(info.kernel)), info.tooltip()))
        })
    };
    move || {
        tooltip().map(|(kernel, text)| {
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
    }
}
