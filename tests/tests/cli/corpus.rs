//! The bad-input corpus (`tests/fixtures/bad/`, described file by file in its README):
//! each file either loads with the warnings listed, or is refused with one line naming the
//! file, the line and the reason. Never a panic. CSV exports go through `capture import`,
//! artifacts through `capture table`.

use std::path::Path;
use std::process::Output;

use serde_json::Value;
use shared::Artifact;

use crate::util::*;

/// What a corpus file must do.
enum Outcome {
    /// Loads, with exactly these warnings (each a substring of one warning line, in order)
    /// and this many launches.
    Loads {
        launches: u64,
        warnings: &'static [&'static str],
    },
    /// Refused with exit code 1 and one line naming the file, the line (when the file has
    /// one) and the reason.
    Refused {
        line: Option<u64>,
        reason: &'static str,
    },
}

use Outcome::{Loads, Refused};

const PROGRAM_OUTPUT: &str = "line 1: skipped 8 lines that are not part of the export";

/// Every corpus file and its expected outcome (the README's table).
const CORPUS: &[(&str, Outcome)] = &[
    (
        "empty.csv",
        Refused {
            line: None,
            reason: "empty file",
        },
    ),
    (
        "bom.csv",
        Loads {
            launches: 2,
            warnings: &[PROGRAM_OUTPUT],
        },
    ),
    (
        "crlf.csv",
        Loads {
            launches: 1,
            warnings: &["line 1: skipped 9 lines that are not part of the export"],
        },
    ),
    (
        "semicolon.csv",
        Loads {
            launches: 2,
            warnings: &[PROGRAM_OUTPUT],
        },
    ),
    (
        "details_cut_mid_row.csv",
        Loads {
            launches: 1,
            warnings: &["line 50: the last row is cut off (truncated export); skipped"],
        },
    ),
    (
        "raw_no_units_row.csv",
        Refused {
            line: Some(10),
            reason: "no units row under the raw-page header (line 9)",
        },
    ),
    (
        "duplicate_columns.csv",
        Loads {
            launches: 2,
            warnings: &[
                PROGRAM_OUTPUT,
                "line 9: column \"dram__bytes_read.sum\" appears more than once; the last one \
                 is kept",
                "line 9: column \"gpu__time_duration.sum\" appears more than once; the last \
                 one is kept",
            ],
        },
    ),
    (
        "out_of_range.csv",
        Loads {
            launches: 2,
            warnings: &[
                PROGRAM_OUTPUT,
                "line 11: dram__bytes_write.sum is not a finite number (\"nan\"); kept as \
                 missing",
                "line 11: gpu__time_duration.sum is negative (\"-2,854,816\" ns), which a \
                 duration, size, rate or count cannot be; kept as missing",
                "line 12: dram__bytes_read.sum is out of range (\"1e308\" byte): above 1e30 in \
                 base units",
                "line 12: lts__t_bytes.sum is not a finite number (\"inf\"); kept as missing",
            ],
        },
    ),
    (
        "long_kernel_name.csv",
        Loads {
            launches: 2,
            warnings: &[PROGRAM_OUTPUT],
        },
    ),
    (
        "artifact_missing_optional.json",
        Loads {
            launches: 2,
            warnings: &[],
        },
    ),
    (
        "artifact_future_schema.json",
        Refused {
            line: Some(3052),
            reason: "is newer than this build understands",
        },
    ),
    (
        "artifact_out_of_range.json",
        Loads {
            launches: 2,
            warnings: &[
                "copy: gpu__time_duration.sum is negative, which a duration, size, rate or \
                 count cannot be; kept as missing",
                "fma_loop: dram__bytes_read.sum is larger than any measurement; kept as missing",
            ],
        },
    ),
    (
        "artifact_cut.json",
        Refused {
            line: Some(1542),
            reason: "not a valid artifact: EOF while parsing",
        },
    ),
    // Issue 25.
    (
        "artifact_bom.json",
        Loads {
            launches: 2,
            warnings: &[],
        },
    ),
    (
        "artifact_schema_float.json",
        Refused {
            line: Some(1),
            reason: "not an artifact: its \"schema\" is 3.0, where a version is a whole number",
        },
    ),
    (
        "artifact_schema_negative.json",
        Refused {
            line: Some(1),
            reason: "not an artifact: its \"schema\" is -1, where a version is a whole number",
        },
    ),
    (
        "artifact_null.json",
        Refused {
            line: None,
            reason: "not an artifact: the document is null, where an artifact is a JSON object",
        },
    ),
    (
        "artifact_not_utf8.json",
        Refused {
            line: None,
            reason: "byte 46: not UTF-8 text, so not an artifact",
        },
    ),
    (
        "duplicate_launch_id.csv",
        Loads {
            launches: 2,
            warnings: &[
                PROGRAM_OUTPUT,
                "launch ID 0 of process 656 is both copy and fma_loop; kept as distinct launches",
            ],
        },
    ),
    (
        "repeated_row.csv",
        Loads {
            launches: 2,
            warnings: &[
                PROGRAM_OUTPUT,
                "launch ID 0 of process 656 (copy) appears more than once with the same \
                 values; the repeats are dropped",
            ],
        },
    ),
    (
        "unknown_unit.csv",
        Loads {
            launches: 2,
            warnings: &[
                PROGRAM_OUTPUT,
                "line 11: gpu__time_duration.sum is in unit \"fortnight\", which this reader \
                 does not know, so its value cannot be put in base units; kept as missing (2 \
                 rows, the first here)",
            ],
        },
    ),
    (
        "not_numbers.csv",
        Loads {
            launches: 2,
            warnings: &[
                PROGRAM_OUTPUT,
                "line 11: dram__bytes_read.sum holds \"0x10\", which is not a number as ncu \
                 writes them",
                "line 11: dram__bytes_write.sum holds \"\u{661}\u{662}\"",
                "line 12: lts__t_bytes.sum holds \"\u{221e}\"",
            ],
        },
    ),
    (
        "hostile_names.csv",
        Loads {
            launches: 2,
            warnings: &[PROGRAM_OUTPUT],
        },
    ),
    (
        "all_rows_short.csv",
        Refused {
            line: Some(9),
            reason: "header found but no complete launch row follows; every row was skipped, \
                     the first: line 11: row has 5 fields, the header 301; skipped",
        },
    ),
];

fn corpus(name: &str) -> std::path::PathBuf {
    fixture("bad").join(name)
}

fn is_artifact(name: &str) -> bool {
    name.ends_with(".json")
}

/// Runs the command a corpus file goes through; for CSV, the artifact goes to `out`.
fn run(file: &Path, out: &Path) -> Output {
    if is_artifact(s(file)) {
        capture(&["table", s(file), "--format", "json"])
    } else {
        capture(&["import", s(file), "-o", s(out)])
    }
}

/// Launches in an artifact.
fn launches_of(a: &Artifact) -> u64 {
    a.kernels
        .iter()
        .flat_map(|k| [k.cold.as_ref(), k.warm.as_deref()])
        .flatten()
        .map(|set| set.launches.len() as u64)
        .sum()
}

fn check(name: &str, outcome: &Outcome, dir: &Path) -> Result<(), String> {
    let file = corpus(name);
    let out = dir.join(format!("{name}.artifact.json"));
    let o = run(&file, &out);
    let (stdout, stderr) = (stdout(&o), stderr(&o));
    if stderr.contains("panicked") || o.status.code() == Some(101) {
        return Err(format!("panicked: {stderr}"));
    }
    match *outcome {
        Loads { launches, warnings } => {
            if !o.status.success() {
                return Err(format!("expected to load, got {:?}: {stderr}", o.status));
            }
            let got: Vec<&str> = stderr
                .lines()
                .filter(|l| l.starts_with("warning:"))
                .collect();
            if got.len() != warnings.len() {
                return Err(format!(
                    "expected {} warning(s), got {got:#?}",
                    warnings.len()
                ));
            }
            for (line, want) in got.iter().zip(warnings) {
                let prefix = format!("warning: {name}: ");
                if !line.starts_with(&prefix) || !line.contains(want) {
                    return Err(format!("warning {line:?} lacks {prefix:?} or {want:?}"));
                }
            }
            if is_artifact(name) {
                let table: Value =
                    serde_json::from_str(&stdout).map_err(|e| format!("table json: {e}"))?;
                let n: u64 = table["kernels"]
                    .as_array()
                    .map(|ks| ks.iter().filter_map(|k| k["launches"].as_u64()).sum())
                    .unwrap_or(0);
                if n != launches {
                    return Err(format!("{n} launch(es), expected {launches}"));
                }
            } else {
                let summary = format!("imported {launches} launch(es)");
                if !stdout.contains(&summary) {
                    return Err(format!("expected {summary:?} in {stdout:?}"));
                }
                // The artifact is complete and keeps the warnings.
                let text = std::fs::read_to_string(&out).map_err(|e| format!("{e}"))?;
                let a = Artifact::from_json(&text).map_err(|e| format!("artifact: {e}"))?;
                if launches_of(&a) != launches {
                    return Err(format!("artifact has {} launch(es)", launches_of(&a)));
                }
                for want in warnings {
                    if !a.warnings.iter().any(|w| w.contains(want)) {
                        return Err(format!("artifact warnings lack {want:?}: {:?}", a.warnings));
                    }
                }
            }
        }
        Refused { line, reason } => {
            if o.status.code() != Some(1) {
                return Err(format!("expected exit 1, got {:?}: {stderr}", o.status));
            }
            if stderr.trim_end().lines().count() != 1 {
                return Err(format!("expected one line: {stderr}"));
            }
            if !stderr.starts_with(&format!("error: {}: ", s(&file))) {
                return Err(format!("does not name the file first: {stderr}"));
            }
            if let Some(line) = line {
                if !stderr.contains(&format!("line {line}")) {
                    return Err(format!("does not name line {line}: {stderr}"));
                }
            }
            if !stderr.contains(reason) {
                return Err(format!("lacks {reason:?}: {stderr}"));
            }
            if out.exists() {
                return Err("an artifact was written".into());
            }
        }
    }
    Ok(())
}

#[test]
fn every_corpus_file_loads_with_warnings_or_is_refused_naming_file_and_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let failures: Vec<String> = CORPUS
        .iter()
        .filter_map(|(name, outcome)| {
            check(name, outcome, dir.path())
                .err()
                .map(|e| format!("{name}: {e}"))
        })
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn every_corpus_file_has_an_expected_outcome_and_a_readme_line() {
    let readme = std::fs::read_to_string(corpus("README.md")).expect("corpus README");
    for entry in std::fs::read_dir(fixture("bad")).expect("corpus folder") {
        let path = entry.expect("entry").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("utf-8 name");
        if matches!(name, "README.md" | "derive.py") {
            continue;
        }
        assert!(
            CORPUS.iter().any(|(n, _)| *n == name),
            "{name} has no expected outcome in corpus.rs"
        );
        assert!(
            readme.contains(&format!("| `{name}` |")),
            "{name} is not described in the corpus README"
        );
    }
}

#[test]
fn a_long_kernel_name_is_kept_whole_in_the_artifact_and_json_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(dir.path(), &[corpus("long_kernel_name.csv")]);
    let a = Artifact::from_json(&std::fs::read_to_string(&art).expect("artifact")).expect("json");
    let name = &a.kernels[0].name;
    assert_eq!(name.chars().count(), 10_000);
    assert!(
        name.starts_with("void copy<cute::tuple<"),
        "{}",
        &name[..40]
    );
    let o = capture(&["table", s(&art), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t: Value = serde_json::from_str(&stdout(&o)).expect("table json");
    assert_eq!(t["kernels"][0]["name"].as_str(), Some(name.as_ref()));
    // The terminal table shortens it to one readable line.
    let o = capture(&["table", s(&art)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).lines().all(|l| l.chars().count() < 400),
        "{}",
        stdout(&o)
    );
}

#[test]
fn out_of_range_values_are_missing_in_the_artifact_and_the_table() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(dir.path(), &[corpus("out_of_range.csv")]);
    let o = capture(&["table", s(&art), "--format", "json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t: Value = serde_json::from_str(&stdout(&o)).expect("table json");
    let (copy, fma) = (&t["kernels"][0], &t["kernels"][1]);
    // copy: no duration left (its avg/max/min stay, but the table uses the sum) and no
    // DRAM write; fma_loop: no DRAM read, so no DRAM figure.
    assert_eq!(copy["name"], "copy");
    assert!(
        copy["time_ms"].as_f64().is_none_or(|t| t > 0.0),
        "copy time {}",
        copy["time_ms"]
    );
    assert!(copy["dram_bytes"].is_null(), "{}", copy["dram_bytes"]);
    assert_eq!(fma["name"], "fma_loop");
    assert!(fma["dram_bytes"].is_null(), "{}", fma["dram_bytes"]);
    assert!(fma["l2_bytes"].is_null(), "{}", fma["l2_bytes"]);
    assert_eq!(fma["time_ms"].as_f64(), Some(1.252992));
}

#[test]
fn an_artifact_with_out_of_range_values_loads_them_as_missing_with_warnings() {
    let file = corpus("artifact_out_of_range.json");
    let o = capture(&["table", s(&file), "--format", "json"]);
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let t: Value = serde_json::from_str(&stdout(&o)).expect("table json");
    let (copy, fma) = (&t["kernels"][0], &t["kernels"][1]);
    assert!(copy["time_ms"].is_null(), "copy time {}", copy["time_ms"]);
    assert!(
        fma["dram_bytes"].is_null(),
        "fma DRAM {}",
        fma["dram_bytes"]
    );
    for metric in ["gpu__time_duration.sum", "dram__bytes_read.sum"] {
        assert!(
            err.lines()
                .any(|l| l.starts_with("warning: ") && l.contains(metric)),
            "no warning names {metric}: {err}"
        );
    }
}

#[test]
fn a_future_schema_refusal_names_the_line_of_the_schema_field() {
    let file = corpus("artifact_future_schema.json");
    let text = std::fs::read_to_string(&file).expect("corpus file");
    let line = 1 + text
        .lines()
        .position(|l| l.trim_start().starts_with("\"schema\":"))
        .expect("a schema field");
    let o = capture(&["table", s(&file)]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(&format!("line {line}")), "{err}");
}
