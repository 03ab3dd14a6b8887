//! The two NVTX columns of ncu CLI exports made with `--nvtx` (raw and details pages), parsed
//! into a launch's [`NvtxRanges`].
//!
//! # Grammar
//!
//! Read from real exports (`tests/fixtures/ncu-h200-train/`, `ncu-h200-bert/`,
//! `corpus-h200/`, Nsight Compute 2025.3). A *range* is one double-quoted text of eight
//! colon-separated fields:
//!
//! ```text
//! range      = '"' domain ':' name ':' pl_type ':' pl_value ':' clr_type ':' color ':'
//!              msg_type ':' msg '"'
//! push/pop   = ""                                   (the launch is in no push/pop range)
//!            | thread ( ' ' ' ' range )* ' '        (outermost range first)
//! start/stop = ( ' ' id ':' range-without-quotes-inside ' ' )*
//! ```
//!
//! (a start/stop range is `' "' id ':' domain ':' name ':' ... '" '`, its ID inside the
//! quotes). `domain` is `<default domain>` for the default domain; `pl_type`, `pl_value`,
//! `clr_type`, `color`, `msg_type` are `none` when unset (`msg` too, then). Examples:
//!
//! ```text
//! thread Domain:Push/Pop_Range:...   6020  "<default domain>:step:none:none:none:none:none:none"
//! thread Domain:Push/Pop_Range:...   6462  "TSL:XlaModule:#hlo_module=jit_mlp,program_id=6632#:none:none:none:none:REGISTERED:XlaModule:#hlo_module=jit_mlp,program_id=6632#"  "TSL:Thunk:#hlo_op=...#:none:none:none:none:REGISTERED:Thunk:#hlo_op=...#"
//! Id:Domain:Start/Stop_Range:...      "0:<default domain>:measure:none:none:none:none:none:none"
//! ```
//!
//! The second example shows that a name may hold colons: XLA registers its strings and
//! ncu writes a registered message as `REGISTERED:<the string>`, so `msg` (there
//! `XlaModule:#hlo_module=...#`) repeats the name with its colons and more; PyTorch's op
//! ranges (`aten::linear`) hold colons too. The name is therefore found as the shortest
//! colon-separated prefix after which six fields follow, that is the split where the five
//! type and value fields carry no colon and the message is either `none` or ends with the
//! name.

use crate::model::artifact::{NvtxRange, NvtxRanges};

/// Header of the push/pop column (the launching thread's stack).
pub const PUSH_POP_COLUMN: &str =
    "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg";
/// Header of the start/end column (process-wide ranges).
pub const START_END_COLUMN: &str =
    "Id:Domain:Start/Stop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg";

/// ncu's name of the default domain, stored as no domain.
const DEFAULT_DOMAIN: &str = "<default domain>";

/// The NVTX context of a row from its push/pop and start/end cells (CSV-unquoted), `None`
/// when both are empty; or what is wrong with them.
///
/// # Errors
///
/// A cell that does not follow the grammar of this module, with the reason.
pub fn parse(push_pop: &str, start_end: &str) -> Result<Option<NvtxRanges>, String> {
    let mut ranges = NvtxRanges::default();
    let push_pop = push_pop.trim();
    if !push_pop.is_empty() {
        let digits = push_pop
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(push_pop.len());
        let (thread, rest) = push_pop.split_at(digits);
        ranges.thread = Some(thread.parse().map_err(|_| {
            format!("NVTX push/pop cell {push_pop:?} does not begin with a thread ID")
        })?);
        for quoted in quoted_ranges(rest).map_err(|why| format!("NVTX push/pop cell: {why}"))? {
            let range = range(None, quoted).map_err(|why| format!("NVTX push/pop range: {why}"))?;
            ranges.push_pop.push(range);
        }
    }
    for quoted in quoted_ranges(start_end).map_err(|why| format!("NVTX start/end cell: {why}"))? {
        let (id, rest) = quoted
            .split_once(':')
            .ok_or_else(|| format!("NVTX start/end range {quoted:?} has no ID"))?;
        let id = id
            .parse()
            .map_err(|_| format!("NVTX start/end range {quoted:?} has no numeric ID"))?;
        let range = range(Some(id), rest).map_err(|why| format!("NVTX start/end range: {why}"))?;
        ranges.start_end.push(range);
    }
    let empty = ranges.thread.is_none() && ranges.start_end.is_empty();
    Ok((!empty).then_some(ranges))
}

/// The texts inside the double quotes of `cell`, in order. A closing quote is one followed
/// by the end of the cell or by blanks and the next opening quote, so a name may hold a
/// quote.
fn quoted_ranges(cell: &str) -> Result<Vec<&str>, String> {
    let mut out = Vec::new();
    let mut rest = cell.trim_start();
    while !rest.is_empty() {
        let inner = rest
            .strip_prefix('"')
            .ok_or_else(|| format!("expected '\"' at {rest:?}"))?;
        let close = inner
            .match_indices('"')
            .map(|(at, _)| at)
            .find(|&at| {
                let after = inner.get(at + 1..).unwrap_or_default().trim_start();
                after.is_empty() || after.starts_with('"')
            })
            .ok_or_else(|| format!("range {rest:?} has no closing '\"'"))?;
        out.push(inner.get(..close).unwrap_or_default());
        rest = inner.get(close + 1..).unwrap_or_default().trim_start();
    }
    Ok(out)
}

/// One range from `domain:name:pl_type:pl_value:clr_type:color:msg_type:msg`.
fn range(id: Option<u64>, text: &str) -> Result<NvtxRange, String> {
    let (domain, rest) = text
        .split_once(':')
        .ok_or_else(|| format!("{text:?} has no domain"))?;
    let fields: Vec<&str> = rest.split(':').collect();
    // The name takes the first `n + 1` fields; five single fields and the message follow.
    let candidates = fields.len().checked_sub(6).map_or(0, |most| most + 1);
    let split = |n: usize| {
        let name = fields.get(..=n).unwrap_or_default().join(":");
        let msg = fields.get(n + 6..).unwrap_or_default().join(":");
        (name, msg)
    };
    let chosen = (0..candidates)
        .map(split)
        .find(|(name, msg)| msg == "none" || msg.ends_with(name.as_str()))
        .or_else(|| (candidates > 0).then(|| split(0)))
        .ok_or_else(|| format!("{text:?} has fewer than eight fields"))?;
    Ok(NvtxRange {
        id,
        domain: (domain != DEFAULT_DOMAIN).then(|| domain.to_owned()),
        name: chosen.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(domain: Option<&str>, name: &str) -> NvtxRange {
        NvtxRange {
            id: None,
            domain: domain.map(str::to_owned),
            name: name.to_owned(),
        }
    }

    #[test]
    fn cells_of_real_exports() {
        // ncu-h200-train/train_all-ncu-cold-raw.csv.gz
        let step = parse(
            "6020  \"<default domain>:step:none:none:none:none:none:none\" ",
            "",
        )
        .expect("parses")
        .expect("has ranges");
        assert_eq!(step.thread, Some(6020));
        assert_eq!(step.push_pop, vec![named(None, "step")]);
        assert!(step.start_end.is_empty());
        // corpus-h200/train_step_full_raw.csv.gz
        let measure = parse(
            "",
            " \"0:<default domain>:measure:none:none:none:none:none:none\" ",
        )
        .expect("parses")
        .expect("has ranges");
        assert_eq!(measure.thread, None);
        assert_eq!(
            measure.start_end,
            vec![NvtxRange {
                id: Some(0),
                ..named(None, "measure")
            }]
        );
        // corpus-h200/jax_mlp_full_raw.csv.gz: a registered domain and colons in messages.
        let jax = parse(
            "6462  \"TSL:XlaModule:#hlo_module=jit_mlp,program_id=6632#:none:none:none:none:REGISTERED:XlaModule:#hlo_module=jit_mlp,program_id=6632#\"  \"TSL:Thunk:#hlo_op=triton_softmax.2,unique_hlo_op_id=12884901891#:none:none:none:none:REGISTERED:Thunk:#hlo_op=triton_softmax.2,unique_hlo_op_id=12884901891#\" ",
            " \"0:<default domain>:measure:none:none:none:none:none:none\" ",
        )
        .expect("parses")
        .expect("has ranges");
        assert_eq!(jax.thread, Some(6462));
        assert_eq!(
            jax.push_pop,
            vec![
                named(
                    Some("TSL"),
                    "XlaModule:#hlo_module=jit_mlp,program_id=6632#"
                ),
                named(
                    Some("TSL"),
                    "Thunk:#hlo_op=triton_softmax.2,unique_hlo_op_id=12884901891#"
                ),
            ]
        );
        assert_eq!(jax.start_end.len(), 1);
    }

    #[test]
    fn empty_cells_are_no_context() {
        assert_eq!(parse("", ""), Ok(None));
        assert_eq!(parse("  ", " "), Ok(None));
    }

    #[test]
    fn names_with_colons_and_quotes() {
        let op = parse(
            "7  \"<default domain>:aten::linear, seq = 3:none:none:none:none:ASCII:aten::linear, seq = 3\" ",
            "",
        )
        .expect("parses")
        .expect("has ranges");
        assert_eq!(op.push_pop, vec![named(None, "aten::linear, seq = 3")]);
        let quoted = parse(
            "7  \"<default domain>:say \"hi\":none:none:none:none:none:none\"  \"<default domain>:b:none:none:none:none:none:none\" ",
            "",
        )
        .expect("parses")
        .expect("has ranges");
        assert_eq!(
            quoted.push_pop,
            vec![named(None, "say \"hi\""), named(None, "b")]
        );
    }

    #[test]
    fn broken_cells_say_why() {
        let cases = [
            (
                "x  \"<default domain>:a:none:none:none:none:none:none\"",
                "",
            ),
            ("7  \"<default domain>:a:none:none:none:none:none:none", ""),
            ("7  \"<default domain>:a:none\"", ""),
            ("7 a", ""),
            ("", " \"<default domain>:a:none:none:none:none:none:none\" "),
            (
                "",
                " \"x:<default domain>:a:none:none:none:none:none:none\" ",
            ),
        ];
        for (push_pop, start_end) in cases {
            let why = parse(push_pop, start_end).expect_err(push_pop);
            assert!(why.starts_with("NVTX "), "{why}");
        }
    }
}
