//! Provenance: how an artifact was made, built once for every command that writes one
//! (`import`, `merge`, `diff`'s imports, `run`, `profile`), from `std::env::args_os`, so a
//! command line that is not UTF-8 (a file name in another encoding) is recorded, lossily
//! quoted, rather than panicking as `std::env::args` does. Input files are named as every
//! command names them ([`display_name`]).

use std::ffi::OsString;
use std::path::PathBuf;

use shared::model::artifact::{Origin, Provenance};

use crate::files::name::display_name;

/// The provenance every artifact capture writes starts from: its origin, the tool and its
/// version, the time, this process's command line and the names of its input files.
pub fn base(origin: Origin, inputs: &[PathBuf]) -> Provenance {
    base_with(origin, inputs, std::env::args_os())
}

/// [`base`] for the command line `args` (the program first).
fn base_with(
    origin: Origin,
    inputs: &[PathBuf],
    args: impl IntoIterator<Item = OsString>,
) -> Provenance {
    Provenance {
        origin: Some(origin),
        tool: "capture".into(),
        tool_version: env!("CARGO_PKG_VERSION").into(),
        created_utc: Some(crate::clock::now_rfc3339()),
        command_line: Some(command_line_of(args)),
        inputs: inputs.iter().map(|p| display_name(p)).collect(),
        ..Provenance::default()
    }
}

/// `args` (the program first) as one line quoted for a shell.
fn command_line_of(args: impl IntoIterator<Item = OsString>) -> String {
    let args: Vec<OsString> = args.into_iter().collect();
    match args.split_first() {
        Some((first, rest)) => crate::shell::command_line(first, rest),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_file_name_that_is_not_utf8_is_recorded_not_a_panic() {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"run-\xff.csv");
        let args = [
            OsString::from("capture"),
            OsString::from("import"),
            name.to_owned(),
            OsString::from("-o"),
            OsString::from("a b.json"),
        ];
        let p = base_with(Origin::Import, &[PathBuf::from("/data").join(name)], args);
        assert_eq!(
            p.command_line.as_deref(),
            Some("capture import 'run-\u{fffd}.csv' -o 'a b.json'")
        );
        assert_eq!(p.inputs, ["run-\u{fffd}.csv"]);
        assert_eq!(p.origin, Some(Origin::Import));
        assert_eq!(p.tool, "capture");
    }

    #[test]
    fn an_empty_command_line_is_empty() {
        assert_eq!(command_line_of(Vec::new()), "");
    }
}
