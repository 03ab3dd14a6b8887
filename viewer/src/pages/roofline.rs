//! The roofline view: precision selector, the chart, and how to read it.

use leptos::prelude::*;
use shared::model::work_kind::Work;
use shared::text::format::fmt_si;

use crate::components::canvas::RooflineCanvas;
use crate::components::term::Term;
use crate::ctx::Ctx;
use crate::state::roofline::run_roofline;
use crate::state::roofline::{point_list, RooflineModel};
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

/// Most points listed in the page's table of points; the CSV export has them all.
pub const POINTS_SHOWN: usize = 400;

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
    let analytic = move || model.with(|m| m.analytic);
    view! {
        <div class="page roofline" id="page-roofline">
            <div class="toolbar">
                <PrecisionSelect options=options />
                <Show when=analytic>
                    <span class="badge analytic">
                        <Term key="analytic" text="analytic roofline (no counters)" />
                    </span>
                </Show>
            </div>
            <RooflineCanvas model=model highlight=highlight>
                <PointList model=model />
            </RooflineCanvas>
            <PointsTable model=model />
            <p class="legend muted">
                "Each kernel is drawn at its "
                <Term key="oi" text="operational intensity" />
                " for each kind of bytes: hollow circle = asked (hand count), filled circle = DRAM, \
                 square = L2, diamond = L1, joined by a line. Solid roofs are measured, dashed ones \
                 theoretical; the knee is the "
                <Term key="ridge" text="ridge point" />
                ". A red ring marks a point "
                <Term key="above_roof" text="above its roof" />
                ". Hover for numbers, click to select."
            </p>
        </div>
    }
}

/// Every kernel on the chart with every one of its points, in time order: its colour, rank
/// (the number before its label on the chart), short name (the whole name on hover), share
/// of the time and verdict, then each point's bytes, intensity and rate, so every point of
/// the canvas can be told apart in the page (and by screen readers and tests). Clicking a
/// kernel selects it.
#[component]
fn PointList(model: Memo<RooflineModel>) -> impl IntoView {
    let ctx = Ctx::get();
    let items = Memo::new(move |_| {
        let run = ctx.run.get();
        model.with(|m| ctx.ws.with(|ws| point_list(ws, run, m, POINTS_SHOWN)))
    });
    let more = move || {
        let n: usize = model.with(|m| m.infos.iter().map(Vec::len).sum());
        let shown: usize = items.with(|l| l.iter().map(|i| i.points.len()).sum());
        if n > shown {
            format!("{} more points in the chart data CSV", n - shown)
        } else {
            String::new()
        }
    };
    let selected = move || ctx.selected();
    view! {
        <section class="point-list" aria-label="kernels on the chart">
            // No heading over an empty list (a `--set basic` report plots nothing).
            <Show when=move || items.with(|l| !l.is_empty())>
                <h3>"Kernels on the chart, by time"</h3>
            </Show>
            <ol id="roofline-list">
                {move || {
                    items
                        .get()
                        .into_iter()
                        .map(|item| {
                            let r = item.kernel;
                            let kernel = format!("{}.{}", r.run, r.kernel);
                            let style = format!("background:{}", item.color);
                            let is_selected = move || selected() == Some(r);
                            view! {
                                <li
                                    class="pl-kernel"
                                    class:selected=is_selected
                                    data-kernel=kernel
                                    data-rank=item.rank.to_string()
                                    data-color=item.color.clone()
                                >
                                    <button
                                        class="pl-name"
                                        title=item.name.clone()
                                        on:click=move |_| ctx.select(r)
                                    >
                                        <span class="swatch" style=style aria-hidden="true"></span>
                                        <span class="pl-rank">{item.rank.to_string()}</span>
                                        " "
                                        {item.short.clone()}
                                    </button>
                                    <span class="pl-share">{item.share.clone()}</span>
                                    <span class="pl-verdict verdict" title=item.why.clone()>
                                        {item.verdict.clone()}
                                    </span>
                                    {item
                                        .advice
                                        .map(|a| view! { <p class="pl-advice advice">{a}</p> })}
                                    <ul class="pl-points">
                                        {item
                                            .points
                                            .into_iter()
                                            .map(|p| {
                                                view! {
                                                    <li
                                                        class="pt"
                                                        data-level=p.level
                                                        data-clipped=p.clipped.to_string()
                                                        data-flop-per-byte=p.flop_per_byte.to_string()
                                                        data-gflop-per-s=p.gflop_per_s.to_string()
                                                    >
                                                        {p.text}
                                                    </li>
                                                }
                                            })
                                            .collect_view()}
                                    </ul>
                                </li>
                            }
                        })
                        .collect_view()
                }}
            </ol>
            <p class="muted">{more}</p>
        </section>
    }
}

/// The chart's points as a table, for screen readers and for reading exact numbers (each
/// in `data-value`, the text to four significant digits): folded away, its rows rendered
/// only once opened.
#[component]
fn PointsTable(model: Memo<RooflineModel>) -> impl IntoView {
    let open = RwSignal::new(false);
    let rows = move || {
        if !open.get() {
            return Vec::new();
        }
        model.with(|m| {
            m.infos
                .iter()
                .flatten()
                .take(POINTS_SHOWN)
                .map(|p| {
                    (
                        p.kernel.kernel.to_string(),
                        (p.short.clone(), p.name.clone()),
                        p.level.label(),
                        p.kind.key(),
                        p.flop_per_byte(),
                        p.gflop_per_s(),
                    )
                })
                .collect::<Vec<_>>()
        })
    };
    let more = move || {
        let n: usize = model.with(|m| m.infos.iter().map(Vec::len).sum());
        if n > POINTS_SHOWN {
            format!("{} more points in the CSV export", n - POINTS_SHOWN)
        } else {
            String::new()
        }
    };
    view! {
        <details
            id="roofline-points"
            on:toggle=move |ev| {
                let now = event_target::<web_sys::HtmlDetailsElement>(&ev).open();
                if open.get_untracked() != now {
                    open.set(now);
                }
            }
        >
            <summary>"Points as a table"</summary>
            <table class="grid">
                <thead>
                    <tr>
                        <th>"kernel"</th>
                        <th>"point"</th>
                        <th>"work"</th>
                        <th>"intensity (FLOP/B)"</th>
                        <th>"rate (FLOP/s)"</th>
                    </tr>
                </thead>
                <tbody>
                    {move || {
                        rows()
                            .into_iter()
                            .map(|(kernel, (short, name), level, kind, oi, gflops)| {
                                view! {
                                    <tr data-kernel=kernel>
                                        <td class="name" title=name>{short}</td>
                                        <td>{level}</td>
                                        <td>{kind}</td>
                                        <td class="num" data-col="flop_per_byte" data-value=oi.to_string()>
                                            {fmt_si(oi, "")}
                                        </td>
                                        <td class="num" data-col="gflop_per_s" data-value=gflops.to_string()>
                                            {fmt_si(gflops * 1e9, "")}
                                        </td>
                                    </tr>
                                }
                            })
                            .collect_view()
                    }}
                </tbody>
            </table>
            <p class="muted">{more}</p>
        </details>
    }
}
