//! The one directory `capture mcp` reads from: every path a client names is resolved inside
//! it (symbolic links followed) and refused when it leaves it, so an agent reads nothing
//! but the files the person who started the server put there.

use std::path::{Component, Path, PathBuf};

use anyhow::{bail, Context, Result};

/// The root of `--root`, canonical.
#[derive(Clone, Debug)]
pub struct Root {
    dir: PathBuf,
}

impl Root {
    /// The root at `dir`, which must be a directory.
    pub fn new(dir: &Path) -> Result<Root> {
        let canonical = dir
            .canonicalize()
            .with_context(|| format!("--root {}", dir.display()))?;
        if !canonical.is_dir() {
            bail!("--root {}: not a directory", dir.display());
        }
        Ok(Root { dir: canonical })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The file a client names as `name`: a path relative to the root (or absolute, inside
    /// it), without `..`, that exists and, symbolic links followed, is still inside the root.
    ///
    /// The errors say nothing of the world outside the root: an absolute path outside it is
    /// refused by its text, before the file system is asked, and a path that does not
    /// exist and one that leads out of the root (by a symbolic link) get the same words, so
    /// that no answer tells whether a file outside exists or where a link points.
    pub fn file(&self, name: &str) -> Result<PathBuf> {
        if name.is_empty() {
            bail!("an empty path");
        }
        let shown = shown(name);
        let path = Path::new(name);
        if path.components().any(|c| c == Component::ParentDir) {
            bail!("{shown}: `..` is refused; name a file under the root");
        }
        let joined = if path.is_absolute() {
            if !path.starts_with(&self.dir) {
                bail!("{shown}: outside the root; name a file under it, relative to it");
            }
            path.to_path_buf()
        } else {
            self.dir.join(path)
        };
        let not_here = || {
            anyhow::anyhow!(
                "{shown}: no such file under the root (a symbolic link out of the root is                  refused as if it were missing)"
            )
        };
        let real = joined.canonicalize().map_err(|_| not_here())?;
        if !real.starts_with(&self.dir) {
            return Err(not_here());
        }
        if !real.is_file() {
            bail!("{shown}: not a file");
        }
        Ok(real)
    }

    /// Where a client's `import` may write `name`: a new `.json` file under the root (no
    /// `..`, an absolute path only inside it), in a folder that exists there, symbolic
    /// links followed; a file already there (or a link) is refused, never replaced.
    pub fn new_file(&self, name: &str) -> Result<PathBuf> {
        if name.is_empty() {
            bail!("an empty path");
        }
        let shown = shown(name);
        let path = Path::new(name);
        if path.components().any(|c| c == Component::ParentDir) {
            bail!("{shown}: `..` is refused; name a file under the root");
        }
        if path.extension().is_none_or(|e| e != "json") {
            bail!("{shown}: an artifact's name ends in .json");
        }
        let joined = if path.is_absolute() {
            if !path.starts_with(&self.dir) {
                bail!("{shown}: outside the root; name a file under it, relative to it");
            }
            path.to_path_buf()
        } else {
            self.dir.join(path)
        };
        let (Some(parent), Some(file)) = (joined.parent(), joined.file_name()) else {
            bail!("{shown}: not a file name");
        };
        let real = parent
            .canonicalize()
            .ok()
            .filter(|p| p.starts_with(&self.dir) && p.is_dir())
            .ok_or_else(|| {
                anyhow::anyhow!(
                    "{shown}: no such folder under the root (a symbolic link out of the root \
                     is refused as if it were missing)"
                )
            })?;
        let target = real.join(file);
        if target.symlink_metadata().is_ok() {
            bail!("{shown}: already exists; import writes a new file and never replaces one");
        }
        Ok(target)
    }
}

/// A name a client gave, for an error: its first 200 characters, control characters
/// escaped.
fn shown(name: &str) -> String {
    let head: String = name.chars().take(200).collect();
    let mut s = shared::text::escape::controls(&head).into_owned();
    if head.len() < name.len() {
        s.push_str(&format!("... ({} bytes)", name.len()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_is_read_and_outside_is_refused() {
        let outer = tempfile::tempdir().expect("tempdir");
        let root_dir = outer.path().join("root");
        std::fs::create_dir_all(root_dir.join("sub")).expect("mkdir");
        std::fs::write(root_dir.join("sub/a.json"), "{}").expect("write");
        std::fs::write(outer.path().join("secret.json"), "{}").expect("write");
        let root = Root::new(&root_dir).expect("root");
        assert!(root.file("sub/a.json").is_ok());
        let abs = root.dir().join("sub/a.json");
        assert!(root.file(abs.to_str().expect("utf-8")).is_ok());
        let up = root.file("../secret.json").expect_err("`..`").to_string();
        assert!(up.contains("`..` is refused"), "{up}");
        // Outside the root, existing or not, the same words, and no path but the one given.
        for far in [
            outer.path().join("secret.json"),
            outer.path().join("nothing"),
        ] {
            let err = root
                .file(far.to_str().expect("utf-8"))
                .expect_err("absolute")
                .to_string();
            assert!(err.ends_with(": outside the root; name a file under it, relative to it"));
        }
        assert!(root.file("sub").is_err(), "a directory");
        // Where import may write: a new .json under the root, nowhere else.
        assert!(root.new_file("sub/new.json").is_ok());
        for (bad, why) in [
            ("sub/a.json", "already exists"),
            ("../x.json", "`..` is refused"),
            ("sub/new.csv", "ends in .json"),
            ("nothing/new.json", "no such folder under the root"),
        ] {
            let e = root.new_file(bad).expect_err(bad).to_string();
            assert!(e.contains(why), "{bad}: {e}");
        }
        let missing = root.file("missing.json").expect_err("missing").to_string();
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outer.path().join("secret.json"), root_dir.join("link"))
                .expect("symlink");
            std::os::unix::fs::symlink(outer.path().join("nothing"), root_dir.join("dead"))
                .expect("symlink");
            let out = root.file("link").expect_err("a link out").to_string();
            let dead = root.file("dead").expect_err("a dead link").to_string();
            let words = |e: &str| e.split_once(": ").map(|(_, w)| w.to_owned());
            assert_eq!(words(&out), words(&missing));
            assert_eq!(words(&dead), words(&missing));
            assert!(
                !out.contains(outer.path().to_str().expect("utf-8")),
                "{out}"
            );
        }
    }
}
