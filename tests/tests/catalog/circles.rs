//! No two modules of a crate import each other in a circle (ARCHITECTURE.md's first
//! invariant). A module is a file (`mod.rs`, `lib.rs` and `main.rs` are their folder's); it
//! imports another where its code, outside `#[cfg(test)]`, names a path into it:
//! `use crate::a::b::Name`, `crate::a::f()`, `super::x::Y`, `self::x`, or a child module by
//! its bare name (`x::Y` in `mod.rs`). A path belongs to its longest prefix that is a module,
//! so `crate::a::b::Name` is module `a::b` when a file is that module, else `a`.
//! The graph's strongly connected components (Tarjan) are its circles; each is reported as
//! one loop, with the file, line and path of every import on it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::invariants::{test_module_files, test_ranges};
use crate::lex::{is_ident, lex, use_tree};
use crate::{read, root, rust_files, shown};

/// A module's path below its crate's root (`["analysis", "table"]`; the root is empty).
type Module = Vec<String>;

/// One import: the line it is on, the path as written, and the module it names.
#[derive(Debug, PartialEq)]
struct Import {
    line: usize,
    path: String,
    to: Module,
}

/// The crates whose modules are checked: a name and its source folder (a binary's
/// `main.rs` beside a `lib.rs` is a crate of one module, so it is left out).
const CRATES: [(&str, &str); 4] = [
    ("shared", "shared/src"),
    ("capture", "capture/src"),
    ("viewer", "viewer/src"),
    ("inject", "inject/src"),
];

/// The module a file under `src` is.
fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap_or(file);
    let mut parts: Module = rel
        .iter()
        .map(|c| c.to_string_lossy().into_owned())
        .collect();
    let last = parts.pop().unwrap_or_default();
    let stem = last.trim_end_matches(".rs");
    let folder = stem == "mod" || (parts.is_empty() && (stem == "lib" || stem == "main"));
    if !folder {
        parts.push(stem.to_string());
    }
    parts
}

/// A module as a message names it (`crate` for the root).
fn named(m: &[String]) -> String {
    if m.is_empty() {
        "crate".to_string()
    } else {
        m.join("::")
    }
}

/// `code` with the given ranges blanked (newlines kept, so lines stay the source's).
fn blank(code: &str, ranges: &[std::ops::Range<usize>]) -> String {
    let mut b = code.as_bytes().to_vec();
    for r in ranges {
        for c in &mut b[r.clone()] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    }
    String::from_utf8(b).unwrap_or_default()
}

/// The byte ranges of `pub(in path)` visibilities: a path there names no import.
fn restricted_visibilities(code: &str) -> Vec<std::ops::Range<usize>> {
    code.match_indices("pub(in ")
        .map(|(at, _)| at..code[at..].find(')').map_or(code.len(), |p| at + p + 1))
        .collect()
}

/// The inline modules of `code` (`mod name { ... }`): each one's name and byte range.
fn inline_modules(code: &str) -> Vec<(String, std::ops::Range<usize>)> {
    let b = code.as_bytes();
    let mut out = Vec::new();
    for (at, _) in code.match_indices("mod ") {
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let mut i = at + 4;
        let start = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let name = &code[start..i];
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if name.is_empty() || b.get(i) != Some(&b'{') {
            continue;
        }
        let mut depth = 0;
        let mut j = i;
        while j < b.len() {
            match b[j] {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
            j += 1;
        }
        out.push((name.to_string(), at..j.min(b.len())));
    }
    out
}

/// The imports of module `here`, whose code (comments, literals and tests blanked) is
/// `code`, among the crate's `modules`; paths into `here` itself are left out.
fn imports(here: &[String], code: &str, modules: &BTreeSet<Module>) -> Vec<Import> {
    let code = blank(code, &restricted_visibilities(code));
    let inline = inline_modules(&code);
    let b = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !is_ident(b[i]) || (i > 0 && is_ident(b[i - 1])) {
            i += 1;
            continue;
        }
        let at = i;
        while i < b.len() && is_ident(b[i]) {
            i += 1;
        }
        let word = &code[at..i];
        let mut j = i;
        while j < b.len() && b[j].is_ascii_whitespace() {
            j += 1;
        }
        // A path's first segment: not after `::` (the middle of a path) or `$` (`$crate`).
        let before = code[..at].trim_end().as_bytes().last().copied();
        if !code[j..].starts_with("::") || matches!(before, Some(b':' | b'$')) {
            continue;
        }
        // The module the code at `at` is in: the file's, then its inline modules.
        let mut base: Module = here.to_vec();
        let within: Vec<&String> = inline
            .iter()
            .filter(|(_, r)| r.contains(&at))
            .map(|(n, _)| n)
            .collect();
        base.extend(within.iter().map(|n| n.to_string()));
        let child = within.is_empty() && {
            let mut m = here.to_vec();
            m.push(word.to_string());
            modules.contains(&m)
        };
        if !(matches!(word, "crate" | "super" | "self") || child) {
            continue;
        }
        let mut k = j + 2;
        let mut paths = Vec::new();
        use_tree(b, &mut k, &format!("{word}::"), &mut paths);
        i = k;
        let line = 1 + b[..at].iter().filter(|&&c| c == b'\n').count();
        for path in paths {
            let mut segs = path.split("::").map(str::to_string).peekable();
            let mut abs: Module = match segs.peek().map(String::as_str) {
                Some("crate") => {
                    segs.next();
                    Vec::new()
                }
                Some("self") => {
                    segs.next();
                    base.clone()
                }
                Some("super") => {
                    let mut m = base.clone();
                    while segs.peek().map(String::as_str) == Some("super") {
                        segs.next();
                        m.pop();
                    }
                    m
                }
                _ => here.to_vec(),
            };
            abs.extend(segs.filter(|s| s != "self"));
            let to = (0..=abs.len())
                .rev()
                .map(|n| abs[..n].to_vec())
                .find(|m| modules.contains(m))
                .unwrap_or_default();
            if to != here {
                out.push(Import { line, path, to });
            }
        }
    }
    out
}

/// The circles of a graph: its strongly connected components of two nodes or more
/// (Tarjan), each sorted, in order.
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Walk<'a> {
        graph: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'a Module, (usize, usize)>,
        stack: Vec<&'a Module>,
        on_stack: BTreeSet<&'a Module>,
        out: Vec<Vec<Module>>,
    }
    impl<'a> Walk<'a> {
        fn visit(&mut self, v: &'a Module) {
            let n = self.index.len();
            self.index.insert(v, (n, n));
            self.stack.push(v);
            self.on_stack.insert(v);
            let graph = self.graph;
            for w in graph.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let low = self.index[w].1;
                    let e = self.index.get_mut(v).expect("visited");
                    e.1 = e.1.min(low);
                } else if self.on_stack.contains(w) {
                    let idx = self.index[w].0;
                    let e = self.index.get_mut(v).expect("visited");
                    e.1 = e.1.min(idx);
                }
            }
            let (idx, low) = self.index[v];
            if idx == low {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    scc.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.out.push(scc);
                }
            }
        }
    }
    let mut walk = Walk {
        graph,
        index: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        out: Vec::new(),
    };
    for v in graph.keys() {
        if !walk.index.contains_key(v) {
            walk.visit(v);
        }
    }
    walk.out.sort();
    walk.out
}

/// One loop through `scc`, from its first module back to it (a shortest one, breadth first).
fn one_loop(graph: &BTreeMap<Module, BTreeSet<Module>>, scc: &[Module]) -> Vec<Module> {
    let start = &scc[0];
    let mut came_from: BTreeMap<&Module, &Module> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in graph.get(v).into_iter().flatten() {
            if !scc.contains(w) {
                continue;
            }
            if w == start {
                let mut path = vec![v.clone()];
                let mut at = v;
                while at != start {
                    at = came_from[at];
                    path.push(at.clone());
                }
                path.reverse();
                path.push(start.clone());
                return path;
            }
            if !came_from.contains_key(w) {
                came_from.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    scc.to_vec()
}

/// Every circle of the crate under `src`: its modules (as [`named`]), and a loop through it
/// `a -> b -> a` with the imports that make it, one per line.
fn crate_circles(name: &str, src: &str) -> Vec<(Vec<String>, String)> {
    let src_dir: PathBuf = root().join(src);
    let files: Vec<PathBuf> = rust_files(src)
        .into_iter()
        .filter(|f| !(f == &src_dir.join("main.rs") && src_dir.join("lib.rs").exists()))
        .collect();
    let lexed: Vec<String> = files.iter().map(|f| lex(&read(f)).code).collect();
    let test_files: Vec<PathBuf> = files
        .iter()
        .zip(&lexed)
        .flat_map(|(f, code)| test_module_files(f, code))
        .collect();
    let mut sources: Vec<(&PathBuf, Module, String)> = Vec::new();
    for (file, code) in files.iter().zip(&lexed) {
        if !test_files.contains(file) {
            let code = blank(code, &test_ranges(code));
            sources.push((file, module_of(&src_dir, file), code));
        }
    }
    let modules: BTreeSet<Module> = sources.iter().map(|(_, m, _)| m.clone()).collect();
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let mut why: BTreeMap<(Module, Module), Vec<String>> = BTreeMap::new();
    for (file, here, code) in &sources {
        graph.entry(here.clone()).or_default();
        for imp in imports(here, code, &modules) {
            graph
                .entry(here.clone())
                .or_default()
                .insert(imp.to.clone());
            why.entry((here.clone(), imp.to)).or_default().push(format!(
                "{}:{}: {}",
                shown(file),
                imp.line,
                imp.path
            ));
        }
    }
    circles(&graph)
        .iter()
        .map(|scc| {
            let members: Vec<String> = scc.iter().map(|m| named(m)).collect();
            let ring = one_loop(&graph, scc);
            let mut text = format!(
                "{name}: {} (of {} modules: {})",
                ring.iter()
                    .map(|m| named(m))
                    .collect::<Vec<_>>()
                    .join(" -> "),
                scc.len(),
                members.join(", ")
            );
            for pair in ring.windows(2) {
                let key = (pair[0].clone(), pair[1].clone());
                for w in why.get(&key).into_iter().flatten().take(3) {
                    text.push_str(&format!("\n    {w}"));
                }
            }
            (members, text)
        })
        .collect()
}

/// Circles known and not yet opened, each a crate and its modules exactly as the test
/// names them. The list only shrinks: a circle not on it fails the test, and so does an
/// entry that no longer matches one (opened, or grown: write it anew).
///
/// The one left: `schema.rs`, the format's one definition, holds launches' metrics as
/// `storage`'s `Metrics` and `List`, and `storage` stores `schema`'s `MetricKey`,
/// `MetricValue` and `LaunchSite`. Opening it moves the metric types (or the storage)
/// out of the file that defines the format, which is the format's call, not this test's.
const CIRCLES_LEFT: [(&str, &[&str]); 1] = [(
    "shared",
    &[
        "model::artifact::schema",
        "model::artifact::storage",
        "model::artifact::storage::columns",
        "model::artifact::storage::metrics",
        "model::artifact::storage::sites",
        "model::artifact::storage::values",
    ],
)];

#[test]
fn no_two_modules_of_a_crate_import_each_other_in_a_circle() {
    let mut found = Vec::new();
    let mut left: Vec<(&str, &[&str])> = CIRCLES_LEFT.to_vec();
    for (name, src) in CRATES {
        for (members, text) in crate_circles(name, src) {
            match left
                .iter()
                .position(|(c, m)| *c == name && *m == members.as_slice())
            {
                Some(i) => {
                    left.remove(i);
                }
                None => found.push(text),
            }
        }
    }
    assert!(
        found.is_empty(),
        "import circles (put the names both sides use one floor lower, in a module both \
         import):\n{}",
        found.join("\n")
    );
    assert!(
        left.is_empty(),
        "CIRCLES_LEFT names circles that are gone (opened or changed): take them off the \
         list, or write them anew:\n{left:?}"
    );
}

// The scanner and the walk, on snippets: the check above is only as good as these.

fn m(path: &str) -> Module {
    path.split("::")
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn a_path_names_its_longest_module() {
    let modules: BTreeSet<Module> = ["", "a", "a::b", "c", "c::d", "e"]
        .iter()
        .map(|p| m(p))
        .collect();
    let code = "use crate::a::b::Name;\nuse crate::a::{self, Other as O, b::{Deep}};\n\
                fn f() { crate::e::g(); super::a::b::h(); d::X::<u8>::new(); x::d::y(); }\n\
                pub(in crate::e) fn v() {}\nmacro_rules! q { () => { $crate::e::z() } }\n\
                mod inner { use super::super::e::W; use self::k::Z; }\nuse std::fmt;";
    let found: Vec<(usize, String, String)> = imports(&m("c"), &lex(code).code, &modules)
        .into_iter()
        .map(|i| (i.line, i.path, named(&i.to)))
        .collect();
    let want = [
        (1, "crate::a::b::Name", "a::b"),
        (2, "crate::a::self", "a"),
        (2, "crate::a::Other", "a"),
        (2, "crate::a::b::Deep", "a::b"),
        (3, "crate::e::g", "e"),
        (3, "super::a::b::h", "a::b"),
        (3, "d::X", "c::d"),
        (6, "super::super::e::W", "e"),
    ];
    let want: Vec<(usize, String, String)> = want
        .iter()
        .map(|(l, p, t)| (*l, p.to_string(), t.to_string()))
        .collect();
    assert_eq!(found, want);
}

#[test]
fn files_are_modules() {
    let src = Path::new("/x/src");
    assert_eq!(module_of(src, Path::new("/x/src/lib.rs")), m(""));
    assert_eq!(module_of(src, Path::new("/x/src/a/mod.rs")), m("a"));
    assert_eq!(module_of(src, Path::new("/x/src/a/b.rs")), m("a::b"));
    assert_eq!(module_of(src, Path::new("/x/src/a/main.rs")), m("a::main"));
}

#[test]
fn a_circle_is_found_and_walked() {
    let mut graph: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    for (a, b) in [
        ("t", "f"),
        ("f", "t"),
        ("t", "v"),
        ("k", "n"),
        ("n", "l"),
        ("l", "k"),
        ("l", "v"),
    ] {
        graph.entry(m(a)).or_default().insert(m(b));
        graph.entry(m(b)).or_default();
    }
    let found = circles(&graph);
    assert_eq!(found, [vec![m("f"), m("t")], vec![m("k"), m("l"), m("n")]]);
    assert_eq!(
        one_loop(&graph, &found[1]),
        [m("k"), m("n"), m("l"), m("k")]
    );
}
