//! The roofline of real applications in headless Chromium (issue 28): the GPT-2 sample and
//! the BERT `--set full` report. At 800, 1500 and 1920 px the five kernels with the most
//! time are labelled on the chart with no label over another label or a point, the list
//! under the chart has every drawn point, the kernel with the most time is selected, no
//! verdict cell is clipped, a report shows its SOL DRAM %, and the time from navigation to
//! a drawn roofline of each sample is printed. Screenshots of the GPT-2 overview and
//! roofline at each width go to `target/screenshots/` (not committed).
//!
//! Then issue 38's smaller items: at 800 px the tabs and the whole chart in the first screen
//! and the chart's height following the window; kernel names cut in the middle on the chart
//! and in the side bar; the FP32-matmul advice on SOL and in the roofline's list (T5); a
//! `--set basic` report's empty roofline saying why; rule messages' addresses as links; End
//! in the tablist keeping the focus. Screenshots of the overview and SOL page of GPT-2 and
//! the BERT report at each width go to `target/screens/`.
//!
//! Needs `site/dist` (`bash site/build.sh`), Debian's `chromium` and `chromium-driver`.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use fantoccini::Locator;
use roofline_browser_tests::{
    dist_dir, gunzipped, out_dir, workspace_root, BoxError, Browser, StaticServer,
};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(60);
const GPT2: &str = "samples/h200-gpt2-bf16.json";
const WIDTHS: [u32; 3] = [800, 1500, 1920];

/// Where the screenshots go: `target/screenshots` (ignored by git).
fn shots_dir() -> PathBuf {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target"))
        .join("screenshots");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

async fn shot(b: &Browser, name: &str) -> Result<(), BoxError> {
    let png = b.client.screenshot().await?;
    std::fs::write(shots_dir().join(format!("{name}.png")), png)?;
    Ok(())
}

/// Waits until the roofline canvas has drawn (its `data-labels` set); returns them.
async fn drawn_labels(b: &Browser) -> Result<Vec<Value>, BoxError> {
    let v = b
        .wait_js(
            "const c = document.getElementById('roofline-canvas'); \
             return c && Number(c.dataset.drawn) > 0 && c.dataset.labels;",
            WAIT,
        )
        .await?;
    let labels: Value = serde_json::from_str(v.as_str().unwrap_or("[]"))?;
    Ok(labels.as_array().cloned().unwrap_or_default())
}

fn num(v: &Value, k: &str) -> f64 {
    v[k].as_f64().unwrap_or(f64::NAN)
}

/// The roofline checks at the window's current width: returns the labelled kernels.
#[expect(
    clippy::too_many_lines,
    reason = "one page's checks in order (labels, points, list, selection, tooltip), each a script and its assertion"
)]
async fn check_roofline(b: &Browser, what: &str) -> Result<usize, BoxError> {
    let labels = drawn_labels(b).await?;
    let kernels: Vec<&Value> = labels.iter().filter(|l| l["kind"] == "kernel").collect();
    let series = b
        .wait_js(
            "return document.querySelectorAll('#roofline-list > li').length",
            WAIT,
        )
        .await?
        .as_u64()
        .unwrap_or(0) as usize;
    assert_eq!(
        kernels.len(),
        series.min(5),
        "{what}: labelled kernels {kernels:?}"
    );
    // Each label names one of the five first kernels of the list by its rank.
    let top: Vec<Value> = b
        .client
        .execute(
            "return [...document.querySelectorAll('#roofline-list > li')].slice(0, 5)\
               .map(li => [li.dataset.kernel, li.dataset.rank]);",
            Vec::new(),
        )
        .await?
        .as_array()
        .cloned()
        .unwrap_or_default();
    for k in &kernels {
        let pair = top.iter().find(|t| t[0] == k["kernel"]);
        let rank = pair.and_then(|t| t[1].as_str()).unwrap_or("?");
        assert!(
            k["text"]
                .as_str()
                .is_some_and(|t| t.starts_with(&format!("{rank} "))),
            "{what}: label {k} is not one of the top five {top:?}"
        );
    }
    // No two labels (roofs' and kernels') overlap; none covers a drawn point.
    for (i, a) in labels.iter().enumerate() {
        for c in &labels[i + 1..] {
            let apart = num(a, "x1") <= num(c, "x0")
                || num(c, "x1") <= num(a, "x0")
                || num(a, "y1") <= num(c, "y0")
                || num(c, "y1") <= num(a, "y0");
            assert!(apart, "{what}: labels overlap: {a} and {c}");
        }
    }
    let hits = b
        .client
        .execute(
            "return JSON.parse(document.getElementById('roofline-canvas').dataset.hits || '[]')",
            Vec::new(),
        )
        .await?;
    let hits = hits.as_array().cloned().unwrap_or_default();
    for l in &labels {
        for h in &hits {
            let (x, y) = (h[0].as_f64().unwrap_or(0.0), h[1].as_f64().unwrap_or(0.0));
            let inside = x > num(l, "x0") - 3.0
                && x < num(l, "x1") + 3.0
                && y > num(l, "y0") - 3.0
                && y < num(l, "y1") + 3.0;
            assert!(!inside, "{what}: label {l} covers the point at {x},{y}");
        }
    }
    // The list has every drawn point.
    let (points, listed) = {
        let v = b
            .client
            .execute(
                "return [Number(document.getElementById('roofline-canvas').dataset.points), \
                   document.querySelectorAll('#roofline-list .pt').length]",
                Vec::new(),
            )
            .await?;
        (v[0].as_u64().unwrap_or(0), v[1].as_u64().unwrap_or(1))
    };
    assert_eq!(points, listed, "{what}: drawn points vs listed points");
    assert_eq!(hits.len() as u64, points, "{what}: data-hits");
    // The kernel with the most time is the selected one.
    let selected = b
        .wait_js(
            "const l = document.getElementById('roofline-canvas-layer'); \
             return l && l.dataset.selected;",
            WAIT,
        )
        .await?;
    let first = top.first().map(|t| t[0].clone()).unwrap_or_default();
    assert_eq!(selected, first, "{what}: the default selection");
    assert_eq!(
        top.first().map(|t| t[1].clone()),
        Some(Value::from("1")),
        "{what}"
    );
    // Hovering a point shows its kernel's short name (as the list has it) in a few lines,
    // never the demangled name.
    if let Some(h) = hits.first() {
        b.client
            .execute(
                &format!(
                    "const c = document.getElementById('roofline-canvas'); \
                     const r = c.getBoundingClientRect(); \
                     c.dispatchEvent(new MouseEvent('mousemove', {{ bubbles: true, \
                       clientX: r.left + c.clientLeft + {x}, clientY: r.top + c.clientTop + {y} }}));",
                    x = h[0],
                    y = h[1]
                ),
                Vec::new(),
            )
            .await?;
        let tip = b
            .wait_js(
                "const t = document.querySelector('.chart-wrap .tooltip'); \
                 if (!t) return null; \
                 const li = document.querySelector(`#roofline-list > li[data-kernel=\"${t.dataset.kernel}\"]`); \
                 return [t.textContent, li && li.querySelector('.pl-name').textContent, \
                         li && li.querySelector('.pl-name').title];",
                WAIT,
            )
            .await?;
        let text = tip[0].as_str().unwrap_or("");
        let listed = tip[1].as_str().unwrap_or("");
        let first = text.lines().next().unwrap_or("");
        assert!(
            !first.is_empty() && listed.ends_with(first),
            "{what}: tooltip {text:?} vs list {listed:?}"
        );
        assert!(text.lines().count() <= 8, "{what}: tooltip {text:?}");
        b.client
            .execute(
                "document.getElementById('roofline-canvas')\
                   .dispatchEvent(new MouseEvent('mouseleave'))",
                Vec::new(),
            )
            .await?;
    }
    Ok(kernels.len())
}

/// No verdict cell of the page's tables is clipped (its text wider than its box).
async fn verdicts_fit(b: &Browser, what: &str) -> Result<(), BoxError> {
    let clipped = b
        .client
        .execute(
            "return [...document.querySelectorAll('td.verdict, td[data-col=verdict]')]\
               .filter(td => td.scrollWidth > td.clientWidth + 1)\
               .map(td => td.textContent + ' ' + td.scrollWidth + '>' + td.clientWidth);",
            Vec::new(),
        )
        .await?;
    let clipped = clipped.as_array().cloned().unwrap_or_default();
    assert!(clipped.is_empty(), "{what}: clipped verdicts {clipped:?}");
    Ok(())
}

/// The answer cells of the page shown (verdicts, the roof and its %, ncu's time per
/// launch) whose right edge is past the visible right edge of what scrolls them, or of the
/// content panel: an answer that needs a sideways scroll (issue 38). Returns how many were
/// checked.
async fn answers_in_view(b: &Browser, what: &str) -> Result<u64, BoxError> {
    let found = b
        .client
        .execute(
            "const cells = [...document.querySelectorAll('td.verdict, td[data-col=verdict], \
               td[data-col=roof], td[data-col=ncu_cold]')]; \
             const panel = document.querySelector('.content').getBoundingClientRect(); \
             const out = cells.filter(td => { \
               let p = td.parentElement; \
               while (p && !(p.clientWidth > 0 && p.scrollWidth > p.clientWidth + 1 \
                 && getComputedStyle(p).overflowX !== 'visible')) p = p.parentElement; \
               const edge = Math.min(panel.right, p ? p.getBoundingClientRect().right : panel.right); \
               return td.getBoundingClientRect().right > edge + 1; }) \
               .map(td => (td.dataset.col || td.className) + ': ' + td.textContent); \
             return [cells.length, out];",
            Vec::new(),
        )
        .await?;
    let checked = found[0].as_u64().unwrap_or(0);
    let out = found[1].as_array().cloned().unwrap_or_default();
    assert!(
        out.is_empty(),
        "{what}: answers off the panel's right edge: {out:?}"
    );
    Ok(checked)
}

async fn open_tab(b: &Browser, tab: &str) -> Result<(), BoxError> {
    b.client
        .wait()
        .at_most(WAIT)
        .for_element(Locator::Css(&format!("#tab-{tab}")))
        .await?
        .click()
        .await?;
    b.wait_js(
        &format!("return document.getElementById('page-{tab}')"),
        WAIT,
    )
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
#[expect(
    clippy::too_many_lines,
    reason = "one browser session walks the load figures, both applications at three widths and the report's SOL page in order"
)]
async fn applications_label_their_top_kernels_list_every_point_and_load_fast(
) -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join(GPT2).exists() {
        return Err(format!("{GPT2} is missing from site/dist: run bash site/build.sh").into());
    }
    let bert = gunzipped("ncu-h200-bert/bert_full.ncu-repz")?;
    let gemms = gunzipped("ncu-h200-gemms/gemms_full.ncu-repz")?;
    let server = StaticServer::start(dist)?;
    server.add("/test/bert_full.ncu-rep", bert.clone());
    server.add("/test/gemms_full.ncu-rep", gemms.clone());
    let b = Browser::start().await?;
    let result = async {
        // Load times first, each in a fresh page: navigation to a drawn roofline.
        let mut figures = Vec::new();
        for src in [
            "samples/h200.json",
            GPT2,
            "samples/h200-two-process.ncu-rep",
            "samples/h200-bert-train-step.json.gz",
            "test/gemms_full.ncu-rep",
            "test/bert_full.ncu-rep",
        ] {
            b.client.goto("about:blank").await?;
            let t0 = Instant::now();
            b.client
                .goto(&format!("{}?src={src}&view=roofline", server.base))
                .await?;
            b.wait_roofline_or_error(WAIT)
                .await
                .map_err(|e| format!("{src}: {e}"))?;
            let ms = t0.elapsed().as_secs_f64() * 1e3;
            let page = b
                .client
                .execute(
                    "return document.getElementById('roofline-canvas').dataset.loadMs || ''",
                    Vec::new(),
                )
                .await?;
            let bytes = std::fs::metadata(
                workspace_root()
                    .join("site/dist")
                    .join(src)
                    .to_str()
                    .filter(|_| src.starts_with("samples/"))
                    .map(PathBuf::from)
                    .unwrap_or_else(|| out_dir().join(src.trim_start_matches("test/"))),
            )
            .map(|m| m.len())
            .unwrap_or(0);
            figures.push(format!(
                "load: {src} ({:.1} MB): drawn roofline {ms:.0} ms after navigation \
                 (the page's own load-to-draw: {} ms)",
                bytes as f64 / 1e6,
                page.as_str().unwrap_or("?")
            ));
        }
        for f in &figures {
            println!("{f}");
        }

        for (name, src) in [("gpt2", GPT2), ("bert", "test/bert_full.ncu-rep")] {
            for w in WIDTHS {
                b.client.set_window_size(w, 1100).await?;
                b.client
                    .goto(&format!("{}?src={src}&view=overview", server.base))
                    .await?;
                b.wait_js("return document.getElementById('page-overview')", WAIT)
                    .await?;
                if name == "gpt2" {
                    shot(&b, &format!("gpt2-overview-{w}")).await?;
                }
                open_tab(&b, "roofline").await?;
                let what = format!("{name} at {w} px");
                let wide = b
                    .client
                    .execute(
                        "return [document.documentElement.scrollWidth, \
                                 document.documentElement.clientWidth, \
                                 document.querySelector('.content').scrollWidth, \
                                 document.querySelector('.content').clientWidth, \
                                 document.getElementById('roofline-canvas').clientWidth]",
                        Vec::new(),
                    )
                    .await?;
                // Nothing makes the page scroll sideways.
                assert!(
                    wide[0].as_f64() <= wide[1].as_f64() && wide[2].as_f64() <= wide[3].as_f64(),
                    "{what}: page, content, canvas widths {wide}"
                );
                let n = check_roofline(&b, &what).await?;
                println!("{what}: {n} kernels labelled, labels apart and off the points");
                if name == "gpt2" {
                    b.client
                        .execute(
                            "document.getElementById('roofline-canvas').scrollIntoView({block: 'start'})",
                            Vec::new(),
                        )
                        .await?;
                    shot(&b, &format!("gpt2-roofline-{w}")).await?;
                }
                if w == 1500 {
                    for tab in ["time", "sol", "bytes", "occupancy", "timing"] {
                        open_tab(&b, tab).await?;
                        verdicts_fit(&b, &format!("{what}, {tab}")).await?;
                        let n = answers_in_view(&b, &format!("{what}, {tab}")).await?;
                        println!("{what}, {tab}: {n} answer cells, all inside the panel");
                    }
                    for tab in ["memory", "metrics"] {
                        open_tab(&b, tab).await?;
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        shot(&b, &format!("{name}-{tab}-{w}")).await?;
                    }
                }
            }
        }

        // The suite's sample too: every answer inside the panel at 1500 px.
        b.client.set_window_size(1500, 1100).await?;
        b.client
            .goto(&format!("{}?src=samples/h200.json&view=overview", server.base))
            .await?;
        b.wait_js("return document.getElementById('page-overview')", WAIT)
            .await?;
        for tab in ["time", "sol", "bytes", "timing"] {
            open_tab(&b, tab).await?;
            let n = answers_in_view(&b, &format!("suite at 1500 px, {tab}")).await?;
            println!("suite at 1500 px, {tab}: {n} answer cells, all inside the panel");
        }

        // A report's SOL DRAM % and SM MHz are shown (they were "-").
        b.client.set_window_size(1500, 1100).await?;
        b.client
            .goto(&format!(
                "{}?src=test/bert_full.ncu-rep&view=sol",
                server.base
            ))
            .await?;
        let cells = b
            .wait_js(
                "const r = document.querySelector('#sol-table tbody tr[aria-rowindex=\"2\"]'); \
                 return r && [r.querySelector('[data-col=dram_pct]').textContent, \
                              r.querySelector('[data-col=sm_mhz]').textContent];",
                WAIT,
            )
            .await?;
        let dram = cells[0].as_str().unwrap_or("-");
        let mhz = cells[1].as_str().unwrap_or("-");
        assert!(dram != "-" && dram.parse::<f64>().is_ok(), "SOL DRAM %: {cells}");
        assert!(mhz != "-" && mhz.parse::<f64>().is_ok(), "SM MHz: {cells}");
        println!("bert report SOL: DRAM {dram} %, SM {mhz} MHz (first row)");
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = shot(&b, "application-failure").await;
    }
    b.close().await?;
    result
}

/// Where issue 38's screenshots go: `target/screens` (ignored by git).
fn screens_dir() -> PathBuf {
    let dir = shots_dir().with_file_name("screens");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// The page's layout at `w` px on GPT-2: the tabs' top on the overview, then the roofline
/// canvas's top, bottom and height with the page scrolled to its top, in CSS pixels, and
/// the window's inner height.
async fn fold(b: &Browser, base: &str, w: u32) -> Result<(f64, [f64; 4]), BoxError> {
    b.client.set_window_size(w, 1100).await?;
    b.client
        .goto(&format!("{base}?src={GPT2}&view=overview"))
        .await?;
    b.wait_js("return document.getElementById('page-overview')", WAIT)
        .await?;
    let tabs = b
        .client
        .execute(
            "window.scrollTo(0, 0); \
             return document.querySelector('[role=tablist]').getBoundingClientRect().top",
            Vec::new(),
        )
        .await?;
    open_tab(b, "roofline").await?;
    drawn_labels(b).await?;
    let chart = b
        .client
        .execute(
            "window.scrollTo(0, 0); \
             const r = document.getElementById('roofline-canvas').getBoundingClientRect(); \
             return [r.top, r.bottom, r.height, window.innerHeight]",
            Vec::new(),
        )
        .await?;
    let f = |i: usize| chart[i].as_f64().unwrap_or(f64::NAN);
    Ok((tabs.as_f64().unwrap_or(f64::NAN), [f(0), f(1), f(2), f(3)]))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
#[expect(
    clippy::too_many_lines,
    reason = "one browser session walks issue 38's items in order, each a script and its assertion"
)]
async fn names_fold_advice_links_and_keys_as_issue_38_asks() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join(GPT2).exists() {
        return Err(format!("{GPT2} is missing from site/dist: run bash site/build.sh").into());
    }
    let t5 = gunzipped("corpus-h200/t5_encoder_profile.json.gz")?;
    let basic = gunzipped("ncu-h200-reports/gemms_basic.ncu-repz")?;
    let bert = gunzipped("ncu-h200-bert/bert_full.ncu-repz")?;
    let server = StaticServer::start(dist)?;
    server.add("/test/t5.json", t5);
    server.add("/test/gemms_basic.ncu-rep", basic);
    server.add("/test/bert_full.ncu-rep", bert);
    let b = Browser::start().await?;
    let result = async {
        // (c) At 800 px the tabs and the whole chart are in the first screen; the chart's
        // height follows the window.
        let mut heights = Vec::new();
        for w in WIDTHS {
            let (tabs, [top, bottom, height, inner]) = fold(&b, &server.base, w).await?;
            println!(
                "gpt2 at {w} px: tabs at {tabs:.0} px, chart {top:.0} to {bottom:.0} px \
                 ({height:.0} px tall) in a window {inner:.0} px tall"
            );
            assert!(tabs < 200.0, "{w} px: the tabs start at {tabs} px");
            assert!(
                top > 0.0 && bottom <= inner,
                "{w} px: the chart ({top} to {bottom}) is not all in the first {inner} px"
            );
            heights.push(height);
        }
        assert!(
            heights[0] < heights[1] && heights[0] < 562.0,
            "the chart's height does not follow the window: {heights:?}"
        );

        // (a) The chart's kernel labels keep the end of the name (cut in the middle), and
        // (b) the side bar's names are whole or cut in the middle, never clipped.
        b.client.set_window_size(1500, 1100).await?;
        b.client
            .goto(&format!("{}?src={GPT2}&view=roofline", server.base))
            .await?;
        let labels = drawn_labels(&b).await?;
        // Each kernel label ends as its name in the list under the chart ends.
        let ends = b
            .client
            .execute(
                "return Object.fromEntries([...document.querySelectorAll('#roofline-list li.pl-kernel')]\
                   .map(li => [li.dataset.kernel, li.querySelector('.pl-name').textContent.trim()]))",
                Vec::new(),
            )
            .await?;
        let tail = |s: &str| s.chars().rev().take(8).collect::<String>();
        let mut kernels = 0;
        for l in labels.iter().filter(|l| l["kind"] == "kernel") {
            let text = l["text"].as_str().unwrap_or_default();
            let key = l["kernel"].as_str().unwrap_or_default();
            let listed = ends[key].as_str().unwrap_or_default();
            assert_eq!(
                tail(text),
                tail(listed),
                "label {text:?} does not end as its name {listed:?}"
            );
            kernels += 1;
        }
        assert!(kernels > 0, "no kernel labels: {labels:?}");
        let side = b
            .client
            .execute(
                "const names = [...document.querySelectorAll('.side .kname')]; \
                 return [names.map(n => n.textContent), \
                         names.filter(n => n.scrollWidth > n.clientWidth + 1 \
                                        || n.scrollHeight > n.clientHeight + 1) \
                              .map(n => n.textContent)]",
                Vec::new(),
            )
            .await?;
        let names: Vec<&str> = side[0]
            .as_array()
            .map(|a| a.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let clipped = side[1].as_array().cloned().unwrap_or_default();
        assert!(clipped.is_empty(), "side bar names clipped: {clipped:?}");
        let elementwise: Vec<&&str> = names
            .iter()
            // The side bar shows the 36-character label (`vectorized_ele…4, tanh_kernel_cuda…>`).
            .filter(|n| n.starts_with("vectorized_ele"))
            .collect();
        let distinct: std::collections::HashSet<&&&str> = elementwise.iter().collect();
        assert!(
            elementwise.len() > 2 && distinct.len() == elementwise.len(),
            "side bar: the elementwise kernels do not read apart: {elementwise:?}"
        );
        println!(
            "gpt2: {kernels} kernel labels end as their names; {} side bar names",
            names.len()
        );

        // Screenshots of the overview and SOL page at each width, GPT-2 and a report.
        for (name, src) in [("gpt2", GPT2), ("bert-report", "test/bert_full.ncu-rep")] {
            for w in WIDTHS {
                b.client.set_window_size(w, 1100).await?;
                for tab in ["overview", "sol"] {
                    b.client
                        .goto(&format!("{}?src={src}&view={tab}", server.base))
                        .await?;
                    b.wait_js(
                        &format!("return document.getElementById('page-{tab}')"),
                        WAIT,
                    )
                    .await?;
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    let png = b.client.screenshot().await?;
                    std::fs::write(screens_dir().join(format!("{name}-{tab}-{w}.png")), png)?;
                }
            }
        }

        // (d) T5's FP32 matrix multiplies are advised on SOL and in the roofline's list.
        b.client.set_window_size(1500, 1100).await?;
        b.client
            .goto(&format!("{}?src=test/t5.json&view=sol", server.base))
            .await?;
        let advice = b
            .wait_js(
                "const s = document.getElementById('sol-advice'); return s && s.textContent",
                WAIT,
            )
            .await?;
        let advice = advice.as_str().unwrap_or_default().to_string();
        assert!(advice.contains("TF32"), "SOL advice: {advice}");
        open_tab(&b, "roofline").await?;
        let listed = b
            .wait_js(
                "const a = [...document.querySelectorAll('#roofline-list .pl-advice')]; \
                 return a.length > 0 && a.map(p => p.textContent)",
                WAIT,
            )
            .await?;
        assert!(
            listed.to_string().contains("TF32"),
            "roofline list advice: {listed}"
        );
        println!("t5: advised on SOL and in the roofline list ({listed})");

        // (e) A --set basic report's empty roofline says why.
        b.client
            .goto(&format!(
                "{}?src=test/gemms_basic.ncu-rep&view=roofline",
                server.base
            ))
            .await?;
        let note = b
            .wait_js(
                "const n = document.querySelector('#roofline-notes li'); \
                 return n && n.textContent",
                WAIT,
            )
            .await?;
        let note = note.as_str().unwrap_or_default().to_string();
        assert!(
            note.starts_with("Nothing to plot") && note.contains("--set full"),
            "basic report's first note: {note}"
        );

        // (e) Rule messages' documentation addresses are links.
        b.client
            .goto(&format!("{}?src=samples/h200.json&view=rules", server.base))
            .await?;
        let links = b
            .wait_js(
                "const a = [...document.querySelectorAll('#rules-table .rule-message a')]; \
                 return a.length > 0 && a.map(l => l.getAttribute('href'))",
                WAIT,
            )
            .await?;
        let links = links.as_array().cloned().unwrap_or_default();
        assert!(
            links.iter().all(|h| h
                .as_str()
                .is_some_and(|h| h.starts_with("https://docs.nvidia.com/"))),
            "rule links: {links:?}"
        );
        println!("rules: {} documentation links", links.len());

        // (e) End in the tablist keeps the focus on the tabs (the exercise's tab, last, is
        // focused, not opened: opening it hides the tabs); Home opens the first.
        b.client
            .goto(&format!("{}?src=samples/h200.json&view=sol", server.base))
            .await?;
        // The run loaded first (its kernels listed): the tabs drawn again as it lands could
        // take the focus back from where End moved it.
        b.wait_js(
            "return document.querySelectorAll('#kernel-list li').length",
            WAIT,
        )
        .await?;
        let tab = b
            .client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css("#tab-sol"))
            .await?;
        tab.send_keys(&char::from(fantoccini::key::Key::End).to_string())
            .await?;
        let focus = b
            .wait_js(
                // Wait for the focus to leave the SOL tab: the handler moves it after the
                // key event, and under load the first look can come before that.
                "const e = document.activeElement; \
                 return e && e.getAttribute('role') === 'tab' && e.id !== 'tab-sol' && \
                        [e.id, !!document.querySelector('[role=tablist]'), \
                         !!document.getElementById('page-sol')]",
                WAIT,
            )
            .await?;
        assert_eq!(
            focus,
            serde_json::json!(["tab-exercise", true, true]),
            "after End: focused tab, tablist, page"
        );
        let focused = b.client.find(Locator::Css("#tab-exercise")).await?;
        focused
            .send_keys(&char::from(fantoccini::key::Key::Home).to_string())
            .await?;
        b.wait_js(
            "return document.activeElement && document.activeElement.id === 'tab-overview' \
             && document.getElementById('page-overview')",
            WAIT,
        )
        .await?;
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = shot(&b, "issue-38-failure").await;
    }
    b.close().await?;
    result
}
