//! Screenshots to look at (not a test): every tab at 800, 1500 and 1920 px wide on the GPT-2
//! sample, the suite sample, two reports (the two-process one and a `--set basic` one), the
//! BERT-base corpus export (raw and details pages as one run; it has a kernel whose launch
//! groups disagree, opened on the SOL page), the BERT training step (its range tree) and two
//! runs open at once (the Compare tab).
//! A page taller than the window gets up to two more shots, scrolled down. PNGs in
//! `target/screens11/` (`gpt2-sol-1500.png`, `gpt2-sol-1500-2.png`, ...).
//!
//!     bash site/build.sh
//!     cargo run -p roofline-browser-tests --example screens [-- PROGRAM [TAB [WIDTH]]]

use std::path::PathBuf;
use std::time::Duration;

use roofline_browser_tests::{dist_dir, gunzipped, target_subdir, BoxError, Browser, StaticServer};

const WAIT: Duration = Duration::from_secs(60);
const HEIGHT: u32 = 1100;
const TABS: [&str; 13] = [
    "overview",
    "time",
    "roofline",
    "sol",
    "memory",
    "bytes",
    "occupancy",
    "rules",
    "source",
    "timing",
    "metrics",
    "compare",
    "exercise",
];

fn screens_dir() -> PathBuf {
    target_subdir("screens11")
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let server = StaticServer::start(dist_dir())?;
    server.add(
        "/test/gemms_basic.ncu-rep",
        gunzipped("ncu-h200-reports/gemms_basic.ncu-repz")?,
    );
    server.add(
        "/test/bert_raw.csv",
        gunzipped("corpus-h200/bert_base_fwd_full_raw.csv.gz")?,
    );
    server.add(
        "/test/bert_details.csv",
        gunzipped("corpus-h200/bert_base_fwd_full_details.csv.gz")?,
    );
    server.add("/test/run1.json", gunzipped("diff/run1.json.gz")?);
    server.add("/test/run2.json", gunzipped("diff/run2.json.gz")?);
    let programs: [(&str, &str, &[&str]); 7] = [
        ("gpt2", "src=samples/h200-gpt2-bf16.json", &TABS),
        (
            "bertstep",
            "src=samples/h200-bert-train-step.json.gz",
            &["time", "sol", "bytes", "roofline"],
        ),
        ("suite", "src=samples/h200.json", &TABS),
        ("report", "src=samples/h200-two-process.ncu-rep", &TABS),
        ("basic", "src=test/gemms_basic.ncu-rep", &TABS),
        (
            "bert",
            "src=test/bert_raw.csv&src=test/bert_details.csv",
            &TABS,
        ),
        (
            "diff",
            "src=test/run1.json&src=test/run2.json",
            &["overview", "compare"],
        ),
    ];
    let b = Browser::start().await?;
    for (name, query, tabs) in programs {
        if args.first().is_some_and(|a| a != name) {
            continue;
        }
        for &tab in tabs {
            if args.get(1).is_some_and(|a| a != tab) {
                continue;
            }
            for width in [800, 1500, 1920] {
                if args.get(2).is_some_and(|a| *a != width.to_string()) {
                    continue;
                }
                shoot(&b, &server.base, name, query, tab, width).await?;
            }
        }
    }
    b.close().await
}

/// Opens `query` on `tab` at `width` px, waits for it to draw, opens any launch groups, and
/// saves the window (and up to two more, scrolled down) as `NAME-TAB-WIDTH[-N].png`.
async fn shoot(
    b: &Browser,
    base: &str,
    name: &str,
    query: &str,
    tab: &str,
    width: u32,
) -> Result<(), BoxError> {
    b.client.set_window_size(width, HEIGHT).await?;
    b.client.goto("about:blank").await?;
    b.client
        .goto(&format!("{}?{query}&view={tab}", base))
        .await?;
    b.wait_js(
        &format!("return document.getElementById('page-{tab}')"),
        WAIT,
    )
    .await?;
    if tab == "roofline" {
        b.wait_js(
            "const c = document.getElementById('roofline-canvas'); \
             return !c || Number(c.dataset.drawn) > 0;",
            WAIT,
        )
        .await?;
    }
    b.client
        .execute(
            "document.querySelectorAll('.kernel-groups details')\
               .forEach(d => d.open = true);",
            Vec::new(),
        )
        .await?;
    tokio::time::sleep(Duration::from_millis(700)).await;
    let tall = b
        .client
        .execute("return document.documentElement.scrollHeight", Vec::new())
        .await?
        .as_f64()
        .unwrap_or(0.0);
    let mut shots = vec![0.0];
    let step = f64::from(HEIGHT) - 150.0;
    while shots.len() < 3 && shots.last().copied().unwrap_or(0.0) + f64::from(HEIGHT) < tall {
        shots.push(shots.len() as f64 * step);
    }
    for (i, y) in shots.iter().enumerate() {
        b.client
            .execute(&format!("window.scrollTo(0, {y})"), Vec::new())
            .await?;
        tokio::time::sleep(Duration::from_millis(150)).await;
        let png = b.client.screenshot().await?;
        let file = if i == 0 {
            format!("{name}-{tab}-{width}.png")
        } else {
            format!("{name}-{tab}-{width}-{}.png", i + 1)
        };
        std::fs::write(screens_dir().join(&file), png)?;
    }
    println!(
        "{name} {tab} {width} px: {} shot(s), page {tall:.0} px tall",
        shots.len()
    );
    Ok(())
}
