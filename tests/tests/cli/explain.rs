//! `capture explain` and its contract (docs/explain.md): golden outputs on the two samples
//! and a third-party report, at most 2 KB of JSON per kernel, every output valid against
//! `capture schema explain`, and every `evidence` value found in the input, read here
//! independently of the tool. Regenerate the goldens with
//! `UPDATE_GOLDEN=1 cargo test -p roofline-tests --test cli explain`.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::*;

/// The most compact JSON one kernel may take (`shared::analysis::explain::MAX_KERNEL_JSON_BYTES`).
const MAX_KERNEL_BYTES: usize = 2048;

/// `capture explain INPUT --format json ARGS`, parsed; the run must succeed.
fn explain_json(input: &Path, args: &[&str]) -> Value {
    let mut all = vec!["explain", s(input), "--format", "json"];
    all.extend(args);
    let o = capture(&all);
    assert!(o.status.success(), "{}: {}", input.display(), stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("explain prints JSON")
}

fn schema() -> Value {
    let o = capture(&["schema", "explain"]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("the schema is JSON")
}

/// The gemms `.ncu-rep` report (third-party cuBLAS and CUTLASS GEMMs), un-gzipped into `dir`.
fn gemms_report(dir: &Path) -> PathBuf {
    unzstd_fixture(dir, "ncu-h200-gemms/gemms_full.ncu-repz")
}

fn kernels(e: &Value) -> &Vec<Value> {
    e["kernels"].as_array().expect("kernels")
}

#[test]
fn golden_explanations_of_the_samples_and_a_report() {
    let dir = tempfile::tempdir().expect("tempdir");
    let inputs = [
        (sample_file("h200.json"), "h200.json"),
        (sample_file("h200-gpt2-bf16.json"), "h200-gpt2-bf16.json"),
        (gemms_report(dir.path()), "gemms_full.json"),
    ];
    let schema = schema();
    for (input, golden) in inputs {
        let o = capture(&["explain", s(&input), "--format", "json"]);
        assert!(o.status.success(), "{}", stderr(&o));
        let got = stdout(&o);
        let path = root().join("tests/golden/explain").join(golden);
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::create_dir_all(path.parent().expect("a folder")).expect("mkdir");
            std::fs::write(&path, &got).expect("write golden");
        }
        let want = std::fs::read_to_string(&path).expect("golden file exists");
        assert!(
            got == want,
            "{} differs from {}; if intended, regenerate it (this file's header)",
            input.display(),
            path.display()
        );
        let e: Value = serde_json::from_str(&got).expect("JSON");
        assert_eq!(e["version"], 1);
        assert!(!kernels(&e).is_empty(), "{golden}: no kernel");
        let errors = validate(&schema, &schema, &e, "$");
        assert!(errors.is_empty(), "{golden}: {errors:#?}");
        for k in kernels(&e) {
            let bytes = serde_json::to_string(k).expect("json").len();
            assert!(
                bytes <= MAX_KERNEL_BYTES,
                "{golden}: {} takes {bytes} bytes",
                k["short_name"]
            );
        }
    }
}

#[test]
fn every_field_is_documented() {
    let doc = std::fs::read_to_string(root().join("docs/explain.md")).expect("docs/explain.md");
    let e = explain_json(&sample_file("h200-gpt2-bf16.json"), &[]);
    let missing = undocumented_keys(&e, &doc, &[]);
    assert!(missing.is_empty(), "docs/explain.md lacks {missing:?}");
}

// ---- Evidence: every value is in the input ----------------------------------------------

/// Each launch's raw metrics in an artifact, by (kernel name, launch ID): the values of its
/// reference counter set (cold, else warm, as the tool picks) with their units, read from
/// the JSON as the artifact schema documents it: a launch's `metrics` follow its own
/// `metric_columns`, else the set's; where the set has `varying_columns`, a launch lists
/// only those and every other column's value is the set's `constant_values`, in column order.
fn artifact_metrics(path: &Path) -> HashMap<(String, u64), HashMap<String, (f64, String)>> {
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("artifact");
    let mut out = HashMap::new();
    for k in a["kernels"].as_array().expect("kernels") {
        let set = [&k["cold"], &k["warm"]]
            .into_iter()
            .find(|s| s["launches"].as_array().is_some_and(|l| !l.is_empty()));
        let Some(set) = set else { continue };
        let empty = Vec::new();
        let varying: Option<Vec<usize>> = set["varying_columns"].as_array().map(|v| {
            v.iter()
                .filter_map(Value::as_u64)
                .map(|i| i as usize)
                .collect()
        });
        let constants = set["constant_values"].as_array().unwrap_or(&empty);
        for l in set["launches"].as_array().expect("launches") {
            let own = l["metric_columns"].as_array();
            let columns = own.or(set["metric_columns"].as_array()).expect("columns");
            let listed = l["metrics"].as_array().expect("metrics array");
            let values: Vec<&Value> = match (&varying, own) {
                (Some(varying), None) => {
                    let (mut listed, mut constants) = (listed.iter(), constants.iter());
                    (0..columns.len())
                        .filter_map(|i| {
                            if varying.contains(&i) {
                                listed.next()
                            } else {
                                constants.next()
                            }
                        })
                        .collect()
                }
                _ => listed.iter().collect(),
            };
            assert_eq!(
                values.len(),
                columns.len(),
                "{}: {}",
                path.display(),
                k["name"]
            );
            let metrics = columns
                .iter()
                .zip(values)
                .filter_map(|(c, v)| {
                    let name = c["name"].as_str()?.to_string();
                    let unit = c["unit"].as_str().unwrap_or_default().to_string();
                    Some((name, (v.as_f64()?, unit)))
                })
                .collect();
            let name = k["name"].as_str().expect("name").to_string();
            out.insert((name, l["id"].as_u64().expect("id")), metrics);
        }
    }
    out
}

/// Each launch's cells in an ncu raw CSV page (`--print-units base`) by launch ID: metric
/// name to (cell text, unit). ncu prints thousands separators, removed when parsing.
fn csv_metrics(path: &Path) -> HashMap<u64, HashMap<String, (String, String)>> {
    let text = std::fs::read_to_string(path).expect("read");
    let mut rows = csv_rows(&text).into_iter();
    let header = rows.next().expect("header");
    let units = rows.next().expect("units row");
    rows.filter_map(|row| {
        let id = row.first()?.parse::<u64>().ok()?;
        let cells = header
            .iter()
            .zip(&units)
            .zip(&row)
            .map(|((h, u), v)| (h.clone(), (v.clone(), u.clone())))
            .collect();
        Some((id, cells))
    })
    .collect()
}

/// The Speed-of-Light rows of an ncu details CSV page by launch ID: row name to (cell
/// text, unit) as ncu printed them, the first row of a name per launch.
fn sol_rows(path: &Path) -> HashMap<u64, HashMap<String, (String, String)>> {
    let text = std::fs::read_to_string(path).expect("read");
    let rows = csv_rows(&text);
    let header = rows.first().expect("header");
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (id, section, name, unit, value) = (
        col("ID"),
        col("Section Name"),
        col("Metric Name"),
        col("Metric Unit"),
        col("Metric Value"),
    );
    let mut out: HashMap<u64, HashMap<String, (String, String)>> = HashMap::new();
    for r in rows.iter().skip(1) {
        let cell = |i: usize| r.get(i).cloned().unwrap_or_default();
        let Ok(launch) = cell(id).parse::<u64>() else {
            continue;
        };
        if cell(section) == "GPU Speed Of Light Throughput" {
            out.entry(launch)
                .or_default()
                .entry(cell(name))
                .or_insert((cell(value), cell(unit)));
        }
    }
    out
}

/// A CSV text's records (quoted fields, doubled quotes; ncu's pages have no newline inside
/// a field of the raw page).
fn csv_rows(text: &str) -> Vec<Vec<String>> {
    text.lines()
        .filter(|l| l.starts_with('"'))
        .map(csv_fields)
        .collect()
}

/// The kernel of the input an explanation names: its full name, or the start of it when
/// the explanation cut it (`name_cut`, ending in `…`).
fn names_kernel(k: &Value, full: &str) -> bool {
    let name = k["name"].as_str().expect("name");
    match k["name_cut"].as_bool() {
        Some(true) => full.starts_with(name.trim_end_matches('…')),
        _ => full == name,
    }
}

/// Checks that every evidence value of `capture explain ARTIFACT` is the artifact's, and
/// that the output fits and validates; returns the values checked.
fn check_artifact(input: &Path, schema: &Value) -> usize {
    let name = input.display();
    let truth = artifact_metrics(input);
    let a: Value =
        serde_json::from_str(&std::fs::read_to_string(input).expect("read")).expect("artifact");
    let timings: HashMap<&str, f64> = a["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .filter_map(|k| Some((k["name"].as_str()?, k["timing"]["median_ms"].as_f64()?)))
        .collect();
    let e = explain_json(input, &[]);
    let errors = validate(schema, schema, &e, "$");
    assert!(errors.is_empty(), "{name}: {errors:#?}");
    let mut checked = 0;
    for k in kernels(&e) {
        let bytes = serde_json::to_string(k).expect("json").len();
        assert!(bytes <= MAX_KERNEL_BYTES, "{name}: {bytes} bytes");
        let id = k["evidence_launch"].as_u64().expect("an evidence launch");
        let launch = truth
            .iter()
            .find(|((kernel, l), _)| *l == id && names_kernel(k, kernel))
            .map(|(_, m)| m)
            .unwrap_or_else(|| panic!("{name}: no launch {id} of {}", k["name"]));
        for ev in k["evidence"].as_array().expect("evidence") {
            let metric = ev["metric"].as_str().expect("metric");
            let (value, unit) = match metric {
                // The kernel's own event median, a field of the artifact (ms).
                "timing.median_ms" => (
                    timings.get(k["name"].as_str().expect("name")).copied(),
                    "ms".to_string(),
                ),
                _ => launch
                    .get(metric)
                    .map(|(v, u)| (Some(*v), u.clone()))
                    .unwrap_or_else(|| panic!("{name}: launch {id} has no {metric}")),
            };
            assert_eq!(ev["value"].as_f64(), value, "{name} {id} {metric}");
            assert_eq!(ev["unit"].as_str(), Some(unit.as_str()), "{name} {metric}");
            checked += 1;
        }
    }
    assert!(checked > 3 * kernels(&e).len(), "{name}: {checked} values");
    checked
}

#[test]
fn every_evidence_value_of_an_artifact_is_in_the_artifact() {
    let schema = schema();
    for name in ["h200.json", "h200-gpt2-bf16.json"] {
        check_artifact(&sample_file(name), &schema);
    }
}

#[test]
fn the_corpus_profiles_fit_validate_and_quote_their_artifacts() {
    // Third-party programs under `capture profile` (sampled): tests/fixtures/corpus-h200.
    let dir = tempfile::tempdir().expect("tempdir");
    let schema = schema();
    let mut sampled = 0;
    for program in [
        "bert_base_fwd",
        "gemm_tf32_fp8",
        "llama_block",
        "resnet18_stem",
        "t5_encoder",
        "train_step",
        "vit_b16",
    ] {
        let input = gunzip_fixture(
            dir.path(),
            &format!("corpus-h200/{program}_profile.json.gz"),
        );
        check_artifact(&input, &schema);
        let e = explain_json(&input, &[]);
        sampled += kernels(&e)
            .iter()
            .filter(|k| k["sampled"]["measured"].as_u64().is_some())
            .count();
    }
    assert!(sampled > 0, "no kernel says it was sampled");
}

/// Whether `value` is what ncu printed as `cell`: ncu's CSV pages print a value rounded to
/// the digits shown (`87.93` for the report's 87.9322...), so a report's value matches when
/// it is within half a unit of the cell's last digit; a CSV input's value is the cell.
fn printed_as(value: f64, cell: &str) -> bool {
    let plain = cell.replace(',', "");
    let Ok(printed) = plain.parse::<f64>() else {
        return false;
    };
    let decimals = plain.split_once('.').map_or(0, |(_, d)| d.len());
    let half_ulp = 0.5 * 10f64.powi(-(decimals as i32));
    (value - printed).abs() <= half_ulp * (1.0 + 1e-9)
}

#[test]
fn every_evidence_value_of_a_report_and_an_export_is_in_its_raw_page() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Two reports and the raw pages ncu exported from them (the README.md beside each);
    // the GPT-2 sample's raw page explained as it is; the suite's details page alone,
    // whose evidence is its Speed-of-Light rows.
    let cases = [
        (
            gemms_report(dir.path()),
            fixture("ncu-h200-gemms/gemms_full_raw.csv"),
        ),
        (
            unzstd_fixture(dir.path(), "ncu-h200-bert/bert_full.ncu-repz"),
            fixture("ncu-h200-bert/bert_full_raw.csv"),
        ),
        (
            sample_file("h200-gpt2-bf16-ncu-cold-raw.csv"),
            sample_file("h200-gpt2-bf16-ncu-cold-raw.csv"),
        ),
    ];
    let details = sample_file("h200-ncu-cold-details.csv");
    let cases = cases
        .into_iter()
        .map(|(input, page)| (input, csv_metrics(&page)))
        .chain([(details.clone(), sol_rows(&details))]);
    for (input, truth) in cases {
        let e = explain_json(&input, &[]);
        let mut checked = 0;
        for k in kernels(&e) {
            let id = k["evidence_launch"].as_u64().expect("an evidence launch");
            let row = truth.get(&id).expect("the launch is in the page");
            for ev in k["evidence"].as_array().expect("evidence") {
                let metric = ev["metric"].as_str().expect("metric");
                let (cell, unit) = row.get(metric).expect("the page has the metric");
                let value = ev["value"].as_f64().expect("a number");
                assert!(printed_as(value, cell), "{id} {metric}: {value} vs {cell}");
                // `--print-units base` prints the base units the reader keeps (ns, byte, %);
                // the details page's rows are cited in % only, which needs no conversion.
                assert_eq!(ev["unit"].as_str(), Some(unit.as_str()), "{id} {metric}");
                checked += 1;
            }
        }
        // At the least each kernel's two Speed-of-Light figures.
        assert!(checked >= 2 * kernels(&e).len(), "{}", input.display());
    }
}

// ---- Choice and errors --------------------------------------------------------------------

#[test]
fn kernel_and_top_choose_and_text_is_a_paragraph_each() {
    let input = sample_file("h200.json");
    let e = explain_json(&input, &["--kernel", "^fusion: ", "--top", "2"]);
    assert_eq!(e["kernels_in_input"], 20);
    let names: Vec<&str> = kernels(&e)
        .iter()
        .map(|k| k["short_name"].as_str().expect("name"))
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.iter().all(|n| n.starts_with("fusion: ")), "{names:?}");
    let o = capture(&["explain", s(&input), "--kernel", "^vector add$"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert_eq!(text.trim_end().lines().count(), 1, "{text}");
    assert!(
        text.starts_with("vector add (1 launch, ") && text.contains("memory-bound, bound by dram"),
        "{text}"
    );
    assert!(text.contains("Evidence (launch "), "{text}");
    let o = capture(&["explain", s(&input), "--kernel", "no such kernel"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("no kernel matches --kernel"),
        "{}",
        stderr(&o)
    );
    let o = capture(&["explain", s(&input), "--kernel", "("]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("not a regular expression"),
        "{}",
        stderr(&o)
    );
}

// ---- Measured usefulness: 20 known answers ------------------------------------------------

/// The bound a plain reader takes from one explanation, reading nothing else: the verdict's
/// word, and for `balanced` the kind of unit that bounds it.
fn plain_rule(k: &Value) -> &'static str {
    let memory_unit = matches!(
        k["bound_by"].as_str(),
        Some("dram" | "l2" | "l1" | "memory")
    );
    match k["verdict"].as_str() {
        Some("compute-bound") => "compute",
        Some("memory-bound") => "memory",
        Some("latency-bound") => "latency",
        Some("balanced") if memory_unit => "memory",
        Some("balanced") => "compute",
        _ => "unknown",
    }
}

/// The bound ncu's SOLBottleneck message states, in its own words: a grid too small or low
/// throughput of both is latency; "Compute is more heavily utilized" or, above 80%, "Start by
/// analyzing workloads in the Compute Workload Analysis section" is compute; "Memory is
/// more heavily utilized" or "Start by analyzing <level> in the Memory Workload Analysis
/// section" is memory.
fn ncu_states(message: &str) -> &'static str {
    if message.contains("grid is too small")
        || message.contains("low compute throughput and memory")
    {
        "latency"
    } else if message.contains("Compute is more heavily utilized")
        || message.contains("workloads in the Compute Workload Analysis")
    {
        "compute"
    } else if message.contains("Memory is more heavily utilized")
        || message.contains("in the Memory Workload Analysis section")
    {
        "memory"
    } else {
        panic!("a SOLBottleneck message this test cannot read: {message}")
    }
}

/// SOLBottleneck messages by launch ID, from a details CSV page.
fn sol_messages_of_details(path: &Path) -> HashMap<u64, String> {
    let text = std::fs::read_to_string(path).expect("read");
    let rows = csv_rows(&text);
    let header = rows.first().expect("header");
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    let (id, rule, desc) = (col("ID"), col("Rule Name"), col("Rule Description"));
    rows.iter()
        .skip(1)
        .filter(|r| r.get(rule).map(String::as_str) == Some("SOLBottleneck"))
        .filter_map(|r| Some((r.get(id)?.parse().ok()?, r.get(desc)?.clone())))
        .collect()
}

/// SOLBottleneck messages of every launch of kernel `short` in an artifact.
fn sol_messages_of_artifact(a: &Value, full_name_part: &str) -> Vec<String> {
    a["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .filter(|k| {
            k["name"]
                .as_str()
                .is_some_and(|n| n.contains(full_name_part))
        })
        .flat_map(|k| {
            k["cold"]["launches"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .flat_map(|l| l["rules"].as_array().cloned().unwrap_or_default())
        .filter(|r| r["name"] == "SOLBottleneck")
        .filter_map(|r| r["description"].as_str().map(str::to_string))
        .collect()
}

#[test]
fn a_plain_rule_on_explain_alone_names_the_bound_of_20_known_kernels() {
    // The suite's teaching kernels, each with the bound the course states: its lesson on
    // profiling metrics ("vecadd ... memory-bound"; "y = a * x", "c = a + b" and "y = a * x
    // + y ... memory-bound"; "fma loop ... compute-bound"), its roofline lesson (the
    // 256-step Horner polynomial "fills the compute-bound part of the chart"), and the
    // suite's declarations in capture/src/gpu/suite/ (the DRAM copy and read streams and
    // the L2-resident copy that measure the memory ceilings; the FP64 Horner loop "to show
    // the FP64 roof").
    let suite: [(&str, &str); 10] = [
        ("vector add", "memory"),
        ("fusion: scale", "memory"),
        ("fusion: add", "memory"),
        ("fusion: fused", "memory"),
        ("FMA ceiling", "compute"),
        ("polynomial, 256", "compute"),
        ("copy ceiling", "memory"),
        ("read ceiling", "memory"),
        ("L2 copy ceiling", "memory"),
        ("precision pair: FP64", "compute"),
    ];
    let e = explain_json(&sample_file("h200.json"), &[]);
    let by_short = |e: &Value, short: &str| -> Value {
        kernels(e)
            .iter()
            .find(|k| k["short_name"] == short)
            .cloned()
            .unwrap_or_else(|| panic!("no kernel {short}"))
    };
    let mut right = 0;
    for (short, bound) in suite {
        let k = by_short(&e, short);
        assert_eq!(plain_rule(&k), bound, "{short}");
        right += 1;
    }
    // Third-party GEMMs (cuBLAS, CUTLASS) from a report, the answer read from the details
    // page ncu exported from it: the bound ncu's own SOLBottleneck rule states.
    let dir = tempfile::tempdir().expect("tempdir");
    let sol = sol_messages_of_details(&fixture("ncu-h200-gemms/gemms_full_details.csv"));
    let gemms = explain_json(&gemms_report(dir.path()), &[]);
    assert_eq!(kernels(&gemms).len(), 6);
    for k in kernels(&gemms) {
        let id = k["evidence_launch"].as_u64().expect("launch");
        let want = ncu_states(sol.get(&id).expect("a SOLBottleneck row"));
        assert_eq!(plain_rule(k), want, "{}", k["short_name"]);
        right += 1;
    }
    // GPT-2's 4096^3 bf16 GEMM and three elementwise kernels (PyTorch's), the answer from
    // the SOLBottleneck messages the artifact carries for every launch (all alike).
    let path = sample_file("h200-gpt2-bf16.json");
    let artifact: Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("read")).expect("json");
    let gpt2 = explain_json(&path, &[]);
    for part in [
        "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT",
        "tanh_kernel_cuda",
        "vectorized_layer_norm_kernel",
        "pow_tensor_scalar",
    ] {
        let messages = sol_messages_of_artifact(&artifact, part);
        assert!(!messages.is_empty(), "{part}");
        let want = ncu_states(&messages[0]);
        assert!(messages.iter().all(|m| ncu_states(m) == want), "{part}");
        let k = kernels(&gpt2)
            .iter()
            .find(|k| k["name"].as_str().is_some_and(|n| n.contains(part)))
            .unwrap_or_else(|| panic!("no kernel {part}"));
        assert_eq!(plain_rule(k), want, "{part}");
        right += 1;
    }
    assert_eq!(right, 20);
}

// ---- A minimal JSON Schema validator ------------------------------------------------------

/// Errors of `v` against `schema` (whose root, for `$ref`, is `root`), at `at`. It knows the
/// keywords schemars writes (`type`, `properties`, `required`, `additionalProperties`,
/// `items`, `anyOf`, `oneOf`, `const`, `minimum`, `format`, `$ref`, `$defs` and the
/// annotations); any other keyword is an error, so it can never pass a schema it did not
/// read.
fn validate(root: &Value, schema: &Value, v: &Value, at: &str) -> Vec<String> {
    let mut errors = Vec::new();
    let Some(obj) = schema.as_object() else {
        return vec![format!("{at}: a schema that is not an object")];
    };
    for (key, rule) in obj {
        match key.as_str() {
            "$schema" | "title" | "description" | "$defs" | "format" | "default" => {}
            "$ref" => {
                let name = rule
                    .as_str()
                    .and_then(|r| r.strip_prefix("#/$defs/"))
                    .unwrap_or_default();
                errors.extend(validate(root, &root["$defs"][name], v, at));
            }
            "type" => {
                let types: Vec<&str> = match rule {
                    Value::String(t) => vec![t.as_str()],
                    Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                    _ => vec![],
                };
                if !types.iter().any(|t| has_type(v, t)) {
                    errors.push(format!("{at}: {v} is not of type {types:?}"));
                }
            }
            "properties" => {
                for (name, sub) in rule.as_object().into_iter().flatten() {
                    if let Some(inner) = v.get(name) {
                        errors.extend(validate(root, sub, inner, &format!("{at}.{name}")));
                    }
                }
            }
            "required" => {
                for name in rule
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                {
                    if v.is_object() && v.get(name).is_none() {
                        errors.push(format!("{at}: lacks {name}"));
                    }
                }
            }
            "additionalProperties" => {
                if rule == &Value::Bool(false) {
                    for name in v.as_object().into_iter().flat_map(|m| m.keys()) {
                        if obj["properties"].get(name).is_none() {
                            errors.push(format!("{at}: {name} is not in the schema"));
                        }
                    }
                }
            }
            "items" => {
                for (i, item) in v.as_array().into_iter().flatten().enumerate() {
                    errors.extend(validate(root, rule, item, &format!("{at}[{i}]")));
                }
            }
            "anyOf" | "oneOf" => {
                let passing = rule
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|s| validate(root, s, v, at).is_empty())
                    .count();
                if passing == 0 || (key == "oneOf" && passing > 1) {
                    errors.push(format!("{at}: {v} matches {passing} of {key}"));
                }
            }
            "const" if rule != v => errors.push(format!("{at}: {v} is not {rule}")),
            "const" => {}
            "minimum" => {
                if v.as_f64().zip(rule.as_f64()).is_some_and(|(x, m)| x < m) {
                    errors.push(format!("{at}: {v} is below {rule}"));
                }
            }
            other => errors.push(format!("{at}: keyword {other} unknown to this validator")),
        }
    }
    errors
}

fn has_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.is_u64() || v.is_i64(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => false,
    }
}

#[test]
fn the_validator_refuses_what_the_schema_forbids() {
    let schema = schema();
    let good = explain_json(&sample_file("h200.json"), &["--top", "1"]);
    assert!(validate(&schema, &schema, &good, "$").is_empty());
    let mut extra = good.clone();
    extra["kernels"][0]["invented"] = Value::from(1);
    assert!(!validate(&schema, &schema, &extra, "$").is_empty());
    let mut wrong = good.clone();
    wrong["kernels"][0]["evidence"][0]["backs"] = Value::from("nothing");
    assert!(!validate(&schema, &schema, &wrong, "$").is_empty());
    let mut missing = good;
    missing["kernels"][0]
        .as_object_mut()
        .expect("object")
        .remove("evidence");
    assert!(!validate(&schema, &schema, &missing, "$").is_empty());
}

/// Issue 51, item 3: `--next` ranks kernels by recoverable time, each with an action and an
/// ncu command. The corpus's T5 profile records its ncu commands: the command is built from
/// the last collection one (its clock and cache control, NVTX filter and program kept; its
/// metrics, kernel filter and output replaced). Its export records none: `PROGRAM`.
#[test]
fn next_ranks_by_recoverable_time_with_the_runs_own_command() {
    let profile = fixture("corpus-h200/t5_encoder_profile.json.gz");
    let o = capture(&["explain", "--next", "--format", "json", s(&profile)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let steps: serde_json::Value = serde_json::from_str(&stdout(&o)).expect("JSON");
    let steps = steps.as_array().expect("a list");
    assert!(steps.len() >= 10, "{}", steps.len());
    let ms = |s: &serde_json::Value, k: &str| s[k].as_f64().expect(k);
    for pair in steps.windows(2) {
        assert!(ms(&pair[0], "recoverable_ms") >= ms(&pair[1], "recoverable_ms"));
    }
    for s in steps {
        let want = ms(s, "time_ms") * ms(s, "recoverable_pct") / 100.0;
        assert!((ms(s, "recoverable_ms") - want).abs() < 1e-12, "{s}");
        assert!((0.0..=100.0).contains(&ms(s, "recoverable_pct")), "{s}");
        let basis = s["basis"].as_str().expect("basis");
        assert!(
            basis.starts_with("rule ") || basis.starts_with("roof: "),
            "{basis}"
        );
        let cmd = s["command"].as_str().expect("command");
        assert!(
            cmd.starts_with("/usr/local/cuda/bin/ncu --clock-control none --cache-control all"),
            "{cmd}"
        );
        assert!(
            cmd.contains("--nvtx-include measure")
                && cmd.contains(" -c 1 --section SourceCounters --import-source yes -f -o ")
                && cmd.contains("--launch-skip ")
                && cmd.ends_with(" python3 t5_encoder.py"),
            "{cmd}"
        );
        assert!(
            !cmd.contains("--metrics") && !cmd.contains("--kernel-id"),
            "{cmd}"
        );
        assert_eq!(s["command_from"], "the run's recorded ncu command");
    }
    // The export's raw and details pages: ncu's rules held; no command recorded.
    let (raw, details) = (
        fixture("corpus-h200/t5_encoder_full_raw.csv.gz"),
        fixture("corpus-h200/t5_encoder_full_details.csv.gz"),
    );
    let o = capture(&["explain", "--next", "--top", "2", s(&raw), s(&details)]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("1. ") && text.contains("\n2. ") && !text.contains("\n3. "),
        "{text}"
    );
    assert!(
        text.contains(" PROGRAM\n   (no command recorded: put the program"),
        "{text}"
    );
}
