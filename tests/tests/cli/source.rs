//! `capture source` on real fixtures: a report (figures by address, SASS joined from its
//! source page), a source-page export alone, and its refusals (no match, a bad
//! expression, a file that is neither), each one line naming the file, never a panic.

use serde_json::Value;

use crate::util::*;

#[test]
fn the_bert_gemms_instructions_from_the_report_with_their_sass() {
    let report = fixture("ncu-h200-bert/bert_full.ncu-rep.gz");
    let page = fixture("ncu-h200-bert/bert_full_source.csv.gz");
    let o = capture(&[
        "source",
        s(&report),
        "--kernel",
        "^nvjet",
        "--sass",
        s(&page),
        "--format",
        "json",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let list = list.as_array().expect("a list of instructions");
    assert!(list.len() > 1000, "{}", list.len());
    let first = &list[0];
    assert!(first["address"]
        .as_str()
        .is_some_and(|a| a.starts_with("0x")));
    assert!(first["sass"].is_string() && first["inst_executed"].is_number());
    let hgmma: f64 = list
        .iter()
        .filter(|i| i["sass"].as_str().is_some_and(|t| t.starts_with("HGMMA")))
        .filter_map(|i| i["inst_executed"].as_f64())
        .sum();
    assert!(hgmma > 0.0, "HGMMA executed");
}

#[test]
fn the_source_page_alone_gives_text_with_hot_spots() {
    let page = fixture("ncu-h200-bert/bert_full_source.csv.gz");
    let o = capture(&["source", s(&page), "--kernel", "layer_norm", "--top", "3"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("hot spots"), "{out}");
    assert!(out.contains("every instruction"), "{out}");
    assert!(out.lines().next().is_some_and(|l| l.contains("layer_norm")));
}

#[test]
fn source_refusals_name_the_file_in_one_line() {
    let page = fixture("ncu-h200-bert/bert_full_source.csv.gz");
    let raw = fixture("ncu-h200-gemms/gemms_full_raw.csv");
    for (args, needle) in [
        (
            vec!["source", s(&page), "--kernel", "no_such_kernel"],
            "no kernel matches",
        ),
        (
            vec!["source", s(&page), "--kernel", "("],
            "not a regular expression",
        ),
        (vec!["source", s(&raw), "--kernel", "."], "Kernel Name"),
    ] {
        let o = capture(&args);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!err.contains("panicked"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
}

#[test]
fn every_field_of_the_json_is_in_its_contract() {
    let doc = std::fs::read_to_string(root().join("docs/source.md")).expect("docs");
    let report = fixture("ncu-h200-suite-source/suite_src.ncu-rep.gz");
    let page = fixture("ncu-h200-suite-source/suite_source_cuda_sass.csv.gz");
    for extra in [&[][..], &["--all-launches"][..]] {
        let mut args = vec!["source", s(&report), "--kernel", ".", "--sass", s(&page)];
        args.extend(["--format", "json"]);
        args.extend(extra);
        let o = capture(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        let v: Value = serde_json::from_str(&stdout(&o)).expect("json");
        assert!(v.as_array().is_some_and(|l| !l.is_empty()), "{extra:?}");
        let missing = undocumented_keys(&v, &doc, &["stalls"]);
        assert!(
            missing.is_empty(),
            "{extra:?}: fields of `capture source --format json` not in docs/source.md: \
             {missing:?}"
        );
    }
}
