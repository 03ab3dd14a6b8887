//! Nsight Compute's rules for the selected kernel: the findings of its longest launch,
//! largest estimated speedup first, with type, title and message (as text), and the
//! metrics each cites linked to the raw metrics page searched for them. The rows are
//! plain data from `state::rules`.

use leptos::prelude::*;
use shared::text::escape::{links, Piece};

use crate::ctx::Ctx;
use crate::state::rules::{rules_panel, Cite, RuleRow, RulesPanel};
use crate::state::view::View;

/// The rules panel of the selected kernel.
#[component]
pub fn RulesPage() -> impl IntoView {
    let ctx = Ctx::get();
    let panel = Memo::new(move |_| {
        let sel = ctx.selected();
        ctx.ws.with(|ws| {
            sel.and_then(|r| {
                let (run, k) = ws.kernel(r)?;
                let record = run.run.artifact.kernels.get(r.kernel)?;
                Some(rules_panel(&k.name, record))
            })
            .unwrap_or_default()
        })
    });
    view! {
        <div class="page rules" id="page-rules">
            <h2 class="kernel-name" id="rules-kernel">{move || panel.with(|p| p.kernel.clone())}</h2>
            {move || panel.with(findings)}
        </div>
    }
}

/// The findings table, or a note when the kernel has none.
fn findings(p: &RulesPanel) -> AnyView {
    let Some(launch) = p.launch else {
        return view! {
            <p class="note" id="rules-none">
                "No rule results for this kernel: Nsight Compute's rules are in a report \
                 (.ncu-rep) or a details-page export (--page details) of a set that runs them \
                 (--set full, or capture profile --depth full)."
            </p>
        }
        .into_any();
    };
    let rows = p.rows.iter().cloned().map(row).collect_view();
    view! {
        <p class="muted">
            {format!(
                "Nsight Compute's rule findings for launch {launch}, this kernel's longest, \
                 largest estimated speedup first. An estimated speedup is ncu's: local ones are \
                 of the part of the kernel the rule looks at, global ones of the whole kernel."
            )}
        </p>
        <table class="grid" id="rules-table">
            <thead>
                <tr>
                    <th>"estimated speedup"</th>
                    <th>"type"</th>
                    <th>"rule"</th>
                    <th>"finding"</th>
                </tr>
            </thead>
            <tbody>{rows}</tbody>
        </table>
    }
    .into_any()
}

/// A finding's row.
fn row(r: RuleRow) -> impl IntoView {
    let RuleRow {
        finding,
        speedup,
        class,
        cites,
    } = r;
    let title = finding
        .title
        .map(|t| view! { <strong class="rule-title">{t}</strong> });
    let cited = (!cites.is_empty()).then(|| {
        view! {
            <p class="rule-metrics">
                "cites: "
                {cites.into_iter().map(cite).collect_view()}
            </p>
        }
    });
    let rule = finding.rule.clone();
    view! {
        <tr class=class data-rule=rule>
            <td class="num" data-col="speedup">{speedup}</td>
            <td data-col="type">{finding.kind}</td>
            <td data-col="rule" title=finding.section>{finding.rule}</td>
            <td data-col="finding">
                {title}
                <p class="rule-message">{message(&finding.message)}</p>
                {cited}
            </td>
        </tr>
    }
}

/// A rule's message as text, with its `https://` addresses (the Profiling Guide's) as links.
fn message(text: &str) -> impl IntoView {
    links(text)
        .into_iter()
        .map(|piece| match piece {
            Piece::Text(t) => t.to_string().into_any(),
            Piece::Link(url) => view! {
                <a href=url.to_string() rel="noopener noreferrer" target="_blank">
                    {url.to_string()}
                </a>
            }
            .into_any(),
        })
        .collect_view()
}

/// A cited metric: a link to the raw metrics page searched for it, where the launch has
/// it; its value as the rule read it and its meaning on hover.
fn cite(c: Cite) -> impl IntoView {
    let ctx = Ctx::get();
    let Cite {
        metric,
        value,
        meaning,
        in_metrics,
    } = c;
    let shown = if value.is_empty() {
        metric.clone()
    } else {
        format!("{metric} = {value}")
    };
    let title = if meaning.is_empty() {
        "a metric ncu's rule read".to_owned()
    } else {
        meaning
    };
    if in_metrics {
        let name = metric.clone();
        let open = move |_| {
            ctx.metric_query.set(name.clone());
            ctx.view_pinned.set(true);
            ctx.view.update(|v| v.view = View::Metrics);
        };
        view! {
            <button class="link cite" data-metric=metric title=title on:click=open>
                {shown}
            </button>
            " "
        }
        .into_any()
    } else {
        view! {
            <span class="cite" data-metric=metric title=format!("{title} (not among the raw metrics)")>
                {shown}
            </span>
            " "
        }
        .into_any()
    }
}
