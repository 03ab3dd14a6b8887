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

step "oracle: capture's reading of the fixture reports against NVIDIA's ncu_report (PyPI)"
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends python3-venv
fi
cargo build -p capture
bash tests/oracle/ncu_report_check.sh "${CARGO_TARGET_DIR:-target}/debug/capture"

step "shared builds for wasm32-unknown-unknown"
cargo build -p roofline-shared --target wasm32-unknown-unknown

step "cargo doc (warnings denied)"
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps

# == viewer and site (browser end-to-end) ==
# The viewer's UI exists only on wasm32, so it is linted there too. Then the site is built
# (site/build.sh installs wasm-bindgen-cli at the Cargo.lock version, and wasm-opt from npm, if
# missing) and driven in Debian's headless Chromium through chromedriver (installed here when
# missing).

step "viewer: clippy for wasm32 (warnings denied)"
cargo clippy -p viewer --target wasm32-unknown-unknown --all-targets -- -D warnings

step "browser: chromium and chromium-driver"
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends chromium chromium-driver
fi

step "site: node and npm (site/build.sh installs wasm-opt from npm)"
if ! command -v npm >/dev/null 2>&1; then
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update
  $sudo apt-get install -y --no-install-recommends nodejs npm
fi

step "site: bash site/build.sh (release wasm, site/dist)"
bash site/build.sh

step "browser: end-to-end test of site/dist in headless Chromium"
cargo build -p capture
cargo test -p roofline-browser-tests --test browser --test application --test looked --test tables -- --ignored
cargo test -p roofline-browser-tests --test source --test ranges -- --ignored --nocapture

step "all tests passed"
