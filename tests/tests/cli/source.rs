//! `capture source` on real fixtures: a report (figures by address, SASS joined from its
//! source page), a source-page export alone, and its refusals (no match, a bad
//! expression, a file that is neither), each one line naming the file, never a panic.

use serde_json::Value;

use crate::util::*;

#[test]
fn the_bert_gemms_instructions_from_the_report_with_their_sass() {
    let report = fixture("ncu-h200-bert/bert_full.ncu-repz");
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
    let report = fixture("ncu-h200-suite-source/suite_src.ncu-repz");
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
/// The suite report's source page (`suite_src_sass.csv.gz`), cut into its six blocks, one
/// per launch in report order, each starting at its `"Kernel Name"` line.
fn suite_page_blocks() -> Vec<String> {
    use std::io::Read;
    let gz = std::fs::File::open(fixture("ncu-h200-suite-source/suite_src_sass.csv.gz"))
        .expect("fixture");
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_string(&mut text)
        .expect("gzip");
    let mut blocks: Vec<String> = Vec::new();
    for line in text.lines() {
        if line.starts_with("\"Kernel Name\"") || blocks.is_empty() {
            blocks.push(String::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push_str(line);
            b.push('\n');
        }
    }
    assert_eq!(blocks.len(), 6);
    blocks
}

/// `capture source` of the suite report, every launch, with `page` as `--sass`: the SASS
/// instructions each launch got (kernel, count) and the warnings.
fn sass_joined(page: &str) -> (Vec<(String, usize)>, String) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("page.csv");
    std::fs::write(&path, page).expect("write");
    let report = fixture("ncu-h200-suite-source/suite_src.ncu-repz");
    let o = capture(&[
        "source",
        s(&report),
        "--kernel",
        ".",
        "--all-launches",
        "--format",
        "json",
        "--sass",
        s(&path),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let list: Value = serde_json::from_str(&stdout(&o)).expect("json");
    let got = list
        .as_array()
        .expect("launches")
        .iter()
        .map(|l| {
            let n = l["instructions"]
                .as_array()
                .expect("instructions")
                .iter()
                .filter(|i| i["sass"].is_string())
                .count();
            (l["kernel"].as_str().expect("name").to_owned(), n)
        })
        .collect();
    (got, stderr(&o))
}

/// Every instruction the report has figures for, per launch (the page has more: the
/// kernels' tails that never ran).
const SUITE_SASS: [(&str, usize); 6] = [
    ("vector_add", 28),
    ("vector_add_stride32", 151),
    ("transpose_naive", 73),
    ("transpose_tiled", 147),
    ("matmul_tiled16", 374),
    ("block_reduce", 76),
];

fn expect(with_text: &[&str]) -> Vec<(String, usize)> {
    SUITE_SASS
        .iter()
        .map(|&(k, n)| (k.to_owned(), if with_text.contains(&k) { n } else { 0 }))
        .collect()
}

#[test]
fn sass_pages_join_by_kernel_and_address_whatever_their_order() {
    let blocks = suite_page_blocks();
    let all: Vec<&str> = SUITE_SASS.iter().map(|(k, _)| *k).collect();
    let (got, err) = sass_joined(&blocks.concat());
    assert_eq!(got, expect(&all));
    assert!(err.is_empty(), "{err}");
    // Reordered: the same text on the same launches.
    let reversed: String = blocks.iter().rev().map(String::as_str).collect();
    let (got, err) = sass_joined(&reversed);
    assert_eq!(got, expect(&all));
    assert!(err.is_empty(), "{err}");
    // Filtered to one kernel: that launch gets it, wherever it stands; the others warn.
    let (got, err) = sass_joined(&blocks[3]);
    assert_eq!(got, expect(&["transpose_tiled"]));
    assert_eq!(err.lines().count(), 5, "{err}");
    assert!(
        err.contains(
            "page.csv: launch 0 (vector_add, 0x7f1bf37aa900 to 0x7f1bf37aaab0) has no SASS \
             text: no block of the page is that kernel at those addresses"
        ),
        "{err}"
    );
}

#[test]
fn a_sass_page_of_another_kernel_or_other_addresses_is_not_attached() {
    let blocks = suite_page_blocks();
    // vector_add_stride32's block alone, first in the page: by place it was vector_add's.
    let (got, err) = sass_joined(&blocks[1]);
    assert_eq!(got, expect(&["vector_add_stride32"]));
    assert!(
        err.contains("launch 0 (vector_add, 0x7f1bf37aa900 to 0x7f1bf37aaab0) has no SASS"),
        "{err}"
    );
    // vector_add's block renamed, and again moved to other addresses: neither attached,
    // each block named as left out.
    let renamed = blocks[0].replace(
        "\"Kernel Name\",\"vector_add\"",
        "\"Kernel Name\",\"vector_add_v2\"",
    );
    let moved = blocks[0].replace("0x7f1bf37aa", "0x7f1bf37ff");
    for (page, left) in [
        (
            renamed,
            "block 0 of the page (vector_add_v2, 0x7f1bf37aa900 to 0x7f1bf37aab70)",
        ),
        (
            moved,
            "block 0 of the page (vector_add, 0x7f1bf37ff900 to 0x7f1bf37ffb70)",
        ),
    ] {
        let (got, err) = sass_joined(&format!("{page}{}", blocks[1]));
        assert_eq!(got, expect(&["vector_add_stride32"]));
        assert!(
            err.contains(&format!(
                "{left} matches no launch of the report by kernel and addresses; left out"
            )),
            "{err}"
        );
        assert!(err.contains("launch 0 (vector_add,"), "{err}");
    }
}

/// Issue 39: a `--kernel` expression with a counted repetition against a kernel name of a
/// megabyte walked the name once per state of the expression (229 s in a debug build, 15 s
/// in release); with the regex crate's lazy DFA it takes well under a second.
#[test]
fn a_counted_repetition_against_a_megabyte_kernel_name_is_quick() {
    let dir = tempfile::tempdir().expect("tempdir");
    let page = dir.path().join("long_name.csv");
    let name = "a".repeat(1 << 20);
    std::fs::write(
        &page,
        format!(
            "\"Kernel Name\",\"{name}\"\n\"Address\",\"Source\",\"Instructions Executed\"\n\
             \"0x10\",\"NOP\",\"1\"\n"
        ),
    )
    .expect("write");
    let started = std::time::Instant::now();
    let o = capture(&["source", s(&page), "--kernel", "a{1000}b"]);
    let took = started.elapsed();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("no kernel matches"), "{}", stderr(&o));
    let o = capture(&["source", s(&page), "--kernel", "a{1000}"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // Measured: 0.26 s for the first in a debug build.
    assert!(took.as_secs() < 30, "{took:?}");
}

/// A stand-in for nvdisasm in `dir` that prints the recorded output of the real one
/// (tests/fixtures/nvdisasm-suite/) for the base address it is asked for, and fails on any
/// other arguments than those capture passes.
#[cfg(unix)]
fn recorded_nvdisasm(dir: &std::path::Path) -> std::path::PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let recorded = fixture("nvdisasm-suite");
    let path = dir.join("nvdisasm");
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n[ \"$1\" = --binary ] && [ \"$2\" = SM90a ] && \
             [ \"$3\" = --base-address ] && [ -f \"$5\" ] || exit 2\n\
             exec cat '{}'/\"$4\".txt\n",
            recorded.display()
        ),
    )
    .expect("write");
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    path
}

#[cfg(unix)]
#[test]
fn a_report_alone_gives_the_sass_nvdisasm_gives_and_the_artifact_keeps_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let nvdisasm = recorded_nvdisasm(dir.path());
    let report = unzstd_fixture(dir.path(), "ncu-h200-suite-source/suite_full.ncu-repz");
    let page = fixture("ncu-h200-suite-source/suite_source_cuda_sass.csv.gz");
    let art = dir.path().join("suite.json");
    let o = capture(&[
        "import",
        s(&report),
        "--nvdisasm",
        s(&nvdisasm),
        "-o",
        s(&art),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!stderr(&o).contains("no SASS text"), "{}", stderr(&o));
    let json = |args: &[&str]| -> Value {
        let mut all = vec![
            "source",
            "--kernel",
            ".",
            "--all-launches",
            "--format",
            "json",
        ];
        all.extend(args);
        let o = capture(&all);
        assert!(o.status.success(), "{}", stderr(&o));
        serde_json::from_str(&stdout(&o)).expect("json")
    };
    // Every kernel's instructions: the figures and lines of the report with its source page
    // (ncu 2025.3.1), and its text but for the loop after a kernel's last EXIT, which that
    // page writes `BRA 0x...` and ncu_report 2026.3.1 (whose spelling nvdisasm's text is
    // read into, tests/oracle/) ``BRA `(.L_x_0) 0x...``. From the report alone and from the
    // artifact alone.
    let with_page = json(&[s(&report), "--sass", s(&page)]);
    let from_report = json(&[s(&report), "--nvdisasm", s(&nvdisasm)]);
    let from_artifact = json(&[s(&art)]);
    let launches = with_page.as_array().expect("launches");
    assert_eq!(launches.len(), 6);
    for ours in [&from_report, &from_artifact] {
        for l in launches {
            let mine = ours
                .as_array()
                .and_then(|p| p.iter().find(|p| p["launch"] == l["launch"]))
                .expect("the launch");
            let (mine, theirs) = (&mine["instructions"], &l["instructions"]);
            assert_eq!(
                mine.as_array().map(Vec::len),
                theirs.as_array().map(Vec::len)
            );
            let mut self_branches = 0;
            for (a, b) in mine
                .as_array()
                .into_iter()
                .flatten()
                .zip(theirs.as_array().into_iter().flatten())
            {
                let (a_text, b_text) = (
                    a["sass"].as_str().expect("text"),
                    b["sass"].as_str().expect("text"),
                );
                let mut a_rest = a.clone();
                a_rest["sass"] = b["sass"].clone();
                assert_eq!(&a_rest, b);
                if a_text != b_text {
                    assert_eq!(
                        a_text,
                        format!("BRA `(.L_x_0) {}", a["address"].as_str().expect("address"))
                    );
                    self_branches += 1;
                }
            }
            assert!(self_branches <= 1, "{self_branches}");
        }
    }
}

#[test]
fn without_nvdisasm_the_report_says_what_is_missing_and_the_command_that_adds_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let report = unzstd_fixture(dir.path(), "ncu-h200-suite-source/suite_full.ncu-repz");
    // Nothing on PATH (python3 neither), no CUDA_HOME: only /usr/local/cuda/bin is left,
    // which a GPU host has.
    let o = std::process::Command::new(capture_bin())
        .args(["source", s(&report), "--kernel", "stride32", "--top", "3"])
        .env("PATH", dir.path())
        .env_remove("CUDA_HOME")
        .output()
        .expect("run capture");
    assert!(o.status.success(), "{}", stderr(&o));
    let err = stderr(&o);
    if std::path::Path::new("/usr/local/cuda/bin/nvdisasm").is_file() {
        assert!(!err.contains("not found"), "{err}");
        assert!(
            !stdout(&o).contains("SASS not in a report"),
            "{}",
            stdout(&o)
        );
    } else {
        assert!(err.contains("nvdisasm"), "{err}");
        assert!(err.contains("`pip install nvidia-cuda-nvdisasm`"), "{err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    }
    // A disassembler named that is not there is an error naming it.
    let o = capture(&[
        "source",
        s(&report),
        "--kernel",
        "stride32",
        "--nvdisasm",
        "/no/such/nvdisasm",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("/no/such/nvdisasm (--nvdisasm)"),
        "{}",
        stderr(&o)
    );
}
