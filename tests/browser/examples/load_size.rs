//! Benchmark (not a test): how the viewer copes with one large file, in headless Chromium.
//! For each file given, in a fresh browser: the file is picked, then the page is watched
//! until the roofline is drawn (its load time as the page measures it, `performance.now()`
//! from the input's change event to the drawn chart) or an error is shown (the message, and
//! how long it took to appear), a 10 ms timer noting the longest the tab was busy (could
//! neither draw nor take input) and the status lines it showed, each with when it first
//! showed (with when a linked file was fetched and the chart drawn: the load's stages on
//! the page's clock); then the tab's peak
//! memory is read: the largest peak
//! resident set (`VmHWM`) of the Chromium renderer processes under this run's chromedriver.
//! This is how `viewer/src/state/load.rs`'s `MAX_FILE_BYTES` was chosen (docs/performance.md).
//! An argument `src=PATH` opens a file of the site by link instead (`?src=PATH`, fetched,
//! un-gzipped by the browser where it is gzip), timed from the navigation.
//!
//!     bash site/build.sh
//!     cargo run --release -p roofline-browser-tests --example load_size -- FILE|src=PATH...

use std::time::Duration;

use roofline_browser_tests::{dist_dir, BoxError, Browser, StaticServer};

/// How long one file may take to load or fail.
const TIMEOUT: Duration = Duration::from_secs(300);

/// Direct children of every process, from /proc.
fn children() -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // The parent is the second field after the command name, which is in parentheses.
        let ppid = stat
            .rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().nth(1))
            .and_then(|p| p.parse::<u32>().ok());
        if let Some(ppid) = ppid {
            pairs.push((ppid, pid));
        }
    }
    pairs
}

/// The largest peak resident set of the renderer processes under `root`, in MB.
fn renderer_peak_mb(root: u32) -> f64 {
    let pairs = children();
    let mut todo = vec![root];
    let mut peak_kb = 0u64;
    while let Some(pid) = todo.pop() {
        todo.extend(pairs.iter().filter(|(p, _)| *p == pid).map(|(_, c)| *c));
        let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
        if !String::from_utf8_lossy(&cmdline).contains("--type=renderer") {
            continue;
        }
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
        let hwm = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
        peak_kb = peak_kb.max(hwm);
    }
    peak_kb as f64 * 1024.0 / 1e6
}

async fn one(server: &StaticServer, path: &str) -> Result<(), BoxError> {
    let b = Browser::start().await?;
    let linked = path.strip_prefix("src=");
    let navigated = match linked {
        // The timer below starts once the page has loaded, so it misses the fetch.
        Some(src) => {
            let started = std::time::Instant::now();
            b.client
                .goto(&format!("{}?src={src}&view=roofline", server.base))
                .await?;
            Some(started)
        }
        None => {
            b.open_roofline(&server.base).await?;
            None
        }
    };
    // A timer every 10 ms notes the longest wait between its ticks (the longest the tab was
    // busy, unable to draw or take input), the status lines it saw and when it first saw
    // each, and when it first saw the roofline drawn (on the page's clock, which starts at
    // the navigation).
    b.client
        .execute(
            "window.__gap = 0; window.__last = performance.now(); window.__lines = new Map(); \
             window.__drawn = null; \
             setInterval(() => { const t = performance.now(); \
               window.__gap = Math.max(window.__gap, t - window.__last); window.__last = t; \
               const s = document.getElementById('status'); \
               if (s && s.textContent && !window.__lines.has(s.textContent)) \
                 window.__lines.set(s.textContent, t); \
               const c = document.getElementById('roofline-canvas'); \
               if (window.__drawn === null && c && Number(c.dataset.drawn) > 0) \
                 window.__drawn = t; }, 10);",
            Vec::new(),
        )
        .await?;
    let started = match navigated {
        Some(started) => started,
        None => b.pick_file(path).await?,
    };
    let outcome = b
        .wait_js(
            "const c = document.getElementById('roofline-canvas'); \
             if (c && c.dataset.loadMs) return 'drawn in ' + c.dataset.loadMs + ' ms'; \
             const e = document.querySelector('#errors .error'); \
             return e ? 'error: ' + e.textContent : null;",
            TIMEOUT,
        )
        .await;
    let seen_ms = started.elapsed().as_secs_f64() * 1e3;
    // The stages on the page's clock: the file fetched (a linked one: its resource timing),
    // each status line first seen, the roofline first seen drawn.
    let busy = b
        .client
        .execute(
            "const at = (t) => t.toFixed(0) + ' ms'; \
             const fetched = performance.getEntriesByType('resource') \
               .filter(e => (e.name.includes('/samples/') && !e.name.endsWith('/index.json')) || e.name.includes('/test/')) \
               .map(e => 'fetched ' + at(e.responseEnd)); \
             const lines = [...window.__lines].map(([l, t]) => `'${l}' ${at(t)}`); \
             const drawn = window.__drawn === null ? [] : ['drawn ' + at(window.__drawn)]; \
             return 'longest busy ' + window.__gap.toFixed(0) + ' ms; on the page clock: ' + \
               [...fetched, ...lines, ...drawn].join(', ');",
            Vec::new(),
        )
        .await?;
    let busy = busy.as_str().unwrap_or("?").to_string();
    let peak = b.driver_pid().map_or(f64::NAN, renderer_peak_mb);
    let file = linked.map_or_else(|| path.into(), |src| dist_dir().join(src));
    let size_mb = std::fs::metadata(file).map_or(0.0, |m| m.len() as f64 / 1e6);
    match outcome {
        Ok(v) => println!(
            "{path} ({size_mb:.0} MB): {} (page clock); {seen_ms:.0} ms seen from WebDriver; \
             {busy}; tab peak {peak:.0} MB",
            v.as_str().unwrap_or("?")
        ),
        Err(e) => println!(
            "{path} ({size_mb:.0} MB): no roofline and no error after {seen_ms:.0} ms ({e}); \
             tab peak {peak:.0} MB"
        ),
    }
    let _ = b.close().await;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        return Err("usage: load_size FILE...".into());
    }
    let server = StaticServer::start(dist_dir())?;
    for path in &files {
        one(&server, path).await?;
    }
    Ok(())
}
