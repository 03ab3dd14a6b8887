//! The work gate on the H200's own repeat runs (issue 37; `bash tests/device/round11.sh
//! planted determinism`, 2026-12-04): same-code pairs pass `--gate-work 1` with the tolerance
//! measured from those runs (`tests/determinism/h200.tolerance.json`), planted code changes
//! fail it naming the kernel and the part, and the time gate, set as tight as the same-code
//! pairs allow, is run on the same changes beside it.

use std::path::{Path, PathBuf};

use crate::util::{capture, gunzip_fixture, root, s, stderr, stdout};

fn tolerance() -> PathBuf {
    root().join("tests/determinism/h200.tolerance.json")
}

/// `capture diff A B --gate-work 1 --work-tolerance h200 --format json`: exit code and the
/// work section.
fn work_gate(a: &Path, b: &Path) -> (i32, serde_json::Value) {
    let o = capture(&[
        "diff",
        s(a),
        s(b),
        "--gate-work",
        "1",
        "--work-tolerance",
        s(&tolerance()),
        "--format",
        "json",
    ]);
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}: {}", stderr(&o)));
    (o.status.code().unwrap_or(-1), v["work"].clone())
}

fn time_gate(a: &Path, b: &Path, pct: &str) -> i32 {
    let o = capture(&["diff", s(a), s(b), "--gate", pct]);
    o.status.code().unwrap_or(-1)
}

/// A program's repeat runs in tests/fixtures/determinism-h200, gunzipped under `dir`, in
/// name order.
fn fixture_runs(dir: &Path, program: &str) -> Vec<PathBuf> {
    let folder = root().join(format!("tests/fixtures/determinism-h200/{program}"));
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .expect("runs")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".json.gz"))
        .collect();
    names.sort();
    let sub = dir.join(program);
    std::fs::create_dir_all(&sub).expect("dir");
    names
        .iter()
        .map(|n| gunzip_fixture(&sub, &format!("determinism-h200/{program}/{n}")))
        .collect()
}

fn failures(work: &serde_json::Value) -> String {
    work["failures"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| f.as_str().map_or_else(|| f.to_string(), str::to_owned))
                .collect::<Vec<_>>()
                .join("; ")
        })
        .unwrap_or_default()
}

/// Ten same-code pairs (the base program's first run against each of ten more) pass the
/// work gate; each planted change but the extra `cudaMemcpyAsync` fails it, naming what
/// grew. That copy (CuPy's `z[...] = y`) is not a kernel: ncu profiles none of it, so no
/// gate on ncu's counters sees it (docs/ci.md); the same copy made by a kernel appears. The time gate at the
/// tightest setting the ten pairs pass catches fewer.
#[test]
fn planted_changes_fail_the_work_gate_and_same_code_pairs_pass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let at = |name: &str| gunzip_fixture(dir.path(), &format!("planted-h200/{name}.json.gz"));
    let base = at("base1");
    let same: Vec<PathBuf> = (2..=11).map(|k| at(&format!("base{k}"))).collect();
    for b in &same {
        let (code, w) = work_gate(&base, b);
        assert_eq!(code, 0, "{}: {}", b.display(), failures(&w));
    }
    let planted = [
        ("fma", "scale_add: instructions +"),
        ("uncoalesced", "scale_add: L1 global load sectors +"),
        ("split", "appeared: relu"),
        ("tile", "sgemm_tiled: branch instructions +"),
        ("copy_kernel", "appeared: copy"),
    ];
    for (change, named) in planted {
        let (code, w) = work_gate(&base, &at(change));
        let f = failures(&w);
        assert_eq!(code, 12, "{change}: {f}");
        assert!(f.contains(named), "{change}: {f}");
    }
    let (code, _) = work_gate(&base, &at("copy"));
    assert_eq!(
        code, 0,
        "a device-to-device memcpy is no kernel: ncu sees none of it"
    );

    // The time gate: the tightest of these settings that passes all ten same-code pairs,
    // then the planted changes under it.
    let tightest = ["0.25", "0.5", "1", "2"]
        .into_iter()
        .find(|pct| same.iter().all(|b| time_gate(&base, b, pct) == 0))
        .expect("a time gate the same-code pairs pass");
    let caught: Vec<&str> = ["fma", "uncoalesced", "split", "tile", "copy", "copy_kernel"]
        .into_iter()
        .filter(|c| time_gate(&base, &at(c), tightest) == 12)
        .collect();
    println!("time gate at {tightest} %: catches {caught:?}; work gate at 1 %: 5 of 6");
    // The bands include the run-to-run drift (`capture diff` without --baseline-runs: the
    // H200 determinism runs' median, shared::analysis::diff::drift), so the tightest gate the
    // same-code pairs pass is 0.25 % (1 % with within-run bands alone), and it catches the same.
    assert_eq!(tightest, "0.25", "caught {caught:?}");
    assert_eq!(caught, ["uncoalesced", "split", "copy_kernel"]);
}

/// Every pair of repeat runs of the suite, the cuBLAS GEMM set and the BERT forward passes
/// the work gate with the tolerance measured from them; the torch.compile'd MLP's pairs fail
/// it exactly where max-autotune gave a Triton kernel another grid or block from run to run
/// (another compiled kernel under the same name: a change of code, matched by name only),
/// never on a kernel matched by name and shape.
#[test]
fn repeat_runs_pass_the_work_gate_but_an_autotuner_s_new_configuration_does_not() {
    let dir = tempfile::tempdir().expect("tempdir");
    let runs = |program: &str| fixture_runs(dir.path(), program);
    for program in ["suite", "gemms", "bert_base_fwd"] {
        let r = runs(program);
        assert!(r.len() >= 5, "{program}");
        for b in &r[1..] {
            let (code, w) = work_gate(&r[0], b);
            assert_eq!(code, 0, "{program} {}: {}", b.display(), failures(&w));
        }
    }
    // The torch.compile'd MLP: every pair of its runs. A kernel the gate fails is always
    // another build of it (max-autotune chose again): matched by name only (another grid or
    // block), or under one shape with other registers or shared memory, named in the row.
    // Pairs where every kernel ran the same build pass.
    let r = runs("compiled_mlp");
    let (mut rebuilt, mut same_build_pairs) = (0, 0);
    for (i, a) in r.iter().enumerate() {
        for b in &r[i + 1..] {
            let (code, w) = work_gate(a, b);
            let kernels = w["kernels"].as_array().expect("kernels");
            let mut another_build = false;
            for k in kernels {
                let this = k["matched_by"] == "name" || k["rebuilt"].is_string();
                another_build |= this;
                if k["gate_failed"] == true {
                    assert!(this, "failed on the same build: {k:#}");
                    rebuilt += 1;
                }
            }
            let same_kernels = w["only_before"].as_array().is_some_and(Vec::is_empty)
                && w["only_after"].as_array().is_some_and(Vec::is_empty);
            if !another_build && same_kernels {
                assert_eq!(code, 0, "{} {}: {}", a.display(), b.display(), failures(&w));
                same_build_pairs += 1;
            }
        }
    }
    println!("compiled_mlp: {same_build_pairs} pairs ran the same builds and passed; {rebuilt} kernel rows failed on another build");
    assert!(
        rebuilt > 0,
        "max-autotune chose no other build in these runs"
    );
    assert!(same_build_pairs > 0, "no two runs chose the same builds");
}

/// The tolerance file the gate reads is what `tests/determinism/cv.py` makes of the runs
/// in the fixtures (the 20 runs of each program, docs/ci.md's table): re-made here from
/// them, part for part.
#[test]
fn the_tolerance_file_is_what_cv_py_makes_of_the_fixture_runs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let committed: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(tolerance()).expect("tolerance file"))
            .expect("json");
    let mut groups = Vec::new();
    for program in ["suite", "gemms", "compiled_mlp", "bert_base_fwd"] {
        let runs = fixture_runs(dir.path(), program);
        assert_eq!(runs.len(), 20, "{program}: 20 runs");
        let paths: Vec<String> = runs
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        groups.push(format!("{program}={}", paths.join(",")));
    }
    let made = dir.path().join("tolerance.json");
    let out = std::process::Command::new("python3")
        .arg(root().join("tests/determinism/cv.py"))
        .args(["--capture", s(crate::util::capture_bin())])
        .args(["--out", s(&made)])
        .args([
            "--measured-on",
            committed["measured_on"].as_str().expect("measured_on"),
        ])
        .args(&groups)
        .output()
        .expect("python3");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let made: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&made).expect("made")).expect("json");
    assert_eq!(made["measured_on"], committed["measured_on"]);
    let parts = |v: &serde_json::Value| {
        v["components"]
            .as_object()
            .expect("components")
            .iter()
            .map(|(k, c)| {
                let f = |key: &str| c[key].as_f64().expect("number");
                (k.clone(), [f("cv_pct"), f("floor"), f("runs")])
            })
            .collect::<Vec<_>>()
    };
    let (a, b) = (parts(&made), parts(&committed));
    assert_eq!(
        a.iter().map(|p| &p.0).collect::<Vec<_>>(),
        b.iter().map(|p| &p.0).collect::<Vec<_>>()
    );
    for ((k, x), (_, y)) in a.iter().zip(&b) {
        for (u, v) in x.iter().zip(y) {
            assert!(
                (u - v).abs() <= 1e-6 * v.abs().max(1.0),
                "{k}: {x:?} vs {y:?}"
            );
        }
    }
}
