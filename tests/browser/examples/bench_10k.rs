//! Benchmark (not a test): the viewer on a raw ncu export of 10,000 launches, built from the
//! real fixture rows, in headless Chromium. For each shape of export (by default 100
//! kernels of 100 launches each, and 10,000 kernels of one launch each) it reports:
//!
//! - load: file selection to drawn roofline, as the page measures it (`performance.now()`
//!   at the input's change event to the end of the canvas drawing), median of three;
//! - hover: a synthetic `mousemove` dispatched on a drawn point of the roofline to the
//!   tooltip in the page (a `MutationObserver` sees it), and to the next painted frame;
//! - click: a synthetic `click` on a point of another kernel to the selection drawn on the
//!   chart's upper layer (its `data-selected`), and to the next painted frame;
//! - tables (bytes, Speed of Light, occupancy, timing, raw metrics of the selected kernel):
//!   opening the tab to its rows in the page; sorting the bytes table by a column; a jump
//!   to a random scroll position, from the `scroll` event to the rows of that position in
//!   the page, and from setting `scrollTop` to the next painted frame; and a steady scroll
//!   of 150 px per frame for 120 frames, with the frame intervals it ran at;
//! - the compare tab, opened to its roofline drawn.
//!
//! Points of the roofline are found by reading the canvas: pixels of exactly a series'
//! colour are inside a filled marker. "Next painted frame" is a `requestAnimationFrame`
//! callback then a task queued from it, which runs after that frame is painted.
//!
//!     bash site/build.sh
//!     cargo run --release -p roofline-browser-tests --example bench_10k [LAUNCHES] [KERNELS ...]
//!
//! KERNELS is how many distinct kernel names the launches cycle through. The fixture has
//! two launch rows (`fma_loop`, which has FP32 FLOPs and so three roofline points, and
//! `copy`, which has none); every kernel name keeps its row's counters, except that the
//! FLOP counters are scaled by a factor between 1/1000 and 1, and the durations by one
//! between 1 and 100, both fixed by the kernel's name, so the points spread over three
//! decades each way instead of piling on three pixels.

use std::time::{Duration, Instant};

use fantoccini::Locator;
use roofline_browser_tests::{
    dist_dir, out_dir, synthetic_raw_export, workspace_root, BoxError, Browser, StaticServer,
};
use serde_json::{json, Value};

/// Hovers and clicks measured per shape.
const HOVERS: usize = 40;
const CLICKS: usize = 20;
/// Random scroll jumps per table.
const JUMPS: usize = 30;

/// Sorted samples with the figures the report prints.
struct Stats(Vec<f64>);

impl Stats {
    fn new(mut v: Vec<f64>) -> Self {
        v.sort_by(f64::total_cmp);
        Stats(v)
    }

    fn at(&self, q: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        let i = ((self.0.len() - 1) as f64 * q).round() as usize;
        self.0[i.min(self.0.len() - 1)]
    }

    fn line(&self) -> String {
        format!(
            "median {:.1} ms, p95 {:.1} ms, max {:.1} ms (n = {})",
            self.at(0.5),
            self.at(0.95),
            self.at(1.0),
            self.0.len()
        )
    }
}

/// FNV-1a, for factors fixed by a kernel's name.
fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The synthetic export with FLOP counters and durations scaled per kernel name (see the
/// module comment).
fn spread(csv_text: &str) -> Result<String, BoxError> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv_text.as_bytes());
    let records: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>()?;
    let (header, rest) = records.split_first().ok_or("no header")?;
    let name_col = header
        .iter()
        .position(|h| h == "Kernel Name")
        .ok_or("no Kernel Name column")?;
    let flop_cols: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| h.contains("_inst_executed_op_"))
        .map(|(i, _)| i)
        .collect();
    let time_cols: Vec<usize> = header
        .iter()
        .enumerate()
        .filter(|(_, h)| h.starts_with("gpu__time_duration."))
        .map(|(i, _)| i)
        .collect();
    let mut w = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(Vec::new());
    w.write_record(header)?;
    for (n, row) in rest.iter().enumerate() {
        if n == 0 {
            w.write_record(row)?; // units
            continue;
        }
        let h = fnv(row.get(name_col).unwrap_or(""));
        let u1 = (h & 0xffff) as f64 / 65_536.0;
        let u2 = ((h >> 16) & 0xffff) as f64 / 65_536.0;
        let flop_factor = 10f64.powf(-3.0 * u1);
        let time_factor = 10f64.powf(2.0 * u2);
        let fields: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, v)| {
                let factor = if flop_cols.contains(&c) {
                    flop_factor
                } else if time_cols.contains(&c) {
                    time_factor
                } else {
                    return v.to_string();
                };
                match v.replace(',', "").parse::<f64>() {
                    Ok(x) => format!("{}", (x * factor).round()),
                    Err(_) => v.to_string(),
                }
            })
            .collect();
        w.write_record(&fields)?;
    }
    Ok(String::from_utf8(
        w.into_inner().map_err(|e| e.to_string())?,
    )?)
}

/// Up to `n` points (CSS pixels in the canvas) inside filled markers of the roofline,
/// spread over the chart.
const FIND_POINTS: &str = r#"
const [n, colors] = arguments;
const c = document.getElementById('roofline-canvas');
const dpr = c.width / c.clientWidth;
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
const want = new Set(colors.map(([r, g, b]) => (r << 16) | (g << 8) | b));
const found = [];
for (let y = 2; y < c.height - 2; y += 1) {
  for (let x = 2; x < c.width - 2; x += 1) {
    const i = (y * c.width + x) * 4;
    if (d[i + 3] !== 255 || !want.has((d[i] << 16) | (d[i + 1] << 8) | d[i + 2])) continue;
    // The pixel and its four neighbours at two pixels: inside a marker, not a line.
    const same = [[2, 0], [-2, 0], [0, 2], [0, -2]].every(([dx, dy]) => {
      const j = ((y + dy) * c.width + x + dx) * 4;
      return d[j] === d[i] && d[j + 1] === d[i + 1] && d[j + 2] === d[i + 2];
    });
    if (same) found.push([x / dpr, y / dpr]);
  }
}
const step = Math.max(1, Math.floor(found.length / n));
const out = [];
for (let k = 0; k < found.length && out.length < n; k += step) out.push(found[k]);
return out;
"#;

/// Hovers CSS point (x, y) of the roofline after clearing the tooltip; answers the
/// milliseconds to the tooltip in the page and to the next painted frame, and its kernel.
const HOVER: &str = r#"
const [x, y, done] = arguments;
const c = document.getElementById('roofline-canvas');
const wrap = c.parentElement;
const r = c.getBoundingClientRect();
const at = { clientX: r.left + c.clientLeft + x, clientY: r.top + c.clientTop + y, bubbles: true };
c.dispatchEvent(new MouseEvent('mouseleave', { bubbles: false }));
let finished = false;
const finish = (v) => { if (!finished) { finished = true; done(v); } };
requestAnimationFrame(() => setTimeout(() => {
  if (wrap.querySelector('.tooltip')) { finish({ error: 'tooltip did not clear' }); return; }
  let t0 = 0;
  const obs = new MutationObserver(() => {
    const t = wrap.querySelector('.tooltip');
    if (!t) return;
    const dom = performance.now() - t0;
    obs.disconnect();
    requestAnimationFrame(() => setTimeout(() => {
      finish({ dom, frame: performance.now() - t0, kernel: t.dataset.kernel });
    }, 0));
  });
  obs.observe(wrap, { childList: true, subtree: true });
  t0 = performance.now();
  c.dispatchEvent(new MouseEvent('mousemove', at));
  setTimeout(() => { obs.disconnect(); finish({ miss: true }); }, 3000);
}, 0));
"#;

/// Clicks CSS point (x, y) of the roofline, whose kernel is `want`; answers the
/// milliseconds to the selection drawn on the upper layer and to the next painted frame.
const CLICK: &str = r#"
const [x, y, want, done] = arguments;
const c = document.getElementById('roofline-canvas');
const layer = document.getElementById('roofline-canvas-layer');
const r = c.getBoundingClientRect();
const at = { clientX: r.left + c.clientLeft + x, clientY: r.top + c.clientTop + y, bubbles: true };
let finished = false;
const finish = (v) => { if (!finished) { finished = true; done(v); } };
let t0 = 0;
const obs = new MutationObserver(() => {
  if (layer.dataset.selected !== want) return;
  const dom = performance.now() - t0;
  obs.disconnect();
  requestAnimationFrame(() => setTimeout(() => {
    finish({ dom, frame: performance.now() - t0 });
  }, 0));
});
obs.observe(layer, { attributes: true, attributeFilter: ['data-selected', 'data-drawn'] });
t0 = performance.now();
c.dispatchEvent(new MouseEvent('click', at));
setTimeout(() => { obs.disconnect(); finish({ miss: true, selected: layer.dataset.selected }); }, 5000);
"#;

/// Jumps table `id`'s scroller to `top` px; answers the milliseconds from the scroll event
/// to the rows of that position in the page, and from setting `scrollTop` to the next
/// painted frame.
const JUMP: &str = r#"
const [id, top, done] = arguments;
const table = document.getElementById(id);
const sc = table.closest('.vscroll');
const body = table.tBodies[0];
const rowPx = body.rows[0].getBoundingClientRect().height;
const target = Math.min(top, sc.scrollHeight - sc.clientHeight);
const want = String(Math.floor(target / rowPx) + 2);
let finished = false;
const finish = (v) => { if (!finished) { finished = true; done(v); } };
const has = () => body.querySelector(`tr[aria-rowindex="${want}"]`);
if (has()) { finish({ error: 'row already there' }); return; }
let tEvent = null;
const onScroll = () => { if (tEvent === null) tEvent = performance.now(); };
document.addEventListener('scroll', onScroll, true);
let t0 = 0;
const obs = new MutationObserver(() => {
  if (!has()) return;
  const dom = performance.now();
  obs.disconnect();
  document.removeEventListener('scroll', onScroll, true);
  requestAnimationFrame(() => setTimeout(() => {
    finish({ render: dom - (tEvent ?? t0), frame: performance.now() - t0 });
  }, 0));
});
obs.observe(body, { childList: true });
t0 = performance.now();
sc.scrollTop = target;
setTimeout(() => { obs.disconnect(); finish({ miss: true, want }); }, 5000);
"#;

/// Clicks the bytes table's header `col` (sorting by it); answers the milliseconds to the
/// reordered rows in the page and to the next painted frame.
const SORT: &str = r#"
const [col, done] = arguments;
const table = document.getElementById('bytes-table');
const body = table.tBodies[0];
const order = () => Array.from(body.rows).map((r) => r.dataset.kernel).join(',');
const before = order();
let finished = false;
const finish = (v) => { if (!finished) { finished = true; done(v); } };
let t0 = 0;
const obs = new MutationObserver(() => {
  if (order() === before) return;
  const dom = performance.now() - t0;
  obs.disconnect();
  requestAnimationFrame(() => setTimeout(() => finish({ dom, frame: performance.now() - t0 }), 0));
});
obs.observe(body, { childList: true });
t0 = performance.now();
table.querySelector(`th[data-col="${col}"]`).click();
setTimeout(() => { obs.disconnect(); finish({ miss: true }); }, 10000);
"#;

/// Scrolls table `id` from the top by `step` px a frame for `frames` frames; answers the
/// frame intervals, ms, and whether the rows in view were in the page at every frame.
const STEADY: &str = r#"
const [id, step, frames, done] = arguments;
const table = document.getElementById(id);
const sc = table.closest('.vscroll');
const body = table.tBodies[0];
sc.scrollTop = 0;
const stamps = [];
let gaps = 0;
const tick = (ts) => {
  stamps.push(ts);
  // Rows at the top of the viewport must be rendered (not a blank spacer).
  const view = sc.getBoundingClientRect();
  const hit = document.elementFromPoint(view.left + 40, view.top + view.height / 2);
  if (!hit || !body.contains(hit)) gaps += 1;
  if (stamps.length >= frames) {
    const iv = stamps.slice(1).map((t, i) => t - stamps[i]);
    done({ intervals: iv, gaps, end: sc.scrollTop });
    return;
  }
  sc.scrollTop += step;
  requestAnimationFrame(tick);
};
requestAnimationFrame(() => requestAnimationFrame(tick));
"#;

async fn load(b: &Browser, server: &StaticServer, path: &str) -> Result<f64, BoxError> {
    let started = b.pick_file_on_roofline(&server.base, path).await?;
    let ms = b
        .wait_js(
            "const c = document.getElementById('roofline-canvas'); return c && c.dataset.loadMs;",
            Duration::from_secs(180),
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
        "  load: selection to drawn roofline {ms:.0} ms (page clock); {:.0} ms seen from WebDriver; {}",
        wall.as_secs_f64() * 1e3,
        status.as_str().unwrap_or("")
    );
    Ok(ms)
}

fn num(v: &Value, key: &str) -> Option<f64> {
    v.get(key).and_then(Value::as_f64)
}

async fn roofline_interaction(b: &Browser) -> Result<(), BoxError> {
    let points = b
        .client
        .execute(
            "return document.getElementById('roofline-canvas').dataset.points",
            Vec::new(),
        )
        .await?;
    let colors: Vec<Value> = (0..10)
        .map(|i| {
            let c = shared::chart::palette(i);
            json!([c.0, c.1, c.2])
        })
        .collect();
    let found = b
        .client
        .execute(FIND_POINTS, vec![json!(HOVERS), Value::Array(colors)])
        .await?;
    let found: Vec<(f64, f64)> = found
        .as_array()
        .ok_or("no points found")?
        .iter()
        .filter_map(|p| Some((p.get(0)?.as_f64()?, p.get(1)?.as_f64()?)))
        .collect();
    println!(
        "  roofline: {} points drawn; hovering {} of them",
        points.as_str().unwrap_or("?"),
        found.len()
    );
    let (mut dom, mut frame, mut misses) = (Vec::new(), Vec::new(), 0);
    let mut kernels = Vec::new();
    for &(x, y) in &found {
        let v = b
            .client
            .execute_async(HOVER, vec![json!(x), json!(y)])
            .await?;
        match (num(&v, "dom"), num(&v, "frame")) {
            (Some(d), Some(f)) => {
                dom.push(d);
                frame.push(f);
                let k = v["kernel"].as_str().unwrap_or("").to_string();
                kernels.push((x, y, k));
            }
            _ => misses += 1,
        }
    }
    println!(
        "  hover, event to tooltip in the page: {}",
        Stats::new(dom).line()
    );
    println!(
        "  hover, event to next painted frame:  {} ({misses} misses)",
        Stats::new(frame).line()
    );

    let (mut dom, mut frame, mut misses) = (Vec::new(), Vec::new(), 0);
    for (x, y, k) in kernels.iter().take(CLICKS * 2) {
        if dom.len() >= CLICKS {
            break;
        }
        let selected = b
            .client
            .execute(
                "return document.getElementById('roofline-canvas-layer').dataset.selected || ''",
                Vec::new(),
            )
            .await?;
        if selected.as_str() == Some(k.as_str()) {
            continue;
        }
        let v = b
            .client
            .execute_async(CLICK, vec![json!(x), json!(y), json!(k)])
            .await?;
        match (num(&v, "dom"), num(&v, "frame")) {
            (Some(d), Some(f)) => {
                dom.push(d);
                frame.push(f);
            }
            _ => misses += 1,
        }
    }
    println!(
        "  click, event to selection drawn:     {}",
        Stats::new(dom).line()
    );
    println!(
        "  click, event to next painted frame:  {} ({misses} misses)",
        Stats::new(frame).line()
    );
    Ok(())
}

async fn table_scrolling(b: &Browser, tab: &str, table: &str) -> Result<(), BoxError> {
    let started = Instant::now();
    b.client
        .find(Locator::Css(&format!("#tab-{tab}")))
        .await?
        .click()
        .await?;
    b.wait_js(
        &format!("return document.querySelector('#{table} tbody tr')"),
        Duration::from_secs(60),
    )
    .await?;
    let opened = started.elapsed();
    let info = b
        .client
        .execute(
            &format!(
                "const t = document.getElementById('{table}'); \
                 return [Number(t.getAttribute('aria-rowcount')) - 1, t.tBodies[0].rows.length, \
                         t.closest('.vscroll').scrollHeight];"
            ),
            Vec::new(),
        )
        .await?;
    let rows = info[0].as_f64().unwrap_or(0.0);
    println!(
        "  {table}: {rows} rows, {} in the page; tab opened in {:.0} ms (seen from WebDriver)",
        info[1],
        opened.as_secs_f64() * 1e3
    );
    let height = info[2].as_f64().unwrap_or(0.0);
    if rows < 200.0 {
        return Ok(());
    }
    if table == "bytes-table" {
        for col in ["name", "dram_bytes"] {
            let v = b.client.execute_async(SORT, vec![json!(col)]).await?;
            println!(
                "  {table} sort by {col}: click to rows in the page {:.1} ms, to painted frame {:.1} ms",
                num(&v, "dom").unwrap_or(f64::NAN),
                num(&v, "frame").unwrap_or(f64::NAN)
            );
        }
    }
    let (mut render, mut frame, mut misses) = (Vec::new(), Vec::new(), 0);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    for _ in 0..JUMPS {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let top = (seed % 1_000_000) as f64 / 1e6 * height;
        let v = b
            .client
            .execute_async(JUMP, vec![json!(table), json!(top)])
            .await?;
        match (num(&v, "render"), num(&v, "frame")) {
            (Some(r), Some(f)) => {
                render.push(r);
                frame.push(f);
            }
            _ => misses += 1,
        }
    }
    println!(
        "  {table} jump, scroll event to rows in the page: {}",
        Stats::new(render).line()
    );
    println!(
        "  {table} jump, scrollTop set to painted frame:   {} ({misses} skipped)",
        Stats::new(frame).line()
    );
    let v = b
        .client
        .execute_async(STEADY, vec![json!(table), json!(150), json!(120)])
        .await?;
    let iv: Vec<f64> = v["intervals"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_f64).collect())
        .unwrap_or_default();
    let long = iv.iter().filter(|t| **t > 20.0).count();
    println!(
        "  {table} steady scroll 150 px/frame: frame interval {}; {long} frames over 20 ms; {} frames showed no row mid-view",
        Stats::new(iv).line(),
        v["gaps"]
    );
    Ok(())
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), BoxError> {
    let mut args = std::env::args().skip(1);
    let launches: usize = args.next().map_or(Ok(10_000), |a| a.parse())?;
    let mut shapes: Vec<usize> = args.map(|a| a.parse()).collect::<Result<_, _>>()?;
    if shapes.is_empty() {
        shapes = vec![100, 10_000];
    }
    let fixture = std::fs::read_to_string(
        workspace_root().join("tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv"),
    )?;
    let server = StaticServer::start(dist_dir())?;
    let b = Browser::start().await?;
    let result = async {
        for kernels in shapes {
            // The fixture has two launch rows; each variant gives both a new name.
            let csv = spread(&synthetic_raw_export(
                &fixture,
                launches,
                kernels.div_ceil(2),
            )?)?;
            let path = out_dir().join(format!("bench-{launches}-{kernels}.csv"));
            std::fs::write(&path, &csv)?;
            println!(
                "{launches} launches of {kernels} kernels: {} ({} bytes)",
                path.display(),
                csv.len()
            );
            let mut load_ms = Vec::new();
            for _ in 0..3 {
                load_ms.push(load(&b, &server, &path.to_string_lossy()).await?);
            }
            println!(
                "  load median: {:.0} ms (goal < 2000 ms)",
                Stats::new(load_ms).at(0.5)
            );
            roofline_interaction(&b).await?;
            b.screenshot(&format!("bench-{kernels}-roofline")).await?;
            for (tab, table) in [
                ("bytes", "bytes-table"),
                ("sol", "sol-table"),
                ("occupancy", "occupancy-table"),
                ("timing", "timing-table"),
                ("metrics", "metrics-table"),
            ] {
                table_scrolling(&b, tab, table).await?;
            }
            b.screenshot(&format!("bench-{kernels}-metrics")).await?;
            let started = Instant::now();
            b.client
                .find(Locator::Css("#tab-compare"))
                .await?
                .click()
                .await?;
            b.wait_js(
                "const c = document.getElementById('compare-roofline'); return c && Number(c.dataset.drawn) > 0;",
                Duration::from_secs(120),
            )
            .await?;
            println!(
                "  compare tab opened and drawn in {:.0} ms (seen from WebDriver)",
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("bench-failure").await;
    }
    b.close().await?;
    result
}
