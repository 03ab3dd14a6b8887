#!/usr/bin/env bash
# Where the release wasm's bytes go, before and after wasm-opt: the bytes of each crate's
# functions (from twiggy's list of every item) and of the data, tables and bindings, in
# the wasm as shipped (names, which the site strips, left out of the sums).
#
#   bash site/build.sh && bash site/wasm-size.sh      # docs/performance.md quotes it
#
# A function's bytes go to the crate its name starts with; for `<Type as Trait>::f`, the
# type's crate, or the trait's when the type is generic (`T`). A generic function of one
# crate compiled for another's types counts for the first (`core::ptr::drop_in_place<..>`:
# core). After wasm-opt a function inlined into another counts for the other, so bytes
# move between crates (from shared's small functions into the viewer's callers, mostly).
# Installs twiggy (cargo install) when missing.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
cd "$root"
target_dir="${CARGO_TARGET_DIR:-$root/target}"
wasm="$target_dir/wasm32-unknown-unknown/wasm-release/viewer.wasm"
if [ ! -f "$wasm" ]; then
  echo "site/wasm-size.sh: no $wasm: run bash site/build.sh first" >&2
  exit 1
fi
if ! command -v twiggy >/dev/null 2>&1; then
  echo "site/wasm-size.sh: installing twiggy" >&2
  cargo install twiggy --version 0.8.0 --locked
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
# As site/build.sh makes it, names kept (twiggy needs them; they are left out of the sums).
wasm-bindgen --target web --no-typescript --remove-producers-section \
  --out-dir "$tmp/before" "$wasm"
bash "$here/wasm-opt.sh" "$tmp/before/viewer_bg.wasm" "$tmp/after.wasm" -g

# Bytes by crate (or kind of item), from `twiggy top --format csv`, whose last four fields
# are the shallow bytes and percent and the retained bytes and percent (a name may hold
# commas): one line per kind, "bytes<TAB>kind", and "total" for the sum.
breakdown() {
  twiggy top -n 1000000 --format csv "$1" | awk -F, '
    NR == 1 { next }
    {
      bytes = $(NF - 3)
      name = $1
      for (i = 2; i <= NF - 4; i++) name = name "," $i
      gsub(/^"|"$/, "", name)
      if (name ~ /names"* subsection/) next
      if (name ~ /^data segment/) kind = "data segments"
      else if (name ~ /^(elem|table)\[/) kind = "tables"
      else if (name ~ /^(export|import|type)[ \[]/) kind = "exports, imports, types"
      else if (name ~ /^custom section/) kind = "custom sections"
      else if (name ~ /::/) {
        s = name
        sub(/^[<&(\[ ]+/, "", s)
        sub(/^(mut |dyn |impl )/, "", s)
        if (s !~ /^[a-z_][a-z0-9_]*(\[[0-9a-f]+\])?::/) {
          # A generic type: the trait names the crate.
          s = name
          sub(/.* as /, "", s)
          sub(/^[<&(\[ ]+/, "", s)
        }
        # A method of a primitive type (`<str>::to_lowercase`) is in core.
        if (s !~ /^[a-z_][a-z0-9_]*(\[[0-9a-f]+\])?::/) s = "core"
        sub(/::.*/, "", s)
        # The crates of the standard library carry a hash (`core[c5930c85a12de822]`).
        sub(/\[[0-9a-f]+\]$/, "", s)
        kind = "crate `" s "`"
      } else kind = "other functions (runtime, libm, bindings)"
      sum[kind] += bytes
      total += bytes
    }
    END {
      for (k in sum) printf "%d\t%s\n", sum[k], k
      printf "%d\ttotal\n", total
    }'
}

breakdown "$tmp/before/viewer_bg.wasm" > "$tmp/before.tsv"
breakdown "$tmp/after.wasm" > "$tmp/after.tsv"

# A markdown table: each kind's bytes before and after wasm-opt, largest first.
echo "| bytes of | before wasm-opt | after | change |"
echo "| --- | ---: | ---: | ---: |"
awk -F'\t' '
  FNR == NR { before[$2] = $1; next }
  { after[$2] = $1 }
  END {
    for (k in before) if (!(k in after)) after[k] = 0
    for (k in after) printf "%d\t| %s | %d | %d | %+d |\n", (k == "total") ? 1e12 : before[k], k, before[k], after[k], after[k] - before[k]
  }' "$tmp/before.tsv" "$tmp/after.tsv" | sort -t$'\t' -k1,1nr | cut -f2-
for f in "$tmp/before/viewer_bg.wasm" "$tmp/after.wasm"; do
  echo "site/wasm-size.sh: $(basename "$f"): $(stat -c %s "$f") bytes with names" >&2
done
