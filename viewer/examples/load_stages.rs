//! Benchmark (not a test): where the viewer's time goes when it loads files, natively (the
//! same code the tab runs as WebAssembly, on one thread): un-compressing a `.ncu-repz`
//! report ([`viewer::state::load::unzstd`]), reading each file's launches in steps of the
//! tab's size, importing them, working out the figures the pages show, and
//! the NVTX range tree the time page shows.
//!
//!     cargo run --release -p viewer --example load_stages -- FILE...

use std::time::Instant;

use shared::analysis::ranges::range_table;
use shared::read::kind::{kind_of, FileKind};
use viewer::state::load::{unzstd, InputFile, Loading};
use viewer::state::model::Workspace;

/// Rows per step, as the tab reads them (`ctx.rs`).
const STEP_ROWS: usize = 16;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let paths: Vec<String> = std::env::args().skip(1).collect();
    if paths.is_empty() {
        return Err("usage: load_stages FILE...".into());
    }
    let started = Instant::now();
    let mut files = Vec::new();
    for path in &paths {
        let bytes = std::fs::read(path).map_err(|e| format!("{path}: {e}"))?;
        files.push(InputFile {
            name: path.clone(),
            bytes,
        });
    }
    let read = started.elapsed();
    let mut zstd_bytes = 0u64;
    for file in &mut files {
        if kind_of(&file.bytes) == FileKind::Zstd {
            zstd_bytes += file.bytes.len() as u64;
            file.bytes = unzstd(&file.name, &file.bytes).map_err(|e| e.to_string())?;
        }
    }
    let unpacked = started.elapsed();
    if zstd_bytes > 0 {
        let out: usize = files.iter().map(|f| f.bytes.len()).sum();
        println!(
            "un-zstd: {zstd_bytes} bytes into {out} in {:.3} s ({:.0} MB/s out)",
            (unpacked - read).as_secs_f64(),
            out as f64 / 1e6 / (unpacked - read).as_secs_f64()
        );
    }
    let mut loading = Loading::new(files);
    let mut steps = 0u64;
    while loading.step(STEP_ROWS) {
        steps += 1;
    }
    let rows = started.elapsed();
    let (runs, errors) = loading.finish();
    let imported = started.elapsed();
    for e in &errors {
        eprintln!("{e}");
    }
    let kernels: usize = runs.iter().map(|r| r.artifact.kernels.len()).sum();
    let mut workspace = Workspace::default();
    workspace.add(runs);
    let figures = started.elapsed();
    let nodes: usize = workspace
        .runs
        .iter()
        .map(|r| range_table(&r.whole_run().run.artifact, None).tree().len())
        .sum();
    let ranges = started.elapsed();
    println!(
        "{kernels} kernels: files read {:.2} s, launches read {:.2} s ({steps} steps of \
         {STEP_ROWS} rows), imported {:.2} s, figures {:.2} s, range tree ({nodes} nodes) \
         {:.2} s; total {:.2} s",
        read.as_secs_f64(),
        (rows - unpacked).as_secs_f64(),
        (imported - rows).as_secs_f64(),
        (figures - imported).as_secs_f64(),
        (ranges - figures).as_secs_f64(),
        ranges.as_secs_f64()
    );
    Ok(())
}
