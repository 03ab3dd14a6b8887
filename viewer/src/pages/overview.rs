//! Overview: the run's warnings first, then cards in a grid (device, theoretical peaks,
//! measured ceilings), the compute roofs of every precision with where each comes from, the
//! host's other devices side by side; provenance with the ncu command lines and what each
//! kernel asks for are folded in disclosures. The content is `state::overview` (tested
//! natively); this page lays it out.

use leptos::prelude::*;

use super::multi::DevicesSection;
use crate::components::term::Term;
use crate::ctx::Ctx;
use crate::state::overview::{overview, Kv};

/// A key-value table.
fn kv(id: &'static str, rows: Vec<Kv>) -> impl IntoView {
    view! {
        <table class="kv" id=id>
            {rows
                .into_iter()
                .map(|(label, value)| {
                    view! {
                        <tr>
                            <th scope="row">{label}</th>
                            <td>{value}</td>
                        </tr>
                    }
                })
                .collect_view()}
        </table>
    }
}

/// A table of `headers` and text rows.
fn grid<const N: usize>(
    id: &'static str,
    headers: [&'static str; N],
    rows: Vec<[String; N]>,
) -> impl IntoView {
    view! {
        <table class="grid" id=id>
            <thead>
                <tr>{headers.map(|h| view! { <th>{h}</th> }).into_iter().collect_view()}</tr>
            </thead>
            <tbody>
                {rows
                    .into_iter()
                    .map(|r| {
                        view! {
                            <tr>{r.map(|c| view! { <td>{c}</td> }).into_iter().collect_view()}</tr>
                        }
                    })
                    .collect_view()}
            </tbody>
        </table>
    }
}

/// The overview of the current run.
#[component]
pub fn Overview() -> impl IntoView {
    let ctx = Ctx::get();
    let data = Memo::new(move |_| {
        let run = ctx.current_run();
        ctx.ws.with(|ws| overview(ws, run))
    });
    move || {
        let Some(o) = data.get() else {
            return view! { <p>"Nothing loaded."</p> }.into_any();
        };
        let warnings = if o.warnings.is_empty() {
            view! { <li class="muted">"none"</li> }.into_any()
        } else {
            o.warnings
                .into_iter()
                .map(|w| view! { <li>{w}</li> })
                .collect_view()
                .into_any()
        };
        let run = ctx.current_run();
        let device = o.device.map(|d| kv("device", d));
        let kernels = o.kernels.len();
        view! {
            <div class="page overview" id="page-overview">
                <h2>{o.name}</h2>
                <section class="overview-warnings">
                    <h3>"Warnings"</h3>
                    <ul class="warnings" id="warnings">{warnings}</ul>
                </section>
                <div class="cards">
                    <div class="card">
                        <h3>"Device"</h3>
                        {device}
                    </div>
                    <div class="card">
                        <h3>
                            <Term key="peaks" text="Theoretical peaks" />
                        </h3>
                        {kv("peaks", o.peaks)}
                    </div>
                    <div class="card">
                        <h3>
                            <Term key="ceilings" text="Measured ceilings" />
                        </h3>
                        {match o.ceilings {
                            Some(rows) => kv("ceilings", rows).into_any(),
                            None => {
                                view! {
                                    <p class="muted" id="ceilings">
                                        "None in this run: capture run measures the copy and \
                                         FMA ceilings on the GPU; the roofline uses the \
                                         theoretical peaks."
                                    </p>
                                }
                                    .into_any()
                            }
                        }}
                    </div>
                </div>
                <h3>
                    <Term key="ceilings" text="Compute roofs per precision" />
                </h3>
                {grid(
                    "compute-roofs",
                    ["precision", "measured", "measured by", "theoretical", "theoretical from"],
                    o.roofs,
                )}
                <DevicesSection only=Some(run) />
                <details class="provenance-details">
                    <summary>"Provenance and the ncu command lines"</summary>
                    {kv("provenance", o.provenance)}
                    <ul class="commands">
                        {o
                            .commands
                            .into_iter()
                            .map(|c| view! { <li><code>{c}</code></li> })
                            .collect_view()}
                    </ul>
                </details>
                <details class="asked-details">
                    <summary>
                        <Term key="ask_bytes" text="What each kernel asks for" />
                        {format!(" ({kernels} kernels)")}
                    </summary>
                    {grid(
                        "kernels-asked",
                        ["kernel", "source", "launch", "asked bytes and FLOPs", "check"],
                        o.kernels,
                    )}
                </details>
            </div>
        }
        .into_any()
    }
}
