//! NVTX ranges of real exports (ncu `--nvtx`): each launch's push/pop stack and start/end
//! ranges read from raw and details pages, held once per distinct context, and kept
//! through the artifact's JSON.

use std::sync::Arc;

use shared::analysis::metrics;
use shared::analysis::ranges::{range_table, RangeTable, NO_RANGE};
use shared::model::artifact::{NvtxRanges, Provenance};
use shared::Artifact;

use crate::support::{import, unpack};

const TRAIN_STEP: &[u8] =
    include_bytes!("../../../tests/fixtures/corpus-h200/train_step_full_raw.csv.gz");
const JAX_MLP: &[u8] =
    include_bytes!("../../../tests/fixtures/corpus-h200/jax_mlp_full_raw.csv.gz");
const TRAIN_RAW: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-train/train_all-ncu-cold-raw.csv.gz");
const PROBE: &str = include_str!("../../../tests/fixtures/ncu-h200/probe_full_raw.csv");
const TRAIN_DETAILS: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-train/train_all-ncu-cold-details.csv.gz");

fn imported(gz: &[u8]) -> Artifact {
    import(&String::from_utf8(unpack(gz)).expect("UTF-8"))
}

/// Every launch's NVTX context, in kernel then launch order.
fn contexts(a: &Artifact) -> Vec<Option<Arc<NvtxRanges>>> {
    a.kernels
        .iter()
        .flat_map(|k| k.cold.iter().flat_map(|s| &s.launches))
        .map(|l| l.site.nvtx.clone())
        .collect()
}

#[test]
fn start_end_range_of_the_corpus_training_step() {
    let a = imported(TRAIN_STEP);
    let all = contexts(&a);
    assert_eq!(all.len(), 58);
    for c in &all {
        let c = c.as_deref().expect("every launch is under measure");
        assert_eq!(c.thread, None);
        assert!(c.push_pop.is_empty());
        assert_eq!(c.start_end.len(), 1);
        assert_eq!(c.start_end[0].id, Some(0));
        assert_eq!(c.start_end[0].domain, None);
        assert_eq!(c.start_end[0].name, "measure");
    }
    // The NVTX columns are identity, not metrics.
    let l = &a.kernels[0].cold.as_ref().expect("counters").launches[0];
    assert!(l
        .metrics
        .iter()
        .all(|(name, _)| !name.contains("Push/Pop") && !name.contains("Start/Stop")));
}

#[test]
fn push_pop_stacks_with_a_domain_and_one_copy_each() {
    let a = imported(JAX_MLP);
    let all = contexts(&a);
    assert_eq!(all.len(), 4);
    for c in &all {
        let c = c.as_deref().expect("in ranges");
        assert_eq!(c.thread, Some(6462));
        assert_eq!(c.push_pop.len(), 2);
        assert_eq!(c.push_pop[0].domain.as_deref(), Some("TSL"));
        assert_eq!(
            c.push_pop[0].name,
            "XlaModule:#hlo_module=jit_mlp,program_id=6632#"
        );
        assert!(
            c.push_pop[1].name.starts_with("Thunk:#"),
            "{}",
            c.push_pop[1].name
        );
        assert_eq!(c.start_end[0].name, "measure");
    }
    // The training step: 172 launches of one context share one copy.
    let train = imported(TRAIN_RAW);
    let all = contexts(&train);
    assert_eq!(all.len(), 172);
    let first = all[0].clone().expect("in step");
    assert_eq!(first.thread, Some(6020));
    assert_eq!(first.push_pop[0].name, "step");
    let per_kernel_first: Vec<_> = train
        .kernels
        .iter()
        .filter_map(|k| k.cold.as_ref()?.launches.first()?.site.nvtx.clone())
        .collect();
    for k in &train.kernels {
        let set = k.cold.as_ref().expect("counters");
        let one = set.launches[0].site.nvtx.as_ref().expect("in step");
        assert!(set.launches.iter().all(|l| l
            .site
            .nvtx
            .as_ref()
            .is_some_and(|n| Arc::ptr_eq(n, one))));
    }
    assert!(per_kernel_first.iter().all(|n| Arc::ptr_eq(n, &first)));
}

#[test]
fn details_pages_carry_the_ranges_too() {
    let a = imported(TRAIN_DETAILS);
    let all = contexts(&a);
    assert_eq!(all.len(), 172);
    assert!(all
        .iter()
        .all(|c| c.as_deref().is_some_and(|c| c.push_pop[0].name == "step")));
}

#[test]
fn ranges_round_trip_through_json_once_per_counter_set() {
    for gz in [TRAIN_STEP, JAX_MLP, TRAIN_RAW] {
        let a = imported(gz);
        let json = a.to_json();
        let back = Artifact::from_json(&json).expect("reads back");
        assert_eq!(contexts(&back), contexts(&a));
        let value: serde_json::Value = serde_json::from_str(&json).expect("JSON");
        // The derived serializers write the same document.
        let derived = serde_json::to_value(&a).expect("serializes");
        assert_eq!(derived, value);
        for k in value["kernels"].as_array().expect("kernels") {
            let set = &k["cold"];
            let table = set["nvtx_ranges"].as_array().expect("a table");
            let launches = set["launches"].as_array().expect("launches");
            // The step's launches are each in one context: one entry, launches index it.
            assert_eq!(table.len(), if gz == JAX_MLP { launches.len() } else { 1 });
            assert!(launches.iter().all(|l| l["nvtx"].as_u64().is_some()));
        }
    }
}

#[test]
fn a_launch_naming_a_missing_context_is_refused() {
    let a = imported(TRAIN_STEP);
    let json = a.to_json().replacen("\"nvtx\": 0", "\"nvtx\": 9", 1);
    let err = Artifact::from_json(&json).expect_err("index 9 of a table of one");
    assert!(err.to_string().contains("nvtx 9"), "{err}");
}

/// Every launch's time in `a`, ms, summed kernel by kernel (not by the range table).
fn total_ms(a: &Artifact) -> f64 {
    a.kernels
        .iter()
        .flat_map(metrics::reference_launches)
        .map(|l| metrics::duration_ns(l).unwrap_or(0.0))
        .sum::<f64>()
        / 1e6
}

/// The checks every range table must pass: each launch in one node, the nodes' times
/// adding up to the total and their shares to 1, each node's verdict mix summing to 1.
fn assert_whole(t: &RangeTable, a: &Artifact) {
    let launches: usize = contexts(a).len();
    assert_eq!(t.launches, launches);
    assert_eq!(t.nodes.iter().map(|n| n.launches).sum::<usize>(), launches);
    let total = total_ms(a);
    let summed: f64 = t.nodes.iter().map(|n| n.time_ms).sum();
    assert!(
        (summed - total).abs() <= 1e-9 * total,
        "{summed} vs {total}"
    );
    assert!((t.time_ms - total).abs() <= 1e-9 * total);
    let shares: f64 = t.nodes.iter().filter_map(|n| n.time_share).sum();
    assert!((shares - 1.0).abs() < 1e-9, "{shares}");
    for n in &t.nodes {
        let mix: f64 = n.verdicts.values().sum();
        assert!((mix - 1.0).abs() < 1e-9, "{}: {mix}", n.name);
    }
}

#[test]
fn every_launch_of_the_corpus_training_step_is_under_measure() {
    let a = imported(TRAIN_STEP);
    let t = range_table(&a, None);
    assert_whole(&t, &a);
    assert_eq!(t.nodes.len(), 1);
    let n = &t.nodes[0];
    assert_eq!(n.name, "measure");
    assert_eq!(n.launches, 58);
    assert!(n.threads.is_empty(), "a start/end range names no thread");
    // Its roofline point is its FLOPs over its DRAM bytes at its time.
    let dram = n.dram_bytes.expect("DRAM bytes");
    let close = |a: Option<f64>, b: f64| a.is_some_and(|a| (a - b).abs() <= 1e-12 * b);
    assert!(close(n.flop_per_byte, n.flops_total / dram));
    assert!(close(n.gflops, n.flops_total / (n.time_ms * 1e6)));
    assert!(n.flops_by_kind["tensor_bf16"] > 0.0);
}

#[test]
fn the_training_steps_push_pop_range_names_its_thread() {
    // The recorded training steps (4-layer and 12-layer BERT), each under a push/pop
    // `step` range: (export, its launches, the thread that pushed the range).
    let steps: [(&[u8], usize, u64); 3] = [
        (TRAIN_RAW, 172, 6020),
        (
            include_bytes!("../../../tests/fixtures/ncu-h200-train/train_all-ncu-cold-raw.csv.gz"),
            172,
            6020,
        ),
        (
            include_bytes!("../../../tests/fixtures/ncu-h200-train/base12/all-ncu-cold-raw.csv.gz"),
            444,
            628,
        ),
    ];
    for (gz, launches, thread) in steps {
        let a = imported(gz);
        let t = range_table(&a, None);
        assert_whole(&t, &a);
        assert_eq!(t.nodes.len(), 1);
        assert_eq!(t.nodes[0].name, "step");
        assert_eq!(t.nodes[0].threads, [thread]);
        assert_eq!(t.nodes[0].launches, launches);
    }
}

#[test]
fn nested_ranges_by_depth() {
    let a = imported(JAX_MLP);
    let full = range_table(&a, None);
    assert_whole(&full, &a);
    assert_eq!(full.nodes.len(), 4);
    assert!(full.nodes.iter().all(|n| n.depth == 3
        && n.path[0] == "measure"
        && n.path[1] == "TSL:XlaModule:#hlo_module=jit_mlp,program_id=6632#"));
    let cut = range_table(&a, Some(2));
    assert_whole(&cut, &a);
    assert_eq!(cut.nodes.len(), 1);
    assert_eq!(cut.nodes[0].launches, 4);
    let flops: f64 = full.nodes.iter().map(|n| n.flops_total).sum();
    assert!((cut.nodes[0].flops_total - flops).abs() <= 1e-9 * flops);
    // CSV quotes the path's comma; the cell reads back whole.
    let csv = cut.to_csv();
    let mut rows = csv::Reader::from_reader(csv.as_bytes());
    let row = rows.records().next().expect("a row").expect("reads");
    assert_eq!(&row[0], cut.nodes[0].name);
    assert!(cut.nodes[0].name.contains(','));
    // The text form shows the ancestors without launches of their own as rows.
    let text = full.to_text();
    assert!(
        text.lines().nth(1).is_some_and(|l| l.trim() == "measure"),
        "{text}"
    );
}

#[test]
fn launches_in_no_range_are_their_own_node() {
    // The training step under `measure` and the probe exported without `--nvtx`.
    let step = shared::read::ncu::read_export(&unpack(TRAIN_STEP)[..]).expect("reads");
    let probe = shared::read::ncu::read_export(PROBE.as_bytes()).expect("reads");
    let (launches, warnings) = shared::read::ncu::combine(vec![step, probe]);
    let a = shared::analysis::merge::import_launches(launches, warnings, Provenance::default());
    let t = range_table(&a, None);
    assert_whole(&t, &a);
    let names: Vec<&str> = t.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, [NO_RANGE, "measure"]);
    assert_eq!(t.nodes[1].launches, 58);
    assert!(t.nodes[0].launches > 0);
    let csv = t.to_csv();
    assert_eq!(csv.lines().count(), 3, "{csv}");
    assert!(t.to_markdown().contains("| (no range) |"));
}

#[test]
fn a_reports_push_pop_stacks_are_its_csv_pages() {
    // BERT's forward pass under the push/pop range `forward`, thread 3736: the report and
    // its own raw page.
    let report = unpack(include_bytes!(
        "../../../tests/fixtures/ncu-h200-bert/bert_full.ncu-repz"
    ));
    let csv = include_str!("../../../tests/fixtures/ncu-h200-bert/bert_full_raw.csv");
    let from_report = shared::read::ncu_rep::read_export(&report).expect("report reads");
    let from_csv = shared::read::ncu::read_export(csv.as_bytes()).expect("CSV reads");
    assert_eq!(from_report.launches.len(), 43);
    assert_eq!(from_report.launches.len(), from_csv.launches.len());
    for (r, c) in from_report.launches.iter().zip(&from_csv.launches) {
        assert_eq!(r.id, c.id);
        assert_eq!(r.site.nvtx, c.site.nvtx, "launch {}", r.id);
        let n = r.site.nvtx.as_deref().expect("in forward");
        assert_eq!(n.thread, Some(3736));
        assert_eq!(n.push_pop.len(), 1);
        assert_eq!(n.push_pop[0].name, "forward");
        assert_eq!(n.push_pop[0].domain, None);
    }
}

#[test]
fn a_raw_page_joined_with_its_details_page_keeps_the_ranges() {
    let raw = include_str!("../../../tests/fixtures/ncu-h200-bert/bert_full_raw.csv");
    let details = crate::support::unpack(include_bytes!(
        "../../../tests/fixtures/ncu-h200-bert/bert_full_details.csv.gz"
    ));
    let raw = shared::read::ncu::read_export(raw.as_bytes()).expect("reads");
    let details = shared::read::ncu::read_export(details.as_slice()).expect("reads");
    let (launches, _) = shared::read::ncu::combine(vec![raw, details]);
    assert_eq!(launches.len(), 43);
    assert!(launches.iter().all(|l| l
        .site
        .nvtx
        .as_deref()
        .is_some_and(|n| n.thread == Some(3736) && n.push_pop[0].name == "forward")));
}

/// A node of the range tree narrows the artifact to its launches and those below it: on
/// the JAX MLP (XLA's start/end module range and push/pop thunk ranges) cut at depths 1 to
/// 3, and the probe (no range: one node, `(no range)`), each node's launches and time are
/// those of the artifact narrowed to its path, and the nodes together are every launch.
#[test]
fn a_range_narrows_the_artifact_to_its_launches() {
    use shared::analysis::ranges::within;
    let jax = imported(JAX_MLP);
    let probe = import(PROBE);
    assert_eq!(range_table(&jax, Some(3)).nodes.len(), 4);
    for (a, depth, what) in [
        (&jax, 1, "jax"),
        (&jax, 2, "jax"),
        (&jax, 3, "jax"),
        (&probe, 1, "probe"),
    ] {
        let table = range_table(a, Some(depth));
        let mut launches = 0;
        for node in &table.nodes {
            let path = if node.path.is_empty() {
                vec![NO_RANGE.to_owned()]
            } else {
                node.path.clone()
            };
            let narrowed = within(a, &path);
            let below = range_table(&narrowed, None);
            // Launches below the node at full depth; at the cut they are all the node's.
            assert_eq!(below.launches, node.launches, "{what}: {}", node.name);
            assert!(
                (below.time_ms - node.time_ms).abs() <= 1e-9 * node.time_ms.max(1.0),
                "{what}: {}: {} ms against {} ms",
                node.name,
                below.time_ms,
                node.time_ms
            );
            assert!(narrowed
                .kernels
                .iter()
                .all(|k| !metrics::reference_launches(k).is_empty()));
            launches += node.launches;
        }
        assert_eq!(launches, table.launches, "{what}");
        assert_eq!(&within(a, &[]), a);
    }
}

/// The range tree holds every prefix once, parents first, each the sum of the nodes below
/// it: on the JAX MLP its root (`measure`) is every launch and all the time, and a node's
/// own row in the tree equals its row in the table.
#[test]
fn the_range_tree_sums_each_prefix() {
    let jax = imported(JAX_MLP);
    let table = range_table(&jax, None);
    let tree = table.tree();
    let root = tree.first().expect("a root");
    assert_eq!(root.path, ["measure"]);
    assert_eq!(root.launches, table.launches);
    assert!((root.time_ms - table.time_ms).abs() <= 1e-9 * table.time_ms);
    for n in &table.nodes {
        let row = tree
            .iter()
            .find(|r| r.path == n.path)
            .expect("each node in the tree");
        assert_eq!(row.launches, n.launches);
        assert!((row.time_ms - n.time_ms).abs() <= 1e-12 * n.time_ms.max(1.0));
        assert_eq!(row.flop_per_byte.is_some(), n.flop_per_byte.is_some());
    }
    for (i, row) in tree.iter().enumerate() {
        let parent = row.path.get(..row.path.len().saturating_sub(1));
        if row.depth > 1 {
            let at = tree.iter().position(|r| Some(r.path.as_slice()) == parent);
            assert!(at.is_some_and(|p| p < i), "{} before its parent", row.name);
        }
    }
    let mut paths: Vec<&Vec<String>> = tree.iter().map(|r| &r.path).collect();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), tree.len());
}
