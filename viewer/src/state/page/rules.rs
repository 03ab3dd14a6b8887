//! The rules panel of the selected kernel, as markup: Nsight Compute's rule findings of its
//! longest launch (from `shared::analysis::findings`, through the kernel's table row),
//! largest estimated speedup first, each with its type, title, message and the metrics it
//! cites. Messages are text from the file, never markup.

use shared::analysis::findings::Finding;

use super::{tagged, PageNode};
use crate::state::kernel::KernelFigures;
use crate::state::markup::{el, text};

/// The estimated speedup as the panel shows it (`44.1 % local`, or `-`).
fn speedup(pct: Option<f64>, kind: Option<&str>) -> String {
    match (pct, kind) {
        (Some(p), Some(k)) => format!("{p:.1} % {k}"),
        (Some(p), None) => format!("{p:.1} %"),
        _ => "-".to_owned(),
    }
}

/// The selected kernel's findings (nothing for no kernel; a note when it has none).
pub fn rules_panel(k: Option<&KernelFigures>) -> PageNode {
    match k {
        Some(k) => findings_panel(&k.name, &k.row.rules),
        None => text(""),
    }
}

/// The panel of kernel `name` with its ranked `rules`.
pub fn findings_panel(name: &str, rules: &[Finding]) -> PageNode {
    let heading = tagged("h2", "kernel-name", name.to_owned()).id("rules-kernel");
    if rules.is_empty() {
        return el("div")
            .child(heading)
            .child(tagged(
                "p",
                "note",
                "No rule results for this kernel: Nsight Compute's rules are in a report (.ncu-rep) \
                 or a details-page export of a set that runs them (--set full).",
            ))
            .into();
    }
    let header = el("tr").children(
        ["estimated speedup", "type", "rule", "finding"]
            .into_iter()
            .map(|h| el("th").text(h)),
    );
    let rows = rules.iter().map(|f| {
        let mut finding = el("td");
        if let Some(t) = &f.title {
            finding = finding.child(tagged("strong", "rule-title", t.clone()));
        }
        finding = finding.child(tagged("p", "rule-message", f.message.clone()));
        if !f.focus_metrics.is_empty() {
            finding = finding.child(tagged(
                "p",
                "rule-metrics",
                format!("cites: {}", f.focus_metrics.join(", ")),
            ));
        }
        el("tr")
            .class(match f.kind.as_str() {
                "OPT" => "rule-opt",
                "WRN" => "rule-wrn",
                _ => "rule-inf",
            })
            .child(el("td").text(speedup(f.speedup_pct, f.speedup_type.as_deref())))
            .child(el("td").text(f.kind.clone()))
            .child(el("td").text(f.rule.clone()))
            .child(finding)
    });
    el("div")
        .child(heading)
        .child(tagged(
            "p",
            "note",
            "Nsight Compute's rule findings for this kernel's longest launch, largest estimated \
             speedup first.",
        ))
        .child(el("table").id("rules-table").child(header).children(rows))
        .into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn findings_are_rows_of_text_in_their_order() {
        assert!(findings_panel("gemm<1>", &[])
            .all_text()
            .contains("No rule results"));
        let rules = vec![
            Finding {
                rule: "SOLBottleneck".into(),
                kind: "OPT".into(),
                title: Some("Small Grid".into()),
                message: "<b>not markup</b>".into(),
                speedup_pct: Some(44.14),
                speedup_type: Some("local".into()),
                section: "SpeedOfLight".into(),
                focus_metrics: vec!["launch__grid_size".into()],
            },
            Finding {
                rule: "SOLFPRoofline".into(),
                kind: "INF".into(),
                ..Default::default()
            },
        ];
        let panel = findings_panel("gemm<1>", &rules);
        let all = panel.all_text();
        assert!(all.contains("44.1 % local"), "{all}");
        assert!(all.contains("<b>not markup</b>"), "{all}");
        assert!(all.contains("cites: launch__grid_size"), "{all}");
        assert!(panel.find("rules-table").is_some(), "a table");
        assert_eq!(
            panel.count(&|c| c.tag == "tr"),
            3,
            "header and two findings"
        );
        assert_eq!(rules_panel(None), text(""));
    }
}
