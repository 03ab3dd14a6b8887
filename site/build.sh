#!/usr/bin/env bash
# Builds the viewer's WebAssembly and assembles the static site in site/dist/.
#
#   bash site/build.sh                      # release build (profile wasm-release)
#   SITE_PROFILE=dev bash site/build.sh     # quick unoptimized build while developing
#
# Fails when the release wasm is over the guard (800,000 bytes gzip -9; ARCHITECTURE.md,
# viewer), so tests/run.sh, which runs this, fails too.
#
# Installs wasm-bindgen-cli from crates.io at exactly the wasm-bindgen version in Cargo.lock
# when the one on PATH differs (the two must match). The release wasm goes through wasm-opt
# (site/wasm-opt.sh, which installs it from npm when missing); the sizes before and after,
# and where the bytes go (site/wasm-size.sh), are in docs/performance.md. No trunk.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
dist="$here/dist"
cd "$root"

# The wasm-bindgen version pinned in Cargo.lock.
wbv="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)"
if [ -z "$wbv" ]; then
  echo "site/build.sh: no wasm-bindgen in Cargo.lock" >&2
  exit 1
fi
have="$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)"
if [ "$have" != "$wbv" ]; then
  echo "site/build.sh: installing wasm-bindgen-cli $wbv (found '${have:-none}')" >&2
  # Not --locked: its lockfile pins a crate version this registry may lack.
  cargo install wasm-bindgen-cli --version "$wbv"
fi

rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown \
  || rustup target add wasm32-unknown-unknown

profile="${SITE_PROFILE:-wasm-release}"
target_dir="${CARGO_TARGET_DIR:-$root/target}"

cargo build --profile "$profile" --target wasm32-unknown-unknown -p viewer --bin viewer
profile_dir="$profile"
[ "$profile" = "dev" ] && profile_dir="debug"
wasm="$target_dir/wasm32-unknown-unknown/$profile_dir/viewer.wasm"

rm -rf "$dist"
mkdir -p "$dist/pkg" "$dist/samples"
wasm-bindgen --target web --no-typescript --remove-name-section --remove-producers-section \
  --out-dir "$dist/pkg" "$wasm"
cp "$here/index.html" "$here/start.js" "$here/style.css" "$here/questions.json" "$dist/"

# The release wasm optimised for size (site/wasm-opt.sh says how).
pkg_wasm="$dist/pkg/viewer_bg.wasm"
if [ "$profile" = "wasm-release" ]; then
  raw_in=$(stat -c %s "$pkg_wasm")
  gz_in=$(gzip -9 -c "$pkg_wasm" | wc -c)
  bash "$here/wasm-opt.sh" "$pkg_wasm" "$pkg_wasm.opt"
  mv "$pkg_wasm.opt" "$pkg_wasm"
  echo "site/build.sh: before wasm-opt, viewer_bg.wasm $raw_in bytes, $gz_in bytes gzip -9" >&2
fi

# Bundled samples (real captures only, an artifact gzipped as captured too: the page
# un-gzips it) and the menu's list of them.
shopt -s nullglob
samples=()
# Three are kept gzipped in the tree only (issue 52: the tree under 40 MB) and published
# un-gzipped under the names their links have always had.
plain=(h200.json h200-gpt2-bf16.json h200-two-process.ncu-rep)
for f in "$here"/samples/*.json "$here"/samples/*.json.gz "$here"/samples/*.ncu-rep "$here"/samples/*.ncu-rep.gz; do
  name="$(basename "$f")"
  [ "$name" = "index.json" ] && continue
  if [[ " ${plain[*]} " == *" ${name%.gz} "* && "$name" == *.gz ]]; then
    name="${name%.gz}"
    gzip -dc "$f" > "$dist/samples/$name"
  else
    cp "$f" "$dist/samples/"
  fi
  samples+=("$name")
done
# File names are plain (letters, digits, dots, dashes): quoting them as JSON strings is safe.
{
  printf '['
  sep=""
  for name in "${samples[@]}"; do
    printf '%s"%s"' "$sep" "$name"
    sep=", "
  done
  printf ']\n'
} > "$dist/samples/index.json"

# Every sample the front page links (viewer/src/components/shell.rs) must be in the site: a
# missing one is a 404 in the page, which a test waiting for a drawn roofline only sees as
# a timeout (the BERT step's .json.gz, 2026-12-03).
for name in $(grep -o 'src=samples/[^&"]*' "$root/viewer/src/components/shell.rs" | cut -d/ -f2); do
  if [ ! -f "$dist/samples/$name" ]; then
    echo "site/build.sh: the front page links samples/$name, which is not in $dist/samples (is its ending copied above?)" >&2
    exit 1
  fi
done

raw=$(stat -c %s "$pkg_wasm")
gz=$(gzip -9 -c "$pkg_wasm" | wc -c)
echo "site/build.sh: $dist ready; viewer_bg.wasm $raw bytes, $gz bytes gzip -9" >&2

# A guard on the release wasm (a dev build is not held to it): what users feel is the time
# to a drawn roofline, which the browser test measures and prints.
# Over it for one round (817,103 bytes after 2026-12-03's merges), back under it by compiling
# one sort (shared::order) and one chart painter (shared::chart::Surface) instead of one per
# call site and backend: docs/performance.md has the figures.
limit=800000
if [ "$profile" = "wasm-release" ] && [ "$gz" -gt "$limit" ]; then
  echo "site/build.sh: viewer_bg.wasm is $gz bytes gzip -9, over the guard of $limit bytes: see where the bytes go (bash site/wasm-size.sh) before adding more" >&2
  exit 1
fi
