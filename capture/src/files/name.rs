//! The one name of a file in capture's outputs, message headers and artifacts' provenance
//! ([`display_name`]); every command and `capture mcp` tool names its inputs through it.

use std::path::Path;

/// A file's name: its final component (artifacts carry no local paths), control characters
/// escaped; the whole path where it has no final component.
pub fn display_name(path: &Path) -> String {
    let name = path.file_name().map_or_else(
        || path.as_os_str().to_string_lossy(),
        |n| n.to_string_lossy(),
    );
    shared::text::escape::controls(&name).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_the_final_component_with_controls_escaped() {
        assert_eq!(display_name(Path::new("/data/run 1.json")), "run 1.json");
        assert_eq!(display_name(Path::new("a\nb.csv")), "a\\nb.csv");
        assert_eq!(display_name(Path::new("/")), "/");
    }
}
