#!/usr/bin/env python3
"""Import benchmark: `capture import` of a large raw export against Python's csv module.

Generates a raw-page export of about SIZE_MB (default 500) from the real full-set row of
tests/fixtures/ncu-h200/probe_full_raw.csv (the same row repeated with fresh launch IDs),
then measures, on the same file in the same run:

  * `capture import` (release build): wall time, throughput, peak resident memory;
  * Python's csv module doing the same job (rows into per-launch dicts of numbers, the
    thousands separators stripped): throughput;
  * Python's csv module only iterating the rows (no number parsing): throughput.

Ratios use CPU time (user + system), which a busy machine disturbs far less than wall
time; wall time is printed too. Needs /usr/bin/time for the peak memory. Usage:
    cargo build --release -p capture && python3 tests/bench/import_bench.py [SIZE_MB]
"""

import csv
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests/fixtures/ncu-h200/probe_full_raw.csv")
CAPTURE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                       "release/capture")


def generate(path, size_mb):
    with open(FIXTURE, newline="") as f:
        rows = list(csv.reader(f))
    header, units, row = rows[0], rows[1], rows[2]
    with open(path, "w", newline="") as out:
        w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        w.writerow(units)
        launches = 0
        while out.tell() < size_mb * 1_000_000:
            r = list(row)
            r[0] = str(launches)
            w.writerow(r)
            launches += 1
    return launches


def python_import(path):
    """The same job in Python: one dict of numbers (or text) per launch."""
    launches = []
    with open(path, newline="") as f:
        reader = csv.reader(f)
        header = next(reader)
        next(reader)  # units
        for row in reader:
            m = {}
            for name, cell in zip(header[11:], row[11:]):
                t = cell.replace(",", "")
                try:
                    m[name] = float(t)
                except ValueError:
                    m[name] = cell
            launches.append(m)
    return len(launches)


def python_iterate(path):
    n = 0
    with open(path, newline="") as f:
        for _ in csv.reader(f):
            n += 1
    return n


def cpu_timed(fn, *args):
    """CPU seconds of this process for fn(*args): robust on a shared, loaded machine."""
    t0 = time.process_time()
    fn(*args)
    return time.process_time() - t0


def main():
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    if not os.path.exists(CAPTURE):
        sys.exit(f"{CAPTURE} missing: run cargo build --release -p capture first")
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "big-raw.csv")
        launches = generate(src, size_mb)
        size = os.path.getsize(src)
        mb = size / 1e6
        print(f"export: {mb:.1f} MB, {launches} launches x 2,227 metrics (from {os.path.basename(FIXTURE)})")

        out = os.path.join(tmp, "big.json")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        proc = subprocess.run(["/usr/bin/time", "-f", "%M", CAPTURE, "import", src, "-o", out],
                              check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                              text=True)
        rust_s = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        rust_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        peak_mb = int(proc.stderr.strip().splitlines()[-1]) * 1024 / 1e6
        print(f"capture import: wall {rust_s:.2f} s ({mb / rust_s:.1f} MB/s), CPU {rust_cpu:.2f} s "
              f"({mb / rust_cpu:.1f} MB/s), peak RSS {peak_mb:.0f} MB ({peak_mb / mb:.2f} x the "
              f"file); artifact {os.path.getsize(out) / 1e6:.1f} MB")

        # Python on a tenth of the file for the full job (it needs ~10 x the file in RAM),
        # scaled: the per-byte cost is flat.
        part = os.path.join(tmp, "part.csv")
        with open(src, newline="") as f, open(part, "w", newline="") as g:
            limit = size // 10
            for line in f:
                g.write(line)
                if g.tell() >= limit:
                    break
        part_mb = os.path.getsize(part) / 1e6
        py_job_cpu = cpu_timed(python_import, part) * (mb / part_mb)
        py_iter_cpu = cpu_timed(python_iterate, src)
        print(f"python csv, same job (rows to dicts of floats): CPU {mb / py_job_cpu:.1f} MB/s "
              f"(measured on {part_mb:.0f} MB)")
        print(f"python csv, rows only (no number parsing): CPU {mb / py_iter_cpu:.1f} MB/s")
        print(f"ratio (CPU time) vs python csv doing the same job: {py_job_cpu / rust_cpu:.1f} x")
        print(f"ratio (CPU time) vs python csv only iterating rows: {py_iter_cpu / rust_cpu:.2f} x")

if __name__ == "__main__":
    main()
