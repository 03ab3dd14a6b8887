//! Ctrl-C, SIGTERM and SIGHUP: what capture undoes before it exits.
//!
//! Outputs are written to a temporary file beside their target and renamed over it
//! (`files/mod.rs`), and ncu runs in a process group of its own (`gpu/ncu/run.rs`), so the
//! terminal's Ctrl-C does not reach it. On one of these signals capture removes the
//! temporary files and unfinished ncu reports it is writing, kills the process groups it
//! started (ncu and the profiled program), says so on stderr and exits with code 130. A
//! target is never touched: it is as it was before, or complete (the rename is atomic).
//!
//! SIGKILL cannot be caught: a process killed that way may leave a temporary file named
//! `.NAME.tmpXXXXXX` beside its target. Nothing reads it as output (it is hidden and its
//! name does not end in `.json` or `.csv`), and it can be deleted.
//!
//! Code elsewhere registers a path to remove with [`remove_on_interrupt`]; the returned
//! guard unregisters it when dropped. What capture makes itself (a temporary file or folder, a profiler process) is made through [`made`], which
//! holds the handler off between the making and the registering: an interrupt in that gap
//! once left a temporary file behind (seen in `tests/tests/cli/interrupt.rs` under load).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::exit::Code;

/// What an interrupt must undo.
#[derive(Default)]
struct Pending {
    /// Files or folders to remove, with a registration number.
    paths: Vec<(u64, PathBuf)>,
    /// Process groups to kill, with a registration number.
    groups: Vec<(u64, u32)>,
    /// The next registration number.
    next: u64,
    /// Set by the handler when it takes the lists: nothing may be made after that.
    interrupted: bool,
}

static PENDING: Mutex<Pending> = Mutex::new(Pending {
    paths: Vec::new(),
    groups: Vec::new(),
    next: 0,
    interrupted: false,
});

fn pending() -> MutexGuard<'static, Pending> {
    lock(&PENDING)
}

fn lock(m: &Mutex<Pending>) -> MutexGuard<'_, Pending> {
    // A panic while the lock was held leaves plain data behind: still usable.
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Installs the handler. Called once from `main`; if the platform refuses, capture runs on
/// without it (an interrupted write then leaves its temporary file, never a half target).
pub fn install() {
    if let Err(e) = ctrlc::set_handler(on_interrupt) {
        crate::out::eprint_line(&format!(
            "warning: no Ctrl-C handler ({e}); an interrupt may leave temporary files"
        ));
    }
}

/// Runs on the handler's own thread: undo, then exit.
fn on_interrupt() {
    let (paths, groups) = {
        let mut p = pending();
        p.interrupted = true;
        (std::mem::take(&mut p.paths), std::mem::take(&mut p.groups))
    };
    for (_, pgid) in &groups {
        // The same way the ncu timeout kills a collection: the whole group.
        let _ = Command::new("kill")
            // `--`: procps-ng 4 reads a bare `-PGID` as an option and kills nothing.
            .args(["-KILL", "--"])
            .arg(format!("-{pgid}"))
            .status();
    }
    let mut removed = 0;
    for (_, path) in &paths {
        let gone = if path.is_dir() {
            std::fs::remove_dir_all(path)
        } else {
            std::fs::remove_file(path)
        };
        removed += usize::from(gone.is_ok());
    }
    crate::out::eprint_line(&format!(
        "error: interrupted; no output was left half-written ({removed} unfinished file(s) \
         removed{})",
        if groups.is_empty() {
            String::new()
        } else {
            format!(", {} profiler process group(s) killed", groups.len())
        }
    ));
    std::process::exit(i32::from(Code::Interrupted as u8));
}

/// Unregisters what it guards when dropped.
#[must_use = "the registration ends when the guard is dropped"]
pub struct Guard {
    id: u64,
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut p = pending();
        p.paths.retain(|(id, _)| *id != self.id);
        p.groups.retain(|(id, _)| *id != self.id);
    }
}

fn add(p: &mut Pending, path: Option<&Path>, group: Option<u32>) -> Guard {
    let id = p.next;
    p.next += 1;
    if let Some(path) = path {
        p.paths.push((id, path.to_path_buf()));
    }
    if let Some(group) = group {
        p.groups.push((id, group));
    }
    Guard { id }
}

/// Removes `path` (a file, or a folder with its contents) if capture is interrupted while
/// the guard lives.
pub fn remove_on_interrupt(path: &Path) -> Guard {
    add(&mut pending(), Some(path), None)
}

/// What an interrupt undoes for something [`made`].
pub enum Undo {
    /// Remove this file or folder.
    Remove(PathBuf),
    /// Kill this process group.
    Kill(u32),
}

/// Makes something with `make` while the handler is held off, and registers what `undo`
/// says to undo for it: an interrupt comes either before (then `make` is not run and the
/// result is an error) or after the registration, never between the making and the
/// registering, where a temporary file would be left behind or a profiler left running.
/// `make` must not register anything itself (the lock is held).
///
/// # Errors
///
/// `make`'s error, or "interrupted" when the handler has already run.
pub fn made<T>(
    make: impl FnOnce() -> anyhow::Result<T>,
    undo: impl FnOnce(&T) -> Undo,
) -> anyhow::Result<(T, Guard)> {
    made_in(&PENDING, make, undo)
}

fn made_in<T>(
    pending: &Mutex<Pending>,
    make: impl FnOnce() -> anyhow::Result<T>,
    undo: impl FnOnce(&T) -> Undo,
) -> anyhow::Result<(T, Guard)> {
    let mut p = lock(pending);
    if p.interrupted {
        return Err(anyhow::anyhow!("interrupted"));
    }
    let thing = make()?;
    let guard = match undo(&thing) {
        Undo::Remove(path) => add(&mut p, Some(&path), None),
        Undo::Kill(group) => add(&mut p, None, Some(group)),
    };
    Ok((thing, guard))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nothing_is_made_once_the_handler_has_run_and_what_is_made_is_registered_with_it() {
        let p = Mutex::new(Pending::default());
        let (n, guard) = made_in(&p, || Ok(7), |_| Undo::Remove("/tmp/.x.tmp1".into()))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(n, 7);
        assert_eq!(lock(&p).paths, [(guard.id, PathBuf::from("/tmp/.x.tmp1"))]);
        // The guard of a local list unregisters from the global one: forget it here.
        std::mem::forget(guard);
        lock(&p).interrupted = true;
        let mut ran = false;
        let e = made_in(
            &p,
            || {
                ran = true;
                Ok(())
            },
            |_| Undo::Kill(1),
        );
        assert!(e.is_err() && !ran, "made after the handler took the lists");
        assert!(lock(&p).groups.is_empty());
    }

    #[test]
    fn guards_unregister_what_they_registered() {
        // Other tests may register concurrently: look only at these two registrations.
        let a = remove_on_interrupt(Path::new("/nonexistent/.a.json.tmp123456"));
        let (_, b) = made(|| Ok(()), |()| Undo::Kill(4_000_000)).unwrap_or_else(|e| panic!("{e}"));
        let (a_id, b_id) = (a.id, b.id);
        {
            let p = pending();
            assert!(p.paths.iter().any(|(id, _)| *id == a_id));
            assert!(p
                .groups
                .iter()
                .any(|(id, g)| *id == b_id && *g == 4_000_000));
        }
        drop(a);
        drop(b);
        let p = pending();
        assert!(!p.paths.iter().any(|(id, _)| *id == a_id));
        assert!(!p.groups.iter().any(|(id, _)| *id == b_id));
    }
}
