//! The docs tested against the tree and the CLI:
//!
//! - every repository path (`shared/src/analysis/bound.rs`, `tests/fixtures/...`), every
//!   bare source file name in a code span (`lib.rs`) and every relative Markdown link (with
//!   its `#anchor`) that a `*.md` file, a `*.toml` file or a Rust comment names exists. `CHANGELOG.md` is left out: it is a record, and its entries
//!   name files as they were called when the entry was written; every other page must be
//!   true of the tree now.
//! - every `--flag` the docs (`README.md`, `docs/*.md`) write is one the CLI takes: a flag in
//!   a code span with `capture SUB` before it must be one of `SUB`'s; any other must be one
//!   of some subcommand's or one of ncu's that the docs quote ([`NCU_FLAGS`], named only
//!   here); flags in a span that another program starts (`cargo`, `srun`...) or after a
//!   `capture profile ... --` (the profiled program's own) are not ours to check. The flags
//!   come from `docs/commands.md`, which is generated from the clap definitions and tested
//!   to be current (`capture/src/cli/reference.rs`).
//!
//! The checkers work on text in memory, and the last tests plant a broken link and an
//! unknown flag to show that they bite.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::lex::lex;
use crate::{read, root};

/// Folders that hold build outputs, recordings or other checkouts, not sources: never
/// walked, and a path into them is not checked (`target/probe.json` is made by a command the
/// page shows).
const OUTPUTS: [&str; 7] = [
    "target",
    "site/dist",
    "tests/out",
    "fuzz/target",
    "fuzz/corpus",
    "fuzz/artifacts",
    "node_modules",
];

/// The endings of the file names a path check looks for when a path does not start at the
/// root (`gpu/collect.rs` in a comment of `capture/src`).
const EXTENSIONS: [&str; 15] = [
    ".rs", ".md", ".toml", ".json", ".cu", ".sh", ".py", ".csv", ".html", ".js", ".css", ".txt",
    ".gz", ".ncu-rep", ".lock",
];

/// Nsight Compute's own flags, which the docs quote (how to export a page, what `--ncu-arg`
/// passes on, what capture sets itself). Named here only.
const NCU_FLAGS: [&str; 23] = [
    "--set",
    "--page",
    "--import",
    "--csv",
    "--print-units",
    "--print-source",
    "--section",
    "--metrics",
    "--kernel-name",
    "--kernel-name-base",
    "--kernel-id",
    "--launch-skip",
    "--launch-count",
    "--launch-skip-before-match",
    "--nvtx",
    "--nvtx-include",
    "--nvtx-exclude",
    "--nvtx-push-pop-scope",
    "--target-processes",
    "--clock-control",
    "--cache-control",
    "--import-source",
    "--replay-mode",
];

/// Programs other than capture and ncu whose command lines the docs show; their flags are
/// theirs.
const OTHER_PROGRAMS: [&str; 14] = [
    "cargo",
    "nsys",
    "rustup",
    "python",
    "python3",
    "bash",
    "srun",
    "torchrun",
    "mpirun",
    "nvcc",
    "wasm-bindgen",
    "wasm-opt",
    "chromium",
    "git",
];

/// The files and folders of the tree, relative to the root with `/`, and the anchors of
/// every Markdown file.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    /// Every file and folder.
    paths: BTreeSet<String>,
    /// The heading anchors of each `.md` file.
    anchors: BTreeMap<String, BTreeSet<String>>,
}

impl Tree {
    /// The tree under the workspace root, outputs and dot folders left out.
    fn of_workspace() -> Tree {
        fn walk(root: &Path, rel: &str, tree: &mut Tree) {
            let dir = root.join(rel);
            let entries = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()));
            for entry in entries.flatten() {
                let name = entry.file_name().to_string_lossy().into_owned();
                let path = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                if name.starts_with('.') || OUTPUTS.contains(&path.as_str()) {
                    continue;
                }
                if entry.path().is_dir() {
                    walk(root, &path, tree);
                } else if path.ends_with(".md") {
                    tree.add_markdown(&path, &read(&entry.path()));
                }
                tree.paths.insert(path);
            }
        }
        let mut tree = Tree::default();
        walk(&root(), "", &mut tree);
        tree.add_published_samples(&read(&root().join("site/build.sh")));
        tree
    }

    /// The samples `site/build.sh` publishes un-gzipped (its `plain=(...)` list) from the
    /// `site/samples/NAME.gz` the tree keeps: in the tree as `site/samples/NAME` too, the
    /// path their links (`?src=samples/NAME`) name.
    fn add_published_samples(&mut self, build: &str) {
        let list = build
            .lines()
            .find_map(|l| l.trim().strip_prefix("plain=("))
            .and_then(|l| l.strip_suffix(')'))
            .expect("site/build.sh lists the samples it publishes un-gzipped: plain=(...)");
        for name in list.split_whitespace() {
            if self.paths.contains(&format!("site/samples/{name}.gz")) {
                self.add(&format!("site/samples/{name}"));
            }
        }
    }

    /// Adds a path (a file, or a folder ending in `/`) with its folders.
    fn add(&mut self, path: &str) {
        let path = path.trim_end_matches('/');
        let mut at = 0;
        while let Some(p) = path[at..].find('/') {
            self.paths.insert(path[..at + p].to_string());
            at += p + 1;
        }
        self.paths.insert(path.to_string());
    }

    /// Adds a Markdown file and its anchors.
    fn add_markdown(&mut self, path: &str, text: &str) {
        self.add(path);
        self.anchors.insert(path.to_string(), anchors(text));
    }

    /// Whether `path` (relative to the root) is a file or folder of the tree.
    fn has(&self, path: &str) -> bool {
        self.paths.contains(path.trim_end_matches('/'))
    }

    /// Whether a path of the tree ends with `/tail`.
    fn has_tail(&self, tail: &str) -> bool {
        let tail = format!("/{}", tail.trim_end_matches('/'));
        self.paths.iter().any(|p| p.ends_with(&tail))
    }

    /// Whether `path` starts at the root: its first part is a top-level entry.
    fn rooted(&self, path: &str) -> bool {
        path.split_once('/')
            .is_some_and(|(first, _)| self.paths.contains(first))
    }
}

/// GitHub's anchor for each heading of a Markdown text: lower case, spaces to `-`, every
/// other character but letters, digits, `-` and `_` dropped; a repeated one gets `-1`, `-2`.
fn anchors(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let Some(title) = line.strip_prefix('#').filter(|_| !fenced) else {
            continue;
        };
        let title = title.trim_start_matches('#').trim();
        let slug: String = title
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c.to_ascii_lowercase()),
                _ => None,
            })
            .collect();
        let mut name = slug.clone();
        let mut n = 0;
        while out.contains(&name) {
            n += 1;
            name = format!("{slug}-{n}");
        }
        out.insert(name);
    }
    out
}

/// `dir` joined with a relative `target`, `.` and `..` resolved; `None` above the root.
fn join(dir: &str, target: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|p| !p.is_empty()).collect();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            part => parts.push(part),
        }
    }
    Some(parts.join("/"))
}

/// The folder of a file's path (`""` at the root).
fn folder(file: &str) -> &str {
    file.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// Whether a byte may be part of a path token.
fn path_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"_./-*{}~".contains(&b)
}

/// The tokens of `text` that look like paths: runs of path characters holding a `/`, not
/// starting with `.`, `/` or `~` (relative links are checked as links; absolute paths
/// are the reader's machine's), with trailing punctuation dropped. With their line.
fn path_tokens(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let b = line.as_bytes();
        let mut i = 0;
        while i < b.len() {
            if !path_byte(b[i]) {
                i += 1;
                continue;
            }
            let start = i;
            while i < b.len() && path_byte(b[i]) {
                i += 1;
            }
            // A scheme (`https:`) makes the rest of the run a URL.
            if b.get(i) == Some(&b':') && b.get(i + 1) == Some(&b'/') {
                while i < b.len() && !b[i].is_ascii_whitespace() && b[i] != b')' {
                    i += 1;
                }
                continue;
            }
            let token = line[start..i].trim_end_matches(['.', ',', '-']);
            if token.contains('/') && !token.starts_with(['.', '/', '~']) {
                out.push((n + 1, token));
            }
        }
    }
    out
}

/// Why a path token names nothing in the tree, or `None` when it is fine or not ours to
/// check. `file` is the path of the file it is in.
fn path_problem(tree: &Tree, file: &str, token: &str) -> Option<String> {
    // A pattern or a placeholder (`kernels/*.cu`, `prof-{rank}.json`, `fixtures/NAME`): its
    // folder must exist.
    let token = match token
        .find(['*', '{', '}', '~'])
        .or_else(|| placeholder(token))
    {
        Some(at) => match token[..at].rfind('/') {
            Some(slash) => &token[..=slash],
            None => return None,
        },
        None => token,
    };
    if OUTPUTS
        .iter()
        .any(|o| token == *o || token.starts_with(&format!("{o}/")))
    {
        return None;
    }
    // Relative to the file's folder (a manifest's `path = "src/main.rs"`).
    let near = join(folder(file), token).is_some_and(|p| tree.has(&p));
    if tree.rooted(token) {
        return (!tree.has(token) && !near).then(|| format!("`{token}` is not in the tree"));
    }
    if !EXTENSIONS.iter().any(|x| token.ends_with(x)) {
        return None;
    }
    (!near && !tree.has_tail(token)).then(|| format!("no file of the tree is `.../{token}`"))
}

/// Where a placeholder part of a path starts: a part in capitals (`NAME`, `FILE.csv`), the
/// names of the tree's own capitalised files aside.
fn placeholder(token: &str) -> Option<usize> {
    let mut at = 0;
    for part in token.split('/') {
        let stem = part.split('.').next().unwrap_or_default();
        let capitals = stem.len() > 1
            && stem.bytes().any(|b| b.is_ascii_uppercase())
            && stem
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if capitals && !["README", "CHANGELOG", "ARCHITECTURE", "LICENSE"].contains(&stem) {
            return Some(at);
        }
        at += part.len() + 1;
    }
    None
}

/// The relative Markdown links of `text` (`[text](target)`, outside code blocks), with
/// their line.
fn links(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    let mut fenced = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            let Some(end) = after.find(')') else { break };
            let target = &after[..end];
            if !target.contains("://") && !target.starts_with("mailto:") {
                out.push((n + 1, target));
            }
            rest = &after[end..];
        }
    }
    out
}

/// Why a link from `file` to `target` leads nowhere, or `None`.
fn link_problem(tree: &Tree, file: &str, target: &str) -> Option<String> {
    let (path, anchor) = target.split_once('#').unwrap_or((target, ""));
    let path = if path.is_empty() {
        file.to_string()
    } else {
        match join(folder(file), path) {
            Some(p) => p,
            None => return Some(format!("link `{target}` leads above the root")),
        }
    };
    if !tree.has(&path) {
        return Some(format!("link `{target}`: `{path}` is not in the tree"));
    }
    if anchor.is_empty() {
        return None;
    }
    match tree.anchors.get(&path) {
        Some(anchors) if anchors.contains(anchor) => None,
        Some(_) => Some(format!(
            "link `{target}`: `{path}` has no heading `#{anchor}`"
        )),
        None => None,
    }
}

/// `file:line: why` for every path and link of a Markdown `text` that names nothing.
pub(crate) fn markdown_problems(tree: &Tree, file: &str, text: &str) -> Vec<String> {
    let mut found: Vec<String> = links(text)
        .into_iter()
        .filter_map(|(line, target)| {
            link_problem(tree, file, target).map(|why| format!("{file}:{line}: {why}"))
        })
        .collect();
    found.extend(text_problems(tree, file, text, 0));
    found
}

/// The endings of the bare file names (no folder) a check looks for in code spans: the
/// tree's own kinds of source, not the examples' `run.json` or `train.py`.
const BARE_EXTENSIONS: [&str; 4] = [".rs", ".md", ".cu", ".toml"];

/// The code spans of `text` that are a bare file name (`lib.rs`), with their line.
fn bare_names(text: &str) -> Vec<(usize, &str)> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        for span in line.split('`').skip(1).step_by(2) {
            let name_like = span
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-".contains(&b));
            if name_like
                && BARE_EXTENSIONS
                    .iter()
                    .any(|x| span.len() > x.len() && span.ends_with(x))
            {
                out.push((n + 1, span));
            }
        }
    }
    out
}

/// `file:line: why` for every path of `text`, and every bare file name in a code span,
/// that names nothing; `text` starts at line `first + 1` of the file.
fn text_problems(tree: &Tree, file: &str, text: &str, first: usize) -> Vec<String> {
    let mut found: Vec<String> = path_tokens(text)
        .into_iter()
        .filter_map(|(line, token)| {
            path_problem(tree, file, token).map(|why| format!("{file}:{}: {why}", first + line))
        })
        .collect();
    for (line, name) in bare_names(text) {
        if placeholder(name).is_none() && !tree.has(name) && !tree.has_tail(name) {
            found.push(format!(
                "{file}:{}: no file of the tree is named `{name}`",
                first + line
            ));
        }
    }
    found
}

/// `file:line: why` for every path in the comments of Rust `source` that names nothing.
pub(crate) fn rust_problems(tree: &Tree, file: &str, source: &str) -> Vec<String> {
    lex(source)
        .comments
        .iter()
        .flat_map(|c| text_problems(tree, file, &c.text, c.line - 1))
        .collect()
}

/// The flags of each subcommand, read from the generated reference: its `## \`capture
/// SUB\`` headings and the flags of the list items under them.
pub(crate) fn reference_flags(reference: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut current = None;
    for line in reference.lines() {
        if let Some(sub) = line
            .strip_prefix("## `capture ")
            .and_then(|rest| rest.strip_suffix('`'))
        {
            out.entry(sub.to_string()).or_default();
            current = Some(sub.to_string());
        } else if let (Some(sub), Some(item)) = (&current, line.strip_prefix("- `")) {
            let spelled = item.split('`').next().unwrap_or_default();
            let flags = flag_tokens(spelled).into_iter().map(|f| f.text.to_string());
            out.entry(sub.clone()).or_default().extend(flags);
        }
    }
    out
}

/// A `--flag` written in a text.
#[derive(Debug)]
struct FlagToken<'a> {
    /// Byte offset of its `--`.
    at: usize,
    /// The flag, `--name`.
    text: &'a str,
    /// Written as another flag's value (`--ncu-arg=--target-processes=all`).
    value: bool,
}

/// The `--name` flags of `text` (a `-` or a letter before the `--` makes it no flag).
fn flag_tokens(text: &str) -> Vec<FlagToken<'_>> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(p) = text[i..].find("--") {
        let at = i + p;
        let before = at.checked_sub(1).map(|j| b[j]);
        let word_before = before.is_some_and(|c| c.is_ascii_alphanumeric() || c == b'-');
        let mut end = at + 2;
        if !word_before && b.get(end).is_some_and(u8::is_ascii_lowercase) {
            while end < b.len()
                && (b[end].is_ascii_lowercase() || b[end].is_ascii_digit() || b[end] == b'-')
            {
                end += 1;
            }
            out.push(FlagToken {
                at,
                text: text[at..end].trim_end_matches('-'),
                value: before == Some(b'='),
            });
        }
        i = end.max(at + 2);
    }
    out
}

/// Who the flags of a code span belong to.
#[derive(Clone, Debug, PartialEq)]
enum Owner {
    /// Nobody named: any subcommand's flag or ncu's.
    Anyone,
    /// `capture SUB`: that subcommand.
    Capture(String),
    /// `ncu`: ncu's flags.
    Ncu,
    /// Another program, or the program after `capture profile ... --`: not checked.
    Other,
}

/// Splits Markdown into the units whose flags share an owner: each code span (which may
/// run over lines of a paragraph), each line of a code block (a line ending in `\` goes on),
/// and the prose around them. With the line each starts on and whether it is code.
fn units(text: &str) -> Vec<(usize, String, bool)> {
    let mut out = Vec::new();
    let mut fenced = false;
    let mut code_line: Option<(usize, String)> = None;
    let mut span: Option<(usize, String)> = None;
    let mut prose = (1, String::new());
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let (start, mut joined) = code_line.take().unwrap_or((n, String::new()));
            joined.push_str(line);
            joined.push(' ');
            if line.trim_end().ends_with('\\') {
                code_line = Some((start, joined));
            } else {
                out.push((start, joined, true));
            }
            continue;
        }
        if line.trim().is_empty() || line.starts_with('|') {
            // A span does not run over a paragraph or out of a table row.
            if let Some((start, s)) = span.take() {
                out.push((start, s, true));
            }
        }
        for (i, piece) in line.split('`').enumerate() {
            if i > 0 {
                match span.take() {
                    Some((start, s)) => out.push((start, s, true)),
                    None => span = Some((n, String::new())),
                }
            }
            match &mut span {
                Some((_, s)) => s.push_str(piece),
                None => prose.1.push_str(piece),
            }
        }
        match &mut span {
            Some((_, s)) => s.push(' '),
            None => prose.1.push(' '),
        }
        if line.starts_with('|') {
            if let Some((start, s)) = span.take() {
                out.push((start, s, true));
            }
        }
        if line.trim().is_empty() {
            let (start, s) = std::mem::replace(&mut prose, (n + 1, String::new()));
            out.push((start, s, false));
        }
    }
    out.extend(span.map(|(start, s)| (start, s, true)));
    out.extend(code_line.map(|(start, s)| (start, s, true)));
    out.push((prose.0, prose.1, false));
    out
}

/// The word that starts at `at` in `text`, if a word starts there (letters, digits, `-`,
/// `_`, `.`, with no such character before it other than a path's `/`).
fn word_at(text: &str, at: usize) -> Option<&str> {
    let b = text.as_bytes();
    let part = |c: u8| c.is_ascii_alphanumeric() || b"-_.".contains(&c);
    if at > 0 && part(b[at - 1]) {
        return None;
    }
    let end = b[at..]
        .iter()
        .position(|&c| !part(c))
        .map_or(b.len(), |p| at + p);
    (end > at).then(|| &text[at..end])
}

/// `file:line: why` for every flag of Markdown `text` that the CLI (or ncu, where ncu is
/// meant) does not take. `flags` are each subcommand's, from [`reference_flags`].
pub(crate) fn flag_problems(
    file: &str,
    text: &str,
    flags: &BTreeMap<String, BTreeSet<String>>,
) -> Vec<String> {
    let global = ["--help", "--version"];
    let any: BTreeSet<&str> = flags
        .values()
        .flatten()
        .map(String::as_str)
        .chain(global)
        .collect();
    let mut found = Vec::new();
    for (line, unit, code) in units(text) {
        let tokens = flag_tokens(&unit);
        let mut owner = Owner::Anyone;
        let mut at = 0;
        for token in tokens {
            // Programs named before the flag, in the same code span, own it.
            if code {
                while at < token.at {
                    let Some(word) = word_at(&unit, at) else {
                        at += 1;
                        continue;
                    };
                    let next = at + word.len();
                    let after = unit[next..].trim_start();
                    let package = unit[..at].trim_end().ends_with("-p");
                    if word == "capture" && !package {
                        let after = after.strip_prefix("-- ").unwrap_or(after);
                        let sub = after.split_whitespace().next().unwrap_or_default();
                        owner = if flags.contains_key(sub) {
                            Owner::Capture(sub.to_string())
                        } else {
                            Owner::Anyone
                        };
                    } else if word == "ncu" {
                        owner = Owner::Ncu;
                    } else if OTHER_PROGRAMS.contains(&word) {
                        owner = Owner::Other;
                    } else if word == "--" && owner != Owner::Ncu {
                        // `capture profile ... -- PROGRAM ARGS`: the program's own flags.
                        owner = Owner::Other;
                    }
                    at = next;
                }
            }
            let flag = token.text;
            let known = if token.value {
                NCU_FLAGS.contains(&flag)
            } else {
                match &owner {
                    Owner::Other => true,
                    Owner::Ncu => NCU_FLAGS.contains(&flag),
                    Owner::Capture(sub) => {
                        global.contains(&flag) || flags.get(sub).is_some_and(|f| f.contains(flag))
                    }
                    Owner::Anyone => any.contains(flag) || NCU_FLAGS.contains(&flag),
                }
            };
            if !known {
                let whose = match &owner {
                    Owner::Capture(sub) => format!("`capture {sub}`"),
                    Owner::Ncu => "ncu (as the docs quote it)".to_string(),
                    _ => "any capture command or ncu (as the docs quote it)".to_string(),
                };
                let shown = unit.lines().next().unwrap_or_default().trim();
                found.push(format!(
                    "{file}:{line}: `{flag}` is not a flag of {whose} (in `{shown}`)"
                ));
            }
        }
    }
    found
}

/// The Markdown files the path and link checks read: every `*.md` but the changelog.
fn markdown_files(tree: &Tree) -> Vec<String> {
    tree.anchors
        .keys()
        .filter(|p| p.as_str() != "CHANGELOG.md")
        .cloned()
        .collect()
}

#[test]
fn every_path_and_link_the_docs_name_exists() {
    let tree = Tree::of_workspace();
    let mut found = Vec::new();
    let mut checked = 0;
    for file in markdown_files(&tree) {
        found.extend(markdown_problems(&tree, &file, &read(&root().join(&file))));
        checked += 1;
    }
    for file in tree.paths.iter().filter(|p| p.ends_with(".toml")) {
        found.extend(text_problems(&tree, file, &read(&root().join(file)), 0));
        checked += 1;
    }
    for file in tree.paths.iter().filter(|p| p.ends_with(".rs")) {
        found.extend(rust_problems(&tree, file, &read(&root().join(file))));
        checked += 1;
    }
    assert!(checked > 100, "only {checked} files read");
    assert!(
        found.is_empty(),
        "paths and links that name nothing in the tree (CHANGELOG.md aside):\n{}",
        found.join("\n")
    );
}

#[test]
fn every_flag_the_docs_write_is_one_the_cli_takes() {
    let flags = reference_flags(&read(&root().join("docs/commands.md")));
    assert!(
        flags
            .get("profile")
            .is_some_and(|f| f.contains("--all-launches"))
            && flags.len() >= 10,
        "docs/commands.md lists too few commands or flags: {flags:?}"
    );
    let mut files = vec!["README.md".to_string()];
    let docs = std::fs::read_dir(root().join("docs")).unwrap_or_else(|e| panic!("docs/: {e}"));
    for entry in docs.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") {
            files.push(format!("docs/{name}"));
        }
    }
    files.sort();
    let mut found = Vec::new();
    for file in &files {
        found.extend(flag_problems(file, &read(&root().join(file)), &flags));
    }
    assert!(
        found.is_empty(),
        "flags the docs name that the CLI does not take (the flags: docs/commands.md):\n{}",
        found.join("\n")
    );
}

// The checkers on planted text: the tests above are only as good as these.

/// A small tree: a README, two docs pages and a source file.
fn planted_tree() -> Tree {
    let mut tree = Tree::default();
    tree.add_markdown("README.md", "# Title\n## Quick start\n");
    tree.add_markdown(
        "docs/sampling.md",
        "# Sampling\n## Checked on recorded data (CPU)\n",
    );
    tree.add_markdown("docs/commands.md", "# Commands\n");
    tree.add("shared/src/analysis/bound.rs");
    tree.add("capture/src/gpu/sample.rs");
    tree.add("site/samples/h200.json");
    tree.add("kernels/copy.cu");
    tree
}

#[test]
fn a_broken_link_or_path_is_found() {
    let tree = planted_tree();
    let text = "\
See [sampling](docs/sampling.md#checked-on-recorded-data-cpu) and [start](#quick-start),\n\
`shared/src/analysis/bound.rs`, `?src=samples/h200.json`, `target/probe.json`,\n\
<https://example.com/docs/x.md>, `kernels/*.cu`, `site/samples/NAME.json`.\n\
Broken: [gone](docs/gone.md), [anchor](docs/sampling.md#nowhere), [up](../x.md),\n\
`shared/src/analysis/old.rs`, `docs/missing.md`.\n";
    let found = markdown_problems(&tree, "README.md", text);
    assert_eq!(
        found,
        [
            "README.md:4: link `docs/gone.md`: `docs/gone.md` is not in the tree",
            "README.md:4: link `docs/sampling.md#nowhere`: `docs/sampling.md` has no heading `#nowhere`",
            "README.md:4: link `../x.md` leads above the root",
            "README.md:4: `docs/gone.md` is not in the tree",
            "README.md:5: `shared/src/analysis/old.rs` is not in the tree",
            "README.md:5: `docs/missing.md` is not in the tree",
        ]
    );
    // From a page in docs/, links are relative to it.
    assert!(markdown_problems(
        &tree,
        "docs/commands.md",
        "[s](sampling.md) [r](../README.md#title)"
    )
    .is_empty());
    let rust = "//! The plan is in `gpu/sample.rs`; it was `gpu/sampled.rs`.\nfn f() {} // see docs/sampling.md, `bound.rs`, `overlap.rs`, `NAME.rs`\nconst A: &str = \"docs/gone.md\";\n";
    assert_eq!(
        rust_problems(&tree, "capture/src/commands/profile.rs", rust),
        [
            "capture/src/commands/profile.rs:1: no file of the tree is `.../gpu/sampled.rs`",
            "capture/src/commands/profile.rs:2: no file of the tree is named `overlap.rs`",
        ]
    );
}

#[test]
fn an_unknown_flag_is_found() {
    let reference = "\
# The `capture` command reference\n\n- `-h`, `--help`\n\n\
## `capture run`\n\n- `-o, --output <OUTPUT>`: Where.\n- `--no-profile`: Skip.\n\
## `capture profile`\n\n- `--all-launches`: All.\n- `--ncu-arg <ARG>`: More.\n  - `cold`: (`--cache-control all`).\n\
## `capture table`\n\n- `--format <FORMAT>`: How.\n";
    let flags = reference_flags(reference);
    assert_eq!(
        flags
            .get("profile")
            .map(|f| f.iter().map(String::as_str).collect::<Vec<_>>()),
        Some(vec!["--all-launches", "--ncu-arg"])
    );
    let fine = "\
`capture run --no-profile -o t.json`, `capture profile --all-launches -- ./app --args`,\n\
`--ncu-arg=--target-processes=all`, ncu's `--set full`, `capture --help`, `--format`,\n\
`cargo test -p capture -- --ignored`, `srun --nodes 2 capture run --no-profile`.\n\n\
```sh\ntarget/release/capture profile -o a.json -- python train.py --epochs 1\n\
ncu --import r.ncu-rep --csv --page raw\n```\n\
| `capture table A.json --format json` | the table |\n";
    assert_eq!(
        flag_problems("README.md", fine, &flags),
        Vec::<String>::new()
    );
    let planted = "\
Run `capture run --no-such-flag`, or `capture table A.json --all-launches` (another\n\
command's), or `--made-up` alone, or `ncu --no-profile`, or `--ncu-arg=--bogus`.\n\n\
```sh\ncapture profile --depht roofline -- ./app\n```\n";
    assert_eq!(
        flag_problems("docs/x.md", planted, &flags),
        [
            "docs/x.md:1: `--no-such-flag` is not a flag of `capture run` (in `capture run --no-such-flag`)",
            "docs/x.md:1: `--all-launches` is not a flag of `capture table` (in `capture table A.json --all-launches`)",
            "docs/x.md:2: `--made-up` is not a flag of any capture command or ncu (as the docs quote it) (in `--made-up`)",
            "docs/x.md:2: `--no-profile` is not a flag of ncu (as the docs quote it) (in `ncu --no-profile`)",
            "docs/x.md:2: `--bogus` is not a flag of any capture command or ncu (as the docs quote it) (in `--ncu-arg=--bogus`)",
            "docs/x.md:5: `--depht` is not a flag of `capture profile` (in `capture profile --depht roofline -- ./app`)",
        ]
    );
}
