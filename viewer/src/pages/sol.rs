//! Speed-of-Light table: each kernel's verdict and its reason beside its name, then the
//! headline percentages; a latency-bound kernel's reason says why (its waves and top
//! stall). Rows are plain data from `state::table`.

use leptos::prelude::*;

use super::{current_ref, kernel_rows};
use crate::components::term::Term;
use crate::components::virtual_table::{row_view, VirtualTable};
use crate::ctx::Ctx;
use crate::state::model::RunView;
use crate::state::table::{group_rows, sol_header, sol_row, GROUP_HEADER};

/// The Speed-of-Light table of the current run.
#[component]
pub fn SolPage() -> impl IntoView {
    let ctx = Ctx::get();
    let row = move |_: usize, kernel: usize| {
        let kr = current_ref(kernel);
        let selected = ctx.selected();
        ctx.ws
            .with_untracked(|ws| ws.kernel(kr).map(|(_, k)| sol_row(kr, k, selected)))
    };
    view! {
        <div class="page sol" id="page-sol">
            <p class="muted">
                "Percentages are of each unit's own peak over the kernel's elapsed cycles, at the \
                 clocks ncu ran it (see Timing); ncu ms is one launch's duration. "
                <Term key="memory_pct" text="Memory Throughput is not DRAM throughput." />
            </p>
            <VirtualTable id="sol-table" rows=kernel_rows() header=sol_header() row=Box::new(row) />
            <Advised />
            <MixedKernels id="sol-groups" />
        </div>
    }
}

/// What `f` lists of the current run (nothing when there is none), tracking the run.
fn of_current_run<T>(ctx: Ctx, f: impl Fn(&RunView) -> Vec<T>) -> Vec<T> {
    let run = ctx.run.get();
    ctx.ws
        .with(|ws| ws.runs.get(run).map(|r| f(r)).unwrap_or_default())
}

/// The kernels the table advises on (`shared::analysis::advice`: an FP32 matrix multiply
/// the tensor cores would run many times faster), each with its sentence, most time first.
#[component]
fn Advised() -> impl IntoView {
    let ctx = Ctx::get();
    let advised = move || {
        of_current_run(ctx, |r| {
            r.by_time
                .iter()
                .filter_map(|&i| r.kernels.get(i))
                .filter_map(|k| Some((k.short.clone(), k.name.clone(), k.row.advice.clone()?)))
                .collect()
        })
    };
    view! {
        <Show when=move || !advised().is_empty()>
            <section id="sol-advice">
                <h3>"Advice"</h3>
                <ul>
                    {move || {
                        advised()
                            .into_iter()
                            .map(|(short, name, advice)| {
                                view! {
                                    <li class="advice">
                                        <strong title=name>{short}</strong>
                                        ": "
                                        {advice}
                                    </li>
                                }
                            })
                            .collect_view()
                    }}
                </ul>
            </section>
        </Show>
    }
}

/// The kernels whose launch groups disagree (a `*` after the verdict), most time first,
/// each opening into a table of its groups: shape, launches, time, share of its time,
/// verdict and reason.
/// The selected kernel's groups are open, so a click on its row opens them (issue 34);
/// the SOL page and "Where the time goes" both list them under their tables.
#[component]
pub fn MixedKernels(
    /// The section's id (`sol-groups`, `time-groups`).
    id: &'static str,
) -> impl IntoView {
    let ctx = Ctx::get();
    let mixed = move || {
        of_current_run(ctx, |r| {
            r.by_time
                .iter()
                .filter_map(|&i| Some((i, r.kernels.get(i)?)))
                .filter(|(_, k)| k.row.verdict_mixed)
                .map(|(i, k)| (i, k.label.clone(), k.name.clone(), group_rows(k)))
                .collect()
        })
    };
    let selected = move || ctx.selected().map(|s| s.kernel);
    view! {
        <Show when=move || !mixed().is_empty()>
            <section id=id class="kernel-groups">
                <h3>"Launch groups that disagree"</h3>
                <p class="muted">
                    "A verdict marked * holds the most of its kernel's time; its launches of \
                     another shape, or of one shape but another duration (another problem \
                     size), have another. Select the kernel, or open one, to see its groups."
                </p>
                {move || {
                    mixed()
                        .into_iter()
                        .map(|(i, short, name, rows)| {
                            view! {
                                <details
                                    class="sol-group"
                                    data-kernel=i.to_string()
                                    prop:open=move || selected() == Some(i)
                                >
                                    <summary title=name>{short}</summary>
                                    <table class="grid groups">
                                        <thead>
                                            <tr>
                                                {GROUP_HEADER.map(|h| view! { <th>{h}</th> })}
                                            </tr>
                                        </thead>
                                        <tbody>
                                            {rows
                                                .into_iter()
                                                .enumerate()
                                                .map(|(pos, r)| row_view(pos, r))
                                                .collect_view()}
                                        </tbody>
                                    </table>
                                </details>
                            }
                        })
                        .collect_view()
                }}
            </section>
        </Show>
    }
}
