#!/usr/bin/env bash
# The project's whole test suite: the README's test command runs this file, and so does CI
# (.ci/run). It installs what a fresh machine lacks, then checks formatting, lints, docs,
# the native tests, and the wasm32 build of the shared crate.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "toolchain: wasm32-unknown-unknown target"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed | grep -q '^clippy' || rustup component add clippy

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (native, warnings denied)"
cargo clippy --workspace --all-targets -- -D warnings

step "cargo test --workspace (native)"
cargo test --workspace

step "shared builds for wasm32-unknown-unknown"
cargo build -p roofline-shared --target wasm32-unknown-unknown

step "cargo doc (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

# == viewer and site (browser end-to-end) ==
# (added by the viewer work)

step "all tests passed"
