//! Golden file: the artifact `capture import` writes for a real export, byte for byte
//! (apart from the creation time and command line). A change here is a change to the
//! public format: bump the schema version if needed and add a CHANGELOG line. Regenerate
//! with `UPDATE_GOLDEN=1 cargo test -p roofline-tests --test cli golden`.

use crate::util::*;
use serde_json::Value;

#[test]
fn import_writes_the_golden_artifact() {
    let dir = tempfile::tempdir().expect("tempdir");
    let art = import(
        dir.path(),
        &[fixture("ncu-h200/probe_metrics_raw_with_stdout.csv")],
    );
    let mut doc: Value =
        serde_json::from_str(&std::fs::read_to_string(&art).expect("read")).expect("json");
    doc["provenance"]["created_utc"] = Value::Null;
    doc["provenance"]["command_line"] = Value::Null;
    doc["provenance"]["tool_version"] = Value::Null;
    let got = serde_json::to_string_pretty(&doc).expect("json") + "\n";
    let golden = root().join("tests/golden/probe_metrics.artifact.json");
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&golden, &got).expect("write golden");
    }
    let want = std::fs::read_to_string(&golden).expect("golden file exists");
    assert!(
        got == want,
        "artifact differs from {}; if the change is intended, regenerate it (see this \
         file's header)",
        golden.display()
    );
}
