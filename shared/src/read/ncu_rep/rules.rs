//! A launch's rule results (ncu's guided analysis), as a report stores them.
//!
//! Found by dumping the profile results of real reports ([`super::wire::dump`]) and matching
//! them, message for message, with `action.rule_results_as_dicts()` of NVIDIA's `ncu_report`
//! module and with the rule rows of `ncu --page details --csv` of the same reports
//! (`tests/oracle/`). Field numbers are this reader's findings; the names are descriptive.
//!
//! A rule result (profile result field 19): 1 = rule identifier (`SOLBottleneck`), 2 = its
//! display name, 3 = its body (repeated), 4 = the section identifier, 5 = source markers
//! (skipped). A body holds items (field 1, repeated), each one finding: 1 = the message
//! (1 = text, 2 = type: 1 info, 2 warning, 4 optimization; 4 = title), 8 = a focus metric
//! (repeated; 2 = name, 3 = value as a double, 5 = advice), 10 = the estimated speedup
//! (1 = kind: 1 local, 2 global; 2 = percent as a double). An item without a message (a
//! table, field 9) is not a finding and is skipped; so is a rule without a body (it ran and
//! found nothing to say).

use crate::error::ReportError;
use crate::model::artifact::{FocusMetric, RuleResult};

use super::walk::walk_message;
use super::wire::{Field, WireValue};

/// Rule result fields.
mod rule {
    pub const IDENTIFIER: u32 = 1;
    pub const BODY: u32 = 3;
    pub const SECTION: u32 = 4;
}

/// Body: 1 = an item (repeated).
const ITEM: u32 = 1;

/// Item fields.
mod item {
    pub const MESSAGE: u32 = 1;
    pub const FOCUS: u32 = 8;
    pub const SPEEDUP: u32 = 10;
}

/// Message fields.
mod message {
    pub const TEXT: u32 = 1;
    pub const TYPE: u32 = 2;
    pub const TITLE: u32 = 4;
}

/// Focus metric fields.
mod focus {
    pub const NAME: u32 = 2;
    pub const VALUE: u32 = 3;
    pub const ADVICE: u32 = 5;
}

/// Speedup fields.
mod speedup {
    pub const KIND: u32 = 1;
    pub const PERCENT: u32 = 2;
}

/// The rule type as the details page prints it, from a message's type field (`?` for a
/// value not seen in real reports).
fn kind_name(kind: u64) -> String {
    match kind {
        1 => "INF",
        2 => "WRN",
        4 => "OPT",
        _ => "?",
    }
    .to_owned()
}

/// The speedup kind as the details page prints it (`?` for a value not seen).
fn speedup_kind(kind: u64) -> String {
    match kind {
        1 => "local",
        2 => "global",
        _ => "?",
    }
    .to_owned()
}

fn double(field: &Field<'_>) -> Option<f64> {
    match field.value {
        WireValue::Fixed64(bits) => Some(f64::from_bits(bits)).filter(|v| v.is_finite()),
        _ => None,
    }
}

/// The findings of one rule result (profile result field 19), appended to `out` in file
/// order.
///
/// # Errors
///
/// [`ReportError::Malformed`] naming the byte offset where a nested message does not walk.
pub fn read_rule(
    field: &Field<'_>,
    version: u64,
    out: &mut Vec<RuleResult>,
) -> Result<(), ReportError> {
    let mut identifier = String::new();
    let mut section = String::new();
    let first = out.len();
    for f in walk_message(field, "rule result", version) {
        let f = f?;
        match f.number {
            rule::IDENTIFIER => identifier = f.text().unwrap_or_default(),
            rule::SECTION => section = f.text().unwrap_or_default(),
            rule::BODY => {
                for i in walk_message(&f, "rule body", version) {
                    let i = i?;
                    if i.number == ITEM {
                        if let Some(r) = read_item(&i, version)? {
                            out.push(r);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    // The identifier and section may come after the body.
    for r in out.iter_mut().skip(first) {
        r.name.clone_from(&identifier);
        r.section.clone_from(&section);
    }
    Ok(())
}

/// One finding, or `None` for an item without a message.
fn read_item(field: &Field<'_>, version: u64) -> Result<Option<RuleResult>, ReportError> {
    let mut found = None::<RuleResult>;
    let mut focus_metrics = Vec::new();
    let mut speedup_pct = None;
    let mut speedup_type = None;
    for f in walk_message(field, "rule finding", version) {
        let f = f?;
        match f.number {
            item::MESSAGE => {
                let mut r = RuleResult {
                    section: String::new(),
                    name: String::new(),
                    kind: String::new(),
                    title: None,
                    description: String::new(),
                    speedup_type: None,
                    speedup_pct: None,
                    focus_metrics: Vec::new(),
                };
                for m in walk_message(&f, "rule message", version) {
                    let m = m?;
                    match m.number {
                        message::TEXT => {
                            r.description = plain_message(&m.text().unwrap_or_default());
                        }
                        message::TYPE => r.kind = m.varint().map(kind_name).unwrap_or_default(),
                        message::TITLE => r.title = m.text().filter(|t| !t.is_empty()),
                        _ => {}
                    }
                }
                found = Some(r);
            }
            item::FOCUS => {
                let mut metric = FocusMetric {
                    name: String::new(),
                    value: None,
                    advice: String::new(),
                };
                for m in walk_message(&f, "focus metric", version) {
                    let m = m?;
                    match m.number {
                        focus::NAME => metric.name = m.text().unwrap_or_default(),
                        focus::VALUE => metric.value = double(&m),
                        focus::ADVICE => metric.advice = m.text().unwrap_or_default(),
                        _ => {}
                    }
                }
                focus_metrics.push(metric);
            }
            item::SPEEDUP => {
                for m in walk_message(&f, "estimated speedup", version) {
                    let m = m?;
                    match m.number {
                        speedup::KIND => speedup_type = m.varint().map(speedup_kind),
                        speedup::PERCENT => speedup_pct = double(&m),
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    Ok(found.map(|mut r| {
        r.focus_metrics = focus_metrics;
        r.speedup_pct = speedup_pct;
        r.speedup_type = speedup_type.filter(|_| speedup_pct.is_some());
        r
    }))
}

/// A rule message as plain text, its links written as ncu's details page writes them:
/// `@section:ID:Name@` as `Name`, `@url:Name:URL@` as `Name (URL)`. Anything else between
/// `@` signs is left as it is.
pub fn plain_message(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        let (before, tail) = rest.split_at(at);
        out.push_str(before);
        let link = tail.get(1..).and_then(|t| {
            let end = t.find('@')?;
            let body = t.get(..end)?;
            let (kind, args) = body.split_once(':')?;
            let (first, second) = args.split_once(':')?;
            let url = match kind {
                "section" => None,
                "url" => Some(second),
                _ => return None,
            };
            Some((first, second, url, end + 2))
        });
        match link {
            Some((first, second, url, len)) => {
                match url {
                    None => out.push_str(second),
                    Some(u) => {
                        out.push_str(first);
                        out.push_str(" (");
                        out.push_str(u);
                        out.push(')');
                    }
                }
                rest = tail.get(len..).unwrap_or_default();
            }
            None => {
                out.push('@');
                rest = tail.get(1..).unwrap_or_default();
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_become_plain_names() {
        assert_eq!(
            plain_message("Look at @section:LaunchStats:Launch Statistics@ for more details."),
            "Look at Launch Statistics for more details."
        );
        assert_eq!(
            plain_message(
                "See the @url:Profiling Guide:https://docs.nvidia.com/x.html#roofline@ now"
            ),
            "See the Profiling Guide (https://docs.nvidia.com/x.html#roofline) now"
        );
        assert_eq!(plain_message("a@b and c@"), "a@b and c@");
        assert_eq!(plain_message("@@"), "@@");
        assert_eq!(plain_message("tail @section:x"), "tail @section:x");
    }

    #[test]
    fn a_finding_with_focus_metric_and_speedup() {
        // Rule { 1: "R", 3: { 1: { 1: { 1: "m", 2: 4, 4: "T" }, 8: { 2: "n", 3: 2.0 },
        // 10: { 1: 2, 2: 5.0 } }, 1: { 9: {} } }, 4: "S" }.
        let mut msg = vec![0x0a, 0x01, b'm', 0x10, 0x04, 0x22, 0x01, b'T'];
        let message = {
            let mut v = vec![0x0a, msg.len() as u8];
            v.append(&mut msg);
            v
        };
        let mut focus = vec![0x12, 0x01, b'n', 0x19];
        focus.extend_from_slice(&2.0f64.to_le_bytes());
        let mut speed = vec![0x08, 0x02, 0x11];
        speed.extend_from_slice(&5.0f64.to_le_bytes());
        let mut item = message;
        item.push(0x42);
        item.push(focus.len() as u8);
        item.extend_from_slice(&focus);
        item.push(0x52);
        item.push(speed.len() as u8);
        item.extend_from_slice(&speed);
        let mut body = vec![0x0a, item.len() as u8];
        body.extend_from_slice(&item);
        body.extend_from_slice(&[0x0a, 0x02, 0x4a, 0x00]);
        let mut rule = vec![0x0a, 0x01, b'R', 0x1a, body.len() as u8];
        rule.extend_from_slice(&body);
        rule.extend_from_slice(&[0x22, 0x01, b'S']);
        let field = Field {
            number: 19,
            value: WireValue::Bytes(&rule),
            offset: 0,
            value_offset: 0,
        };
        let mut out = Vec::new();
        read_rule(&field, 7, &mut out).expect("walks");
        assert_eq!(out.len(), 1, "the table item is no finding");
        let r = &out[0];
        assert_eq!(
            (r.name.as_str(), r.section.as_str(), r.kind.as_str()),
            ("R", "S", "OPT")
        );
        assert_eq!(
            (r.title.as_deref(), r.description.as_str()),
            (Some("T"), "m")
        );
        assert_eq!(
            (r.speedup_type.as_deref(), r.speedup_pct),
            (Some("global"), Some(5.0))
        );
        assert_eq!(r.focus_metrics.len(), 1);
        assert_eq!(
            (r.focus_metrics[0].name.as_str(), r.focus_metrics[0].value),
            ("n", Some(2.0))
        );
    }
}
