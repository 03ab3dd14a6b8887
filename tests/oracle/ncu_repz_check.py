"""Checks that a .ncu-repz (a report compressed with zstd) reads as its .ncu-rep, in
NVIDIA's ncu_report and in capture.

Usage: ncu_repz_check.py REPZ REP ARTIFACT_REPZ ARTIFACT_REP

ncu_report must read the same ranges and actions (kernel names) from both, with every metric
of every action (name and value as ncu_report prints it) and every rule result equal; the
artifacts `capture import` wrote of each must be equal but for their provenance and the file
names in their warnings. The rules, NVTX ranges and per-instruction figures of the .ncu-repz's
artifact are checked against ncu_report by ncu_report_check.py, as those of every report.
Prints one line; exits 1 on any difference.
"""

import json
import sys

import ncu_report


def oracle(path):
    """Each action's name, metrics and rule results, as ncu_report reads them."""
    ctx = ncu_report.load_report(path)
    out = []
    for ri in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(ri)
        for ai in range(rng.num_actions()):
            action = rng.action_by_idx(ai)
            metrics = {}
            for name in action.metric_names():
                metric = action.metric_by_name(name)
                metrics[name] = metric.as_string() if metric is not None else None
            rules = json.dumps(action.rule_results_as_dicts(), sort_keys=True, default=str)
            out.append((ri, action.name(), metrics, rules))
    return out


def artifact(path, repz_name, rep_name):
    """The artifact without its provenance, the .ncu-repz's file name made the .ncu-rep's."""
    with open(path, encoding="utf-8") as f:
        text = f.read().replace(repz_name, rep_name)
    value = json.loads(text)
    value.pop("provenance", None)
    return value


def main():
    repz, rep, artifact_repz, artifact_rep = sys.argv[1:5]
    problems = []
    theirs_z, theirs = oracle(repz), oracle(rep)
    if len(theirs_z) != len(theirs):
        problems.append("actions: %d in the .ncu-repz, %d in the .ncu-rep"
                        % (len(theirs_z), len(theirs)))
    metrics = 0
    for i, (a, b) in enumerate(zip(theirs_z, theirs)):
        if a[:2] != b[:2]:
            problems.append("action %d: %r in the .ncu-repz, %r in the .ncu-rep" % (i, a[:2], b[:2]))
        if a[2] != b[2]:
            differ = sorted(k for k in set(a[2]) | set(b[2]) if a[2].get(k) != b[2].get(k))
            problems.append("action %d: %d metrics differ, the first %s" % (i, len(differ), differ[:3]))
        if a[3] != b[3]:
            problems.append("action %d: the rule results differ" % i)
        metrics += len(a[2])
    ours_z = artifact(artifact_repz, repz.rsplit("/", 1)[-1], rep.rsplit("/", 1)[-1])
    ours = artifact(artifact_rep, "", "")
    launches = sum(len((k.get(key) or {}).get("launches", []))
                   for k in ours.get("kernels", []) for key in ("cold", "warm"))
    if ours_z != ours:
        problems.append("capture's artifacts of the two differ")
    for p in problems[:40]:
        print("  " + p)
    print("%s: %d actions and %d metrics (ncu_report), %d kernels and %d launches (capture) "
          "against %s: %s"
          % (repz.rsplit("/", 1)[-1], len(theirs), metrics, len(ours.get("kernels", [])),
             launches, rep.rsplit("/", 1)[-1],
             "equal" if not problems else "%d differences" % len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
