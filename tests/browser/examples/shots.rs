//! The screenshots in `docs/screenshots/` (not a test): on the BERT-base `--set full`
//! export (its raw and details pages as one run), the Speed-of-Light page and the "Where
//! the time goes" kernel list at 1500 px with the kernel whose launch groups disagree
//! (`nvjet_sm90_tst_192x128_...`) selected, so its groups are open. The whole window goes
//! to `target/screens11/` (`sol-mixed-1500.png`, `kernel-list-mixed-1500.png`), the content
//! panel alone to `docs/screenshots/` (the committed copies):
//!
//!     bash site/build.sh
//!     cargo run -p roofline-browser-tests --example shots

use std::path::PathBuf;
use std::time::Duration;

use fantoccini::Locator;
use roofline_browser_tests::{
    dist_dir, gunzipped_as, target_subdir, workspace_root, BoxError, Browser, StaticServer,
};

const WAIT: Duration = Duration::from_secs(60);
const MIXED: &str = "nvjet_sm90_tst_192x128";

fn screens_dir() -> PathBuf {
    target_subdir("screens11")
}

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let server = StaticServer::start(dist_dir())?;
    server.add(
        "/test/bert_raw.csv",
        gunzipped_as("corpus-h200/bert_base_fwd_full_raw.csv.gz", "shots_raw.csv")?,
    );
    server.add(
        "/test/bert_details.csv",
        gunzipped_as(
            "corpus-h200/bert_base_fwd_full_details.csv.gz",
            "shots_details.csv",
        )?,
    );
    let b = Browser::start().await?;
    b.client.set_window_size(1500, 1300).await?;
    for (tab, table, groups, name) in [
        ("sol", "sol-table", "sol-groups", "sol-mixed-1500"),
        (
            "time",
            "time-table",
            "time-groups",
            "kernel-list-mixed-1500",
        ),
    ] {
        b.client
            .goto(&format!(
                "{}?src=test/bert_raw.csv&src=test/bert_details.csv&view={tab}",
                server.base
            ))
            .await?;
        b.client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::XPath(&format!(
                "//table[@id='{table}']//td[contains(@title, '{MIXED}')]"
            )))
            .await?
            .click()
            .await?;
        let open = b
            .wait_js(
                &format!(
                    "const d = document.querySelector('#{groups} details[open]'); \
                     if (!d) return null; d.scrollIntoView({{block: 'end'}}); \
                     return d.querySelectorAll('li').length;"
                ),
                WAIT,
            )
            .await?;
        tokio::time::sleep(Duration::from_millis(300)).await;
        let path = screens_dir().join(format!("{name}.png"));
        std::fs::write(&path, b.client.screenshot().await?)?;
        // The committed copy: the content panel only, small enough to keep in the tree.
        let panel = b.client.find(Locator::Css(".content")).await?;
        let docs = workspace_root()
            .join("docs/screenshots")
            .join(format!("{name}.png"));
        std::fs::write(&docs, panel.screenshot().await?)?;
        println!(
            "{tab}: {open} groups open: {} (the panel: {})",
            path.display(),
            docs.display()
        );
    }
    b.close().await
}
