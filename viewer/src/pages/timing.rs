//! Event time and ncu duration side by side, each labelled with the cache and clock
//! control it was taken under, so a locked-clock replay is never read as the program's
//! own time.

use leptos::prelude::*;
use shared::artifact::CacheControl;

use super::{ms, opt};
use crate::components::explain::{NumCell, Term};
use crate::components::virtual_table::{aria_row, rows_memo, VirtualTable};
use crate::ctx::Ctx;
use crate::state::view::KernelRef;

fn cache_label(c: Option<CacheControl>) -> &'static str {
    match c {
        Some(CacheControl::Cold) => "caches flushed (--cache-control all)",
        Some(CacheControl::Warm) => "warm caches (--cache-control none)",
        None => "cache control not recorded (ncu's default flushes)",
    }
}

/// The timing table of the current run.
#[component]
pub fn TimingPage() -> impl IntoView {
    let ctx = Ctx::get();
    let run_info = move || {
        let run = ctx.current_run();
        ctx.ws.with(|ws| {
            ws.runs.get(run).map(|r| {
                let clock = r.run.artifact.provenance.clock_control.clone();
                let clock = match clock.as_deref() {
                    Some("base") => "clocks locked to base (--clock-control base)".to_string(),
                    Some("none") => "clocks free (--clock-control none)".to_string(),
                    Some(other) => format!("clock control {other}"),
                    None => "clock control not recorded (ncu's default locks to base)".to_string(),
                };
                let cache = r.kernels.iter().find_map(|k| k.cold_cache);
                (clock, cache_label(cache))
            })
        })
    };
    let rows = rows_memo(move || {
        let run = ctx.run.get();
        ctx.ws.with(|ws| {
            ws.runs
                .get(run)
                .map(|r| (0..r.kernels.len()).collect())
                .unwrap_or_default()
        })
    });
    let row = move |(pos, kernel): (usize, usize)| {
        let kr = KernelRef {
            run: ctx.run.get_untracked(),
            kernel,
        };
        ctx.ws.with_untracked(|ws| {
            ws.kernel(kr).map(|(_, k)| {
                let e = k.event.clone();
                let ratio = e
                    .as_ref()
                    .map(|t| t.median_ms)
                    .zip(k.ncu_cold_ms)
                    .and_then(|(ev, nc)| (ev > 0.0).then(|| nc / ev));
                view! {
                    <tr data-kernel=kr.kernel.to_string() aria-rowindex=aria_row(pos)>
                        <td class="name" title=k.name.clone()>{k.short.clone()}</td>
                        <NumCell text=opt(e.as_ref().map(|t| t.min_ms), ms) value=e.as_ref().map(|t| t.min_ms) key="event_time" col="event_min" />
                        <NumCell text=opt(e.as_ref().map(|t| t.median_ms), ms) value=e.as_ref().map(|t| t.median_ms) key="event_time" col="event_median" />
                        <NumCell text=opt(e.as_ref().map(|t| t.max_ms), ms) value=e.as_ref().map(|t| t.max_ms) key="event_time" col="event_max" />
                        <td class="num">{e.as_ref().map(|t| format!("{} + {}", t.warmups, t.samples_ms.len())).unwrap_or("-".into())}</td>
                        <NumCell text=opt(k.ncu_cold_ms, ms) value=k.ncu_cold_ms key="ncu_duration" col="ncu_cold" />
                        <NumCell text=opt(k.ncu_warm_ms, ms) value=k.ncu_warm_ms key="ncu_duration" col="ncu_warm" />
                        <NumCell text=opt(ratio, |v| format!("{v:.2}")) value=ratio col="ratio" />
                    </tr>
                }
                .into_any()
            })
        })
        .unwrap_or_else(|| ().into_any())
    };
    view! {
        <div class="page timing" id="page-timing">
            {move || {
                run_info()
                    .map(|(clock, cache)| {
                        view! {
                            <ul class="controls">
                                <li>
                                    <Term key="event_time" text="Event time" />
                                    ": a plain run, no profiler, the GPU's own clocks, caches as the previous launch left them."
                                </li>
                                <li>
                                    <Term key="ncu_duration" text="ncu duration" />
                                    {format!(": a profiled replay, {cache}, {clock}.")}
                                </li>
                            </ul>
                        }
                    })
            }}
            <VirtualTable id="timing-table" rows=rows row=Callback::new(row)>
                <tr aria-rowindex="1">
                    <th>"kernel"</th>
                    <th>"event min ms"</th>
                    <th>"event median ms"</th>
                    <th>"event max ms"</th>
                    <th>"warm-ups + samples"</th>
                    <th>"ncu cold ms"</th>
                    <th>"ncu warm ms"</th>
                    <th>"ncu / event"</th>
                </tr>
            </VirtualTable>
        </div>
    }
}
