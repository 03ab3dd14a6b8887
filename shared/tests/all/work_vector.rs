//! The work vector (issue 37) on the real `--set full` exports: every counter it reads is in
//! each of them, by its exact name (the CUDA-core FLOP instructions as the rate `--set full`
//! carries, which `analysis::work` turns into a total); `--depth work` asks for every one;
//! and each kernel's vector is summed over its launches and per launch group, and written
//! into the artifact as `capture` writes it.

use shared::analysis::sampling::Depth;
use shared::analysis::work;
use shared::analysis::work_vector::{self, of_kernel};
use shared::model::artifact::WorkComponent;
use shared::model::work_kind::Work;

use crate::support::{import, unpack};

/// Every `--set full` raw page in `tests/fixtures`, by name.
fn full_set_exports() -> Vec<(&'static str, String)> {
    macro_rules! text {
        ($p:literal) => {
            String::from_utf8(include_bytes!(concat!("../../../tests/fixtures/", $p)).to_vec())
                .expect("utf-8")
        };
    }
    macro_rules! gz {
        ($p:literal) => {
            String::from_utf8(unpack(include_bytes!(concat!(
                "../../../tests/fixtures/",
                $p
            ))))
            .expect("utf-8")
        };
    }
    vec![
        (
            "corpus bert_base_fwd",
            gz!("corpus-h200/bert_base_fwd_full_raw.csv.gz"),
        ),
        (
            "corpus gemm_tf32_fp8",
            gz!("corpus-h200/gemm_tf32_fp8_full_raw.csv.gz"),
        ),
        ("corpus jax_mlp", gz!("corpus-h200/jax_mlp_full_raw.csv.gz")),
        (
            "corpus llama_block",
            gz!("corpus-h200/llama_block_full_raw.csv.gz"),
        ),
        (
            "corpus resnet18_stem",
            gz!("corpus-h200/resnet18_stem_full_raw.csv.gz"),
        ),
        (
            "corpus t5_encoder",
            gz!("corpus-h200/t5_encoder_full_raw.csv.gz"),
        ),
        (
            "corpus train_step",
            gz!("corpus-h200/train_step_full_raw.csv.gz"),
        ),
        ("corpus vit_b16", gz!("corpus-h200/vit_b16_full_raw.csv.gz")),
        ("probe", text!("ncu-h200/probe_full_raw.csv")),
        ("bert", text!("ncu-h200-bert/bert_full_raw.csv")),
        ("gemms", text!("ncu-h200-gemms/gemms_full_raw.csv")),
        ("suite", gz!("ncu-h200-suite-source/suite_raw.csv.gz")),
        ("resnet18", text!("ncu-h200-torch/resnet18_full_raw.csv")),
    ]
}

/// The metric names of a raw page's header line (the line naming `Kernel Name`).
fn header(text: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.contains("\"Kernel Name\""))
        .expect("a header line");
    line.trim_matches('"')
        .split("\",\"")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_full_set_export_has_every_counter_of_the_vector() {
    let cuda_core: Vec<&str> = [Work::Fp32, Work::Fp64, Work::Fp16]
        .into_iter()
        .flat_map(|k| work::cuda_core_counters(k).expect("a CUDA-core kind"))
        .map(|(c, _)| c.name)
        .collect();
    let beyond: Vec<&str> = work_vector::beyond_full_set()
        .iter()
        .map(|c| c.name)
        .collect();
    for (name, text) in full_set_exports() {
        let have = header(&text);
        for c in work_vector::counters() {
            if beyond.contains(&c.name) {
                assert!(
                    !have.iter().any(|h| h == c.name),
                    "{name}: has {}: it is not beyond --set full after all",
                    c.name
                );
                continue;
            }
            let rate = format!("{}.per_cycle_elapsed", c.name);
            let found = have.iter().any(|h| *h == c.name)
                || (cuda_core.contains(&c.name) && have.contains(&rate));
            assert!(found, "{name}: no {} in the --set full export", c.name);
        }
    }
}

#[test]
fn depth_work_asks_for_every_counter_of_the_vector_and_no_section_counter_twice() {
    let asked = Depth::Work.metrics();
    for c in work_vector::counters()
        .into_iter()
        .chain(work_vector::beyond_full_set().iter().copied())
    {
        assert!(
            asked.contains(&c),
            "--depth work does not ask for {}",
            c.name
        );
    }
    for (i, c) in asked.iter().enumerate() {
        assert!(!asked[..i].contains(c), "{} asked twice", c.name);
    }
    // Measured on the H200: the BERT step's profiling pass at --depth work, as capture
    // logged it (`bash tests/device/round11.sh passes`).
    let log = include_str!("../../../tests/fixtures/ncu-h200-train-whole/bert_train_work.log");
    let passes = Depth::Work.passes().measured.expect("measured");
    assert!(log.contains(&format!("({passes} passes)")), "{passes}");
    assert_eq!(passes, Depth::Roofline.passes().measured.expect("measured"));
}

#[test]
fn each_kernels_vector_is_summed_per_launch_group_and_written() {
    let text = String::from_utf8(unpack(include_bytes!(
        "../../../tests/fixtures/corpus-h200/bert_base_fwd_full_raw.csv.gz"
    )))
    .expect("utf-8");
    let imported = import(&text);
    assert!(
        imported.kernels.iter().all(|k| k.work.is_none()),
        "none held in memory"
    );
    let mut json = Vec::new();
    imported
        .write_json_computing(
            &mut json,
            None,
            &imported.varying_columns(),
            Box::new(of_kernel),
        )
        .expect("written");
    let a = shared::Artifact::from_json(&String::from_utf8(json).expect("utf-8")).expect("read");
    let mut grouped = 0;
    for (k, own) in a.kernels.iter().zip(&imported.kernels) {
        let work = k.work.as_deref().expect("the artifact carries the vector");
        assert_eq!(Some(work), of_kernel(own).as_ref(), "{}", k.name);
        let launches = k.cold.as_ref().map_or(0, |s| s.launches.len()) as u64;
        assert_eq!(work.total.launches, launches, "{}", k.name);
        // Every component is in a --set full export but the integer class.
        for c in WorkComponent::ALL {
            let has = work.total.counts.contains_key(&c);
            assert_eq!(
                has,
                c != WorkComponent::IntegerInstructions,
                "{}: {c:?}",
                k.name
            );
        }
        if !work.groups.is_empty() {
            grouped += 1;
            for c in WorkComponent::ALL {
                let summed: f64 = work
                    .groups
                    .iter()
                    .filter_map(|g| g.work.counts.get(&c))
                    .sum();
                let total = work.total.counts.get(&c).copied().unwrap_or(0.0);
                assert!(
                    (summed - total).abs() <= 1e-9 * total.max(1.0),
                    "{}: {c:?}",
                    k.name
                );
            }
            assert_eq!(
                work.groups.iter().map(|g| g.work.launches).sum::<u64>(),
                work.total.launches
            );
        }
    }
    assert!(grouped > 0, "BERT has kernels launched in several shapes");
    // The instructions of the first launch, as the export prints them (944).
    let first = a
        .kernels
        .first()
        .and_then(|k| k.work.as_deref())
        .expect("work");
    assert_eq!(
        first.total.counts.get(&WorkComponent::Instructions),
        Some(&944.0)
    );
    // FP32 FLOPs come from the per-cycle rate in --set full: marked derived.
    assert!(a
        .kernels
        .iter()
        .filter_map(|k| k.work.as_deref())
        .any(|w| w.total.derived.contains(&Work::Fp32)));
}

#[test]
fn a_report_gives_the_vector_its_raw_export_gives() {
    // The gemms report and its own `--page raw` export (tests/fixtures/ncu-h200-gemms): the
    // CSV prints integers in base units exactly, so the counted components agree exactly;
    // FLOPs worked from a printed rate agree to its printed digits.
    let report = unpack(include_bytes!(
        "../../../tests/fixtures/ncu-h200-gemms/gemms_full.ncu-repz"
    ));
    let from_report = shared::read::ncu_rep::read_export(&report).expect("report reads");
    let csv = include_str!("../../../tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
    let from_csv = shared::read::ncu::read_export(csv.as_bytes()).expect("CSV reads");
    assert_eq!(from_report.launches.len(), from_csv.launches.len());
    let mut compared = 0;
    for (r, c) in from_report.launches.iter().zip(&from_csv.launches) {
        let (r, c) = (
            work_vector::of_launches(std::slice::from_ref(r)).expect("a vector"),
            work_vector::of_launches(std::slice::from_ref(c)).expect("a vector"),
        );
        assert_eq!(r.total.counts, c.total.counts);
        assert_eq!(
            r.total.flops.keys().collect::<Vec<_>>(),
            c.total.flops.keys().collect::<Vec<_>>()
        );
        for (kind, x) in &r.total.flops {
            let y = c.total.flops[kind];
            assert!(
                (x - y).abs() <= 1e-3 * x.abs().max(1.0),
                "{kind:?}: {x} against {y}"
            );
        }
        compared += r.total.counts.len();
    }
    assert!(compared > 100, "{compared}");
}

#[test]
fn a_sampled_profile_counts_each_copy_as_its_measured_launch() {
    // The training step's sampled profile (tests/fixtures/corpus-h200): launches that were
    // not measured carry the counters of a measured launch of their group scaled by time;
    // the vector counts the measured launch's own, unscaled.
    let text = String::from_utf8(unpack(include_bytes!(
        "../../../tests/fixtures/corpus-h200/train_step_profile.json.gz"
    )))
    .expect("utf-8");
    let a = shared::Artifact::from_json(&text).expect("reads");
    let l2 = shared::model::counters::L2_SECTORS;
    let mut copies = 0;
    for k in &a.kernels {
        let launches = shared::analysis::metrics::reference_launches(k);
        let Some(w) = of_kernel(k) else { continue };
        let own = |id: u64| {
            let l = launches
                .iter()
                .find(|l| l.id == id)
                .expect("the measured launch");
            work::total(l, l2).expect("L2 sectors").0
        };
        let want: f64 = launches
            .iter()
            .map(|l| own(l.sampled_from.as_deref().copied().unwrap_or(l.id)))
            .sum();
        let n = launches.iter().filter(|l| l.sampled_from.is_some()).count() as u64;
        assert_eq!(w.total.copied_launches, n, "{}", k.name);
        assert_eq!(
            w.total.counts.get(&WorkComponent::L2Sectors),
            Some(&want),
            "{}",
            k.name
        );
        copies += n;
    }
    assert!(copies > 0, "the profile has copied launches");
}
