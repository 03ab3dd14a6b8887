#!/usr/bin/env python3
"""Measured determinism of the work vector (issue 37): reads repeat runs of programs and
prints, per part of the work vector (and for time beside it), how much it varied from run
to run; writes the tolerance file `capture diff --work-tolerance` reads (docs/ci.md).

    python3 tests/determinism/cv.py --capture target/release/capture \
        [--out tolerance.json] [--min-count 1e6] [--measured-on TEXT] \
        NAME=RUN1,RUN2,... [NAME=RUN1,RUN2,...]

Each group is one program's runs of the same code (artifacts: `capture import` an ncu
export first). Each run is read through `capture table --format json`, whose rows carry
each kernel's work vector (`work.total`): the reader counts nothing itself. A kernel is
compared across the runs of its group by its full name and its n-th occurrence. Where its
launch count or its launches' grid, block, registers or shared memory differ between runs, or it is missing from
some (an autotuner, such as torch.compile's max-autotune, picked another configuration, so
another compiled kernel ran under the same name: a change of code the work gate rightly
flags, not run-to-run noise), each configuration is compared only with the runs that ran
that same configuration, when there are at least --min-runs of them; the others are
reported and left out.

Per kernel and part: the coefficient of variation (population standard deviation over
the mean, percent) over the group's runs. Per part, over every kernel of every group: how
many kernels, how many repeated exactly, the median and the largest CV of kernels whose
mean is at least --min-count (in the part's unit), and the largest spread (max - min) of
the smaller kernels. The tolerance file gets, for each part, `cv_pct` (that largest CV),
`runs` (the fewest runs any of its comparisons had) and `floor` (that largest
small-kernel spread); and `time`: the kernels' time CVs' 90th percentile (`cv_pct`), largest
(`max_cv_pct`) and count (`kernels`), the drift `capture diff --noise-tolerance` uses.
"""
import argparse
import json
import math
import statistics
import subprocess
import sys


def table(capture, path):
    out = subprocess.run(
        [capture, "table", "--format", "json", path],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)


def parts_of(row):
    """The parts of a table row's work vector, by the key the tolerance file uses."""
    work = (row.get("work") or {}).get("total") or {}
    out = dict(work.get("counts") or {})
    for kind, flops in (work.get("flops") or {}).items():
        out["flops." + kind] = flops
    return out, work.get("launches")


def kernels_of(doc):
    """(name, n-th occurrence) -> (parts, launches, time_ms) for each row of a table."""
    seen = {}
    out = {}
    for row in doc["kernels"]:
        n = seen.get(row["name"], 0)
        seen[row["name"]] = n + 1
        parts, launches = parts_of(row)
        out[(row["name"], n)] = (parts, launches, row.get("time_ms"))
    return out


# The launch configuration beside grid and block: two builds of one Triton kernel with
# another BLOCK_K or num_stages can share grid and block and differ here.
CONFIG_COUNTERS = ("launch__registers_per_thread", "launch__shared_mem_per_block")


def shapes_of(path):
    """Kernel name -> the sorted (grid, block, registers, shared memory) of its launches,
    from the artifact itself."""
    with open(path) as f:
        doc = json.load(f)
    out = {}
    for k in doc.get("kernels", []):
        for cache in ("cold", "warm"):
            rec = k.get(cache) or {}
            for launch in rec.get("launches", []):
                values = {m["name"]: m.get("value") for m in launch.get("sections") or []}
                shape = (tuple(launch.get("grid") or ()), tuple(launch.get("block") or ())) \
                    + tuple(values.get(c) for c in CONFIG_COUNTERS)
                out.setdefault(k["name"], []).append(shape)
    return {name: sorted(v) for name, v in out.items()}


def cv_pct(values):
    mean = sum(values) / len(values)
    if mean == 0:
        return 0.0 if all(v == 0 for v in values) else math.inf
    return 100.0 * statistics.pstdev(values) / abs(mean)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--capture", required=True, help="the capture binary")
    ap.add_argument("--out", help="write the tolerance file here")
    ap.add_argument("--min-count", type=float, default=1e6,
                    help="kernels below this mean (in the part's unit) set the floor, not the CV")
    ap.add_argument("--min-runs", type=int, default=3,
                    help="the fewest runs of one configuration of a kernel that are compared")
    ap.add_argument("--measured-on", default=None, help="what the runs were measured on")
    ap.add_argument("groups", nargs="+", help="NAME=RUN1,RUN2,...")
    args = ap.parse_args()

    per_part = {}  # key -> list of (cv, mean, spread, program, kernel, runs)
    kernel_cvs = {}  # (program, kernel) -> part -> CV
    time_cvs = []
    for group in args.groups:
        name, _, runs = group.partition("=")
        paths = [p for p in runs.split(",") if p]
        if len(paths) < 2:
            sys.exit(f"{group}: a group needs two runs or more")
        docs = [kernels_of(table(args.capture, p)) for p in paths]
        shapes = [shapes_of(p) for p in paths]
        keys = list(dict.fromkeys(k for d in docs for k in d))
        for key in keys:
            by_config = {}  # (launches, shapes) -> run indices that ran it
            for i, d in enumerate(docs):
                if key in d:
                    config = (d[key][1], repr(shapes[i].get(key[0])))
                    by_config.setdefault(config, []).append(i)
            compared = [ix for ix in by_config.values() if len(ix) >= args.min_runs]
            present = sum(len(ix) for ix in by_config.values())
            if len(by_config) > 1 or present < len(docs):
                sizes = sorted((len(ix) for ix in by_config.values()), reverse=True)
                print(f"{name}: {key[0][:60]} #{key[1]}: {len(by_config)} configuration(s) "
                      f"(launch count, grid, block, registers, shared memory) over {present} of {len(docs)} runs, "
                      f"runs each {sizes}: another compiled kernel under the same name; "
                      f"{len(compared)} compared within their own runs, the rest left out")
            for j, ix in enumerate(compared):
                label = key[0] if len(compared) == 1 else f"{key[0]} [configuration {j + 1}]"
                sides = [docs[i][key] for i in ix]
                times = [s[2] for s in sides]
                if all(t is not None for t in times):
                    time_cvs.append(cv_pct(times))
                common = set(sides[0][0])
                for s in sides[1:]:
                    common &= set(s[0])
                for part in sorted(common):
                    values = [s[0][part] for s in sides]
                    mean = sum(values) / len(values)
                    per_part.setdefault(part, []).append(
                        (cv_pct(values), mean, max(values) - min(values), name, label,
                         len(values)))
                    kernel_cvs.setdefault((name, label), {})[part] = cv_pct(values)

    print("\nper program: runs, kernels compared, and the largest CV % (any size) of each part "
          "that is not exact everywhere")
    for group in args.groups:
        name = group.partition("=")[0]
        mine = {k: v for (g, k), v in kernel_cvs.items() if g == name}
        parts = sorted({p for v in mine.values() for p in v})
        moved = [(p, max(v.get(p, 0.0) for v in mine.values())) for p in parts]
        moved = [f"{p} {c:.4f}" for p, c in moved if c > 0]
        runs = len([x for x in group.partition("=")[2].split(",") if x])
        print(f"  {name}: {runs} runs, {len(mine)} kernel configurations; "
              + ("; ".join(moved) if moved else "every part exact"))

    print(f"\n{'part':28s} {'kernels':>7s} {'exact':>6s} {'median CV %':>11s} "
          f"{'max CV %':>9s} {'small-kernel spread':>19s}  (CV over kernels with mean >= "
          f"{args.min_count:g})")
    components = {}
    for part in sorted(per_part):
        rows = per_part[part]
        exact = sum(1 for r in rows if r[2] == 0)
        big = [r for r in rows if r[1] >= args.min_count]
        small = [r for r in rows if r[1] < args.min_count]
        cvs = sorted(r[0] for r in big)
        median = statistics.median(cvs) if cvs else 0.0
        largest = max(cvs) if cvs else 0.0
        floor = max((r[2] for r in small), default=0.0)
        print(f"{part:28s} {len(rows):7d} {exact:6d} {median:11.4f} {largest:9.4f} {floor:19g}")
        if largest > 0 or floor > 0:
            components[part] = {"cv_pct": round(largest, 6), "runs": min(r[5] for r in rows),
                                "floor": floor}
    if time_cvs:
        print(f"{'time (beside)':28s} {len(time_cvs):7d} {'':6s} "
              f"{statistics.median(time_cvs):11.4f} {max(time_cvs):9.4f}")
    if args.out:
        doc = {"work_tolerance": 1, "sigmas": 3.0, "components": components}
        if time_cvs:
            # The time spread `capture diff --noise-tolerance` widens its bands by: the 90th
            # percentile of the kernels' time CVs (nine kernels in ten drift less).
            ordered = sorted(time_cvs)
            p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
            doc["time"] = {"cv_pct": round(p90, 6), "max_cv_pct": round(max(time_cvs), 6),
                           "kernels": len(time_cvs)}
        if args.measured_on:
            doc["measured_on"] = args.measured_on
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=2, sort_keys=True)
            f.write("\n")
        print(f"\nwrote {args.out}: {len(components)} part(s) with a spread; the others "
              f"repeated exactly and stay exact")


if __name__ == "__main__":
    main()
