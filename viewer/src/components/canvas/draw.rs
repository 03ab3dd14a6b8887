//! The draw hook every chart canvas draws through ([`use_canvas_draw`]): the canvas sized
//! to its element and the device pixel ratio ([`fit`]), redrawn when the chart's data or the
//! window size changes. It stands below the canvases, which all import it.

use leptos::html::Canvas;
use leptos::prelude::*;
use plotters_canvas::CanvasBackend;
use shared::chart::{ChartError, Surface};
use web_sys::HtmlCanvasElement;

use crate::browser;
use crate::ctx::Ctx;

/// A redraw counter bumped on window resize.
fn resize_tick() -> RwSignal<u32> {
    let tick = RwSignal::new(0u32);
    let handle = window_event_listener(leptos::ev::resize, move |_| tick.update(|n| *n += 1));
    on_cleanup(move || handle.remove());
    tick
}

/// Sizes the canvas backing store to its CSS box times the pixel ratio; returns the ratio.
pub(super) fn fit(canvas: &HtmlCanvasElement) -> f64 {
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
