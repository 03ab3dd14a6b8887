#!/usr/bin/env bash
# Device run for issue 10 (H200): `capture run` with the ncu pass, timed (goal: under 120 s),
# then PyTorch's bf16 8192^3 matmul in the same call (CUDA events, 10 warm-ups, median of
# 10), and a summary: every tensor ceiling with its check beside the theoretical dense peak,
# the bf16 ceiling over PyTorch's (goal: at least 97 %), and the suite's tensor kernel's
# counted tensor_bf16 FLOPs against its hand count (must be equal). Builds nothing: run from
# the repository root with target/release/capture carried. Writes six files to $OUT.
set -u
export PATH=/usr/local/cuda/bin:$PATH PYTHONUNBUFFERED=1
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
R=$PWD; C=$R/target/release/capture; OUT=${OUT:-/tmp/tensor-out}; mkdir -p "$OUT"
W=$(mktemp -d); cd "$W"

"$C" devices > "$OUT/devices.txt" 2>&1; echo "rc devices=$?" >> "$OUT/devices.txt"

start_ns=$(date +%s%N)
timeout 420 "$C" run -o "$OUT/run.json" > "$OUT/run.log" 2>&1
rc_run=$?
run_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
echo "rc run=$rc_run wall_ms=$run_ms" >> "$OUT/run.log"

python3 - > "$OUT/torch.json" 2>&1 <<'PY'
import json, statistics, torch
n = 8192
a = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
b = torch.randn(n, n, device="cuda", dtype=torch.bfloat16)
for _ in range(10):
    a @ b
torch.cuda.synchronize()
ms = []
for _ in range(10):
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record()
    c = a @ b
    e.record()
    e.synchronize()
    ms.append(s.elapsed_time(e))
med = statistics.median(ms)
# Beside it, for diagnosis only: the same matmul on uniform [-1, 1) data, like capture's.
u = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
v = torch.rand(n, n, device="cuda", dtype=torch.bfloat16) * 2 - 1
for _ in range(10):
    u @ v
torch.cuda.synchronize()
um = []
for _ in range(10):
    s = torch.cuda.Event(enable_timing=True)
    e = torch.cuda.Event(enable_timing=True)
    s.record()
    c = u @ v
    e.record()
    e.synchronize()
    um.append(s.elapsed_time(e))
print(json.dumps({"torch": torch.__version__, "cuda": torch.version.cuda, "n": n,
                  "median_ms": med, "samples_ms": ms, "tflop_per_s": 2 * n**3 / med / 1e9,
                  "uniform_tflop_per_s": 2 * n**3 / statistics.median(um) / 1e9}))
PY

"$C" table "$OUT/run.json" --format json > "$OUT/table.json" 2>&1

python3 - "$OUT" "$run_ms" "$rc_run" > "$OUT/summary.txt" 2>&1 <<'PY'
import json, sys
out, run_s, rc = sys.argv[1], float(sys.argv[2]) / 1e3, sys.argv[3]
print(f"capture run: rc {rc}, {run_s:.1f} s wall with the ncu pass (goal < 120 s)")
try:
    art = json.load(open(f"{out}/run.json"))
except Exception as e:
    art = {}
    print("no artifact:", e)
ceil = art.get("ceilings") or {}
for t in ceil.get("tensor", []):
    m, th = t.get("measured_gflop_per_s"), t.get("theoretical_gflop_per_s")
    c = t.get("check") or {}
    if t.get("not_measured"):
        print(f"{t['work']:<12} not measured: {t['not_measured']}")
        continue
    pct = f"{100 * m / th:.1f} % of" if m and th else "vs"
    print(f"{t['work']:<12} {m / 1e3:9.1f} T/s {pct} dense peak {(th or 0) / 1e3:.1f}; "
          f"check {'pass' if c.get('passed') else 'FAIL'}: {c.get('detail')}; {t.get('means')}")
try:
    tq = json.load(open(f"{out}/torch.json"))
    print(f"PyTorch {tq['torch']} (CUDA {tq['cuda']}) bf16 8192^3: {tq['tflop_per_s']:.1f} TFLOP/s "
          f"(median {tq['median_ms']:.4f} ms of 10); on uniform [-1, 1) data "
          f"{tq['uniform_tflop_per_s']:.1f}")
    bf = (ceil.get("tensor_gflop_per_s") or {}).get("tensor_bf16")
    if bf:
        r = bf / 1e3 / tq["tflop_per_s"]
        print(f"bf16 ceiling {bf / 1e3:.1f} TFLOP/s = {100 * r:.1f} % of PyTorch's "
              f"({'meets' if r >= 0.97 else 'MISSES'} the 97 % goal)")
except Exception as e:
    print("no PyTorch figure:", e)
try:
    table = json.load(open(f"{out}/table.json"))
    print("table ceilings measured:", json.dumps(table["ceilings"].get("measured")))
    for row in table["kernels"]:
        if row["name"].startswith("matmul, bf16"):
            counted = row["flops_by_precision"].get("tensor_bf16")
            asked = row["ask_flops"]
            print(f"{row['name']}: counted tensor_bf16 {counted} vs hand count {asked}: "
                  f"{'EQUAL' if counted == asked else 'DIFFERENT'}; check {row['check']}; "
                  f"{row['time_ms']} ms, {row['gflops_total']} GFLOP/s, verdict {row['verdict']}")
        if row.get("check") == "fail":
            print("failed check:", row["name"])
except Exception as e:
    print("no table:", e)
for k in art.get("kernels", []):
    if k["function"] == "matmul_bf16_mma":
        print("matmul_bf16_mma check:", (k.get("check") or {}).get("detail"))
for w in art.get("warnings", []):
    print("warning:", w)
PY
cat "$OUT/summary.txt"; tail -40 "$OUT/run.log"; cat "$OUT/devices.txt"
rm -rf "$W"; ls -la "$OUT"
