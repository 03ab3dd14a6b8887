//! Screenshots (not a test): the Speed-of-Light page with a kernel whose launch groups
//! disagree opened into its groups, and the "where the time goes" kernel list, at 800, 1500
//! and 1920 px wide, on the GPT-2 sample; PNGs in `tests/out/` (`sol-1500.png`, ...).
//!
//!     bash site/build.sh
//!     cargo run -p roofline-browser-tests --example shots

use std::time::Duration;

use roofline_browser_tests::{click, dist_dir, BoxError, Browser, StaticServer};

const WAIT: Duration = Duration::from_secs(60);

#[tokio::main]
async fn main() -> Result<(), BoxError> {
    let server = StaticServer::start(dist_dir())?;
    let b = Browser::start().await?;
    for width in [800, 1500, 1920] {
        b.client.set_window_size(width, 1100).await?;
        b.client
            .goto(&format!(
                "{}?src=samples/h200-gpt2-bf16.json&view=sol",
                server.base
            ))
            .await?;
        let opened = b
            .wait_js(
                "const d = document.querySelector('#sol-groups details'); \
                 if (!d) return null; d.open = true; d.scrollIntoView(); \
                 return d.querySelectorAll('li').length;",
                WAIT,
            )
            .await?;
        let path = b.screenshot(&format!("sol-{width}")).await?;
        println!(
            "{width} px: SOL page, {opened} groups open: {}",
            path.display()
        );
        click(&b, "#tab-time", WAIT).await?;
        tokio::time::sleep(Duration::from_millis(500)).await;
        let path = b.screenshot(&format!("kernels-{width}")).await?;
        println!("{width} px: kernel list: {}", path.display());
    }
    b.close().await
}
