//! Ctrl-C, SIGTERM and SIGHUP: what capture undoes before it exits.
//!
//! Outputs are written to a temporary file beside their target and renamed over it
//! (`files.rs`), and ncu runs in a process group of its own (`gpu/ncu.rs`), so the terminal's
//! Ctrl-C does not reach it. On one of these signals capture removes the temporary files and
//! unfinished ncu reports it is writing, kills the process groups it started (ncu and the
//! profiled program), says so on stderr and exits with code 130. A target is never touched:
//! it is as it was before, or complete (the rename is atomic).
//!
//! SIGKILL cannot be caught: a process killed that way may leave a temporary file named
//! `.NAME.tmpXXXXXX` beside its target. Nothing reads it as output (it is hidden and its
//! name does not end in `.json` or `.csv`), and it can be deleted.
//!
//! Code elsewhere registers what to undo with [`remove_on_interrupt`] and
//! [`kill_on_interrupt`]; the returned guard unregisters it when dropped.

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
}

static PENDING: Mutex<Pending> = Mutex::new(Pending {
    paths: Vec::new(),
    groups: Vec::new(),
    next: 0,
});

fn pending() -> MutexGuard<'static, Pending> {
    // A panic while the lock was held leaves plain data behind: still usable.
    PENDING.lock().unwrap_or_else(PoisonError::into_inner)
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

fn register(path: Option<&Path>, group: Option<u32>) -> Guard {
    let mut p = pending();
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
    register(Some(path), None)
}

/// Kills process group `pgid` if capture is interrupted while the guard lives.
pub fn kill_on_interrupt(pgid: u32) -> Guard {
    register(None, Some(pgid))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guards_unregister_what_they_registered() {
        // Other tests may register concurrently: look only at these two registrations.
        let a = remove_on_interrupt(Path::new("/nonexistent/.a.json.tmp123456"));
        let b = kill_on_interrupt(4_000_000);
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
