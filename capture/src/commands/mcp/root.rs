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
    pub fn file(&self, name: &str) -> Result<PathBuf> {
        if name.is_empty() {
            bail!("an empty path");
        }
        let path = Path::new(name);
        if path.components().any(|c| c == Component::ParentDir) {
            bail!(
                "{name}: `..` is refused; name a file under the root {}",
                self.dir.display()
            );
        }
        let joined = if path.is_absolute() {
            path.to_path_buf()
        } else {
            self.dir.join(path)
        };
        let real = joined.canonicalize().with_context(|| {
            format!("{name}: no such file under the root {}", self.dir.display())
        })?;
        if !real.starts_with(&self.dir) {
            bail!(
                "{name}: outside the root {} (it resolves to {}; a symbolic link out of the \
                 root is refused too)",
                self.dir.display(),
                real.display()
            );
        }
        if !real.is_file() {
            bail!("{name}: not a file");
        }
        Ok(real)
    }
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
        let far = outer.path().join("secret.json");
        let err = root
            .file(far.to_str().expect("utf-8"))
            .expect_err("absolute");
        assert!(err.to_string().contains("outside the root"), "{err}");
        assert!(root.file("sub").is_err(), "a directory");
        assert!(root.file("missing.json").is_err());
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outer.path().join("secret.json"), root_dir.join("link"))
                .expect("symlink");
            let err = root.file("link").expect_err("a link out");
            assert!(err.to_string().contains("outside the root"), "{err}");
        }
    }
}
