//! The sampling planner on a real recorded run (tests/fixtures/ncu-h200-train: a 4-layer
//! BERT bf16 training step on the H200): the plan made from its timing pass covers the
//! time, and the counters of the launches it picks, taken from the profile of every launch
//! of the same step and scaled by the planner, give the full profile's totals within 3 %,
//! every kernel above 1 % of the time within 10 % on DRAM bytes and FLOPs, and the same
//! ranking by time. Run with `--nocapture` to see the figures (README quotes them).

#![allow(
    clippy::expect_used,
    clippy::panic,
    reason = "an integration test reports a failure by panicking; clippy.toml's allow-*-in-tests covers only #[test] functions, not their helpers"
)]

use std::io::Read;

use shared::analysis::sampling::check::{self, relative};
use shared::analysis::sampling::plan::{self, PlanOptions};
use shared::analysis::sampling::{scale, timing, Depth, SECONDS_PER_PASS};
use shared::model::artifact::LaunchCounters;

const TIMING: &[u8] = include_bytes!("../../tests/fixtures/ncu-h200-train/timing_raw.csv.gz");
const FULL: &[u8] =
    include_bytes!("../../tests/fixtures/ncu-h200-train/train_all-ncu-cold-raw.csv.gz");

/// The recorded walls (tests/fixtures/ncu-h200-train/*.log).
const PLAIN_S: f64 = 15.2745;
const TIMING_S: f64 = 21.392;
const ALL_LAUNCHES_S: f64 = 127.003;

fn launches(gz: &[u8]) -> Vec<LaunchCounters> {
    let mut text = Vec::new();
    flate2::read::GzDecoder::new(gz)
        .read_to_end(&mut text)
        .expect("fixture gunzips");
    shared::read::exports::read(&text)
        .expect("fixture reads")
        .launches
}

#[test]
#[expect(
    clippy::too_many_lines,
    reason = "one scenario over the recorded training step, its checks in the order the figures are made"
)]
fn sampled_training_step_matches_the_profile_of_every_launch() {
    let timed = timing::timed_launches(&launches(TIMING)).expect("a timing pass");
    assert_eq!(timed.len(), 172);
    let plan = plan::plan(timed, &PlanOptions::default());
    let full = launches(FULL);
    assert_eq!(full.len(), 172);

    // The plan covers the time: every group has a measured launch.
    assert!(plan.groups.iter().all(|g| !g.measured.is_empty()));
    assert_eq!(plan.time_covered(), 1.0);
    let grouped: usize = plan.groups.iter().map(|g| g.launches.len()).sum();
    assert_eq!(grouped, 172, "every launch in one group");

    // The profiling pass's rows: the full profile's rows of the selected launches (same
    // IDs: the same step under the same NVTX filter), in launch order.
    let rows: Vec<LaunchCounters> = plan
        .selected
        .iter()
        .map(|&i| {
            let id = plan.launches[i].id;
            full.iter()
                .find(|l| l.id == id)
                .cloned()
                .expect("the full profile has every launch")
        })
        .collect();
    let (assigned, warnings) = scale::assign(&plan, rows);
    assert!(warnings.is_empty(), "{warnings:?}");
    let expanded = scale::expand(&plan, assigned);
    assert_eq!(expanded.launches.len(), 172);
    assert_eq!(expanded.left_out, 0);
    assert_eq!(expanded.measured, plan.selected.len());

    let cmp = check::compare(&expanded.launches, &full);
    let passes = Depth::Standard.passes().assumed;
    let predicted = plan.predicted_seconds(passes, SECONDS_PER_PASS);
    let all_overhead = ALL_LAUNCHES_S - PLAIN_S;
    println!(
        "plan: {} launches, {} groups ({} major), {} measured (invocations {:?})",
        plan.launches.len(),
        plan.groups.len(),
        plan.groups.iter().filter(|g| g.major).count(),
        plan.selected.len(),
        plan.invocations
    );
    println!(
        "predicted profiling pass: {passes} passes x {} launches x {SECONDS_PER_PASS:.4} s = \
         {predicted:.1} s, against --all-launches' {all_overhead:.1} s ({ALL_LAUNCHES_S} - \
         {PLAIN_S}): {:.2}",
        plan.selected.len(),
        predicted / all_overhead
    );
    let whole = (TIMING_S - PLAIN_S) + PLAIN_S + predicted;
    println!(
        "predicted whole overhead (timing pass {:.1} s + the program again {PLAIN_S} s + \
         replays): {whole:.1} s, {:.2} of --all-launches'",
        TIMING_S - PLAIN_S,
        whole / all_overhead
    );
    let mut worst = 0.0f64;
    let mut row = |name: &str, s: f64, f: f64| {
        let r = relative(s, f);
        worst = worst.max(r);
        println!(
            "{name:>22}: sampled {s:.4e}, full {f:.4e}, {:+.2} %",
            100.0 * (s - f) / f
        );
        assert!(r <= 0.03, "{name}: {s} against {f}");
    };
    row("DRAM bytes", cmp.sampled.dram_bytes, cmp.full.dram_bytes);
    row("L2 bytes", cmp.sampled.l2_bytes, cmp.full.l2_bytes);
    row("FLOPs", cmp.sampled.flops, cmp.full.flops);
    row(
        "tensor FLOPs",
        cmp.sampled.tensor_flops,
        cmp.full.tensor_flops,
    );
    for (kind, f) in &cmp.full.work {
        let s = cmp.sampled.work.get(kind).copied().unwrap_or(0.0);
        if *f > 0.0 || s > 0.0 {
            row(kind.label(), s, *f);
        }
    }
    for k in &cmp.kernels {
        let (ds, df) = (k.sampled.dram_bytes, k.full.dram_bytes);
        let (fs, ff) = (k.sampled.flops, k.full.flops);
        println!(
            "{:5.1} % {:+7.2} % DRAM {:+7.2} % FLOPs  {}",
            100.0 * k.share,
            100.0 * (ds - df) / df.max(1.0),
            100.0 * (fs - ff) / ff.max(1.0),
            shared::text::names::shorten_kernel_name(&k.function, 70)
        );
        if k.share > 0.01 {
            assert!(
                relative(ds, df) <= 0.10,
                "{} DRAM {ds} against {df}",
                k.function
            );
            assert!(
                relative(fs, ff) <= 0.10,
                "{} FLOPs {fs} against {ff}",
                k.function
            );
        }
    }
    // Times come from the timing pass, never from sampling: the sampled profile ranks the
    // kernels exactly as the timing pass does.
    let timing_only: Vec<LaunchCounters> = launches(TIMING);
    let by_timing = check::compare(&timing_only, &timing_only);
    assert_eq!(cmp.ranking_sampled, by_timing.ranking_sampled);
    println!("time ranking identical to the timing pass's: true");
    // The profile of every launch is another run, caches flushed: kernels whose times are
    // close there may swap places. Each swap is named, with both times.
    let swaps = check::rank_swaps(&cmp);
    println!(
        "time ranking identical to the full profile's: {} ({} kernel(s) in another place)",
        cmp.ranking_same(),
        swaps.len()
    );
    for (k, s, f) in &swaps {
        println!(
            "  {}: sampled {s:.0} ns, full {f:.0} ns",
            shared::text::names::shorten_kernel_name(k, 70)
        );
    }
}
