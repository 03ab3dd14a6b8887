//! The file picker, the samples menu and the drop hint.

use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_bindgen::JsCast;

use crate::browser;
use crate::ctx::Ctx;

/// Picker for artifacts, CSV exports and `.ncu-rep` (`.ncu-repz`) reports (several at once), and the
/// bundled samples menu.
#[component]
pub fn Loader() -> impl IntoView {
    let ctx = Ctx::get();
    let samples = RwSignal::new(Vec::<String>::new());
    spawn_local(async move {
        // The build writes site/dist/samples/index.json; without it there is simply no menu.
        if let Ok(text) = browser::fetch_text("samples/index.json").await {
            if let Ok(list) = serde_json::from_str::<Vec<String>>(&text) {
                samples.set(list);
            }
        }
    });
    let on_change = move |ev: leptos::ev::Event| {
        let Some(input) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        else {
            return;
        };
        let files = input
            .files()
            .map(|l| browser::files_of(&l))
            .unwrap_or_default();
        if !files.is_empty() {
            ctx.load_files(files);
        }
        // Let the same file be picked again after a fix.
        input.set_value("");
    };
    let on_sample = move |ev: leptos::ev::Event| {
        let value = event_target_value(&ev);
        if !value.is_empty() {
            ctx.load_sources(vec![format!("samples/{value}")], true);
        }
    };
    view! {
        <div class="loader">
            <label class="button" for="file-input">"Open files…"</label>
            <input
                id="file-input"
                type="file"
                multiple=true
                accept=".json,.csv,.txt,.ncu-rep,.ncu-repz,.gz,.zst,.cu,.cuh,application/json,text/csv"
                on:change=on_change
            />
            <Show when=move || samples.with(|s| !s.is_empty())>
                <select id="samples" aria-label="Open a sample" on:change=on_sample prop:value="">
                    <option value="">"Samples…"</option>
                    <For
                        each=move || samples.get()
                        key=|s| s.clone()
                        children=|s| {
                            let label = s.trim_end_matches(".json").to_string();
                            view! { <option value=s>{label}</option> }
                        }
                    />
                </select>
            </Show>
            <span class="hint">"or drop artifacts, ncu CSV exports and .ncu-rep or .ncu-repz reports anywhere"</span>
        </div>
    }
}
