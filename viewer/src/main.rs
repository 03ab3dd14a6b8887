//! Entry point of the viewer's WebAssembly: mounts the app on the page body. Nothing else
//! happens here; see `app.rs`.

#![forbid(unsafe_code)]

fn main() {
    #[cfg(target_arch = "wasm32")]
    {
        console_error_panic_hook::set_once();
        leptos::mount::mount_to_body(viewer::app::App);
    }
}
