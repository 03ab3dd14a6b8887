//! Workspace-level tests live under `tests/tests/`; this library only gives them a crate.
