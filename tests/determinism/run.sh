#!/usr/bin/env bash
# Measured determinism of the work vector (issue 37), for a GPU host (the lent H200):
# RUNS (default 20) runs of the suite and of three third-party programs at --depth work,
# each run's artifact kept, then the per-part CV table and the tolerance file
# `capture diff --work-tolerance` reads (tests/determinism/cv.py). Beside it, once each,
# the BERT training step (sampled) at --depth work and at --depth roofline, for the pass
# count and the wall time the issue's closing note asks for.
#
#   OUT=/path/to/out RUNS=20 bash tests/determinism/run.sh target/release/capture
#
# START=K begins at run K (runs split over several device calls); PASSES=0 skips the BERT
# step's two depths; CV=0 skips the table (made later from every call's runs).
#
# Programs: the suite (`capture run`), a cuBLAS GEMM set in six precisions
# (tests/fixtures/ncu-h200-gemms/gemms.py, bf16 among them), a torch.compile'd MLP with
# Triton kernels (tests/corpus/programs/compiled_mlp.py) and a Hugging Face-shaped BERT
# forward (tests/corpus/programs/bert_base_fwd.py). Each program is profiled whole
# (--all-launches: a sampled profile would measure the sampling, not the hardware) inside
# its NVTX range; clocks are left alone (--clock-control none, as capture always does).
# Writes under $OUT: suite/runN.json, PROGRAM/runN.json, each with its .log; walls.txt
# (one line per run: what, run, seconds); passes/ (the two depths' logs and artifacts);
# cv.txt (cv.py's table) and tolerance.json.
set -uo pipefail
capture=$(realpath "$1")
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "${OUT:?set OUT to the folder that receives the runs}"
out=$(cd "$OUT" && pwd) # absolute: the programs run in their own folders
runs=${RUNS:-20}
export PATH="$PATH:/usr/local/cuda/bin"

# name, folder, NVTX filter, command
programs=(
  "gemms|$root/tests/fixtures/ncu-h200-gemms|--ncu-arg --profile-from-start --ncu-arg off|python3 gemms.py"
  "compiled_mlp|$root/tests/corpus/programs|--nvtx-include measure|python3 compiled_mlp.py"
  "bert_base_fwd|$root/tests/corpus/programs|--nvtx-include measure|python3 bert_base_fwd.py"
)

wall() { # what run command...: runs it, appends its wall time to walls.txt
  local what=$1 run=$2; shift 2
  local t0 t1
  t0=$(date +%s.%N)
  "$@"
  local rc=$?
  t1=$(date +%s.%N)
  echo "$what $run $(python3 -c "print(round($t1 - $t0, 3))") rc=$rc" >> "$out/walls.txt"
}

for i in $(seq "${START:-1}" "$runs"); do
  mkdir -p "$out/suite"
  wall suite "$i" "$capture" run --depth work -o "$out/suite/run$i.json" \
    > "$out/suite/run$i.log" 2>&1
  for p in "${programs[@]}"; do
    IFS='|' read -r name dir filter cmd <<< "$p"
    mkdir -p "$out/$name"
    # shellcheck disable=SC2086 # the filter and the command are words on purpose
    (cd "$dir" && wall "$name" "$i" "$capture" profile --all-launches --depth work $filter \
      -o "$out/$name/run$i.json" -- $cmd) > "$out/$name/run$i.log" 2>&1
  done
done

# Pass count and wall time, --depth work against --depth roofline, on a BERT training step
# (sampled; capture's log names each collection's passes per launch: "(N passes)").
[ "${PASSES:-1}" = 0 ] || {
mkdir -p "$out/passes"
for depth in work roofline; do
  (cd "$root/tests/fixtures/ncu-h200-bert" && wall "bert_train_$depth" 1 "$capture" profile \
    --depth "$depth" --nvtx-include step \
    -o "$out/passes/bert_train_$depth.json" -- python3 bert_train_bf16.py) \
    > "$out/passes/bert_train_$depth.log" 2>&1
done
grep -rhoE '[0-9]+ passes?' "$out/passes" | sort | uniq -c > "$out/passes/pass_counts.txt"
}
[ "${CV:-1}" = 0 ] && exit 0

groups=("suite=$(ls "$out"/suite/run*.json | paste -sd, -)")
for p in "${programs[@]}"; do
  name=${p%%|*}
  groups+=("$name=$(ls "$out/$name"/run*.json | paste -sd, -)")
done
python3 "$root/tests/determinism/cv.py" --capture "$capture" \
  --measured-on "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1), $runs runs of the suite, gemms, compiled_mlp and bert_base_fwd at --depth work (tests/determinism/run.sh)" \
  --out "$out/tolerance.json" "${groups[@]}" | tee "$out/cv.txt"
