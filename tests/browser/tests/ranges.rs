//! The NVTX range tree in headless Chromium (issue 36): a JAX MLP's `--set full` raw page
//! (XLA's start/end module range, push/pop thunk ranges) opens on "where the time goes"
//! with its range tree; a click on a thunk narrows the run: the kernel list, the time table
//! and the roofline's points are that thunk's, the URL keeps the range (a reload shows the
//! same), and "show every launch" brings the whole run back. Then the site's BERT training
//! step sample (`--torch-modules`, sampled): its tree has the forward, backward and
//! optimizer phases, and the module ranges under them (`encoder/layer.0/attention`) open
//! one level at a time down to a module whose launches the kernel list, the time table and
//! the roofline then show; the time from navigation to its range tree, and from a click on
//! a phase to the narrowed page, is printed.
//!
//! Needs `site/dist` (`bash site/build.sh`), Debian's `chromium` and `chromium-driver`.

use std::time::Duration;

use roofline_browser_tests::{dist_dir, gunzipped, BoxError, Browser, StaticServer};

const WAIT: Duration = Duration::from_secs(60);

/// Kernels in the side bar's list, rows of the time table, and points the roofline lists.
async fn counts(b: &Browser) -> Result<(u64, u64), BoxError> {
    let v = b
        .client
        .execute(
            "return [document.querySelectorAll('#kernel-list li').length, \
                     document.querySelectorAll('#time-table tbody tr').length];",
            Vec::new(),
        )
        .await?;
    let n = |i: usize| v.get(i).and_then(serde_json::Value::as_u64).unwrap_or(0);
    Ok((n(0), n(1)))
}

/// Opens the roofline tab and returns the number of points its list has.
async fn roofline_points(b: &Browser) -> Result<u64, BoxError> {
    b.client
        .wait()
        .at_most(WAIT)
        .for_element(fantoccini::Locator::Css("#tab-roofline"))
        .await?
        .click()
        .await?;
    let v = b
        .wait_js(
            "const c = document.getElementById('roofline-canvas'); \
             return c && Number(c.dataset.drawn) > 0 && \
               document.querySelectorAll('#roofline-list > li').length;",
            WAIT,
        )
        .await?;
    Ok(v.as_u64().unwrap_or(0))
}

/// Clicks "show only" in the row whose `data-range` is `path` (`/`-joined; names may hold
/// `/` too, XLA's `jit(mlp)/dot_general`).
async fn click_range(b: &Browser, path: &str) -> Result<(), BoxError> {
    let script = format!(
        "const row = [...document.querySelectorAll('#range-tree tr')]\
           .find(r => r.dataset.range === {path:?}); \
         if (!row) return false; row.querySelector('button.range').click(); return true;"
    );
    b.wait_js(&script, WAIT).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn a_range_narrows_the_kernel_list_the_time_table_and_the_roofline() -> Result<(), BoxError> {
    let jax = gunzipped("corpus-h200/jax_mlp_full_raw.csv.gz")?;
    let server = StaticServer::start(dist_dir())?;
    server.add("/test/jax_mlp_full_raw.csv", jax);
    let b = Browser::start().await?;
    let result = async {
        let url = format!("{}?src=test/jax_mlp_full_raw.csv&view=time", server.base);
        b.client.goto(&url).await?;
        b.wait_js("return document.getElementById('range-tree')", WAIT)
            .await?;
        b.wait_js(
            "return document.querySelectorAll('#time-table tbody tr').length",
            WAIT,
        )
        .await?;
        let whole = counts(&b).await?;
        assert!(whole.0 >= 2, "the MLP has several kernels: {whole:?}");
        // The module range (depth 2) opens its thunks (depth 3); pick the first thunk.
        let module = b
            .wait_js(
                "const r = [...document.querySelectorAll('#range-tree tr')]\
                   .filter(r => r.dataset.depth === '2').map(r => r.dataset.range); \
                 return r[0] || '';",
                WAIT,
            )
            .await?;
        let module = module.as_str().unwrap_or_default().to_owned();
        click_range(&b, &module).await?;
        let thunk = b
            .wait_js(
                &format!(
                    "const r = [...document.querySelectorAll('#range-tree tr')]\
                       .filter(r => r.dataset.depth === '3').map(r => r.dataset.range)\
                       .filter(p => p.startsWith({:?})); \
                     return r[0] || '';",
                    format!("{module}/")
                ),
                WAIT,
            )
            .await?;
        let thunk = thunk.as_str().unwrap_or_default().to_owned();
        click_range(&b, &thunk).await?;
        b.wait_js("return document.getElementById('range-banner')", WAIT)
            .await?;
        let narrowed = counts(&b).await?;
        assert!(
            narrowed.0 >= 1 && narrowed.0 < whole.0 && narrowed.1 < whole.1,
            "narrowed to {thunk}: {narrowed:?} against {whole:?}"
        );
        let here = b.client.current_url().await?;
        assert!(here.as_str().contains("range="), "{here}");
        let narrowed_points = roofline_points(&b).await?;
        // The same link opens on the same range.
        b.client.goto(here.as_str()).await?;
        b.wait_js("return document.getElementById('range-banner')", WAIT)
            .await?;
        let reopened = roofline_points(&b).await?;
        assert_eq!(reopened, narrowed_points, "the link keeps the range");
        // Every launch again.
        b.client
            .find(fantoccini::Locator::Css("#range-banner button"))
            .await?
            .click()
            .await?;
        b.wait_js("return !document.getElementById('range-banner')", WAIT)
            .await?;
        let all_points = roofline_points(&b).await?;
        assert!(
            all_points > narrowed_points,
            "whole run {all_points} points, the thunk {narrowed_points}"
        );
        println!(
            "range tree: {thunk}: kernels {} of {}, roofline points {narrowed_points} of \
             {all_points}",
            narrowed.0, whole.0
        );
        Ok::<(), BoxError>(())
    }
    .await;
    b.close().await?;
    result
}

/// The backward pass's first attention block, one path per level of the tree, as the
/// sample's `--torch-modules` ranges name it.
const BERT_DESCENT: [&str; 6] = [
    "step/backward",
    "step/backward/BertForMaskedLM",
    "step/backward/BertForMaskedLM/bert",
    "step/backward/BertForMaskedLM/bert/encoder",
    "step/backward/BertForMaskedLM/bert/encoder/layer.0",
    "step/backward/BertForMaskedLM/bert/encoder/layer.0/attention",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs site/dist (bash site/build.sh), chromium and chromedriver; tests/run.sh runs it"]
async fn the_bert_step_sample_opens_by_phase_and_module() -> Result<(), BoxError> {
    let server = StaticServer::start(dist_dir())?;
    let b = Browser::start().await?;
    let result = async {
        let url = format!(
            "{}?src=samples/h200-bert-train-step.json.gz&view=time",
            server.base
        );
        // The site once first, so that the figure below is not the wasm's first compile.
        b.open_roofline(&server.base).await?;
        let started = std::time::Instant::now();
        b.client.goto(&url).await?;
        b.wait_js(
            "return document.getElementById('range-tree') && \
               document.querySelectorAll('#time-table tbody tr').length",
            WAIT,
        )
        .await?;
        let tree_ms = started.elapsed().as_secs_f64() * 1e3;
        let phases = b
            .wait_js(
                "return [...document.querySelectorAll('#range-tree tr')]\
                   .filter(r => r.dataset.depth === '2').map(r => r.dataset.range);",
                WAIT,
            )
            .await?;
        for phase in ["step/forward", "step/backward", "step/optimizer"] {
            assert!(
                phases
                    .as_array()
                    .is_some_and(|p| p.iter().any(|x| x == phase)),
                "{phase} in {phases}"
            );
        }
        let whole = counts(&b).await?;
        let whole_points = roofline_points(&b).await?;
        b.client
            .find(fantoccini::Locator::Css("#tab-time"))
            .await?
            .click()
            .await?;
        let clicked = std::time::Instant::now();
        click_range(&b, BERT_DESCENT[0]).await?;
        b.wait_js("return document.getElementById('range-banner')", WAIT)
            .await?;
        let click_ms = clicked.elapsed().as_secs_f64() * 1e3;
        for path in &BERT_DESCENT[1..] {
            click_range(&b, path).await?;
        }
        let module = BERT_DESCENT[BERT_DESCENT.len() - 1];
        b.wait_js(
            &format!(
                "const s = document.querySelector('#range-tree tr.selected'); \
                 return s && s.dataset.range === {module:?};"
            ),
            WAIT,
        )
        .await?;
        let narrowed = counts(&b).await?;
        assert!(
            narrowed.0 >= 1 && narrowed.0 < whole.0 && narrowed.1 < whole.1,
            "narrowed to {module}: {narrowed:?} against {whole:?}"
        );
        let narrowed_points = roofline_points(&b).await?;
        assert!(
            narrowed_points >= 1 && narrowed_points < whole_points,
            "{module}: {narrowed_points} points of {whole_points}"
        );
        println!(
            "BERT step sample: navigation to its time page and range tree {tree_ms:.0} ms, \
             a click on {} to the narrowed page {click_ms:.0} ms; {module}: kernels {} of {}, \
             roofline points {narrowed_points} of {whole_points}",
            BERT_DESCENT[0], narrowed.0, whole.0
        );
        Ok::<(), BoxError>(())
    }
    .await;
    b.close().await?;
    result
}
