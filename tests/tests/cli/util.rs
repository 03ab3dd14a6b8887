//! Helpers: locate the workspace, build and run the `capture` binary, scratch folders.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("tests/ has a parent")
        .to_path_buf()
}

/// A fixture under tests/fixtures/.
pub fn fixture(rel: &str) -> PathBuf {
    root().join("tests/fixtures").join(rel)
}

/// A bundled sample, `site/samples/NAME`, as a file capture reads. The tree keeps the large
/// ones gzipped (`NAME.gz`; `site/build.sh` publishes them un-gzipped): those are un-gzipped
/// once into the target's scratch folder, under their own name.
pub fn sample_file(name: &str) -> PathBuf {
    let plain = root().join("site/samples").join(name);
    if plain.exists() {
        return plain;
    }
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("samples");
    let path = dir.join(name);
    if !path.exists() {
        let gz = std::fs::read(root().join("site/samples").join(format!("{name}.gz")))
            .unwrap_or_else(|e| panic!("site/samples/{name}(.gz): {e}"));
        let mut bytes = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut bytes)
            .expect("sample gunzips");
        std::fs::create_dir_all(&dir).expect("mkdir");
        // Written beside and renamed, so a test running alongside never reads half of it.
        let part = dir.join(format!(
            ".{name}.{}.{:?}",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&part, bytes).expect("write");
        std::fs::rename(&part, &path).expect("rename");
    }
    path
}

/// Path to the `capture` binary, built once per test run.
pub fn capture_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "-q", "-p", "capture"])
            .current_dir(root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building capture failed");
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| root().join("target"));
        target.join("debug/capture")
    })
}

/// Runs `capture` with `args`.
pub fn capture(args: &[&str]) -> Output {
    Command::new(capture_bin())
        .args(args)
        .output()
        .expect("capture starts")
}

/// Stdout as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Stderr as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A path as &str (test paths are UTF-8).
pub fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// Imports `exports` into an artifact in `dir`, asserting success; returns its path.
pub fn import(dir: &Path, exports: &[PathBuf]) -> PathBuf {
    let out = dir.join("a.json");
    let mut args = vec!["import"];
    args.extend(exports.iter().map(|p| s(p)));
    args.extend(["-o", s(&out)]);
    let o = capture(&args);
    assert!(o.status.success(), "import failed: {}", stderr(&o));
    out
}

/// The keys of `value`'s objects, at any depth, that the contract `doc` (a page of `docs/`)
/// names in none of its code spans (`` `key` ``, `` `{unit, pct_of_peak}` ``): a field the
/// JSON has and its documentation lacks. The keys of the objects under `maps` are data (a
/// stall reason, a precision), not fields.
pub fn undocumented_keys(value: &serde_json::Value, doc: &str, maps: &[&str]) -> Vec<String> {
    fn named(doc: &str, key: &str) -> bool {
        let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
        doc.split('`').skip(1).step_by(2).any(|span| {
            span.match_indices(key).any(|(at, _)| {
                let before = span[..at].chars().next_back();
                let after = span[at + key.len()..].chars().next();
                !before.is_some_and(word) && !after.is_some_and(word)
            })
        })
    }
    fn walk(v: &serde_json::Value, doc: &str, maps: &[&str], out: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(map) => {
                for (key, inner) in map {
                    if !named(doc, key) && !out.contains(key) {
                        out.push(key.clone());
                    }
                    if !maps.contains(&key.as_str()) {
                        walk(inner, doc, maps, out);
                    }
                }
            }
            serde_json::Value::Array(items) => {
                items.iter().for_each(|i| walk(i, doc, maps, out));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(value, doc, maps, &mut out);
    out
}

/// The file inside the gzipped fixture `rel`, written un-gzipped into `dir` under its
/// name without `.gz`.
pub fn gunzip_fixture(dir: &Path, rel: &str) -> PathBuf {
    let bytes = std::fs::read(fixture(rel)).expect("fixture");
    let mut report = Vec::new();
    flate2::read::GzDecoder::new(&bytes[..])
        .read_to_end(&mut report)
        .expect("fixture gunzips");
    let name = Path::new(rel).file_stem().expect("a .gz name").to_owned();
    let path = dir.join(name);
    std::fs::write(&path, report).expect("write");
    path
}

/// The report inside the zstd-compressed fixture `rel` (`NAME.ncu-repz`, how the tree keeps
/// its large reports), written un-compressed into `dir` as `NAME.ncu-rep`.
pub fn unzstd_fixture(dir: &Path, rel: &str) -> PathBuf {
    let bytes = std::fs::read(fixture(rel)).expect("fixture");
    let report = shared::read::zstd::decode_all(&bytes, u64::MAX).expect("fixture un-zstds");
    let stem = Path::new(rel).file_stem().expect("a .ncu-repz name");
    let path = dir.join(stem).with_extension("ncu-rep");
    std::fs::write(&path, report).expect("write");
    path
}

/// The fields of one line of an ncu CSV page: quoted fields, `""` a quote inside (ncu's
/// pages have no newline inside a field of the raw page).
pub fn csv_fields(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(ch) = chars.next() {
        match (ch, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', q) => quoted = !q,
            (',', false) => fields.push(std::mem::take(&mut field)),
            (ch, _) => field.push(ch),
        }
    }
    fields.push(field);
    fields
}

/// One line of an ncu CSV page from its fields, each quoted as ncu writes them.
pub fn csv_line(fields: &[String]) -> String {
    let quoted: Vec<String> = fields
        .iter()
        .map(|f| format!("\"{}\"", f.replace('"', "\"\"")))
        .collect();
    quoted.join(",")
}

/// A run of `capture` with its wall time and its own peak memory.
pub struct Measured {
    /// The exit code (`None`: killed by a signal).
    pub code: Option<i32>,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// Wall time, s.
    pub wall_s: f64,
    /// Peak resident memory, bytes: the largest `VmHWM` of `/proc/PID/status` read every
    /// 2 ms while it ran. Not `wait4`'s `ru_maxrss`: the child is started by `vfork`
    /// (`posix_spawn`) and so is charged the whole test process's memory at its `exec`.
    pub peak_bytes: u64,
}

/// The `VmHWM` of process `pid`, bytes, while it runs.
fn high_water(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Runs `capture ARGS` (standard input from `stdin` when given) and measures it.
pub fn measured(args: &[&str], stdin: Option<&Path>) -> Measured {
    let dir = tempfile::tempdir().expect("tempdir");
    let (out, err) = (dir.path().join("out"), dir.path().join("err"));
    let mut command = Command::new(capture_bin());
    command
        .args(args)
        .stdout(std::fs::File::create(&out).expect("out"))
        .stderr(std::fs::File::create(&err).expect("err"));
    if let Some(input) = stdin {
        command.stdin(std::fs::File::open(input).expect("stdin"));
    }
    let started = std::time::Instant::now();
    let mut child = command.spawn().expect("capture starts");
    let mut peak_bytes = 0;
    let status = loop {
        if let Some(b) = high_water(child.id()) {
            peak_bytes = peak_bytes.max(b);
        }
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        std::thread::sleep(std::time::Duration::from_millis(2));
    };
    let wall_s = started.elapsed().as_secs_f64();
    let read =
        |p: &Path| String::from_utf8_lossy(&std::fs::read(p).unwrap_or_default()).into_owned();
    Measured {
        code: status.code(),
        stdout: read(&out),
        stderr: read(&err),
        wall_s,
        peak_bytes,
    }
}

/// The bound issue 48 sets on any hostile input: within `2 s` (times `slack`, for a debug
/// build on a loaded machine) and at most ten times the input in memory, or 200 MB,
/// whichever is larger.
pub fn assert_bounded(what: &str, m: &Measured, input_bytes: u64) {
    let memory = (10 * input_bytes).max(200_000_000);
    assert!(
        m.peak_bytes <= memory,
        "{what}: {} MB, over {} MB",
        m.peak_bytes >> 20,
        memory >> 20
    );
    let seconds = 2.0 * time_slack();
    assert!(
        m.wall_s <= seconds,
        "{what}: {:.2} s, over {seconds} s",
        m.wall_s
    );
}

/// How much longer than the 2 s a test may take: 1 with `ROOFLINE_STRICT_TIME=1`,
/// else 3, for a debug build beside the rest of the suite on two shared cores (every case
/// passed strict on the developer VM, 2026-12-07, the slowest `explain` of megabyte
/// strings).
pub fn time_slack() -> f64 {
    match std::env::var("ROOFLINE_STRICT_TIME").as_deref() {
        Ok("1") => 1.0,
        _ => 3.0,
    }
}
