//! What looking at every page at 800, 1500 and 1920 px found (issue 38's screenshots, taken
//! with `cargo run -p roofline-browser-tests --example screens`), each checked here so it
//! stays fixed:
//!
//! - the tables' kernel names were cut at the end by CSS (GPT-2's GEMMs all read
//!   `nvjet_sm90_tst_…_h_b`): they are cut in the middle, nothing clipped, whole on hover;
//! - on Speed of Light at 1500 px, Memory % (one of the two figures that decide the verdict)
//!   was past the panel's right edge behind the reason column;
//! - a kernel whose launch groups disagree (BERT-base's nvjet 192x128 GEMM: one-wave
//!   latency-bound launches and balanced ones) opens into its groups under "Where the time
//!   goes" when its row is clicked (issue 34);
//! - the bytes page ran its ceilings into the next sentence ("4814 GB/s Bytes and ...");
//! - the roofline and memory pages scrolled sideways by the charts' border (2 px);
//! - a report with nothing to plot showed "Kernels on the chart, by time" over nothing;
//! - Timing's one filled column on applications stretched across the panel, its times
//!   right-aligned far from their header;
//! - run against run broke every verdict at its hyphen ("memory-" / "bound");
//! - the side bar stayed 16rem at every width, its kernel names over three lines;
//! - at 800 px a kernel label of GPT-2's roofline sat on the x axis, and at 1920 px its
//!   7th label went 96 px from its points to keep off a line;
//! - Compare's kernel pickers showed the run's path and a few characters of the name;
//! - the stall chart was 320 px tall whatever its rows, a third of it empty for GPT-2's GEMM;
//! - the Source page told a report, an artifact and CSV pages the same sentence about
//!   reports: it names what each lacks and the one command that adds it;
//! - Occupancy's "limited by" and the ranking's "time %" were past the panel's edge at
//!   1500 px; a report's raw metrics opened on a screen of `n/a` Triage metrics;
//! - Timing described event times over ncu's durations only; the Overview's ceilings card
//!   was seven dashes on every report; the memory chart left out a GEMM's TMA loads; the
//!   raw metrics had a warm-cache column of `-` on runs without a warm pass; an empty
//!   roofline's frame said nothing (the why was under it and the export buttons).
//!
//! Needs `site/dist` (`bash site/build.sh`), Debian's `chromium` and `chromium-driver`.

use std::time::Duration;

use fantoccini::Locator;
use roofline_browser_tests::{dist_dir, gunzipped_as, BoxError, Browser, StaticServer};

const WAIT: Duration = Duration::from_secs(60);
const GPT2: &str = "samples/h200-gpt2-bf16.json";
const BERT: &str = "src=test/bert_raw.csv&src=test/bert_details.csv";

/// Opens `query` on `tab` and waits for its page's table.
async fn open(b: &Browser, base: &str, query: &str, tab: &str) -> Result<(), BoxError> {
    open_page(b, base, query, tab).await?;
    b.wait_js(
        &format!("return document.querySelector('#page-{tab} td') ? true : null"),
        WAIT,
    )
    .await?;
    Ok(())
}

/// Opens `query` on `tab` and waits for its page (one without a table).
async fn open_page(b: &Browser, base: &str, query: &str, tab: &str) -> Result<(), BoxError> {
    b.client.goto("about:blank").await?;
    b.client.goto(&format!("{base}?{query}&view={tab}")).await?;
    b.wait_js(
        &format!("return document.getElementById('page-{tab}')"),
        WAIT,
    )
    .await?;
    Ok(())
}

/// The page's name cells: how many, how many are cut (a `…` other than a template's
/// `<…>`), and those whose text is wider than their box (clipped by the browser).
async fn name_cells(b: &Browser) -> Result<(u64, u64, Vec<String>), BoxError> {
    let v = b
        .client
        .execute(
            "const cells = [...document.querySelectorAll('.page td.name')]; \
             return [cells.length, cells.filter(td => td.textContent.replaceAll('<…>', '').includes('…')).length, \
               cells.filter(td => td.scrollWidth > td.clientWidth + 1) \
                 .map(td => td.textContent + ' ' + td.scrollWidth + '>' + td.clientWidth)];",
            Vec::new(),
        )
        .await?;
    let clipped = v[2]
        .as_array()
        .map(|a| a.iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    Ok((
        v[0].as_u64().unwrap_or(0),
        v[1].as_u64().unwrap_or(0),
        clipped,
    ))
}

/// The cells of column `col` whose right edge is past the content panel's or their
/// scroller's visible right edge, and how many there are.
async fn cells_out_of_view(b: &Browser, col: &str) -> Result<(u64, Vec<String>), BoxError> {
    let v = b
        .client
        .execute(
            &format!(
                "const cells = [...document.querySelectorAll('td[data-col={col}]')]; \
                 const panel = document.querySelector('.content').getBoundingClientRect(); \
                 const out = cells.filter(td => {{ \
                   let p = td.parentElement; \
                   while (p && !(p.clientWidth > 0 && p.scrollWidth > p.clientWidth + 1 \
                     && getComputedStyle(p).overflowX !== 'visible')) p = p.parentElement; \
                   const edge = Math.min(panel.right, p ? p.getBoundingClientRect().right : panel.right); \
                   return td.getBoundingClientRect().right > edge + 1; }}) \
                   .map(td => td.textContent); \
                 return [cells.length, out];"
            ),
            Vec::new(),
        )
        .await?;
    let out = v[1]
        .as_array()
        .map(|a| a.iter().map(ToString::to_string).collect())
        .unwrap_or_default();
    Ok((v[0].as_u64().unwrap_or(0), out))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn what_the_screenshots_showed_stays_fixed() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join(GPT2).exists() {
        return Err(format!("{GPT2} is missing from site/dist: run bash site/build.sh").into());
    }
    let server = StaticServer::start(dist)?;
    for (url, fixture, name) in [
        (
            "/test/bert_raw.csv",
            "corpus-h200/bert_base_fwd_full_raw.csv.gz",
            "looked_raw.csv",
        ),
        (
            "/test/bert_details.csv",
            "corpus-h200/bert_base_fwd_full_details.csv.gz",
            "looked_details.csv",
        ),
        ("/test/run1.json", "diff/run1.json.gz", "looked_run1.json"),
        ("/test/run2.json", "diff/run2.json.gz", "looked_run2.json"),
    ] {
        server.add(url, gunzipped_as(fixture, name)?);
    }
    let b = Browser::start().await?;
    let base = server.base.as_str();
    let result = async {
        side_bar_widens(&b, base).await?;
        roofline_labels_keep_off_the_axes(&b, base).await?;
        compare_pickers_show_whole_names(&b, base).await?;
        b.client.set_window_size(1500, 1100).await?;
        stall_chart_fits_its_rows(&b, base).await?;
        source_page_says_what_is_missing(&b, base).await?;
        names_cut_in_the_middle(&b, base).await?;
        sol_deciding_figures_in_view(&b, base).await?;
        charts_fit_their_page(&b, base).await?;
        small_tables_and_lists(&b, base).await?;
        empty_roofline_says_why(&b, base).await?;
        raw_metrics_open_on_values(&b, base).await?;
        memory_chart_counts_tma_loads(&b, base).await?;
        mixed_kernel_opens_on_the_time_page(&b, base).await
    }
    .await;
    b.close().await?;
    result
}

/// The side bar widens with the window.
async fn side_bar_widens(b: &Browser, base: &str) -> Result<(), BoxError> {
    let mut side = Vec::new();
    for w in [1500, 1920] {
        b.client.set_window_size(w, 1100).await?;
        open(b, base, &format!("src={GPT2}"), "time").await?;
        let px = b
            .client
            .execute(
                "return document.querySelector('.side').getBoundingClientRect().width",
                Vec::new(),
            )
            .await?;
        side.push(px.as_f64().unwrap_or(f64::NAN));
    }
    println!("side bar at 1500 and 1920 px: {side:?} px wide");
    assert!(
        side[1] > side[0] + 40.0,
        "the side bar does not widen: {side:?}"
    );
    // The run's entry shows the file's name, not its path cut at the end; the path is its
    // title. (At 1500 px the report's `samples/h200-two-process.ncu-rep` lost its end.)
    let run = b
        .client
        .execute(
            "const e = document.querySelector('#run-list .run-name'); \
             return [e.textContent, e.title, e.scrollWidth <= e.clientWidth + 1];",
            Vec::new(),
        )
        .await?;
    assert_eq!(
        run,
        serde_json::json!(["h200-gpt2-bf16.json", GPT2, true]),
        "the run's entry"
    );
    // A run of two exports wraps its name rather than lose its end (`bert_details.cs` at
    // 1500 px).
    b.client.set_window_size(1500, 1100).await?;
    open(b, base, BERT, "time").await?;
    let cut = b
        .client
        .execute(
            "const e = document.querySelector('#run-list .run-name'); \
             const li = e.closest('li').getBoundingClientRect(); \
             const r = e.getBoundingClientRect(); \
             return [e.textContent, r.right <= li.right + 1 && r.bottom <= li.bottom + 1];",
            Vec::new(),
        )
        .await?;
    assert_eq!(
        cut,
        serde_json::json!(["bert_raw.csv + bert_details.csv", true]),
        "the two exports' run entry is cut"
    );
    Ok(())
}

/// No kernel label of the roofline sits on an axis: at 800 px GPT-2's fifth kernel's label
/// lay on the x axis, under the lowest tick, where it read as an axis label.
async fn roofline_labels_keep_off_the_axes(b: &Browser, base: &str) -> Result<(), BoxError> {
    for query in [format!("src={GPT2}"), BERT.into()] {
        for w in [800, 1500, 1920] {
            b.client.set_window_size(w, 1100).await?;
            open_page(b, base, &query, "roofline").await?;
            let v = b
                .wait_js(
                    "const c = document.getElementById('roofline-canvas'); \
                     return c && Number(c.dataset.drawn) > 0 && c.dataset.labels \
                       && [c.dataset.labels, c.dataset.area || '[]'];",
                    WAIT,
                )
                .await?;
            let labels: serde_json::Value = serde_json::from_str(v[0].as_str().unwrap_or("[]"))?;
            let area: Vec<f64> = serde_json::from_str(v[1].as_str().unwrap_or("[]"))?;
            assert_eq!(area.len(), 4, "{query} at {w} px: no plot area: {v}");
            let kernels: Vec<&serde_json::Value> = labels
                .as_array()
                .into_iter()
                .flatten()
                .filter(|l| l["kind"] == "kernel")
                .collect();
            assert!(!kernels.is_empty(), "{query} at {w} px: no kernel label");
            let on_axis: Vec<String> = kernels
                .iter()
                .filter(|l| {
                    let n = |k: &str| l[k].as_f64().unwrap_or(f64::NAN);
                    !(n("y1") <= area[3] - 3.0 && n("x0") >= area[0] + 3.0)
                })
                .map(ToString::to_string)
                .collect();
            assert!(
                on_axis.is_empty(),
                "{query} at {w} px: kernel labels on an axis (plot area {area:?}): {on_axis:?}"
            );
            // Each label near one of its kernel's points: GPT-2's 7th went 96 px away at
            // 1920 px to keep off a line, its leader across other kernels.
            let hits = b
                .client
                .execute(
                    "return document.getElementById('roofline-canvas').dataset.hits",
                    Vec::new(),
                )
                .await?;
            let hits: serde_json::Value = serde_json::from_str(hits.as_str().unwrap_or("[]"))?;
            let far: Vec<String> = kernels
                .iter()
                .filter_map(|l| {
                    let n = |k: &str| l[k].as_f64().unwrap_or(f64::NAN);
                    let d = hits
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|h| h[2] == l["kernel"])
                        .map(|h| {
                            let (x, y) =
                                (h[0].as_f64().unwrap_or(0.0), h[1].as_f64().unwrap_or(0.0));
                            (x.clamp(n("x0"), n("x1")) - x).hypot(y.clamp(n("y0"), n("y1")) - y)
                        })
                        .fold(f64::INFINITY, f64::min);
                    (d > 60.0).then(|| format!("{} {d:.0} px", l["text"]))
                })
                .collect();
            // Left open: BERT at 800 px, where its second GEMM's DRAM point sits at the right
            // edge among the other GEMMs' points, the subtitle and two roof labels, and the
            // nearest free box is 126 px away (moving such a label to the list instead is
            // for application.rs, which wants the top five labelled at every width).
            let crowded = query == BERT && w == 800;
            println!("{query} at {w} px: labels farther than 60 px from their points: {far:?}");
            assert!(
                crowded || far.is_empty(),
                "{query} at {w} px: labels far from their points: {far:?}"
            );
        }
        println!("{query}: kernel labels off the axes at 800, 1500 and 1920 px");
    }
    Ok(())
}

/// Compare's kernel pickers show the whole kernel name: they held `run path: name`, the
/// name cut after a few characters (`samples/h200-gpt2-bf16.json: nvjet_sm9`).
async fn compare_pickers_show_whole_names(b: &Browser, base: &str) -> Result<(), BoxError> {
    for (query, w) in [
        (format!("src={GPT2}"), 800),
        (format!("src={GPT2}"), 1500),
        ("src=test/run1.json&src=test/run2.json".into(), 1500),
    ] {
        b.client.set_window_size(w, 1100).await?;
        open_page(b, base, &query, "compare").await?;
        let pickers = b
            .wait_js(
                "const p = ['compare-a', 'compare-b'].map(id => document.getElementById(id)); \
                 if (p.some(e => !e || !e.value)) return null; \
                 return p.map(e => [e.value, e.scrollWidth, e.clientWidth]);",
                WAIT,
            )
            .await?;
        println!("{query} at {w} px, the pickers: {pickers}");
        for p in pickers.as_array().into_iter().flatten() {
            let value = p[0].as_str().unwrap_or_default();
            let (scroll, client) = (p[1].as_f64(), p[2].as_f64());
            assert!(
                scroll.zip(client).is_some_and(|(s, c)| s <= c + 1.0),
                "{query} at {w} px: the picker's text is cut: {p}"
            );
            assert!(
                !value.starts_with("samples/") && !value.starts_with("test/"),
                "{query} at {w} px: the picker starts with a path: {value}"
            );
        }
    }
    Ok(())
}

/// The stall chart is as tall as its bars: at 320 px for every kernel it left a third of
/// itself empty under GPT-2's GEMM's seven reasons.
async fn stall_chart_fits_its_rows(b: &Browser, base: &str) -> Result<(), BoxError> {
    open(b, base, &format!("src={GPT2}"), "occupancy").await?;
    let v = b
        .wait_js(
            "const c = document.getElementById('stall-canvas'); \
             return c && Number(c.dataset.drawn) > 0 \
               && [Number(c.dataset.rows), c.getBoundingClientRect().height];",
            WAIT,
        )
        .await?;
    let (rows, height) = (v[0].as_f64().unwrap_or(0.0), v[1].as_f64().unwrap_or(0.0));
    println!("gpt2's stall chart: {rows} rows in {height} px");
    // The title (34 px), 26 px a row, 6 px under them and the border.
    let needed = 34.0 + 26.0 * rows + 6.0 + 2.0;
    assert!(rows >= 5.0, "{v}");
    assert!(
        (height - needed).abs() <= 1.0,
        "the stall chart is {height} px tall for {rows} rows ({needed} px needed)"
    );
    Ok(())
}

/// A kernel without source counters: the Source page says what is missing and gives the
/// one command that adds it, for the input the run came from (it said the same sentence
/// about reports for a report, an artifact and CSV pages).
async fn source_page_says_what_is_missing(b: &Browser, base: &str) -> Result<(), BoxError> {
    for (query, why, command) in [
        (
            "src=samples/h200-two-process.ncu-rep".to_string(),
            "h200-two-process.ncu-rep has no per-instruction figures",
            "ncu --set full --import-source yes -o h200-two-process-full PROGRAM ARGS",
        ),
        (
            format!("src={GPT2}"),
            "profiled by capture profile without --source",
            "capture profile --source --keep-exports -o ",
        ),
        (
            BERT.to_string(),
            "Raw and details pages hold no per-instruction figures",
            "ncu --import REPORT.ncu-rep --csv --page source --print-source cuda,sass",
        ),
    ] {
        open_page(b, base, &query, "source").await?;
        let said = b
            .wait_js(
                "const n = document.getElementById('source-none'); \
                 const c = n && n.querySelector('pre.command'); \
                 return c && [n.querySelector('p').textContent, c.textContent];",
                WAIT,
            )
            .await?;
        println!("{query}: {said}");
        let (text, cmd) = (
            said[0].as_str().unwrap_or_default(),
            said[1].as_str().unwrap_or_default(),
        );
        assert!(text.contains(why), "{query}: {text}");
        assert!(cmd.starts_with(command), "{query}: {cmd}");
    }
    Ok(())
}

/// Kernel names in the tables: cut in the middle, none clipped.
async fn names_cut_in_the_middle(b: &Browser, base: &str) -> Result<(), BoxError> {
    for tab in ["time", "sol", "bytes", "occupancy"] {
        open(b, base, &format!("src={GPT2}"), tab).await?;
        let (n, cut, clipped) = name_cells(b).await?;
        println!("gpt2 {tab} at 1500 px: {n} names, {cut} cut in the middle");
        assert!(n >= 20 && cut >= 5, "{tab}: {n} name cells, {cut} cut");
        assert!(clipped.is_empty(), "{tab}: names clipped: {clipped:?}");
    }
    Ok(())
}

/// Speed of Light: the verdict and the figures that decide it in view.
async fn sol_deciding_figures_in_view(b: &Browser, base: &str) -> Result<(), BoxError> {
    for query in [
        format!("src={GPT2}"),
        "src=samples/h200.json".into(),
        "src=samples/h200-two-process.ncu-rep".into(),
        BERT.into(),
    ] {
        open(b, base, &query, "sol").await?;
        for col in ["verdict", "sm_pct", "memory_pct"] {
            let (n, out) = cells_out_of_view(b, col).await?;
            assert!(n > 0, "{query}: no {col} cells");
            assert!(
                out.is_empty(),
                "{query}: {col} past the right edge: {out:?}"
            );
        }
        println!("{query}: SOL's verdict, SM % and Memory % inside the panel at 1500 px");
    }
    // The bytes table at 800 px: the verdict came after the launches and the summed time,
    // cut at the panel's edge ("latency-bo").
    b.client.set_window_size(800, 1100).await?;
    for query in [format!("src={GPT2}"), "src=samples/h200.json".into()] {
        open(b, base, &query, "bytes").await?;
        let (n, out) = cells_out_of_view(b, "verdict").await?;
        assert!(n > 0, "{query}: no verdict cells");
        assert!(
            out.is_empty(),
            "{query}: the bytes table's verdict past the edge at 800 px: {out:?}"
        );
    }
    b.client.set_window_size(1500, 1100).await?;
    // Where the time goes: each kernel's share of the time, the page's answer (it came
    // after the launches and the summed time, past the panel's edge).
    for query in [format!("src={GPT2}"), BERT.into()] {
        open(b, base, &query, "time").await?;
        for col in ["verdict", "roof", "time_share", "cumulative"] {
            let (n, out) = cells_out_of_view(b, col).await?;
            assert!(n > 0, "{query}: no {col} cells");
            assert!(
                out.is_empty(),
                "{query}: the ranking's {col} past the right edge: {out:?}"
            );
        }
    }
    // Occupancy: what limits it beside the two occupancies (GPT-2's GEMMs' "registers,
    // shared memory" was cut at the panel's edge behind the launch's shape).
    for query in [format!("src={GPT2}"), BERT.into()] {
        open(b, base, &query, "occupancy").await?;
        for col in ["theoretical", "achieved", "limiter"] {
            let (n, out) = cells_out_of_view(b, col).await?;
            assert!(n > 0, "{query}: no {col} cells");
            assert!(
                out.is_empty(),
                "{query}: occupancy's {col} past the right edge: {out:?}"
            );
        }
    }
    Ok(())
}

/// The charts fit their page: a canvas 100 % wide plus its border made the roofline and
/// memory pages scroll sideways by 2 px.
async fn charts_fit_their_page(b: &Browser, base: &str) -> Result<(), BoxError> {
    for tab in ["roofline", "memory"] {
        open_page(b, base, &format!("src={GPT2}"), tab).await?;
        b.wait_js(
            &format!(
                "const c = document.querySelector('#page-{tab} canvas'); \
                 return c && Number(c.dataset.drawn || 1) > 0;"
            ),
            WAIT,
        )
        .await?;
        let widths = b
            .client
            .execute(
                &format!(
                    "const p = document.getElementById('page-{tab}'); \
                     return [p.scrollWidth, p.clientWidth];"
                ),
                Vec::new(),
            )
            .await?;
        let (scroll, client) = (widths[0].as_f64(), widths[1].as_f64());
        assert!(
            scroll.zip(client).is_some_and(|(s, c)| s <= c + 1.0),
            "{tab} page scrolls sideways: {widths}"
        );
    }
    Ok(())
}

/// Timing's times under their header (and no sentence about event times a run lacks), the
/// Overview's ceilings card, run against run's verdicts on one line and its "moved most"
/// readable at 800 px, the bytes page's ceilings a sentence of their own.
async fn small_tables_and_lists(b: &Browser, base: &str) -> Result<(), BoxError> {
    open(b, base, &format!("src={GPT2}"), "timing").await?;
    let width = b
        .client
        .execute(
            "return document.querySelector('#timing-table td[data-col=ncu_cold]') \
               .getBoundingClientRect().width",
            Vec::new(),
        )
        .await?;
    let width = width.as_f64().unwrap_or(f64::NAN);
    assert!(width < 200.0, "timing's time column is {width} px wide");

    // The Overview's measured ceilings: a sentence where the run has none (seven dashes on
    // every report and profile), the figures where it has them.
    for (query, said) in [
        ("src=samples/h200-two-process.ncu-rep", "None in this run"),
        ("src=samples/h200.json", "copy (read + write)"),
    ] {
        open_page(b, base, query, "overview").await?;
        let card = b
            .wait_js(
                "const c = document.getElementById('ceilings'); return c && c.textContent;",
                WAIT,
            )
            .await?;
        let card = card.as_str().unwrap_or_default();
        assert!(card.contains(said), "{query}: the ceilings card: {card}");
        assert!(!card.contains("read only-"), "{query}: dashes: {card}");
    }

    // Event time described only where there are event times: on a report the page said
    // what a plain run is over a table of ncu's durations only.
    for (query, said) in [
        ("src=samples/h200-two-process.ncu-rep", "none in this run"),
        ("src=samples/h200.json", "a plain run, no profiler"),
    ] {
        open(b, base, query, "timing").await?;
        let v = b
            .client
            .execute(
                "return [document.querySelector('#page-timing .controls li').textContent, \
                   [...document.querySelectorAll('#timing-table th')].map(th => th.textContent).join('|')];",
                Vec::new(),
            )
            .await?;
        println!("{query}: timing says {v}");
        assert!(
            v[0].as_str().is_some_and(|t| t.contains(said)),
            "{query}: {v}"
        );
    }

    open(b, base, "src=test/run1.json&src=test/run2.json", "compare").await?;
    let broken = b
        .wait_js(
            "const cells = [...document.querySelectorAll('#run-diff-table td.nowrap')]; \
             if (!cells.length) return null; \
             return [cells.length, cells.filter(td => { const r = document.createRange(); \
               r.selectNodeContents(td); return r.getClientRects().length > 1; }).length];",
            WAIT,
        )
        .await?;
    println!("run against run: {broken} (verdict cells, broken over lines)");
    assert_eq!(broken[1].as_u64(), Some(0), "verdicts broken: {broken}");
    // At 800 px "moved most" was squeezed to ~40 px, a word a line (one row 300 px tall).
    b.client.set_window_size(800, 1100).await?;
    let moved = b
        .wait_js(
            "const cells = [...document.querySelectorAll('#run-diff-table td.moved')] \
               .filter(td => td.textContent.trim()); \
             return cells.length && cells.map(td => Math.round(td.getBoundingClientRect().width));",
            WAIT,
        )
        .await?;
    b.client.set_window_size(1500, 1100).await?;
    println!("run against run at 800 px, 'moved most' widths: {moved}");
    assert!(
        moved
            .as_array()
            .is_some_and(|w| w.iter().all(|w| w.as_f64().unwrap_or(0.0) >= 200.0)),
        "'moved most' squeezed at 800 px: {moved}"
    );

    open(b, base, "src=samples/h200.json", "bytes").await?;
    let intro = b
        .client
        .execute(
            "return document.querySelector('#page-bytes p').textContent",
            Vec::new(),
        )
        .await?;
    let intro = intro.as_str().unwrap_or_default();
    assert!(
        intro.contains("GB/s. Bytes and time"),
        "the ceilings run on: {intro}"
    );
    Ok(())
}

/// No heading over an empty roofline; its frame says why itself (its subtitle, also the
/// canvas's accessible name): it was roofs only, the sentence under it and the export
/// buttons.
async fn empty_roofline_says_why(b: &Browser, base: &str) -> Result<(), BoxError> {
    open_page(b, base, "src=samples/h200-two-process.ncu-rep", "roofline").await?;
    let headed = b
        .wait_js(
            "const p = document.getElementById('page-roofline'); \
             if (!p.textContent.includes('Nothing to plot')) return null; \
             return [...p.querySelectorAll('h3')].map(h => h.textContent).join('|') || 'none';",
            WAIT,
        )
        .await?;
    assert_eq!(headed, "none", "headings over an empty roofline");
    let label = b
        .client
        .execute(
            "return document.getElementById('roofline-canvas').getAttribute('aria-label')",
            Vec::new(),
        )
        .await?;
    let label = label.as_str().unwrap_or_default();
    assert!(
        label.contains(": Nothing to plot: no kernel has FLOP or OP counts"),
        "the empty roofline's name: {label}"
    );
    Ok(())
}

/// The raw metrics of BERT-base open on metrics with values: its Triage metrics, `n/a` in
/// every launch, sorted first by name and filled the first screen.
async fn raw_metrics_open_on_values(b: &Browser, base: &str) -> Result<(), BoxError> {
    open(b, base, BERT, "metrics").await?;
    let first = b
        .client
        .execute(
            "return [...document.querySelectorAll('#metrics-table td[data-col=cold]')] \
               .slice(0, 20).map(td => td.textContent);",
            Vec::new(),
        )
        .await?;
    let cells: Vec<&str> = first
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str())
        .collect();
    println!("bert's first raw metrics: {cells:?}");
    assert_eq!(cells.len(), 20, "{first}");
    assert!(
        cells.iter().all(|c| *c != "n/a"),
        "the raw metrics open on n/a rows: {cells:?}"
    );
    // The warm-cache column only where there is a warm pass: a column of "-" on GPT-2's
    // profile and BERT's export, kept for the suite's two passes.
    for (query, warm) in [
        (format!("src={GPT2}"), false),
        (BERT.to_string(), false),
        ("src=samples/h200.json".to_string(), true),
    ] {
        open(b, base, &query, "metrics").await?;
        let heads = b
            .client
            .execute(
                "return [...document.querySelectorAll('#metrics-table th')] \
                   .map(th => th.textContent).join('|');",
                Vec::new(),
            )
            .await?;
        let heads = heads.as_str().unwrap_or_default();
        assert_eq!(heads.contains("warm cache"), warm, "{query}: {heads}");
    }
    Ok(())
}

/// The memory chart of BERT's top GEMM shows the bytes its TMA loads brought: it showed
/// 1.97 MB from the kernel to L1/TEX beside 586 MB between L1 and L2, with nothing to say the
/// operands came by TMA (the roofline's note said so).
async fn memory_chart_counts_tma_loads(b: &Browser, base: &str) -> Result<(), BoxError> {
    open_page(b, base, BERT, "memory").await?;
    let line = b
        .wait_js(
            "const d = document.querySelector(\"dl[data-for='memory-canvas'] dd[data-flow='kernel-l1']\"); \
             return d && d.textContent;",
            WAIT,
        )
        .await?;
    let line = line.as_str().unwrap_or_default();
    println!("bert's kernel -> L1/TEX: {line}");
    assert!(line.contains("GB TMA loads"), "{line}");
    // GPT-2's GEMM: its export has no TMA counter; the arrow says the loads are not counted
    // (it read 24.3 kB, 0 requests, beside L1/TEX at 73.5 % of peak).
    open_page(b, base, &format!("src={GPT2}"), "memory").await?;
    let gpt2 = b
        .wait_js(
            "const d = document.querySelector(\"dl[data-for='memory-canvas'] dd[data-flow='kernel-l1']\"); \
             return d && d.textContent;",
            WAIT,
        )
        .await?;
    let gpt2 = gpt2.as_str().unwrap_or_default();
    println!("gpt2's kernel -> L1/TEX: {gpt2}");
    assert!(gpt2.contains("TMA loads, not counted"), "{gpt2}");
    // A report without byte counters: its missing hit rates read "-", not "- %".
    open_page(b, base, "src=samples/h200-two-process.ncu-rep", "memory").await?;
    let facts = b
        .wait_js(
            "const p = document.querySelector('#page-memory p'); return p && p.textContent;",
            WAIT,
        )
        .await?;
    let facts = facts.as_str().unwrap_or_default();
    assert!(
        facts.contains("L1 hit: -") && !facts.contains("- %"),
        "{facts}"
    );
    Ok(())
}

/// BERT's mixed GEMM opens into its two groups on "Where the time goes" when its row is
/// clicked.
async fn mixed_kernel_opens_on_the_time_page(b: &Browser, base: &str) -> Result<(), BoxError> {
    open(b, base, BERT, "time").await?;
    b.client
        .find(Locator::XPath(
            "//table[@id='time-table']//td[contains(@title, 'nvjet_sm90_tst_192x128')]",
        ))
        .await?
        .click()
        .await?;
    let groups = b
        .wait_js(
            "const d = [...document.querySelectorAll('#time-groups details')] \
               .find(d => d.open && d.querySelector('summary').title.includes('nvjet_sm90_tst_192x128')); \
             return d ? [...d.querySelectorAll('tbody tr')].map(tr => [...tr.cells].map(c => c.textContent).join(' | ')) : null;",
            WAIT,
        )
        .await?;
    let groups: Vec<String> = groups
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    println!("bert nvjet 192x128 opened on the time page: {groups:#?}");
    assert_eq!(groups.len(), 2, "{groups:?}");
    assert!(
        groups.iter().any(|g| g.contains(" | latency-bound | ")),
        "{groups:?}"
    );
    assert!(
        groups.iter().any(|g| g.contains(" | balanced | ")),
        "{groups:?}"
    );
    Ok(())
}
