//! Issue 48's hostile shapes, each made here by a generator from a committed real run
//! (nothing checked in), each ending in a clear error or a correct result within the
//! bound of [`assert_bounded`]: NVTX stacks thousands deep and range names of 65,536
//! characters (`table` and `diff --by range`), source pages of endless cells and
//! one-field lines, text that could start JSON without end, and `explain` of input
//! strings of a megabyte.

use std::path::Path;

use serde_json::{json, Value};

use crate::util::*;

/// The committed H200 run's first kernel alone (its one launch), as JSON.
fn one_kernel_run() -> Value {
    let text = std::fs::read_to_string(root().join("site/samples/h200.json")).expect("sample");
    let mut run: Value = serde_json::from_str(&text).expect("JSON");
    let first = run["kernels"][0].clone();
    run["kernels"] = json!([first]);
    run["kernels"][0]["warm"] = Value::Null;
    run
}

/// A run whose one launch ran under a push/pop stack `depth` ranges deep, the first range
/// named by `first_name` (`r1`, `r2`, ... below it).
pub fn deep_stack_run(depth: usize, first_name: &str) -> String {
    let mut run = one_kernel_run();
    let ranges: Vec<Value> = (0..depth)
        .map(|i| match i {
            0 => json!({ "name": first_name }),
            i => json!({ "name": format!("r{i}") }),
        })
        .collect();
    let set = &mut run["kernels"][0]["cold"];
    set["nvtx_ranges"] = json!([{ "thread": 1, "push_pop": ranges }]);
    set["launches"][0]["nvtx"] = json!(0);
    run.to_string()
}

/// A run of `kernels` copies of the first kernel, each named `NAME_i` after a name of
/// `name_bytes` bytes, whose first rule's id is `rule_bytes` long.
pub fn long_strings_run(kernels: usize, name_bytes: usize, rule_bytes: usize) -> String {
    let mut run = one_kernel_run();
    let first = run["kernels"][0].clone();
    let long_name = "N".repeat(name_bytes);
    let copies: Vec<Value> = (0..kernels)
        .map(|i| {
            let mut k = first.clone();
            let name = format!("{long_name}_{i}");
            k["name"] = json!(name);
            k["function"] = json!(name);
            let launch = &mut k["cold"]["launches"][0];
            launch["function"] = json!(name);
            launch["demangled"] = json!(name);
            launch["rules"][0]["name"] = json!("R".repeat(rule_bytes));
            k
        })
        .collect();
    run["kernels"] = json!(copies);
    run.to_string()
}

/// Writes `text` to `dir/name`; its path and size.
fn written(dir: &Path, name: &str, text: &[u8]) -> (std::path::PathBuf, u64) {
    let path = dir.join(name);
    std::fs::write(&path, text).expect("write");
    (path, text.len() as u64)
}

#[test]
fn deep_nvtx_stacks_read_in_linear_time_and_are_cut_at_the_limit_with_a_warning() {
    let dir = tempfile::tempdir().expect("tempdir");
    for depth in [4_000usize, 20_000] {
        let (run, bytes) = written(
            dir.path(),
            &format!("d{depth}.json"),
            deep_stack_run(depth, "r0").as_bytes(),
        );
        for args in [
            vec!["table", s(&run), "--by", "range", "--format", "json"],
            vec!["table", s(&run), "--by", "range"],
            vec![
                "diff",
                s(&run),
                s(&run),
                "--by",
                "range",
                "--format",
                "json",
            ],
        ] {
            let m = measured(&args, None);
            let what = format!("depth {depth}: {}", args.join(" "));
            assert_eq!(m.code, Some(0), "{what}: {}", m.stderr);
            assert_bounded(&what, &m, bytes);
            assert!(
                m.stderr.contains(&format!(
                    "1 launch(es) ran under NVTX stacks deeper than 1000 ranges (the deepest \
                     {depth})"
                )),
                "{what}: {}",
                m.stderr
            );
            if args.contains(&"json") && args[0] == "table" {
                let t: Value = serde_json::from_str(&m.stdout).expect("JSON");
                assert_eq!(t["nodes"][0]["depth"], 1000, "{what}");
                assert_eq!(t["cut"], json!({"launches": 1, "deepest": depth}));
            }
            if args[0] == "diff" {
                let d: Value = serde_json::from_str(&m.stdout).expect("JSON");
                assert_eq!(d["warnings"].as_array().map(Vec::len), Some(2), "{what}");
            }
        }
    }
    // Within the limit, no warning and the whole path.
    let (run, _) = written(
        dir.path(),
        "d1000.json",
        deep_stack_run(1000, "r0").as_bytes(),
    );
    let m = measured(
        &["table", s(&run), "--by", "range", "--format", "json"],
        None,
    );
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    assert!(!m.stderr.contains("deeper than"), "{}", m.stderr);
    let t: Value = serde_json::from_str(&m.stdout).expect("JSON");
    assert_eq!(t["nodes"][0]["path"][999], "r999");
    assert!(t.get("cut").is_none());
}

#[test]
fn range_names_of_any_length_are_read_in_every_form() {
    let dir = tempfile::tempdir().expect("tempdir");
    for len in [65_535usize, 65_536, 1 << 20] {
        let name = "x".repeat(len);
        let (run, bytes) = written(
            dir.path(),
            &format!("n{len}.json"),
            deep_stack_run(2, &name).as_bytes(),
        );
        for form in ["table", "markdown", "csv", "json"] {
            for command in ["table", "diff"] {
                let mut args = vec![command, s(&run)];
                if command == "diff" {
                    args.push(s(&run));
                }
                let form = match (command, form) {
                    ("diff", "csv") => continue,
                    (_, f) => f,
                };
                args.extend(["--by", "range", "--format", form]);
                let m = measured(&args, None);
                let what = format!("{len}: {}", args.join(" "));
                assert_eq!(m.code, Some(0), "{what}: {}", m.stderr);
                assert!(m.stdout.contains(&name), "{what}");
                assert_bounded(&what, &m, bytes);
            }
        }
    }
}
