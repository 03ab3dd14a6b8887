"""Compares capture's reading of an .ncu-rep report with NVIDIA's ncu_report module.

Usage: ncu_report_check.py REPORT ARTIFACT CAPTURE [SOURCE_PAGE [CUDA_SASS_PAGE]]

REPORT is the report, ARTIFACT what `capture import REPORT` wrote, CAPTURE the binary (for
`capture source`), SOURCE_PAGE the report's `--page source --print-source sass` export
where there is one. Every rule finding of every launch must be equal: rule identifier,
section, type, title, message, estimated speedup and its kind, and the focus metrics with
their values. ncu_report lists a rule's table items (an item with no message, of type 0)
as findings too; they say nothing, and are left out on both sides. Every per-instruction
figure `capture source --all-launches --format json` gives must equal ncu_report's value
at that address (an address ncu_report has no value for must be 0 or absent in ours), and
every address ncu_report has a value for must be in ours; with SOURCE_PAGE, every SASS
text must equal `action.sass_by_pc`. The CUDA source line of every instruction (file and
line, from the report's line table) must equal `action.source_info(pc)`, and so must the
one `capture source` reads from CUDA_SASS_PAGE (`--print-source cuda,sass`) where given;
the line's text, where the report holds the file, must equal that line of
`action.source_files()`. Each launch's NVTX push/pop ranges (domain and name) must equal
`action.nvtx_state()`'s. With the environment variable NVDISASM (NVIDIA's disassembler),
the SASS text `capture source --nvdisasm NVDISASM` gives the report alone, with no page,
must equal `action.sass_by_pc` at every address with figures.
Prints one line per report and every difference; exits 1 on any.
"""

import json
import os
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
            out.append({"name": action.name(), "rules": rules, "action": action,
                        "nvtx": oracle_push_pop(action)})
    return out


def oracle_push_pop(action):
    """The launch's push/pop ranges as (domain, name), domain None for the default one."""
    state = action.nvtx_state()
    ranges = []
    if state is None:  # a report made without --nvtx
        return ranges
    for d in state.domains():
        domain = state.domain_by_id(d)
        name = domain.name()
        for r in domain.push_pop_ranges():
            ranges.append((None if name == "<default domain>" else name, r))
    return ranges


def artifact_launches(artifact):
    """Each launch of the artifact with its counter set, cold then warm, kernel by kernel."""
    with open(artifact) as f:
        art = json.load(f)
    for k in art["kernels"]:
        for key in ("cold", "warm"):
            s = k.get(key) or {}
            for launch in s.get("launches", []):
                yield s, launch


def our_push_pop(artifact):
    """Each launch's push/pop ranges as (domain, name), by launch ID, as capture read them."""
    out = {}
    for s, launch in artifact_launches(artifact):
        i = launch.get("nvtx")
        ranges = s["nvtx_ranges"][i].get("push_pop", []) if i is not None else []
        out[launch["id"]] = [(r.get("domain"), r["name"]) for r in ranges]
    return out


def our_launches(artifact):
    """Each launch's findings by launch ID, as capture read them."""
    out = {}
    for _, launch in artifact_launches(artifact):
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


# ncu's per-instruction metrics and the fields of `capture source --format json`.
PER_PC = {
    "inst_executed": "inst_executed",
    "thread_inst_executed": "thread_inst_executed",
    "smsp__pcsamp_sample_count": "samples",
    "memory_l1_tag_requests_global": "l1_tag_requests_global",
    "memory_l2_theoretical_sectors_global": "l2_sectors_global",
    "memory_l2_theoretical_sectors_global_ideal": "l2_sectors_global_ideal",
    "derived__memory_l2_theoretical_sectors_global_excessive": "l2_sectors_global_excessive",
    "memory_l1_wavefronts_shared": "l1_wavefronts_shared",
    "memory_l1_wavefronts_shared_ideal": "l1_wavefronts_shared_ideal",
    "derived__memory_l1_wavefronts_shared_excessive": "l1_wavefronts_shared_excessive",
    "derived__memory_l1_conflicts_shared_nway": "l1_conflicts_shared_nway",
    "smsp__branch_targets_threads_divergent": "divergent_branches",
}
STALL_PREFIX = "smsp__pcsamp_warps_issue_stalled_"
STALLS = ["barrier", "branch_resolving", "dispatch_stall", "drain", "imc_miss", "lg_throttle",
          "long_scoreboard", "math_pipe_throttle", "membar", "mio_throttle", "misc",
          "no_instructions", "not_selected", "selected", "short_scoreboard", "sleeping",
          "tex_throttle", "wait", "warpgroup_arrive", "gmma"]


def per_pc(metric):
    """A per-instruction metric's values by address."""
    if metric is None or not metric.has_correlation_ids():
        return {}
    ids = metric.correlation_ids()
    return {ids.as_uint64(i): metric.as_double(i) for i in range(metric.num_instances())}


def check_source(report, theirs, capture, page, problems):
    """Compares every per-instruction figure; returns how many were compared."""
    cmd = [capture, "source", report, "--kernel", ".", "--all-launches", "--format", "json"]
    if page:
        cmd += ["--sass", page]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0 and "no launch has source counters" not in run.stderr:
        raise RuntimeError("%s: %s" % (" ".join(cmd), run.stderr))
    # A report without source counters (--set basic): ncu_report must have none either.
    ours = {l["launch"]: l for l in json.loads(run.stdout)} if run.returncode == 0 else {}
    compared = 0
    for i, launch in enumerate(theirs):
        action = launch["action"]
        mine = ours.get(i)
        if action.metric_by_name("inst_executed") is None:
            if mine is not None:
                problems.append("launch %d: source figures where ncu_report has none" % i)
            continue
        if mine is None:
            problems.append("launch %d: no source figures" % i)
            continue
        by_pc = {int(x["address"], 16): x for x in mine["instructions"]}
        wanted = [(name, field, None) for name, field in PER_PC.items()]
        wanted += [(STALL_PREFIX + r, None, r) for r in STALLS]
        for name, field, reason in wanted:
            values = per_pc(action.metric_by_name(name))
            for pc, want in values.items():
                row = by_pc.get(pc)
                if row is None:
                    problems.append("launch %d %#x: not in ours (%s)" % (i, pc, name))
                    continue
                got = row["stalls"].get(reason, 0.0) if reason else row.get(field)
                if reason and want == 0:
                    want = 0.0
                if got != want:
                    problems.append("launch %d %#x %s: ours %r, ncu_report %r"
                                    % (i, pc, name, got, want))
                compared += 1
            for pc, row in by_pc.items():
                if pc in values:
                    continue
                got = row["stalls"].get(reason) if reason else row.get(field)
                if got not in (None, 0, 0.0):
                    problems.append("launch %d %#x %s: ours %r, ncu_report none"
                                    % (i, pc, name, got))
        files = action.source_files()
        texts = {k: files[k].splitlines() for k in files}
        for pc, row in by_pc.items():
            info = action.source_info(pc)
            want = (info.file_name(), info.line()) if info else (None, None)
            got = (row.get("file"), row.get("line"))
            if got != want:
                problems.append("launch %d %#x line: ours %r, ncu_report %r" % (i, pc, got, want))
            lines[0] += 1
            if want[0] is not None:
                lines[1] += 1
            # The line's text, where the report holds the file (--import-source yes).
            text = texts.get(want[0])
            want_text = text[want[1] - 1] if text and 0 < want[1] <= len(text) else None
            if row.get("cuda") != want_text:
                problems.append("launch %d %#x text: ours %r, ncu_report %r"
                                % (i, pc, row.get("cuda"), want_text))
            if want_text is not None:
                lines[2] += 1
        if page:
            for pc, row in by_pc.items():
                want = action.sass_by_pc(pc).strip()
                got = row.get("sass") or ""
                if got != want:
                    # The page was written by ncu 2025.3.1, ncu_report 2026.3.1 disassembles
                    # anew: a few operand spellings changed (`R24, gsb0` / `R24.gsb0`). The
                    # instruction itself (predicate and opcode) must be the same.
                    if opcode(got) != opcode(want):
                        problems.append("launch %d %#x sass: ours %r, ncu_report %r"
                                        % (i, pc, got, want))
                    else:
                        spelled[0] += 1
                compared += 1
    return compared


def check_disassembly(report, theirs, capture, problems):
    """Compares the SASS text `capture source --nvdisasm` gives every address with figures
    with ncu_report's (no source page); returns how many were compared, and which kinds of
    instruction (wgmma, TMA) were among them."""
    cmd = [capture, "source", report, "--kernel", ".", "--all-launches", "--format", "json",
           "--nvdisasm", NVDISASM]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        if "no launch has source counters" in run.stderr:
            return 0, set()
        raise RuntimeError("%s: %s" % (" ".join(cmd), run.stderr))
    ours = {l["launch"]: l for l in json.loads(run.stdout)}
    compared, kinds = 0, set()
    for i, launch in enumerate(theirs):
        mine = ours.get(i)
        if mine is None:
            continue
        for row in mine["instructions"]:
            pc = int(row["address"], 16)
            want = launch["action"].sass_by_pc(pc).strip()
            got = row.get("sass") or ""
            if got != want:
                problems.append("launch %d %#x sass (nvdisasm): ours %r, ncu_report %r"
                                % (i, pc, got, want))
            compared += 1
            kinds.update(k for k, ops in KINDS.items() if any(o in want for o in ops))
    return compared, kinds


# Instruction kinds named in the summary: Hopper's warpgroup MMA and tensor memory access.
KINDS = {"wgmma": ("HGMMA", "QGMMA", "IGMMA", "BGMMA"), "TMA": ("UTMALDG", "UTMASTG", "UBLKCP")}


def opcode(sass):
    """The predicate and opcode of a SASS line (`@!P2 NANOSLEEP.SYNCS`)."""
    words = sass.split()
    return words[:2] if words and words[0].startswith("@") else words[:1]


# Instructions whose operands the two disassemblers spell differently.
spelled = [0]
# nvdisasm (NVIDIA's disassembler), for the SASS text `capture source` gives a report
# alone: the NVDISASM environment variable, set by ncu_report_check.sh.
NVDISASM = os.environ.get("NVDISASM")
# Instructions whose CUDA line was compared, and how many of them have one.
lines = [0, 0, 0]


def check_cuda_sass_page(theirs, capture, cuda_page, problems):
    """Compares the file and line `capture source` reads from a cuda,sass page with
    ncu_report's; returns how many instructions were compared."""
    cmd = [capture, "source", cuda_page, "--kernel", ".", "--all-launches", "--format", "json"]
    pages = json.loads(subprocess.check_output(cmd))
    compared = 0
    if len(pages) != len(theirs):
        problems.append("cuda,sass page: %d launches, ncu_report %d" % (len(pages), len(theirs)))
    for i, (mine, launch) in enumerate(zip(pages, theirs)):
        action = launch["action"]
        for row in mine["instructions"]:
            pc = int(row["address"], 16)
            info = action.source_info(pc)
            want = (info.file_name(), info.line()) if info else (None, None)
            got = (row.get("file"), row.get("line"))
            if got != want:
                problems.append("cuda,sass page launch %d %#x: ours %r, ncu_report %r"
                                % (i, pc, got, want))
            compared += 1
    return compared


def main():
    report, artifact, capture = sys.argv[1:4]
    page = sys.argv[4] if len(sys.argv) > 4 else None
    cuda_page = sys.argv[5] if len(sys.argv) > 5 else None
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
    # NVTX: ncu_report lists each domain's ranges, so stacks are compared as domain order
    # then range order (one domain in every fixture).
    stacks = our_push_pop(artifact)
    nvtx = 0
    for i, launch in enumerate(theirs):
        mine = sorted(stacks.get(i, []), key=lambda r: r[0] or "")
        want = sorted(launch["nvtx"], key=lambda r: r[0] or "")
        nvtx += 1 if want else 0
        if mine != want:
            problems.append("launch %d NVTX push/pop: ours %r, ncu_report %r" % (i, mine, want))
    figures = check_source(report, theirs, capture, page, problems)
    from_page = check_cuda_sass_page(theirs, capture, cuda_page, problems) if cuda_page else 0
    disassembled, kinds = (check_disassembly(report, theirs, capture, problems) if NVDISASM
                           else (0, set()))
    for p in problems[:40]:
        print("  " + p)
    print("%s: %d launches, %d rule findings and %d per-instruction figures%s, %d CUDA lines "
          "(%d instructions with one, %d with its text)%s, %d NVTX push/pop stacks%s compared "
          "with ncu_report: %s"
          % (report.rsplit("/", 1)[-1], len(theirs), findings, figures,
             " (SASS text included; %d with operands spelled differently by ncu_report's "
             "newer disassembler, opcodes equal)" % spelled[0] if page else "",
             lines[0], lines[1], lines[2],
             " and %d lines of the cuda,sass page" % from_page if cuda_page else "",
             nvtx,
             ", %d instructions' SASS text from nvdisasm%s" % (
                 disassembled, " (%s among them)" % ", ".join(sorted(kinds)) if kinds else "")
             if NVDISASM else "",
             "equal" if not problems else "%d differences" % len(problems)))
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
