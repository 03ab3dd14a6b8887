#!/usr/bin/env python3
"""Writes metric_units.txt, the base unit of each Nsight Compute metric, from the units row of
a `ncu --import REPORT --csv --page raw --print-units base` export (a `--set full` one, the
widest). A report file holds no unit names, so the report reader labels its values with this
table (see units.rs, which applies the same rules as derive() below).

Usage, from the repository root:
    python3 shared/src/read/ncu_rep/metric_units.py tests/fixtures/ncu-h200-gemms/gemms_full_raw.csv \
        > shared/src/read/ncu_rep/metric_units.txt
"""
import collections
import csv
import sys

ID_COLUMNS = 11
ROLLUPS = ("sum", "avg", "max", "min")


def split(name):
    """(counter, rollup, submetric) of `name`; rollup is None without one."""
    parts = name.split(".")
    for i, part in enumerate(parts):
        if i > 0 and part in ROLLUPS:
            return ".".join(parts[:i]), part, ".".join(parts[i + 1:])
    return name, None, None


def derive(unit, sub):
    """The unit of `counter.rollup.sub` from the counter's unit (units.rs: derive)."""
    if sub == "":
        return unit
    if sub.startswith("pct_of_peak"):
        return "%"
    if sub in ("per_second", "peak_sustained_elapsed.per_second"):
        return {"cycle": "hz", "": ""}.get(unit, unit + "/s")
    if sub in ("per_cycle_elapsed", "per_cycle_active", "peak_sustained"):
        return "" if unit == "" else unit + "/cycle"
    return ""


def counter_unit(unit, sub):
    """The counter's unit implied by one of its metrics, or None."""
    if sub == "":
        return unit
    if sub in ("per_second", "peak_sustained_elapsed.per_second"):
        if unit == "hz":
            return "cycle"
        return unit[:-2] if unit.endswith("/s") else None
    if sub in ("per_cycle_elapsed", "per_cycle_active", "peak_sustained"):
        return unit[:-6] if unit.endswith("/cycle") else None
    return None


def main(path):
    rows = csv.reader(open(path, newline=""))
    names = next(rows)[ID_COLUMNS:]
    units = next(rows)[ID_COLUMNS:]
    counters = collections.defaultdict(list)
    exact = {}
    for name, unit in zip(names, units):
        counter, rollup, sub = split(name)
        if rollup is None:
            if unit:
                exact[name] = unit
        else:
            counters[counter].append((name, sub, unit))
    table = {}
    for counter, metrics in counters.items():
        votes = collections.Counter(
            u for u in (counter_unit(unit, sub) for _, sub, unit in metrics) if u is not None
        )
        unit = votes.most_common(1)[0][0] if votes else ""
        if unit:
            table[counter + ".*"] = unit
        for name, sub, actual in metrics:
            if derive(unit, sub) != actual:
                exact[name] = actual
    table.update(exact)
    print("# Base unit of each Nsight Compute metric, as ncu 2025.3.1 prints it with")
    print("# --print-units base (H200, --set full). `COUNTER.*` gives a counter's unit, from")
    print("# which its rollups and rates follow (units.rs); a full name is taken as it is.")
    print("# Written by metric_units.py; edit that, not this.")
    for key in sorted(table):
        print(f"{key}\t{table[key]}")


main(sys.argv[1])
