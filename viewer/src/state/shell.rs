//! What the shell shows around every page, as plain data: the warning banner of a run
//! (truncated exports, skipped rows, figures derived from rates) and the side bar's kernel
//! list in time order.

use super::model::RunView;

/// Warnings shown in the banner before "and N more".
pub const BANNER_SHOWN: usize = 3;

/// The banner of `run`: every warning of its artifact, then one line when some kernel's
/// figures are derived from rates. Empty when there is nothing to warn about.
pub fn banner(run: &RunView) -> Vec<String> {
    // The sampled line says what the profile's own sampling warning says: once is enough.
    let mut lines: Vec<String> = run
        .run
        .artifact
        .warnings
        .iter()
        .filter(|w| !w.starts_with(shared::analysis::sampling::BANNER_START))
        .cloned()
        .collect();
    // A time no GPU of this kind could reach, or timers that disagree, by kernel name.
    lines.extend(run.table.kernels.iter().flat_map(|r| {
        r.time_flags()
            .map(|(what, why)| format!("{what} on {}: {why}", r.short_name))
            .chain(
                r.counters_contradict
                    .iter()
                    .map(|why| format!("counters contradict on {}: {why}", r.short_name)),
            )
    }));
    let derived = run
        .table
        .kernels
        .iter()
        .filter(|r| !r.derived_from_rates.is_empty())
        .count();
    if derived > 0 {
        lines.push(format!(
            "{derived} of {} kernels have bytes or FLOPs derived from rates (rate x duration: \
             the export has no totals); they are marked in the bytes table",
            run.table.kernels.len()
        ));
    }
    lines
}

/// The banner's first line for a sampled profile (schema 4 `sampled`):
/// `sampled: 67 of 172 launches (31 groups)`; `None` for a profile of every launch, and
/// for a sampled one whose every launch was measured (there are no others to speak of).
pub fn sampled_line(run: &RunView) -> Option<String> {
    let s = run
        .run
        .artifact
        .sampled
        .as_ref()
        .filter(|s| s.measured < s.launches)?;
    Some(format!(
        "sampled: {} of {} launches ({} groups of alike launches); the others carry a measured \
         launch's counters scaled by time (by blocks for a tail of a bigger grid)",
        s.measured, s.launches, s.groups
    ))
}

/// Most characters of a kernel's name in the side bar: two lines of its 16rem column.
pub const SIDE_NAME_CHARS: usize = 48;

/// A kernel of the side bar's list.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    /// Its index in the run.
    pub index: usize,
    /// Its label (`KernelFigures::label`: distinct within the run, what tells it from
    /// kernels of a like name kept), cut in the middle to [`SIDE_NAME_CHARS`].
    pub short: String,
    /// Its whole name (on hover).
    pub name: String,
    /// Its share of the run's time, as shown (`41.2 %`; empty when unknown).
    pub share: String,
    /// Its verdict (empty for none).
    pub verdict: String,
}

/// The kernels of `run` whose name holds `needle` (any case), most time first (kernels
/// without a time last, in artifact order), at most `limit`, and how many matched.
pub fn kernel_list(run: &RunView, needle: &str, limit: usize) -> (Vec<Listed>, usize) {
    let needle = needle.to_lowercase();
    let mut all: Vec<_> = run
        .kernels
        .iter()
        .filter(|k| needle.is_empty() || k.name.to_lowercase().contains(&needle))
        .collect();
    shared::order::sort_by(&mut all, |a, b| {
        let t = |k: &&shared::analysis::figures::KernelFigures| {
            k.row.time_share.unwrap_or(f64::NEG_INFINITY)
        };
        t(b).total_cmp(&t(a))
    });
    let total = all.len();
    let shown = all
        .into_iter()
        .take(limit)
        .map(|k| Listed {
            index: k.index,
            short: shared::text::names::elide_middle(&k.label, SIDE_NAME_CHARS),
            name: k.name.clone(),
            share: k
                .row
                .time_share
                .map(|s| format!("{:.1} %", 100.0 * s))
                .unwrap_or_default(),
            verdict: k.row.verdict.clone().unwrap_or_default(),
        })
        .collect();
    (shown, total)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::test_support::sample;

    #[test]
    fn the_list_is_in_time_order_and_filters() {
        let ws = sample("h200.json");
        let Some(run) = ws.runs.first() else {
            panic!("no run")
        };
        let (all, total) = kernel_list(run, "", 400);
        assert_eq!(total, run.kernels.len());
        let shares: Vec<f64> = all
            .iter()
            .filter_map(|k| run.kernels.get(k.index)?.row.time_share)
            .collect();
        assert!(shares.windows(2).all(|w| w[0] >= w[1]), "{shares:?}");
        let Some(first) = all.first() else {
            panic!("empty list")
        };
        assert!(first.share.ends_with(" %"));
        let (some, n) = kernel_list(run, &first.name.to_uppercase(), 400);
        assert!(n >= 1 && some.iter().any(|k| k.index == first.index));
        let (none, n) = kernel_list(run, "no such kernel at all", 400);
        assert!(none.is_empty() && n == 0);
        assert!(banner(run).len() >= run.run.artifact.warnings.len());
        assert_eq!(sampled_line(run), None);
    }

    #[test]
    fn side_bar_names_keep_the_end_that_tells_kernels_apart() {
        let ws = sample("h200-gpt2-bf16.json");
        let run = ws.runs.first().unwrap_or_else(|| panic!("no run"));
        let (all, _) = kernel_list(run, "vectorized_elementwise", 400);
        assert!(all.len() > 2, "{all:?}");
        for k in &all {
            assert!(k.short.chars().count() <= SIDE_NAME_CHARS, "{}", k.short);
            let Some(full) = run.kernels.iter().find(|f| f.index == k.index) else {
                panic!("no kernel {}", k.index)
            };
            // A name no other's cut clashes with keeps the end of its distinct short name
            // (its template argument); one that clashes shows where they differ.
            if full.label
                != shared::text::names::elide_name(&full.short, shared::text::names::LABEL_CHARS)
            {
                continue;
            }
            let full = &full.short;
            let end: String = full
                .chars()
                .skip(full.chars().count().saturating_sub(12))
                .collect();
            assert!(
                k.short.ends_with(&end),
                "{} lost the end of {full}",
                k.short
            );
        }
        let mut shorts: Vec<&str> = all.iter().map(|k| k.short.as_str()).collect();
        shorts.dedup();
        let distinct: std::collections::HashSet<&str> = shorts.iter().copied().collect();
        assert_eq!(distinct.len(), all.len(), "names alike: {shorts:?}");
    }

    #[test]
    fn a_sampled_profile_says_how_many_launches_were_measured() {
        let ws = sample("h200-gpt2-bf16.json");
        let mut run = ws.runs[0].run.clone();
        // The counts of the recorded BERT training step (docs/sampling.md).
        run.artifact.sampled = Some(shared::model::artifact::Sampled {
            measured: 67,
            launches: 172,
            groups: 31,
            timing_launches: 172,
        });
        let mut both = run.clone();
        let view = RunView::new(run);
        let line = sampled_line(&view).unwrap_or_default();
        assert!(line.starts_with("sampled: 67 of 172 launches"), "{line}");
        // The profile's own warning says the same: the banner leaves it to this line.
        let warning = shared::analysis::sampling::banner(&both.artifact).unwrap_or_default();
        both.artifact.warnings.insert(0, warning);
        assert!(!banner(&RunView::new(both.clone()))
            .iter()
            .any(|w| w.starts_with(shared::analysis::sampling::BANNER_START)));
        // Every launch measured: nothing about sampling (issue 38, item 6).
        both.artifact.sampled = Some(shared::model::artifact::Sampled {
            measured: 4,
            launches: 4,
            groups: 2,
            timing_launches: 4,
        });
        assert_eq!(shared::analysis::sampling::banner(&both.artifact), None);
        assert_eq!(sampled_line(&RunView::new(both)), None);
    }

    /// Every text colour of the style sheet holds 4.5:1 (WCAG 2.1, text) against the
    /// backgrounds it is drawn on: its rule's own `background` where it has one, else the
    /// page's (`--bg`), a panel's white and a selected row's blue. Custom properties
    /// (`var(--muted)`) are resolved from `:root`. The review measured the run diff's noise
    /// rows at 3.4:1 (#8a8a8a, issue 53).
    #[test]
    fn style_sheet_text_holds_4_5_to_1() {
        use shared::chart::draw::palette::contrast;
        let path = format!("{}/../site/style.css", env!("CARGO_MANIFEST_DIR"));
        let css = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        let hex = |v: &str| -> Option<(u8, u8, u8)> {
            let h = v.trim().strip_prefix('#')?;
            let n = |s: &str| u8::from_str_radix(s, 16).ok();
            match h.len() {
                3 => {
                    let d = |i: usize| n(&h[i..=i].repeat(2));
                    Some((d(0)?, d(1)?, d(2)?))
                }
                6 => Some((n(&h[0..2])?, n(&h[2..4])?, n(&h[4..6])?)),
                _ => None,
            }
        };
        let decls = |block: &str| -> Vec<(String, String)> {
            block
                .split(';')
                .filter_map(|d| d.split_once(':'))
                .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
                .collect()
        };
        let root = css
            .split_once(":root")
            .and_then(|(_, r)| r.split_once('{'))
            .and_then(|(_, r)| r.split_once('}'))
            .map(|(b, _)| decls(b))
            .unwrap_or_default();
        let resolve = |v: &str| -> String {
            match v.strip_prefix("var(").and_then(|v| v.strip_suffix(')')) {
                Some(name) => root
                    .iter()
                    .find(|(k, _)| k == name)
                    .map_or_else(String::new, |(_, v)| v.clone()),
                None => v.to_owned(),
            }
        };
        let bg = resolve("var(--bg)");
        let page = [hex(&bg), Some((255, 255, 255)), hex("#eaf3fb")];
        let mut checked = 0;
        // Rules, comments dropped; a media query's rules are rules too.
        let mut text = css.clone();
        while let Some(a) = text.find("/*") {
            let b = text[a..].find("*/").map_or(text.len(), |b| a + b + 2);
            text.replace_range(a..b, "");
        }
        for rule in text.split('}') {
            let Some((selector, block)) = rule.rsplit_once('{') else {
                continue;
            };
            let d = decls(block);
            let own_bg = d
                .iter()
                .find(|(k, _)| k == "background" || k == "background-color")
                .map(|(_, v)| resolve(v));
            for (k, v) in &d {
                if k != "color" {
                    continue;
                }
                let Some(fg) = hex(&resolve(v)) else {
                    continue;
                };
                let backs: Vec<(u8, u8, u8)> = match own_bg.as_deref() {
                    // A background that is not one colour (a translucent tooltip) is
                    // judged by eye: white on near-black.
                    Some(b) if hex(b).is_none() => continue,
                    Some(b) => hex(b).into_iter().collect(),
                    None => page.iter().flatten().copied().collect(),
                };
                for back in backs {
                    let ratio = contrast(fg, back);
                    assert!(
                        ratio >= 4.5,
                        "{}: {v} on {back:?} is {ratio:.2}:1",
                        selector.trim()
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked >= 30, "only {checked} pairs");
    }
}
