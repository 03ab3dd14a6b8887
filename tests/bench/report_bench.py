#!/usr/bin/env python3
"""Report benchmark: `capture import` of an Nsight Compute report (`.ncu-rep`) against
`capture import` of the same report's raw CSV page, which imports to the same launches.

By default it times the `--set full` report of the six GEMMs
(tests/fixtures/ncu-h200-gemms/gemms_full.ncu-repz, un-gzipped into a temporary folder
first, 20.8 MB) against gemms_full_raw.csv. More pairs can be named on the command line,
each a report and its raw page, e.g. a `capture profile --keep-exports` report of a model.

Each import runs RUNS times (default 5); the fastest wall time and its CPU time (user +
system, which a busy machine disturbs less) are printed, with the peak resident memory.
Needs /usr/bin/time. Usage:
    cargo build --release -p capture && python3 tests/bench/report_bench.py [REPORT CSV]...
"""

import gzip
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GEMMS = os.path.join(ROOT, "tests/fixtures/ncu-h200-gemms")
CAPTURE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                       "release/capture")
RUNS = int(os.environ.get("RUNS", "5"))


def timed_import(path, out):
    """(wall s, CPU s, peak RSS MB, stdout) of the fastest of RUNS `capture import` runs."""
    best = None
    for _ in range(RUNS):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", CAPTURE, "import", path, "-o", out],
                              check=True, capture_output=True, text=True)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        peak = int(proc.stderr.strip().splitlines()[-1]) * 1024 / 1e6
        if best is None or wall < best[0]:
            best = (wall, cpu, peak, proc.stdout.strip())
    return best


def compare(report, csv, tmp):
    out = os.path.join(tmp, "a.json")
    lines = []
    for kind, path in (("report", report), ("raw CSV", csv)):
        mb = os.path.getsize(path) / 1e6
        wall, cpu, peak, said = timed_import(path, out)
        launches = said.split(" launch(es)")[0].rsplit(" ", 1)[-1]
        lines.append((kind, wall, cpu))
        print(f"  {kind:8} {os.path.basename(path)}: {mb:.1f} MB, {launches} launches: "
              f"wall {wall * 1e3:.0f} ms ({mb / wall:.0f} MB/s), CPU {cpu * 1e3:.0f} ms, "
              f"peak RSS {peak:.0f} MB")
    (_, r_wall, r_cpu), (_, c_wall, c_cpu) = lines
    print(f"  report / CSV: {r_wall / c_wall:.2f} x the wall time, {r_cpu / c_cpu:.2f} x the CPU time")


def main():
    if not os.path.exists(CAPTURE):
        sys.exit(f"{CAPTURE} missing: run cargo build --release -p capture first")
    pairs = sys.argv[1:]
    if len(pairs) % 2:
        sys.exit("name pairs: REPORT CSV ...")
    with tempfile.TemporaryDirectory() as tmp:
        gemms = os.path.join(tmp, "gemms_full.ncu-rep")
        with open(os.path.join(GEMMS, "gemms_full.ncu-repz"), "rb") as f, open(gemms, "wb") as g:
            g.write(gzip.decompress(f.read()))
        todo = [(gemms, os.path.join(GEMMS, "gemms_full_raw.csv"))]
        todo += list(zip(pairs[0::2], pairs[1::2]))
        print(f"capture import, fastest of {RUNS} runs each")
        for report, csv in todo:
            print(os.path.basename(report))
            compare(report, csv, tmp)


if __name__ == "__main__":
    main()
