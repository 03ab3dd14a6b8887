#!/usr/bin/env bash
# Optimises a wasm file of the viewer for size with binaryen's wasm-opt, as the release site
# is built (site/build.sh) and measured (site/wasm-size.sh):
#
#   bash site/wasm-opt.sh IN.wasm OUT.wasm [more wasm-opt arguments, e.g. -g to keep names]
#
# wasm-opt comes from npm's `binaryen` package (wasm-opt compiled to wasm, run by node) at the
# version pinned below, installed into the target directory's tools/ folder when missing or
# not that version (npm is needed; Debian's binaryen broke the output).
set -euo pipefail

if [ "$#" -lt 2 ]; then
  echo "usage: bash site/wasm-opt.sh IN.wasm OUT.wasm [wasm-opt arguments]" >&2
  exit 2
fi
in="$1"
out="$2"
shift 2

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
version=132
dir="$target_dir/tools/binaryen-$version"
wasm_opt="$dir/node_modules/.bin/wasm-opt"
if ! "$wasm_opt" --version 2>/dev/null | grep -q "version $version\b"; then
  if ! command -v npm >/dev/null 2>&1; then
    echo "site/wasm-opt.sh: npm is needed to install wasm-opt (npm package binaryen@$version.0.0): install Node.js and npm (Debian: apt-get install nodejs npm)" >&2
    exit 1
  fi
  echo "site/wasm-opt.sh: installing wasm-opt (npm package binaryen@$version.0.0) into $dir" >&2
  rm -rf "$dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" --no-audit --no-fund "binaryen@$version.0.0" >&2
  if ! "$wasm_opt" --version | grep -q "version $version\b"; then
    echo "site/wasm-opt.sh: $wasm_opt is not binaryen version $version after its install" >&2
    exit 1
  fi
fi

# The features are the ones rustc enables by default for wasm32-unknown-unknown (wasm-opt
# refuses a module that uses one not enabled, so a new one fails here, loudly).
# --zero-filled-memory: the module defines its memory, which starts zeroed.
# --low-memory-unused: no address the module computes wraps round to the first KiB (Rust
# never computes one past 4 GiB), so wasm-opt may fold constant offsets into loads and stores.
# --generate-global-effects: works out each function's side effects once for the whole
# module, so -Oz may drop a call whose result is unused and that has none (an analysis; it
# changes no behaviour): 193 bytes gzip less (issue 53).
"$wasm_opt" --generate-global-effects -Oz --converge --zero-filled-memory --low-memory-unused \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$@" "$in" -o "$out"
