//! The sections about the selected kernel beside its charts, as markup: on the occupancy
//! page, its verdict with the reason, its launch fit and its largest stalls explained; on
//! the memory page, its headline memory figures.

use super::{tagged, term, PageNode};
use crate::state::kernel::KernelFigures;
use crate::state::latency::top_reasons;
use crate::state::markup::{el, text};

fn opt(value: Option<f64>, f: impl Fn(f64) -> String) -> String {
    value.map_or_else(|| "-".to_string(), f)
}

/// The kernel's name, verdict with its reason, and launch fit in sentences (nothing for no
/// kernel).
pub fn latency_facts(k: Option<&KernelFigures>) -> PageNode {
    let Some(k) = k else {
        return text("");
    };
    let verdict = k
        .verdict
        .as_ref()
        .map(|v| v.kind.as_str().to_string())
        .unwrap_or_else(|| "no verdict".into());
    let line = match &k.latency.reason {
        Some(reason) => format!("{verdict}: {reason}"),
        None => verdict,
    };
    el("div")
        .child(tagged("h2", "kernel-name", k.name.clone()).id("latency-kernel"))
        .child(el("p").id("latency-reason").text(line))
        .child(
            el("ul")
                .id("fit-notes")
                .children(k.latency.fit.notes().into_iter().map(|n| el("li").text(n))),
        )
        .into()
}

/// The heading of the largest stalls and each explained (a note when the export has no
/// warp-state counters).
pub fn stall_reasons(k: Option<&KernelFigures>) -> PageNode {
    let reasons = k.map(top_reasons).unwrap_or_default();
    let none = (k.is_some() && reasons.is_empty()).then(|| {
        tagged(
            "p",
            "muted",
            "This export has no warp-state counters: collect them with ncu's --set full (or \
             its WarpStateStats section), or with capture profile.",
        )
        .id("no-stalls")
    });
    let items = reasons.into_iter().map(|n| {
        el("li")
            .attr("data-stall", n.reason.key)
            .child(el("strong").text(format!("{} ({})", n.reason.name, n.share)))
            .text(format!(
                ": a warp waits on {}. Usually {}. What helps: {}.",
                n.reason.waits_on, n.reason.causes, n.reason.helps,
            ))
    });
    el("div")
        .child(el("h3").child(term("stalls", "Largest stalls")))
        .children(none)
        .child(
            el("ul")
                .class("reasons")
                .id("stall-reasons")
                .children(items),
        )
        .into()
}

/// The kernel's name and its headline memory figures (nothing for no kernel).
pub fn memory_facts(k: Option<&KernelFigures>) -> PageNode {
    let Some(k) = k else {
        return text("");
    };
    let num = shared::text::format::sig3;
    let pct = |v: f64| format!("{v:.1}");
    el("div")
        .child(tagged("h2", "kernel-name", k.name.clone()).id("memory-kernel"))
        .child(
            el("p")
                .child(term("sectors_per_request", "sectors per request"))
                .text(format!(": {}  ", opt(k.sectors_per_request, num)))
                .child(term("hit_rate", "L1 hit"))
                .text(format!(": {} %  ", opt(k.hit_rates.l1_pct, pct)))
                .child(term("hit_rate", "L2 hit"))
                .text(format!(": {} %  ", opt(k.hit_rates.l2_pct, pct)))
                .child(term("dram_per_ask", "DRAM/ask"))
                .text(format!(
                    ": {}",
                    opt(k.row.dram_per_ask, |v| format!("{v:.4}"))
                )),
        )
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_kernel_shows_no_facts_and_no_note() {
        assert_eq!(latency_facts(None).text_content(), "");
        assert_eq!(memory_facts(None).text_content(), "");
        let reasons = stall_reasons(None);
        assert!(reasons.find("no-stalls").is_none());
        assert!(reasons.find("stall-reasons").is_some());
    }
}
