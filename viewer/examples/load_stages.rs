//! Benchmark (not a test): where the viewer's time goes when it loads files, natively (the
//! same code the tab runs as WebAssembly, on one thread): reading each file's launches in
//! steps of the tab's size, importing them, working out the figures the pages show, and
//! the NVTX range tree the time page shows.
//!
//!     cargo run --release -p viewer --example load_stages -- FILE...

use std::time::Instant;

use shared::analysis::ranges::range_table;
use viewer::state::load::{InputFile, Loading};
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
        (rows - read).as_secs_f64(),
        (imported - rows).as_secs_f64(),
        (figures - imported).as_secs_f64(),
        (ranges - figures).as_secs_f64(),
        ranges.as_secs_f64()
    );
    Ok(())
}
