#!/usr/bin/env python3
"""Table benchmark (issue 48): `capture table` of an artifact of 200,000 kernels of one launch
each, the shape where per-kernel costs dominate, against its goal: under 4 s and at most
10 x the artifact in memory.

The artifact is generated (nothing is committed): the `kernels` raw page of
memory_bench.py (200,000 launches of 200,000 distinct kernels, one DRAM counter each),
imported by the same `capture`. Each form (`--format json`, the text table) runs RUNS times
(default 3); the median wall time, user CPU time (which a busy machine disturbs less than
wall time) and peak resident memory are printed, with the memory as a ratio to the
artifact's size. With --vs OTHER_CAPTURE, the other build runs the same forms in turn
(A B A B ...) and the ratios of the medians are printed. With CAPTURE_STAGE_TIMES=1 each run
also prints its stages (read, rows, annotate, render, print) on stderr. Needs
/usr/bin/time. Usage:
    cargo build --release -p capture && python3 tests/bench/table_bench.py [--vs CAPTURE]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import memory_bench  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                       "release/capture")
RUNS = int(os.environ.get("RUNS", "3"))
GOAL_S = 4.0
GOAL_X = 10.0
FORMS = {"json": ["--format", "json"], "text": []}


def run(capture, artifact, form):
    """(wall s, user s, peak RSS MB) of one `capture table` run, its output discarded."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%e %U %M", capture, "table", artifact,
                           *FORMS[form]],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        sys.exit(f"{capture} table {artifact} failed ({proc.returncode}): {proc.stderr[-500:]}")
    lines = proc.stderr.strip().splitlines()
    for line in lines[:-1]:
        print(f"    {line}", file=sys.stderr)
    wall, user, kb = lines[-1].split()
    return float(wall), float(user), int(kb) * 1024 / 1e6


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vs", help="another capture binary, run in turn with this one")
    ap.add_argument("--kernels", type=int, default=200_000)
    args = ap.parse_args()
    builds = [("this", CAPTURE)] + ([("vs", args.vs)] if args.vs else [])
    with tempfile.TemporaryDirectory() as tmp:
        csv = os.path.join(tmp, "kernels.csv")
        memory_bench.kernels_csv(csv, args.kernels)
        artifact = os.path.join(tmp, "kernels.json")
        subprocess.run([CAPTURE, "import", csv, "-o", artifact], check=True,
                       capture_output=True)
        mb = os.path.getsize(artifact) / 1e6
        print(f"artifact: {args.kernels} kernels of one launch, {mb:.1f} MB; "
              f"goal: under {GOAL_S:.0f} s and {GOAL_X:.0f} x the artifact")
        for form in FORMS:
            runs = {name: [] for name, _ in builds}
            for _ in range(RUNS):
                for name, capture in builds:
                    runs[name].append(run(capture, artifact, form))
            medians = {}
            for name, capture in builds:
                wall, user, peak = (statistics.median(r[i] for r in runs[name]) for i in range(3))
                medians[name] = (wall, user, peak)
                met = "met" if wall < GOAL_S and peak <= GOAL_X * mb else "NOT met"
                print(f"{form:5} {name:5} wall {wall:5.2f} s, user {user:5.2f} s, peak RSS "
                      f"{peak:5.0f} MB = {peak / mb:4.1f} x the artifact ({met}; median of "
                      f"{RUNS}: {os.path.relpath(capture)})")
            if args.vs:
                a, b = medians["this"], medians["vs"]
                print(f"{form:5} this/vs: wall {a[0] / b[0]:.2f}, user {a[1] / b[1]:.2f}, "
                      f"peak {a[2] / b[2]:.2f}")


if __name__ == "__main__":
    main()
