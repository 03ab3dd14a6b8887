#!/usr/bin/env python3
"""Memory benchmark of `capture source` (issue 39): its peak resident memory on the committed
reports with source counters, as they are (`.gz`) and un-gzipped, on a report of about 1 MB
and a gzip of it, and on a 1 MB gzip of printable junk, each as a ratio to the input's
un-gzipped size (goal: under 10 x; issue 39 measured 3.18 GB for 0.53 MB of report and
5.19 GB for a 1 MB `.gz`).

The inputs are made from the committed fixtures into a temporary folder (nothing is
committed): the ~1 MB report is the BERT-less suite report (`suite_src`) cut after its first
result block, a complete report of one launch (1.40 MB; it loads with the warning that the
command-line block is missing). The junk is 1 MB of gzip of printable text, in lines or in
one line, inflating to 300 MB and more.

Needs /usr/bin/time (`apt-get install time`). Usage:
    cargo build --release -p capture && python3 tests/bench/source_memory_bench.py
"""

import gzip
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                       "release/capture")
FIXTURES = os.path.join(ROOT, "tests/fixtures")
REPORTS = [
    "ncu-h200-suite-source/suite_src.ncu-repz",
    "ncu-h200-gemms/gemms_full.ncu-repz",
    "ncu-h200-bert/bert_full.ncu-repz",
]


# The report's frame readers of the fuzz seeds (standard library only).
sys.path.insert(0, os.path.join(ROOT, "fuzz"))
from seeds import fields, payload_size  # noqa: E402


def first_result_cut(report):
    """The report up to the end of its first block with results."""
    u32 = lambda at: int.from_bytes(report[at:at + 4], "little")
    at = 8 + u32(4)
    while at < len(report):
        header = report[at + 4:at + 4 + u32(at)]
        end = at + 4 + len(header) + payload_size(header)
        if any(n == 2 and k == 0 and v for n, k, v, _ in fields(header)):
            return report[:end]
        at = end
    sys.exit("no result block")


def junk_gz(path, target=1_000_000, line=b"abcdefghijklmnopqrstuvwxyz0123456789 not an export\n"):
    """Printable text (`line` repeated) whose gzip is about `target` bytes."""
    with gzip.open(path, "wb", compresslevel=9) as f:
        while os.path.getsize(path) < target:
            f.write(line * 200_000)
            f.flush()


def measure(path):
    """(peak RSS MB, wall s, exit code, last stderr line) of `capture source PATH --kernel .`."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%M %e", CAPTURE, "source", path, "--kernel", "."],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = proc.stderr.strip().splitlines()
    kb, wall = lines[-1].split()
    said = next((l for l in reversed(lines[:-1]) if not l.startswith("Command exited")), "")
    return int(kb) * 1024 / 1e6, float(wall), proc.returncode, said


def inflated_size(path):
    if not path.endswith(".gz"):
        return os.path.getsize(path)
    n = 0
    with gzip.open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            n += len(chunk)
    return n


def main():
    with tempfile.TemporaryDirectory() as tmp:
        inputs = []
        for rel in REPORTS:
            gz = os.path.join(FIXTURES, rel)
            plain = os.path.join(tmp, os.path.basename(rel)[:-3])
            with gzip.open(gz, "rb") as f, open(plain, "wb") as out:
                shutil.copyfileobj(f, out)
            inputs += [gz, plain]
        with gzip.open(os.path.join(FIXTURES, REPORTS[0]), "rb") as f:
            cut = first_result_cut(f.read())
        small = os.path.join(tmp, "suite_src_first_result.ncu-rep")
        with open(small, "wb") as f:
            f.write(cut)
        with gzip.open(small + ".gz", "wb") as f:
            f.write(cut)
        junk = os.path.join(tmp, "junk_lines.txt.gz")
        junk_gz(junk)
        one_line = os.path.join(tmp, "junk_one_line.txt.gz")
        junk_gz(one_line, line=b"abcdefghijklmnopqrstuvwxyz0123456789 ")
        inputs += [small, small + ".gz", junk, one_line]
        for path in inputs:
            size = os.path.getsize(path) / 1e6
            inflated = inflated_size(path) / 1e6
            peak, wall, code, said = measure(path)
            print(f"{os.path.basename(path):40} {size:7.2f} MB ({inflated:8.2f} MB un-gzipped): "
                  f"peak RSS {peak:6.1f} MB = {peak / inflated:6.2f} x; {wall:.2f} s; exit {code}"
                  + (f"; {said[:110]}" if code else ""))


if __name__ == "__main__":
    main()
