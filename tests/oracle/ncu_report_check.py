"""Compares capture's reading of an .ncu-rep report with NVIDIA's ncu_report module.

Usage: ncu_report_check.py REPORT ARTIFACT CAPTURE

REPORT is the report, ARTIFACT what `capture import REPORT` wrote, CAPTURE the binary (for
`capture source`). Every rule finding of every launch must be equal: rule identifier,
section, type, title, message, estimated speedup and its kind, and the focus metrics with
their values. ncu_report lists a rule's table items (an item with no message, of type 0)
as findings too; they say nothing, and are left out on both sides. Prints one line per
report and every difference; exits 1 on any.
"""

import json
import re
import subprocess
import sys

import ncu_report

# ncu_report's message types and speedup kinds, by the details page's names for them.
TYPES = {1: "INF", 2: "OPT", 3: "WRN"}
SPEEDUP_KINDS = {1: "local", 2: "global"}


def plain(message):
    """A message with ncu's links as the details page prints them."""
    message = re.sub(r"@section:[^:@]*:([^@]*)@", r"\1", message)
    return re.sub(r"@url:([^:@]*):([^@]*)@", r"\1 (\2)", message)


def oracle_launches(path):
    """Each launch's findings, in report order, as ncu_report reads them."""
    ctx = ncu_report.load_report(path)
    out = []
    for ri in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(ri)
        for ai in range(rng.num_actions()):
            action = rng.action_by_idx(ai)
            rules = []
            for r in action.rule_results_as_dicts():
                msg = r.get("rule_message") or {}
                if msg.get("type", 0) == 0 and not msg.get("message"):
                    continue
                sp = r.get("speedup_estimation") or {}
                rules.append({
                    "rule": r["rule_identifier"],
                    "section": r["section_identifier"],
                    "type": TYPES.get(msg.get("type"), "type %s" % msg.get("type")),
                    "title": msg.get("title") or None,
                    "message": plain(msg.get("message", "")),
                    "speedup_pct": sp.get("speedup"),
                    "speedup_type": SPEEDUP_KINDS.get(sp.get("type")) if sp else None,
                    "focus": [(f["name"], f.get("value")) for f in r.get("focus_metrics", [])],
                })
            out.append({"name": action.name(), "rules": rules, "action": action})
    return out


def our_launches(artifact):
    """Each launch's findings by launch ID, as capture read them."""
    with open(artifact) as f:
        art = json.load(f)
    out = {}
    for k in art["kernels"]:
        for key in ("cold", "warm"):
            for launch in (k.get(key) or {}).get("launches", []):
                out[launch["id"]] = [{
                    "rule": r["name"],
                    "section": r["section"],
                    "type": r["kind"],
                    "title": r.get("title"),
                    "message": r["description"],
                    "speedup_pct": r.get("speedup_pct"),
                    "speedup_type": r.get("speedup_type"),
                    "focus": [(f["name"], f.get("value")) for f in r.get("focus_metrics", [])],
                } for r in launch.get("rules", [])]
    return out


def main():
    report, artifact, capture = sys.argv[1:4]
    theirs = oracle_launches(report)
    ours = our_launches(artifact)
    problems = []
    findings = 0
    if len(ours) != len(theirs):
        problems.append("launches: ours %d, ncu_report %d" % (len(ours), len(theirs)))
    for i, launch in enumerate(theirs):
        mine = ours.get(i)
        if mine is None:
            problems.append("launch %d (%s): not in the artifact" % (i, launch["name"]))
            continue
        if len(mine) != len(launch["rules"]):
            problems.append("launch %d: %d findings, ncu_report %d"
                            % (i, len(mine), len(launch["rules"])))
        for a, b in zip(mine, launch["rules"]):
            findings += 1
            for field in a:
                if a[field] != b[field]:
                    problems.append("launch %d %s %s: ours %r, ncu_report %r"
                                    % (i, b["rule"], field, a[field], b[field]))
    for p in problems[:40]:
        print("  " + p)
    print("%s: %d launches, %d rule findings compared with ncu_report: %s"
          % (report.rsplit("/", 1)[-1], len(theirs), findings,
             "equal" if not problems else "%d differences" % len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
