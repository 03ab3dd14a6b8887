//! Our verdict and unit against ncu's own rules, launch by launch, weighted by time, on real
//! `--set full` exports of third-party programs profiled on the H200: ncu's SOLBottleneck
//! rule (the verdict) and HighPipeUtilization rule (the busiest pipe), from the details
//! page's `Rule Description` column. Prints the figures and every disagreement.

use shared::analysis::bound;
use shared::analysis::metrics::{self, VerdictKind};
use shared::model::artifact::LaunchCounters;

/// What ncu's SOLBottleneck text says bounds the launch.
#[derive(Clone, Copy, Debug, PartialEq)]
enum NcuSol {
    /// "grid is too small" or "low compute throughput and memory bandwidth".
    Latency,
    /// "Compute is more heavily utilized than Memory".
    Compute,
    /// "Memory is more heavily utilized than Compute".
    Memory,
    /// "utilizing greater than 80.0% of the available compute or memory".
    High,
    /// "Compute and Memory are well-balanced".
    Balanced,
}

fn ncu_sol(text: &str) -> Option<NcuSol> {
    Some(
        if text.contains("grid is too small") || text.contains("low compute throughput") {
            NcuSol::Latency
        } else if text.contains("Compute is more heavily utilized") {
            NcuSol::Compute
        } else if text.contains("Memory is more heavily utilized") {
            NcuSol::Memory
        } else if text.contains("greater than 80.0%") {
            NcuSol::High
        } else if text.contains("well-balanced") {
            NcuSol::Balanced
        } else {
            return None;
        },
    )
}

fn sol_agrees(ours: VerdictKind, ncu: NcuSol) -> bool {
    use NcuSol as N;
    use VerdictKind as V;
    matches!(
        (ours, ncu),
        (V::LatencyBound, N::Latency)
            | (V::ComputeBound, N::Compute | N::High)
            | (V::MemoryBound, N::Memory | N::High)
            | (V::Balanced, N::Compute | N::Memory | N::High | N::Balanced)
    )
}

/// The pipe ncu's HighPipeUtilization names (`None`: "All compute pipelines are
/// under-utilized"), read by the one reader of its messages
/// ([`shared::analysis::ncu_verdict::pipe_in`]: "Shared" by the sub-pipe that dominates it).
fn ncu_pipe(text: &str) -> Option<Option<String>> {
    if text.starts_with("All compute pipelines are under-utilized") {
        return Some(None);
    }
    shared::analysis::ncu_verdict::pipe_in(text).map(|p| Some(p.to_string()))
}

fn rule<'a>(l: &'a LaunchCounters, name: &str) -> Option<&'a str> {
    l.rules
        .iter()
        .find(|r| r.name == name)
        .map(|r| r.description.as_str())
}

struct Agreement {
    sol: f64,
    pipe: f64,
    launches: usize,
    disagreements: Vec<String>,
}

/// A gzipped text fixture, un-gzipped.
fn gunzip(bytes: &[u8]) -> String {
    String::from_utf8(crate::support::unpack(bytes)).expect("UTF-8 text")
}

fn agreement(raw: &str, details: &str) -> Agreement {
    let exports = [raw, details]
        .into_iter()
        .map(|t| shared::read::ncu::read_export(t.as_bytes()).expect("reads"))
        .collect();
    let (launches, _) = shared::read::ncu::combine(exports);
    let (mut total, mut sol_ok, mut pipe_ok, mut pipe_total) = (0.0, 0.0, 0.0, 0.0);
    let mut disagreements = Vec::new();
    for l in &launches {
        let one = std::slice::from_ref(l);
        let t = metrics::totals(one);
        let w = metrics::duration_ns(l).expect("a duration");
        let v = bound::verdict(&t.sol, one).expect("a verdict");
        let ncu_text = rule(l, "SOLBottleneck").expect("SOLBottleneck fired");
        let ncu = ncu_sol(ncu_text).expect("a known SOLBottleneck text");
        total += w;
        if sol_agrees(v.kind, ncu) {
            sol_ok += w;
        } else {
            disagreements.push(format!(
                "SOL launch {} {}: ours {} ({}); ncu: {}",
                l.id,
                l.function,
                v.kind.as_str(),
                v.reason,
                ncu_text
            ));
        }
        // capture profile's sections do not include ComputeWorkloadAnalysis, whose rule
        // this is: those exports are compared on the verdict only.
        let Some(pipe_text) = rule(l, "HighPipeUtilization") else {
            continue;
        };
        pipe_total += w;
        let theirs = ncu_pipe(pipe_text).expect("a known HighPipeUtilization text");
        let ours = bound::busiest_pipe(one);
        let unit = v.bound_by.as_ref().map(|b| b.unit.as_str());
        let is_pipe = |u: &str| bound::PIPES.iter().any(|p| p.key == u);
        let agrees = match &theirs {
            // No pipe bounds it: ours must not name a pipe as the bound.
            None => !unit.is_some_and(is_pipe),
            Some(name) => ours.as_ref().is_some_and(|b| &b.unit == name),
        };
        if agrees {
            pipe_ok += w;
        } else {
            disagreements.push(format!(
                "pipe launch {} {}: ours bound by {:?}, busiest {:?}; ncu: {}",
                l.id, l.function, v.bound_by, ours, pipe_text
            ));
        }
    }
    Agreement {
        sol: sol_ok / total,
        pipe: pipe_ok / pipe_total,
        launches: launches.len(),
        disagreements,
    }
}

#[test]
fn bert_forward_agrees_with_ncus_rules() {
    let a = agreement(
        include_str!("../../../tests/fixtures/ncu-h200-bert/bert_full_raw.csv"),
        &gunzip(include_bytes!(
            "../../../tests/fixtures/ncu-h200-bert/bert_full_details.csv.gz"
        )),
    );
    println!(
        "BERT bf16 forward, {} launches: verdict agrees with SOLBottleneck on {:.1}% of the time, unit with HighPipeUtilization on {:.1}%",
        a.launches,
        100.0 * a.sol,
        100.0 * a.pipe
    );
    for d in &a.disagreements {
        println!("  {d}");
    }
    assert_eq!(a.launches, 43);
    assert!(a.sol >= 0.9, "{}", a.sol);
    assert!(a.pipe >= 0.9, "{}", a.pipe);
}

#[test]
fn cublas_gemms_agree_with_ncus_rules() {
    let a = agreement(
        include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv"),
        include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_details.csv"),
    );
    println!(
        "six cuBLAS GEMMs, {} launches: verdict agrees with SOLBottleneck on {:.1}% of the time, unit with HighPipeUtilization on {:.1}%",
        a.launches,
        100.0 * a.sol,
        100.0 * a.pipe
    );
    for d in &a.disagreements {
        println!("  {d}");
    }
    assert_eq!(a.launches, 6);
    assert!(a.sol >= 0.9, "{}", a.sol);
    assert!(a.pipe >= 0.9, "{}", a.pipe);
}

#[test]
fn bert_training_step_from_capture_profile_agrees_with_solbottleneck() {
    // A 4-layer BERT bf16 training step under `capture profile` (its metric list before
    // the pipe counters were added): the verdict alone, against the SOLBottleneck rule of
    // the same export's details page.
    let a = agreement(
        &gunzip(include_bytes!(
            "../../../tests/fixtures/ncu-h200-train/train_all-ncu-cold-raw.csv.gz"
        )),
        &gunzip(include_bytes!(
            "../../../tests/fixtures/ncu-h200-train/train_all-ncu-cold-details.csv.gz"
        )),
    );
    println!(
        "BERT bf16 training step (capture profile), {} launches: verdict agrees with SOLBottleneck on {:.1}% of the time",
        a.launches,
        100.0 * a.sol
    );
    for d in &a.disagreements {
        println!("  {d}");
    }
    assert!(a.sol >= 0.9, "{}", a.sol);
}
