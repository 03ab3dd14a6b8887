//! Turning the bytes of dropped, picked or fetched files into runs.
//!
//! An artifact JSON file is one run. Nsight Compute CSV exports picked together are pages of
//! one run (a raw page and a details page, say) and are read and joined exactly as
//! `capture import` does, through [`shared::ncu`] and [`shared::merge::import_launches`].
//! Every failure names the file it came from; the caller keeps whatever was loaded before.

use shared::artifact::{Artifact, Origin, Provenance};
use shared::ncu::{self, Export};

/// One file handed to the viewer: its name (for messages) and its text.
#[derive(Clone, Debug, PartialEq)]
pub struct InputFile {
    /// File name or sample path, shown in messages and provenance.
    pub name: String,
    /// The file's text.
    pub text: String,
}

/// What kind of file a run was made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// An artifact JSON document.
    Artifact,
    /// One or more Nsight Compute CSV exports, imported in the browser.
    NcuExport,
}

/// A loaded run: an artifact and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    /// Display name: the file name, or the CSV names joined with " + ".
    pub name: String,
    /// Path the run was fetched from (`samples/h200.json`), when it came by URL, so a link
    /// can reopen it.
    pub src: Option<String>,
    /// Artifact or imported export.
    pub kind: SourceKind,
    /// The data.
    pub artifact: Artifact,
}

/// A file that could not be loaded, with the reason, for the page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file's name.
    pub file: String,
    /// What was wrong, in words.
    pub message: String,
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.file, self.message)
    }
}

/// The largest file the viewer reads, in bytes. A browser tab holds a file's whole text
/// (twice: as the browser's string and as the viewer's copy in WebAssembly memory) and then
/// every value of it, one `f64` per metric per launch, and reads it in one go, the tab busy
/// meanwhile. Measured in headless Chromium 156 on the development machine
/// (`tests/browser/examples/load_size.rs`, README, Performance), raw full-set exports: 200 MB
/// load in 5 s with the tab at 0.8 GB, 300 MB in 7 s at 1.1 GB, 500 MB in 10 s at 1.7 GB,
/// the tab busy all the while; past about 536 MB Chromium cannot hold the text as a string
/// at all and hands the page an empty file (which read as "the file is empty"). The same
/// export imported by `capture import` is an artifact that writes each kernel's repeated
/// values once: the 500 MB export's is 13 MB and loads in 2 to 3 s.
pub const MAX_FILE_BYTES: u64 = 250 * 1000 * 1000;

/// Refuses a file of `bytes` bytes larger than [`MAX_FILE_BYTES`] before it is read, with a
/// message that says so and what to do instead; `None` when it may be read.
pub fn refuse_large_file(name: &str, bytes: u64) -> Option<LoadError> {
    (bytes > MAX_FILE_BYTES).then(|| LoadError {
        file: name.to_string(),
        message: format!(
            "{:.0} MB is more than a browser tab can load (at most {} MB); import it with \
             `capture import {name} -o run.json` and open run.json instead",
            // Rounded up, so that a file just over the limit does not read as at it.
            (bytes as f64 / 1e6).ceil(),
            MAX_FILE_BYTES / 1_000_000
        ),
    })
}

/// Whether a file's text looks like JSON (an artifact) rather than a CSV export.
fn looks_like_json(text: &str) -> bool {
    text.trim_start_matches('\u{feff}')
        .trim_start()
        .starts_with('{')
}

/// Parses one artifact JSON file.
pub fn load_artifact(file: &InputFile) -> Result<Run, LoadError> {
    let text = file.text.trim_start_matches('\u{feff}');
    Artifact::from_json(text)
        .map(|artifact| Run {
            name: file.name.clone(),
            src: None,
            kind: SourceKind::Artifact,
            artifact,
        })
        .map_err(|e| LoadError {
            file: file.name.clone(),
            message: e.to_string(),
        })
}

/// Reads one CSV export; its warnings name the file first, as `capture import` prints them.
pub fn read_csv(file: &InputFile) -> Result<Export, LoadError> {
    if file.text.trim().is_empty() {
        return Err(LoadError {
            file: file.name.clone(),
            message: "the file is empty".into(),
        });
    }
    let mut export = ncu::read_export(file.text.as_bytes()).map_err(|e| LoadError {
        file: file.name.clone(),
        message: e.to_string(),
    })?;
    for w in &mut export.warnings {
        *w = w.in_file(&file.name);
    }
    Ok(export)
}

/// Imports CSV exports of one run into an artifact, the same way `capture import` does.
pub fn import_csvs(files: &[InputFile]) -> Result<Run, LoadError> {
    let exports = files.iter().map(read_csv).collect::<Result<Vec<_>, _>>()?;
    let (launches, warnings) = ncu::combine(exports);
    let names: Vec<String> = files.iter().map(|f| f.name.clone()).collect();
    if launches.is_empty() {
        return Err(LoadError {
            file: names.join(" + "),
            message: "no kernel launches found in the export".into(),
        });
    }
    let provenance = Provenance {
        origin: Some(Origin::Import),
        tool: "viewer".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        inputs: names.clone(),
        ..Provenance::default()
    };
    Ok(Run {
        name: names.join(" + "),
        src: None,
        kind: SourceKind::NcuExport,
        artifact: shared::merge::import_launches(launches, warnings, provenance),
    })
}

/// Loads a batch of files picked or dropped together: each artifact becomes a run, and all
/// CSV exports together become one run. Files that fail are reported one by one; the CSV
/// files that did read still import.
pub fn load_batch(files: Vec<InputFile>) -> (Vec<Run>, Vec<LoadError>) {
    let mut runs = Vec::new();
    let mut errors = Vec::new();
    let mut csvs = Vec::new();
    for file in files {
        if looks_like_json(&file.text) {
            match load_artifact(&file) {
                Ok(run) => runs.push(run),
                Err(e) => errors.push(e),
            }
        } else {
            csvs.push(file);
        }
    }
    if !csvs.is_empty() {
        let good: Vec<InputFile> = csvs
            .into_iter()
            .filter(|f| match read_csv(f) {
                Ok(_) => true,
                Err(e) => {
                    errors.push(e);
                    false
                }
            })
            .collect();
        if !good.is_empty() {
            match import_csvs(&good) {
                Ok(run) => runs.push(run),
                Err(e) => errors.push(e),
            }
        }
    }
    (runs, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> InputFile {
        let path = format!(
            "{}/../tests/fixtures/ncu-h200/{name}",
            env!("CARGO_MANIFEST_DIR")
        );
        InputFile {
            name: name.into(),
            text: std::fs::read_to_string(&path).unwrap_or_default(),
        }
    }

    #[test]
    fn a_file_too_large_for_the_tab_is_refused_with_what_to_do() {
        assert_eq!(refuse_large_file("run.csv", MAX_FILE_BYTES), None);
        let just_over = refuse_large_file("a.csv", MAX_FILE_BYTES + 1).map(|e| e.message);
        assert!(just_over.is_some_and(|m| m.starts_with("251 MB is more")));
        let e = refuse_large_file("big-raw.csv", 500_009_714).expect("refused");
        assert_eq!(e.file, "big-raw.csv");
        assert_eq!(
            e.to_string(),
            "big-raw.csv: 501 MB is more than a browser tab can load (at most 250 MB); \
             import it with `capture import big-raw.csv -o run.json` and open run.json instead"
        );
    }

    #[test]
    fn a_bad_file_is_named_in_the_error() {
        let (runs, errors) = load_batch(vec![InputFile {
            name: "notes.txt".into(),
            text: "hello, this is not an export\n".into(),
        }]);
        assert!(runs.is_empty());
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].file, "notes.txt");
        assert!(!errors[0].message.is_empty());
    }

    #[test]
    fn broken_json_says_where() {
        let (runs, errors) = load_batch(vec![InputFile {
            name: "broken.json".into(),
            text: "{\"schema\": 1, \"kernels\": [".into(),
        }]);
        assert!(runs.is_empty());
        assert!(
            errors[0].to_string().starts_with("broken.json: "),
            "{}",
            errors[0]
        );
    }

    #[test]
    fn future_schema_is_refused_plainly() {
        let (_, errors) = load_batch(vec![InputFile {
            name: "new.json".into(),
            text: "{\"schema\": 99}".into(),
        }]);
        assert!(errors[0].message.contains("newer"), "{}", errors[0]);
    }

    #[test]
    fn a_raw_export_imports_like_capture_import() {
        let raw = fixture("probe_metrics_raw_with_stdout.csv");
        let (runs, errors) = load_batch(vec![raw.clone()]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(runs.len(), 1);
        let run = &runs[0];
        assert_eq!(run.kind, SourceKind::NcuExport);
        let names: Vec<&str> = run
            .artifact
            .kernels
            .iter()
            .map(|k| k.name.as_str())
            .collect();
        assert_eq!(names, vec!["copy", "fma_loop"]);
        // The same launches through the shared importer directly.
        let export = ncu::read_export(raw.text.as_bytes());
        let direct = export.map(|e| e.launches.len()).unwrap_or(0);
        let via_viewer: usize = run
            .artifact
            .kernels
            .iter()
            .map(|k| k.cold.as_ref().map_or(0, |c| c.launches.len()))
            .sum();
        assert_eq!(direct, via_viewer);
    }

    #[test]
    fn warnings_name_the_file_first_as_capture_prints_them() {
        let path = format!(
            "{}/../tests/fixtures/bad/out_of_range.csv",
            env!("CARGO_MANIFEST_DIR")
        );
        let file = InputFile {
            name: "out_of_range.csv".into(),
            text: std::fs::read_to_string(&path).unwrap_or_default(),
        };
        let (runs, errors) = load_batch(vec![file]);
        assert!(errors.is_empty(), "{errors:?}");
        let warnings = &runs[0].artifact.warnings;
        let negative = format!(
            "out_of_range.csv: line 11: {} is negative",
            shared::counters::GPU_TIME_DURATION.name
        );
        assert!(
            warnings.iter().any(|w| w.starts_with(&negative)),
            "{warnings:?}"
        );
    }

    #[test]
    fn raw_and_details_pages_of_one_run_join() {
        let (runs, errors) = load_batch(vec![
            fixture("probe_full_raw.csv"),
            fixture("probe_full_details.csv"),
        ]);
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(runs.len(), 1);
        assert_eq!(runs[0].name, "probe_full_raw.csv + probe_full_details.csv");
        let launch = runs[0].artifact.kernels[0]
            .cold
            .as_ref()
            .and_then(|c| c.launches.first());
        let launch = launch.map(|l| (l.metrics.is_empty(), l.sections.is_empty()));
        assert_eq!(launch, Some((false, false)));
    }
}
