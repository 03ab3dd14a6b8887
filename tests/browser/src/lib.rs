//! Helpers for the browser tests: a loopback static file server for `site/dist`, chromedriver
//! with a WebDriver session on Debian's Chromium, polling waits, and screenshots.
//!
//! Nothing here reaches the network: the server binds 127.0.0.1 and Chromium runs with
//! background networking, component updates and sync turned off.

use std::collections::HashMap;
use std::error::Error;
use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder};

/// The error type of these helpers and the tests.
pub type BoxError = Box<dyn Error + Send + Sync>;

/// The workspace root (the parent of `tests/`).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap_or_else(|_| Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
}

/// The `capture` binary the tests run: `$CAPTURE_BIN`, else the debug build under
/// `$CARGO_TARGET_DIR` or the workspace's `target/` (tests/run.sh builds it first).
pub fn capture_bin() -> PathBuf {
    std::env::var_os("CAPTURE_BIN")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("CARGO_TARGET_DIR").map(|d| PathBuf::from(d).join("debug/capture"))
        })
        .unwrap_or_else(|| workspace_root().join("target/debug/capture"))
}

/// The compressed fixture `rel` (under tests/fixtures) un-compressed into [`out_dir`]: a
/// `NAME.gz` un-gzipped as `NAME`, a `NAME.ncu-repz` (zstd, how the tree keeps its large
/// reports) as `NAME.ncu-rep`.
pub fn gunzipped(rel: &str) -> Result<PathBuf, BoxError> {
    let path = Path::new(rel);
    let stem = path.file_stem().ok_or("no file name")?.to_string_lossy();
    let name = if path.extension().is_some_and(|e| e == "ncu-repz") {
        format!("{stem}.ncu-rep")
    } else {
        stem.into_owned()
    };
    gunzipped_as(rel, &name)
}

/// [`gunzipped`] into `tests/out/NAME`: a copy of a test's own, where tests that run at once
/// unpack the same fixture.
pub fn gunzipped_as(rel: &str, name: &str) -> Result<PathBuf, BoxError> {
    use std::io::Read;
    let packed = std::fs::read(workspace_root().join("tests/fixtures").join(rel))?;
    let mut bytes = Vec::new();
    if shared::read::zstd::is_zstd(&packed) {
        bytes = shared::read::zstd::decode_all(&packed, u64::MAX)?;
    } else {
        flate2::read::GzDecoder::new(&packed[..]).read_to_end(&mut bytes)?;
    }
    let path = out_dir().join(name);
    std::fs::write(&path, bytes)?;
    Ok(path)
}

/// Clicks the element `css`, waiting at most `wait` for it to appear.
pub async fn click(b: &Browser, css: &str, wait: Duration) -> Result<(), BoxError> {
    b.client
        .wait()
        .at_most(wait)
        .for_element(fantoccini::Locator::Css(css))
        .await?
        .click()
        .await?;
    Ok(())
}

/// The site folder `site/build.sh` assembles.
pub fn dist_dir() -> PathBuf {
    workspace_root().join("site/dist")
}

/// The folder `name` under the build's target folder (`$CARGO_TARGET_DIR`, else the
/// workspace's `target/`), created: where screenshots to look at go (ignored by git).
pub fn target_subdir(name: &str) -> PathBuf {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| workspace_root().join("target"))
        .join(name);
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// Where screenshots and generated inputs go (ignored by git).
pub fn out_dir() -> PathBuf {
    let dir = workspace_root().join("tests/out");
    let _ = std::fs::create_dir_all(&dir);
    dir
}

/// A static file server on 127.0.0.1 serving a folder, plus extra files at chosen paths.
pub struct StaticServer {
    /// `http://127.0.0.1:PORT/`.
    pub base: String,
    overlay: Arc<Mutex<HashMap<String, PathBuf>>>,
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "json" => "application/json",
        "csv" => "text/csv; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        _ => "application/octet-stream",
    }
}

fn serve(
    mut stream: TcpStream,
    root: &Path,
    overlay: &Mutex<HashMap<String, PathBuf>>,
) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers.
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line)? == 0 || line == "\r\n" || line == "\n" {
            break;
        }
    }
    let target = request_line.split_whitespace().nth(1).unwrap_or("/");
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = if path.ends_with('/') {
        format!("{path}index.html")
    } else {
        path.to_string()
    };
    let from_overlay = overlay.lock().ok().and_then(|o| o.get(&path).cloned());
    let file = match from_overlay {
        Some(p) => Some(p),
        None if path.split('/').any(|part| part == "..") => None,
        None => Some(root.join(path.trim_start_matches('/'))),
    };
    let body = file.as_ref().and_then(|f| std::fs::read(f).ok());
    match (file, body) {
        (Some(f), Some(body)) => {
            write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Type: {}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                content_type(&f),
                body.len()
            )?;
            stream.write_all(&body)?;
        }
        _ => {
            let body = b"not found";
            write!(
                stream,
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            )?;
            stream.write_all(body)?;
        }
    }
    stream.flush()
}

impl StaticServer {
    /// Serves `root` on a free loopback port, one thread per connection.
    pub fn start(root: PathBuf) -> Result<Self, BoxError> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let overlay: Arc<Mutex<HashMap<String, PathBuf>>> = Arc::default();
        let shared = Arc::clone(&overlay);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let root = root.clone();
                let overlay = Arc::clone(&shared);
                std::thread::spawn(move || {
                    let _ = serve(stream, &root, &overlay);
                });
            }
        });
        Ok(StaticServer {
            base: format!("http://127.0.0.1:{port}/"),
            overlay,
        })
    }

    /// Serves `file` at URL path `url_path` (starting with `/`), over whatever the folder has.
    pub fn add(&self, url_path: &str, file: PathBuf) {
        if let Ok(mut o) = self.overlay.lock() {
            o.insert(url_path.to_string(), file);
        }
    }
}

/// A chromedriver process and a session on headless Chromium. Dropping it kills the driver.
pub struct Browser {
    /// The WebDriver client.
    pub client: Client,
    _driver: tokio::process::Child,
}

/// Chromium flags: headless, no sandbox (CI runs as root), and nothing that phones home.
pub const CHROMIUM_ARGS: [&str; 10] = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1600,1100",
];

fn free_port() -> Result<u16, BoxError> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

impl Browser {
    /// Starts chromedriver (`CHROMEDRIVER` or /usr/bin/chromedriver) and opens a session on
    /// Chromium (`CHROMIUM` or /usr/bin/chromium).
    pub async fn start() -> Result<Self, BoxError> {
        let driver_bin =
            std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "/usr/bin/chromedriver".into());
        let chromium = std::env::var("CHROMIUM").unwrap_or_else(|_| "/usr/bin/chromium".into());
        let port = free_port()?;
        let driver = tokio::process::Command::new(&driver_bin)
            .arg(format!("--port={port}"))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("could not start {driver_bin}: {e}"))?;
        let mut caps = serde_json::Map::new();
        caps.insert(
            "goog:chromeOptions".into(),
            serde_json::json!({ "binary": chromium, "args": CHROMIUM_ARGS }),
        );
        let url = format!("http://127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let connector = hyper_util::client::legacy::connect::HttpConnector::new();
            match ClientBuilder::new(connector)
                .capabilities(caps.clone())
                .connect(&url)
                .await
            {
                Ok(client) => {
                    return Ok(Browser {
                        client,
                        _driver: driver,
                    })
                }
                Err(e) if Instant::now() > deadline => {
                    return Err(format!("no WebDriver session at {url}: {e}").into())
                }
                Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
            }
        }
    }

    /// Runs `script` (a function body returning a value) until it returns something truthy
    /// or `timeout` passes; returns the value.
    pub async fn wait_js(
        &self,
        script: &str,
        timeout: Duration,
    ) -> Result<serde_json::Value, BoxError> {
        let deadline = Instant::now() + timeout;
        loop {
            let v = self.client.execute(script, Vec::new()).await?;
            let truthy = match &v {
                serde_json::Value::Null => false,
                serde_json::Value::Bool(b) => *b,
                serde_json::Value::Number(n) => n.as_f64().is_some_and(|x| x != 0.0),
                serde_json::Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if truthy {
                return Ok(v);
            }
            if Instant::now() > deadline {
                return Err(format!("timed out after {timeout:?} waiting for: {script}").into());
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// Waits until the roofline canvas has drawn, or fails at once with the load error the
    /// page shows (a sample missing from the site is a 404 there, not a long wait).
    pub async fn wait_roofline_or_error(&self, timeout: Duration) -> Result<(), BoxError> {
        let outcome = self
            .wait_js(
                "const c = document.getElementById('roofline-canvas'); \
                 if (c && Number(c.dataset.drawn) > 0) return 'drawn'; \
                 const e = document.querySelector('#errors .error'); \
                 return e ? e.textContent : null;",
                timeout,
            )
            .await?;
        match outcome.as_str() {
            Some("drawn") => Ok(()),
            other => Err(format!("no roofline: the page says {}", other.unwrap_or("?")).into()),
        }
    }

    /// Opens the site at `base` on the roofline view, waits for the file input and picks
    /// the file at `path` (an absolute path on this machine) in it; returns when the file
    /// was handed over, for the caller to time what follows.
    pub async fn pick_file_on_roofline(&self, base: &str, path: &str) -> Result<Instant, BoxError> {
        self.open_roofline(base).await?;
        self.pick_file(path).await
    }

    /// Opens the site at `base` on the roofline view and waits for its file input.
    pub async fn open_roofline(&self, base: &str) -> Result<(), BoxError> {
        self.client.goto(&format!("{base}?view=roofline")).await?;
        self.wait_js(
            "return document.getElementById('file-input')",
            Duration::from_secs(30),
        )
        .await?;
        Ok(())
    }

    /// Picks the file at `path` in the page's file input; returns when it was handed over.
    pub async fn pick_file(&self, path: &str) -> Result<Instant, BoxError> {
        let input = self
            .client
            .find(fantoccini::Locator::Css("#file-input"))
            .await?;
        let started = Instant::now();
        input.send_keys(path).await?;
        Ok(started)
    }

    /// Saves a screenshot of the page as `tests/out/NAME.png`.
    pub async fn screenshot(&self, name: &str) -> Result<PathBuf, BoxError> {
        let png = self.client.screenshot().await?;
        let path = out_dir().join(format!("{name}.png"));
        std::fs::write(&path, png)?;
        Ok(path)
    }

    /// Counts the pixels of canvas `id` that are not white (or transparent).
    pub async fn canvas_ink(&self, id: &str) -> Result<u64, BoxError> {
        let script = format!(
            "const c = document.getElementById({id:?}); if (!c) return -1; \
             const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data; \
             let n = 0; for (let i = 0; i < d.length; i += 4) {{ \
               if (d[i + 3] > 0 && (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240)) n++; }} \
             return n;"
        );
        let v = self.client.execute(&script, Vec::new()).await?;
        let n = v.as_i64().ok_or("canvas_ink: not a number")?;
        if n < 0 {
            return Err(format!("no canvas #{id}").into());
        }
        Ok(n as u64)
    }

    /// The chromedriver process's ID (Chromium and its tabs are its descendants).
    pub fn driver_pid(&self) -> Option<u32> {
        self._driver.id()
    }

    /// Ends the session.
    pub async fn close(self) -> Result<(), BoxError> {
        self.client.close().await?;
        Ok(())
    }
}

/// Builds a raw-page export of `launches` launches from the real rows of a raw fixture: its
/// header and units rows, then its data rows repeated in turn with fresh launch IDs and the
/// kernel names cycled through `kernel_variants` suffixes, so the importer sees that many
/// distinct kernels. Program output around the CSV is left out.
pub fn synthetic_raw_export(
    fixture: &str,
    launches: usize,
    kernel_variants: usize,
) -> Result<String, BoxError> {
    // Keep only CSV lines (program output and ==PROF== lines start otherwise).
    let csv_text: String = fixture
        .lines()
        .filter(|l| l.starts_with('"'))
        .collect::<Vec<_>>()
        .join("\n");
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(csv_text.as_bytes());
    let records: Vec<csv::StringRecord> = reader.records().collect::<Result<_, _>>()?;
    let (header, rest) = records.split_first().ok_or("fixture has no header")?;
    let (units, rows) = rest.split_first().ok_or("fixture has no units row")?;
    if rows.is_empty() {
        return Err("fixture has no launch rows".into());
    }
    let id_col = header
        .iter()
        .position(|h| h == "ID")
        .ok_or("no ID column")?;
    let name_col = header
        .iter()
        .position(|h| h == "Kernel Name")
        .ok_or("no Kernel Name column")?;
    let mut w = csv::WriterBuilder::new()
        .quote_style(csv::QuoteStyle::Always)
        .from_writer(Vec::new());
    w.write_record(header)?;
    w.write_record(units)?;
    for i in 0..launches {
        let row = &rows[i % rows.len()];
        let fields: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, v)| {
                if c == id_col {
                    i.to_string()
                } else if c == name_col {
                    format!("{v}_{}", (i / rows.len()) % kernel_variants.max(1))
                } else {
                    v.to_string()
                }
            })
            .collect();
        w.write_record(&fields)?;
    }
    Ok(String::from_utf8(
        w.into_inner().map_err(|e| e.to_string())?,
    )?)
}
