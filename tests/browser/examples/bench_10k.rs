//! Benchmark (not a test): opens a raw ncu export of 10,000 launches, built from the real
//! fixture rows, in headless Chromium through the file input, and reports the time from
//! file selection to the drawn roofline, as the page measures it (`performance.now()` at
//! the input's change event to the end of the canvas drawing).
//!
//!     bash site/build.sh
//!     cargo run --release -p roofline-browser-tests --example bench_10k [LAUNCHES] [KERNELS]
//!
//! KERNELS is how many distinct kernel names the launches cycle through (default 100).

use std::time::{Duration, Instant};

use fantoccini::Locator;
use roofline_browser_tests::{
    dist_dir, out_dir, synthetic_raw_export, workspace_root, BoxError, Browser, StaticServer,
};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), BoxError> {
    let mut args = std::env::args().skip(1);
    let launches: usize = args.next().map_or(Ok(10_000), |a| a.parse())?;
    let kernels: usize = args.next().map_or(Ok(100), |a| a.parse())?;
    let fixture = std::fs::read_to_string(
        workspace_root().join("tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv"),
    )?;
    // The fixture has two launch rows; each variant gives both a new name.
    let csv = synthetic_raw_export(&fixture, launches, kernels.div_ceil(2))?;
    let path = out_dir().join(format!("bench-{launches}.csv"));
    std::fs::write(&path, &csv)?;
    println!(
        "input: {} ({} bytes, {launches} launches)",
        path.display(),
        csv.len()
    );

    let server = StaticServer::start(dist_dir())?;
    let b = Browser::start().await?;
    let mut page_ms = Vec::new();
    for run in 0..3 {
        b.client
            .goto(&format!("{}?view=roofline", server.base))
            .await?;
        b.wait_js(
            "return document.getElementById('file-input')",
            Duration::from_secs(30),
        )
        .await?;
        let input = b.client.find(Locator::Css("#file-input")).await?;
        let started = Instant::now();
        input.send_keys(&path.to_string_lossy()).await?;
        let ms = b
            .wait_js(
                "const c = document.getElementById('roofline-canvas'); return c && c.dataset.loadMs;",
                Duration::from_secs(120),
            )
            .await?;
        let wall = started.elapsed();
        let ms: f64 = ms.as_str().unwrap_or("nan").parse()?;
        let status = b
            .client
            .execute(
                "return document.getElementById('status').textContent",
                Vec::new(),
            )
            .await?;
        println!(
            "run {run}: selection to drawn roofline {ms:.0} ms (page clock); {:.0} ms seen from WebDriver; status: {}",
            wall.as_secs_f64() * 1e3,
            status.as_str().unwrap_or("")
        );
        page_ms.push(ms);
    }
    b.screenshot("bench-10k").await?;
    b.close().await?;
    page_ms.sort_by(f64::total_cmp);
    println!(
        "median: {:.0} ms (goal < 2000 ms)",
        page_ms[page_ms.len() / 2]
    );
    Ok(())
}
