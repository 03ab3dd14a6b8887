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
    let text = std::fs::read_to_string(sample_file("h200.json")).expect("sample");
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
/// `name_bytes` bytes, whose first rule's id is `rule_bytes` long (and its estimated
/// speedup the largest, so that `explain` quotes it).
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
            launch["rules"][0]["speedup_pct"] = json!(99.0);
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

/// A source page's first lines: a launch of kernel `k` and its header.
const PAGE_HEAD: &str = "\"Kernel Name\",\"k\"\n\"Address\",\"Source\"\n";

/// `bytes` of `fill`, written after `head` through gzip into `path`; the file's size.
fn gzipped(path: &Path, head: &str, fill: u8, bytes: usize) -> u64 {
    use std::io::Write;
    let file = std::fs::File::create(path).expect("create");
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::fast());
    gz.write_all(head.as_bytes()).expect("write");
    let chunk = vec![fill; 1 << 20];
    for _ in 0..bytes >> 20 {
        gz.write_all(&chunk).expect("write");
    }
    gz.finish().expect("gzip");
    std::fs::metadata(path).expect("size").len()
}

#[test]
fn source_pages_are_streamed_and_rows_that_are_no_instruction_are_refused_by_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    // A page header and one endless quoted cell, gzipped: 256 MiB inflated.
    let endless = dir.path().join("endless.csv.gz");
    let gz_bytes = gzipped(
        &endless,
        &format!("{PAGE_HEAD}\"0x10\",\""),
        b'x',
        256 << 20,
    );
    // Twenty megabytes of one-field lines after the header.
    let lines = format!("{PAGE_HEAD}{}", "\"a\"\n".repeat(5 << 20));
    let (one_field, one_field_bytes) = written(dir.path(), "lines.csv", lines.as_bytes());
    // One launch of minimal instruction rows, one more than a launch may have.
    let mut rows = String::from(PAGE_HEAD);
    for i in 0..=(1usize << 18) {
        rows.push_str(&format!("\"0x{:x}\",\"N\"\n", i * 16));
    }
    let (minimal, minimal_bytes) = written(dir.path(), "rows.csv", rows.as_bytes());
    drop(rows);
    let cases = [
        (&endless, gz_bytes, "line 3: not a row of a source-page export: a line (or a quoted cell) longer than 4096 KiB"),
        (&one_field, one_field_bytes, "line 3: not a row of a source-page export: a row of 1 cell(s) under a header of 2"),
        (&minimal, minimal_bytes, "line 262147: not a row of a source-page export: more than 262144 instructions in one launch"),
    ];
    for (page, bytes, words) in cases {
        for args in [
            vec!["source", s(page), "--kernel", "k"],
            vec!["import", s(page), "-o", "/dev/null"],
        ] {
            let m = measured(&args, None);
            let what = args.join(" ");
            assert_ne!(m.code, Some(0), "{what}");
            assert!(m.stderr.contains(words), "{what}: {}", m.stderr);
            assert_bounded(&what, &m, bytes);
        }
    }
}

#[test]
fn text_that_could_start_json_is_refused_from_its_first_bytes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (braces, bytes) = written(dir.path(), "braces", "{\n".repeat(50 << 20).as_bytes());
    let (deep, deep_bytes) = written(
        dir.path(),
        "deep",
        format!("{{\"kernels\":{}", "[".repeat(10 << 20)).as_bytes(),
    );
    for (input, bytes, words) in [
        (
            &braces,
            bytes,
            "byte 2: not an artifact (a JSON text starting with `{`): key must be a string",
        ),
        (&deep, deep_bytes, "recursion limit exceeded"),
    ] {
        for args in [vec!["table", "/dev/stdin"], vec!["explain", "/dev/stdin"]] {
            let m = measured(&args, Some(input));
            let what = format!("{} < {}", args.join(" "), input.display());
            assert_eq!(m.code, Some(1), "{what}: {}", m.stderr);
            assert!(m.stderr.contains(words), "{what}: {}", m.stderr);
            assert_bounded(&what, &m, bytes);
            assert!(
                m.peak_bytes < 64 << 20,
                "{what}: read no further than its head"
            );
        }
    }
}

#[test]
fn explain_holds_two_kilobytes_a_kernel_against_megabyte_strings() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (run, bytes) = written(
        dir.path(),
        "long.json",
        long_strings_run(4, 1 << 20, 1 << 20).as_bytes(),
    );
    let m = measured(&["explain", s(&run), "--format", "json"], None);
    assert_eq!(m.code, Some(0), "{}", m.stderr);
    assert_bounded("explain", &m, bytes);
    let e: Value = serde_json::from_str(&m.stdout).expect("JSON");
    let kernels = e["kernels"].as_array().expect("kernels");
    assert_eq!(kernels.len(), 4);
    for k in kernels {
        let size = k.to_string().len();
        assert!(size <= 2048, "{size}");
        assert_eq!(k["name_cut"], true);
        let name = k["name"].as_str().unwrap_or_default();
        assert!(name.ends_with('…') && name.chars().count() <= 241, "{name}");
        let id = k["rules"][0]["id"].as_str().unwrap_or_default();
        assert!(id.starts_with('R') && id.ends_with('…'), "{id}");
    }
}
