//! Reading an artifact: JSON text to [`Artifact`], refusing what no version of the format
//! is (a future version, a non-object, a broken counter set) with the line it is on, and
//! storing as missing the numbers no measurement can have.
//!
//! Counter sets arrive in their JSON form ([`CounterSetJson`]) and become [`CounterSet`]s
//! here; each launch's values are read straight from their JSON tokens ([`ValuesWire`]) and
//! joined to the set's columns.

use std::fmt;
use std::sync::Arc;

use serde::de::{MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};

use super::schema::{
    Artifact, CounterSet, CounterSetJson, LaunchCounters, LaunchJson, LaunchSite, Metric,
    MetricKey, MetricValue, NvtxRanges, Timing, ValuesWire, SCHEMA_VERSION,
};
use super::storage::{
    missing, CheckedRows, MetricColumns, Metrics, SiteInterner, Values, TEXT_BITS,
};
use crate::error::ArtifactError;
use crate::model::range::{check_event_ms, OutOfRange};
use crate::model::work_kind::Work;
use crate::text::names::shorten_kernel_name;

/// The 1-based line of the top-level `"schema"` field in `text` (the first such key).
fn schema_line(text: &str) -> usize {
    let Some(at) = text.find("\"schema\"") else {
        return 1;
    };
    1 + text
        .get(..at)
        .map_or(0, |before| before.matches('\n').count())
}

/// What part of an artifact a [`LoadWarning`] is about: `capture diff --gate` cannot judge
/// a run whose times were not taken as written ([`LoadField::is_time`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LoadField {
    /// A kernel's event timing (its samples, min, median or max).
    Timing,
    /// A duration counter or section row (`ns` or `s`): ncu's time of a launch.
    Duration,
    /// Any other counter or section row.
    Counter,
    /// A kernel's hand-counted asked work.
    Asked,
    /// A device peak or a measured ceiling.
    Peak,
    /// The `sampled` block of the artifact or of a kernel, or a launch's `sampled_from`.
    Sampled,
}

impl LoadField {
    /// The field of a counter or section row of base unit `unit`.
    fn of_unit(unit: &str) -> Self {
        if matches!(unit, "ns" | "s") {
            LoadField::Duration
        } else {
            LoadField::Counter
        }
    }

    /// Whether the field is a time a kernel's time is worked out from (its event timing or
    /// an ncu duration).
    pub fn is_time(self) -> bool {
        matches!(self, LoadField::Timing | LoadField::Duration)
    }
}

/// A value the artifact reader did not take as written, and why (one line: the kernel, the
/// field, the value's problem, what was done).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadWarning {
    /// The kernel's index in [`Artifact::kernels`], when the warning is about one.
    pub kernel: Option<usize>,
    /// What part of the artifact it is about.
    pub field: LoadField,
    /// The warning (`vector add: event timing is ...; kept as missing`).
    pub message: String,
}

impl LoadWarning {
    fn peak(message: String) -> Self {
        LoadWarning {
            kernel: None,
            field: LoadField::Peak,
            message,
        }
    }
}

impl fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

/// A value in ms for a warning: `1e300 ms` rather than its 301 digits.
fn ms_text(v: f64) -> String {
    if v != 0.0 && !(1e-6..1e9).contains(&v.abs()) {
        format!("{v:e} ms")
    } else {
        format!("{v} ms")
    }
}

/// Why an event timing cannot be taken as written, if it cannot: a sample, the min, the
/// median or the max out of range ([`crate::model::range::check_event_ms`]), or min, median
/// and max that are not those of the samples (the min and max the extremes, the median
/// between the two middle samples, whichever median convention wrote it).
fn timing_problem(t: &Timing) -> Option<String> {
    let why = |v: f64| check_event_ms(v).map(OutOfRange::reason);
    for (what, v) in [
        ("min_ms", t.min_ms),
        ("median_ms", t.median_ms),
        ("max_ms", t.max_ms),
    ] {
        if let Some(why) = why(v) {
            return Some(format!("out of range: {what} {} is {why}", ms_text(v)));
        }
    }
    let n = t.samples_ms.len();
    for (i, &v) in t.samples_ms.iter().enumerate() {
        if let Some(why) = why(v) {
            return Some(format!(
                "out of range: sample {} of {n} ({}) is {why}",
                i + 1,
                ms_text(v)
            ));
        }
    }
    if !(t.min_ms <= t.median_ms && t.median_ms <= t.max_ms) {
        return Some(format!(
            "out of order: min_ms {}, median_ms {}, max_ms {}",
            t.min_ms, t.median_ms, t.max_ms
        ));
    }
    let mut sorted = t.samples_ms.clone();
    crate::order::sort_floats(&mut sorted);
    let (Some(&lo), Some(&hi)) = (sorted.first(), sorted.last()) else {
        return None;
    };
    let mid = (
        sorted.get((n - 1) / 2).copied().unwrap_or(lo),
        sorted.get(n / 2).copied().unwrap_or(hi),
    );
    // Exact: the writer's samples and summaries are the same floats, written shortest
    // round-trip and read back bit for bit.
    if lo != t.min_ms || hi != t.max_ms || t.median_ms < mid.0 || t.median_ms > mid.1 {
        return Some(format!(
            "not its samples': min_ms {}, median_ms {}, max_ms {} for {n} samples of min {lo}, \
             median between {} and {}, max {hi}",
            t.min_ms, t.median_ms, t.max_ms, mid.0, mid.1
        ));
    }
    None
}

impl Artifact {
    /// Parses an artifact from JSON text, refusing future schema versions plainly. Values no
    /// measurement can have are dropped with warnings (see [`Artifact::from_json_checked`]).
    pub fn from_json(text: &str) -> Result<Self, ArtifactError> {
        Self::from_json_checked(text).map(|(a, _)| a)
    }

    /// Parses an artifact like [`Artifact::from_json`] and also returns the warnings of the
    /// load, each naming the kernel and field ([`LoadWarning`]): numbers out of range
    /// (negative durations, sizes, rates or counts; magnitudes above
    /// [`crate::model::range::MAX_MAGNITUDE`]) are stored as missing, as the CSV reader
    /// does; an event timing with a sample out of range
    /// ([`crate::model::range::check_event_ms`]) or whose min, median and max are not those
    /// of its samples is stored as missing; a `sampled` block that does not count the
    /// launches it describes, or launches copied from others (`sampled_from`) without one,
    /// is a warning. Each warning is also added to `warnings`.
    ///
    /// A newer file is reported as such rather than as a confusing field error.
    pub fn from_json_checked(text: &str) -> Result<(Self, Vec<LoadWarning>), ArtifactError> {
        let mut artifact = Self::parse(text)?;
        let mut found = artifact.drop_out_of_range();
        found.extend(artifact.check_sampled());
        artifact
            .warnings
            .extend(found.iter().map(|w| w.message.clone()));
        Ok((artifact, found))
    }

    fn parse(text: &str) -> Result<Self, ArtifactError> {
        // A byte-order mark before the JSON (editors on Windows write one) is no error.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let json_error = |e: serde_json::Error| ArtifactError::Json {
            line: e.line(),
            column: e.column(),
            message: e.to_string(),
        };
        let future = |found: u64| ArtifactError::FutureSchema {
            line: schema_line(text),
            found,
            supported: SCHEMA_VERSION,
        };
        // The whole document is read once when it loads (a large artifact takes seconds);
        // only a document that does not is read again for its version alone, so that a
        // newer file is reported as such rather than as a confusing field error.
        let error = match serde_json::from_str::<Artifact>(text) {
            Ok(artifact) if artifact.schema > SCHEMA_VERSION => {
                return Err(future(u64::from(artifact.schema)))
            }
            Ok(artifact) => return Ok(artifact),
            Err(e) => e,
        };
        // Read again as any JSON, to say in plain words what it is instead of naming a
        // type of this code.
        let doc: serde_json::Value = serde_json::from_str(text).map_err(json_error)?;
        let found = match &doc {
            serde_json::Value::Object(_) => None,
            serde_json::Value::Null => Some("null"),
            serde_json::Value::Bool(_) => Some("a boolean"),
            serde_json::Value::Number(_) => Some("a number"),
            serde_json::Value::String(_) => Some("a string"),
            serde_json::Value::Array(_) => Some("a list"),
        };
        if let Some(found) = found {
            return Err(ArtifactError::NotAnObject { found });
        }
        let version = match doc.get("schema") {
            None => return Err(ArtifactError::NoSchema),
            Some(v) => v.as_u64().ok_or_else(|| ArtifactError::BadSchema {
                line: schema_line(text),
                found: v.to_string(),
            })?,
        };
        if version > u64::from(SCHEMA_VERSION) {
            return Err(future(version));
        }
        Err(json_error(error))
    }

    /// Stores as missing every number that no measurement can have; returns one warning per
    /// kernel and metric.
    fn drop_out_of_range(&mut self) -> Vec<LoadWarning> {
        let bad = |unit: &str, v: f64| crate::model::range::check(unit, v).map(OutOfRange::reason);
        let mut warnings = Vec::new();
        // Base rows are shared by launches of a kernel, and by kernels of a run.
        let mut checked = CheckedRows::default();
        for (index, kernel) in self.kernels.iter_mut().enumerate() {
            let name = shorten_kernel_name(&kernel.name, 80);
            let mut found: Vec<(String, LoadField, String)> = Vec::new();
            let mut note = |what: String, field: LoadField, why: String| {
                if !found.iter().any(|(w, _, _)| *w == what) {
                    found.push((what, field, why));
                }
            };
            for set in kernel.cold.iter_mut().chain(kernel.warm.as_deref_mut()) {
                for launch in &mut set.launches {
                    let at = launch
                        .metrics
                        .columns_where(&mut checked, |k, v| bad(&k.unit, v).is_some());
                    for &i in &at {
                        let key = launch.metrics.columns().keys().get(i);
                        let value = launch.metrics.number_at(i);
                        let why = key.zip(value).and_then(|(k, v)| bad(&k.unit, v));
                        if let (Some(key), Some(why)) = (key, why) {
                            note(key.name.clone(), LoadField::of_unit(&key.unit), why.into());
                        }
                    }
                    launch.metrics.drop_columns(&at);
                    for row in &mut launch.sections {
                        if let MetricValue::Number(v) = row.value {
                            if let Some(why) = bad(&row.unit, v) {
                                row.value = MetricValue::Missing;
                                note(
                                    format!("{} / {}", row.section, row.name),
                                    LoadField::of_unit(&row.unit),
                                    why.into(),
                                );
                            }
                        }
                    }
                }
            }
            if let Some(why) = kernel.timing.as_deref().and_then(timing_problem) {
                kernel.timing = None;
                note("event timing".into(), LoadField::Timing, why);
            }
            if let Some(a) = &kernel.asked {
                if let Some(why) = bad("byte", a.bytes).or_else(|| bad("inst", a.flops)) {
                    kernel.asked = None;
                    note("asked work".into(), LoadField::Asked, why.into());
                }
            }
            warnings.extend(found.into_iter().map(|(what, field, why)| LoadWarning {
                kernel: Some(index),
                field,
                message: format!("{name}: {what} is {why}; kept as missing"),
            }));
        }
        warnings.extend(self.drop_bad_peaks());
        warnings
    }

    /// Stores as missing every peak and ceiling that is out of range: a rate, which no
    /// device has negative or beyond any counter (a `theoretical -5 GB/s` would draw a roof
    /// under the floor).
    fn drop_bad_peaks(&mut self) -> Vec<LoadWarning> {
        let bad = |unit: &str, v: f64| crate::model::range::check(unit, v).map(OutOfRange::reason);
        let mut warnings = Vec::new();
        let mut rate = |what: &str, v: &mut Option<f64>| {
            if let Some(why) = v.and_then(|x| bad("byte/s", x)) {
                *v = None;
                warnings.push(LoadWarning::peak(format!(
                    "{what} is {why}; kept as missing"
                )));
            }
        };
        if let Some(d) = &mut self.device {
            let p = &mut d.peaks;
            rate(
                "device: theoretical fp32_gflop_per_s",
                &mut p.fp32_gflop_per_s,
            );
            rate(
                "device: theoretical dram_gbyte_per_s",
                &mut p.dram_gbyte_per_s,
            );
            rate(
                "device: theoretical ridge_flop_per_byte",
                &mut p.ridge_flop_per_byte,
            );
        }
        if let Some(c) = &mut self.ceilings {
            rate("ceilings: copy_gbyte_per_s", &mut c.copy_gbyte_per_s);
            rate("ceilings: read_gbyte_per_s", &mut c.read_gbyte_per_s);
            rate("ceilings: memcpy_gbyte_per_s", &mut c.memcpy_gbyte_per_s);
            rate("ceilings: l2_copy_gbyte_per_s", &mut c.l2_copy_gbyte_per_s);
            rate("ceilings: fma_gflop_per_s", &mut c.fma_gflop_per_s);
            rate("ceilings: held_sm_clock_mhz", &mut c.held_sm_clock_mhz);
            rate("ceilings: ridge_flop_per_byte", &mut c.ridge_flop_per_byte);
            let bad_tensor: Vec<Work> = c
                .tensor_gflop_per_s
                .iter()
                .filter(|(_, &v)| bad("byte/s", v).is_some())
                .map(|(&w, _)| w)
                .collect();
            for w in bad_tensor {
                if let Some(v) = c.tensor_gflop_per_s.remove(&w) {
                    let why = bad("byte/s", v).unwrap_or("out of range");
                    warnings.push(LoadWarning::peak(format!(
                        "ceilings: tensor {} is {why}; kept as missing",
                        w.label()
                    )));
                }
            }
        }
        warnings
    }

    /// Checks the `sampled` blocks against the launches they count: a kernel's `sampled`
    /// must count its launches and those measured (without `sampled_from`), and is set to
    /// the counts where it does not; the artifact's must be their sums; launches copied from
    /// others with no artifact `sampled` block would show estimates as measurements. One
    /// warning for each.
    fn check_sampled(&mut self) -> Vec<LoadWarning> {
        let mut warnings = Vec::new();
        let (mut measured, mut launches, mut copied) = (0u64, 0u64, 0u64);
        // Without the artifact's block, one warning below says so for every kernel.
        let has_block = self.sampled.is_some();
        for (index, k) in self.kernels.iter_mut().enumerate() {
            let Some(counted) = k.counted_sampled() else {
                if let Some(s) = k.sampled.take() {
                    warnings.push(LoadWarning {
                        kernel: Some(index),
                        field: LoadField::Sampled,
                        message: format!(
                            "{}: sampled says {} of {} launches measured, but the kernel has \
                             no counters; left out",
                            shorten_kernel_name(&k.name, 80),
                            s.measured,
                            s.launches
                        ),
                    });
                }
                continue;
            };
            let (own, all) = (counted.measured, counted.launches);
            measured += own;
            launches += all;
            copied += all - own;
            match k.sampled.as_deref() {
                Some(s) if *s != counted => {
                    warnings.push(LoadWarning {
                        kernel: Some(index),
                        field: LoadField::Sampled,
                        message: format!(
                            "{}: sampled says {} of {} launches measured, but its launches are \
                             {own} measured of {all}; the launches' counts are used",
                            shorten_kernel_name(&k.name, 80),
                            s.measured,
                            s.launches
                        ),
                    });
                    k.sampled = Some(Box::new(counted));
                }
                None if own < all => {
                    k.sampled = Some(Box::new(counted));
                    if !has_block {
                        continue;
                    }
                    warnings.push(LoadWarning {
                        kernel: Some(index),
                        field: LoadField::Sampled,
                        message: format!(
                            "{}: {} of its {all} launches carry counters copied from another \
                             launch (sampled_from), but the kernel has no sampled block; \
                             counted from the launches",
                            shorten_kernel_name(&k.name, 80),
                            all - own
                        ),
                    });
                }
                _ => {}
            }
        }
        match &self.sampled {
            None if copied > 0 => warnings.push(LoadWarning {
                kernel: None,
                field: LoadField::Sampled,
                message: format!(
                    "{copied} of {launches} launches carry counters copied from a measured \
                     launch and scaled by time (sampled_from), but the artifact has no \
                     sampled block: their figures are estimates, not measurements"
                ),
            }),
            Some(s) if s.measured != measured || s.launches != launches => {
                warnings.push(LoadWarning {
                    kernel: None,
                    field: LoadField::Sampled,
                    message: format!(
                        "sampled says {} of {} launches measured, but the kernels hold \
                         {measured} measured of {launches}",
                        s.measured, s.launches
                    ),
                });
            }
            _ => {}
        }
        warnings
    }
}

impl TryFrom<CounterSetJson> for CounterSet {
    type Error = String;

    fn try_from(json: CounterSetJson) -> Result<Self, String> {
        // Schema 2 shares one column list, which a launch may override with its own;
        // schema-1 launches bring their own. A launch whose columns equal the previous
        // launch's shares them. Schema 3 may write the shared columns' common values once.
        let shared = MetricColumns::new(json.metric_columns);
        let constants = match (json.varying_columns, json.constant_values) {
            (Some(varying), Some(values)) => {
                let ascending = varying.windows(2).all(|w| w[0] < w[1]);
                if !ascending || varying.last().is_some_and(|&v| v as usize >= shared.len()) {
                    return Err(
                        "varying_columns must be ascending indices into metric_columns".into(),
                    );
                }
                let row = values.into_constants(Arc::clone(&shared), &varying)?;
                Some((varying, row))
            }
            (None, None) => None,
            _ => return Err("varying_columns and constant_values go together".into()),
        };
        let mut last = Arc::clone(&shared);
        let mut sites = SiteInterner::default();
        let nvtx_ranges: Vec<Arc<NvtxRanges>> =
            json.nvtx_ranges.into_iter().map(Arc::new).collect();
        // Collected into a vector of their own size: collected in place, the launches kept
        // their JSON form's larger slots (1,152 bytes a set of one launch).
        let mut launches = Vec::with_capacity(json.launches.len());
        for l in json.launches {
            let nvtx = match l.nvtx {
                None => None,
                Some(i) => Some(nvtx_ranges.get(i as usize).cloned().ok_or_else(|| {
                    format!(
                        "launch {}: nvtx {i} is not an index into nvtx_ranges ({} entries)",
                        l.id,
                        nvtx_ranges.len()
                    )
                })?),
            };
            let (mut launch, metric_columns, values) = l.into_launch(nvtx, &mut sites);
            let metrics = match (metric_columns, &constants) {
                (Some(keys), _) if keys.as_slice() == last.keys() => {
                    values.into_metrics(Arc::clone(&last))
                }
                (Some(keys), _) => values.into_metrics(MetricColumns::new(keys)),
                (None, Some((varying, row))) => {
                    values.into_metrics_with(Arc::clone(&shared), varying, row)
                }
                (None, None) => values.into_metrics(Arc::clone(&shared)),
            };
            launch.metrics = metrics.map_err(|e| format!("launch {}: {e}", launch.id))?;
            last = Arc::clone(launch.metrics.columns());
            launches.push(launch);
        }
        Ok(CounterSet {
            cache_control: json.cache_control,
            launches,
        })
    }
}

impl LaunchJson {
    /// The launch these fields describe, its site shared through `sites`, with no values,
    /// and its own metric columns and values, which the caller joins to its set's.
    fn into_launch(
        self,
        nvtx: Option<Arc<NvtxRanges>>,
        sites: &mut SiteInterner,
    ) -> (LaunchCounters, Option<Vec<MetricKey>>, ValuesWire) {
        let site = LaunchSite {
            process_id: self.process_id,
            process_name: self.process_name,
            host: self.host,
            device: self.device,
            cc: self.cc,
            context: self.context,
            stream: self.stream,
            demangled: self.demangled,
            grid: self.grid,
            block: self.block,
            nvtx,
        };
        let launch = LaunchCounters {
            id: self.id,
            site: sites.of(site),
            function: self.function,
            metrics: Metrics::default(),
            sections: self.sections,
            rules: self.rules,
            sampled_from: self.sampled_from.map(Box::new),
        };
        (launch, self.metric_columns, self.metrics)
    }
}

impl ValuesWire {
    /// Number of values read.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Whether no values were read.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Joins the values of the columns `varying` (ascending, checked by the caller) to
    /// `columns`, the others from `constants`, a row of those columns; values beyond
    /// `varying` are an error, missing trailing values are missing.
    pub fn into_metrics_with(
        self,
        columns: Arc<MetricColumns>,
        varying: &[u32],
        constants: &Metrics,
    ) -> Result<Metrics, String> {
        if self.own_columns.is_some() {
            return Err(
                "a launch of a counter set with constant_values lists its metrics \
                        by name"
                    .into(),
            );
        }
        if self.values.len() != varying.len() {
            return Err(format!(
                "{} metric values for {} varying_columns{}",
                self.values.len(),
                varying.len(),
                if self.values.len() < varying.len() {
                    " (an array cut short: a damaged artifact?)"
                } else {
                    ""
                }
            ));
        }
        let mut changed_at = Vec::with_capacity(varying.len());
        let mut changed = Vec::with_capacity(varying.len());
        let mut texts: Vec<(u32, String)> = constants
            .texts()
            .iter()
            .filter(|(k, _)| varying.binary_search(k).is_err())
            .cloned()
            .collect();
        let mut own_texts = self.texts.into_iter().peekable();
        let n_columns = constants.values.len();
        for (n, (&column, v)) in varying.iter().zip(self.values.iter()).enumerate() {
            if (column as usize) < n_columns {
                changed_at.push(column);
                changed.push(*v);
            }
            if v.to_bits() == TEXT_BITS {
                while own_texts.next_if(|(k, _)| (*k as usize) < n).is_some() {}
                if let Some((_, t)) = own_texts.next_if(|(k, _)| *k as usize == n) {
                    texts.push((column, t));
                }
            }
        }
        // Varying columns this launch did not list are missing.
        for &column in varying.get(self.values.len()..).unwrap_or_default() {
            if (column as usize) < n_columns {
                changed_at.push(column);
                changed.push(missing());
            }
        }
        crate::order::sort_by_key(&mut texts, |(k, _)| *k);
        // Stored over the constants' row, which every launch of the set shares.
        Ok(Metrics {
            columns,
            values: Values::over(&constants.values, changed_at, changed).with_texts(texts),
        })
    }

    /// Joins the values to `columns`; values beyond the columns are an error, missing
    /// trailing values are missing.
    pub fn into_metrics(mut self, columns: Arc<MetricColumns>) -> Result<Metrics, String> {
        if let Some(keys) = self.own_columns.take() {
            // Schema 1: reuse the previous row's columns when they are the same names.
            let columns = if keys.as_slice() == columns.keys() {
                columns
            } else {
                MetricColumns::new(keys)
            };
            self.values.shrink_to_fit();
            return Ok(Metrics {
                columns,
                values: Values::from_vec(self.values).with_texts(self.texts),
            });
        }
        if self.values.len() > columns.len() {
            return Err(format!(
                "{} metric values for {} metric_columns",
                self.values.len(),
                columns.len()
            ));
        }
        if self.values.len() < columns.len() {
            // The writer writes every column: a shorter array lost values on the way.
            return Err(format!(
                "{} metric values for {} metric_columns (an array cut short: a damaged \
                 artifact?)",
                self.values.len(),
                columns.len()
            ));
        }
        // The array was read without a length hint, so its buffer may be up to twice the
        // row; a large artifact keeps tens of thousands of rows.
        self.values.shrink_to_fit();
        Ok(Metrics {
            columns,
            values: Values::from_vec(self.values).with_texts(self.texts),
        })
    }
}

impl ValuesWire {
    /// A row of `columns` holding these values at the columns not in `varying`
    /// (ascending, checked by the caller), the `constant_values` of a counter set; the
    /// varying columns are missing. A number of values other than such columns is an
    /// error: the writer writes every one (`null` where missing), so a shorter array lost
    /// values on the way, and taken as missing they turned a kernel's FLOPs and bytes into
    /// missing figures with no word said (issue 39).
    pub fn into_constants(
        self,
        columns: Arc<MetricColumns>,
        varying: &[u32],
    ) -> Result<Metrics, String> {
        let fixed = columns.len().saturating_sub(varying.len());
        if self.own_columns.is_some() || self.values.len() != fixed {
            return Err(format!(
                "{} constant_values for {fixed} columns not varying{}",
                self.values.len(),
                if self.values.len() < fixed {
                    " (an array cut short: a damaged artifact?)"
                } else {
                    ""
                }
            ));
        }
        let mut values = vec![missing(); columns.len()];
        let mut texts = Vec::new();
        let mut wire_texts = self.texts.into_iter().peekable();
        let mut varying = varying.iter().peekable();
        let mut next = self.values.iter().enumerate();
        for (i, slot) in values.iter_mut().enumerate() {
            if varying.next_if(|&&v| v as usize == i).is_some() {
                continue;
            }
            let Some((n, v)) = next.next() else { break };
            *slot = *v;
            if v.to_bits() == TEXT_BITS {
                while wire_texts.next_if(|(k, _)| (*k as usize) < n).is_some() {}
                if let Some((_, t)) = wire_texts.next_if(|(k, _)| *k as usize == n) {
                    texts.push((i as u32, t));
                }
            }
        }
        Ok(Metrics {
            columns,
            values: Values::from_vec(values).with_texts(texts),
        })
    }
}

/// Read straight from its JSON token: a number, a string or null (without the buffering
/// of each value that an untagged enum's derived reader does; an artifact holds millions).
impl<'de> Deserialize<'de> for MetricValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ValueVisitor;
        impl<'v> Visitor<'v> for ValueVisitor {
            type Value = MetricValue;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a metric value (a number, a string or null)")
            }
            fn visit_f64<E>(self, v: f64) -> Result<MetricValue, E> {
                Ok(MetricValue::Number(v))
            }
            fn visit_u64<E>(self, v: u64) -> Result<MetricValue, E> {
                Ok(MetricValue::Number(v as f64))
            }
            fn visit_i64<E>(self, v: i64) -> Result<MetricValue, E> {
                Ok(MetricValue::Number(v as f64))
            }
            fn visit_str<E>(self, v: &str) -> Result<MetricValue, E> {
                Ok(MetricValue::Text(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<MetricValue, E> {
                Ok(MetricValue::Text(v))
            }
            fn visit_unit<E>(self) -> Result<MetricValue, E> {
                Ok(MetricValue::Missing)
            }
            fn visit_none<E>(self) -> Result<MetricValue, E> {
                Ok(MetricValue::Missing)
            }
        }
        d.deserialize_any(ValueVisitor)
    }
}

impl ValuesWire {
    /// Appends a value read: a finite number as it is, a text marked and kept, anything
    /// else missing.
    fn push(&mut self, value: MetricValue) {
        let i = self.values.len() as u32;
        self.values.push(match value {
            MetricValue::Number(x) if x.is_finite() => x,
            MetricValue::Text(t) => {
                self.texts.push((i, t));
                f64::from_bits(TEXT_BITS)
            }
            _ => missing(),
        });
    }
}

impl<'de> Deserialize<'de> for ValuesWire {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SeqVisitor;
        impl<'de> Visitor<'de> for SeqVisitor {
            type Value = ValuesWire;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of metric values (numbers, strings or null)")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ValuesWire, A::Error> {
                let mut out = ValuesWire {
                    values: Vec::with_capacity(seq.size_hint().unwrap_or(0)),
                    texts: Vec::new(),
                    own_columns: None,
                };
                while let Some(v) = seq.next_element::<MetricValue>()? {
                    out.push(v);
                }
                Ok(out)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ValuesWire, A::Error> {
                let mut out = ValuesWire::default();
                let mut keys = Vec::new();
                while let Some((name, metric)) = map.next_entry::<String, Metric>()? {
                    out.push(metric.value);
                    keys.push(MetricKey {
                        name,
                        unit: metric.unit,
                    });
                }
                out.own_columns = Some(keys);
                Ok(out)
            }
        }
        d.deserialize_any(SeqVisitor)
    }
}
