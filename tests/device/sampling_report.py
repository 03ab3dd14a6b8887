#!/usr/bin/env python3
"""The comparison of issue 26, from the wall times and `capture table --format json` tables of
a plain run, sampled profiles and a profile of every launch of one training step.

Usage: sampling_report.py WALLS DIR [SAMPLED_NAME ...]
  WALLS: lines `NAME rc=N wall_s=S` (tests/device/sampling.sh and round5.sh write them);
  `plain` is the plain run, `all` the --all-launches profile; DIR holds NAME.table.json for
  `all` and each sampled name (default: sampled roofline).
Prints each wall, the overhead ratio (sampled - plain) / (all - plain) (goal <= 0.25), the
sampled totals against the full profile's (goal: within 3 %), each kernel's share with its
DRAM bytes and FLOPs against the full profile's (goal: within 10 % above 1 % of the time),
and whether the time ranking is the same.
"""
import json, sys
walls = {}
for line in open(sys.argv[1]):
    parts = dict(p.split("=", 1) for p in line.split()[1:] if "=" in p)
    if "wall_s" in parts:
        walls[line.split()[0]] = float(parts["wall_s"])
w = sys.argv[2]
def rows(name):
    try:
        return json.load(open(f"{w}/{name}.table.json"))
    except Exception as e:
        print(f"{name}: no table ({e})")
        return None
full = rows("all")
plain = walls.get("plain")
for name in (sys.argv[3:] or ["sampled", "roofline"]):
    t = rows(name)
    if t is None or full is None or plain is None or "all" not in walls:
        continue
    over = walls[name] - plain
    over_all = walls["all"] - plain
    print(f"\n== {name}: wall {walls[name]:.1f} s, plain {plain:.1f} s, --all-launches {walls['all']:.1f} s")
    print(f"overhead {over:.1f} s against {over_all:.1f} s: ratio {over / over_all:.3f} (goal <= 0.25)")
    print(f"sampled: {t.get('sampled')}")
    def totals(table):
        tot = {"dram_bytes": 0.0, "l2_bytes": 0.0, "tensor_flops": 0.0}
        for r in table["kernels"]:
            tot["dram_bytes"] += r.get("dram_bytes") or 0.0
            tot["l2_bytes"] += r.get("l2_bytes") or 0.0
            for k, v in (r.get("flops_by_precision") or {}).items():
                tot["flops " + k] = tot.get("flops " + k, 0.0) + v
                if k.startswith("tensor_") and not k.startswith("tensor_int"):
                    tot["tensor_flops"] += v
        return tot
    ts, tf = totals(t), totals(full)
    worst = 0.0
    for k in sorted(set(ts) | set(tf)):
        s, f = ts.get(k, 0.0), tf.get(k, 0.0)
        rel = abs(s - f) / f if f else (0.0 if s == 0 else float("inf"))
        worst = max(worst, rel)
        print(f"  {k:>24}: sampled {s:.4e}  full {f:.4e}  {100 * rel:6.2f} %")
    print(f"worst total: {100 * worst:.2f} % (goal <= 3 %)")
    fr = {r["name"]: r for r in full["kernels"]}
    total_ms = sum(r.get("time_ms") or 0.0 for r in t["kernels"])
    worst_k = 0.0
    print("  share  DRAM vs full  FLOPs vs full  kernel")
    for r in sorted(t["kernels"], key=lambda r: -(r.get("time_ms") or 0.0)):
        f = fr.get(r["name"], {})
        share = (r.get("time_ms") or 0.0) / total_ms if total_ms else 0.0
        def d(key):
            a, b = r.get(key) or 0.0, f.get(key) or 0.0
            return abs(a - b) / b if b else (0.0 if a == 0 else float("inf"))
        dd, df = d("dram_bytes"), d("flops_total")
        if share > 0.01:
            worst_k = max(worst_k, dd, df)
        print(f"  {100 * share:5.1f} %  {100 * dd:8.2f} %  {100 * df:9.2f} %  {r['short_name']}")
    print(f"worst kernel above 1 % of the time: {100 * worst_k:.2f} % (goal <= 10 %)")
    rank = lambda table: [r["name"] for r in sorted(table["kernels"], key=lambda r: (-(r.get("time_ms") or 0.0), r["name"]))]
    print(f"time ranking identical: {rank(t) == rank(full)}")
