//! Issue 53 in headless Chromium: every kernel table sorts with the mouse and the keyboard
//! (`aria-sort` says how) and opens by time, most first; no two different kernels share a
//! name on a page; two runs land on Compare with the run against run first; the range tree
//! opens without narrowing and narrows only on "show only"; the glossary folds below
//! 1,700 px; the page has a `<main>` and the selected kernel `aria-current`.
//!
//! Needs `site/dist` (`bash site/build.sh`), Debian's `chromium` and `chromium-driver`.

use std::time::Duration;

use roofline_browser_tests::{dist_dir, gunzipped_as, BoxError, Browser, StaticServer};
use serde_json::Value;

const WAIT: Duration = Duration::from_secs(60);
const GPT2: &str = "samples/h200-gpt2-bf16.json";
const BERT_STEP: &str = "samples/h200-bert-train-step.json.gz";

/// Opens `query` on page `tab` and waits for a row of its table.
async fn open(b: &Browser, base: &str, query: &str, tab: &str) -> Result<(), BoxError> {
    b.client.goto("about:blank").await?;
    b.client.goto(&format!("{base}?{query}&view={tab}")).await?;
    b.wait_js(
        &format!("return document.querySelector('#page-{tab} tbody td') ? true : null"),
        WAIT,
    )
    .await?;
    Ok(())
}

/// The `data-value`s of column `col` (its place in the header) of table `id`, in row
/// order, as numbers where they read as one.
async fn column(b: &Browser, id: &str, col: usize) -> Result<Vec<Value>, BoxError> {
    let v = b
        .client
        .execute(
            &format!(
                "return [...document.querySelectorAll('#{id} tbody tr')].map(tr => {{ \
                   const td = tr.cells[{col}]; if (!td) return null; \
                   const v = td.dataset.value ?? td.textContent; \
                   const n = parseFloat(v); return Number.isFinite(n) ? n : v; }});"
            ),
            Vec::new(),
        )
        .await?;
    Ok(v.as_array().cloned().unwrap_or_default())
}

/// The `aria-sort` of every header of table `id`.
async fn aria_sorts(b: &Browser, id: &str) -> Result<Vec<String>, BoxError> {
    let v = b
        .client
        .execute(
            &format!(
                "return [...document.querySelectorAll('#{id} thead th')].map(th => th.getAttribute('aria-sort') || '');"
            ),
            Vec::new(),
        )
        .await?;
    Ok(v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default())
}

/// Whether the numbers of `v` are in order (`descending` or not), text and nulls ignored.
fn ordered(v: &[Value], descending: bool) -> bool {
    let nums: Vec<f64> = v.iter().filter_map(Value::as_f64).collect();
    nums.windows(2).all(|w| {
        if descending {
            w[0] >= w[1]
        } else {
            w[0] <= w[1]
        }
    })
}

/// Every kernel table sorts by a click and by Enter, and says so in `aria-sort`.
async fn tables_sort(b: &Browser, base: &str) -> Result<(), BoxError> {
    for (tab, id) in [
        ("sol", "sol-table"),
        ("bytes", "bytes-table"),
        ("occupancy", "occupancy-table"),
        ("timing", "timing-table"),
        ("time", "time-table"),
    ] {
        open(b, base, &format!("src={GPT2}"), tab).await?;
        let id_ok = b
            .client
            .execute(
                &format!("return !!document.getElementById('{id}');"),
                Vec::new(),
            )
            .await?;
        if id_ok != Value::Bool(true) {
            return Err(format!("{tab}: no #{id}").into());
        }
        // The last numeric column, by a click: largest first, then the other way.
        let heads = aria_sorts(b, id).await?;
        assert!(heads.iter().all(|h| h == "none"), "{tab}: {heads:?}");
        // The last column of numbers.
        let mut col = None;
        for c in (1..heads.len()).rev() {
            let cells = column(b, id, c).await?;
            if cells.iter().filter(|v| v.is_f64()).count() >= 2 {
                col = Some(c);
                break;
            }
        }
        let col = col.ok_or_else(|| format!("{tab}: no column of numbers"))?;
        b.client
            .execute(
                &format!("document.querySelectorAll('#{id} thead th')[{col}].click();"),
                Vec::new(),
            )
            .await?;
        b.wait_js(
            &format!(
                "const th = document.querySelectorAll('#{id} thead th')[{col}]; \
                 return th.getAttribute('aria-sort') !== 'none' ? th.getAttribute('aria-sort') : null;"
            ),
            WAIT,
        )
        .await?;
        let first = aria_sorts(b, id).await?;
        let v = column(b, id, col).await?;
        let dir = first.get(col).cloned().unwrap_or_default();
        assert!(
            ordered(&v, dir == "descending"),
            "{tab} col {col} {dir}: {v:?}"
        );
        // The keyboard: focus the header, Enter sorts the other way.
        b.client
            .execute(
                &format!(
                    "const th = document.querySelectorAll('#{id} thead th')[{col}]; th.focus(); \
                     th.dispatchEvent(new KeyboardEvent('keydown', {{key: 'Enter', bubbles: true}}));"
                ),
                Vec::new(),
            )
            .await?;
        let want = if dir == "descending" {
            "ascending"
        } else {
            "descending"
        };
        b.wait_js(
            &format!(
                "return document.querySelectorAll('#{id} thead th')[{col}].getAttribute('aria-sort') === '{want}' ? true : null;"
            ),
            WAIT,
        )
        .await?;
        let v = column(b, id, col).await?;
        assert!(
            ordered(&v, want == "descending"),
            "{tab} col {col} {want}: {v:?}"
        );
        println!("{tab}: sorted by column {col} {dir}, then {want} by Enter");
    }
    Ok(())
}

/// Kernel tables open by time, most first: the bytes table's time column is descending.
async fn opens_by_time(b: &Browser, base: &str) -> Result<(), BoxError> {
    open(b, base, &format!("src={GPT2}"), "bytes").await?;
    let v = b
        .client
        .execute(
            "return [...document.querySelectorAll('#bytes-table tbody td[data-col=time_ms]')].map(td => parseFloat(td.dataset.value));",
            Vec::new(),
        )
        .await?;
    let times: Vec<Value> = v.as_array().cloned().unwrap_or_default();
    assert!(times.len() >= 5, "{times:?}");
    assert!(ordered(&times, true), "bytes table not by time: {times:?}");
    Ok(())
}

/// No two different kernels share a displayed name on the side bar or a kernel table.
async fn names_unique(b: &Browser, base: &str, query: &str) -> Result<(), BoxError> {
    open(b, base, query, "sol").await?;
    let v = b
        .client
        .execute(
            "const pairs = [...document.querySelectorAll('#sol-table td.name')].map(td => [td.textContent, td.title]) \
               .concat([...document.querySelectorAll('.side button.kernel')].map(k => [k.querySelector('.kname').textContent, k.title])); \
             const seen = new Map(); const clash = []; \
             for (const [shown, name] of pairs) { const o = seen.get(shown); \
               if (o !== undefined && o !== name) clash.push(shown); seen.set(shown, name); } \
             return [pairs.length, clash];",
            Vec::new(),
        )
        .await?;
    assert!(v[0].as_u64().unwrap_or(0) >= 10, "{query}: {v}");
    assert_eq!(
        v[1],
        Value::Array(Vec::new()),
        "{query}: names shared by two kernels"
    );
    Ok(())
}

/// Two runs opened together land on Compare, the run against run first.
async fn two_runs_land_on_compare(b: &Browser, base: &str) -> Result<(), BoxError> {
    b.client.goto("about:blank").await?;
    b.client
        .goto(&format!("{base}?src=test/run1.json&src=test/run2.json"))
        .await?;
    b.wait_js(
        "return document.getElementById('page-compare') && document.getElementById('run-diff-table') ? true : null",
        WAIT,
    )
    .await?;
    let first = b
        .client
        .execute(
            "const t = document.querySelector('#page-compare table'); return t && t.id;",
            Vec::new(),
        )
        .await?;
    assert_eq!(first, Value::String("run-diff-table".into()), "{first}");
    Ok(())
}

/// The range tree: a top-level range's arrow opens it without narrowing, "open the largest
/// path" opens down to a leaf, and only "show only" narrows; a run without ranges says how
/// to record them.
async fn range_tree_reads_like_a_profile(b: &Browser, base: &str) -> Result<(), BoxError> {
    open(b, base, &format!("src={BERT_STEP}"), "time").await?;
    b.wait_js("return document.getElementById('range-tree')", WAIT)
        .await?;
    let rows = |depth: u32| {
        format!(
            "return document.querySelectorAll('#range-tree tr[data-depth=\"{depth}\"]').length;"
        )
    };
    let before = b.client.execute(&rows(3), Vec::new()).await?;
    let bars = b
        .client
        .execute(
            "return document.querySelectorAll('#range-tree .share-bar').length;",
            Vec::new(),
        )
        .await?;
    assert!(bars.as_u64().unwrap_or(0) >= 3, "share bars: {bars}");
    b.client
        .execute(
            "document.getElementById('range-largest').click();",
            Vec::new(),
        )
        .await?;
    b.wait_js(
        &format!(
            "return document.querySelectorAll('#range-tree tr[data-depth=\"3\"]').length > {} ? true : null;",
            before.as_u64().unwrap_or(0)
        ),
        WAIT,
    )
    .await?;
    let banner = b
        .client
        .execute(
            "return !!document.getElementById('range-banner');",
            Vec::new(),
        )
        .await?;
    assert_eq!(
        banner,
        Value::Bool(false),
        "opening a range narrowed the run"
    );
    // Siblings by time: the top level's times descend.
    let tops = b
        .client
        .execute(
            "return [...document.querySelectorAll('#range-tree tr[data-depth=\"2\"]')].map(tr => parseFloat(tr.cells[3].textContent));",
            Vec::new(),
        )
        .await?;
    println!("BERT step, depth-2 range times in the tree's order: {tops}");
    // A run without ranges (GPT-2's profile has none) names --torch-modules.
    open(b, base, &format!("src={GPT2}"), "time").await?;
    let none = b
        .wait_js(
            "const p = document.getElementById('range-none'); return p && p.textContent;",
            WAIT,
        )
        .await?;
    assert!(
        none.as_str().is_some_and(|t| t.contains("--torch-modules")),
        "{none}"
    );
    Ok(())
}

/// `<main>`, `aria-current` on the selected kernel, the canvas's summary, and the glossary
/// folded at 1500 px, open at 1920.
async fn landmarks_and_glossary(b: &Browser, base: &str) -> Result<(), BoxError> {
    b.client.set_window_size(1500, 1100).await?;
    open(b, base, &format!("src={GPT2}"), "sol").await?;
    let v = b
        .client
        .execute(
            "return [!!document.querySelector('main#content'), \
               document.querySelectorAll('.side [aria-current=true]').length, \
               document.getElementById('explain-panel').getBoundingClientRect().width];",
            Vec::new(),
        )
        .await?;
    assert_eq!(v[0], Value::Bool(true), "{v}");
    assert_eq!(v[1].as_u64(), Some(1), "{v}");
    assert!(
        v[2].as_f64().unwrap_or(999.0) < 60.0,
        "glossary open at 1500 px: {v}"
    );
    b.client.set_window_size(1920, 1100).await?;
    let w = b
        .wait_js(
            "const w = document.getElementById('explain-panel').getBoundingClientRect().width; return w > 200 ? w : null;",
            WAIT,
        )
        .await?;
    println!("glossary at 1920 px: {w} px wide");
    b.client.goto("about:blank").await?;
    b.client
        .goto(&format!("{base}?src={GPT2}&view=roofline"))
        .await?;
    let label = b
        .wait_js(
            "const c = document.querySelector('canvas.chart.roofline'); \
             return c && c.getAttribute('aria-label').includes('most time: 1 ') ? c.getAttribute('aria-label') : null;",
            WAIT,
        )
        .await?;
    println!("roofline aria-label: {label}");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn tables_names_compare_ranges_and_landmarks() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join(GPT2).exists() {
        return Err(format!("{GPT2} is missing from site/dist: run bash site/build.sh").into());
    }
    let server = StaticServer::start(dist)?;
    for (url, fixture, name) in [
        ("/test/run1.json", "diff/run1.json.gz", "tables_run1.json"),
        ("/test/run2.json", "diff/run2.json.gz", "tables_run2.json"),
    ] {
        server.add(url, gunzipped_as(fixture, name)?);
    }
    let b = Browser::start().await?;
    let base = server.base.as_str();
    let result = async {
        b.client.set_window_size(1500, 1100).await?;
        opens_by_time(&b, base).await?;
        tables_sort(&b, base).await?;
        names_unique(&b, base, &format!("src={GPT2}")).await?;
        names_unique(&b, base, &format!("src={BERT_STEP}")).await?;
        two_runs_land_on_compare(&b, base).await?;
        range_tree_reads_like_a_profile(&b, base).await?;
        landmarks_and_glossary(&b, base).await
    }
    .await;
    b.close().await?;
    result
}
