//! Issue 25: near-linear time on the shapes that were quadratic. Each test builds an input
//! of size n and 2n here (no big file is committed), reads or renders both, and bounds the
//! ratio of the times: linear work gives about 2x, quadratic 4x; the bound, 3.5x, leaves
//! room for a loaded machine (the best of three runs is taken).
//!
//! Reports are built field by field as ncu 2025.3.1 writes them (see
//! `shared/src/read/ncu_rep/tests.rs`, whose builder this mirrors).
// The tests time themselves (shared's own code reads no clock).
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

use std::time::{Duration, Instant};

use shared::read::ncu_rep;

/// A protobuf message under construction.
#[derive(Clone, Default)]
struct Msg(Vec<u8>);

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

impl Msg {
    fn varint(mut self, field: u32, v: u64) -> Self {
        put_varint(&mut self.0, u64::from(field) << 3);
        put_varint(&mut self.0, v);
        self
    }
    fn bytes(mut self, field: u32, b: &[u8]) -> Self {
        put_varint(&mut self.0, (u64::from(field) << 3) | 2);
        put_varint(&mut self.0, b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
    fn msg(self, field: u32, m: Msg) -> Self {
        self.bytes(field, &m.0)
    }
}

/// A u32 size prefix and the bytes.
fn framed(b: &[u8]) -> Vec<u8> {
    let mut out = (b.len() as u32).to_le_bytes().to_vec();
    out.extend_from_slice(b);
    out
}

fn process(pid: u64) -> Msg {
    Msg::default()
        .varint(1, pid)
        .bytes(2, b"127.0.0.1")
        .bytes(3, b"/usr/bin/prog")
}

/// A block of `pid` with string table `strings` and `results` (no sources).
fn block(pid: u64, strings: &[String], results: &[Msg]) -> Vec<u8> {
    let table = strings
        .iter()
        .fold(Msg::default(), |m, s| m.bytes(1, s.as_bytes()));
    let payload: Vec<u8> = results.iter().flat_map(|r| framed(&r.0)).collect();
    let header = Msg::default()
        .varint(1, 0)
        .varint(2, results.len() as u64)
        .msg(4, table)
        .varint(5, payload.len() as u64)
        .msg(6, process(pid));
    let mut out = framed(&header.0);
    out.extend(payload);
    out
}

/// A result of `pid` for kernel `name` with one integer metric naming string `metric`.
fn result(pid: u64, name: &str, metric: u64) -> Msg {
    let dim = Msg::default().varint(1, 1).varint(2, 1).varint(3, 1);
    Msg::default()
        .varint(1, pid)
        .bytes(5, name.as_bytes())
        .bytes(6, name.as_bytes())
        .bytes(7, b"")
        .msg(10, dim.clone())
        .msg(11, dim)
        .msg(
            13,
            Msg::default()
                .varint(1, metric)
                .msg(2, Msg::default().varint(5, 1000)),
        )
        .varint(22, 1)
        .varint(23, 7)
}

/// The file header and a session block with a device and the command line.
fn start() -> Vec<u8> {
    let mut out = b"NVR\0".to_vec();
    out.extend(framed(&Msg::default().varint(1, 7).0));
    let device = Msg::default().varint(1, 0).bytes(2, b"NVIDIA H200");
    let session = Msg::default().msg(6, device).bytes(11, b"ncu -o r ./prog");
    let header = Msg::default()
        .varint(1, 0)
        .varint(2, 0)
        .msg(3, session)
        .varint(5, 0)
        .msg(6, process(1));
    out.extend(framed(&header.0));
    out
}

/// The best of three times of `f`.
fn best_of_three(mut f: impl FnMut()) -> Duration {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// Held while a test times itself (see [`assert_near_linear`]).
static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Asserts that `run(2n)` takes less than 3.5 times `run(n)`, and at most `budget` (about
/// ten times what it takes in a debug build on the 2-core machine: on the quadratic shapes
/// the time before the fix was over a hundred times that, with a ratio the load on a
/// shared machine could hide).
fn assert_near_linear(what: &str, n: usize, budget: Duration, run: impl Fn(usize)) {
    // One timing at a time: the tests of this file run on parallel threads, and one
    // test's work would otherwise land in another's doubled run.
    let _one_at_a_time = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let one = best_of_three(|| run(n));
    let two = best_of_three(|| run(2 * n));
    let ratio = two.as_secs_f64() / one.as_secs_f64().max(1e-6);
    eprintln!("{what}: n={n} {one:?}, 2n {two:?}, ratio {ratio:.2}");
    assert!(
        ratio < 3.5,
        "{what}: doubling the input took {ratio:.2}x ({one:?} -> {two:?})"
    );
    assert!(
        two < budget,
        "{what}: {two:?} for 2n={}, over {budget:?}",
        2 * n
    );
}

/// `n` blocks of one process, each extending the string table by a few names, then one
/// result: the table must grow in place, not be copied per block.
fn many_string_tables(n: usize) -> Vec<u8> {
    let mut out = start();
    for i in 0..n {
        let names: Vec<String> = (0..4).map(|j| format!("m{i}_{j}")).collect();
        out.extend(block(1, &names, &[]));
    }
    out.extend(block(1, &[], &[result(1, "k", 0)]));
    out
}

/// `n` blocks, each of its own process with a one-name table: the list of processes must
/// not be scanned per block.
fn many_processes(n: usize) -> Vec<u8> {
    let mut out = start();
    for i in 0..n {
        out.extend(block(i as u64 + 2, &[format!("m{i}")], &[]));
    }
    out.extend(block(2, &[], &[result(2, "k", 0)]));
    out
}

#[test]
fn many_small_string_tables_read_in_near_linear_time() {
    assert_near_linear("string tables", 10_000, Duration::from_secs(6), |n| {
        let bytes = many_string_tables(n);
        let report = ncu_rep::read_report(&bytes).expect("reads");
        assert_eq!(report.results.len(), 1);
    });
}

#[test]
fn many_processes_read_in_near_linear_time() {
    assert_near_linear("processes", 20_000, Duration::from_secs(10), |n| {
        let bytes = many_processes(n);
        let report = ncu_rep::read_report(&bytes).expect("reads");
        assert_eq!(report.session.processes.len(), n + 1);
    });
}

/// The raw page of the H200 probe with `n` launches of `n` distinct kernels (its `copy`
/// row repeated under new IDs and names).
fn many_kernels_csv(n: usize) -> String {
    let raw = include_str!("../../tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv");
    let lines: Vec<&str> = raw.lines().filter(|l| l.starts_with('"')).collect();
    let (head, copy) = (&lines[..2], lines[2]);
    let mut out = head.join("\n");
    for i in 0..n {
        out.push('\n');
        out.push_str(&copy.replacen("\"0\",", &format!("\"{i}\","), 1).replacen(
            ",\"copy\",",
            &format!(",\"kernel_{i}<float, {i}>\","),
            1,
        ));
    }
    out
}

#[test]
fn a_table_of_many_kernels_renders_in_near_linear_time() {
    assert_near_linear("table", 4_000, Duration::from_secs(20), |n| {
        let export = shared::read::ncu::read_export(many_kernels_csv(n).as_bytes()).expect("reads");
        let (launches, warnings) = shared::read::ncu::combine(vec![export]);
        let artifact = shared::analysis::merge::import_launches(
            launches,
            warnings,
            shared::model::artifact::Provenance::default(),
        );
        let table = shared::analysis::table::bytes_table(&artifact);
        assert_eq!(table.kernels.len(), n);
        assert!(table.to_text().lines().count() > n);
    });
}

#[test]
fn distinct_short_names_of_many_kernels_take_near_linear_time() {
    assert_near_linear("short names", 20_000, Duration::from_secs(3), |n| {
        let names: Vec<String> = (0..n).map(|i| format!("kernel_{i}<float, {i}>")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let short = shared::text::names::distinct_short_names(&refs);
        assert_eq!(short.len(), n);
    });
}

/// A timings artifact of `n` kernels and `n` launches of them as ncu names them (each
/// `kernel_i(float *, int)` with DRAM bytes), the last launch of a function the artifact
/// lacks: the merge must look the kernel up, not try every kernel per launch.
fn timings_and_launches(
    n: usize,
) -> (
    shared::model::artifact::Artifact,
    Vec<shared::model::artifact::LaunchCounters>,
) {
    use shared::model::artifact::{
        Artifact, KernelRecord, LaunchCounters, Metric, MetricValue, Provenance,
    };
    let mut artifact = Artifact::new(Provenance::default());
    artifact.kernels = (0..n)
        .map(|i| KernelRecord::new(format!("k{i}"), format!("kernel_{i}")))
        .collect();
    let mut launches: Vec<LaunchCounters> = (0..=n)
        .map(|i| {
            let mut l = LaunchCounters {
                id: i as u64,
                function: format!("kernel_{i}(float *, int)").into(),
                ..Default::default()
            };
            l.metrics.insert(
                shared::model::counters::DRAM_BYTES.name.into(),
                Metric {
                    unit: "byte".into(),
                    value: MetricValue::Number(1024.0),
                },
            );
            l
        })
        .collect();
    // Launches in reverse order, so the first kernel tried is never the one.
    launches.reverse();
    (artifact, launches)
}

#[test]
fn merging_counters_into_many_kernels_takes_near_linear_time() {
    assert_near_linear("merge", 20_000, Duration::from_secs(10), |n| {
        let (mut artifact, launches) = timings_and_launches(n);
        shared::analysis::merge::attach_counters(
            &mut artifact,
            launches,
            shared::model::artifact::CacheControl::Cold,
        )
        .expect("every kernel has a launch");
        assert!(artifact
            .kernels
            .iter()
            .all(|k| k.cold.as_ref().is_some_and(|c| c.launches.len() == 1)));
        assert!(artifact
            .warnings
            .iter()
            .any(|w| w.contains(&format!("kernel_{n}("))));
    });
}

/// Issue 39: `capture diff`'s kernel matching scanned the after run for each kernel of the
/// before run (100,000 against 100,000 kernels: 79.5 s). Here the after run holds the same
/// kernels in reverse order, the shape that made each lookup scan the most, and a tenth of
/// the kernels on each side have no partner, so that all three rules run.
#[test]
fn matching_many_kernels_takes_near_linear_time() {
    use shared::model::artifact::{Artifact, KernelRecord, Provenance};
    let run = |names: Vec<String>| {
        let mut a = Artifact::new(Provenance::default());
        a.kernels = names
            .into_iter()
            .map(|n| KernelRecord::new(n.as_str(), n.as_str()))
            .collect();
        a
    };
    assert_near_linear("diff matching", 20_000, Duration::from_secs(10), |n| {
        let before = run((0..n).map(|i| format!("kernel_{i}<float, {i}>")).collect());
        let after = run((0..n)
            .rev()
            .map(|i| {
                if i % 10 == 0 {
                    format!("other_{i}")
                } else {
                    format!("kernel_{i}<float, {i}>")
                }
            })
            .collect());
        let m = shared::analysis::diff::match_kernels(&before, &after);
        assert_eq!(m.pairs.len(), n - n / 10);
        assert_eq!(m.only_after.len(), n / 10);
    });
}

/// A `cuda,sass` source page of one launch of kernel `k` printed as `n` file blocks, each of
/// one CUDA line and two instructions: the shape ncu prints for a kernel compiled from many
/// files (issue 39: 80,000 file blocks, 12.8 MB, took 49 s).
fn many_file_blocks(n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        out.push_str(&format!(
            "\"File Path\",\"/src/f{i}.cu\"\n\"Function Name\",\"k\"\n\
             \"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\"\n\
             \"1\",\"x = y;\",\"-\",\"-\",\"2\"\n\
             \"\",\"\",\"{:#x}\",\"      IADD R1, R2, R3\",\"1\"\n\
             \"\",\"\",\"{:#x}\",\"      NOP\",\"1\"\n",
            0x1000 + 32 * i,
            0x1010 + 32 * i
        ));
    }
    out
}

#[test]
fn a_source_page_of_many_file_blocks_reads_in_near_linear_time() {
    assert_near_linear("source file blocks", 10_000, Duration::from_secs(10), |n| {
        let page = many_file_blocks(n);
        let launches = shared::read::source::read_source_csv(page.as_bytes()).expect("reads");
        assert_eq!(launches.len(), 1, "one launch, file by file");
        assert_eq!(launches[0].instructions.len(), 2 * n);
        assert!(launches[0]
            .instructions
            .windows(2)
            .all(|w| w[0].address < w[1].address));
    });
}

/// The `r14` shape of issue 39: `n` blocks of one process, each extending the string table
/// by a few names and carrying a result that names one of them. The results stay alive
/// while the table grows, so a table copied on each extension, or its converter's sort
/// redone per table, made the read quadratic (10,000 blocks: 6.7 s, 40,000 over 120 s).
fn growing_tables_with_results(n: usize) -> Vec<u8> {
    let mut out = start();
    for i in 0..n {
        let names: Vec<String> = (0..4).map(|j| format!("m{i}_{j}__sum")).collect();
        out.extend(block(
            1,
            &names,
            &[result(1, &format!("k{i}"), 4 * i as u64 + 1)],
        ));
    }
    out
}

#[test]
fn blocks_that_grow_the_string_table_and_carry_results_read_in_near_linear_time() {
    assert_near_linear("r14 string tables", 10_000, Duration::from_secs(15), |n| {
        let bytes = growing_tables_with_results(n);
        let report = ncu_rep::read_report(&bytes).expect("reads");
        assert_eq!(report.results.len(), n);
        let export = ncu_rep::read_export(&bytes).expect("imports");
        assert_eq!(export.launches.len(), n);
    });
}
