#!/usr/bin/env bash
# The sampling benchmark of issue 26 on a GPU host (written for the H200; not run yet): a
# Hugging Face BERT (4 layers, bf16 autocast) training step in the NVTX range step/, run
#  1. plainly,
#  2. under `capture profile` sampled (the default: timing pass, plan, profiling pass),
#  3. sampled at --depth roofline (its pass count is read from ncu's log),
#  4. under `capture profile --all-launches` (every launch, as before sampling),
# then prints each wall time, the overhead ratio (sampled - plain) / (all - plain) (goal: at
# most 0.25), the sampled totals (DRAM bytes, L2 bytes, FLOPs per precision, tensor FLOPs)
# against the full profile's (goal: within 3 %), each kernel's time share and its DRAM and
# FLOPs against the full profile's (goal: within 10 % above 1 % of the time), and whether the
# time ranking is the same.
#
# Usage, from the repository root with capture built (cargo build --release -p capture):
#   bash tests/device/sampling.sh [OUT_DIR]
# Needs ncu on PATH (or /usr/local/cuda/bin), python3 with torch and transformers.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
R=$PWD
C=${CAPTURE:-$R/target/release/capture}
P=$R/tests/fixtures/ncu-h200-bert/bert_train_bf16.py
OUT=${1:-${OUT:-/tmp/sampling}}
W=$OUT/work
mkdir -p "$W"
: > "$OUT/walls.txt"
wall() {
  local name=$1; shift
  local t0 t1 rc
  t0=$(date +%s.%N); "$@"; rc=$?; t1=$(date +%s.%N)
  echo "$name rc=$rc wall_s=$(awk "BEGIN{print $t1 - $t0}")" | tee -a "$OUT/walls.txt"
}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> "$OUT/walls.txt" 2>&1
ncu --version >> "$OUT/walls.txt" 2>&1

wall plain python3 "$P" > "$W/plain.log" 2>&1
wall sampled timeout 600 "$C" profile --nvtx-include step/ --keep-exports -o "$W/sampled.json" -- python3 "$P" > "$W/sampled.log" 2>&1
wall roofline timeout 600 "$C" profile --depth roofline --nvtx-include step/ --keep-exports -o "$W/roofline.json" -- python3 "$P" > "$W/roofline.log" 2>&1
wall all timeout 600 "$C" profile --all-launches --nvtx-include step/ --keep-exports -o "$W/all.json" -- python3 "$P" > "$W/all.log" 2>&1
rm -f "$W"/*.ncu-rep

for a in sampled roofline all; do
  "$C" table --format json "$W/$a.json" > "$W/$a.table.json" 2> "$W/$a.table.err"
  echo "$a: passes per launch as ncu printed them: $(grep -ho -- '- [0-9]* passes\?$' "$W/$a"-ncu-cold.log 2>/dev/null | sort | uniq -c | tr '\n' ' ')" | tee -a "$OUT/walls.txt"
done
echo "--- the plan (sampled run) ---"
sed -n '/^timing pass:/,/^$/p' "$W/sampled.log"

python3 "$R/tests/device/sampling_report.py" "$OUT/walls.txt" "$W"
ls -la "$OUT" "$W" >> "$OUT/walls.txt"
