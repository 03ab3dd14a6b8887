//! The few browser services the viewer needs, behind plain functions: reading picked or
//! dropped files, fetching a bundled sample, saving a download, the address bar, a clock.
//! Everything else in the viewer stays free of `web-sys`.

use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

fn window() -> Result<web_sys::Window, String> {
    web_sys::window().ok_or_else(|| "no window".to_string())
}

fn js_error(e: wasm_bindgen::JsValue) -> String {
    e.as_string()
        .or_else(|| {
            e.dyn_ref::<js_sys::Error>()
                .map(|err| String::from(err.message()))
        })
        .unwrap_or_else(|| format!("{e:?}"))
}

/// The files of a list, taken out of it now (a file input's list empties when the input is
/// reset).
pub fn files_of(list: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// The bytes of a resolved `ArrayBuffer` promise.
fn bytes_of(buffer: &wasm_bindgen::JsValue) -> Vec<u8> {
    js_sys::Uint8Array::new(buffer).to_vec()
}

/// How much of a file is read at a time: the tab holds one such piece besides the bytes read
/// so far, instead of a second copy of the whole file.
const READ_PIECE_BYTES: f64 = 16.0 * 1024.0 * 1024.0;

/// A picked file, read a piece at a time, the next piece's read under way while the last
/// one is worked on.
pub struct FilePieces {
    file: web_sys::File,
    /// Where the next piece starts.
    next: f64,
    /// The read of the piece at `next` under way, with where it ends.
    ahead: Option<(f64, JsFuture)>,
}

fn read_error(e: wasm_bindgen::JsValue) -> String {
    format!("could not be read: {}", js_error(e))
}

impl FilePieces {
    /// The pieces of `file`, none read yet.
    pub fn new(file: web_sys::File) -> Self {
        FilePieces {
            file,
            next: 0.0,
            ahead: None,
        }
    }

    /// Back to the file's start.
    pub fn restart(&mut self) {
        self.next = 0.0;
        self.ahead = None;
    }

    /// Whether pieces remain.
    pub fn has_more(&self) -> bool {
        self.next < self.file.size()
    }

    /// Starts reading the piece at `next`, unless it is under way or the file is read.
    fn read_ahead(&mut self) -> Result<(), String> {
        if self.ahead.is_some() || !self.has_more() {
            return Ok(());
        }
        let end = (self.next + READ_PIECE_BYTES).min(self.file.size());
        let piece = self
            .file
            .slice_with_f64_and_f64(self.next, end)
            .map_err(read_error)?;
        self.ahead = Some((end, JsFuture::from(piece.array_buffer())));
        Ok(())
    }

    /// The bytes of the piece at `next`, once read; `None` past the end. The read of the
    /// one after is started.
    async fn next_array(&mut self) -> Result<Option<js_sys::Uint8Array>, String> {
        self.read_ahead()?;
        let Some((end, read)) = self.ahead.take() else {
            return Ok(None);
        };
        let buffer = read.await.map_err(read_error)?;
        self.next = end;
        self.read_ahead()?;
        Ok(Some(js_sys::Uint8Array::new(&buffer)))
    }

    /// The next piece, of [`READ_PIECE_BYTES`] at most; `None` past the end.
    pub async fn next(&mut self) -> Result<Option<Vec<u8>>, String> {
        Ok(self.next_array().await?.map(|array| array.to_vec()))
    }

    /// The rest of the file appended to `bytes`, read straight into one buffer of the
    /// file's size; `on_piece` hears how many bytes are in before each piece.
    pub async fn rest_into(
        &mut self,
        bytes: &mut Vec<u8>,
        on_piece: &dyn Fn(u64),
    ) -> Result<(), String> {
        bytes.reserve_exact((self.file.size() - self.next).max(0.0) as usize);
        loop {
            on_piece(bytes.len() as u64);
            let Some(array) = self.next_array().await? else {
                return Ok(());
            };
            let at = bytes.len();
            bytes.resize(at + array.length() as usize, 0);
            if let Some(into) = bytes.get_mut(at..) {
                array.copy_to(into);
            }
        }
    }
}

/// Fetches a file of the site by relative path: the response, when it is a success.
async fn fetch(path: &str) -> Result<web_sys::Response, String> {
    let resp = JsFuture::from(window()?.fetch_with_str(path))
        .await
        .map_err(|e| format!("could not be fetched: {}", js_error(e)))?;
    let resp: web_sys::Response = resp
        .dyn_into()
        .map_err(|_| "the fetch did not return a response".to_string())?;
    if !resp.ok() {
        return Err(format!("could not be fetched: HTTP {}", resp.status()));
    }
    Ok(resp)
}

/// Fetches a file of the site by relative path and returns its bytes.
pub async fn fetch_bytes(path: &str) -> Result<Vec<u8>, String> {
    let resp = fetch(path).await?;
    let buffer = JsFuture::from(resp.array_buffer().map_err(js_error)?)
        .await
        .map_err(|e| format!("could not be read: {}", js_error(e)))?;
    Ok(bytes_of(&buffer))
}

/// Un-gzips `bytes` with the browser's own `DecompressionStream` (no inflater in the
/// WebAssembly, whose release build stays under its size limit).
///
/// # Errors
///
/// The browser has no `DecompressionStream`, or the data does not un-gzip.
pub async fn gunzip(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes));
    let blob = web_sys::Blob::new_with_u8_array_sequence(&parts).map_err(js_error)?;
    // `DecompressionStream` is behind web-sys's unstable flag: made through `Reflect`. It is
    // itself the readable and writable pair `pipeThrough` takes.
    let cannot = |e: wasm_bindgen::JsValue| {
        format!(
            "gzip data, and this browser cannot un-gzip it ({}): gunzip it and pick the file \
             inside",
            js_error(e)
        )
    };
    let class = js_sys::Reflect::get(&js_sys::global(), &"DecompressionStream".into())
        .map_err(cannot)?
        .dyn_into::<js_sys::Function>()
        .map_err(cannot)?;
    let args = js_sys::Array::of1(&"gzip".into());
    let pair: web_sys::ReadableWritablePair = js_sys::Reflect::construct(&class, &args)
        .map_err(cannot)?
        .unchecked_into();
    let out = blob.stream().pipe_through(&pair);
    let resp = web_sys::Response::new_with_opt_readable_stream(Some(&out)).map_err(js_error)?;
    let buffer = JsFuture::from(resp.array_buffer().map_err(js_error)?)
        .await
        .map_err(|e| format!("gzip data that does not un-gzip: {}", js_error(e)))?;
    Ok(bytes_of(&buffer))
}

/// Fetches a file of the site by relative path and returns its text.
pub async fn fetch_text(path: &str) -> Result<String, String> {
    let resp = fetch(path).await?;
    let text = JsFuture::from(resp.text().map_err(js_error)?)
        .await
        .map_err(|e| format!("could not be read: {}", js_error(e)))?;
    text.as_string()
        .ok_or_else(|| "the response is not text".to_string())
}

/// Offers `bytes` as a download named `file_name`.
pub fn download_text(file_name: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(mime);
    let blob =
        web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(js_error)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(js_error)?;
    let result = download_url(file_name, &url);
    let _ = web_sys::Url::revoke_object_url(&url);
    result
}

/// Offers the resource at `url` (a blob: or data: URL) as a download named `file_name`.
pub fn download_url(file_name: &str, url: &str) -> Result<(), String> {
    let document = window()?.document().ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(js_error)?
        .dyn_into()
        .map_err(|_| "not an anchor".to_string())?;
    a.set_href(url);
    a.set_download(file_name);
    a.click();
    Ok(())
}

/// The page's query string, with its `?`.
pub fn query_string() -> String {
    window()
        .ok()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Replaces the address bar's query string without reloading or adding history.
pub fn replace_query(query: &str) {
    if let Ok(history) = window().and_then(|w| w.history().map_err(js_error)) {
        let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(query));
    }
}

/// Lets the browser draw and handle input before going on: resolves in a task of its own
/// (`setTimeout(0)`).
pub async fn yield_to_browser() {
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        let queued = window().is_ok_and(|w| w.set_timeout_with_callback(&resolve).is_ok());
        if !queued {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
    let _ = JsFuture::from(promise).await;
}

/// Milliseconds since the page started (`performance.now()`).
pub fn now_ms() -> f64 {
    window()
        .ok()
        .and_then(|w| w.performance())
        .map(|p| p.now())
        .unwrap_or(0.0)
}

/// The device pixel ratio, at least 1.
pub fn device_pixel_ratio() -> f64 {
    window()
        .map(|w| w.device_pixel_ratio())
        .unwrap_or(1.0)
        .max(1.0)
}

/// The session storage key of the names of the files last picked.
const PICKED_KEY: &str = "roofline-picked";

/// Notes the names of picked files for this tab's session, so that after a reload the
/// page can say which to pick again (a page cannot reopen a picked file by itself).
pub fn remember_picked(names: &[String]) {
    if let Some(s) = window()
        .ok()
        .and_then(|w| w.session_storage().ok().flatten())
    {
        let _ = s.set_item(PICKED_KEY, &names.join(", "));
    }
}

/// The names of the files picked in this tab before the page was reloaded.
pub fn picked_before() -> Option<String> {
    window()
        .ok()
        .and_then(|w| w.session_storage().ok().flatten())
        .and_then(|s| s.get_item(PICKED_KEY).ok().flatten())
        .filter(|n| !n.is_empty())
}
