//! `capture diff --certificate` and `capture verify` (issue 51, item 6) on the H200's
//! `capture run`s of the suite (`tests/fixtures/diff/`): an honest certificate holds, and
//! each way a claim can be wrong fails it (exit 14), named: a time edited below its
//! physical floor, another input file, work that changed where the certificate says it did
//! not, timers that disagree. The edits are made here, on copies.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::util::*;

/// The fixture run `name` un-gzipped into `dir`.
fn unpack(dir: &Path, name: &str) -> PathBuf {
    gunzip_fixture(dir, &format!("diff/{name}.json.gz"))
}

/// `capture diff BEFORE AFTER --certificate CERT`; returns the certificate's JSON.
fn certify(before: &Path, after: &Path, cert: &Path) -> Value {
    let o = capture(&["diff", s(before), s(after), "--certificate", s(cert)]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("certificate written to"),
        "{}",
        stderr(&o)
    );
    serde_json::from_str(&std::fs::read_to_string(cert).expect("cert")).expect("cert JSON")
}

/// `capture verify CERT BEFORE AFTER`: exit code and stderr.
fn verify(cert: &Path, before: &Path, after: &Path) -> (Option<i32>, String, String) {
    let o = capture(&["verify", s(cert), s(before), s(after)]);
    (o.status.code(), stdout(&o), stderr(&o))
}

fn save(path: &Path, v: &Value) {
    std::fs::write(path, serde_json::to_string_pretty(v).expect("json")).expect("write");
}

/// The certificate's kernel named `name`.
fn kernel<'a>(cert: &'a mut Value, name: &str) -> &'a mut Value {
    cert["kernels"]
        .as_array_mut()
        .expect("kernels")
        .iter_mut()
        .find(|k| k["kernel"] == name)
        .expect(name)
}

#[test]
fn an_honest_certificate_holds_and_names_its_inputs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let cert = dir.path().join("cert.json");
    let c = certify(&a, &b, &cert);
    assert_eq!(c["version"], 1);
    assert_eq!(c["before"]["files"][0]["name"], "run1.json");
    assert_eq!(
        c["before"]["files"][0]["sha256"].as_str().map(str::len),
        Some(64)
    );
    // Every kernel carries its floor and times; none is flagged in these real runs.
    for k in c["kernels"].as_array().expect("kernels") {
        for side in ["before", "after"] {
            assert!(k[side]["time_ms"].is_number(), "{k}");
            assert!(k[side]["below_floor"].is_null() && k[side]["timers_disagree"].is_null());
        }
    }
    let (code, out, err) = verify(&cert, &a, &b);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        out.starts_with("cert.json: holds for run1.json -> run2.json: "),
        "{out}"
    );
    // Never written over an input.
    let o = capture(&["diff", s(&a), s(&b), "--certificate", s(&b)]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn a_time_edited_below_its_floor_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let cert = dir.path().join("cert.json");
    let mut c = certify(&a, &b, &cert);
    let k = kernel(&mut c, "vector add");
    let floor = k["after"]["floor_ms"].as_f64().expect("a floor");
    assert!(floor > 0.01, "{floor}");
    k["after"]["time_ms"] = 0.01.into();
    save(&cert, &c);
    let (code, _, err) = verify(&cert, &a, &b);
    assert_eq!(code, Some(14), "{err}");
    assert!(
        err.contains(&format!(
            "after: vector add: 0.0100 ms claimed, below its physical floor of {floor:.4} ms"
        )),
        "{err}"
    );
    assert!(
        err.contains(".time_ms: the certificate says 0.01, the inputs give"),
        "{err}"
    );
}

#[test]
fn another_input_file_fails_by_its_digest() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run2"));
    let other = unpack(dir.path(), "run_size2x");
    let cert = dir.path().join("cert.json");
    certify(&a, &b, &cert);
    let (code, _, err) = verify(&cert, &a, &other);
    assert_eq!(code, Some(14), "{err}");
    assert!(
        err.contains("after: run_size2x.json has SHA-256 ")
            && err.contains("the certificate's run2.json has ")
            && err.contains("not the file certified"),
        "{err}"
    );
    // One byte changed in the file certified: the same name, another digest.
    let mut text = std::fs::read_to_string(&b).expect("read");
    text.push('\n');
    std::fs::write(&b, text).expect("write");
    let (code, _, err) = verify(&cert, &a, &b);
    assert_eq!(code, Some(14), "{err}");
    assert!(err.contains("after: run2.json has SHA-256 "), "{err}");
}

#[test]
fn work_that_changed_unannounced_fails() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (a, b) = (unpack(dir.path(), "run1"), unpack(dir.path(), "run_size2x"));
    let cert = dir.path().join("cert.json");
    let mut c = certify(&a, &b, &cert);
    // The doubled problem size: the certificate announces the work that changed.
    assert_eq!(c["work_equal"], false);
    assert!(
        kernel(&mut c, "vector add")["work"]
            .as_str()
            .is_some_and(|w| w.contains("dram_read_bytes")),
        "{c}"
    );
    let (code, _, err) = verify(&cert, &a, &b);
    assert_eq!(code, Some(0), "announced: {err}");
    // The same claim saying the work is equal fails.
    c["work_equal"] = true.into();
    for k in c["kernels"].as_array_mut().expect("kernels") {
        k["work"] = "equal".into();
    }
    save(&cert, &c);
    let (code, _, err) = verify(&cert, &a, &b);
    assert_eq!(code, Some(14), "{err}");
    assert!(
        err.contains("work changed, and the certificate says it did not: ")
            && err.contains("vector add: "),
        "{err}"
    );
}

#[test]
fn timers_that_disagree_fail() {
    // matmul, naive's CUDA-event samples cut to 60 % in a copy (gate.rs does the same): its
    // event time and ncu's duration of the same launches disagree.
    let dir = tempfile::tempdir().expect("tempdir");
    let a = unpack(dir.path(), "run1");
    let mut v: Value =
        serde_json::from_str(&std::fs::read_to_string(&a).expect("read")).expect("json");
    let k = v["kernels"]
        .as_array_mut()
        .expect("kernels")
        .iter_mut()
        .find(|k| k["name"] == "matmul, naive")
        .expect("matmul, naive");
    for key in ["min_ms", "median_ms", "max_ms"] {
        k["timing"][key] = (k["timing"][key].as_f64().expect("ms") * 0.6).into();
    }
    for x in k["timing"]["samples_ms"].as_array_mut().expect("samples") {
        *x = (x.as_f64().expect("sample") * 0.6).into();
    }
    let b = dir.path().join("timers.json");
    std::fs::write(&b, v.to_string()).expect("write");
    let cert = dir.path().join("cert.json");
    let c = certify(&a, &b, &cert);
    let flagged = c["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .find(|k| k["kernel"] == "matmul, naive")
        .map(|k| k["after"]["timers_disagree"].clone());
    assert!(flagged.is_some_and(|f| f.is_string()), "{c}");
    let (code, _, err) = verify(&cert, &a, &b);
    assert_eq!(code, Some(14), "{err}");
    assert!(err.contains("after: matmul, naive: "), "{err}");
}
