#!/usr/bin/env bash
# Makes tests/determinism/corpus-pairs.tolerance.json from committed fixtures, on any CPU:
# the work gate's provisional tolerances until the H200 measurement (run.sh) replaces them.
# Each pair is the same code measured twice: a program's `capture profile` artifact against
# its `ncu --set full` export (tests/fixtures/corpus-h200; t5_encoder left out, its export
# was cut at 120 s, and jax_mlp, which has no profile), and the suite's two `capture run`s
# (tests/fixtures/diff run1, run2). Two runs each, so a CV here is a first figure, not the
# issue's 20-run measurement.
#   bash tests/determinism/corpus_pairs.sh [CAPTURE_BINARY]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
capture=${1:-$root/target/debug/capture}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
groups=()
for p in bert_base_fwd gemm_tf32_fp8 vit_b16 train_step resnet18_stem llama_block; do
  zcat "$root/tests/fixtures/corpus-h200/${p}_full_raw.csv.gz" > "$tmp/${p}_raw.csv"
  "$capture" import "$tmp/${p}_raw.csv" -o "$tmp/${p}_full.json" > /dev/null 2>&1
  zcat "$root/tests/fixtures/corpus-h200/${p}_profile.json.gz" > "$tmp/${p}_profile.json"
  groups+=("$p=$tmp/${p}_profile.json,$tmp/${p}_full.json")
done
for r in run1 run2; do zcat "$root/tests/fixtures/diff/$r.json.gz" > "$tmp/$r.json"; done
groups+=("suite=$tmp/run1.json,$tmp/run2.json")
python3 "$root/tests/determinism/cv.py" --capture "$capture" \
  --measured-on "H200, ncu 2025.3.1: 6 corpus programs (capture profile against ncu --set full) and the suite (two capture runs), 2 runs each (tests/determinism/corpus_pairs.sh)" \
  --out "$root/tests/determinism/corpus-pairs.tolerance.json" "${groups[@]}"
