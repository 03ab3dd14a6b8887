//! End-to-end test of the static site in headless Chromium through WebDriver.
//!
//! Needs `site/dist` (built by `bash site/build.sh`), Debian's `chromium` and
//! `chromium-driver`, and the `capture` binary; `tests/run.sh` provides all three and runs
//! this test with `--ignored`. Screenshots go to `tests/out/`.
//!
//! The sample is `site/dist/samples/h200.json` (a real capture); `ROOFLINE_E2E_SAMPLE` can
//! point at another artifact, which is then served at that path instead.

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::Locator;
use roofline_browser_tests::{
    capture_bin, click, dist_dir, gunzipped, out_dir, workspace_root, BoxError, Browser,
    StaticServer,
};
use serde_json::Value;
use shared::Artifact;

const HOSTILE: &str = "<img src=x onerror=alert(1)>";
const WAIT: Duration = Duration::from_secs(30);

/// Numeric fields of `capture table --format json` that the bytes table shows.
const NUMERIC: [&str; 11] = [
    "launches",
    "time_ms",
    "time_share",
    "ask_bytes",
    "l1_bytes",
    "l2_bytes",
    "dram_bytes",
    "dram_per_ask",
    "gbs",
    "pct_of_copy",
    "gflops_total",
];

fn sample_path() -> PathBuf {
    std::env::var_os("ROOFLINE_E2E_SAMPLE")
        .map(PathBuf::from)
        .unwrap_or_else(|| dist_dir().join("samples/h200.json"))
}

/// `capture table SAMPLE --format json`, parsed.
fn capture_table_json(sample: &PathBuf) -> Result<Value, BoxError> {
    let bin = capture_bin();
    let out = std::process::Command::new(&bin)
        .args(["table", "--format", "json"])
        .arg(sample)
        .output()
        .map_err(|e| {
            format!(
                "could not run {}: {e} (build it with cargo build -p capture)",
                bin.display()
            )
        })?;
    if !out.status.success() {
        return Err(format!(
            "capture table failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    Ok(serde_json::from_slice(&out.stdout)?)
}

/// The rows of a table as `[{kernel, cells: {col: data-value}, texts: {col: text}}]`.
async fn table_cells(b: &Browser, table_id: &str) -> Result<Vec<Value>, BoxError> {
    let script = format!(
        "return Array.from(document.querySelectorAll('#{table_id} tbody tr')).map(tr => ({{ \
           kernel: tr.dataset.kernel, \
           cells: Object.fromEntries(Array.from(tr.querySelectorAll('td[data-col]')).map(td => [td.dataset.col, td.dataset.value || ''])), \
           texts: Object.fromEntries(Array.from(tr.querySelectorAll('td[data-col]')).map(td => [td.dataset.col, td.textContent])) }}));"
    );
    match b.client.execute(&script, Vec::new()).await? {
        Value::Array(rows) => Ok(rows),
        other => Err(format!("unexpected table dump: {other}").into()),
    }
}

fn same_number(page: &str, json: &Value) -> bool {
    match json {
        Value::Null => page.is_empty(),
        Value::Number(n) => match (page.parse::<f64>(), n.as_f64()) {
            (Ok(a), Some(b)) => a == b || (a - b).abs() <= 1e-12 * b.abs().max(1e-300),
            _ => false,
        },
        _ => false,
    }
}

async fn wait_drawn(b: &Browser, canvas: &str) -> Result<(), BoxError> {
    b.wait_js(
        &format!("const c = document.getElementById('{canvas}'); return c && Number(c.dataset.drawn) > 0;"),
        WAIT,
    )
    .await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn site_works_in_headless_chromium() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    let sample = sample_path();
    if !sample.exists() {
        return Err(format!(
            "{} is missing: run bash site/build.sh (it un-gzips the real H200 capture, site/samples/h200.json.gz)",
            sample.display()
        )
        .into());
    }
    let expected = capture_table_json(&sample)?;
    let kernels = expected["kernels"]
        .as_array()
        .ok_or("capture table json has no kernels")?;
    if kernels.is_empty() {
        return Err("the sample has no kernels".into());
    }

    let server = StaticServer::start(dist)?;
    server.add("/samples/h200.json", sample.clone());
    // The hostile name goes in as the first kernel of a copy of the sample.
    let mut hostile = Artifact::from_json(&std::fs::read_to_string(&sample)?)?;
    let first = hostile.kernels.first_mut().ok_or("no kernel to rename")?;
    first.name = HOSTILE.into();
    let hostile_path = out_dir().join("hostile.json");
    std::fs::write(&hostile_path, hostile.to_json())?;
    server.add("/test/hostile.json", hostile_path);

    let b = Browser::start().await?;
    let result = run_checks(&b, &server, kernels).await;
    if result.is_err() {
        let _ = b.screenshot("failure").await;
    }
    b.close().await?;
    result
}

#[expect(
    clippy::too_many_lines,
    reason = "the checks of one page load in the order a user meets them, over one browser session"
)]
async fn run_checks(b: &Browser, server: &StaticServer, kernels: &[Value]) -> Result<(), BoxError> {
    // 1. The sample opens by URL and the roofline canvas has drawn pixels.
    b.client
        .goto(&format!(
            "{}?src=samples/h200.json&view=roofline",
            server.base
        ))
        .await?;
    wait_drawn(b, "roofline-canvas").await?;
    let ink = b.canvas_ink("roofline-canvas").await?;
    assert!(
        ink > 2_000,
        "roofline canvas nearly blank: {ink} inked pixels"
    );
    b.screenshot("roofline").await?;
    click(b, "#tab-overview", WAIT).await?;
    b.wait_js("return document.querySelector('#device')", WAIT)
        .await?;
    b.screenshot("overview").await?;

    // 2. The bytes table shows exactly what capture table --format json prints.
    click(b, "#tab-bytes", WAIT).await?;
    b.wait_js(
        &format!(
            "return document.querySelectorAll('#bytes-table tbody tr').length === {}",
            kernels.len()
        ),
        WAIT,
    )
    .await?;
    let rows = table_cells(b, "bytes-table").await?;
    for (i, want) in kernels.iter().enumerate() {
        let row = rows
            .iter()
            .find(|r| r["kernel"] == Value::String(i.to_string()))
            .ok_or_else(|| format!("bytes table has no row for kernel {i}"))?;
        assert_eq!(row["cells"]["name"], want["name"], "kernel {i} name");
        for field in NUMERIC {
            let page = row["cells"][field].as_str().unwrap_or("");
            assert!(
                same_number(page, &want[field]),
                "kernel {i} {field}: page {page:?}, capture table {}",
                want[field]
            );
        }
        for field in ["verdict", "check"] {
            let page = row["cells"][field].as_str().unwrap_or("");
            let json = want[field].as_str().unwrap_or("");
            assert_eq!(page, json, "kernel {i} {field}");
        }
    }
    b.screenshot("bytes").await?;

    // 3. The Speed-of-Light table gives the same verdicts.
    click(b, "#tab-sol", WAIT).await?;
    b.wait_js(
        &format!(
            "return document.querySelectorAll('#sol-table tbody tr').length === {}",
            kernels.len()
        ),
        WAIT,
    )
    .await?;
    let sol = table_cells(b, "sol-table").await?;
    for (i, want) in kernels.iter().enumerate() {
        let row = sol
            .iter()
            .find(|r| r["kernel"] == Value::String(i.to_string()))
            .ok_or_else(|| format!("SOL table has no row for kernel {i}"))?;
        let page = row["texts"]["verdict"]
            .as_str()
            .unwrap_or("")
            .trim()
            .to_string();
        // A kernel whose launch groups disagree carries the mark after its verdict.
        let mixed = want["verdict_mixed"].as_bool().unwrap_or(false);
        let json = want["verdict"].as_str().unwrap_or("-");
        let json = if mixed {
            format!("{json}{}", shared::analysis::table::MIXED_MARK)
        } else {
            json.to_string()
        };
        assert_eq!(page, json, "kernel {i} verdict");
    }
    // Each kernel whose launch groups disagree opens into its groups under the table.
    let mixed: Vec<&Value> = kernels
        .iter()
        .filter(|k| k["verdict_mixed"].as_bool() == Some(true))
        .collect();
    let shown = b
        .wait_js(
            "return [document.querySelectorAll('#sol-groups details').length, \
               (() => { const d = document.querySelector('#sol-groups details'); \
                 if (!d) return 0; d.open = true; return d.querySelectorAll('tbody tr').length; })()];",
            WAIT,
        )
        .await?;
    assert_eq!(shown[0].as_u64(), Some(mixed.len() as u64), "{shown}");
    if let Some(first) = mixed.first() {
        let groups = first["groups"].as_array().map_or(0, Vec::len) as u64;
        assert!(groups >= 2, "a mixed kernel has two groups or more");
        assert_eq!(shown[1].as_u64(), Some(groups), "{shown}");
    }
    b.screenshot("sol").await?;

    // 4. Selecting a kernel fills the memory chart.
    click(b, "#tab-memory", WAIT).await?;
    let target = kernels
        .iter()
        .enumerate()
        .rev()
        .find(|(_, k)| !k["dram_bytes"].is_null())
        .map(|(i, _)| i)
        .ok_or("no kernel with DRAM bytes in the sample")?;
    click(
        b,
        &format!("#kernel-list button[data-kernel='{target}']"),
        WAIT,
    )
    .await?;
    let name = kernels[target]["name"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    b.wait_js(
        &format!(
            "const h = document.getElementById('memory-kernel'); return h && h.textContent === {};",
            Value::String(name.clone())
        ),
        WAIT,
    )
    .await?;
    b.wait_js(
        "return document.querySelector(\"dd[data-flow='l2-dram']\")",
        WAIT,
    )
    .await?;
    wait_drawn(b, "memory-canvas").await?;
    let ink = b.canvas_ink("memory-canvas").await?;
    assert!(ink > 1_000, "memory canvas nearly blank: {ink}");
    let url = b.client.current_url().await?;
    assert!(
        url.as_str().contains(&format!("kernel=0.{target}")),
        "selection not in the URL: {url}"
    );
    b.screenshot("memory").await?;

    // 5. A raw ncu CSV export loaded through the file input renders.
    let raw = workspace_root().join("tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv");
    let input = b.client.find(Locator::Css("#file-input")).await?;
    input.send_keys(&raw.to_string_lossy()).await?;
    b.wait_js(
        "return Array.from(document.querySelectorAll('#run-list li')).some(li => li.textContent.includes('probe_metrics_raw_with_stdout.csv'))",
        WAIT,
    )
    .await?;
    click(b, "#tab-roofline", WAIT).await?;
    wait_drawn(b, "roofline-canvas").await?;
    b.wait_js(
        "return Number(document.getElementById('roofline-canvas').dataset.points) > 0",
        WAIT,
    )
    .await?;
    assert!(b.canvas_ink("roofline-canvas").await? > 2_000);
    b.screenshot("raw-csv").await?;

    // 6. A bad file shows an error naming it, and the page keeps what it had.
    let bad = out_dir().join("not-an-export.csv");
    std::fs::write(
        &bad,
        "this is a shopping list, not an Nsight Compute export\neggs,milk\n",
    )?;
    let input = b.client.find(Locator::Css("#file-input")).await?;
    input.send_keys(&bad.to_string_lossy()).await?;
    b.wait_js(
        "return Array.from(document.querySelectorAll('#errors .error')).some(e => e.textContent.includes('not-an-export.csv'))",
        WAIT,
    )
    .await?;
    let runs = b
        .client
        .execute(
            "return document.querySelectorAll('#run-list li').length",
            Vec::new(),
        )
        .await?;
    assert_eq!(runs.as_u64(), Some(2), "a bad file dropped loaded runs");
    assert!(
        b.canvas_ink("roofline-canvas").await? > 2_000,
        "page went blank after a bad file"
    );
    b.screenshot("bad-file").await?;

    // 7. A hostile kernel name is text, never markup.
    b.client
        .goto(&format!("{}?src=test/hostile.json&view=bytes", server.base))
        .await?;
    b.wait_js(
        "return document.querySelector(\"#bytes-table td[data-col='name']\")",
        WAIT,
    )
    .await?;
    let shown = b
        .client
        .execute(
            "return document.querySelector(\"#bytes-table tr[data-kernel='0'] td[data-col='name']\").title",
            Vec::new(),
        )
        .await?;
    // The cell shows the short name; the full name is its hover text, as text.
    assert_eq!(shown.as_str(), Some(HOSTILE));
    let images = b
        .client
        .execute("return document.querySelectorAll('img').length", Vec::new())
        .await?;
    assert_eq!(
        images.as_u64(),
        Some(0),
        "the kernel name became an element"
    );
    assert!(
        b.client.get_alert_text().await.is_err(),
        "a script ran from a kernel name"
    );
    b.screenshot("hostile").await?;
    Ok(())
}

/// What the page must show for a file of the bad-input corpus (`tests/fixtures/bad/`, whose
/// README describes each file): it renders as a run whose overview lists these warnings
/// (substrings), or an error names the file with this reason.
type Expected = Result<&'static [&'static str], &'static str>;

/// The corpus, file by file; the same outcomes `tests/tests/cli/corpus.rs` checks in the CLI.
const CORPUS: &[(&str, Expected)] = &[
    ("empty.csv", Err("empty")),
    ("bom.csv", Ok(&["line 1: skipped 8 lines"])),
    ("crlf.csv", Ok(&["line 1: skipped 9 lines"])),
    ("semicolon.csv", Ok(&["line 1: skipped 8 lines"])),
    (
        "details_cut_mid_row.csv",
        Ok(&["line 50: the last row is cut off (truncated export); skipped"]),
    ),
    (
        "raw_no_units_row.csv",
        Err("line 10: no units row under the raw-page header (line 9)"),
    ),
    (
        "duplicate_columns.csv",
        Ok(&[
            "line 9: column \"dram__bytes_read.sum\" appears more than once",
            "line 9: column \"gpu__time_duration.sum\" appears more than once",
        ]),
    ),
    (
        "out_of_range.csv",
        Ok(&[
            "line 11: dram__bytes_write.sum is not a finite number",
            "line 11: gpu__time_duration.sum is negative",
            "line 12: dram__bytes_read.sum is out of range",
            "line 12: lts__t_bytes.sum is not a finite number",
        ]),
    ),
    ("long_kernel_name.csv", Ok(&["line 1: skipped 8 lines"])),
    ("artifact_missing_optional.json", Ok(&[])),
    (
        "artifact_future_schema.json",
        Err("newer than this build understands"),
    ),
    ("artifact_cut.json", Err("line 1542, column 5")),
    // Open (see the corpus README): loads with its bad values as they are, no warnings yet.
    ("artifact_out_of_range.json", Ok(&[])),
];

/// JavaScript string literal of `s`.
fn js(s: &str) -> String {
    Value::String(s.to_string()).to_string()
}

/// Runs in the list, and whether the page still shows the sample and its layout.
async fn page_state(b: &Browser) -> Result<(u64, bool), BoxError> {
    let v = b
        .client
        .execute(
            "const runs = Array.from(document.querySelectorAll('#run-list li')); \
             return [runs.length, \
               runs.some(li => li.textContent.includes('h200.json')) \
               && !!document.querySelector('.main #kernel-list') \
               && document.body.innerText.length > 200];",
            Vec::new(),
        )
        .await?;
    Ok((v[0].as_u64().unwrap_or(0), v[1].as_bool().unwrap_or(false)))
}

/// Loads one corpus file through the file input and checks what the page shows.
async fn check_corpus_file(b: &Browser, name: &str, expected: &Expected) -> Result<(), BoxError> {
    let path = workspace_root().join("tests/fixtures/bad").join(name);
    check_picked_file(b, &path, name, expected).await
}

/// [`check_corpus_file`] for the file at `path`, named `name`.
async fn check_picked_file(
    b: &Browser,
    path: &std::path::Path,
    name: &str,
    expected: &Expected,
) -> Result<(), BoxError> {
    let (runs_before, _) = page_state(b).await?;
    let input = b.client.find(Locator::Css("#file-input")).await?;
    input.send_keys(&path.to_string_lossy()).await?;
    // Either a new current run of that name, or an error naming the file.
    let outcome = b
        .wait_js(
            &format!(
                "const n = {name}; \
                 if (Array.from(document.querySelectorAll('#errors .error')).some(e => e.textContent.includes(n))) return 'error'; \
                 const cur = document.querySelector('#run-list li.current'); \
                 if (cur && cur.textContent.includes(n)) return 'run'; \
                 return '';",
                name = js(name)
            ),
            WAIT,
        )
        .await?;
    let (runs_after, intact) = page_state(b).await?;
    if !intact {
        return Err(format!("{name}: the page lost the sample or went blank").into());
    }
    match (expected, outcome.as_str()) {
        (Err(reason), Some("error")) => {
            let text = b
                .client
                .execute(
                    &format!(
                        "return Array.from(document.querySelectorAll('#errors .error')).map(e => e.textContent).find(t => t.includes({})) || ''",
                        js(name)
                    ),
                    Vec::new(),
                )
                .await?;
            let text = text.as_str().unwrap_or_default();
            if !text.starts_with(&format!("{name}: ")) || !text.contains(reason) {
                return Err(format!("{name}: error {text:?} lacks {reason:?}").into());
            }
            if runs_after != runs_before {
                return Err(format!("{name}: a refused file changed the runs").into());
            }
        }
        (Ok(warnings), Some("run")) => {
            if runs_after != runs_before + 1 {
                return Err(
                    format!("{name}: {runs_before} runs before, {runs_after} after").into(),
                );
            }
            click(b, "#tab-overview", WAIT).await?;
            b.wait_js(
                &format!(
                    "const h = document.querySelector('#page-overview h2'); return h && h.textContent.includes({}) && document.querySelectorAll('#kernel-list button.kernel').length > 0;",
                    js(name)
                ),
                WAIT,
            )
            .await?;
            let shown = b
                .client
                .execute(
                    "return Array.from(document.querySelectorAll('#warnings li')).map(li => li.textContent)",
                    Vec::new(),
                )
                .await?;
            let shown: Vec<&str> = shown
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            for want in warnings.iter() {
                let prefix = format!("{name}: ");
                if !shown
                    .iter()
                    .any(|w| w.starts_with(&prefix) && w.contains(want))
                {
                    return Err(
                        format!("{name}: no warning {want:?} on the overview: {shown:?}").into(),
                    );
                }
            }
        }
        (_, got) => {
            return Err(format!("{name}: expected {expected:?}, the page shows {got:?}").into())
        }
    }
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn corpus_files_render_with_warnings_or_name_themselves_in_an_error() -> Result<(), BoxError>
{
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    let server = StaticServer::start(dist)?;
    server.add("/samples/h200.json", sample_path());
    let b = Browser::start().await?;
    let result = async {
        b.client
            .goto(&format!("{}?src=samples/h200.json&view=overview", server.base))
            .await?;
        b.wait_js(
            "return document.querySelector('#run-list li') && document.querySelector('#page-overview')",
            WAIT,
        )
        .await?;
        let mut failures = Vec::new();
        for (name, expected) in CORPUS {
            if let Err(e) = check_corpus_file(&b, name, expected).await {
                failures.push(e.to_string());
            }
        }
        // A file larger than a tab can load is refused before it is read (a sparse file:
        // no bytes of it are written), saying so and what to do instead.
        let big = out_dir().join("too-large-raw.csv");
        std::fs::File::create(&big)?.set_len(viewer::state::load::MAX_FILE_BYTES + 1)?;
        let expected: Expected = Err("is more than a browser tab can load");
        if let Err(e) = check_picked_file(&b, &big, "too-large-raw.csv", &expected).await {
            failures.push(e.to_string());
        }
        let _ = std::fs::remove_file(&big);
        // The long name is whole on hover, shortened in the list.
        let (_, intact) = page_state(&b).await?;
        assert!(intact, "the page went blank during the corpus");
        if failures.is_empty() {
            Ok(())
        } else {
            Err(failures.join("\n").into())
        }
    }
    .await;
    let _ = b.screenshot("corpus").await;
    b.close().await?;
    result
}

/// Finds a pixel inside a filled roofline marker (exactly a series' colour, with the same
/// colour two pixels away each way); answers its CSS offset in the canvas, or null.
const FIND_MARKER: &str = r#"
const [colors] = arguments;
const c = document.getElementById('roofline-canvas');
const dpr = c.width / c.clientWidth;
const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
const want = new Set(colors.map(([r, g, b]) => (r << 16) | (g << 8) | b));
const at = (x, y) => (y * c.width + x) * 4;
for (let y = 2; y < c.height - 2; y++) for (let x = 2; x < c.width - 2; x++) {
  const i = at(x, y);
  if (d[i + 3] !== 255 || !want.has((d[i] << 16) | (d[i + 1] << 8) | d[i + 2])) continue;
  if ([[2, 0], [-2, 0], [0, 2], [0, -2]].every(([dx, dy]) => {
    const j = at(x + dx, y + dy);
    return d[j] === d[i] && d[j + 1] === d[i + 1] && d[j + 2] === d[i + 2];
  })) return [x / dpr, y / dpr];
}
return null;
"#;

/// Dispatches mouse event `type` on the roofline canvas at CSS offset (x, y).
fn mouse(kind: &str, at: &Value) -> String {
    format!(
        "const c = document.getElementById('roofline-canvas'); const r = c.getBoundingClientRect(); \
         c.dispatchEvent(new MouseEvent('{kind}', {{ bubbles: true, \
           clientX: r.left + c.clientLeft + {x}, clientY: r.top + c.clientTop + {y} }}));",
        x = at[0],
        y = at[1]
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
#[expect(
    clippy::too_many_lines,
    reason = "one browser session walks the page as a user would; its steps share the session"
)]
async fn long_tables_render_a_window_and_the_roofline_picks_its_points() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    // 3,000 kernels of one launch each, from the real fixture rows.
    const KERNELS: usize = 3_000;
    let fixture = std::fs::read_to_string(
        workspace_root().join("tests/fixtures/ncu-h200/probe_metrics_raw_with_stdout.csv"),
    )?;
    let csv = roofline_browser_tests::synthetic_raw_export(&fixture, KERNELS, KERNELS / 2)?;
    let path = out_dir().join("long-tables.csv");
    std::fs::write(&path, csv)?;
    let server = StaticServer::start(dist)?;
    let b = Browser::start().await?;
    let result = async {
        b.client
            .goto(&format!("{}?view=bytes", server.base))
            .await?;
        b.wait_js("return document.getElementById('file-input')", WAIT)
            .await?;
        let input = b.client.find(Locator::Css("#file-input")).await?;
        input.send_keys(&path.to_string_lossy()).await?;
        b.wait_js(
            "return document.querySelector('#bytes-table tbody tr[aria-rowindex=\"2\"]')",
            Duration::from_secs(60),
        )
        .await?;
        // The table knows its length but holds only a window of rows.
        let (count, in_page) = {
            let v = b
                .client
                .execute(
                    "const t = document.getElementById('bytes-table'); \
                     return [t.getAttribute('aria-rowcount'), t.tBodies[0].rows.length];",
                    Vec::new(),
                )
                .await?;
            (v[0].as_str().unwrap_or("").to_string(), v[1].as_u64())
        };
        assert_eq!(count, (KERNELS + 1).to_string(), "aria-rowcount");
        let in_page = in_page.unwrap_or(0);
        assert!(
            (10..200).contains(&in_page),
            "{in_page} rows in the page for {KERNELS} kernels"
        );
        // Scrolled to the end, the last kernel is there.
        b.client
            .execute(
                "const s = document.querySelector('#bytes-table').closest('.vscroll'); s.scrollTop = s.scrollHeight;",
                Vec::new(),
            )
            .await?;
        b.wait_js(
            &format!(
                "const tr = document.querySelector('#bytes-table tbody tr[aria-rowindex=\"{}\"]'); \
                 return tr && tr.dataset.kernel === '{}';",
                KERNELS + 1,
                KERNELS - 1
            ),
            WAIT,
        )
        .await?;
        b.screenshot("long-tables").await?;

        // The roofline: hovering a drawn point shows its kernel; clicking selects it.
        click(&b, "#tab-roofline", WAIT).await?;
        wait_drawn(&b, "roofline-canvas").await?;
        let colors: Vec<Value> = (0..10)
            .map(|i| {
                let c = shared::chart::palette(i);
                serde_json::json!([c.0, c.1, c.2])
            })
            .collect();
        let at = b
            .client
            .execute(FIND_MARKER, vec![Value::Array(colors)])
            .await?;
        if at.is_null() {
            return Err("no roofline marker found in the canvas".into());
        }
        b.client.execute(&mouse("mousemove", &at), Vec::new()).await?;
        let kernel = b
            .wait_js(
                "const t = document.querySelector('.chart-wrap .tooltip'); return t && t.dataset.kernel;",
                WAIT,
            )
            .await?;
        let kernel = kernel.as_str().unwrap_or("").to_string();
        b.client.execute(&mouse("click", &at), Vec::new()).await?;
        b.wait_js(
            &format!(
                "return document.getElementById('roofline-canvas-layer').dataset.selected === '{kernel}'"
            ),
            WAIT,
        )
        .await?;
        let url = b.client.current_url().await?;
        assert!(
            url.as_str().contains(&format!("kernel={kernel}")),
            "the clicked kernel {kernel} is not selected: {url}"
        );
        b.screenshot("long-roofline").await?;
        Ok::<(), BoxError>(())
    }
    .await;
    b.close().await?;
    result
}

/// A real bf16 workload (GPT-2 under `capture profile` on the H200, tensor counters
/// collected): the page opens on "where the time goes" with the 4096^3 matmul first, and the
/// roofline gives that matmul a tensor BF16 point near 790 TFLOP/s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn a_bf16_workload_ranks_its_kernels_and_draws_its_tensor_matmul() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("samples/h200-gpt2-bf16.json").exists() {
        return Err(
            "site/dist/samples/h200-gpt2-bf16.json is missing: run bash site/build.sh".into(),
        );
    }
    const MATMUL: &str = "nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT";
    let server = StaticServer::start(dist)?;
    let b = Browser::start().await?;
    let result = async {
        b.client
            .goto(&format!("{}?src=samples/h200-gpt2-bf16.json", server.base))
            .await?;
        // An application's artifact opens on the ranking, largest share first.
        b.wait_js(
            "return document.querySelector('#time-table tbody tr[aria-rowindex=\"2\"]')",
            WAIT,
        )
        .await?;
        let top = b
            .client
            .execute(
                "const tr = document.querySelector('#time-table tbody tr[aria-rowindex=\"2\"]'); \
                 return [tr.querySelector('td.name').title, \
                         tr.querySelector('[data-col=precision]').textContent, \
                         tr.querySelector('[data-col=roof]').textContent];",
                Vec::new(),
            )
            .await?;
        assert_eq!(top[0], MATMUL, "{top:?}");
        assert_eq!(top[1], "tensor_bf16", "{top:?}");
        assert!(
            top[2]
                .as_str()
                .unwrap_or("")
                .starts_with("compute (tensor BF16)"),
            "{top:?}"
        );
        let url = b.client.current_url().await?;
        assert!(url.as_str().contains("view=time"), "{url}");
        b.screenshot("gpt2-time").await?;

        // The roofline, each kernel at its own kind of work: the matmul has a point.
        click(&b, "#tab-roofline", WAIT).await?;
        wait_drawn(&b, "roofline-canvas").await?;
        click(&b, "#roofline-points summary", WAIT).await?;
        let find_point = format!(
            "const rows = [...document.querySelectorAll('#roofline-points tbody tr')]; \
             const r = rows.find(r => r.querySelector('td.name').title === '{MATMUL}' \
               && r.children[1].textContent === 'DRAM'); \
             return r && [r.children[2].textContent, \
               Number(r.querySelector('[data-col=gflop_per_s]').dataset.value) / 1e3];"
        );
        let tflops = b.wait_js(&find_point, WAIT).await?;
        assert_eq!(tflops[0], "tensor_bf16", "{tflops:?}");
        let t = tflops[1].as_f64().unwrap_or(0.0);
        assert!((700.0..900.0).contains(&t), "matmul at {t} TFLOP/s");
        b.screenshot("gpt2-roofline").await?;

        // The same program's export made with ncu's own roofline sections (DRAM only as a
        // rate, derived): opened by the file input, the matmul has the same point.
        let export =
            workspace_root().join("tests/fixtures/ncu-h200-torch/gpt2_bf16_roofline_set_raw.csv");
        b.client
            .goto(&format!("{}?view=roofline", server.base))
            .await?;
        b.wait_js("return document.getElementById('file-input')", WAIT)
            .await?;
        let input = b.client.find(Locator::Css("#file-input")).await?;
        input.send_keys(&export.to_string_lossy()).await?;
        wait_drawn(&b, "roofline-canvas").await?;
        click(&b, "#roofline-points summary", WAIT).await?;
        let point = b.wait_js(&find_point, WAIT).await?;
        assert_eq!(point[0], "tensor_bf16", "{point:?}");
        let t = point[1].as_f64().unwrap_or(0.0);
        assert!(
            (700.0..900.0).contains(&t),
            "roofline-set matmul at {t} TFLOP/s"
        );
        b.screenshot("gpt2-roofline-set").await?;
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("gpt2-failure").await;
    }
    b.close().await?;
    result
}

/// The bytes table of a raw export, as `capture import` then `capture table` would give it.
fn table_of_export(
    path: &std::path::Path,
) -> Result<shared::analysis::table::BytesTable, BoxError> {
    let text = std::fs::read_to_string(path)?;
    let export = shared::read::ncu::read_export(text.as_bytes())?;
    let (launches, warnings) = shared::read::ncu::combine(vec![export]);
    let artifact = shared::analysis::merge::import_launches(
        launches,
        warnings,
        shared::model::artifact::Provenance::default(),
    );
    Ok(shared::analysis::table::bytes_table(&artifact))
}

/// Latency-bound, explained: the six GEMMs' `--set full` export (warp-state counters) shows
/// the selected kernel's stall chart with its largest reasons explained on the occupancy
/// page, the reason of every latency-bound kernel on the Speed-of-Light page and in the
/// bytes table exactly as the shared table gives it, and both kernels' stalls in the
/// compare view; the PyTorch GPT-2 sample, collected without warp-state counters, says so
/// and still shows its launch fit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
#[expect(
    clippy::too_many_lines,
    reason = "one browser session walks the page as a user would; its steps share the session"
)]
async fn latency_bound_kernels_show_their_stalls_and_launch_fit() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("samples/h200-gpt2-bf16.json").exists() {
        return Err(
            "site/dist/samples/h200-gpt2-bf16.json is missing: run bash site/build.sh".into(),
        );
    }
    let gemms = workspace_root().join("tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv");
    let table = table_of_export(&gemms)?;
    let bf16 = table.kernels.first().ok_or("no GEMM")?;
    let bf16_reason = bf16
        .latency_reason
        .clone()
        .ok_or("bf16 GEMM has no reason")?;
    let server = StaticServer::start(dist)?;
    server.add("/test/gemms_full_raw.csv", gemms);
    let b = Browser::start().await?;
    let result = async {
        // 1. The occupancy page: the bf16 GEMM's stall chart, reasons and fit.
        b.client
            .goto(&format!(
                "{}?src=test/gemms_full_raw.csv&view=occupancy&kernel=0.0",
                server.base
            ))
            .await?;
        b.wait_js(
            &format!(
                "const h = document.getElementById('latency-kernel'); return h && h.textContent === {};",
                Value::String(bf16.name.clone())
            ),
            WAIT,
        )
        .await?;
        wait_drawn(&b, "stall-canvas").await?;
        let shown = b
            .wait_js(
                "const d = document.querySelector(\"dl[data-for='stall-canvas'] dd[data-stall='long_scoreboard']\"); \
                 return d && [d.textContent, \
                   [...document.querySelectorAll('#stall-reasons li')].map(li => li.dataset.stall), \
                   document.getElementById('latency-reason').textContent, \
                   document.querySelectorAll('#fit-notes li').length];",
                WAIT,
            )
            .await?;
        assert_eq!(shown[0], "25.2 %", "{shown:?}");
        assert_eq!(
            shown[1],
            serde_json::json!(["long_scoreboard", "gmma", "wait"]),
            "{shown:?}"
        );
        assert_eq!(
            shown[2].as_str(),
            Some(format!("latency-bound: {bf16_reason}").as_str())
        );
        assert!(shown[3].as_u64() >= Some(2), "{shown:?}");
        assert!(b.canvas_ink("stall-canvas").await? > 1_000, "stall chart blank");
        b.screenshot("stalls").await?;

        // 2. The Speed-of-Light page and the bytes table give each latency-bound kernel the
        //    shared table's reason.
        click(&b, "#tab-sol", WAIT).await?;
        b.wait_js(
            &format!(
                "return document.querySelectorAll('#sol-table tbody tr').length === {}",
                table.kernels.len()
            ),
            WAIT,
        )
        .await?;
        let sol = table_cells(&b, "sol-table").await?;
        click(&b, "#tab-bytes", WAIT).await?;
        b.wait_js(
            &format!(
                "return document.querySelectorAll('#bytes-table tbody tr').length === {}",
                table.kernels.len()
            ),
            WAIT,
        )
        .await?;
        let bytes = table_cells(&b, "bytes-table").await?;
        for (i, want) in table.kernels.iter().enumerate() {
            let find = |rows: &[Value]| {
                rows.iter()
                    .find(|r| r["kernel"] == Value::String(i.to_string()))
                    .cloned()
                    .ok_or_else(|| format!("no row for kernel {i}"))
            };
            let (s, t) = (find(&sol)?, find(&bytes)?);
            let because = s["texts"]["because"].as_str().unwrap_or("");
            let cell = t["cells"]["latency_reason"].as_str().unwrap_or("");
            match &want.latency_reason {
                Some(reason) => {
                    assert_eq!(because, reason, "kernel {i} on the SOL page");
                    assert_eq!(cell, reason, "kernel {i} in the bytes table");
                }
                None => {
                    assert!(!because.is_empty(), "kernel {i}: the SOL numbers");
                    assert_eq!(cell, "", "kernel {i}");
                }
            }
        }

        // 3. The compare view: both kernels' shares on every reason.
        b.client
            .goto(&format!(
                "{}?src=test/gemms_full_raw.csv&view=compare&kernel=0.0&cmp=0.5",
                server.base
            ))
            .await?;
        wait_drawn(&b, "compare-stalls").await?;
        let mio = b
            .wait_js(
                "const d = document.querySelector(\"dl[data-for='compare-stalls'] dd[data-stall='mio_throttle']\"); \
                 return d && d.textContent;",
                WAIT,
            )
            .await?;
        assert_eq!(mio.as_str(), Some("10.1 % → 35.7 %"), "{mio}");
        b.screenshot("compare-stalls").await?;

        // 4. The PyTorch sample (GPT-2 under capture profile, warp-state counters collected):
        //    a latency-bound kernel gets its reason, launch fit and stall chart.
        let expected = capture_table_json(&dist_dir().join("samples/h200-gpt2-bf16.json"))?;
        let kernels = expected["kernels"].as_array().ok_or("no kernels")?;
        let (i, k) = kernels
            .iter()
            .enumerate()
            .find(|(_, k)| k["verdict"] == "latency-bound")
            .ok_or("no latency-bound kernel in the GPT-2 sample")?;
        let reason = k["latency_reason"].as_str().ok_or("no reason")?;
        assert!(reason.contains("top stall"), "{reason}");
        b.client
            .goto(&format!(
                "{}?src=samples/h200-gpt2-bf16.json&view=occupancy&kernel=0.{i}",
                server.base
            ))
            .await?;
        let shown = b
            .wait_js(
                &format!(
                    "const p = document.getElementById('latency-reason'); \
                     return p && p.textContent === {} && !document.getElementById('no-stalls') \
                       && document.querySelectorAll('#stall-reasons li').length \
                       && document.querySelectorAll('#fit-notes li').length;",
                    Value::String(format!("latency-bound: {reason}"))
                ),
                WAIT,
            )
            .await?;
        assert!(shown.as_u64() >= Some(1), "{shown}");
        wait_drawn(&b, "stall-canvas").await?;
        b.screenshot("gpt2-stalls").await?;
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("stalls-failure").await;
    }
    b.close().await?;
    result
}

// == Nsight Compute reports (`.ncu-rep`) ==

/// The two-process report bundled with the site: a `--set basic` capture, so its kernels
/// have times but no DRAM bytes, and its roofline shows the ceilings without a point.
const REPORT_SAMPLE: &str = "samples/h200-two-process.ncu-rep";

/// `capture import REPORT` into tests/out, then `capture table --format json` of it.
fn capture_report_table(report: &std::path::Path) -> Result<Value, BoxError> {
    let stem = report.file_stem().unwrap_or_default().to_string_lossy();
    let artifact = out_dir().join(format!("{stem}.json"));
    let out = std::process::Command::new(capture_bin())
        .arg("import")
        .arg(report)
        .arg("-o")
        .arg(&artifact)
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "capture import {} failed: {}",
            report.display(),
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    capture_table_json(&artifact)
}

/// Checks that the bytes table shows what `capture table --format json` says of `kernels`.
async fn assert_bytes_table(b: &Browser, kernels: &[Value]) -> Result<(), BoxError> {
    click(b, "#tab-bytes", WAIT).await?;
    b.wait_js(
        &format!(
            "return document.querySelectorAll('#bytes-table tbody tr').length === {}",
            kernels.len()
        ),
        WAIT,
    )
    .await?;
    let rows = table_cells(b, "bytes-table").await?;
    for (i, want) in kernels.iter().enumerate() {
        let row = rows
            .iter()
            .find(|r| r["kernel"] == Value::String(i.to_string()))
            .ok_or_else(|| format!("bytes table has no row for kernel {i}"))?;
        assert_eq!(row["cells"]["name"], want["name"], "kernel {i} name");
        // Every numeric column the page shows, by the field name it carries.
        let cells = row["cells"].as_object().ok_or("no cells")?;
        let mut compared = 0;
        for (field, page) in cells {
            if !matches!(want[field], Value::Number(_) | Value::Null) || want.get(field).is_none() {
                continue;
            }
            let page = page.as_str().unwrap_or("");
            assert!(
                same_number(page, &want[field]),
                "kernel {i} {field}: page {page:?}, capture table {}",
                want[field]
            );
            compared += 1;
        }
        // The page drops only columns no kernel fills: every figure capture table has is
        // on the page (a report without DRAM counters has few: launches, time, share).
        for field in NUMERIC {
            assert!(
                !want[field].is_number() || cells.contains_key(field),
                "kernel {i}: {field} is {} in capture table but has no column",
                want[field]
            );
        }
        assert!(
            compared >= 3,
            "kernel {i}: only {compared} numeric columns compared"
        );
    }
    Ok(())
}

/// A filled roofline marker's CSS offset in the canvas, polled until `WAIT` passes; null
/// when none is drawn.
async fn roofline_marker(b: &Browser, wait: Duration) -> Result<Value, BoxError> {
    let colors: Vec<Value> = (0..10)
        .map(|i| {
            let c = shared::chart::palette(i);
            serde_json::json!([c.0, c.1, c.2])
        })
        .collect();
    let deadline = std::time::Instant::now() + wait;
    loop {
        let at = b
            .client
            .execute(FIND_MARKER, vec![Value::Array(colors.clone())])
            .await?;
        if !at.is_null() || std::time::Instant::now() > deadline {
            return Ok(at);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
#[expect(
    clippy::too_many_lines,
    reason = "one browser session walks the page as a user would; its steps share the session"
)]
async fn reports_open_by_src_and_by_file_input_and_draw_their_roofline() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    let sample = dist.join(REPORT_SAMPLE);
    if !sample.exists() {
        return Err(format!("{} is missing: site/build.sh copies it", sample.display()).into());
    }
    let two_process = capture_report_table(&sample)?;
    // A `--set full` report of six GEMMs (21 MB), opened by the file input: they have
    // FLOPs, so points.
    let gemms = gunzipped("ncu-h200-gemms/gemms_full.ncu-repz")?;
    let gemms_table = capture_report_table(&gemms)?;
    let kernels_of = |t: &Value| t["kernels"].as_array().cloned().unwrap_or_default();
    // A broken copy, refused in the page naming the file and the byte.
    let mut broken = std::fs::read(&gemms)?;
    broken[4..8].copy_from_slice(&[0; 4]);
    let broken_path = out_dir().join("zero_size.ncu-rep");
    std::fs::write(&broken_path, broken)?;

    let server = StaticServer::start(dist)?;
    let b = Browser::start().await?;
    let result = async {
        // 1. By ?src=: the run is the report's, its table is capture's, its roofline drawn.
        b.client
            .goto(&format!("{}?src={REPORT_SAMPLE}&view=roofline", server.base))
            .await?;
        wait_drawn(&b, "roofline-canvas").await?;
        let ink = b.canvas_ink("roofline-canvas").await?;
        assert!(ink > 2_000, "roofline canvas nearly blank: {ink} inked pixels");
        b.wait_js(
            "const li = document.querySelector('#run-list li.current'); \
             return li && li.textContent.includes('h200-two-process.ncu-rep');",
            WAIT,
        )
        .await?;
        b.screenshot("report-src-roofline").await?;
        assert_bytes_table(&b, &kernels_of(&two_process)).await?;

        // 2. By the file input: the GEMMs report becomes the current run, with points on
        // the roofline and the same table as capture's.
        let input = b.client.find(Locator::Css("#file-input")).await?;
        input.send_keys(&gemms.to_string_lossy()).await?;
        b.wait_js(
            "const li = document.querySelector('#run-list li.current'); \
             return li && li.textContent.includes('gemms_full.ncu-rep');",
            WAIT,
        )
        .await?;
        assert_bytes_table(&b, &kernels_of(&gemms_table)).await?;
        click(&b, "#tab-roofline", WAIT).await?;
        wait_drawn(&b, "roofline-canvas").await?;
        let at = roofline_marker(&b, WAIT).await?;
        if at.is_null() {
            return Err("the GEMMs report's kernels have no marker on the roofline".into());
        }
        b.screenshot("report-file-roofline").await?;
        let status = b
            .client
            .execute("return document.body.innerText.match(/loaded gemms_full[^\\n]*/)?.[0] || ''", Vec::new())
            .await?;
        println!("{}", status.as_str().unwrap_or_default());

        // 3. A broken report is an error naming the file and the byte; the runs stay.
        let input = b.client.find(Locator::Css("#file-input")).await?;
        input.send_keys(&broken_path.to_string_lossy()).await?;
        let text = b
            .wait_js(
                "return Array.from(document.querySelectorAll('#errors .error')).map(e => e.textContent).find(t => t.includes('zero_size.ncu-rep')) || ''",
                WAIT,
            )
            .await?;
        let text = text.as_str().unwrap_or_default();
        assert!(
            text.starts_with("zero_size.ncu-rep: byte 4: the file header has size 0"),
            "{text}"
        );
        let runs = b
            .client
            .execute("return document.querySelectorAll('#run-list li').length", Vec::new())
            .await?;
        assert_eq!(runs.as_u64(), Some(2), "a refused report changed the runs");

        // 4. Optionally a large report (`ROOFLINE_E2E_REPORT=PATH`), for its load time.
        if let Some(big) = std::env::var_os("ROOFLINE_E2E_REPORT").map(PathBuf::from) {
            let name = big.file_name().unwrap_or_default().to_string_lossy().into_owned();
            let load_ms = "return document.getElementById('roofline-canvas').dataset.loadMs || ''";
            let before = b.client.execute(load_ms, Vec::new()).await?;
            let input = b.client.find(Locator::Css("#file-input")).await?;
            input.send_keys(&big.to_string_lossy()).await?;
            let status = b
                .wait_js(
                    &format!(
                        "return document.body.innerText.split('\\n').find(l => l.startsWith('loaded ' + {})) || ''",
                        js(&name)
                    ),
                    Duration::from_secs(60),
                )
                .await?;
            let drawn = b
                .wait_js(
                    &format!(
                        "const v = document.getElementById('roofline-canvas').dataset.loadMs || ''; return v !== {} && v;",
                        before
                    ),
                    Duration::from_secs(60),
                )
                .await?;
            println!(
                "{name} ({} MB): {}; pick to drawn roofline {} ms",
                std::fs::metadata(&big)?.len() / 1_000_000,
                status.as_str().unwrap_or_default(),
                drawn.as_str().unwrap_or_default()
            );
        }
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("report-failure").await;
    }
    b.close().await?;
    result
}

/// Everything the page holds as text or in attributes (values, titles, data-*), to search
/// for an answer that must not be there.
const PAGE_TEXT: &str =
    "return document.body.innerText + '\\n' + document.documentElement.outerHTML;";

/// Sets a select's value and tells the page, as a person's pick would.
fn select_js(id: &str, value: &str) -> String {
    format!(
        "const s = document.getElementById('{id}'); s.value = '{value}'; \
         s.dispatchEvent(new Event('change', {{ bubbles: true }})); return s.value === '{value}';"
    )
}

/// The course's solution directions for its ten rows (day 49), by the H200 sample's short
/// names; the naive transpose ("either side") and the tiled one (not named) are left out.
const SOLUTION: [(&str, char); 8] = [
    ("vector add", 'n'),
    ("block reduction", 'n'),
    ("polynomial, 256", 'n'),
    ("matmul, naive", 'b'),
    ("matmul, tiled 16", 'b'),
    ("stencil, global", 'b'),
    ("stencil, tiled", 'b'),
    ("vector add, stride 32", 'a'),
];

/// The exercise view on the H200 sample: a choice per suite kernel and no DRAM/ask value of
/// any row anywhere in the page before submit; after the course's own solution directions,
/// the score counts the rows the measured values agree with and each miss is explained; the
/// predictions survive a reload through the URL; every bundled question is answered and
/// its explanations and settling rows checked; the mystery kernels show no name until
/// diagnosed, then their names, sources and verdicts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
#[expect(
    clippy::too_many_lines,
    reason = "one browser session walks the page as a user would; its steps share the session"
)]
async fn exercises_hide_the_answers_until_committed_then_score_and_explain() -> Result<(), BoxError>
{
    use shared::exercise::predict::Direction;
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    let sample = sample_path();
    let expected = capture_table_json(&sample)?;
    let kernels = expected["kernels"]
        .as_array()
        .ok_or("capture table json has no kernels")?
        .clone();
    let asked: Vec<usize> = kernels
        .iter()
        .enumerate()
        .filter(|(_, k)| k["ask_bytes"].as_f64().is_some_and(|b| b > 0.0))
        .map(|(i, _)| i)
        .collect();
    if asked.len() < 10 {
        return Err(format!("only {} kernels with an ask in the sample", asked.len()).into());
    }
    let ratio = |i: usize| kernels[i]["dram_per_ask"].as_f64();
    let answers: Vec<String> = asked
        .iter()
        .filter_map(|&i| ratio(i))
        .map(|r| format!("{r:.4}"))
        .collect();
    let index_of = |short: &str| {
        kernels
            .iter()
            .position(|k| k["short_name"] == Value::String(short.into()))
    };
    let questions = shared::exercise::quiz::parse_site(&std::fs::read_to_string(
        dist.join(shared::exercise::quiz::PATH),
    )?)?;
    let server = StaticServer::start(dist)?;
    server.add("/samples/h200.json", sample.clone());
    let b = Browser::start().await?;
    let result = async {
        // 1. Before submit: a choice per kernel, no answer anywhere, nothing else open.
        b.client
            .goto(&format!("{}?src=samples/h200.json&view=exercise", server.base))
            .await?;
        b.wait_js(
            &format!(
                "return document.querySelectorAll('#predict-table tbody tr').length === {}",
                asked.len()
            ),
            WAIT,
        )
        .await?;
        for &i in &asked {
            for code in ['a', 'n', 'b'] {
                b.client
                    .find(Locator::Css(&format!("#dir-{i}-{code}")))
                    .await
                    .map_err(|e| format!("kernel {i} has no choice {code}: {e}"))?;
            }
        }
        let text = b.client.execute(PAGE_TEXT, Vec::new()).await?;
        let text = text.as_str().unwrap_or("");
        for a in &answers {
            assert!(!text.contains(a.as_str()), "DRAM/ask {a} is in the page before submit");
        }
        let closed = b
            .client
            .execute(
                "return [!!document.getElementById('tab-bytes'), !!document.getElementById('kernel-list'), \
                 !!document.getElementById('exercise-lock')];",
                Vec::new(),
            )
            .await?;
        assert_eq!(closed, serde_json::json!([false, false, true]), "tabs, kernel list, lock");
        b.screenshot("exercise-predict").await?;

        // 2. The course's directions, submitted: the score is what the measured values say.
        let mut predicted = Vec::new();
        for (short, code) in SOLUTION {
            let i = index_of(short).ok_or_else(|| format!("no kernel {short}"))?;
            click(&b, &format!("#dir-{i}-{code}"), WAIT).await?;
            predicted.push((i, Direction::from_code(code).ok_or("bad code")?));
        }
        b.wait_js("return location.search.includes('pred=')", WAIT).await?;
        click(&b, "#predict-submit", WAIT).await?;
        let score = b
            .wait_js(
                "const s = document.getElementById('predict-score'); \
                 return s && [s.dataset.right, s.dataset.predicted];",
                WAIT,
            )
            .await?;
        let right = predicted
            .iter()
            .filter(|(i, d)| ratio(*i).map(Direction::of) == Some(*d))
            .count();
        assert_eq!(
            score,
            serde_json::json!([right.to_string(), predicted.len().to_string()]),
            "score"
        );
        for (i, d) in &predicted {
            let r = ratio(*i).ok_or("no DRAM/ask")?;
            let hit = Direction::of(r) == *d;
            let row = b
                .client
                .execute(
                    &format!(
                        "const tr = document.querySelector('#reveal-table tr[data-kernel=\"{i}\"]:not(.miss)'); \
                         const m = document.querySelector('#reveal-table tr.miss[data-kernel=\"{i}\"]'); \
                         return [tr.dataset.result, tr.querySelector('[data-col=dram_per_ask]').textContent, \
                           m ? m.querySelector('.summary').textContent : null, \
                           m ? m.querySelectorAll('li').length : 0];"
                    ),
                    Vec::new(),
                )
                .await?;
            let want = if hit { "right" } else { "wrong" };
            assert_eq!(row[0], want, "kernel {i}: {row:?}");
            assert_eq!(row[1], format!("{r:.4}"), "kernel {i}: {row:?}");
            if hit {
                assert!(row[2].is_null(), "a right row has no explanation: {row:?}");
            } else {
                let summary = row[2].as_str().unwrap_or("");
                assert!(summary.contains(&format!("{r:.4}")), "kernel {i}: {summary}");
                assert!(row[3].as_u64().unwrap_or(0) >= 1, "kernel {i}: no findings");
            }
        }
        assert!(right < predicted.len(), "the course's directions miss on the H200");
        b.client
            .find(Locator::Css("#tab-bytes"))
            .await
            .map_err(|e| format!("the tabs are back after submit: {e}"))?;
        b.screenshot("exercise-reveal").await?;
        // The predictions and the reveal live in the URL.
        let url = b.client.current_url().await?;
        b.client.goto(url.as_str()).await?;
        let again = b
            .wait_js(
                "const s = document.getElementById('predict-score'); return s && s.dataset.right;",
                WAIT,
            )
            .await?;
        assert_eq!(again, Value::String(right.to_string()), "after a reload");

        // 3. Mystery kernels: no name until diagnosed.
        b.client
            .goto(&format!(
                "{}?src=samples/h200.json&view=exercise&ex=mystery",
                server.base
            ))
            .await?;
        b.wait_js("return document.querySelectorAll('section.mystery').length >= 3", WAIT)
            .await?;
        let artifact = Artifact::from_json(&std::fs::read_to_string(&sample)?)?;
        let table = shared::analysis::table::bytes_table(&artifact);
        let figures = shared::analysis::figures::KernelFigures::all(&artifact, &table);
        let picked = shared::exercise::mystery::pick(&figures);
        let text = b.client.execute(PAGE_TEXT, Vec::new()).await?;
        let text = text.as_str().unwrap_or("");
        for &k in &picked {
            let record = &artifact.kernels[k];
            for hidden in [Some(&*record.name), Some(&*record.function), record.source_file.as_deref()]
                .into_iter()
                .flatten()
            {
                assert!(!text.contains(hidden), "{hidden} shown before the diagnosis");
            }
        }
        for (label, &k) in picked.iter().enumerate() {
            let l = shared::exercise::mystery::label(label);
            click(&b, &format!("#myst-{l}-bound-m"), WAIT).await?;
            b.wait_js(&select_js(&format!("myst-{l}-change"), "b"), WAIT).await?;
            click(&b, &format!("#myst-{l}-commit"), WAIT).await?;
            let shown = b
                .wait_js(
                    &format!(
                        "const r = document.querySelector('#mystery-{l} .mystery-reveal'); \
                         return r && [r.querySelector('.kernel-name').title, \
                           r.querySelector('.source-file').textContent, r.querySelector('.verdict').textContent];"
                    ),
                    WAIT,
                )
                .await?;
            assert_eq!(shown[0], Value::String(artifact.kernels[k].name.to_string()));
            let src = artifact.kernels[k].source_file.as_deref().unwrap_or("-").to_string();
            assert_eq!(shown[1], Value::String(src));
            let verdict = kernels[k]["verdict"].as_str().unwrap_or("-");
            assert!(
                shown[2].as_str().unwrap_or("").starts_with(verdict),
                "{shown:?} against {verdict}"
            );
        }
        b.client.find(Locator::Css("#tab-bytes")).await?;
        b.screenshot("exercise-mystery").await?;

        // 4. Every question: answered (right on even ones, wrong on odd), each option's
        // explanation and the settling rows shown, from the sample.
        click(&b, "#ex-mode-quiz", WAIT).await?;
        b.wait_js(
            &format!(
                "return document.querySelectorAll('section.question').length === {}",
                questions.len()
            ),
            WAIT,
        )
        .await?;
        assert!(questions.len() >= 8, "{} questions", questions.len());
        for (n, q) in questions.iter().enumerate() {
            let choice = if n % 2 == 0 {
                q.correct
            } else {
                (q.correct + 1) % q.options.len()
            };
            click(&b, &format!("#q-{}-{choice}", q.id), WAIT).await?;
            click(&b, &format!("#q-{}-check", q.id), WAIT).await?;
            let open = format!("q-{}-open", q.id);
            let needs_open = b
                .wait_js(
                    &format!(
                        "const s = document.getElementById('q-{}'); const r = s && s.querySelector('.q-result'); \
                         return r && [r.dataset.result, !!document.getElementById('{open}')];",
                        q.id
                    ),
                    WAIT,
                )
                .await?;
            let want = if choice == q.correct { "right" } else { "wrong" };
            assert_eq!(needs_open[0], want, "{}", q.id);
            if needs_open[1] == Value::Bool(true) {
                // Its sample is not loaded yet: the reveal offers to open it.
                click(&b, &format!("#{open}"), WAIT).await?;
            }
            let revealed = b
                .wait_js(
                    &format!(
                        "const s = document.getElementById('q-{}'); \
                         const rows = [...s.querySelectorAll('tr.settles td.num')].map(td => td.textContent); \
                         if (!rows.length || rows.some(t => t === '-')) return null; \
                         return [[...s.querySelectorAll('li[data-option] .option-explanation')].map(p => p.textContent), rows];",
                        q.id
                    ),
                    Duration::from_secs(60),
                )
                .await?;
            let shown: Vec<&str> = revealed[0]
                .as_array()
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let wanted: Vec<&str> = q.explanations.iter().map(String::as_str).collect();
            assert_eq!(shown, wanted, "{}: explanations", q.id);
            let settled = revealed[1].as_array().map_or(0, Vec::len);
            assert_eq!(settled, q.settles.len(), "{}: settling rows", q.id);
        }
        let score = b
            .client
            .execute("return document.getElementById('quiz-score').textContent;", Vec::new())
            .await?;
        let right = questions.len().div_ceil(2);
        assert!(
            score
                .as_str()
                .unwrap_or("")
                .starts_with(&format!("{right} of {} answered right", questions.len())),
            "{score}"
        );
        b.screenshot("exercise-quiz").await?;
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("exercise-failure").await;
    }
    b.close().await?;
    result
}

/// `tests/fixtures/diff/NAME.json.gz` unpacked into `tests/out/`.
fn unpack_diff_fixture(name: &str) -> Result<PathBuf, BoxError> {
    use std::io::Read;
    let gz =
        std::fs::File::open(workspace_root().join(format!("tests/fixtures/diff/{name}.json.gz")))?;
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz).read_to_string(&mut text)?;
    let out = out_dir().join(format!("{name}.json"));
    std::fs::write(&out, text)?;
    Ok(out)
}

/// Two real H200 runs opened together (`tests/fixtures/diff`: the suite, then the suite with
/// its streaming arrays doubled): the compare page shows them run against run, the same
/// figures as `capture diff --format json`, the largest change first, and a row's click
/// compares that pair of kernels on the roofline.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
#[expect(
    clippy::too_many_lines,
    reason = "one browser session walks the page as a user would; its steps share the session"
)]
async fn two_runs_compare_run_against_run() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    let (before, after) = (
        unpack_diff_fixture("run1")?,
        unpack_diff_fixture("run_size2x")?,
    );
    let out = std::process::Command::new(capture_bin())
        .arg("diff")
        .args([&before, &after])
        .args(["--format", "json"])
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "capture diff failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let expected: Value = serde_json::from_slice(&out.stdout)?;
    let kernels = expected["kernels"].as_array().ok_or("no kernels")?;
    let server = StaticServer::start(dist)?;
    server.add("/test/run1.json", before);
    server.add("/test/run_size2x.json", after);
    let b = Browser::start().await?;
    let result = async {
        b.client
            .goto(&format!(
                "{}?src=test/run1.json&src=test/run_size2x.json&view=compare&kernel=0.4&cmp=1.4",
                server.base
            ))
            .await?;
        b.wait_js(
            &format!(
                "return document.querySelectorAll('#run-diff-table tbody tr').length === {}",
                kernels.len()
            ),
            WAIT,
        )
        .await?;
        wait_drawn(&b, "compare-roofline").await?;
        let rows = b
            .client
            .execute(
                "return [...document.querySelectorAll('#run-diff-table tbody tr')].map(tr => \
                 ({cls: tr.className, cells: [...tr.cells].map(td => td.textContent)}));",
                Vec::new(),
            )
            .await?;
        let rows = rows.as_array().ok_or("no rows")?;
        // The page orders by the time gained or lost, as capture diff does.
        for (row, want) in rows.iter().zip(kernels) {
            let cells = &row["cells"];
            assert_eq!(cells[0], want["after"]["short_name"], "{row}");
            assert_eq!(
                cells[1].as_str(),
                Some(match want["matched_by"].as_str() {
                    Some("name_and_shape") => "name+shape",
                    Some("name") => "name",
                    _ => "template",
                }),
                "{row}"
            );
            let ms = |v: &Value| format!("{:.4}", v.as_f64().unwrap_or(f64::NAN));
            assert_eq!(
                cells[2].as_str(),
                Some(ms(&want["before"]["time_ms"]).as_str()),
                "{row}"
            );
            assert_eq!(
                cells[3].as_str(),
                Some(ms(&want["after"]["time_ms"]).as_str()),
                "{row}"
            );
            let change = format!("{:+.2} %", want["change_pct"].as_f64().unwrap_or(f64::NAN));
            assert_eq!(cells[5].as_str(), Some(change.as_str()), "{row}");
            let slower = want["beyond_noise"] == true && want["change_pct"].as_f64() > Some(0.0);
            assert_eq!(row["cls"] == "slower", slower, "{row}");
        }
        assert_eq!(
            rows[0]["cells"][0], "vector add, stride 32",
            "the most time lost first"
        );
        let summary = b
            .wait_js(
                "const p = document.querySelector('#run-diff p'); return p && p.textContent;",
                WAIT,
            )
            .await?;
        assert!(
            summary
                .as_str()
                .is_some_and(|s| s.contains("test/run1.json → test/run_size2x.json")
                    && s.contains("beyond the noise")),
            "{summary}"
        );
        // Run against run is the first thing on the page (issue 38), its numbers right-aligned
        // on one line, the metrics that moved in words, at every width.
        for width in [800, 1500, 1920] {
            b.client.set_window_size(width, 1000).await?;
            let layout = b
                .wait_js(
                    "const page = document.getElementById('page-compare'); \
                     const diff = document.getElementById('run-diff'); \
                     if (!page || !diff) return null; \
                     const cells = [...document.querySelectorAll('#run-diff-table td.num')]; \
                     const lines = (td) => { const r = document.createRange(); r.selectNodeContents(td); \
                       return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size; }; \
                     const oneLine = cells.every(td => lines(td) <= 1); \
                     return { first: page.firstElementChild === diff, \
                     offset: diff.getBoundingClientRect().top - page.getBoundingClientRect().top, \
                     right: cells.length > 0 && cells.every(td => getComputedStyle(td).textAlign === 'right'), \
                     oneLine, \
                     keys: [...document.querySelectorAll('#run-diff-table td.moved')].some(td => /\\b(sol|stall|flops|occupancy)\\.|_pct|_bytes/.test(td.textContent)), \
                     noise: document.querySelectorAll('#run-diff-table tr.noise').length };",
                    WAIT,
                )
                .await?;
            println!("run against run at {width} px: {layout}");
            assert_eq!(layout["first"], true, "{width} px: {layout}");
            // Only the section's heading margin above it.
            assert!(layout["offset"].as_f64().is_some_and(|o| o < 30.0), "{width} px: {layout}");
            assert_eq!(layout["right"], true, "{width} px: {layout}");
            assert_eq!(layout["oneLine"], true, "{width} px: {layout}");
            assert_eq!(layout["keys"], false, "{width} px: {layout}");
            b.screenshot(&format!("run-diff-{width}")).await?;
            // The before → after memory chart, for the eye: its labels wrap inside the
            // room between the boxes at every width.
            wait_drawn(&b, "compare-memory").await?;
            b.client
                .execute(
                    "document.getElementById('compare-memory').scrollIntoView();",
                    Vec::new(),
                )
                .await?;
            b.screenshot(&format!("compare-memory-{width}")).await?;
        }
        b.client.set_window_size(1600, 1100).await?;
        b.screenshot("run-diff").await?;
        // A row's click compares that pair: transpose, naive (kernel 6 in both runs).
        let i = rows
            .iter()
            .position(|r| r["cells"][0] == "transpose, naive")
            .ok_or("no transpose row")?;
        click(
            &b,
            &format!("#run-diff-table tbody tr:nth-child({})", i + 1),
            WAIT,
        )
        .await?;
        let picked = b
            .wait_js(
                "const end = (id) => document.getElementById(id).value.split('#').pop(); \
                 const a = end('compare-a'), c = end('compare-b'); \
                 return a === '0.6' && c === '1.6' && [a, c];",
                WAIT,
            )
            .await?;
        assert_eq!(picked, serde_json::json!(["0.6", "1.6"]));
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("run-diff-failure").await;
    }
    b.close().await?;
    result
}

/// Inputs as the picker takes them (issue 38): a gzip file picked or linked opens as the file
/// inside, and `?src=` exports of one run open as one run, as the same files picked together.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn gzip_files_and_linked_export_pairs_open_as_picked() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    let gz = workspace_root().join("tests/fixtures/diff/run1.json.gz");
    let raw = workspace_root().join("tests/fixtures/ncu-h200/probe_full_raw.csv");
    let details = workspace_root().join("tests/fixtures/ncu-h200/probe_full_details.csv");
    let server = StaticServer::start(dist)?;
    server.add("/test/run1.json.gz", gz.clone());
    server.add("/test/raw.csv", raw.clone());
    server.add("/test/details.csv", details.clone());
    let b = Browser::start().await?;
    let runs = "return [...document.querySelectorAll('#run-list li')].map(li => li.textContent);";
    let result = async {
        // Picked: the gzip artifact is its run.
        b.open_roofline(&server.base).await?;
        b.pick_file(&gz.to_string_lossy()).await?;
        let picked = b
            .wait_js(
                "const li = document.querySelector('#run-list li.current'); \
                 return li && li.textContent.includes('run1.json.gz') && li.textContent;",
                WAIT,
            )
            .await?;
        assert!(picked.as_str().is_some_and(|t| t.contains("20 kernels")), "{picked}");
        // Its warnings are one quiet line, opened by a click.
        let banner = b
            .wait_js(
                "const d = document.getElementById('warning-details'); \
                 return d && [d.open, d.querySelector('summary').textContent, \
                   [...d.querySelectorAll('li')].some(li => li.checkVisibility())];",
                WAIT,
            )
            .await?;
        assert_eq!(banner[0], false, "{banner}");
        assert!(banner[1].as_str().is_some_and(|t| t.starts_with("2 warnings on this run")), "{banner}");
        assert_eq!(banner[2], false, "{banner}");
        // Linked: the same gzip file, and a raw and details page of one run.
        b.client
            .goto(&format!(
                "{}?src=test/run1.json.gz&src=test/raw.csv&src=test/details.csv&view=overview",
                server.base
            ))
            .await?;
        b.wait_js(
            "return document.querySelectorAll('#run-list li').length === 2",
            WAIT,
        )
        .await?;
        let linked = b.client.execute(runs, Vec::new()).await?;
        let linked: Vec<String> = linked
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str().map(String::from)).collect())
            .unwrap_or_default();
        assert!(linked[0].contains("run1.json.gz") && linked[0].contains("20 kernels"), "{linked:?}");
        assert!(
            linked[1].contains("raw.csv + details.csv"),
            "one run of the two pages: {linked:?}"
        );
        let title = b
            .client
            .execute(
                "return document.querySelectorAll('#run-list .run-name')[1].title",
                Vec::new(),
            )
            .await?;
        assert_eq!(title, "test/raw.csv + test/details.csv", "the paths are the title");
        // Picked together, the same pair is the same one run.
        b.open_roofline(&server.base).await?;
        b.pick_file(&format!("{}\n{}", raw.display(), details.display()))
            .await?;
        let pair = b
            .wait_js(
                "const li = document.querySelector('#run-list li.current'); \
                 return li && li.textContent.includes('probe_full_raw.csv + probe_full_details.csv') && li.textContent;",
                WAIT,
            )
            .await?;
        println!("picked {picked}; linked {linked:?}; picked pair {pair}");
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("inputs-failure").await;
    }
    b.close().await?;
    result
}

/// `.ncu-repz` reports (issue 47): one picked and one linked by `?src=` open as the report
/// they hold (the table capture gives of the `.ncu-rep`), and one whose checksum does not
/// match is an error naming the file and the byte, the runs left as they were.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn ncu_repz_reports_open_picked_and_linked() -> Result<(), BoxError> {
    let dist = dist_dir();
    if !dist.join("index.html").exists() {
        return Err("site/dist is missing: run bash site/build.sh first".into());
    }
    let fixtures = workspace_root().join("tests/fixtures/ncu-repz");
    let one = fixtures.join("two_process.ncu-repz");
    let frames = fixtures.join("two_process_frames.ncu-repz");
    let report = gunzipped("ncu-h200-reports/two_process.ncu-rep.gz")?;
    let table = capture_report_table(&report)?;
    let kernels = table["kernels"].as_array().cloned().unwrap_or_default();
    let mut broken = std::fs::read(&one)?;
    if let Some(last) = broken.last_mut() {
        *last ^= 0x55;
    }
    let broken_path = out_dir().join("checksum.ncu-repz");
    std::fs::write(&broken_path, broken)?;
    let server = StaticServer::start(dist)?;
    server.add("/test/two_process_frames.ncu-repz", frames.clone());
    let b = Browser::start().await?;
    let result = async {
        // Linked: five zstd frames, un-compressed in the page.
        b.client
            .goto(&format!(
                "{}?src=test/two_process_frames.ncu-repz&view=overview",
                server.base
            ))
            .await?;
        b.wait_js(
            "const li = document.querySelector('#run-list li.current'); \
             return li && li.textContent.includes('two_process_frames.ncu-repz');",
            WAIT,
        )
        .await?;
        assert_bytes_table(&b, &kernels).await?;
        // Picked: one frame.
        b.open_roofline(&server.base).await?;
        b.pick_file(&one.to_string_lossy()).await?;
        b.wait_js(
            "const li = document.querySelector('#run-list li.current'); \
             return li && li.textContent.includes('two_process.ncu-repz');",
            WAIT,
        )
        .await?;
        assert_bytes_table(&b, &kernels).await?;
        // Broken: refused, naming the file and the byte; the run stays.
        b.pick_file(&broken_path.to_string_lossy()).await?;
        let text = b
            .wait_js(
                "return Array.from(document.querySelectorAll('#errors .error')).map(e => e.textContent).find(t => t.includes('checksum.ncu-repz')) || ''",
                WAIT,
            )
            .await?;
        let text = text.as_str().unwrap_or_default();
        assert!(
            text.starts_with("checksum.ncu-repz: ") && text.contains("of the zstd stream: frame 1's checksum"),
            "{text}"
        );
        let runs = b
            .client
            .execute("return document.querySelectorAll('#run-list li').length", Vec::new())
            .await?;
        assert_eq!(runs.as_u64(), Some(1), "a refused report changed the runs");
        Ok::<(), BoxError>(())
    }
    .await;
    if result.is_err() {
        let _ = b.screenshot("repz-failure").await;
    }
    b.close().await?;
    result
}
