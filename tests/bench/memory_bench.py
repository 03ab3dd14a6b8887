#!/usr/bin/env python3
"""Memory benchmark: the peak resident memory of `capture import` on the shapes of issue 25
where memory ran far above the input, as a ratio to the input's size (goal: at most 10 x).

The inputs are generated into a temporary folder (nothing is committed), shaped as ncu
2025.3.1 writes them:

- `kernels`: a raw CSV page of 200,000 launches of 200,000 distinct kernels, each row the
  launch ID, the process ID, the kernel name and its DRAM bytes (the narrowest raw page the
  reader takes: every launch is a kernel record of its own, so per-kernel costs dominate);
- `report`: an `.ncu-rep` report of 1,000,000 tiny results (a kernel name and one metric
  each) in 1,000 blocks of one process, built field by field as `shared/tests/growth.rs`
  builds its reports;
- `one_id`: a raw CSV page of 1,000,000 rows that all carry launch ID 0 of one kernel, each
  with its own DRAM bytes (kept as distinct launches, one warning).

Each import runs RUNS times (default 1); the lowest peak RSS and its wall time are printed
with the ratio peak / input size. Needs /usr/bin/time (`apt-get install time`). Usage:
    cargo build --release -p capture && python3 tests/bench/memory_bench.py [CASE]...
"""

import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CAPTURE = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")),
                       "release/capture")
RUNS = int(os.environ.get("RUNS", "1"))


def kernels_csv(path, n=200_000):
    with open(path, "w") as f:
        f.write('"ID","Process ID","Kernel Name","dram__bytes_read.sum"\n"","","","byte"\n')
        for i in range(n):
            f.write(f'"{i}","1","kernel_{i}","{1024 + i}"\n')


def one_id_csv(path, n=1_000_000):
    with open(path, "w") as f:
        f.write('"ID","Process ID","Kernel Name","dram__bytes_read.sum"\n"","","","byte"\n')
        for i in range(n):
            f.write(f'"0","1","k","{1024 + i}"\n')


# Protobuf writers shared with the fuzz seeds (standard library only).
sys.path.insert(0, os.path.join(ROOT, "fuzz"))
from seeds import field_bytes as fb, framed, put_varint as varint  # noqa: E402


def fv(field, v):
    return varint(field << 3) + varint(v)


def process(pid):
    return fv(1, pid) + fb(2, b"127.0.0.1") + fb(3, b"/usr/bin/prog")


def report(path, n=1_000_000, per_block=1_000):
    """The header, a session block, then n results of process 1 in blocks of per_block."""
    dim = fv(1, 1) + fv(2, 1) + fv(3, 1)
    with open(path, "wb") as f:
        f.write(b"NVR\0" + framed(fv(1, 7)))
        session = fb(6, fv(1, 0) + fb(2, b"NVIDIA H200")) + fb(11, b"ncu -o r ./prog")
        f.write(framed(fv(1, 0) + fv(2, 0) + fb(3, session) + fv(5, 0) + fb(6, process(1))))
        table = fb(1, b"dram__bytes_read.sum")
        for start in range(0, n, per_block):
            payload = bytearray()
            for i in range(start, min(n, start + per_block)):
                name = f"k{i % 1000}".encode()
                metric = fv(1, 0) + fb(2, fv(5, 1000 + i))
                result = (fv(1, 1) + fb(5, name) + fb(6, name) + fb(7, b"") + fb(10, dim)
                          + fb(11, dim) + fb(13, metric) + fv(22, 1) + fv(23, 7))
                payload += framed(result)
            count = min(n, start + per_block) - start
            header = (fv(1, 0) + fv(2, count) + fb(4, table if start == 0 else b"")
                      + fv(5, len(payload)) + fb(6, process(1)))
            f.write(framed(header) + bytes(payload))


CASES = {
    "kernels": ("kernels.csv", kernels_csv),
    "report": ("tiny.ncu-rep", report),
    "one_id": ("one_id.csv", one_id_csv),
}


def measure(path, out):
    """(peak RSS MB, wall s, capture's summary line) of the lowest-peak of RUNS imports."""
    best = None
    for _ in range(RUNS):
        proc = subprocess.run(["/usr/bin/time", "-f", "%M %e", CAPTURE, "import", path, "-o", out],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            sys.exit(f"capture import {path} failed ({proc.returncode}): {proc.stderr[-500:]}")
        kb, wall = proc.stderr.strip().splitlines()[-1].split()
        peak = int(kb) * 1024 / 1e6
        if best is None or peak < best[0]:
            best = (peak, float(wall), proc.stdout.strip())
    return best


def main():
    names = sys.argv[1:] or list(CASES)
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            file, make = CASES[name]
            path = os.path.join(tmp, file)
            make(path)
            mb = os.path.getsize(path) / 1e6
            peak, wall, said = measure(path, os.path.join(tmp, "a.json"))
            art = os.path.getsize(os.path.join(tmp, "a.json")) / 1e6
            print(f"{name:8} {mb:6.1f} MB input: peak RSS {peak:6.0f} MB = {peak / mb:5.1f} x "
                  f"the input; {wall:.1f} s; artifact {art:.0f} MB; {said}")
            os.remove(path)


if __name__ == "__main__":
    main()
