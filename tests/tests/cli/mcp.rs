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
        self.send_raw(message.to_string().as_bytes());
    }

    /// Writes `line` and a line end, whatever its bytes.
    fn send_raw(&mut self, line: &[u8]) {
        self.stdin.write_all(line).expect("write to the server");
        self.stdin.write_all(b"\n").expect("write to the server");
        self.stdin.flush().expect("flush");
    }

    /// The next line the server writes, as JSON.
    fn next(&mut self) -> Value {
        let line = self
            .lines
            .recv_timeout(Duration::from_secs(120))
            .expect("the server answers within 2 minutes");
        serde_json::from_str(&line).expect("every stdout line is JSON")
    }

    /// Sends `line` and returns the error it is answered with (`id` null).
    fn refused(&mut self, line: &[u8]) -> (i64, String) {
        self.send_raw(line);
        let v = self.next();
        assert_eq!(v["id"], Value::Null, "{v}");
        (
            v["error"]["code"].as_i64().unwrap_or_default(),
            v["error"]["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned(),
        )
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
    std::fs::copy(sample_file("h200.json"), root.join("h200.json")).expect("copy");
    gunzip_fixture(&root, "diff/run1.json.gz");
    gunzip_fixture(&root, "diff/run2.json.gz");
    unzstd_fixture(&root, "ncu-h200-gemms/gemms_full.ncu-repz");
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
        ["list_kernels", "explain", "compare", "source", "import"],
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
    // JSON as structured content beside its compact text; `format: text` sends the text alone.
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
    assert!(r["result"]["structuredContent"].is_null(), "{r}");
    let r = mcp.request(
        "tools/call",
        json!({"name": "explain", "arguments": {"path": "h200.json", "kernel": "^vector add$"}}),
    );
    let structured = &r["result"]["structuredContent"];
    assert_eq!(structured["kernels"][0]["short_name"], "vector add", "{r}");
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        serde_json::from_str::<Value>(text).ok().as_ref(),
        Some(structured),
        "{r}"
    );
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
            text.contains("`..` is refused")
                || text.contains("outside the root")
                || text.contains("no such file under the root"),
            "{path}: {text}"
        );
    }
    // No program runs without --allow-profile.
    std::fs::write(root.join("app.sh"), "#!/bin/sh\nexit 0\n").expect("write");
    let (text, error) = mcp.call("profile_plan", json!({"program": "app.sh"}));
    assert!(error && text.contains("without --allow-profile"), "{text}");
    let (text, error) = mcp.call("explain", json!({"path": "h200.json", "invented": 1}));
    assert!(error && text.contains("no argument \"invented\""), "{text}");
    mcp.finish();

    profile_plan_runs_the_program_named_at_start(&root, &no_ncu);
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

/// Writes an executable `#!/bin/sh` script `name` into `dir`.
fn script(dir: &Path, name: &str, body: &str) {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).expect("write");
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
}

#[test]
fn every_attack_is_answered_and_the_server_stays_up() {
    let outer = tempfile::tempdir().expect("tempdir");
    let root = outer.path().join("root");
    std::fs::create_dir(&root).expect("mkdir");
    // Ten kernels of 256 KiB names and megabyte rule ids.
    let long = crate::bounds::long_strings_run(10, 1 << 18, 1 << 20);
    std::fs::write(root.join("long.json"), &long).expect("write");
    std::fs::write(outer.path().join("secret.json"), "{}").expect("write");
    std::os::unix::fs::symlink(outer.path().join("secret.json"), root.join("out.json"))
        .expect("symlink");
    std::os::unix::fs::symlink(outer.path().join("nothing"), root.join("dead.json"))
        .expect("symlink");
    // A fake ncu that takes 3 s, so that profile_plan is a long call; a shell in the root.
    let bin = outer.path().join("bin");
    std::fs::create_dir(&bin).expect("mkdir");
    script(&bin, "ncu", "/bin/sleep 3\nexit 1");
    script(&root, "app.sh", "exit 0");
    std::fs::hard_link("/bin/sh", root.join("sh")).ok();
    let (mut mcp, _) = Session::start(&root, &["--allow-profile", "app.sh"], &bin);

    malformed_lines_are_answered(&mut mcp);
    paths_outside_the_root_are_not_described(&mut mcp, outer.path());
    // profile_plan runs only the program named at start.
    for program in ["sh", "/bin/sh", "app.sh "] {
        let (text, error) = mcp.call("profile_plan", json!({ "program": program }));
        assert!(
            error && text.contains("not one this server was started with"),
            "{text}"
        );
    }
    let (text, error) = mcp.call(
        "profile_plan",
        json!({"program": "app.sh", "args": ["-c", "id"]}),
    );
    assert!(error && text.contains("no argument \"args\""), "{text}");

    output_is_bounded_and_paged(&mut mcp);
    odd_arguments_are_errors(&mut mcp, &root);
    a_long_call_leaves_the_server_answering(&mut mcp);
    // Still up.
    let list = mcp.request("tools/list", json!({}));
    assert!(list["result"]["tools"].is_array(), "{list}");
    mcp.finish();
}

/// Malformed lines, each answered with a JSON-RPC error of id null.
fn malformed_lines_are_answered(mcp: &mut Session) {
    let ping = br#"{"jsonrpc":"2.0","id":99,"method":"ping"}"#;
    let deep = "[".repeat(100_000);
    let batch = format!("[{}]", String::from_utf8_lossy(ping));
    let cases: &[(&[u8], i64, &str)] = &[
        (b"{this is not json", -32700, "Parse error"),
        (batch.as_bytes(), -32600, "batch"),
        (
            b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"tools/call\",\"params\":{\"name\":\"\xff\xfe\"}}",
            -32700,
            "not UTF-8",
        ),
        (
            br#"{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"\udc80"}}"#,
            -32700,
            "surrogate",
        ),
        (deep.as_bytes(), -32600, "nested deeper than 64"),
        (b"42", -32600, "an object"),
    ];
    for (line, code, words) in cases {
        let (got, message) = mcp.refused(line);
        assert_eq!(got, *code, "{message}");
        assert!(message.contains(words), "{message}");
    }
    let huge = vec![b' '; 2 << 20];
    let (code, message) = mcp.refused(&huge);
    assert_eq!(code, -32600, "{message}");
    assert!(message.contains("over 1048576 bytes"), "{message}");
    // A request that is JSON but not a message: answered with its id.
    mcp.send(&json!({"jsonrpc": "2.0", "id": 7, "method": 12}));
    let v = mcp.next();
    assert_eq!(
        (v["id"].as_i64(), v["error"]["code"].as_i64()),
        (Some(7), Some(-32600)),
        "{v}"
    );
}

/// Paths outside the root (under `outer`): the same words whether the file exists or not,
/// and no path but the one given.
fn paths_outside_the_root_are_not_described(mcp: &mut Session, outer: &Path) {
    let secret = outer.join("secret.json");
    let nothing = outer.join("nothing.json");
    let mut words = Vec::new();
    for path in [
        s(&secret),
        s(&nothing),
        "/etc/passwd",
        "out.json",
        "dead.json",
        "missing.json",
    ] {
        let (text, error) = mcp.call("list_kernels", json!({ "path": path }));
        assert!(error, "{path}: {text}");
        assert!(!text.contains("resolves"), "{path}: {text}");
        let rest = text.replacen(path, "PATH", 1);
        assert!(!rest.contains(s(outer)), "{path}: {text}");
        words.push(rest);
    }
    assert_eq!(words[0], words[1], "an absolute path out");
    assert_eq!(words[0], words[2]);
    assert_eq!(words[3], words[4], "a link out, existing or not");
    assert_eq!(words[3], words[5], "a missing file");
}

/// The 2 KB per kernel holds against megabyte strings, output is paged, and a regular
/// expression too large to compile is refused.
fn output_is_bounded_and_paged(mcp: &mut Session) {
    let (text, error) = mcp.call("explain", json!({"path": "long.json", "max_bytes": 6000}));
    assert!(!error, "{text}");
    let r = mcp.request(
        "tools/call",
        json!({"name": "explain", "arguments": {"path": "long.json"}}),
    );
    let whole = r["result"]["content"][0]["text"].as_str().expect("text");
    let e: Value = serde_json::from_str(whole).expect("explain's JSON");
    for k in e["kernels"].as_array().expect("kernels") {
        let bytes = k.to_string().len();
        assert!(bytes <= 2048, "{bytes}");
    }
    assert!(whole.starts_with(&text), "the first page begins the whole");
    // The diff of those runs is 5 MB of JSON: a page of at most 1 MiB by default, and a
    // note giving the offset of the next.
    let args = json!({"before": "long.json", "after": "long.json", "format": "json"});
    let r = mcp.request("tools/call", json!({"name": "compare", "arguments": args}));
    let first = r["result"]["content"][0]["text"].as_str().expect("text");
    let note = r["result"]["content"][1]["text"].as_str().expect("a note");
    assert!(serde_json::to_string(first).expect("JSON").len() <= (1 << 20) + 2);
    let next: usize = note
        .split("offset ")
        .nth(1)
        .and_then(|n| n.trim_end_matches(']').parse().ok())
        .unwrap_or_else(|| panic!("{note}"));
    assert_eq!(next, first.len(), "{note}");
    let mut args = args;
    args["offset"] = json!(next);
    let (second, error) = mcp.call("compare", args);
    assert!(!error && !second.is_empty());
    let whole: String = format!("{first}{second}");
    assert!(whole.starts_with("{"), "pages join");
    // A regular expression too large to compile is refused, not built.
    let (text, error) = mcp.call(
        "explain",
        json!({"path": "long.json", "kernel": r"(\w{1000}){1000}"}),
    );
    assert!(error && text.contains("not a regular expression"), "{text}");
}

/// A long call (`profile_plan` through a fake ncu of 3 s) leaves the server answering, and
/// a second one is refused as busy.
fn a_long_call_leaves_the_server_answering(mcp: &mut Session) {
    let started = std::time::Instant::now();
    mcp.send(
        &json!({"jsonrpc": "2.0", "id": 1000, "method": "tools/call",
        "params": {"name": "profile_plan", "arguments": {"program": "app.sh"}}}),
    );
    std::thread::sleep(Duration::from_millis(300));
    let (text, error) = mcp.call("profile_plan", json!({"program": "app.sh"}));
    assert!(error && text.contains("busy"), "{text}");
    let pong = mcp.request("ping", json!({}));
    assert!(pong["result"].is_object(), "{pong}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "answered while it ran"
    );
    let done = loop {
        let v = mcp.next();
        if v["id"] == json!(1000) {
            break v;
        }
    };
    assert_eq!(done["result"]["isError"], json!(true), "{done}");
}

/// Cases of our own: arguments of the wrong kind or out of range, a NUL in a path, a FIFO,
/// a method no server has; each an error, the server up.
fn odd_arguments_are_errors(mcp: &mut Session, root: &Path) {
    let fifo = root.join("fifo.json");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success());
    let mut cases = vec![
        (
            json!({"path": "long.json", "top": -1}),
            "a whole number expected",
        ),
        (
            json!({"path": "long.json", "offset": 1u64 << 40}),
            "past the end",
        ),
        (json!({"path": "long.json", "max_bytes": 0}), "max_bytes 0"),
        (
            json!({"path": "long.json", "max_bytes": 1u64 << 30}),
            "from 1 to",
        ),
        (
            json!({"path": "long\u{0}.json"}),
            "no such file under the root",
        ),
        (
            json!({"path": "long.json", "format": "x".repeat(100_000)}),
            "`json` or `text`",
        ),
    ];
    if made {
        cases.push((json!({"path": "fifo.json"}), "not a file"));
    }
    for (arguments, words) in cases {
        let (text, error) = mcp.call("explain", arguments.clone());
        assert!(error && text.contains(words), "{arguments}: {text}");
        assert!(
            text.len() < 4096,
            "errors quote at most a little: {}",
            text.len()
        );
    }
    // Arguments that are not an object, and a method no server has: errors with their ids.
    mcp.send(&json!({"jsonrpc": "2.0", "id": 31, "method": "tools/call",
        "params": {"name": "explain", "arguments": 5}}));
    let v = mcp.next();
    assert_eq!(v["id"], 31, "{v}");
    assert!(v["error"]["code"].is_i64(), "{v}");
    let v = mcp.request("tools/nonsense", json!({}));
    assert!(v["error"]["code"].is_i64(), "{v}");
}

/// With `--allow-profile app.sh` the tool is offered, for that program only, and runs
/// capture profile --plan-only; with no ncu on PATH it reports capture's own error and
/// exit status.
fn profile_plan_runs_the_program_named_at_start(root: &Path, no_ncu: &Path) {
    let (mut mcp, _) = Session::start(root, &["--allow-profile", "app.sh"], no_ncu);
    let list = mcp.request("tools/list", json!({}));
    let tools = list["result"]["tools"].as_array().expect("tools");
    let plan = tools
        .iter()
        .find(|t| t["name"] == "profile_plan")
        .unwrap_or_else(|| panic!("{list}"));
    // The agent picks among the programs named at start, and passes no arguments.
    assert_eq!(
        plan["inputSchema"]["properties"]["program"]["enum"],
        json!(["app.sh"])
    );
    assert!(plan["inputSchema"]["properties"].get("args").is_none());
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

/// Writes `path` gzip-compressed beside it as `path.gz`; returns the new path.
fn gzip(path: &Path) -> std::path::PathBuf {
    use std::io::Write as _;
    let bytes = std::fs::read(path).expect("read");
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes).expect("gzip");
    let mut name = path.as_os_str().to_owned();
    name.push(".gz");
    let out = std::path::PathBuf::from(name);
    std::fs::write(&out, gz.finish().expect("gzip")).expect("write");
    out
}

/// `path` and `paths` together, or an empty list, refused; the `import` tool: a new artifact
/// under the root from the probe's pages, which then reads as they do; an existing file,
/// `..` and a name not ending in `.json` refused.
fn import_writes_under_the_root(mcp: &mut Session) {
    let (text, error) = mcp.call("explain", json!({"path": "a.json", "paths": ["a.json"]}));
    assert!(error && text.contains("path or paths, not both"), "{text}");
    let (text, error) = mcp.call("explain", json!({"paths": []}));
    assert!(
        error && text.contains("a path or a list of paths"),
        "{text}"
    );
    let (text, error) = mcp.call(
        "import",
        json!({"paths": ["probe_full_raw.csv", "probe_full_details.csv"], "output": "m.json"}),
    );
    assert!(
        !error && text.starts_with("imported 1 launch(es)"),
        "{text}"
    );
    let (from_pages, _) = mcp.call(
        "list_kernels",
        json!({"paths": ["probe_full_raw.csv", "probe_full_details.csv"]}),
    );
    let (from_import, _) = mcp.call("list_kernels", json!({"path": "m.json"}));
    assert_eq!(from_import, from_pages);
    for (output, why) in [
        ("m.json", "already exists"),
        ("../m.json", "`..` is refused"),
        ("m.csv", "ends in .json"),
    ] {
        let (text, error) = mcp.call("import", json!({"path": "a.json", "output": output}));
        assert!(error && text.contains(why), "{output}: {text}");
    }
}

/// `capture diff` of `files` against themselves: the first file positional, the others as
/// `--before-page` and `--after-page`.
fn diff_args<'a>(files: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec!["diff", files[0], files[0]];
    for f in &files[1..] {
        args.extend(["--before-page", f, "--after-page", f]);
    }
    args
}

#[test]
fn every_command_and_tool_takes_the_same_inputs_and_names_them_the_same_way() {
    let root = tempfile::tempdir().expect("tempdir");
    let dir = root.path();
    for page in ["probe_full_raw.csv", "probe_full_details.csv"] {
        std::fs::copy(fixture(&format!("ncu-h200/{page}")), dir.join(page)).expect("copy");
    }
    std::fs::copy(
        fixture("ncu-h200/probe_full.ncu-rep.gz"),
        dir.join("probe_full.ncu-rep.gz"),
    )
    .expect("copy");
    gunzip_fixture(dir, "ncu-h200/probe_full.ncu-rep.gz");
    let pages = [
        dir.join("probe_full_raw.csv"),
        dir.join("probe_full_details.csv"),
    ];
    let artifact = import(dir, &pages);
    gzip(&artifact);
    gzip(&pages[0]);
    // The list: an artifact (plain, .gz), the raw and details pages of one export (plain,
    // the raw page gzipped), a report (plain, .gz), and a lone page.
    let cases: [&[&str]; 7] = [
        &["a.json"],
        &["a.json.gz"],
        &["probe_full_raw.csv", "probe_full_details.csv"],
        &["probe_full_raw.csv.gz", "probe_full_details.csv"],
        &["probe_full.ncu-rep"],
        &["probe_full.ncu-rep.gz"],
        &["probe_full_raw.csv"],
    ];
    let no_ncu = dir.join("bin");
    std::fs::create_dir(&no_ncu).expect("mkdir");
    let (mut mcp, _) = Session::start(dir, &[], &no_ncu);
    for files in cases {
        let name = files.join(" + ");
        let full: Vec<String> = files.iter().map(|f| s(&dir.join(f)).to_owned()).collect();
        let full: Vec<&str> = full.iter().map(String::as_str).collect();
        let paths = json!(files);
        let lone = files == ["probe_full_raw.csv"];

        // capture table and list_kernels: the same rows.
        let mut args = vec!["table", "--sort", "time", "--format", "markdown"];
        args.extend(&full);
        let o = capture(&args);
        assert!(o.status.success(), "table {name}: {}", stderr(&o));
        let note = "probe_full_raw.csv: a raw page alone: ncu's rules";
        assert_eq!(stderr(&o).contains(note), lone, "{name}: {}", stderr(&o));
        let r = mcp.request(
            "tools/call",
            json!({"name": "list_kernels", "arguments": {"paths": paths}}),
        );
        let text = r["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default();
        assert_eq!(text, stdout(&o), "list_kernels {name}: {r}");
        // A lone page's note comes with the answer, naming the file as the command does.
        let notes: Vec<&str> = r["result"]["content"]
            .as_array()
            .map(|c| c.iter().filter_map(|b| b["text"].as_str()).collect())
            .unwrap_or_default();
        assert_eq!(
            notes
                .iter()
                .any(|n| n.starts_with(&format!("note: {note}"))),
            lone,
            "{name}: {r}"
        );

        // capture explain and explain: the same JSON.
        let mut args = vec!["explain", "--format", "json", "--top", "1"];
        args.extend(&full);
        let o = capture(&args);
        assert!(o.status.success(), "explain {name}: {}", stderr(&o));
        let (text, error) = mcp.call("explain", json!({"paths": paths, "top": 1}));
        assert!(!error, "{name}: {text}");
        let json = |t: &str| serde_json::from_str::<Value>(t).expect("explain JSON");
        assert_eq!(json(&text), json(&stdout(&o)), "explain {name}");

        // capture diff and compare: the same table, headed by the same names.
        let o = capture(&diff_args(&full));
        assert!(o.status.success(), "diff {name}: {}", stderr(&o));
        let head = format!("before {name}, after {name}");
        assert!(stdout(&o).starts_with(&head), "{name}: {}", stdout(&o));
        let (text, error) = mcp.call("compare", json!({"before": paths, "after": paths}));
        assert!(!error, "{name}: {text}");
        assert_eq!(text, stdout(&o), "compare {name}");

        // capture source and source: the same answer, or the same refusal naming the input
        // the same way (CSV pages hold no source counters; the report does).
        let mut args = vec!["source", "--kernel", ".", "--top", "3"];
        args.extend(&full);
        let o = capture(&args);
        let (text, error) = mcp.call("source", json!({"paths": paths, "kernel": ".", "top": 3}));
        assert_eq!(error, !o.status.success(), "source {name}: {text}");
        if error {
            let said = stderr(&o);
            let said = said.trim_end().trim_start_matches("error: ");
            let text = text.trim_start_matches("error: ");
            let strip = |t: &str| t.replace(&format!("{}/", s(dir)), "");
            assert_eq!(strip(text), strip(said), "source {name}");
        } else {
            assert_eq!(text, stdout(&o), "source {name}");
            assert!(files[0].starts_with("probe_full.ncu-rep"), "{name}");
        }
    }

    import_writes_under_the_root(&mut mcp);
    mcp.finish();
}

#[test]
fn top_range_and_format_narrow_every_answer() {
    let root = tempfile::tempdir().expect("tempdir");
    gunzip_fixture(root.path(), "corpus-h200/jax_mlp_full_raw.csv.gz");
    gunzip_fixture(root.path(), "diff/run1.json.gz");
    let no_ncu = root.path().join("bin");
    std::fs::create_dir(&no_ncu).expect("mkdir");
    let (mut mcp, _) = Session::start(root.path(), &[], &no_ncu);
    let jax = "jax_mlp_full_raw.csv";
    // A range whose labels hold `/` themselves: one launch under it.
    let gemm = "measure/TSL:XlaModule:#hlo_module=jit_mlp,program_id=6632#/TSL:Thunk:#name=jit(mlp)/dot_general,hlo_op=custom-call.1,unique_hlo_op_id=12884901895#";
    let rows = |text: &str| {
        text.lines()
            .filter(|l| {
                l.starts_with("| ") && !l.starts_with("| kernel") && !l.starts_with("| ---")
            })
            .count()
    };
    let (all, error) = mcp.call("list_kernels", json!({"path": jax}));
    assert!(!error, "{all}");
    assert_eq!(rows(&all), 4, "{all}");
    let (two, error) = mcp.call("list_kernels", json!({"path": jax, "top": 2}));
    assert!(!error && rows(&two) == 2, "{two}");
    let (one, error) = mcp.call("list_kernels", json!({"path": jax, "range": gemm}));
    assert!(
        !error && rows(&one) == 1 && one.contains("| nvjet_sm90_tst_128x160"),
        "{one}"
    );
    let (text, error) = mcp.call("list_kernels", json!({"path": jax, "range": "nothing"}));
    assert!(
        error && text.contains("no launch lies under the NVTX range"),
        "{text}"
    );
    // explain: compact JSON with the same value as structured content; text alone as text.
    let r = mcp.request(
        "tools/call",
        json!({"name": "explain", "arguments": {"path": jax, "range": gemm}}),
    );
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(!text.contains("\n  "), "compact: {text}");
    let v: Value = serde_json::from_str(text).expect("JSON");
    assert_eq!(v, r["result"]["structuredContent"]);
    assert_eq!(v["kernels_in_input"], 1, "{v}");
    let r = mcp.request(
        "tools/call",
        json!({"name": "explain", "arguments": {"path": jax, "top": 1, "format": "text"}}),
    );
    assert!(r["result"]["structuredContent"].is_null(), "{r}");
    // compare: top and range; JSON compact.
    let (text, error) = mcp.call(
        "compare",
        json!({"before": "run1.json", "after": "run1.json", "format": "json", "top": 3}),
    );
    assert!(!error && !text.contains("\n  "), "{text}");
    let d: Value = serde_json::from_str(&text).expect("diff JSON");
    assert_eq!(d["kernels"].as_array().map(Vec::len), Some(3));
    assert_eq!(
        d["launch_counts"]["kernels"].as_array().map(Vec::len),
        Some(3)
    );
    let (text, error) = mcp.call(
        "compare",
        json!({"before": jax, "after": jax, "range": gemm, "format": "json"}),
    );
    assert!(!error, "{text}");
    let d: Value = serde_json::from_str(&text).expect("diff JSON");
    assert_eq!(d["kernels"].as_array().map(Vec::len), Some(1), "{d}");
    // explain's next step: ranked, with the command; JSON compact, no structured content.
    let r = mcp.request(
        "tools/call",
        json!({"name": "explain", "arguments": {"path": "run1.json", "next": true, "top": 2}}),
    );
    assert!(r["result"]["structuredContent"].is_null(), "{r}");
    let text = r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    let steps: Value = serde_json::from_str(text).expect("next JSON");
    assert_eq!(steps.as_array().map(Vec::len), Some(2), "{steps}");
    assert!(
        steps[0]["command"]
            .as_str()
            .is_some_and(|c| c.contains(" -c 1 ")),
        "{steps}"
    );
    let (text, error) = mcp.call(
        "compare",
        json!({"before": jax, "after": jax, "by": "range", "top": 1}),
    );
    assert!(
        error && text.contains("top applies to by kernel only"),
        "{text}"
    );
    mcp.finish();
}

/// Issue 51, item 4: "top three to fix" over eight held-out-style programs of the corpus
/// (each its raw and details pages, gzipped, paired by `paths`), one explain call each:
/// the bytes of each JSON-RPC answer line, as text and as JSON. Printed (`--nocapture`);
/// docs/mcp.md quotes them.
#[test]
fn top_three_answers_of_eight_programs_are_measured() {
    let root = tempfile::tempdir().expect("tempdir");
    let programs = [
        "t5_encoder",
        "whisper_encoder",
        "llama_decode",
        "mobilenet_v2",
        "lstm_fp32",
        "resnet18_train",
        "bert_base_fwd",
        "vit_b16",
    ];
    for p in programs {
        for page in ["raw", "details"] {
            let name = format!("{p}_full_{page}.csv.gz");
            std::fs::copy(
                fixture(&format!("corpus-h200/{name}")),
                root.path().join(&name),
            )
            .expect("copy");
        }
    }
    let no_ncu = root.path().join("bin");
    std::fs::create_dir(&no_ncu).expect("mkdir");
    let (mut mcp, _) = Session::start(root.path(), &[], &no_ncu);
    let mut totals = [0usize; 2];
    for p in programs {
        for (i, format) in ["text", "json"].iter().enumerate() {
            let args = json!({
                "paths": [format!("{p}_full_raw.csv.gz"), format!("{p}_full_details.csv.gz")],
                "top": 3,
                "format": format,
            });
            let r = mcp.request("tools/call", json!({"name": "explain", "arguments": args}));
            assert_ne!(r["result"]["isError"], json!(true), "{p}: {r}");
            let bytes = r.to_string().len();
            println!("{p} {format}: {bytes} bytes");
            totals[i] += bytes;
        }
    }
    println!(
        "eight programs, top 3: text {} bytes, json {} bytes",
        totals[0], totals[1]
    );
    // Text: under 16k tokens at 4 bytes a token.
    assert!(totals[0] < 64_000, "{totals:?}");
    mcp.finish();
}
