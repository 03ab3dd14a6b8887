//! `capture diff --by range` on real exports with NVTX ranges: a change planted on a copy
//! (one kernel's launch time scaled in one range, one range renamed) is ranked first with
//! its delta while untouched ranges show none; a single-range training step agrees with the
//! kernel diff on the total and its noise band; the JSON contract; a profile against an
//! import of its export (made by different `capture` versions) as a smoke test. Regenerate
//! the golden text with `UPDATE_GOLDEN=1 cargo test -p roofline-tests --test cli golden`
//! (docs/nvtx.md shows it: copy it in there too).

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::gate::assert_nulls_explained;
use crate::util::{
    capture, csv_fields, csv_line, gunzip_fixture, root, s, stderr, stdout, undocumented_keys,
};

/// A copy of the export `text` with `edit` applied to each launch's row (after the header
/// and the units row), given the header; written to `dir/name`.
fn planted(
    dir: &Path,
    name: &str,
    text: &str,
    edit: impl Fn(&[String], &mut Vec<String>),
) -> PathBuf {
    let mut lines = text.lines();
    let header = csv_fields(lines.next().unwrap_or_default());
    let mut out = vec![csv_line(&header)];
    out.extend(lines.next().map(str::to_owned));
    for line in lines {
        let mut row = csv_fields(line);
        edit(&header, &mut row);
        out.push(csv_line(&row));
    }
    let path = dir.join(name);
    std::fs::write(&path, out.join("\n") + "\n").expect("write");
    path
}

/// The column of `name` in `header`.
fn column(header: &[String], name: &str) -> usize {
    header.iter().position(|h| h == name).expect(name)
}

/// A duration cell in ns (`28,288`: ncu writes thousands separators).
fn ns(cell: &str) -> f64 {
    cell.replace(',', "").parse().expect("a duration")
}

/// Scales the duration of a row whose column `col` contains `needle` by `factor`; returns
/// the time added, ms (0 for another row).
fn scale_where(
    header: &[String],
    row: &mut [String],
    (col, needle): (&str, &str),
    factor: f64,
) -> f64 {
    let (c, d) = (
        column(header, col),
        column(header, "gpu__time_duration.sum"),
    );
    if !row[c].contains(needle) {
        return 0.0;
    }
    let before = ns(&row[d]);
    row[d] = format!("{}", before * factor);
    before * (factor - 1.0) / 1e6
}

const PUSH_POP: &str = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg";

fn import(dir: &Path, csv: &Path, name: &str) -> PathBuf {
    let out = dir.join(name);
    let o = capture(&["import", s(csv), "-o", s(&out)]);
    assert!(o.status.success(), "{}", stderr(&o));
    out
}

fn diff_json(args: &[&str]) -> Value {
    let mut all = vec!["diff"];
    all.extend(args);
    all.extend(["--format", "json"]);
    let o = capture(&all);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("json")
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// JAX's MLP under XLA, each of its four launches in its own `TSL:Thunk` range, imported
/// as it is and from a copy with the multiply fusion's launch 1.5 times as long and the
/// softmax's range renamed: the two artifacts, and the time added, ms.
fn jax_pair(dir: &Path) -> (PathBuf, PathBuf, f64) {
    let csv = gunzip_fixture(dir, "corpus-h200/jax_mlp_full_raw.csv.gz");
    let text = std::fs::read_to_string(&csv).expect("read");
    let added = std::cell::Cell::new(0.0);
    let slower = planted(dir, "slower.csv", &text, |h, row| {
        added.set(added.get() + scale_where(h, row, (PUSH_POP, "loop_multiply_fusion"), 1.5));
        let c = column(h, PUSH_POP);
        row[c] = row[c].replace("triton_softmax.2", "triton_softmax.3");
    });
    assert!(added.get() > 0.0, "the fusion's launch was found");
    (
        import(dir, &csv, "a.json"),
        import(dir, &slower, "b.json"),
        added.get(),
    )
}

#[test]
fn a_planted_slowdown_in_one_xla_range_is_ranked_first_and_the_rest_do_not_move() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b, added) = jax_pair(dir.path());
    let v = diff_json(&[s(&a), s(&b), "--by", "range"]);
    assert_eq!(
        (v["by"].as_str(), v["version"].as_u64()),
        (Some("range"), Some(2))
    );
    let nodes = v["nodes"].as_array().expect("nodes");
    assert_eq!(
        nodes.len(),
        5,
        "three matched, one vanished, one appeared: {v:#}"
    );
    let first = &nodes[0];
    assert!(first["name"]
        .as_str()
        .is_some_and(|n| n.contains("loop_multiply_fusion")));
    assert_eq!(first["status"], "matched");
    assert!((num(&first["change_ms"]) - added).abs() < 1e-12, "{first}");
    assert!((num(&first["change_pct"]) - 50.0).abs() < 1e-9, "{first}");
    // One launch per range: no band, so any change is beyond it.
    assert_eq!(
        (num(&first["noise_pct"]), &first["beyond_noise"]),
        (0.0, &Value::Bool(true))
    );
    for n in nodes {
        let name = n["name"].as_str().expect("name");
        assert_eq!(n["path"].as_array().map(Vec::len), Some(3), "{name}");
        if name.contains("softmax") {
            let (status, side) = if name.contains("softmax.2") {
                ("vanished", &n["before"])
            } else {
                ("appeared", &n["after"])
            };
            assert_eq!(n["status"], status, "{name}");
            assert_eq!(side["launches"], 1);
            let change = num(&n["change_ms"]).abs();
            assert!((change - num(&side["time_ms"])).abs() < 1e-15, "{n}");
            assert!(n["why_null"].is_string(), "{n}");
        } else if !name.contains("loop_multiply_fusion") {
            assert_eq!(n["status"], "matched", "{name}");
            assert_eq!(
                (num(&n["change_ms"]), num(&n["change_pct"])),
                (0.0, 0.0),
                "{name}"
            );
            assert_eq!(n["beyond_noise"], false, "{name}");
            // The same launch: all but its share of the (longer) run.
            for key in [
                "launches",
                "time_ms",
                "flops_total",
                "dram_bytes",
                "verdicts",
            ] {
                assert_eq!(n["before"][key], n["after"][key], "{name}: {key}");
            }
        }
    }
    assert!((num(&v["total"]["change_ms"]) - added).abs() < 1e-12);
    assert_nulls_explained(&v, "range diff");
    let doc = std::fs::read_to_string(root().join("docs/diff-json.md")).expect("docs");
    let missing = undocumented_keys(&v, &doc, &["verdicts"]);
    assert!(missing.is_empty(), "not in docs/diff-json.md: {missing:?}");

    // Markdown; the depth cuts the paths to the module's range.
    let o = capture(&[
        "diff",
        s(&a),
        s(&b),
        "--by",
        "range",
        "--format",
        "markdown",
    ]);
    let md = stdout(&o);
    assert!(
        md.contains("| range | before ms | after ms | change ms |"),
        "{md}"
    );
    assert!(
        md.contains("| vanished |") && md.contains("| appeared |"),
        "{md}"
    );
    let v = diff_json(&[s(&a), s(&b), "--by", "range", "--depth", "2"]);
    let nodes = v["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 1, "{v:#}");
    assert_eq!(
        nodes[0]["path"][1],
        "TSL:XlaModule:#hlo_module=jit_mlp,program_id=6632#"
    );
    assert!((num(&nodes[0]["change_ms"]) - added).abs() < 1e-12);
    assert_eq!(
        (v["depth"].as_u64(), nodes[0]["status"].as_str()),
        (Some(2), Some("matched"))
    );
}

#[test]
fn golden_text_of_a_planted_range_diff() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b, _) = jax_pair(dir.path());
    let o = capture(&["diff", s(&a), s(&b), "--by", "range"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = stdout(&o);
    let golden = root().join("tests/golden/diff/jax_mlp_by_range.txt");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(golden.parent().expect("a folder")).expect("mkdir");
        std::fs::write(&golden, &got).expect("write golden");
    }
    let want = std::fs::read_to_string(&golden).expect("golden file exists");
    let doc = std::fs::read_to_string(root().join("docs/nvtx.md")).expect("docs");
    assert!(
        doc.contains(&want),
        "docs/nvtx.md shows {} as it was: copy it in",
        golden.display()
    );
    assert!(
        got == want,
        "`capture diff --by range` differs from {}; if intended, regenerate it (see this \
         file's header):\n{got}",
        golden.display()
    );
}

/// The corpus training step (under its start/end range `measure`, the backward pass on
/// autograd's thread in it) as it is and from a copy with its two GELU backward launches
/// `factor` times as long: the two artifacts and the time added, ms.
fn step_pair(dir: &Path, factor: f64) -> (PathBuf, PathBuf, f64) {
    let csv = gunzip_fixture(dir, "corpus-h200/train_step_full_raw.csv.gz");
    let text = std::fs::read_to_string(&csv).expect("read");
    let added = std::cell::Cell::new(0.0);
    let name = format!("slower{factor}.csv");
    let slower = planted(dir, &name, &text, |h, row| {
        let gelu = ("Kernel Name", "GeluBackwardCUDAKernelImpl");
        added.set(added.get() + scale_where(h, row, gelu, factor));
    });
    let after = import(dir, &slower, &format!("b{factor}.json"));
    (import(dir, &csv, "a.json"), after, added.get())
}

#[test]
fn a_training_step_in_one_range_agrees_with_the_kernel_diff_on_its_total_and_noise() {
    let dir = tempfile::tempdir().expect("tempdir");
    // (factor, beyond the noise): measured, GELU backward 1.5 times as long adds 2.8 % to
    // the step against a band of 14.1 % (kernels whose launches differ in shape, as the
    // three cuBLAS GEMMs' four launches each, have a wide launch spread); six times as long
    // adds 28 %.
    for (factor, beyond) in [(1.5, false), (6.0, true)] {
        let (a, b, added) = step_pair(dir.path(), factor);
        let ranges = diff_json(&[s(&a), s(&b), "--by", "range"]);
        let kernels = diff_json(&[s(&a), s(&b)]);
        let nodes = ranges["nodes"].as_array().expect("nodes");
        assert_eq!(nodes.len(), 1, "{ranges:#}");
        let step = &nodes[0];
        assert_eq!(
            (step["name"].as_str(), step["status"].as_str()),
            (Some("measure"), Some("matched"))
        );
        assert_eq!(
            (
                step["before"]["launches"].as_u64(),
                step["after"]["launches"].as_u64()
            ),
            (Some(58), Some(58))
        );
        assert!((num(&step["change_ms"]) - added).abs() < 1e-12, "{step}");
        // One range holds every launch, so its band is the kernel diff's total band: each
        // kernel's launch spread, in ms, both runs, added, over the before time.
        let (rt, kt) = (&ranges["total"], &kernels["total"]);
        for key in [
            "before_ms",
            "after_ms",
            "change_ms",
            "change_pct",
            "noise_pct",
        ] {
            let (r, k) = (num(&rt[key]), num(&kt[key]));
            let close = |x: f64| (x - k).abs() <= 1e-9 * k.abs().max(1.0);
            assert!(close(r), "{key}: {r} by range, {k} by kernel");
            if !key.ends_with("_ms") || key == "change_ms" {
                assert!(
                    close(num(&step[key])),
                    "{key}: node {}, total {k}",
                    step[key]
                );
            }
        }
        assert!(num(&step["noise_pct"]) > 0.0, "launches repeat: a band");
        assert_eq!(step["beyond_noise"], kt["beyond_noise"], "{factor}");
        assert_eq!(step["beyond_noise"], beyond, "{factor}: {step}");
    }
}

#[test]
fn a_profile_against_an_import_of_its_export_prints_the_table() {
    // Two real artifacts of the corpus training step: the sampled profile (made before
    // ranges were kept: its launches are in no range) and an import of the export (under
    // `measure`). Not comparable (metric set) without --force.
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = gunzip_fixture(dir.path(), "corpus-h200/train_step_full_raw.csv.gz");
    let profile = gunzip_fixture(dir.path(), "corpus-h200/train_step_profile.json.gz");
    let o = capture(&["diff", s(&profile), s(&csv), "--by", "range"]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    assert!(
        stderr(&o).contains("cannot be compared fairly"),
        "{}",
        stderr(&o)
    );
    let o = capture(&["diff", s(&profile), s(&csv), "--by", "range", "--force"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    print!("{text}");
    let row = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(name))
            .unwrap_or_else(|| panic!("no row {name}: {text}"))
            .split_whitespace()
            .collect::<Vec<_>>()
    };
    let (none, measure) = (row("(no range)"), row("measure "));
    assert!(
        none.contains(&"vanished") && none.contains(&"58"),
        "{none:?}"
    );
    assert!(
        measure.contains(&"appeared") && measure.contains(&"58"),
        "{measure:?}"
    );
    assert!(
        text.contains("2 range(s): 0 in both runs, 1 appeared, 1 vanished"),
        "{text}"
    );
}

#[test]
fn flags_the_range_diff_does_not_take_are_refused() {
    let dir = tempfile::tempdir().expect("tempdir");
    let csv = gunzip_fixture(dir.path(), "corpus-h200/jax_mlp_full_raw.csv.gz");
    for (args, says) in [
        (vec!["--depth", "1"], "--by range"),
        (vec!["--by", "range", "--depth", "0"], "at least 1"),
        (vec!["--by", "range", "--gate", "5"], "--by kernel only"),
        (
            vec!["--by", "range", "--gate-work", "5"],
            "--by kernel only",
        ),
    ] {
        let mut all = vec!["diff", s(&csv), s(&csv)];
        all.extend(&args);
        let o = capture(&all);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", stdout(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
    }
}
