#!/usr/bin/env bash
# Collects the verdict corpus on a GPU host (issue 34): for each program named, an
# `ncu --set full` export of its measured region (raw and details CSV pages, gzip) and a
# `capture profile` artifact of the same region (default depth, sampled).
#   bash tests/corpus/collect.sh OUTDIR CAPTURE_BINARY prog1 prog2 ...
# Both collections leave the clocks alone (--clock-control none: the lent GPU's rule, and
# what `capture profile` does) and profile only launches inside the process-wide NVTX
# start/end range "measure" (tests/corpus/programs/_measure.py).
set -uo pipefail
export PATH="$PATH:/usr/local/cuda/bin"
out=$1; capture=$2; shift 2
mkdir -p "$out"
cd "$(dirname "$0")/programs"
for p in "$@"; do
  t0=$(date +%s)
  timeout "${PER_PROGRAM_S:-300}" ncu --set full --clock-control none --nvtx --nvtx-include measure -f -o "/tmp/$p" \
      python3 "$p.py" > "$out/${p}_ncu.log" 2>&1
  echo "$p ncu rc=$? $(( $(date +%s) - t0 )) s" | tee -a "$out/times.txt"
  for page in raw details; do
    ncu --import "/tmp/$p.ncu-rep" --csv --page $page --print-units base \
      | gzip -9 > "$out/${p}_full_${page}.csv.gz"
  done
  t1=$(date +%s)
  timeout "${PER_PROGRAM_S:-300}" "$capture" profile --nvtx-include measure -o "$out/${p}_profile.json" -- python3 "$p.py" \
      > "$out/${p}_profile.log" 2>&1
  echo "$p profile rc=$? $(( $(date +%s) - t1 )) s" | tee -a "$out/times.txt"
  gzip -9 -f "$out/${p}_profile.json"
done
