#!/usr/bin/env python3
"""Writes the seed corpora of the fuzz targets under fuzz/corpus/<target>/ from the real
fixtures (tests/fixtures, tests/golden, site/samples), cut to a few kilobytes each so the
fuzzer spends its time on variations rather than on parsing 100 KB headers.

Run from anywhere: python3 fuzz/seeds.py. Standard library only. The corpus directory is
ignored by git; this script is how it is made again.
"""

import csv
import gzip
import io
import json
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
H200 = ROOT / "tests" / "fixtures" / "ncu-h200"
GUI = ROOT / "tests" / "fixtures" / "ncu-gui" / "probe_full_gui_raw.csv"
GOLDEN = ROOT / "tests" / "golden" / "probe_metrics.artifact.json"
SAMPLES = ROOT / "site" / "samples"
BERT_SOURCE = ROOT / "tests" / "fixtures" / "ncu-h200-bert" / "bert_full_source.csv.gz"
TWO_PROCESS = ROOT / "tests" / "fixtures" / "ncu-h200-reports" / "two_process.ncu-rep.gz"

# Identity columns of ncu CLI exports, then the metrics the model reads: every counter of
# the catalog, parsed from shared/src/model/counters.rs (its `ID = "name", "unit", "meaning";`
# entries), so this list is never typed again. fuzz/src/lib.rs keeps the same columns
# through shared::counters::find.
ID_COLUMNS = 11
COUNTERS_RS = ROOT / "shared" / "src" / "model" / "counters.rs"
MODEL_METRICS = set(re.findall(r'^\s*[A-Z][A-Z0-9_]* = "([^"]+)",', COUNTERS_RS.read_text(), re.M))
assert len(MODEL_METRICS) > 40, f"no counters parsed from {COUNTERS_RS}"
SEPARATOR = b"\xff"


def split_preamble(text):
    """(lines before the first CLI header, the CSV from the header on)."""
    at = text.find('"ID"')
    return text[:at], text[at:]


def write_csv(rows, delimiter=","):
    out = io.StringIO()
    csv.writer(out, delimiter=delimiter, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
    return out.getvalue()


def cut_raw(path, launches=None, keep_preamble=True):
    """A raw page with the identity columns and the model's metrics only."""
    preamble, body = split_preamble(path.read_text())
    rows = list(csv.reader(io.StringIO(body)))
    header = rows[0]
    keep = [i for i, name in enumerate(header)
            if i < ID_COLUMNS or name in MODEL_METRICS]
    data = rows[2:] if launches is None else rows[2:2 + launches]
    cut = [[row[i] for i in keep if i < len(row)] for row in [header, rows[1]] + data]
    return (preamble if keep_preamble else "") + write_csv(cut)


def head_lines(path, count):
    return "".join(path.read_text().splitlines(keepends=True)[:count])


def slim_timing(timing):
    if timing:
        timing["samples_ms"] = timing["samples_ms"][:5]
    return timing


def slim_launch(launch, keep_columns=None, sections=8, rules=2):
    """Keeps the model's metrics, and the first few section rows and rules. Schema 1 has a
    map of metrics per launch; schema 2 an array against the set's metric_columns."""
    metrics = launch.get("metrics", {})
    if isinstance(metrics, dict):
        launch["metrics"] = {k: v for k, v in metrics.items() if k in MODEL_METRICS}
    else:
        launch["metrics"] = [metrics[i] for i in keep_columns if i < len(metrics)]
    launch["sections"] = launch.get("sections", [])[:sections]
    launch["rules"] = launch.get("rules", [])[:rules]
    return launch


def slim_set(counter_set):
    columns = counter_set.get("metric_columns")
    keep = None
    if columns is not None:
        keep = [i for i, c in enumerate(columns) if c["name"] in MODEL_METRICS]
        counter_set["metric_columns"] = [columns[i] for i in keep]
    counter_set["launches"] = [slim_launch(l, keep) for l in counter_set["launches"][:2]]


def slim_artifact(path, kernels=3, counters=True):
    artifact = json.loads(path.read_text())
    artifact["kernels"] = artifact["kernels"][:kernels]
    for kernel in artifact["kernels"]:
        slim_timing(kernel.get("timing"))
        for cache in ("cold", "warm"):
            if not counters:
                kernel[cache] = None
            elif kernel.get(cache):
                slim_set(kernel[cache])
    if artifact.get("ceilings"):
        artifact["ceilings"]["measurements"] = artifact["ceilings"]["measurements"][:2]
        for measurement in artifact["ceilings"]["measurements"]:
            slim_timing(measurement["timing"])
    artifact["provenance"]["ncu_commands"] = artifact["provenance"]["ncu_commands"][:1]
    return json.dumps(artifact, separators=(",", ":")).encode()


def varint(data, at):
    """A protobuf varint at `at`: (value, offset after it)."""
    value, shift = 0, 0
    while True:
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, at


def payload_size(header):
    """Field 5 (payload bytes) of a report's block header, 0 when absent."""
    at, size = 0, 0
    while at < len(header):
        key, at = varint(header, at)
        kind = key & 7
        if kind == 0:
            value, at = varint(header, at)
            if key >> 3 == 5:
                size = value
        elif kind == 1:
            at += 8
        elif kind == 5:
            at += 4
        elif kind == 2:
            length, at = varint(header, at)
            at += length
        else:
            raise ValueError(f"wire type {kind} in a block header")
    return size


def report_frames(report):
    """Where each frame of a report ends: the file header, then each block header and each
    size-prefixed message of its payload."""
    u32 = lambda at: int.from_bytes(report[at:at + 4], "little")
    at = 8 + u32(4)
    ends = [at]
    while at + 4 <= len(report):
        header = report[at + 4:at + 4 + u32(at)]
        at += 4 + len(header)
        ends.append(at)
        end = at + payload_size(header)
        while at < end:
            at += 4 + u32(at)
            ends.append(at)
    return ends


def write(target, name, data):
    directory = CORPUS / target
    directory.mkdir(parents=True, exist_ok=True)
    (directory / name).write_bytes(data if isinstance(data, bytes) else data.encode())


def main():
    details = H200 / "probe_full_details.csv"
    details_stdout = H200 / "probe_sections_details_base_units_with_stdout.csv"
    raw_stdout = H200 / "probe_metrics_raw_with_stdout.csv"
    raw_full = H200 / "probe_full_raw.csv"

    # ncu_read_export: whole inputs of every shape.
    exports = {
        "gui": GUI.read_text(),
        "gui_crlf": GUI.read_text().replace("\n", "\r\n"),
        "details": head_lines(details, 25),
        "details_stdout": head_lines(details_stdout, 30),
        "details_semicolon": write_csv(list(csv.reader(io.StringIO(head_lines(details, 12)))), ";"),
        "raw_stdout": cut_raw(raw_stdout),
        "raw_full": cut_raw(raw_full),
        "raw_sample": cut_raw(SAMPLES / "h200-ncu-cold-raw.csv", launches=3),
        "raw_gpt2": cut_raw(SAMPLES / "h200-gpt2-bf16-ncu-cold-raw.csv", launches=3),
        "details_gpt2": head_lines(ROOT / "tests" / "fixtures" / "ncu-h200-torch" / "gpt2_bf16_profile_details.csv", 10),
    }
    for name, text in exports.items():
        write("ncu_read_export", name, text)

    # ncu_structured: a prefix choice byte (see structured_prefixes in fuzz/src/lib.rs), then
    # what follows that prefix in the fixture.
    _, raw_body = split_preamble(raw_stdout.read_text())
    raw_lines = raw_body.splitlines(keepends=True)
    cut_lines = cut_raw(raw_stdout, keep_preamble=False).splitlines(keepends=True)
    details_lines = head_lines(details, 30).splitlines(keepends=True)
    gui_lines = GUI.read_text().splitlines(keepends=True)
    structured = {
        "raw_units_and_rows": b"\x00" + "".join(raw_lines[1:]).encode(),
        "raw_rows": b"\x01" + "".join(raw_lines[2:]).encode(),
        "raw_cut_rows": b"\x02" + "".join(cut_lines[2:]).encode(),
        "details_rows": b"\x03" + "".join(details_lines[1:]).encode(),
        "gui_rest": b"\x04" + "".join(gui_lines[1:]).encode(),
    }
    for name, data in structured.items():
        write("ncu_structured", name, data)

    # artifact_json: real artifacts, slimmed.
    write("artifact_json", "golden_import", slim_artifact(GOLDEN, kernels=2))
    write("artifact_json", "run", slim_artifact(SAMPLES / "h200.json", kernels=2))
    write("artifact_json", "profile_gpt2", slim_artifact(SAMPLES / "h200-gpt2-bf16.json", kernels=2))
    write("artifact_json", "minimal", '{"schema": 1, "kernels": [{"name": "k", "function": "k"}]}')

    # merge_table: operation byte, artifact, then exports, separated by 0xFF.
    timings = slim_artifact(SAMPLES / "h200.json", kernels=3, counters=False)
    cold_raw = cut_raw(SAMPLES / "h200-ncu-cold-raw.csv", launches=3).encode()
    warm_raw = cut_raw(SAMPLES / "h200-ncu-warm-raw.csv", launches=3).encode()
    cold_details = head_lines(SAMPLES / "h200-ncu-cold-details.csv", 40).encode()
    merges = {
        "import_raw": b"\x00" + SEPARATOR + cut_raw(raw_stdout).encode(),
        "import_raw_and_details": b"\x00" + SEPARATOR + cold_raw + SEPARATOR + cold_details,
        "import_gui": b"\x00" + SEPARATOR + GUI.read_bytes(),
        "attach_cold": b"\x01" + timings + SEPARATOR + cold_raw,
        "attach_warm": b"\x02" + timings + SEPARATOR + warm_raw,
        "attach_both": b"\x03" + timings + SEPARATOR + cold_raw + SEPARATOR + cold_details,
    }
    for name, data in merges.items():
        write("merge_table", name, data)

    # ncu_rep: the two-process report cut after its session, inside and after its first
    # result (one complete result, a cut one), and after its second process's first result.
    report = gzip.decompress(TWO_PROCESS.read_bytes())
    ends = report_frames(report)
    # Ends of: file header, session block, source block header, source, result block header.
    first_result = ends[4]
    cuts = {
        "session_only": ends[1],
        "first_result_cut": first_result + 2000,
        "one_result": ends[5],
        "second_process_first_result": ends[16],
    }
    for name, cut in cuts.items():
        write("ncu_rep", name, report[:cut])

    # source_page: the first launches of the BERT source page (SASS with per-instruction
    # counters), cut to whole lines.
    page = gzip.decompress(BERT_SOURCE.read_bytes()).decode()
    lines = page.splitlines(keepends=True)
    starts = [i for i, l in enumerate(lines) if l.startswith('"Kernel Name"')]
    write("source_page", "one_launch_head", "".join(lines[:min(40, starts[1])]).encode())
    write("source_page", "two_launches_heads",
          "".join(lines[:30] + lines[starts[1]:starts[1] + 30]).encode())

    for target in sorted(p for p in CORPUS.iterdir() if p.is_dir()):
        sizes = sorted(f.stat().st_size for f in target.iterdir())
        print(f"{target.name}: {len(sizes)} seeds, {min(sizes)}..{max(sizes)} bytes")


if __name__ == "__main__":
    main()
