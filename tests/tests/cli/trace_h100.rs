//! Real traces (`capture trace` on an H100, CUDA 13.0, driver 580; tests/fixtures/trace-h100,
//! made by `bash tests/device/trace.sh`): what `capture table` and `capture diff` say of them,
//! each checked against a truth computed here or recorded by another tool.

use std::io::Read;

use crate::util::*;

/// The fixture's JSON.
fn json(rel: &str) -> serde_json::Value {
    let mut text = String::new();
    let file = std::fs::File::open(fixture(rel)).expect("fixture");
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gzip");
    serde_json::from_str(&text).expect("json")
}

/// A gzipped fixture un-gzipped into `dir` (capture reads artifacts as JSON text).
fn plain(dir: &std::path::Path, rel: &str) -> std::path::PathBuf {
    gunzip_fixture(dir, rel)
}

/// `capture table --format json` of a fixture.
fn report(rel: &str) -> serde_json::Value {
    let dir = tempfile::tempdir().expect("tempdir");
    let o = capture(&["table", "--format", "json", s(&plain(dir.path(), rel))]);
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_str(&stdout(&o)).expect("json")
}

/// Each kernel name's (launches, summed ns), computed from the trace's records.
fn per_name(trace: &serde_json::Value) -> Vec<(String, u64, u64)> {
    let strings = trace["strings"].as_array().expect("strings");
    let mut by: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    for k in trace["kernels"].as_array().expect("kernels") {
        let name = strings[k["name"].as_u64().expect("name") as usize]
            .as_str()
            .expect("text")
            .to_owned();
        let e = by.entry(name).or_default();
        e.0 += 1;
        e.1 += k["end_ns"].as_u64().expect("end") - k["start_ns"].as_u64().expect("start");
    }
    by.into_iter().map(|(n, (c, t))| (n, c, t)).collect()
}

/// The seed's example: `fused` twice, `scale` and `add` once each give 2, 1 and 1
/// instances, most time first, each share its total over all kernel time, as nsys gives.
#[test]
fn the_seed_example_reads_as_nsys_kernel_summary() {
    let r = report("trace-h100/seed.json.gz");
    let kernels = r["kernels"].as_array().expect("kernels");
    let got: Vec<(&str, u64)> = kernels
        .iter()
        .map(|k| {
            (
                k["name"].as_str().expect("name"),
                k["instances"].as_u64().expect("n"),
            )
        })
        .collect();
    assert_eq!(got, [("fused", 2), ("add", 1), ("scale", 1)]);
    let truth = per_name(&json("trace-h100/seed.json.gz")["trace"]);
    let all: u64 = truth.iter().map(|t| t.2).sum();
    for k in kernels {
        let (_, _, total) = truth
            .iter()
            .find(|t| t.0 == k["name"].as_str().expect("name"))
            .expect("in the records");
        assert_eq!(k["total_ns"].as_f64(), Some(*total as f64));
        let share = 100.0 * *total as f64 / all as f64;
        assert!((k["time_pct"].as_f64().expect("pct") - share).abs() < 1e-9);
    }
    // What only a trace sees: the copies both ways and the memory set, 64 MiB each, and the
    // second thread's `add` inside the process-wide range `program`.
    let copies: Vec<&str> = r["copies"]
        .as_array()
        .expect("copies")
        .iter()
        .map(|c| c["kind"].as_str().expect("kind"))
        .collect();
    assert_eq!(copies.len(), 3, "{copies:?}");
    let program = r["ranges"]
        .as_array()
        .expect("ranges")
        .iter()
        .find(|l| l["path"] == "program")
        .expect("program range");
    assert_eq!(program["kernels"], 4);
}

/// The raw records a run kept read again into the same trace the run wrote.
#[test]
fn kept_records_read_back_into_the_trace_the_run_wrote() {
    let dir = tempfile::tempdir().expect("tempdir");
    let out = dir.path().join("again.json");
    let o = capture(&[
        "trace",
        "--from-records",
        s(&fixture("trace-h100/seed_records")),
        "-o",
        s(&out),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let again: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("read")).expect("json");
    assert_eq!(again["trace"], json("trace-h100/seed.json.gz")["trace"]);
}

/// The planted `cudaMemcpyAsync` (tests/planted, VARIANT=copy) is a copy that appeared: the
/// work gate fails on it (exit 12) and passes two runs of the same code.
#[test]
fn a_planted_copy_fails_the_work_gate_and_the_same_code_passes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = plain(dir.path(), "trace-h100/planted_base.json.gz");
    let copy = plain(dir.path(), "trace-h100/planted_copy.json.gz");
    let base2 = plain(dir.path(), "trace-h100/planted_base2.json.gz");
    let o = capture(&["diff", "--gate-work", "1", s(&base), s(&copy)]);
    assert_eq!(o.status.code(), Some(12), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a copy appeared: [CUDA memcpy Device-to-Device] 0 -> 2"),
        "{}",
        stderr(&o)
    );
    let o = capture(&["diff", "--gate-work", "1", s(&base), s(&base2)]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// Launch for launch, the trace's kernels in launch order are ncu's launch IDs of the same
/// program (GPT-2 forward, two steps; ncu's duration pass): the same count, and the same
/// grid and block at every position, so a plan made from the trace's numbering selects the
/// launches ncu numbers so.
#[test]
fn the_trace_numbers_launches_as_ncu_does() {
    let trace = json("trace-h100/gpt2_steps2.json.gz");
    let ours: Vec<(String, String)> = trace["trace"]["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .map(|k| {
            let g: Vec<String> = (0..3).map(|i| k["grid"][i].to_string()).collect();
            let b: Vec<String> = (0..3).map(|i| k["block"][i].to_string()).collect();
            (format!("({})", g.join(", ")), format!("({})", b.join(", ")))
        })
        .collect();
    let mut text = String::new();
    let file = std::fs::File::open(fixture("trace-h100/gpt2_ncu_timing_raw.csv.gz")).expect("csv");
    flate2::read::GzDecoder::new(file)
        .read_to_string(&mut text)
        .expect("gzip");
    let mut lines = text.lines().skip_while(|l| !l.starts_with("\"ID\""));
    let head = csv_fields(lines.next().expect("header"));
    let col = |name: &str| head.iter().position(|h| h == name).expect(name);
    let (id, grid, block) = (col("ID"), col("Grid Size"), col("Block Size"));
    let ncu: Vec<(String, String)> = lines
        .map(csv_fields)
        .filter(|f| f.get(id).is_some_and(|v| v.parse::<u64>().is_ok()))
        .map(|f| (f[grid].clone(), f[block].clone()))
        .collect();
    assert_eq!(ours.len(), 1089);
    assert_eq!(ncu.len(), ours.len());
    let differ = ours.iter().zip(&ncu).filter(|(a, b)| a != b).count();
    assert_eq!(differ, 0);
}

/// The BERT training step (held-out program of 2026-12-04): its `step` range holds the 423
/// launches ncu's range filter saw, with kernel time within 2 % of torch.profiler's for the
/// same step (8,816.7 us, recorded in bert_torch_prof.log: a separate run).
#[test]
fn the_training_step_range_holds_its_launches_and_torch_profilers_time() {
    let r = report("trace-h100/bert_train_step_trace1.json.gz");
    let step = r["ranges"]
        .as_array()
        .expect("ranges")
        .iter()
        .find(|l| l["path"] == "step")
        .expect("step");
    assert_eq!(step["kernels"], 423);
    let ours_us = step["kernel_time_ns"].as_f64().expect("ns") / 1e3;
    let log = std::fs::read_to_string(fixture("trace-h100/bert_torch_prof.log")).expect("log");
    let torch_us: f64 = log
        .lines()
        .find_map(|l| l.strip_prefix("torch.profiler: GPU kernel time us "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("torch.profiler's figure");
    assert!(
        (ours_us - torch_us).abs() / torch_us < 0.02,
        "{ours_us} us against torch.profiler's {torch_us} us"
    );
}

/// Held-out programs (never run while the trace was built, traced with --torch-modules):
/// every kernel summary adds up to the records, and the GPU's busy time lies within its span.
#[test]
fn held_out_programs_add_up() {
    for name in ["llama_decode", "whisper_encoder", "t5_encoder"] {
        let rel = format!("trace-h100/heldout_{name}.json.gz");
        let r = report(&rel);
        let truth = per_name(&json(&rel)["trace"]);
        let lines = r["kernels"].as_array().expect("kernels");
        assert_eq!(lines.len(), truth.len(), "{name}");
        for l in lines {
            let t = truth
                .iter()
                .find(|t| t.0 == l["name"].as_str().expect("name"))
                .expect("name in records");
            assert_eq!(l["instances"].as_u64(), Some(t.1), "{name}");
            assert_eq!(l["total_ns"].as_f64(), Some(t.2 as f64), "{name}");
        }
        let busy = r["devices"][0][1]["busy_ns"].as_u64().expect("busy");
        let span = r["devices"][0][1]["span_ns"].as_u64().expect("span");
        assert!(busy > 0 && busy <= span, "{name}: {busy} of {span}");
    }
}

/// Every key of `capture table --format json` on a trace is named in docs/trace.md.
#[test]
fn the_trace_tables_json_is_documented() {
    let doc = std::fs::read_to_string(root().join("docs/trace.md")).expect("docs/trace.md");
    for rel in [
        "trace-h100/seed.json.gz",
        "trace-h100/bert_train_step_trace1.json.gz",
        "one-pass-h100/gemm_tf32_fp8_counters.json.gz",
    ] {
        let missing = undocumented_keys(&report(rel), &doc, &[]);
        assert!(
            missing.is_empty(),
            "{rel}: not in docs/trace.md: {missing:?}"
        );
    }
}

/// The work gate fails closed on traces: an after-run whose process did not end normally, or
/// lost records, cannot be judged (exit 13, naming it); a hand-edited negative count is no
/// trace (exit 1, naming the line).
#[test]
fn the_trace_gate_cannot_judge_a_trace_that_lost_records() {
    let dir = tempfile::tempdir().expect("tempdir");
    let base = plain(dir.path(), "trace-h100/planted_base.json.gz");
    let mut edited = json("trace-h100/planted_base.json.gz");
    edited["trace"]["processes"][0]["complete"] = serde_json::json!(false);
    let killed = dir.path().join("killed.json");
    std::fs::write(&killed, edited.to_string()).expect("write");
    let o = capture(&["diff", "--gate-work", "1", s(&base), s(&killed)]);
    assert_eq!(o.status.code(), Some(13), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("after: process") && stderr(&o).contains("did not end normally"),
        "{}",
        stderr(&o)
    );
    let mut edited = json("trace-h100/planted_base.json.gz");
    edited["trace"]["copies"][0]["bytes"] = serde_json::json!(-1);
    let negative = dir.path().join("negative.json");
    std::fs::write(&negative, edited.to_string()).expect("write");
    let o = capture(&["diff", "--gate-work", "1", s(&base), s(&negative)]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("line"), "{}", stderr(&o));
}

/// The trace as a sampled profile's timing pass (issue 46 item 3): the launches ncu's
/// duration pass saw for the same program (GPT-2 forward, 2 steps), launch for launch in
/// order, shape and invocation number (the trace's per mangled name, ncu's per printed
/// name); so a plan made from the trace picks the launches ncu's `--kernel-id` selects. The
/// plan's names then become ncu's once the profiled rows are seen.
#[test]
fn a_plan_from_the_trace_selects_the_launches_ncu_numbers_alike() {
    use shared::analysis::sampling::{from_trace, plan, timing};
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(plain(dir.path(), "trace-h100/gpt2_steps2.json.gz"))
        .expect("artifact");
    let artifact = shared::model::artifact::Artifact::from_json(&text).expect("artifact");
    let trace = artifact.trace.as_deref().expect("a trace");
    let ours = from_trace::timed_launches(trace, &[], &[]).expect("timed");
    let mut csv = Vec::new();
    let file = std::fs::File::open(fixture("trace-h100/gpt2_ncu_timing_raw.csv.gz")).expect("csv");
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut csv)
        .expect("gzip");
    let export = shared::read::exports::read(&csv).expect("ncu page");
    let ncu = timing::timed_launches(&export.launches).expect("ncu timing pass");
    assert_eq!(ours.len(), 1089);
    assert_eq!(ncu.len(), ours.len());
    for (a, b) in ours.iter().zip(&ncu) {
        assert_eq!(
            (a.id, a.grid, a.block, a.invocation),
            (b.id, b.grid, b.block, b.invocation),
            "{} against ncu's {}",
            a.function,
            b.function
        );
    }
    // The plan made from the trace's durations selects, by ncu's numbering, the launches it
    // planned: every launch whose invocation number its `--kernel-id` names.
    let from_trace_plan = plan::plan(ours, &plan::PlanOptions::default());
    let by_ncu: Vec<usize> = (0..ncu.len())
        .filter(|&i| from_trace_plan.invocations.contains(&ncu[i].invocation))
        .collect();
    assert_eq!(by_ncu, from_trace_plan.selected);
    // ncu's names adopted from its rows (here the duration pass's rows of the selected
    // launches stand in for a profiling pass's).
    let mut p = from_trace_plan;
    let rows: Vec<_> = p
        .selected
        .iter()
        .map(|&i| export.launches[i].clone())
        .collect();
    let warnings = from_trace::adopt_profiled_names(&mut p, &rows);
    assert!(warnings.is_empty(), "{warnings:?}");
    let renamed = p
        .launches
        .iter()
        .zip(&ncu)
        .filter(|(a, b)| a.function == b.function)
        .count();
    assert_eq!(renamed, 1089, "every launch carries ncu's name");
}

/// The BERT step's `step` range as a sampled profile filters it (`--nvtx-include step`):
/// the 423 launches ncu's filter kept (2026-12-04), numbered within the range.
#[test]
fn the_trace_timing_pass_keeps_the_launches_of_a_range_filter() {
    use shared::analysis::sampling::from_trace;
    let dir = tempfile::tempdir().expect("tempdir");
    let text = std::fs::read_to_string(plain(
        dir.path(),
        "trace-h100/bert_train_step_trace1.json.gz",
    ))
    .expect("artifact");
    let artifact = shared::model::artifact::Artifact::from_json(&text).expect("artifact");
    let trace = artifact.trace.as_deref().expect("a trace");
    let all = from_trace::timed_launches(trace, &[], &[]).expect("all");
    let step = from_trace::timed_launches(trace, &["step".into()], &[]).expect("step");
    assert_eq!(step.len(), 423);
    assert!(all.len() > step.len());
    let outside = from_trace::timed_launches(trace, &[], &["step".into()]).expect("outside");
    assert_eq!(outside.len() + step.len(), all.len());
    // Numbered within the range: the first launch of each kernel in it is invocation 1.
    let mut seen = std::collections::HashSet::new();
    for t in &step {
        if seen.insert(t.function.clone()) {
            assert_eq!(t.invocation, 1, "{}", t.function);
        }
    }
    assert!(step.iter().all(|t| t
        .nvtx
        .as_ref()
        .is_some_and(|n| n.start_end.iter().any(|r| r.name == "step"))));
}
