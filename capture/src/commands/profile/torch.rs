//! `capture profile --torch-modules`: the environment that loads `torch_ranges.py` (NVTX
//! ranges per `nn.Module`, backward and optimizer step, through PyTorch's global hooks) into
//! every Python process of the profiled program, with no change to the program. The file is
//! written as `sitecustomize.py` into a folder of the run's work folder, put first on
//! PYTHONPATH; it loads the environment's own `sitecustomize` after itself.

use std::ffi::OsString;
use std::path::Path;

use anyhow::{Context, Result};

/// The hooks, loaded by Python at start-up as `sitecustomize`.
const SITECUSTOMIZE: &str = include_str!("torch_ranges.py");

/// Writes the hooks into `{work_dir}/{stem}-torch-ranges/sitecustomize.py` and returns the
/// environment that loads them: PYTHONPATH with that folder first (then the one capture
/// was given), and `CAPTURE_TORCH_OPS=1` for op ranges too when `ops`.
pub fn environment(work_dir: &Path, stem: &str, ops: bool) -> Result<Vec<(OsString, OsString)>> {
    environment_over(work_dir, stem, ops, std::env::var_os("PYTHONPATH"))
}

/// [`environment`] over a given PYTHONPATH (`given`).
fn environment_over(
    work_dir: &Path,
    stem: &str,
    ops: bool,
    given: Option<OsString>,
) -> Result<Vec<(OsString, OsString)>> {
    let dir = work_dir.join(format!("{stem}-torch-ranges"));
    std::fs::create_dir_all(&dir)
        .with_context(|| format!("{}: cannot create folder", dir.display()))?;
    crate::files::write_atomic(&dir.join("sitecustomize.py"), SITECUSTOMIZE.as_bytes())?;
    let mut paths = vec![dir];
    if let Some(given) = given {
        paths.extend(std::env::split_paths(&given));
    }
    let pythonpath = std::env::join_paths(paths)
        .with_context(|| "PYTHONPATH: a folder holds the path separator".to_string())?;
    let mut env = vec![("PYTHONPATH".into(), pythonpath)];
    if ops {
        env.push(("CAPTURE_TORCH_OPS".into(), "1".into()));
    }
    Ok(env)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hooks_go_first_on_pythonpath_and_ops_are_asked_for_by_a_variable() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let env = environment(dir.path(), "p", true).unwrap_or_else(|e| panic!("{e:#}"));
        let folder = dir.path().join("p-torch-ranges");
        let written = std::fs::read_to_string(folder.join("sitecustomize.py"))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(written, SITECUSTOMIZE);
        let path = &env[0];
        assert_eq!(path.0, "PYTHONPATH");
        let first = std::env::split_paths(&path.1).next();
        assert_eq!(first.as_deref(), Some(folder.as_path()));
        assert_eq!(env[1], ("CAPTURE_TORCH_OPS".into(), "1".into()));
        let env = environment(dir.path(), "q", false).unwrap_or_else(|e| panic!("{e:#}"));
        assert!(env.iter().all(|(k, _)| k != "CAPTURE_TORCH_OPS"));
    }

    /// Python loads the hooks as `sitecustomize` and waits for torch; a program without
    /// torch runs as before (its import fails as it would), and the environment's own
    /// `sitecustomize`, later on PYTHONPATH, is still loaded.
    #[test]
    fn python_loads_the_hooks_and_the_environments_own_sitecustomize() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let theirs = dir.path().join("theirs");
        std::fs::create_dir_all(&theirs).unwrap_or_else(|e| panic!("{e}"));
        std::fs::write(
            theirs.join("sitecustomize.py"),
            "import builtins\nbuiltins.THEIRS = True\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let env = environment_over(dir.path(), "p", false, Some(theirs.into_os_string()))
            .unwrap_or_else(|e| panic!("{e:#}"));
        let probe = "import sys, builtins\n\
                     print(type(sys.meta_path[0]).__name__, getattr(builtins, 'THEIRS', False))\n\
                     try:\n    import torch\n    print('loaded')\nexcept ModuleNotFoundError as e:\n    print(e.name)\n";
        let out = std::process::Command::new("python3")
            .args(["-c", probe])
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap_or_else(|e| panic!("python3: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Where torch is installed (a GPU host) it loads with the hooks; here it is missing
        // and its import fails as it would without them.
        assert!(
            [
                "_WhenTorchLoads True\ntorch\n",
                "_WhenTorchLoads True\nloaded\n"
            ]
            .contains(&stdout.as_ref()),
            "{stdout}"
        );
    }

    /// The hooks' ranges on a small BERT-shaped training step on the CPU
    /// (`tests/python/torch_ranges_check.py`): each Linear's range holds its one forward and
    /// two backward matrix multiplies under the same path both ways. Needs a Python with
    /// torch: `CAPTURE_TEST_TORCH_PYTHON`, else `python3`; where neither has torch it says
    /// so and checks nothing (CI installs no torch: several GB).
    #[test]
    fn the_hooks_put_each_linears_matrix_multiplies_in_its_range() {
        let python =
            std::env::var("CAPTURE_TEST_TORCH_PYTHON").unwrap_or_else(|_| "python3".into());
        let script = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/python/torch_ranges_check.py"
        );
        let out = std::process::Command::new(&python)
            .arg(script)
            .output()
            .unwrap_or_else(|e| panic!("{python}: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        if out.status.code() == Some(77) {
            crate::out::eprint_line(&format!(
                "{python} has no torch: the hooks' check was not run ({stdout})"
            ));
            return;
        }
        assert!(
            out.status.success() && stdout.starts_with("ok: 13 Linear ranges"),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
