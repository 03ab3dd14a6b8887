//! Command lines quoted for a POSIX shell: the ncu commands capture prints and records, and
//! capture's own command line in an artifact's provenance.

use std::ffi::{OsStr, OsString};

/// One argument quoted for a POSIX shell when it needs it.
pub fn shell_quote(arg: &OsStr) -> String {
    let s = arg.to_string_lossy();
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:,+@%".contains(c));
    if plain {
        s.into_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// A whole command line, quoted for a shell.
pub fn command_line(program: &OsStr, args: &[OsString]) -> String {
    std::iter::once(shell_quote(program))
        .chain(args.iter().map(|a| shell_quote(a)))
        .collect::<Vec<_>>()
        .join(" ")
}
