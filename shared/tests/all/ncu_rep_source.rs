//! The per-instruction figures of a real report (`shared::read::ncu_rep`, SourceCounters) against
//! the source page exported from the same report (`ncu --import R --csv --page source
//! --print-source sass`, read by `shared::read::source`): every launch, every instruction, every
//! figure both have. NVIDIA's own reader checks the report side in `tests/oracle/`.

use shared::read::ncu_rep;
use shared::read::source::{read_source_csv, LaunchSource};

use crate::support::unpack;

const BERT_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-bert/bert_full.ncu-repz");
const BERT_SOURCE: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-bert/bert_full_source.csv.gz");

#[test]
fn the_bert_reports_instructions_are_its_source_page() {
    let report = ncu_rep::read_report(&unpack(BERT_REPORT)).expect("report reads");
    let page = read_source_csv(&unpack(BERT_SOURCE)).expect("source page reads");
    let ours: Vec<LaunchSource> = report
        .results
        .iter()
        .map(|r| r.source().expect("--set full has source counters"))
        .collect();
    assert_eq!(ours.len(), 43);
    assert_eq!(page.len(), 43, "69 blocks, the repeated ones folded");
    let mut figures = 0;
    for (mut r, p) in ours.into_iter().zip(&page) {
        // Every instruction the page shows executed or sampled is in the report.
        let busy = |i: &&shared::read::source::Instruction| {
            i.inst_executed.unwrap_or(0.0) > 0.0 || i.samples.unwrap_or(0.0) > 0.0
        };
        for q in p.instructions.iter().filter(busy) {
            assert!(
                r.instructions.iter().any(|i| i.address == q.address),
                "launch {} {:#x}",
                r.launch,
                q.address
            );
        }
        assert!(r.instructions.len() <= p.instructions.len());
        assert_eq!(
            r.add_page_text(p),
            r.instructions.len(),
            "every address is on the page"
        );
        for i in &r.instructions {
            let q = p
                .instructions
                .iter()
                .find(|q| q.address == i.address)
                .expect("address on the page");
            // A report lists, per metric, only the addresses it has a value for; the page
            // prints 0 for the others.
            assert_eq!(
                i.inst_executed.unwrap_or(0.0),
                q.inst_executed.unwrap_or(0.0),
                "launch {} {:#x}",
                r.launch,
                i.address
            );
            // The report leaves out addresses with no samples; the page prints 0.
            assert_eq!(
                i.samples.unwrap_or(0.0),
                q.samples.unwrap_or(0.0),
                "launch {} {:#x}",
                r.launch,
                i.address
            );
            assert_eq!(
                i.l2_sectors_global_excessive.unwrap_or(0.0),
                q.l2_sectors_global_excessive.unwrap_or(0.0),
                "launch {} {:#x}",
                r.launch,
                i.address
            );
            // The page (ncu 2025.3.1) has no column for Hopper's warpgroup reasons.
            let mut stalls = i.stalls.clone();
            stalls.retain(|r, _| r != "warpgroup_arrive" && r != "gmma");
            assert_eq!(stalls, q.stalls, "launch {} {:#x}", r.launch, i.address);
            figures += 3 + q.stalls.len();
        }
        assert_eq!(r.inst_executed(), p.inst_executed(), "launch {}", r.launch);
    }
    assert!(figures > 50_000, "{figures}");
}

#[test]
fn the_gemm_hot_spot_is_a_tensor_core_instruction() {
    let page = read_source_csv(&unpack(BERT_SOURCE)).expect("source page reads");
    let gemm = page
        .iter()
        .find(|l| l.kernel.starts_with("nvjet"))
        .expect("a cuBLAS GEMM");
    let hot = gemm.hot_spots(5);
    assert!(!hot.is_empty());
    assert!(
        gemm.instructions
            .iter()
            .any(|i| i.sass.as_deref().is_some_and(|s| s.starts_with("HGMMA"))),
        "HGMMA in the SASS"
    );
}

const SUITE_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-suite-source/suite_full.ncu-repz");
const SUITE_CUDA_SASS: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-suite-source/suite_source_cuda_sass.csv.gz");
const SUITE_SASS: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-suite-source/suite_source_sass.csv.gz");

#[test]
fn the_report_line_table_is_the_cuda_sass_pages_lines() {
    let report = ncu_rep::read_report(&unpack(SUITE_REPORT)).expect("report reads");
    assert!(report
        .warnings
        .iter()
        .all(|w| !w.message.contains("line table")));
    let page = read_source_csv(&unpack(SUITE_CUDA_SASS)).expect("cuda,sass page reads");
    let sass = read_source_csv(&unpack(SUITE_SASS)).expect("sass page reads");
    assert_eq!((report.results.len(), page.len(), sass.len()), (6, 6, 6));
    let mut compared = 0;
    for (r, p) in report.results.iter().zip(&page) {
        let ours = r.source().expect("source counters");
        assert_eq!(p.kernel, r.names.function, "the page names the function");
        for i in &ours.instructions {
            let q = p
                .instructions
                .iter()
                .find(|q| q.address == i.address)
                .expect("every address on the page");
            assert_eq!((&i.file, i.line), (&q.file, q.line), "{:#x}", i.address);
            assert!(i.line.is_some(), "-lineinfo: every instruction has a line");
            compared += 1;
        }
        // The same figures as the sass page.
        assert_eq!(p.inst_executed(), sass[p.launch as usize].inst_executed());
    }
    assert_eq!(compared, 849);
}

#[test]
fn the_stride32_loads_read_32_sectors_per_request_on_their_line() {
    let report = ncu_rep::read_report(&unpack(SUITE_REPORT)).expect("report reads");
    let of = |name: &str| {
        report
            .results
            .iter()
            .find(|r| r.names.function == name)
            .and_then(|r| r.source())
            .expect("the kernel")
    };
    let mut strided = of("vector_add_stride32");
    let text = "extern \"C\" __global__ void k()\n{\n}\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n\n    c[i] = a[i] + b[i];\n";
    assert!(strided.add_cuda_text("/elsewhere/vector_add.cu", text) > 0);
    let lines = strided.by_line();
    let loads = lines
        .iter()
        .find(|l| l.sectors.is_some())
        .expect("a line with global accesses");
    assert_eq!(loads.place(), "vector_add.cu:23");
    assert_eq!(
        loads.text.as_deref().map(str::trim),
        Some("c[i] = a[i] + b[i];")
    );
    assert_eq!(loads.sectors_per_request(), Some(32.0));
    let coalesced = of("vector_add").by_line();
    let line = coalesced
        .iter()
        .find(|l| l.sectors.is_some())
        .expect("a line with global accesses");
    assert_eq!(line.sectors_per_request(), Some(4.0));
}

const SUITE_SRC_REPORT: &[u8] =
    include_bytes!("../../../tests/fixtures/ncu-h200-suite-source/suite_src.ncu-repz");

#[test]
fn a_report_with_its_sources_imported_gives_each_line_its_text() {
    let report = ncu_rep::read_report(&unpack(SUITE_SRC_REPORT)).expect("report reads");
    let strided = report
        .results
        .iter()
        .find(|r| r.names.function == "vector_add_stride32")
        .and_then(|r| r.source())
        .expect("the kernel");
    assert!(strided.instructions.iter().all(|i| i.cuda.is_some()));
    let lines = strided.by_line();
    let loads = lines
        .iter()
        .find(|l| l.sectors.is_some())
        .expect("a line with global accesses");
    assert_eq!(
        (loads.place().as_str(), loads.text.as_deref().map(str::trim)),
        ("vector_add.cu:23", Some("c[i] = a[i] + b[i];"))
    );
    assert_eq!(loads.sectors_per_request(), Some(32.0));
}

#[test]
fn streamed_source_pages_are_the_whole_reports_and_share_each_lines_text() {
    let bytes = unpack(SUITE_SRC_REPORT);
    let report = ncu_rep::read_report(&bytes).expect("report reads");
    let whole: Vec<LaunchSource> = report.results.iter().filter_map(|r| r.source()).collect();
    let mut streamed = Vec::new();
    // A reader, not the slice: the stream never needs the whole file.
    let warnings =
        ncu_rep::read_sources_from(std::io::Read::chain(&bytes[..7], &bytes[7..]), &mut |l| {
            streamed.push(l)
        })
        .expect("report streams");
    assert_eq!(streamed, whole);
    let mut want = report.warnings.clone();
    want.extend(report.source_warnings.clone());
    assert_eq!(warnings, want);
    // One copy of a line's text and of a file's path for all its instructions: copied per
    // instruction, a report whose file was one long line needed gigabytes (issue 39).
    let mut texts = 0;
    for launch in &streamed {
        for pair in launch.instructions.windows(2) {
            let [a, b] = pair else { continue };
            if let (Some(x), Some(y)) = (&a.file, &b.file) {
                assert!(x != y || std::sync::Arc::ptr_eq(x, y), "a path copied");
            }
            if let (Some(x), Some(y)) = (&a.cuda, &b.cuda) {
                if a.file == b.file && a.line == b.line {
                    assert!(std::sync::Arc::ptr_eq(x, y), "a line's text copied");
                    texts += 1;
                }
            }
        }
    }
    assert!(texts > 0, "no two instructions of one line with text");
}
