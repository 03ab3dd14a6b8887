"""Compares a trace artifact (capture trace) with ncu's duration pass of the same program
(`ncu --metrics gpu__time_duration.sum --csv --page raw --print-units base`), launch for
launch: the trace's kernels in launch order against ncu's IDs, by kernel name, grid and
block; then each kernel name's median duration in both (ncu replays each launch alone, the
trace times the plain run).

    python3 tests/trace/compare_ncu.py TRACE.json[.gz] NCU_RAW.csv[.gz]
"""
import csv
import gzip
import io
import json
import statistics
import sys


def opened(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return raw.decode("utf-8", "replace")


def ncu_launches(path):
    text = opened(path)
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if l.startswith('"ID"'))
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    head = rows[0]
    col = {h: i for i, h in enumerate(head)}
    out = []
    for r in rows[1:]:
        if len(r) != len(head) or not r[col["ID"]].isdigit():
            continue  # the units row
        grid = tuple(int(x) for x in r[col["Grid Size"]].strip("()").split(","))
        block = tuple(int(x) for x in r[col["Block Size"]].strip("()").split(","))
        out.append((r[col["Kernel Name"]], grid, block, float(r[col["gpu__time_duration.sum"]].replace(",", ""))))
    return out


def trace_launches(path):
    a = json.loads(opened(path))
    t = a["trace"]
    s = t["strings"]
    return [
        (s[k["name"]], tuple(k["grid"]), tuple(k["block"]), k["end_ns"] - k["start_ns"])
        for k in t["kernels"]
    ]


def base(name):
    """A kernel's base name: its last identifier before template or parameter lists, the
    one part every demangler writes alike (ncu's and cpp_demangle's differ in the rest:
    `{lambda(float)#1}` against `[lambda(float) (instance 1)]`, inline namespaces)."""
    name = name.removeprefix("void ")
    cut = min([i for i in (name.find("<"), name.find("(")) if i >= 0] or [len(name)])
    return name[:cut].split("::")[-1].strip()


def main():
    tr, nc = trace_launches(sys.argv[1]), ncu_launches(sys.argv[2])
    print(f"launches: trace {len(tr)}, ncu {len(nc)}")
    key = lambda l: (base(l[0]), l[1], l[2])
    same = sum(1 for a, b in zip(tr, nc) if key(a) == key(b))
    print(f"launch for launch: base name, grid and block equal on {same} of {min(len(tr), len(nc))}")
    first = next((i for i, (a, b) in enumerate(zip(tr, nc)) if key(a) != key(b)), None)
    if first is not None:
        print(f"first difference at launch {first}: trace {key(tr[first])} / ncu {key(nc[first])}")
    tr = [(key(l), *l[1:]) for l in tr]
    nc = [(key(l), *l[1:]) for l in nc]
    by = {}
    for side, launches in ((0, tr), (1, nc)):
        for name, _, _, d in launches:
            by.setdefault(name, ([], []))[side].append(d)
    rows = []
    for name, (a, b) in by.items():
        if a and b:
            rows.append((sum(b), name, statistics.median(a), statistics.median(b), len(a), len(b)))
    rows.sort(reverse=True)
    diffs = []
    print("median ns (trace / ncu replay), launches, base name, grid, block")
    for total, name, ma, mb, na, nb in rows[:12]:
        print(f"{ma:10.0f} {mb:10.0f} {100 * (ma - mb) / mb:+6.1f} %  {na:5d} {nb:5d}  {name[0][:60]} {name[1]} {name[2]}")
    for total, name, ma, mb, na, nb in rows:
        diffs.append(100 * (ma - mb) / mb)
    diffs.sort()
    print(f"per kernel base name and shape, trace median against ncu median: {len(diffs)} names, median {statistics.median(diffs):+.1f} %, range {diffs[0]:+.1f} % to {diffs[-1]:+.1f} %")
    st, sn = sum(x[3] for x in tr), sum(x[3] for x in nc)
    print(f"summed kernel time: trace {st / 1e6:.3f} ms, ncu {sn / 1e6:.3f} ms ({100 * (st - sn) / sn:+.1f} %)")


main()
