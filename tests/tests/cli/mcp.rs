//! `capture mcp` spoken to over stdio as an MCP client would (JSON-RPC, one message a line):
//! `initialize`, `notifications/initialized`, `tools/list`, a `tools/call` of every tool,
//! and the paths the root refuses.

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

use crate::util::*;

/// A running `capture mcp` and the lines it writes.
struct Session {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    next_id: u64,
}

impl Session {
    /// Starts `capture mcp --root ROOT EXTRA` with `path` as its PATH and initializes it.
    fn start(root: &Path, extra: &[&str], path: &Path) -> (Session, Value) {
        let mut child = Command::new(capture_bin())
            .args(["mcp", "--root", s(root)])
            .args(extra)
            .env("PATH", path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("capture mcp starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (send, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        let mut session = Session {
            child,
            stdin,
            lines,
            next_id: 1,
        };
        let init = session.request(
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "roofline-tests", "version": "0"}
            }),
        );
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        (session, init)
    }

    fn send(&mut self, message: &Value) {
        writeln!(self.stdin, "{message}").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// Sends request `method` and returns its response (every line the server writes is
    /// JSON; notifications before the response are skipped).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .expect("the server answers within 2 minutes");
            let v: Value = serde_json::from_str(&line).expect("every stdout line is JSON");
            assert_eq!(v["jsonrpc"], "2.0", "{line}");
            if v["id"] == json!(id) {
                return v;
            }
        }
    }

    /// Calls tool `name`: its text, and whether it is an error.
    fn call(&mut self, name: &str, arguments: Value) -> (String, bool) {
        let r = self.request("tools/call", json!({"name": name, "arguments": arguments}));
        let result = &r["result"];
        let text = result["content"][0]["text"]
            .as_str()
            .unwrap_or_else(|| panic!("{name}: no text in {r}"))
            .to_string();
        (text, result["isError"] == json!(true))
    }

    /// Closes standard input; the server must then exit 0.
    fn finish(mut self) {
        drop(self.stdin);
        let status = self.child.wait().expect("the server exits");
        assert!(status.success(), "{status}");
    }
}

#[test]
fn an_mcp_client_lists_and_calls_every_tool_and_is_kept_inside_the_root() {
    let outer = tempfile::tempdir().expect("tempdir");
    let root = outer.path().join("root");
    std::fs::create_dir(&root).expect("mkdir");
    std::fs::copy(root_file("site/samples/h200.json"), root.join("h200.json")).expect("copy");
    gunzip_fixture(&root, "diff/run1.json.gz");
    gunzip_fixture(&root, "diff/run2.json.gz");
    gunzip_fixture(&root, "ncu-h200-gemms/gemms_full.ncu-rep.gz");
    std::fs::write(outer.path().join("secret.json"), "{}").expect("write");
    std::os::unix::fs::symlink(outer.path().join("secret.json"), root.join("link.json"))
        .expect("symlink");
    let no_ncu = outer.path().join("bin");
    std::fs::create_dir(&no_ncu).expect("mkdir");

    let (mut mcp, init) = Session::start(&root, &[], &no_ncu);
    assert_eq!(init["result"]["serverInfo"]["name"], "capture", "{init}");
    assert!(
        init["result"]["capabilities"]["tools"].is_object(),
        "{init}"
    );
    let list = mcp.request("tools/list", json!({}));
    let names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["list_kernels", "explain", "compare", "source"],
        "{list}"
    );

    let (text, error) = mcp.call("list_kernels", json!({"path": "h200.json"}));
    assert!(!error && text.contains("| vector add |"), "{text}");
    let (text, error) = mcp.call("explain", json!({"path": "h200.json", "top": 2}));
    assert!(!error, "{text}");
    let e: Value = serde_json::from_str(&text).expect("explain's JSON");
    assert_eq!(e["version"], 1);
    assert_eq!(e["kernels"].as_array().map(Vec::len), Some(2));
    // The explain tool declares its output schema (`capture schema explain`) and returns the
    // JSON as structured content, whichever text form was asked for.
    let explain_tool = &list["result"]["tools"][1];
    assert_eq!(explain_tool["name"], "explain");
    let schema: Value =
        serde_json::from_str(&stdout(&capture(&["schema", "explain"]))).expect("schema");
    assert_eq!(explain_tool["outputSchema"], schema);
    let r = mcp.request(
        "tools/call",
        json!({"name": "explain", "arguments":
            {"path": "h200.json", "kernel": "^vector add$", "format": "text"}}),
    );
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.starts_with("vector add (1 launch"), "{r}");
    let structured = &r["result"]["structuredContent"];
    assert_eq!(structured["kernels"][0]["short_name"], "vector add", "{r}");
    let (text, error) = mcp.call(
        "compare",
        json!({"before": "run1.json", "after": "run2.json", "format": "json"}),
    );
    assert!(!error, "{text}");
    let d: Value = serde_json::from_str(&text).expect("diff's JSON");
    assert!(
        d["kernels"].as_array().is_some_and(|k| !k.is_empty()),
        "{d}"
    );
    let (text, error) = mcp.call(
        "source",
        json!({"path": "gemms_full.ncu-rep", "kernel": "nvjet_sm90_hsh", "top": 3}),
    );
    assert!(!error && text.contains("hot spots"), "{text}");

    // Outside the root: `..`, an absolute path out of it, a symbolic link out of it.
    let secret = outer.path().join("secret.json");
    for path in ["../secret.json", s(&secret), "link.json"] {
        let (text, error) = mcp.call("explain", json!({ "path": path }));
        assert!(error, "{path}: {text}");
        assert!(
            text.contains("`..` is refused") || text.contains("outside the root"),
            "{path}: {text}"
        );
    }
    // No program runs without --allow-profile.
    std::fs::write(root.join("app.sh"), "#!/bin/sh\nexit 0\n").expect("write");
    let (text, error) = mcp.call("profile_plan", json!({"program": "app.sh"}));
    assert!(error && text.contains("without --allow-profile"), "{text}");
    let (text, error) = mcp.call("explain", json!({"path": "h200.json", "invented": 1}));
    assert!(error && text.contains("no argument invented"), "{text}");
    mcp.finish();

    // With --allow-profile the tool is offered and runs capture profile --plan-only; here
    // no ncu is on PATH, so it reports capture's own error and exit status.
    let (mut mcp, _) = Session::start(&root, &["--allow-profile"], &no_ncu);
    let list = mcp.request("tools/list", json!({}));
    assert!(list.to_string().contains("\"profile_plan\""), "{list}");
    std::fs::set_permissions(
        root.join("app.sh"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .expect("chmod");
    let (text, error) = mcp.call("profile_plan", json!({"program": "app.sh"}));
    assert!(error, "{text}");
    assert!(
        text.contains("capture profile --plan-only exited with 5"),
        "{text}"
    );
    mcp.finish();
}

/// A file of the workspace.
fn root_file(rel: &str) -> std::path::PathBuf {
    root().join(rel)
}

#[test]
fn the_compare_tool_goes_range_by_range() {
    let root = tempfile::tempdir().expect("tempdir");
    gunzip_fixture(root.path(), "corpus-h200/jax_mlp_full_raw.csv.gz");
    let no_ncu = root.path().join("bin");
    std::fs::create_dir(&no_ncu).expect("mkdir");
    let (mut mcp, _) = Session::start(root.path(), &[], &no_ncu);
    // By NVTX range: XLA's module range of a JAX MLP against itself, nothing moved.
    let jax = "jax_mlp_full_raw.csv";
    let (text, error) = mcp.call(
        "compare",
        json!({"before": jax, "after": jax, "by": "range", "depth": 2, "format": "json"}),
    );
    assert!(!error, "{text}");
    let d: Value = serde_json::from_str(&text).expect("the range diff's JSON");
    assert_eq!(
        (d["by"].as_str(), d["depth"].as_u64()),
        (Some("range"), Some(2))
    );
    assert_eq!(d["nodes"].as_array().map(Vec::len), Some(1), "{d}");
    assert_eq!(
        (
            d["nodes"][0]["status"].as_str(),
            d["nodes"][0]["change_ms"].as_f64()
        ),
        (Some("matched"), Some(0.0))
    );
    let (text, error) = mcp.call("compare", json!({"before": jax, "after": jax, "depth": 2}));
    assert!(
        error && text.contains("depth applies to by range only"),
        "{text}"
    );
    mcp.finish();
}

#[test]
fn every_tool_reads_a_ncu_repz_as_its_ncu_rep() {
    let root = tempfile::tempdir().expect("tempdir");
    gunzip_fixture(root.path(), "ncu-h200/probe_full.ncu-rep.gz");
    std::fs::copy(
        fixture("ncu-repz/probe_full.ncu-repz"),
        root.path().join("probe_full.ncu-repz"),
    )
    .expect("copy");
    let no_ncu = root.path().join("bin");
    std::fs::create_dir(&no_ncu).expect("mkdir");
    let (mut mcp, _) = Session::start(root.path(), &[], &no_ncu);
    for (tool, args) in [
        ("list_kernels", json!({})),
        ("explain", json!({"format": "json"})),
        ("source", json!({"kernel": ".", "top": 3})),
    ] {
        let mut call = |path: &str| {
            let mut args = args.clone();
            args["path"] = json!(path);
            let (text, error) = mcp.call(tool, args);
            assert!(!error, "{tool} {path}: {text}");
            text.replace(path, "REPORT")
        };
        let from_rep = call("probe_full.ncu-rep");
        assert_eq!(call("probe_full.ncu-repz"), from_rep, "{tool}");
    }
    let (text, error) = mcp.call(
        "compare",
        json!({"before": "probe_full.ncu-rep", "after": "probe_full.ncu-repz", "format": "json"}),
    );
    assert!(!error, "{text}");
    let d: Value = serde_json::from_str(&text).expect("diff's JSON");
    assert_eq!(d["total"]["change_pct"], 0.0, "{d}");
    mcp.finish();
}
