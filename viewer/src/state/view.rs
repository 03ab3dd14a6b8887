//! The view state (which runs, which view, which kernel, which precision, what is compared)
//! and its round trip through the page's query string, so a link reopens the same view.
//!
//! Only runs fetched by path (`src`) can be reopened by a link; files picked from disk stay
//! in the page and are never sent anywhere.

use shared::model::work_kind::Work;

use super::choices::ExerciseState;

/// The views, one per tab.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    /// Device, ceilings, ridge points, provenance, warnings.
    #[default]
    Overview,
    /// The kernels ranked by their share of the kernel time.
    Time,
    /// The roofline chart.
    Roofline,
    /// Speed-of-Light table with verdicts.
    Sol,
    /// Memory chart of the selected kernel.
    Memory,
    /// Asked vs measured bytes table.
    Bytes,
    /// Occupancy table.
    Occupancy,
    /// Nsight Compute's rule findings of the selected kernel.
    Rules,
    /// The selected kernel's SASS with per-instruction figures.
    Source,
    /// Event time vs ncu duration.
    Timing,
    /// Every raw metric of the selected kernel, searchable.
    Metrics,
    /// Two kernels or two runs side by side.
    Compare,
    /// Exercises: predict then reveal, report-reading questions, mystery kernels.
    Exercise,
}

impl View {
    /// Every view, in tab order.
    pub const ALL: [View; 13] = [
        View::Overview,
        View::Time,
        View::Roofline,
        View::Sol,
        View::Memory,
        View::Bytes,
        View::Occupancy,
        View::Rules,
        View::Source,
        View::Timing,
        View::Metrics,
        View::Compare,
        View::Exercise,
    ];

    /// The name used in the URL and in element ids.
    pub fn slug(self) -> &'static str {
        match self {
            View::Overview => "overview",
            View::Time => "time",
            View::Roofline => "roofline",
            View::Sol => "sol",
            View::Memory => "memory",
            View::Bytes => "bytes",
            View::Occupancy => "occupancy",
            View::Rules => "rules",
            View::Source => "source",
            View::Timing => "timing",
            View::Metrics => "metrics",
            View::Compare => "compare",
            View::Exercise => "exercise",
        }
    }

    /// The tab label.
    pub fn title(self) -> &'static str {
        match self {
            View::Overview => "Overview",
            View::Time => "Where the time goes",
            View::Roofline => "Roofline",
            View::Sol => "Speed of Light",
            View::Memory => "Memory chart",
            View::Bytes => "Bytes table",
            View::Occupancy => "Occupancy",
            View::Rules => "ncu's rules",
            View::Source => "Source",
            View::Timing => "Timing",
            View::Metrics => "Raw metrics",
            View::Compare => "Compare",
            View::Exercise => "Exercises",
        }
    }

    /// The view named `slug`, if any.
    pub fn from_slug(slug: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.slug() == slug)
    }
}

/// A kernel of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelRef {
    /// Index of the run in load order.
    pub run: usize,
    /// Index of the kernel in that run's artifact.
    pub kernel: usize,
}

/// Everything the URL keeps.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewState {
    /// Paths of runs fetched by URL, in load order.
    pub sources: Vec<String>,
    /// The current tab.
    pub view: View,
    /// The selected kernel.
    pub selected: Option<KernelRef>,
    /// The kernel compared with the selected one, in the compare view.
    pub compare: Option<KernelRef>,
    /// Which work the roofline plots.
    pub precision: Plotted,
    /// The NVTX range node the current run is narrowed to: its path, outermost first (one
    /// `range=` each in the URL, since names may hold `/`).
    pub range: Option<Vec<String>>,
    /// The learner's choices in the exercise view.
    pub exercise: ExerciseState,
}

/// Which work the roofline plots: every kernel at its own kind of work against that kind's
/// roof, or one kind for all.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Plotted {
    /// Each kernel's main kind of work (the table's `precision`), each kind's roof drawn.
    #[default]
    Own,
    /// One kind of work for every kernel.
    Kind(Work),
}

impl Plotted {
    /// A label for people (`each kernel's own`, `tensor BF16`).
    pub fn label(self) -> &'static str {
        match self {
            Plotted::Own => "each kernel's own",
            Plotted::Kind(w) => w.label(),
        }
    }
}

impl Default for ViewState {
    fn default() -> Self {
        ViewState {
            sources: Vec::new(),
            view: View::Overview,
            selected: None,
            compare: None,
            precision: Plotted::Own,
            range: None,
            exercise: ExerciseState::default(),
        }
    }
}

/// The URL name of what the roofline plots: `own`, or a work key (`fp32`, `tensor_bf16`).
pub fn precision_slug(p: Plotted) -> &'static str {
    match p {
        Plotted::Own => "own",
        Plotted::Kind(w) => w.key(),
    }
}

/// The inverse of [`precision_slug`].
pub fn parse_precision(s: &str) -> Option<Plotted> {
    match s {
        "own" => Some(Plotted::Own),
        _ => Work::from_key(s).map(Plotted::Kind),
    }
}

fn parse_ref(s: &str) -> Option<KernelRef> {
    let (run, kernel) = s.split_once('.')?;
    Some(KernelRef {
        run: run.parse().ok()?,
        kernel: kernel.parse().ok()?,
    })
}

/// Whether `src` is a path on the page's own site: relative, no scheme, no `//` host, no
/// way up out of the site (the page's Content-Security-Policy enforces the same).
pub fn is_local_path(src: &str) -> bool {
    !src.is_empty()
        && !src.contains(':')
        && !src.starts_with('/')
        && !src.starts_with('\\')
        && !src.split(['/', '\\']).any(|part| part == "..")
}

impl ViewState {
    /// Reads a query string (with or without the leading `?`). Unknown keys and bad values
    /// are ignored, so an old or hand-edited link still opens.
    pub fn from_query(query: &str) -> ViewState {
        let mut state = ViewState::default();
        for (key, value) in parse_query(query) {
            match key.as_str() {
                "src" => state
                    .sources
                    .extend(value.split(',').filter(|s| !s.is_empty()).map(String::from)),
                "view" => state.view = View::from_slug(&value).unwrap_or(state.view),
                "kernel" => state.selected = parse_ref(&value).or(state.selected),
                "cmp" => state.compare = parse_ref(&value).or(state.compare),
                "prec" => state.precision = parse_precision(&value).unwrap_or(state.precision),
                "range" => state.range.get_or_insert_with(Vec::new).push(value),
                _ => {
                    state.exercise.read(&key, &value);
                }
            }
        }
        state
    }

    /// The query string (with a leading `?`) that reopens this view.
    pub fn to_query(&self) -> String {
        let mut parts = Vec::new();
        for src in &self.sources {
            parts.push(format!("src={}", encode(src)));
        }
        parts.push(format!("view={}", self.view.slug()));
        if let Some(k) = self.selected {
            parts.push(format!("kernel={}.{}", k.run, k.kernel));
        }
        if let Some(k) = self.compare {
            parts.push(format!("cmp={}.{}", k.run, k.kernel));
        }
        if self.precision != Plotted::Own {
            parts.push(format!("prec={}", precision_slug(self.precision)));
        }
        for range in self.range.iter().flatten() {
            parts.push(format!("range={}", encode(range)));
        }
        parts.extend(self.exercise.query_parts());
        format!("?{}", parts.join("&"))
    }
}

/// Splits a query string into decoded key/value pairs.
pub fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .trim_start_matches('?')
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

/// Percent-encodes everything but unreserved characters and `/`.
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'/' => {
                out.push(char::from(b))
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Decodes percent escapes and `+` (as a space); invalid escapes are kept as written.
pub fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok());
                match hex {
                    Some(v) => {
                        out.push(v);
                        i += 3;
                        continue;
                    }
                    None => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The page a load lands on, from the page shown (`current`), the runs open after it, whether
/// the first run loaded is an application's and whether a link or an earlier load fixed the
/// page (`pinned`): two runs or more open on Compare (its run-against-run table first; they
/// opened on Overview, which shows one run, issue 53), an application on "where the time
/// goes"; otherwise, or when pinned, the page stays.
pub fn opening_view(current: View, runs: usize, application: bool, pinned: bool) -> View {
    if pinned || current != View::Overview {
        current
    } else if runs >= 2 {
        View::Compare
    } else if application {
        View::Time
    } else {
        current
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_runs_open_on_compare_an_application_on_time() {
        use View::{Bytes, Compare, Overview, Time};
        let cases = [
            // (page shown, runs open, application, pinned, lands on)
            (Overview, 1, false, false, Overview),
            (Overview, 1, true, false, Time),
            (Overview, 2, false, false, Compare),
            (Overview, 2, true, false, Compare),
            (Overview, 2, true, true, Overview),
            (Bytes, 2, false, false, Bytes),
            (Bytes, 1, true, false, Bytes),
        ];
        for (current, runs, app, pinned, want) in cases {
            assert_eq!(
                opening_view(current, runs, app, pinned),
                want,
                "{current:?} {runs} {app} {pinned}"
            );
        }
    }

    #[test]
    fn query_round_trip() {
        let state = ViewState {
            sources: vec!["samples/h200.json".into(), "samples/with space.json".into()],
            view: View::Roofline,
            selected: Some(KernelRef { run: 0, kernel: 3 }),
            compare: Some(KernelRef { run: 1, kernel: 3 }),
            precision: Plotted::Kind(Work::Fp64),
            range: Some(vec![
                "measure".into(),
                "TSL:Thunk:#name=jit(mlp)/dot_general#".into(),
            ]),
            exercise: ExerciseState::default(),
        };
        let q = state.to_query();
        assert_eq!(
            q,
            "?src=samples/h200.json&src=samples/with%20space.json&view=roofline&kernel=0.3&cmp=1.3&prec=fp64\
             &range=measure&range=TSL%3AThunk%3A%23name%3Djit%28mlp%29/dot_general%23"
        );
        assert_eq!(ViewState::from_query(&q), state);
    }

    #[test]
    fn exercise_choices_round_trip() {
        use shared::exercise::predict::Direction;
        let q = "?src=samples/h200.json&view=exercise&pred=nab&vpred=m&done=1&ex=quiz&qa=bc";
        let s = ViewState::from_query(q);
        assert_eq!(s.view, View::Exercise);
        assert_eq!(s.exercise.prediction(1).direction, Some(Direction::Above));
        assert!(s.exercise.submitted);
        assert_eq!(s.exercise.answer(1), Some(2));
        assert_eq!(
            s.to_query(),
            "?src=samples/h200.json&view=exercise&ex=quiz&pred=nab&vpred=m&done=1&qa=bc"
        );
        assert_eq!(ViewState::from_query(&s.to_query()), s);
    }

    #[test]
    fn bad_values_fall_back_to_defaults() {
        let s = ViewState::from_query("?view=nope&kernel=x.1&prec=fp8&src=samples/h200.json&zzz");
        assert_eq!(s.view, View::Overview);
        assert_eq!(s.selected, None);
        assert_eq!(s.precision, Plotted::Own);
        let t = ViewState::from_query("?prec=tensor_bf16");
        assert_eq!(t.precision, Plotted::Kind(Work::TensorBf16));
        assert_eq!(s.sources, vec!["samples/h200.json".to_string()]);
    }

    #[test]
    fn only_same_site_paths_are_fetched() {
        for ok in ["samples/h200.json", "a.json", "samples/x%20y.json"] {
            assert!(is_local_path(ok), "{ok}");
        }
        for bad in [
            "https://evil.example/a.json",
            "//evil.example/a.json",
            "/etc/passwd",
            "../secret.json",
            "samples/../../x",
            "javascript:alert(1)",
            "",
        ] {
            assert!(!is_local_path(bad), "{bad}");
        }
    }

    #[test]
    fn percent_decoding_is_lenient() {
        assert_eq!(decode("a%2Fb+c%zz%"), "a/b c%zz%");
        assert_eq!(encode("<img>"), "%3Cimg%3E");
    }
}
