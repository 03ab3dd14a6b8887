#!/usr/bin/env python3
"""Import benchmark: `capture import` of a large raw export against Python reading it.

Makes two raw-page exports of about SIZE_MB (default 500) each, by repeating the data rows
of a real export with fresh launch IDs:

  * probe: the one full-set row of tests/fixtures/ncu-h200/probe_full_raw.csv (2,227
    metrics), the export issue 13 is judged on;
  * gemms: the six `--set full` rows of tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv
    (six cuBLAS/CUTLASS GEMMs, 2,227 metrics);
  * varied: the probe row again, but every launch with its own values in the columns that
    differ between launches of one kernel and shape in a real export
    (tests/fixtures/ncu-h200-torch/resnet18_full_raw.csv, PyTorch's ResNet-18: 27 % of
    the cells of such launches), each number there scaled by a factor of the launch. Real
    repeated launches look like this; the other two repeat rows exactly, the best case for
    the artifact and for the memory of the launches kept.

On each file, in one run, each command RUNS times (default 3) in turn, the median kept:

  * `capture import` (release build): wall and CPU time, peak resident memory, artifact size;
  * Python's csv module only iterating the rows (no number parsing, nothing kept);
  * Python's csv module doing the same job as the import (rows into per-launch dicts of
    numbers, the thousands separators stripped), on a tenth of the file and scaled (it needs
    some 10 x the file in memory);
  * pandas.read_csv of the file (thousands separators, the units row skipped), when pandas
    is installed (`pip install pandas`); skipped otherwise.

Every command runs as its own process, measured the same way: wall time around it, CPU time
(user + system) from the operating system's accounting of the child, peak memory from
/usr/bin/time. Ratios are of the medians: `x` is how many times faster capture is. Note
that both files repeat real rows, so every launch of a kernel is identical and the artifact
writes each kernel's values once (schema 3): the best case for its size; see docs/performance.md.
Usage:
    cargo build --release -p capture && python3 tests/bench/import_bench.py [SIZE_MB] [RUNS]
"""

import csv
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURES = {
    "probe": os.path.join(ROOT, "tests/fixtures/ncu-h200/probe_full_raw.csv"),
    "gemms": os.path.join(ROOT, "tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv"),
}
VARYING_FROM = os.path.join(ROOT, "tests/fixtures/ncu-h200-torch/resnet18_full_raw.csv")
CAPTURE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                       "release/capture")


def varying_names(path):
    """Metric columns whose cells differ between launches of one kernel and launch shape
    in the real export at `path`."""
    with open(path, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header, data = rows[0], rows[2:]
    at = {name: header.index(name) for name in ("Kernel Name", "Grid Size", "Block Size")}
    groups = {}
    for r in data:
        groups.setdefault(tuple(r[i] for i in at.values()), []).append(r)
    names = set()
    for launches in groups.values():
        for j in range(11, len(header)):
            if len({r[j] for r in launches}) > 1:
                names.add(header[j])
    return names


def scaled(cell, launch):
    """A number cell scaled by a factor of the launch, written as ncu writes it (the same
    decimals, thousands separators where it had them); other cells as they are."""
    try:
        v = float(cell.replace(",", ""))
    except ValueError:
        return cell
    if v != v or v in (float("inf"), float("-inf")):
        return cell
    v *= 1 + (launch * 7919 % 1000 + 1) / 10_000
    decimals = len(cell) - cell.index(".") - 1 if "." in cell else 0
    return f"{v:,.{decimals}f}" if "," in cell else f"{v:.{decimals}f}"


def generate(fixture, path, size_mb, vary=None):
    """The fixture's header and units rows, then its data rows in turn until SIZE_MB; the
    cells of the columns named in `vary` scaled per launch."""
    with open(fixture, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header, units, data = rows[0], rows[1], rows[2:]
    varied = [j for j, name in enumerate(header) if j >= 11 and name in (vary or ())]
    with open(path, "w", newline="") as out:
        w = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
        w.writerow(header)
        w.writerow(units)
        launches = 0
        while out.tell() < size_mb * 1_000_000:
            r = list(data[launches % len(data)])
            r[0] = str(launches)
            for j in varied:
                r[j] = scaled(r[j], launches)
            w.writerow(r)
            launches += 1
    return launches, len(header) - 11


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


def pandas_read(path):
    import pandas
    return len(pandas.read_csv(path, thousands=",", skiprows=[1], low_memory=False))


JOBS = {"iterate": python_iterate, "job": python_import, "pandas": pandas_read}


def has_pandas():
    try:
        import pandas  # noqa: F401
        return True
    except ImportError:
        return False


def run(cmd):
    """(wall s, CPU s, peak MB) of one command, as its own process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak_mb = int(proc.stderr.strip().splitlines()[-1]) * 1024 / 1e6
    return wall, cpu, peak_mb


def medians(samples):
    return tuple(statistics.median(s[i] for s in samples) for i in range(3))


def bench(name, fixture, size_mb, runs, tmp, vary=None):
    src = os.path.join(tmp, f"{name}-raw.csv")
    launches, metrics = generate(fixture, src, size_mb, vary)
    mb = os.path.getsize(src) / 1e6
    varied = f", {len(vary)} columns varied per launch" if vary else ""
    print(f"\n{name}: {mb:.1f} MB, {launches} launches x {metrics:,} metrics "
          f"(from {os.path.relpath(fixture, ROOT)}{varied}), median of {runs}")

    # Python on a tenth of the file for the full job (it needs ~10 x the file in RAM),
    # scaled: the per-byte cost is flat.
    part = os.path.join(tmp, f"{name}-part.csv")
    with open(src, newline="") as f, open(part, "w", newline="") as g:
        limit = os.path.getsize(src) // 10
        for line in f:
            g.write(line)
            if g.tell() >= limit:
                break
    part_scale = mb / (os.path.getsize(part) / 1e6)

    out = os.path.join(tmp, f"{name}.json")
    me = [sys.executable, os.path.abspath(__file__), "--run"]
    commands = {
        "capture": [CAPTURE, "import", src, "-o", out],
        "iterate": me + ["iterate", src],
        "job": me + ["job", part],
    }
    if has_pandas():
        commands["pandas"] = me + ["pandas", src]
    samples = {k: [] for k in commands}
    for _ in range(runs):
        # In turn, so that a change in the machine's load falls on all of them alike.
        for key, cmd in commands.items():
            samples[key].append(run(cmd))
    m = {k: medians(v) for k, v in samples.items()}
    wall, cpu, peak = m["capture"]
    print(f"  capture import: wall {wall:.2f} s ({mb / wall:.0f} MB/s), CPU {cpu:.2f} s, "
          f"peak RSS {peak:.0f} MB ({peak / mb:.2f} x the file); "
          f"artifact {os.path.getsize(out) / 1e6:.1f} MB")
    rows = [("python csv, rows only (no number parsing)", m["iterate"], 1.0),
            ("python csv, same job (rows to dicts of floats)", m["job"], part_scale)]
    if "pandas" in m:
        rows.append(("pandas.read_csv", m["pandas"], 1.0))
    else:
        print("  pandas.read_csv: skipped (pandas not installed: pip install pandas)")
    for label, (w, c, p), scale in rows:
        w, c = w * scale, c * scale
        note = f" (measured on {mb / part_scale:.0f} MB, scaled)" if scale != 1.0 else ""
        print(f"  {label}: wall {w:.2f} s, CPU {c:.2f} s, peak {p:.0f} MB{note}; "
              f"capture is {w / wall:.2f} x faster (wall), {c / cpu:.2f} x (CPU)")


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--run":
        JOBS[sys.argv[2]](sys.argv[3])
        return
    size_mb = int(sys.argv[1]) if len(sys.argv) > 1 else 500
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    if not os.path.exists(CAPTURE):
        sys.exit(f"{CAPTURE} missing: run cargo build --release -p capture first")
    with tempfile.TemporaryDirectory() as tmp:
        for name, fixture in FIXTURES.items():
            bench(name, fixture, size_mb, runs, tmp)
        bench("varied", FIXTURES["probe"], size_mb, runs, tmp, varying_names(VARYING_FROM))


if __name__ == "__main__":
    main()
