//! The one place capture writes to its standard output and standard error, so that no
//! write can panic (`print!` and `eprint!` do, on a closed pipe or a full disk).
//!
//! - Standard output closed by its reader (`capture table A.json | head -1`): the command
//!   stops at once and exits 0, quietly, as ripgrep does: the reader took what it wanted.
//!   [`print()`] returns [`Closed`], which `main` turns into success.
//! - Any other failure to write standard output (`> /dev/full`): an error naming
//!   standard output and the cause, exit code 1.
//! - Standard error is written best effort ([`eprint_line`]): a failure to write a warning
//!   or an error message cannot be reported anywhere, and must not turn a finished command
//!   (an artifact already complete on disk) into a failure or a panic.

use std::fmt;
use std::io::{self, ErrorKind, Write};

/// Standard output was closed by its reader; the command stops and exits 0.
#[derive(Debug)]
pub struct Closed;

impl fmt::Display for Closed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("standard output closed by its reader")
    }
}

impl std::error::Error for Closed {}

/// Whether `err` (anywhere in its chain) is standard output closed by its reader.
pub fn is_closed(err: &anyhow::Error) -> bool {
    err.chain().any(|e| e.downcast_ref::<Closed>().is_some())
}

/// Writes `text` to standard output and flushes it.
pub fn print(text: &str) -> anyhow::Result<()> {
    write_to(&mut io::stdout().lock(), text)
}

/// Writes `text` and a newline to standard output (see [`print()`]).
pub fn println(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    write_to(&mut out, text)?;
    write_to(&mut out, "\n")
}

/// `text` into `out`, flushed: a closed pipe is [`Closed`], another failure an error
/// naming standard output.
fn write_to(out: &mut impl Write, text: &str) -> anyhow::Result<()> {
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) => Err(classify(e)),
    }
}

/// An error of writing standard output as capture reports it.
fn classify(e: io::Error) -> anyhow::Error {
    if e.kind() == ErrorKind::BrokenPipe {
        anyhow::Error::new(Closed)
    } else {
        anyhow::anyhow!("standard output: cannot write: {e}")
    }
}

/// Writes `line` and a newline to standard error, best effort (see the module's doc).
/// Control characters other than the newline (a terminal escape in a kernel or file name
/// quoted by a message) are written escaped, never raw.
pub fn eprint_line(line: &str) {
    let shown: Vec<_> = line
        .split('\n')
        .map(shared::text::escape::controls)
        .collect();
    let line = shown.join("\n");
    let mut err = io::stderr().lock();
    let _ = err
        .write_all(line.as_bytes())
        .and_then(|()| err.write_all(b"\n"))
        .and_then(|()| err.flush());
}

/// `warning: ` and `text` on one line of standard error: every control character of `text`
/// escaped, a newline too (a kernel name with a newline cannot split the warning).
pub fn warn(text: &str) {
    eprint_line(&format!(
        "warning: {}",
        shared::text::escape::controls(text)
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that fails every write with `kind`.
    struct Failing(ErrorKind);

    impl Write for Failing {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_closed_pipe_is_quiet_and_a_full_disk_is_an_error() {
        let closed = write_to(&mut Failing(ErrorKind::BrokenPipe), "x");
        assert!(closed.as_ref().is_err_and(is_closed), "{closed:?}");
        let full = write_to(&mut Failing(ErrorKind::StorageFull), "x");
        let msg = full.as_ref().map_err(|e| format!("{e:#}")).err();
        assert!(
            msg.as_deref()
                .is_some_and(|m| m.starts_with("standard output: cannot write")),
            "{msg:?}"
        );
        assert!(!full.as_ref().is_err_and(is_closed));
    }
}
