//! The roofline's export buttons: the chart as SVG (drawn again by `shared::chart`), the
//! canvas as PNG, and the chart's numbers as CSV.

use leptos::html::Canvas;
use leptos::prelude::*;
use shared::chart;

use crate::browser;
use crate::ctx::Ctx;
use crate::state::roofline::RooflineModel;
use crate::state::view::precision_slug;

/// The export buttons of the roofline of `model`, drawn on the canvas of `canvas_ref`.
#[component]
pub fn RooflineExports(
    /// The roofline exported.
    model: Memo<RooflineModel>,
    /// The chart's canvas, exported as PNG.
    canvas_ref: NodeRef<Canvas>,
) -> impl IntoView {
    let ctx = Ctx::get();
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
        <div class="exports">
            <button id="export-svg" on:click=export_svg>"Export SVG"</button>
            <button id="export-png" on:click=export_png>"Export PNG"</button>
            <button id="export-csv" on:click=export_csv>"Chart data CSV"</button>
        </div>
    }
}
