#!/usr/bin/env bash
# Device run for issue 16 on the one-GPU H200: `capture run --device all --no-profile` (every
# device in turn; here the one), then two processes posing as the two ranks of one job on
# that GPU (RANK=0/1, WORLD_SIZE=2) under `capture profile -o p-{rank}.json`, side by side,
# then `capture table` on both, and the refusal of a shared -o under two ranks (exit 2).
# Builds nothing: run from the repository root with target/release/capture carried. Writes
# six files to $OUT: run-0.json, run.log, p-0.json, p-1.json, ranks.log, summary.txt.
# Budget: under 5 minutes (each step has its own timeout).
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD; C=$R/target/release/capture; OUT=${OUT:-/tmp/devices-out}; mkdir -p "$OUT"
W=$(mktemp -d); cd "$W"
unset RANK LOCAL_RANK WORLD_SIZE SLURM_PROCID SLURM_NTASKS OMPI_COMM_WORLD_RANK OMPI_COMM_WORLD_SIZE
S=$OUT/summary.txt; : > "$S"
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }

t=$(date +%s%N)
timeout 150 "$C" run --device all --no-profile -o "$OUT/run-{device}.json" > "$OUT/run.log" 2>&1
echo "run --device all --no-profile: rc=$? wall_ms=$(ms $t) files: $(cd "$OUT" && ls run-*.json 2>/dev/null | tr '\n' ' ')" >> "$S"

PROG='import torch; x=torch.ones(1<<20,device="cuda"); y=x*2; torch.cuda.synchronize()'
t=$(date +%s%N)
{
  RANK=0 LOCAL_RANK=0 WORLD_SIZE=2 timeout 100 "$C" profile -o "$OUT/p-{rank}.json" -- python3 -c "$PROG" > "$W/r0.log" 2>&1 &
  p0=$!
  RANK=1 LOCAL_RANK=1 WORLD_SIZE=2 timeout 100 "$C" profile -o "$OUT/p-{rank}.json" -- python3 -c "$PROG" > "$W/r1.log" 2>&1 &
  p1=$!
  wait $p0; rc0=$?; wait $p1; rc1=$?
}
echo "two ranks side by side: rc0=$rc0 rc1=$rc1 wall_ms=$(ms $t)" >> "$S"
{
  for r in 0 1; do echo "== rank $r log"; cat "$W/r$r.log"; done
  for r in 0 1; do
    echo "== capture table p-$r.json"; "$C" table "$OUT/p-$r.json"; echo "rc table $r=$?"
    echo "== provenance of p-$r.json"
    python3 -c "import json,sys; p=json.load(open(sys.argv[1]))['provenance']; print({k: p.get(k) for k in ('host','distributed','command_line')})" "$OUT/p-$r.json"
  done
  echo "== refusal: two ranks, one -o"
  RANK=1 WORLD_SIZE=2 timeout 30 "$C" profile -o "$W/shared.json" -- python3 -c "$PROG"
  echo "rc refusal=$? written=$(test -f "$W/shared.json" && echo yes || echo no)"
} > "$OUT/ranks.log" 2>&1
grep -E "^rc (table|refusal)" "$OUT/ranks.log" >> "$S"
python3 - "$OUT" >> "$S" 2>&1 <<'PY'
import json, os, sys
out = sys.argv[1]
for name in sorted(os.listdir(out)):
    if not name.endswith(".json"):
        continue
    a = json.load(open(os.path.join(out, name)))
    d, c, p = a.get("device") or {}, a.get("ceilings") or {}, a["provenance"]
    print(name, "schema", a["schema"], "device", d.get("index"), d.get("pci_bus_id"), d.get("name"),
          "host", p.get("host"), "rank", (p.get("distributed") or {}).get("rank"),
          "copy_gbs", c.get("copy_gbyte_per_s"), "fma_gflops", c.get("fma_gflop_per_s"),
          "held_mhz", c.get("held_sm_clock_mhz"), "kernels", len(a["kernels"]))
PY
cat "$S"
