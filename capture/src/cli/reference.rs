//! The command reference, `docs/commands.md`, generated from the clap definitions of
//! [`super::Cli`] (as ripgrep generates its documentation from its one flag table), so the
//! flags a reader finds in the docs are the flags the parser takes. `capture reference`
//! prints it; a test fails when the checked-in file is not this output, and the docs test
//! (`tests/tests/catalog/docs.rs`) reads the flags every page may name from it.

use clap::builder::StyledStr;
use clap::{Arg, ArgAction, Command, CommandFactory};

use super::Cli;

/// The command that regenerates the checked-in reference.
pub const REGENERATE: &str = "cargo run -q -p capture -- reference > docs/commands.md";

/// The reference in Markdown: one section per visible subcommand, its usage line, then
/// each visible argument with its help, its default and its possible values.
pub fn markdown() -> String {
    let mut cli = Cli::command();
    cli.build();
    let mut out = String::new();
    out.push_str("# The `capture` command reference\n\n");
    out.push_str(&format!(
        "Generated from the clap definitions in `capture/src/cli.rs` by `capture reference`: \
         do not edit it by hand, regenerate it with `{REGENERATE}` (a test fails while it is \
         stale). What each command is for, with examples: the README's \
         [commands](../README.md#commands); the measured costs of sampling: \
         [sampling.md](sampling.md). Every command also takes `-h` (a summary) and \
         `--help` (this text).\n\n"
    ));
    let subcommands: Vec<&Command> = cli
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
        .collect();
    for sub in &subcommands {
        let name = sub.get_name();
        let about = sub.get_about().map(|a| a.to_string()).unwrap_or_default();
        out.push_str(&format!(
            "- [`capture {name}`](#capture-{name}): {}\n",
            sentence(&about)
        ));
    }
    for sub in subcommands {
        section(&mut out, sub);
    }
    out
}

/// One subcommand's section.
fn section(out: &mut String, sub: &Command) {
    let name = sub.get_name();
    out.push_str(&format!("\n## `capture {name}`\n\n"));
    let about = longest(sub.get_long_about(), sub.get_about());
    if !about.is_empty() {
        out.push_str(&format!("{}\n\n", sentence(&about)));
    }
    let usage = sub
        .clone()
        .bin_name(format!("capture {name}"))
        .render_usage()
        .to_string();
    out.push_str(&format!("```text\n{}\n```\n\n", usage.trim_end()));
    let shown = sub
        .get_arguments()
        .filter(|a| !a.is_hide_set() && !is_help(a));
    for arg in shown {
        out.push_str(&item(arg));
    }
}

/// One argument as a list item: its spelling, its help, its default, its values.
fn item(arg: &Arg) -> String {
    let mut line = format!("- `{}`", spelling(arg));
    let help = longest(arg.get_long_help(), arg.get_help());
    if !help.is_empty() {
        line.push_str(&format!(": {}", sentence(&help.replace("\n\n", " "))));
    }
    let defaults: Vec<String> = arg
        .get_default_values()
        .iter()
        .map(|v| v.to_string_lossy().into_owned())
        .collect();
    if !defaults.is_empty() && takes_value(arg) {
        line.push_str(&format!(" Default: `{}`.", defaults.join(",")));
    }
    if arg.is_positional() && arg.is_required_set() {
        line.push_str(" Required.");
    }
    line.push('\n');
    for value in arg.get_possible_values() {
        if value.is_hide_set() {
            continue;
        }
        line.push_str(&format!("  - `{}`", value.get_name()));
        if let Some(help) = value.get_help() {
            line.push_str(&format!(": {}", sentence(&help.to_string())));
        }
        line.push('\n');
    }
    line
}

/// The long text where there is one, else the short one, else nothing: what `--help`
/// prints.
fn longest(long: Option<&StyledStr>, short: Option<&StyledStr>) -> String {
    long.or(short).map(ToString::to_string).unwrap_or_default()
}

/// Whether the argument is clap's own `-h, --help`, named once at the top instead.
fn is_help(arg: &Arg) -> bool {
    matches!(
        arg.get_action(),
        ArgAction::Help | ArgAction::HelpShort | ArgAction::HelpLong
    )
}

/// Whether the argument takes a value (an option or a positional, not a switch).
fn takes_value(arg: &Arg) -> bool {
    !matches!(
        arg.get_action(),
        ArgAction::SetTrue
            | ArgAction::SetFalse
            | ArgAction::Count
            | ArgAction::Help
            | ArgAction::HelpShort
            | ArgAction::HelpLong
            | ArgAction::Version
    )
}

/// How an argument is written: `-o, --output <OUTPUT>`, `--json`, `<ARTIFACT>`,
/// `<PROGRAM>...`.
fn spelling(arg: &Arg) -> String {
    let names: Vec<String> = arg
        .get_value_names()
        .map(|v| v.iter().map(|n| format!("<{n}>")).collect())
        .unwrap_or_else(|| vec![format!("<{}>", arg.get_id().as_str().to_uppercase())]);
    let value = names.join(" ");
    let many = arg
        .get_num_args()
        .is_some_and(|n| n.max_values() > 1 && n.max_values() != n.min_values());
    let value = if many || (arg.is_positional() && matches!(arg.get_action(), ArgAction::Append)) {
        format!("{value}...")
    } else {
        value
    };
    if arg.is_positional() {
        return if arg.is_last_set() {
            format!("-- {value}")
        } else {
            value
        };
    }
    let mut flags = Vec::new();
    if let Some(short) = arg.get_short() {
        flags.push(format!("-{short}"));
    }
    if let Some(long) = arg.get_long() {
        flags.push(format!("--{long}"));
    }
    let flags = flags.join(", ");
    if takes_value(arg) {
        format!("{flags} {value}")
    } else {
        flags
    }
}

/// A help text as a sentence: clap keeps a one-paragraph help without its final full
/// stop, which a list item wants back.
fn sentence(text: &str) -> String {
    let text = text.trim();
    if text.ends_with(['.', '!', '?']) {
        text.to_string()
    } else {
        format!("{text}.")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_reference_is_current() {
        let committed = include_str!("../../../docs/commands.md");
        assert!(
            committed == markdown(),
            "docs/commands.md is stale (the flags in capture/src/cli.rs changed): regenerate it \
             with `{REGENERATE}`"
        );
    }

    #[test]
    fn every_visible_flag_is_in_the_reference_and_no_hidden_one() {
        let text = markdown();
        for (flag, shown) in [
            ("`--all-launches`", true),
            ("`--gate-share <PCT>`", true),
            ("`-o, --output <OUTPUT>`", true),
            ("`-- <PROGRAM>...`", true),
            ("--profile-mode", false),
            ("## `capture reference`", false),
        ] {
            assert_eq!(text.contains(flag), shown, "{flag}");
        }
    }
}
